//! The Dat3M PTX corpus (`../shared/conformance/dat3m-ptx/`) as the test suite.
//!
//! `every_expectation_matches`: runs every test listed in the four expected CSVs
//! with the reference enumerator and compares: in a condition CSV, verdict 1
//! means the condition holds (herd's sense); in a `Liveness` CSV, verdict 1 means
//! no fair execution blocks. Every mismatch is printed; the test fails on any
//! mismatch not allowlisted in `known-mismatches.txt` (each one is explained in
//! `docs/model-notes.md`), and on any allowlisted row that now matches.
//!
//! `every_corpus_file_runs`: every `.litmus` file of the corpus, with or without
//! expectations, runs under a time limit without panicking.
//!
//! Without the shared corpus both print `SKIP: ...` and pass.

use ptxmc_checker::{check, Options, Report, Status, Strategy};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// Worker threads for running the corpus (results are reported in CSV order).
fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().min(8))
}

fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/dat3m-ptx");
    if root.join("expected").is_dir() {
        Some(root)
    } else {
        eprintln!(
            "SKIP: shared conformance corpus not found at {}",
            root.display()
        );
        None
    }
}

/// The rows of one expected CSV, as Dat3M reads them: blank lines and `//`
/// lines skipped, exactly two fields.
fn read_csv(path: &Path) -> Vec<(String, bool)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .filter_map(|l| {
            let mut f = l.split(',');
            match (f.next(), f.next(), f.next()) {
                (Some(p), Some(v), None) => Some((p.trim().to_string(), v.trim() == "1")),
                _ => None,
            }
        })
        .collect()
}

/// What running one file gave.
#[derive(Clone, Debug)]
enum Outcome {
    Report(Box<Report>),
    ParseError(String),
    Panic(String),
}

/// Runs `files` (paths relative to `root`) on [`workers`] threads.
fn run_all(root: &Path, files: &[String], opts: &Options) -> BTreeMap<String, Outcome> {
    let next = Mutex::new(0usize);
    let results = Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..workers() {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                    *n += 1;
                    *n - 1
                };
                let Some(rel) = files.get(i) else {
                    break;
                };
                let outcome = run_one(&root.join(rel), opts);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(rel.clone(), outcome);
            });
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

fn run_one(path: &Path, opts: &Options) -> Outcome {
    let src = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => return Outcome::ParseError(format!("cannot read: {e}")),
    };
    let test = match ptxmc_frontend::parse(&src) {
        Ok(t) => t,
        Err(e) => return Outcome::ParseError(e.to_string()),
    };
    match std::panic::catch_unwind(|| check(&test, opts)) {
        Ok(r) => Outcome::Report(Box::new(r)),
        Err(p) => Outcome::Panic(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
    }
}

fn allowlist() -> BTreeSet<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/known-mismatches.txt");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(','))
        .map(|(c, p)| (c.trim().to_string(), p.trim().to_string()))
        .collect()
}

#[test]
fn every_expectation_matches() {
    let Some(root) = corpus_root() else {
        return;
    };
    let mut csvs: Vec<PathBuf> = std::fs::read_dir(root.join("expected"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    csvs.retain(|p| p.extension().is_some_and(|e| e == "csv"));
    csvs.sort();
    let rows: Vec<(String, Vec<(String, bool)>)> = csvs
        .iter()
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, read_csv(p))
        })
        .collect();
    let mut files: Vec<String> = rows
        .iter()
        .flat_map(|(_, r)| r.iter().map(|(p, _)| p.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    files.sort();
    let opts = Options {
        strategy: Strategy::Brute,
        timeout: Some(Duration::from_secs(20)),
        check_duplicates: true,
        ..Options::default()
    };
    let start = std::time::Instant::now();
    let results = run_all(&root, &files, &opts);
    let allowed = allowlist();
    let (mut matched, mut total) = (0, 0);
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    for (csv, rows) in &rows {
        let liveness = csv.contains("Liveness");
        for (path, expected) in rows {
            total += 1;
            let got = match results.get(path) {
                Some(Outcome::Report(r)) if r.stats.duplicates > 0 => {
                    Err(format!("{} duplicate executions", r.stats.duplicates))
                }
                Some(Outcome::Report(r)) if r.status == Status::Ok => Ok(if liveness {
                    r.liveness_holds
                } else {
                    r.condition_holds
                }),
                Some(Outcome::Report(r)) => Err(format!("status {:?}", r.status)),
                Some(Outcome::ParseError(e)) => Err(format!("parse error: {e}")),
                Some(Outcome::Panic(m)) => Err(format!("panic: {m}")),
                None => Err("not run".to_string()),
            };
            let key = (csv.clone(), path.clone());
            if got == Ok(*expected) {
                matched += 1;
                if allowed.contains(&key) {
                    stale.push(format!("{csv},{path}"));
                }
                continue;
            }
            let what = match got {
                Ok(v) => format!("expected {}, got {}", *expected as u8, v as u8),
                Err(e) => format!("expected {}, {e}", *expected as u8),
            };
            let tag = if allowed.contains(&key) {
                "known mismatch"
            } else {
                unexpected.push(format!("{csv},{path}"));
                "MISMATCH"
            };
            println!("{tag}: {csv},{path}: {what}");
        }
    }
    println!(
        "expectations: matched {matched} of {total} ({} files in {:.1} s)",
        files.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        unexpected.is_empty(),
        "unexpected mismatches:\n{}",
        unexpected.join("\n")
    );
    assert!(
        stale.is_empty(),
        "allowlisted in known-mismatches.txt but matching now:\n{}",
        stale.join("\n")
    );
}

fn litmus_files(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            litmus_files(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            if let Ok(rel) = p.strip_prefix(root) {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
}

#[test]
fn every_corpus_file_runs() {
    let Some(root) = corpus_root() else {
        return;
    };
    let mut files = Vec::new();
    litmus_files(&root.join("litmus"), &root, &mut files);
    files.sort();
    let opts = Options {
        strategy: Strategy::Brute,
        timeout: Some(Duration::from_millis(200)),
        ..Options::default()
    };
    let start = std::time::Instant::now();
    let results = run_all(&root, &files, &opts);
    let mut statuses: BTreeMap<&str, usize> = BTreeMap::new();
    let mut panics = Vec::new();
    for (path, o) in &results {
        let status = match o {
            Outcome::Report(r) => r.status.name(),
            Outcome::ParseError(e) => {
                println!("parse error: {path}: {e}");
                "parse error"
            }
            Outcome::Panic(m) => {
                panics.push(format!("{path}: {m}"));
                "panic"
            }
        };
        *statuses.entry(status).or_default() += 1;
    }
    println!(
        "{} files in {:.1} s: {statuses:?}",
        files.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
}
