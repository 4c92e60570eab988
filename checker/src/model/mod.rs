//! The PTX memory consistency model (PTX ISA 9.4, chapter 8).
//!
//! [`check`] decides whether a candidate [`Execution`] is consistent: it
//! derives the orders of 8.9 one concept per module, in dependency order,
//! then checks the axioms of 8.10 (`axioms.rs`):
//!
//! - program order and RMW pairs (8.9.1): `program_order.rs`;
//! - morally strong (8.7): `morally_strong.rs`;
//! - release and acquire patterns (8.8): `patterns.rs`;
//! - observation order (8.9.2): `observation.rs`;
//! - synchronizes-with (8.9.3, 8.9.4): `synchronizes.rs`;
//! - base, proxy-preserved base, and causality order (8.9.5): `causality.rs`;
//! - coherence order (8.9.6, with 8.10.1 as its forcing rule): `coherence.rs`;
//! - communication order (8.9.7): `communication.rs`;
//! - witness paths for [`Violation`]s: `witness.rs`;
//! - fair spinning (8.6.1, 8.7: when a write is bound to become visible to a
//!   spin read): `fairness.rs`.
//!
//! Explorers that grow a graph event by event meet the model at one seam,
//! the [`Model`] trait (`consistency.rs`), which the chapter-8 model
//! implements ([`Chapter8`], `chapter8.rs`) on the word-level rows of
//! `fast/`; the rules that rule a search's children out at once live there
//! and in `positions.rs` (a new write's coherence positions), each citing
//! the axiom of 8.10 it is a case of.
//!
//! How ptxmc reads the open points of the chapter is in `docs/model-notes.md`.
//! Asynchronous operations (8.9.1.1) are ordered by `Event::po_before`
//! (`program_order.rs`); release forms 4-5 and acquire form 4 of 8.8 are in
//! `patterns.rs`; strong accesses across proxies (8.6.1) in `strong_proxy.rs`.
//! The model itself sees only complete overlaps: partially overlapping
//! accesses are split into byte granules before exploration, and mixed-size
//! data races (8.7.2) are found afterwards (`crate::sizes`).

mod axioms;
mod causality;
mod chapter8;
pub(crate) mod coherence;
mod communication;
pub(crate) mod consistency;
pub(crate) mod fairness;
pub(crate) mod fast;
pub(crate) mod fence_sc;
mod morally_strong;
mod observation;
mod patterns;
mod positions;
mod program_order;
pub mod reading;
mod strong_proxy;
mod synchronizes;
#[cfg(test)]
pub(crate) mod testutil;
pub(crate) mod waits;
mod witness;

#[cfg(test)]
mod chapter8_tests;
#[cfg(test)]
mod tests;

use crate::event::EventId;
use crate::execution::Execution;
use crate::relation::BitMatrix;

pub(crate) use chapter8::{may_read_own_later_write, Chapter8};
pub(crate) use consistency::Model;
pub use morally_strong::morally_strong;
pub(crate) use morally_strong::morally_strong_events;
pub use strong_proxy::eventually_observable_across_proxies;

use causality::Causality;
use coherence::Coherence;
use observation::Observation;
use program_order::ProgramOrder;
use synchronizes::Synchronization;

/// The axioms of 8.10. Each names what the witness events of a
/// [`Violation`] are.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Axiom {
    /// 8.10.1. Witness: a cycle of coherence (initial writes first, the
    /// explorer's edges, and causality between overlapping writes, each
    /// causality edge spelled out as its path).
    Coherence,
    /// 8.10.2. Witness: a cycle `F2, ..., F1` that is a causality path from
    /// F2 to F1, closed by F1 preceding F2 in Fence-SC order.
    FenceSc,
    /// 8.10.3. Witness `[A_read, W, A_write]` for an RMW A and a morally
    /// strong write W that comes between them (A's read from-reads W, W is
    /// coherence-before A's write); `[W', R, W]` for single-copy atomicity.
    Atomicity,
    /// 8.10.4. Witness: a cycle of reads-from and dependency edges.
    NoThinAir,
    /// 8.10.5. Witness: a cycle of program order and communication order
    /// inside a set of pairwise morally strong operations on one location.
    ScPerLocation,
    /// 8.10.6. Witness: a cycle `R, W, ..., R` (R from-reads W, then the
    /// causality path from W to R), or `R, ..., W` (the causality path from
    /// R to the write W it reads from, closed by reads-from).
    Causality,
}

/// A violated axiom and the events that witness it (a cycle, or a pair).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Violation {
    /// Which axiom.
    pub axiom: Axiom,
    /// Witness events (for cycles: e0 -> e1 -> ... -> e0).
    pub events: Vec<EventId>,
}

/// Derived relations of a consistent execution (all `n x n` over its events).
#[derive(Clone, Debug)]
pub struct Relations {
    /// Final coherence order (8.9.6): initial writes first, explorer's edges,
    /// causality-forced edges (8.10.1), transitively closed.
    pub co: BitMatrix,
    /// Reads-from `W -> R` (8.9.7 item 1).
    pub rf: BitMatrix,
    /// From-reads `rf^-1 ; co` (8.9.7 item 3).
    pub fr: BitMatrix,
    /// Morally strong pairs (8.7); symmetric.
    pub morally_strong: BitMatrix,
    /// Observation order (8.9.2).
    pub observation: BitMatrix,
    /// Synchronizes-with (8.9.4): from the first operation of a release
    /// pattern to the last one of an acquire pattern, Fence-SC and barriers.
    pub sync: BitMatrix,
    /// Base causality order (8.9.5).
    pub base_causality: BitMatrix,
    /// Causality order (8.9.5): proxy-preserved base causality between
    /// memory operations (base causality for other pairs), optionally
    /// preceded by observation.
    pub causality: BitMatrix,
}

/// Every order of 8.9 that does not depend on coherence.
pub(crate) struct Orders<'a> {
    /// The candidate execution.
    pub exec: &'a Execution,
    /// Program order and RMW pairs (8.9.1).
    pub po: ProgramOrder,
    /// Morally strong (8.7), symmetric.
    pub ms: BitMatrix,
    /// Reads-from `W -> R` (8.9.7 item 1).
    pub rf: BitMatrix,
    /// Observation order (8.9.2).
    pub obs: Observation,
    /// Synchronizes-with (8.9.4).
    pub sync: Synchronization,
    /// Base, proxy-preserved base, and causality order (8.9.5).
    pub causality: Causality,
}

impl<'a> Orders<'a> {
    /// Derives the orders in dependency order: program order, morally
    /// strong, patterns, observation, synchronization, causality.
    pub fn new(exec: &'a Execution) -> Self {
        let po = ProgramOrder::new(exec);
        let ms = morally_strong::morally_strong_matrix(exec);
        let rf = communication::reads_from(exec);
        let obs = Observation::new(&ms, &rf, &po.rmw);
        let releases = patterns::release_patterns(exec);
        let acquires = patterns::acquire_patterns(exec);
        let sync = Synchronization::new(exec, &ms, &obs, &releases, &acquires);
        let causality = Causality::new(exec, &po, &sync, &obs);
        Self {
            exec,
            po,
            ms,
            rf,
            obs,
            sync,
            causality,
        }
    }
}

/// Coherence and from-reads, once coherence exists.
pub(crate) struct Communication {
    /// Coherence order (8.9.6).
    pub co: Coherence,
    /// From-reads (8.9.7 item 3).
    pub fr: BitMatrix,
}

/// Checks every axiom of 8.10 on a candidate execution, in the order of the
/// chapter (Coherence, Fence-SC, Atomicity, No-Thin-Air, SC per location,
/// Causality, then Coherence for a write that precedes itself in causality
/// order), and returns the first violation with its witness.
///
/// Executions of at most 2,048 events are decided by the word
/// level procedure of `fast/` first; the full computation below runs for
/// larger ones, to build the witness of a violation, and when the fast path
/// cannot decide.
pub fn check(exec: &Execution) -> Result<Relations, Violation> {
    let decided = fast::with_statics(exec, |st, d, known| {
        let decision = if known {
            fast::Decision::Consistent
        } else {
            fast::decide(exec, st, d)
        };
        let rel =
            (decision == fast::Decision::Consistent).then(|| fast_relations(exec.len(), st, d));
        (decision, rel)
    });
    match decided {
        Some((fast::Decision::Consistent, Some(rel))) => {
            #[cfg(debug_assertions)]
            {
                let full = check_full(exec);
                assert!(full.is_ok(), "fast path: consistent, full check: {full:?}");
                assert_relations_eq(&rel, &full.unwrap());
            }
            Ok(rel)
        }
        Some((fast::Decision::Inconsistent, _)) => {
            let full = check_full(exec);
            debug_assert!(
                full.is_err(),
                "fast path: inconsistent, full check: consistent"
            );
            full
        }
        _ => check_full(exec),
    }
}

/// Whether `exec` satisfies every axiom of 8.10 ([`check`] without the
/// relations or the witness).
pub fn consistent(exec: &Execution) -> bool {
    match fast::with_statics(exec, |st, d, known| known || consistent_with(exec, st, d)) {
        Some(ok) => ok,
        None => check_full(exec).is_ok(),
    }
}

/// [`consistent`] for an execution whose events are described by `st` (an
/// explorer may keep `st` up to date as it adds events).
/// `d` is scratch space.
pub(crate) fn consistent_with(exec: &Execution, st: &fast::Statics, d: &mut fast::Derived) -> bool {
    let ok = match fast::decide(exec, st, d) {
        fast::Decision::Consistent => true,
        fast::Decision::Inconsistent => false,
        fast::Decision::Unknown => return check_full(exec).is_ok(),
    };
    debug_assert_eq!(ok, check_full(exec).is_ok(), "fast path disagrees");
    ok
}

/// The [`Relations`] of a consistent execution decided by the fast path.
fn fast_relations(n: usize, st: &fast::Statics, d: &fast::Derived) -> Relations {
    fast::relations(n, st, d)
}

#[cfg(debug_assertions)]
fn assert_relations_eq(a: &Relations, b: &Relations) {
    assert_eq!(a.co, b.co, "co");
    assert_eq!(a.rf, b.rf, "rf");
    assert_eq!(a.fr, b.fr, "fr");
    assert_eq!(a.morally_strong, b.morally_strong, "ms");
    assert_eq!(a.observation, b.observation, "observation");
    assert_eq!(a.sync, b.sync, "sync");
    assert_eq!(a.base_causality, b.base_causality, "base causality");
    assert_eq!(a.causality, b.causality, "causality");
}

/// [`check`] by the full computation, one module per concept, with witnesses.
///
/// A check of a large graph gives up at the deadline of the check it is part
/// of (`interrupt.rs`): the graph is then reported as violating Coherence
/// with no witness events, an answer that never becomes a verdict.
pub(crate) fn check_full(exec: &Execution) -> Result<Relations, Violation> {
    crate::interrupt::run(exec.len(), || check_full_here(exec)).unwrap_or_else(|| {
        Err(Violation {
            axiom: Axiom::Coherence,
            events: Vec::new(),
        })
    })
}

/// [`check_full`] to the end.
fn check_full_here(exec: &Execution) -> Result<Relations, Violation> {
    let orders = Orders::new(exec);
    let co = Coherence::new(exec, &orders.causality.order)
        .map_err(|cycle| axioms::coherence_violation(&orders, &cycle))?;
    let fr = communication::from_reads(exec, &co.order);
    let com = Communication { co, fr };
    axioms::fence_sc(&orders)?;
    axioms::atomicity(&orders, &com)?;
    axioms::no_thin_air(&orders)?;
    axioms::sc_per_location(&orders, &com)?;
    axioms::causality(&orders, &com)?;
    axioms::coherence_self_loop(&orders)?;
    let Orders {
        ms,
        rf,
        obs,
        sync,
        causality,
        ..
    } = orders;
    Ok(Relations {
        co: com.co.order,
        rf,
        fr: com.fr,
        morally_strong: ms,
        observation: obs.order,
        sync: sync.order,
        base_causality: causality.base,
        causality: causality.order,
    })
}
