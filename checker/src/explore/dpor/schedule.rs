//! Which thread runs next: ending a thread, and when every running thread waits, giving a waiting read a value in advance (load buffering, 8.10.4) or finding the graph blocked.

use super::*;

impl<'a> Dpor<'a> {
    /// Whether the waiting read `r` is never given a value in advance: every
    /// later write of its thread depends on it.
    pub(super) fn never_unblocked(&self, s: &State, r: EventId) -> bool {
        let ev = s.exec.event(r);
        ev.thread.is_some_and(|t| {
            self.dependent
                .get(t.index())
                .and_then(|d| d.get(ev.instr as usize))
                .copied()
                .unwrap_or(false)
        })
    }

    /// Every running thread stopped at a read that waits for a write not yet
    /// added. Since a thread goes on only when such a write arrives, the
    /// graphs in which those reads read from later writes need some thread
    /// to go on first: the first waiting read (in thread order) whose thread
    /// makes a write that does not depend on it commits to each value a
    /// later write may give it, and its thread goes on with that value
    /// (as reads did before waiting existed). When every waiting read has
    /// only dependent writes after it, no such graph exists: each write the
    /// reads wait for depends on another waiting read, a cycle of
    /// `rf ∪ dep` that No-Thin-Air (8.10.4) forbids.
    ///
    /// This is a step every path to such a graph takes, not a choice, so
    /// each graph is still produced once: the children differ in the value
    /// the read commits to.
    pub(super) fn unblock(&self, s: &mut State, w: &mut Worker, check: bool, parts: usize) -> Res {
        if check && !self.consistent(s) {
            w.out.stats.pruned += 1;
            return Ok(());
        }
        let first = s
            .waiting
            .iter()
            .copied()
            .filter(|&r| !self.never_unblocked(s, r))
            .min_by_key(|&r| s.exec.event(r).thread.map_or(usize::MAX, |t| t.index()));
        let Some(r) = first else {
            // No thread can go on again: awaiting reads hang, one by one
            // ([`Self::hang`]); a read that needs a later write never gets it.
            // (A hang that writes back may serve the reads that wait.)
            if s.waiting.iter().all(|r| s.awaiting.contains(r))
                || s.awaiting.iter().any(|&r| self.hang_writes_back(s, r))
            {
                let first = s
                    .awaiting
                    .iter()
                    .copied()
                    .min_by_key(|&r| s.exec.event(r).thread.map_or(usize::MAX, |t| t.index()));
                if let Some(r) = first {
                    return self.hang(s, w, r, parts);
                }
            }
            w.out.stats.pruned += 1;
            return Ok(());
        };
        let Some(rt) = s.exec.event(r).thread.map(|t| t.index()) else {
            return Ok(());
        };
        let excluded = self.causally_after(s, r);
        let mut values: SmallVec<[i64; 8]> = self
            .future_values(s, s.exec.event(r), excluded)
            .into_iter()
            .collect();
        // On an RMW chain that only grows, a write added later writes more
        // than every write of the graph (`ahead.rs`).
        if let Some(tail) = self.chain_tail(s, r) {
            values.retain(|v| *v > tail);
        }
        // An awaiting read may also hang on a write already added: its
        // children after those that commit it.
        let awaits = s.awaiting.contains(&r);
        if values.is_empty() {
            if awaits {
                return self.hang(s, w, r, parts);
            }
            w.out.stats.pruned += 1;
            return Ok(());
        }
        let lists = s.stop_waiting(r);
        s.pending.push(r);
        s.runs[rt] = Run::Running;
        let saved = s.save(rt);
        // A read's value changes no relation: the relations of the graph, if
        // at hand, hold for every child (restored for each, since deeper
        // nodes reuse the space).
        let n = s.exec.len();
        let relations = s.model.known().then(|| s.model.save(n));
        let was = s.exec.event(r).is_rmw();
        let res = self.branch(s, w, parts, &values, &|this, s, w, &value, parts| {
            let rmw = saved.pending_rmw_writes(Some(&value));
            set_read_value(s, r, value, rmw);
            match &relations {
                Some(d) => s.model.restore(d, n),
                None => s.model.forget(),
            }
            if !this.satisfiable(s) {
                w.out.stats.pruned += 1;
                return Ok(());
            }
            s.states[rt].clone_from(&saved);
            s.states[rt].commit(r, Some(value));
            this.visit(s, w, false, parts)
        });
        s.states[rt].clone_from(&saved);
        s.recycle(saved);
        if let Some(d) = relations {
            s.model.recycle(d);
        }
        s.model.forget();
        s.runs[rt] = Run::Waiting(r);
        s.pending.pop();
        s.restore_waiting(lists);
        set_read_value(s, r, 0, was);
        if awaits {
            res?;
            return self.hang(s, w, r, parts);
        }
        res
    }

    /// Thread `t` ended with `ending`: go on with the next thread.
    pub(super) fn end_thread(
        &self,
        s: &mut State,
        w: &mut Worker,
        t: usize,
        ending: Ending,
        check: bool,
        parts: usize,
    ) -> Res {
        let spin = matches!(ending, Ending::Spin { .. });
        s.runs[t] = Run::Ended(ending);
        s.spinning += usize::from(spin);
        let r = if spin && !self.fair_so_far(s) {
            w.out.stats.pruned += 1;
            Ok(())
        } else {
            self.next_thread(s, w, check, parts)
        };
        s.spinning -= usize::from(spin);
        s.runs[t] = Run::Running;
        r
    }

    /// Whether the graph may still be kept: no thread ended in a spin loop,
    /// or each such thread can still be fair ([`Self::spins_may_be_fair`]).
    /// Without pruning when a loop may be cut by the bound (the completion
    /// records the bound hit): then the completion discards the unfair graph
    /// ([`candidate::finish`]). (Undefined behaviour is looked for in
    /// executions only, which an unfair graph never becomes.)
    pub(super) fn fair_so_far(&self, s: &State) -> bool {
        s.spinning == 0 || !self.prune_unfair || self.spins_may_be_fair(s)
    }

    /// After a thread ended: prune committed reads that no later thread can
    /// satisfy, then extend the next thread (its state is restored after).
    pub(super) fn next_thread(
        &self,
        s: &mut State,
        w: &mut Worker,
        check: bool,
        parts: usize,
    ) -> Res {
        if !self.satisfiable(s) {
            w.out.stats.pruned += 1;
            return Ok(());
        }
        s.satisfied = s.model.known();
        let Some(t) = Self::schedule(s) else {
            return self.visit(s, w, check, parts);
        };
        let saved = s.save(t);
        let r = self.visit(s, w, check, parts);
        s.states[t].clone_from(&saved);
        s.recycle(saved);
        r
    }
}
