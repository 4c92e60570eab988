//! `bar.red` / `barrier{.cta}.red` (8.9.4 item 2): a barrier that also
//! reduces one predicate per participating thread.
//!
//! `bar{.cta}.red.popc.u32 d, a{, b}, {!}c` counts the threads whose `c`
//! holds; `bar{.cta}.red.{and,or}.pred p, a{, b}, {!}c` is their conjunction
//! or disjunction. Chapter 8 names `bar.red` only as a synchronizing
//! operation ("A bar{.cta}.sync or bar{.cta}.red or bar{.cta}.arrive
//! operation synchronizes with a bar{.cta}.sync or bar{.cta}.red operation
//! executed on the same barrier"), so the reduction is built from the
//! model's own events: each thread writes its contribution (weak store) to a
//! hidden location of its own, `__barred_P<t>_<id>`, before the barrier,
//! and after it reads (weak loads) the location of every thread of its CTA
//! and combines the values with register arithmetic. The barrier orders
//! every participant's store before every participant's loads (base
//! causality through the synchronization), so each load reads exactly that
//! store or, for a thread that did not take part, the initial value.
//!
//! A contribution is stored as `pred + 1` (1: false, 2: true); 0, the
//! initial value, means "no contribution". `popc` and `or` add the
//! contributions shifted right by one; `and` counts the false ones.
//!
//! The barrier itself is an ordinary [`BarrierKind::Red`] barrier (printed
//! in the dialect as `bar.cta.red 0, ID{, COUNT}`), so the explorers see
//! nothing new; `explore/barrier.rs` refuses the cases chapter 8 leaves
//! open (a thread count below the number of operations on the barrier,
//! `bar.red` mixed with other barrier operations on one barrier).

use super::operand::{OpKind, Operand as Op};
use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{
    Access, AsyncInstr, BarrierKind, BinOp, CmpOp, Instr, Operand, Proxy, RegId, Sem, Span,
    StateSpace, Stmt,
};

/// The reduction of a `bar.red`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Reduction {
    Popc,
    And,
    Or,
}

/// The highest barrier resource id (PTX has 16 per CTA).
const MAX_ID: i64 = 15;

/// The barrier id of a `bar.red`: a constant (written so, or a register
/// [`constant_before`] knows), or a register whose value only the run tells.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum BarId {
    Const(i64),
    Reg(RegId),
}

impl BarId {
    /// The ids it may hold.
    fn values(self) -> Vec<i64> {
        match self {
            BarId::Const(k) => vec![k],
            BarId::Reg(_) => (0..=MAX_ID).collect(),
        }
    }
}

/// The value register `r` holds at the end of `code` on every path, when the
/// straight-line code since the last label sets it from a constant (`mov`
/// of an integer or of a special register, which the parser has replaced by
/// its value); `None` when a label (another path may join), an instruction
/// that writes `r` otherwise, or one whose register effects this scan does
/// not follow comes first.
pub(super) fn constant_before(code: &[Stmt], r: RegId) -> Option<i64> {
    for s in code.iter().rev() {
        match &s.instr {
            Instr::Mov { dst, src } if *dst == r => {
                return match src {
                    Operand::Imm(v) => Some(*v),
                    Operand::Reg(_) => None,
                }
            }
            Instr::Op { dst, .. } if *dst == r => return None,
            Instr::Load { dst, .. } if dst.contains(&r) => return None,
            Instr::Rmw { dst, .. } if *dst == Some(r) => return None,
            Instr::Mov { .. }
            | Instr::Op { .. }
            | Instr::Load { .. }
            | Instr::Rmw { .. }
            | Instr::Store { .. }
            | Instr::Fence { .. }
            | Instr::Barrier { .. }
            | Instr::Branch { .. }
            | Instr::Goto(_)
            | Instr::AddrReg { .. }
            | Instr::Async(
                AsyncInstr::Copy { .. } | AsyncInstr::Commit { .. } | AsyncInstr::Wait { .. },
            ) => {}
            _ => return None,
        }
    }
    None
}

/// The hidden location holding thread `u`'s contribution to barrier `id`.
pub(crate) fn contribution_name(u: usize, id: i64) -> String {
    format!("__barred_P{u}_{id}")
}

/// Reads the mnemonic of a real-PTX `bar.red`; `None` when `text` is not one
/// (the dialect's `bar.cta.red` included), `Some(Err(reason))` when it is a
/// malformed one.
fn reduction(text: &str) -> Option<Result<Reduction, String>> {
    let mut parts = text.split('.');
    let base = parts.next()?;
    if base != "bar" && base != "barrier" {
        return None;
    }
    let mut mods: Vec<&str> = parts.collect();
    if mods.first() == Some(&"cta") {
        mods.remove(0);
    }
    if mods.first() != Some(&"red") || mods.len() < 2 {
        return None;
    }
    let mut op = None;
    let mut ty = None;
    let mut aligned = false;
    for &m in &mods[1..] {
        match m {
            "popc" | "and" | "or" if op.is_none() => {
                op = Some(match m {
                    "popc" => Reduction::Popc,
                    "and" => Reduction::And,
                    _ => Reduction::Or,
                })
            }
            "u32" | "pred" if ty.is_none() => ty = Some(m),
            "aligned" if !aligned => aligned = true,
            _ => return Some(Err(format!("unknown or repeated modifier `.{m}`"))),
        }
    }
    Some(match (op, ty) {
        (Some(Reduction::Popc), Some("u32")) => Ok(Reduction::Popc),
        (Some(r @ (Reduction::And | Reduction::Or)), Some("pred")) => Ok(r),
        (Some(Reduction::Popc), _) => Err("`.popc` takes the type `.u32`".into()),
        (Some(_), _) => Err("`.and` and `.or` take the type `.pred`".into()),
        (None, _) => Err("expected `.popc`, `.and` or `.or`".into()),
    })
}

impl<'s> Parser<'s> {
    /// Parses a real-PTX `bar.red` of thread `t` (mnemonic `text` already read)
    /// into its events; `false` (nothing read) when `text` is not one.
    pub(super) fn bar_red_instruction(
        &mut self,
        t: usize,
        text: &str,
        span: Span,
    ) -> PResult<bool> {
        let Some(red) = reduction(text) else {
            return Ok(false);
        };
        let bad = |reason: String| ParseError::bad_instruction(text, reason, span);
        let red = red.map_err(bad)?;
        let mut ops = self.operands(span.line)?;
        self.resolve_specials(t, &mut ops)?;
        let count_err = |found| {
            ParseError::new(
                ParseErrorKind::OperandCount {
                    instr: text.into(),
                    expected: "3 or 4 operands (d, id, {count,} {!}pred)",
                    found,
                },
                span,
            )
        };
        let (d, a, b, c) = match ops.as_slice() {
            [d, a, c] => (d, a, None, c),
            [d, a, b, c] => (d, a, Some(b), c),
            _ => return Err(count_err(ops.len())),
        };
        let bad_op = |what: &'static str, expected: &'static str, o: &Op<'_>| {
            ParseError::new(
                ParseErrorKind::BadOperand {
                    instr: text.into(),
                    what,
                    expected,
                    found: format!("`{}`", o.text),
                },
                o.span,
            )
        };
        let OpKind::Name(d) = d.kind else {
            return Err(bad_op("destination", "a register", d));
        };
        let (pred, negated) = match c.kind {
            OpKind::Name(p) => (p, false),
            OpKind::Not(p) => (p, true),
            _ => return Err(bad_op("predicate", "a predicate `p` or `!p`", c)),
        };
        let out_of_range = |v: i64| {
            ParseError::new(
                ParseErrorKind::OutOfRange {
                    what: "barrier id",
                    value: v.to_string(),
                    range: "0 to 15",
                },
                a.span,
            )
        };
        // The hidden locations are named after the barrier: a register id
        // known at parse time is that constant; any other takes one copy of
        // the stores and loads per possible id (`docs/model-notes.md`,
        // "bar.red with a register barrier id").
        let id = match a.kind {
            OpKind::Int(v) if (0..=MAX_ID).contains(&v) => BarId::Const(v),
            OpKind::Int(v) => return Err(out_of_range(v)),
            OpKind::Name(n) => {
                let r = self.b.reg(t, n);
                match constant_before(&self.b.threads[t].code, r) {
                    Some(v) if (0..=MAX_ID).contains(&v) => BarId::Const(v),
                    Some(v) => return Err(out_of_range(v)),
                    None => BarId::Reg(r),
                }
            }
            _ => return Err(bad_op("barrier id", "a register or an integer constant", a)),
        };
        let count = match b.map(|b| (b, &b.kind)) {
            None => None,
            Some((_, OpKind::Int(v))) if *v >= 1 => Some(Operand::Imm(*v)),
            Some((b, OpKind::Int(v))) => {
                return Err(ParseError::new(
                    ParseErrorKind::OutOfRange {
                        what: "barrier thread count",
                        value: v.to_string(),
                        range: "1 to 4294967295",
                    },
                    b.span,
                ))
            }
            Some((_, OpKind::Name(n))) => Some(Operand::Reg(self.b.reg(t, n))),
            Some((b, _)) => return Err(bad_op("thread count", "a register or an integer", b)),
        };
        self.emit_bar_red(t, span, red, d, pred, negated, id, count)?;
        Ok(true)
    }

    /// The events of one `bar.red`; registers are interned in the order the
    /// printed form names them, so that it parses back to the same ids.
    #[allow(clippy::too_many_arguments)]
    fn emit_bar_red(
        &mut self,
        t: usize,
        span: Span,
        red: Reduction,
        d: &str,
        pred: &str,
        negated: bool,
        id: BarId,
        count: Option<Operand>,
    ) -> PResult<()> {
        let n = self.b.threads[t].code.len();
        let setp = |cmp| BinOp::Setp {
            cmp,
            signed: false,
            bits: 32,
        };
        let access = Access {
            bytes: 4,
            vector: 1,
        };
        // The contribution: pred + 1.
        let mine = self.b.reg(t, &format!("%__br{n}"));
        let p = self.b.reg(t, pred);
        let cmp = if negated { CmpOp::Eq } else { CmpOp::Ne };
        self.op(t, span, setp(cmp), mine, Operand::Reg(p), Operand::Imm(0));
        self.op(
            t,
            span,
            BinOp::Add,
            mine,
            Operand::Reg(mine),
            Operand::Imm(1),
        );
        for k in id.values() {
            let skip = self.open_case(t, id, k, span);
            let own = self.b.addr(&contribution_name(t, k));
            self.push(
                t,
                Instr::Store {
                    sem: Sem::Weak,
                    scope: None,
                    proxy: Proxy::Generic,
                    space: StateSpace::Shared,
                    access,
                    addr: own,
                    src: vec![Operand::Reg(mine)],
                },
                span,
            );
            self.close_case(t, skip, span)?;
        }
        self.push(
            t,
            Instr::Barrier {
                kind: BarrierKind::Red,
                instance: 0,
                id: match id {
                    BarId::Const(k) => Operand::Imm(k),
                    BarId::Reg(r) => Operand::Reg(r),
                },
                count,
            },
            span,
        );
        // Every thread of the CTA may take part (8.9.4 item 2: the barrier
        // synchronizes the threads of one CTA).
        let me = self.b.threads[t].placement;
        let peers: Vec<usize> = (0..self.b.threads.len())
            .filter(|&u| {
                let q = self.b.threads[u].placement;
                q.gpu == me.gpu && q.cta == me.cta
            })
            .collect();
        let parts: Vec<RegId> = peers
            .iter()
            .map(|&u| self.b.reg(t, &format!("%__br{n}_{u}")))
            .collect();
        for k in id.values() {
            let skip = self.open_case(t, id, k, span);
            for (&u, &r) in peers.iter().zip(&parts) {
                let addr = self.b.addr(&contribution_name(u, k));
                self.push(
                    t,
                    Instr::Load {
                        sem: Sem::Weak,
                        scope: None,
                        proxy: Proxy::Generic,
                        space: StateSpace::Shared,
                        access,
                        dst: vec![r],
                        addr,
                    },
                    span,
                );
            }
            self.close_case(t, skip, span)?;
        }
        // popc / or: a contribution's predicate is `v >> 1`; and: count the
        // false contributions (`v == 1`).
        for &r in &parts {
            match red {
                Reduction::Popc | Reduction::Or => {
                    self.op(t, span, BinOp::Shr, r, Operand::Reg(r), Operand::Imm(1))
                }
                Reduction::And => self.op(
                    t,
                    span,
                    setp(CmpOp::Eq),
                    r,
                    Operand::Reg(r),
                    Operand::Imm(1),
                ),
            }
        }
        let dst = self.b.reg(t, d);
        self.fold_regs(t, dst, BinOp::Add, &parts, span);
        let last = match red {
            Reduction::Popc => None,
            Reduction::Or => Some(CmpOp::Ne),
            Reduction::And => Some(CmpOp::Eq),
        };
        if let Some(cmp) = last {
            self.op(t, span, setp(cmp), dst, Operand::Reg(dst), Operand::Imm(0));
        }
        Ok(())
    }

    /// Opens the case of id `k` of a register id: a branch past the case
    /// when the register holds another id; `None` (no case) for a constant.
    fn open_case(&mut self, t: usize, id: BarId, k: i64, span: Span) -> Option<String> {
        let BarId::Reg(r) = id else { return None };
        let label = self.b.fresh(t, "$br");
        let target = self.b.label_use(t, &label, span);
        self.push(
            t,
            Instr::Branch {
                cmp: CmpOp::Ne,
                a: Operand::Reg(r),
                b: Operand::Imm(k),
                target,
            },
            span,
        );
        Some(label)
    }

    /// Closes a case [`Self::open_case`] opened.
    fn close_case(&mut self, t: usize, label: Option<String>, span: Span) -> PResult<()> {
        if let Some(name) = label {
            let l = self.b.label_def(t, &name, span)?;
            self.push(t, Instr::Label(l), span);
        }
        Ok(())
    }

    fn op(&mut self, t: usize, span: Span, op: BinOp, dst: RegId, a: Operand, b: Operand) {
        self.push(t, Instr::Op { op, dst, a, b }, span);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse;

    fn test(code: &str) -> crate::ir::Test {
        let src = format!("PTX r {{ }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 1,gpu 0 ;\n {code} ;\nexists (0 == 0)");
        crate::parser::parse_round_trip(&src)
    }

    #[test]
    fn mnemonics() {
        assert_eq!(reduction("bar.red.popc.u32"), Some(Ok(Reduction::Popc)));
        assert_eq!(
            reduction("barrier.cta.red.and.aligned.pred"),
            Some(Ok(Reduction::And))
        );
        assert_eq!(reduction("bar.cta.red.or.pred"), Some(Ok(Reduction::Or)));
        assert_eq!(reduction("bar.cta.red"), None, "the dialect's form");
        assert_eq!(reduction("bar.sync"), None);
        assert!(matches!(reduction("bar.red.popc.pred"), Some(Err(_))));
        assert!(matches!(reduction("bar.red.xor.pred"), Some(Err(_))));
        assert!(matches!(reduction("bar.red.and.u32"), Some(Err(_))));
    }

    #[test]
    fn a_store_the_barrier_and_one_load_per_thread_of_the_cta() {
        let t = test("bar.red.popc.u32 %r1, 0, %p1 | barrier.red.and.pred %p2, 0, !%p3 | bar.red.or.pred %p4, 1, 1, %p5");
        assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
        let code =
            |i: usize| -> Vec<&Instr> { t.threads[i].code.iter().map(|s| &s.instr).collect() };
        let loads = |i: usize| {
            code(i)
                .iter()
                .filter(|x| matches!(x, Instr::Load { .. }))
                .count()
        };
        assert_eq!((loads(0), loads(1), loads(2)), (2, 2, 1));
        for i in 0..3 {
            let stores = code(i)
                .iter()
                .filter(|x| matches!(x, Instr::Store { .. }))
                .count();
            let bars = code(i)
                .iter()
                .filter(|x| {
                    matches!(
                        x,
                        Instr::Barrier {
                            kind: BarrierKind::Red,
                            ..
                        }
                    )
                })
                .count();
            assert_eq!((stores, bars), (1, 1));
        }
        assert!(matches!(
            code(2).iter().find(|x| matches!(x, Instr::Barrier { .. })),
            Some(Instr::Barrier {
                count: Some(Operand::Imm(1)),
                id: Operand::Imm(1),
                ..
            })
        ));
    }

    /// A register id set from a constant on the straight-line path is that
    /// constant; one loaded from memory takes one case per id 0 to 15 (a
    /// branch past each), the barrier itself on the register.
    #[test]
    fn register_ids_are_constants_or_dispatches() {
        let src = |c: &str| format!("PTX r {{ b=1; }}\n P0@cta 0,gpu 0 ;\n {c} ;\nexists (0 == 0)");
        let t = crate::parser::parse_round_trip(&src(
            "mov.u32 %r2, 3 ;\n bar.red.popc.u32 %r1, %r2, %p1",
        ));
        assert!(t.unsupported.is_empty());
        let code: Vec<&Instr> = t.threads[0].code.iter().map(|s| &s.instr).collect();
        assert!(code.iter().any(|i| matches!(
            i,
            Instr::Barrier {
                id: Operand::Imm(3),
                ..
            }
        )));
        assert!(!code.iter().any(|i| matches!(i, Instr::Branch { .. })));
        let t = crate::parser::parse_round_trip(&src(
            "ld.global.u32 %r2, [b] ;\n bar.red.popc.u32 %r1, %r2, %p1",
        ));
        assert!(t.unsupported.is_empty());
        let code: Vec<&Instr> = t.threads[0].code.iter().map(|s| &s.instr).collect();
        let count = |f: fn(&Instr) -> bool| code.iter().filter(|i| f(i)).count();
        assert_eq!(count(|i| matches!(i, Instr::Branch { .. })), 32);
        assert_eq!(count(|i| matches!(i, Instr::Store { .. })), 16);
        assert_eq!(
            count(|i| matches!(
                i,
                Instr::Barrier {
                    id: Operand::Reg(_),
                    ..
                }
            )),
            1
        );
        assert!(parse(&src("mov.u32 %r2, 16 ;\n bar.red.popc.u32 %r1, %r2, %p1")).is_err());
    }

    #[test]
    fn malformed_forms_are_errors() {
        let src = |c: &str| format!("PTX r {{ }}\n P0@cta 0,gpu 0 ;\n {c} ;\nexists (0 == 0)");
        for bad in [
            "bar.red.popc.u32 %r1, 0",
            "bar.red.popc.u32 %r1, 16, %p1",
            "bar.red.popc.u32 %r1, 0, 0, %p1",
            "bar.red.popc.u32 %r1, 0, 5",
            "bar.red.nand.pred %p1, 0, %p2",
        ] {
            assert!(parse(&src(bad)).is_err(), "{bad}");
        }
    }
}
