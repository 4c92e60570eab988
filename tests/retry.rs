//! A batch part (`--shard K/N`) is safe to retry (issue 18 item 2): run
//! again after a kill, or on a machine with another number of cores, it
//! writes the same bytes, but for the `time_ms` values, so that job runners
//! (Slurm arrays, Kubernetes indexed Jobs) may retry an index freely.

mod common;

use common::{root, s, scratch, stderr};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The file's text with every `"time_ms":NUMBER` value blanked.
fn timeless(p: &Path) -> String {
    let text = std::fs::read_to_string(p).expect("results file");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    const KEY: &str = "\"time_ms\":";
    while let Some(i) = rest.find(KEY) {
        out.push_str(&rest[..i + KEY.len()]);
        rest = &rest[i + KEY.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || ".eE+-".contains(c)))
            .unwrap_or(rest.len());
        out.push('T');
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn shard(json: &Path, j: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxmc"));
    c.args(["run", "corpus", "--shard", "2/3", "--json", s(json), "-q"])
        .args(["--no-progress", "-j", j])
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

#[test]
fn a_shard_rerun_after_a_kill_or_elsewhere_writes_the_same_bytes() {
    let d = scratch("retry");
    let first = d.join("first.jsonl");
    let o = shard(&first, "2").output().expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let want = timeless(&first);
    assert!(want.lines().count() > 50, "{want}");
    // Another machine: one core.
    let other = d.join("other.jsonl");
    let o = shard(&other, "1").output().expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(timeless(&other), want, "-j 1 and -j 2 differ");
    // A kill part-way (the file has some lines), then the same command again.
    let killed = d.join("killed.jsonl");
    let mut child = shard(&killed, "1").spawn().expect("starts");
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(20) {
        let lines = std::fs::read_to_string(&killed)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 5 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    let o = shard(&killed, "2").output().expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(timeless(&killed), want, "the rerun after a kill differs");
    let _ = std::fs::remove_dir_all(&d);
}
