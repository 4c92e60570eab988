//! End-to-end tests: run the `ptxmc` binary as a user would.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ptxmc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxmc"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("invariant: the test binary can start ptxmc")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn shared_corpus() -> Option<PathBuf> {
    let p = root().join("../shared/conformance/dat3m-ptx");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "SKIP: shared conformance corpus not found at {}",
            p.display()
        );
        None
    }
}

#[test]
fn bundled_corpus_matches_its_expectations() {
    let o = ptxmc(&[
        "run",
        "corpus/",
        "--expect",
        "corpus/expected.csv",
        "--expect",
        "corpus/expected-Liveness.csv",
        "--quiet",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", stderr(&o));
    let line = out
        .lines()
        .find(|l| l.starts_with("expectations: matched"))
        .expect("a summary line");
    let nums: Vec<usize> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(nums.len(), 2, "{line}");
    assert_eq!(nums[0], nums[1], "{out}");
    assert!(nums[1] >= 10, "too few expectations matched a test: {line}");
}

#[test]
fn parse_reads_the_whole_shared_corpus() {
    let Some(dir) = shared_corpus() else { return };
    let o = ptxmc(&[
        "parse",
        "--quiet",
        dir.join("litmus").to_str().unwrap_or_default(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("parsed 576, failed 0"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn parse_prints_litmus_text_that_parses_again() {
    let o = ptxmc(&["parse", "corpus/spec"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("PTX "), "{text}");
    let dir = std::env::temp_dir().join(format!("ptxmc-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // Each test is preceded by a `(* path *)` comment line; split on them.
    let mut n = 0;
    for (i, chunk) in text.split("(* ").skip(1).enumerate() {
        let body: String = chunk
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with("parsed "))
            .collect::<Vec<_>>()
            .join("\n");
        if !body.contains("PTX ") {
            continue;
        }
        let f = dir.join(format!("t{i}.litmus"));
        std::fs::write(&f, body).expect("write");
        n += 1;
    }
    assert!(n > 0);
    let o2 = ptxmc(&["parse", "--quiet", dir.to_str().unwrap_or_default()]);
    assert_eq!(o2.status.code(), Some(0), "{}", stderr(&o2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_files_get_positioned_errors_and_exit_2() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("corpus/invalid"))
        .expect("corpus/invalid exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bad"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    assert!(files.len() >= 10);
    let mut args = vec!["parse", "--quiet"];
    args.extend(files.iter().map(String::as_str));
    let o = ptxmc(&args);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("error:"), "{err}");
    // file:line:col
    assert!(
        err.lines()
            .any(|l| l.contains(".bad:") && l.split(':').count() >= 4),
        "{err}"
    );
    assert!(stdout(&o).contains("failed"), "{}", stdout(&o));
}

#[test]
fn run_goes_on_after_a_broken_file() {
    let dir = std::env::temp_dir().join(format!("ptxmc-batch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("a-broken.litmus"), "PTX broken\n{ x=0; \n").expect("write");
    std::fs::copy(
        root().join("corpus/spec").join(first_spec_file()),
        dir.join("b-good.litmus"),
    )
    .expect("copy");
    let json = dir.join("out.jsonl");
    let o = ptxmc(&[
        "run",
        dir.to_str().unwrap_or_default(),
        "--json",
        json.to_str().unwrap_or_default(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("a-broken.litmus:"), "{}", stderr(&o));
    assert!(stdout(&o).contains("Observation"), "{}", stdout(&o));
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&json)
        .expect("json written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["status"], "parse-error");
    assert_eq!(lines[1]["status"], "ok");
    for key in [
        "file",
        "name",
        "status",
        "condition_holds",
        "liveness_holds",
        "observation",
        "positive",
        "negative",
        "executions",
        "time_ms",
    ] {
        assert!(lines[1].get(key).is_some(), "missing {key}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn first_spec_file() -> PathBuf {
    let mut files: Vec<_> = std::fs::read_dir(root().join("corpus/spec"))
        .expect("corpus/spec exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    PathBuf::from(files[0].file_name().expect("a file name"))
}

#[test]
fn bad_flags_and_missing_files_exit_2() {
    let o = ptxmc(&["run", "--no-such-flag", "corpus/"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--no-such-flag"), "{}", stderr(&o));
    let o = ptxmc(&["run", "does/not/exist.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("does/not/exist.litmus"),
        "{}",
        stderr(&o)
    );
    let o = ptxmc(&["parse"]);
    assert_eq!(o.status.code(), Some(2));
    let o = ptxmc(&["run", "corpus/", "--expect", "no/such.csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such.csv"));
}

#[test]
fn expectation_mismatch_exits_1() {
    let dir = std::env::temp_dir().join(format!("ptxmc-expect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let spec = root().join("corpus/spec");
    let name = first_spec_file();
    // Claim the opposite of whatever ptxmc says, and check it is reported.
    let json = dir.join("r.jsonl");
    let o = ptxmc(&[
        "run",
        spec.join(&name).to_str().unwrap_or_default(),
        "--json",
        json.to_str().unwrap_or_default(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&json).expect("json").trim()).expect("json");
    let holds = v["condition_holds"].as_bool().expect("bool");
    let csv = dir.join("wrong.csv");
    std::fs::write(
        &csv,
        format!(
            "{},{}\n",
            Path::new("spec").join(&name).display(),
            u8::from(!holds)
        ),
    )
    .expect("write");
    let o = ptxmc(&[
        "run",
        spec.join(&name).to_str().unwrap_or_default(),
        "--expect",
        csv.to_str().unwrap_or_default(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("mismatch:"));
    assert!(stdout(&o).contains("expectations: matched 0 of 1"));
    let _ = std::fs::remove_dir_all(&dir);
}
