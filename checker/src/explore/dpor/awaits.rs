//! Awaiting reads: a read of a side-effect-free spin loop whose failing
//! values are read only once no thread can go on (`docs/model-notes.md`,
//! "Waits").
//!
//! A read of a spin loop reads a write whose value either lets its thread
//! leave the iteration (an *exit*) or makes it take the back edge, so the
//! thread blocks there (a *hang*, which counts for liveness only when fair,
//! 8.6.1, 8.7). Built as an ordinary read, the hang on a write already in
//! the graph is a child of its own: the other threads then run in that
//! child and again in the one where the read waits for a later write, and
//! the hang child is discarded as soon as a releasing write is added
//! (`fairness.rs`), after the other threads ran once more for nothing.
//!
//! An awaiting read ([`super::State::awaiting`]) makes one child for both:
//! it reads the existing writes whose value exits (as any read), and
//! otherwise stops its thread ([`super::Run::Waiting`]). A write added later
//! may give it its value only when that value exits
//! ([`Dpor::awaiting_takes`]). Once no thread can go on
//! ([`Dpor::unblock`]), an awaiting read hangs on each write of the final
//! graph whose value fails ([`Dpor::hang`]), each a child that the fairness
//! check judges at once. Each graph is still produced once: a read's writer
//! with an exiting value is chosen when the read or the writer is added, as
//! for every read; one with a failing value only at the hang.

use super::*;
use crate::model::fairness::may_stay_on;

impl Dpor<'_> {
    /// Thread `t`'s state `before` (stopped at its read `r`) after `r`
    /// reads `value` and the thread steps on, in a spare buffer
    /// ([`Self::step_blocks`]: whether it then blocks in a spin loop, and
    /// whether it stepped over a write-back to get there).
    pub(super) fn probe_read(
        &self,
        s: &mut State,
        t: usize,
        before: &ThreadState<i64>,
        r: EventId,
        value: i64,
    ) -> (ThreadState<i64>, bool, bool) {
        let mut st = match s.spare_states.pop() {
            Some(mut x) => {
                x.clone_from(before);
                x
            }
            None => before.clone(),
        };
        let (blocked, wrote_back) = self.step_blocks(&mut st, t, before, r, value);
        (st, blocked, wrote_back)
    }

    /// Commits `value` to the read `r` in `st` (thread `t`'s state, stopped
    /// at `r`; `before` the same state) and steps on: whether the thread then
    /// takes the back edge of a spin loop, and whether it stepped over the
    /// write half of an RMW to get there: a failed CAS's write-back under
    /// `spec` (8.10.3), after which alone its iteration blocks.
    fn step_blocks(
        &self,
        st: &mut ThreadState<i64>,
        t: usize,
        before: &ThreadState<i64>,
        r: EventId,
        value: i64,
    ) -> (bool, bool) {
        let write_back = before.pending_rmw_writes(Some(&value));
        st.commit(r, Some(value));
        match st.next(&self.codes[t]) {
            Next::Blocked(BlockReason::Spin) => (true, false),
            // (The write half comes right after its read.)
            Next::Event(ev) if write_back && ev.is_write() => {
                st.commit(super::ahead::SCRATCH, None);
                let blocked = matches!(st.next(&self.codes[t]), Next::Blocked(BlockReason::Spin));
                (blocked, true)
            }
            _ => (false, false),
        }
    }

    /// Whether the awaiting read `r` writes when it hangs: the read half of
    /// an RMW whose write half follows whatever it reads (a CAS's write-back
    /// of a failing value under `spec`; not under `failed-cas-read`). Its hang
    /// may then serve the reads that wait.
    pub(super) fn hang_writes_back(&self, s: &State, r: EventId) -> bool {
        let e = s.exec.event(r);
        e.is_rmw()
            && e.thread
                .and_then(|t| s.states.get(t.index()))
                .is_some_and(|st| st.pending_rmw_writes(None))
    }

    /// Whether thread `t`, stopped at its read `r` in state `before`, takes
    /// the back edge of a spin loop (blocks) when `r` reads `value`, after
    /// the write-back of a failed CAS if one follows ([`Self::step_blocks`]).
    pub(super) fn spin_fails(
        &self,
        s: &mut State,
        t: usize,
        before: &ThreadState<i64>,
        r: EventId,
        value: i64,
    ) -> bool {
        let (st, blocked, _) = self.probe_read(s, t, before, r, value);
        s.recycle(st);
        blocked
    }

    /// Whether the awaiting read `r` (of a waiting thread) may be given a
    /// write of `value` as it is added: when the value lets the thread leave
    /// the iteration. A failing value is read only as a hang ([`Self::hang`]).
    pub(super) fn awaiting_takes(&self, s: &State, r: EventId, value: i64) -> bool {
        !self.awaiting_fails(s, r, value)
    }

    /// [`Self::spin_fails`] for the awaiting read `r`, whose thread waits in
    /// the same state as long as `r` awaits: found once per value
    /// ([`State::await_fails`]).
    pub(super) fn awaiting_fails(&self, s: &State, r: EventId, value: i64) -> bool {
        let known = s
            .await_fails
            .borrow()
            .iter()
            .find(|e| e.0 == r && e.1 == value)
            .map(|e| e.2);
        if let Some(fails) = known {
            return fails;
        }
        let Some(rt) = s.exec.event(r).thread.map(|t| t.index()) else {
            return false;
        };
        let mut slot = s.probe.borrow_mut();
        let st = match slot.as_mut() {
            Some(x) => {
                x.clone_from(&s.states[rt]);
                x
            }
            None => slot.insert(s.states[rt].clone()),
        };
        let (fails, _) = self.step_blocks(st, rt, &s.states[rt], r, value);
        drop(slot);
        s.await_fails.borrow_mut().push((r, value, fails));
        fails
    }

    /// The writes of the graph the awaiting read `r` may hang on: those
    /// whose value makes its iteration fail and that no write of the graph
    /// certainly releases ([`crate::model::fairness::may_stay_on`]: coherence-after it and bound to
    /// become visible to `r`; a write added later only adds releases).
    fn hangs(&self, s: &State, r: EventId) -> SmallVec<[(EventId, i64); 8]> {
        self.hang_writes(s, r).collect()
    }

    /// Whether the awaiting read `r` may still hang on a write of the graph
    /// ([`Self::hangs`], stopping at the first); without a later write for
    /// it, it must.
    pub(super) fn may_hang(&self, s: &State, r: EventId) -> bool {
        self.hang_writes(s, r).next().is_some()
    }

    /// [`Self::hangs`], one write at a time.
    fn hang_writes<'s>(
        &'s self,
        s: &'s State,
        r: EventId,
    ) -> impl Iterator<Item = (EventId, i64)> + 's {
        let phys = s.exec.event(r).loc().map(|l| l.phys);
        s.exec
            .ids()
            .filter_map(move |x| match s.exec.event(x).kind {
                EventKind::Write { loc, value, .. } if Some(loc.phys) == phys => Some((x, value)),
                _ => None,
            })
            .filter(move |&(x, v)| self.awaiting_fails(s, r, v) && may_stay_on(&s.exec, r, x))
    }

    /// No thread can go on and `r` awaits: it reads, in turn, each write of
    /// the graph it may hang on, and its thread blocks in the spin (the
    /// fairness check, [`Self::end_thread`], judges the hang at once).
    pub(super) fn hang(&self, s: &mut State, w: &mut Worker, r: EventId, parts: usize) -> Res {
        let Some(rt) = s.exec.event(r).thread.map(|t| t.index()) else {
            return Ok(());
        };
        let options = self.hangs(s, r);
        if options.is_empty() {
            w.out.stats.pruned += 1;
            return Ok(());
        }
        let lists = s.stop_waiting(r);
        s.runs[rt] = Run::Running;
        let saved = s.save(rt);
        let was = s.exec.event(r).is_rmw();
        let res = self.branch(s, w, parts, &options, &|this, s, w, &(x, v), parts| {
            let rmw = saved.pending_rmw_writes(Some(&v));
            set_read_value(s, r, v, rmw);
            s.exec.set_rf(r, Some(x));
            s.model.forget();
            s.states[rt].clone_from(&saved);
            s.states[rt].commit(r, Some(v));
            let res = this.visit(s, w, true, parts);
            s.exec.set_rf(r, None);
            s.model.forget();
            res
        });
        s.states[rt].clone_from(&saved);
        s.recycle(saved);
        s.runs[rt] = Run::Waiting(r);
        s.restore_waiting(lists);
        set_read_value(s, r, 0, was);
        s.model.forget();
        res
    }
}
