//! The column of the relations into an event that nothing follows: what a
//! read added last ([`super::decide::add_read_w`]), a fence added last
//! ([`super::fence::add_fence_w`]) and a waiting read given its writer
//! ([`super::served::add_served_w`]) add alike. Every new edge of these
//! relations ends at the event.

use super::set::{union_rows, Set};
use super::statics::StaticsW;
use crate::event::EventKind;
use crate::execution::Execution;

/// Reads-from `w -> r` and from-reads out of `r` (8.9.7), and observation
/// (8.9.2): chains that end by `r` reading from `w` morally strongly,
/// directly or through the RMW whose write half is `w`.
#[inline(always)]
pub(super) fn read_from<const W: usize>(
    exec: &Execution,
    st: &StaticsW<W>,
    (rf, obs, fr, co): (&mut [Set<W>], &mut [Set<W>], &mut [Set<W>], &[Set<W>]),
    w: usize,
    r: usize,
) {
    rf[w].insert(r);
    fr[r] = co[w];
    if st.ms[w].has(r) {
        obs[w].insert(r);
        let rmw_write = matches!(exec.events()[w].kind, EventKind::Write { rmw: true, .. });
        if let Some(x) = rmw_write
            .then(|| st.reads.find(|x| st.rmw[x].has(w)))
            .flatten()
        {
            for row in obs[..st.n].iter_mut() {
                if row.has(x) {
                    row.insert(r);
                }
            }
        }
    }
}

/// Synchronization (8.9.4 item 4) into `e` from the first events `firsts`
/// of release patterns (morally strong with `e`) whose writes an acquire
/// pattern ending at `e` observes: `sync` gains the edges; the events found.
#[inline(always)]
pub(super) fn sync_into<const W: usize>(
    st: &StaticsW<W>,
    obs: &[Set<W>],
    sync: &mut [Set<W>],
    firsts: Set<W>,
    e: usize,
) -> Set<W> {
    let mut synced = Set::<W>::EMPTY;
    for x in firsts.iter() {
        let writes = st.rel_writes[x];
        if !writes.is_empty() && union_rows(&st.acq_last, union_rows(obs, writes)).has(e) {
            sync[x].insert(e);
            synced.insert(x);
        }
    }
    synced
}

/// Base causality (8.9.5) into `e`: its program-order predecessors (the
/// thread's earlier events), the events `synced` it synchronizes with, and
/// what precedes them; `base` gains the column. What precedes a
/// program-order predecessor precedes the thread's last one (base
/// causality is transitive and holds program order), so a bit per event
/// and per synchronizing event. The events that precede `e`.
#[inline(always)]
pub(super) fn base_into<const W: usize>(
    st: &StaticsW<W>,
    base: &mut [Set<W>],
    synced: Set<W>,
    e: usize,
) -> Set<W> {
    let n = st.n;
    // (Rows cut to `n`: the indexes below are then known in bounds.)
    let (po, rows) = (&st.po[..n], &base[..n]);
    let mut preds = Set::<W>::EMPTY;
    for (x, row) in po.iter().enumerate() {
        if row.has(e) {
            preds.insert(x);
        }
    }
    let mut through = synced;
    if let Some(last) = preds.last() {
        through.insert(last);
    }
    let mut into = preds | synced;
    for (x, row) in rows.iter().enumerate() {
        if x != e && row.meets(&through) {
            into.insert(x);
        }
    }
    for x in into.iter() {
        base[x].insert(e);
    }
    into
}

/// Causality (8.9.5) into `e`, given `into`, the events that precede it in
/// base causality: P, then observation followed by P. For a memory
/// operation `e`, P is proxy-preserved base causality from memory
/// operations (the direct cases, there being no conversion; they are
/// symmetric, so `direct[x]` holds `e` when `direct[e]` holds `x`) and base
/// causality from any other event; observation ends at reads that read the
/// location of its first write (8.9.2: reads-from and RMW pairs stay on one
/// location), and the reads of P's column are in `direct[e]`, on `e`'s
/// location, so only the writes of `e`'s location can reach the column.
/// For any other event (a fence), P is base causality, from any write.
#[inline(always)]
pub(super) fn causality_into<const W: usize>(
    st: &StaticsW<W>,
    obs: &[Set<W>],
    causality: &mut [Set<W>],
    into: Set<W>,
    e: usize,
) {
    let memory = st.thread_mem.has(e);
    let pcol = if memory {
        into & (!st.thread_mem | st.direct[e])
    } else {
        into
    };
    for x in pcol.iter() {
        causality[x].insert(e);
    }
    let reads = pcol & st.reads;
    if reads.is_empty() {
        return;
    }
    let writes = if memory {
        st.writes & st.same_loc[e]
    } else {
        st.writes
    };
    for x in (writes & !Set::bit(e) & !pcol).iter() {
        if obs[x].meets(&reads) {
            causality[x].insert(e);
        }
    }
}

/// SC per location (8.10.5) through the read `r`, whose only edges out of it
/// are from-reads: `po-loc ∪ (ms ∩ com)` was acyclic without those, so a new
/// cycle leaves `r` by a from-read to a morally strong write of its location
/// and comes back to `r`: a search from those writes that stops when it
/// reaches `r`. Whether it does.
#[inline(always)]
pub(super) fn loc_cycle_through<const W: usize>(
    st: &StaticsW<W>,
    (rf, co, fr): (&[Set<W>], &[Set<W>], &[Set<W>]),
    r: usize,
) -> bool {
    let out = fr[r] & st.ms[r] & st.same_loc[r] & st.thread_mem;
    if out.is_empty() {
        return false;
    }
    let loc_row = |a: usize| {
        let com = rf[a] | co[a] | fr[a];
        (st.po[a] | (st.ms[a] & com)) & st.same_loc[a] & st.thread_mem
    };
    let mut reached = out;
    let mut frontier = out;
    while !frontier.is_empty() {
        let mut next = Set::EMPTY;
        for a in frontier.iter() {
            next |= loc_row(a);
        }
        if next.has(r) {
            return true;
        }
        frontier = next & !reached;
        reached |= next;
    }
    false
}
