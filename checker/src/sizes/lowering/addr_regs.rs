//! Register-held addresses of accesses cut into parts: every part keeps the
//! address dependency (8.10.4) of the instruction it comes from.
//!
//! The interpreter takes an access's address dependencies from the
//! [`Instr::AddrReg`]s just before it and forgets them when the access is
//! done, so each part of a split access needs them again. The register may
//! be overwritten by an earlier part (`ld.v2.u64 {%rd1, %rd2}, [%rd1]`), so
//! the address registers are first copied into fresh ones (a `mov` carries
//! the reads a value depends on) and the parts name the copies.

use super::{Lowering, Origin};
use ptxmc_frontend::ir::{AddrOperand, Instr, Operand, Stmt};

impl Lowering<'_> {
    /// Whether the memory instruction after the `AddrReg`s from position `k`
    /// of thread `t` accesses a location cut into granules (and may become
    /// several parts).
    fn next_access_splits(&self, t: usize, k: usize) -> bool {
        let code = &self.test.threads[t].code;
        let Some(next) = code.get(k..).and_then(|rest| {
            rest.iter()
                .find(|s| !matches!(s.instr, Instr::AddrReg { .. }))
        }) else {
            return false;
        };
        [AddrOperand::Target, AddrOperand::Source]
            .iter()
            .filter_map(|&o| next.instr.address(o))
            .any(|a| self.is_split(a).is_some())
    }

    /// Emits the `AddrReg` `s` (position `k` of thread `t`) into `code`:
    /// as it is, or, before an access that may be cut into parts, as a copy
    /// of its register into a fresh one and an `AddrReg` of that copy,
    /// which is given back to be repeated before each further part.
    pub(super) fn addr_reg(
        &mut self,
        t: usize,
        k: usize,
        s: &Stmt,
        code: &mut Vec<Stmt>,
        origin: &mut Vec<Vec<Origin>>,
    ) -> Option<Stmt> {
        let Instr::AddrReg {
            reg,
            offset,
            operand,
        } = s.instr
        else {
            return None;
        };
        if !self.next_access_splits(t, k) {
            code.push(s.clone());
            origin.push(Vec::new());
            return None;
        }
        let copy = self.fresh_reg(t);
        let span = s.span;
        let again = Stmt {
            instr: Instr::AddrReg {
                reg: copy,
                offset,
                operand,
            },
            span,
        };
        code.push(Stmt {
            instr: Instr::Mov {
                dst: copy,
                src: Operand::Reg(reg),
            },
            span,
        });
        code.push(again.clone());
        origin.extend([Vec::new(), Vec::new()]);
        Some(again)
    }
}
