//! herd's own log tools on ptxmc's text log, when they are installed
//! (herdtools7's `msum7`; build it from github.com/herd/herdtools7): every
//! test of the log is kept, names whole. Without them the test says SKIP;
//! `tests/honest.rs` checks the format against a golden log either way.

mod common;

use common::{ptxmc, scratch, stdout};
use std::process::Command;

fn installed(tool: &str) -> bool {
    Command::new(tool)
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn msum7_keeps_every_test_of_a_ptxmc_log() {
    if !installed("msum7") {
        eprintln!("SKIP: msum7 (herdtools7) is not installed");
        return;
    }
    let d = scratch("herd-tools");
    let gen = ptxmc(&[
        "gen",
        "--shapes",
        "MP,SB",
        "--out",
        d.to_str().unwrap_or("."),
    ]);
    assert_eq!(gen.status.code(), Some(0));
    let run = ptxmc(&["run", d.to_str().unwrap_or("."), "--no-progress"]);
    let log = stdout(&run);
    let tests = log.lines().filter(|l| l.starts_with("Test ")).count();
    let log_file = d.join("ptxmc.log");
    std::fs::write(&log_file, &log).expect("log");
    let o = Command::new("msum7")
        .arg(&log_file)
        .output()
        .expect("msum7 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summed = String::from_utf8_lossy(&o.stdout);
    let kept = summed.lines().filter(|l| l.starts_with("Test ")).count();
    assert_eq!(kept, tests, "msum7 kept {kept} of {tests} tests");
    let _ = std::fs::remove_dir_all(&d);
}
