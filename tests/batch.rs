//! End-to-end tests of the batch workflow: streaming JSON, `--resume`,
//! `--shard`, `merge`, `compare`, progress, and their errors.

mod common;
use common::*;
use std::path::Path;

/// A small, fast selection of the bundled corpus (24 tests).
const SET: [&str; 2] = ["corpus/spec", "corpus/coherence"];

fn run_json(extra: &[&str], json: &Path) -> std::process::Output {
    let mut args = vec!["run", SET[0], SET[1], "-q", "--json", s(json)];
    args.extend_from_slice(extra);
    let o = ptxmc(&args);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    o
}

#[test]
fn shards_then_merge_equal_the_unsharded_run() {
    let dir = scratch("shards");
    let full = dir.join("full.jsonl");
    run_json(&[], &full);
    let all = timeless(&full);
    assert_eq!(all.len(), 24);
    let mut shard_files = Vec::new();
    let mut sizes = Vec::new();
    for k in 1..=3 {
        let f = dir.join(format!("shard-{k}.jsonl"));
        run_json(&["--shard", &format!("{k}/3")], &f);
        sizes.push(timeless(&f).len());
        shard_files.push(f);
    }
    assert_eq!(sizes, vec![8, 8, 8]);
    let merged = dir.join("merged.jsonl");
    let mut args = vec!["merge"];
    args.extend(shard_files.iter().map(|p| s(p)));
    args.extend(["-o", s(&merged)]);
    let o = ptxmc(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Merged 3 files: 24 tests"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("Summary: 24 tests: 24 ok"),
        "{}",
        stdout(&o)
    );
    assert_eq!(timeless(&merged), all);
    // Merging in another order, or with an overlapping file, changes nothing.
    let again = dir.join("again.jsonl");
    let o = ptxmc(&[
        "merge",
        s(&shard_files[2]),
        s(&full),
        s(&shard_files[0]),
        s(&shard_files[1]),
        "-o",
        s(&again),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(timeless(&again), all);
    let o = ptxmc(&["compare", s(&full), s(&merged)]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("24 tests in both, 0 differ"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_is_the_same_for_any_number_of_workers() {
    let dir = scratch("jobs");
    let (a, b) = (dir.join("j1.jsonl"), dir.join("j4.jsonl"));
    run_json(&["-j", "1"], &a);
    run_json(&["-j", "4"], &b);
    assert_eq!(timeless(&a), timeless(&b));
    let files: Vec<String> = timeless(&a)
        .iter()
        .map(|v| v["file"].as_str().unwrap_or_default().to_string())
        .collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted, "the final file is sorted by path");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_run_resumed_ends_with_the_same_results() {
    let dir = scratch("resume");
    let full = dir.join("full.jsonl");
    run_json(&[], &full);
    let text = std::fs::read_to_string(&full).expect("json");
    // A kill in the middle of writing line 11: ten whole lines and half a line.
    let lines: Vec<&str> = text.lines().collect();
    let cut = format!(
        "{}\n{}",
        lines[..10].join("\n"),
        &lines[10][..lines[10].len() / 2]
    );
    let partial = dir.join("partial.jsonl");
    std::fs::write(&partial, cut).expect("write");
    let o = ptxmc(&[
        "run",
        SET[0],
        SET[1],
        "--resume",
        s(&partial),
        "--no-progress",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Resumed: 10 tests from"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("14 checked now"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("dropped a truncated last line"),
        "{}",
        stderr(&o)
    );
    assert_eq!(timeless(&partial), timeless(&full));
    // Resuming a finished run checks nothing and changes nothing.
    let o = ptxmc(&["run", SET[0], SET[1], "--resume", s(&partial), "-q"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("0 checked now"), "{}", stdout(&o));
    assert_eq!(timeless(&partial), timeless(&full));
    // A run that only got through part of the files (here: one shard),
    // resumed into another file.
    let half = dir.join("half.jsonl");
    run_json(&["--shard", "1/2"], &half);
    let done = dir.join("done.jsonl");
    let o = ptxmc(&[
        "run",
        SET[0],
        SET[1],
        "-q",
        "--resume",
        s(&half),
        "--json",
        s(&done),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(timeless(&done), timeless(&full));
    // A resume file that does not exist yet is an empty start.
    let fresh = dir.join("fresh.jsonl");
    let o = ptxmc(&["run", SET[0], SET[1], "-q", "--resume", s(&fresh)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(timeless(&fresh), timeless(&full));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_finds_a_planted_difference() {
    let dir = scratch("compare");
    let a = dir.join("a.jsonl");
    run_json(&[], &a);
    let text = std::fs::read_to_string(&a).expect("json");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Flip the verdict and drop a state of the test on line 3, drop line 5,
    // and shuffle: compare must not care about order.
    let mut v: serde_json::Value = serde_json::from_str(&lines[2]).expect("json");
    let planted = v["file"].as_str().unwrap_or_default().to_string();
    let holds = v["condition_holds"].as_bool().expect("a verdict");
    v["condition_holds"] = serde_json::json!(!holds);
    if let Some(st) = v["states"].as_array_mut() {
        st.pop();
    }
    lines[2] = v.to_string();
    let removed: serde_json::Value = serde_json::from_str(&lines.remove(4)).expect("json");
    lines.reverse();
    let b = dir.join("b.jsonl");
    std::fs::write(&b, lines.join("\n") + "\n").expect("write");
    let o = ptxmc(&["compare", s(&a), s(&b)]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains(&planted), "{out}");
    assert!(
        out.contains(&format!("condition_holds: {holds} | {}", !holds)),
        "{out}"
    );
    assert!(out.contains("states: "), "{out}");
    assert!(out.contains("  < "), "{out}");
    assert!(
        out.contains(removed["file"].as_str().unwrap_or("?")),
        "{out}"
    );
    assert!(
        out.contains("23 tests in both, 1 differ; 1 only in"),
        "{out}"
    );
    // Same file against itself, shuffled: no difference.
    let mut same: Vec<&str> = text.lines().collect();
    same.reverse();
    let c = dir.join("c.jsonl");
    std::fs::write(&c, same.join("\n") + "\n").expect("write");
    let o = ptxmc(&["compare", s(&a), s(&c)]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // Merge refuses the conflicting duplicate.
    let o = ptxmc(&["merge", s(&a), s(&b)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&planted), "{}", stderr(&o));
    assert!(stderr(&o).contains("different results"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_checks_expectations_and_writes_stdout() {
    let dir = scratch("merge-expect");
    let a = dir.join("a.jsonl");
    run_json(&[], &a);
    let o = ptxmc(&["merge", s(&a), "--expect", "corpus/expected.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("expectations: matched"),
        "{}",
        stdout(&o)
    );
    let o = ptxmc(&["merge", s(&a), "-o", "-"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).lines().count(), 24);
    assert!(stderr(&o).contains("Summary: 24 tests"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn progress_lines_when_stderr_is_not_a_terminal() {
    let o = ptxmc(&["run", SET[0], SET[1], "-j", "1", "--progress-interval", "0"]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(err.contains("/24 tests done"), "{err}");
    assert!(err.contains("executions/s, ETA"), "{err}");
    for quiet in ["-q", "--no-progress"] {
        let o = ptxmc(&["run", SET[0], quiet, "--progress-interval", "0"]);
        assert_eq!(o.status.code(), Some(0));
        assert!(!stderr(&o).contains("tests done"), "{}", stderr(&o));
    }
}

#[test]
fn batch_errors_exit_2_with_a_clear_message() {
    let dir = scratch("batch-errors");
    for (shard, msg) in [("0/3", "--shard"), ("4/3", "--shard"), ("x", "--shard")] {
        let o = ptxmc(&["run", SET[0], "--shard", shard]);
        assert_eq!(o.status.code(), Some(2), "{shard}");
        assert!(stderr(&o).contains(msg), "{}", stderr(&o));
    }
    let o = ptxmc(&["run", SET[0], "--timeout", "-1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--timeout"), "{}", stderr(&o));
    // A broken line that is not the last is not a kill: refuse to resume.
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"file\":\"a\"}\n{broken\n{\"file\":\"b\"}\n").expect("write");
    let o = ptxmc(&["run", SET[0], "--resume", s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.jsonl:2:"), "{}", stderr(&o));
    let o = ptxmc(&["merge"]);
    assert_eq!(o.status.code(), Some(2));
    let o = ptxmc(&["merge", "no/such.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such.jsonl"), "{}", stderr(&o));
    let o = ptxmc(&["merge", s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    let o = ptxmc(&["merge", "--bogus", s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--bogus"), "{}", stderr(&o));
    let o = ptxmc(&["compare", s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    let o = ptxmc(&["compare", "no/such.jsonl", s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such.jsonl"), "{}", stderr(&o));
    let o = ptxmc(&["compare", "--bogus", "a", "b"]);
    assert_eq!(o.status.code(), Some(2));
    let o = ptxmc(&["family", "no-such-family", "3"]);
    assert_eq!(o.status.code(), Some(2));
    let o = ptxmc(&["parse", "no/such/file.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/file.litmus"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
