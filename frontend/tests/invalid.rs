//! Snapshot test of error messages: every `corpus/invalid/<name>.bad` (a litmus file that `ptxmc run corpus/` skips because of its extension) must fail to
//! parse with the one-line error (`LINE:COL: message`) stored in `<name>.expected`.
//! `UPDATE_EXPECT=1 cargo test -p ptxmc-frontend --test invalid` rewrites the snapshots.

use ptxmc_frontend::parse;
use std::fs;
use std::path::Path;

#[test]
fn invalid_files_give_the_expected_errors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/invalid");
    let update = std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v == "1");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bad"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 15,
        "expected at least 15 invalid files, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let src = String::from_utf8_lossy(&bytes);
        let got = match parse(&src) {
            Ok(_) => "<parsed without error>".to_string(),
            Err(e) => e.to_string(),
        };
        let expected_path = path.with_extension("expected");
        if update {
            fs::write(&expected_path, format!("{got}\n"))
                .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if expected.trim_end() != got {
            failures.push(format!(
                "{}:\n  expected: {}\n  got:      {got}",
                path.display(),
                expected.trim_end()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} snapshot(s) differ (rerun with UPDATE_EXPECT=1 to accept):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
