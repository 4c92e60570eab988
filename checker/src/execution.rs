//! A candidate execution: events plus the runtime choices the model leaves
//! open: reads-from, the orientation of coherence between morally strong
//! writes, the Fence-SC order, and barrier synchronization.
//!
//! The model ([`crate::model`]) decides whether a candidate is consistent.
//! Explorers ([`crate::explore`]) build candidates. An explorer that grows
//! one graph in place (DPOR) changes it only through the mutations below
//! ([`Execution::push_event`], [`Execution::pop_event`],
//! [`Execution::set_rf`], [`Execution::order_co`], ...), which keep the
//! invariants stated on the fields; the reference enumerator, the completion
//! and the tests start from [`Execution::new`] and use the same mutations and
//! the setters of the existential choices ([`Execution::set_co`],
//! [`Execution::set_fence_sc`], [`Execution::set_barrier_sync`], ...). The
//! fields are private: everything else reads them through the accessors of
//! the same names.

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
    events: Vec<Event>,
    /// Events of each thread in program order, indexed by [`ThreadId`].
    // invariant: each event of a thread is in that thread's list exactly
    // once; initial writes are in none.
    threads: Vec<Vec<EventId>>,
    /// Placement of each thread in the scope tree.
    // invariant: `placements.len() == threads.len()`.
    placements: Vec<Placement>,
    /// For each read, the write it reads from (8.9.7 item 1); `None` for non-reads.
    // invariant: `rf.len() == events.len()`; `rf[r]` is `None` or a write to
    // the physical location of the read `r`.
    rf: Vec<Option<EventId>>,
    /// Coherence edges chosen by the explorer (8.9.6): at least one direction
    /// for every pair of morally strong writes to one location. The model adds
    /// initial writes first and the edges that causality forces (8.10.1), then
    /// closes transitively.
    // invariant: `co.len() == events.len()` (for a graph grown by
    // [`Execution::push_event`]); edges only between writes.
    co: BitMatrix,
    /// Fence-SC order (8.9.3): every `fence.sc` event in one total order; the
    /// model only uses the pairs that are morally strong.
    fence_sc: Vec<EventId>,
    /// How much of `fence_sc` is ordered: `None` (every candidate the
    /// explorers complete) means all of it, one total order; `Some(p)` means
    /// a partial order, used while searching for a total one
    /// ([`crate::explore::candidate::exists_fence_sc_order`]): each of the
    /// first `p` fences precedes every fence after it in the list, and the
    /// fences after the first `p` are mutually unordered.
    // invariant: `Some(p)` has `p <= fence_sc.len()`; `Some(len - 1)`,
    // `Some(len)` and `None` are the same order.
    fence_sc_prefix: Option<usize>,
    /// Barrier synchronization pairs `(X, Y)`: X synchronizes with Y (8.9.4 items 2 and 3).
    // invariant: X and Y are barrier events.
    barrier_sync: Vec<(EventId, EventId)>,
}

impl Execution {
    /// All events: the initial writes, then each thread's events in program
    /// order.
    #[inline]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Events of each thread in program order, indexed by [`ThreadId`].
    #[inline]
    pub fn threads(&self) -> &[Vec<EventId>] {
        &self.threads
    }

    /// Placement of each thread in the scope tree, indexed by [`ThreadId`].
    #[inline]
    pub fn placements(&self) -> &[Placement] {
        &self.placements
    }

    /// Reads-from, indexed by event (8.9.7 item 1): the write each read
    /// reads from; `None` for non-reads and reads not yet given a write.
    #[inline]
    pub fn rf(&self) -> &[Option<EventId>] {
        &self.rf
    }

    /// The coherence edges chosen by the explorer (8.9.6), not closed.
    #[inline]
    pub fn co(&self) -> &BitMatrix {
        &self.co
    }

    /// The `fence.sc` events in Fence-SC order (8.9.3), as far as
    /// [`Execution::fence_sc_prefix`] orders them.
    #[inline]
    pub fn fence_sc(&self) -> &[EventId] {
        &self.fence_sc
    }

    /// How much of [`Execution::fence_sc`] is ordered: `None` all of it.
    #[inline]
    pub fn fence_sc_prefix(&self) -> Option<usize> {
        self.fence_sc_prefix
    }

    /// Barrier synchronization pairs `(X, Y)`: X synchronizes with Y (8.9.4
    /// items 2 and 3).
    #[inline]
    pub fn barrier_sync(&self) -> &[(EventId, EventId)] {
        &self.barrier_sync
    }

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

    /// A graph of `events`, with `threads[t]` the events of thread `t` in
    /// program order and `placements[t]` its place in the scope tree; no
    /// read reads from anything, coherence, Fence-SC order and barrier
    /// synchronization are empty.
    pub fn new(events: Vec<Event>, threads: Vec<Vec<EventId>>, placements: Vec<Placement>) -> Self {
        let n = events.len();
        debug_assert_eq!(threads.len(), placements.len());
        debug_assert!(threads.iter().flatten().all(|e| e.index() < n));
        Execution {
            events,
            threads,
            placements,
            rf: vec![None; n],
            co: BitMatrix::new(n),
            fence_sc: Vec::new(),
            fence_sc_prefix: None,
            barrier_sync: Vec::new(),
        }
    }

    /// Mutable access to the event `e`, to set what the explorer decides
    /// late (values, barrier ids and counts) or what a test varies.
    // invariant kept by the caller: the event's kind (read, write, fence,
    // barrier), thread and location stay as they are, since `threads`, `rf`
    // and `co` depend on them.
    #[inline]
    pub(crate) fn event_mut(&mut self, e: EventId) -> &mut Event {
        &mut self.events[e.index()]
    }

    #[cfg(test)]
    /// Keeps the first `keep` events and drops the rest, with their places
    /// in the threads, coherence, Fence-SC order and barrier
    /// synchronization; a kept read of a dropped write reads nothing.
    pub(crate) fn truncate(&mut self, keep: usize) {
        self.events.truncate(keep);
        self.rf.truncate(keep);
        for w in self.rf.iter_mut() {
            if w.is_some_and(|w| w.index() >= keep) {
                *w = None;
            }
        }
        for th in &mut self.threads {
            th.retain(|e| e.index() < keep);
        }
        self.co.resize(keep);
        self.fence_sc.retain(|e| e.index() < keep);
        if let Some(p) = self.fence_sc_prefix {
            self.fence_sc_prefix = Some(p.min(self.fence_sc.len()));
        }
        self.barrier_sync
            .retain(|&(x, y)| x.index() < keep && y.index() < keep);
    }

    /// Replaces the coherence edges by `co`, a matrix over all events.
    #[inline]
    pub(crate) fn set_co(&mut self, co: BitMatrix) {
        debug_assert_eq!(co.len(), self.events.len());
        self.co = co;
    }

    /// Replaces the coherence edges by a copy of `co`, reusing the storage.
    #[inline]
    pub(crate) fn copy_co_from(&mut self, co: &BitMatrix) {
        debug_assert_eq!(co.len(), self.events.len());
        self.co.clone_from(co);
    }

    /// Sets the Fence-SC order to `order` (`fence.sc` events), all of it
    /// ordered.
    #[inline]
    pub(crate) fn set_fence_sc(&mut self, order: Vec<EventId>) {
        self.fence_sc = order;
        self.fence_sc_prefix = None;
    }

    /// Takes the Fence-SC order out, leaving none (no Fence-SC pair).
    #[inline]
    pub(crate) fn take_fence_sc(&mut self) -> Vec<EventId> {
        self.fence_sc_prefix = None;
        std::mem::take(&mut self.fence_sc)
    }

    /// Sets the Fence-SC order to a copy of `order`, reusing the storage,
    /// all of it ordered.
    #[inline]
    pub(crate) fn copy_fence_sc_from(&mut self, order: &[EventId]) {
        self.fence_sc.clear();
        self.fence_sc.extend_from_slice(order);
        self.fence_sc_prefix = None;
    }

    /// Sets how much of the Fence-SC order is ordered (see the field).
    #[inline]
    pub(crate) fn set_fence_sc_prefix(&mut self, prefix: Option<usize>) {
        debug_assert!(prefix.is_none_or(|p| p <= self.fence_sc.len()));
        self.fence_sc_prefix = prefix;
    }

    /// Moves the fence at position `from` of the Fence-SC order to position
    /// `to`, the fences between them shifting by one.
    #[inline]
    pub(crate) fn move_fence_sc(&mut self, from: usize, to: usize) {
        if from >= to {
            self.fence_sc[to..=from].rotate_right(1);
        } else {
            self.fence_sc[from..=to].rotate_left(1);
        }
    }

    /// Sets the barrier synchronization pairs.
    #[inline]
    pub(crate) fn set_barrier_sync(&mut self, pairs: Vec<(EventId, EventId)>) {
        self.barrier_sync = pairs;
    }

    /// Sets the barrier synchronization pairs to a copy of `pairs`, reusing
    /// the storage.
    #[inline]
    pub(crate) fn copy_barrier_sync_from(&mut self, pairs: &[(EventId, EventId)]) {
        self.barrier_sync.clear();
        self.barrier_sync.extend_from_slice(pairs);
    }

    /// Adds the barrier synchronization pair `(x, y)`.
    #[cfg(test)]
    pub(crate) fn add_barrier_sync(&mut self, x: EventId, y: EventId) {
        self.barrier_sync.push((x, y));
    }

    /// Forgets the Fence-SC order.
    #[inline]
    pub(crate) fn clear_fence_sc(&mut self) {
        self.fence_sc.clear();
        self.fence_sc_prefix = None;
    }

    /// Forgets the Fence-SC order and the barrier synchronization.
    #[inline]
    pub(crate) fn clear_orders(&mut self) {
        self.fence_sc.clear();
        self.fence_sc_prefix = None;
        self.barrier_sync.clear();
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
    pub fn set_rf(&mut self, r: EventId, w: Option<EventId>) {
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
    pub fn order_co(&mut self, a: EventId, b: EventId) {
        self.co.insert(a, b);
    }

    /// Removes the coherence edges between `a` and `b`, both ways.
    #[inline]
    pub(crate) fn unorder_co(&mut self, a: EventId, b: EventId) {
        self.co.remove(a, b);
        self.co.remove(b, a);
    }
}
