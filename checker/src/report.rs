//! What checking one test produces: verdicts, final states, liveness and
//! statistics. Verdicts are results, never errors; limits reached are part of
//! the report (`Status::Limit`), never a silent cut.

use crate::execution::Execution;
/// Blocked executions are the interpreter's finding (a spin, a barrier, the
/// loop bound); the report names them.
pub use crate::interp::BlockReason;
use crate::model::Relations;
use ptxmc_frontend::ir::Term;
use std::time::Duration;

/// Which explorer to run.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Strategy {
    /// The reference enumerator: every candidate execution, filtered by the model.
    Brute,
    /// Optimal DPOR (TruSt/HMC style).
    #[default]
    Dpor,
    /// Random walks down the DPOR tree estimating its size (no verdict).
    Estimate,
}

/// Options of one check.
#[derive(Clone, Debug)]
pub struct Options {
    /// The explorer.
    pub strategy: Strategy,
    /// The reading of the model (`--model`; default: the spec reading).
    pub reading: crate::model::reading::Reading,
    /// Loop bound: how many times a loop that is not a side-effect-free spin
    /// loop may jump back before the execution is cut ("bound" blocked).
    pub unroll: u32,
    /// Stop after this many complete executions (status `limit`).
    pub max_executions: Option<u64>,
    /// Stop after this much time (status `limit`).
    pub timeout: Option<Duration>,
    /// Seed of the random choices (`--strategy estimate`).
    pub seed: u64,
    /// Hash a canonical form of every complete execution and count duplicates.
    pub check_duplicates: bool,
    /// Keep a [`Witness`] in [`Report::witness`]: the first execution found
    /// whose outcome decides the condition (satisfies the proposition of
    /// `exists`/`~exists`, violates the one of `forall`). Off by default, so
    /// that a normal check clones nothing.
    pub witness: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            strategy: Strategy::default(),
            reading: crate::model::reading::Reading::SPEC,
            unroll: 2,
            max_executions: None,
            timeout: None,
            seed: DEFAULT_SEED,
            check_duplicates: false,
            witness: false,
        }
    }
}

/// The seed of `--strategy estimate` when none is given (`--seed`).
pub const DEFAULT_SEED: u64 = 0x5eed_f7e5;

/// The estimated size of the exploration of one test (`--strategy
/// estimate`, `explore/estimate.rs`). Counts are rounded to
/// integers; the interval is the normal 95% interval of the mean of the
/// walks, clamped at 0.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Estimate {
    /// Walks made.
    pub walks: u64,
    /// The seed of the walks.
    pub seed: u64,
    /// Estimated executions, complete plus blocked (what `executions` plus
    /// `blocked` of an exhaustive run are).
    pub total: u64,
    /// Lower end of the 95% interval of `total`.
    pub total_low: u64,
    /// Upper end of the 95% interval of `total`.
    pub total_high: u64,
    /// Estimated complete executions.
    pub executions: u64,
    /// Estimated blocked executions.
    pub blocked: u64,
    /// Estimated pruned partial graphs.
    pub pruned: u64,
    /// Estimated branching nodes of the tree.
    pub nodes: u64,
    /// Estimated time of the exhaustive run, in milliseconds, on one thread.
    pub time_ms: u64,
    /// Time the walks took, in milliseconds.
    pub walk_ms: u64,
}

impl std::fmt::Display for Estimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "about {} executions (95% interval {}..{}; {} complete, {} blocked), \
             about {:.3} s to explore on one thread; {} walks in {:.3} s, seed {}",
            self.total,
            self.total_low,
            self.total_high,
            self.executions,
            self.blocked,
            self.time_ms as f64 / 1000.0,
            self.walks,
            self.walk_ms as f64 / 1000.0,
            self.seed
        )
    }
}

/// How the check ended.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Status {
    /// Every execution was explored; the verdicts are exact for the (bounded) program.
    Ok,
    /// The test uses a construct the checker does not support (e.g. `"bar.red at 7:3"`).
    Unsupported(String),
    /// The program is outside the axioms (e.g. a mixed-size data race, 8.7.2).
    Undefined(String),
    /// A limit (`--timeout`, `--max-executions`) stopped the exploration.
    Limit(String),
    /// Not a check: the estimated size of the exploration
    /// (`--strategy estimate`); the verdict fields of the report mean nothing.
    Estimate(Box<Estimate>),
}

impl Status {
    /// The short name used in reports and JSON: `ok`, `unsupported`, `undefined`,
    /// `limit`, `estimate`.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Unsupported(_) => "unsupported",
            Status::Undefined(_) => "undefined",
            Status::Limit(_) => "limit",
            Status::Estimate(_) => "estimate",
        }
    }

    /// What the status says beyond its name (an estimate: the estimate in words).
    pub fn message(&self) -> Option<String> {
        match self {
            Status::Ok => None,
            Status::Unsupported(m) | Status::Undefined(m) | Status::Limit(m) => Some(m.clone()),
            Status::Estimate(e) => Some(e.to_string()),
        }
    }
}

/// One final state: the values of [`Report::state_terms`], in order.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct FinalState(pub Vec<i64>);

/// Exploration statistics.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    /// Complete, consistent executions in which every thread terminated.
    pub executions: u64,
    /// Consistent executions in which some thread blocked (barrier, spin, bound).
    pub blocked: u64,
    /// Candidates or partial graphs rejected as inconsistent.
    pub pruned: u64,
    /// Duplicate complete executions (only counted with `check_duplicates`; must be 0).
    pub duplicates: u64,
    /// Executions cut by the loop bound.
    pub bound_hits: u64,
}

/// The result of checking one test.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Report {
    /// How the check ended.
    pub status: Status,
    /// The terms shown in each final state: registers and locations of the
    /// condition and of `locations [...]`, in first-appearance order.
    pub state_terms: Vec<Term>,
    /// Distinct final states of terminating executions, sorted, each with the
    /// number of (execution, final state) outcomes that produce it.
    pub states: Vec<(FinalState, u64)>,
    /// Outcomes that satisfy the condition's proposition.
    pub positive: u64,
    /// Outcomes that do not.
    pub negative: u64,
    /// herd's "Ok": `exists` some positive, `~exists` none, `forall` no negative.
    pub condition_holds: bool,
    /// Whether every fair execution terminates (no barrier or spin can block forever).
    pub liveness_holds: bool,
    /// The first liveness violation found, in words (thread, instruction, reason).
    pub liveness_note: Option<String>,
    /// Exploration statistics.
    pub stats: Stats,
    /// Wall time of the check.
    pub time: Duration,
    /// With [`Options::witness`]: the first execution (in the explorer's
    /// order, so deterministic for a strategy) whose outcome satisfies the
    /// proposition of an `exists`/`~exists` condition, or violates the one of
    /// a `forall`. `None` when not asked for or when there is none.
    pub witness: Option<Box<Witness>>,
}

impl Report {
    /// The condition's verdict, or `None` when the test was not checked to
    /// the end: a verdict needs every execution (status `ok`). An
    /// `unsupported`, `limit` or `undefined` test (8.7.2: a data race leaves
    /// the program outside the axioms) has none, whatever
    /// [`Report::condition_holds`] says about the executions explored.
    pub fn verdict(&self) -> Option<bool> {
        (self.status == Status::Ok).then_some(self.condition_holds)
    }

    /// The liveness verdict, on the same terms as [`Report::verdict`].
    pub fn liveness_verdict(&self) -> Option<bool> {
        (self.status == Status::Ok).then_some(self.liveness_holds)
    }
}

/// A consistent, terminating execution with one of its final states: the
/// picture `ptxmc run --graph` draws.
#[derive(Clone, Debug)]
pub struct Witness {
    /// The execution, with the existential choices (Fence-SC order, barrier
    /// synchronization) under which it is consistent, and the coherence
    /// edges that make this final state's writes coherence-last.
    pub execution: Execution,
    /// Its derived relations.
    pub relations: Relations,
    /// The final state (values of [`Report::state_terms`]).
    pub state: FinalState,
    /// Final register values, per thread.
    pub regs: Vec<Vec<i64>>,
    /// Final memory value of each physical location.
    pub memory: Vec<i64>,
    /// Whether the state satisfies the condition's proposition (positive).
    pub positive: bool,
}

impl PartialEq for Witness {
    fn eq(&self, o: &Self) -> bool {
        let (a, b) = (&self.execution, &o.execution);
        a.events() == b.events()
            && a.threads() == b.threads()
            && a.rf() == b.rf()
            && a.co() == b.co()
            && a.fence_sc() == b.fence_sc()
            && a.barrier_sync() == b.barrier_sync()
            && self.relations.co == o.relations.co
            && self.state == o.state
            && self.regs == o.regs
            && self.memory == o.memory
            && self.positive == o.positive
    }
}

impl Eq for Witness {}
