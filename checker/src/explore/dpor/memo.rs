//! Facts of the code that the explorer asks of every partial graph, found
//! once per instruction and kept ([`Memo`]).

use super::{Dpor, State};
use crate::event::Event;
use crate::interp::ThreadCode;
use crate::model::waits::Waits;
use ptxmc_frontend::ir::VAddrId;
use std::sync::OnceLock;

/// A read's location (physical, virtual) and its two gate facts.
type Gate = (usize, VAddrId, [bool; 2]);

/// What is found once per read instruction of each thread.
pub(super) struct Memo {
    /// `gates[t][pc]`: for the read of instruction `pc` of thread `t`, at
    /// the physical location and virtual address it was first seen with,
    /// whether a waiting read of it is gated by the writes that release it
    /// ([`Dpor::gate`]), without and with its CAS exit value.
    // invariant: an entry holds only for a read at that (phys, vaddr).
    gates: Vec<Vec<OnceLock<Gate>>>,
}

impl Memo {
    /// An empty memo for `codes`.
    pub(super) fn new(codes: &[ThreadCode]) -> Self {
        Self {
            gates: codes
                .iter()
                .map(|c| (0..c.stmts().len()).map(|_| OnceLock::new()).collect())
                .collect(),
        }
    }
}

impl Dpor<'_> {
    /// Whether the waiting read `q` (of thread `u`, at `phys`) runs again
    /// only once a write that synchronizes with it is added: it is an
    /// acquire read never given a value in advance, of a thread without
    /// asynchronous operations, and every write any thread makes to `phys`
    /// that may let `u` go on (those that may write `exit` when it is the
    /// CAS exit value, [`Self::exit_writes_synchronize`]) is one it
    /// synchronizes with. A fact of the code alone ([`Memo`]).
    pub(super) fn gate(
        &self,
        s: &State,
        u: usize,
        q: &Event,
        phys: usize,
        with_exit: bool,
    ) -> bool {
        let exit = with_exit
            .then(|| self.codes[u].cas_exit_value(q.instr as usize))
            .flatten();
        let compute = |exit: Option<i64>| {
            s.model.acquires(q)
                && !self.issues_async[u]
                && self.dependent[u]
                    .get(q.instr as usize)
                    .copied()
                    .unwrap_or(false)
                && self.exit_writes_synchronize(s, q, phys, exit)
        };
        let Some(vaddr) = q.loc().map(|l| l.vaddr) else {
            return false;
        };
        let Some(slot) = self.memo.gates.get(u).and_then(|g| g.get(q.instr as usize)) else {
            return compute(exit);
        };
        let &(p, va, facts) = slot.get_or_init(|| {
            let with = self.codes[u].cas_exit_value(q.instr as usize);
            (phys, vaddr, [compute(None), compute(with)])
        });
        if (p, va) != (phys, vaddr) {
            return compute(exit);
        }
        facts[usize::from(exit.is_some())]
    }
}
