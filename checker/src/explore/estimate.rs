//! `--strategy estimate`: how big the DPOR tree is, without exploring it.
//!
//! Knuth's estimator (Knuth, "Estimating the efficiency of backtrack
//! programs", 1975): a walk goes down the tree of the DPOR explorer from the
//! root, at each node with `k` children choosing one uniformly at random;
//! whatever the walk then finds (executions, blocked executions, pruned
//! graphs, branching nodes) is counted `k` times for this node. The counts
//! of one walk are thus multiplied by the product of the branching factors
//! along its path, and their expectation is exactly the count of the whole
//! tree (each leaf is reached with probability `1 / product`). The mean of
//! many independent walks estimates the count; the spread of the walks gives
//! a confidence interval (normal approximation of the mean: `mean ± 1.96 ·
//! s / √walks`). On a tree whose subtrees at each depth have equal sizes
//! (`readers-N`) every walk gives the exact count.
//!
//! The walk is the DPOR explorer itself with one hook ([`Walk`], consulted
//! where the explorer branches over the children of a node), so every node
//! it visits is a node of the real search, checked and pruned as the real
//! search does; nodes whose children the explorer enumerates inline (the
//! sets of waiting reads a write serves, the two fates of a counted barrier)
//! are explored fully below the chosen child, which keeps the estimator
//! unbiased (a fully explored node is a node sampled with probability 1).
//!
//! The time an exhaustive run would take is estimated the same way: each
//! walk's time is spread over the branching nodes it visited, and counted
//! with their weights (one worker thread; `-j N` divides it at best by N).
//!
//! The random choices come from a fixed-seed generator ([`Options::seed`]),
//! and the number of walks depends only on the counts found, never on the
//! clock: an estimate is the same on every run and machine (but for times).
//! The result is never a verdict: the report's status is
//! [`Status::Estimate`], and the text and JSON outputs show no `Ok`/`No`.

use super::explorer::{Explorer, Job};
use super::outcome::Outcomes;
use super::Budget;
/// The estimate is part of a report (`Status::Estimate`); its type and the
/// default seed live there, so that the report does not import the explorer.
pub use crate::report::{Estimate, DEFAULT_SEED};
use crate::report::{Options, Stats, Status};
use std::sync::Mutex;
use std::time::Instant;

/// At least this many walks, however close the first ones agree.
const MIN_WALKS: u64 = 32;
/// At most this many walks.
const MAX_WALKS: u64 = 20_000;
/// Stop once the 95% interval is within this fraction of the estimate.
const TARGET_HALF_WIDTH: f64 = 0.02;
/// At most this many branching nodes visited over all walks (a bound on the
/// effort that does not depend on the clock).
const MAX_NODES: u64 = 2_000_000;
/// Stop once the walks visited this share of the estimated branching nodes.
const MAX_SHARE: f64 = 0.03;
/// ... unless they visited fewer than this many.
const MIN_NODES: u64 = 20_000;

/// The hook of one walk, consulted by the DPOR explorer at each node with
/// more than one child ([`super::dpor::Dpor::with_walk`]).
#[derive(Debug)]
pub(crate) struct Walk {
    state: Mutex<WalkState>,
}

#[derive(Debug)]
struct WalkState {
    /// splitmix64 state.
    rng: u64,
    /// Branching nodes below the current node, weighted.
    nodes: u64,
    /// Branching nodes visited, unweighted.
    visited: u64,
}

/// What [`Walk::enter`] saw, for [`Walk::leave`].
pub(crate) struct Mark {
    children: u64,
    stats: Stats,
    nodes: u64,
}

impl Walk {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            state: Mutex::new(WalkState {
                rng: seed,
                nodes: 0,
                visited: 0,
            }),
        }
    }

    /// Starts a new walk with this seed.
    fn reset(&self, seed: u64) {
        *self.lock() = WalkState {
            rng: seed,
            nodes: 0,
            visited: 0,
        };
    }

    /// The branching nodes of the last walk: weighted, and visited.
    fn counts(&self) -> (u64, u64) {
        let st = self.lock();
        (st.nodes, st.visited)
    }

    /// At a node with `children` children (more than one): the child to
    /// visit, uniformly at random, and what to scale when it is done.
    pub(crate) fn enter(&self, children: usize, stats: &Stats) -> (usize, Mark) {
        let mut st = self.lock();
        st.nodes += 1;
        st.visited += 1;
        let r = next(&mut st.rng);
        // Multiply-shift: uniform enough for any `children` below 2^32.
        let pick = ((u128::from(r) * children as u128) >> 64) as usize;
        let mark = Mark {
            children: children as u64,
            stats: stats.clone(),
            nodes: st.nodes,
        };
        (pick.min(children - 1), mark)
    }

    /// At a write that `readers` waiting reads may read from: one of the
    /// sets the explorer enumerates (the subsets of `allowed` with no two
    /// reads `apart`), at random, when there are several.
    pub(crate) fn sample_set(
        &self,
        readers: usize,
        allowed: u64,
        apart: &[u64],
        stats: &Stats,
    ) -> Option<(u64, Mark)> {
        let mut sets: Vec<u64> = Vec::new();
        let mut mask = 0u64;
        loop {
            if (0..readers).all(|k| mask >> k & 1 == 0 || apart[k] & mask == 0) {
                sets.push(mask);
            }
            if mask == allowed {
                break;
            }
            mask = ((mask | !allowed).wrapping_add(1)) & allowed;
        }
        if sets.len() < 2 {
            return None;
        }
        let (i, mark) = self.enter(sets.len(), stats);
        Some((sets[i], mark))
    }

    /// The chosen child is explored: what it found counts for every child.
    pub(crate) fn leave(&self, mark: Mark, stats: &mut Stats) {
        let k = mark.children;
        let scale = |now: &mut u64, before: u64| {
            *now = before.saturating_add(now.saturating_sub(before).saturating_mul(k));
        };
        scale(&mut stats.executions, mark.stats.executions);
        scale(&mut stats.blocked, mark.stats.blocked);
        scale(&mut stats.pruned, mark.stats.pruned);
        scale(&mut stats.bound_hits, mark.stats.bound_hits);
        let mut st = self.lock();
        scale(&mut st.nodes, mark.nodes);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WalkState> {
        // A poisoned lock only means another walk panicked; the state is plain data.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// splitmix64 (Steele, Lea, Flood 2014): a small, fast generator, plenty for
/// choosing children.
fn next(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Running mean and variance (Welford).
#[derive(Default, Clone, Copy, Debug)]
struct Mean {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Mean {
    fn add(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Half-width of the normal 95% interval of the mean.
    fn half_width(&self) -> f64 {
        if self.n < 2 {
            return f64::INFINITY;
        }
        1.96 * (self.m2 / (self.n - 1) as f64 / self.n as f64).sqrt()
    }
}

/// The walks, until the interval is narrow enough or the effort is spent.
/// `walk(out, budget)` makes one walk with the hook `w`, counting into `out`.
/// Ignores `--max-executions` (a walk's counts are weights, not executions
/// found); honours `--timeout`.
pub(crate) fn estimate(
    opts: &Options,
    budget: &mut Budget,
    out: &Outcomes,
    w: &Walk,
    walk: &mut dyn FnMut(&mut Outcomes, &mut Budget) -> Status,
) -> Status {
    estimate_walks(opts, budget, out, w, MAX_WALKS, walk)
}

/// [`estimate`] with at most `max_walks` walks.
fn estimate_walks(
    opts: &Options,
    budget: &mut Budget,
    out: &Outcomes,
    w: &Walk,
    max_walks: u64,
    walk: &mut dyn FnMut(&mut Outcomes, &mut Budget) -> Status,
) -> Status {
    let start = Instant::now();
    budget.max_executions = None;
    let mut rng = opts.seed;
    let (mut total, mut execs, mut blocked, mut pruned, mut nodes, mut time) = (
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
    );
    let mut visited = 0u64;
    while total.n < max_walks {
        w.reset(next(&mut rng));
        let mut o = out.fork();
        let t0 = Instant::now();
        match walk(&mut o, budget) {
            Status::Ok => {}
            other => return other,
        }
        let secs = t0.elapsed().as_secs_f64();
        let (weighted, walked) = w.counts();
        visited += walked;
        let s = &o.stats;
        total.add(s.executions.saturating_add(s.blocked) as f64);
        execs.add(s.executions as f64);
        blocked.add(s.blocked as f64);
        pruned.add(s.pruned as f64);
        nodes.add(weighted as f64);
        // This walk's time, spread over its branching nodes, weighted.
        time.add(secs * weighted.max(1) as f64 / walked.max(1) as f64);
        // (Walks that all found nothing say little: no interval from them.)
        let narrow = total.mean > 0.0 && total.half_width() <= TARGET_HALF_WIDTH * total.mean;
        // Walks visiting more than a small share of the tree's nodes cost
        // about as much as the search they estimate.
        // (A small tree costs nothing either way: walk it well.)
        let costly = visited >= MIN_NODES && visited as f64 >= MAX_SHARE * nodes.mean;
        if (total.n >= MIN_WALKS && (narrow || costly)) || visited >= MAX_NODES {
            break;
        }
    }
    let round = |x: f64| {
        if x.is_finite() {
            x.max(0.0).round() as u64
        } else {
            u64::MAX
        }
    };
    let hw = if total.n >= 2 {
        total.half_width()
    } else {
        0.0
    };
    Status::Estimate(Box::new(Estimate {
        walks: total.n,
        seed: opts.seed,
        total: round(total.mean),
        total_low: round(total.mean - hw),
        total_high: round(total.mean + hw),
        executions: round(execs.mean),
        blocked: round(blocked.mean),
        pruned: round(pruned.mean),
        nodes: round(nodes.mean),
        time_ms: round(time.mean * 1000.0),
        walk_ms: round(start.elapsed().as_secs_f64() * 1000.0),
    }))
}

/// A rough estimate from `walks` walks, for a warning before a long run
/// (`ptxmc run`): `None` for a test the DPOR explorer does not check as it
/// is (unsupported constructs, kernels, partial overlaps), or when
/// `opts.timeout` (which bounds the walks) passes first. Knuth's estimator
/// is unbiased whatever the number of walks; few walks make it noisy, and
/// on trees of uneven shape it tends to underestimate (the rare deep
/// subtrees are seldom walked), so a warning from it errs on the quiet side.
pub fn quick(test: &ptxmc_frontend::ir::Test, opts: &Options, walks: u64) -> Option<Estimate> {
    if super::unsupported(test).is_some() || super::rewritten(test).is_some() {
        return None;
    }
    let mut budget = Budget::new(opts, Instant::now());
    let mut out = Outcomes::new(test);
    let walks = walks.max(1);
    let status = super::with_dpor_keeping(
        test,
        opts,
        &mut budget,
        &mut out,
        true,
        &mut |dpor, budget, out| {
            let dpor = dpor.with_walk(Walk::new(0));
            let Some(w) = dpor.walk() else {
                return Status::Unsupported("internal: no walk".into());
            };
            estimate_walks(opts, budget, out, w, walks, &mut |o, b| dpor.run(o, b))
        },
    );
    crate::interrupt::set_deadline(None);
    match status {
        Status::Estimate(e) => Some(*e),
        _ => None,
    }
}

/// The estimator, as a strategy.
pub(crate) struct Knuth;

impl Explorer for Knuth {
    fn name(&self) -> &'static str {
        "estimate"
    }
    fn about(&self) -> &'static str {
        "Estimates the DPOR tree's executions and time by random walks (Knuth's estimator); no verdict"
    }
    fn explore(&self, job: &Job<'_>, budget: &mut Budget, out: &mut Outcomes) -> Status {
        super::with_dpor(job.test, job.opts, budget, out, &mut |dpor, budget, out| {
            let dpor = dpor.with_walk(Walk::new(0));
            let Some(w) = dpor.walk() else {
                return Status::Unsupported("internal: no walk".into());
            };
            estimate(job.opts, budget, out, w, &mut |o, b| dpor.run(o, b))
        })
    }
}

#[cfg(test)]
mod tests;
