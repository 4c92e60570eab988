//! `ptxmc models`, `ptxmc run --model NAME` and `--model A,B`, through the binary.

use std::path::PathBuf;
use std::process::{Command, Output};

fn ptxmc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxmc"))
        .args(args)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .output()
        .expect("invariant: the test binary can start ptxmc")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn models_lists_every_reading_with_its_sections() {
    let o = ptxmc(&["models"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        names,
        [
            "spec",
            "fence-sc-plain",
            "red-acquires",
            "exch-independent",
            "failed-cas-read",
            "dat3m",
            "host-sys-nonatomic"
        ]
    );
    assert!(out.lines().all(|l| l.contains("[8.")), "{out}");
}

#[test]
fn a_run_names_its_reading_in_text_and_json() {
    let dir = std::env::temp_dir().join(format!("ptxmc-models-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let json = dir.join("r.jsonl");
    let test = "corpus/readings/MP-fence-sc-release.litmus";
    for (model, verdict) in [("spec", "Ok"), ("dat3m", "No")] {
        let o = ptxmc(&[
            "run",
            test,
            "--model",
            model,
            "--json",
            json.to_str().expect("utf-8 temp path"),
        ]);
        assert_eq!(o.status.code(), Some(0));
        let out = stdout(&o);
        assert!(out.lines().any(|l| l == verdict), "{model}: {out}");
        assert!(out.lines().any(|l| l == format!("Model {model}")), "{out}");
        let line = std::fs::read_to_string(&json).expect("json written");
        let v: serde_json::Value = serde_json::from_str(line.trim()).expect("one JSON line");
        assert_eq!(v["model"], model, "{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_readings_list_the_tests_whose_verdicts_differ() {
    let o = ptxmc(&[
        "run",
        "corpus/readings/",
        "corpus/spec/",
        "--model",
        "spec,dat3m",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for t in [
        "corpus/readings/MP-fence-sc-release.litmus: spec Ok, dat3m No",
        "corpus/readings/LB-exch-weak-copy.litmus: spec No, dat3m Ok",
        "corpus/readings/LB-exch-weak-relay.litmus: spec No, dat3m Ok",
        "corpus/spec/8.11.1-mp-red.litmus: spec Ok, dat3m No",
    ] {
        assert!(out.lines().any(|l| l == t), "missing `{t}` in\n{out}");
    }
    let last = out.lines().last().unwrap_or_default();
    assert!(last.starts_with("Models spec, dat3m: 4 of "), "{last}");
}

#[test]
fn a_failed_cas_that_only_reads_changes_the_cas_tests() {
    let o = ptxmc(&["run", "corpus/readings/", "--model", "spec,failed-cas-read"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for t in [
        "corpus/readings/cas-fail-writeback-race.litmus: spec Ok, failed-cas-read No",
        "corpus/readings/LB-cas-fail-relay-weak.litmus: spec Ok, failed-cas-read No",
    ] {
        assert!(out.lines().any(|l| l == t), "missing `{t}` in\n{out}");
    }
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("Models spec, failed-cas-read: 2 of "),
        "{last}"
    );
}

#[test]
fn an_unknown_reading_is_a_usage_error() {
    let o = ptxmc(&["run", "corpus/readings/", "--model", "herd"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("unknown model `herd`") && err.contains("dat3m"),
        "{err}"
    );
}
