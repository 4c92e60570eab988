//! `--strategy estimate`: how big the DPOR tree is, without exploring it.
//!
//! Knuth's estimator (Knuth, "Estimating the efficiency of backtrack
//! programs", 1975): a walk goes down the tree of the DPOR explorer from the
//! root, at each node choosing one child at random, with probability `p`;
//! whatever the walk then finds (executions, blocked executions, pruned
//! graphs, branching nodes) is counted `1 / p` times for this node. The
//! expectation of one walk's counts is exactly the count of the whole tree,
//! for any `p > 0`. The mean of many walks estimates the count; the spread
//! of the walks gives a confidence interval (normal approximation of the
//! mean: `mean ± 1.96 · s / √walks`). On a tree whose subtrees at each depth
//! have equal sizes (`readers-N`, `writers-N`) every walk gives the exact
//! count.
//!
//! Two refinements keep the spread of the walks small on trees of uneven
//! shape (`counter-N`, where a plain walk's counts range over four orders
//! of magnitude):
//!
//! - *Look-ahead* (Purdom, "Tree size by partial backtracking", 1978): at
//!   each node of its path the walk first explores every child up to the
//!   child's first branching node. A child that gets to none (it ends at
//!   once in executions or, most often, pruned graphs) is counted exactly,
//!   once; the walk goes on into one of the others. Whether a child is such
//!   a leaf depends on its subtree alone, so this stays unbiased.
//! - *Importance sampling* (Knuth 1975, section 5): among the other
//!   children, the walk chooses by the sizes that earlier walks found below
//!   each (by its path from the root), mixed with the uniform choice so
//!   that every child keeps a share ([`Walk::choose`]). The variance
//!   vanishes when `p` is proportional to the sizes; what earlier walks
//!   found does not depend on this walk's choices, so each walk stays
//!   unbiased (adaptive importance sampling), and the first
//!   [`LEARN_WALKS`] walks, whose choices are nearly uniform, only teach.
//!
//! The walk is the DPOR explorer itself with one hook ([`Walk`], consulted
//! where the explorer branches over the children of a node,
//! `dpor/walk.rs`), so every node it visits is a node of the real search,
//! checked and pruned as the real search does; nodes whose children the
//! explorer enumerates inline (the two fates of a counted barrier) are
//! explored fully below the chosen child, which keeps the estimator
//! unbiased (a fully explored node is a node sampled with probability 1).
//!
//! The time an exhaustive run would take is estimated the same way: each
//! walk's time is spread over the steps (partial graphs extended) it made,
//! and counted with their weights (one worker thread; `-j N` divides it at
//! best by N). A walk's step tends to cost more than a step of the search
//! (walks linger where many reads wait), so this errs on the high side.
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
use crate::report::{Options, Status};
use std::time::Instant;
pub(crate) use walk::{Step, Walk};

mod walk;

/// At least this many walks (those that only teach included), however
/// close the first ones agree.
const MIN_WALKS: u64 = 32;
/// At most this many walks.
const MAX_WALKS: u64 = 20_000;
/// Stop once the 95% interval is within this fraction of the estimate.
const TARGET_HALF_WIDTH: f64 = 0.02;
/// At most this many steps (partial graphs extended) made over all walks
/// (a bound on the effort that does not depend on the clock).
const MAX_STEPS: u64 = 10_000_000;
/// Stop once the walks made this share of the estimated steps of the
/// search (a walk's step costs about three of the search's: the walks take
/// about 4% of the search's time).
const MAX_SHARE: f64 = 0.012;
/// ... unless they made fewer than this many.
const MIN_STEPS: u64 = 20_000;
/// The first walks only teach the later ones ([`Walk::choose`]): their
/// counts are left out of the estimate.
const LEARN_WALKS: u64 = 16;

/// splitmix64 (Steele, Lea, Flood 2014): a small, fast generator, plenty for
/// choosing children.
pub(crate) fn next(x: &mut u64) -> u64 {
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
    let (mut total, mut execs, mut blocked, mut pruned, mut nodes, mut steps, mut time) = (
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
    );
    let mut effort = 0u64;
    // Walks made, those that only teach included.
    let mut made_walks = 0u64;
    let learn = if max_walks > LEARN_WALKS {
        LEARN_WALKS
    } else {
        0
    };
    while total.n < max_walks {
        w.reset(next(&mut rng));
        let mut o = out.fork();
        let t0 = Instant::now();
        match walk(&mut o, budget) {
            Status::Ok => {}
            other => return other,
        }
        let secs = t0.elapsed().as_secs_f64();
        let (weighted, weighted_steps, made) = w.counts();
        effort += made;
        made_walks += 1;
        if made_walks <= learn {
            continue;
        }
        let s = &o.stats;
        total.add(s.executions.saturating_add(s.blocked) as f64);
        execs.add(s.executions as f64);
        blocked.add(s.blocked as f64);
        pruned.add(s.pruned as f64);
        nodes.add(weighted as f64);
        steps.add(weighted_steps as f64);
        // This walk's time, spread over its steps, weighted.
        time.add(secs * weighted_steps.max(1) as f64 / made.max(1) as f64);
        // (Walks that all found nothing say little: no interval from them.)
        let narrow = total.mean > 0.0 && total.half_width() <= TARGET_HALF_WIDTH * total.mean;
        // Walks making more than a small share of the tree's steps cost
        // about as much as the search they estimate.
        // (A small tree costs nothing either way: walk it well.)
        let costly = effort >= MIN_STEPS && effort as f64 >= MAX_SHARE * steps.mean;
        // (The walks that only taught count for the least number of walks.)
        if (made_walks >= MIN_WALKS && (narrow || costly)) || effort >= MAX_STEPS {
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
        walks: made_walks,
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
