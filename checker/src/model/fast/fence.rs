//! A fence added at the end of its thread: the relations of the graph
//! extended by its column ([`add_fence_w`]), the Fence-SC order (8.9.3)
//! extended by putting a `fence.sc` last.

// Rows are indexed by event, as in `decide.rs`.
#![allow(clippy::needless_range_loop)]

use super::column::{base_into, causality_into, sync_into};
use super::decide::DerivedW;
use super::set::{union_rows, Set};
use super::statics::StaticsW;
use super::Decision;
use crate::event::EventId;
use crate::execution::Execution;
use smallvec::SmallVec;

/// Extends `d`, the relations of a consistent execution under a Fence-SC
/// order `order` (the `fence.sc` events before `f`, in that order), to the
/// same execution with one more event: the fence `f`, the last event of
/// `exec` and of its thread, put last in the Fence-SC order when it is a
/// `fence.sc` (`sc`). The result is consistent; `Unknown` when the
/// preconditions fail (then `d` is left unchanged).
///
/// Why only `f`'s column changes and every axiom still holds: `f` has no
/// program-order successor, starts no release pattern with a write (its
/// writes would come after it, 8.8) and is last in Fence-SC order, so every
/// new edge of synchronization (8.9.4: acquire patterns that end at `f`, item
/// 4; Fence-SC pairs into `f`, item 1), base causality and causality (8.9.5)
/// ends at `f`, and reads-from, coherence, observation and from-reads do not
/// change. A cycle of an axiom through `f` would need an edge out of it;
/// Fence-SC (8.10.2) needs, for a fence `G` before `f` in the order, `f` to
/// precede `G` in causality, and nothing follows `f`.
///
/// Preconditions, checked (else `Unknown`): `f` is a fence that converts no
/// proxy (the conversion paths of 8.9.5 item 3 need more than a column), the
/// graph has no alias fence and no barrier synchronization.
pub(crate) fn add_fence_w<const W: usize>(
    exec: &Execution,
    st: &StaticsW<W>,
    d: &mut DerivedW<W>,
    f: usize,
    sc: bool,
    order: &[EventId],
) -> Decision {
    let n = st.n;
    if n != f + 1
        || exec.len() != n
        || n > Set::<W>::CAPACITY
        || st.reads.has(f)
        || st.writes.has(f)
        || st.thread_mem.has(f)
        || st.conv_fences.has(f)
        || !st.alias_fences.is_empty()
        || !exec.barrier_sync().is_empty()
        || order.iter().any(|g| g.index() >= f)
    {
        return Decision::Unknown;
    }
    d.ensure(n);
    let DerivedW {
        rf,
        obs,
        sync,
        base,
        causality,
        co,
        fr,
        ..
    } = d;
    rf[f] = Set::EMPTY;
    obs[f] = Set::EMPTY;
    sync[f] = Set::EMPTY;
    base[f] = Set::EMPTY;
    causality[f] = Set::EMPTY;
    co[f] = Set::EMPTY;
    fr[f] = Set::EMPTY;
    // Synchronization into f (8.9.4): Fence-SC pairs (item 1) from the
    // morally strong fence.sc before it in the order, and release patterns
    // observed by an acquire pattern that ends at f (item 4).
    let mut synced = sync_into(st, obs, sync, st.rel_firsts & st.ms[f] & Set::below(f), f);
    if sc {
        for g in order {
            let g = g.index();
            if st.ms[g].has(f) {
                sync[g].insert(f);
                synced.insert(g);
            }
        }
    }
    let into = base_into(st, base, synced, f);
    causality_into(st, obs, causality, into, f);
    Decision::Consistent
}

/// Whether no Fence-SC order (8.9.3) of `fences` (the `fence.sc` events of
/// `exec`, at most 64) can make `exec` consistent, read off `d`, its
/// relations with no Fence-SC pair (found consistent): some fences must each
/// precede the next in every consistent order, in a cycle.
///
/// `F` must precede a morally strong `G` when `F` precedes `G` in base
/// causality (Fence-SC, 8.10.2; for fences, base causality is causality,
/// 8.9.5), or when `G` before `F` breaks an axiom whatever else is ordered:
/// some write `W` precedes `G` in base causality and some memory operation
/// `X` that `F` precedes, in a direct case of proxy-preserved base causality
/// with `W` (same address, generic proxy or one CTA), is a read that
/// from-reads `W` or a write coherence-before `W`. Then `W -> G -> F -> X` in
/// base causality (8.9.4 item 1), so `W` precedes `X` in causality, which
/// Causality (8.10.6 item 2) forbids for the read and Coherence (8.10.1)
/// for the write; more Fence-SC pairs only add edges (every relation used is
/// monotone in them). A total order cannot follow a cycle of such musts.
/// False when it cannot tell.
pub(crate) fn no_fence_sc_order_w<const W: usize>(
    st: &StaticsW<W>,
    d: &DerivedW<W>,
    fences: &[EventId],
) -> bool {
    let n = st.n;
    let k = fences.len();
    if !(2..=64).contains(&k) || d.base.len() < n || d.fr.len() < n || d.co.len() < n {
        return false;
    }
    if fences.iter().any(|f| f.index() >= n) {
        return false;
    }
    // The writes before each fence in base causality.
    let before = writes_before(st, d, fences);
    // `must[a]`: the fences fence `a` must precede.
    let mut must = [0u64; 64];
    for a in 0..k {
        let fa = fences[a].index();
        let after = d.base[fa];
        for b in 0..k {
            let fb = fences[b].index();
            if a == b || !st.ms[fa].has(fb) {
                continue;
            }
            let forced = after.has(fb)
                || (!before[b].is_empty()
                    && ((after & st.reads).any(|r| d.fr[r].meets(&(before[b] & st.direct[r])))
                        || (after & st.writes)
                            .any(|x| d.co[x].meets(&(before[b] & st.direct[x])))));
            if forced {
                must[a] |= 1u64 << b;
            }
        }
    }
    // A cycle: some fences are left once every fence no other left must
    // precede is taken away, again and again.
    let mut left: u64 = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
    loop {
        let mut free = 0u64;
        let mut m = left;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            let has_pred = (0..k).any(|a| left >> a & 1 == 1 && must[a] >> b & 1 == 1);
            if !has_pred {
                free |= 1u64 << b;
            }
        }
        if free == 0 {
            return left != 0;
        }
        left &= !free;
    }
}

/// A total order of `fences` (the `fence.sc` events of the graph, in the
/// order tried, which breaks ties) likely to be consistent, read off `d`,
/// the relations of the graph found consistent with no Fence-SC pair. `F`
/// goes before `G` when `F` precedes `G` in base causality (8.10.2 leaves no
/// choice), or when `G` before `F` would make a read that `F` precedes in
/// base causality from-read a write that precedes `G` in base causality
/// (8.9.7 item 3), and `F` before `G` would not do the same the other way:
/// that read would then from-read a write that precedes it in causality
/// (`W -> G -> F -> R`, 8.9.4 item 1, 8.9.5), which the Causality axiom
/// forbids in the direct cases (8.10.6). The orders within a cycle of these
/// preferences follow `fences`. Only a guess: the caller decides it. `None`
/// when the relations do not cover every event.
pub(crate) fn preferred_order_w<const W: usize>(
    st: &StaticsW<W>,
    d: &DerivedW<W>,
    fences: &[EventId],
) -> Option<Vec<EventId>> {
    let n = st.n;
    let k = fences.len();
    if d.base.len() < n || d.fr.len() < n || fences.iter().any(|f| f.index() >= n) {
        return None;
    }
    // `fr_after[g]`: the writes from-read by a read fence `g` precedes;
    // `w_before[a]`: the writes that precede fence `a`, both in base
    // causality.
    let fr_after: SmallVec<[Set<W>; 16]> = fences
        .iter()
        .map(|g| union_rows(&d.fr, d.base[g.index()] & st.reads))
        .collect();
    let w_before = writes_before(st, d, fences);
    // Fence `a` before fence `b` (positions in `fences`) breaks Causality
    // in the way above.
    let before = |a: usize, b: usize| fr_after[b].meets(&w_before[a]);
    // `pred[j]`: the fences that go before fence `j` (`kw` words each).
    let kw = k.div_ceil(64);
    let mut pred: SmallVec<[u64; 16]> = smallvec::smallvec![0; k * kw];
    for a in 0..k {
        for b in a + 1..k {
            let (fa, fb) = (fences[a].index(), fences[b].index());
            let (ab, ba) = (before(a, b), before(b, a));
            let a_first = d.base[fa].has(fb) || (ba && !ab);
            let b_first = d.base[fb].has(fa) || (ab && !ba);
            match (a_first, b_first) {
                (true, false) => pred[b * kw + a / 64] |= 1u64 << (a % 64),
                (false, true) => pred[a * kw + b / 64] |= 1u64 << (b % 64),
                _ => {}
            }
        }
    }
    // Placed one at a time: the first in `fences` whose predecessors are all
    // placed, or, in a cycle, the first in `fences`.
    let mut placed: SmallVec<[u64; 1]> = smallvec::smallvec![0; kw];
    let is_placed = |placed: &[u64], j: usize| placed[j / 64] >> (j % 64) & 1 == 1;
    let mut order = Vec::with_capacity(k);
    for _ in 0..k {
        let ready = (0..k).find(|&j| {
            !is_placed(&placed, j)
                && pred[j * kw..][..kw]
                    .iter()
                    .zip(&placed)
                    .all(|(p, q)| p & !q == 0)
        });
        let j = ready.or_else(|| (0..k).find(|&j| !is_placed(&placed, j)))?;
        placed[j / 64] |= 1u64 << (j % 64);
        order.push(fences[j]);
    }
    Some(order)
}

/// The writes (initial writes included) that precede each of `fences` in
/// base causality (8.9.5), read off `d`'s rows.
fn writes_before<const W: usize>(
    st: &StaticsW<W>,
    d: &DerivedW<W>,
    fences: &[EventId],
) -> SmallVec<[Set<W>; 16]> {
    let mut before: SmallVec<[Set<W>; 16]> = smallvec::smallvec![Set::EMPTY; fences.len()];
    let fence_set = fences
        .iter()
        .fold(Set::<W>::EMPTY, |m, f| m | Set::bit(f.index()));
    for w in st.writes.iter() {
        let m = d.base[w] & fence_set;
        if m.is_empty() {
            continue;
        }
        for (a, f) in fences.iter().enumerate() {
            if m.has(f.index()) {
                before[a].insert(w);
            }
        }
    }
    before
}
