//! ptxmc's frontend: PTX litmus text -> the compact typed IR ([`ir`]), and back.
//!
//! [`parse`] reads the litmus dialect of the Dat3M PTX corpus (see
//! `DIALECT.md` of the conformance data) and real PTX spellings of the same
//! instructions, so that PTX can be pasted into a litmus file; [`print()`] writes
//! an [`ir::Test`] back as litmus text that parses to the same IR.
//!
//! # Conventions
//!
//! - **Registers** are per thread and named without their `%`: `%r0` and `r0`
//!   are the same register, stored as `r0` in [`ir::Symbols`]. A condition may
//!   say `P0:r0`, `0:r0` or `P0:%r0` for a register the code spells `%r0`.
//!   Names starting with `%` are never memory locations (`[%rd1]` is an error).
//! - **Locations** are created on first use with initial value 0. A `generic`
//!   alias (`y @ generic aliases x`) gets a new [`ir::VAddrId`] and `x`'s
//!   [`ir::PhysId`]; a proxy alias (`s @ surface aliases x`) shares both.
//! - **Ids** follow first appearance: addresses in the initial state, then in
//!   the code row by row, then in the tail; registers and labels per thread, in
//!   the initial state, then in program order, then in the tail.
//! - **Placement**: `P0@cta 0,gpu 0` puts each CTA in a cluster of its own
//!   (`cluster == cta`, `explicit_cluster == false`); `P0@cta 0,cluster 0,gpu 0`
//!   names the cluster. Either every thread names its cluster or none does.
//! - **Defaults**: `ld`/`st` without semantics are weak; `atom`/`red` without
//!   semantics are `.relaxed`, without scope `.gpu`; `fence.scope` is
//!   `fence.acq_rel.scope`; `membar.{cta,gl,sys}` is `fence.sc.{cta,gpu,sys}`;
//!   `ld.volatile` is [`ir::Sem::Volatile`] at `.sys`; `.mmio.relaxed.sys` is
//!   [`ir::Sem::Mmio`]; untyped accesses have [`ir::Access::UNTYPED`]; the
//!   missing operand of the manual's `atom.inc.u32 %r0, [x]` is `4294967295`
//!   (a plain increment). `ld.const`/`cold` use the constant proxy,
//!   `ld.global.nc`/`ld.proxy::readonly` the readonly proxy.
//! - **Barriers**: the dialect's `bar.cta.{sync,arrive} N[, ID[, COUNT]]` has
//!   static instance `N`, id `ID` (default `0`) and count `COUNT`. PTX
//!   `bar.sync a{, b}`, `bar.arrive a, b`, `barrier{.cta}.sync{.aligned} a{, b}`
//!   have instance 0, id `a`, count `b`, so PTX barriers meet exactly when
//!   their ids are equal. `barrier.cluster.{arrive,wait}` have instance 0 and
//!   id 0. (`bar.cta.sync` is read as the dialect, not as PTX's `bar{.cta}`.)
//!   `bar.cta.red N[, ID[, COUNT]]` is [`ir::BarrierKind::Red`]: the
//!   synchronization of a `bar.red` without its reduction. Real PTX
//!   `bar{.cta}.red.{popc.u32,and.pred,or.pred} d, a{, b}, {!}c` (and
//!   `barrier{.cta}.red...`) becomes a hidden weak store of the thread's
//!   contribution, that barrier, and weak loads of every contribution of the
//!   CTA combined with register arithmetic (`parser/bar_red.rs`).
//! - **Fences**: `fence.proxy.async{.global,::global,.shared::cta,...}` are all
//!   [`ir::FenceKind::ProxyAsync`]; `fence.proxy.tensormap::generic.{release,acquire}`
//!   keep their scope (the `[a], size` operands of the acquire form are checked,
//!   then dropped).
//! - **Unsupported**: known PTX constructs the checker does not model
//!   (`mbarrier.*`, `cp.async*`, `st.async`, most `multimem.*`, `setp`,
//!   predicated instructions `@p ...`, negative offsets `[x-4]`, ...) parse into
//!   [`ir::Instr::Unsupported`] holding the instruction's text, and are listed
//!   with their position in [`ir::Test::unsupported`].
//! - **Byte offsets**: `[x+N]` (`0 <= N < 2^31`, the 32-bit signed immediate of an
//!   address operand, PTX ISA 6.4.1) is the address `N` bytes after
//!   `x` (8.2), interned as the name `x+N` with [`ir::AddrKind::Offset`]; it
//!   shares `x`'s physical and virtual address ids (the checker splits bytes).
//!   Typed vector accesses address consecutive elements (8.2.4).
//! - **Multimem**: `mc @ multimem;` in the initial state declares a multimem
//!   address (8.2.3), [`ir::AddrKind::Multimem`]; `mc @ multimem x, y;` also
//!   names the locations it points to, and the integer `.weak`/`.relaxed`
//!   forms of `multimem.{st,red,ld_reduce}` on it parse into one `st`/`red`/
//!   `ld` per location (`ld_reduce` adds register arithmetic on `%__mmN_i`);
//!   `multimem.st` of a floating-point type (also `.v2`/`.v4`/`.v8`) stores the
//!   bits, a scalar store per element or half per location. Floating-point
//!   reductions and other `multimem.*` forms are unsupported.
//! - **`.local` and `.param`**: `l @ local = V;` in the initial state declares
//!   `.local` memory, one copy per thread ([`ir::AddrKind::LocalCopy`], each
//!   initially `V`), reached by `ld.local`/`st.local` or a generic access
//!   through `cvta.local`; `p @ param = V;` a read-only kernel parameter read by
//!   `ld.param` (`parser/spaces.rs`, `docs/model-notes.md`).
//! - **Kernels and streams** (8.9.4, API synchronization), in the initial
//!   state: `kernel K0 = P0, P1;` and `stream S0 = K0, record E, K1;` /
//!   `stream S1 = wait E, K2;` fill [`ir::Test::api`]; `kernel`/`stream`
//!   followed by `=` stay location names.
//! - A cell may end with its own `;` (`ld.global.u32 %r0, [x]; | ...`); a label
//!   and an instruction may share a cell (`LC00: ld.weak r0, x`). Rows may omit
//!   trailing empty cells; an instruction never continues on the next line.

pub mod diy;
pub mod families;
pub mod ir;
pub mod kernel;

mod error;
mod intern;
mod lexer;
mod parser;
mod printer;

pub use error::{ParseError, ParseErrorKind};

/// Parses a litmus test.
pub fn parse(src: &str) -> Result<ir::Test, ParseError> {
    parser::parse(src)
}

/// Parses a proposition over the final values of `test`, in the syntax of a
/// condition's proposition (`P1:r0 == 1 /\ x == 2`, `~`, `\/`, parentheses),
/// with the test's own names: an unknown register or location is an error at
/// its column (line 1).
pub fn parse_prop(src: &str, test: &ir::Test) -> Result<ir::Prop, ParseError> {
    parser::parse_prop(src, test)
}

/// Prints a test as litmus text; for a parsed test `t`,
/// `strip_spans(&parse(&print(&t))?) == strip_spans(&t)`, and the printed text is
/// a fixed point of `print . parse`.
pub fn print(test: &ir::Test) -> String {
    printer::print(test)
}

/// A copy of `t` with every source position reset to the default, for
/// comparing tests up to where they were written.
pub fn strip_spans(t: &ir::Test) -> ir::Test {
    let mut t = t.clone();
    for th in &mut t.threads {
        for s in &mut th.code {
            s.span = ir::Span::default();
        }
    }
    for u in &mut t.unsupported {
        u.span = ir::Span::default();
    }
    t
}
