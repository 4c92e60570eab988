//! The write of a thread's next event: its coherence positions, the waiting reads it serves (backward revisits), and the branching of the search across workers and `--split` parts.

use super::*;

impl<'a> Dpor<'a> {
    /// A new write: its coherence position among the morally strong writes of
    /// its location, and which committed reads read from it.
    pub(super) fn write(
        &self,
        s: &mut State,
        w: &mut Worker,
        t: usize,
        ev: Event,
        parts: usize,
    ) -> Res {
        let EventKind::Write { loc, value, .. } = ev.kind else {
            return Ok(());
        };
        let forced = self.causal_writes_before(s, t, &ev);
        // The relations of the graph, when at hand: each child read by no
        // waiting read is checked by extending them ([`fast::add_write`]).
        let n0 = s.exec.len();
        let relations = s.derived_valid && s.barriers == 0 && s.fences_sc < 2;
        let id = push_event(s, t, ev, None);
        s.states[t].commit(id, None);
        let in_sync = s.statics.len() == s.exec.len();
        let ms: Vec<EventId> = if in_sync {
            // From the rows of the statics: the same writes, in id order.
            let i = id.index();
            let row = s.statics.ms_writes_to_loc_of(i);
            s.exec
                .ids()
                .filter(|&w| row.has(w.index()) && !s.exec.event(w).is_init())
                .collect()
        } else {
            s.exec
                .ids()
                .filter(|&w| {
                    w != id && {
                        let e = s.exec.event(w);
                        e.is_write()
                            && !e.is_init()
                            && e.loc().is_some_and(|l| l.phys == loc.phys)
                            && model::morally_strong(&s.exec, w, id)
                    }
                })
                .collect()
        };
        let readers: Vec<EventId> = s
            .pending
            .iter()
            .copied()
            .filter(|&r| {
                let e = s.exec.event(r);
                let own_later = e.thread == Some(ThreadId::new(t))
                    && !self.may_read_own_later_write(
                        t,
                        loc.phys.index(),
                        e.loc().map_or(loc.vaddr, |l| l.vaddr),
                        e.proxy,
                    );
                !own_later
                    && e.loc().is_some_and(|l| l.phys == loc.phys)
                    && e.value() == Some(value)
            })
            .chain(s.waiting.iter().copied().filter(|&r| {
                // A waiting read takes any value (its thread is stopped, so it
                // is never thread `t`'s).
                s.exec.event(r).loc().is_some_and(|l| l.phys == loc.phys)
            }))
            .collect();
        // The write half of an RMW follows its read in program order.
        let rmw_source = match s.exec.threads[t].iter().rev().nth(1) {
            Some(&r) if s.exec.event(id).is_rmw() && s.exec.event(r).is_rmw() => s
                .exec
                .event(r)
                .is_read()
                .then(|| s.exec.rf[r.index()].map(|src| (src, r)))
                .flatten(),
            _ => None,
        };
        // Past 63 morally strong writes (positions are bit masks), or past
        // the events for which `forced` is found from the relations, the
        // writes that must come before the new one whatever the position
        // leave the list: the thread's own earlier writes to the location
        // through the same address and the generic proxy precede it in
        // causality order (8.9.5), so in coherence (8.10.1). They get their
        // edge here, and positions range over the others. (Below both bounds
        // the search is left exactly as it was.)
        let mut before_all: Vec<EventId> = Vec::new();
        let mut ms = ms;
        if (ms.len() > 63 || s.exec.len() > fast::MAX_EVENTS)
            && !self.issues_async[t]
            && s.exec.event(id).proxy == Proxy::Generic
        {
            let exec = &s.exec;
            let own_before = |m: EventId| {
                let e = exec.event(m);
                e.thread == Some(ThreadId::new(t))
                    && e.proxy == Proxy::Generic
                    && e.loc()
                        .is_some_and(|l| l.vaddr == loc.vaddr && l.phys == loc.phys)
            };
            before_all = ms.iter().copied().filter(|&m| own_before(m)).collect();
            ms.retain(|&m| !own_before(m));
        }
        if ms.len() > 63 {
            let msg = format!(
                "{} morally strong writes before the write at {}",
                ms.len(),
                s.exec.event(id).span
            );
            pop_event(s, t);
            return Err(Halt::Stop(Status::Limit(msg)));
        }
        if readers.len() > 20 {
            let msg = format!(
                "{} reads wait for one write at {}",
                readers.len(),
                s.exec.event(id).span
            );
            pop_event(s, t);
            return Err(Halt::Stop(Status::Limit(msg)));
        }
        // Children: each coherence position (split between workers), and
        // for each, every set of the waiting reads that read from the write.
        let reach = Reach::of(&s.exec.co, &model::coherence::writes_at(&s.exec, loc.phys));
        let mut positions = coherence_positions(&s.exec, &reach, &ms, rmw_source, forced);
        // RMW atomicity (8.10.3) for the RMWs already in the graph: the new
        // write, morally strong with both halves of one, cannot come after
        // the write that RMW reads from and before its write half.
        let guards = rmw_guards(&s.exec, id, &ms, &reach);
        positions.retain(|&before| {
            guards.iter().all(|&(first, source, half)| {
                !(first || before & source != 0) || before >> half & 1 == 1
            })
        });
        // The waiting reads that are the read half of an RMW whose write half
        // W' is in the graph, morally strong with the new write W: if W gives
        // the read its value, W' comes right after W among the writes
        // morally strong with the RMW (else `W' -co-> W -rf-> R -po-> W'`
        // breaks 8.10.5, or a write lies between W and W', which 8.10.3
        // forbids). Each as W''s index in `ms` and the writes of `ms` that
        // must then be before W.
        let halves: Vec<Option<(usize, u64)>> = readers
            .iter()
            .map(|&r| self.rmw_half(s, id, r, &ms, &reach))
            .collect();
        // Pairs of waiting reads that cannot both read from this write: RMWs
        // morally strong with each other and with it ([`Self::must_not_share`]).
        let apart: Vec<u64> = readers
            .iter()
            .map(|&r1| {
                readers.iter().enumerate().fold(0u64, |m, (j, &r2)| {
                    let both = r1 != r2
                        && model::morally_strong(&s.exec, id, r1)
                        && model::morally_strong(&s.exec, id, r2)
                        && self.must_not_share(s, r1, r2, 0, Some(value));
                    m | u64::from(both) << j
                })
            })
            .collect();
        // (With one child, extended in place: `s.derived` still holds them.)
        let single = positions.len() == 1 && readers.is_empty();
        let parent = (relations && !single).then(|| s.save_derived(n0));
        let node_state = s.save(t);
        let pending = s.pending.clone();
        let waiting = s.waiting.clone();
        for &m in &before_all {
            s.exec.co.insert(m, id);
        }
        // A plain write to a private location placed after the thread's own
        // earlier writes (the only other writes of the location but the
        // initial one), read by no waiting read: the last event of its
        // thread, coherence-last, read by nothing, so it has no outgoing
        // edge of any relation of 8.9 and the graph stays consistent
        // (8.10.1: every write that precedes it in causality is before it in
        // coherence; 8.10.3: no RMW has it between its halves).
        let settled_write = !before_all.is_empty()
            && ms.is_empty()
            && !s.exec.event(id).is_rmw()
            && self.is_private(t, loc);
        let r = self.branch(s, w, parts, &positions, &|this, s, w, &before, parts| {
            for (k, &m) in ms.iter().enumerate() {
                if before >> k & 1 == 1 {
                    s.exec.co.insert(m, id);
                } else {
                    s.exec.co.insert(id, m);
                }
            }
            let mut res: Res;
            // The waiting reads this position lets read from the write.
            let allowed = halves.iter().enumerate().fold(0u64, |m, (k, h)| match *h {
                Some((half, need)) if before >> half & 1 == 1 || before & need != need => m,
                _ => m | 1 << k,
            });
            // Every set of them, in increasing order of masks, but those
            // with two RMWs that cannot share this write (8.10.3).
            let mut mask = 0u64;
            // --- hook of `--strategy estimate` (`explore/estimate.rs`) ---
            let sampled = this
                .walk
                .as_ref()
                .and_then(|walk| walk.sample_set(readers.len(), allowed, &apart, &w.out.stats));
            loop {
                res = this.tick(w);
                if res.is_err() {
                    break;
                }
                // (Not a graph: such a set of readers is only skipped.)
                let fine = (0..readers.len()).all(|k| mask >> k & 1 == 0 || apart[k] & mask == 0)
                    && sampled.as_ref().is_none_or(|(m, _)| *m == mask);
                if !fine {
                    if mask == allowed {
                        break;
                    }
                    mask = ((mask | !allowed).wrapping_add(1)) & allowed;
                    continue;
                }
                // Waiting reads given the write: their threads go on, from
                // the state saved here.
                // (thread, read, its state before, its RMW mark before)
                type Resumed = (usize, EventId, ThreadState<i64>, bool);
                let mut resumed: SmallVec<[Resumed; 2]> = SmallVec::new();
                for (k, &r) in readers.iter().enumerate() {
                    if mask >> k & 1 == 1 {
                        s.exec.rf[r.index()] = Some(id);
                        s.pending.retain(|&p| p != r);
                        if let Some(at) = s.waiting.iter().position(|&x| x == r) {
                            s.waiting.remove(at);
                            let rt = s.exec.event(r).thread.map_or(0, |x| x.index());
                            let was = s.exec.event(r).is_rmw();
                            let rmw = s.states[rt].pending_rmw_writes(Some(&value));
                            set_read_value(s, r, value, rmw);
                            let saved = s.save(rt);
                            s.states[rt].commit(r, Some(value));
                            s.runs[rt] = Run::Running;
                            resumed.push((rt, r, saved, was));
                        }
                    }
                }
                s.derived_valid = false;
                if relations && mask == 0 {
                    if let Some(p) = &parent {
                        s.derived.copy_from(p, n0);
                    }
                    let d = fast::add_write(&s.exec, &s.statics, &mut s.derived, id.index());
                    debug_assert!(
                        d == fast::Decision::Unknown
                            || (d == fast::Decision::Consistent)
                                == model::check_full(&s.exec).is_ok()
                    );
                    s.derived_valid = d == fast::Decision::Consistent;
                }
                res = if this.satisfiable(s) && this.fair_so_far(s, w) {
                    s.states[t].clone_from(&node_state);
                    this.visit(s, w, !(settled_write && mask == 0), parts)
                } else {
                    w.out.stats.pruned += 1;
                    Ok(())
                };
                for (rt, r, saved, was) in resumed {
                    s.states[rt].clone_from(&saved);
                    s.recycle(saved);
                    s.runs[rt] = Run::Waiting(r);
                    set_read_value(s, r, 0, was);
                }
                for (k, &r) in readers.iter().enumerate() {
                    if mask >> k & 1 == 1 {
                        s.exec.rf[r.index()] = None;
                    }
                }
                s.pending.clone_from(&pending);
                s.waiting.clone_from(&waiting);
                s.derived_valid = false;
                if res.is_err() || mask == allowed {
                    break;
                }
                mask = ((mask | !allowed).wrapping_add(1)) & allowed;
            }
            if let (Some(walk), Some((_, mark))) = (&this.walk, sampled) {
                walk.leave(mark, &mut w.out.stats);
            }
            for &m in &ms {
                s.exec.co.remove(m, id);
                s.exec.co.remove(id, m);
            }
            res
        });
        for &m in &before_all {
            s.exec.co.remove(m, id);
        }
        pop_event(s, t);
        s.recycle(node_state);
        if let Some(p) = parent {
            s.spare_derived.push(p);
        }
        r
    }

    /// Explores the children `choices` of a node, in order: each is applied
    /// to `s`, explored and undone by `child`. While the node may be split
    /// (`parts > 1`), the later half of the children goes to another worker
    /// with its own copy of the graph and its own outcomes, merged after the
    /// earlier half's (so the result is the sequential one); each half gets
    /// half of the parts.
    pub(super) fn branch<C: Sync>(
        &self,
        s: &mut State,
        w: &mut Worker,
        parts: usize,
        choices: &[C],
        child: &(dyn Fn(&Self, &mut State, &mut Worker, &C, usize) -> Res + Sync),
    ) -> Res {
        // --- hook of `--strategy estimate` (`explore/estimate.rs`) ---
        if let (Some(walk), true) = (&self.walk, choices.len() > 1) {
            self.tick(w)?;
            let (i, mark) = walk.enter(choices.len(), &w.out.stats);
            let r = child(self, s, w, &choices[i], 1);
            walk.leave(mark, &mut w.out.stats);
            return r;
        }
        // --- hook of `--split` (`explore/split.rs`) ---
        if let Some(split) = self.split.as_ref().filter(|_| choices.len() > 1) {
            let hooks = crate::explore::split::Hooks {
                out: |w: &mut Worker| &mut w.out,
                tick: &|w: &mut Worker| self.tick(w),
                is_limit: |h: &Halt| matches!(h, Halt::Limit),
                whole: self.parts,
            };
            let child = |s: &mut State, w: &mut Worker, c: &C, p: usize| child(self, s, w, c, p);
            if let Some(r) = split.branch(s, w, choices, &hooks, &child) {
                return r;
            }
        }
        match choices {
            [c] => {
                self.tick(w)?;
                child(self, s, w, c, parts)
            }
            _ if parts <= 1 => {
                for c in choices {
                    self.tick(w)?;
                    child(self, s, w, c, 1)?;
                }
                Ok(())
            }
            _ => {
                let (left, right) = choices.split_at(choices.len() / 2);
                let mut s2 = s.clone();
                let mut w2 = w.fork();
                let (rl, rr) = rayon::join(
                    || self.branch(s, w, parts / 2, left, child),
                    || self.branch(&mut s2, &mut w2, parts - parts / 2, right, child),
                );
                match rl {
                    // The sequential search would have stopped in the left half.
                    Err(Halt::Stop(st)) => Err(Halt::Stop(st)),
                    // Everything found before the limit counts.
                    Err(Halt::Limit) => {
                        w.out.merge(w2.out);
                        Err(Halt::Limit)
                    }
                    Ok(()) => {
                        w.out.merge(w2.out);
                        rr
                    }
                }
            }
        }
    }
}
