//! Events: the operations of one execution (8.2, 8.4), produced by running
//! each thread's IR with concrete register values.
//!
//! A position (`thread`, `po_index`) is not an event's identity: events are
//! dense [`EventId`]s into [`crate::execution::Execution::events`].

use ptxmc_frontend::ir::{
    AddrId, BarrierKind, FenceKind, PhysId, Proxy, Scope, Sem, Span, ThreadId, VAddrId,
};
use smallvec::SmallVec;

/// A dense event index.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct EventId(pub u32);

impl EventId {
    /// Builds the id from a dense index.
    #[inline]
    pub fn new(i: usize) -> Self {
        debug_assert!(i <= u32::MAX as usize);
        Self(i as u32)
    }
    /// The dense index.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The memory location and virtual address a memory event accesses (8.2, 8.2.2).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Location {
    /// Physical location: events with equal `phys` overlap completely.
    pub phys: PhysId,
    /// Virtual address: equal `vaddr` means "same address" in 8.9.5.
    pub vaddr: VAddrId,
    /// The declared name used by the instruction.
    pub addr: AddrId,
}

/// What an event does.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum EventKind {
    /// A read of `value`. `rmw` is true for the read half of an `atom`/`red`;
    /// `red` is true for the read half of a `red` (never an acquire pattern, 8.11.1).
    Read {
        /// Where.
        loc: Location,
        /// The value read.
        value: i64,
        /// Read half of an atomic RMW.
        rmw: bool,
        /// Read half of a reduction (`red`).
        red: bool,
    },
    /// A write of `value`. `rmw` is true for the write half of an atomic RMW
    /// (which immediately follows its read half in program order).
    Write {
        /// Where.
        loc: Location,
        /// The value written.
        value: i64,
        /// Write half of an atomic RMW.
        rmw: bool,
        /// The initial write W0 of 8.2.6 (no thread).
        init: bool,
    },
    /// A fence.
    Fence(FenceKind),
    /// A barrier operation.
    Barrier {
        /// Kind.
        kind: BarrierKind,
        /// Static instance number.
        instance: u32,
        /// Runtime barrier id.
        id: i64,
        /// Runtime expected count, if any.
        count: Option<i64>,
    },
}

/// One event of an execution.
#[derive(PartialEq, Eq, Hash, Debug)]
pub struct Event {
    /// The executing thread; `None` for initial writes.
    pub thread: Option<ThreadId>,
    /// Index in the thread's program order (0-based); 0 for initial writes.
    pub po_index: u32,
    /// What it does.
    pub kind: EventKind,
    /// Semantics of the instruction (`Weak` for fences and barriers is never read).
    pub sem: Sem,
    /// Scope of a strong operation or memory fence.
    pub scope: Option<Scope>,
    /// Proxy of the access (memory events); `Generic` otherwise.
    pub proxy: Proxy,
    /// Source position of the instruction.
    pub span: Span,
    /// Index of the instruction in the thread's code.
    pub instr: u32,
    /// Reads this event depends on through addresses (8.10.4).
    pub addr_deps: SmallVec<[EventId; 2]>,
    /// Reads whose values flow into the value this event writes (8.10.4).
    pub data_deps: SmallVec<[EventId; 2]>,
    /// Reads that decided a branch before this event (8.10.4).
    pub ctrl_deps: SmallVec<[EventId; 2]>,
    /// The asynchronous operation performing the event, and those it waited
    /// for (8.9.1.1); the default for events of ordinary instructions.
    pub async_order: AsyncOrder,
}

/// Copied field by field, the dependency sets with [`copy_ids`]: thread
/// states clone the event they are about to emit each time they are asked
/// for it, and restore it with their state.
impl Clone for Event {
    #[inline]
    fn clone(&self) -> Self {
        Event {
            thread: self.thread,
            po_index: self.po_index,
            kind: self.kind,
            sem: self.sem,
            scope: self.scope,
            proxy: self.proxy,
            span: self.span,
            instr: self.instr,
            addr_deps: copy_ids(&self.addr_deps),
            data_deps: copy_ids(&self.data_deps),
            ctrl_deps: copy_ids(&self.ctrl_deps),
            async_order: self.async_order,
        }
    }

    #[inline]
    fn clone_from(&mut self, source: &Self) {
        self.thread = source.thread;
        self.po_index = source.po_index;
        self.kind = source.kind;
        self.sem = source.sem;
        self.scope = source.scope;
        self.proxy = source.proxy;
        self.span = source.span;
        self.instr = source.instr;
        set_ids(&mut self.addr_deps, &source.addr_deps);
        set_ids(&mut self.data_deps, &source.data_deps);
        set_ids(&mut self.ctrl_deps, &source.ctrl_deps);
        self.async_order = source.async_order;
    }
}

/// A copy of a small set of event ids: one or two ids are written inline
/// directly, without the element-by-element path `SmallVec::clone` takes.
#[inline]
pub(crate) fn copy_ids(v: &SmallVec<[EventId; 2]>) -> SmallVec<[EventId; 2]> {
    match v.as_slice() {
        [] => SmallVec::new(),
        &[a] => SmallVec::from_buf_and_len([a, a], 1),
        &[a, b] => SmallVec::from_buf([a, b]),
        more => SmallVec::from_slice(more),
    }
}

/// Makes `into` a copy of `from` ([`copy_ids`]), reusing its heap buffer
/// when it has one.
#[inline]
pub(crate) fn set_ids(into: &mut SmallVec<[EventId; 2]>, from: &SmallVec<[EventId; 2]>) {
    if into.spilled() {
        into.clear();
        into.extend_from_slice(from);
    } else {
        *into = copy_ids(from);
    }
}

/// The kinds of asynchronous operations, each completed in its own way (8.9.1.1).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AsyncGroup {
    /// `cp.async`: completed by `cp.async.wait_group` / `wait_all`.
    CpAsync,
    /// `cp.async.bulk` / `cp.reduce.async.bulk`: completed by `cp.async.bulk.wait_group`.
    Bulk,
    /// `st.async`, and the arrive-on of `cp.async.mbarrier.arrive`: completed
    /// only through their mbarrier.
    Other,
    /// `wgmma.mma_async`: completed by `wgmma.wait_group`.
    Wgmma,
}

/// What an asynchronous event is ordered after among the earlier
/// instructions of its thread (8.9.1.1), besides the earlier events of its
/// own operation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AsyncAfter {
    /// Every earlier instruction ("ordered after prior instructions in the same thread").
    All,
    /// Only earlier `fence.proxy.async` fences (the accesses of `.async.bulk`
    /// operations; see `docs/model-notes.md`).
    ProxyAsyncFences,
    /// No earlier instruction (the implicit complete-tx, the arrive-on of
    /// `cp.async.mbarrier.arrive`).
    Nothing,
}

/// The asynchronous operation an event belongs to.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct AsyncOp {
    /// Its kind.
    pub group: AsyncGroup,
    /// Its number among the operations of that kind of its thread, in issue order.
    pub id: u32,
    /// What it is ordered after.
    pub after: AsyncAfter,
    /// The event belongs to the implicit mbarrier complete-tx of the operation.
    pub complete_tx: bool,
    /// The operation goes on in the thread's next instruction (a part of a
    /// copy cut by the sizes lowering, `ir::AsyncInstr::Copy::continued`):
    /// the instruction's last event does not end it.
    pub continued: bool,
}

/// How an event is ordered with the asynchronous operations of its thread (8.9.1.1).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct AsyncOrder {
    /// The asynchronous operation performing the event, if any.
    pub op: Option<AsyncOp>,
    /// How many `cp.async` (index 0), bulk (index 1) and `wgmma.mma_async`
    /// (index 2) operations of the thread, counted in issue order from the
    /// first, are complete before the event (waited for by `wait_group` /
    /// `wait_all`, or ordered before a `cp.async.mbarrier.arrive`).
    pub awaited: [u32; 3],
    /// The unordered group (an [`ptxmc_frontend::ir::Instr::Unordered`]) the
    /// event is in, and its element there (one per memory instruction):
    /// elements of one operation "executed in an unspecified order" (8.2.4,
    /// 8.2.5) are not ordered with each other; the events of one element (an
    /// RMW's read and write) are. `None` for every other event.
    pub unordered: Option<(u32, u32)>,
}

impl AsyncOrder {
    /// Whether `b`, issued after `a` by the same thread, is ordered after `a`
    /// (8.9.1.1). `a_is_proxy_async_fence` says whether `a` is a `fence.proxy.async`.
    pub fn ordered(a: &AsyncOrder, a_is_proxy_async_fence: bool, b: &AsyncOrder) -> bool {
        if let (Some((ga, ea)), Some((gb, eb))) = (a.unordered, b.unordered) {
            if ga == gb && ea != eb {
                return false;
            }
        }
        match (a.op, b.op) {
            (None, None) => true,
            (None, Some(ob)) => match ob.after {
                AsyncAfter::All => true,
                AsyncAfter::ProxyAsyncFences => a_is_proxy_async_fence,
                AsyncAfter::Nothing => false,
            },
            (Some(oa), ob) => {
                let same_op = ob.is_some_and(|ob| ob.group == oa.group && ob.id == oa.id);
                let waited = match oa.group {
                    AsyncGroup::CpAsync => oa.id < b.awaited[0],
                    AsyncGroup::Bulk => oa.id < b.awaited[1],
                    AsyncGroup::Wgmma => oa.id < b.awaited[2],
                    AsyncGroup::Other => false,
                };
                same_op || waited
            }
        }
    }
}

impl Event {
    /// The location of a memory event.
    pub fn loc(&self) -> Option<Location> {
        match self.kind {
            EventKind::Read { loc, .. } | EventKind::Write { loc, .. } => Some(loc),
            _ => None,
        }
    }
    /// Whether this is a read.
    pub fn is_read(&self) -> bool {
        matches!(self.kind, EventKind::Read { .. })
    }
    /// Whether this is a write (including initial writes).
    pub fn is_write(&self) -> bool {
        matches!(self.kind, EventKind::Write { .. })
    }
    /// Whether this is an initial write.
    pub fn is_init(&self) -> bool {
        matches!(self.kind, EventKind::Write { init: true, .. })
    }
    /// Whether this is a memory operation (read or write).
    pub fn is_memory(&self) -> bool {
        self.is_read() || self.is_write()
    }
    /// Whether the event is performed by an asynchronous operation (8.9.1.1),
    /// or is an element of an unordered group (8.2.4): either way it is not
    /// in program order with every event of its thread, which the fast
    /// consistency rows do not represent.
    pub fn is_async(&self) -> bool {
        self.async_order.op.is_some() || self.async_order.unordered.is_some()
    }
    /// Whether this is a `fence.proxy.async`.
    pub fn is_proxy_async_fence(&self) -> bool {
        matches!(self.kind, EventKind::Fence(FenceKind::ProxyAsync))
    }
    /// Whether `later`, an event of the same thread after `self`, is ordered
    /// after `self` in program order (8.9.1, with 8.9.1.1 for asynchronous
    /// operations).
    pub fn po_before(&self, later: &Event) -> bool {
        AsyncOrder::ordered(
            &self.async_order,
            self.is_proxy_async_fence(),
            &later.async_order,
        )
    }
    /// The events this one depends on: address, data and control
    /// dependencies (8.10.4).
    pub fn deps(&self) -> impl Iterator<Item = &EventId> {
        self.addr_deps
            .iter()
            .chain(&self.data_deps)
            .chain(&self.ctrl_deps)
    }
    /// Whether this is a `fence.sc`.
    pub fn is_fence_sc(&self) -> bool {
        matches!(self.kind, EventKind::Fence(FenceKind::Sc))
    }
    /// The value read or written.
    pub fn value(&self) -> Option<i64> {
        match self.kind {
            EventKind::Read { value, .. } | EventKind::Write { value, .. } => Some(value),
            _ => None,
        }
    }
    /// Whether the event is part of an atomic RMW.
    pub fn is_rmw(&self) -> bool {
        matches!(
            self.kind,
            EventKind::Read { rmw: true, .. } | EventKind::Write { rmw: true, .. }
        )
    }
    /// Strong operations (8.7): strong memory operations and memory fences.
    pub fn is_strong(&self) -> bool {
        match self.kind {
            EventKind::Read { .. } | EventKind::Write { init: false, .. } => self.sem.is_strong(),
            EventKind::Write { init: true, .. } => false,
            EventKind::Fence(k) => k.is_memory_fence(),
            EventKind::Barrier { .. } => true,
        }
    }
}
