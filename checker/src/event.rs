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
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
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
