//! Multimem addresses and instructions (8.2.3).
//!
//! `mc @ multimem x, y;` in the initial state declares the multimem address
//! `mc` pointing to the locations `x` and `y` (one per device). The integer
//! forms of `multimem.st`, `multimem.red` and `multimem.ld_reduce` on such an
//! address parse into one ordinary store, reduction or load per location
//! (PTX ISA: `multimem.st` "performs a store operation of the input operand b
//! to all the memory locations pointed to by the multimem address",
//! `multimem.red` "performs a reduction operation on all the memory locations",
//! `multimem.ld_reduce` "performs reduction on the values loaded from all the
//! memory locations"), in declaration order, with the instruction's
//! semantics and scope; `ld_reduce` combines the loaded values with register
//! arithmetic. The order of those operations is not specified: for the
//! `.release` forms of `st`/`red` and the `.acquire` form of `ld_reduce`,
//! which a fixed order would strengthen, the accesses follow an
//! `Instr::Unordered` (no program order between them). The floating-point and
//! vector forms, and addresses without declared locations, stay unsupported.

use super::operand::OpKind;
use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{
    Access, AddrKind, BinOp, Instr, Operand, Proxy, RmwOp, Scope, Sem, Span, StateSpace,
};
use crate::lexer::Tok;

/// What a `multimem` mnemonic asks for.
struct Form {
    kind: &'static str,
    sem: Sem,
    scope: Option<Scope>,
    op: Option<RmwOp>,
    bytes: u8,
}

/// Reads `multimem.{st,red,ld_reduce}...` modifiers; `Err` with the construct
/// name when the form is not one ptxmc models.
fn form(text: &str) -> Result<Form, String> {
    let mut parts = text.split('.');
    parts.next();
    let kind = match parts.next() {
        Some("st") => "st",
        Some("red") => "red",
        Some("ld_reduce") => "ld_reduce",
        _ => return Err(text.split('.').take(2).collect::<Vec<_>>().join(".")),
    };
    let name = format!("multimem.{kind}");
    let (mut sem, mut scope, mut op, mut bytes) = (None, None, None, None);
    for m in parts {
        match m {
            "weak" | "relaxed" | "acquire" | "release" if sem.is_none() => sem = Some(m),
            "cta" | "cluster" | "gpu" | "sys" if scope.is_none() => {
                scope = Some(match m {
                    "cta" => Scope::Cta,
                    "cluster" => Scope::Cluster,
                    "gpu" => Scope::Gpu,
                    _ => Scope::Sys,
                })
            }
            "global" => {}
            "add" | "min" | "max" | "and" | "or" | "xor" if op.is_none() => {
                op = Some(match m {
                    "add" => RmwOp::Add,
                    "min" => RmwOp::Min,
                    "max" => RmwOp::Max,
                    "and" => RmwOp::And,
                    "or" => RmwOp::Or,
                    _ => RmwOp::Xor,
                })
            }
            "b32" | "u32" | "s32" if bytes.is_none() => bytes = Some(4),
            "b64" | "u64" | "s64" if bytes.is_none() => bytes = Some(8),
            _ => return Err(name),
        }
    }
    let bytes = bytes.ok_or_else(|| name.clone())?;
    if (kind == "st") == op.is_some() {
        return Err(name);
    }
    let sem = match (sem, scope) {
        (None | Some("weak"), None) if kind != "red" => Sem::Weak,
        (None | Some("relaxed"), _) if kind == "red" => Sem::Relaxed,
        (Some("relaxed"), Some(_)) => Sem::Relaxed,
        // `.release` on the writing forms, `.acquire` on `ld_reduce`: one
        // release (acquire) access per location, in no order with each other
        // (`Instr::Unordered`, docs/model-notes.md "Unspecified order").
        (Some("release"), Some(_)) if kind != "ld_reduce" => Sem::Release,
        (Some("release"), None) if kind == "red" => Sem::Release,
        (Some("acquire"), Some(_)) if kind == "ld_reduce" => Sem::Acquire,
        _ => {
            return Err(format!(
                "{name}{}",
                sem.map_or(String::new(), |s| format!(".{s}"))
            ))
        }
    };
    let scope = match (sem, scope) {
        (Sem::Weak, _) => None,
        (_, s) => Some(s.unwrap_or(Scope::Gpu)),
    };
    Ok(Form {
        kind,
        sem,
        scope,
        op,
        bytes,
    })
}

impl Parser<'_> {
    /// After `mc @ multimem`: the optional list of locations `x, y`.
    pub(super) fn multimem_members(&mut self, name: &str) -> PResult<()> {
        let mut members = Vec::new();
        while self.peek().tok == Tok::Ident {
            let t = self.peek();
            let member = self.location_name()?;
            if !self.b.is_declared_location(member) {
                return Err(ParseError::new(
                    ParseErrorKind::BadApi(format!(
                        "`{member}` must be declared before the multimem address `{name}` that points to it"
                    )),
                    t.span,
                ));
            }
            let a = self.b.addr(member);
            if let Some(k @ (AddrKind::Local | AddrKind::Param)) = self.b.address_kind(a) {
                return Err(ParseError::new(
                    ParseErrorKind::BadSpaceUse(format!(
                        "the multimem address `{name}` cannot point to `{member}`, which is {}",
                        super::builder::space_words(k)
                    )),
                    t.span,
                ));
            }
            members.push(a);
            if !self.at(Tok::Comma) {
                break;
            }
            self.bump();
        }
        let mc = self.b.addr(name);
        self.b.multimem_members.push((mc, members));
        Ok(())
    }

    /// Parses a `multimem.*` instruction of thread `t` (mnemonic `text`
    /// already read) into ordinary instructions when ptxmc models its form;
    /// `false` (nothing read) otherwise, for the caller to report it.
    pub(super) fn multimem_instruction(
        &mut self,
        t: usize,
        text: &str,
        span: Span,
    ) -> PResult<bool> {
        if !text.starts_with("multimem.") {
            return Ok(false);
        }
        let Ok(f) = form(text) else {
            return Ok(false);
        };
        // Look ahead without consuming: the operands must name a multimem
        // address with declared locations.
        let save = self.pos;
        let ops = self.operands(span.line)?;
        let (addr_op, other) = match (f.kind, ops.as_slice()) {
            ("ld_reduce", [d, a]) => (a, d),
            (_, [a, b]) if f.kind != "ld_reduce" => (a, b),
            _ => {
                self.pos = save;
                return Ok(false);
            }
        };
        let members = match addr_op.kind {
            OpKind::Addr { name, offset: 0 } => self.b.addr_lookup(name).and_then(|a| {
                let multimem = self.b.address_kind(a) == Some(AddrKind::Multimem);
                let m = self
                    .b
                    .multimem_members
                    .iter()
                    .find(|(x, _)| *x == a)
                    .map(|(_, m)| m.clone());
                m.filter(|m| multimem && !m.is_empty())
            }),
            _ => None,
        };
        let Some(members) = members else {
            self.pos = save;
            return Ok(false);
        };
        let access = Access {
            bytes: f.bytes,
            vector: 1,
        };
        // The operations on the locations are in an unspecified order: a
        // fixed one would let the release (acquire) of one location cover the
        // access of another.
        if (f.sem.is_release() || f.sem.is_acquire()) && members.len() > 1 {
            self.push(t, Instr::Unordered(members.len() as u32), span);
        }
        let value = |p: &mut Self, o: &super::operand::Operand<'_>| -> PResult<Operand> {
            match o.kind {
                OpKind::Int(i) => Ok(Operand::Imm(i)),
                OpKind::Name(n) if n.starts_with('%') || !p.b.is_declared_location(n) => {
                    Ok(Operand::Reg(p.b.reg(t, n)))
                }
                _ => Err(ParseError::new(
                    ParseErrorKind::BadOperand {
                        instr: text.into(),
                        what: "value",
                        expected: "a register or an integer",
                        found: o.text.into(),
                    },
                    o.span,
                )),
            }
        };
        match f.kind {
            "st" => {
                let src = value(self, other)?;
                for m in members {
                    self.push(
                        t,
                        Instr::Store {
                            sem: f.sem,
                            scope: f.scope,
                            proxy: Proxy::Generic,
                            space: StateSpace::Global,
                            access,
                            addr: m,
                            src: vec![src],
                        },
                        span,
                    );
                }
            }
            "red" => {
                let a = value(self, other)?;
                for m in members {
                    self.push(
                        t,
                        Instr::Rmw {
                            sem: f.sem,
                            scope: f.scope.unwrap_or(Scope::Gpu),
                            proxy: Proxy::Generic,
                            space: StateSpace::Global,
                            access,
                            op: f.op.unwrap_or(RmwOp::Add),
                            dst: None,
                            addr: m,
                            a,
                            b: None,
                        },
                        span,
                    );
                }
            }
            _ => {
                let OpKind::Name(d) = other.kind else {
                    self.pos = save;
                    return Ok(false);
                };
                let n = self.b.threads[t].code.len();
                let binop = match f.op {
                    Some(RmwOp::Min) => BinOp::Min,
                    Some(RmwOp::Max) => BinOp::Max,
                    Some(RmwOp::And) => BinOp::And,
                    Some(RmwOp::Or) => BinOp::Or,
                    Some(RmwOp::Xor) => BinOp::Xor,
                    _ => BinOp::Add,
                };
                let mut temps = Vec::new();
                for (i, m) in members.into_iter().enumerate() {
                    let r = self.b.reg(t, &format!("__mm{n}_{i}"));
                    temps.push(r);
                    self.push(
                        t,
                        Instr::Load {
                            sem: f.sem,
                            scope: f.scope,
                            proxy: Proxy::Generic,
                            space: StateSpace::Global,
                            access,
                            dst: vec![r],
                            addr: m,
                        },
                        span,
                    );
                }
                // Interned after the temporaries: ids follow first appearance,
                // as when the printed form is parsed back.
                let dst = self.b.reg(t, d);
                self.fold_regs(t, dst, binop, &temps, span);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Instr, RmwOp, Sem};
    use crate::parser::parse;

    fn code(instr: &str) -> Vec<Instr> {
        let src = format!(
            "PTX m {{ x=0; y=0; mc @ multimem x, y; nm @ multimem; }}\n P0@cta 0,gpu 0 ;\n {instr} ;\nexists (x == 0)"
        );
        let t = crate::parser::parse_round_trip(&src);
        t.threads[0].code.iter().map(|s| s.instr.clone()).collect()
    }

    #[test]
    fn one_operation_per_location() {
        let c = code("multimem.st.relaxed.sys.global.u32 [mc], 5");
        assert_eq!(c.len(), 2);
        assert!(c.iter().all(|i| matches!(
            i,
            Instr::Store {
                sem: Sem::Relaxed,
                ..
            }
        )));
        let c = code("multimem.red.release.gpu.global.add.u32 [mc], 1");
        assert!(
            matches!(
                &c[..],
                [
                    Instr::Unordered(2),
                    Instr::Rmw {
                        sem: Sem::Release,
                        ..
                    },
                    Instr::Rmw { .. }
                ]
            ),
            "{c:?}"
        );
        let c = code("multimem.ld_reduce.acquire.gpu.global.add.u32 %r0, [mc]");
        assert!(matches!(c[0], Instr::Unordered(2)), "{c:?}");
        assert!(
            matches!(
                c[1],
                Instr::Load {
                    sem: Sem::Acquire,
                    ..
                }
            ),
            "{c:?}"
        );
        let c = code("multimem.st.acquire.gpu.global.u32 [mc], 1");
        assert!(matches!(&c[..], [Instr::Unsupported(_)]), "{c:?}");
        let c = code("multimem.red.global.xor.b64 [mc], 1");
        assert!(c.iter().all(|i| matches!(
            i,
            Instr::Rmw {
                op: RmwOp::Xor,
                dst: None,
                ..
            }
        )));
        let c = code("multimem.ld_reduce.global.max.s32 %r0, [mc]");
        assert_eq!(c.len(), 4, "{c:?}");
        assert!(matches!(c[0], Instr::Load { sem: Sem::Weak, .. }));
        // Floating point, or an address without locations: unsupported as before.
        for i in [
            "multimem.ld_reduce.relaxed.sys.global.add.f32 %r0, [mc]",
            "multimem.st.relaxed.sys.global.u32 [nm], 1",
            "multimem.st.relaxed.sys.global.u32 [x], 1",
        ] {
            assert!(matches!(&code(i)[..], [Instr::Unsupported(_)]), "{i}");
        }
    }

    #[test]
    fn members_must_be_declared_first() {
        let e = parse("PTX m { mc @ multimem x; x=0; }\n P0@cta 0,gpu 0 ;\n ld.global.u32 %r0, [x] ;\nexists (x == 0)")
            .expect_err("x after mc");
        assert!(e.to_string().contains("must be declared before"), "{e}");
    }
}
