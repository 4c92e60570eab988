//! [`DerivedW`]: the relations of the fast path that depend on reads-from,
//! coherence, the Fence-SC order and barrier synchronization, computed by
//! [`decide_w`] or extended by [`add_read_w`], as sets of `W` words.

// Rows are indexed by event: `for i in 0..n { a[i] = b[i] | c[i] }` reads
// better than zipped iterators over several arrays.
#![allow(clippy::needless_range_loop)]

use super::column::{base_into, causality_into, loc_cycle_through, read_from, sync_into};
use super::set::{
    acyclic, acyclic_among, close, close_acyclic, union_rows, Rows, SearchSpace, Set,
};
use super::statics::StaticsW;
use super::Decision;
use crate::event::EventId;
use crate::execution::Execution;

#[inline(always)]
fn bit<const W: usize>(i: usize) -> Set<W> {
    Set::bit(i)
}

/// The relations that depend on reads-from, coherence, Fence-SC order and
/// barrier synchronization, and scratch rows. Only the first `n` rows mean
/// anything: [`decide`] writes each row it reads, so one `Derived` is reused
/// from check to check without clearing it.
#[derive(Clone)]
pub(crate) struct DerivedW<const W: usize> {
    pub(crate) rf: Rows<W>,
    pub(crate) obs: Rows<W>,
    pub(crate) sync: Rows<W>,
    pub(crate) base: Rows<W>,
    pub(crate) causality: Rows<W>,
    pub(crate) co: Rows<W>,
    pub(crate) fr: Rows<W>,
    scratch_a: Rows<W>,
    scratch_b: Rows<W>,
    scratch_c: Rows<W>,
    space: SearchSpace<W>,
}

/// [`DerivedW::cut`]: the relations at full width, the scratch rows, the
/// search space.
pub(super) struct Cut<'a, const W: usize> {
    pub(super) rf: &'a mut [Set<W>],
    pub(super) obs: &'a mut [Set<W>],
    pub(super) sync: &'a mut [Set<W>],
    pub(super) base: &'a mut [Set<W>],
    pub(super) causality: &'a mut [Set<W>],
    pub(super) co: &'a mut [Set<W>],
    pub(super) fr: &'a mut [Set<W>],
    pub(super) scratch: [&'a mut [Set<W>]; 3],
    pub(super) space: &'a mut SearchSpace<W>,
}

impl<const W: usize> DerivedW<W> {
    /// Copies the first `n` rows of the relations of `other`, of the same
    /// width (a copy of memory).
    #[inline]
    pub(crate) fn copy_same(&mut self, other: &Self, n: usize) {
        self.ensure(n);
        self.rf[..n].copy_from_slice(&other.rf[..n]);
        self.obs[..n].copy_from_slice(&other.obs[..n]);
        self.sync[..n].copy_from_slice(&other.sync[..n]);
        self.base[..n].copy_from_slice(&other.base[..n]);
        self.causality[..n].copy_from_slice(&other.causality[..n]);
        self.co[..n].copy_from_slice(&other.co[..n]);
        self.fr[..n].copy_from_slice(&other.fr[..n]);
    }

    /// Copies the first `n` rows of the relations of `other`, of any width
    /// whose sets hold them.
    pub(crate) fn copy_from<const V: usize>(&mut self, other: &DerivedW<V>, n: usize) {
        self.ensure(n);
        for (dst, src) in [
            (&mut self.rf, &other.rf),
            (&mut self.obs, &other.obs),
            (&mut self.sync, &other.sync),
            (&mut self.base, &other.base),
            (&mut self.causality, &other.causality),
            (&mut self.co, &other.co),
            (&mut self.fr, &other.fr),
        ] {
            for (d, s) in dst[..n].iter_mut().zip(&src[..n]) {
                *d = Set::from_words(&s.0);
            }
        }
    }

    pub(crate) fn new() -> Self {
        Self {
            rf: Vec::new(),
            obs: Vec::new(),
            sync: Vec::new(),
            base: Vec::new(),
            causality: Vec::new(),
            co: Vec::new(),
            fr: Vec::new(),
            scratch_a: Vec::new(),
            scratch_b: Vec::new(),
            scratch_c: Vec::new(),
            space: SearchSpace::default(),
        }
    }

    /// Makes every relation at least `n` rows long.
    #[inline(always)]
    pub(super) fn ensure(&mut self, n: usize) {
        // invariant: every relation has as many rows as `rf`.
        if self.rf.len() < n {
            self.grow(n);
        }
    }

    /// The relations, each cut to `Set::<W>::CAPACITY` rows (an index taken
    /// from a set then needs no bounds check), with the scratch rows and the
    /// search space; [`Self::ensure`] must have grown them.
    #[inline(always)]
    pub(super) fn cut(&mut self) -> Cut<'_, W> {
        let cap = Set::<W>::CAPACITY;
        let Self {
            rf,
            obs,
            sync,
            base,
            causality,
            co,
            fr,
            scratch_a,
            scratch_b,
            scratch_c,
            space,
        } = self;
        Cut {
            rf: &mut rf[..cap],
            obs: &mut obs[..cap],
            sync: &mut sync[..cap],
            base: &mut base[..cap],
            causality: &mut causality[..cap],
            co: &mut co[..cap],
            fr: &mut fr[..cap],
            scratch: [
                &mut scratch_a[..cap],
                &mut scratch_b[..cap],
                &mut scratch_c[..cap],
            ],
            space,
        }
    }

    /// [`Self::ensure`] when the rows are short (once per `Derived`).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: usize) {
        for rows in [
            &mut self.rf,
            &mut self.obs,
            &mut self.sync,
            &mut self.base,
            &mut self.causality,
            &mut self.co,
            &mut self.fr,
            &mut self.scratch_a,
            &mut self.scratch_b,
            &mut self.scratch_c,
        ] {
            if rows.len() < n {
                // At full width: the kernels cut each relation to exactly
                // `Set::<W>::CAPACITY` rows, so that indexes taken from a set
                // need no bounds check.
                rows.resize(n.max(Set::<W>::CAPACITY), Set::EMPTY);
            }
        }
    }
}

/// Decides the axioms of 8.10 for `exec`, whose events are those of `st`,
/// leaving the relations in `d`.
pub(crate) fn decide_w<const W: usize>(
    exec: &Execution,
    st: &StaticsW<W>,
    d: &mut DerivedW<W>,
) -> Decision {
    let n = st.n;
    if exec.len() != n || exec.co().len() != n || exec.rf().len() != n || n > Set::<W>::CAPACITY {
        return Decision::Unknown;
    }
    d.ensure(n);
    let DerivedW {
        rf,
        obs,
        sync,
        scratch_a,
        scratch_b,
        ..
    } = &mut *d;
    let cap = Set::<W>::CAPACITY;
    let (rf, obs, sync) = (&mut rf[..cap], &mut obs[..cap], &mut sync[..cap]);
    let (scratch_a, scratch_b) = (&mut scratch_a[..cap], &mut scratch_b[..cap]);
    // Reads-from (8.9.7 item 1): W -> R.
    rf[..n].fill(Set::EMPTY);
    for (r, w) in exec.rf().iter().enumerate() {
        if let Some(w) = w {
            if w.index() >= n {
                return Decision::Unknown;
            }
            rf[w.index()] |= bit(r);
        }
    }
    // Observation order (8.9.2): (ms ∩ rf) ; (rmw ; (ms ∩ rf))*.
    let ms_rf = &mut *scratch_a;
    for i in 0..n {
        ms_rf[i] = st.ms[i] & rf[i];
    }
    let step = &mut *scratch_b;
    for (slot, &m) in step.iter_mut().zip(&st.rmw).take(n) {
        *slot = if m.is_empty() {
            Set::EMPTY
        } else {
            union_rows(ms_rf, m)
        };
    }
    for w in 0..n {
        let mut row = ms_rf[w];
        let mut frontier = row;
        while !frontier.is_empty() {
            let next = union_rows(step, frontier) & !row;
            row |= next;
            frontier = next;
        }
        obs[w] = row;
    }
    // Synchronizes-with (8.9.4): Fence-SC (item 1), barriers (items 2, 3),
    // release and acquire patterns (item 4).
    sync[..n].fill(Set::EMPTY);
    if exec.fence_sc().iter().any(|f| f.index() >= n) {
        return Decision::Unknown;
    }
    for (x, y) in exec.fence_sc_pairs() {
        if st.ms[x.index()].has(y.index()) {
            sync[x.index()] |= bit(y.index());
        }
    }
    for &(x, y) in exec.barrier_sync() {
        if x.index() >= n || y.index() >= n {
            return Decision::Unknown;
        }
        sync[x.index()] |= bit(y.index());
    }
    for (first, slot) in sync.iter_mut().enumerate().take(n) {
        let w = st.rel_writes[first];
        if !w.is_empty() {
            let observed = union_rows(obs, w);
            *slot |= union_rows(&st.acq_last, observed) & st.ms[first];
        }
    }
    causality_axioms_w(exec, st, d, true)
}

/// [`decide_w`] for `exec` under its Fence-SC order, from `no_pair`: the
/// relations of `exec` found consistent with no Fence-SC pair (as
/// [`decide_w`] leaves them, same statics `st`). Reads-from, observation
/// and the synchronization of patterns and barriers do not depend on the
/// order (8.9.2, 8.9.4 items 2 to 4), nor does No-Thin-Air (8.10.4: `rf`
/// and `dep` only), so they are taken from `no_pair`; the Fence-SC pairs
/// (8.9.4 item 1) are added to synchronization and everything after it is
/// decided again. Same answer and relations as [`decide_w`].
pub(crate) fn decide_with_order_w<const W: usize>(
    exec: &Execution,
    st: &StaticsW<W>,
    no_pair: &DerivedW<W>,
    d: &mut DerivedW<W>,
) -> Decision {
    let n = st.n;
    if exec.len() != n
        || exec.co().len() != n
        || exec.rf().len() != n
        || n > Set::<W>::CAPACITY
        || no_pair.rf.len() < n
        || exec.fence_sc().iter().any(|f| f.index() >= n)
        || !exec.barrier_sync().is_empty()
    {
        return Decision::Unknown;
    }
    d.ensure(n);
    d.rf[..n].copy_from_slice(&no_pair.rf[..n]);
    d.obs[..n].copy_from_slice(&no_pair.obs[..n]);
    d.sync[..n].copy_from_slice(&no_pair.sync[..n]);
    for (x, y) in exec.fence_sc_pairs() {
        if st.ms[x.index()].has(y.index()) {
            d.sync[x.index()] |= bit(y.index());
        }
    }
    let decision = causality_axioms_w(exec, st, d, false);
    #[cfg(debug_assertions)]
    {
        let mut again = DerivedW::new();
        let want = decide_w(exec, st, &mut again);
        assert_eq!(
            decision, want,
            "deciding from the relations with no pair disagrees"
        );
        if want == Decision::Consistent {
            for rows in [
                (&d.base, &again.base),
                (&d.causality, &again.causality),
                (&d.co, &again.co),
                (&d.fr, &again.fr),
                (&d.sync, &again.sync),
                (&d.obs, &again.obs),
                (&d.rf, &again.rf),
            ] {
                assert!(rows.0[..n] == rows.1[..n], "relations differ");
            }
        }
    }
    decision
}

/// The second half of [`decide_w`], from `d.rf`, `d.obs` and `d.sync` (the
/// first `n` rows, `d` grown to `n`): base causality, causality, coherence
/// and from-reads, then the axioms of 8.10 (No-Thin-Air only when `nta`).
fn causality_axioms_w<const W: usize>(
    exec: &Execution,
    st: &StaticsW<W>,
    d: &mut DerivedW<W>,
    nta: bool,
) -> Decision {
    let n = st.n;
    let Cut {
        rf,
        obs,
        sync,
        base,
        causality,
        co,
        fr,
        scratch: [scratch_a, scratch_b, scratch_c],
        space,
    } = d.cut();
    // Base causality (8.9.5): (po ∪ sync)+. Program order is transitive, so
    // the closure of each event's next event in its thread and its sync
    // successors is the same; the search is linear when that is acyclic.
    let imm = &mut *scratch_a;
    for i in 0..n {
        imm[i] = st.po[i].lowest() | sync[i];
    }
    if !close_acyclic(imm, base, n, space) {
        for i in 0..n {
            base[i] = st.po[i] | sync[i];
        }
        close(base, n);
    }
    // Proxy-preserved base causality (8.9.5), items 1 and 2, between thread
    // memory operations.
    let pp = &mut *scratch_a;
    for x in 0..n {
        pp[x] = base[x] & st.direct[x];
    }
    // Through proxy conversions and alias fences (item 3 and the converted
    // cases of `ptx-v7.5.cat`).
    if !st.alias_fences.is_empty() || st.conv[..n].iter().any(|r| !r.is_empty()) {
        // src: X -> X (generic) or X -> F (F converts X, after X).
        // dst: Y -> Y (generic) or F -> Y (F converts Y, before Y).
        let src = &mut *scratch_b;
        let dst = &mut *scratch_c;
        src[..n].fill(Set::EMPTY);
        dst[..n].fill(Set::EMPTY);
        for x in (st.generic).iter() {
            src[x] |= bit(x);
            dst[x] |= bit(x);
        }
        for f in 0..n {
            let c = st.conv[f];
            if c.is_empty() {
                continue;
            }
            dst[f] |= c & base[f];
            for x in (c).iter() {
                if base[x].has(f) {
                    src[x] |= bit(f);
                }
            }
        }
        for x in (st.thread_mem).iter() {
            let src_base = union_rows(base, src[x]);
            let same_address_paths = union_rows(dst, src_base);
            pp[x] |= same_address_paths & st.same_addr[x] & st.thread_mem;
            let via_alias = union_rows(base, src_base & st.alias_fences);
            let alias_paths = union_rows(dst, via_alias);
            pp[x] |= alias_paths & st.same_loc[x] & st.thread_mem;
        }
    }
    // P: proxy-preserved between memory operations, base causality for every
    // other pair; causality order = P ∪ (observation ; P).
    let p = &mut *scratch_b;
    for x in 0..n {
        p[x] = if st.thread_mem.has(x) {
            pp[x] | (base[x] & !st.thread_mem)
        } else {
            base[x]
        };
    }
    for x in 0..n {
        causality[x] = p[x] | union_rows(p, obs[x]);
    }
    // Coherence (8.9.6, 8.10.1): chosen edges, initial writes first, and
    // causality between overlapping writes; acyclic, then closed.
    for (a, g) in co.iter_mut().enumerate().take(n) {
        *g = Set::from_words(exec.co().row_words(EventId::new(a)));
    }
    for i in (st.inits).iter() {
        co[i] |= st.same_loc[i] & st.writes & !st.inits & !bit(i);
    }
    for w in (st.writes).iter() {
        co[w] |= causality[w] & st.writes & st.same_loc[w] & !bit(w);
    }
    let gen = &mut *scratch_a;
    gen[..n].copy_from_slice(&co[..n]);
    if !close_acyclic(gen, co, n, space) {
        return Decision::Inconsistent;
    }
    // From-reads (8.9.7 item 3): rf^-1 ; co.
    for (r, w) in exec.rf().iter().enumerate() {
        fr[r] = w.map_or(Set::EMPTY, |w| co[w.index()]);
    }
    // Fence-SC (8.10.2): F1 before F2 in Fence-SC order, morally strong:
    // F2 must not precede F1 in causality order.
    for (f1, f2) in exec.fence_sc_pairs() {
        let (a, b) = (f1.index(), f2.index());
        if st.ms[a].has(b) && causality[b].has(a) {
            return Decision::Inconsistent;
        }
    }
    // Atomicity (8.10.3). Single-copy atomicity cannot fail while every
    // overlap is complete: it needs a write coherence-before itself, and
    // coherence is acyclic here. RMW atomicity: no morally strong write W
    // between the write A's read reads from and A's write.
    for ar in (st.reads).iter() {
        let Some(aw) = st.rmw[ar].last() else {
            continue;
        };
        let Some(w0) = exec.rf()[ar] else { continue };
        let between = co[w0.index()] & st.ms[aw] & st.ms[ar] & !bit(aw);
        if between.any(|w| co[w].has(aw)) {
            return Decision::Inconsistent;
        }
    }
    // No-Thin-Air (8.10.4): rf ∪ dep acyclic.
    if nta {
        let rf_dep = &mut *scratch_a;
        for i in 0..n {
            rf_dep[i] = rf[i] | st.dep[i];
        }
        if !acyclic(rf_dep, n, space) {
            return Decision::Inconsistent;
        }
    }
    // Causality (8.10.6): R must not read from a write it precedes in
    // causality order, nor from-read a write that precedes it.
    for r in (st.reads).iter() {
        if let Some(w) = exec.rf()[r] {
            if causality[r].has(w.index()) {
                return Decision::Inconsistent;
            }
        }
        let overlapping = fr[r] & st.same_loc[r];
        if overlapping.any(|w| causality[w].has(r)) {
            return Decision::Inconsistent;
        }
    }
    // Coherence (8.10.1) for a write that precedes itself in causality order.
    if st.writes.any(|w| causality[w].has(w)) {
        return Decision::Inconsistent;
    }
    // SC per location (8.10.5): po-loc ∪ (ms ∩ com) over thread memory
    // operations of one location contains every edge of every pairwise
    // morally strong set; if it is acyclic the axiom holds, otherwise the
    // clique analysis of the full check decides.
    let loc_rel = &mut *scratch_a;
    for a in 0..n {
        loc_rel[a] = if st.thread_mem.has(a) {
            let com = rf[a] | co[a] | fr[a];
            (st.po[a] | (st.ms[a] & com)) & st.same_loc[a] & st.thread_mem
        } else {
            Set::EMPTY
        };
    }
    if !acyclic(loc_rel, n, space) {
        return Decision::Unknown;
    }
    Decision::Consistent
}

/// The events that precede event `r` in causality order (8.9.5), in the
/// relations `d` (as [`add_read`] leaves them for the read `r`).
pub(crate) fn preceding_w<const W: usize>(d: &DerivedW<W>, r: usize) -> Set<W> {
    let mut m = Set::EMPTY;
    for (x, row) in d.causality[..r.min(d.causality.len())].iter().enumerate() {
        if row.has(r) {
            m.insert(x);
        }
    }
    m
}

/// Extends `d`, the relations of a consistent execution, to the same
/// execution with one more event: the read `r`, the last event of `exec` and
/// of its thread, reading from `exec.rf[r]` (or from nothing yet, for a read
/// committed to a later write). Decides the axioms of 8.10 for the result,
/// checking only what the read can break (Causality and SC per location
/// through `r`), and leaves its relations in `d`.
///
/// Why that is all: `r` is the last event of every order it takes part in.
/// It has no program-order successor and starts no release pattern, so
/// every new edge of program order, synchronization, base causality,
/// observation (its chains end with reading from a write) and causality ends
/// at `r`; coherence only relates writes and does not change; `r` adds the
/// reads-from edge into itself, dependencies into itself, and from-reads
/// out of itself. So a new cycle of an axiom must leave `r` by from-reads:
/// Causality (`r` from-reads a write that precedes it) or SC per location.
///
/// Preconditions, checked where cheap (else `Unknown`): `d` holds the
/// relations that [`decide`] found consistent for `exec` without `r`, under
/// a Fence-SC order the caller keeps (`exec.fence_sc` is not read: `r` adds
/// no Fence-SC pair), and no barrier synchronization; no proxy conversions
/// or alias fences (their paths would need more than a column).
pub(crate) fn add_read_w<const W: usize>(
    exec: &Execution,
    st: &StaticsW<W>,
    d: &mut DerivedW<W>,
    r: usize,
) -> Decision {
    let n = st.n;
    if n != r + 1
        || exec.len() != n
        || exec.rf().len() != n
        || exec.co().len() != n
        || !exec.barrier_sync().is_empty()
        || !st.reads.has(r)
        || !st.rmw[r].is_empty()
        || !st.alias_fences.is_empty()
        || n > Set::<W>::CAPACITY
        || st.conv_fences.any(|f| !st.conv[f].is_empty())
    {
        return Decision::Unknown;
    }
    d.ensure(n);
    // (Every row slice cut to full width: the indexes below are then known
    // in bounds.)
    let Cut {
        rf,
        obs,
        sync,
        base,
        causality,
        co,
        fr,
        ..
    } = d.cut();
    let (ms, same_loc) = (&st.ms[..n], &st.same_loc[..n]);
    rf[r] = Set::EMPTY;
    obs[r] = Set::EMPTY;
    sync[r] = Set::EMPTY;
    base[r] = Set::EMPTY;
    causality[r] = Set::EMPTY;
    co[r] = Set::EMPTY;
    fr[r] = Set::EMPTY;
    if let Some(w) = exec.rf()[r].map(|w| w.index()) {
        if w >= r {
            return Decision::Unknown;
        }
        read_from(exec, st, (rf, obs, fr, co), w, r);
    }
    // Synchronization (8.9.4 item 4) into r: from the first events of
    // release patterns (`rel_firsts`, a superset of those with writes)
    // morally strong with r.
    let synced = sync_into(st, obs, sync, st.rel_firsts & ms[r] & Set::below(r), r);
    let into = base_into(st, base, synced, r);
    causality_into(st, obs, causality, into, r);
    // Causality (8.10.6): r must not from-read a write that precedes it
    // (it cannot precede the write it reads from: nothing follows r).
    let overlapping = fr[r] & same_loc[r];
    if overlapping.any(|w| causality[w].has(r)) {
        return Decision::Inconsistent;
    }
    if loc_cycle_through(st, (rf, co, fr), r) {
        return Decision::Unknown;
    }
    Decision::Consistent
}

/// Extends `d`, the relations of a consistent execution, to the same
/// execution with one more event: the write `w`, the last event of `exec`
/// and of its thread, read by no read, with its coherence edges chosen
/// (`exec.co`). Decides the axioms of 8.10 for the result as [`decide_w`]
/// would, and leaves the same relations in `d`.
///
/// Why this is all that changes: `w` is the last event of every order it
/// takes part in but coherence. It has no program-order successor, is read
/// by nobody (so it ends no observation chain and makes no release pattern
/// observed, 8.9.2, 8.9.4), and no synchronization ends at a write (acquire
/// patterns end at reads and fences, 8.8, Fence-SC pairs at fences; barriers
/// are ruled out by the preconditions), so base causality and causality only
/// gain the column `w` (8.9.5), and reads-from, observation and
/// synchronization do not change. Coherence (8.9.6) gains `w` between the
/// writes that come before it (chosen edges, the initial write, writes that
/// precede it in causality, 8.10.1) and those after it, and from-reads
/// follows for the reads of the writes before it. So the axioms can only
/// break through coherence: a cycle through `w` (8.10.1), an RMW whose
/// source is before `w` (8.10.3), a read from-reading a write that precedes
/// it (8.10.6), or a cycle of `po-loc ∪ (ms ∩ com)` on `w`'s location
/// (8.10.5); No-Thin-Air cannot (`w` has no outgoing `rf` or `dep` edge).
///
/// Preconditions, checked (else `Unknown`): `d` holds the relations that
/// [`decide_w`] found consistent for `exec` without `w`, under a Fence-SC
/// order the caller keeps (`exec.fence_sc` is not read), no barrier
/// synchronization, no proxy conversions or alias fences.
pub(crate) fn add_write_w<const W: usize>(
    exec: &Execution,
    st: &StaticsW<W>,
    d: &mut DerivedW<W>,
    w: usize,
) -> Decision {
    let n = st.n;
    let id = EventId::new(w);
    if n != w + 1
        || exec.len() != n
        || exec.rf().len() != n
        || exec.co().len() != n
        || !exec.barrier_sync().is_empty()
        || !st.writes.has(w)
        || st.inits.has(w)
        || !st.alias_fences.is_empty()
        || n > Set::<W>::CAPACITY
        || st.conv_fences.any(|f| !st.conv[f].is_empty())
        || exec.rf().contains(&Some(id))
    {
        return Decision::Unknown;
    }
    d.ensure(n);
    let b = Set::<W>::bit(w);
    let Cut {
        rf,
        obs,
        sync,
        base,
        causality,
        co,
        fr,
        scratch: [loc_rel, ..],
        space,
    } = d.cut();
    let (po, ms, rmw, _, same_loc) = (
        &st.po[..n],
        &st.ms[..n],
        &st.rmw[..n],
        &st.direct[..n],
        &st.same_loc[..n],
    );
    rf[w] = Set::EMPTY;
    obs[w] = Set::EMPTY;
    sync[w] = Set::EMPTY;
    base[w] = Set::EMPTY;
    causality[w] = Set::EMPTY;
    fr[w] = Set::EMPTY;
    // Base causality (8.9.5) into w: its program-order predecessors and
    // what precedes them (no synchronization ends at a write).
    let into = base_into(st, base, Set::EMPTY, w);
    causality_into(st, obs, causality, into, w);
    // Coherence (8.9.6): the writes right before w (the initial write,
    // chosen edges, causality between overlapping writes, 8.10.1) and
    // right after it (chosen edges); then the closure, which w extends by
    // the writes before it times the writes after it.
    let loc_writes = st.writes & same_loc[w] & !b;
    let mut cin = st.inits & loc_writes;
    for x in loc_writes.iter() {
        if causality[x].has(w) || exec.co().contains(EventId::new(x), id) {
            cin.insert(x);
        }
    }
    let cout = Set::<W>::from_words(exec.co().row_words(id)) & loc_writes;
    let mut succ = cout;
    for m in cout.iter() {
        succ |= co[m];
    }
    let mut pred = cin;
    for y in loc_writes.iter() {
        if co[y].meets(&cin) {
            pred.insert(y);
        }
    }
    if succ.meets(&pred) {
        return Decision::Inconsistent;
    }
    co[w] = succ;
    for y in pred.iter() {
        co[y] |= b | succ;
    }
    // From-reads (8.9.7 item 3) of the reads of the writes before w, and
    // Causality (8.10.6) for them: the only reads whose from-reads changed
    // (causality gained only the column w, and w precedes nothing).
    // (Reads from a write read it on its location: only w's are looked at.)
    for r in (st.reads & same_loc[w]).iter() {
        let Some(src) = exec.rf()[r] else { continue };
        if !pred.has(src.index()) {
            continue;
        }
        fr[r] = co[src.index()];
        let overlapping = fr[r] & same_loc[r];
        if overlapping.any(|x| causality[x].has(r)) {
            return Decision::Inconsistent;
        }
    }
    // RMW atomicity (8.10.3) for the RMWs whose coherence rows changed:
    // those whose source is before w, and w's own read half (all of them
    // on w's location).
    for ar in (st.reads & same_loc[w]).iter() {
        let Some(aw) = rmw[ar].last() else { continue };
        let Some(w0) = exec.rf()[ar] else { continue };
        if !(pred.has(w0.index()) || aw == w) {
            continue;
        }
        let between = co[w0.index()] & ms[aw] & ms[ar] & !bit(aw);
        if between.any(|x| co[x].has(aw)) {
            return Decision::Inconsistent;
        }
    }
    // SC per location (8.10.5) on w's location, the only one whose
    // `po-loc ∪ (ms ∩ com)` changed; cyclic: the full check decides. Every
    // new edge ends at w or at a write after it (program order and
    // coherence into w, from-reads into w and `succ`, coherence from `pred`
    // to `succ`), and w has no edge out but coherence to `succ` (it is the
    // last event of its thread and read by nobody): with `succ` empty no
    // new edge lies on a cycle, and the relation, acyclic before, still is.
    if succ.is_empty() {
        return Decision::Consistent;
    }
    let at = same_loc[w] & st.thread_mem;
    for a in at.iter() {
        let com = rf[a] | co[a] | fr[a];
        loc_rel[a] = (po[a] | (ms[a] & com)) & at;
    }
    if !acyclic_among(loc_rel, n, at, space) {
        return Decision::Unknown;
    }
    Decision::Consistent
}
