//! Locks and barriers explored without waste (issue 13): a waiting read
//! that no thread can serve any more is pruned before the threads that have
//! not taken their ticket yet run through every ticket order
//! (`explore/dpor/ahead.rs`), and RMW reads that can only read each other's
//! writes are pruned at once (`Dpor::rmws_wait_for_each_other`). The counts
//! are the exploration's own (deterministic): executions and blocked ones
//! as the reference enumerator finds them, pruned graphs bounded well below
//! what the search visited before (ticket-lock-6: 19,507; the 5-CTA grid
//! barrier: 1,319,152).

mod common;

use common::{root, s, scratch, stderr};
use std::process::Command;

/// (executions, blocked, pruned) of `ptxmc run path` with the DPOR explorer.
fn counts(path: &str) -> (u64, u64, u64) {
    let o = Command::new(env!("CARGO_BIN_EXE_ptxmc"))
        .args([
            "run",
            path,
            "--strategy",
            "dpor",
            "-j",
            "1",
            "--no-progress",
        ])
        .current_dir(root())
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let line = out
        .lines()
        .find(|l| l.starts_with("Executions "))
        .unwrap_or_else(|| panic!("no Executions line in {out}"));
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().expect("a number"))
        .collect();
    (nums[0], nums[1], nums[2])
}

#[test]
fn a_ticket_lock_prunes_little_past_its_executions() {
    let d = scratch("waits-ticket");
    let f = d.join("ticket-lock-6.litmus");
    let o = Command::new(env!("CARGO_BIN_EXE_ptxmc"))
        .args(["family", "ticket-lock", "6"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(&f, &o.stdout).expect("write the test");
    let (executions, blocked, pruned) = counts(s(&f));
    assert_eq!((executions, blocked), (720, 0));
    assert!(pruned <= 4_000, "ticket-lock-6 pruned {pruned} graphs");
}

#[test]
fn a_grid_barrier_of_five_ctas_prunes_little_past_its_executions() {
    let d = scratch("waits-grid");
    let kernels = root().join("corpus/kernels");
    std::fs::copy(kernels.join("grid-barrier.ptx"), d.join("grid-barrier.ptx")).expect("copy");
    let launch = std::fs::read_to_string(kernels.join("grid-barrier.launch")).expect("read");
    assert!(launch.contains("grid 3"), "{launch}");
    // Five CTAs; every CTA reads its neighbour's value, so the condition
    // is left out (it names three).
    let launch: String = launch
        .replace("grid 3", "grid 5")
        .lines()
        .filter(|l| !l.starts_with("forall"))
        .map(|l| format!("{l}\n"))
        .collect();
    let f = d.join("grid-barrier-5.launch");
    std::fs::write(&f, launch + "exists (P0:r7 == 2)\n").expect("write");
    let (executions, blocked, pruned) = counts(s(&f));
    assert_eq!((executions, blocked), (120, 0));
    assert!(
        pruned <= 2_000,
        "the 5-CTA grid barrier pruned {pruned} graphs"
    );
}
