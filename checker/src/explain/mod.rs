//! Why an outcome is forbidden, which execution allows it, and why a thread
//! can hang: what `ptxmc explain` prints.
//!
//! [`explain`] works in phases, all under one deadline (`Options::timeout`):
//!
//! 1. **Verdict** ([`crate::check`], the DPOR explorer): the test is checked
//!    with the outcome as an `exists` condition and a witness asked for
//!    (`Options::witness`). A witness is a consistent, terminating execution
//!    that gives the outcome: it is allowed ([`Explanation::allowed`]).
//!    Without one the outcome is forbidden. The same check says whether some
//!    fair execution blocks forever (liveness, 8.6.1).
//! 2. **Reasons** (forbidden outcomes only, [`reasons`]): the reference
//!    enumerator's candidates with its pruning, restricted early to graphs
//!    that can still give the outcome: a partial graph whose known register
//!    values already rule the outcome out is not completed; one the model
//!    rejects is a reason for every completion. Each rejection is grouped by
//!    shape (the axiom and the relations along its witness cycle) with
//!    counts ([`Reason`]), shortest cycles first.
//! 3. **Hang** (when the check found a liveness violation, [`hang`]): the
//!    blocked execution that shows it: which thread waits where, reading
//!    what, or at which barrier.
//!
//! A phase stopped by the deadline leaves what it found, and the status
//! says which phase stopped ([`Explanation::status`]).

mod edges;
mod hang;
mod reasons;

pub use edges::{Rel, Step};
pub use hang::{Hang, Wait, WaitKind};

use crate::event::EventId;
use crate::execution::Execution;
use crate::explore::Budget;
use crate::model::{Axiom, Violation};
use crate::report::{Options, Stats, Status, Strategy, Witness};
use ptxmc_frontend::ir::{Condition, Prop, Quantifier, Test};
use std::time::{Duration, Instant};

/// How long the reasons and the hang are looked for when no `timeout` is
/// given: the verdict is exact without them, so they are bounded by default.
pub const DEFAULT_PHASE_TIME: Duration = Duration::from_secs(3);

/// A rejection of one graph under one existential choice.
#[derive(Clone, Debug)]
pub struct Rejection {
    /// The Fence-SC order tried.
    pub fence_sc: Vec<EventId>,
    /// The barrier synchronization tried.
    pub barrier_sync: Vec<(EventId, EventId)>,
    /// The first violated axiom and its witness.
    pub violation: Violation,
    /// The witness as edges: a cycle (closing edge last) for every axiom but
    /// Atomicity, whose witness is a triple.
    pub steps: Vec<Step>,
}

/// Graphs that could give the outcome and are rejected the same way: the
/// same axioms with the same relations along their cycles.
#[derive(Clone, Debug)]
pub struct Reason {
    /// How many graphs it rules out: complete candidates plus partial graphs
    /// (each of which stands for all of its completions).
    pub count: u64,
    /// How many of them are partial graphs.
    pub partial: u64,
    /// The first one, with the coherence edges that make its final writes
    /// last (a complete candidate) or some reads still without a write (a
    /// partial graph).
    pub execution: Execution,
    /// Whether `execution` is a partial graph.
    pub is_partial: bool,
    /// Its final register values, per thread, as far as known.
    pub regs: Vec<Vec<Option<i64>>>,
    /// Its final memory, per physical location, as far as known.
    pub memory: Vec<Option<i64>>,
    /// One rejection per distinct existential choice (usually one).
    pub rejections: Vec<Rejection>,
}

impl Reason {
    /// The length of its shortest witness cycle (how reasons are sorted).
    pub fn length(&self) -> usize {
        self.rejections
            .iter()
            .map(|r| r.steps.len())
            .min()
            .unwrap_or(0)
    }
}

/// Candidates whose values come out of thin air: reads-from leaves the
/// values on a cycle of reads-from and dependencies (8.10.4).
#[derive(Clone, Debug)]
pub struct ThinAir {
    /// How many such candidates there are.
    pub count: u64,
    /// The first one (reads-from set, the cycle's values unknown).
    pub execution: Execution,
    /// Its cycle of reads-from and dependency edges.
    pub steps: Vec<Step>,
}

/// The phase a limit stopped.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Phase {
    /// The check that decides the verdict.
    Verdict,
    /// Looking for the reasons of a forbidden outcome.
    Reasons,
    /// Looking for the blocked execution of a liveness violation.
    Hang,
}

impl Phase {
    /// In words, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Verdict => "checking the outcome",
            Phase::Reasons => "enumerating the reasons",
            Phase::Hang => "looking for the blocked execution",
        }
    }
}

/// What [`explain`] found.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// `Ok` when the verdict is exact; otherwise why the check stopped
    /// (`Limit`, `Unsupported`, `Undefined`).
    pub status: Status,
    /// A limit that stopped a later phase (the verdict is exact, the
    /// reasons or the hang are partial), with the phase.
    pub stopped: Option<(Phase, String)>,
    /// The statistics of the verdict's check.
    pub stats: Stats,
    /// A consistent, terminating execution that gives the outcome: the
    /// outcome is allowed.
    pub allowed: Option<Box<Witness>>,
    /// Complete candidates that give the outcome (every one was rejected).
    pub candidates: u64,
    /// Partial graphs whose known values give the outcome, rejected with
    /// every completion.
    pub partial: u64,
    /// Why each is rejected, grouped by shape: reasons of complete
    /// candidates first, then shortest cycle first.
    pub reasons: Vec<Reason>,
    /// Partial graphs rejected before their known values decided the
    /// outcome (their completions may or may not give it), by axiom, most
    /// first.
    pub undecided: Vec<(Axiom, u64)>,
    /// Whether every graph that could give the outcome was examined for
    /// the reasons.
    pub reasons_complete: bool,
    /// Candidates ruled out because their values come out of thin air.
    pub thin_air: Option<ThinAir>,
    /// The liveness violation the check found, in words.
    pub liveness_note: Option<String>,
    /// The blocked execution that shows it.
    pub hang: Option<Box<Hang>>,
}

impl Explanation {
    fn new(status: Status) -> Self {
        Self {
            status,
            stopped: None,
            stats: Stats::default(),
            allowed: None,
            candidates: 0,
            partial: 0,
            reasons: Vec::new(),
            undecided: Vec::new(),
            reasons_complete: false,
            thin_air: None,
            liveness_note: None,
            hang: None,
        }
    }

    /// Whether the outcome is forbidden: the check explored every
    /// execution and none gives it.
    pub fn forbidden(&self) -> bool {
        self.status == Status::Ok && self.allowed.is_none()
    }
}

/// Explains `outcome` (a proposition over final values, like a condition's)
/// for `test`. Uses `opts.unroll` and `opts.timeout` (every phase stops by
/// it); the verdict comes from the DPOR explorer whatever `opts.strategy`.
pub fn explain(test: &Test, outcome: &Prop, opts: &Options) -> Explanation {
    explain_observed(test, outcome, opts, &mut |_| {})
}

/// [`explain`], handing what is known to `progress` after each phase (so
/// that a caller that must answer by a deadline has the latest state).
pub fn explain_observed(
    test: &Test,
    outcome: &Prop,
    opts: &Options,
    progress: &mut dyn FnMut(&Explanation),
) -> Explanation {
    let start = Instant::now();
    if let Some(msg) = crate::explore::unsupported(test) {
        return Explanation::new(Status::Unsupported(msg));
    }
    // A test with kernels or a host thread is explained as the API lowering
    // writes it (its hidden flags and spins named `__api*`, at 0:0).
    let lowered = match crate::api::lower(test) {
        Ok(l) => l,
        Err(msg) => return Explanation::new(Status::Unsupported(msg)),
    };
    let test = lowered.as_ref().unwrap_or(test);
    if let Some(msg) = crate::explore::rewritten(test) {
        return Explanation::new(Status::Unsupported(msg));
    }
    // Phase 1: the verdict.
    let mut probe = test.clone();
    probe.condition = Condition {
        quantifier: Quantifier::Exists,
        prop: outcome.clone(),
    };
    // The check's own clock starts now: it gets what is left of the limit
    // after the lowering and the copy above (seconds on 10,000 locations).
    let check_opts = Options {
        strategy: Strategy::Dpor,
        witness: true,
        max_executions: None,
        check_duplicates: false,
        timeout: opts
            .timeout
            .map(|t| (start + t).saturating_duration_since(Instant::now())),
        ..opts.clone()
    };
    let report = crate::check(&probe, &check_opts);
    let status = match &report.status {
        Status::Limit(m) => Status::Limit(restate(m, opts)),
        s => s.clone(),
    };
    let mut ex = Explanation::new(status);
    ex.stats = report.stats.clone();
    ex.allowed = report.witness;
    if !report.liveness_holds {
        ex.liveness_note = report.liveness_note.clone();
    }
    progress(&ex);
    if ex.status != Status::Ok {
        return ex;
    }
    let phase_opts = |phase_start: Instant| -> Options {
        let deadline = match opts.timeout {
            Some(t) => start + t,
            None => phase_start + DEFAULT_PHASE_TIME,
        };
        Options {
            timeout: Some(deadline.saturating_duration_since(phase_start)),
            ..opts.clone()
        }
    };
    // Phase 2: the reasons.
    if ex.allowed.is_none() {
        let now = Instant::now();
        let o = phase_opts(now);
        let mut budget = Budget::new(&o, now);
        if let Err(why) = reasons::collect(test, outcome, &o, &mut budget, &mut ex) {
            ex.stopped = Some((Phase::Reasons, restate(&why, opts)));
        }
        progress(&ex);
    }
    // Phase 3: the hang.
    if ex.liveness_note.is_some() {
        let now = Instant::now();
        let o = phase_opts(now);
        let mut budget = Budget::new(&o, now);
        match hang::find(test, &o, &mut budget) {
            Ok(h) => ex.hang = h.map(Box::new),
            Err(why) => {
                if ex.stopped.is_none() {
                    ex.stopped = Some((Phase::Hang, restate(&why, opts)));
                }
            }
        }
        progress(&ex);
    }
    ex
}

/// A phase's timeout message, restated with the caller's limit (each phase
/// runs on what is left of it).
fn restate(msg: &str, opts: &Options) -> String {
    match opts.timeout {
        Some(_) if msg.starts_with("timeout after ") => reasons::timeout_text(opts),
        _ => msg.to_string(),
    }
}

#[cfg(test)]
mod tests;
