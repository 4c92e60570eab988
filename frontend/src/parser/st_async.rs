//! Vector `st.async` (8.2.4, 8.9.1.1):
//! `st.async{.sem.scope}.shared::cluster.mbarrier::complete_tx::bytes.vN.T [a], {v0, ...}, [mbar]`.
//!
//! 8.2.4: "Memory operations with a vector data type are modelled as a set of
//! equivalent memory operations with a scalar data type, executed in an
//! unspecified order on the elements in the vector." Element `k` is the
//! scalar `st.async ... .T [a+k*size(T)], vk, [mbar]`: an asynchronous
//! operation of its own, so the elements are not ordered with each other
//! (8.9.1.1: asynchronous operations are ordered after the prior instructions
//! of their thread, and nothing orders two of them) and each is ordered after
//! what came before the instruction. Each element signals `mbar` with its own
//! bytes, so the transaction count the instruction completes is the sum, as
//! for the vector. A `.release` vector releases with every element, each a
//! release pattern of its own (8.8 item 5) that covers what precedes the
//! instruction and not the other elements: the unspecified order promises no
//! order between them (`docs/model-notes.md`, "Vector st.async").

use super::instr::MemAddr;
use super::opcode::{self, AsyncShape, Shape};
use super::operand::OpKind;
use super::{PResult, Parser};
use crate::error::ParseError;
use crate::ir::{AddrOperand, AsyncInstr, Instr, Span};

impl<'s> Parser<'s> {
    /// Parses a vector `st.async` of thread `t` (mnemonic `text` already
    /// read) into one scalar `st.async` per element; `false` (nothing read)
    /// when `text` is no vector `st.async`.
    pub(super) fn st_async_vector_instruction(
        &mut self,
        t: usize,
        text: &str,
        span: Span,
    ) -> PResult<bool> {
        let mut parts = text.split('.');
        if parts.next() != Some("st") {
            return Ok(false);
        }
        let mods: Vec<&str> = parts.collect();
        if mods.first() != Some(&"async") {
            return Ok(false);
        }
        let Some(n) = mods.iter().find_map(|m| match *m {
            "v2" => Some(2u8),
            "v4" => Some(4),
            _ => None,
        }) else {
            return Ok(false);
        };
        // The scalar form: the same mnemonic without its vector modifier.
        let scalar = std::iter::once("st")
            .chain(mods.iter().copied().filter(|m| !matches!(*m, "v2" | "v4")))
            .collect::<Vec<_>>()
            .join(".");
        let shape = opcode::classify(&scalar).map_err(|k| ParseError::new(k, span))?;
        let Shape::Async(AsyncShape::StAsync { sem, scope, access }) = shape else {
            return Err(ParseError::bad_instruction(
                text,
                "expected a vector `st.async`".into(),
                span,
            ));
        };
        if access.bytes == 0 {
            return Err(ParseError::bad_instruction(
                text,
                "a vector `st.async` needs an element type (`.b32`, `.u64`, ...)".into(),
                span,
            ));
        }
        let ops = self.operands(span.line)?;
        let c = super::instr::Check { instr: text, span };
        let [a, v, m] = c.exactly::<3>(&ops, "3 operands")?;
        let values = match &v.kind {
            OpKind::Vector(elems) if elems.len() == usize::from(n) => elems
                .iter()
                .map(|e| c.value("source", e))
                .collect::<PResult<Vec<_>>>()?,
            _ => {
                let want = if n == 2 {
                    "a vector of 2 values `{a, b}`"
                } else {
                    "a vector of 4 values `{a, b, c, d}`"
                };
                return Err(c.bad("source", want, v));
            }
        };
        let (at, mb) = (c.mem_addr(a)?, c.mem_addr(m)?);
        for (k, value) in values.into_iter().enumerate() {
            let elem_off = u32::from(access.bytes) * k as u32;
            // An element past the offsets an address holds (2^31 - 1 from a
            // name, the 32-bit signed immediate from a register) is an error.
            let at_k = match at {
                MemAddr::Loc(name, off)
                    if i64::from(off) + i64::from(elem_off) < crate::ir::MAX_ADDR_OFFSET =>
                {
                    MemAddr::Loc(name, off + elem_off)
                }
                MemAddr::Reg(reg, off) if off + i64::from(elem_off) <= i64::from(i32::MAX) => {
                    MemAddr::Reg(reg, off + i64::from(elem_off))
                }
                MemAddr::Loc(_, off) => {
                    let past = i64::from(off) + i64::from(elem_off);
                    return Err(super::instr::offset_out_of_range(a, past));
                }
                MemAddr::Reg(_, off) => {
                    let past = off + i64::from(elem_off);
                    return Err(super::instr::offset_out_of_range(a, past));
                }
            };
            let addr = self.intern_addr_as(t, at_k, a, AddrOperand::Target, 1);
            // Interned after the first element's address, in the order the
            // scalar forms name them (so that the printed test reads back
            // the same).
            let mbar = self.intern_addr_as(t, mb, m, AddrOperand::Mbarrier, 1);
            let src = self.val(t, value);
            self.push(
                t,
                Instr::Async(AsyncInstr::StAsync {
                    sem,
                    scope,
                    access,
                    addr,
                    src,
                    mbar,
                }),
                span,
            );
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    /// An element of a vector `st.async` past the offsets an address holds
    /// (2^31 - 1, PTX ISA 6.4.1) is an error at the address; one inside is
    /// a byte of the location.
    #[test]
    fn element_offsets_stay_in_range() {
        let src = |off: u32| {
            format!(
                "PTX p {{ s=0; bar=0; }}\n P0@cta 0,gpu 0 ;\n st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [s+{off}], {{1, 2}}, [bar] ;\nexists (s == 0)"
            )
        };
        let t = crate::parse(&src(1 << 20)).expect("in range");
        assert!(
            t.symbols.addrs.iter().any(|a| a == "s+1048580"),
            "{:?}",
            t.symbols.addrs
        );
        let e = crate::parse(&src(2_147_483_644)).expect_err("second element past 2^31 - 1");
        assert_eq!(e.span.line, 3, "{e}");
        assert!(e.to_string().contains("offset 2147483648"), "{e}");
    }
}
