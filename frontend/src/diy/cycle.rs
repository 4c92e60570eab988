//! The cycle language: edges, event annotations, and their parser.
//!
//! A cycle is a whitespace-separated list of edges; event `i` is the source
//! of edge `i` and the target of edge `i - 1` (cyclically). See the module
//! documentation of [`crate::diy`] for the grammar.

use crate::ir::Scope;
use std::fmt;

mod parse;
pub use parse::parse_cycle;

/// Most edges a cycle may have.
pub const MAX_EDGES: usize = 64;

/// The direction of an event: a read or a write.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Dir {
    /// A read (`R`).
    R,
    /// A write (`W`).
    W,
}

impl Dir {
    /// `R` or `W`.
    pub fn letter(self) -> char {
        match self {
            Dir::R => 'R',
            Dir::W => 'W',
        }
    }
}

/// Communication relations (8.9.7).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Com {
    /// Reads-from: a write to a read that returns its value.
    Rf,
    /// From-read: a read to a write coherence-after the write it reads.
    Fr,
    /// Coherence (write serialization): a write to a coherence-later write.
    Ws,
}

/// Dependencies carried by a po edge out of a read.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Dep {
    /// The written value is computed from the read register.
    Data,
    /// A conditional branch on the read register precedes the target.
    Ctrl,
}

/// Fences that may sit on a po edge.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FenceKind {
    /// `fence.sc.scope`
    Sc,
    /// `fence.acq_rel.scope`
    AcqRel,
    /// `fence.acquire.scope`
    Acquire,
    /// `fence.release.scope`
    Release,
    /// `fence.proxy.alias`
    ProxyAlias,
    /// `fence.proxy.surface`
    ProxySurface,
    /// `fence.proxy.texture`
    ProxyTexture,
    /// `fence.proxy.constant`
    ProxyConstant,
}

impl FenceKind {
    /// Whether the fence takes a scope (memory fences do, proxy fences do not).
    pub fn scoped(self) -> bool {
        matches!(
            self,
            FenceKind::Sc | FenceKind::AcqRel | FenceKind::Acquire | FenceKind::Release
        )
    }

    /// The IR's fence of this kind.
    pub fn ir(self) -> crate::ir::FenceKind {
        use crate::ir::FenceKind as K;
        match self {
            FenceKind::Sc => K::Sc,
            FenceKind::AcqRel => K::AcqRel,
            FenceKind::Acquire => K::Acquire,
            FenceKind::Release => K::Release,
            FenceKind::ProxyAlias => K::ProxyAlias,
            FenceKind::ProxySurface => K::ProxySurface,
            FenceKind::ProxyTexture => K::ProxyTexture,
            FenceKind::ProxyConstant => K::ProxyConstant,
        }
    }

    /// The spelling after `fence.`: `sc`, `acq_rel`, `proxy.alias`, ...
    pub fn as_str(self) -> &'static str {
        let s = self.ir().spelling();
        s.strip_prefix("fence.").unwrap_or(s)
    }
}

/// A fence on a po edge; memory fences always have a scope once resolved.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Fence {
    /// Which fence.
    pub kind: FenceKind,
    /// Its scope (`None` for proxy fences, or before defaults are applied).
    pub scope: Option<Scope>,
}

impl Fence {
    /// `sc.gpu`, `acq_rel.cta`, `proxy.alias` (the text after `fence.`).
    pub fn spec(&self) -> String {
        match self.scope {
            Some(s) if self.kind.scoped() => format!("{}.{}", self.kind.as_str(), scope_str(s)),
            _ => self.kind.as_str().to_string(),
        }
    }
}

/// The operation of an RMW (`atom`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum RmwOp {
    /// `atom.exch`: writes its operand.
    Exch,
    /// `atom.add`: writes the old value plus its operand.
    Add,
}

impl RmwOp {
    /// The IR's operation.
    pub fn ir(self) -> crate::ir::RmwOp {
        match self {
            RmwOp::Exch => crate::ir::RmwOp::Exch,
            RmwOp::Add => crate::ir::RmwOp::Add,
        }
    }

    /// `exch` or `add`.
    pub fn as_str(self) -> &'static str {
        self.ir().spelling()
    }
}

/// What an edge relates.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum EdgeKind {
    /// Program order inside a thread (`Pod`/`Pos`, `Fenced`/`Fences`, `Dp...`).
    Po {
        /// `Pos` (same location) rather than `Pod` (a new location).
        same_loc: bool,
        /// A fence between the two accesses.
        fence: Option<Fence>,
        /// A dependency from the read source to the target.
        dep: Option<Dep>,
    },
    /// Communication (`Rfi`/`Rfe`, `Fri`/`Fre`, `Wsi`/`Wse`).
    Com {
        /// Which relation.
        com: Com,
        /// External (between threads) rather than internal.
        ext: bool,
    },
    /// The read and the write of one atomic RMW instruction (`Amo`).
    Amo {
        /// Its operation.
        op: RmwOp,
    },
}

/// One edge of a cycle.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Edge {
    /// What it relates.
    pub kind: EdgeKind,
    /// Direction of its source event.
    pub src: Dir,
    /// Direction of its target event.
    pub tgt: Dir,
}

impl Edge {
    /// Whether the edge goes from one thread to another.
    pub fn external(&self) -> bool {
        matches!(self.kind, EdgeKind::Com { ext: true, .. })
    }

    /// Whether the target accesses a new location (`Pod`, `Fenced`, `Dp..d`).
    pub fn changes_loc(&self) -> bool {
        matches!(
            self.kind,
            EdgeKind::Po {
                same_loc: false,
                ..
            }
        )
    }

    /// The edge without its fence or dependency, as the shape tables spell it:
    /// `PodWW`, `PosRR`, `Rfe`, `Wsi`, `Amo`.
    pub fn shape_key(&self) -> String {
        match self.kind {
            EdgeKind::Po { same_loc, .. } => format!(
                "Po{}{}{}",
                if same_loc { 's' } else { 'd' },
                self.src.letter(),
                self.tgt.letter()
            ),
            EdgeKind::Com { com, ext } => com_name(com, ext).to_string(),
            EdgeKind::Amo { .. } => "Amo".to_string(),
        }
    }

    /// The edge as the cycle language writes it, with its fence, dependency or
    /// operation (event annotations are written separately, in brackets).
    pub fn text(&self) -> String {
        match self.kind {
            EdgeKind::Po {
                same_loc,
                fence,
                dep,
            } => {
                let l = if same_loc { 's' } else { 'd' };
                let dirs = format!("{}{}", self.src.letter(), self.tgt.letter());
                match (dep, fence) {
                    (None, None) => format!("Po{l}{dirs}"),
                    (None, Some(f)) => format!("Fence{l}.{}.{dirs}", f.spec()),
                    (Some(d), f) => {
                        let name = match d {
                            Dep::Data => "DpData",
                            Dep::Ctrl => "DpCtrl",
                        };
                        let mut s = format!("{name}{l}{}", self.tgt.letter());
                        if let Some(f) = f {
                            s.push_str(":fence.");
                            s.push_str(&f.spec());
                        }
                        s
                    }
                }
            }
            EdgeKind::Com { com, ext } => com_name(com, ext).to_string(),
            EdgeKind::Amo { op } => format!("Amo.{}", op.as_str()),
        }
    }
}

fn com_name(com: Com, ext: bool) -> &'static str {
    match (com, ext) {
        (Com::Rf, false) => "Rfi",
        (Com::Rf, true) => "Rfe",
        (Com::Fr, false) => "Fri",
        (Com::Fr, true) => "Fre",
        (Com::Ws, false) => "Wsi",
        (Com::Ws, true) => "Wse",
    }
}

/// Memory-ordering semantics of an access.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Sem {
    /// `.weak` (no scope).
    Weak,
    /// `.relaxed.scope`
    Rlx,
    /// `.acquire.scope` (reads and RMWs)
    Acq,
    /// `.release.scope` (writes and RMWs)
    Rel,
    /// `.acq_rel.scope` (RMWs)
    AcqRel,
}

impl Sem {
    /// The annotation spelling: `weak`, `rlx`, `acq`, `rel`, `acqrel`.
    pub fn short(self) -> &'static str {
        match self {
            Sem::Weak => "weak",
            Sem::Rlx => "rlx",
            Sem::Acq => "acq",
            Sem::Rel => "rel",
            Sem::AcqRel => "acqrel",
        }
    }

    /// The IR's semantics.
    pub fn ir(self) -> crate::ir::Sem {
        use crate::ir::Sem as S;
        match self {
            Sem::Weak => S::Weak,
            Sem::Rlx => S::Relaxed,
            Sem::Acq => S::Acquire,
            Sem::Rel => S::Release,
            Sem::AcqRel => S::AcqRel,
        }
    }

    /// The PTX qualifier: `weak`, `relaxed`, `acquire`, `release`, `acq_rel`.
    pub fn ptx(self) -> &'static str {
        self.ir().spelling()
    }

    /// The join of two annotations of one event (`rlx` + `rel` = `rel`,
    /// `acq` + `rel` = `acqrel`).
    pub fn join(self, other: Sem) -> Sem {
        use Sem::*;
        match (self, other) {
            (a, b) if a == b => a,
            (Weak, x) | (x, Weak) => x,
            (Rlx, x) | (x, Rlx) => x,
            _ => AcqRel,
        }
    }
}

/// The method of access of an event (8.6).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Default)]
pub enum Proxy {
    /// The location's own name.
    #[default]
    Generic,
    /// A generic alias: another virtual address of the location (`x_a`).
    Alias,
    /// The surface proxy (`suld`/`sust` through `x_s`).
    Surface,
    /// The texture proxy (`tld` through `x_t`; loads only).
    Texture,
    /// The constant proxy (`cold` through `x_c`; loads only).
    Constant,
}

impl Proxy {
    /// The annotation spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Proxy::Generic => "generic",
            Proxy::Alias => "alias",
            Proxy::Surface => "surface",
            Proxy::Texture => "texture",
            Proxy::Constant => "constant",
        }
    }
}

/// What the cycle says about one event; unset fields take defaults when the
/// test is built (weak, the default scope for strong events, generic proxy).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct EventAnn {
    /// Semantics.
    pub sem: Option<Sem>,
    /// Scope (implies at least `rlx`).
    pub scope: Option<Scope>,
    /// Makes a plain access an atomic RMW.
    pub rmw: Option<RmwOp>,
    /// Method of access.
    pub proxy: Option<Proxy>,
}

impl EventAnn {
    /// Whether the event is strong (a semantics other than weak, or a scope).
    pub fn is_strong(&self) -> bool {
        matches!(self.sem, Some(s) if s != Sem::Weak) || self.scope.is_some()
    }
}

/// A cycle: `events[i]` is the source of `edges[i]`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Cycle {
    /// The edges, in order.
    pub edges: Vec<Edge>,
    /// One annotation per event.
    pub events: Vec<EventAnn>,
}

impl Cycle {
    /// A cycle of plain edges with unannotated events.
    pub fn from_edges(edges: Vec<Edge>) -> Self {
        let n = edges.len();
        Self {
            edges,
            events: vec![EventAnn::default(); n],
        }
    }

    /// The cycle rotated so that its edge `r` comes first.
    pub fn rotated(&self, r: usize) -> Cycle {
        let n = self.edges.len();
        Cycle {
            edges: (0..n).map(|i| self.edges[(i + r) % n]).collect(),
            events: (0..n).map(|i| self.events[(i + r) % n]).collect(),
        }
    }
}

/// A malformed cycle: which edge, and why.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CycleError {
    /// 1-based index of the edge at fault, if one is.
    pub edge: Option<usize>,
    /// The offending text (an edge, an annotation or a token).
    pub token: String,
    /// What is wrong.
    pub message: String,
}

impl CycleError {
    pub(crate) fn at(edge: usize, token: &str, message: impl Into<String>) -> Self {
        Self {
            edge: Some(edge + 1),
            token: token.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn whole(message: impl Into<String>) -> Self {
        Self {
            edge: None,
            token: String::new(),
            message: message.into(),
        }
    }
}

impl fmt::Display for CycleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.edge, self.token.is_empty()) {
            (Some(e), false) => write!(f, "edge {e} `{}`: {}", self.token, self.message),
            (Some(e), true) => write!(f, "edge {e}: {}", self.message),
            (None, false) => write!(f, "`{}`: {}", self.token, self.message),
            (None, true) => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for CycleError {}

/// The annotation of a scope.
pub fn scope_str(s: Scope) -> &'static str {
    s.spelling()
}

/// Parses `cta`, `cluster`, `gpu`, `sys`.
pub fn parse_scope(s: &str) -> Option<Scope> {
    s.parse().ok()
}
