//! One test explored by several workers gives what one worker gives: the
//! DPOR search is split into parts near its root (`explore/dpor/write.rs`,
//! `Dpor::branch`), each part on its own copy of the graph, and the parts
//! are merged in the sequential order. A part starts from a copy of the node
//! taken before the first child ran, so state a child leaves behind cannot
//! hide there: a spin read served by a write used to stay among the
//! awaiting reads, which only the copies showed (eight executions more with
//! `-j 2`).

mod common;

use common::{root, stderr};
use std::process::Command;

/// The `Positive` and `Executions` lines (without the pruned count) that
/// `ptxmc run` prints for `file` with `-j jobs`.
fn counts(file: &str, jobs: &str) -> Vec<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_ptxmc"))
        .args([
            "run",
            file,
            "--strategy",
            "dpor",
            "-j",
            jobs,
            "--no-progress",
        ])
        .current_dir(root())
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.starts_with("Executions") || l.starts_with("Positive"))
        // (Pruned counts may differ: a part checks its copy again.)
        .map(|l| l.split(", pruned").next().unwrap_or(l).to_string())
        .collect()
}

#[test]
fn one_and_two_workers_agree_on_a_lock_with_an_awaiting_spin() {
    let f = "checker/tests/regressions/awaiting-read-served-then-hung.litmus";
    let one = counts(f, "1");
    let two = counts(f, "2");
    // The reference enumerator's counts (`--strategy brute`).
    assert_eq!(
        one,
        vec![
            "Positive: 108 Negative: 300".to_string(),
            "Executions 228 (blocked 54".to_string()
        ]
    );
    assert_eq!(two, one, "-j 2 differs from -j 1");
}
