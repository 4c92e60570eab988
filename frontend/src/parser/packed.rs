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
//! halves (`Instr::Unordered`; `docs/model-notes.md`, "Unspecified order").
//! `.mmio` packed accesses and `.v4`/`.v8` of a packed type are one scalar
//! `.b16` access per half instead (no `ld.mmio` vector, no `.v8`/`.v16` of
//! `.b16`), after an `unordered N` when release or acquire (8.2.4, 8.2.5,
//! 8.4.1; `docs/model-notes.md`, "Packed data types").

use super::instr::MemAddr;
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
    pub(super) fn packed_instruction(&mut self, t: usize, text: &str, span: Span) -> PResult<bool> {
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
        // `.release` / `.acquire` halves are in no order with each other (the
        // sizes lowering, or the `unordered` written below, says so).
        // `.mmio` and `.v4`/`.v8` of a packed type become one scalar `.b16`
        // access per half: `ld.mmio` takes no vector type, and there is no
        // `.v8`/`.v16` of `.b16` to write eight or sixteen halves as one.
        let scalar = sem == Sem::Mmio || access.vector > 2;
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
        // 8.2.5 "in an unspecified order": for release and acquire halves
        // written as separate instructions, an explicit group.
        let group = scalar && (sem.is_release() || sem.is_acquire());
        let split = Split {
            t,
            span,
            scalar,
            group,
            halves,
        };
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
                let at = c.mem_addr(a)?;
                let regs: Vec<_> = temps.iter().map(|r| self.b.reg(t, r)).collect();
                let load = |access, dst, addr| Instr::Load {
                    sem,
                    scope,
                    proxy,
                    space,
                    access,
                    dst,
                    addr,
                };
                self.push_halves(&split, at, a, regs.clone(), load)?;
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
                let at = c.mem_addr(a)?;
                let values = packed_values(&c, v, access.vector)?;
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
                let store = |access, src, addr| Instr::Store {
                    sem,
                    scope,
                    proxy,
                    space,
                    access,
                    addr,
                    src,
                };
                // The address is interned last: a register-held one's
                // `AddrReg` must come just before its memory instruction.
                self.push_halves(&split, at, a, src, store)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The memory instructions of the halves `items` of a packed access at
    /// `at` (operand `a`), each built by `make`: one scalar `.b16` access
    /// per half, after an `unordered` for release and acquire halves, or
    /// one access of all the halves (`split`).
    fn push_halves<T: Clone>(
        &mut self,
        split: &Split,
        at: MemAddr<'_>,
        a: &super::operand::Operand<'_>,
        items: Vec<T>,
        make: impl Fn(Access, Vec<T>, crate::ir::AddrId) -> Instr,
    ) -> PResult<()> {
        let (t, span) = (split.t, split.span);
        if !split.scalar {
            let addr = self.intern_addr(t, at, a);
            self.push(t, make(split.halves, items, addr), span);
            return Ok(());
        }
        if split.group {
            self.push(t, Instr::Unordered(u32::from(split.halves.vector)), span);
        }
        let one = Access {
            bytes: 2,
            vector: 1,
        };
        for (i, item) in items.into_iter().enumerate() {
            let addr = self.intern_addr(t, half_addr(at, i, a)?, a);
            self.push(t, make(one, vec![item], addr), span);
        }
        Ok(())
    }
}

/// How the halves of one packed access of thread `t` become instructions
/// ([`Parser::push_halves`]).
struct Split {
    t: usize,
    span: Span,
    /// One scalar access per half.
    scalar: bool,
    /// Scalar halves in no order with each other (release or acquire).
    group: bool,
    /// The access of all the halves at once.
    halves: Access,
}

fn op(op: BinOp, dst: crate::ir::RegId, a: Operand, b: i64) -> Instr {
    Instr::Op {
        op,
        dst,
        a,
        b: Operand::Imm(b),
    }
}

/// The address of half `i` of a packed access at `at`: `2i` bytes on (8.2.5:
/// the values "are accessed in adjacent memory locations"); an error when
/// that is past the offsets an address operand holds.
fn half_addr<'s>(
    at: MemAddr<'s>,
    i: usize,
    op: &super::operand::Operand<'_>,
) -> PResult<MemAddr<'s>> {
    let d = 2 * i as i64;
    match at {
        MemAddr::Loc(name, off) if i64::from(off) + d < crate::ir::MAX_ADDR_OFFSET => {
            Ok(MemAddr::Loc(name, off + d as u32))
        }
        MemAddr::Reg(reg, off) if off + d <= i64::from(i32::MAX) => Ok(MemAddr::Reg(reg, off + d)),
        MemAddr::Loc(_, off) => Err(super::instr::offset_out_of_range(op, i64::from(off) + d)),
        MemAddr::Reg(_, off) => Err(super::instr::offset_out_of_range(op, off + d)),
    }
}

/// What a vector operand of `n` registers (`regs`) or values looks like,
/// for messages.
fn vector_words(n: u8, regs: bool) -> &'static str {
    match (n, regs) {
        (2, true) => "a vector of 2 registers `{a, b}`",
        (4, true) => "a vector of 4 registers `{a, b, c, d}`",
        (_, true) => "a vector of 8 registers `{a, b, ..., h}`",
        (2, false) => "a vector of 2 values `{a, b}`",
        (4, false) => "a vector of 4 values `{a, b, c, d}`",
        (_, false) => "a vector of 8 values `{a, b, ..., h}`",
    }
}

/// The destination registers of a packed load: one, or a vector of `n`.
fn packed_regs<'s>(
    c: &super::instr::Check<'_>,
    op: &super::operand::Operand<'s>,
    n: u8,
) -> PResult<Vec<&'s str>> {
    match (&op.kind, n) {
        (OpKind::Vector(e), _) if n > 1 && e.len() == usize::from(n) => {
            e.iter().map(|x| c.reg("destination", x)).collect()
        }
        (_, 1) => Ok(vec![c.reg("destination", op)?]),
        _ => Err(c.bad("destination", vector_words(n, true), op)),
    }
}

/// The source values of a packed store: one, or a vector of `n`.
fn packed_values<'s>(
    c: &super::instr::Check<'_>,
    op: &super::operand::Operand<'s>,
    n: u8,
) -> PResult<Vec<super::instr::Value<'s>>> {
    match (&op.kind, n) {
        (OpKind::Vector(e), _) if n > 1 && e.len() == usize::from(n) => {
            e.iter().map(|x| c.value("source", x)).collect()
        }
        (_, 1) => Ok(vec![c.value("source", op)?]),
        _ => Err(c.bad("source", vector_words(n, false), op)),
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

    /// The scalar halves of a lowered access: (bytes, vector, semantics).
    fn scalar_halves(c: &[Instr]) -> Vec<(u8, u8, Sem)> {
        c.iter()
            .filter_map(|x| match x {
                Instr::Load { access, sem, .. } | Instr::Store { access, sem, .. } => {
                    Some((access.bytes, access.vector, *sem))
                }
                _ => None,
            })
            .collect()
    }

    /// `.mmio` packed accesses are two scalar mmio halves (8.2.5; `ld.mmio`
    /// has no vector form); `.v4`/`.v8` of a packed type eight or sixteen
    /// scalar halves, in an `unordered` group when release or acquire.
    #[test]
    fn mmio_and_wide_vector_forms_are_scalar_halves() {
        let (c, u) = code("ld.mmio.relaxed.sys.global.f16x2 %r1, [x]");
        assert_eq!(u, 0);
        assert_eq!(scalar_halves(&c), [(2, 1, Sem::Mmio); 2]);
        let (c, u) = code("st.mmio.relaxed.sys.global.bf16x2 [x+4], %r1");
        assert_eq!(u, 0);
        assert_eq!(scalar_halves(&c), [(2, 1, Sem::Mmio); 2]);
        let (c, u) = code("ld.global.v4.f16x2 {%r1, %r2, %r3, %r4}, [x]");
        assert_eq!(u, 0);
        assert_eq!(scalar_halves(&c), [(2, 1, Sem::Weak); 8]);
        assert!(!c.iter().any(|x| matches!(x, Instr::Unordered(_))));
        let (c, u) = code("st.release.gpu.global.v4.f16x2 [x], {1, 2, %r3, 4}");
        assert_eq!(u, 0);
        assert!(
            matches!(
                c.iter().find(|x| !matches!(x, Instr::Op { .. })),
                Some(Instr::Unordered(8))
            ),
            "{c:?}"
        );
        assert_eq!(scalar_halves(&c), [(2, 1, Sem::Release); 8]);
        let (c, u) =
            code("ld.acquire.gpu.global.v8.f16x2 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [x]");
        assert_eq!(u, 0);
        assert!(matches!(c[0], Instr::Unordered(16)), "{c:?}");
        assert_eq!(scalar_halves(&c), [(2, 1, Sem::Acquire); 16]);
        // Through a register: one `AddrReg` before each half.
        let src = "PTX p { x=0; }\n P0@cta 0,gpu 0 ;\n mov.u64 %rd1, x ;\n st.mmio.relaxed.sys.global.f16x2 [%rd1+8], %r1 ;\nexists (x == 0)";
        let t = crate::parser::parse_round_trip(src);
        assert_eq!(t.symbols.addrs, ["x", "x+8", "x+10"]);
        // Operand counts and mmio vectors stay errors.
        for (bad, want) in [
            (
                "ld.global.v4.f16x2 {%r1, %r2}, [x]",
                "a vector of 4 registers",
            ),
            (
                "ld.mmio.relaxed.sys.global.v2.f16x2 {%r1, %r2}, [x]",
                "no vector type",
            ),
            // The second half of a scalar form would be past 2^31 - 1.
            (
                "st.mmio.relaxed.sys.global.f16x2 [x+2147483646], 1",
                "out of range",
            ),
        ] {
            let src = format!("PTX p {{ x=0; }}\n P0@cta 0,gpu 0 ;\n {bad} ;\nexists (x == 0)");
            let e = crate::parse(&src).expect_err(bad).to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    /// A packed store through a register-held address: the `AddrReg` is just
    /// before the store (it was before the value's arithmetic, and the
    /// address was lost).
    #[test]
    fn register_held_packed_store() {
        let src = "PTX p { x=0; }\n P0@cta 0,gpu 0 ;\n mov.u64 %rd1, x ;\n st.global.f16x2 [%rd1], %r1 ;\nexists (x == 0)";
        let t = crate::parser::parse_round_trip(src);
        let code: Vec<&Instr> = t.threads[0].code.iter().map(|s| &s.instr).collect();
        let k = code
            .iter()
            .position(|x| matches!(x, Instr::AddrReg { .. }))
            .expect("an AddrReg");
        assert!(
            matches!(code[k + 1], Instr::Store { addr, .. } if t.addr_name(*addr) == "x"),
            "{code:?}"
        );
    }

    #[test]
    fn release_and_acquire_halves() {
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
