//! The forms of compiler output in litmus threads: `.reg` declarations,
//! guards `@%p` / `@!%p` on any instruction, special registers, and the
//! lowering of `setp`, `selp`, `cvt`, `mad`, ... to register operations.
//!
//! A guarded instruction becomes a branch around it (`@%p st [x], 1` is
//! `beq %p, 0, $gN; st [x], 1; $gN:`), so that a guarded-off access makes
//! no event and a guarded one is control dependent on the predicate
//! (8.10.4). Instructions of more than two operands are lowered to several
//! register operations through fresh temporaries `$tN`.

use super::instr::{Check, Lowered, Value};
use super::opcode::{IntType, PtxShape};
use super::operand::{OpKind, Operand};
use super::special;
use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{self, BinOp, CmpOp, Instr, Operand as Val, Span};
use crate::lexer::{Tok, Token};

impl<'s> Parser<'s> {
    /// `.reg .TYPE{.vN} %r<N>, %x, ...` (in a cell, up to `|` or `;`).
    /// Registers are interned on use, so a declaration emits nothing; it is
    /// checked for form only.
    pub(super) fn reg_decl(&mut self, first: Token) -> PResult<()> {
        let word = self.text(first);
        if word != ".reg" {
            return Err(ParseError::new(
                ParseErrorKind::UnknownInstruction(word.into()),
                first.span,
            ));
        }
        self.bump();
        let bad = |p: &Self, why: &str| {
            ParseError::new(ParseErrorKind::BadRegDecl(why.into()), p.peek().span)
        };
        let mut typed = false;
        while self.at(Tok::Ident) && self.text(self.peek()).starts_with('.') {
            typed = true;
            self.bump();
        }
        if !typed {
            return Err(bad(self, "expected a type such as `.b32` after `.reg`"));
        }
        loop {
            if !self.at(Tok::Ident) || self.text(self.peek()).starts_with('.') {
                return Err(bad(self, "expected a register name such as `%r<4>`"));
            }
            self.bump();
            if self.at(Tok::Lt) {
                self.bump();
                if !matches!(self.peek().tok, Tok::Int(_)) {
                    return Err(bad(self, "expected a count in `<N>`"));
                }
                self.bump();
                if !self.at(Tok::Gt) {
                    return Err(bad(self, "expected `>` after the count"));
                }
                self.bump();
            }
            if !self.at(Tok::Comma) {
                return Ok(());
            }
            self.bump();
        }
    }

    /// `@p instr` / `@!p instr` for any instruction but `bra` (see
    /// `predicated_branch`): a branch around the instruction.
    pub(super) fn guarded(&mut self, t: usize) -> PResult<()> {
        let at = self.bump();
        let neg = self.at(Tok::Bang);
        if neg {
            self.bump();
        }
        let (name, span) = self.ident("a predicate register after `@`")?;
        if special::is_special(name) {
            return Err(ParseError::new(
                ParseErrorKind::BadRegDecl(format!("`{name}` cannot guard an instruction")),
                span,
            ));
        }
        let label = self.b.fresh(t, "$g");
        let p = self.b.reg(t, name);
        let target = self.b.label_use(t, &label, at.span);
        self.push(
            t,
            Instr::Branch {
                cmp: if neg { CmpOp::Ne } else { CmpOp::Eq },
                a: Val::Reg(p),
                b: Val::Imm(0),
                target,
            },
            at.span,
        );
        // One guard per instruction (PTX has no nested guards; refusing them
        // also bounds the recursion).
        if !self.at(Tok::Ident) || self.peek().span.line != span.line {
            return Err(self.expected("an instruction after the guard"));
        }
        self.instruction(t)?;
        let l = self.b.label_def(t, &label, at.span)?;
        self.push(t, Instr::Label(l), at.span);
        Ok(())
    }

    /// Replaces special registers (`%tid.x`) among `ops` by their values from
    /// thread `t`'s placement, or fails where the placement does not define one.
    pub(super) fn resolve_specials(&self, t: usize, ops: &mut [Operand<'s>]) -> PResult<()> {
        for op in ops.iter_mut() {
            if let OpKind::Vector(elems) = &mut op.kind {
                self.resolve_specials(t, elems)?;
                continue;
            }
            let OpKind::Name(n) = op.kind else {
                continue;
            };
            if !special::is_special(n) {
                continue;
            }
            let th = &self.b.threads[t];
            match special::value(n, th.placement, &th.special) {
                Ok(v) => op.kind = OpKind::Int(v),
                Err(hint) => {
                    return Err(ParseError::new(
                        ParseErrorKind::UndefinedSpecialRegister {
                            reg: n.into(),
                            thread: t,
                            hint,
                        },
                        op.span,
                    ))
                }
            }
        }
        Ok(())
    }

    /// The source of `mov`/`cvta`: a declared location's name is its address
    /// ([`ir::address_value`]); otherwise a register or a constant.
    pub(super) fn mov_source(&mut self, t: usize, c: &Check<'_>, op: &Operand<'s>) -> PResult<Val> {
        if let OpKind::Name(n) = op.kind {
            if !n.starts_with('%') && self.b.is_declared_location(n) {
                return Ok(Val::Imm(ir::address_value(self.b.addr(n))));
            }
        }
        let v = c.value("source", op)?;
        Ok(self.val(t, v))
    }

    /// A fresh temporary register of thread `t`.
    pub(super) fn temp(&mut self, t: usize) -> ir::RegId {
        let name = self.b.fresh(t, "$t");
        self.b.reg(t, &name)
    }

    /// `dst <- a op b`, pushed before the instruction being lowered.
    pub(super) fn emit(&mut self, t: usize, span: Span, op: BinOp, dst: ir::RegId, a: Val, b: Val) {
        self.push(t, Instr::Op { op, dst, a, b }, span);
    }

    /// `v` as a `ty` integer extended to 64 bits: a constant folded, a register
    /// through a temporary. Registers are interned in the order the printed
    /// statements name them (destination first), so that printing round-trips.
    fn widened(&mut self, t: usize, span: Span, v: Value<'_>, ty: IntType) -> Val {
        let op = BinOp::Ext {
            signed: ty.signed,
            bits: ty.bits,
        };
        match v {
            Value::Imm(i) => Val::Imm(op.eval(i, 0)),
            Value::Reg(_) => {
                let tmp = self.temp(t);
                let v = self.val(t, v);
                self.emit(t, span, op, tmp, v, Val::Imm(0));
                Val::Reg(tmp)
            }
        }
    }

    /// Lowers a compiler-style register instruction of thread `t`; the
    /// statements before the last are pushed here.
    pub(super) fn lower_ptx(
        &mut self,
        t: usize,
        c: &Check<'_>,
        shape: PtxShape,
        ops: &[Operand<'s>],
    ) -> PResult<Lowered> {
        let span = c.span;
        let op = |op, dst, a, b| Ok(Lowered::Instr(Instr::Op { op, dst, a, b }));
        match shape {
            PtxShape::Setp {
                cmp,
                signed,
                bits,
                combine,
            } => {
                let setp = BinOp::Setp { cmp, signed, bits };
                let (d, a, b, rest) = match (combine, ops) {
                    (None, [d, a, b]) => (d, a, b, None),
                    (Some(_), [d, a, b, r]) => (d, a, b, Some(r)),
                    (None, _) => return Err(c.count("3 operands", ops.len())),
                    (Some(_), _) => return Err(c.count("4 operands", ops.len())),
                };
                let (d, a, b) = (
                    c.reg("destination", d)?,
                    c.value("first operand", a)?,
                    c.value("second operand", b)?,
                );
                let rest = match rest {
                    None => None,
                    Some(r) => Some(match r.kind {
                        OpKind::Not(n) => (true, Value::Reg(n)),
                        _ => (false, c.value("predicate", r)?),
                    }),
                };
                let (Some(comb), Some((neg, r))) = (combine, rest) else {
                    let (dst, a, b) = (self.b.reg(t, d), self.val(t, a), self.val(t, b));
                    return op(setp, dst, a, b);
                };
                let s = self.temp(t);
                let (a, b) = (self.val(t, a), self.val(t, b));
                self.emit(t, span, setp, s, a, b);
                let r = if neg {
                    let n = self.temp(t);
                    let r = self.val(t, r);
                    self.emit(t, span, BinOp::Xor, n, r, Val::Imm(1));
                    Val::Reg(n)
                } else {
                    self.val(t, r)
                };
                let dst = self.b.reg(t, d);
                op(comb, dst, Val::Reg(s), r)
            }
            PtxShape::Selp => {
                let [d, a, b, p] = c.exactly::<4>(ops, "4 operands")?;
                let (d, a, b, p) = (
                    c.reg("destination", d)?,
                    c.value("first operand", a)?,
                    c.value("second operand", b)?,
                    c.value("predicate", p)?,
                );
                // d = b + (a - b) * (p != 0)
                let tp = self.temp(t);
                let p = self.val(t, p);
                let ne = BinOp::Setp {
                    cmp: CmpOp::Ne,
                    signed: false,
                    bits: 64,
                };
                self.emit(t, span, ne, tp, p, Val::Imm(0));
                let diff = self.temp(t);
                let (a, b) = (self.val(t, a), self.val(t, b));
                self.emit(t, span, BinOp::Sub, diff, a, b);
                let prod = self.temp(t);
                self.emit(t, span, BinOp::Mul, prod, Val::Reg(diff), Val::Reg(tp));
                let dst = self.b.reg(t, d);
                op(BinOp::Add, dst, b, Val::Reg(prod))
            }
            PtxShape::Not { bits } => {
                let (dst, a) = self.unary_ops(t, c, ops)?;
                match bits {
                    // `p == 0`: true for 0, false for any other value.
                    None => op(
                        BinOp::Setp {
                            cmp: CmpOp::Eq,
                            signed: false,
                            bits: 64,
                        },
                        dst,
                        a,
                        Val::Imm(0),
                    ),
                    Some(64) => op(BinOp::Xor, dst, a, Val::Imm(-1)),
                    Some(bits) => {
                        self.emit(t, span, BinOp::Xor, dst, a, Val::Imm(-1));
                        let ext = BinOp::Ext {
                            signed: false,
                            bits,
                        };
                        op(ext, dst, Val::Reg(dst), Val::Imm(0))
                    }
                }
            }
            PtxShape::Neg => {
                let (dst, a) = self.unary_ops(t, c, ops)?;
                op(BinOp::Sub, dst, Val::Imm(0), a)
            }
            PtxShape::Abs => {
                let (dst, a) = self.unary_ops(t, c, ops)?;
                op(BinOp::Abs, dst, a, Val::Imm(0))
            }
            PtxShape::Popc { bits } => {
                let (dst, a) = self.unary_ops(t, c, ops)?;
                op(BinOp::Popc { bits }, dst, a, Val::Imm(0))
            }
            PtxShape::Cvt { dst: dt, src: st } => {
                let (dst, a) = self.unary_ops(t, c, ops)?;
                let mut cur = a;
                let mut steps = Vec::new();
                if st.bits < 64 {
                    steps.push(BinOp::Ext {
                        signed: st.signed,
                        bits: st.bits,
                    });
                }
                let same = dt.bits >= st.bits && dt.signed == st.signed;
                if dt.bits < 64 && !same {
                    steps.push(BinOp::Ext {
                        signed: dt.signed,
                        bits: dt.bits,
                    });
                }
                let Some((&last, init)) = steps.split_last() else {
                    return Ok(Lowered::Instr(Instr::Mov { dst, src: a }));
                };
                for &s in init {
                    self.emit(t, span, s, dst, cur, Val::Imm(0));
                    cur = Val::Reg(dst);
                }
                op(last, dst, cur, Val::Imm(0))
            }
            PtxShape::Cvta => {
                let [d, s] = c.exactly::<2>(ops, "2 operands")?;
                let d = c.reg("destination", d)?;
                let src = self.mov_source(t, c, s)?;
                Ok(Lowered::Instr(Instr::Mov {
                    dst: self.b.reg(t, d),
                    src,
                }))
            }
            PtxShape::Mad { wide } => {
                let [d, a, b, e] = c.exactly::<4>(ops, "4 operands")?;
                let (d, a, b, e) = (
                    c.reg("destination", d)?,
                    c.value("first operand", a)?,
                    c.value("second operand", b)?,
                    c.value("addend", e)?,
                );
                let (prod, a, b) = match wide {
                    Some(ty) => {
                        let a = self.widened(t, span, a, ty);
                        let b = self.widened(t, span, b, ty);
                        (self.temp(t), a, b)
                    }
                    None => {
                        let prod = self.temp(t);
                        (prod, self.val(t, a), self.val(t, b))
                    }
                };
                self.emit(t, span, BinOp::Mul, prod, a, b);
                let dst = self.b.reg(t, d);
                let e = self.val(t, e);
                op(BinOp::Add, dst, Val::Reg(prod), e)
            }
            PtxShape::MulWide { ty } => {
                let [d, a, b] = c.exactly::<3>(ops, "3 operands")?;
                let (d, a, b) = (
                    c.reg("destination", d)?,
                    c.value("first operand", a)?,
                    c.value("second operand", b)?,
                );
                let a = self.widened(t, span, a, ty);
                let b = self.widened(t, span, b, ty);
                let dst = self.b.reg(t, d);
                op(BinOp::Mul, dst, a, b)
            }
            PtxShape::Nanosleep => {
                let [x] = c.exactly::<1>(ops, "1 operand")?;
                let x = c.value("duration", x)?;
                // Interned only so that the register exists; no effect (no memory event).
                let _ = self.val(t, x);
                Ok(Lowered::Nothing)
            }
            PtxShape::Hi { .. }
            | PtxShape::Bfe { .. }
            | PtxShape::Shf { .. }
            | PtxShape::Prmt { .. }
            | PtxShape::Unary(_) => self.lower_bits(t, c, shape, ops),
            PtxShape::Exit => {
                if !ops.is_empty() {
                    return Err(c.count("no operands", ops.len()));
                }
                let l = match self.b.threads[t].exit_label {
                    Some(l) => l,
                    None => {
                        let l = self.b.label_use(t, "$exit", span);
                        self.b.threads[t].exit_label = Some(l);
                        return Ok(Lowered::Instr(Instr::Goto(l)));
                    }
                };
                let l2 = self.b.label_use(t, "$exit", span);
                debug_assert_eq!(l, l2);
                Ok(Lowered::Instr(Instr::Goto(l2)))
            }
        }
    }

    /// `d, a` of a one-operand instruction, interned.
    fn unary_ops(
        &mut self,
        t: usize,
        c: &Check<'_>,
        ops: &[Operand<'s>],
    ) -> PResult<(ir::RegId, Val)> {
        let [d, a] = c.exactly::<2>(ops, "2 operands")?;
        let (d, a) = (c.reg("destination", d)?, c.value("source", a)?);
        Ok((self.b.reg(t, d), self.val(t, a)))
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::*;

    fn parse(header: &str, body: &str) -> Result<Test, String> {
        let src =
            format!("PTX t\n{{ data=0; flag=0; }}\n {header} ;\n{body}\nexists (data == 0)\n");
        crate::parse(&src).map_err(|e| e.to_string())
    }

    fn code(body: &str) -> Vec<Instr> {
        let t = parse("P0@cta 3,gpu 0,tid 7,ntid 8", body).expect("parses");
        t.threads[0].code.iter().map(|s| s.instr.clone()).collect()
    }

    #[test]
    fn declarations_emit_nothing_and_mov_takes_an_address() {
        let c = code(
            " .reg .pred %p<3> ;\n .reg .b32 %r<5>, %x ;\n .reg .b64 %rd1 ;\n mov.u64 %rd1, data ;\n st.global.u32 [%rd1], 42 ;",
        );
        assert_eq!(c.len(), 3, "{c:?}");
        assert_eq!(
            c[0],
            Instr::Mov {
                dst: RegId(0),
                src: Operand::Imm(address_value(AddrId(0)))
            }
        );
        assert_eq!(
            c[1],
            Instr::AddrReg {
                reg: RegId(0),
                offset: 0,
                operand: crate::ir::AddrOperand::Target,
            }
        );
        assert!(matches!(
            c[2],
            Instr::Store {
                addr: AddrId(0),
                ..
            }
        ));
    }

    #[test]
    fn setp_forms_and_guards() {
        let c = code(
            " setp.lo.u16 %p1, %r1, 3 ;\n setp.ge.or.s64 %p2, %r1, 0, !%p1 ;\n @!%p2 st.global.u32 [data], 1 ;",
        );
        assert_eq!(
            c[0],
            Instr::Op {
                op: BinOp::Setp {
                    cmp: CmpOp::Lt,
                    signed: false,
                    bits: 16
                },
                dst: RegId(0),
                a: Operand::Reg(RegId(1)),
                b: Operand::Imm(3)
            }
        );
        // setp into a temporary, the negated predicate, then the `or`.
        assert!(matches!(
            c[1],
            Instr::Op {
                op: BinOp::Setp {
                    cmp: CmpOp::Ge,
                    signed: true,
                    bits: 64
                },
                ..
            }
        ));
        assert!(matches!(
            c[2],
            Instr::Op {
                op: BinOp::Xor,
                b: Operand::Imm(1),
                ..
            }
        ));
        assert!(matches!(c[3], Instr::Op { op: BinOp::Or, .. }));
        // @!%p2: skip the store when %p2 != 0.
        assert!(matches!(
            c[4],
            Instr::Branch {
                cmp: CmpOp::Ne,
                b: Operand::Imm(0),
                ..
            }
        ));
        assert!(matches!(c[5], Instr::Store { .. }));
        assert!(matches!(c[6], Instr::Label(_)));
    }

    #[test]
    fn special_registers_come_from_the_placement() {
        let c = code(
            " mov.u32 %r1, %tid.x ;\n mov.u32 %r2, %ntid.x ;\n mov.u32 %r3, %ctaid.x ;\n mov.u32 %r4, %tid.y ;\n mov.u32 %r5, %laneid ;",
        );
        let imms: Vec<i64> = c
            .iter()
            .filter_map(|i| match i {
                Instr::Mov {
                    src: Operand::Imm(v),
                    ..
                } => Some(*v),
                _ => None,
            })
            .collect();
        assert_eq!(imms, [7, 8, 3, 0, 7]);
        let e = parse("P0@cta 0,gpu 0", " mov.u32 %r1, %ntid.x ;").unwrap_err();
        assert_eq!(
            e,
            "4:15: `%ntid.x` is not defined by the placement of P0: add `ntid N` to the placement"
        );
        let e = parse("P0@cta 0,gpu 0,tid 1", " mov.u32 %r1, %smid ;").unwrap_err();
        assert!(e.contains("no placement field"), "{e}");
        let e = parse("P0@cta 0,gpu 0,tid 1,tid 2", "").unwrap_err();
        assert!(e.contains("`tid`"), "{e}");
    }

    #[test]
    fn ret_jumps_past_the_end_and_alu_forms_lower() {
        let c = code(
            " @%p1 ret ;\n mul.wide.s32 %rd1, %r1, -4 ;\n cvt.s64.s32 %rd2, %r1 ;\n cvta.to.global.u64 %rd3, %rd1 ;\n exit ;",
        );
        let n = c.len();
        assert!(matches!(c[n - 1], Instr::Label(_)));
        assert_eq!(c[n - 2], Instr::Goto(LabelId(1)));
        assert!(c.contains(&Instr::Goto(LabelId(1))));
        // mul.wide: the register widened, the constant folded.
        assert!(c.iter().any(|i| matches!(
            i,
            Instr::Op {
                op: BinOp::Mul,
                b: Operand::Imm(-4),
                ..
            }
        )));
        assert!(c.iter().any(|i| matches!(
            i,
            Instr::Op {
                op: BinOp::Ext {
                    signed: true,
                    bits: 32
                },
                ..
            }
        )));
        assert!(c.iter().any(|i| matches!(
            i,
            Instr::Mov {
                src: Operand::Reg(_),
                ..
            }
        )));
    }

    #[test]
    fn malformed_forms_are_positioned_errors() {
        let e = |body: &str| parse("P0@cta 0,gpu 0", body).unwrap_err();
        assert!(e(" .reg %r<2> ;").contains("expected a type"));
        assert!(e(" .loc 1 2 3 ;").contains("`.loc`"));
        assert!(e(" setp.lt.b32 %p1, %r1, 0 ;").contains("signed or unsigned"));
        assert!(e(" setp.eq.s32 %p1, %r1 ;").contains("3 operands"));
        assert!(e(" selp.b32 %r1, 1, 2 ;").contains("4 operands"));
        assert!(e(" @%p1 ;").contains("an instruction after the guard"));
        assert!(e(" @%p1 @%p2 st.u32 [data], 1 ;").contains("an instruction after the guard"));
    }
}
