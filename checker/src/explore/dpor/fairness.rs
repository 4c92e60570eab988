//! Spin-assume without waste: a thread that ended in a side-effect-free spin
//! loop keeps its graph only while the graph can still be a fair hang
//! (`docs/model-notes.md`, "Waits"). The blocked graph counts for liveness
//! only (8.6.1, 8.7: the model's fairness rule, `model/fairness.rs`); once
//! a write coherence-after the write a read of the blocking iteration reads
//! is in the graph, morally strong with the read (8.7) or eventually
//! observable to it across proxies (8.6.1), every completion is unfair, so
//! the graph is pruned at once instead of at its completion. The rules are
//! the model's ([`crate::model::fairness`]); this file keeps the explorer's
//! bookkeeping (which threads may still write what, and when).

use super::{Dpor, Run, State};
use crate::event::EventId;
use crate::explore::candidate::Ending;
use crate::interp::ThreadState;
use crate::model;
use crate::model::fairness::read_may_stay;
use ptxmc_frontend::ir::Proxy;

impl Dpor<'_> {
    /// Whether every thread of `s` that ended in a spin loop can still be
    /// fair: no read of its blocking iteration has a write in the graph
    /// certainly coherence-after the write it reads and bound to become
    /// visible to it. Coherence edges only grow with the graph (the
    /// explorer's edges are fixed when a write is added, initial writes are
    /// first, 8.9.6), and moral strength and cross-proxy visibility depend
    /// on the two events alone, so a `false` holds for every completion.
    pub(super) fn spins_may_be_fair(&self, s: &State) -> bool {
        s.runs.iter().all(|run| match run {
            Run::Ended(Ending::Spin { iteration, .. }) => iteration
                .iter()
                .all(|&r| read_may_stay(&s.exec, r) && !self.released_later(s, r)),
            _ => true,
        })
    }

    /// Whether every completion of `s` adds a write that releases the spin
    /// read `r`: a read of `r`'s location waits for a write not yet added, or
    /// is committed to one ([`Run::Waiting`], `s.pending`; a completion gives
    /// it one, else it is discarded), every write that a thread may still
    /// make for it is morally strong with `r` (8.7), so bound to become
    /// visible to it, and every write not yet added is coherence-after the
    /// write `w` that `r` reads: `w` is the initial write (8.9.6), or the
    /// location is an RMW chain with no read committed to a value
    /// ([`Self::chain_grows_last`]).
    fn released_later(&self, s: &State, r: EventId) -> bool {
        let e = s.exec.event(r);
        let (Some(w), Some(loc)) = (s.exec.rf().get(r.index()).copied().flatten(), e.loc()) else {
            return false;
        };
        let phys = loc.phys.index();
        let strong_for = |t: usize| {
            self.writers[t].get(phys).is_some_and(|ws| {
                ws.iter()
                    .all(|x| model::morally_strong_events(x, e, s.exec.placements()))
            })
        };
        let init = s.exec.event(w).is_init();
        let chain = !init && self.chain_grows_last(s, phys);
        if self.written_later(s, w, phys, init || chain, &strong_for) {
            return true;
        }
        if !init && !chain {
            return false;
        }
        // (Not an awaiting read: it may hang instead.)
        s.waiting
            .iter()
            .filter(|q| !s.awaiting.contains(q))
            .chain(&s.pending)
            .any(|&q| {
                let qe = s.exec.event(q);
                let (Some(qt), Some(ql)) = (qe.thread, qe.loc()) else {
                    return false;
                };
                ql.phys.index() == phys
                    && (0..s.runs.len()).all(|t| {
                        !self.later_writer(s, t, qt.index(), qe, phys)
                            || self.writers[t].get(phys).is_some_and(|ws| {
                                ws.iter().all(|x| {
                                    model::morally_strong_events(x, e, s.exec.placements())
                                })
                            })
                    })
            })
    }
}

impl Dpor<'_> {
    /// Whether thread `t`'s reads in spin loops are checked for staleness
    /// before they become children ([`Self::stale_spin_read`]): exactly when
    /// a blocked graph that can no longer be fair is pruned at once
    /// ([`Self::fair_so_far`]).
    pub(super) fn checks_stale_reads(&self, t: usize, pc: usize) -> bool {
        self.prune_unfair
            && self.codes[t]
                .loops()
                .iter()
                .any(|l| l.spin && l.contains(pc))
    }

    /// Whether the read `r` of thread `t` (the thread's last event, stopped
    /// at `before`, its state before the read), given the value `value` of
    /// the write the graph says it reads, makes its thread take the back edge
    /// of a spin loop in an iteration that can no longer be fair: the child
    /// that reads it would end the thread in the spin and be pruned at once
    /// ([`Self::end_thread`], [`Self::spins_may_be_fair`]), so it is not made.
    /// This is the await rule of "Dynamic Partial Order Reductions for
    /// Spinloops" (FMCAD 2021) on PTX's fairness (8.6.1, 8.7): a failing
    /// iteration reads only writes that may stay coherence-last for it.
    ///
    /// A failed CAS that writes the old value back (the spec reading, 8.10.3
    /// on its write half) blocks only after that write: then the probe steps
    /// over it, and the iteration is stale only when one of its reads has a
    /// write of the graph certainly coherence-after its own and bound to
    /// become visible to it ([`read_may_stay`], the model's rule), which every completion of the
    /// child keeps (coherence edges only grow); the rest of the fairness
    /// check ([`Self::released_later`]) may change with the readers that
    /// write serves, so it is left to the child.
    pub(super) fn stale_spin_read(
        &self,
        s: &mut State,
        t: usize,
        before: &ThreadState<i64>,
        r: EventId,
        value: i64,
    ) -> bool {
        let (st, blocked, wrote_back) = self.probe_read(s, t, before, r, value);
        let stale = blocked && {
            // As in the child: the thread has ended, so it writes nothing
            // more ([`Self::remaining_writes`]).
            let run = std::mem::replace(&mut s.runs[t], Run::Ended(Ending::Done));
            let n = s.exec.len();
            let stale = !st.spin_iteration().iter().all(|&q| {
                q.index() >= n
                    || (read_may_stay(&s.exec, q) && (wrote_back || !self.released_later(s, q)))
            });
            s.runs[t] = run;
            stale
        };
        s.recycle(st);
        stale
    }
}

impl Dpor<'_> {
    /// Whether every completion of `s` adds a write to `phys`, coherence-after
    /// `w` and morally strong with the spin read (`strong_for`: every write
    /// of the thread to `phys` is): a thread that may still run is at
    /// straight-line code to its end that writes `phys`
    /// ([`crate::interp::ThreadCode::writes_on_every_run`]; a completion runs
    /// it to its end, else one of its reads never gets a writer and the
    /// graph is discarded), and its write comes after `w` in coherence:
    /// every new write does (`any_after`), or `w` is the thread's own
    /// earlier write through the same address and the generic proxy, which
    /// precedes it in causality order (program order, 8.9.5) and so in
    /// coherence (8.10.1).
    fn written_later(
        &self,
        s: &State,
        w: EventId,
        phys: usize,
        any_after: bool,
        strong_for: &dyn Fn(usize) -> bool,
    ) -> bool {
        let we = s.exec.event(w);
        (0..s.runs.len()).any(|u| {
            let own = || {
                we.thread.is_some_and(|t| t.index() == u)
                    && we.proxy == Proxy::Generic
                    && self.accesses[u].get(phys).is_some_and(|a| {
                        a.iter().all(|&(va, p)| {
                            p == Proxy::Generic && we.loc().is_some_and(|l| l.vaddr == va)
                        })
                    })
                    && !self.issues_async[u]
            };
            s.runs[u].live()
                && self.codes[u].writes_on_every_run(s.states[u].pc(), phys)
                && (any_after || own())
                && strong_for(u)
        })
    }

    /// Whether every write not yet added to `phys` comes after every write of
    /// the graph in coherence, in every consistent completion. So when every
    /// write a thread can make to `phys` is the write half of an RMW, all
    /// morally strong with each other ([`Self::rmw_chain`]), and no read of
    /// `phys` is committed to a value (`s.pending`): then every RMW write in
    /// the graph has its read's writer in the graph (a waiting read's thread
    /// stopped before the write half), coherence is total on them (8.9.6),
    /// and RMW atomicity (8.10.3) puts each right after the write its read
    /// reads, which no other of them reads (two morally strong RMWs cannot
    /// share a writer, [`Self::must_not_share`]): they form a chain from the
    /// initial write. A new RMW write comes right after the write its read
    /// reads, which must be the last of the chain or a write added after it
    /// (any other is read already), so after every write of the graph.
    pub(super) fn chain_grows_last(&self, s: &State, phys: usize) -> bool {
        self.rmw_chain(phys)
            && !s.pending.iter().any(|&q| {
                s.exec
                    .event(q)
                    .loc()
                    .is_some_and(|l| l.phys.index() == phys)
            })
    }

    /// Whether every write any thread makes to `phys` is the write half of an
    /// RMW and every two of those writes are morally strong (8.7): a property
    /// of the code alone, found once per location.
    pub(super) fn rmw_chain(&self, phys: usize) -> bool {
        let facts = self.rmw_chains.get_or_init(|| {
            let placements: Vec<_> = self.test.threads.iter().map(|t| t.placement).collect();
            (0..self.init_mem.len())
                .map(|p| {
                    let kinds: Vec<&crate::event::Event> = self
                        .writers
                        .iter()
                        .filter_map(|ws| ws.get(p))
                        .flatten()
                        .collect();
                    model::fairness::rmw_chain(&kinds, &placements)
                })
                .collect()
        });
        facts.get(phys).copied().unwrap_or(false)
    }
}
