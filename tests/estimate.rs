//! `ptxmc run --strategy estimate`, through the binary: an estimate, never a verdict.

use std::path::PathBuf;
use std::process::{Command, Output};

fn ptxmc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxmc"))
        .args(args)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .output()
        .expect("invariant: the test binary can start ptxmc")
}

#[test]
fn an_estimate_shows_no_verdict_in_text_or_json() {
    let dir = std::env::temp_dir().join(format!("ptxmc-estimate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let family = ptxmc(&["family", "readers", "5"]);
    let test = dir.join("readers-5.litmus");
    std::fs::write(&test, &family.stdout).expect("test written");
    let json = dir.join("e.jsonl");
    let o = ptxmc(&[
        "run",
        "--strategy",
        "estimate",
        "--no-progress",
        test.to_str().expect("utf-8 temp path"),
        "--json",
        json.to_str().expect("utf-8 temp path"),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.lines().any(|l| l == "Ok" || l == "No"), "{out}");
    assert!(
        out.contains("Executions about 32 (95% interval 32..32"),
        "{out}"
    );
    assert!(out.contains("1 estimates"), "{out}");
    let line = std::fs::read_to_string(&json).expect("json written");
    let v: serde_json::Value = serde_json::from_str(line.trim()).expect("one JSON line");
    assert_eq!(v["status"], "estimate", "{line}");
    for key in [
        "condition_holds",
        "liveness_holds",
        "observation",
        "executions",
    ] {
        assert!(v[key].is_null(), "{key}: {line}");
    }
    assert_eq!(v["estimate"]["executions"], 32, "{line}");
    assert_eq!(v["estimate"]["low"], 32, "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}
