//! The warning before an exploration that would take very long: `ptxmc run`
//! on a test whose DPOR tree is huge (writers-10: 39.9 million executions)
//! otherwise runs for hours without a word about it.
//!
//! It costs little: it is looked for only in a run of at most
//! [`MAX_TESTS`] tests with no `--timeout` (a bounded run needs no
//! warning), with the DPOR strategy, on a test that is not tiny, and it is
//! [`WALKS`] random walks of Knuth's estimator (`--strategy estimate`
//! makes hundreds to thousands), themselves stopped after [`PROBE`]. The
//! warning goes to stderr, says the estimate and how to bound or silence
//! it (`--no-estimate-warning`), and changes nothing else.

use ptxmc_checker::explore::estimate;
use ptxmc_checker::{Options, Strategy};
use ptxmc_frontend::ir::Test;
use std::path::Path;
use std::time::Duration;

/// Runs of at most this many tests look for the warning.
pub const MAX_TESTS: usize = 8;

/// Walks of the estimate.
pub const WALKS: u64 = 8;

/// The walks stop after this long (no warning then).
pub const PROBE: Duration = Duration::from_millis(300);

/// An estimated exhaustive time above this is warned about.
pub const WARN_AFTER: Duration = Duration::from_secs(10 * 60);

/// Whether a run of `tests` tests with `opts` looks for the warning.
pub fn wanted(tests: usize, opts: &Options, silenced: bool) -> bool {
    !silenced && tests <= MAX_TESTS && opts.timeout.is_none() && opts.strategy == Strategy::Dpor
}

/// Whether `test` is too small to take long: two threads or fewer and a
/// few instructions (a test of that size explores in milliseconds).
fn tiny(test: &Test) -> bool {
    let stmts: usize = test.threads.iter().map(|t| t.code.len()).sum();
    test.threads.len() <= 2 && stmts <= 16
}

/// A duration in words: `3.2 h`, `45 min`, `12 days`.
fn words(secs: f64) -> String {
    match secs {
        s if s >= 2.0 * 86_400.0 => format!("{:.0} days", s / 86_400.0),
        s if s >= 3_600.0 => format!("{:.1} h", s / 3_600.0),
        s => format!("{:.0} min", s / 60.0),
    }
}

/// The warning for `test` (the file `file`), if its exhaustive check is
/// estimated to take longer than [`WARN_AFTER`] on `jobs` threads.
pub fn warning(file: &Path, test: &Test, opts: &Options, jobs: usize) -> Option<String> {
    if tiny(test) {
        return None;
    }
    let probe = Options {
        strategy: Strategy::Estimate,
        timeout: Some(PROBE),
        max_executions: None,
        witness: false,
        check_duplicates: false,
        ..opts.clone()
    };
    let e = estimate::quick(test, &probe, WALKS)?;
    // One thread's time; `-j N` divides it at best by N.
    let secs = e.time_ms as f64 / 1000.0 / jobs.max(1) as f64;
    if secs < WARN_AFTER.as_secs_f64() {
        return None;
    }
    let size = if e.total > 0 {
        format!("about {} executions, {} branching nodes", e.total, e.nodes)
    } else {
        format!("about {} branching nodes", e.nodes)
    };
    Some(format!(
        "warning: {}: checking every execution may take about {} ({size}: a rough estimate \
         from {} random walks; `ptxmc run --strategy estimate` gives a better one). Bound it \
         with --timeout SECS, or silence this with --no-estimate-warning",
        file.display(),
        words(secs),
        e.walks
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_words() {
        assert_eq!(words(600.0), "10 min");
        assert_eq!(words(3.0 * 3600.0 + 720.0), "3.2 h");
        assert_eq!(words(5.0 * 86_400.0), "5 days");
    }

    #[test]
    fn only_small_unbounded_dpor_runs_look() {
        let o = Options::default();
        assert!(wanted(1, &o, false));
        assert!(!wanted(1, &o, true));
        assert!(!wanted(MAX_TESTS + 1, &o, false));
        let bounded = Options {
            timeout: Some(Duration::from_secs(5)),
            ..Options::default()
        };
        assert!(!wanted(1, &bounded, false));
        let brute = Options {
            strategy: Strategy::Brute,
            ..Options::default()
        };
        assert!(!wanted(1, &brute, false));
    }
}
