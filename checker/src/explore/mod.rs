//! Explorers: enumerate the executions of a test and fold them into a
//! [`Report`]. [`check`] is the entry point; it refuses tests with constructs
//! the checker does not model (listing all of them), then runs the explorer
//! [`Options::strategy`] names.
//!
//! - [`brute`]: the reference enumerator (every candidate, filtered by the model).
//! - [`dpor`]: the DPOR explorer (each consistent graph once, built event by event).
//! - Shared pieces: [`candidate`] (deciding a complete candidate over the
//!   existential choices and folding it in), [`barrier`] (barrier
//!   synchronization and blocking), [`outcome`] (final states, condition,
//!   statistics), [`traces`] (symbolic paths of the reference enumerator).
//!
//! What counts as one execution, and which choices are existential, is in
//! `docs/model-notes.md`: paths, reads-from and the orientation of coherence
//! between morally strong writes; not the Fence-SC order or barrier arrival
//! order.

pub(crate) mod barrier;
pub(crate) mod brute;
pub(crate) mod candidate;
mod domain;
mod dpor;
pub mod estimate;
mod explorer;
pub mod memory;
pub(crate) mod outcome;
pub mod split;
pub mod strategy;

use crate::report::{Options, Report, Status};
pub use outcome::term_value;
use outcome::Outcomes;
use ptxmc_frontend::ir::{Instr, Test};
use std::time::{Duration, Instant};

/// The limits of one check ([`Options::max_executions`], [`Options::timeout`],
/// and the process-wide [`memory::limit`]).
/// Explorers call [`Budget::tick`] often and [`Budget::check_executions`] after
/// each candidate; both fail with the `Status::Limit` to report.
///
/// An explorer that looks at the clock only every [`Budget::every`] steps
/// (the clock costs more than a small step) gets a cadence that adapts: when
/// steps are slow (graphs of thousands of events, where one consistency
/// check takes milliseconds) it looks at every step, so that the limit is
/// met within one step.
///
/// A long consistency check looks at the deadline itself
/// (`interrupt.rs`): each tick hands this budget's deadline to the
/// checks of its thread, and a clone (a budget handed to another worker)
/// looks at the clock on its first step.
#[derive(Debug)]
pub(crate) struct Budget {
    deadline: Option<Instant>,
    timeout: Option<Duration>,
    max_executions: Option<u64>,
    /// The memory limit in bytes ([`memory::limit`] when the check began).
    max_memory: Option<u64>,
    /// When the resident memory is looked at next ([`memory::LOOK_EVERY`]).
    memory_look: Option<Instant>,
    /// When the clock was last read by [`Budget::tick`].
    last: Option<Instant>,
    // invariant: 1 <= every <= TICK_EVERY
    every: u32,
}

/// Steps between two looks at the clock when steps are fast.
const TICK_EVERY: u32 = 64;

/// Time between two looks at the clock past which the clock is read at every step.
const SLOW_STEPS: Duration = Duration::from_millis(2);

impl Clone for Budget {
    fn clone(&self) -> Self {
        Self {
            deadline: self.deadline,
            timeout: self.timeout,
            max_executions: self.max_executions,
            max_memory: self.max_memory,
            memory_look: self.memory_look,
            last: None,
            // The first step on the worker that gets the clone ticks, and
            // so sets the deadline of that thread's checks before any check.
            every: 1,
        }
    }
}

impl Budget {
    pub(crate) fn new(opts: &Options, start: Instant) -> Self {
        let deadline = opts.timeout.and_then(|t| start.checked_add(t));
        crate::interrupt::set_deadline(deadline);
        let max_memory = memory::limit();
        Self {
            deadline,
            timeout: opts.timeout,
            max_executions: opts.max_executions,
            max_memory,
            memory_look: None,
            last: None,
            // Without a deadline or a memory limit no step needs the clock:
            // the fast cadence from the start (explorers still look at the
            // other workers' limits at that cadence).
            every: if deadline.is_some() || max_memory.is_some() {
                1
            } else {
                TICK_EVERY
            },
        }
    }

    /// How many steps an explorer may take between two calls of
    /// [`Budget::tick`]: with a deadline, 1 at first and once the steps
    /// between two looks took more than [`SLOW_STEPS`], doubling up to
    /// [`TICK_EVERY`] while they are fast; without one, [`TICK_EVERY`].
    pub fn every(&self) -> u32 {
        self.every
    }

    /// Fails once the time is up, or the process's resident memory is over
    /// the memory limit (looked at once per [`memory::LOOK_EVERY`]).
    pub fn tick(&mut self, _out: &Outcomes) -> Result<(), Status> {
        crate::interrupt::set_deadline(self.deadline);
        if self.deadline.is_none() && self.max_memory.is_none() {
            self.every = TICK_EVERY;
            return Ok(());
        }
        let now = Instant::now();
        // Starts at every step and doubles while steps are fast: a search
        // whose first steps are slow never runs 64 of them unchecked.
        if let Some(last) = self.last {
            self.every = if now.duration_since(last) > SLOW_STEPS {
                1
            } else {
                (self.every * 2).min(TICK_EVERY)
            };
        }
        self.last = Some(now);
        if let Some(m) = self.max_memory {
            if self.memory_look.is_none_or(|at| now >= at) {
                self.memory_look = now.checked_add(memory::LOOK_EVERY);
                memory::check(m)?;
            }
        }
        match (self.deadline, self.timeout) {
            (Some(d), Some(t)) if now >= d => Err(Status::Limit(format!(
                "timeout after {:.3} s",
                t.as_secs_f64()
            ))),
            _ => Ok(()),
        }
    }

    /// Brings the deadline forward by `by`: time kept, within the limit,
    /// for what must happen after the search stops (freeing what it built).
    pub(crate) fn reserve(&mut self, by: Duration) {
        self.deadline = self.deadline.map(|d| d.checked_sub(by).unwrap_or(d));
    }

    /// The `--max-executions` bound: a test stops with status `limit` when
    /// an execution past it is found.
    pub fn max_executions(&self) -> Option<u64> {
        self.max_executions
    }

    /// Fails once more than `max_executions` terminating executions have
    /// been found: a test with exactly that many is checked to the end.
    pub fn check_executions(&mut self, out: &Outcomes) -> Result<(), Status> {
        match self.max_executions {
            Some(m) if out.stats.executions > m => Err(executions_limit(m)),
            _ => Ok(()),
        }
    }
}

/// The status of a test stopped by `--max-executions m`.
pub(crate) fn executions_limit(m: u64) -> Status {
    Status::Limit(format!("stopped after more than {m} executions"))
}

/// Checks `test`: every execution the explorer finds, folded into a report.
/// Never panics on a well-formed IR; limits reached end in `Status::Limit`.
pub fn check(test: &Test, opts: &Options) -> Report {
    check_pruning(test, opts, true)
}

/// [`check`], choosing whether the reference enumerator prunes partial graphs.
///
/// A test with partially overlapping accesses or multimem addresses runs as
/// the test [`crate::sizes::prepare`] rewrites it into; a mixed-size data
/// race or a non-`multimem` access to a multimem address in some consistent
/// execution makes the status `Undefined` (8.7.2, 8.2.3).
pub(crate) fn check_pruning(test: &Test, opts: &Options, prune: bool) -> Report {
    // 8.1.1 under a reading that drops host atomicity (`host_rmw.rs`).
    if let Some(split) = crate::host_rmw::split(test, &opts.reading) {
        return check_pruning(&split, opts, prune);
    }
    let start = Instant::now();
    let api = match unsupported(test) {
        Some(msg) => Err(msg),
        None => crate::api::lower(test),
    };
    let prepared = api.and_then(|api| {
        let p = crate::sizes::prepare(api.as_ref().unwrap_or(test))?;
        Ok((api, p))
    });
    let (api, prepared) = match prepared {
        Ok(p) => p,
        Err(msg) => {
            return Outcomes::new(test).into_report(test, Status::Unsupported(msg), start.elapsed())
        }
    };
    let run = prepared.test.as_ref().or(api.as_ref()).unwrap_or(test);
    let mut out = Outcomes::new(run);
    // A witness names the events of the test it comes from: only the original one.
    out.want_witness(opts.witness && prepared.test.is_none() && api.is_none());
    out.set_sizes(prepared.info.clone());
    let mut budget = Budget::new(opts, start);
    out.set_deadline(budget.deadline);
    let job = strategy::Job {
        test: run,
        opts,
        prune,
    };
    let interrupted = crate::interrupt::interruptions();
    let mut status = opts
        .strategy
        .explorer()
        .explore(&job, &mut budget, &mut out);
    // A consistency check stopped at the deadline answered "inconsistent"
    // without deciding (`interrupt.rs`), or a part's states were left
    // out past the deadline (`Outcomes::merge`): no verdict then. (Another
    // test's interruption is told apart by this test's deadline.)
    let interrupted = crate::interrupt::interruptions() != interrupted;
    if (interrupted || out.late)
        && !matches!(status, Status::Limit(_) | Status::Unsupported(_))
        && budget.deadline.is_some_and(|d| Instant::now() >= d)
    {
        status = Status::Limit(format!(
            "timeout after {:.3} s",
            opts.timeout.unwrap_or_default().as_secs_f64()
        ));
    }
    crate::interrupt::set_deadline(None);
    // A race found is a definite answer even when a limit stopped the
    // exploration (the states are then those of the executions explored).
    // The wgmma register rules (instruction descriptions; `wgmma.rs`).
    let wgmma = crate::wgmma::misuse(test);
    if let Some(msg) = out.undefined().or(wgmma.as_deref()) {
        status = match status {
            Status::Unsupported(m) => Status::Unsupported(m),
            Status::Limit(l) => Status::Undefined(format!("{msg}; exploration stopped: {l}")),
            _ => Status::Undefined(msg.to_string()),
        };
    }
    if let Status::Limit(m) = &mut status {
        if memory::is_memory_limit(m) {
            // Building the states, the report and its output would take
            // the process further past the limit: counts only.
            out.forget_states();
            m.push_str("; final states not kept");
        }
    }
    let report = out.into_report(run, status, start.elapsed());
    match &prepared.map {
        Some(m) => m.map(test, report),
        None => report,
    }
}

/// Runs the DPOR explorer.
fn explore_dpor(test: &Test, opts: &Options, budget: &mut Budget, out: &mut Outcomes) -> Status {
    with_dpor(test, opts, budget, out, &mut |d, budget, out| {
        d.run(out, budget)
    })
}

/// Builds the DPOR explorer for `test` and hands it to `f` (which runs it:
/// a search, or the walks of [`estimate`]).
fn with_dpor(
    test: &Test,
    opts: &Options,
    budget: &mut Budget,
    out: &mut Outcomes,
    f: &mut dyn FnMut(dpor::Dpor<'_>, &mut Budget, &mut Outcomes) -> Status,
) -> Status {
    with_dpor_keeping(test, opts, budget, out, false, f)
}

/// [`with_dpor`], keeping the value domain for the next call on this thread
/// when `keep` (the long-run warning's probe, [`estimate::quick`], before the
/// run of the same test: computed once for both).
fn with_dpor_keeping(
    test: &Test,
    opts: &Options,
    budget: &mut Budget,
    out: &mut Outcomes,
    keep: bool,
    f: &mut dyn FnMut(dpor::Dpor<'_>, &mut Budget, &mut Outcomes) -> Status,
) -> Status {
    let codes: Result<Vec<crate::interp::ThreadCode>, String> = (0..test.threads.len())
        .map(|t| {
            crate::interp::ThreadCode::new(test, ptxmc_frontend::ir::ThreadId::new(t))
                .map(|c| c.with_reading(opts.reading))
        })
        .collect();
    let codes = match codes {
        Ok(c) => c,
        Err(e) => return Status::Unsupported(e),
    };
    let domain = domain::write_domain_kept(
        test,
        &codes,
        opts.unroll,
        opts.reading,
        budget.deadline,
        keep,
    );
    let writes = match domain {
        Ok(w) => w,
        Err(domain::DomainError::TooLarge) => {
            return Status::Limit(
                "too many paths to compute the values each thread can write".into(),
            )
        }
        Err(domain::DomainError::Timeout) => {
            return match budget.tick(out) {
                Err(status) => status,
                Ok(()) => Status::Limit("timeout".into()),
            }
        }
    };
    let d = dpor::Dpor::new(test, &codes, opts.unroll, &writes, opts.check_duplicates);
    f(d, budget, out)
}

/// Why `explain` cannot work on `test` as written: the checker runs a
/// rewritten test (partially overlapping accesses, multimem addresses),
/// whose events the explanation could not name. (Kernels and the host
/// thread are explained as `api::lower` writes them.)
pub(crate) fn rewritten(test: &Test) -> Option<String> {
    match crate::sizes::prepare(test) {
        Ok(p) if p.test.is_some() || p.info.is_some() => Some(
            "explaining a test with partially overlapping accesses or multimem addresses".into(),
        ),
        _ => None,
    }
}

/// What in `test` the checker does not model, as `"<construct> at L:C"` items
/// (all of them), or `None`.
pub(crate) fn unsupported(test: &Test) -> Option<String> {
    let mut items: Vec<String> = test
        .unsupported
        .iter()
        .map(|u| format!("{} at {}", u.construct, u.span))
        .collect();
    for th in &test.threads {
        for s in &th.code {
            if let Instr::Unsupported(what) = &s.instr {
                let item = format!("{what} at {}", s.span);
                if !items.contains(&item) {
                    items.push(item);
                }
            }
        }
    }
    for m in crate::sizes::unsupported(test) {
        if !items.contains(&m) {
            items.push(m);
        }
    }
    if items.is_empty() {
        None
    } else {
        Some(items.join(", "))
    }
}

#[cfg(test)]
mod fence_sc_search_tests;
#[cfg(test)]
mod tests;
