//! A waiting read served: the relations of the graph extended by a
//! reads-from edge into a read that has nothing after it ([`add_served_w`]).

// Rows are indexed by event, as in `decide.rs`.
#![allow(clippy::needless_range_loop)]

use super::decide::DerivedW;
use super::set::{union_rows, Set};
use super::statics::StaticsW;
use super::Decision;
use crate::event::EventKind;
use crate::execution::Execution;

/// Extends `d`, the relations of a consistent execution in which the read
/// `r` reads from nothing yet, to the same execution with `r` reading from
/// `exec.rf[r]`: `r` is the last event of its thread (it waited for its
/// writer) but not necessarily of the graph. Decides the axioms of 8.10 for
/// the result, checking what the edge can break, and leaves its relations in
/// `d`; `Unknown` when the preconditions fail (then `d` is of no use).
///
/// Why that is all, as for a read added last ([`super::decide::add_read_w`]):
/// `r` has no program-order successor, starts no release pattern and is read
/// by nobody, and reading nothing it from-read nothing, so it had no edge out
/// of it in any relation (checked below); every new edge of reads-from,
/// observation (its chains end by reading), synchronization (acquire patterns
/// that end at `r`), base causality and causality ends at `r`, coherence does
/// not change, and `r` gains from-reads out of itself. A new cycle of an
/// axiom must leave `r` by from-reads: Causality (`r` from-reads a write that
/// precedes it, or precedes the write it reads, which would need an edge out
/// of `r`) or SC per location. No-Thin-Air needs an edge out of `r` too, and
/// new causality into a read forces no coherence (8.10.1) and orders no
/// fence (8.10.2).
///
/// Preconditions, checked (else `Unknown`): `d` holds the relations of the
/// graph with `r` reading nothing, found consistent (under the Fence-SC order
/// the caller keeps), no barrier synchronization, no proxy conversions or
/// alias fences; `r` is not the read half of an RMW whose write is in the
/// graph.
pub(crate) fn add_served_w<const W: usize>(
    exec: &Execution,
    st: &StaticsW<W>,
    d: &mut DerivedW<W>,
    r: usize,
) -> Decision {
    let n = st.n;
    let Some(w) = exec.rf().get(r).copied().flatten().map(|w| w.index()) else {
        return Decision::Unknown;
    };
    if exec.len() != n
        || r >= n
        || w >= n
        || w == r
        || n > Set::<W>::CAPACITY
        || d.rf.len() < n
        || !exec.barrier_sync().is_empty()
        || !st.reads.has(r)
        || !st.rmw[r].is_empty()
        || !st.po[r].is_empty()
        || !st.alias_fences.is_empty()
        || st.conv_fences.any(|f| !st.conv[f].is_empty())
    {
        return Decision::Unknown;
    }
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
    // Nothing out of r yet (it read nothing and nothing follows it).
    let nothing_out = rf[r].is_empty()
        && obs[r].is_empty()
        && sync[r].is_empty()
        && base[r].is_empty()
        && causality[r].is_empty()
        && fr[r].is_empty()
        && rf[..n].iter().all(|row| !row.has(r));
    if !nothing_out {
        return Decision::Unknown;
    }
    let (ms, same_loc) = (&st.ms[..n], &st.same_loc[..n]);
    // Reads-from, from-reads (8.9.7).
    rf[w].insert(r);
    fr[r] = co[w];
    // Observation (8.9.2): chains that end by r reading from w morally
    // strongly, directly or through the RMW whose write half is w.
    if ms[w].has(r) {
        obs[w].insert(r);
        let rmw_write = matches!(exec.events()[w].kind, EventKind::Write { rmw: true, .. });
        if let Some(x) = rmw_write
            .then(|| st.reads.find(|x| st.rmw[x].has(w)))
            .flatten()
        {
            for row in obs[..n].iter_mut() {
                if row.has(x) {
                    row.insert(r);
                }
            }
        }
    }
    // Synchronization (8.9.4 item 4) into r from release patterns morally
    // strong with it whose writes an acquire pattern ending at r observes.
    let mut synced = Set::<W>::EMPTY;
    for x in (st.rel_firsts & ms[r]).iter() {
        let writes = st.rel_writes[x];
        if x < n && !writes.is_empty() && union_rows(&st.acq_last, union_rows(obs, writes)).has(r) {
            sync[x].insert(r);
            synced.insert(x);
        }
    }
    // Base causality (8.9.5) into r: its program-order predecessors, the
    // events it synchronizes with, and what precedes them.
    let mut preds = Set::<W>::EMPTY;
    for x in 0..n {
        if st.po[x].has(r) {
            preds.insert(x);
        }
    }
    let mut through = synced;
    if let Some(last) = preds.last() {
        through.insert(last);
    }
    let mut into = preds | synced;
    for x in 0..n {
        if x != r && base[x].meets(&through) {
            into.insert(x);
        }
    }
    for x in into.iter() {
        base[x].insert(r);
    }
    // Causality (8.9.5) into r, a memory operation: P (proxy-preserved base
    // causality from memory operations, the direct cases; base causality from
    // any other event), and observation followed by P, from the writes of
    // r's location (observation stays on one location, 8.9.2).
    let pcol = into & (!st.thread_mem | st.direct[r]);
    for x in pcol.iter() {
        causality[x].insert(r);
    }
    let reads = pcol & st.reads;
    if !reads.is_empty() {
        for x in (st.writes & same_loc[r] & !pcol).iter() {
            if obs[x].meets(&reads) {
                causality[x].insert(r);
            }
        }
    }
    // Causality (8.10.6): r must not from-read a write that precedes it.
    let overlapping = fr[r] & same_loc[r];
    if overlapping.any(|x| causality[x].has(r)) {
        return Decision::Inconsistent;
    }
    // SC per location (8.10.5): a new cycle leaves r by a from-read to a
    // morally strong write of its location and comes back to r.
    let out = fr[r] & ms[r] & same_loc[r] & st.thread_mem;
    if !out.is_empty() {
        let loc_row = |a: usize| {
            let com = rf[a] | co[a] | fr[a];
            (st.po[a] | (ms[a] & com)) & same_loc[a] & st.thread_mem
        };
        let mut reached = out;
        let mut frontier = out;
        while !frontier.is_empty() {
            let mut next = Set::EMPTY;
            for a in frontier.iter() {
                next |= loc_row(a);
            }
            if next.has(r) {
                return Decision::Unknown;
            }
            frontier = next & !reached;
            reached |= next;
        }
    }
    Decision::Consistent
}
