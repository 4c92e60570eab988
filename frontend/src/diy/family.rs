//! Families: the cartesian product of variant axes over cycles.

use super::build::{build, check_structure, Litmus, Options, Placement};
use super::cycle::{
    Cycle, CycleError, Dep, Dir, EdgeKind, EventAnn, Fence, FenceKind, Proxy, RmwOp, Sem,
};
use crate::ir::Scope;
use std::collections::{HashMap, HashSet};

/// Access semantics a thread may take.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum SemAxis {
    /// Every access weak (`po`; a lone access `weak`).
    Weak,
    /// Every access of the po edge relaxed (`rlx.S`).
    Rlx,
    /// A release write at the end of the edge (`rel.S`) or an acquire read at
    /// its start (`acq.S`), the other access weak; or both (`ra.S`, for an
    /// edge from a read to a write).
    Ra,
}

/// RMWs instead of plain accesses, per test.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RmwAxis {
    /// Plain accesses.
    None,
    /// Every strong write becomes `atom.exch` of the same value.
    Exch,
    /// Every strong read not followed in its thread by an access to the same
    /// location becomes `atom.add` that writes a fresh value.
    Add,
}

/// The values of each axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axes {
    /// Semantics variants of each thread.
    pub sems: Vec<SemAxis>,
    /// Fence variants of each thread (fence between the accesses of a po edge).
    pub fences: Vec<FenceKind>,
    /// Dependency variants of each thread (po edges out of a read).
    pub deps: Vec<Dep>,
    /// Scopes of strong accesses and fences.
    pub scopes: Vec<Scope>,
    /// Each thread takes its own scope (product over threads) instead of one
    /// scope for the whole test.
    pub mixed_scopes: bool,
    /// RMW variants.
    pub rmws: Vec<RmwAxis>,
    /// Placements.
    pub placements: Vec<Placement>,
}

impl Axes {
    /// Every value of every axis (scopes not mixed).
    pub fn all() -> Self {
        Self {
            sems: vec![SemAxis::Weak, SemAxis::Rlx, SemAxis::Ra],
            fences: vec![FenceKind::AcqRel, FenceKind::Sc],
            deps: vec![Dep::Data, Dep::Ctrl],
            scopes: vec![Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys],
            mixed_scopes: false,
            rmws: vec![RmwAxis::None, RmwAxis::Exch, RmwAxis::Add],
            placements: Placement::ALL.to_vec(),
        }
    }
}

/// Which axes vary; the others keep what the cycle says.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Vary {
    /// Semantics, fences and dependencies of each thread (replacing the
    /// cycle's own annotations of plain accesses and po edges).
    pub ordering: bool,
    /// Scopes.
    pub scope: bool,
    /// RMWs.
    pub rmw: bool,
    /// Placements (otherwise the first of `Axes::placements`).
    pub placement: bool,
}

impl Vary {
    /// Every axis.
    pub const ALL: Vary = Vary {
        ordering: true,
        scope: true,
        rmw: true,
        placement: true,
    };
    /// None: the cycles as written.
    pub const NONE: Vary = Vary {
        ordering: false,
        scope: false,
        rmw: false,
        placement: false,
    };
}

/// A generated family.
#[derive(Clone, Debug, Default)]
pub struct Family {
    /// The tests, in generation order, each name once.
    pub tests: Vec<Litmus>,
    /// Variants dropped because an earlier test had the same name (the same
    /// test reached twice, e.g. by a scope that no access uses, or by a
    /// symmetry of the shape).
    pub duplicates: usize,
    /// Variants dropped because an earlier test under another name had the
    /// same text (0 unless naming is not canonical).
    pub same_text: usize,
}

/// The ordering variant of one thread.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Variant {
    /// Keep the thread as the cycle says (threads without a po edge).
    Keep,
    Weak,
    Rlx(Scope),
    Rel(Scope),
    Acq(Scope),
    /// Acquire read at the start and release write at the end.
    AcqRel(Scope),
    Fence(FenceKind, Scope),
    Dep(Dep),
}

/// The events of each thread in program order (indices into the cycle).
pub(crate) fn thread_split(c: &Cycle) -> Vec<Vec<usize>> {
    let n = c.edges.len();
    let any_ext = c.edges.iter().any(|e| e.external());
    let start = (0..n)
        .find(|&i| c.edges[(i + n - 1) % n].external())
        .unwrap_or(0);
    let mut threads: Vec<Vec<usize>> = vec![Vec::new()];
    for k in 0..n {
        let e = (start + k) % n;
        threads.last_mut().map(|t| t.push(e)).unwrap_or(());
        if any_ext && c.edges[e].external() && k + 1 < n {
            threads.push(Vec::new());
        }
    }
    threads
}

fn menu(c: &Cycle, t: &[usize], axes: &Axes, s: Scope) -> Vec<Variant> {
    let po: Vec<usize> = t[..t.len() - 1]
        .iter()
        .copied()
        .filter(|&e| matches!(c.edges[e].kind, EdgeKind::Po { .. }))
        .collect();
    let mut m = Vec::new();
    if t.len() == 1 {
        if axes.sems.contains(&SemAxis::Weak) {
            m.push(Variant::Weak);
        }
        if axes.sems.contains(&SemAxis::Rlx) || axes.sems.contains(&SemAxis::Ra) {
            m.push(Variant::Rlx(s));
        }
        if m.is_empty() {
            m.push(Variant::Keep);
        }
        return m;
    }
    if po.is_empty() {
        return vec![Variant::Keep];
    }
    let all_src_r = po.iter().all(|&e| c.edges[e].src == Dir::R);
    let all_tgt_w = po.iter().all(|&e| c.edges[e].tgt == Dir::W);
    for sa in &axes.sems {
        match sa {
            SemAxis::Weak => m.push(Variant::Weak),
            SemAxis::Rlx => m.push(Variant::Rlx(s)),
            SemAxis::Ra => {
                if all_tgt_w {
                    m.push(Variant::Rel(s));
                }
                if all_src_r {
                    m.push(Variant::Acq(s));
                }
                if all_src_r && all_tgt_w {
                    m.push(Variant::AcqRel(s));
                }
            }
        }
    }
    for k in &axes.fences {
        m.push(Variant::Fence(*k, s));
    }
    for d in &axes.deps {
        if all_src_r && (*d == Dep::Ctrl || all_tgt_w) {
            m.push(Variant::Dep(*d));
        }
    }
    if m.is_empty() {
        m.push(Variant::Keep);
    }
    m
}

fn set(ev: &mut EventAnn, sem: Sem, s: Scope) {
    ev.sem = Some(ev.sem.map_or(sem, |o| o.join(sem)));
    ev.scope = Some(s);
}

fn is_amo_event(c: &Cycle, e: usize) -> bool {
    let n = c.edges.len();
    matches!(c.edges[e].kind, EdgeKind::Amo { .. })
        || matches!(c.edges[(e + n - 1) % n].kind, EdgeKind::Amo { .. })
}

fn apply_variant(c: &mut Cycle, t: &[usize], v: Variant) {
    if v == Variant::Keep {
        return;
    }
    for &e in t {
        if !is_amo_event(c, e) {
            c.events[e].sem = None;
            c.events[e].scope = None;
        }
    }
    let n = c.edges.len();
    if t.len() == 1 {
        if let Variant::Rlx(s) = v {
            set(&mut c.events[t[0]], Sem::Rlx, s);
        }
        return;
    }
    for &e in &t[..t.len() - 1] {
        let j = (e + 1) % n;
        let (src, tgt) = (c.edges[e].src, c.edges[e].tgt);
        let EdgeKind::Po { fence, dep, .. } = &mut c.edges[e].kind else {
            continue;
        };
        *fence = None;
        *dep = None;
        match v {
            Variant::Keep | Variant::Weak => {}
            Variant::Rlx(s) => {
                set(&mut c.events[e], Sem::Rlx, s);
                set(&mut c.events[j], Sem::Rlx, s);
            }
            Variant::Rel(s) => set(&mut c.events[j], Sem::Rel, s),
            Variant::Acq(s) => set(&mut c.events[e], Sem::Acq, s),
            Variant::AcqRel(s) => {
                set(&mut c.events[e], Sem::Acq, s);
                set(&mut c.events[j], Sem::Rel, s);
            }
            Variant::Fence(k, s) => {
                *fence = Some(Fence {
                    kind: k,
                    scope: Some(s),
                });
                if src == Dir::R {
                    set(&mut c.events[e], Sem::Rlx, s);
                }
                if tgt == Dir::W {
                    set(&mut c.events[j], Sem::Rlx, s);
                }
            }
            Variant::Dep(d) => *dep = Some(d),
        }
    }
}

/// Replaces every scope of the events and fences of thread `t` with `s`.
fn apply_scope(c: &mut Cycle, t: &[usize], s: Scope) {
    for &e in t {
        if c.events[e].is_strong() || c.events[e].rmw.is_some() || is_amo_event(c, e) {
            c.events[e].scope = Some(s);
        }
        if let EdgeKind::Po { fence: Some(f), .. } = &mut c.edges[e].kind {
            if f.kind.scoped() {
                f.scope = Some(s);
            }
        }
    }
}

/// The cycle with its strong writes (`Exch`) or reads (`Add`) made RMWs;
/// `None` when no access qualifies (the variant would repeat `RmwAxis::None`).
fn apply_rmw(c: &Cycle, r: RmwAxis) -> Option<Cycle> {
    if r == RmwAxis::None {
        return Some(c.clone());
    }
    let n = c.edges.len();
    let mut out = c.clone();
    let mut changed = false;
    for e in 0..n {
        let a = c.events[e];
        if is_amo_event(c, e)
            || a.rmw.is_some()
            || !a.is_strong()
            || !matches!(a.proxy, None | Some(Proxy::Generic) | Some(Proxy::Alias))
        {
            continue;
        }
        let dir = c.edges[e].src;
        let ok = match r {
            RmwAxis::Exch => dir == Dir::W,
            RmwAxis::Add => {
                dir == Dir::R && !matches!(c.edges[e].kind, EdgeKind::Po { same_loc: true, .. })
            }
            RmwAxis::None => false,
        };
        if ok {
            out.events[e].rmw = Some(match r {
                RmwAxis::Add => RmwOp::Add,
                _ => RmwOp::Exch,
            });
            changed = true;
        }
    }
    changed.then_some(out)
}

/// Every scope assignment (one scope per thread).
fn scope_assignments(nthreads: usize, axes: &Axes, vary: bool, default: Scope) -> Vec<Vec<Scope>> {
    let scopes: Vec<Scope> = if vary && !axes.scopes.is_empty() {
        axes.scopes.clone()
    } else {
        vec![default]
    };
    if !axes.mixed_scopes || !vary {
        return scopes.iter().map(|&s| vec![s; nthreads]).collect();
    }
    let mut out: Vec<Vec<Scope>> = vec![Vec::new()];
    for _ in 0..nthreads {
        out = out
            .into_iter()
            .flat_map(|p| {
                scopes.iter().map(move |&s| {
                    let mut q = p.clone();
                    q.push(s);
                    q
                })
            })
            .collect();
    }
    out
}

/// Generates the family of `cycles` over the axes that `vary` selects,
/// de-duplicated by name (and by text: two names never share a test).
pub fn family(
    cycles: &[Cycle],
    axes: &Axes,
    vary: &Vary,
    default_scope: Scope,
) -> Result<Family, CycleError> {
    let mut fam = Family::default();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut bodies: HashSet<String> = HashSet::new();
    let placements: Vec<Placement> = if vary.placement {
        axes.placements.clone()
    } else {
        axes.placements
            .first()
            .copied()
            .into_iter()
            .collect::<Vec<_>>()
    };
    let placements = if placements.is_empty() {
        vec![Placement::Gpu]
    } else {
        placements
    };
    let rmws: Vec<RmwAxis> = if vary.rmw {
        axes.rmws.clone()
    } else {
        vec![RmwAxis::None]
    };
    for base in cycles {
        check_structure(base)?;
        let threads = thread_split(base);
        for scopes in scope_assignments(threads.len(), axes, vary.scope, default_scope) {
            let menus: Vec<Vec<Variant>> = if vary.ordering {
                threads
                    .iter()
                    .zip(&scopes)
                    .map(|(t, &s)| menu(base, t, axes, s))
                    .collect()
            } else {
                threads.iter().map(|_| vec![Variant::Keep]).collect()
            };
            let total: usize = menus.iter().map(Vec::len).product();
            for k in 0..total {
                let mut c = base.clone();
                let mut rem = k;
                for (t, m) in threads.iter().zip(&menus).rev() {
                    apply_variant(&mut c, t, m[rem % m.len()]);
                    rem /= m.len();
                }
                if vary.scope && !vary.ordering {
                    for (t, &s) in threads.iter().zip(&scopes) {
                        apply_scope(&mut c, t, s);
                    }
                }
                for &r in &rmws {
                    let Some(c) = apply_rmw(&c, r) else {
                        continue;
                    };
                    for &p in &placements {
                        let opts = Options {
                            placement: p,
                            default_scope,
                        };
                        let t = build(&c, &opts)?;
                        if let Some(&i) = names.get(&t.name) {
                            if fam.tests[i].body() != t.body() {
                                return Err(CycleError::whole(format!(
                                    "internal error: two different tests named {}",
                                    t.name
                                )));
                            }
                            fam.duplicates += 1;
                            continue;
                        }
                        if !bodies.insert(t.body().to_string()) {
                            fam.same_text += 1;
                            continue;
                        }
                        names.insert(t.name.clone(), fam.tests.len());
                        fam.tests.push(t);
                    }
                }
            }
        }
    }
    Ok(fam)
}
