//! Loads and stores of packed data types (8.2.5): `.f16x2`, `.bf16x2`.
//!
//! 8.2.5: "A memory operation on a packed data type is modelled as a pair of
//! equivalent memory operations on the scalar data type, executed in an
//! unspecified order on each element of the packed data." So
//! `ld.relaxed.gpu.f16x2 %r, [x]` is the two 2-byte loads of
//! `ld.relaxed.gpu.v2.b16 {%__pkN_0, %__pkN_1}, [x]` (element k at byte
//! `2k`, as a vector, 8.2.4), and `%r = lo | hi << 16`; a store splits its
//! value the same way; `.v2.f16x2` is four halves. The halves of one
//! instruction follow each other in program order; for weak and relaxed
//! accesses no relation of chapter 8 tells that order from another (the
//! halves are on different bytes and adjacent in program order). For
//! `.release` and `.acquire` it would (a release pattern on the second half
//! would cover the first), so the sizes lowering puts no order between those
//! halves (`Instr::Unordered`); `.mmio` stays unsupported
//! (`docs/model-notes.md`, "Unspecified order").

use super::opcode::{self, Shape};
use super::operand::OpKind;
use super::{PResult, Parser};
use crate::error::ParseError;
use crate::ir::{Access, BinOp, Instr, Operand, Sem, Span};

/// The packed types of memory instructions, each two 16-bit halves.
const PACKED: &[&str] = &["f16x2", "bf16x2"];

/// Bits of one half.
const HALF_BITS: i64 = 16;
const HALF_MASK: i64 = 0xffff;

impl<'s> Parser<'s> {
    /// Parses an `ld`/`st` of a packed type of thread `t` (mnemonic `text`
    /// already read) into its halves; `false` (nothing read) when `text` is
    /// not one.
    pub(super) fn packed_instruction(
        &mut self,
        t: usize,
        text: &str,
        span: Span,
        start: usize,
    ) -> PResult<bool> {
        let mut parts = text.split('.');
        let base = parts.next().unwrap_or("");
        let mods: Vec<&str> = parts.collect();
        if !matches!(base, "ld" | "st") || mods.first() == Some(&"async") {
            return Ok(false);
        }
        if !mods.iter().any(|m| PACKED.contains(m)) {
            return Ok(false);
        }
        let shape = opcode::classify(text).map_err(|k| ParseError::new(k, span))?;
        let (sem, access) = match &shape {
            Shape::Load { sem, access, .. } | Shape::Store { sem, access, .. } => (*sem, *access),
            _ => return Ok(false),
        };
        // `.release` / `.acquire` halves are in no order with each other: the
        // sizes lowering writes them after an `Instr::Unordered`. `.mmio`
        // accesses are performed as written (8.4.1): not split.
        let refuse = match sem {
            Sem::Mmio => Some(format!(
                "packed {base} with {sem} semantics (8.4.1: performed as written; 8.2.5: two halves)"
            )),
            _ if access.vector > 2 => Some(format!("{base}.v{} of a packed type", access.vector)),
            _ => None,
        };
        if let Some(construct) = refuse {
            self.skip_operands()?;
            self.unsupported(t, start, construct.to_lowercase(), span);
            return Ok(true);
        }
        let halves = Access {
            bytes: 2,
            vector: access.vector * 2,
        };
        let ops = self.operands(span.line)?;
        let c = super::instr::Check { instr: text, span };
        let n = self.b.threads[t].code.len();
        let temps: Vec<String> = (0..halves.vector)
            .map(|i| format!("%__pk{n}_{i}"))
            .collect();
        match shape {
            Shape::Load {
                sem,
                scope,
                proxy,
                space,
                ..
            } => {
                let [d, a] = c.exactly::<2>(&ops, "2 operands")?;
                let dsts = packed_regs(&c, d, access.vector)?;
                let addr = c.mem_addr(a)?;
                let regs: Vec<_> = temps.iter().map(|r| self.b.reg(t, r)).collect();
                let addr = self.intern_addr(t, addr, a);
                self.push(
                    t,
                    Instr::Load {
                        sem,
                        scope,
                        proxy,
                        space,
                        access: halves,
                        dst: regs.clone(),
                        addr,
                    },
                    span,
                );
                for (k, d) in dsts.into_iter().enumerate() {
                    let (lo, hi) = (regs[2 * k], regs[2 * k + 1]);
                    self.push(t, op(BinOp::Shl, hi, Operand::Reg(hi), HALF_BITS), span);
                    let d = self.b.reg(t, d);
                    self.push(
                        t,
                        Instr::Op {
                            op: BinOp::Or,
                            dst: d,
                            a: Operand::Reg(lo),
                            b: Operand::Reg(hi),
                        },
                        span,
                    );
                }
            }
            Shape::Store {
                sem,
                scope,
                proxy,
                space,
                ..
            } => {
                let [a, v] = c.exactly::<2>(&ops, "2 operands")?;
                let addr = c.mem_addr(a)?;
                let values = packed_values(&c, v, access.vector)?;
                let addr = self.intern_addr(t, addr, a);
                let mut src = Vec::new();
                for (k, v) in values.into_iter().enumerate() {
                    match v {
                        super::instr::Value::Imm(x) => {
                            src.push(Operand::Imm(x & HALF_MASK));
                            src.push(Operand::Imm((x >> HALF_BITS) & HALF_MASK));
                        }
                        super::instr::Value::Reg(r) => {
                            let lo = self.b.reg(t, &temps[2 * k]);
                            let r = self.b.reg(t, r);
                            self.push(t, op(BinOp::And, lo, Operand::Reg(r), HALF_MASK), span);
                            let hi = self.b.reg(t, &temps[2 * k + 1]);
                            self.push(t, op(BinOp::Shr, hi, Operand::Reg(r), HALF_BITS), span);
                            self.push(t, op(BinOp::And, hi, Operand::Reg(hi), HALF_MASK), span);
                            src.push(Operand::Reg(lo));
                            src.push(Operand::Reg(hi));
                        }
                    }
                }
                self.push(
                    t,
                    Instr::Store {
                        sem,
                        scope,
                        proxy,
                        space,
                        access: halves,
                        addr,
                        src,
                    },
                    span,
                );
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Skips the operands of a refused instruction (up to the end of its cell).
    fn skip_operands(&mut self) -> PResult<()> {
        let line = self.prev().end_span.line;
        self.operands(line).map(|_| ())
    }
}

fn op(op: BinOp, dst: crate::ir::RegId, a: Operand, b: i64) -> Instr {
    Instr::Op {
        op,
        dst,
        a,
        b: Operand::Imm(b),
    }
}

/// The destination registers of a packed load: one, or a `{a, b}` vector.
fn packed_regs<'s>(
    c: &super::instr::Check<'_>,
    op: &super::operand::Operand<'s>,
    n: u8,
) -> PResult<Vec<&'s str>> {
    match (&op.kind, n) {
        (OpKind::Vector(e), 2) if e.len() == 2 => {
            e.iter().map(|x| c.reg("destination", x)).collect()
        }
        (_, 1) => Ok(vec![c.reg("destination", op)?]),
        _ => Err(c.bad("destination", "a vector of 2 registers `{a, b}`", op)),
    }
}

/// The source values of a packed store: one, or a `{a, b}` vector.
fn packed_values<'s>(
    c: &super::instr::Check<'_>,
    op: &super::operand::Operand<'s>,
    n: u8,
) -> PResult<Vec<super::instr::Value<'s>>> {
    match (&op.kind, n) {
        (OpKind::Vector(e), 2) if e.len() == 2 => e.iter().map(|x| c.value("source", x)).collect(),
        (_, 1) => Ok(vec![c.value("source", op)?]),
        _ => Err(c.bad("source", "a vector of 2 values `{a, b}`", op)),
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Instr, Sem};

    fn code(instr: &str) -> (Vec<Instr>, usize) {
        let src = format!("PTX p {{ x=0; }}\n P0@cta 0,gpu 0 ;\n {instr} ;\nexists (x == 0)");
        let t = crate::parser::parse_round_trip(&src);
        (
            t.threads[0].code.iter().map(|s| s.instr.clone()).collect(),
            t.unsupported.len(),
        )
    }

    #[test]
    fn halves_are_two_element_accesses() {
        let (c, u) = code("ld.relaxed.gpu.global.f16x2 %r1, [x]");
        assert_eq!(u, 0);
        assert!(
            matches!(&c[0], Instr::Load { access, dst, sem: Sem::Relaxed, .. } if access.bytes == 2 && dst.len() == 2)
        );
        assert_eq!(c.len(), 3, "{c:?}");
        let (c, _) = code("st.global.bf16x2 [x], 0x00030001");
        assert!(matches!(&c[..], [Instr::Store { src, .. }] if src.len() == 2));
        let (c, _) = code("st.relaxed.sys.global.v2.f16x2 [x], {%r1, 7}");
        assert!(
            matches!(c.last(), Some(Instr::Store { src, access, .. }) if src.len() == 4 && access.vector == 4)
        );
        let (c, _) = code("ld.global.v2.f16x2 {%r1, %r2}, [x]");
        assert!(matches!(&c[0], Instr::Load { dst, .. } if dst.len() == 4));
    }

    #[test]
    fn mmio_and_v4_forms_are_unsupported() {
        for i in [
            "ld.mmio.relaxed.sys.global.f16x2 %r1, [x]",
            "ld.global.v4.f16x2 {%r1, %r2, %r3, %r4}, [x]",
        ] {
            let (c, u) = code(i);
            assert_eq!((c.len(), u), (1, 1), "{i}: {c:?}");
        }
        // Release and acquire halves: a two-element access with the
        // semantics, split without order by the sizes lowering.
        for (i, sem) in [
            ("ld.acquire.gpu.global.f16x2 %r1, [x]", Sem::Acquire),
            ("st.release.gpu.global.bf16x2 [x], %r1", Sem::Release),
        ] {
            let (c, u) = code(i);
            assert_eq!(u, 0, "{i}");
            assert!(
                c.iter().any(|x| matches!(x,
                    Instr::Load { sem: s, access, .. } | Instr::Store { sem: s, access, .. }
                        if *s == sem && access.vector == 2)),
                "{i}: {c:?}"
            );
        }
    }
}
