//! The chapter-8 model behind the explorers' seam ([`Model`]): the
//! word-level rows of `fast/` kept in step with the graph (its private
//! representation), the per-concept modules where the rows cannot decide
//! or a witness is wanted, and the rules that rule children out at once
//! (`positions.rs` for writes, [`Chapter8::readable`] for reads), each a
//! case of an axiom of 8.10.

use super::consistency::{Decision, Model, Positions};
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
    /// Frames given back ([`Model::recycle`]), reused by [`Model::save`] (no
    /// allocation per node once the search is deep enough).
    // (`fast::Derived` boxes its rows by width; the box is kept as is.)
    #[allow(clippy::vec_box)]
    spare: Vec<Box<fast::Derived>>,
    /// The address of the frame whose rows `derived` holds, 0 for none: a
    /// node's first child then extends them in place instead of copying the
    /// frame back first.
    // invariant: when nonzero, the first rows of `derived` are those saved
    // in the live frame at this address (set by `save` and `restore`,
    // cleared by every change of `derived` and when that frame is given
    // back).
    clean: usize,
}

/// The address of a frame (to compare with [`Chapter8::clean`]).
fn addr(f: &fast::Derived) -> usize {
    f as *const fast::Derived as usize
}

impl Model for Chapter8 {
    type Frame = Box<fast::Derived>;

    fn new(g: &Execution) -> Self {
        Self {
            statics: fast::Statics::new(g).unwrap_or_else(fast::Statics::empty),
            derived: Box::new(fast::Derived::new()),
            known: false,
            spare: Vec::new(),
            clean: 0,
        }
    }

    #[inline]
    fn push(&mut self, g: &Execution, t: usize, e: EventId) {
        self.known = false;
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
    }

    #[inline]
    fn pop(&mut self, n: usize) {
        self.known = false;
        self.statics.truncate(n);
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
    fn forget(&mut self) {
        self.known = false;
    }

    fn decide(&mut self, g: &Execution) -> bool {
        self.known = false;
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
        if self.clean != addr(parent) {
            self.derived.copy_from(parent, r.index());
        }
        self.clean = 0;
        let d = fast::add_read(g, &self.statics, &mut self.derived, r.index());
        debug_assert!(
            d == Decision::Unknown || (d == Decision::Consistent) == check_full(g).is_ok(),
            "incremental check disagrees"
        );
        self.known = d == Decision::Consistent;
        d
    }

    fn decide_write(
        &mut self,
        g: &Execution,
        parent: Option<&Self::Frame>,
        w: EventId,
    ) -> Decision {
        if let Some(p) = parent.filter(|p| self.clean != addr(p)) {
            self.derived.copy_from(p, w.index());
        }
        self.clean = 0;
        let d = fast::add_write(g, &self.statics, &mut self.derived, w.index());
        debug_assert!(
            d == Decision::Unknown || (d == Decision::Consistent) == check_full(g).is_ok(),
            "incremental write check disagrees"
        );
        self.known = d == Decision::Consistent;
        d
    }

    fn consistent(&mut self, g: &Execution) -> bool {
        self.known = false;
        self.clean = 0;
        if self.follows(g) {
            super::consistent_with(g, &self.statics, &mut self.derived)
        } else {
            super::consistent(g)
        }
    }

    fn exists_fence_sc_order(&mut self, g: &mut Execution, hint: &mut Vec<EventId>) -> bool {
        self.known = false;
        if self.follows(g) {
            fence_sc::exists_order_hinted(g, hint, &self.statics, &mut self.derived)
        } else {
            fence_sc::exists_order_hinted_with(g, hint, &mut super::consistent)
        }
    }

    fn save(&mut self, n: usize) -> Self::Frame {
        let mut d = self
            .spare
            .pop()
            .unwrap_or_else(|| Box::new(fast::Derived::new()));
        d.copy_from(&self.derived, n);
        self.clean = addr(&d);
        d
    }

    fn restore(&mut self, f: &Self::Frame, n: usize) {
        if self.clean != addr(f) {
            self.derived.copy_from(f, n);
        }
        self.clean = addr(f);
        self.known = true;
    }

    fn recycle(&mut self, f: Self::Frame) {
        if self.clean == addr(&f) {
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
            choices.retain(|c| {
                let Some((src, v)) = write(c) else {
                    return true;
                };
                // (A CAS that only reads when it fails is no RMW for a
                // value that makes it fail.)
                !rmw_for(v)
                    || !g.rf().iter().enumerate().any(|(r2, &from)| {
                        let r2 = EventId::new(r2);
                        from == Some(src)
                            && g.event(r2).is_rmw()
                            && super::morally_strong(g, r, r2)
                            && super::morally_strong(g, src, r)
                            && super::morally_strong(g, src, r2)
                    })
            });
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

    fn rivals(&self, g: &Execution, w: EventId) -> Vec<EventId> {
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
        rivals: &mut Vec<EventId>,
        unordered_thread: bool,
    ) -> Vec<EventId> {
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
