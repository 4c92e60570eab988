//! The chapter-8 model behind the explorers' seam ([`Model`]): the
//! word-level rows of `fast/` kept in step with the graph (its private
//! representation), the per-concept modules where the rows cannot decide
//! or a witness is wanted, and the rules that rule children out at once
//! (`positions.rs` for writes, [`Chapter8::readable`] for reads), each a
//! case of an axiom of 8.10.

use super::consistency::{Decision, Model, Positions, Writes};
use super::{check_full, fast, fence_sc, positions, Relations, Violation};
use crate::event::{Event, EventId, EventKind};
use crate::execution::Execution;
use ptxmc_frontend::ir::{Proxy, VAddrId};
use smallvec::SmallVec;

/// Whether a read through `read` (its virtual address and proxy) may read
/// from a write of its own thread that comes later in program order, when
/// the thread writes the location through `writes` only. Program order is in
/// base causality, so through the same address and proxy it is also
/// causality order (8.9.5 cases 1 and 2), and the Causality axiom (8.10.6
/// item 1) forbids reading from it; through an alias or another proxy it is
/// not forbidden; nor in a thread with asynchronous operations
/// (`unordered_thread`, 8.9.1.1), whose events are not in program order.
pub(crate) fn may_read_own_later_write(
    unordered_thread: bool,
    mut writes: impl Iterator<Item = (VAddrId, Proxy)>,
    read: (VAddrId, Proxy),
) -> bool {
    unordered_thread || writes.any(|a| a != read)
}

/// The chapter-8 model of one graph that an explorer grows.
#[derive(Clone)]
pub(crate) struct Chapter8 {
    /// What depends only on the events.
    // invariant: when `statics.len() == g.len()` for the graph `g` this
    // model follows, these are the statics of `g`'s events; otherwise the
    // model stopped following (an event the rows cannot represent) and
    // answers from scratch.
    statics: fast::Statics,
    /// Scratch space of checks; when `known`, the relations of the graph,
    /// found consistent by the fast path with no Fence-SC pair and no
    /// barrier synchronization.
    derived: Box<fast::Derived>,
    // invariant: `known` implies that `statics` follow the graph and that
    // `derived` holds its relations.
    known: bool,
    /// The `fence.sc` events of the graph in a Fence-SC order (8.9.3): a new
    /// one goes last ([`Model::push`]); a search puts the order it found
    /// ([`Model::exists_fence_sc_order`]).
    // invariant: holds every `fence.sc` event of the graph, each once.
    order: SmallVec<[EventId; 8]>,
    /// With two `fence.sc` or more, when `sc_known`: the relations of the
    /// graph under `order`, found consistent by the fast path.
    sc: Box<fast::Derived>,
    // invariant: `sc_known` implies `known` and that `order` has a pair.
    sc_known: bool,
    /// `sc_known` as it was before the last event was pushed (the relations
    /// [`Model::decide_write`] extends in place when given no frame, and
    /// [`Model::save`] saves for the graph before that event).
    // invariant: cleared by every change but that push.
    sc_before: bool,
    /// The graph was found inconsistent under `order` (with a pair): the
    /// search for an order need not try it again.
    // invariant: cleared by every change of the graph.
    order_fails: bool,
    /// Frames given back ([`Model::recycle`]), reused by [`Model::save`] (no
    /// allocation per node once the search is deep enough).
    spare: Vec<Frame>,
    /// The address of the relations with no Fence-SC pair of the frame
    /// `derived` holds, 0 for none: a node's first child then extends them
    /// in place instead of copying the frame back first.
    // invariant: when nonzero, the first rows of `derived` are those saved
    // in the live frame at this address (set by `save` and `restore`,
    // cleared by every change of `derived` and when that frame is given
    // back).
    clean: usize,
}

/// The relations of a graph saved at a search node ([`Model::save`]): with
/// no Fence-SC pair, and under the model's Fence-SC order when it has a pair
/// and they were known.
#[derive(Clone)]
pub(crate) struct Frame {
    derived: Box<fast::Derived>,
    order: SmallVec<[EventId; 8]>,
    sc: Box<fast::Derived>,
    // invariant: `sc` holds the relations under `order` when set.
    sc_known: bool,
}

/// The address of a frame's relations (to compare with [`Chapter8::clean`]).
fn addr(f: &fast::Derived) -> usize {
    f as *const fast::Derived as usize
}

impl Chapter8 {
    /// Whether `order` has a Fence-SC pair.
    fn paired(order: &[EventId]) -> bool {
        order.len() > 1
    }

    /// After `derived` was extended by the last event `e` (`d`, with no
    /// Fence-SC pair): `sc` extended the same way under `order` (by
    /// `extend`) when it holds the relations before `e` (`sc_before`).
    /// Consistent only when both are; an inconsistency under `order` alone is
    /// `Unknown` (another order may serve).
    fn with_order(
        &mut self,
        g: &Execution,
        d: Decision,
        sc_before: bool,
        extend: impl FnOnce(&fast::Statics, &mut fast::Derived) -> Decision,
    ) -> Decision {
        debug_assert!(
            d == Decision::Unknown || (d == Decision::Consistent) == check_full(g).is_ok(),
            "incremental check disagrees"
        );
        self.known = d == Decision::Consistent;
        self.sc_known = false;
        if d != Decision::Consistent || !Self::paired(&self.order) {
            return d;
        }
        if !sc_before {
            return Decision::Unknown;
        }
        let under = extend(&self.statics, &mut self.sc);
        self.sc_known = under == Decision::Consistent;
        self.order_fails = under == Decision::Inconsistent;
        #[cfg(debug_assertions)]
        {
            let mut h = g.clone();
            h.set_fence_sc(self.order.to_vec());
            assert!(
                under == Decision::Unknown
                    || (under == Decision::Consistent) == check_full(&h).is_ok(),
                "incremental check under the Fence-SC order disagrees"
            );
        }
        if self.sc_known {
            Decision::Consistent
        } else {
            Decision::Unknown
        }
    }

    /// Takes the Fence-SC order of the frame `f`, and its relations under it
    /// (first `n` rows); whether there were any.
    fn order_of(&mut self, f: &Frame, n: usize) -> bool {
        if self.order != f.order {
            self.order.clear();
            self.order.extend_from_slice(&f.order);
        }
        if f.sc_known {
            self.sc.copy_from(&f.sc, n);
        }
        f.sc_known
    }

    /// Forgets every relation (the graph changed).
    fn unknown(&mut self) {
        self.known = false;
        self.sc_known = false;
        self.sc_before = false;
        self.order_fails = false;
    }
}

#[cfg(test)]
impl Chapter8 {
    /// The relations at hand of the graph `g`: with no Fence-SC pair, and
    /// under the model's order when known.
    pub(crate) fn relations_at_hand(
        &self,
        g: &Execution,
    ) -> (Option<Relations>, Option<Relations>) {
        let n = g.len();
        (
            self.known
                .then(|| fast::relations(n, &self.statics, &self.derived)),
            self.sc_known
                .then(|| fast::relations(n, &self.statics, &self.sc)),
        )
    }

    /// The model's Fence-SC order.
    pub(crate) fn fence_sc_order(&self) -> Vec<EventId> {
        self.order.to_vec()
    }
}

impl Model for Chapter8 {
    type Frame = Frame;

    fn new(g: &Execution) -> Self {
        Self {
            statics: fast::Statics::new(g).unwrap_or_else(fast::Statics::empty),
            derived: Box::new(fast::Derived::new()),
            known: false,
            order: g.ids().filter(|&e| g.event(e).is_fence_sc()).collect(),
            sc: Box::new(fast::Derived::new()),
            sc_known: false,
            sc_before: false,
            order_fails: false,
            spare: Vec::new(),
            clean: 0,
        }
    }

    /// A fence pushed to a graph whose relations are at hand extends them
    /// by its column, with no Fence-SC pair and, put last in the model's
    /// Fence-SC order, under that order ([`fast::add_fence`]): the graph
    /// stays consistent, as [`Model::fence_keeps_consistent`] says.
    #[inline]
    fn push(&mut self, g: &Execution, t: usize, e: EventId) {
        let (was_known, was_sc) = (self.known, self.sc_known);
        self.unknown();
        self.sc_before = was_sc;
        let i = e.index();
        if self.statics.len() == i && i < fast::MAX_WIDE_EVENTS {
            // Program order (8.9.1): the thread's earlier events.
            let mut preds: SmallVec<[u64; 4]> = smallvec::smallvec![0; i / 64 + 1];
            let th = &g.threads()[t];
            for x in &th[..th.len() - 1] {
                preds[x.index() / 64] |= 1u64 << (x.index() % 64);
            }
            if !self.statics.push(g, e, &preds) {
                self.statics.truncate(i);
            }
        }
        let ev = g.event(e);
        let sc = ev.is_fence_sc();
        if sc {
            self.order.push(e);
        }
        if !(was_known && self.follows(g) && matches!(ev.kind, EventKind::Fence(_))) {
            return;
        }
        self.clean = 0;
        let before = &self.order[..self.order.len() - usize::from(sc)];
        let mut sc_ok = false;
        if Self::paired(&self.order) {
            if !Self::paired(before) {
                // The second fence.sc: the relations with no pair are those
                // under the order of the first.
                self.sc.copy_from(&self.derived, i);
                sc_ok = true;
            } else {
                sc_ok = was_sc;
            }
            if sc_ok {
                let d = fast::add_fence(g, &self.statics, &mut self.sc, i, sc, before);
                sc_ok = d == Decision::Consistent;
            }
        }
        let d = fast::add_fence(g, &self.statics, &mut self.derived, i, false, &[]);
        self.known = d == Decision::Consistent;
        self.sc_known = self.known && sc_ok;
    }

    #[inline]
    fn pop(&mut self, n: usize) {
        self.unknown();
        self.statics.truncate(n);
        self.order.retain(|e| e.index() < n);
    }

    #[inline]
    fn follows(&self, g: &Execution) -> bool {
        self.statics.len() == g.len()
    }

    #[inline]
    fn known(&self) -> bool {
        self.known
    }

    #[inline]
    fn ordered(&self) -> bool {
        self.known && (self.sc_known || !Self::paired(&self.order))
    }

    #[inline]
    fn forget(&mut self) {
        self.unknown();
    }

    fn decide(&mut self, g: &Execution) -> bool {
        self.unknown();
        self.clean = 0;
        if !self.follows(g) {
            return super::consistent(g);
        }
        let ok = match fast::decide(g, &self.statics, &mut self.derived) {
            Decision::Consistent => {
                self.known = true;
                true
            }
            Decision::Inconsistent => false,
            Decision::Unknown => check_full(g).is_ok(),
        };
        debug_assert_eq!(ok, check_full(g).is_ok(), "fast path disagrees");
        ok
    }

    fn decide_read(&mut self, g: &Execution, parent: &Self::Frame, r: EventId) -> Decision {
        if self.clean != addr(&parent.derived) {
            self.derived.copy_from(&parent.derived, r.index());
        }
        self.clean = 0;
        let sc_before = self.order_of(parent, r.index());
        let d = fast::add_read(g, &self.statics, &mut self.derived, r.index());
        self.with_order(g, d, sc_before, |st, sc| {
            fast::add_read(g, st, sc, r.index())
        })
    }

    fn decide_write(
        &mut self,
        g: &Execution,
        parent: Option<&Self::Frame>,
        w: EventId,
    ) -> Decision {
        let sc_before = match parent {
            Some(p) => {
                if self.clean != addr(&p.derived) {
                    self.derived.copy_from(&p.derived, w.index());
                }
                self.order_of(p, w.index())
            }
            None => self.sc_before,
        };
        self.clean = 0;
        let d = fast::add_write(g, &self.statics, &mut self.derived, w.index());
        self.with_order(g, d, sc_before, |st, sc| {
            fast::add_write(g, st, sc, w.index())
        })
    }

    fn decide_served(&mut self, g: &Execution, r: EventId) -> Decision {
        if !self.known || !self.follows(g) {
            self.unknown();
            return Decision::Unknown;
        }
        self.clean = 0;
        let sc_before = self.sc_known;
        let d = fast::add_served(g, &self.statics, &mut self.derived, r.index());
        self.with_order(g, d, sc_before, |st, sc| {
            fast::add_served(g, st, sc, r.index())
        })
    }

    fn consistent(&mut self, g: &Execution) -> bool {
        self.unknown();
        self.clean = 0;
        if self.follows(g) {
            super::consistent_with(g, &self.statics, &mut self.derived)
        } else {
            super::consistent(g)
        }
    }

    /// The search starts from the model's order (the previous graph's, a
    /// new `fence.sc` last), not tried again when it failed, and reads the
    /// relations with no pair when they are known; the order found becomes
    /// the model's, with its relations when the fast path decides them.
    fn exists_fence_sc_order(&mut self, g: &mut Execution, hint: &mut Vec<EventId>) -> bool {
        self.sc_known = false;
        hint.clear();
        hint.extend_from_slice(&self.order);
        if !self.follows(g) {
            self.unknown();
            return fence_sc::exists_order_hinted_with(g, hint, &mut super::consistent);
        }
        let no_pair = self.known.then_some(&*self.derived);
        let found = fence_sc::exists_order_hinted(
            g,
            hint,
            self.order_fails && self.known,
            &self.statics,
            &mut self.sc,
            no_pair,
        );
        let Some(relations) = found else {
            self.unknown();
            return false;
        };
        self.order_fails = false;
        if g.fence_sc().len() == self.order.len() {
            self.order.clear();
            self.order.extend_from_slice(g.fence_sc());
            self.sc_known = self.known
                && Self::paired(&self.order)
                && (relations
                    || fast::decide(g, &self.statics, &mut self.sc) == Decision::Consistent);
        }
        true
    }

    fn save(&mut self, n: usize) -> Self::Frame {
        let mut f = self.spare.pop().unwrap_or_else(|| Frame {
            derived: Box::new(fast::Derived::new()),
            order: SmallVec::new(),
            sc: Box::new(fast::Derived::new()),
            sc_known: false,
        });
        f.derived.copy_from(&self.derived, n);
        if f.order != self.order {
            f.order.clear();
            f.order.extend_from_slice(&self.order);
        }
        // (Right after a push, the relations before it.)
        f.sc_known = if n == self.statics.len() {
            self.sc_known
        } else {
            self.sc_before && n + 1 == self.statics.len()
        };
        if f.sc_known {
            f.sc.copy_from(&self.sc, n);
        }
        self.clean = addr(&f.derived);
        f
    }

    fn restore(&mut self, f: &Self::Frame, n: usize) {
        if self.clean != addr(&f.derived) {
            self.derived.copy_from(&f.derived, n);
        }
        self.clean = addr(&f.derived);
        self.order_fails = false;
        self.sc_known = self.order_of(f, n);
        self.known = true;
    }

    fn recycle(&mut self, f: Self::Frame) {
        if self.clean == addr(&f.derived) {
            self.clean = 0;
        }
        self.spare.push(f);
    }

    /// Rules out, of the writes a read may read:
    ///
    /// - on a location private to the read's thread (only it writes there,
    ///   through this address and the generic proxy), every write but the
    ///   thread's last one (or the initial write when there is none): an
    ///   earlier write is coherence-before that one, which precedes the read
    ///   in causality order (program order, one address, generic proxy,
    ///   8.9.5), so reading it breaks Causality (8.10.6);
    /// - for the read half of an RMW, a write that an RMW morally strong with
    ///   it and with the write already reads: two such RMWs cannot read one
    ///   write (8.10.5 orders the write before both write halves, and the
    ///   first write half then lies between it and the other, which RMW
    ///   atomicity forbids, 8.10.3);
    /// - with the relations of the graph before the read, a write
    ///   coherence-before a write that precedes the read in causality order
    ///   whatever it reads (reading adds predecessors, never removes any): the
    ///   read would from-read a write that precedes it, which the Causality
    ///   axiom forbids (8.10.6).
    fn readable<S>(
        &mut self,
        g: &Execution,
        r: EventId,
        choices: &mut SmallVec<[S; 16]>,
        write: impl Fn(&S) -> Option<(EventId, i64)>,
        rmw_for: &dyn Fn(i64) -> bool,
        private: bool,
        parent: Option<&Self::Frame>,
    ) {
        let ev = g.event(r);
        if let (true, Some(t), Some(loc)) = (private, ev.thread, ev.loc()) {
            let own = g.threads()[t.index()].iter().rev().copied().find(|&x| {
                g.event(x).is_write() && g.event(x).loc().is_some_and(|l| l.phys == loc.phys)
            });
            choices.retain(|c| match (write(c), own) {
                (None, _) => true,
                (Some((w, _)), Some(o)) => w == o,
                (Some((w, _)), None) => g.event(w).is_init(),
            });
        }
        if ev.is_rmw() {
            // The writes RMW reads morally strong with `r` read, with those
            // reads (found once, not per choice).
            let taken: SmallVec<[(EventId, EventId); 8]> = g
                .rf()
                .iter()
                .enumerate()
                .filter_map(|(r2, &from)| {
                    let r2 = EventId::new(r2);
                    let w = from?;
                    (g.event(r2).is_rmw() && super::morally_strong(g, r, r2)).then_some((w, r2))
                })
                .collect();
            if !taken.is_empty() {
                choices.retain(|c| {
                    let Some((src, v)) = write(c) else {
                        return true;
                    };
                    // (A CAS that only reads when it fails is no RMW for a
                    // value that makes it fail.)
                    !rmw_for(v)
                        || !taken.iter().any(|&(w, r2)| {
                            w == src
                                && super::morally_strong(g, src, r)
                                && super::morally_strong(g, src, r2)
                        })
                });
            }
        }
        // (A private read's one choice left, the thread's last write or the
        // initial write, is coherence-before no write: the location's other
        // writes are the thread's earlier ones. So the last rule removes
        // nothing there.)
        // Nor where the read's location has one write (the initial one,
        // coherence-before no write).
        let one_write = self.follows(g)
            && ev.loc().is_some_and(|l| {
                fast::writes_to_phys(&self.statics, l.phys)
                    .iter()
                    .nth(1)
                    .is_none()
            });
        if let (Some(parent), true, false) = (parent, self.follows(g), private || one_write) {
            let parent = &parent.derived;
            if self.clean != addr(parent) {
                self.derived.copy_from(parent, r.index());
            }
            self.clean = 0;
            let d = fast::add_read(g, &self.statics, &mut self.derived, r.index());
            let preceding = match d {
                Decision::Consistent => fast::preceding(&self.derived, r.index()),
                _ => fast::Mask::default(),
            };
            if !preceding.is_empty() {
                let st = &self.statics;
                choices.retain(|c| {
                    write(c).is_none_or(|(w, _)| {
                        !fast::co_after_among(st, parent, w.index(), &preceding)
                    })
                });
            }
        }
    }

    /// A fence added at the end of its thread, with no event after it
    /// anywhere, has no outgoing edge of po, sync (its patterns need later
    /// events), base causality, observation or coherence, and is not a
    /// memory operation: it closes no cycle of any axiom of 8.10 and does
    /// not change the relations between other events (proxy fences convert
    /// only along base causality paths through them). A fence.sc can be put
    /// last in Fence-SC order (existential, 8.9.3), which gives it only
    /// incoming synchronization. So the graph stays consistent.
    #[inline]
    fn fence_keeps_consistent(&self, g: &Execution, f: EventId) -> bool {
        matches!(g.event(f).kind, EventKind::Fence(_))
    }

    /// It is the last event of its thread and from-reads no write (every
    /// write of the location is its thread's, coherence-before the one it
    /// reads, [`Model::readable`]), so it has no outgoing edge of any
    /// relation of 8.9 and closes no cycle of 8.10.
    #[inline]
    fn private_read_keeps_consistent(&self, g: &Execution, r: EventId, private: bool) -> bool {
        private && !g.event(r).is_rmw()
    }

    /// The last event of its thread, coherence-last, read by nothing: it has
    /// no outgoing edge of any relation of 8.9, and the graph stays
    /// consistent (8.10.1: every write that precedes it in causality is
    /// before it in coherence, being its thread's earlier writes; 8.10.3: no
    /// RMW has it between its halves).
    #[inline]
    fn private_write_keeps_consistent(
        &self,
        g: &Execution,
        w: EventId,
        own_earlier: &[EventId],
        rivals: &[EventId],
        private: bool,
    ) -> bool {
        private && !own_earlier.is_empty() && rivals.is_empty() && !g.event(w).is_rmw()
    }

    fn rivals(&self, g: &Execution, w: EventId) -> Writes {
        if self.follows(g) {
            // From the rows of the statics: the same writes, in id order.
            let row = self.statics.ms_writes_to_loc_of(w.index());
            row.iter()
                .map(EventId::new)
                .filter(|&x| !g.event(x).is_init())
                .collect()
        } else {
            let loc = g.event(w).loc();
            g.ids()
                .filter(|&x| {
                    x != w && {
                        let e = g.event(x);
                        e.is_write()
                            && !e.is_init()
                            && e.loc().is_some_and(|l| Some(l.phys) == loc.map(|m| m.phys))
                            && super::morally_strong(g, x, w)
                    }
                })
                .collect()
        }
    }

    fn own_earlier_writes(
        &self,
        g: &Execution,
        t: usize,
        w: EventId,
        rivals: &mut Writes,
        unordered_thread: bool,
    ) -> Writes {
        positions::own_earlier_writes(g, t, w, rivals, unordered_thread)
    }

    fn coherence_positions(
        &self,
        g: &Execution,
        w: EventId,
        rivals: &[EventId],
        forced: u64,
    ) -> Positions {
        Positions::of(g, w, rivals, forced)
    }

    /// Those that precede the thread's last event in base causality order,
    /// or are that event (then they precede `ev`, 8.9.5), when they and `ev`
    /// use the same address and the generic proxy (proxy-preserved); none
    /// without the relations, or past the one-word rows.
    fn causal_writes_before(
        &self,
        g: &Execution,
        t: usize,
        ev: &Event,
        unordered_thread: bool,
    ) -> u64 {
        let n = g.len();
        let (Some(loc), Proxy::Generic) = (ev.loc(), ev.proxy) else {
            return 0;
        };
        if !self.known || n >= fast::MAX_EVENTS || unordered_thread {
            return 0;
        }
        let Some(&last) = g.threads()[t].last() else {
            return 0;
        };
        let l = last.index();
        // Of the writes to the location (from the statics' rows), those.
        let writes = fast::writes_to_phys(&self.statics, loc.phys);
        let mut m = 0u64;
        for x in writes.iter() {
            let before = x == l || self.derived.base_has(x, l);
            let e = g.event(EventId::new(x));
            let same = e.proxy == Proxy::Generic && e.loc().is_some_and(|el| el.vaddr == loc.vaddr);
            m |= u64::from(before && same) << x;
        }
        m
    }

    #[inline]
    fn coherence_last(&self, p: usize) -> Result<Option<usize>, ()> {
        fast::co_last(&self.statics, &self.derived, p)
    }

    #[inline]
    fn base_causality_row(&self, x: usize) -> &[u64] {
        self.derived.base_row(x)
    }

    fn hand_over(&self, g: &Execution, relations: bool) {
        if relations {
            fast::offer(g, &self.statics, &self.derived);
        } else if self.follows(g) {
            fast::offer_statics(&self.statics);
        }
    }

    fn check(g: &Execution) -> Result<Relations, Violation> {
        super::check(g)
    }
}
