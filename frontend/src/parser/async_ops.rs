//! Operands and lowering of the asynchronous operations and `mbarrier`
//! instructions (8.9.1.1), and of the predicated branch `@p bra L` that
//! their wait loops use.

use super::instr::{Check, Lowered, Value};
use super::opcode::AsyncShape;
use super::operand::{OpKind, Operand};
use super::{PResult, Parser};
use crate::ir::{AddrOperand, AsyncInstr, CmpOp, Instr, MbarrierUpdate, Operand as Val};
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
        // (`checker/src/sizes/async_access.rs`). `[%r+N]`: a register-held
        // address, resolved as for `ld`/`st` (`parser/addresses`). Offsets
        // outside the 32-bit signed immediate are errors, as for `ld`/`st`.
        // Every address operand is checked before any is interned, so that an
        // error leaves no `AddrReg` behind.
        macro_rules! check {
            ($op:expr) => {
                c.mem_addr($op)?
            };
        }
        macro_rules! mbar {
            ($a:expr, $op:expr) => {
                self.intern_addr_as(t, $a, $op, AddrOperand::Mbarrier, 1)
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
                let (d, s) = (check!(&ops[0]), check!(&ops[1]));
                let m = if mbar { Some(check!(&ops[3])) } else { None };
                let dst = self.intern_addr_as(t, d, &ops[0], AddrOperand::Target, 1);
                let src = self.intern_addr_as(t, s, &ops[1], AddrOperand::Source, 1);
                let mbar = m.map(|m| mbar!(m, &ops[3]));
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
                let (at, mb) = (check!(a), check!(m));
                let addr = self.intern_addr_as(t, at, a, AddrOperand::Target, 1);
                let mbar = mbar!(mb, m);
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
                let a = check!(m);
                AsyncInstr::CpAsyncArrive {
                    mbar: mbar!(a, m),
                    noinc,
                }
            }
            AsyncShape::MbarrierInit => {
                let [m, n] = c.exactly::<2>(ops, "2 operands")?;
                let count = imm(n, "count")?;
                if !(1..=0xffff).contains(&count) {
                    return Err(c.bad("count", "an integer from 1 to 65535", n));
                }
                let a = check!(m);
                AsyncInstr::MbarrierInit {
                    mbar: mbar!(a, m),
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
                let a = check!(&rest[0]);
                let mbar = mbar!(a, &rest[0]);
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
                let a = check!(m);
                let mbar = mbar!(a, m);
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
    use crate::ir::{AddrKind, AddrOperand, AsyncInstr, Instr, Test};

    fn parse(code: &str) -> Test {
        let src = format!("PTX p {{ g=0; s=0; bar=0; }}\n P0@cta 0,gpu 0 ;\n{code}exists (s == 0)");
        crate::parser::parse_round_trip(&src)
    }

    /// A name and offset, as [`at`] gives them.
    fn n(s: &str, o: u32) -> (String, u32) {
        (s.to_string(), o)
    }

    /// The target and mbarrier of each `st.async` of `t`, as [`at`] gives them.
    fn st_async_operands(t: &Test) -> Vec<((String, u32), (String, u32))> {
        instrs(t)
            .iter()
            .map(|i| match i {
                AsyncInstr::StAsync { addr, mbar, .. } => (at(t, *addr), at(t, *mbar)),
                other => panic!("{other:?}"),
            })
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
        assert_eq!(
            st_async_operands(&t),
            [(n("s", 8), n("bar", 16)), (n("s", 12), n("bar", 16))]
        );
    }

    /// A named negative offset is before the location's start, in no
    /// location: an error at the address (as for `ld`/`st`); offset 0 is `x`.
    #[test]
    fn named_negative_offsets_are_errors() {
        let err = |code: &str| {
            let src =
                format!("PTX p {{ g=0; s=0; bar=0; }}\n P0@cta 0,gpu 0 ;\n{code}exists (s == 0)");
            crate::parse(&src).expect_err("outside every location")
        };
        let e = err(" cp.async.ca.shared.global [s-16], [g], 4 ;\n");
        assert_eq!((e.span.line, e.span.col), (3, 28), "{e}");
        assert!(e.to_string().contains("16 bytes before `s`"), "{e}");
        let e = err(" mbarrier.init.shared::cta.b64 [bar], 1 ;\n mbarrier.arrive.shared::cta.b64 _, [bar+-8] ;\n");
        assert_eq!((e.span.line, e.span.col), (4, 37), "{e}");
        let t = parse(" cp.async.ca.shared.global [s+0], [g], 4 ;\n");
        let AsyncInstr::Copy { dst, .. } = instrs(&t)[0] else {
            panic!()
        };
        assert_eq!(t.addresses[dst.index()].kind, AddrKind::Root);
    }

    /// The program of [`offsets_on_async_operands_parse`] with every address
    /// in a register (`[%rd+N]`, some through negative offsets from a
    /// register past the location's start): the same locations.
    #[test]
    fn register_addresses_on_async_operands_resolve_as_named_ones() {
        let named = parse(concat!(
            " cp.async.ca.shared.global [s+16], [g+4], 4 ;\n",
            " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s+32], [g+16], 16, [bar+8] ;\n",
            " mbarrier.init.shared::cta.b64 [bar+8], 1 ;\n",
            " mbarrier.arrive.shared::cta.b64 %rd9, [bar+16] ;\n",
            " mbarrier.try_wait.parity.shared::cta.b64 %p, [bar+8], 0 ;\n",
            " cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar+24] ;\n",
            " st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [s+8], 1, [bar+8] ;\n",
            " cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [g+8], [s], 4 ;\n",
        ));
        let regs = parse(concat!(
            " mov.u64 %rd1, s ;\n mov.u64 %rd2, g ;\n mov.u64 %rd3, bar ;\n add.s64 %rd4, %rd3, 32 ;\n",
            " cp.async.ca.shared.global [%rd1+16], [%rd2+4], 4 ;\n",
            " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1+32], [%rd2+16], 16, [%rd4+-24] ;\n",
            " mbarrier.init.shared::cta.b64 [%rd4-24], 1 ;\n",
            " mbarrier.arrive.shared::cta.b64 %rd9, [%rd3+16] ;\n",
            " mbarrier.try_wait.parity.shared::cta.b64 %p, [%rd4+-24], 0 ;\n",
            " cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%rd4+-8] ;\n",
            " st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%rd1+8], 1, [%rd3+8] ;\n",
            " cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd2+8], [%rd1], 4 ;\n",
        ));
        assert!(regs.unsupported.is_empty(), "{:?}", regs.unsupported);
        let at_all = |t: &Test| -> Vec<Vec<(String, u32)>> {
            let ops = [
                AddrOperand::Target,
                AddrOperand::Source,
                AddrOperand::Mbarrier,
            ];
            t.threads[0]
                .code
                .iter()
                .filter(|s| matches!(s.instr, Instr::Async(_)))
                .map(|s| {
                    ops.iter()
                        .filter_map(|&o| s.instr.address(o))
                        .map(|a| at(t, a))
                        .collect()
                })
                .collect()
        };
        assert_eq!(at_all(&regs), at_all(&named));
        // One `AddrReg` per register-held operand, naming its operand, just
        // before its instruction.
        let code = &regs.threads[0].code;
        let bulk = code
            .iter()
            .position(|s| {
                matches!(
                    s.instr,
                    Instr::Async(AsyncInstr::Copy {
                        bulk: true,
                        mbar: Some(_),
                        ..
                    })
                )
            })
            .expect("the bulk copy");
        let operands: Vec<AddrOperand> = code[bulk - 3..bulk]
            .iter()
            .filter_map(|s| match s.instr {
                Instr::AddrReg { operand, .. } => Some(operand),
                _ => None,
            })
            .collect();
        assert_eq!(
            operands,
            [
                AddrOperand::Target,
                AddrOperand::Source,
                AddrOperand::Mbarrier
            ]
        );
    }

    /// A register address that lands before its location, or is no
    /// location, is an error at the address; so is a misaligned
    /// register-held `mbarrier.inval` (a plain store for the checker).
    #[test]
    fn register_addresses_outside_every_location_are_errors() {
        let err = |code: &str| {
            let src =
                format!("PTX p {{ g=0; s=0; bar=0; }}\n P0@cta 0,gpu 0 ;\n{code}exists (s == 0)");
            crate::parse(&src)
                .expect_err("outside every location")
                .to_string()
        };
        let e = err(" mov.u64 %rd1, s ;\n cp.async.ca.shared.global [%rd1+-4], [g], 4 ;\n");
        assert!(
            e.starts_with("4:28:") && e.contains("4 bytes before `s`"),
            "{e}"
        );
        let e = err(" mov.u64 %rd1, 64 ;\n mbarrier.init.shared::cta.b64 [%rd1], 1 ;\n");
        assert!(e.starts_with("4:32:") && e.contains("the number 64"), "{e}");
        // A loaded pointer is no one location.
        let e = err(" ld.u64 %rd1, [g] ;\n st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [s], 1, [%rd1] ;\n");
        assert!(
            e.starts_with("4:68:") && e.contains("value read from memory"),
            "{e}"
        );
        let e = err(" mov.u64 %rd1, bar ;\n mbarrier.inval.shared::cta.b64 [%rd1+4] ;\n");
        assert!(e.starts_with("4:33:") && e.contains("multiple of 8"), "{e}");
    }

    /// An operand chosen between locations is a dispatch, as for `ld`/`st`;
    /// two registers chosen so nest, one register holding two operands is
    /// dispatched on once; the result reads back to itself.
    #[test]
    fn register_addresses_chosen_between_locations_dispatch() {
        let src = |code: &str| {
            format!("PTX p {{ g=0; s=0; bar=0; }}\n P0@cta 0,gpu 0 ;\n{code}exists (s == 0)")
        };
        let t = crate::parse(&src(concat!(
            " ld.u32 %r1, [g] ;\n setp.eq.u32 %p1, %r1, 0 ;\n",
            " mov.u64 %rd5, s ;\n mov.u64 %rd6, g ;\n mov.u64 %rd7, bar ;\n",
            " selp.b64 %rd1, %rd5, %rd6, %p1 ;\n selp.b64 %rd2, %rd7, %rd5, %p1 ;\n",
            " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [%rd1+8], 4, [%rd2+16] ;\n",
        )))
        .unwrap_or_else(|e| panic!("{e}"));
        let copies: Vec<(String, String, String)> = instrs(&t)
            .iter()
            .filter_map(|i| match i {
                AsyncInstr::Copy {
                    dst,
                    src,
                    mbar: Some(m),
                    ..
                } => Some((at(&t, *dst).0, at(&t, *src).0, at(&t, *m).0)),
                _ => None,
            })
            .collect();
        let mut sorted = copies.clone();
        sorted.sort();
        let n = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
        assert_eq!(
            sorted,
            [
                n("g", "g", "bar"),
                n("g", "g", "s"),
                n("s", "s", "bar"),
                n("s", "s", "s")
            ]
        );
        // Two registers: one `bne` on the first, one on the second in each
        // of its two links.
        let bne = t.threads[0]
            .code
            .iter()
            .filter(|s| matches!(s.instr, Instr::Branch { b: crate::ir::Operand::Imm(v), .. } if v != 0))
            .count();
        assert_eq!(bne, 3);
        // The printed dispatch reads back to itself (ids may be interned in
        // another order).
        let printed = crate::print(&t);
        let again = crate::parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
        assert_eq!(
            again.threads[0].code.len(),
            t.threads[0].code.len(),
            "{printed}"
        );
        assert_eq!(crate::print(&again), printed);
    }

    /// A vector `st.async` through registers: each element at its own
    /// offset from the register, all signalling the one mbarrier.
    #[test]
    fn vector_st_async_takes_register_addresses() {
        let t = parse(
            " mov.u64 %rd1, s ;\n mov.u64 %rd2, bar ;\n st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%rd1+8], {1, 2}, [%rd2+16] ;\n",
        );
        assert_eq!(
            st_async_operands(&t),
            [(n("s", 8), n("bar", 16)), (n("s", 12), n("bar", 16))]
        );
    }

    /// The address operands of instructions without events (the tensormap
    /// proxy fence, the L2 prefetch) take registers too, resolved to nothing.
    #[test]
    fn eventless_address_operands_take_registers() {
        let t = parse(concat!(
            " mov.u64 %rd1, g ;\n",
            " fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128 ;\n",
            " cp.async.bulk.prefetch.L2.global [%rd1+16], 16 ;\n",
        ));
        assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
        assert!(!t.threads[0]
            .code
            .iter()
            .any(|s| matches!(s.instr, Instr::AddrReg { .. })));
    }

    /// Offsets of 2^20 bytes and more are bytes of the location (a 32-bit
    /// signed immediate, PTX ISA 6.4.1); past that range, a later operand is
    /// an error at its position.
    #[test]
    fn large_offsets_on_copy_operands() {
        let t = parse(" mov.u64 %rd1, s ;\n cp.async.ca.shared.global [%rd1], [g+1048576], 4 ;\n");
        assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
        assert!(t.symbols.addrs.iter().any(|a| a == "g+1048576"));
        let src = "PTX p { g=0; s=0; }\n P0@cta 0,gpu 0 ;\n mov.u64 %rd1, s ;\n cp.async.ca.shared.global [%rd1], [g+2147483648], 4 ;\nexists (s == 0)";
        let e = crate::parse(src).expect_err("out of range");
        assert_eq!((e.span.line, e.span.col), (4, 36), "{e}");
        assert!(e.to_string().contains("32-bit signed immediate"), "{e}");
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
