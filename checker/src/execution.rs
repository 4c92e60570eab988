//! A candidate execution: events plus the runtime choices the model leaves
//! open: reads-from, the orientation of coherence between morally strong
//! writes, the Fence-SC order, and barrier synchronization.
//!
//! The model ([`crate::model`]) decides whether a candidate is consistent.
//! Explorers ([`crate::explore`]) build candidates. An explorer that grows
//! one graph in place (DPOR) changes it only through the mutations below
//! ([`Execution::push_event`], [`Execution::pop_event`],
//! [`Execution::set_rf`], [`Execution::order_co`], ...), which keep the
//! invariants stated on the fields; the reference enumerator and the
//! completion build whole candidates field by field.

use crate::event::{Event, EventId, EventKind};
use crate::relation::BitMatrix;
use ptxmc_frontend::ir::{Placement, ThreadId};

/// A candidate execution graph.
#[derive(Clone, Debug)]
pub struct Execution {
    /// All events. Initial writes come first (one per physical location, in
    /// `PhysId` order), then each thread's events in program order.
    // invariant: every id in `threads`, `rf`, `co`, `fence_sc` and
    // `barrier_sync` is below `events.len()`.
    pub events: Vec<Event>,
    /// Events of each thread in program order, indexed by [`ThreadId`].
    // invariant: each event of a thread is in that thread's list exactly
    // once; initial writes are in none.
    pub threads: Vec<Vec<EventId>>,
    /// Placement of each thread in the scope tree.
    pub placements: Vec<Placement>,
    /// For each read, the write it reads from (8.9.7 item 1); `None` for non-reads.
    // invariant: `rf.len() == events.len()`; `rf[r]` is `None` or a write to
    // the physical location of the read `r`.
    pub rf: Vec<Option<EventId>>,
    /// Coherence edges chosen by the explorer (8.9.6): at least one direction
    /// for every pair of morally strong writes to one location. The model adds
    /// initial writes first and the edges that causality forces (8.10.1), then
    /// closes transitively.
    // invariant: `co.len() == events.len()` (for a graph grown by
    // [`Execution::push_event`]); edges only between writes.
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

    /// Appends `ev` as the last event of thread `t`, reading from nothing
    /// and unordered in coherence; returns its id.
    pub(crate) fn push_event(&mut self, t: usize, ev: Event) -> EventId {
        let id = EventId::new(self.events.len());
        self.events.push(ev);
        self.rf.push(None);
        self.co.resize(id.index() + 1);
        self.threads[t].push(id);
        id
    }

    /// Removes the last event, which must be thread `t`'s last, with its
    /// reads-from and coherence edges; returns it.
    pub(crate) fn pop_event(&mut self, t: usize) -> Option<Event> {
        let ev = self.events.pop()?;
        let n = self.events.len();
        self.rf.pop();
        debug_assert_eq!(self.threads[t].last().map(|e| e.index()), Some(n));
        self.threads[t].pop();
        self.co.resize(n);
        Some(ev)
    }

    /// Makes the read `r` read from `w` (8.9.7 item 1), or from nothing.
    #[inline]
    pub(crate) fn set_rf(&mut self, r: EventId, w: Option<EventId>) {
        self.rf[r.index()] = w;
    }

    /// Sets the value the read `r` returns, and whether it is the read half
    /// of an RMW (8.9.1); no change for another event.
    pub(crate) fn set_read_value(&mut self, r: EventId, value: i64, rmw_read: bool) {
        if let EventKind::Read { value: v, rmw, .. } = &mut self.events[r.index()].kind {
            *v = value;
            *rmw = rmw_read;
        }
    }

    /// Orders the write `a` before the write `b` in coherence (8.9.6).
    #[inline]
    pub(crate) fn order_co(&mut self, a: EventId, b: EventId) {
        self.co.insert(a, b);
    }

    /// Removes the coherence edges between `a` and `b`, both ways.
    #[inline]
    pub(crate) fn unorder_co(&mut self, a: EventId, b: EventId) {
        self.co.remove(a, b);
        self.co.remove(b, a);
    }
}
