//! A candidate execution: events plus the runtime choices the model leaves
//! open: reads-from, the orientation of coherence between morally strong
//! writes, the Fence-SC order, and barrier synchronization.
//!
//! The model ([`crate::model`]) decides whether a candidate is consistent.
//! Explorers ([`crate::explore`]) build candidates.

use crate::event::{Event, EventId};
use crate::relation::BitMatrix;
use ptxmc_frontend::ir::{Placement, ThreadId};

/// A candidate execution graph.
#[derive(Clone, Debug)]
pub struct Execution {
    /// All events. Initial writes come first (one per physical location, in
    /// `PhysId` order), then each thread's events in program order.
    pub events: Vec<Event>,
    /// Events of each thread in program order, indexed by [`ThreadId`].
    pub threads: Vec<Vec<EventId>>,
    /// Placement of each thread in the scope tree.
    pub placements: Vec<Placement>,
    /// For each read, the write it reads from (8.9.7 item 1); `None` for non-reads.
    pub rf: Vec<Option<EventId>>,
    /// Coherence edges chosen by the explorer (8.9.6): at least one direction
    /// for every pair of morally strong writes to one location. The model adds
    /// initial writes first and the edges that causality forces (8.10.1), then
    /// closes transitively.
    pub co: BitMatrix,
    /// Fence-SC order (8.9.3): every `fence.sc` event in one total order; the
    /// model only uses the pairs that are morally strong.
    pub fence_sc: Vec<EventId>,
    /// How much of `fence_sc` is ordered: `None` (every candidate the
    /// explorers complete) means all of it, one total order; `Some(p)` means
    /// a partial order, used while searching for a total one
    /// ([`crate::explore::candidate::exists_fence_sc_order`]): each of the
    /// first `p` fences precedes every fence after it in the list, and the
    /// fences after the first `p` are mutually unordered.
    // invariant: `Some(p)` has `p <= fence_sc.len()`; `Some(len - 1)`,
    // `Some(len)` and `None` are the same order.
    pub fence_sc_prefix: Option<usize>,
    /// Barrier synchronization pairs `(X, Y)`: X synchronizes with Y (8.9.4 items 2 and 3).
    pub barrier_sync: Vec<(EventId, EventId)>,
}

impl Execution {
    /// The number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the execution has no events.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The event with id `e`.
    pub fn event(&self, e: EventId) -> &Event {
        &self.events[e.index()]
    }

    /// Placement of the thread executing `e`; `None` for initial writes.
    pub fn placement(&self, e: EventId) -> Option<&Placement> {
        self.event(e)
            .thread
            .map(|t: ThreadId| &self.placements[t.index()])
    }

    /// The pairs `(X, Y)` of `fence.sc` events with X before Y in Fence-SC
    /// order (8.9.3), as far as `fence_sc_prefix` orders them; not closed
    /// under anything but already transitive.
    pub fn fence_sc_pairs(&self) -> impl Iterator<Item = (EventId, EventId)> + '_ {
        let order = &self.fence_sc;
        let p = self.fence_sc_prefix.unwrap_or(order.len()).min(order.len());
        order[..p]
            .iter()
            .enumerate()
            .flat_map(move |(i, &x)| order[i + 1..].iter().map(move |&y| (x, y)))
    }

    /// Ids of all events.
    pub fn ids(&self) -> impl Iterator<Item = EventId> {
        (0..self.events.len()).map(EventId::new)
    }
}
