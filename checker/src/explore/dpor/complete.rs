//! A graph found complete: its consistency, the shared completion (`explore::candidate`), and the counting of what was found.

use super::*;

impl<'a> Dpor<'a> {
    /// Whether the partial graph can still be part of a consistent execution:
    /// some Fence-SC order satisfies every axiom with the barrier
    /// synchronization that every completion will have (barriers without a
    /// thread count; counted barriers add edges only at completion).
    pub(super) fn consistent(&self, s: &mut State) -> bool {
        if s.barriers == 0 && s.model.follows(&s.exec) {
            if s.model.ordered() {
                // Found consistent incrementally ([`Model::decide_write`]),
                // under the model's Fence-SC order with two fence.sc or more.
                return true;
            }
            // With no Fence-SC pair first: inconsistent there, it is under
            // every order (consistency is anti-monotone in the pairs).
            if !s.model.known() && !s.model.decide(&s.exec) {
                return false;
            }
            if s.fences_sc < 2 {
                return true;
            }
            let ok = s
                .model
                .exists_fence_sc_order(&mut s.exec, &mut s.fence_hint);
            s.exec.clear_orders();
            return ok;
        }
        s.model.forget();
        if s.barriers > 0 {
            s.exec.set_barrier_sync(barrier::certain_sync(&s.exec));
        }
        let ok = if s.fences_sc < 2 {
            s.model.consistent(&s.exec)
        } else {
            s.model
                .exists_fence_sc_order(&mut s.exec, &mut s.fence_hint)
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
        if s.fences_sc > 1 {
            // Found consistent for some Fence-SC order above, or, unchecked,
            // found consistent before (`check`).
            if let Some(r) = self.finish_any_fence_sc_order(s, w) {
                return r;
            }
        }
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
        if s.fences_sc > 1 || !Self::one_valuation_case(s, w) {
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
        Some(self.fold_final(s, w, &mem))
    }

    /// [`candidate::finish`] for a graph with two `fence.sc` or more found
    /// consistent for some Fence-SC order, in the case of
    /// [`Self::finish_fast`] but with the order left unchosen: every thread
    /// ran to its end, no barrier, no witness wanted, no check for undefined
    /// behaviour, and every location whose final value is observed has one
    /// write maximal in the coherence every Fence-SC order shares
    /// (`candidate::common_coherence`: the explorer's edges, initial writes
    /// first). Then `finish` finds some order (the same existence question,
    /// decided by an exact search), and folds in one valuation: the final
    /// values it reads off ([`outcome::final_memories`]) are the values of
    /// those writes whatever the order (a unique maximal write of a
    /// relation stays the unique maximal one of the acyclic coherence that
    /// contains it), and nothing else it does with the order found (the
    /// witness, undefined behaviour, fairness of spins) applies here. `None`
    /// when the case is not that one.
    pub(super) fn finish_any_fence_sc_order(&self, s: &State, w: &mut Worker) -> Option<Res> {
        if !Self::one_valuation_case(s, w) {
            return None;
        }
        debug_assert!(
            candidate::exists_consistent(&mut s.exec.clone(), &[Vec::new()]).is_some(),
            "a complete graph taken as consistent is not"
        );
        let mut mem: SmallVec<[i64; 8]> = SmallVec::from_slice(&self.init_mem);
        for &p in &self.relevant {
            if let Some(x) = self.common_last(s, p)? {
                let v = s.exec.events().get(x.index())?.value()?;
                *mem.get_mut(p)? = v;
            }
        }
        Some(self.fold_final(s, w, &mem))
    }

    /// What both shortcuts to one final valuation need ([`Self::finish_fast`],
    /// [`Self::finish_any_fence_sc_order`]): every thread ran to its end or
    /// is still running, no barrier, no witness wanted, no check for
    /// undefined behaviour.
    fn one_valuation_case(s: &State, w: &Worker) -> bool {
        s.barriers == 0
            && !w.out.wants_witness()
            && !w.out.checks_sizes()
            && s.runs
                .iter()
                .all(|r| matches!(r, Run::Ended(Ending::Done) | Run::Running))
    }

    /// The write of location `p` maximal in the coherence every Fence-SC
    /// order shares (`candidate::common_coherence`, the transitive closure
    /// of the explorer's edges and of the initial write before the other
    /// writes): `Some(None)` when no write is (a cycle), `None` when several
    /// are or when a path could leave the writes of `p`. A write is maximal
    /// in a transitive closure exactly when it has no edge out of it, so no
    /// closure is computed.
    fn common_last(&self, s: &State, p: usize) -> Option<Option<EventId>> {
        let exec = &s.exec;
        let of_p = |x: EventId| {
            let e = exec.event(x);
            e.is_write() && e.loc().is_some_and(|l| l.phys.index() == p)
        };
        let mut last = None;
        let mut others = false;
        for w in exec.ids().filter(|&w| of_p(w)) {
            others |= !exec.event(w).is_init();
            let mut out = false;
            for x in exec.co().successors(w).filter(|&x| x != w) {
                if !of_p(x) {
                    return None;
                }
                out = true;
            }
            if !out && !exec.event(w).is_init() {
                if last.is_some() {
                    return None;
                }
                last = Some(w);
            }
        }
        if !others {
            // Only the initial write: it is the last.
            return Some(exec.ids().find(|&w| of_p(w)));
        }
        // The initial write is before every other write, so never last.
        Some(last)
    }

    /// Folds the one final valuation of the complete graph `s` (final
    /// memory `mem`, registers of its threads) into the outcomes and counts
    /// it ([`Self::found`]).
    fn fold_final(&self, s: &State, w: &mut Worker, mem: &[i64]) -> Res {
        let hash = self
            .seen
            .as_ref()
            .map(|_| candidate::canonical_hash(&s.exec, s.exec.co()));
        let before = w.out.stats.executions;
        let test = self.test;
        let states = &s.states;
        w.out.add_final(test, &|t| {
            let reg = |th: usize, r: usize| states.get(th).and_then(|st| st.regs().get(r)).copied();
            outcome::term_value(test, t, reg, mem)
        });
        self.found(w, before, hash)
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
