//! The address operands of a memory instruction, by role: which one an
//! [`Instr::AddrReg`] holds in a register (8.2: "Each PTX memory instruction
//! specifies an address operand"; an asynchronous copy and the instructions
//! that signal an mbarrier name more than one).

use super::{AddrId, AsyncInstr, Instr};

/// One address operand of a memory instruction.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AddrOperand {
    /// The address accessed: of `ld`, `st`, `atom`, `red` and `st.async`,
    /// and a copy's destination.
    Target,
    /// A copy's source (`cp.async`, `cp.async.bulk`, `cp.reduce.async.bulk`).
    Source,
    /// The mbarrier object: of a copy or `st.async` that completes a
    /// transaction on one, of the `mbarrier.*` instructions and of
    /// `cp.async.mbarrier.arrive`.
    Mbarrier,
}

impl AddrOperand {
    /// Every role, in the order of [`Self::index`].
    pub const ALL: [AddrOperand; 3] = [Self::Target, Self::Source, Self::Mbarrier];

    /// A dense index `0..3`.
    pub fn index(self) -> usize {
        match self {
            Self::Target => 0,
            Self::Source => 1,
            Self::Mbarrier => 2,
        }
    }
}

impl Instr {
    /// The address operand `which` of this instruction, if it has one.
    pub fn address(&self, which: AddrOperand) -> Option<AddrId> {
        // (One table of operands: [`Self::address_mut`]'s, on a copy.)
        self.clone().address_mut(which).copied()
    }

    /// The address operand `which` of this instruction, to rewrite, if it
    /// has one.
    pub fn address_mut(&mut self, which: AddrOperand) -> Option<&mut AddrId> {
        use AddrOperand::{Mbarrier, Source, Target};
        match (self, which) {
            (
                Instr::Load { addr, .. } | Instr::Store { addr, .. } | Instr::Rmw { addr, .. },
                Target,
            ) => Some(addr),
            (Instr::Async(a), _) => match (a, which) {
                (AsyncInstr::Copy { dst, .. }, Target) => Some(dst),
                (AsyncInstr::Copy { src, .. }, Source) => Some(src),
                (AsyncInstr::Copy { mbar, .. }, Mbarrier) => mbar.as_mut(),
                (AsyncInstr::StAsync { addr, .. }, Target) => Some(addr),
                (
                    AsyncInstr::StAsync { mbar, .. }
                    | AsyncInstr::CpAsyncArrive { mbar, .. }
                    | AsyncInstr::MbarrierInit { mbar, .. }
                    | AsyncInstr::MbarrierUpdate { mbar, .. }
                    | AsyncInstr::MbarrierWait { mbar, .. },
                    Mbarrier,
                ) => Some(mbar),
                _ => None,
            },
            _ => None,
        }
    }
}
