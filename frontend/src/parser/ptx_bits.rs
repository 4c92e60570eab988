//! The bit and byte instructions of compiler output: `mul.hi`, `mad.hi`,
//! `bfe`, `shf`, `prmt`, `clz`, `brev` (PTX ISA 9.7.1, 9.7.8), lowered to
//! register operations ([`BinOp::MulHi`], [`BinOp::Bfe`], ...).
//!
//! `bfe`, `shf` and `prmt` read three sources; the IR's operations read two,
//! so the lowering packs two of them into one value first (`bfe`'s position
//! and length as `pos | len << 8`, `shf`'s and `prmt`'s two 32-bit inputs as
//! one 64-bit value), folded when they are constants. The printer writes the
//! packed form back (`bfe.u32 d, a, packed`, `shf.l.wrap.b64 d, joined, n`,
//! `prmt.b64 d, joined, sel`), which reads back to the same operations.

use super::instr::{Check, Lowered, Value};
use super::opcode::PtxShape;
use super::operand::Operand;
use super::{PResult, Parser};
use crate::ir::{BinOp, Instr, Operand as Val, Span};

impl<'s> Parser<'s> {
    /// Lowers `mul.hi`/`mad.hi` (`Hi`), `bfe`, `shf`, `prmt` and the unary
    /// `clz`/`brev` of thread `t`; other shapes are not bit instructions.
    pub(super) fn lower_bits(
        &mut self,
        t: usize,
        c: &Check<'_>,
        shape: PtxShape,
        ops: &[Operand<'s>],
    ) -> PResult<Lowered> {
        let span = c.span;
        let op = |op, dst, a, b| Ok(Lowered::Instr(Instr::Op { op, dst, a, b }));
        match shape {
            PtxShape::Hi { ty, mad } => {
                let hi = BinOp::MulHi {
                    signed: ty.signed,
                    bits: ty.bits,
                };
                if !mad {
                    let [d, a, b] = c.exactly::<3>(ops, "3 operands")?;
                    let (d, a, b) = (
                        c.reg("destination", d)?,
                        c.value("first operand", a)?,
                        c.value("second operand", b)?,
                    );
                    let (dst, a, b) = (self.b.reg(t, d), self.val(t, a), self.val(t, b));
                    return op(hi, dst, a, b);
                }
                let [d, a, b, e] = c.exactly::<4>(ops, "4 operands")?;
                let (d, a, b, e) = (
                    c.reg("destination", d)?,
                    c.value("first operand", a)?,
                    c.value("second operand", b)?,
                    c.value("addend", e)?,
                );
                let prod = self.temp(t);
                let (a, b) = (self.val(t, a), self.val(t, b));
                self.emit(t, span, hi, prod, a, b);
                let dst = self.b.reg(t, d);
                let e = self.val(t, e);
                op(BinOp::Add, dst, Val::Reg(prod), e)
            }
            PtxShape::Bfe { ty } => {
                let bfe = BinOp::Bfe {
                    signed: ty.signed,
                    bits: ty.bits,
                };
                let (d, a, packed) = match ops {
                    [d, a, pos, len] => {
                        let (d, a) = (c.reg("destination", d)?, c.value("source", a)?);
                        let (pos, len) = (c.value("position", pos)?, c.value("length", len)?);
                        (d, a, self.packed_field(t, span, pos, len))
                    }
                    // The printer's form: position and length packed.
                    [d, a, p] => {
                        let (d, a) = (c.reg("destination", d)?, c.value("source", a)?);
                        let p = c.value("position and length", p)?;
                        let dst = self.b.reg(t, d);
                        let (a, p) = (self.val(t, a), self.val(t, p));
                        return op(bfe, dst, a, p);
                    }
                    _ => return Err(c.count("4 operands", ops.len())),
                };
                let dst = self.b.reg(t, d);
                let a = self.val(t, a);
                op(bfe, dst, a, packed)
            }
            PtxShape::Shf {
                left,
                clamp,
                joined,
            } => {
                let shf = BinOp::Shf { left, clamp };
                self.lower_joined(t, c, ops, joined, shf, "shift")
            }
            PtxShape::Prmt { mode, joined } => {
                self.lower_joined(t, c, ops, joined, BinOp::Prmt { mode }, "selector")
            }
            PtxShape::Unary(u) => {
                let [d, a] = c.exactly::<2>(ops, "2 operands")?;
                let (d, a) = (c.reg("destination", d)?, c.value("source", a)?);
                let (dst, a) = (self.b.reg(t, d), self.val(t, a));
                op(u, dst, a, Val::Imm(0))
            }
            _ => Ok(Lowered::Unsupported(c.instr.to_string())),
        }
    }

    /// `bfe`'s `pos & 0xff | (len & 0xff) << 8`: folded for constants,
    /// computed into a temporary otherwise.
    fn packed_field(&mut self, t: usize, span: Span, pos: Value<'_>, len: Value<'_>) -> Val {
        if let (Value::Imm(p), Value::Imm(l)) = (pos, len) {
            return Val::Imm((p & 0xff) | (l & 0xff) << 8);
        }
        let p = self.temp(t);
        let pos = self.val(t, pos);
        self.emit(t, span, BinOp::And, p, pos, Val::Imm(0xff));
        let l = self.temp(t);
        let len = self.val(t, len);
        self.emit(t, span, BinOp::And, l, len, Val::Imm(0xff));
        let s = self.temp(t);
        self.emit(t, span, BinOp::Shl, s, Val::Reg(l), Val::Imm(8));
        let out = self.temp(t);
        self.emit(t, span, BinOp::Or, out, Val::Reg(p), Val::Reg(s));
        Val::Reg(out)
    }

    /// `OP d, lo, hi, x` as `OP d, (hi << 32 | lo as u32), x` (or the printer's
    /// `OP d, joined, x` when `joined`).
    fn lower_joined(
        &mut self,
        t: usize,
        c: &Check<'_>,
        ops: &[Operand<'s>],
        joined: bool,
        bin: BinOp,
        what: &'static str,
    ) -> PResult<Lowered> {
        let span = c.span;
        let (d, v, x) = if joined {
            let [d, v, x] = c.exactly::<3>(ops, "3 operands")?;
            let (d, v, x) = (
                c.reg("destination", d)?,
                c.value("source", v)?,
                c.value(what, x)?,
            );
            let v = self.val(t, v);
            (d, v, x)
        } else {
            let [d, lo, hi, x] = c.exactly::<4>(ops, "4 operands")?;
            let (d, lo, hi, x) = (
                c.reg("destination", d)?,
                c.value("first source", lo)?,
                c.value("second source", hi)?,
                c.value(what, x)?,
            );
            let v = match (lo, hi) {
                (Value::Imm(l), Value::Imm(h)) => Val::Imm(h.wrapping_shl(32) | (l & 0xffff_ffff)),
                _ => {
                    let l = self.temp(t);
                    let lo = self.val(t, lo);
                    let ext = BinOp::Ext {
                        signed: false,
                        bits: 32,
                    };
                    self.emit(t, span, ext, l, lo, Val::Imm(0));
                    let h = self.temp(t);
                    let hi = self.val(t, hi);
                    self.emit(t, span, BinOp::Shl, h, hi, Val::Imm(32));
                    let j = self.temp(t);
                    self.emit(t, span, BinOp::Or, j, Val::Reg(h), Val::Reg(l));
                    Val::Reg(j)
                }
            };
            (d, v, x)
        };
        let dst = self.b.reg(t, d);
        let x = self.val(t, x);
        Ok(Lowered::Instr(Instr::Op {
            op: bin,
            dst,
            a: v,
            b: x,
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::*;

    fn code(body: &str) -> Vec<Instr> {
        let src = format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n{body}\nexists (x == 0)\n");
        let t = crate::parse(&src).unwrap_or_else(|e| panic!("{e}"));
        t.threads[0].code.iter().map(|s| s.instr.clone()).collect()
    }

    /// Runs straight-line register code and returns the register values by name.
    fn run(body: &str, reg: &str) -> i64 {
        let src = format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n{body}\nexists (x == 0)\n");
        let t = crate::parse(&src).unwrap_or_else(|e| panic!("{e}"));
        let th = &t.threads[0];
        let names = &t.symbols.regs[0];
        let mut regs = vec![0i64; names.len()];
        let val = |regs: &[i64], o: Operand| match o {
            Operand::Imm(v) => v,
            Operand::Reg(r) => regs[r.index()],
        };
        for s in &th.code {
            match s.instr {
                Instr::Op { op, dst, a, b } => {
                    regs[dst.index()] = op.eval(val(&regs, a), val(&regs, b));
                }
                Instr::Mov { dst, src } => regs[dst.index()] = val(&regs, src),
                _ => {}
            }
        }
        let r = names
            .iter()
            .position(|n| n == reg)
            .unwrap_or_else(|| panic!("no register {reg}"));
        regs[r]
    }

    #[test]
    fn constants_fold_into_one_operation() {
        let c = code(" bfe.u32 %r1, %r2, 8, 4 ;\n shf.l.wrap.b32 %r3, 1, 2, %r4 ;");
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(matches!(
            c[0],
            Instr::Op {
                op: BinOp::Bfe { .. },
                b: Operand::Imm(0x408),
                ..
            }
        ));
        assert!(matches!(
            c[1],
            Instr::Op {
                a: Operand::Imm(0x2_0000_0001),
                ..
            }
        ));
    }

    #[test]
    fn register_forms_compute_what_ptx_says() {
        // bfe: byte 1 of 0x0000_f0ab... sign-extended from bit 15.
        let pre = " mov.u32 %r1, 0x8070f0ab ;\n mov.u32 %r2, 8 ;\n mov.u32 %r3, 8 ;\n";
        assert_eq!(
            run(&format!("{pre} bfe.u32 %r4, %r1, %r2, %r3 ;"), "r4"),
            0xf0
        );
        assert_eq!(
            run(&format!("{pre} bfe.s32 %r4, %r1, %r2, %r3 ;"), "r4"),
            -16
        );
        assert_eq!(run(&format!("{pre} bfe.s32 %r4, %r1, 0, 0 ;"), "r4"), 0);
        // Past the msb: the input's top bit replicated.
        assert_eq!(run(&format!("{pre} bfe.s32 %r4, %r1, 28, 8 ;"), "r4"), -8);
        // shf: funnel shifts of {hi:lo}.
        let pre = " mov.u32 %r1, 0x80000001 ;\n mov.u32 %r2, 0x3 ;\n";
        assert_eq!(
            run(&format!("{pre} shf.l.wrap.b32 %r3, %r1, %r2, 1 ;"), "r3"),
            7
        );
        assert_eq!(
            run(&format!("{pre} shf.r.wrap.b32 %r3, %r1, %r2, 33 ;"), "r3"),
            0xc000_0000
        );
        assert_eq!(
            run(&format!("{pre} shf.r.clamp.b32 %r3, %r1, %r2, 40 ;"), "r3"),
            3
        );
        // prmt: bytes of {b:a}.
        let pre = " mov.u32 %r1, 0x332211f0 ;\n mov.u32 %r2, 0x77665544 ;\n";
        assert_eq!(
            run(&format!("{pre} prmt.b32 %r3, %r1, %r2, 0x7531 ;"), "r3"),
            0x7755_3311
        );
        assert_eq!(
            run(&format!("{pre} prmt.b32 %r3, %r1, %r2, 0x0008 ;"), "r3"),
            0xf0f0_f0ff
        );
        assert_eq!(
            run(&format!("{pre} prmt.b32 %r3, %r1, %r2, 0x000f ;"), "r3"),
            0xf0f0_f000
        );
        assert_eq!(
            run(&format!("{pre} prmt.b32.f4e %r3, %r1, %r2, 1 ;"), "r3"),
            0x4433_2211
        );
        assert_eq!(
            run(&format!("{pre} prmt.b32.b4e %r3, %r1, %r2, 0 ;"), "r3"),
            0x5566_77f0
        );
        assert_eq!(
            run(&format!("{pre} prmt.b32.ecr %r3, %r1, %r2, 2 ;"), "r3"),
            0x2222_11f0
        );
        assert_eq!(
            run(&format!("{pre} prmt.b32.rc16 %r3, %r1, %r2, 1 ;"), "r3"),
            0x3322_3322
        );
        // mul.hi / mad.hi.
        let pre = " mov.u32 %r1, 0x80000000 ;\n mov.u32 %r2, 6 ;\n";
        assert_eq!(run(&format!("{pre} mul.hi.u32 %r3, %r1, %r2 ;"), "r3"), 3);
        assert_eq!(run(&format!("{pre} mul.hi.s32 %r3, %r1, %r2 ;"), "r3"), -3);
        assert_eq!(
            run(&format!("{pre} mad.hi.u32 %r3, %r1, %r2, 10 ;"), "r3"),
            13
        );
        assert_eq!(
            run(" mov.u64 %rd1, -1 ;\n mul.hi.u64 %rd2, %rd1, %rd1 ;", "rd2"),
            -2
        );
        // clz / brev.
        assert_eq!(run(" mov.u32 %r1, 0x100 ;\n clz.b32 %r2, %r1 ;", "r2"), 23);
        assert_eq!(
            run(" mov.u32 %r1, 1 ;\n brev.b32 %r2, %r1 ;", "r2"),
            0x8000_0000
        );
    }

    #[test]
    fn printed_forms_read_back() {
        let src = "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.u32 %r1, [x] ;\n bfe.s32 %r2, %r1, %r1, 4 ;\n shf.r.clamp.b32 %r3, %r1, %r2, %r1 ;\n prmt.b32.rc8 %r4, %r1, 5, %r3 ;\n mad.hi.s32 %r5, %r4, %r1, 1 ;\n clz.b64 %r6, %r5 ;\nexists (x == 0)\n";
        let t = crate::parse(src).unwrap_or_else(|e| panic!("{e}"));
        let printed = crate::print(&t);
        let again = crate::parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
        let code = |t: &Test| -> Vec<Instr> {
            t.threads[0].code.iter().map(|s| s.instr.clone()).collect()
        };
        assert_eq!(code(&again), code(&t), "{printed}");
    }

    #[test]
    fn malformed_bit_forms_are_errors() {
        let e = |body: &str| {
            let src = format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n{body}\nexists (x == 0)\n");
            crate::parse(&src).map(|_| ()).unwrap_err().to_string()
        };
        assert!(e(" bfe.b32 %r1, %r2, 1, 2 ;").contains("b32"));
        assert!(e(" shf.l.b32 %r1, %r2, 1, 2 ;").contains("shf"));
        assert!(e(" prmt.b32.xyz %r1, %r2, 1, 2 ;").contains("xyz"));
        assert!(e(" mul.hi.u32 %r1, %r2 ;").contains("3 operands"));
        assert!(e(" bfe.u32 %r1, %r2 ;").contains("4 operands"));
    }
}
