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
        macro_rules! addr {
            ($op:expr) => {
                match c.addr($op)? {
                    // `[x+N]` is the location N bytes after `x`, as for `ld`/`st`.
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
                }
            }
            AsyncShape::StAsync { sem, scope, access } => {
                let [a, v, m] = c.exactly::<3>(ops, "3 operands")?;
                let value = c.value("source", v)?;
                // The stored bytes may be `[x+N]` (the elements of a vector
                // `st.async`, `st_async.rs`; the sizes lowering splits them).
                let addr = match c.addr(a)? {
                    Some((x, off)) => self.b.addr_at(x, off),
                    None => return Ok(Lowered::Unsupported("address offset".into())),
                };
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
            } => {
                let has_state = matches!(
                    kind,
                    MbarrierUpdate::Arrive
                        | MbarrierUpdate::ArriveExpectTx
                        | MbarrierUpdate::ArriveDrop
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
                    (MbarrierUpdate::Arrive | MbarrierUpdate::ArriveDrop, [_]) => (1, 0),
                    (MbarrierUpdate::Arrive | MbarrierUpdate::ArriveDrop, [_, n]) => {
                        (imm(n, "count")?, 0)
                    }
                    (MbarrierUpdate::ArriveExpectTx, [_, n]) => (1, imm(n, "transaction count")?),
                    (MbarrierUpdate::ExpectTx | MbarrierUpdate::CompleteTx, [_, n]) => {
                        (0, imm(n, "transaction count")?)
                    }
                    _ => {
                        return Err(c.count(
                            if has_state {
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
    use crate::ir::{AddrKind, AsyncInstr, Instr};

    /// The async instruction `instr` parses to, with its addresses' kinds.
    fn lowered(instr: &str) -> (AsyncInstr, Vec<AddrKind>, usize) {
        let src =
            format!("PTX p {{ g=0; s=0; bar=0; }}\n P0@cta 0,gpu 0 ;\n {instr} ;\nexists (s == 0)");
        let t = crate::parser::parse_round_trip(&src);
        let Instr::Async(a) = t.threads[0].code[0].instr.clone() else {
            panic!("not async: {:?}", t.threads[0].code[0].instr)
        };
        let kinds = t.addresses.iter().map(|a| a.kind).collect();
        (a, kinds, t.unsupported.len())
    }

    #[test]
    fn offsets_on_async_operands_are_locations() {
        let (a, kinds, n) = lowered("cp.async.ca.shared.global [s+16], [g+4], 4");
        assert_eq!(n, 0);
        let AsyncInstr::Copy { dst, src, .. } = a else {
            panic!("{a:?}")
        };
        assert!(matches!(kinds[dst.index()], AddrKind::Offset(_, 16)));
        assert!(matches!(kinds[src.index()], AddrKind::Offset(_, 4)));
        let (a, kinds, n) = lowered("mbarrier.arrive.shared::cta.b64 _, [bar+8]");
        assert_eq!(n, 0, "{a:?}");
        let found = kinds.iter().any(|k| matches!(k, AddrKind::Offset(_, 8)));
        assert!(found, "{kinds:?}");
        // A negative offset from a symbol stays reported, at its line.
        let src = "PTX p { g=0; s=0; }\n P0@cta 0,gpu 0 ;\n cp.async.ca.shared.global [s-4], [g], 4 ;\nexists (s == 0)";
        let t = crate::parser::parse_round_trip(src);
        assert_eq!(t.unsupported.len(), 1);
        assert_eq!(t.unsupported[0].construct, "address offset");
        assert_eq!(t.unsupported[0].span.line, 3);
    }
}
