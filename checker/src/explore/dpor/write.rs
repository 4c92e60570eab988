//! The write of a thread's next event: its coherence positions, the waiting reads it serves (backward revisits), and the branching of the search across workers and `--split` parts.

use super::*;
use crate::model::consistency::Decision;

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
        let forced = s
            .model
            .causal_writes_before(&s.exec, t, &ev, self.issues_async[t]);
        // The relations of the graph, when at hand: each child read by no
        // waiting read is checked by extending them ([`Model::decide_write`]).
        let n0 = s.exec.len();
        let relations = s.model.known() && s.barriers == 0;
        let id = push_event(s, t, ev, None);
        s.states[t].commit(id, None);
        // The writes the new one is ordered with in coherence (8.9.6).
        let mut ms = s.model.rivals(&s.exec, id);
        let readers: SmallVec<[EventId; 8]> = s
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
        // An awaiting read takes only a value that lets its thread leave the
        // iteration ([`Self::awaiting_takes`]).
        let mut readers = readers;
        if !s.awaiting.is_empty() {
            let mut kept = SmallVec::with_capacity(readers.len());
            for r in readers {
                if !s.awaiting.contains(&r) || self.awaiting_takes(s, r, value) {
                    kept.push(r);
                }
            }
            readers = kept;
        }
        // Those that precede it whatever its position, when the positions
        // would not fit in a mask (or `forced` is not known), get their edge
        // at once; positions range over the others.
        let before_all = s
            .model
            .own_earlier_writes(&s.exec, t, id, &mut ms, self.issues_async[t]);
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
        let positions = s.model.coherence_positions(&s.exec, id, &ms, forced);
        // The waiting reads that are the read half of an RMW whose write half
        // is in the graph, morally strong with the new write: the position
        // that must then be the new write's ([`crate::model::consistency::Positions::rmw_half`]).
        let halves: SmallVec<[Option<(usize, u64)>; 8]> = readers
            .iter()
            .map(|&r| positions.rmw_half(&s.exec, id, r, &ms))
            .collect();
        // Pairs of waiting reads that cannot both read from this write: RMWs
        // morally strong with each other and with it ([`Self::must_not_share`]).
        let apart: SmallVec<[u64; 8]> = readers
            .iter()
            .map(|&r1| {
                readers.iter().enumerate().fold(0u64, |m, (j, &r2)| {
                    let both = r1 != r2 && self.cannot_share_write(s, r1, r2, id, value);
                    m | u64::from(both) << j
                })
            })
            .collect();
        // (With one child, extended in place: the model still holds them.)
        let single = positions.list.len() == 1 && readers.is_empty();
        let parent = (relations && !single).then(|| s.model.save(n0));
        let node_state = s.save(t);
        // (Snapshots kept inline, restored into the state's own buffers.)
        let pending: SmallVec<[EventId; 8]> = SmallVec::from_slice(&s.pending);
        let waiting: SmallVec<[EventId; 8]> = SmallVec::from_slice(&s.waiting);
        let awaiting: SmallVec<[EventId; 8]> = SmallVec::from_slice(&s.awaiting);
        for &m in &before_all {
            s.exec.order_co(m, id);
        }
        // A plain write to a private location placed after the thread's own
        // earlier writes, when no waiting read reads it, needs no check
        // ([`Model::private_write_keeps_consistent`]).
        let settled_write = s.model.private_write_keeps_consistent(
            &s.exec,
            id,
            &before_all,
            &ms,
            self.is_private(t, loc),
        );
        let r = self.branch(
            s,
            w,
            parts,
            &positions.list,
            &|this, s, w, &before, parts| {
                for (k, &m) in ms.iter().enumerate() {
                    if before >> k & 1 == 1 {
                        s.exec.order_co(m, id);
                    } else {
                        s.exec.order_co(id, m);
                    }
                }
                // The waiting reads this position lets read from the write.
                let allowed = halves.iter().enumerate().fold(0u64, |m, (k, h)| match *h {
                    Some((half, need)) if before >> half & 1 == 1 || before & need != need => m,
                    _ => m | 1 << k,
                });
                // (Not a graph: a set with two RMWs that cannot share this
                // write, 8.10.3, is only skipped.)
                let fine = |mask: u64| {
                    (0..readers.len()).all(|k| mask >> k & 1 == 0 || apart[k] & mask == 0)
                };
                // The child where the waiting reads of `mask` read the write.
                let one = |this: &Self, s: &mut State, w: &mut Worker, mask: u64| -> Res {
                    // Waiting reads given the write: their threads go on, from
                    // the state saved here.
                    // (thread, read, its state before, its RMW mark before)
                    type Resumed = (usize, EventId, ThreadState<i64>, bool);
                    let mut resumed: SmallVec<[Resumed; 2]> = SmallVec::new();
                    // The write read by nobody first, then each waiting read
                    // it serves, extending the relations
                    // ([`Model::decide_write`], [`Model::decide_served`]);
                    // a read given a value in advance (its thread went on)
                    // or one that changes its RMW mark ends that.
                    let mut incremental = relations
                        && s.model.decide_write(&s.exec, parent.as_ref(), id)
                            == Decision::Consistent;
                    for (k, &r) in readers.iter().enumerate() {
                        if mask >> k & 1 == 1 {
                            s.exec.set_rf(r, Some(id));
                            s.pending.retain(|&p| p != r);
                            let mut served = false;
                            if let Some(at) = s.waiting.iter().position(|&x| x == r) {
                                s.waiting.remove(at);
                                // (Awaiting reads are waiting ones.)
                                s.awaiting.retain(|&x| x != r);
                                let rt = s.exec.event(r).thread.map_or(0, |x| x.index());
                                let was = s.exec.event(r).is_rmw();
                                let rmw = s.states[rt].pending_rmw_writes(Some(&value));
                                set_read_value(s, r, value, rmw);
                                let saved = s.save(rt);
                                s.states[rt].commit(r, Some(value));
                                s.runs[rt] = Run::Running;
                                resumed.push((rt, r, saved, was));
                                served = rmw == was;
                            }
                            incremental = incremental
                                && served
                                && s.model.decide_served(&s.exec, r) == Decision::Consistent;
                        }
                    }
                    if !incremental {
                        s.model.forget();
                    }
                    let res = if this.satisfiable(s) && this.fair_so_far(s) {
                        s.states[t].clone_from(&node_state);
                        s.satisfied = s.model.known();
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
                            s.exec.set_rf(r, None);
                        }
                    }
                    restore(&mut s.pending, &pending);
                    restore(&mut s.waiting, &waiting);
                    restore(&mut s.awaiting, &awaiting);
                    s.model.forget();
                    res
                };
                // Every set of them, in increasing order of masks.
                let next = |mask: u64| ((mask | !allowed).wrapping_add(1)) & allowed;
                let mut res: Res;
                // --- hook of `--strategy estimate` (`explore/estimate.rs`) ---
                if let Some(walk) = &this.walk {
                    let mut sets: SmallVec<[u64; 8]> = SmallVec::new();
                    let mut mask = 0u64;
                    loop {
                        if fine(mask) {
                            sets.push(mask);
                        }
                        if mask == allowed {
                            break;
                        }
                        mask = next(mask);
                    }
                    res = match sets[..] {
                        [] => Ok(()),
                        [mask] => this.tick(w).and_then(|()| one(this, s, w, mask)),
                        _ => this.walk_node(walk, s, w, sets.len(), &mut |this, s, w, i| {
                            one(this, s, w, sets[i])
                        }),
                    };
                } else {
                    let mut mask = 0u64;
                    loop {
                        res = this.tick(w);
                        if res.is_err() {
                            break;
                        }
                        if fine(mask) {
                            res = one(this, s, w, mask);
                        }
                        if res.is_err() || mask == allowed {
                            break;
                        }
                        mask = next(mask);
                    }
                }
                for &m in &ms {
                    s.exec.unorder_co(m, id);
                }
                res
            },
        );
        for &m in &before_all {
            s.exec.unorder_co(m, id);
        }
        pop_event(s, t);
        s.recycle(node_state);
        if let Some(p) = parent {
            s.model.recycle(p);
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
            return self.walk_node(walk, s, w, choices.len(), &mut |this, s, w, i| {
                child(this, s, w, &choices[i], 1)
            });
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
                    // (Walks and their look-aheads run on one worker.)
                    Err(Halt::Probe) => Err(Halt::Probe),
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

/// Makes `into` the list `from`, in its own buffer.
fn restore(into: &mut Vec<EventId>, from: &[EventId]) {
    into.clear();
    into.extend_from_slice(from);
}
