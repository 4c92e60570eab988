//! Operands and lowering of the asynchronous operations and `mbarrier`
//! instructions (8.9.1.1), and of the predicated branch `@p bra L` that
//! their wait loops use.

use super::instr::{Check, Lowered, Value};
use super::opcode::AsyncShape;
use super::operand::{OpKind, Operand};
use super::{PResult, Parser};
use crate::ir::{AsyncInstr, CmpOp, Instr, MbarrierUpdate, Operand as Val};
use crate::lexer::Tok;

impl<'s> Parser<'s> {
    /// `@p bra L` / `@!p bra L` (at the `@`): a branch taken when the
    /// predicate register is non-zero (zero). `None`, with nothing consumed,
    /// for any other predicated instruction.
    pub(super) fn predicated_branch(&mut self, t: usize) -> PResult<Option<Instr>> {
        let start = self.pos;
        self.bump();
        let pred = self.operand_for_predicate()?;
        let (cmp, name) = match pred.kind {
            OpKind::Name(n) => (CmpOp::Ne, n),
            OpKind::Not(n) => (CmpOp::Eq, n),
            _ => {
                self.pos = start;
                return Ok(None);
            }
        };
        let word = self.peek();
        if word.tok != Tok::Ident || !matches!(self.text(word), "bra" | "bra.uni") {
            self.pos = start;
            return Ok(None);
        }
        self.bump();
        let ops = self.operands(word.end_span.line)?;
        let c = Check {
            instr: self.text(word),
            span: word.span,
        };
        let [l] = c.exactly::<1>(&ops, "1 operand")?;
        let (label, span) = c.label(l)?;
        let a = self.val(t, Value::Reg(name));
        Ok(Some(Instr::Branch {
            cmp,
            a,
            b: Val::Imm(0),
            target: self.b.label_use(t, label, span),
        }))
    }

    fn operand_for_predicate(&mut self) -> PResult<Operand<'s>> {
        let ops_start = self.pos;
        let t = self.peek();
        if !matches!(t.tok, Tok::Ident | Tok::Bang) {
            return Ok(Operand {
                kind: OpKind::Number,
                span: t.span,
                text: "",
            });
        }
        let op = self.operands(t.span.line).map(|mut v| v.swap_remove(0));
        // `operands` reads a comma-separated list; a predicate is followed by
        // the mnemonic, never by a comma, so one operand was read.
        match op {
            Ok(op) => Ok(op),
            Err(e) => {
                self.pos = ops_start;
                Err(e)
            }
        }
    }

    /// Lowers an asynchronous or `mbarrier` instruction of thread `t`.
    pub(super) fn lower_async(
        &mut self,
        t: usize,
        c: &Check<'_>,
        shape: AsyncShape,
        ops: &[Operand<'s>],
    ) -> PResult<Lowered> {
        let imm = |op: &Operand<'_>, what: &'static str| -> PResult<i64> {
            match op.kind {
                OpKind::Int(i) => Ok(i),
                _ => Err(c.bad(what, "an integer", op)),
            }
        };
        // `[x+N]`: the bytes N.. of `x` (8.2); the checker's sizes lowering
        // cuts `x` where the copies and mbarriers at its offsets need it
        // (`checker/src/sizes/async_parts.rs`). Negative offsets and offsets
        // of 2^20 or more stay unsupported, as for `ld`/`st`.
        macro_rules! addr {
            ($op:expr) => {
                match c.addr($op)? {
                    Some((a, off)) => self.b.addr_at(a, off),
                    None => return Ok(Lowered::Unsupported("address offset".into())),
                }
            };
        }
        let instr = match shape {
            AsyncShape::Copy {
                bulk,
                sem,
                scope,
                dst_space,
                src_space,
                mbar,
                reduce,
            } => {
                let want = if mbar { 4 } else { 3 };
                if ops.len() < want || (!bulk && ops.len() > 4) {
                    return Err(c.count(if mbar { "4 operands" } else { "3 operands" }, ops.len()));
                }
                let size = imm(&ops[2], "size")?;
                let dst = addr!(&ops[0]);
                let src = addr!(&ops[1]);
                let mbar = if mbar { Some(addr!(&ops[3])) } else { None };
                AsyncInstr::Copy {
                    bulk,
                    sem,
                    scope,
                    dst,
                    dst_space,
                    src,
                    src_space,
                    size,
                    mbar,
                    reduce,
                    continued: false,
                }
            }
            AsyncShape::StAsync { sem, scope, access } => {
                let [a, v, m] = c.exactly::<3>(ops, "3 operands")?;
                let value = c.value("source", v)?;
                let addr = addr!(a);
                let mbar = addr!(m);
                AsyncInstr::StAsync {
                    sem,
                    scope,
                    access,
                    addr,
                    src: self.val(t, value),
                    mbar,
                }
            }
            AsyncShape::Commit { bulk } => {
                c.exactly::<0>(ops, "no operands")?;
                AsyncInstr::Commit { bulk }
            }
            AsyncShape::Wait { bulk, all, read } => {
                let pending = if all {
                    c.exactly::<0>(ops, "no operands")?;
                    0
                } else {
                    let [n] = c.exactly::<1>(ops, "1 operand")?;
                    u32::try_from(imm(n, "group count")?)
                        .map_err(|_| c.bad("group count", "a non-negative integer", n))?
                };
                AsyncInstr::Wait {
                    bulk,
                    pending,
                    all,
                    read,
                }
            }
            AsyncShape::CpAsyncArrive { noinc } => {
                let [m] = c.exactly::<1>(ops, "1 operand")?;
                AsyncInstr::CpAsyncArrive {
                    mbar: addr!(m),
                    noinc,
                }
            }
            AsyncShape::MbarrierInit => {
                let [m, n] = c.exactly::<2>(ops, "2 operands")?;
                let count = imm(n, "count")?;
                if !(1..=0xffff).contains(&count) {
                    return Err(c.bad("count", "an integer from 1 to 65535", n));
                }
                AsyncInstr::MbarrierInit {
                    mbar: addr!(m),
                    count,
                }
            }
            AsyncShape::MbarrierUpdate {
                kind,
                sem,
                scope,
                space,
                no_complete,
            } => {
                let has_state = matches!(
                    kind,
                    MbarrierUpdate::Arrive
                        | MbarrierUpdate::ArriveExpectTx
                        | MbarrierUpdate::ArriveDrop
                        | MbarrierUpdate::ArriveDropExpectTx
                );
                let (dst, rest) = if has_state {
                    match ops.split_first() {
                        Some((d, rest)) => (Some(c.reg("state destination", d)?), rest),
                        None => return Err(c.count("2 or 3 operands", 0)),
                    }
                } else {
                    (None, ops)
                };
                let (count, tx) = match (kind, rest) {
                    // `.noComplete` takes its count.
                    (MbarrierUpdate::Arrive | MbarrierUpdate::ArriveDrop, [_]) if !no_complete => {
                        (1, 0)
                    }
                    (MbarrierUpdate::Arrive | MbarrierUpdate::ArriveDrop, [_, n]) => {
                        (imm(n, "count")?, 0)
                    }
                    (
                        MbarrierUpdate::ArriveExpectTx | MbarrierUpdate::ArriveDropExpectTx,
                        [_, n],
                    ) => (1, imm(n, "transaction count")?),
                    (MbarrierUpdate::ExpectTx | MbarrierUpdate::CompleteTx, [_, n]) => {
                        (0, imm(n, "transaction count")?)
                    }
                    _ => {
                        return Err(c.count(
                            if no_complete {
                                "3 operands"
                            } else if has_state {
                                "2 or 3 operands"
                            } else {
                                "2 operands"
                            },
                            ops.len(),
                        ))
                    }
                };
                let mbar = addr!(&rest[0]);
                let dst = dst.filter(|d| *d != "_").map(|d| self.b.reg(t, d));
                AsyncInstr::MbarrierUpdate {
                    kind,
                    sem,
                    scope,
                    space,
                    dst,
                    mbar,
                    count,
                    tx,
                    no_complete,
                }
            }
            AsyncShape::MbarrierWait {
                try_wait,
                parity,
                sem,
                scope,
            } => {
                let (d, m, x) = match ops {
                    [d, m, x] => (d, m, x),
                    [d, m, x, _hint] if try_wait => (d, m, x),
                    _ => return Err(c.count("3 operands", ops.len())),
                };
                let d = c.reg("predicate", d)?;
                let x = c.value(if parity { "phase parity" } else { "state" }, x)?;
                let mbar = addr!(m);
                AsyncInstr::MbarrierWait {
                    try_wait,
                    sem,
                    scope,
                    dst: self.b.reg(t, d),
                    mbar,
                    parity,
                    x: self.val(t, x),
                }
            }
        };
        Ok(Lowered::Instr(Instr::Async(instr)))
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{AddrKind, AsyncInstr, Instr, Test};

    fn parse(code: &str) -> Test {
        let src = format!("PTX p {{ g=0; s=0; bar=0; }}\n P0@cta 0,gpu 0 ;\n{code}exists (s == 0)");
        crate::parser::parse_round_trip(&src)
    }

    /// The unsupported constructs of a one-thread test running `code`, with their lines.
    fn unsupported(code: &str) -> Vec<(String, u32)> {
        parse(code)
            .unsupported
            .iter()
            .map(|u| (u.construct.clone(), u.span.line))
            .collect()
    }

    /// The name and byte offset an address of `t` denotes.
    fn at(t: &Test, a: crate::ir::AddrId) -> (String, u32) {
        let (base, off) = match t.addresses[a.index()].kind {
            AddrKind::Offset(b, o) => (b, o),
            _ => (a, 0),
        };
        (t.addr_name(base).to_string(), off)
    }

    fn instrs(t: &Test) -> Vec<&AsyncInstr> {
        t.threads[0]
            .code
            .iter()
            .filter_map(|s| match &s.instr {
                Instr::Async(a) => Some(a),
                _ => None,
            })
            .collect()
    }

    /// `[x+N]` on every address operand of the asynchronous and mbarrier
    /// instructions is the address N bytes after `x` (8.2), which the
    /// checker's sizes lowering tells apart from `x`.
    #[test]
    fn offsets_on_async_operands_parse() {
        let t = parse(concat!(
            " cp.async.ca.shared.global [s+16], [g+4], 4 ;\n",
            " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s+32], [g+16], 16, [bar+8] ;\n",
            " mbarrier.init.shared::cta.b64 [bar+8], 1 ;\n",
            " mbarrier.arrive.shared::cta.b64 _, [bar+16] ;\n",
            " mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar+8], 16 ;\n",
            " mbarrier.try_wait.parity.shared::cta.b64 %p, [bar+8], 0 ;\n",
            " cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar+24] ;\n",
            " st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [s+8], 1, [bar+8] ;\n",
        ));
        assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
        let a = instrs(&t);
        let n = |s: &str, o: u32| (s.to_string(), o);
        let AsyncInstr::Copy { dst, src, mbar, .. } = a[0] else {
            panic!("{:?}", a[0])
        };
        assert_eq!(
            (at(&t, *dst), at(&t, *src), mbar),
            (n("s", 16), n("g", 4), &None)
        );
        let AsyncInstr::Copy {
            dst,
            src,
            mbar: Some(m),
            ..
        } = a[1]
        else {
            panic!("{:?}", a[1])
        };
        assert_eq!(
            (at(&t, *dst), at(&t, *src), at(&t, *m)),
            (n("s", 32), n("g", 16), n("bar", 8))
        );
        let mbars: Vec<(String, u32)> = a[2..]
            .iter()
            .map(|i| match i {
                AsyncInstr::MbarrierInit { mbar, .. }
                | AsyncInstr::MbarrierUpdate { mbar, .. }
                | AsyncInstr::MbarrierWait { mbar, .. }
                | AsyncInstr::CpAsyncArrive { mbar, .. }
                | AsyncInstr::StAsync { mbar, .. } => at(&t, *mbar),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            mbars,
            [
                n("bar", 8),
                n("bar", 16),
                n("bar", 8),
                n("bar", 8),
                n("bar", 24),
                n("bar", 8)
            ]
        );
        let AsyncInstr::StAsync { addr, .. } = a[7] else {
            panic!("{:?}", a[7])
        };
        assert_eq!(at(&t, *addr), n("s", 8));
    }

    /// The vector `st.async` takes an mbarrier offset too; its elements
    /// keep their own offsets (8.2.4).
    #[test]
    fn vector_st_async_takes_an_mbarrier_offset() {
        let t = parse(
            " st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [s+8], {1, 2}, [bar+16] ;\n",
        );
        assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
        let got: Vec<((String, u32), (String, u32))> = instrs(&t)
            .iter()
            .map(|i| match i {
                AsyncInstr::StAsync { addr, mbar, .. } => (at(&t, *addr), at(&t, *mbar)),
                other => panic!("{other:?}"),
            })
            .collect();
        let n = |s: &str, o: u32| (s.to_string(), o);
        assert_eq!(got, [(n("s", 8), n("bar", 16)), (n("s", 12), n("bar", 16))]);
    }

    /// Negative offsets stay reported (as for `ld`/`st`); offset 0 is `x`.
    #[test]
    fn negative_offsets_stay_unsupported() {
        let off = |line| vec![("address offset".to_string(), line)];
        assert_eq!(
            unsupported(" cp.async.ca.shared.global [s-16], [g], 4 ;\n"),
            off(3)
        );
        assert_eq!(
            unsupported(" mbarrier.init.shared::cta.b64 [bar], 1 ;\n mbarrier.arrive.shared::cta.b64 _, [bar-8] ;\n"),
            off(4)
        );
        let t = parse(" cp.async.ca.shared.global [s+0], [g], 4 ;\n");
        let AsyncInstr::Copy { dst, .. } = instrs(&t)[0] else {
            panic!()
        };
        assert_eq!(t.addresses[dst.index()].kind, AddrKind::Root);
    }

    /// A malformed address stays a positioned error.
    #[test]
    fn a_malformed_offset_is_an_error_with_its_position() {
        let src = "PTX p { s=0; bar=0; }\n P0@cta 0,gpu 0 ;\n mbarrier.init.shared::cta.b64 [bar+], 1 ;\nexists (s == 0)";
        let e = crate::parse(src).expect_err("malformed");
        assert_eq!((e.span.line, e.span.col), (3, 37), "{e}");
        assert!(e.to_string().contains("offset"), "{e}");
    }

    /// `mbarrier.arrive{,_drop}.noComplete{.sem}{.cta}{.shared{::cta}}.b64
    /// state, [addr], count` (instruction descriptions): the update of
    /// `arrive`/`arrive_drop` with its flag, printed back with its count; no
    /// `.expect_tx`, `.cluster`, `.shared::cluster` or missing count.
    #[test]
    fn no_complete_forms_parse_and_the_others_are_errors() {
        let t = parse(concat!(
            " mbarrier.arrive_drop.noComplete.shared::cta.b64 %rd0, [bar], 1 ;\n",
            " mbarrier.arrive.noComplete.relaxed.cta.shared.b64 _, [bar], 2 ;\n",
            " mbarrier.arrive_drop.noComplete.release.cta.b64 _, [bar], 1 ;\n",
        ));
        assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
        let got: Vec<_> = instrs(&t)
            .iter()
            .map(|a| match a {
                AsyncInstr::MbarrierUpdate {
                    kind,
                    count,
                    no_complete,
                    sem,
                    ..
                } => (*kind, *count, *no_complete, *sem),
                other => panic!("{other:?}"),
            })
            .collect();
        use crate::ir::{MbarrierUpdate as U, Sem};
        assert_eq!(
            got,
            [
                (U::ArriveDrop, 1, true, Sem::Release),
                (U::Arrive, 2, true, Sem::Relaxed),
                (U::ArriveDrop, 1, true, Sem::Release)
            ]
        );
        let err = |code: &str| {
            let src =
                format!("PTX p {{ bar=0; }}\n P0@cta 0,gpu 0 ;\n {code} ;\nexists (bar == 0)");
            crate::parse(&src).expect_err(code).to_string()
        };
        for (code, says) in [
            (
                "mbarrier.arrive_drop.noComplete.shared::cta.b64 _, [bar]",
                "3 operands",
            ),
            (
                "mbarrier.arrive_drop.expect_tx.noComplete.shared::cta.b64 _, [bar], 4",
                "expect_tx",
            ),
            (
                "mbarrier.arrive.noComplete.release.cluster.shared::cta.b64 _, [bar], 1",
                ".cta",
            ),
            (
                "mbarrier.arrive_drop.noComplete.shared::cluster.b64 _, [bar], 1",
                ".cta",
            ),
            (
                "mbarrier.arrive_drop.noComplete.acquire.cta.shared.b64 _, [bar], 1",
                "acquire",
            ),
        ] {
            let e = err(code);
            assert!(e.contains(says), "{code}: {e}");
        }
    }
}
