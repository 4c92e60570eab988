//! Whether the reads that wait for a write not yet added can still all get
//! one (waiting reads, and reads committed to a value): the threads that may
//! still write for each, those a read already precedes in causality order
//! (8.10.6), and a matching of the writes needed into the writes the
//! threads can still make (Hall's condition). A graph that fails this has
//! no consistent completion, so the explorer discards it at once.

use super::{Dpor, Run, State};
use crate::event::{Event, EventId, EventKind};
use crate::model::waits::Waits;
use crate::model::Model;
use smallvec::SmallVec;
use std::collections::BTreeSet;

impl Dpor<'_> {
    /// Values a write not yet added may write to the location of the read
    /// `ev`, in increasing order: those of the threads that may still write
    /// it ([`Self::later_writer`]), but the threads in `excluded` (a bit per
    /// thread).
    pub(super) fn future_values(&self, s: &State, ev: &Event, excluded: u64) -> BTreeSet<i64> {
        let mut out = BTreeSet::new();
        let (Some(rt), Some(loc)) = (ev.thread, ev.loc()) else {
            return out;
        };
        let phys = loc.phys.index();
        for t in 0..s.runs.len() {
            if (t >= 64 || excluded >> t & 1 == 0) && self.later_writer(s, t, rt.index(), ev, phys)
            {
                if let Some(w) = self.domain.values.get(t).and_then(|w| w.get(phys)) {
                    out.extend(w.iter().copied());
                }
            }
        }
        out
    }

    /// Whether thread `t` may still add a write to `phys` that the read `ev`
    /// of thread `rt` may read from: it may still run, has a write to `phys`
    /// left ([`Self::remaining_writes`]), and the own-thread rule allows it
    /// ([`Self::future_writer`]).
    pub(super) fn later_writer(
        &self,
        s: &State,
        t: usize,
        rt: usize,
        ev: &Event,
        phys: usize,
    ) -> bool {
        self.future_writer(t, rt, ev, phys) && self.remaining_writes(s, t, phys) > 0
    }

    /// Threads none of whose future writes the read `r` may read from, when
    /// `r` and every write the thread makes to `r`'s location use `r`'s
    /// address and the generic proxy (so that `r` preceding such a write in
    /// base causality order puts it before the write in proxy-preserved
    /// causality order, 8.9.5, and the Causality axiom, 8.10.6 item 1,
    /// forbids reading from it). Two kinds of threads are such:
    ///
    /// - those with an event that `r` precedes in base causality order
    ///   (every later event of the thread follows that one in program order,
    ///   so `r` precedes it too); known only from the relations of a graph
    ///   found consistent (`s.derived_valid`);
    /// - those stopped behind `r` ([`Self::gated_behind`]): waiting at a read
    ///   that only writes `r` precedes in base causality order can serve.
    pub(super) fn causally_after(&self, s: &State, r: EventId) -> u64 {
        self.excluded_later(s, r, s.model.known())
    }

    /// [`Self::causally_after`], reading the relations' base-causality row
    /// of `r` only with `rows` (a read just added has none yet: only its own
    /// thread's later events follow it).
    pub(super) fn excluded_later(&self, s: &State, r: EventId, rows: bool) -> u64 {
        let ev = s.exec.event(r);
        let (Some(loc), Some(rt)) = (ev.loc(), ev.thread) else {
            return 0;
        };
        let (phys, rt) = (loc.phys.index(), rt.index());
        if s.runs.len() > 64
            || self.issues_async[rt]
            || !s
                .model
                .causality_excludes_later(&s.exec, r, &mut std::iter::empty())
        {
            return 0;
        }
        // The model's rule (8.9.5, 8.10.6), on the ways thread `u` writes.
        let same_way = |u: usize| {
            s.model.causality_excludes_later(
                &s.exec,
                r,
                &mut self.accesses[u].get(phys).into_iter().flatten().copied(),
            )
        };
        // Threads all of whose later events `r` precedes in base causality
        // order: its own (program order), and those found from the relations.
        let mut after_threads = 1u64 << rt;
        let mut out = 0u64;
        let mut seen = 0u64;
        if rows {
            for (k, &word) in s.model.base_causality_row(r.index()).iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let x = 64 * k + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let Some(u) = s.exec.events().get(x).and_then(|e| e.thread) else {
                        continue;
                    };
                    let u = u.index();
                    // (A thread's rule is asked once, at its first event.)
                    if seen >> u & 1 == 1 || self.issues_async[u] {
                        continue;
                    }
                    seen |= 1 << u;
                    after_threads |= 1 << u;
                    if same_way(u) {
                        out |= 1 << u;
                    }
                }
            }
        }
        let mut gated = self.gated_behind(s, after_threads, phys);
        while gated != 0 {
            let u = gated.trailing_zeros() as usize;
            gated &= gated - 1;
            if same_way(u) {
                out |= 1 << u;
            }
        }
        out
    }

    /// The threads stopped behind the threads `after` (a bit per thread), all
    /// of whose later events some read `r` of location `r_phys` precedes in
    /// base causality order (8.9.5): each waits ([`Run::Waiting`]) at an
    /// acquire read `q` that is never given a value in advance
    /// ([`Self::never_unblocked`]), so it runs again only once a write added
    /// later gives `q` its value, every write any thread makes to `q`'s
    /// location that can let it go on is a release operation morally strong
    /// with `q` (8.7, 8.8 form 1), and every thread that may still make such a
    /// write is in `after` or stopped behind them too. The first of these
    /// threads to go on reads a write of a thread of `after`, which `r`
    /// precedes in base causality order and which synchronizes with `q`
    /// (8.9.4 item 4: observation, 8.9.2), so `r` precedes `q` and all that
    /// follows it; by induction, so for each next one. (The largest such set:
    /// threads that wait only for each other never run again, and write
    /// nothing.)
    ///
    /// Every write can let `q` go on, but when `q` is the CAS of a guarded
    /// CAS retry loop that stops its thread when it fails
    /// ([`crate::interp::ThreadCode::cas_exit_value`]) and lies at another
    /// location than `r`: then only a write that may write the CAS's compare
    /// value can ([`Self::exit_writes_synchronize`]); read any other value,
    /// the thread stops at the back edge, and its only write after `q` is the
    /// failed CAS's write-back to `q`'s location (under the spec reading),
    /// which `r` cannot read.
    pub(super) fn gated_behind(&self, s: &State, after: u64, r_phys: usize) -> u64 {
        let mut gated = 0u64;
        // The value `u`'s waiting read `q` must read for `u` to go on, if
        // only some values can.
        let exit = |u: usize, q: &Event, phys: usize| {
            (phys != r_phys)
                .then(|| self.codes[u].cas_exit_value(q.instr as usize))
                .flatten()
        };
        // Threads not started that stop at a gate first (`ahead.rs`): the
        // thread, its gate, the gate's location, what it writes before.
        let mut early: SmallVec<[(usize, Event, usize, u64); 8]> = SmallVec::new();
        for (u, run) in s.runs.iter().enumerate() {
            if after >> u & 1 == 1 {
                continue;
            }
            if let Run::Waiting(q) = *run {
                let e = s.exec.event(q);
                let Some(phys) = e.loc().map(|l| l.phys.index()) else {
                    continue;
                };
                // Every write any thread makes to `q`'s location that can let
                // `u` go on synchronizes with `q` when `q` reads it (a thread
                // whose writes there do not keeps the waiter out, even when it
                // makes none any more).
                if self.gate(s, u, e, phys, phys != r_phys) {
                    gated |= 1 << u;
                    continue;
                }
            }
            if u >= 64 {
                continue;
            }
            if let Some((e, phys, pre)) = self.gate_ahead(s, u) {
                if self.gate(s, u, &e, phys, phys != r_phys) {
                    gated |= 1 << u;
                    early.push((u, e, phys, pre));
                }
            }
        }
        let gate_of = |u: usize| -> Option<(&Event, usize, u64)> {
            if let Some((_, e, phys, pre)) = early.iter().find(|x| x.0 == u) {
                return Some((e, *phys, *pre));
            }
            match s.runs[u] {
                Run::Waiting(q) => {
                    let e = s.exec.event(q);
                    e.loc().map(|l| (e, l.phys.index(), 0))
                }
                _ => None,
            }
        };
        loop {
            let before = gated;
            // A thread gated before it starts writes first: not to `r`'s
            // location, nor to a gate of the threads gated.
            let mut gates = 1u64 << r_phys.min(63);
            let mut m = gated;
            while m != 0 {
                let u = m.trailing_zeros() as usize;
                m &= m - 1;
                if let Some((_, phys, _)) = gate_of(u) {
                    gates |= 1 << phys.min(63);
                }
            }
            let mut m = gated;
            while m != 0 {
                let u = m.trailing_zeros() as usize;
                m &= m - 1;
                let Some((e, phys, pre)) = gate_of(u) else {
                    gated &= !(1 << u);
                    continue;
                };
                if pre & gates != 0 || (pre != 0 && (r_phys >= 64 || phys >= 64)) {
                    gated &= !(1 << u);
                    continue;
                }
                let go_on = exit(u, e, phys);
                // (Every writer that can let `u` go on synchronizes with
                // `q`, checked above.)
                let behind = (0..s.runs.len()).all(|t| {
                    (after | gated) >> t & 1 == 1
                        || !self.later_writer(s, t, u, e, phys)
                        || (go_on.is_some() && !self.may_write_exit(t, phys, go_on))
                });
                if !behind {
                    gated &= !(1 << u);
                }
            }
            if gated == before {
                return gated;
            }
        }
    }

    /// Whether some thread still running may write the value the committed
    /// read `r` returns ([`Self::future_values`] contains it).
    pub(super) fn still_writable(&self, s: &State, r: EventId) -> bool {
        let ev = s.exec.event(r);
        let (Some(rt), Some(loc), Some(v)) = (ev.thread, ev.loc(), ev.value()) else {
            return false;
        };
        let phys = loc.phys.index();
        (0..s.runs.len()).any(|t| self.may_write_value(s, t, rt.index(), ev, phys, v))
    }

    /// Whether thread `t` may still add a write of `v` to `phys` that the
    /// read `ev` of thread `rt` may read from ([`Self::later_writer`], and
    /// `v` in the thread's value domain).
    fn may_write_value(
        &self,
        s: &State,
        t: usize,
        rt: usize,
        ev: &Event,
        phys: usize,
        v: i64,
    ) -> bool {
        self.later_writer(s, t, rt, ev, phys)
            && self
                .domain
                .values
                .get(t)
                .and_then(|w| w.get(phys))
                .is_some_and(|w| w.contains(&v))
    }

    /// Whether the RMWs of the reads `r1` and `r2` (the read halves of two
    /// atomic instructions, their write halves having the same semantics,
    /// scope, proxy and address) cannot read from one write of a thread in
    /// `threads`: the model's rule
    /// ([`Waits::rmws_need_distinct_writers`], 8.10.3 and 8.10.5) on the
    /// kinds of write those threads make.
    ///
    /// `value`: the value both would read, if known; a waiting CAS that only
    /// reads when it fails is an RMW only for a value that makes it succeed
    /// ([`Self::rmw_read`]).
    pub(super) fn must_not_share(
        &self,
        s: &State,
        r1: EventId,
        r2: EventId,
        threads: u64,
        value: Option<i64>,
    ) -> bool {
        let EventKind::Read { loc, .. } = s.exec.event(r1).kind else {
            return false;
        };
        if !(self.rmw_read(s, r1, value) && self.rmw_read(s, r2, value)) {
            return false;
        }
        let phys = loc.phys.index();
        let mut kinds = (0..s.runs.len().min(64))
            .filter(|&t| threads >> t & 1 == 1)
            .flat_map(|t| self.writers[t].get(phys).into_iter().flatten());
        s.model
            .rmws_need_distinct_writers(&s.exec, r1, r2, &mut kinds)
    }

    /// [`Self::must_not_share`] for the write `w` of the graph, which both
    /// would read, with value `value`: the model's rule on `w` itself.
    pub(super) fn cannot_share_write(
        &self,
        s: &State,
        r1: EventId,
        r2: EventId,
        w: EventId,
        value: i64,
    ) -> bool {
        self.rmw_read(s, r1, Some(value))
            && self.rmw_read(s, r2, Some(value))
            && s.model.rmws_need_distinct_writers(
                &s.exec,
                r1,
                r2,
                &mut std::iter::once(s.exec.event(w)),
            )
    }

    /// Whether the read `r` is the read half of an RMW whose write half
    /// follows when it reads `value` (`None`: whatever it reads). A read
    /// that has its value is marked so (`set_read_value`); a waiting one is
    /// asked of its thread's state, which holds it uncommitted.
    pub(super) fn rmw_read(&self, s: &State, r: EventId, value: Option<i64>) -> bool {
        let e = s.exec.event(r);
        match e.thread.map(|t| t.index()) {
            Some(t) if s.runs.get(t) == Some(&Run::Waiting(r)) => {
                s.states[t].pending_rmw_writes(value.as_ref())
            }
            _ => matches!(e.kind, EventKind::Read { rmw: true, .. }),
        }
    }

    /// Whether the reads that wait for writes not yet added can still all be
    /// given one: the committed reads ([`Self::values_satisfiable`]) and the
    /// waiting ones ([`Self::waiting_satisfiable`]).
    pub(super) fn satisfiable(&self, s: &State) -> bool {
        self.values_satisfiable(s) && self.waiting_satisfiable(s)
    }

    /// Writes thread `t` can still make to `phys`: none once it ended, else
    /// at most `max_writes` ([`crate::explore::domain::Domain::max_writes`]) in any execution, fewer
    /// the ones it already made.
    pub(super) fn remaining_writes(&self, s: &State, t: usize, phys: usize) -> usize {
        if !s.runs[t].live() {
            return 0;
        }
        let max = self
            .domain
            .max_writes
            .get(t)
            .and_then(|m| m.get(phys))
            .copied()
            .unwrap_or(0) as usize;
        let done = s
            .writes_made
            .get(t)
            .and_then(|w| w.get(phys))
            .copied()
            .unwrap_or(0) as usize;
        max.saturating_sub(done)
    }

    /// Whether each demand (a write needed, as the mask of the threads that
    /// may make it) gets its own write among those the threads can still
    /// make to `phys`: a matching into the remaining writes must exist
    /// (Hall's condition, decided greedily first, by augmenting paths when
    /// the greedy choice fails).
    pub(super) fn writes_suffice(&self, s: &State, phys: usize, demands: &[u64]) -> bool {
        let caps: SmallVec<[usize; 16]> = (0..s.runs.len())
            .map(|t| self.remaining_writes(s, t, phys))
            .collect();
        let mut left: SmallVec<[usize; 16]> = caps.clone();
        let greedy = demands.iter().all(|&d| {
            let mut m = d;
            while m != 0 {
                let t = m.trailing_zeros() as usize;
                m &= m - 1;
                if left[t] > 0 {
                    left[t] -= 1;
                    return true;
                }
            }
            false
        });
        if greedy {
            return true;
        }
        let mut assigned: Vec<Vec<usize>> = vec![Vec::new(); s.runs.len()];
        (0..demands.len()).all(|d| {
            let mut visited = 0u64;
            assign(d, demands, &caps, &mut assigned, &mut visited)
        })
    }

    /// Whether the committed reads can still all be satisfied by writes not
    /// yet added. Each distinct (location, value) they wait for needs its own
    /// write (a write has one value), from a thread still running that may
    /// write that value ([`Self::still_writable`]), and a thread makes at
    /// most so many writes to a location ([`Self::remaining_writes`]): the
    /// values waited for must fit into those remaining writes
    /// ([`Self::writes_suffice`]). A graph that fails this has no consistent
    /// completion: some committed read would read from no write.
    pub(super) fn values_satisfiable(&self, s: &State) -> bool {
        if s.pending.is_empty() {
            return true;
        }
        if s.runs.len() > 64 {
            return s.pending.iter().all(|&r| self.still_writable(s, r));
        }
        // The reads waiting for each (location, value), with the threads that
        // may write it for each.
        let mut groups: SmallVec<[WaitGroup; 8]> = SmallVec::new();
        for &r in &s.pending {
            let ev = s.exec.event(r);
            let (Some(rt), Some(loc), Some(v)) = (ev.thread, ev.loc(), ev.value()) else {
                return false;
            };
            let phys = loc.phys.index();
            let mut eligible = 0u64;
            let excluded = self.causally_after(s, r);
            for t in 0..s.runs.len() {
                if excluded >> t & 1 == 0 && self.may_write_value(s, t, rt.index(), ev, phys, v) {
                    eligible |= 1 << t;
                }
            }
            if eligible == 0 {
                return false;
            }
            match groups.iter_mut().find(|g| g.0 == phys && g.1 == v) {
                Some(g) => g.2.push((r, eligible)),
                None => groups.push((phys, v, SmallVec::from_slice(&[(r, eligible)]))),
            }
        }
        // Writes needed: one per (location, value), or one per read of a set
        // of RMW reads no two of which can share a write
        // ([`Self::must_not_share`]; a greedy set, any such set is a lower
        // bound). Each as (location, threads that may make it).
        let mut demands: SmallVec<[(usize, u64); 8]> = SmallVec::new();
        for (phys, _, reads) in &groups {
            let apart = self.apart(s, reads);
            if apart.len() > 1 {
                demands.extend(apart.iter().map(|&(_, el)| (*phys, el)));
            } else {
                let all = reads.iter().fold(0, |m, &(_, el)| m | el);
                demands.push((*phys, all));
            }
        }
        self.demands_fit(s, &mut demands)
    }

    /// Whether the reads that wait for a write not yet added
    /// ([`Run::Waiting`]) can each still get one: from another thread that
    /// may still write the location and may still run (a waiting thread runs
    /// again only once a thread that may run may write what it waits for:
    /// threads waiting for each other never do), one write per read of a
    /// set of RMW reads no two of which can share a write. (A waiting read
    /// takes any value, so several plain reads may share one write.)
    pub(super) fn waiting_satisfiable(&self, s: &State) -> bool {
        if s.waiting.is_empty() || s.runs.len() > 64 {
            return true;
        }
        if self.rmws_wait_for_each_other(s) {
            return false;
        }
        // Each waiting read with its thread, its location and the threads
        // that may write for it: not one it precedes in causality, and its
        // own thread only once [`Self::unblock`] gave it a value.
        let mut reads: SmallVec<[(EventId, usize, usize, u64); 8]> = SmallVec::new();
        for &r in &s.waiting {
            let ev = s.exec.event(r);
            let (Some(rt), Some(loc)) = (ev.thread, ev.loc()) else {
                return false;
            };
            let (rt, phys) = (rt.index(), loc.phys.index());
            let excluded = self.causally_after(s, r);
            let own = !self.never_unblocked(s, r);
            let may = (0..s.runs.len()).fold(0u64, |m, t| {
                let w = excluded >> t & 1 == 0
                    && (t != rt || own)
                    && self.later_writer(s, t, rt, ev, phys);
                m | u64::from(w) << t
            });
            reads.push((r, rt, phys, may));
        }
        // The threads that may ever add events: those running, those waiting
        // at a read that [`Self::unblock`] may give a value, and a waiting
        // one once a thread that may run may write what it waits for.
        let mut runs = s
            .runs
            .iter()
            .enumerate()
            .fold(0u64, |m, (t, r)| m | u64::from(*r == Run::Running) << t);
        for &(r, rt, _, _) in &reads {
            // (An awaiting RMW read that may hang writes back when it does.)
            if !self.never_unblocked(s, r)
                || (s.awaiting.contains(&r) && self.hang_writes_back(s, r) && self.may_hang(s, r))
            {
                runs |= 1 << rt;
            }
        }
        loop {
            let before = runs;
            for &(_, rt, _, may) in &reads {
                if may & runs != 0 {
                    runs |= 1 << rt;
                }
            }
            if runs == before {
                break;
            }
        }
        let mut groups: SmallVec<[(usize, Readers); 4]> = SmallVec::new();
        for &(r, _, phys, may) in &reads {
            let eligible = may & runs;
            // An awaiting read needs no later write while it may hang on one
            // of the graph ([`Self::may_hang`]), and takes part in no demand.
            if s.awaiting.contains(&r) {
                if eligible == 0 && !self.may_hang(s, r) {
                    return false;
                }
                continue;
            }
            if eligible == 0 {
                return false;
            }
            match groups.iter_mut().find(|g| g.0 == phys) {
                Some(g) => g.1.push((r, eligible)),
                None => groups.push((phys, SmallVec::from_slice(&[(r, eligible)]))),
            }
        }
        let mut demands: SmallVec<[(usize, u64); 8]> = SmallVec::new();
        for (phys, reads) in &groups {
            let apart = self.apart(s, reads);
            if apart.len() > 1 {
                demands.extend(apart.iter().map(|&(_, el)| (*phys, el)));
            }
        }
        self.demands_fit(s, &mut demands)
    }

    /// Whether, at some location all of whose writes are RMWs morally strong
    /// with each other ([`Self::rmw_chain`]), RMW reads wait for later
    /// writes ([`Run::Waiting`], not awaiting: an awaiting read may hang on a
    /// write of the graph) and the only writes any thread may still make
    /// there are the write halves of those RMWs. Then each of them reads the
    /// write half of another, and following "reads from" among finitely many
    /// gives a cycle; but an RMW's write comes after the write its read reads
    /// in coherence (8.10.1: else the read reads a write coherence-after one
    /// its thread made before it), so the cycle is one of coherence order,
    /// which is a total order on these writes (8.9.6). No completion is
    /// consistent: tickets that wait for each other's.
    pub(super) fn rmws_wait_for_each_other(&self, s: &State) -> bool {
        let mut seen: SmallVec<[usize; 4]> = SmallVec::new();
        for &r in &s.waiting {
            let Some(phys) = s.exec.event(r).loc().map(|l| l.phys.index()) else {
                continue;
            };
            if seen.contains(&phys) || !self.rmw_chain(phys) {
                continue;
            }
            seen.push(phys);
            // The threads stopped at such an RMW read of `phys`.
            let mut rmws = 0u64;
            for (t, run) in s.runs.iter().enumerate() {
                if let Run::Waiting(q) = *run {
                    let at = s
                        .exec
                        .event(q)
                        .loc()
                        .is_some_and(|l| l.phys.index() == phys);
                    if at && !s.awaiting.contains(&q) && self.rmw_read(s, q, None) {
                        rmws |= 1 << t;
                    }
                }
            }
            let only_halves = rmws != 0
                && (0..s.runs.len()).all(|t| match self.remaining_writes(s, t, phys) {
                    0 => true,
                    1 => rmws >> t & 1 == 1,
                    _ => false,
                });
            if only_halves {
                return true;
            }
        }
        false
    }

    /// A greedy set of the RMW reads among `reads` (each with the threads
    /// that may write for it) no two of which can share a write
    /// ([`Self::must_not_share`]); empty when there is at most one read.
    pub(super) fn apart(&self, s: &State, reads: &[(EventId, u64)]) -> Readers {
        let mut apart = Readers::new();
        if reads.len() > 1 {
            for &(r, el) in reads {
                if apart
                    .iter()
                    .all(|&(a, ael)| self.must_not_share(s, r, a, el & ael, None))
                {
                    apart.push((r, el));
                }
            }
        }
        apart
    }

    /// Whether the demands, as (location, threads that may make the write),
    /// fit into the writes the threads can still make, location by location.
    pub(super) fn demands_fit(&self, s: &State, demands: &mut [(usize, u64)]) -> bool {
        demands.sort_unstable_by_key(|d| d.0);
        demands.chunk_by(|a, b| a.0 == b.0).all(|group| {
            let masks: SmallVec<[u64; 8]> = group.iter().map(|d| d.1).collect();
            self.writes_suffice(s, group[0].0, &masks)
        })
    }
}

/// Reads, each with the threads that may write for it (a bit per thread).
pub(super) type Readers = SmallVec<[(EventId, u64); 4]>;

/// Committed reads waiting for one (location, value): the location, the
/// value, and each read with the threads that may write that value for it.
pub(super) type WaitGroup = (usize, i64, Readers);

/// Finds a remaining write for the value waited for `d` (an augmenting path
/// of the matching of values into threads with capacities `caps`).
pub(super) fn assign(
    d: usize,
    eligible: &[u64],
    caps: &[usize],
    assigned: &mut [Vec<usize>],
    visited: &mut u64,
) -> bool {
    let mut m = eligible[d];
    while m != 0 {
        let t = m.trailing_zeros() as usize;
        m &= m - 1;
        if *visited >> t & 1 == 1 {
            continue;
        }
        *visited |= 1 << t;
        if assigned[t].len() < caps[t] {
            assigned[t].push(d);
            return true;
        }
        for i in 0..assigned[t].len() {
            let other = assigned[t][i];
            if assign(other, eligible, caps, assigned, visited) {
                assigned[t][i] = d;
                return true;
            }
        }
    }
    false
}
