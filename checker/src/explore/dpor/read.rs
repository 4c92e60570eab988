//! The read of a thread's next event: which writes it may read, waiting for a later write, and its early pruning (8.9.6 coherence, 8.10.3 atomicity).

use super::*;

impl<'a> Dpor<'a> {
    /// A new read: reads an existing write (a forward revisit), or one not
    /// yet added: its thread stops until a later write gives it its value
    /// (a backward revisit, [`Self::write`]), or, in a thread with
    /// asynchronous operations (whose events are not in program order), it
    /// commits at once to a value that a later write will provide.
    pub(super) fn read(
        &self,
        s: &mut State,
        w: &mut Worker,
        t: usize,
        ev: Event,
        parts: usize,
    ) -> Res {
        let EventKind::Read { loc, .. } = ev.kind else {
            return Ok(());
        };
        let phys = loc.phys;
        let mut choices: SmallVec<[Source; 16]> = s
            .exec
            .ids()
            .filter_map(|w| {
                let e = s.exec.event(w);
                match e.kind {
                    EventKind::Write { loc: l, value, .. } if l.phys == phys => {
                        Some(Source::Write(w, value))
                    }
                    _ => None,
                }
            })
            .collect();
        let private = self.is_private(t, loc) && ev.proxy == Proxy::Generic;
        if private {
            // A private location (only thread `t` writes it, through this
            // address and the generic proxy): the read reads the thread's
            // last write to it, or the initial write. Any earlier write is
            // coherence-before that one, which precedes the read in
            // causality order (program order, one address, generic proxy,
            // 8.9.5), so reading it breaks Causality (8.10.6).
            let own = s.exec.threads[t].iter().rev().copied().find(|&x| {
                s.exec.event(x).is_write() && s.exec.event(x).loc().is_some_and(|l| l.phys == phys)
            });
            let exec = &s.exec;
            choices.retain(|c| match *c {
                Source::Write(w, _) => match own {
                    Some(o) => w == o,
                    None => exec.event(w).is_init(),
                },
                Source::Value(_) | Source::Later => true,
            });
        }
        if !self.issues_async[t] {
            if (0..s.runs.len()).any(|u| self.later_writer(s, u, t, &ev, phys.index())) {
                choices.push(Source::Later);
            }
        } else {
            choices.extend(self.future_values(s, &ev, 0).into_iter().map(Source::Value));
        }
        let node_state = s.save(t);
        // When the graph is known consistent with its relations at hand, each
        // child is checked by extending them ([`fast::add_read`]) instead of
        // a check from scratch before it is extended.
        let n = s.exec.len();
        let parent: Option<Box<fast::Derived>> =
            (s.derived_valid && s.barriers == 0 && s.fences_sc < 2).then(|| s.save_derived(n));
        // The event and what depends only on it are the same in every child:
        // pushed once, each child sets the value read and where it comes from.
        let id = push_event(s, t, ev, Some(0));
        if s.exec.event(id).is_rmw() {
            // Two RMWs morally strong with each other and with the write
            // they read cannot both read it (see [`Self::must_not_share`]):
            // a write already read by such an RMW is no choice.
            let exec = &s.exec;
            choices.retain(|c| {
                let Source::Write(src, v) = *c else {
                    return true;
                };
                // (A CAS that only reads when it fails is no RMW for a
                // value that makes it fail, `ThreadState::pending_rmw_writes`.)
                !node_state.pending_rmw_writes(Some(&v))
                    || !exec.rf.iter().enumerate().any(|(r2, &from)| {
                        let r2 = EventId::new(r2);
                        from == Some(src)
                            && exec.event(r2).is_rmw()
                            && model::morally_strong(exec, id, r2)
                            && model::morally_strong(exec, src, id)
                            && model::morally_strong(exec, src, r2)
                    })
            });
        }
        let incremental = parent.is_some() && s.statics.len() == s.exec.len();
        let this_rmw = s.exec.event(id).is_rmw();
        let was_rmw = this_rmw;
        if let (Some(parent), true) = (&parent, incremental) {
            // The writes that precede the read in causality order whatever it
            // reads (reading adds predecessors, never removes any): reading a
            // write coherence-before one of them from-reads a write that
            // precedes the read, which the Causality axiom (8.10.6) forbids.
            s.derived.copy_from(parent, n);
            let d = fast::add_read(&s.exec, &s.statics, &mut s.derived, id.index());
            let preceding = match d {
                fast::Decision::Consistent => fast::preceding(&s.derived, id.index()),
                _ => fast::Mask::default(),
            };
            if !preceding.is_empty() {
                let st = &s.statics;
                choices.retain(|c| match *c {
                    Source::Write(w, _) => !fast::co_after_among(st, parent, w.index(), &preceding),
                    Source::Value(_) | Source::Later => true,
                });
            }
        }
        let r = self.branch(s, w, parts, &choices, &|this, s, w, &src, parts| {
            let value = match src {
                Source::Write(_, v) | Source::Value(v) => v,
                // Set when a write gives the read its value.
                Source::Later => 0,
            };
            let rmw = match src {
                Source::Later => was_rmw,
                _ => node_state.pending_rmw_writes(Some(&value)),
            };
            set_read_value(s, id, value, rmw);
            match src {
                Source::Write(src, _) => s.exec.set_rf(id, Some(src)),
                Source::Value(_) => s.pending.push(id),
                Source::Later => s.waiting.push(id),
            }
            let decision = match &parent {
                Some(parent) if incremental => {
                    s.derived.copy_from(parent, n);
                    let d = fast::add_read(&s.exec, &s.statics, &mut s.derived, id.index());
                    debug_assert!(
                        d == fast::Decision::Unknown
                            || (d == fast::Decision::Consistent)
                                == model::check_full(&s.exec).is_ok(),
                        "incremental check disagrees"
                    );
                    s.derived_valid = d == fast::Decision::Consistent;
                    d
                }
                _ => fast::Decision::Unknown,
            };
            // Past the one-word rows, a plain read of a private location
            // from the thread's last write (or the initial one) keeps the
            // graph consistent: it is the last event of its thread and
            // from-reads no write (every write of the location is its
            // thread's, coherence-before that one), so it has no outgoing
            // edge of any relation of 8.9 and closes no cycle; no check.
            let settled = private && !incremental && !this_rmw && matches!(src, Source::Write(..));
            let check = decision != fast::Decision::Consistent && !settled;
            let r = if decision == fast::Decision::Inconsistent
                || (matches!(src, Source::Value(_)) && !this.satisfiable(s))
            {
                w.out.stats.pruned += 1;
                Ok(())
            } else if let Source::Later = src {
                // The thread stops at the read, uncommitted, until a write
                // gives it a value ([`Self::write`]); the others go on.
                s.states[t].clone_from(&node_state);
                s.runs[t] = Run::Waiting(id);
                let r = this.next_thread(s, w, check, parts);
                s.runs[t] = Run::Running;
                r
            } else {
                s.states[t].clone_from(&node_state);
                s.states[t].commit(id, Some(value));
                this.visit(s, w, check, parts)
            };
            s.derived_valid = false;
            match src {
                Source::Write(..) => s.exec.set_rf(id, None),
                Source::Value(_) => {
                    s.pending.pop();
                }
                Source::Later => {
                    s.waiting.pop();
                }
            }
            r
        });
        pop_event(s, t);
        s.recycle(node_state);
        if let Some(p) = parent {
            s.spare_derived.push(p);
        }
        r
    }
}
