//! diy7-style generation of litmus tests from cycles of relations (`ptxmc gen`).
//!
//! A **cycle** is a list of edges between events; event `i` is the source of
//! edge `i` and the target of edge `i-1` (cyclically). [`build`] turns a cycle
//! into the litmus test whose `exists` condition says "the cycle happened";
//! [`family`] generates every variant of a set of cycles over the axes of
//! [`Axes`].
//!
//! # Edges
//!
//! | edge | relates | location |
//! | --- | --- | --- |
//! | `PodXY`, `PosXY` (X, Y in `R`, `W`, `*`) | program order | new (`d`) / same (`s`) |
//! | `Fenced.KIND.SCOPE.XY`, `Fences...` | program order with a fence between | new / same |
//! | `DpDatadW`, `DpDatasW` | program order, the written value computed from the read | new / same |
//! | `DpCtrldR`, `DpCtrldW`, `DpCtrls*` | program order after a branch on the read | new / same |
//! | `Rfi`, `Rfe` | a write to a read that returns its value | same |
//! | `Fri`, `Fre` | a read to a write coherence-after the write it reads | same |
//! | `Wsi`, `Wse` (= `Coi`, `Coe`) | a write to a coherence-later write | same |
//! | `Amo`, `Amo.exch`, `Amo.add` (= `Rmw...`) | the read and the write of one `atom` | same |
//!
//! `i` edges stay in one thread, `e` edges go to the next thread; every
//! program-order edge stays in its thread. Fence kinds: `sc`, `acq_rel`,
//! `acquire`, `release` (with a scope), `proxy.alias`, `proxy.surface`,
//! `proxy.texture`, `proxy.constant`. A `*` direction expands to every
//! direction that agrees with the neighbouring edges, giving several cycles.
//!
//! # Annotations
//!
//! An annotation is a dot-separated list of tokens: semantics (`weak`, `rlx`,
//! `acq`, `rel`, `acqrel`; long forms `relaxed`, `acquire`, `release`,
//! `acq_rel`), a scope (`cta`, `cluster`, `gpu`, `sys`; a scope alone means
//! `rlx`), an RMW operation (`exch`, `add`: the access becomes `atom`), a
//! proxy (`alias`: through a generic alias `x_a` of the location; `surface`,
//! `texture`, `constant`: through `x_s`, `x_t`, `x_c`), or `fence.KIND[.SCOPE]`.
//!
//! - `[ANN]` written before an edge annotates that edge's source event (after
//!   the last edge: the first event). This is the exact form, and the one
//!   generated tests carry in their doc string.
//! - `EDGE:ANN` is shorthand. On a program-order edge, `rel` marks the target
//!   (a write), `acq` the source (a read), `rlx`/`weak`/a scope both ends, and
//!   `fence...` puts the fence on the edge. On a communication edge, `rel`
//!   marks the write end(s), `acq` the read end, the rest both ends. On an
//!   `Amo` edge, `acq` marks the read, `rel` the write, `acqrel` both, and
//!   `exch`/`add` choose the operation.
//!
//! Two annotations of one event join (`rlx` and `rel` give `rel`, `acq` and
//! `rel` give `acqrel`, which only an RMW may have); two different scopes,
//! RMW operations or proxies are an error. Strong accesses and memory fences
//! without a scope get [`Options::default_scope`].
//!
//! # From a cycle to a test
//!
//! - **Threads**: a new thread starts after each external edge (a cycle
//!   without one is a single thread, cut after an internal communication
//!   edge); program order follows the cycle.
//! - **Locations**: a new one after each `Pod`/`Fenced`/`Dp..d` edge, the same
//!   one across every other edge (x, y, z, a, b, ... in order of first use).
//!   A cycle changes location zero times or at least twice.
//! - **Values**: along each location's run of events, writes take 1, 2, 3, ...
//!   in coherence order and a read returns the latest value before it (0, the
//!   initial value, when there is none). On a cycle of one location, the run
//!   starts after its first `Pos` (or `Amo`) edge, where program order goes
//!   against coherence. An RMW read (`[acq.gpu.add]`) writes a fresh value
//!   right after the value it reads.
//! - **Condition**: `exists` of the values of the reads that a communication
//!   edge constrains (the target of `Rf`, the source of `Fr`, the read of an
//!   `Amo`) and, for each location with two writes or more, its final value
//!   (the coherence-last write), which witnesses the coherence edges.
//! - **Code**: `ld`/`st` (`suld`/`sust`/`tld`/`cold` through other proxies)
//!   with `.weak` or `.SEM.SCOPE`; `atom.SEM.SCOPE.{exch,add}` for RMWs; a data
//!   dependency writes `add rT, rS, K` (the value read plus a constant that
//!   gives the intended value: a true dependency), a control dependency is
//!   `bne rS, V, LCnn` to the next instruction.
//!
//! # Names
//!
//! `SHAPE+T0+T1+...` then the placement suffix (`-cta`, `-cluster`, none for
//! distinct CTAs of one GPU, `-sys`). `SHAPE` is the classic name
//! ([`SHAPES`]) when the cycle is one up to rotation (ignoring fences and
//! dependencies), else its edges joined by `-`. `Ti` describes thread `i`:
//! `po` (weak accesses), `rlx.S`, `rel.S` (a release write after a weak
//! access), `acq.S`, `ra.S` (an acquire read then a release write), `fence.K.S` (the fence, with relaxed.S accesses on the
//! ends that a release/acquire pattern needs and weak ones elsewhere), `data`,
//! `ctrl`, each with `.exch`/`.add` when its strong writes/reads are RMWs; a
//! lone access is `weak`, `rlx.S`, ...; any other thread lists its accesses
//! and po annotations joined by `-`. When every component is the same short
//! one the name is `SHAPE+Ts` (`SB+fence.sc.gpus`, `MP+pos`). Names are a function of the test: every
//! rotation of a cycle and every symmetry of a shape gives the same name.

mod build;
mod cycle;
mod family;
mod shapes;

pub use build::{build, Litmus, Options, Placement};
pub use cycle::{
    parse_cycle, parse_scope, scope_str, Com, Cycle, CycleError, Dep, Dir, Edge, EdgeKind,
    EventAnn, Fence, FenceKind, Proxy, RmwOp, Sem, MAX_EDGES,
};
pub use family::{family, Axes, Family, RmwAxis, SemAxis, Vary};
pub use shapes::{shape, SHAPES};

/// The family of the classic shapes `names` (all of them for `["all"]`) over
/// `axes`, every axis varying.
pub fn shape_family(names: &[&str], axes: &Axes) -> Result<Family, CycleError> {
    let mut cycles = Vec::new();
    let all = names.iter().any(|n| n.eq_ignore_ascii_case("all"));
    let list: Vec<&str> = if all {
        SHAPES.iter().map(|s| s.0).collect()
    } else {
        names.to_vec()
    };
    for n in list {
        match shape(n) {
            Some((_, c)) => cycles.push(c),
            None => {
                return Err(CycleError {
                    edge: None,
                    token: n.to_string(),
                    message: format!(
                        "unknown shape (known: {})",
                        SHAPES.iter().map(|s| s.0).collect::<Vec<_>>().join(", ")
                    ),
                })
            }
        }
    }
    family(&cycles, axes, &Vary::ALL, crate::ir::Scope::Gpu)
}
