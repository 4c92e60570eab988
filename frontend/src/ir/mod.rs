//! The compact, typed IR of a PTX litmus test: what the checker executes.
//!
//! No strings survive past the frontend except in [`Symbols`], which only the
//! printer and the reports read. Locations, virtual addresses, registers and
//! labels are interned into small typed ids. Enums cover every scope,
//! semantics, fence kind, proxy, RMW operation and state space of chapter 8 of
//! the PTX ISA 9.4 manual, even those the checker does not support yet: a
//! construct that parses but cannot be checked is listed in
//! [`Test::unsupported`] so that the tool says so instead of guessing.

use std::fmt;

mod addr_operand;
mod api;
mod async_instr;
mod elements;
mod float;
mod host_api;
mod ops;
mod spelling;

/// Declares a `u32` newtype index with `index()` / `new()`.
macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        pub struct $name(pub u32);
        impl $name {
            /// Builds the id from a dense index.
            #[inline]
            pub fn new(i: usize) -> Self {
                debug_assert!(i <= u32::MAX as usize);
                Self(i as u32)
            }
            /// The dense index of this id.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A physical memory location (8.2): every name that aliases it shares this id.
    PhysId
);
id_type!(
    /// A virtual address (8.2.2). Distinct `generic` aliases of one physical
    /// location have distinct `VAddrId`s; a proxy alias (`t @ texture aliases x`)
    /// shares the virtual address of the name it aliases.
    VAddrId
);
id_type!(
    /// A declared address name (an entry of [`Test::addresses`]).
    AddrId
);
id_type!(
    /// A register of one thread (registers are per thread).
    RegId
);
id_type!(
    /// A thread: its index in [`Test::threads`] (the `P<i>` of the litmus file).
    ThreadId
);
id_type!(
    /// A label of one thread.
    LabelId
);

/// A source position: 1-based line and column in the litmus file.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct Span {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Scopes of strong operations (8.5). Ordered by inclusion: `Cta < Cluster < Gpu < Sys`.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Scope {
    /// `.cta`: threads of one thread block.
    Cta,
    /// `.cluster`: threads of one cluster of CTAs.
    Cluster,
    /// `.gpu`: threads of the program on one device.
    Gpu,
    /// `.sys`: every thread of the program.
    Sys,
}

/// Memory-ordering semantics of a memory operation (8.4, NOTES.md).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Sem {
    /// `.weak` or no qualifier: not strong, no scope.
    Weak,
    /// `.relaxed.scope`.
    Relaxed,
    /// `.acquire.scope` (reads and RMWs).
    Acquire,
    /// `.release.scope` (writes and RMWs).
    Release,
    /// `.acq_rel.scope` (RMWs).
    AcqRel,
    /// `.volatile`: relaxed at `.sys` scope (8.4.2).
    Volatile,
    /// `.mmio`: strong (8.4.1); always written with `.relaxed.sys` in PTX.
    Mmio,
}

impl Sem {
    /// Strong operations take a scope; weak ones do not (8.7).
    pub fn is_strong(self) -> bool {
        !matches!(self, Sem::Weak)
    }
    /// Whether the operation is a release operation (8.8 release pattern 1).
    pub fn is_release(self) -> bool {
        matches!(self, Sem::Release | Sem::AcqRel)
    }
    /// Whether the operation is an acquire operation (8.8 acquire pattern 1).
    pub fn is_acquire(self) -> bool {
        matches!(self, Sem::Acquire | Sem::AcqRel)
    }
}

/// Proxies (8.6): the method of memory access.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Proxy {
    /// Ordinary `ld`/`st`/`atom`/`red`.
    Generic,
    /// Surface instructions (`sust`, `suld`, `suatom`, `sured`).
    Surface,
    /// Texture instructions (`tld`, `tex`).
    Texture,
    /// Constant cache loads (`cold` in the corpus dialect, `ld.const`).
    Constant,
    /// The async proxy of `.async.bulk` operations.
    Async,
    /// The tensormap proxy.
    Tensormap,
    /// The readonly proxy (`ld.global.nc`, `ld.proxy::readonly`).
    Readonly,
}

/// State spaces (8.3).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum StateSpace {
    /// `.global` (the default in litmus tests).
    Global,
    /// `.shared` / `.shared::cta`.
    Shared,
    /// `.shared::cluster`.
    SharedCluster,
    /// `.const`.
    Const,
    /// `.local`: memory private to each thread (PTX ISA 5.1.5); the
    /// location named must be declared `l @ local` (each thread's access is
    /// to its own copy, [`AddrKind::LocalCopy`]).
    Local,
    /// `.param` / `.param::entry`: a kernel parameter, read-only (PTX ISA
    /// 5.1.6.1), declared `p @ param`.
    Param,
}

/// Access size and vector width of a memory instruction (8.2, 8.2.4).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Access {
    /// Bytes of one element: 1, 2, 4, 8 or 16; 0 when the instruction names no type (the dialect).
    pub bytes: u8,
    /// 1 for scalars, 2, 4 or 8 for `.v2` / `.v4` / `.v8`.
    pub vector: u8,
}

impl Access {
    /// An untyped scalar access, as the corpus dialect writes them.
    pub const UNTYPED: Access = Access {
        bytes: 0,
        vector: 1,
    };
}

/// Read-modify-write operations of `atom` and `red`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RmwOp {
    /// `.add`
    Add,
    /// `.sub` (dialect)
    Sub,
    /// `.mul` (dialect)
    Mul,
    /// `.div` (dialect)
    Div,
    /// `.inc`: `old >= operand ? 0 : old + 1`.
    Inc,
    /// `.dec`: `old == 0 || old > operand ? operand : old - 1`.
    Dec,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
    /// `.exch`
    Exch,
    /// `.cas`: compare (first operand) and swap (second operand).
    Cas,
    /// An mbarrier state update (no PTX `atom` spelling): the first operand
    /// arrivals, the second a transaction-count change ([`mbarrier::update`]).
    Mbarrier,
    /// A floating-point `.add` on bit patterns ([`FloatOp`]): `atom`/`red`
    /// `.add.f32` (subnormals flushed), `.add.noftz.f16`/`.bf16`, `.add.f64`,
    /// and the element operation of a floating-point `multimem.red`.
    Float(FloatOp),
    /// A typed `cp.reduce.async.bulk.OP.TYPE`: the operation on each
    /// element of the value ([`Elementwise`]).
    Elements(Elementwise),
}

/// Fence kinds (8.8, 8.9.3, 8.6).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FenceKind {
    /// `fence.sc` / `membar`: a stronger `fence.acq_rel` that also joins Fence-SC order.
    Sc,
    /// `fence.acq_rel` (and `fence` with no semantics).
    AcqRel,
    /// `fence.acquire`.
    Acquire,
    /// `fence.release`.
    Release,
    /// `fence.proxy.alias`.
    ProxyAlias,
    /// `fence.proxy.async` (optionally `::global` / `::shared::{cta,cluster}`).
    ProxyAsync,
    /// `fence.proxy.tensormap::generic.release`.
    ProxyTensormapRelease,
    /// `fence.proxy.tensormap::generic.acquire`.
    ProxyTensormapAcquire,
    /// `fence.proxy.surface` (dialect).
    ProxySurface,
    /// `fence.proxy.texture` (dialect).
    ProxyTexture,
    /// `fence.proxy.constant` (dialect).
    ProxyConstant,
    /// `fence.proxy.generic` (dialect).
    ProxyGeneric,
}

impl fmt::Display for FenceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}

impl std::str::FromStr for FenceKind {
    type Err = String;
    /// Reads a [`FenceKind::spelling`] back (no scope, no `membar`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FenceKind::ALL
            .into_iter()
            .find(|k| k.spelling() == s)
            .ok_or_else(|| format!("unknown fence `{s}`"))
    }
}

impl FenceKind {
    /// Every kind, in declaration order.
    pub const ALL: [FenceKind; 12] = [
        FenceKind::Sc,
        FenceKind::AcqRel,
        FenceKind::Acquire,
        FenceKind::Release,
        FenceKind::ProxyAlias,
        FenceKind::ProxyAsync,
        FenceKind::ProxyTensormapRelease,
        FenceKind::ProxyTensormapAcquire,
        FenceKind::ProxySurface,
        FenceKind::ProxyTexture,
        FenceKind::ProxyConstant,
        FenceKind::ProxyGeneric,
    ];

    /// The instruction's PTX spelling without its scope (`fence.sc`,
    /// `fence.proxy.alias`, ...): what [`fmt::Display`] writes and
    /// [`std::str::FromStr`] reads, used by the printer and the labels of
    /// pictures.
    pub fn spelling(self) -> &'static str {
        match self {
            FenceKind::Sc => "fence.sc",
            FenceKind::AcqRel => "fence.acq_rel",
            FenceKind::Acquire => "fence.acquire",
            FenceKind::Release => "fence.release",
            FenceKind::ProxyAlias => "fence.proxy.alias",
            FenceKind::ProxyAsync => "fence.proxy.async",
            FenceKind::ProxyTensormapRelease => "fence.proxy.tensormap::generic.release",
            FenceKind::ProxyTensormapAcquire => "fence.proxy.tensormap::generic.acquire",
            FenceKind::ProxySurface => "fence.proxy.surface",
            FenceKind::ProxyTexture => "fence.proxy.texture",
            FenceKind::ProxyConstant => "fence.proxy.constant",
            FenceKind::ProxyGeneric => "fence.proxy.generic",
        }
    }

    /// Whether the fence is a memory fence that takes a scope (not a proxy fence).
    pub fn is_memory_fence(self) -> bool {
        matches!(
            self,
            FenceKind::Sc | FenceKind::AcqRel | FenceKind::Acquire | FenceKind::Release
        )
    }
    /// The proxy a proxy fence synchronizes with the generic proxy, if any.
    pub fn proxy(self) -> Option<Proxy> {
        match self {
            FenceKind::ProxySurface => Some(Proxy::Surface),
            FenceKind::ProxyTexture => Some(Proxy::Texture),
            FenceKind::ProxyConstant => Some(Proxy::Constant),
            FenceKind::ProxyGeneric => Some(Proxy::Generic),
            FenceKind::ProxyAsync => Some(Proxy::Async),
            FenceKind::ProxyTensormapRelease | FenceKind::ProxyTensormapAcquire => {
                Some(Proxy::Tensormap)
            }
            _ => None,
        }
    }
}

pub use elements::{Elementwise, IntRed, IntTy};
pub use float::{FloatKind, FloatOp, FloatTy};
pub use ops::{extend, BinOp, CmpOp, Operand, PrmtMode};
pub use spelling::UnknownSpelling;

/// Barrier instructions (8.9.4 items 2 and 3).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BarrierKind {
    /// `bar.sync` / `bar.cta.sync` / `barrier.sync`: arrive and wait.
    Sync,
    /// `bar.arrive` / `bar.cta.arrive`: arrive without waiting.
    Arrive,
    /// `bar.red`: arrive and wait; the parser builds the reduction around it
    /// from ordinary accesses (`parser/bar_red.rs`).
    Red,
    /// `barrier.cluster.arrive`.
    ClusterArrive,
    /// `barrier.cluster.arrive.relaxed`: an arrival that orders no memory
    /// access (no synchronization, `docs/model-notes.md`).
    ClusterArriveRelaxed,
    /// `barrier.cluster.wait`.
    ClusterWait,
}

/// One instruction of a thread. Memory instructions carry the declared address
/// they access; the proxy comes from the instruction (8.6).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Instr {
    /// A load `ld`/`tld`/`suld`/`cold`: `dst <- [addr]`.
    Load {
        /// Semantics (weak, relaxed, acquire, volatile, mmio).
        sem: Sem,
        /// Scope; `None` for weak accesses.
        scope: Option<Scope>,
        /// Proxy of the access.
        proxy: Proxy,
        /// State space.
        space: StateSpace,
        /// Size and vector width.
        access: Access,
        /// Destination registers (one per vector element).
        dst: Vec<RegId>,
        /// The address.
        addr: AddrId,
    },
    /// A store `st`/`sust`: `[addr] <- src`.
    Store {
        /// Semantics (weak, relaxed, release, volatile, mmio).
        sem: Sem,
        /// Scope; `None` for weak accesses.
        scope: Option<Scope>,
        /// Proxy of the access.
        proxy: Proxy,
        /// State space.
        space: StateSpace,
        /// Size and vector width.
        access: Access,
        /// The address.
        addr: AddrId,
        /// Values stored (one per vector element).
        src: Vec<Operand>,
    },
    /// An atomic RMW (`atom`, with `dst`) or reduction (`red`, `dst == None`).
    Rmw {
        /// Semantics (relaxed, acquire, release, acq_rel).
        sem: Sem,
        /// Scope (defaults to `.gpu` in PTX when omitted).
        scope: Scope,
        /// Proxy of the access.
        proxy: Proxy,
        /// State space.
        space: StateSpace,
        /// Size.
        access: Access,
        /// The operation.
        op: RmwOp,
        /// Destination register for `atom`; `None` for `red`.
        dst: Option<RegId>,
        /// The address.
        addr: AddrId,
        /// Operand (the new value for `exch`, the compare value for `cas`).
        a: Operand,
        /// Second operand: the swap value of `cas`.
        b: Option<Operand>,
    },
    /// A fence (memory fence with a scope, or a proxy fence).
    Fence {
        /// The kind.
        kind: FenceKind,
        /// Scope of a memory fence; proxy fences have `None`, except the
        /// `fence.proxy.tensormap::generic.{release,acquire}.scope` ones.
        scope: Option<Scope>,
    },
    /// A barrier.
    Barrier {
        /// The kind.
        kind: BarrierKind,
        /// Static instance number (the dialect's `N` of `bar.cta.sync N, ID, COUNT`);
        /// barriers with different instance numbers never synchronize. Real PTX
        /// `bar.sync ID{, COUNT}` and `barrier.cluster.*` have instance 0.
        instance: u32,
        /// The PTX barrier resource id (constant or register); `Imm(0)` when the
        /// dialect's `bar.cta.sync N` omits it.
        id: Operand,
        /// Expected thread count, if given.
        count: Option<Operand>,
    },
    /// Register arithmetic `dst <- a op b`.
    Op {
        /// The operation.
        op: BinOp,
        /// Destination.
        dst: RegId,
        /// First operand.
        a: Operand,
        /// Second operand.
        b: Operand,
    },
    /// Register move `dst <- src` (the dialect's `ld R, V`, PTX `mov`).
    Mov {
        /// Destination.
        dst: RegId,
        /// Source.
        src: Operand,
    },
    /// A label definition (a no-op that names a position).
    Label(LabelId),
    /// Unconditional jump.
    Goto(LabelId),
    /// Conditional jump `if a cmp b goto target`.
    Branch {
        /// Comparison.
        cmp: CmpOp,
        /// Left operand.
        a: Operand,
        /// Right operand.
        b: Operand,
        /// Target.
        target: LabelId,
    },
    /// An asynchronous operation or an `mbarrier` instruction (8.9.1.1).
    Async(AsyncInstr),
    /// `unordered N`: the next `N` memory instructions of the thread are the
    /// elements of one operation "executed in an unspecified order" (8.2.4
    /// vectors, 8.2.5 packed data, the locations of a `multimem` address):
    /// no element is ordered with another in program order, and each is
    /// ordered with the rest of the thread as the operation is. Lowerings emit
    /// it before the parts of a release or acquire operation, where a fixed
    /// order of the parts would add synchronization (`docs/model-notes.md`,
    /// "Unspecified order").
    Unordered(u32),
    /// A register-held address (`[%rd1+8]`): the memory instruction that
    /// follows accesses the address held in `reg` plus `offset`. The parser
    /// resolves that address to a location and writes it in the memory
    /// instruction; this statement (no event) carries the register so that
    /// the access's events get an address dependency on the reads its value
    /// came from (8.10.4).
    /// An instruction with several address operands (a copy, `st.async`)
    /// has one per register-held operand, each naming its operand.
    AddrReg {
        /// The register holding the address.
        reg: RegId,
        /// The byte offset written after it.
        offset: i64,
        /// Which address operand of the instruction it is.
        operand: AddrOperand,
    },
    /// A construct that parses but that the checker does not support; the test
    /// is reported as unsupported (see [`Test::unsupported`]).
    Unsupported(String),
    /// A CUDA API call of the host thread (8.9.4, API synchronization); the
    /// checker's `api` lowering replaces it before interpretation.
    Api(ApiCall),
}

/// An instruction with its source position.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Stmt {
    /// The instruction.
    pub instr: Instr,
    /// Where it was written.
    pub span: Span,
}

/// Placement of a thread in the scope tree (thread -> cta -> cluster -> gpu -> sys).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Placement {
    /// CTA id (unique within its GPU).
    pub cta: u32,
    /// Cluster id (unique within its GPU); the dialect without `cluster` puts
    /// each CTA in its own cluster (`cluster == cta`).
    pub cluster: u32,
    /// GPU id.
    pub gpu: u32,
}

impl Placement {
    /// Whether a scope of a thread placed at `self` includes a thread placed at `other` (8.5).
    pub fn scope_includes(&self, scope: Scope, other: &Placement) -> bool {
        match scope {
            Scope::Sys => true,
            Scope::Gpu => self.gpu == other.gpu,
            Scope::Cluster => self.gpu == other.gpu && self.cluster == other.cluster,
            Scope::Cta => self.gpu == other.gpu && self.cta == other.cta,
        }
    }
}

/// One thread: its placement and its code.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Thread {
    /// Where the thread runs.
    pub placement: Placement,
    /// Whether the placement named a cluster explicitly (for printing).
    pub explicit_cluster: bool,
    /// The code, in program order.
    pub code: Vec<Stmt>,
}

/// How a declared address relates to the others (8.2.2, 8.6).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AddrKind {
    /// A location of its own (`x = 0`).
    Root,
    /// `y @ generic aliases x`: a distinct virtual address of `x`'s physical location.
    GenericAlias(AddrId),
    /// `t @ texture aliases x`: `x`'s address seen through another proxy.
    ProxyAlias(Proxy, AddrId),
    /// `[x+N]` in an instruction: the address `N` bytes after the address
    /// `x` (8.2: memory is a sequence of bytes). It shares `x`'s physical
    /// location id and virtual address id; the byte offset tells the parts
    /// apart (the checker's `sizes` module splits the location into bytes).
    Offset(AddrId, u32),
    /// `m @ multimem` in the initial state: a multimem address (8.2.3), a
    /// location of its own that only `multimem.*` operations may access; any
    /// other access makes the behaviour undefined.
    Multimem,
    /// `l @ local = V` in the initial state: `.local` memory, private to
    /// each thread (PTX ISA 5.1.5; 8.2: a byte's address is unique "relative
    /// to all threads that have access to the same state space", and only
    /// its thread has access to a thread's local memory). No access is to
    /// this address itself: each thread's is to its own copy.
    Local,
    /// Thread `t`'s copy of the `.local` location `l` (an address of kind
    /// [`AddrKind::Local`]): a location of its own, initially `l`'s value
    /// (8.2.6), which only `t` accesses. The printer writes `l`.
    LocalCopy(AddrId, ThreadId),
    /// `p @ param = V` in the initial state: a kernel parameter holding
    /// the launch value `V`. Kernel parameters are read-only (PTX ISA
    /// 5.1.6.1): every access is a load, reading the initial value.
    Param,
}

/// A declared address name.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Address {
    /// How it was declared.
    pub kind: AddrKind,
    /// The physical location it maps to.
    pub phys: PhysId,
    /// The virtual address it denotes.
    pub vaddr: VAddrId,
}

/// The integer a register holds for the address of a declared name
/// (`mov.u64 %rd1, x`): address `a` is `(a + 1) * 2^40`, and `[%rd1+N]`
/// adds the byte offset `N` (below [`MAX_ADDR_OFFSET`]). Only the mapping
/// back to a location matters: the values are opaque otherwise. An integer
/// within `2^39` of an address is that address plus a signed offset
/// ([`address_offset_of_value`]), so an offset past the range (`x` plus
/// `2^31`) is told from one before the next address.
pub fn address_value(a: AddrId) -> i64 {
    (i64::from(a.0) + 1) << ADDR_STRIDE_BITS
}

/// Address values are `2^ADDR_STRIDE_BITS` apart ([`address_value`]).
const ADDR_STRIDE_BITS: u32 = 40;

/// Byte offsets from an address stay below this: `[x+N]` and `[%rd1+N]`
/// take `N` as a 32-bit signed immediate (PTX ISA 6.4.1, "Addresses as
/// Operands"), so a location's bytes are numbered `0..2^31`.
pub const MAX_ADDR_OFFSET: i64 = 1 << 31;

/// The declared address nearest to the integer `v` and `v`'s signed byte
/// offset from it (`-2^39..2^39`), if `v` is that near one
/// ([`address_value`]); whether the offset is a byte of the location is
/// the caller's question.
pub fn address_offset_of_value(v: i64) -> Option<(AddrId, i64)> {
    let k = v.checked_add(1 << (ADDR_STRIDE_BITS - 1))? >> ADDR_STRIDE_BITS;
    let a = u32::try_from(k.checked_sub(1)?).ok()?;
    Some((AddrId(a), v - (k << ADDR_STRIDE_BITS)))
}

/// The declared address and byte offset an integer denotes, if it denotes
/// one ([`address_value`]): an offset `0..MAX_ADDR_OFFSET` after it.
pub fn address_of_value(v: i64) -> Option<(AddrId, u32)> {
    let (a, off) = address_offset_of_value(v)?;
    let off = u32::try_from(off)
        .ok()
        .filter(|&o| i64::from(o) < MAX_ADDR_OFFSET)?;
    Some((a, off))
}

pub use addr_operand::AddrOperand;
pub use api::{Api, ApiCall, Graph, Kernel, Stream, StreamKind, Task, LEGACY_STREAM};

/// A term of the final condition.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Term {
    /// A constant.
    Const(i64),
    /// The final value of a register of a thread.
    Reg(ThreadId, RegId),
    /// The final value of a memory location (through one of its names).
    Mem(AddrId),
}

/// A proposition of the final condition.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Prop {
    /// Always true.
    True,
    /// Always false.
    False,
    /// Comparison of two terms.
    Cmp(CmpOp, Term, Term),
    /// Negation.
    Not(Box<Prop>),
    /// Conjunction.
    And(Box<Prop>, Box<Prop>),
    /// Disjunction.
    Or(Box<Prop>, Box<Prop>),
}

impl Prop {
    /// Appends the registers and locations the proposition reads (not
    /// constants) to `out`, in first-appearance order, without repeats.
    pub fn terms(&self, out: &mut Vec<Term>) {
        match self {
            Prop::True | Prop::False => {}
            Prop::Cmp(_, a, b) => {
                for t in [a, b] {
                    if !matches!(t, Term::Const(_)) && !out.contains(t) {
                        out.push(*t);
                    }
                }
            }
            Prop::Not(q) => q.terms(out),
            Prop::And(a, b) | Prop::Or(a, b) => {
                a.terms(out);
                b.terms(out);
            }
        }
    }
}

/// The quantifier of the final condition.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Quantifier {
    /// `exists P`: some terminating execution satisfies P.
    Exists,
    /// `~exists P` / `not exists P`: no terminating execution satisfies P.
    NotExists,
    /// `forall P`: every terminating execution satisfies P.
    Forall,
}

/// The final condition of a test.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Condition {
    /// The quantifier.
    pub quantifier: Quantifier,
    /// The proposition.
    pub prop: Prop,
}

/// A construct that parsed but that the checker cannot check yet.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Unsupported {
    /// What it is (e.g. `bar.red`).
    pub construct: String,
    /// Where it is.
    pub span: Span,
}

/// Names of the interned ids, for printing only.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Symbols {
    /// Address names, indexed by [`AddrId`].
    pub addrs: Vec<String>,
    /// Register names per thread, indexed by [`ThreadId`] then [`RegId`].
    pub regs: Vec<Vec<String>>,
    /// Label names per thread, indexed by [`ThreadId`] then [`LabelId`].
    pub labels: Vec<Vec<String>>,
}

/// A parsed litmus test.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Test {
    /// The test name of the header (`PTX <name>`).
    pub name: String,
    /// Quoted documentation strings of the header, without quotes.
    pub docs: Vec<String>,
    /// Declared addresses, indexed by [`AddrId`].
    pub addresses: Vec<Address>,
    /// Number of physical locations ([`PhysId`] ranges over `0..n_phys`).
    pub n_phys: u32,
    /// Number of virtual addresses ([`VAddrId`] ranges over `0..n_vaddr`).
    pub n_vaddr: u32,
    /// Initial value of each physical location (0 when not given).
    pub init_mem: Vec<i64>,
    /// Initial register values (registers not listed start at 0).
    pub init_regs: Vec<(ThreadId, RegId, i64)>,
    /// The threads.
    pub threads: Vec<Thread>,
    /// Registers and locations listed in `locations [...]` (observed in every state).
    pub observed: Vec<Term>,
    /// The optional `filter` proposition.
    pub filter: Option<Prop>,
    /// The final condition.
    pub condition: Condition,
    /// Constructs that parsed but are not supported by the checker.
    pub unsupported: Vec<Unsupported>,
    /// Kernels and streams (8.9.4, API synchronization); empty by default.
    pub api: Api,
    /// Names of the interned ids.
    pub symbols: Symbols,
    /// Initial-state declarations that only the parser reads
    /// (`tmap @ tensormap g0, g1 box 8;`, `s @ cluster s0, s1;`): the
    /// instructions that name them are lowered when parsed, and the printer
    /// writes them back so that the ones reported unsupported read back the
    /// same.
    pub declarations: Vec<String>,
    /// The locations each multimem address points to (`mc @ multimem x, y;`,
    /// 8.2.3), in declaration order. The `multimem.*` instructions on them are
    /// lowered when parsed; the printer writes the list back so that one
    /// reported unsupported reads back the same.
    pub multimem: Vec<(AddrId, Vec<AddrId>)>,
}

impl Test {
    /// The number of registers of a thread.
    pub fn n_regs(&self, t: ThreadId) -> usize {
        self.symbols.regs.get(t.index()).map_or(0, Vec::len)
    }
    /// The name of an address.
    pub fn addr_name(&self, a: AddrId) -> &str {
        &self.symbols.addrs[a.index()]
    }
    /// The name of a register of a thread.
    pub fn reg_name(&self, t: ThreadId, r: RegId) -> &str {
        &self.symbols.regs[t.index()][r.index()]
    }
}

pub use async_instr::{mbarrier, AsyncInstr, MbarrierUpdate, WgmmaA, WgmmaSparse};
