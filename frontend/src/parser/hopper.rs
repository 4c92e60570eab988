//! Hopper forms that lower to what the model already has:
//!
//! - `mbarrier.pending_count.b64 d, state`: a register computation on the
//!   state an `mbarrier.arrive` returned (no memory access): the pending
//!   arrivals field of ptxmc's packed state ([`crate::ir::mbarrier`]).
//! - `mbarrier.inval{.shared{::cta}}.b64 [m]`: a weak 8-byte store of 0, the value
//!   of a never-initialized mbarrier (arrive-on operations on it are lost and
//!   its waits never complete, as before `mbarrier.init`).
//! - `cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [a], size{, policy}`:
//!   a prefetch into the L2 cache. 8.6 lists "async-proxy ... accesses by
//!   .async.bulk operations", but a prefetch reads nothing into a state space a
//!   thread can observe, so it makes no event.
//!
//! `docs/model-notes.md` ("Hopper forms") records the choices.

use super::instr::MemAddr;
use super::operand::OpKind;
use super::{PResult, Parser};
use crate::error::ParseError;
use crate::ir::{Access, AddrOperand, BinOp, Instr, Operand, Proxy, Sem, Span, StateSpace};

/// The forms handled here.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Form {
    PendingCount,
    Inval(StateSpace),
    Prefetch,
}

/// Reads the mnemonic; `None` when it is none of the forms, `Some(Err)` for
/// a malformed one.
fn form(text: &str) -> Option<Result<Form, String>> {
    let mut parts = text.split('.');
    let base = parts.next()?;
    let mods: Vec<&str> = parts.collect();
    match (base, mods.as_slice()) {
        ("mbarrier", ["pending_count", rest @ ..]) => Some(match rest {
            ["b64"] => Ok(Form::PendingCount),
            _ => Err("expected `mbarrier.pending_count.b64`".into()),
        }),
        ("mbarrier", ["inval", rest @ ..]) => Some(match rest {
            ["b64"] | ["shared", "b64"] | ["shared::cta", "b64"] => {
                Ok(Form::Inval(StateSpace::Shared))
            }
            _ => Err("expected `mbarrier.inval{.shared{::cta}}.b64`".into()),
        }),
        ("cp", ["async", "bulk", "prefetch", rest @ ..]) if rest.first() != Some(&"tensor") => {
            let ok = rest
                .iter()
                .all(|w| matches!(*w, "L2" | "global" | "L2::cache_hint"));
            Some(if ok && rest.contains(&"L2") {
                Ok(Form::Prefetch)
            } else {
                Err("expected `cp.async.bulk.prefetch.L2.global{.L2::cache_hint}`".into())
            })
        }
        _ => None,
    }
}

impl<'s> Parser<'s> {
    /// Parses one of the forms above of thread `t` (mnemonic `text` already
    /// read); `false` (nothing read) when `text` is none of them.
    pub(super) fn hopper_instruction(&mut self, t: usize, text: &str, span: Span) -> PResult<bool> {
        let Some(f) = form(text) else {
            return Ok(false);
        };
        let f = f.map_err(|reason| ParseError::bad_instruction(text, reason, span))?;
        let ops = self.operands(span.line)?;
        let c = super::instr::Check { instr: text, span };
        match f {
            Form::PendingCount => {
                let [d, s] = c.exactly::<2>(&ops, "2 operands (count, state)")?;
                let d = c.reg("destination", d)?;
                let s = c.reg("state", s)?;
                let d = self.b.reg(t, d);
                let s = self.b.reg(t, s);
                for (op, a, b) in [(BinOp::Shr, s, 16), (BinOp::And, d, 0xffff)] {
                    self.push(
                        t,
                        Instr::Op {
                            op,
                            dst: d,
                            a: Operand::Reg(a),
                            b: Operand::Imm(b),
                        },
                        span,
                    );
                }
            }
            Form::Inval(space) => {
                let [a] = c.exactly::<1>(&ops, "1 operand")?;
                // An mbarrier object is 8 bytes with an alignment of 8 bytes
                // (the ISA's mbarrier section): `[m+N]` is the object at
                // byte N of `m` for N a multiple of 8. The store below is no
                // mbarrier instruction for the checker, which therefore
                // cannot find a misaligned one undefined as it does for the
                // others (`docs/model-notes.md`, "Offsets on asynchronous
                // operands"): it is refused here, and a register-held
                // address whose offset is not a multiple of 8 when resolved.
                let misaligned = || {
                    c.bad(
                        "mbarrier",
                        "a location `[m]` or `[m+N]` with N a multiple of 8 (an mbarrier object is 8-byte aligned)",
                        a,
                    )
                };
                let at = match c.mem_addr(a)? {
                    MemAddr::Loc(_, off) if off % 8 != 0 => return Err(misaligned()),
                    at => at,
                };
                let addr = self.intern_addr_as(t, at, a, AddrOperand::Target, 8);
                self.push(
                    t,
                    Instr::Store {
                        sem: Sem::Weak,
                        scope: None,
                        proxy: Proxy::Generic,
                        space,
                        // The 8 bytes of the object (`.b64`).
                        access: Access {
                            bytes: 8,
                            vector: 1,
                        },
                        addr,
                        src: vec![Operand::Imm(0)],
                    },
                    span,
                );
            }
            Form::Prefetch => {
                let (a, n) = match ops.as_slice() {
                    [a, n] | [a, n, _] => (a, n),
                    _ => return Err(c.count("2 or 3 operands ([a], size{, policy})", ops.len())),
                };
                // No event: a register-held address needs no location.
                c.mem_addr(a)?;
                if !matches!(n.kind, OpKind::Int(_) | OpKind::Name(_)) {
                    return Err(c.bad("size", "a register or an integer", n));
                }
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(instr: &str) -> Vec<Instr> {
        let src =
            format!("PTX h {{ bar=0; a=0; }}\n P0@cta 0,gpu 0 ;\n {instr} ;\nexists (bar == 0)");
        let t = crate::parser::parse_round_trip(&src);
        assert!(t.unsupported.is_empty(), "{instr}: {:?}", t.unsupported);
        t.threads[0].code.iter().map(|s| s.instr.clone()).collect()
    }

    #[test]
    fn forms() {
        assert_eq!(code("mbarrier.pending_count.b64 %r1, %rd1").len(), 2);
        assert!(matches!(
            &code("mbarrier.inval.shared::cta.b64 [bar]")[..],
            [Instr::Store { sem: Sem::Weak, .. }]
        ));
        assert!(matches!(
            &code("mbarrier.inval.shared::cta.b64 [bar+8]")[..],
            [Instr::Store {
                access: Access { bytes: 8, .. },
                ..
            }]
        ));
        assert!(code("cp.async.bulk.prefetch.L2.global [a], 16").is_empty());
        assert!(code("cp.async.bulk.prefetch.L2.global.L2::cache_hint [a], 16, %rd2").is_empty());
        assert_eq!(form("cp.async.bulk.prefetch.tensor.2d.L2.global"), None);
        assert!(matches!(
            form("mbarrier.inval.shared::cluster.b64"),
            Some(Err(_))
        ));
        assert!(matches!(form("mbarrier.pending_count"), Some(Err(_))));
    }

    /// A misaligned `mbarrier.inval` offset is refused with its position
    /// (an mbarrier object is 8-byte aligned).
    #[test]
    fn misaligned_inval_is_an_error() {
        let src = "PTX h { bar=0; }\n P0@cta 0,gpu 0 ;\n mbarrier.inval.shared::cta.b64 [bar+4] ;\nexists (bar == 0)";
        let e = crate::parse(src).expect_err("misaligned");
        assert_eq!((e.span.line, e.span.col), (3, 33), "{e}");
        assert!(e.to_string().contains("multiple of 8"), "{e}");
    }
}
