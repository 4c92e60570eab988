//! The PTX memory consistency model (PTX ISA 9.4, chapter 8).
//!
//! (stub: being written)

use crate::event::EventId;
use crate::execution::Execution;
use crate::relation::BitMatrix;

/// The axioms of 8.10.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Axiom {
    /// 8.10.1
    Coherence,
    /// 8.10.2
    FenceSc,
    /// 8.10.3
    Atomicity,
    /// 8.10.4
    NoThinAir,
    /// 8.10.5
    ScPerLocation,
    /// 8.10.6
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

/// Derived relations of a consistent execution.
#[derive(Clone, Debug)]
pub struct Relations {
    /// Final coherence order (8.9.6): initial writes first, explorer's edges,
    /// causality-forced edges (8.10.1), transitively closed.
    pub co: BitMatrix,
}

/// Morally strong (8.7).
pub fn morally_strong(_exec: &Execution, _a: EventId, _b: EventId) -> bool {
    unimplemented!("stub")
}

/// Checks every axiom of 8.10 on a candidate execution.
pub fn check(_exec: &Execution) -> Result<Relations, Violation> {
    unimplemented!("stub")
}
