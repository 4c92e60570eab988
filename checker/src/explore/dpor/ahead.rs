//! Threads not started yet that are bound to stop at a gate: a look-ahead
//! over a thread's code from its initial state, so that
//! [`Dpor::gated_behind`] counts them with the threads already waiting at
//! their gate (`docs/model-notes.md`, "Waits", "Threads gated before they
//! start").
//!
//! A ticket lock's waiter takes a ticket with an RMW on a counter (`next`)
//! and spins with an acquire read of another location (`serving`) until it
//! reads its ticket. A holder's read that waits for a later write (its
//! `ld data`, its release RMW) needs a write from another thread, and each
//! other thread writes there only after its spin; so the read is served only
//! if some other thread can pass its spin without the holder's release. For
//! a thread that has not taken its ticket yet, that needs two facts of the
//! model:
//!
//! - **RMW chains of positive additions grow** (8.9.6, 8.10.3): when every
//!   write any thread makes to a location is an `atom.add` of a positive
//!   constant, morally strong with every other ([`Dpor::rmw_chain`]), and no
//!   read of it is committed to a value, the writes of the graph form a
//!   chain from the initial write ([`Dpor::chain_grows_last`]) whose values
//!   increase along coherence, and a new RMW reads the last of them or a
//!   write added later: a value no smaller than the largest in the graph.
//! - **A spin passes only on an exiting value**: the thread's gate (an
//!   acquire read of a side-effect-free spin loop, never given a value in
//!   advance, [`Dpor::gate`]) reads a write of the graph or a later one; if
//!   no write of the graph has a value that lets it leave the loop for any
//!   value its ticket RMW may read, only a later write can, and
//!   [`Dpor::gated_behind`]'s argument applies to it as to a waiting thread.
//!
//! What the thread does before its gate is found once per thread, from its
//! initial state ([`Ahead`]); per graph, only the largest value of the chain
//! and the values of the gate's location are looked at.

use super::{Dpor, Run, State};
use crate::event::{Event, EventId, EventKind};
use crate::interp::{Next, ThreadState};
use crate::model::waits::Waits;
use crate::report::BlockReason;
use ptxmc_frontend::ir::{Instr, Operand, RmwOp};
use smallvec::SmallVec;

/// Most events a look-ahead runs through before its gate.
const MAX_EVENTS: usize = 16;

/// Most values the ticket RMW's read is tried with.
const MAX_VALUES: usize = 64;

/// A thread's way from its initial state to its gate, when it has one.
pub(super) struct Ahead {
    /// The RMW-chain location read before the gate, if one is.
    chain: Option<usize>,
    /// Each value tried for that read (one entry, value 0, without one),
    /// with the values of the gate's location that let the thread leave
    /// the spin after it.
    paths: SmallVec<[(i64, SmallVec<[i64; 8]>); 8]>,
    /// The gate, as the thread issues it.
    gate: Event,
    /// The gate's physical location.
    gate_phys: usize,
    /// The physical locations the thread writes before the gate (a bit each).
    pre_writes: u64,
    /// The gate is the CAS of a guarded CAS loop (an RMW when it succeeds):
    /// a write of the graph lets it pass only if no RMW morally strong with
    /// it reads that write already (8.10.3).
    cas: bool,
}

/// An id for events of a look-ahead, which never enter the graph.
pub(super) const SCRATCH: EventId = EventId(u32::MAX);

impl Dpor<'_> {
    /// The gate thread `u` stops at before it writes anything but the
    /// locations of `pre_writes`, when `u` has not started or waits at the
    /// RMW read of a chain, and no write of the graph lets it pass:
    /// `(gate, its location, pre_writes)`.
    pub(super) fn gate_ahead(&self, s: &State, u: usize) -> Option<(Event, usize, u64)> {
        // (Only a thread with a spin loop has a gate.)
        if !self.codes[u].loops().iter().any(|l| l.spin) {
            return None;
        }
        match s.runs.get(u)? {
            Run::Running if s.states[u].events().is_empty() => {
                self.judge(s, self.aheads().get(u)?.as_ref()?, false)
            }
            // A waiting read reads a write added later: past the chain's last.
            // At the thread's first event, its state is the one its first
            // look-ahead ran from (the interpreter runs deterministically up
            // to the first event, which stays pending): that way, found once.
            Run::Waiting(_) if s.states[u].events().is_empty() => {
                self.judge(s, self.aheads().get(u)?.as_ref()?, true)
            }
            &Run::Waiting(q) => {
                let known = s
                    .ahead_memo
                    .borrow()
                    .iter()
                    .find(|e| e.0 == q)
                    .map(|e| e.1.clone());
                let a = match known {
                    Some(a) => a,
                    None => {
                        let a = self
                            .find_ahead(u, s.states[u].clone())
                            .map(std::sync::Arc::new);
                        s.ahead_memo.borrow_mut().push((q, a.clone()));
                        a
                    }
                };
                self.judge(s, &*a?, true)
            }
            _ => None,
        }
    }

    /// [`Self::gate_ahead`] on the graph for the way `a`: the values its
    /// chain read may still read (no smaller than the chain's largest, or
    /// larger when the read waits for a later write, `strict`), and none of
    /// them followed by a gate that a write of the graph lets pass.
    fn judge(&self, s: &State, a: &Ahead, strict: bool) -> Option<(Event, usize, u64)> {
        let tail = match a.chain {
            Some(p) => {
                if !self.chain_grows_last(s, p) {
                    return None;
                }
                Some(self.largest_written(s, p)?)
            }
            None => None,
        };
        let consumed = if a.cas {
            s.model.writes_taken_by_strong_rmws(&s.exec, &a.gate)
        } else {
            SmallVec::new()
        };
        let mut present: SmallVec<[i64; 8]> = SmallVec::new();
        for x in s.exec.ids() {
            if let EventKind::Write { loc, value, .. } = s.exec.event(x).kind {
                if loc.phys.index() == a.gate_phys
                    && !present.contains(&value)
                    && !consumed.contains(&x)
                {
                    present.push(value);
                }
            }
        }
        let passes = a
            .paths
            .iter()
            .filter(|(v, _)| tail.is_none_or(|t| *v > t || (*v == t && !strict)))
            .any(|(_, exits)| exits.iter().any(|x| present.contains(x)));
        (!passes).then(|| (a.gate.clone(), a.gate_phys, a.pre_writes))
    }

    /// For a read `r` of a location whose writes form an RMW chain of
    /// positive additions ([`Self::grows_by_adding`]) that grows at its end
    /// ([`Dpor::chain_grows_last`]): the largest value in the graph, which
    /// every write added later exceeds.
    pub(super) fn chain_tail(&self, s: &State, r: EventId) -> Option<i64> {
        let phys = s.exec.event(r).loc()?.phys.index();
        (self.grows_by_adding(phys) && self.chain_grows_last(s, phys))
            .then(|| self.largest_written(s, phys))
            .flatten()
    }

    /// The largest value a write of the graph writes to `phys`.
    fn largest_written(&self, s: &State, phys: usize) -> Option<i64> {
        s.exec
            .ids()
            .filter_map(|x| match s.exec.event(x).kind {
                EventKind::Write { loc, value, .. } if loc.phys.index() == phys => Some(value),
                _ => None,
            })
            .max()
    }

    /// [`Ahead`] of every thread, found on first use.
    fn aheads(&self) -> &[Option<Ahead>] {
        self.aheads.get_or_init(|| {
            (0..self.codes.len())
                .map(|u| {
                    let st = ThreadState::new(&self.codes[u], self.test, self.unroll);
                    self.find_ahead(u, st)
                })
                .collect()
        })
    }

    /// Thread `u`'s way to its gate from its state `st`: straight on, but
    /// for at most one RMW read of a chain of positive additions
    /// ([`Self::grows_by_adding`]), tried with every value it may read.
    fn find_ahead(&self, u: usize, mut st: ThreadState<i64>) -> Option<Ahead> {
        if self.issues_async[u] || self.init_mem.len() > 64 {
            return None;
        }
        let mut pre = 0u64;
        let (ev, phys) = self.next_read(u, &mut st, &mut pre)?;
        if self.spin_read(u, &ev) {
            let (exits, cas) = self.exits(u, &st, &ev, phys);
            return Some(Ahead {
                chain: None,
                paths: SmallVec::from_elem((0, exits), 1),
                gate: ev,
                gate_phys: phys,
                pre_writes: pre,
                cas,
            });
        }
        if !(st.pending_rmw_writes(None) && self.grows_by_adding(phys)) {
            return None;
        }
        // The chain read: each value it may read, then straight on to the
        // same gate.
        let values = self.values_of(phys);
        if values.len() > MAX_VALUES {
            return None;
        }
        let mut found: Option<Ahead> = None;
        for v in values {
            let mut st = st.clone();
            st.commit(SCRATCH, Some(v));
            let mut pre = pre;
            let (ev, gp) = self.next_read(u, &mut st, &mut pre)?;
            if !self.spin_read(u, &ev) {
                return None;
            }
            let (exits, cas) = self.exits(u, &st, &ev, gp);
            match &mut found {
                None => {
                    found = Some(Ahead {
                        chain: Some(phys),
                        paths: SmallVec::from_elem((v, exits), 1),
                        gate: ev,
                        gate_phys: gp,
                        pre_writes: pre,
                        cas,
                    })
                }
                Some(a) => {
                    if a.gate.instr != ev.instr || a.gate_phys != gp || a.cas != cas {
                        return None;
                    }
                    a.pre_writes |= pre;
                    a.paths.push((v, exits));
                }
            }
        }
        found
    }

    /// Runs thread `u` from `st` through writes (their locations added to
    /// `pre`) and fences to its next read, within [`MAX_EVENTS`] events:
    /// the read (left pending in `st`) and its physical location; `None` at
    /// a barrier, the thread's end or a block.
    fn next_read(
        &self,
        u: usize,
        st: &mut ThreadState<i64>,
        pre: &mut u64,
    ) -> Option<(Event, usize)> {
        for _ in 0..MAX_EVENTS {
            let Next::Event(ev) = st.next(&self.codes[u]) else {
                return None;
            };
            match ev.kind {
                EventKind::Read { loc, .. } => return Some((ev, loc.phys.index())),
                EventKind::Write { loc, .. } => {
                    *pre |= 1 << loc.phys.index();
                    st.commit(SCRATCH, None);
                }
                EventKind::Fence(_) => st.commit(SCRATCH, None),
                EventKind::Barrier { .. } => return None,
            }
        }
        None
    }

    /// The values of `phys` that let thread `u`, stopped at its gate `q` in
    /// `st`, leave the spin: every value some write may write there, or the
    /// initial one, after which it does not block in the loop; for the CAS
    /// of a guarded CAS loop, its compare value alone (any other fails, and
    /// the thread stops at the back edge, [`crate::interp::ThreadCode::cas_exit_value`]),
    /// and `true`.
    fn exits(
        &self,
        u: usize,
        st: &ThreadState<i64>,
        q: &Event,
        phys: usize,
    ) -> (SmallVec<[i64; 8]>, bool) {
        if let Some(x) = self.codes[u].cas_exit_value(q.instr as usize) {
            return (SmallVec::from_elem(x, 1), true);
        }
        let exits = self
            .values_of(phys)
            .into_iter()
            .filter(|&v| {
                let mut st = st.clone();
                st.commit(SCRATCH, Some(v));
                !matches!(st.next(&self.codes[u]), Next::Blocked(BlockReason::Spin))
            })
            .collect();
        (exits, false)
    }

    /// Whether the read `ev` of thread `u` is the read of a side-effect-free
    /// spin loop that is never given a value in advance: a gate candidate
    /// (the rest of [`Self::gate`] is asked per graph).
    fn spin_read(&self, u: usize, ev: &Event) -> bool {
        let pc = ev.instr as usize;
        self.dependent[u].get(pc).copied().unwrap_or(false)
            && self.codes[u]
                .loops()
                .iter()
                .any(|l| l.spin && l.contains(pc))
    }

    /// Every value `phys` may hold: its initial one and every value any
    /// thread may write there, in increasing order.
    fn values_of(&self, phys: usize) -> Vec<i64> {
        let mut out: Vec<i64> = self
            .domain
            .values
            .iter()
            .filter_map(|w| w.get(phys))
            .flatten()
            .copied()
            .chain(std::iter::once(self.init_mem[phys]))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether the writes to `phys` form an RMW chain ([`Self::rmw_chain`])
    /// of additions of positive constants that cannot wrap: each writes more
    /// than the write it reads, so values grow along coherence.
    fn grows_by_adding(&self, phys: usize) -> bool {
        let facts = self.growing.get_or_init(|| {
            (0..self.init_mem.len())
                .map(|p| self.find_grows_by_adding(p))
                .collect()
        });
        facts.get(phys).copied().unwrap_or(false)
    }

    /// [`Self::grows_by_adding`], found from the code.
    fn find_grows_by_adding(&self, phys: usize) -> bool {
        if !self.rmw_chain(phys) {
            return false;
        }
        if !self
            .values_of(phys)
            .iter()
            .all(|v| (0..1 << 30).contains(v))
        {
            return false;
        }
        self.codes.iter().all(|code| {
            code.stmts().iter().all(|st| {
                let writes_here = crate::interp::write_shapes(&st.instr).iter().any(|w| {
                    self.test
                        .addresses
                        .get(w.0.index())
                        .is_none_or(|a| a.phys.index() == phys)
                });
                !writes_here
                    || matches!(
                        st.instr,
                        Instr::Rmw {
                            op: RmwOp::Add,
                            a: Operand::Imm(c),
                            ..
                        } if (1..1 << 30).contains(&c)
                    )
            })
        })
    }
}
