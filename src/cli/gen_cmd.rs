//! `ptxmc gen`: diy7-style litmus families from cycles of relations.

use super::{EXIT_ERROR, EXIT_OK};
use clap::{Parser, ValueEnum};
use ptxmc_frontend::diy::{
    self, Axes, Cycle, Dep, Family, FenceKind, Placement, RmwAxis, SemAxis, Vary, SHAPES,
};
use ptxmc_frontend::ir::Scope;
use std::io::Write;
use std::path::PathBuf;

/// Generate diy7-style litmus families from cycles of relations.
///
/// Without `--cycle`, generates the classic shapes (`--shapes`, default all)
/// over every combination of the variant axes. With `--cycle`, generates the
/// test of each cycle as written, or its variants over the axes named by
/// `--vary` (or whose flags are given).
///
/// Each thread with a po edge takes one ordering variant, from a menu built
/// from `--sems`, `--fences` and `--deps`: `po` (weak accesses), `rlx.S`,
/// `rel.S`, `acq.S`, `ra.S`, `fence.K.S`, `data`, `ctrl`; a thread of one
/// access is `weak` or `rlx.S`. A test is one choice per thread, times a scope
/// S (`--scopes`; per thread with `--mixed-scopes`), an RMW variant (`--rmw`)
/// and a placement (`--placements`). Tests are de-duplicated by name; names
/// are stable (`MP+rel.gpu+acq.cta`, `SB+fence.sc.gpus@cta`).
#[derive(Parser, Debug)]
pub struct GenArgs {
    /// Classic shapes, comma-separated, or `all` (the default without --cycle).
    /// See --list.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        conflicts_with = "cycle"
    )]
    pub shapes: Vec<String>,
    /// A cycle of edges (repeatable), e.g. "PodWW Rfe PodRR Fre" or
    /// "PodWW:rel.gpu Rfe PodRR:acq.cta Fre"; `*` directions expand
    /// ("Pod** Fre Pod** Fre"). Grammar: docs/cli/gen.md.
    #[arg(long, value_name = "CYCLE")]
    pub cycle: Vec<String>,
    /// With --cycle, the axes to vary (comma-separated; default: none, the
    /// cycle as written). Giving an axis's own flag (--sems, --scopes, ...)
    /// also varies it. `sem`, `fence` and `dep` replace the annotations of
    /// plain accesses and po edges by a menu of those kinds of variants.
    #[arg(long, value_enum, value_name = "AXES", value_delimiter = ',')]
    pub vary: Vec<VaryArg>,
    /// Semantics variants of each thread [default: weak,rlx,ra].
    #[arg(long, value_enum, value_name = "LIST", value_delimiter = ',')]
    pub sems: Vec<SemArg>,
    /// Fence variants of each thread [default: acq_rel,sc].
    #[arg(long, value_enum, value_name = "LIST", value_delimiter = ',')]
    pub fences: Vec<FenceArg>,
    /// Dependency variants of po edges out of a read [default: data,ctrl].
    #[arg(long, value_enum, value_name = "LIST", value_delimiter = ',')]
    pub deps: Vec<DepArg>,
    /// Scopes of strong accesses and fences [default: cta,cluster,gpu,sys].
    #[arg(long, value_enum, value_name = "LIST", value_delimiter = ',')]
    pub scopes: Vec<GenScope>,
    /// Let each thread take its own scope (product over threads) instead of
    /// one scope per test. Grows families quickly.
    #[arg(long)]
    pub mixed_scopes: bool,
    /// RMW variants [default: none,exch,add]: `exch` makes every strong write
    /// an atom.exch, `add` every strong read (not followed by an access to its
    /// location) an atom.add writing a fresh value.
    #[arg(long, value_enum, value_name = "LIST", value_delimiter = ',')]
    pub rmw: Vec<RmwArg>,
    /// Placements [default: all for families, gpu for a cycle]: `cta` (one
    /// CTA), `cluster` (CTAs of one cluster), `gpu` (CTAs of distinct clusters
    /// of one GPU), `sys` (distinct GPUs).
    #[arg(long, value_enum, value_name = "LIST", value_delimiter = ',')]
    pub placements: Vec<GenPlacement>,
    /// Scope of strong accesses and fences that a cycle leaves unscoped.
    #[arg(long, value_enum, value_name = "SCOPE", default_value_t = GenScope::Gpu)]
    pub scope: GenScope,
    /// Write one NAME.litmus per test into DIR (created if needed) instead of
    /// printing the tests.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// List the classic shapes and their cycles.
    #[arg(long)]
    pub list: bool,
    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Axes that `--vary` can name.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum VaryArg {
    /// Semantics of each thread (the ordering menu).
    Sem,
    /// Fences of each thread (the ordering menu).
    Fence,
    /// Dependencies of each thread (the ordering menu).
    Dep,
    /// Scopes.
    Scope,
    /// RMWs.
    Rmw,
    /// Placements.
    Placement,
    /// Every axis.
    All,
}

/// Semantics variants.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum SemArg {
    /// Weak accesses (`po`, `weak`).
    Weak,
    /// Relaxed accesses (`rlx.S`).
    Rlx,
    /// Release write / acquire read (`rel.S`, `acq.S`, `ra.S`).
    Ra,
    /// No semantics variant.
    None,
}

/// Fence variants.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum FenceArg {
    /// No fence variant.
    None,
    /// `fence.acq_rel.S`
    #[value(name = "acq_rel")]
    AcqRel,
    /// `fence.sc.S`
    Sc,
    /// `fence.acquire.S`
    Acquire,
    /// `fence.release.S`
    Release,
}

/// Dependency variants.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum DepArg {
    /// No dependency variant.
    None,
    /// Data dependency to a write.
    Data,
    /// Control dependency.
    Ctrl,
}

/// RMW variants.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum RmwArg {
    /// Plain accesses.
    None,
    /// Strong writes become atom.exch.
    Exch,
    /// Strong reads become atom.add.
    Add,
}

/// Scopes.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum GenScope {
    /// `.cta`
    Cta,
    /// `.cluster`
    Cluster,
    /// `.gpu`
    Gpu,
    /// `.sys`
    Sys,
}

impl GenScope {
    fn scope(self) -> Scope {
        match self {
            GenScope::Cta => Scope::Cta,
            GenScope::Cluster => Scope::Cluster,
            GenScope::Gpu => Scope::Gpu,
            GenScope::Sys => Scope::Sys,
        }
    }
}

/// Placements.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum GenPlacement {
    /// All threads in one CTA (`@cta`).
    Cta,
    /// Distinct CTAs of one cluster (`@cluster`).
    Cluster,
    /// Distinct CTAs and clusters of one GPU (no suffix).
    Gpu,
    /// Distinct GPUs (`@sys`).
    Sys,
}

impl GenPlacement {
    fn placement(self) -> Placement {
        match self {
            GenPlacement::Cta => Placement::Cta,
            GenPlacement::Cluster => Placement::Cluster,
            GenPlacement::Gpu => Placement::Gpu,
            GenPlacement::Sys => Placement::Sys,
        }
    }
}

/// The axes from the flags (defaults: every value); `placements_default` is
/// used when --placements is not given.
fn axes(args: &GenArgs, placements_default: &[Placement]) -> Axes {
    let all = Axes::all();
    let mut a = all.clone();
    if !args.sems.is_empty() {
        a.sems = args
            .sems
            .iter()
            .filter_map(|s| match s {
                SemArg::Weak => Some(SemAxis::Weak),
                SemArg::Rlx => Some(SemAxis::Rlx),
                SemArg::Ra => Some(SemAxis::Ra),
                SemArg::None => None,
            })
            .collect();
    }
    if !args.fences.is_empty() {
        a.fences = args
            .fences
            .iter()
            .filter_map(|f| match f {
                FenceArg::None => None,
                FenceArg::AcqRel => Some(FenceKind::AcqRel),
                FenceArg::Sc => Some(FenceKind::Sc),
                FenceArg::Acquire => Some(FenceKind::Acquire),
                FenceArg::Release => Some(FenceKind::Release),
            })
            .collect();
    }
    if !args.deps.is_empty() {
        a.deps = args
            .deps
            .iter()
            .filter_map(|d| match d {
                DepArg::None => None,
                DepArg::Data => Some(Dep::Data),
                DepArg::Ctrl => Some(Dep::Ctrl),
            })
            .collect();
    }
    if !args.scopes.is_empty() {
        a.scopes = args.scopes.iter().map(|s| s.scope()).collect();
    }
    a.mixed_scopes = args.mixed_scopes;
    if !args.rmw.is_empty() {
        a.rmws = args
            .rmw
            .iter()
            .map(|r| match r {
                RmwArg::None => RmwAxis::None,
                RmwArg::Exch => RmwAxis::Exch,
                RmwArg::Add => RmwAxis::Add,
            })
            .collect();
    }
    a.placements = if args.placements.is_empty() {
        placements_default.to_vec()
    } else {
        args.placements.iter().map(|p| p.placement()).collect()
    };
    dedup(&mut a.sems);
    dedup(&mut a.fences);
    dedup(&mut a.deps);
    dedup(&mut a.scopes);
    dedup(&mut a.rmws);
    dedup(&mut a.placements);
    a
}

fn dedup<T: PartialEq + Copy>(v: &mut Vec<T>) {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for x in v.iter() {
        if !out.contains(x) {
            out.push(*x);
        }
    }
    *v = out;
}

fn generate(args: &GenArgs) -> Result<Family, String> {
    let default_scope = args.scope.scope();
    if args.cycle.is_empty() {
        let names: Vec<&str> = if args.shapes.is_empty() {
            vec!["all"]
        } else {
            args.shapes.iter().map(|s| s.trim()).collect()
        };
        let mut cycles = Vec::new();
        for n in &names {
            if n.eq_ignore_ascii_case("all") {
                cycles.extend(SHAPES.iter().filter_map(|s| diy::shape(s.0).map(|x| x.1)));
            } else {
                match diy::shape(n) {
                    Some((_, c)) => cycles.push(c),
                    None => {
                        return Err(format!(
                            "unknown shape `{n}` (see `ptxmc gen --list`; known: {})",
                            SHAPES.iter().map(|s| s.0).collect::<Vec<_>>().join(", ")
                        ))
                    }
                }
            }
        }
        dedup_cycles(&mut cycles);
        let axes = axes(args, &Placement::ALL);
        return diy::family(&cycles, &axes, &Vary::ALL, default_scope).map_err(|e| e.to_string());
    }
    let all = args.vary.contains(&VaryArg::All);
    let has = |v: VaryArg| all || args.vary.contains(&v);
    let vary = Vary {
        ordering: has(VaryArg::Sem)
            || has(VaryArg::Fence)
            || has(VaryArg::Dep)
            || !args.sems.is_empty()
            || !args.fences.is_empty()
            || !args.deps.is_empty(),
        scope: has(VaryArg::Scope) || !args.scopes.is_empty() || args.mixed_scopes,
        rmw: has(VaryArg::Rmw) || !args.rmw.is_empty(),
        placement: has(VaryArg::Placement) || !args.placements.is_empty(),
    };
    let placements_default: &[Placement] = if vary.placement {
        &Placement::ALL
    } else {
        &[Placement::Gpu]
    };
    let mut axes = axes(args, placements_default);
    // The ordering menu holds the groups that were asked for.
    if !has(VaryArg::Sem) && args.sems.is_empty() {
        axes.sems.clear();
    }
    if !has(VaryArg::Fence) && args.fences.is_empty() {
        axes.fences.clear();
    }
    if !has(VaryArg::Dep) && args.deps.is_empty() {
        axes.deps.clear();
    }
    let mut cycles: Vec<Cycle> = Vec::new();
    for text in &args.cycle {
        let cs = diy::parse_cycle(text).map_err(|e| format!("--cycle \"{text}\": {e}"))?;
        // Report a malformed cycle with its text before generating anything.
        for c in &cs {
            let opts = diy::Options {
                placement: Placement::Gpu,
                default_scope,
            };
            diy::build(c, &opts).map_err(|e| format!("--cycle \"{text}\": {e}"))?;
        }
        cycles.extend(cs);
    }
    dedup_cycles(&mut cycles);
    diy::family(&cycles, &axes, &vary, default_scope).map_err(|e| e.to_string())
}

fn dedup_cycles(v: &mut Vec<Cycle>) {
    let mut out: Vec<Cycle> = Vec::with_capacity(v.len());
    for c in v.drain(..) {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    *v = out;
}

fn plural(n: usize) -> String {
    if n == 1 {
        "1 test".to_string()
    } else {
        format!("{n} tests")
    }
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &GenArgs) -> u8 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.list {
        for (name, cycle, doc) in SHAPES {
            let _ = writeln!(out, "{name:<6} {cycle:<30} {doc}");
        }
        return EXIT_OK;
    }
    let fam = match generate(args) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    match &args.out {
        None => {
            for t in &fam.tests {
                if writeln!(out, "{}", t.text).is_err() {
                    // A closed pipe (`| head`) is not an error.
                    return EXIT_OK;
                }
            }
            if !args.quiet {
                eprintln!("generated {}", plural(fam.tests.len()));
            }
        }
        Some(dir) => {
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("error: {}: {e}", dir.display());
                return EXIT_ERROR;
            }
            for t in &fam.tests {
                let path = dir.join(format!("{}.litmus", t.name));
                if let Err(e) = std::fs::write(&path, &t.text) {
                    eprintln!("error: {}: {e}", path.display());
                    return EXIT_ERROR;
                }
            }
            if !args.quiet {
                let _ = writeln!(
                    out,
                    "wrote {} to {}",
                    plural(fam.tests.len()),
                    dir.display()
                );
            }
        }
    }
    EXIT_OK
}
