//! From a cycle to a litmus test: threads, locations, values, code, the
//! final condition, and the test's name.

use super::cycle::{
    scope_str, Com, Cycle, CycleError, Dep, Dir, Edge, EdgeKind, EventAnn, Proxy, RmwOp, Sem,
};
use super::shapes::shape_keys;
use crate::ir::Scope;

mod emit;
use emit::emit;

/// Where the threads of a test run.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Placement {
    /// All threads in one CTA (name suffix `-cta`).
    Cta,
    /// Each thread in its own CTA, all in one cluster (`-cluster`).
    Cluster,
    /// Each thread in its own CTA and cluster, one GPU (no suffix: the default).
    Gpu,
    /// Each thread on its own GPU (`-sys`).
    Sys,
}

impl Placement {
    /// Every placement, smallest first.
    pub const ALL: [Placement; 4] = [
        Placement::Cta,
        Placement::Cluster,
        Placement::Gpu,
        Placement::Sys,
    ];

    /// `cta`, `cluster`, `gpu`, `sys`.
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Cta => "cta",
            Placement::Cluster => "cluster",
            Placement::Gpu => "gpu",
            Placement::Sys => "sys",
        }
    }

    /// The suffix of test names (empty for the default, [`Placement::Gpu`]).
    /// Spelled with `-`, not `@`: herd's log tools drop test names with `@`.
    fn suffix(self) -> &'static str {
        match self {
            Placement::Cta => "-cta",
            Placement::Cluster => "-cluster",
            Placement::Gpu => "",
            Placement::Sys => "-sys",
        }
    }
}

/// Options of [`build`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Where the threads run (ignored for one-thread tests).
    pub placement: Placement,
    /// Scope of strong accesses and memory fences that name none.
    pub default_scope: Scope,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            placement: Placement::Gpu,
            default_scope: Scope::Gpu,
        }
    }
}

/// A generated litmus test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Litmus {
    /// Its name (also the file stem).
    pub name: String,
    /// The classic shape it is an instance of, if any.
    pub shape: Option<&'static str>,
    /// The cycle, fully annotated; `parse_cycle` + [`build`] of it gives this test again.
    pub cycle: String,
    /// Number of threads.
    pub threads: usize,
    /// The litmus text.
    pub text: String,
    body_at: usize,
}

impl Litmus {
    /// The text without the name and doc-string lines (for comparing tests).
    pub fn body(&self) -> &str {
        &self.text[self.body_at..]
    }
}

/// An event with every default applied.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Ev {
    pub dir: Dir,
    pub sem: Sem,
    pub scope: Option<Scope>,
    /// A single-event RMW (`[...exch]`, `[...add]`).
    pub rmw: Option<RmwOp>,
    pub proxy: Proxy,
    /// The read of an `Amo` (the source of an Amo edge).
    pub amo_r: bool,
    /// The write of an `Amo` (the target of an Amo edge).
    pub amo_w: bool,
}

/// Whether edge `e` ends a thread (in a cycle with `ext` external edges).
fn is_boundary(e: &Edge, any_ext: bool) -> bool {
    match e.kind {
        EdgeKind::Com { ext, .. } => ext || !any_ext,
        _ => false,
    }
}

/// Structural checks that do not depend on the rotation.
pub(crate) fn check_structure(c: &Cycle) -> Result<(), CycleError> {
    let n = c.edges.len();
    if n < 2 {
        return Err(CycleError::whole("a cycle needs at least two edges"));
    }
    for i in 0..n {
        let j = (i + 1) % n;
        if c.edges[i].tgt != c.edges[j].src {
            return Err(CycleError::at(
                j,
                &c.edges[j].text(),
                format!(
                    "starts with a {} but edge {} `{}` ends with a {}",
                    dir_word(c.edges[j].src),
                    i + 1,
                    c.edges[i].text(),
                    dir_word(c.edges[i].tgt)
                ),
            ));
        }
    }
    if !c
        .edges
        .iter()
        .any(|e| matches!(e.kind, EdgeKind::Com { .. }))
    {
        return Err(CycleError::whole(
            "a cycle needs a communication edge (Rfi/Rfe, Fri/Fre or Wsi/Wse)",
        ));
    }
    let ext: Vec<usize> = (0..n).filter(|&i| c.edges[i].external()).collect();
    if ext.len() == 1 {
        let i = ext[0];
        return Err(CycleError::at(
            i,
            &c.edges[i].text(),
            "the only external edge: its two ends would be in one thread (make it internal, \
             e.g. Rfi, or add another external edge)",
        ));
    }
    let changes: Vec<usize> = (0..n).filter(|&i| c.edges[i].changes_loc()).collect();
    if changes.len() == 1 {
        let i = changes[0];
        return Err(CycleError::at(
            i,
            &c.edges[i].text(),
            "the only edge that moves to a new location: the cycle cannot come back to \
             its first location (make it same-location, e.g. Pos, or add another Pod)",
        ));
    }
    if changes.is_empty()
        && !c.edges.iter().any(|e| {
            matches!(
                e.kind,
                EdgeKind::Po { same_loc: true, .. } | EdgeKind::Amo { .. }
            )
        })
    {
        return Err(CycleError::whole(
            "a cycle on one location needs a Pos (or Amo) edge: communication edges alone \
             contradict coherence order",
        ));
    }
    Ok(())
}

fn dir_word(d: Dir) -> &'static str {
    match d {
        Dir::R => "read",
        Dir::W => "write",
    }
}

/// Applies defaults to event annotations and checks that each event can be
/// written as an instruction.
pub(crate) fn resolve(c: &Cycle, default_scope: Scope) -> Result<Vec<Ev>, CycleError> {
    let n = c.edges.len();
    let mut anns: Vec<EventAnn> = c.events.clone();
    let mut evs = Vec::with_capacity(n);
    // Amo ends share scope and proxy.
    for i in 0..n {
        if let EdgeKind::Amo { .. } = c.edges[i].kind {
            let j = (i + 1) % n;
            let err = |m: &str| CycleError::at(i, &c.edges[i].text(), m);
            match (anns[i].scope, anns[j].scope) {
                (Some(a), Some(b)) if a != b => {
                    return Err(err(
                        "the read and the write of one Amo have different scopes",
                    ))
                }
                (a, b) => {
                    let s = a.or(b);
                    anns[i].scope = s;
                    anns[j].scope = s;
                }
            }
            match (anns[i].proxy, anns[j].proxy) {
                (Some(a), Some(b)) if a != b => {
                    return Err(err(
                        "the read and the write of one Amo have different proxies",
                    ))
                }
                (a, b) => {
                    let p = a.or(b);
                    anns[i].proxy = p;
                    anns[j].proxy = p;
                }
            }
            if anns[i].rmw.is_some() || anns[j].rmw.is_some() {
                return Err(err(
                    "an Amo is already an RMW: `exch`/`add` go on the edge (Amo.add)",
                ));
            }
            if matches!(c.edges[(i + n - 1) % n].kind, EdgeKind::Amo { .. })
                || matches!(c.edges[j].kind, EdgeKind::Amo { .. })
            {
                return Err(err("two Amo edges cannot share an event"));
            }
        }
    }
    for (i, &a) in anns.iter().enumerate() {
        let dir = c.edges[i].src;
        let amo_r = matches!(c.edges[i].kind, EdgeKind::Amo { .. });
        let amo_w = matches!(c.edges[(i + n - 1) % n].kind, EdgeKind::Amo { .. });
        let err = |m: String| {
            CycleError::at(
                i,
                &c.edges[i].text(),
                format!("its source event (a {}): {m}", dir_word(dir)),
            )
        };
        let proxy = a.proxy.unwrap_or_default();
        let atomic = amo_r || amo_w || a.rmw.is_some();
        let mut sem = a.sem.unwrap_or(Sem::Weak);
        if sem == Sem::Weak && (a.scope.is_some() || atomic) {
            sem = Sem::Rlx;
        }
        match (dir, sem) {
            (Dir::R, Sem::Rel | Sem::AcqRel) if amo_r => {
                return Err(err(
                    "the read of an Amo cannot be `rel`: annotate the Amo edge (`Amo:rel.gpu`) \
                     or its write"
                        .into(),
                ))
            }
            (Dir::W, Sem::Acq | Sem::AcqRel) if amo_w => {
                return Err(err(
                    "the write of an Amo cannot be `acq`: annotate the Amo edge (`Amo:acq.gpu`) \
                     or its read"
                        .into(),
                ))
            }
            (Dir::R, Sem::Rel | Sem::AcqRel) if a.rmw.is_none() => {
                return Err(err(format!(
                    "a read cannot be `{}` (only an RMW can)",
                    sem.short()
                )))
            }
            (Dir::W, Sem::Acq | Sem::AcqRel) if a.rmw.is_none() => {
                return Err(err(format!(
                    "a write cannot be `{}` (only an RMW can)",
                    sem.short()
                )))
            }
            _ => {}
        }
        match proxy {
            Proxy::Texture | Proxy::Constant => {
                if dir == Dir::W {
                    return Err(err(format!("{} accesses are loads only", proxy.as_str())));
                }
                if sem != Sem::Weak || atomic {
                    return Err(err(format!("{} loads are weak", proxy.as_str())));
                }
            }
            Proxy::Surface if atomic => {
                return Err(err("gen does not write surface RMWs".into()));
            }
            _ => {}
        }
        let scope = if sem == Sem::Weak {
            None
        } else {
            Some(a.scope.unwrap_or(default_scope))
        };
        evs.push(Ev {
            dir,
            sem,
            scope,
            rmw: a.rmw,
            proxy,
            amo_r,
            amo_w,
        });
    }
    Ok(evs)
}

/// The resolved cycle: events with defaults, edges with fence scopes.
fn resolve_edges(c: &Cycle, default_scope: Scope) -> Vec<Edge> {
    c.edges
        .iter()
        .map(|e| {
            let mut e = *e;
            if let EdgeKind::Po { fence: Some(f), .. } = &mut e.kind {
                if f.kind.scoped() && f.scope.is_none() {
                    f.scope = Some(default_scope);
                }
                if !f.kind.scoped() {
                    f.scope = None;
                }
            }
            e
        })
        .collect()
}

/// Builds the litmus test of a cycle. The cycle is rotated to a canonical
/// position first (the classic shape's own when it is one), so that every
/// rotation of a cycle gives the same test.
pub fn build(cycle: &Cycle, opts: &Options) -> Result<Litmus, CycleError> {
    if cycle.events.len() != cycle.edges.len() {
        return Err(CycleError::whole("one event annotation per edge is needed"));
    }
    check_structure(cycle)?;
    let evs = resolve(cycle, opts.default_scope)?;
    let edges = resolve_edges(cycle, opts.default_scope);
    let n = edges.len();
    let any_ext = edges.iter().any(Edge::external);
    let bounds: Vec<usize> = (0..n)
        .filter(|&r| is_boundary(&edges[(r + n - 1) % n], any_ext))
        .collect();
    let key: Vec<String> = edges.iter().map(Edge::shape_key).collect();
    let keys = |r: usize| -> Vec<&str> { (0..n).map(|i| key[(i + r) % n].as_str()).collect() };
    let mut shape = None;
    let mut cands: Vec<usize> = Vec::new();
    for (name, sk) in shape_keys() {
        if sk.len() != n {
            continue;
        }
        cands = bounds
            .iter()
            .copied()
            .filter(|&r| (0..n).all(|i| key[(i + r) % n] == sk[i]))
            .collect();
        if !cands.is_empty() {
            shape = Some(*name);
            break;
        }
    }
    if shape.is_none() {
        let min = bounds.iter().map(|&r| keys(r)).min().unwrap_or_default();
        cands = bounds.iter().copied().filter(|&r| keys(r) == min).collect();
    }
    let mut best: Option<Litmus> = None;
    for r in cands {
        let e: Vec<Edge> = (0..n).map(|i| edges[(i + r) % n]).collect();
        let v: Vec<Ev> = (0..n).map(|i| evs[(i + r) % n]).collect();
        let t = emit(&e, &v, shape, opts)?;
        let better = match &best {
            None => true,
            Some(b) => (&t.name, &t.text) < (&b.name, &b.text),
        };
        if better {
            best = Some(t);
        }
    }
    best.ok_or_else(|| CycleError::whole("the cycle has no thread boundary"))
}

/// Location names: x, y, z, a, b, ... (no `r`, which starts registers).
fn loc_name(i: usize) -> String {
    const NAMES: &[&str] = &[
        "x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o",
        "p", "q", "s", "t", "u", "v", "w",
    ];
    NAMES
        .get(i)
        .map_or_else(|| format!("l{i}"), |s| s.to_string())
}

fn alias_suffix(p: Proxy) -> &'static str {
    match p {
        Proxy::Generic => "",
        Proxy::Alias => "_a",
        Proxy::Surface => "_s",
        Proxy::Texture => "_t",
        Proxy::Constant => "_c",
    }
}

fn qual(sem: Sem, scope: Option<Scope>) -> String {
    match scope {
        Some(s) if sem != Sem::Weak => format!("{}.{}", sem.ptx(), scope_str(s)),
        _ => "weak".to_string(),
    }
}

/// The annotation of an event as the cycle language writes it (empty for a
/// plain weak generic access).
pub(crate) fn event_ann_text(ev: &Ev) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if ev.sem != Sem::Weak || ev.rmw.is_some() || ev.proxy != Proxy::Generic {
        parts.push(ev.sem.short());
    }
    if let Some(s) = ev.scope {
        parts.push(scope_str(s));
    }
    if let Some(r) = ev.rmw {
        parts.push(r.as_str());
    }
    if ev.proxy != Proxy::Generic {
        parts.push(ev.proxy.as_str());
    }
    parts.join(".")
}

/// The semantics of an Amo instruction from its read and write ends.
fn amo_sem(r: Sem, w: Sem) -> Sem {
    match (r == Sem::Acq, w == Sem::Rel) {
        (true, true) => Sem::AcqRel,
        (true, false) => Sem::Acq,
        (false, true) => Sem::Rel,
        (false, false) => Sem::Rlx,
    }
}
