//! What an exploration strategy is: the [`Explorer`] trait, its call
//! protocol, and the [`Job`] it is given. The registry of strategies is
//! `strategy.rs`; each strategy implements this trait in its own module.

use super::outcome::Outcomes;
use super::Budget;
use crate::report::{Options, Status};
use ptxmc_frontend::ir::Test;

/// What one exploration is asked to do.
pub(crate) struct Job<'a> {
    /// The test as the explorer sees it (after the API and size rewrites).
    pub test: &'a Test,
    /// The options of the check.
    pub opts: &'a Options,
    /// Whether the reference enumerator prunes inconsistent partial graphs
    /// (a test switch: the verdicts and counts are the same either way).
    pub prune: bool,
}

/// An exploration strategy.
///
/// Call protocol (what [`super::check`] expects of every explorer):
/// - **Budget.** Call [`Budget::tick`] often (at least once per partial graph
///   or candidate visited) and [`Budget::check_executions`] after each
///   complete execution folded in; when either fails, stop at once and return
///   the `Status::Limit` it gave. Never stop silently.
/// - **Complete graphs.** Hand every complete candidate to the shared
///   completion (`explore::candidate`), which settles the existential choices
///   (Fence-SC order, barrier arrival order), final values and liveness into
///   `out`, identically for every strategy; an explorer never decides a final
///   state itself. One execution is reads-from plus the orientation of
///   coherence between morally strong writes (`docs/model-notes.md`): count
///   each once, so that counts are comparable across strategies.
/// - **Counters.** `out.stats.executions` and `out.stats.blocked` are counted
///   by the completion; the explorer adds to `out.stats.pruned` each partial
///   graph or candidate it rejects as inconsistent.
/// - **Result.** `Status::Ok` when the exploration was exhaustive,
///   `Status::Unsupported` for code it cannot run, `Status::Limit` for a limit
///   reached (the outcomes so far stay in `out`).
pub(crate) trait Explorer: Sync {
    /// The name users type (`--strategy NAME`) and JSON and bench tables show.
    fn name(&self) -> &'static str;
    /// One line for `--help`.
    fn about(&self) -> &'static str;
    /// Explores `job.test`, folding its executions into `out`.
    fn explore(&self, job: &Job<'_>, budget: &mut Budget, out: &mut Outcomes) -> Status;
}
