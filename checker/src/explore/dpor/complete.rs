//! A graph found complete: its consistency, the shared completion (`explore::candidate`), and the counting of what was found.

use super::*;

impl<'a> Dpor<'a> {
    /// Whether the partial graph can still be part of a consistent execution:
    /// some Fence-SC order satisfies every axiom with the barrier
    /// synchronization that every completion will have (barriers without a
    /// thread count; counted barriers add edges only at completion).
    pub(super) fn consistent(&self, s: &mut State) -> bool {
        if s.model.known() && s.barriers == 0 && s.fences_sc < 2 {
            // Found consistent incrementally ([`Model::decide_write`]).
            return true;
        }
        s.model.forget();
        if s.model.follows(&s.exec) && s.barriers == 0 && s.fences_sc < 2 {
            return s.model.decide(&s.exec);
        }
        if s.barriers > 0 {
            s.exec.set_barrier_sync(barrier::certain_sync(&s.exec));
        }
        let ok = if s.fences_sc < 2 {
            s.model.consistent(&s.exec)
        } else {
            let m = &mut s.model;
            candidate::exists_fence_sc_order_hinted(&mut s.exec, &mut s.fence_hint, &mut |e| {
                m.consistent(e)
            })
        };
        s.exec.clear_orders();
        ok
    }

    /// A graph in which every thread ended.
    pub(super) fn complete(&self, s: &mut State, w: &mut Worker, check: bool) -> Res {
        if !s.pending.is_empty() || !s.waiting.is_empty() {
            w.out.stats.pruned += 1;
            return Ok(());
        }
        // `finish` decides consistency again, over every Fence-SC order and
        // barrier synchronization, but through `model::check`, which builds
        // the witness of a violation; this check needs none, and it prunes
        // exactly the graphs an explorer that checks every graph it extends
        // prunes (for those, `finish` never reports a limit either).
        let in_sync = s.model.follows(&s.exec);
        let simple = in_sync && s.barriers == 0 && s.fences_sc < 2;
        // Whether the model holds the relations of this graph, found
        // consistent by the fast path with no barrier synchronization and the
        // Fence-SC order of its one fence.sc if any: the choices `finish`
        // tries first.
        let relations = if check && simple && s.model.known() {
            true
        } else if check && simple {
            if !s.model.decide(&s.exec) {
                w.out.stats.pruned += 1;
                return Ok(());
            }
            s.model.known()
        } else if check {
            if !self.consistent(s) {
                w.out.stats.pruned += 1;
                return Ok(());
            }
            false
        } else {
            // Found consistent incrementally ([`Model::decide_read`]).
            simple && s.model.known()
        };
        if relations {
            if let Some(r) = self.finish_fast(s, w) {
                return r;
            }
            // Hand the relations to the check `finish` makes.
            if s.fences_sc == 1 {
                s.exec.set_fence_sc(
                    s.exec
                        .ids()
                        .filter(|&e| s.exec.event(e).is_fence_sc())
                        .collect(),
                );
            }
            s.model.hand_over(&s.exec, true);
            s.exec.clear_fence_sc();
        } else {
            s.model.hand_over(&s.exec, false);
        }
        let exec = s.exec.clone();
        let endings: Vec<Ending> = s
            .runs
            .iter()
            .map(|r| match r {
                Run::Ended(e) => e.clone(),
                // A waiting thread never reaches a complete graph (pruned above).
                Run::Running | Run::Waiting(_) => Ending::Done,
            })
            .collect();
        let regs: Vec<Vec<i64>> = s.states.iter().map(|st| st.regs().to_vec()).collect();
        let hash = self
            .seen
            .as_ref()
            .map(|_| candidate::canonical_hash(&exec, exec.co()));
        let before = w.out.stats.executions;
        match candidate::finish(self.test, exec, &endings, regs, &mut w.out) {
            Finish::Consistent => self.found(w, before, hash),
            Finish::Inconsistent => Ok(()),
            Finish::Stop(status) => Err(Halt::Stop(status)),
        }
    }

    /// [`candidate::finish`] for the common case, without copying the graph:
    /// every thread ran to its end, no barrier, at most one `fence.sc`, the
    /// relations of the graph found consistent in `s.derived`, no witness
    /// wanted, no check for undefined behaviour (split locations, multimem
    /// addresses), and one coherence-last write for each location whose final
    /// value is observed. Then the graph has exactly one final valuation,
    /// read off the registers of the threads and the coherence rows, and
    /// `finish` would fold in exactly that ([`outcome::final_memories`]).
    /// `None` when the case is not that one.
    pub(super) fn finish_fast(&self, s: &State, w: &mut Worker) -> Option<Res> {
        if s.barriers > 0
            || s.fences_sc > 1
            || w.out.wants_witness()
            || w.out.checks_sizes()
            || !s
                .runs
                .iter()
                .all(|r| matches!(r, Run::Ended(Ending::Done) | Run::Running))
        {
            return None;
        }
        let mut mem: SmallVec<[i64; 8]> = SmallVec::from_slice(&self.init_mem);
        for &p in &self.relevant {
            // Initial writes are the first events, one per location in order.
            // Several maximal writes: `finish` tries each.
            let last = s.model.coherence_last(p).ok()?;
            if let Some(x) = last {
                let v = s.exec.events().get(x)?.value()?;
                *mem.get_mut(p)? = v;
            }
        }
        let hash = self
            .seen
            .as_ref()
            .map(|_| candidate::canonical_hash(&s.exec, s.exec.co()));
        let before = w.out.stats.executions;
        let test = self.test;
        let states = &s.states;
        w.out.add_final(test, &|t| {
            let reg = |th: usize, r: usize| states.get(th).and_then(|st| st.regs().get(r)).copied();
            outcome::term_value(test, t, reg, &mem)
        });
        Some(self.found(w, before, hash))
    }

    /// Counts the executions a complete graph gave (`w.out` had `before`),
    /// and its hash with `--check-duplicates`; stops at `--max-executions`.
    pub(super) fn found(&self, w: &mut Worker, before: u64, hash: Option<u64>) -> Res {
        if let (Some(seen), Some(h)) = (&self.seen, hash) {
            let fresh = seen.lock().map(|mut set| set.insert(h)).unwrap_or(true);
            if !fresh {
                w.out.stats.duplicates += 1;
            }
        }
        let Some(m) = w.budget.max_executions() else {
            return Ok(());
        };
        let found = w.out.stats.executions - before;
        let total = self.executions.fetch_add(found, Ordering::Relaxed) + found;
        if total > m {
            Err(self.limit(crate::explore::executions_limit(m)))
        } else {
            Ok(())
        }
    }
}
