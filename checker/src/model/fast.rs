//! A fast decision procedure for [`super::check`] on executions of at most
//! [`MAX_EVENTS`] events: every relation of 8.9 as one `u64` row per event,
//! computed with word operations and no allocation, and the axioms of 8.10
//! checked on those rows.
//!
//! It computes exactly the relations of the modules next to it (one per
//! concept of chapter 8; their doc comments cite the spec) and decides the
//! same axioms; it does not build witnesses. [`super::check`] uses it first
//! and falls back to the full computation when the execution is inconsistent
//! (to build the witness) or when the fast path cannot decide (a cyclic
//! `po-loc ∪ (ms ∩ com)`, which needs the clique analysis of 8.10.5). In
//! debug builds every fast answer is compared with the full computation.
//!
//! The relations split in two:
//!
//! - [`Statics`]: what depends only on the events (program order, RMW pairs,
//!   morally strong, dependencies, patterns, proxy conversions, locations).
//!   It is built event by event ([`Statics::push`]), so an explorer that adds
//!   events at the end of their thread can keep one up to date and drop the
//!   last events again ([`Statics::truncate`]).
//! - [`Derived`]: what depends on reads-from, coherence, the Fence-SC order
//!   and barrier synchronization, recomputed by [`decide`], or extended by
//!   [`add_read`] when the execution only gained a read at its end.
//!
//! Each thread keeps the statics of the last execution checked
//! ([`with_statics`]): explorers check many candidates with the same events
//! (the reference enumerator) and an explorer can hand over the statics, or
//! the relations of an execution it already found consistent ([`offer`]), so
//! that the check of the shared completion step does not redo them. What is
//! reused is always validated against the execution at hand (same events up
//! to their values, same threads; for relations also the same reads-from,
//! coherence edges, Fence-SC order and barrier synchronization).

// Rows are indexed by event: `for i in 0..n { a[i] = b[i] | c[i] }` reads
// better than zipped iterators over several arrays.
#![allow(clippy::needless_range_loop)]

use super::causality::{direct_case, is_thread_memory, same_cta};
use super::morally_strong::{morally_strong, strong_scope};
use super::patterns::{
    is_acquire_fence, is_acquire_read, is_release_fence, is_release_write, is_strong_read,
    is_strong_write, same_location as same_vloc,
};
use crate::event::{EventId, EventKind};
use crate::execution::Execution;
use ptxmc_frontend::ir::{FenceKind, PhysId, Placement, Proxy, Scope, Sem, ThreadId, VAddrId};
use std::cell::RefCell;

/// The most events the fast path handles (one `u64` per row).
pub(crate) const MAX_EVENTS: usize = 64;

/// One row per event: bit `j` of row `i` is the pair `i -> j`.
pub(crate) type Rows = [u64; MAX_EVENTS];

const EMPTY: Rows = [0; MAX_EVENTS];

#[inline]
fn bit(i: usize) -> u64 {
    1u64 << i
}

/// The set bits of `m`, lowest first.
#[inline]
fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(b)
        }
    })
}

/// `(⋃ rows[i] for i in m)`.
#[inline]
fn union_rows(rows: &Rows, m: u64) -> u64 {
    let mut out = 0;
    for i in bits(m) {
        out |= rows[i];
    }
    out
}

/// Transitive closure of the first `n` rows in place (Warshall on words).
pub(crate) fn close(rows: &mut Rows, n: usize) {
    for k in 0..n {
        let rk = rows[k];
        if rk == 0 {
            continue;
        }
        let b = bit(k);
        for r in rows.iter_mut().take(n) {
            if *r & b != 0 {
                *r |= rk;
            }
        }
    }
}

/// A depth-first search of the relation `rows` over the first `n` rows that
/// calls `closed(v)` when event `v` is left (post-order: every successor of
/// `v` has been left before). Returns false as soon as it meets a cycle.
#[inline(always)]
fn post_order(rows: &Rows, n: usize, mut closed: impl FnMut(usize)) -> bool {
    // 0: not seen, 1: on the stack, 2: left.
    let mut state = [0u8; MAX_EVENTS];
    let mut stack: [(u8, u64); MAX_EVENTS] = [(0, 0); MAX_EVENTS];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut depth = 1;
        stack[0] = (root as u8, rows[root]);
        state[root] = 1;
        while depth > 0 {
            let (v, rest) = stack[depth - 1];
            let v = v as usize;
            if rest == 0 {
                closed(v);
                state[v] = 2;
                depth -= 1;
                continue;
            }
            let j = rest.trailing_zeros() as usize;
            stack[depth - 1].1 = rest & (rest - 1);
            match state[j] {
                0 => {
                    state[j] = 1;
                    stack[depth] = (j as u8, rows[j]);
                    depth += 1;
                }
                1 => return false,
                _ => {}
            }
        }
    }
    true
}

/// The transitive closure of the relation `gen` over the first `n` rows,
/// into `out`, by a depth-first search that unions the closures of each
/// event's successors after them (post-order): `O(n + edges)` word
/// operations. Returns false, leaving `out` unspecified, when the relation
/// has a cycle.
pub(crate) fn close_acyclic(gen: &Rows, out: &mut Rows, n: usize) -> bool {
    post_order(gen, n, |v| out[v] = gen[v] | union_rows(out, gen[v]))
}

/// Whether the relation over the first `n` rows is acyclic (a depth-first
/// search).
pub(crate) fn acyclic(rows: &Rows, n: usize) -> bool {
    post_order(rows, n, |_| {})
}

/// What the relations of [`Statics`] read of one event: two events with
/// equal attributes (and equal program-order predecessors) get the same
/// rows. Values read or written are not in it: no static relation depends
/// on them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
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
    deps: u64,
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
    fn of(exec: &Execution, e: EventId) -> Option<Self> {
        let ev = exec.event(e);
        // Asynchronous operations (8.9.1.1) are not in program order with
        // the rest of their thread: the general check decides them.
        if ev.is_async() {
            return None;
        }
        let mut deps = 0u64;
        for &r in ev
            .addr_deps
            .iter()
            .chain(&ev.data_deps)
            .chain(&ev.ctrl_deps)
        {
            if r.index() >= e.index() || r.index() >= MAX_EVENTS {
                return None;
            }
            deps |= bit(r.index());
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
                .and_then(|t| exec.placements.get(t.index()).copied()),
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

/// What depends only on the events of an execution.
#[derive(Clone)]
pub(crate) struct Statics {
    /// Events pushed so far.
    n: usize,
    attrs: [Option<Attr>; MAX_EVENTS],
    /// Each thread's events, to tell whether an execution has these events.
    threads: Vec<Vec<EventId>>,
    /// Program order (8.9.1).
    po: Rows,
    /// The read half of each RMW to its write half (8.9.2).
    rmw: Rows,
    /// Morally strong (8.7), symmetric.
    ms: Rows,
    /// `r -> e` when e depends on the read r (address, data, control; 8.10.4).
    dep: Rows,
    /// Release patterns (8.8): first operation -> its writes.
    rel_writes: Rows,
    /// Acquire patterns (8.8): read -> the last operations of its patterns.
    acq_last: Rows,
    /// `F -> M` when the proxy fence F converts M's proxy (8.9.5).
    conv: Rows,
    /// Memory events on the same physical location (including initial writes).
    same_loc: Rows,
    /// Pairs of thread memory operations in the direct cases 1 and 2 of
    /// proxy-preserved base causality (8.9.5).
    direct: Rows,
    /// Memory events through the same virtual address and location.
    same_addr: Rows,
    reads: u64,
    writes: u64,
    inits: u64,
    /// Memory operations executed by a thread.
    thread_mem: u64,
    /// Thread memory operations through the generic proxy.
    generic: u64,
    alias_fences: u64,
}

impl Statics {
    /// Nothing pushed yet.
    pub(crate) fn empty() -> Self {
        Self {
            n: 0,
            attrs: [None; MAX_EVENTS],
            threads: Vec::new(),
            po: EMPTY,
            rmw: EMPTY,
            ms: EMPTY,
            dep: EMPTY,
            rel_writes: EMPTY,
            acq_last: EMPTY,
            conv: EMPTY,
            same_loc: EMPTY,
            direct: EMPTY,
            same_addr: EMPTY,
            reads: 0,
            writes: 0,
            inits: 0,
            thread_mem: 0,
            generic: 0,
            alias_fences: 0,
        }
    }

    /// The statics of every event of `exec`, or `None` when the fast path
    /// does not apply ([`Self::rebuild`]).
    pub(crate) fn new(exec: &Execution) -> Option<Self> {
        let mut s = Self::empty();
        s.rebuild(exec).then_some(s)
    }

    /// Makes these the statics of every event of `exec`. Returns false when
    /// the fast path does not apply (too many events, a thread whose events
    /// are not in increasing id order, a dependency on a later event).
    pub(crate) fn rebuild(&mut self, exec: &Execution) -> bool {
        self.truncate(0);
        let n = exec.len();
        if n > MAX_EVENTS {
            return false;
        }
        // Each event's program-order predecessors.
        let mut preds = [0u64; MAX_EVENTS];
        self.threads.resize(exec.threads.len(), Vec::new());
        for th in &exec.threads {
            let mut before = 0u64;
            let mut last = None;
            for &e in th {
                let i = e.index();
                if i >= n || last.is_some_and(|l| l >= i) {
                    return false;
                }
                last = Some(i);
                preds[i] = before;
                before |= bit(i);
            }
        }
        for (i, &p) in preds.iter().enumerate().take(n) {
            if !self.push(exec, EventId::new(i), p) {
                self.truncate(0);
                return false;
            }
        }
        // `push` records thread membership as events come; order it as `exec`.
        debug_assert_eq!(self.threads, exec.threads);
        true
    }

    /// Whether these are the statics of `exec`'s events: same events (up to
    /// the values they read or write), same threads, same placements.
    pub(crate) fn matches(&self, exec: &Execution) -> bool {
        self.n == exec.len()
            && self.threads == exec.threads
            && (0..self.n).all(|i| self.attrs[i] == Attr::of(exec, EventId::new(i)))
    }

    /// The number of events pushed.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    /// Adds event `e` (which must be event number `self.len()` of `exec`, and
    /// the last of its thread so far) whose program-order predecessors are
    /// `preds`. Returns false when the fast path cannot represent it (the
    /// statics are then unchanged).
    pub(crate) fn push(&mut self, exec: &Execution, e: EventId, preds: u64) -> bool {
        let i = e.index();
        if i != self.n || i >= MAX_EVENTS {
            return false;
        }
        let Some(at) = Attr::of(exec, e) else {
            return false;
        };
        let ev = exec.event(e);
        let b = bit(i);
        self.n += 1;
        self.attrs[i] = Some(at);
        if let Some(t) = ev.thread {
            if self.threads.len() <= t.index() {
                self.threads.resize(t.index() + 1, Vec::new());
            }
            self.threads[t.index()].push(e);
        }
        for p in bits(preds) {
            self.po[p] |= b;
        }
        // RMW pair: the write half right after its read half (8.9.1).
        if matches!(ev.kind, EventKind::Write { rmw: true, .. }) {
            if let Some(p) = last_bit(preds) {
                if matches!(exec.events[p].kind, EventKind::Read { rmw: true, .. }) {
                    self.rmw[p] |= b;
                }
            }
        }
        // Dependencies (8.10.4).
        for r in bits(at.deps) {
            self.dep[r] |= b;
        }
        // Release patterns (8.8) ending at e: form 1 (e alone), forms 2 and
        // 3 (a release operation or fence earlier in the thread).
        if is_release_write(ev) {
            self.rel_writes[i] |= b;
        }
        if is_strong_write(ev) {
            for a in bits(preds) {
                let ea = &exec.events[a];
                if is_release_fence(ea) || (is_release_write(ea) && same_vloc(ea, ev)) {
                    self.rel_writes[a] |= b;
                }
            }
        }
        // Acquire patterns (8.8): form 1, and forms 2 and 3 ending at e.
        if is_strong_read(ev) && is_acquire_read(ev) {
            self.acq_last[i] |= b;
        }
        let acq_fence = is_acquire_fence(ev);
        if acq_fence || is_acquire_read(ev) {
            for a in bits(preds) {
                let ea = &exec.events[a];
                if is_strong_read(ea) && (acq_fence || same_vloc(ea, ev)) {
                    self.acq_last[a] |= b;
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
        for a in 0..i {
            let Some(aa) = self.attrs[a] else { continue };
            // Morally strong (8.7), symmetric.
            let ms = aa.morally_strong(&at);
            debug_assert_eq!(ms, morally_strong(exec, EventId::new(a), e));
            if ms {
                self.ms[a] |= b;
                self.ms[i] |= bit(a);
            }
            // Proxy conversions (8.9.5): a non-memory fence with a proxy
            // converts the thread memory operations of that proxy in its CTA.
            if let Some(p) = fence_proxy {
                if aa.thread_memory() && aa.proxy == p && at.same_cta(&aa) {
                    debug_assert!(same_cta(exec, ev, &exec.events[a]));
                    self.conv[i] |= bit(a);
                }
            }
            if thread_mem && aa.converted_proxy() == Some(at.proxy) && aa.same_cta(&at) {
                self.conv[a] |= b;
            }
            // Locations and the direct cases of 8.9.5.
            if let (Some((pa, va)), Some((pe, ve))) = (aa.loc, at.loc) {
                if pa == pe {
                    self.same_loc[a] |= b;
                    self.same_loc[i] |= bit(a);
                    if va == ve {
                        self.same_addr[a] |= b;
                        self.same_addr[i] |= bit(a);
                    }
                    if thread_mem && aa.thread_memory() && aa.direct_case(&at) {
                        debug_assert!(direct_case(exec, &exec.events[a], ev));
                        self.direct[a] |= b;
                        self.direct[i] |= bit(a);
                    }
                }
            }
        }
        if at.loc.is_some() {
            self.same_loc[i] |= b;
            self.same_addr[i] |= b;
            if thread_mem && at.direct_case(&at) {
                self.direct[i] |= b;
            }
        }
        true
    }

    /// Drops every event from number `n` on.
    pub(crate) fn truncate(&mut self, n: usize) {
        if n >= self.n {
            return;
        }
        let keep = if n == 64 { !0 } else { bit(n) - 1 };
        let old = self.n;
        let cut = |rows: &mut Rows| {
            for r in &mut rows[..n] {
                *r &= keep;
            }
            rows[n..old].fill(0);
        };
        cut(&mut self.po);
        cut(&mut self.rmw);
        cut(&mut self.ms);
        cut(&mut self.dep);
        cut(&mut self.rel_writes);
        cut(&mut self.acq_last);
        cut(&mut self.conv);
        cut(&mut self.same_loc);
        cut(&mut self.direct);
        cut(&mut self.same_addr);
        for m in [
            &mut self.reads,
            &mut self.writes,
            &mut self.inits,
            &mut self.thread_mem,
            &mut self.generic,
            &mut self.alias_fences,
        ] {
            *m &= keep;
        }
        for i in n..self.n {
            if let Some(t) = self.attrs[i].and_then(|a| a.thread) {
                if let Some(th) = self.threads.get_mut(t.index()) {
                    th.pop();
                }
            }
            self.attrs[i] = None;
        }
        self.n = n;
    }

    /// Copies `other` into `self` (only the rows in use).
    pub(crate) fn copy_from(&mut self, other: &Statics) {
        let n = other.n;
        self.truncate(0);
        self.n = n;
        self.attrs[..n].copy_from_slice(&other.attrs[..n]);
        self.threads.clone_from(&other.threads);
        for (dst, src) in [
            (&mut self.po, &other.po),
            (&mut self.rmw, &other.rmw),
            (&mut self.ms, &other.ms),
            (&mut self.dep, &other.dep),
            (&mut self.rel_writes, &other.rel_writes),
            (&mut self.acq_last, &other.acq_last),
            (&mut self.conv, &other.conv),
            (&mut self.same_loc, &other.same_loc),
            (&mut self.direct, &other.direct),
            (&mut self.same_addr, &other.same_addr),
        ] {
            dst[..n].copy_from_slice(&src[..n]);
        }
        self.reads = other.reads;
        self.writes = other.writes;
        self.inits = other.inits;
        self.thread_mem = other.thread_mem;
        self.generic = other.generic;
        self.alias_fences = other.alias_fences;
    }

    /// Morally strong (8.7) as rows.
    pub(crate) fn ms(&self) -> &Rows {
        &self.ms
    }

    /// The writes (initial write included) to the physical location of
    /// event `e`, as a mask (empty when `e` is not a memory event).
    pub(crate) fn writes_to_loc_of(&self, e: usize) -> u64 {
        if e < self.n {
            self.writes & self.same_loc[e]
        } else {
            0
        }
    }
}

/// What [`with_statics`] keeps on each thread.
struct Cache {
    /// The statics of the last execution seen.
    statics: Statics,
    /// Scratch space; when `decided` is set, the relations of a consistent
    /// execution with those events and this `key`.
    derived: Derived,
    /// Whether `derived` holds the relations of the consistent execution
    /// with the events of `statics` and the choices of `key`.
    decided: bool,
    key: Key,
}

/// The choices of an execution besides its events: reads-from, the
/// explorer's coherence edges, Fence-SC order, barrier synchronization.
#[derive(Default)]
struct Key {
    rf: Vec<Option<EventId>>,
    co: Vec<u64>,
    fence_sc: Vec<EventId>,
    fence_sc_prefix: Option<usize>,
    barrier_sync: Vec<(EventId, EventId)>,
}

impl Key {
    fn set(&mut self, exec: &Execution) {
        self.rf.clone_from(&exec.rf);
        self.co.clear();
        self.co
            .extend((0..exec.len()).map(|a| exec.co.row_word(EventId::new(a), 0)));
        self.fence_sc.clone_from(&exec.fence_sc);
        self.fence_sc_prefix = exec.fence_sc_prefix;
        self.barrier_sync.clone_from(&exec.barrier_sync);
    }

    fn matches(&self, exec: &Execution) -> bool {
        self.rf == exec.rf
            && self.co.len() == exec.len()
            && self
                .co
                .iter()
                .enumerate()
                .all(|(a, &w)| exec.co.row_word(EventId::new(a), 0) == w)
            && self.fence_sc == exec.fence_sc
            && self.fence_sc_prefix == exec.fence_sc_prefix
            && self.barrier_sync == exec.barrier_sync
    }
}

impl Cache {
    fn new() -> Box<Self> {
        Box::new(Self {
            statics: Statics::empty(),
            derived: Derived::new(),
            decided: false,
            key: Key::default(),
        })
    }
}

thread_local! {
    /// The statics of the last execution [`with_statics`] saw on this
    /// thread (explorers check many candidates with the same events and
    /// different reads-from or coherence), and possibly its decision.
    static LAST: RefCell<Option<Box<Cache>>> = const { RefCell::new(None) };
}

/// Runs `f` with the statics of `exec` (reused when this thread's last
/// execution had the same events, see [`Statics::matches`]) and scratch
/// [`Derived`] relations, or returns `None` when the fast path does not
/// apply. The flag given to `f` says that the [`Derived`] already holds the
/// relations of `exec`, found consistent ([`offer`]): same events, same
/// reads-from, coherence edges, Fence-SC order and barrier synchronization.
pub(crate) fn with_statics<R>(
    exec: &Execution,
    f: impl FnOnce(&Statics, &mut Derived, bool) -> R,
) -> Option<R> {
    if exec.len() > MAX_EVENTS {
        return None;
    }
    LAST.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            // Re-entered (never in practice): build a private copy.
            return Statics::new(exec).map(|st| f(&st, &mut Derived::new(), false));
        };
        let c = &mut **slot.get_or_insert_with(Cache::new);
        let decided = if c.statics.matches(exec) {
            c.decided && c.key.matches(exec)
        } else if c.statics.rebuild(exec) {
            false
        } else {
            c.decided = false;
            return None;
        };
        // `f` may overwrite the relations.
        c.decided = false;
        let r = f(&c.statics, &mut c.derived, decided);
        c.decided = decided;
        Some(r)
    })
}

/// Offers `st`, the statics of an execution about to be checked, to
/// [`with_statics`] on this thread (saves rebuilding them).
pub(crate) fn offer_statics(st: &Statics) {
    LAST.with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            let c = &mut **slot.get_or_insert_with(Cache::new);
            c.statics.copy_from(st);
            c.decided = false;
        }
    });
}

/// Offers `st`, the statics of `exec`, and `d`, its relations, found
/// consistent by [`decide`], to [`with_statics`] on this thread: a check of
/// the same execution then only reads them off.
pub(crate) fn offer(exec: &Execution, st: &Statics, d: &Derived) {
    LAST.with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            let c = &mut **slot.get_or_insert_with(Cache::new);
            c.statics.copy_from(st);
            c.derived.copy_from(d, st.len());
            c.key.set(exec);
            c.decided = true;
        }
    });
}

fn last_bit(m: u64) -> Option<usize> {
    (m != 0).then(|| 63 - m.leading_zeros() as usize)
}

/// The relations that depend on reads-from, coherence, Fence-SC order and
/// barrier synchronization, and scratch rows. Only the first `n` rows mean
/// anything: [`decide`] writes each row it reads, so one `Derived` is reused
/// from check to check without clearing it.
#[derive(Clone)]
pub(crate) struct Derived {
    pub rf: Rows,
    pub obs: Rows,
    pub sync: Rows,
    pub base: Rows,
    pub causality: Rows,
    pub co: Rows,
    pub fr: Rows,
    scratch_a: Rows,
    scratch_b: Rows,
    scratch_c: Rows,
}

impl Derived {
    /// Copies the first `n` rows of the relations of `other`.
    pub(crate) fn copy_from(&mut self, other: &Derived, n: usize) {
        for (dst, src) in [
            (&mut self.rf, &other.rf),
            (&mut self.obs, &other.obs),
            (&mut self.sync, &other.sync),
            (&mut self.base, &other.base),
            (&mut self.causality, &other.causality),
            (&mut self.co, &other.co),
            (&mut self.fr, &other.fr),
        ] {
            dst[..n].copy_from_slice(&src[..n]);
        }
    }

    pub(crate) fn new() -> Self {
        Self {
            rf: EMPTY,
            obs: EMPTY,
            sync: EMPTY,
            base: EMPTY,
            causality: EMPTY,
            co: EMPTY,
            fr: EMPTY,
            scratch_a: EMPTY,
            scratch_b: EMPTY,
            scratch_c: EMPTY,
        }
    }
}

/// What [`decide`] found.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Decision {
    /// Every axiom holds; the relations are in the [`Derived`].
    Consistent,
    /// Some axiom fails.
    Inconsistent,
    /// The fast path cannot tell (the full check must decide).
    Unknown,
}

/// Decides the axioms of 8.10 for `exec`, whose events are those of `st`,
/// leaving the relations in `d`.
pub(crate) fn decide(exec: &Execution, st: &Statics, d: &mut Derived) -> Decision {
    let n = st.n;
    if exec.len() != n || exec.co.len() != n || exec.rf.len() != n || n > MAX_EVENTS {
        return Decision::Unknown;
    }
    let Derived {
        rf,
        obs,
        sync,
        base,
        causality,
        co,
        fr,
        scratch_a,
        scratch_b,
        scratch_c,
    } = d;
    // Reads-from (8.9.7 item 1): W -> R.
    rf[..n].fill(0);
    for (r, w) in exec.rf.iter().enumerate() {
        if let Some(w) = w {
            if w.index() >= n {
                return Decision::Unknown;
            }
            rf[w.index()] |= bit(r);
        }
    }
    // Observation order (8.9.2): (ms ∩ rf) ; (rmw ; (ms ∩ rf))*.
    let ms_rf = &mut *scratch_a;
    for i in 0..n {
        ms_rf[i] = st.ms[i] & rf[i];
    }
    let step = &mut *scratch_b;
    for (slot, &m) in step.iter_mut().zip(&st.rmw).take(n) {
        *slot = match m {
            0 => 0,
            m => union_rows(ms_rf, m),
        };
    }
    for w in 0..n {
        let mut row = ms_rf[w];
        let mut frontier = row;
        while frontier != 0 {
            let next = union_rows(step, frontier) & !row;
            row |= next;
            frontier = next;
        }
        obs[w] = row;
    }
    // Synchronizes-with (8.9.4): Fence-SC (item 1), barriers (items 2, 3),
    // release and acquire patterns (item 4).
    sync[..n].fill(0);
    if exec.fence_sc.iter().any(|f| f.index() >= n) {
        return Decision::Unknown;
    }
    for (x, y) in exec.fence_sc_pairs() {
        if st.ms[x.index()] & bit(y.index()) != 0 {
            sync[x.index()] |= bit(y.index());
        }
    }
    for &(x, y) in &exec.barrier_sync {
        if x.index() >= n || y.index() >= n {
            return Decision::Unknown;
        }
        sync[x.index()] |= bit(y.index());
    }
    for (first, slot) in sync.iter_mut().enumerate().take(n) {
        let w = st.rel_writes[first];
        if w != 0 {
            let observed = union_rows(obs, w);
            *slot |= union_rows(&st.acq_last, observed) & st.ms[first];
        }
    }
    // Base causality (8.9.5): (po ∪ sync)+. Program order is transitive, so
    // the closure of each event's next event in its thread and its sync
    // successors is the same; the search is linear when that is acyclic.
    let imm = &mut *scratch_a;
    for i in 0..n {
        imm[i] = (st.po[i] & st.po[i].wrapping_neg()) | sync[i];
    }
    if !close_acyclic(imm, base, n) {
        for i in 0..n {
            base[i] = st.po[i] | sync[i];
        }
        close(base, n);
    }
    // Proxy-preserved base causality (8.9.5), items 1 and 2, between thread
    // memory operations.
    let pp = &mut *scratch_a;
    for x in 0..n {
        pp[x] = base[x] & st.direct[x];
    }
    // Through proxy conversions and alias fences (item 3 and the converted
    // cases of `ptx-v7.5.cat`).
    if st.alias_fences != 0 || st.conv[..n].iter().any(|&r| r != 0) {
        // src: X -> X (generic) or X -> F (F converts X, after X).
        // dst: Y -> Y (generic) or F -> Y (F converts Y, before Y).
        let src = &mut *scratch_b;
        let dst = &mut *scratch_c;
        src[..n].fill(0);
        dst[..n].fill(0);
        for x in bits(st.generic) {
            src[x] |= bit(x);
            dst[x] |= bit(x);
        }
        for f in 0..n {
            let c = st.conv[f];
            if c == 0 {
                continue;
            }
            dst[f] |= c & base[f];
            for x in bits(c) {
                if base[x] & bit(f) != 0 {
                    src[x] |= bit(f);
                }
            }
        }
        for x in bits(st.thread_mem) {
            let src_base = union_rows(base, src[x]);
            let same_address_paths = union_rows(dst, src_base);
            pp[x] |= same_address_paths & st.same_addr[x] & st.thread_mem;
            let via_alias = union_rows(base, src_base & st.alias_fences);
            let alias_paths = union_rows(dst, via_alias);
            pp[x] |= alias_paths & st.same_loc[x] & st.thread_mem;
        }
    }
    // P: proxy-preserved between memory operations, base causality for every
    // other pair; causality order = P ∪ (observation ; P).
    let p = &mut *scratch_b;
    for x in 0..n {
        p[x] = if st.thread_mem & bit(x) != 0 {
            pp[x] | (base[x] & !st.thread_mem)
        } else {
            base[x]
        };
    }
    for x in 0..n {
        causality[x] = p[x] | union_rows(p, obs[x]);
    }
    // Coherence (8.9.6, 8.10.1): chosen edges, initial writes first, and
    // causality between overlapping writes; acyclic, then closed.
    for (a, g) in co.iter_mut().enumerate().take(n) {
        *g = exec.co.row_word(EventId::new(a), 0);
    }
    for i in bits(st.inits) {
        co[i] |= st.same_loc[i] & st.writes & !st.inits & !bit(i);
    }
    for w in bits(st.writes) {
        co[w] |= causality[w] & st.writes & st.same_loc[w] & !bit(w);
    }
    let gen = &mut *scratch_a;
    gen[..n].copy_from_slice(&co[..n]);
    if !close_acyclic(gen, co, n) {
        return Decision::Inconsistent;
    }
    // From-reads (8.9.7 item 3): rf^-1 ; co.
    for (r, w) in exec.rf.iter().enumerate() {
        fr[r] = w.map_or(0, |w| co[w.index()]);
    }
    // Fence-SC (8.10.2): F1 before F2 in Fence-SC order, morally strong:
    // F2 must not precede F1 in causality order.
    for (f1, f2) in exec.fence_sc_pairs() {
        let (a, b) = (f1.index(), f2.index());
        if st.ms[a] & bit(b) != 0 && causality[b] & bit(a) != 0 {
            return Decision::Inconsistent;
        }
    }
    // Atomicity (8.10.3). Single-copy atomicity cannot fail while every
    // overlap is complete: it needs a write coherence-before itself, and
    // coherence is acyclic here. RMW atomicity: no morally strong write W
    // between the write A's read reads from and A's write.
    for ar in bits(st.reads) {
        let Some(aw) = last_bit(st.rmw[ar]) else {
            continue;
        };
        let Some(w0) = exec.rf[ar] else { continue };
        let between = co[w0.index()] & st.ms[aw] & st.ms[ar] & !bit(aw);
        if bits(between).any(|w| co[w] & bit(aw) != 0) {
            return Decision::Inconsistent;
        }
    }
    // No-Thin-Air (8.10.4): rf ∪ dep acyclic.
    let rf_dep = &mut *scratch_a;
    for i in 0..n {
        rf_dep[i] = rf[i] | st.dep[i];
    }
    if !acyclic(rf_dep, n) {
        return Decision::Inconsistent;
    }
    // Causality (8.10.6): R must not read from a write it precedes in
    // causality order, nor from-read a write that precedes it.
    for r in bits(st.reads) {
        if let Some(w) = exec.rf[r] {
            if causality[r] & bit(w.index()) != 0 {
                return Decision::Inconsistent;
            }
        }
        let overlapping = fr[r] & st.same_loc[r];
        if bits(overlapping).any(|w| causality[w] & bit(r) != 0) {
            return Decision::Inconsistent;
        }
    }
    // Coherence (8.10.1) for a write that precedes itself in causality order.
    if bits(st.writes).any(|w| causality[w] & bit(w) != 0) {
        return Decision::Inconsistent;
    }
    // SC per location (8.10.5): po-loc ∪ (ms ∩ com) over thread memory
    // operations of one location contains every edge of every pairwise
    // morally strong set; if it is acyclic the axiom holds, otherwise the
    // clique analysis of the full check decides.
    let loc_rel = &mut *scratch_a;
    for a in 0..n {
        loc_rel[a] = if st.thread_mem & bit(a) != 0 {
            let com = rf[a] | co[a] | fr[a];
            (st.po[a] | (st.ms[a] & com)) & st.same_loc[a] & st.thread_mem
        } else {
            0
        };
    }
    if !acyclic(loc_rel, n) {
        return Decision::Unknown;
    }
    Decision::Consistent
}

/// The events that precede event `r` in causality order (8.9.5), in the
/// relations `d` (as [`add_read`] leaves them for the read `r`).
pub(crate) fn preceding(d: &Derived, r: usize) -> u64 {
    let b = bit(r);
    d.causality[..r.min(MAX_EVENTS)]
        .iter()
        .enumerate()
        .fold(0, |m, (x, &row)| if row & b != 0 { m | bit(x) } else { m })
}

/// Extends `d`, the relations of a consistent execution, to the same
/// execution with one more event: the read `r`, the last event of `exec` and
/// of its thread, reading from `exec.rf[r]` (or from nothing yet, for a read
/// committed to a later write). Decides the axioms of 8.10 for the result,
/// checking only what the read can break (Causality and SC per location
/// through `r`), and leaves its relations in `d`.
///
/// Why that is all: `r` is the last event of every order it takes part in.
/// It has no program-order successor and starts no release pattern, so
/// every new edge of program order, synchronization, base causality,
/// observation (its chains end with reading from a write) and causality ends
/// at `r`; coherence only relates writes and does not change; `r` adds the
/// reads-from edge into itself, dependencies into itself, and from-reads
/// out of itself. So a new cycle of an axiom must leave `r` by from-reads:
/// Causality (`r` from-reads a write that precedes it) or SC per location.
///
/// Preconditions, checked where cheap (else `Unknown`): `d` holds the
/// relations that [`decide`] found consistent for `exec` without `r`, with
/// the same Fence-SC order (at most one fence, so no pair) and no barrier
/// synchronization; no proxy conversions or alias fences (their paths would
/// need more than a column).
pub(crate) fn add_read(exec: &Execution, st: &Statics, d: &mut Derived, r: usize) -> Decision {
    let n = st.n;
    let b = bit(r);
    if n != r + 1
        || exec.len() != n
        || exec.rf.len() != n
        || exec.co.len() != n
        || exec.fence_sc.len() > 1
        || !exec.barrier_sync.is_empty()
        || st.reads & b == 0
        || st.rmw[r] != 0
        || st.alias_fences != 0
        || st.conv[..n].iter().any(|&c| c != 0)
    {
        return Decision::Unknown;
    }
    let Derived {
        rf,
        obs,
        sync,
        base,
        causality,
        co,
        fr,
        ..
    } = d;
    rf[r] = 0;
    obs[r] = 0;
    sync[r] = 0;
    base[r] = 0;
    causality[r] = 0;
    co[r] = 0;
    fr[r] = 0;
    let w = exec.rf[r].map(|w| w.index());
    if let Some(w) = w {
        if w >= r {
            return Decision::Unknown;
        }
        // Reads-from, from-reads (8.9.7).
        rf[w] |= b;
        fr[r] = co[w];
        // Observation (8.9.2): chains that end by r reading from w morally
        // strongly, directly or through the RMW whose write half is w.
        if st.ms[w] & b != 0 {
            obs[w] |= b;
            if let Some(x) = bits(st.reads).find(|&x| st.rmw[x] & bit(w) != 0) {
                for row in obs[..r].iter_mut() {
                    if *row & bit(x) != 0 {
                        *row |= b;
                    }
                }
            }
        }
    }
    // Synchronization (8.9.4 item 4) into r: release patterns whose write
    // is observed by the read of an acquire pattern ending at r.
    for first in 0..r {
        let writes = st.rel_writes[first];
        if writes != 0 && st.ms[first] & b != 0 {
            let observed = union_rows(obs, writes);
            if union_rows(&st.acq_last, observed) & b != 0 {
                sync[first] |= b;
            }
        }
    }
    // Base causality (8.9.5) into r: through its program-order and
    // synchronization predecessors.
    let mut preds = 0u64;
    for x in 0..r {
        if (st.po[x] | sync[x]) & b != 0 {
            preds |= bit(x);
        }
    }
    for x in 0..r {
        if preds & bit(x) != 0 || base[x] & preds != 0 {
            base[x] |= b;
        }
    }
    // Causality (8.9.5) into r: P (proxy-preserved base causality between
    // memory operations: the direct cases, there being no conversion), and
    // observation followed by P.
    let mut pcol = 0u64;
    for x in 0..r {
        let into_r = if st.thread_mem & bit(x) != 0 {
            base[x] & st.direct[x] & b
        } else {
            base[x] & b
        };
        if into_r != 0 {
            pcol |= bit(x);
        }
    }
    for x in 0..r {
        if pcol & bit(x) != 0 || obs[x] & pcol != 0 {
            causality[x] |= b;
        }
    }
    // Causality (8.10.6): r must not from-read a write that precedes it
    // (it cannot precede the write it reads from: nothing follows r).
    let overlapping = fr[r] & st.same_loc[r];
    if bits(overlapping).any(|w| causality[w] & b != 0) {
        return Decision::Inconsistent;
    }
    // SC per location (8.10.5): `po-loc ∪ (ms ∩ com)` was acyclic without
    // r, and r only gains edges into it and from-read edges out of it, so a
    // new cycle leaves r by a from-read to a morally strong write of its
    // location and comes back to r: a search from those writes, over the
    // relation with r, that stops when it reaches r.
    let out = fr[r] & st.ms[r] & st.same_loc[r] & st.thread_mem;
    if out != 0 {
        let loc_row = |a: usize| {
            let com = rf[a] | co[a] | fr[a];
            (st.po[a] | (st.ms[a] & com)) & st.same_loc[a] & st.thread_mem
        };
        let mut reached = out;
        let mut frontier = out;
        while frontier != 0 {
            let mut next = 0;
            for a in bits(frontier) {
                next |= loc_row(a);
            }
            if next & b != 0 {
                return Decision::Unknown;
            }
            frontier = next & !reached;
            reached |= next;
        }
    }
    Decision::Consistent
}

#[cfg(test)]
mod tests {
    //! The fast path against the full computation on random executions.

    use super::*;
    use crate::model::testutil::*;
    use crate::model::{check_full, Relations};
    use ptxmc_frontend::ir::Scope;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[self.below(xs.len())]
        }
    }

    /// A random candidate execution: threads in a few CTAs and GPUs,
    /// accesses through aliases and proxies, fences of every kind, RMWs,
    /// dependencies, any reads-from, coherence orientations (and sometimes
    /// extra coherence edges), Fence-SC orders and barrier pairs.
    fn random_execution(rng: &mut Rng) -> crate::execution::Execution {
        let mut b = ExecBuilder::new(2);
        let alias = b.alias(0);
        let addrs = [
            b.loc(0),
            b.loc(1),
            alias,
            b.loc(0).via(Proxy::Surface),
            alias.via(Proxy::Texture),
        ];
        let strengths = [
            WEAK,
            WEAK,
            RLX_CTA,
            RLX_GPU,
            RLX_SYS,
            REL_GPU,
            ACQ_GPU,
            ACQ_SYS,
            ACQ_REL_GPU,
            (Sem::Volatile, None),
        ];
        let fences = [
            (FenceKind::Sc, Some(Scope::Gpu)),
            (FenceKind::Sc, Some(Scope::Cta)),
            (FenceKind::AcqRel, Some(Scope::Gpu)),
            (FenceKind::Acquire, Some(Scope::Sys)),
            (FenceKind::Release, Some(Scope::Cta)),
            (FenceKind::ProxyAlias, None),
            (FenceKind::ProxySurface, None),
            (FenceKind::ProxyTexture, None),
        ];
        let placements = [cta(0), cta(0), cta(1), gpu(1)];
        let n_threads = 1 + rng.below(4);
        let mut reads = Vec::new();
        let mut writes: Vec<EventId> = (0..2).map(|i| b.init(i)).collect();
        let mut barriers = Vec::new();
        for _ in 0..n_threads {
            let t = b.thread(rng.pick(&placements));
            let mut thread_reads = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let a = rng.pick(&addrs);
                let s = rng.pick(&strengths);
                let e = match rng.below(10) {
                    0..=2 => {
                        let w = b.st(t, a, 1 + rng.below(3) as i64, s);
                        writes.push(w);
                        w
                    }
                    3..=5 => {
                        let r = b.ld(t, a, s);
                        reads.push(r);
                        thread_reads.push(r);
                        r
                    }
                    6 | 7 => {
                        let (r, w) = if rng.below(3) == 0 {
                            b.red(t, a, s)
                        } else {
                            b.rmw(t, a, s)
                        };
                        reads.push(r);
                        writes.push(w);
                        thread_reads.push(r);
                        w
                    }
                    8 => {
                        let (k, scope) = rng.pick(&fences);
                        b.fence(t, k, scope)
                    }
                    _ => {
                        let x = b.barrier(t);
                        barriers.push(x);
                        x
                    }
                };
                if !thread_reads.is_empty() && rng.below(3) == 0 {
                    let r = rng.pick(&thread_reads);
                    if r != e {
                        let kind = rng.pick(&[Dep::Addr, Dep::Data, Dep::Ctrl]);
                        b.dep(r, e, kind);
                    }
                }
            }
        }
        let mut exec = b.build();
        for &r in &reads {
            let phys = exec.event(r).loc().map(|l| l.phys);
            let same: Vec<EventId> = writes
                .iter()
                .copied()
                .filter(|&w| exec.event(w).loc().map(|l| l.phys) == phys)
                .collect();
            exec.rf[r.index()] = Some(rng.pick(&same));
        }
        // Flip some chosen orientations, add an extra edge now and then.
        let pairs: Vec<(EventId, EventId)> = exec.co.pairs().collect();
        for (a, c) in pairs {
            if rng.below(3) == 0 {
                exec.co.remove(a, c);
                exec.co.insert(c, a);
            }
        }
        if rng.below(4) == 0 {
            let (a, c) = (rng.pick(&writes), rng.pick(&writes));
            let phys = |e: EventId| exec.event(e).loc().map(|l| l.phys);
            if a != c && phys(a) == phys(c) {
                exec.co.insert(a, c);
            }
        }
        // A random Fence-SC order.
        let mut f = exec.fence_sc.clone();
        for i in (1..f.len()).rev() {
            f.swap(i, rng.below(i + 1));
        }
        exec.fence_sc = f;
        if barriers.len() > 1 && rng.below(2) == 0 {
            let (x, y) = (rng.pick(&barriers), rng.pick(&barriers));
            if x != y {
                exec.barrier_sync.push((x, y));
            }
        }
        exec
    }

    /// The first `keep` events of `exec` (ids increase along each thread).
    fn prefix(exec: &crate::execution::Execution, keep: usize) -> crate::execution::Execution {
        let mut p = exec.clone();
        p.events.truncate(keep);
        p.rf.truncate(keep);
        for th in &mut p.threads {
            th.retain(|e| e.index() < keep);
        }
        p.co.resize(keep);
        p.fence_sc.retain(|e| e.index() < keep);
        p.barrier_sync
            .retain(|&(x, y)| x.index() < keep && y.index() < keep);
        p
    }

    /// Whether two statics describe the same events the same way.
    fn same(a: &Statics, b: &Statics) -> bool {
        let n = a.n;
        let rows = |x: &Statics| {
            [
                x.po,
                x.rmw,
                x.ms,
                x.dep,
                x.rel_writes,
                x.acq_last,
                x.conv,
                x.same_loc,
                x.direct,
                x.same_addr,
            ]
            .map(|r| r[..n].to_vec())
        };
        let masks = |x: &Statics| {
            [
                x.reads,
                x.writes,
                x.inits,
                x.thread_mem,
                x.generic,
                x.alias_fences,
            ]
        };
        n == b.n
            && a.attrs[..n] == b.attrs[..n]
            && a.threads == b.threads
            && rows(a) == rows(b)
            && masks(a) == masks(b)
    }

    fn relations_eq(a: &Relations, b: &Relations) -> bool {
        a.co == b.co
            && a.rf == b.rf
            && a.fr == b.fr
            && a.morally_strong == b.morally_strong
            && a.observation == b.observation
            && a.sync == b.sync
            && a.base_causality == b.base_causality
            && a.causality == b.causality
    }

    #[test]
    fn fast_path_agrees_with_the_full_check() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut consistent, mut inconsistent, mut unknown) = (0, 0, 0);
        for case in 0..20_000 {
            let exec = random_execution(&mut rng);
            let st = Statics::new(&exec).expect("small executions take the fast path");
            let mut d = Derived::new();
            let full = check_full(&exec);
            match decide(&exec, &st, &mut d) {
                Decision::Consistent => {
                    consistent += 1;
                    let full = full.unwrap_or_else(|v| panic!("case {case}: full check: {v:?}"));
                    let fast = crate::model::fast_relations(exec.len(), &st, &d);
                    assert!(relations_eq(&fast, &full), "case {case}: relations differ");
                }
                Decision::Inconsistent => {
                    inconsistent += 1;
                    assert!(full.is_err(), "case {case}: full check says consistent");
                }
                Decision::Unknown => unknown += 1,
            }
            // Grown event by event, cut back, and reused for another
            // execution, the statics are those built from scratch.
            let mut grown = Statics::new(&prefix(&exec, 2)).expect("initial writes");
            for i in 2..exec.len() {
                let t = exec.event(EventId::new(i)).thread.expect("a thread event");
                let preds = exec.threads[t.index()]
                    .iter()
                    .take_while(|e| e.index() < i)
                    .fold(0u64, |m, e| m | bit(e.index()));
                assert!(grown.push(&exec, EventId::new(i), preds));
            }
            assert!(same(&grown, &st), "case {case}: pushed one by one");
            assert!(grown.matches(&exec));
            let keep = 2 + rng.below(exec.len() - 1);
            grown.truncate(keep);
            let cut = prefix(&exec, keep);
            assert!(
                same(&grown, &Statics::new(&cut).unwrap()),
                "case {case}: truncated"
            );
            assert_eq!(grown.matches(&exec), keep == exec.len());
            let mut reused = Statics::new(&cut).unwrap();
            assert!(
                reused.rebuild(&exec) && same(&reused, &st),
                "case {case}: rebuilt"
            );
        }
        eprintln!(
            "fast path: {consistent} consistent, {inconsistent} inconsistent, {unknown} unknown"
        );
        assert!(
            consistent > 1000 && inconsistent > 1000,
            "{consistent} {inconsistent} {unknown}"
        );
        assert!(
            unknown * 20 < consistent + inconsistent,
            "{unknown} unknown"
        );
    }

    #[test]
    fn adding_a_read_agrees_with_deciding_from_scratch() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut same, mut pruned, mut unknown) = (0, 0, 0);
        for case in 0..40_000 {
            let mut exec = random_execution(&mut rng);
            let r = exec.len() - 1;
            if !exec.event(EventId::new(r)).is_read() {
                continue;
            }
            if rng.below(4) == 0 {
                // Committed to a write not in the graph yet.
                exec.rf[r] = None;
            }
            exec.fence_sc.truncate(1);
            exec.barrier_sync.clear();
            let before = prefix(&exec, r);
            let st0 = Statics::new(&before).unwrap();
            let mut d = Derived::new();
            if decide(&before, &st0, &mut d) != Decision::Consistent {
                continue;
            }
            let st = Statics::new(&exec).unwrap();
            let mut fresh = Derived::new();
            let expected = decide(&exec, &st, &mut fresh);
            match add_read(&exec, &st, &mut d, r) {
                Decision::Consistent => {
                    same += 1;
                    assert_eq!(expected, Decision::Consistent, "case {case}");
                    let n = exec.len();
                    for (what, a, b) in [
                        ("rf", &d.rf, &fresh.rf),
                        ("obs", &d.obs, &fresh.obs),
                        ("sync", &d.sync, &fresh.sync),
                        ("base", &d.base, &fresh.base),
                        ("causality", &d.causality, &fresh.causality),
                        ("co", &d.co, &fresh.co),
                        ("fr", &d.fr, &fresh.fr),
                    ] {
                        assert_eq!(a[..n], b[..n], "case {case}: {what}");
                    }
                }
                Decision::Inconsistent => {
                    pruned += 1;
                    assert_eq!(expected, Decision::Inconsistent, "case {case}");
                }
                Decision::Unknown => unknown += 1,
            }
        }
        eprintln!("add_read: {same} consistent, {pruned} inconsistent, {unknown} unknown");
        assert!(same > 500 && pruned > 100, "{same} {pruned} {unknown}");
    }
}
