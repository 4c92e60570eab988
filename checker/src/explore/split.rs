//! `ptxmc run --split K/N`: one exploration cut into N deterministic parts
//! that separate processes (or machines) explore, and merged back into
//! exactly the undivided report.
//!
//! The DPOR tree is cut at a *frontier*: a set of subtree roots, each the
//! child of a branching node ([`super::dpor::Dpor::branch`], the only place
//! the explorer branches over children it can hand over) named by its path
//! of [`Step`]s from the root. The nodes above the frontier (the *interior*)
//! are explored by every part, so that each reaches its roots, but only part
//! 1 keeps what they count. Nodes whose children the explorer enumerates
//! inline (the sets of waiting reads a write serves) are never split: a step
//! names a branching node by its ordinal among the branching nodes met below
//! the same child, which tells apart the branching nodes below the different
//! inline children.
//!
//! The frontier is chosen by [`plan`] in rounds: the roots found so far are
//! sized by Knuth walks ([`super::estimate::Walk`], a fixed seed per root),
//! the largest are opened (their children become roots), until every root is
//! small beside a part's share. The roots, in depth-first order, are then
//! cut into N contiguous ranges of about equal estimated size. Everything is
//! count-based and seeded, never clock-based, so every part computes the
//! same plan; its digest is part of a part's identity.
//!
//! A part's result is a list of [`Piece`]s, each keyed by its place in the
//! depth-first order ([`Piece::at`]): merging the pieces of all parts in that
//! order ([`merge`]) is merging the halves of the parallel search
//! ([`Outcomes::merge`]), which gives exactly the sequential result, first
//! liveness note and loop-bound note included. A search stopped early (an
//! unsupported construct met in some subtree) is stopped at the same place:
//! the pieces after the first stopped one are dropped, as the undivided
//! search never reaches them.

use super::estimate::Walk;
use super::outcome::Outcomes;
use super::Budget;
use crate::report::{Options, Report, Status};
use ptxmc_frontend::ir::Test;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One step down the tree: (ordinal of the branching node among those met
/// below the same child, index of the child).
pub type Step = (u32, u32);
/// A node's path from the root.
type Path = Vec<Step>;

/// Walks per frontier root when sizing it.
const WALKS: u64 = 8;
/// Roots are opened until none exceeds `1 / (GRAIN · N)` of the tree.
const GRAIN: u64 = 8;
/// At most this many rounds of opening.
const MAX_ROUNDS: usize = 24;
/// At most this many roots per part (and [`MAX_ROOTS`] in all).
const ROOTS_PER_PART: usize = 32;
const MAX_ROOTS: usize = 4096;

pub use super::outcome::Tally;

/// How a piece ended, when the search stopped in it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StopKind {
    /// A stop of the test itself (an unsupported construct, a limit of the
    /// test): the undivided search stops there too.
    Stop,
    /// A time or execution limit of this part.
    Limit,
}

/// A contiguous stretch of the depth-first order that one part explored.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Piece {
    /// `(j, 0)`: the interior before frontier root `j`; `(j, 1)`: the
    /// subtree of root `j`. Pieces sort in depth-first order.
    pub at: (u32, u32),
    /// Whether the search stopped in this piece.
    pub stop: Option<StopKind>,
    /// What it counted.
    pub tally: Tally,
}

/// The result of one part.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PartResult {
    /// How the part's exploration ended.
    pub status: Status,
    /// Its pieces, in depth-first order.
    pub pieces: Vec<Piece>,
    /// Digest of the plan (frontier and owners): equal in every part.
    pub plan: u64,
    /// Frontier roots of the plan.
    pub roots: u32,
    /// Time of the part.
    pub time: Duration,
}

/// The frontier and who owns each root.
#[derive(Clone, Debug, Default)]
struct Plan {
    /// Whether the root is interior (false: the whole tree is root 0).
    root_open: bool,
    /// Paths of the interior nodes below the root.
    open: BTreeSet<Path>,
    /// Owner (1-based part) of each root, in depth-first order.
    owners: Vec<u32>,
}

impl Plan {
    fn digest(&self) -> u64 {
        let mut h = Fnv::default();
        h.u64(u64::from(self.root_open));
        for p in &self.open {
            h.u64(p.len() as u64);
            for &(a, b) in p {
                h.u64(u64::from(a) << 32 | u64::from(b));
            }
        }
        for &o in &self.owners {
            h.u64(u64::from(o));
        }
        h.0
    }
}

/// FNV-1a, 64 bits: a stable digest (not a defence against forgery).
#[derive(Debug)]
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Hashes bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }
}

/// What the hook does at the current node.
const INTERIOR: u8 = 0;
const OWNED: u8 = 1;
const WALK: u8 = 2;

/// The hook of `--split` in the DPOR explorer ([`super::dpor::Dpor::with_split`]).
#[derive(Debug)]
pub(crate) struct Split {
    mode: AtomicU8,
    st: Mutex<Cursor>,
    walk: Mutex<Option<Arc<Walk>>>,
}

#[derive(Debug)]
struct Cursor {
    /// The part (1-based), or 0 when sizing roots for [`plan`].
    part: u32,
    open: BTreeSet<Path>,
    owners: Vec<u32>,
    // invariant: ords.len() == path.len() + 1
    path: Path,
    ords: Vec<u32>,
    next_root: u32,
    pieces: Vec<(At, Outcomes, Option<StopKind>)>,
    /// What the worker's outcomes count now.
    current: At,
    stopped: bool,
    // Sizing: sizes of roots by path (kept across rounds), and the roots
    // met in this round.
    seed: u64,
    sizes: BTreeMap<Path, u64>,
    found: Vec<(Path, u64)>,
}

type At = (u32, u32);

/// The explorer's exploration of one child (`parts` last).
type Child<'c, S, W, C, E> = &'c dyn Fn(&mut S, &mut W, &C, usize) -> Result<(), E>;

/// One run of the DPOR explorer with a sizing hook, which it hands back
/// (how [`make_plan`] explores without naming the explorer's type).
type Probe<'p> = &'p mut dyn FnMut(Split, &mut Outcomes, &mut Budget) -> (Status, Option<Split>);

/// The interior and the roots of one sizing round.
type Round = (BTreeSet<Path>, Vec<(Path, u64)>);

/// What the explorer lends the hook: its worker's outcomes, its tick, which
/// halts are limits, and how many parts an owned subtree may use.
pub(crate) struct Hooks<'h, W, E> {
    pub out: fn(&mut W) -> &mut Outcomes,
    pub tick: &'h dyn Fn(&mut W) -> Result<(), E>,
    pub is_limit: fn(&E) -> bool,
    pub whole: usize,
}

enum Go {
    Descend,
    Skip,
    Own,
    Size(Path),
}

impl Split {
    fn new(part: u32, plan: &Plan, seed: u64, sizes: BTreeMap<Path, u64>) -> Self {
        Self {
            mode: AtomicU8::new(if plan.root_open { INTERIOR } else { OWNED }),
            st: Mutex::new(Cursor {
                part,
                open: plan.open.clone(),
                owners: plan.owners.clone(),
                path: Vec::new(),
                ords: vec![0],
                next_root: 0,
                pieces: Vec::new(),
                current: if plan.root_open { (0, 0) } else { (0, 1) },
                stopped: false,
                seed,
                sizes,
                found: Vec::new(),
            }),
            walk: Mutex::new(None),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cursor> {
        // A poisoned lock only means a worker panicked; the state is plain data.
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// At a branching node with several children: `None` to let the
    /// explorer go on as usual (inside an owned subtree), else the result of
    /// exploring this part's share of the children.
    pub(crate) fn branch<S, W, C, E>(
        &self,
        s: &mut S,
        w: &mut W,
        choices: &[C],
        h: &Hooks<'_, W, E>,
        child: Child<'_, S, W, C, E>,
    ) -> Option<Result<(), E>> {
        match self.mode.load(Ordering::Relaxed) {
            OWNED => None,
            WALK => {
                let walk = self.walk.lock().ok().and_then(|g| g.clone())?;
                if let Err(e) = (h.tick)(w) {
                    return Some(Err(e));
                }
                let (i, mark) = walk.enter(choices.len(), &(h.out)(w).stats);
                let r = child(s, w, &choices[i], 1);
                walk.leave(mark, &mut (h.out)(w).stats);
                Some(r)
            }
            _ => Some(self.interior(s, w, choices, h, child)),
        }
    }

    fn interior<S, W, C, E>(
        &self,
        s: &mut S,
        w: &mut W,
        choices: &[C],
        h: &Hooks<'_, W, E>,
        child: Child<'_, S, W, C, E>,
    ) -> Result<(), E> {
        let ord = {
            let mut st = self.lock();
            let o = st.ords.last_mut().map_or(0, |o| {
                *o += 1;
                *o - 1
            });
            o
        };
        for (i, c) in choices.iter().enumerate() {
            (h.tick)(w)?;
            let go = self.decide(ord, i as u32, (h.out)(w));
            let r = match go {
                Go::Skip => Ok(()),
                Go::Descend => {
                    let r = child(s, w, c, 1);
                    let mut st = self.lock();
                    st.path.pop();
                    st.ords.pop();
                    if let Err(e) = &r {
                        let kind = if (h.is_limit)(e) {
                            StopKind::Limit
                        } else {
                            StopKind::Stop
                        };
                        st.note_stop(kind, (h.out)(w));
                    }
                    r
                }
                Go::Own => {
                    self.mode.store(OWNED, Ordering::Relaxed);
                    let r = child(s, w, c, h.whole);
                    self.mode.store(INTERIOR, Ordering::Relaxed);
                    let kind = r.as_ref().err().map(|e| {
                        if (h.is_limit)(e) {
                            StopKind::Limit
                        } else {
                            StopKind::Stop
                        }
                    });
                    let mut st = self.lock();
                    let out = (h.out)(w);
                    let piece = std::mem::replace(out, out.fork());
                    let at = st.current;
                    st.pieces.push((at, piece, kind));
                    st.stopped |= kind.is_some();
                    st.current = (at.0 + 1, 0);
                    r
                }
                Go::Size(path) => self.size(s, w, c, h, child, path),
            };
            r?;
        }
        Ok(())
    }

    /// Where child `i` of the branching node `ord` leads.
    fn decide(&self, ord: u32, i: u32, out: &mut Outcomes) -> Go {
        let mut st = self.lock();
        let mut q = st.path.clone();
        q.push((ord, i));
        if st.open.contains(&q) {
            st.path = q;
            st.ords.push(0);
            return Go::Descend;
        }
        let j = st.next_root;
        st.next_root += 1;
        // The interior before this root: part 1's.
        let piece = std::mem::replace(out, out.fork());
        if st.part == 1 && !is_empty(&piece) {
            let at = st.current;
            st.pieces.push((at, piece, None));
        }
        if st.part == 0 {
            st.current = (j + 1, 0);
            return Go::Size(q);
        }
        if st.owners.get(j as usize).copied() == Some(st.part) {
            st.current = (j, 1);
            Go::Own
        } else {
            st.current = (j + 1, 0);
            Go::Skip
        }
    }

    /// Sizes the root `path` by walks (or from a previous round).
    fn size<S, W, C, E>(
        &self,
        s: &mut S,
        w: &mut W,
        c: &C,
        h: &Hooks<'_, W, E>,
        child: Child<'_, S, W, C, E>,
        path: Path,
    ) -> Result<(), E> {
        let (known, seed) = {
            let st = self.lock();
            (st.sizes.get(&path).copied(), st.seed)
        };
        let size = match known {
            Some(n) => n,
            None => {
                let mut sum = 0u64;
                let mut hs = Fnv::default();
                hs.u64(seed);
                for &(a, b) in &path {
                    hs.u64(u64::from(a) << 32 | u64::from(b));
                }
                for k in 0..WALKS {
                    let mut hk = Fnv(hs.0);
                    hk.u64(k);
                    if let Ok(mut g) = self.walk.lock() {
                        *g = Some(Arc::new(Walk::new(hk.0)));
                    }
                    let out = (h.out)(w);
                    let saved = std::mem::replace(out, out.fork());
                    self.mode.store(WALK, Ordering::Relaxed);
                    let r = child(s, w, c, 1);
                    self.mode.store(INTERIOR, Ordering::Relaxed);
                    let out = (h.out)(w);
                    let st = &out.stats;
                    sum = sum.saturating_add(st.executions + st.blocked + st.pruned);
                    *out = saved;
                    r?;
                }
                (sum / WALKS).max(1)
            }
        };
        let mut st = self.lock();
        st.sizes.insert(path.clone(), size);
        st.found.push((path, size));
        Ok(())
    }
}

impl Cursor {
    /// The search stopped in the piece being counted (the first such note wins).
    fn note_stop(&mut self, kind: StopKind, out: &mut Outcomes) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        if self.part == 1 || self.current.1 == 1 {
            let piece = std::mem::replace(out, out.fork());
            let at = self.current;
            self.pieces.push((at, piece, Some(kind)));
        }
    }
}

fn is_empty(o: &Outcomes) -> bool {
    o.tally() == Tally::default()
}

/// The test the explorer runs and how to map its report back, as
/// [`super::check_pruning`] prepares them.
struct Prepared {
    api: Option<Test>,
    sizes: crate::sizes::Prepared,
}

fn prepare(test: &Test) -> Result<Prepared, String> {
    let api = match super::unsupported(test) {
        Some(msg) => Err(msg),
        None => crate::api::lower(test),
    }?;
    let sizes = crate::sizes::prepare(api.as_ref().unwrap_or(test))?;
    Ok(Prepared { api, sizes })
}

impl Prepared {
    fn run<'t>(&'t self, test: &'t Test) -> &'t Test {
        self.sizes
            .test
            .as_ref()
            .or(self.api.as_ref())
            .unwrap_or(test)
    }
    fn outcomes(&self, test: &Test) -> Outcomes {
        let mut out = Outcomes::new(self.run(test));
        out.set_sizes(self.sizes.info.clone());
        out
    }
}

/// Explores part `k` of `n` of `test` (`--split K/N`). Only the DPOR
/// explorer splits; the witness is not kept (`--graph` needs the undivided run).
pub fn check_part(test: &Test, opts: &Options, k: u32, n: u32) -> PartResult {
    let start = Instant::now();
    let done = |status, pieces, plan: &Plan| PartResult {
        status,
        pieces,
        plan: plan.digest(),
        roots: plan.owners.len() as u32,
        time: start.elapsed(),
    };
    let prepared = match prepare(test) {
        Ok(p) => p,
        Err(msg) => return done(Status::Unsupported(msg), Vec::new(), &Plan::default()),
    };
    let run = prepared.run(test);
    let mut budget = Budget::new(opts, start);
    let mut out = prepared.outcomes(test);
    let mut plan = Plan {
        root_open: false,
        open: BTreeSet::new(),
        owners: vec![1],
    };
    if n > 1 {
        // Its own explorer: the sizing walks must not fill the set of
        // `--check-duplicates` hashes of the run.
        let quiet = Options {
            check_duplicates: false,
            max_executions: None,
            ..opts.clone()
        };
        let mut b = budget.clone();
        let mut o = out.fork();
        let _ = super::with_dpor(run, &quiet, &mut b, &mut o, &mut |mut d, b, o| {
            let mut probe = |split: Split, o: &mut Outcomes, b: &mut Budget| {
                d.set_split(Some(split));
                let status = d.run(o, b);
                (status, d.set_split(None))
            };
            plan = make_plan(&mut probe, opts, b, o, n);
            Status::Ok
        });
    }
    let mut pieces = Vec::new();
    let status = super::with_dpor(
        run,
        opts,
        &mut budget,
        &mut out,
        &mut |mut d, budget, out| {
            if !plan.root_open && k != 1 {
                return Status::Ok;
            }
            d.set_split(Some(Split::new(k, &plan, opts.seed, BTreeMap::new())));
            let interrupted = crate::interrupt::interruptions();
            let status = d.run(out, budget);
            let status = deadline_guard(status, interrupted, out, budget, opts);
            let Some(split) = d.split() else {
                return Status::Unsupported("internal: no split".into());
            };
            let mut st = split.lock();
            if status != Status::Ok && !st.stopped {
                let kind = match status {
                    Status::Limit(_) if opts.timeout.is_some() || opts.max_executions.is_some() => {
                        StopKind::Limit
                    }
                    _ => StopKind::Stop,
                };
                st.note_stop(kind, out);
            }
            let last = std::mem::replace(out, out.fork());
            if (st.part == 1 || st.current.1 == 1) && !is_empty(&last) {
                let at = st.current;
                st.pieces.push((at, last, None));
            }
            pieces = std::mem::take(&mut st.pieces)
                .into_iter()
                .map(|(at, o, stop)| Piece {
                    at,
                    stop,
                    tally: o.tally(),
                })
                .collect();
            status
        },
    );
    done(status, pieces, &plan)
}

/// The rule whole runs keep (`explore::check_pruning`), for a part: a
/// consistency check stopped at the deadline answered "inconsistent" without
/// deciding (`interrupt.rs`; `interrupted` is the count of
/// interruptions before the part ran), or the states of a worker were left
/// out past the deadline (`Outcomes::late`): the part then carries no
/// verdict, its status is `limit`. (Another thread's interruption is told
/// apart by this part's deadline.)
fn deadline_guard(
    status: Status,
    interrupted: u64,
    out: &Outcomes,
    budget: &Budget,
    opts: &Options,
) -> Status {
    let interrupted = crate::interrupt::interruptions() != interrupted;
    if (interrupted || out.late)
        && !matches!(status, Status::Limit(_) | Status::Unsupported(_))
        && budget.deadline.is_some_and(|d| Instant::now() >= d)
    {
        return Status::Limit(format!(
            "timeout after {:.3} s",
            opts.timeout.unwrap_or_default().as_secs_f64()
        ));
    }
    status
}

/// The plan of a split into `n` parts: rounds of sizing and opening roots
/// (see the module documentation). A round that fails (the test stops or a
/// limit is reached while sizing) ends the planning with the plan of the
/// round before; the very first gives the trivial plan. `probe` runs the
/// DPOR explorer once with the given hook and hands the hook back.
fn make_plan(probe: Probe<'_>, opts: &Options, budget: &Budget, out: &Outcomes, n: u32) -> Plan {
    let mut open: BTreeSet<Path> = BTreeSet::new();
    let mut sizes: BTreeMap<Path, u64> = BTreeMap::new();
    let mut best: Option<Round> = None;
    let max_roots = (ROOTS_PER_PART * n as usize).min(MAX_ROOTS);
    for _ in 0..MAX_ROUNDS {
        let sizing = Split::new(
            0,
            &Plan {
                root_open: true,
                open: open.clone(),
                owners: Vec::new(),
            },
            opts.seed,
            std::mem::take(&mut sizes),
        );
        let mut b = budget.clone();
        b.max_executions = None;
        let mut o = out.fork();
        let (status, back) = probe(sizing, &mut o, &mut b);
        let (found, known) = match back {
            Some(p) => {
                let mut st = p.lock();
                (std::mem::take(&mut st.found), std::mem::take(&mut st.sizes))
            }
            None => (Vec::new(), BTreeMap::new()),
        };
        let ok = status == Status::Ok;
        sizes = known;
        if !ok {
            break;
        }
        let total: u64 = found.iter().map(|(_, s)| *s).sum::<u64>().max(1);
        let limit = total / (GRAIN * u64::from(n));
        let mut big: Vec<&(Path, u64)> = found.iter().filter(|(_, s)| *s > limit.max(1)).collect();
        best = Some((open.clone(), found.clone()));
        if big.is_empty() || found.len() >= max_roots {
            break;
        }
        big.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let room = (max_roots - found.len()).max(1);
        for (p, _) in big.into_iter().take(room) {
            open.insert(p.clone());
        }
    }
    let Some((open, roots)) = best else {
        return Plan {
            root_open: false,
            open: BTreeSet::new(),
            owners: vec![1],
        };
    };
    Plan {
        root_open: true,
        open,
        owners: owners(&roots, n),
    }
}

/// Contiguous ranges of roots, of about equal estimated size: a root goes
/// to the part its size's midpoint falls in.
fn owners(roots: &[(Path, u64)], n: u32) -> Vec<u32> {
    let total: u128 = roots
        .iter()
        .map(|(_, s)| u128::from(*s))
        .sum::<u128>()
        .max(1);
    let mut before = 0u128;
    roots
        .iter()
        .map(|(_, s)| {
            let mid = 2 * before + u128::from(*s);
            before += u128::from(*s);
            let k = (mid * u128::from(n) / (2 * total)) as u32;
            k.min(n - 1) + 1
        })
        .collect()
}

/// The report of the undivided run, from the results of all its parts
/// (`parts[k-1]` is part `k`; the caller checks they belong together).
pub fn merge(test: &Test, parts: &[PartResult]) -> Report {
    let time: Duration = parts.iter().map(|p| p.time).sum();
    let prepared = match prepare(test) {
        Ok(p) => p,
        Err(msg) => {
            return Outcomes::new(test).into_report(test, Status::Unsupported(msg), time);
        }
    };
    let run = prepared.run(test);
    let mut out = prepared.outcomes(test);
    let mut pieces: Vec<(&Piece, &Status)> = parts
        .iter()
        .flat_map(|p| p.pieces.iter().map(move |x| (x, &p.status)))
        .collect();
    pieces.sort_by_key(|(p, _)| p.at);
    let mut status: Option<Status> = None;
    let mut limit: Option<Status> = None;
    for (p, st) in pieces {
        out.merge_tally(&p.tally);
        match p.stop {
            Some(StopKind::Stop) => {
                status = Some(st.clone());
                break;
            }
            Some(StopKind::Limit) if limit.is_none() => limit = Some(st.clone()),
            _ => {}
        }
    }
    let mut status = status
        .or(limit)
        .or_else(|| {
            parts
                .iter()
                .map(|p| &p.status)
                .find(|s| **s != Status::Ok)
                .cloned()
        })
        .unwrap_or(Status::Ok);
    if let Some(msg) = out.undefined() {
        status = match status {
            Status::Unsupported(m) => Status::Unsupported(m),
            Status::Limit(l) => Status::Undefined(format!("{msg}; exploration stopped: {l}")),
            _ => Status::Undefined(msg.to_string()),
        };
    }
    let report = out.into_report(run, status, time);
    match &prepared.sizes.map {
        Some(m) => m.map(test, report),
        None => report,
    }
}

#[cfg(test)]
mod tests;
