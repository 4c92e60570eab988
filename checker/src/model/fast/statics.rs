//! [`StaticsW`]: the relations of the fast path that depend only on the
//! events (program order, RMW pairs, morally strong, dependencies, patterns,
//! proxy conversions, locations), built event by event.

// Rows are indexed by event.
#![allow(clippy::needless_range_loop)]

use super::set::{Rows, Set};
use crate::event::{EventId, EventKind};
use crate::execution::Execution;
use crate::model::causality::{direct_case, is_thread_memory, same_cta};
use crate::model::morally_strong::{morally_strong, strong_scope};
use crate::model::patterns::{
    is_acquire_fence, is_acquire_read, is_release_fence, is_release_write, is_strong_read,
    is_strong_write, same_location as same_vloc,
};
use ptxmc_frontend::ir::{FenceKind, PhysId, Placement, Proxy, Scope, Sem, ThreadId, VAddrId};
use smallvec::SmallVec;

/// What the relations of [`Statics`] read of one event: two events with
/// equal attributes (and equal program-order predecessors) get the same
/// rows. Values read or written are not in it: no static relation depends
/// on them.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Attr {
    thread: Option<ThreadId>,
    placement: Option<Placement>,
    shape: Shape,
    loc: Option<(PhysId, VAddrId)>,
    sem: Sem,
    scope: Option<Scope>,
    proxy: Proxy,
    /// The scope of a strong operation that specifies one (8.7 condition 1).
    strong: Option<Scope>,
    /// The reads the event depends on (address, data, control).
    deps: SmallVec<[u32; 4]>,
}

/// An event's kind without its values.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Shape {
    Read { rmw: bool, red: bool },
    Write { rmw: bool, init: bool },
    Fence(FenceKind),
    Barrier,
}

impl Attr {
    /// The attributes of event `e` of `exec`; `None` when a dependency is not
    /// an earlier event.
    pub(super) fn of(exec: &Execution, e: EventId) -> Option<Self> {
        let ev = exec.event(e);
        // Asynchronous operations (8.9.1.1) are not in program order with
        // the rest of their thread: the general check decides them.
        if ev.is_async() {
            return None;
        }
        let mut deps = SmallVec::new();
        for &r in ev
            .addr_deps
            .iter()
            .chain(&ev.data_deps)
            .chain(&ev.ctrl_deps)
        {
            if r.index() >= e.index() {
                return None;
            }
            deps.push(r.index() as u32);
        }
        let shape = match ev.kind {
            EventKind::Read { rmw, red, .. } => Shape::Read { rmw, red },
            EventKind::Write { rmw, init, .. } => Shape::Write { rmw, init },
            EventKind::Fence(k) => Shape::Fence(k),
            EventKind::Barrier { .. } => Shape::Barrier,
        };
        Some(Self {
            thread: ev.thread,
            placement: ev
                .thread
                .and_then(|t| exec.placements().get(t.index()).copied()),
            shape,
            loc: ev.loc().map(|l| (l.phys, l.vaddr)),
            sem: ev.sem,
            scope: ev.scope,
            proxy: ev.proxy,
            strong: strong_scope(ev),
            deps,
        })
    }

    /// A memory operation executed by a thread.
    fn thread_memory(&self) -> bool {
        self.thread.is_some() && self.loc.is_some()
    }

    /// Morally strong (8.7), as [`morally_strong`] decides it for two
    /// distinct events.
    #[inline]
    fn morally_strong(&self, other: &Attr) -> bool {
        let (Some(ta), Some(tb)) = (self.thread, other.thread) else {
            return false;
        };
        // Condition 2 (proxies, and aliases as distinct proxies) and 3.
        let same_access = self.proxy == other.proxy
            && match (self.loc, other.loc) {
                (Some(la), Some(lb)) => la == lb,
                _ => true,
            };
        // Condition 1.
        same_access
            && (ta == tb
                || match (self.strong, other.strong, self.placement, other.placement) {
                    (Some(sa), Some(sb), Some(pa), Some(pb)) => {
                        pa.scope_includes(sa, &pb) && pb.scope_includes(sb, &pa)
                    }
                    _ => false,
                })
    }

    /// Executed by threads of one CTA.
    fn same_cta(&self, other: &Attr) -> bool {
        match (self.placement, other.placement) {
            (Some(pa), Some(pb)) => pa.gpu == pb.gpu && pa.cta == pb.cta,
            _ => false,
        }
    }

    /// Items 1 and 2 of proxy-preserved base causality (8.9.5) for two
    /// memory events: same address, and the generic proxy or the same proxy
    /// in one CTA ([`direct_case`]).
    fn direct_case(&self, other: &Attr) -> bool {
        self.loc.is_some()
            && self.loc == other.loc
            && ((self.proxy == Proxy::Generic && other.proxy == Proxy::Generic)
                || (self.proxy == other.proxy && self.same_cta(other)))
    }

    /// The proxy a non-memory proxy fence converts (8.9.5), if it is one.
    fn converted_proxy(&self) -> Option<Proxy> {
        match self.shape {
            Shape::Fence(k) if !k.is_memory_fence() && k != FenceKind::ProxyAlias => k.proxy(),
            _ => None,
        }
    }
}

/// At most this many events are dropped by clearing their bits one by one
/// ([`StaticsW::truncate`]); more by masking every row.
const FEW: usize = 8;

/// What depends only on the events of an execution, as sets of `W` words
/// (at most `64 W` events).
#[derive(Clone)]
pub(crate) struct StaticsW<const W: usize> {
    /// Events pushed so far.
    pub(super) n: usize,
    pub(super) attrs: Vec<Option<Attr>>,
    /// Each thread's events, to tell whether an execution has these events.
    pub(super) threads: Vec<Vec<EventId>>,
    /// Program order (8.9.1).
    pub(super) po: Rows<W>,
    /// The read half of each RMW to its write half (8.9.2).
    pub(super) rmw: Rows<W>,
    /// Morally strong (8.7), symmetric.
    pub(super) ms: Rows<W>,
    /// `r -> e` when e depends on the read r (address, data, control; 8.10.4).
    pub(super) dep: Rows<W>,
    /// Release patterns (8.8): first operation -> its writes.
    pub(super) rel_writes: Rows<W>,
    /// Acquire patterns (8.8): read -> the last operations of its patterns.
    pub(super) acq_last: Rows<W>,
    /// `F -> M` when the proxy fence F converts M's proxy (8.9.5).
    pub(super) conv: Rows<W>,
    /// Memory events on the same physical location (including initial writes).
    pub(super) same_loc: Rows<W>,
    /// Pairs of thread memory operations in the direct cases 1 and 2 of
    /// proxy-preserved base causality (8.9.5).
    pub(super) direct: Rows<W>,
    /// Memory events through the same virtual address and location.
    pub(super) same_addr: Rows<W>,
    pub(super) reads: Set<W>,
    pub(super) writes: Set<W>,
    pub(super) inits: Set<W>,
    /// Memory operations executed by a thread.
    pub(super) thread_mem: Set<W>,
    /// Thread memory operations through the generic proxy.
    pub(super) generic: Set<W>,
    pub(super) alias_fences: Set<W>,
    /// Fences that convert a proxy (8.9.5): the only events whose `conv`
    /// row can be nonempty.
    pub(super) conv_fences: Set<W>,
    /// Events that may start a release pattern (8.8).
    // invariant: a superset of the events whose `rel_writes` row is
    // nonempty (a row emptied by `truncate` may leave its bit).
    pub(super) rel_firsts: Set<W>,
    /// Events without a location (fences, barriers).
    no_loc: Set<W>,
    /// The memory events of each physical location (by its index), initial
    /// writes included: with `no_loc`, the only events a memory event can
    /// be morally strong with or share a location with (8.7, 8.9.5).
    // invariant: `by_phys[p]` holds exactly the pushed events on `p`.
    by_phys: Vec<Set<W>>,
}

impl<const W: usize> StaticsW<W> {
    /// Nothing pushed yet.
    pub(crate) fn empty() -> Self {
        Self {
            n: 0,
            attrs: Vec::new(),
            threads: Vec::new(),
            po: Vec::new(),
            rmw: Vec::new(),
            ms: Vec::new(),
            dep: Vec::new(),
            rel_writes: Vec::new(),
            acq_last: Vec::new(),
            conv: Vec::new(),
            same_loc: Vec::new(),
            direct: Vec::new(),
            same_addr: Vec::new(),
            reads: Set::EMPTY,
            writes: Set::EMPTY,
            inits: Set::EMPTY,
            thread_mem: Set::EMPTY,
            generic: Set::EMPTY,
            alias_fences: Set::EMPTY,
            conv_fences: Set::EMPTY,
            rel_firsts: Set::EMPTY,
            no_loc: Set::EMPTY,
            by_phys: Vec::new(),
        }
    }

    /// Every relation, mutably (for what is done to each alike).
    fn relations_mut(&mut self) -> [&mut Rows<W>; 10] {
        [
            &mut self.po,
            &mut self.rmw,
            &mut self.ms,
            &mut self.dep,
            &mut self.rel_writes,
            &mut self.acq_last,
            &mut self.conv,
            &mut self.same_loc,
            &mut self.direct,
            &mut self.same_addr,
        ]
    }

    /// Every relation.
    pub(super) fn relations(&self) -> [&Rows<W>; 10] {
        [
            &self.po,
            &self.rmw,
            &self.ms,
            &self.dep,
            &self.rel_writes,
            &self.acq_last,
            &self.conv,
            &self.same_loc,
            &self.direct,
            &self.same_addr,
        ]
    }

    fn masks_mut(&mut self) -> [&mut Set<W>; 7] {
        [
            &mut self.reads,
            &mut self.writes,
            &mut self.inits,
            &mut self.thread_mem,
            &mut self.generic,
            &mut self.alias_fences,
            &mut self.conv_fences,
        ]
    }

    pub(super) fn masks(&self) -> [Set<W>; 7] {
        [
            self.reads,
            self.writes,
            self.inits,
            self.thread_mem,
            self.generic,
            self.alias_fences,
            self.conv_fences,
        ]
    }

    /// Adds event `e` (which must be event number `self.n` of `exec`, and
    /// the last of its thread so far) whose program-order predecessors are
    /// `preds` (words of a set of events). Returns false when the fast path
    /// cannot represent it (the statics are then unchanged).
    pub(crate) fn push(&mut self, exec: &Execution, e: EventId, preds: &[u64]) -> bool {
        let i = e.index();
        if i != self.n || i >= Set::<W>::CAPACITY {
            return false;
        }
        let Some(at) = Attr::of(exec, e) else {
            return false;
        };
        let preds = Set::<W>::from_words(preds) & Set::below(i);
        let ev = exec.event(e);
        let b = Set::<W>::bit(i);
        self.n += 1;
        for rows in self.relations_mut() {
            rows.truncate(i);
            rows.push(Set::EMPTY);
        }
        self.attrs.truncate(i);
        if let Some(t) = ev.thread {
            if self.threads.len() <= t.index() {
                self.threads.resize(t.index() + 1, Vec::new());
            }
            self.threads[t.index()].push(e);
        }
        for p in preds.iter() {
            self.po[p].insert(i);
        }
        // RMW pair: the write half right after its read half (8.9.1).
        if matches!(ev.kind, EventKind::Write { rmw: true, .. }) {
            if let Some(p) = preds.last() {
                if matches!(exec.events()[p].kind, EventKind::Read { rmw: true, .. }) {
                    self.rmw[p].insert(i);
                }
            }
        }
        // Dependencies (8.10.4).
        for &r in &at.deps {
            self.dep[r as usize].insert(i);
        }
        // Release patterns (8.8) ending at e: form 1 (e alone), forms 2 and
        // 3 (a release operation or fence earlier in the thread).
        if is_release_write(ev) {
            self.rel_writes[i].insert(i);
            self.rel_firsts |= b;
        }
        if is_strong_write(ev) {
            for a in preds.iter() {
                let ea = &exec.events()[a];
                if is_release_fence(ea) || (is_release_write(ea) && same_vloc(ea, ev)) {
                    self.rel_writes[a].insert(i);
                    self.rel_firsts.insert(a);
                }
            }
        }
        // Acquire patterns (8.8): form 1, and forms 2 and 3 ending at e.
        if is_strong_read(ev) && is_acquire_read(ev) {
            self.acq_last[i].insert(i);
        }
        let acq_fence = is_acquire_fence(ev);
        if acq_fence || is_acquire_read(ev) {
            for a in preds.iter() {
                let ea = &exec.events()[a];
                if is_strong_read(ea) && (acq_fence || same_vloc(ea, ev)) {
                    self.acq_last[a].insert(i);
                }
            }
        }
        // Kinds and locations.
        match at.shape {
            Shape::Read { .. } => self.reads |= b,
            Shape::Write { init, .. } => {
                self.writes |= b;
                if init {
                    self.inits |= b;
                }
            }
            Shape::Fence(FenceKind::ProxyAlias) => self.alias_fences |= b,
            _ => {}
        }
        let thread_mem = at.thread_memory();
        debug_assert_eq!(thread_mem, is_thread_memory(ev));
        if thread_mem {
            self.thread_mem |= b;
            if at.proxy == Proxy::Generic {
                self.generic |= b;
            }
        }
        let fence_proxy = at.converted_proxy();
        if fence_proxy.is_some() {
            self.conv_fences |= b;
        }
        // The events the loop below can relate `e` to: for a memory event
        // (not a proxy fence), those of its physical location, those without
        // a location and the proxy fences (see `by_phys`); every earlier
        // event otherwise. (At one word too: a ticket lock's events spread
        // over three locations, and the loop then visits a third of them;
        // callgrind: ticket-lock-7 -3 %, writers-6 +0.1 %.)
        let candidates = match at.loc {
            Some((p, _)) if fence_proxy.is_none() => {
                let mut c = self.no_loc | self.conv_fences;
                if let Some(m) = self.by_phys.get(p.index()) {
                    c |= *m;
                }
                c & Set::below(i)
            }
            _ => Set::below(i),
        };
        match at.loc {
            Some((p, _)) => {
                if self.by_phys.len() <= p.index() {
                    self.by_phys.resize(p.index() + 1, Set::EMPTY);
                }
                self.by_phys[p.index()].insert(i);
            }
            None => self.no_loc |= b,
        }
        for a in candidates.iter() {
            let Some(aa) = &self.attrs[a] else { continue };
            // Morally strong (8.7), symmetric.
            let ms = aa.morally_strong(&at);
            debug_assert_eq!(ms, morally_strong(exec, EventId::new(a), e));
            if ms {
                self.ms[a].insert(i);
                self.ms[i].insert(a);
            }
            // Proxy conversions (8.9.5): a non-memory fence with a proxy
            // converts the thread memory operations of that proxy in its CTA.
            if let Some(p) = fence_proxy {
                if aa.thread_memory() && aa.proxy == p && at.same_cta(aa) {
                    debug_assert!(same_cta(exec, ev, &exec.events()[a]));
                    self.conv[i].insert(a);
                }
            }
            if thread_mem && aa.converted_proxy() == Some(at.proxy) && aa.same_cta(&at) {
                self.conv[a].insert(i);
            }
            // Locations and the direct cases of 8.9.5.
            if let (Some((pa, va)), Some((pe, ve))) = (aa.loc, at.loc) {
                if pa == pe {
                    self.same_loc[a].insert(i);
                    self.same_loc[i].insert(a);
                    if va == ve {
                        self.same_addr[a].insert(i);
                        self.same_addr[i].insert(a);
                    }
                    if thread_mem && aa.thread_memory() && aa.direct_case(&at) {
                        debug_assert!(direct_case(exec, &exec.events()[a], ev));
                        self.direct[a].insert(i);
                        self.direct[i].insert(a);
                    }
                }
            }
        }
        if at.loc.is_some() {
            self.same_loc[i].insert(i);
            self.same_addr[i].insert(i);
            if thread_mem && at.direct_case(&at) {
                self.direct[i].insert(i);
            }
        }
        self.attrs.push(Some(at));
        true
    }

    /// Drops every event from number `n` on.
    pub(crate) fn truncate(&mut self, n: usize) {
        if n >= self.n {
            return;
        }
        // (At one word masking every row is a word per row: cheaper.)
        if W > 1 && self.n - n <= FEW {
            self.drop_last_few(n);
            return;
        }
        let keep = Set::<W>::below(n);
        for rows in self.relations_mut() {
            rows.truncate(n);
            for r in rows.iter_mut() {
                *r &= keep;
            }
        }
        for m in self.masks_mut() {
            *m &= keep;
        }
        self.rel_firsts &= keep;
        self.no_loc &= keep;
        for m in &mut self.by_phys {
            *m &= keep;
        }
        for i in n..self.n {
            if let Some(t) = self.attrs[i].as_ref().and_then(|a| a.thread) {
                if let Some(th) = self.threads.get_mut(t.index()) {
                    th.pop();
                }
            }
        }
        self.attrs.truncate(n);
        self.n = n;
    }

    /// [`Self::truncate`] for a few events (an explorer's backtrack): each
    /// dropped event's bit is cleared in the rows that can hold it, not in
    /// every row. Those are the rows of its thread's earlier events (program
    /// order, RMW pairs, patterns), of its dependencies, of the events
    /// morally strong with it or on its location (both symmetric, and
    /// holding the direct cases and addresses), and of the proxy fences
    /// (conversions); its own row goes.
    fn drop_last_few(&mut self, n: usize) {
        for i in (n..self.n).rev() {
            let at = self.attrs[i].take();
            let mut rows = self.ms[i] | self.same_loc[i] | self.conv_fences;
            if let Some(th) = at
                .as_ref()
                .and_then(|a| a.thread)
                .and_then(|t| self.threads.get_mut(t.index()))
            {
                th.pop();
                for &x in th.iter() {
                    rows.insert(x.index());
                }
            }
            for &r in at.iter().flat_map(|a| &a.deps) {
                rows.insert(r as usize);
            }
            rows &= Set::below(i);
            let rows: SmallVec<[usize; 32]> = rows.iter().collect();
            for rel in self.relations_mut() {
                rel.truncate(i);
                for &a in &rows {
                    rel[a].remove(i);
                }
            }
            for m in self.masks_mut() {
                m.remove(i);
            }
            self.rel_firsts.remove(i);
            self.no_loc.remove(i);
            if let Some((p, _)) = at.and_then(|a| a.loc) {
                if let Some(m) = self.by_phys.get_mut(p.index()) {
                    m.remove(i);
                }
            }
        }
        self.attrs.truncate(n);
        self.n = n;
    }

    /// Makes `self` a copy of `other`, of any width whose sets hold its
    /// events (only the rows in use are copied; no allocation once the
    /// rows have grown to them).
    pub(crate) fn copy_from<const V: usize>(&mut self, other: &StaticsW<V>) {
        let n = other.n;
        debug_assert!(n <= Set::<W>::CAPACITY);
        self.n = n;
        self.attrs.clone_from(&other.attrs);
        self.threads.clone_from(&other.threads);
        for (dst, src) in self.relations_mut().into_iter().zip(other.relations()) {
            dst.clear();
            dst.extend(src.iter().map(|r| Set::from_words(&r.0)));
        }
        for (dst, src) in self.masks_mut().into_iter().zip(other.masks()) {
            *dst = Set::from_words(&src.0);
        }
        self.rel_firsts = Set::from_words(&other.rel_firsts.0);
        self.no_loc = Set::from_words(&other.no_loc.0);
        self.by_phys.clear();
        self.by_phys
            .extend(other.by_phys.iter().map(|m| Set::from_words(&m.0)));
    }

    /// The writes (initial write included) to the physical location
    /// `phys`.
    pub(crate) fn writes_to_phys(&self, phys: PhysId) -> Set<W> {
        self.by_phys
            .get(phys.index())
            .map_or(Set::EMPTY, |m| *m & self.writes)
    }

    /// The writes (initial write included) to the physical location of
    /// event `e` (empty when `e` is not a memory event).
    pub(crate) fn writes_to_loc_of(&self, e: usize) -> Set<W> {
        if e < self.n {
            self.writes & self.same_loc[e]
        } else {
            Set::EMPTY
        }
    }
}
