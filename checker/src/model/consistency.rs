//! The seam between the model and the explorers: what an explorer that
//! grows one graph an event at a time asks of the model ([`Model`]).
//!
//! The questions are the explorer's, not the axioms': is the graph still
//! consistent after this read or this write, which writes may this read
//! read, where may this write go in coherence, and, for a complete graph,
//! which axiom fails and why. Every rule that answers them (the axioms of
//! 8.10 and the shortcuts that follow from them) lives in the model; the
//! explorer only searches. The chapter-8 model ([`super::Chapter8`])
//! implements it on the word-level rows of `fast/`, and falls back to the
//! per-concept modules (the reference, which builds witnesses) where the
//! rows cannot decide. A model variant implements the same trait; an
//! explorer names the implementor it runs with once (a type), so every call
//! is statically dispatched.

pub(crate) use super::positions::Positions;
use super::{Relations, Violation};
use crate::event::{Event, EventId};
use crate::execution::Execution;
use smallvec::SmallVec;

pub(crate) use super::positions::Writes;

/// What an incremental check found.
pub(crate) use super::fast::Decision;

/// A model of consistency that follows a graph as an explorer grows and
/// shrinks it (events pushed at the end of their thread and popped again on
/// backtrack) and answers the explorer's questions about it.
///
/// Call protocol: after [`Execution::push_event`] call [`Model::push`],
/// after [`Execution::pop_event`] call [`Model::pop`]; after any other
/// change of the graph (reads-from, coherence) call [`Model::forget`] or
/// decide it again. The relations of a graph found consistent are kept
/// ([`Model::known`]) until the next change; a search node saves them
/// ([`Model::save`]) for its children and gives the frame back
/// ([`Model::recycle`]).
pub(crate) trait Model: Clone + Send {
    /// The relations of a consistent graph, saved at a node.
    type Frame: Send + Sync;

    /// The model of the graph `g` as it is (every event of it pushed).
    fn new(g: &Execution) -> Self;

    /// Follows the event `e`, just added to `g` as the last event of
    /// thread `t` ([`Execution::push_event`]).
    fn push(&mut self, g: &Execution, t: usize, e: EventId);

    /// Follows the removal of every event from number `n` on.
    fn pop(&mut self, n: usize);

    /// Whether the model follows every event of `g` incrementally (when it
    /// does not, each question is answered from scratch).
    fn follows(&self, g: &Execution) -> bool;

    /// Whether the relations of the graph, found consistent with no
    /// Fence-SC pair and no barrier synchronization, are at hand.
    fn known(&self) -> bool;

    /// Whether the graph is known consistent, with no barrier
    /// synchronization, under some Fence-SC order (8.9.3): [`Model::known`]
    /// and, with two `fence.sc` or more, consistent under the order the
    /// model keeps (a new `fence.sc` goes last; a search,
    /// [`Model::exists_fence_sc_order`], puts the order it found). The
    /// relations under that order are extended incrementally next to those
    /// with no pair ([`Model::decide_read`], [`Model::decide_write`], fences
    /// at [`Model::push`]); the rules that rule children out read only the
    /// latter (a pair adds edges another order would not give).
    fn ordered(&self) -> bool;

    /// Forgets the relations (the graph changed).
    fn forget(&mut self);

    /// Whether `g`, changed anywhere (a write: new coherence and reads-from
    /// edges), satisfies every axiom of 8.10 with no Fence-SC pair and no
    /// barrier synchronization; keeps the relations when it does and the
    /// fast path decided ([`Model::known`]).
    fn decide(&mut self, g: &Execution) -> bool;

    /// Whether `g`, whose last event is the read `r`, is consistent, from
    /// `parent`, the relations of `g` without `r` (found consistent): only
    /// what the read can break is checked. `Unknown` when it cannot tell
    /// (then the graph is checked before it is extended), and when the
    /// graph, consistent with no Fence-SC pair, is not known consistent
    /// under the model's order ([`Model::ordered`]).
    fn decide_read(&mut self, g: &Execution, parent: &Self::Frame, r: EventId) -> Decision;

    /// Whether `g`, whose last event is the write `w`, read by no read, is
    /// consistent, from the relations of `g` without `w` (found consistent):
    /// at hand, or `parent` when given. Only what the write can break is
    /// checked (8.10.1, 8.10.3, 8.10.5 on its location, 8.10.6); `Unknown`
    /// when it cannot tell. Keeps the relations when consistent.
    fn decide_write(&mut self, g: &Execution, parent: Option<&Self::Frame>, w: EventId)
        -> Decision;

    /// Whether `g`, in which the waiting read `r` (the last event of its
    /// thread, reading nothing) was just given its writer `g.rf[r]`, is
    /// consistent, from the relations at hand of `g` before (found
    /// consistent, [`Model::known`]): only what the new edge can break is
    /// checked. `Unknown` when it cannot tell, or, as for
    /// [`Model::decide_read`], when the graph is not known consistent under
    /// the model's Fence-SC order. Keeps the relations when consistent.
    fn decide_served(&mut self, g: &Execution, r: EventId) -> Decision;

    /// Whether `g` satisfies every axiom of 8.10 with its Fence-SC order
    /// (as far as [`Execution::fence_sc_prefix`] orders it) and barrier
    /// synchronization; keeps no relations.
    fn consistent(&mut self, g: &Execution) -> bool;

    /// Whether some Fence-SC order (8.9.3) makes `g` satisfy every axiom of
    /// 8.10 with its barrier synchronization; keeps no relations. The order
    /// found is left in `g.fence_sc` (the caller clears it) and in `hint`,
    /// which on entry holds an order found for an earlier graph, tried
    /// first ([`super::fence_sc`]).
    fn exists_fence_sc_order(&mut self, g: &mut Execution, hint: &mut Vec<EventId>) -> bool;

    /// The relations at hand (first `n` rows), for a node's children.
    fn save(&mut self, n: usize) -> Self::Frame;

    /// Puts back the relations `f` saved for a graph of `n` events, which
    /// the graph has again.
    fn restore(&mut self, f: &Self::Frame, n: usize);

    /// Gives back a frame of [`Model::save`] for reuse.
    fn recycle(&mut self, f: Self::Frame);

    /// The writes the read `r`, the last event of `g`, may read: of the
    /// explorer's `choices`, those that are no write to `r`'s location
    /// (`write` gives the write and its value of a choice that is one) and
    /// the writes that no axiom rules out at once, in their order.
    /// `rmw_for(v)`: whether `r` is the read half of an RMW when it reads
    /// `v`. `private`: only `r`'s thread writes the location, through `r`'s
    /// address and the generic proxy. `parent`: the relations of `g` without
    /// `r`, if known.
    #[allow(clippy::too_many_arguments)]
    fn readable<S>(
        &mut self,
        g: &Execution,
        r: EventId,
        choices: &mut SmallVec<[S; 16]>,
        write: impl Fn(&S) -> Option<(EventId, i64)>,
        rmw_for: &dyn Fn(i64) -> bool,
        private: bool,
        parent: Option<&Self::Frame>,
    );

    /// The writes morally strong with the write `w` (8.7) to its location,
    /// initial writes left out, in id order: the writes a new write is
    /// ordered with in coherence (8.9.6).
    fn rivals(&self, g: &Execution, w: EventId) -> Writes;

    /// Whether adding the fence `f` at the end of its thread (the last event
    /// of `g`, with no event after it anywhere), to a graph found
    /// consistent, keeps it consistent (then the explorer need not check it
    /// again).
    fn fence_keeps_consistent(&self, g: &Execution, f: EventId) -> bool;

    /// Whether the plain read `r`, the last event of `g`, of a location
    /// private to its thread (`private`, as for [`Model::readable`]),
    /// reading a write [`Model::readable`] kept, keeps a graph found
    /// consistent without it consistent.
    fn private_read_keeps_consistent(&self, g: &Execution, r: EventId, private: bool) -> bool;

    /// Whether the write `w`, the last event of `g`, of a location private
    /// to its thread (`private`), ordered after the thread's earlier writes
    /// `own_earlier` ([`Model::own_earlier_writes`]) and with no other
    /// `rivals`, and read by nothing, keeps a graph found consistent without
    /// it consistent.
    fn private_write_keeps_consistent(
        &self,
        g: &Execution,
        w: EventId,
        own_earlier: &[EventId],
        rivals: &[EventId],
        private: bool,
    ) -> bool;

    /// The rivals of the new write `w` of thread `t` (its last event) that
    /// precede it whatever its position and that the explorer orders before
    /// it at once, taken out of `rivals` (8.9.5, 8.10.1; see
    /// [`super::positions::own_earlier_writes`]).
    fn own_earlier_writes(
        &self,
        g: &Execution,
        t: usize,
        w: EventId,
        rivals: &mut Writes,
        unordered_thread: bool,
    ) -> Writes;

    /// The coherence positions the write `w`, the last event of `g`, may
    /// take among its `rivals` (at most 63), without those an axiom rules
    /// out at once (8.10.1, 8.10.3, 8.10.5); `forced`: the writes that
    /// precede it in causality ([`Model::causal_writes_before`]).
    fn coherence_positions(
        &self,
        g: &Execution,
        w: EventId,
        rivals: &[EventId],
        forced: u64,
    ) -> Positions;

    /// The writes of `g` that precede the write `ev`, the next event of
    /// thread `t` (not yet added), in causality order as far as the
    /// relations at hand show, as a bit per event: each comes before `ev` in
    /// coherence (8.10.1). `unordered_thread`: the thread has asynchronous
    /// operations, whose events are not in program order.
    fn causal_writes_before(
        &self,
        g: &Execution,
        t: usize,
        ev: &Event,
        unordered_thread: bool,
    ) -> u64;

    /// The coherence-last write to the location of event `p` (8.9.6) in the
    /// relations at hand: `Ok(None)` when there is none, `Err(())` when
    /// several writes are maximal.
    fn coherence_last(&self, p: usize) -> Result<Option<usize>, ()>;

    /// The events the event `x` precedes in base causality order (8.9.5) in
    /// the relations at hand, as words of a set.
    fn base_causality_row(&self, x: usize) -> &[u64];

    /// Hands what the model knows of the complete graph `g` (what depends
    /// on its events, and with `relations` its relations, found consistent)
    /// to the check of the shared completion, which then does not redo it.
    fn hand_over(&self, g: &Execution, relations: bool);

    /// Checks every axiom of 8.10 and returns the first violation with its
    /// witness ([`super::check`]): for `explain` and `--graph`, and the
    /// cross-check tests (`model/chapter8_tests.rs`).
    // (The shared completion, `explore::candidate::finish`, still calls
    // `model::check` by name, so outside tests nothing calls it yet.)
    #[allow(dead_code)]
    fn check(g: &Execution) -> Result<Relations, Violation>;
}
