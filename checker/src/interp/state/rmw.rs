//! The RMW half of a thread's state: the plan of an RMW's write half, and
//! whether a CAS's write half follows the value it read
//! (`Reading::failed_cas_writes`, `docs/model-notes.md`, "Readings" and
//! "Waits").

use super::{Deps, Effect, Pending, ThreadState};
use crate::event::copy_ids;
use crate::interp::{ThreadCode, Value};
use ptxmc_frontend::ir::{CmpOp, RmwOp};

/// The write half of an RMW, computed when its read half commits.
#[derive(Debug)]
pub(super) struct RmwPlan<V> {
    pub(super) op: RmwOp,
    pub(super) a: V,
    pub(super) b: V,
    pub(super) deps: Deps,
    /// The write depends on the read (every RMW but `exch` under a reading
    /// where `exch` writes only its operand, `model::reading`).
    pub(super) on_read: bool,
    /// The write half follows only when the value read equals `a`: an
    /// `atom.cas` under a reading where a failed CAS only reads
    /// (`Reading::failed_cas_writes` false).
    pub(super) only_if_equal: bool,
    /// The write half of a failed CAS (which writes the old value back) is
    /// unobservable: an `atom.cas` of a location whose accesses are all
    /// morally strong with each other (`ThreadCode::strong_location`), so a
    /// retry loop's iteration whose only writes are such write-backs is
    /// collapsed like a spin loop's (`docs/model-notes.md`, "Waits").
    pub(super) write_back_unseen: bool,
}

/// Written out for [`copy_ids`]: the plan is copied with the pending event
/// of every RMW read a thread state saves or restores.
impl<V: Clone> Clone for RmwPlan<V> {
    fn clone(&self) -> Self {
        Self {
            op: self.op,
            a: self.a.clone(),
            b: self.b.clone(),
            deps: copy_ids(&self.deps),
            on_read: self.on_read,
            only_if_equal: self.only_if_equal,
            write_back_unseen: self.write_back_unseen,
        }
    }
}

impl<V: Value> RmwPlan<V> {
    /// Whether the write half follows when the read returns `old`; `None`
    /// when the values do not decide it (symbolic values).
    pub(super) fn writes_after(&self, old: &V) -> Option<bool> {
        if self.only_if_equal {
            V::compare(CmpOp::Eq, old, &self.a)
        } else {
            Some(true)
        }
    }

    /// Whether the CAS succeeds when it reads `old`, when that matters: the
    /// write half follows only then, or is an unobservable write-back
    /// otherwise. `Some(true)` for every other RMW.
    pub(super) fn succeeds(&self, old: &V) -> Option<bool> {
        if self.only_if_equal || self.write_back_unseen {
            V::compare(CmpOp::Eq, old, &self.a)
        } else {
            Some(true)
        }
    }
}

/// What deciding an undecided comparison does ([`ThreadState::decide`]).
#[derive(Clone, Debug)]
pub(super) enum Undecided<V> {
    /// A branch: taken, it jumps to this position.
    Jump(usize),
    /// Whether a CAS succeeded: if so, its write half writes this value
    /// with these dependencies; if not, it writes nothing (`false`: a
    /// reading where a failed CAS only reads) or the same value back,
    /// unobservably (`true`, [`RmwPlan::write_back_unseen`]).
    CasWrite(V, Deps, bool),
}

impl<V: Value> ThreadState<V> {
    /// Decides the comparison [`Next::Branch`](crate::interp::Next::Branch) returned: `taken` jumps to a
    /// branch's target; for a CAS ([`Self::deciding_cas`], the comparison
    /// of the value read with the compare operand), `taken` means it
    /// succeeded.
    pub fn decide(&mut self, code: &ThreadCode, taken: bool) {
        self.mark = 0;
        match self.undecided.take().map(|u| u.1) {
            Some(Undecided::Jump(to)) => {
                if taken {
                    self.jump(code, to);
                } else {
                    self.step_to(self.pc + 1);
                }
            }
            Some(Undecided::CasWrite(w, d, back)) => {
                if taken || back {
                    self.rmw_write = Some((w, d, !taken));
                } else {
                    self.end_instruction();
                }
            }
            None => {}
        }
    }

    /// Whether the comparison [`Next::Branch`](crate::interp::Next::Branch) returned is whether a CAS
    /// succeeded (not a branch of the code): `Some(true)` when a failed one
    /// writes its old value back, `Some(false)` when it then writes nothing.
    pub fn deciding_cas(&self) -> Option<bool> {
        match self.undecided.as_deref() {
            Some((_, Undecided::CasWrite(_, _, back))) => Some(*back),
            _ => None,
        }
    }

    /// The memory instruction at `pc` made its last event: go on after it.
    pub(super) fn end_instruction(&mut self) {
        self.sub = 0;
        self.addr_deps.iter_mut().for_each(Deps::clear);
        self.step_to(self.pc + 1);
    }

    /// Whether the pending event is the read half of an RMW whose write half
    /// follows if it reads `old` (`None`: whatever it reads). `false` for
    /// any other event, and for a CAS that only reads when it fails
    /// (`Reading::failed_cas_writes` false) and `old` (or some value) makes
    /// it fail. What an explorer needs to know of a read that has no value
    /// yet: whether it is an RMW in the sense of 8.10.3.
    pub fn pending_rmw_writes(&self, old: Option<&V>) -> bool {
        match &self.pending {
            Some(Pending {
                effect: Effect::Read {
                    rmw: Some(plan), ..
                },
                ..
            }) => match old {
                Some(v) => plan.writes_after(v) != Some(false),
                None => !plan.only_if_equal,
            },
            _ => false,
        }
    }
}
