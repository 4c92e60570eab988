//! The read of a thread's next event: the writes it may read (as the model allows, [`Model::readable`]), or waiting for a later write.

use super::*;
use crate::model::consistency::Decision;

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
            .filter_map(|w| match s.exec.event(w).kind {
                EventKind::Write { loc: l, value, .. } if l.phys == phys => {
                    Some(Source::Write(w, value))
                }
                _ => None,
            })
            .collect();
        let private = self.is_private(t, loc) && ev.proxy == Proxy::Generic;
        if !self.issues_async[t] {
            if (0..s.runs.len()).any(|u| self.later_writer(s, u, t, &ev, phys.index())) {
                choices.push(Source::Later);
            }
        } else {
            choices.extend(self.future_values(s, &ev, 0).into_iter().map(Source::Value));
        }
        let node_state = s.save(t);
        // When the graph is known consistent with its relations at hand, each
        // child is checked by extending them ([`Model::decide_read`]) instead
        // of a check from scratch before it is extended.
        let n = s.exec.len();
        let parent: Option<<M as Model>::Frame> =
            (s.model.known() && s.barriers == 0).then(|| s.model.save(n));
        // The event and what depends only on it are the same in every child:
        // pushed once, each child sets the value read and where it comes from.
        let id = push_event(s, t, ev, Some(0));
        // No later write for the read when every thread that may still
        // write its location is gated behind it (`ahead.rs`).
        if choices.iter().any(|c| matches!(c, Source::Later)) {
            let excluded = self.excluded_later(s, id, false);
            let e = s.exec.event(id);
            if excluded != 0
                && !(0..s.runs.len()).any(|u| {
                    (u >= 64 || excluded >> u & 1 == 0)
                        && self.later_writer(s, u, t, e, phys.index())
                })
            {
                choices.retain(|c| !matches!(c, Source::Later));
            }
        }
        // The writes the model rules out are no choice.
        let write = |c: &Source| match *c {
            Source::Write(w, v) => Some((w, v)),
            Source::Value(_) | Source::Later => None,
        };
        let rmw_for = |v: i64| node_state.pending_rmw_writes(Some(&v));
        s.model.readable(
            &s.exec,
            id,
            &mut choices,
            write,
            &rmw_for,
            private,
            parent.as_ref(),
        );
        let incremental = parent.is_some() && s.model.follows(&s.exec);
        let was_rmw = s.exec.event(id).is_rmw();
        let stale_checked = self.checks_stale_reads(t, s.exec.event(id).instr as usize);
        // A read of a spin loop that a later write may serve *awaits*: the
        // writes whose value makes its iteration fail are no child now (nor
        // given by writes as they are added); the thread stops at the read,
        // and reads one of them, as a hang, only once no thread can go on
        // ([`Self::hang`]). So the graphs where the thread hangs and those
        // where a later write releases it share one subtree.
        let awaits = stale_checked && choices.iter().any(|c| matches!(c, Source::Later));
        if awaits {
            let mut kept: SmallVec<[Source; 16]> = SmallVec::new();
            for &c in &choices {
                let fails = match c {
                    Source::Write(_, v) => self.spin_fails(s, t, &node_state, id, v),
                    _ => false,
                };
                if !fails {
                    kept.push(c);
                }
            }
            choices = kept;
        }
        let read_settles = s.model.private_read_keeps_consistent(&s.exec, id, private);
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
                Source::Later => {
                    s.waiting.push(id);
                    if awaits {
                        s.awaiting.push(id);
                    }
                }
            }
            // A failing spin iteration reading a write that can no longer
            // stay coherence-last for it: no child ([`Self::stale_spin_read`]).
            if stale_checked
                && matches!(src, Source::Write(..))
                && this.stale_spin_read(s, t, &node_state, id, value)
            {
                s.exec.set_rf(id, None);
                return Ok(());
            }
            let decision = match &parent {
                Some(parent) if incremental => s.model.decide_read(&s.exec, parent, id),
                _ => Decision::Unknown,
            };
            // Past the one-word rows, a plain read of a private location
            // from a write the model kept needs no check
            // ([`Model::private_read_keeps_consistent`]).
            let settled = read_settles && !incremental && matches!(src, Source::Write(..));
            let check = decision != Decision::Consistent && !settled;
            let r = if decision == Decision::Inconsistent
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
            s.model.forget();
            match src {
                Source::Write(..) => s.exec.set_rf(id, None),
                Source::Value(_) => {
                    s.pending.pop();
                }
                Source::Later => {
                    s.waiting.pop();
                    s.ahead_memo.get_mut().retain(|e| e.0 != id);
                    if awaits {
                        s.awaiting.pop();
                        s.await_fails.get_mut().retain(|e| e.0 != id);
                    }
                }
            }
            r
        });
        pop_event(s, t);
        s.recycle(node_state);
        if let Some(p) = parent {
            s.model.recycle(p);
        }
        r
    }
}
