//! A waiting read served: the relations of the graph extended by a
//! reads-from edge into a read that has nothing after it ([`add_served_w`]).

// Rows are indexed by event, as in `decide.rs`.
#![allow(clippy::needless_range_loop)]

use super::column::{base_into, causality_into, loc_cycle_through, read_from, sync_into};
use super::decide::DerivedW;
use super::set::Set;
use super::statics::StaticsW;
use super::Decision;
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
    read_from(exec, st, (rf, obs, fr, co), w, r);
    // Synchronization (8.9.4 item 4) into r, base causality and causality
    // (8.9.5) into it.
    let synced = sync_into(st, obs, sync, st.rel_firsts & st.ms[r] & !Set::bit(r), r);
    let into = base_into(st, base, synced, r);
    causality_into(st, obs, causality, into, r);
    // Causality (8.10.6): r must not from-read a write that precedes it.
    let overlapping = fr[r] & st.same_loc[r];
    if overlapping.any(|x| causality[x].has(r)) {
        return Decision::Inconsistent;
    }
    if loc_cycle_through(st, (rf, co, fr), r) {
        return Decision::Unknown;
    }
    Decision::Consistent
}
