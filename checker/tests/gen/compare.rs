//! What the differential tests share: their settings from the environment,
//! one run of an explorer, and the comparison of two reports.

use ptxmc_checker::{check, Options, Report, Status, Strategy};
use std::time::Duration;

/// The number in environment variable `name`, if set (a test setting such as
/// `PTXMC_DIFF_CASES`); panics on a value that is not a number.
pub fn env_num(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    match v.trim().parse() {
        Ok(n) => Some(n),
        Err(_) => panic!("{name}={v:?} is not a number"),
    }
}

/// One check of `test` by `strategy` under `timeout`, duplicates counted.
pub fn run(test: &ptxmc_frontend::ir::Test, strategy: Strategy, timeout: Duration) -> Report {
    check(
        test,
        &Options {
            strategy,
            timeout: Some(timeout),
            check_duplicates: true,
            ..Options::default()
        },
    )
}

/// What differs between the two reports (empty: they agree).
pub fn differences(b: &Report, d: &Report) -> Vec<String> {
    let mut diffs = Vec::new();
    if b.status != d.status {
        diffs.push(format!("status: brute {:?}, dpor {:?}", b.status, d.status));
        return diffs;
    }
    for (name, r) in [("brute", b), ("dpor", d)] {
        if r.stats.duplicates != 0 {
            diffs.push(format!("{name}: {} duplicates", r.stats.duplicates));
        }
    }
    if matches!(b.status, Status::Unsupported(_)) {
        return diffs;
    }
    let pairs = [
        (
            "states",
            format!("{:?}", b.states),
            format!("{:?}", d.states),
        ),
        (
            "counts",
            format!("{} {}", b.positive, b.negative),
            format!("{} {}", d.positive, d.negative),
        ),
        (
            "verdicts",
            format!("{} {}", b.condition_holds, b.liveness_holds),
            format!("{} {}", d.condition_holds, d.liveness_holds),
        ),
        (
            "executions",
            format!(
                "{} {} {}",
                b.stats.executions, b.stats.blocked, b.stats.bound_hits
            ),
            format!(
                "{} {} {}",
                d.stats.executions, d.stats.blocked, d.stats.bound_hits
            ),
        ),
    ];
    for (what, x, y) in pairs {
        if x != y {
            diffs.push(format!("{what}: brute {x}, dpor {y}"));
        }
    }
    diffs
}
