//! Pinned execution counts: the optimality oracle that agreement between the
//! explorers alone cannot give.
//!
//! Every litmus file of `corpus/` (but `corpus/invalid/`) and of the shared
//! Dat3M corpus (`../shared/conformance/dat3m-ptx/litmus/`) runs under every
//! strategy of the registry (`Strategy::ALL`); the numbers of complete and of
//! blocked executions must equal the rows of `corpus/expected-counts.csv`
//! (paths relative to `corpus/`) and `corpus/expected-counts-dat3m.csv` (paths
//! relative to the shared folder, as in its expected CSVs). A row
//! `path,brute,slow,slow` says that the reference enumerator took more than
//! [`SLOW`] when the file was first pinned: it is not run on that file (to
//! run it again, delete the row and refresh).
//!
//! A file without rows, a row without a file, or a different count fails the
//! test; `UPDATE_EXPECT=1 cargo test --release -p ptxmc-checker --test pinned_counts` rewrites
//! both files from what the explorers find now (check the diff before
//! committing it: a changed count is a changed exploration). Without the
//! shared corpus its half prints `SKIP: ...` and is not checked.

use ptxmc_checker::{check, Options, Status, Strategy};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// A brute-force run slower than this when refreshing is recorded as `slow`.
const SLOW: Duration = Duration::from_millis(300);
/// The time limit of one checked (test, strategy) run.
const LIMIT: Duration = Duration::from_secs(30);

/// What a row pins for one (file, strategy).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pinned {
    /// Complete and blocked executions.
    Counts { executions: u64, blocked: u64 },
    /// Not run: too slow for this strategy.
    Slow,
}

impl std::fmt::Display for Pinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pinned::Counts {
                executions,
                blocked,
            } => write!(f, "{executions},{blocked}"),
            Pinned::Slow => f.write_str("slow,slow"),
        }
    }
}

type Table = BTreeMap<(String, String), Pinned>;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `*.litmus` under `dir`, relative to `root`, sorted.
fn litmus_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            litmus_files(root, &p, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            if let Ok(rel) = p.strip_prefix(root) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
}

fn read_table(path: &Path) -> Result<Table, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut t = Table::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") || line == "path,strategy,executions,blocked" {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let bad = || format!("{}:{}: malformed row `{line}`", path.display(), i + 1);
        let [file, strategy, e, b] = f[..] else {
            return Err(bad());
        };
        let pinned = if (e, b) == ("slow", "slow") {
            Pinned::Slow
        } else {
            Pinned::Counts {
                executions: e.parse().map_err(|_| bad())?,
                blocked: b.parse().map_err(|_| bad())?,
            }
        };
        t.insert((file.to_string(), strategy.to_string()), pinned);
    }
    Ok(t)
}

fn write_table(path: &Path, what: &str, t: &Table) {
    let mut s = format!(
        "// Pinned explored and blocked execution counts of {what}, per strategy\n\
         // (checker/tests/pinned_counts.rs). `slow,slow`: brute took over {} ms when\n\
         // refreshed and is not run. Refresh: UPDATE_EXPECT=1 cargo test --release -p ptxmc-checker --test pinned_counts\n\
         path,strategy,executions,blocked\n",
        SLOW.as_millis()
    );
    for ((file, strategy), p) in t {
        s += &format!("{file},{strategy},{p}\n");
    }
    if let Err(e) = std::fs::write(path, s) {
        panic!("cannot write {}: {e}", path.display());
    }
}

/// Runs one file under one strategy; `Err` says why there are no counts.
fn run_one(path: &Path, strategy: Strategy, limit: Duration) -> Result<Pinned, String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let test = ptxmc_frontend::parse(&src).map_err(|e| format!("parse error: {e}"))?;
    let opts = Options {
        strategy,
        timeout: Some(limit),
        ..Options::default()
    };
    let r = std::panic::catch_unwind(|| check(&test, &opts)).map_err(|_| "panic".to_string())?;
    match r.status {
        Status::Limit(l) => Err(format!("limit: {l}")),
        _ => Ok(Pinned::Counts {
            executions: r.stats.executions,
            blocked: r.stats.blocked,
        }),
    }
}

/// The jobs of one half: (file, strategy) pairs with their result.
type Results = BTreeMap<(String, String), Result<Pinned, String>>;

/// Runs `jobs` on a few threads. Pairs pinned `Slow` are not run. With
/// `update`, brute on a file without a row runs under [`SLOW`] and a limit
/// reached becomes `Slow` (rows kept as they are classified, so that a
/// refresh on a loaded machine does not move tests in and out of `slow`).
fn run_all(root: &Path, jobs: &[(String, Strategy)], old: &Table, update: bool) -> Results {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    let next = Mutex::new(0usize);
    let results = Mutex::new(Results::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                    *n += 1;
                    *n - 1
                };
                let Some((file, strategy)) = jobs.get(i) else {
                    break;
                };
                let key = (file.clone(), strategy.name().to_string());
                let slow_ok = *strategy == Strategy::Brute;
                let got = match old.get(&key) {
                    Some(Pinned::Slow) => Ok(Pinned::Slow),
                    None if update && slow_ok => match run_one(&root.join(file), *strategy, SLOW) {
                        Err(e) if e.starts_with("limit") => Ok(Pinned::Slow),
                        r => r,
                    },
                    _ => run_one(&root.join(file), *strategy, LIMIT),
                };
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, got);
            });
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Checks (or with `update` rewrites) one half; returns its failures.
fn half(root: &Path, files: &[String], table: &Path, what: &str, update: bool) -> Vec<String> {
    let old = match read_table(table) {
        Ok(t) => t,
        Err(e) => return vec![e],
    };
    let jobs: Vec<(String, Strategy)> = files
        .iter()
        .flat_map(|f| Strategy::ALL.iter().map(move |&s| (f.clone(), s)))
        .collect();
    let start = std::time::Instant::now();
    let results = run_all(root, &jobs, &old, update);
    println!(
        "{what}: {} runs in {:.1} s",
        results.len(),
        start.elapsed().as_secs_f64()
    );
    let mut failures = Vec::new();
    let mut new = Table::new();
    for (key, got) in &results {
        match got {
            Ok(p) => {
                new.insert(key.clone(), *p);
            }
            Err(e) => failures.push(format!("{},{}: {e}", key.0, key.1)),
        }
    }
    if update {
        if failures.is_empty() {
            write_table(table, what, &new);
            println!("{what}: wrote {} rows to {}", new.len(), table.display());
        }
        return failures;
    }
    let hint = "run `UPDATE_EXPECT=1 cargo test --release -p ptxmc-checker --test pinned_counts` to pin it";
    for (key, p) in &new {
        match old.get(key) {
            None => failures.push(format!(
                "{},{}: no pinned counts (got {p}); {hint}",
                key.0, key.1
            )),
            Some(o) if o != p => failures.push(format!(
                "{},{}: pinned {o}, got {p} (executions,blocked)",
                key.0, key.1
            )),
            Some(_) => {}
        }
    }
    let have: BTreeSet<&(String, String)> = new.keys().collect();
    for key in old.keys().filter(|k| !have.contains(k)) {
        failures.push(format!(
            "{},{}: pinned, but there is no such file or strategy; {hint}",
            key.0, key.1
        ));
    }
    let slow: Vec<&str> = old
        .iter()
        .filter(|(_, p)| **p == Pinned::Slow)
        .map(|(k, _)| k.0.as_str())
        .collect();
    println!(
        "{what}: {} pinned rows, {} brute runs skipped as slow",
        new.len() - slow.len(),
        slow.len()
    );
    failures
}

#[test]
fn every_count_is_pinned() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v == "1");
    let corpus = manifest().join("../corpus");
    let mut failures = Vec::new();
    let mut files = Vec::new();
    litmus_files(&corpus, &corpus, &mut files);
    files.retain(|f| !f.starts_with("invalid/"));
    files.sort();
    assert!(!files.is_empty(), "no litmus files in {}", corpus.display());
    failures.extend(half(
        &corpus,
        &files,
        &corpus.join("expected-counts.csv"),
        "corpus/",
        update,
    ));
    let shared = manifest().join("../../shared/conformance/dat3m-ptx");
    if shared.join("litmus").is_dir() {
        let mut files = Vec::new();
        litmus_files(&shared, &shared.join("litmus"), &mut files);
        files.sort();
        failures.extend(half(
            &shared,
            &files,
            &corpus.join("expected-counts-dat3m.csv"),
            "the shared Dat3M corpus",
            update,
        ));
    } else {
        println!(
            "SKIP: shared Dat3M corpus not found at {}; its pinned counts are not checked",
            shared.display()
        );
    }
    for f in &failures {
        println!("FAIL: {f}");
    }
    assert!(
        failures.is_empty(),
        "{} pinned-count failures (listed above)",
        failures.len()
    );
}

#[test]
fn a_row_reads_back() {
    let dir = std::env::temp_dir().join(format!("ptxmc-pinned-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("counts.csv");
    let mut t = Table::new();
    let c = Pinned::Counts {
        executions: 12,
        blocked: 3,
    };
    t.insert(("a/b.litmus".into(), "dpor".into()), c);
    t.insert(("a/b.litmus".into(), "brute".into()), Pinned::Slow);
    write_table(&path, "a test", &t);
    assert_eq!(read_table(&path), Ok(t));
    std::fs::write(&path, "x.litmus,dpor,1\n").expect("write");
    assert!(read_table(&path).is_err_and(|e| e.contains("malformed")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_row_asks_for_an_update() {
    // A corpus of one file with an empty table: the failure names the fix.
    let dir = std::env::temp_dir().join(format!("ptxmc-pinned-new-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("t.litmus"),
        "PTX t\n{ x=0; }\nP0@cta 0,gpu 0 ;\nst.relaxed.gpu x, 1 ;\nexists (x == 1)\n",
    )
    .expect("write");
    let table = dir.join("counts.csv");
    let files = vec!["t.litmus".to_string()];
    let failures = half(&dir, &files, &table, "a new test", false);
    assert_eq!(failures.len(), Strategy::ALL.len(), "{failures:?}");
    assert!(failures.iter().all(|f| f.contains("UPDATE_EXPECT=1")));
    assert!(half(&dir, &files, &table, "a new test", true).is_empty());
    assert!(half(&dir, &files, &table, "a new test", false).is_empty());
    let text = std::fs::read_to_string(&table).expect("read");
    assert!(text.contains("t.litmus,dpor,1,0"), "{text}");
    let _ = std::fs::remove_dir_all(PathBuf::from(&dir));
}
