//! Fair executions of spin loops (8.6.1, 8.7): when a write is bound to
//! become visible to a read that keeps reading an older one, so that an
//! execution in which the read's thread spins forever on the older write is
//! not a fair hang.
//!
//! The liveness check of a complete graph (`explore/candidate.rs`) asks
//! [`releases`] against the completed coherence order; an explorer that
//! prunes a partial graph as soon as no completion of it can be fair (DPOR's
//! spin-assume, `explore/dpor/fairness.rs`) asks [`may_stay_on`] against the
//! coherence edges already in the graph, which only grow; and whether every
//! write of a location is the write half of an RMW, all morally strong with
//! each other ([`rmw_chain`]), is the code fact behind "a new RMW write comes
//! after every write of the graph" (8.9.6, 8.10.3). The explorer keeps only
//! its bookkeeping (which threads may still write what).

use super::{eventually_observable_across_proxies, morally_strong, morally_strong_events};
use crate::event::{Event, EventId};
use crate::execution::Execution;
use crate::relation::BitMatrix;
use ptxmc_frontend::ir::Placement;
use smallvec::SmallVec;

/// Whether `w2`, another write of the location of `w` (the write the spin
/// read `r` reads), is bound to become visible to `r` once it is
/// coherence-after `w`: it is morally strong with the read (8.7) or
/// eventually observable to it across proxies (8.6.1). The coherence part
/// is the caller's (the completed order, [`reads_fairly`], or the edges of a
/// partial graph, [`may_stay_on`]). A write of `r`'s own thread after `r`
/// does not count: it lies in the blocking iteration, which blocked only if
/// its writes are write-backs of failed CASes (`interp`: a retry loop), each
/// writing the value its read read and seen again by the next iteration.
pub(crate) fn releases(exec: &Execution, r: EventId, w: EventId, w2: EventId) -> bool {
    let e2 = exec.event(w2);
    let er = exec.event(r);
    let own_later = e2.thread.is_some() && e2.thread == er.thread && e2.po_index > er.po_index;
    w2 != w
        && !own_later
        && e2.is_write()
        && e2.loc().map(|l| l.phys) == exec.event(w).loc().map(|l| l.phys)
        && (morally_strong(exec, r, w2) || eventually_observable_across_proxies(exec, w2, r))
}

/// Whether the spin read `r` of a complete graph whose coherence order is
/// `co` may read its write forever in a fair execution: no write
/// coherence-after it is bound to become visible to `r` ([`releases`]). A
/// read without a writer passes.
pub(crate) fn reads_fairly(exec: &Execution, r: EventId, co: &BitMatrix) -> bool {
    let Some(w) = exec.rf().get(r.index()).copied().flatten() else {
        return true;
    };
    !exec
        .ids()
        .any(|w2| co.contains(w, w2) && releases(exec, r, w, w2))
}

/// Whether the read `r` (any event of a spin iteration; others pass) of a
/// partial graph may keep reading its write forever in some completion of
/// `exec` ([`may_stay_on`]). A read without a writer yet (committed to a
/// value) passes: it is asked again when the write that gives it its value
/// is added.
pub(crate) fn read_may_stay(exec: &Execution, r: EventId) -> bool {
    let Some(w) = exec.rf().get(r.index()).copied().flatten() else {
        return true;
    };
    may_stay_on(exec, r, w)
}

/// Whether the read `r` may keep reading `w` forever in some completion of
/// the partial graph `exec`: no write of the graph comes after `w` in every
/// coherence order extending it ([`coherence_after`]) and is bound to become
/// visible to `r` ([`releases`]). Coherence edges only grow as the graph
/// does, and [`releases`] depends on the two events alone, so a `false` holds
/// for every completion.
pub(crate) fn may_stay_on(exec: &Execution, r: EventId, w: EventId) -> bool {
    let after = coherence_after(exec, w);
    !exec.ids().any(|w2| {
        after.as_ref().is_none_or(|a| {
            a.get(w2.index() / 64)
                .is_some_and(|word| word >> (w2.index() % 64) & 1 == 1)
        }) && !exec.event(w2).is_init()
            && releases(exec, r, w, w2)
    })
}

/// The writes that come after `w` in every coherence order extending the
/// graph, as a set of event indices: a chain of the graph's coherence edges
/// leads from `w` to them. `None` when `w` is the initial write: then every
/// other write of its location (8.9.6).
fn coherence_after(exec: &Execution, w: EventId) -> Option<SmallVec<[u64; 4]>> {
    if exec.event(w).is_init() {
        return None;
    }
    let words = exec.len().div_ceil(64);
    let mut seen: SmallVec<[u64; 4]> = smallvec::smallvec![0; words];
    let mut stack: SmallVec<[EventId; 16]> = smallvec::smallvec![w];
    while let Some(x) = stack.pop() {
        for y in exec.co().successors(x) {
            let (k, bit) = (y.index() / 64, 1u64 << (y.index() % 64));
            if let Some(word) = seen.get_mut(k) {
                if *word & bit == 0 {
                    *word |= bit;
                    stack.push(y);
                }
            }
        }
    }
    Some(seen)
}

/// Whether the writes `kinds` (every write the program makes to one
/// location, as the threads' code gives them, without values) form an RMW
/// chain: each is the write half of an RMW and every two are morally strong
/// (8.7). Then coherence is total on them (8.9.6) and RMW atomicity (8.10.3)
/// puts each right after the write its read reads, so a new one comes after
/// every write of a graph in which each read of them has its writer.
pub(crate) fn rmw_chain(kinds: &[&Event], placements: &[Placement]) -> bool {
    kinds.iter().all(|a| {
        a.is_rmw()
            && kinds
                .iter()
                .all(|b| morally_strong_events(a, b, placements))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::*;

    /// A spin read of `x` and a write of `x` by another thread of its CTA:
    /// whether the write releases the read depends on moral strength (8.7),
    /// and on coherence: only a write coherence-after the read's writer.
    #[test]
    fn a_morally_strong_later_write_releases_a_spin_read() {
        for (strength, releases_it) in [(RLX_GPU, true), (WEAK, false)] {
            let mut b = ExecBuilder::new(1);
            let (t0, t1) = (b.thread(cta(0)), b.thread(cta(0)));
            let r = b.ld(t0, b.loc(0), RLX_GPU);
            let w = b.st(t1, b.loc(0), 1, strength);
            let g = b.build();
            let init = g.event(r).loc().map(|l| EventId::new(l.phys.index()));
            let init = init.expect("a location");
            // Reading the initial write, the write is coherence-after it.
            assert_eq!(read_may_stay(&g, r), !releases_it, "{strength:?}");
            assert_eq!(releases(&g, r, init, w), releases_it, "{strength:?}");
            // A write never releases a read from itself.
            assert!(!releases(&g, r, w, w));
        }
    }

    /// Reading a write with no coherence edge to a later strong one (a weak
    /// write is not ordered with it, 8.9.6), the read may stay on it: the
    /// other may come first. Once the edge is in the graph it may not, and
    /// the complete graph's order says the same.
    #[test]
    fn coherence_edges_decide_whether_a_read_may_stay() {
        for ordered in [false, true] {
            let mut b = ExecBuilder::new(1);
            let (t0, t1, t2) = (b.thread(cta(0)), b.thread(cta(0)), b.thread(cta(0)));
            let r = b.ld(t0, b.loc(0), RLX_GPU);
            let w1 = b.st(t1, b.loc(0), 1, WEAK);
            let w2 = b.st(t2, b.loc(0), 2, RLX_GPU);
            b.rf(r, w1);
            if ordered {
                b.co(w1, w2);
            }
            let g = b.build();
            assert_eq!(read_may_stay(&g, r), !ordered);
            assert_eq!(reads_fairly(&g, r, g.co()), !ordered);
        }
    }

    /// RMW writes pairwise morally strong form a chain; a plain write, or a
    /// weak RMW, breaks it.
    #[test]
    fn rmw_chains_need_strong_rmws_only() {
        let mut b = ExecBuilder::new(1);
        let (t0, t1, t2) = (b.thread(cta(0)), b.thread(cta(0)), b.thread(cta(0)));
        let (_, a) = b.rmw(t0, b.loc(0), RLX_GPU);
        let (_, c) = b.rmw(t1, b.loc(0), RLX_GPU);
        let s = b.st(t1, b.loc(0), 3, RLX_GPU);
        // (Another thread's: a thread's own accesses are morally strong.)
        let (_, weak) = b.rmw(t2, b.loc(0), WEAK);
        let g = b.build();
        let ev = |e: EventId| g.event(e);
        assert!(rmw_chain(&[ev(a), ev(c)], g.placements()));
        assert!(!rmw_chain(&[ev(a), ev(c), ev(s)], g.placements()));
        assert!(!rmw_chain(&[ev(a), ev(weak)], g.placements()));
    }
}
