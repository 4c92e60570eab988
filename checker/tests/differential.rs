//! Differential testing of the explorers: the DPOR explorer against the
//! reference enumerator (`Strategy::Brute`), which must agree on everything
//! an execution count and a verdict are made of (`ARCHITECTURE.md`: every
//! explorer counts executions the same way).
//!
//! - `random_programs_agree`: small random litmus tests from the seeded
//!   generator in `gen/` (text in the corpus dialect, parsed like a file).
//!   `PTXMC_DIFF_CASES` sets how many (default 500 in release, 40 in debug),
//!   `PTXMC_DIFF_SEED` the first seed (case i uses seed + i),
//!   `PTXMC_DIFF_TIMEOUT_MS` the time limit of each explorer (default 2000),
//!   `PTXMC_DIFF_PROFILE=rare` makes loops, barriers and aliases common
//!   (`fence-sc`: more `fence.sc`; `bar-red`: a `bar.red` in most programs).
//! - `corpus_files_agree`: every `.litmus` under `corpus/` and under the
//!   shared Dat3M corpus (`SKIP: ...` when it is absent), with a short time
//!   limit per strategy; files where either explorer reaches it are counted
//!   and skipped.
//! - `regressions_agree`: the minimized counterexamples of
//!   `checker/tests/regressions/` (each file says what diverged and why;
//!   `regressions/perf/` holds programs on which DPOR is slow, not run).
//!
//! Compared when both end `Ok`: final states with their counts, positive and
//! negative outcomes, the condition and liveness verdicts, executions and
//! blocked executions; both must report no duplicate execution. Otherwise the
//! statuses must agree (a `limit` on either side skips the case). On a
//! failure the seed (or file) and the litmus text are printed.

mod common;
mod gen;

use common::litmus_files;
use gen::compare::env_num;
use ptxmc_checker::{check, Options, Report, Status, Strategy};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Random programs checked by default: a few seconds in release, and not
/// absurdly slow in debug.
const DEFAULT_CASES: usize = if cfg!(debug_assertions) { 40 } else { 500 };

fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().min(8))
}

/// What comparing the two explorers on one test gave.
#[derive(Clone, Debug)]
enum Verdict {
    /// Both agree; the common status name.
    Agree(&'static str),
    /// One side (or both) reached the time limit: not compared. `brute` is
    /// `None` when the reference enumerator was not run.
    Limit { brute: Option<bool>, dpor: bool },
    /// The text does not parse.
    ParseError(String),
    /// They disagree (or one panicked, or found duplicates): what differs.
    Diverge(String),
}

/// The outcome of one case, with the time each explorer took.
#[derive(Clone, Debug)]
struct Case {
    verdict: Verdict,
    brute: Duration,
    dpor: Duration,
}

fn run(
    test: &ptxmc_frontend::ir::Test,
    strategy: Strategy,
    timeout: Duration,
) -> Result<Report, String> {
    let opts = Options {
        strategy,
        timeout: Some(timeout),
        check_duplicates: true,
        ..Options::default()
    };
    std::panic::catch_unwind(|| check(test, &opts)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("panic: {msg}")
    })
}

/// The differences between two reports, field by field.
fn differences(b: &Report, d: &Report) -> Vec<String> {
    let mut diffs = Vec::new();
    if b.status.name() != d.status.name() {
        diffs.push(format!("status: brute {:?}, dpor {:?}", b.status, d.status));
        return diffs;
    }
    for (name, r) in [("brute", b), ("dpor", d)] {
        if r.stats.duplicates != 0 {
            diffs.push(format!(
                "{name}: {} duplicate executions",
                r.stats.duplicates
            ));
        }
    }
    if b.status != Status::Ok {
        return diffs;
    }
    let mut field = |what: &str, x: String, y: String| {
        if x != y {
            diffs.push(format!("{what}: brute {x}, dpor {y}"));
        }
    };
    field(
        "state_terms",
        format!("{:?}", b.state_terms),
        format!("{:?}", d.state_terms),
    );
    field(
        "states",
        format!("{:?}", b.states),
        format!("{:?}", d.states),
    );
    field("positive", b.positive.to_string(), d.positive.to_string());
    field("negative", b.negative.to_string(), d.negative.to_string());
    field(
        "condition_holds",
        b.condition_holds.to_string(),
        d.condition_holds.to_string(),
    );
    field(
        "liveness_holds",
        b.liveness_holds.to_string(),
        d.liveness_holds.to_string(),
    );
    field(
        "executions",
        b.stats.executions.to_string(),
        d.stats.executions.to_string(),
    );
    field(
        "blocked",
        b.stats.blocked.to_string(),
        d.stats.blocked.to_string(),
    );
    field(
        "bound_hits",
        b.stats.bound_hits.to_string(),
        d.stats.bound_hits.to_string(),
    );
    diffs
}

/// Time limits of one comparison.
#[derive(Copy, Clone, Debug)]
struct Limits {
    dpor: Duration,
    brute: Duration,
    /// Do not run the reference enumerator when DPOR reached its limit (the
    /// case is skipped either way).
    quick_skip: bool,
}

/// Parses `text` and compares both explorers on it, DPOR first.
fn compare(text: &str, limits: Limits) -> Case {
    let mut case = Case {
        verdict: Verdict::Agree("ok"),
        brute: Duration::ZERO,
        dpor: Duration::ZERO,
    };
    let test = match ptxmc_frontend::parse(text) {
        Ok(t) => t,
        Err(e) => {
            case.verdict = Verdict::ParseError(e.to_string());
            return case;
        }
    };
    let start = Instant::now();
    let dpor = run(&test, Strategy::Dpor, limits.dpor);
    case.dpor = start.elapsed();
    if limits.quick_skip && matches!(&dpor, Ok(r) if matches!(r.status, Status::Limit(_))) {
        case.verdict = Verdict::Limit {
            brute: None,
            dpor: true,
        };
        return case;
    }
    let start = Instant::now();
    let brute = run(&test, Strategy::Brute, limits.brute);
    case.brute = start.elapsed();
    case.verdict = match (&brute, &dpor) {
        (Err(b), _) => Verdict::Diverge(format!("brute {b}")),
        (_, Err(d)) => Verdict::Diverge(format!("dpor {d}")),
        (Ok(b), Ok(d)) => {
            let (bl, dl) = (
                matches!(b.status, Status::Limit(_)),
                matches!(d.status, Status::Limit(_)),
            );
            if bl || dl {
                Verdict::Limit {
                    brute: Some(bl),
                    dpor: dl,
                }
            } else {
                let diffs = differences(b, d);
                if diffs.is_empty() {
                    Verdict::Agree(b.status.name())
                } else {
                    Verdict::Diverge(diffs.join("\n  "))
                }
            }
        }
    };
    case
}

/// Runs `f(i)` for `i in 0..n` on [`workers`] threads; results in index order.
fn parallel<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let results: Mutex<BTreeMap<usize, T>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..workers() {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = f(i);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(i, r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_values()
        .collect()
}

/// Tallies, prints and returns the failures (name, text, what differs).
fn summarize(
    what: &str,
    names: &[String],
    texts: &[String],
    cases: &[Case],
    elapsed: Duration,
) -> Vec<String> {
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for ((name, text), c) in names.iter().zip(texts).zip(cases) {
        let key = match &c.verdict {
            Verdict::Agree(s) => s.to_string(),
            Verdict::Limit { brute, dpor } => {
                let side = match (brute, dpor) {
                    (Some(true), true) => "both",
                    (Some(true), false) => "brute",
                    (Some(false), _) => "dpor",
                    (None, _) => "dpor, brute not run",
                };
                let brute_time = match brute {
                    Some(_) => format!("{:.2} s", c.brute.as_secs_f64()),
                    None => "not run".to_string(),
                };
                println!(
                    "SKIP (limit, {side}): {name} (brute {brute_time}, dpor {:.2} s)",
                    c.dpor.as_secs_f64()
                );
                format!("limit ({side})")
            }
            Verdict::ParseError(e) => {
                failures.push(format!("{name}: parse error: {e}\n{text}"));
                "parse error".to_string()
            }
            Verdict::Diverge(d) => {
                failures.push(format!(
                    "{name}:\n  {d}\n--- litmus ---\n{text}\n--------------"
                ));
                "DIVERGE".to_string()
            }
        };
        *statuses.entry(key).or_default() += 1;
    }
    let compared = cases
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Agree(_) | Verdict::Diverge(_)))
        .count();
    println!(
        "{what}: {} cases, {compared} compared, in {:.1} s: {statuses:?}",
        cases.len(),
        elapsed.as_secs_f64()
    );
    let total_b: f64 = cases.iter().map(|c| c.brute.as_secs_f64()).sum();
    let total_d: f64 = cases.iter().map(|c| c.dpor.as_secs_f64()).sum();
    println!("{what}: explorer time: brute {total_b:.1} s, dpor {total_d:.1} s");
    let mut slow: Vec<usize> = (0..cases.len()).collect();
    slow.sort_by(|&a, &b| cases[b].dpor.cmp(&cases[a].dpor));
    for &i in slow.iter().take(3) {
        let c = &cases[i];
        if c.dpor > Duration::from_millis(100) {
            let brute = match c.verdict {
                Verdict::Limit { brute: None, .. } => "not run".to_string(),
                _ => format!("{:.3} s", c.brute.as_secs_f64()),
            };
            println!(
                "{what}: slow dpor: {} dpor {:.3} s, brute {brute}",
                names[i],
                c.dpor.as_secs_f64(),
            );
        }
    }
    for f in &failures {
        println!("FAILURE {f}");
    }
    failures
}

/// How many of the generated programs use each feature (a sanity check of
/// the generator's mix).
fn print_coverage(texts: &[String]) {
    let features: &[(&str, &[&str])] = &[
        ("atom", &["atom."]),
        ("red", &["red."]),
        ("fence.sc", &["fence.sc"]),
        ("fence.acq_rel", &["fence.acq_rel"]),
        ("data dependency", &[", r"]),
        ("branch", &["bne ", "beq ", "goto "]),
        ("barrier", &["bar.cta"]),
        ("generic alias", &["generic aliases"]),
        ("surface", &["sust", "suld"]),
        ("proxy fence", &["fence.proxy"]),
        ("~exists", &["~exists"]),
        ("forall", &["forall"]),
    ];
    let tally: Vec<String> = features
        .iter()
        .map(|(name, pats)| {
            let k = texts
                .iter()
                .filter(|t| pats.iter().any(|p| t.contains(p)))
                .count();
            format!("{name} {k}")
        })
        .collect();
    let loops = texts.iter().filter(|t| has_backward_jump(t)).count();
    println!("generator coverage: {}, loop {loops}", tally.join(", "));
}

/// Whether a generated program jumps back to a label (a loop): a label `L:`
/// defined in a row before a row that branches to `L`.
fn has_backward_jump(text: &str) -> bool {
    let mut seen: Vec<&str> = Vec::new();
    for line in text.lines() {
        for cell in line.trim_end_matches(';').split('|').map(str::trim) {
            if let Some(label) = cell.strip_suffix(':') {
                seen.push(label);
            } else if let Some(target) = cell.rsplit(", ").next() {
                let jumps = cell.starts_with("bne ") || cell.starts_with("beq ");
                if jumps && seen.contains(&target) {
                    return true;
                }
            }
        }
    }
    false
}

#[test]
fn random_programs_agree() {
    let profile = match std::env::var("PTXMC_DIFF_PROFILE").as_deref() {
        Ok("rare") => gen::Profile::RARE,
        Ok("fence-sc") => gen::Profile::FENCE_SC,
        Ok("bar-red") => gen::Profile::BAR_RED,
        Ok("default") | Err(_) => gen::Profile::DEFAULT,
        Ok(other) => {
            panic!(
                "PTXMC_DIFF_PROFILE={other:?}: expected `default`, `rare`, `fence-sc` or `bar-red`"
            )
        }
    };
    random_agree(&profile, DEFAULT_CASES, 0);
}

/// Programs with 3-5 more `fence.sc` each ([`gen::Profile::FENCE_SC`]): the
/// Fence-SC order search (8.9.3) decides DPOR's partial graphs and every
/// complete candidate.
#[test]
fn random_fence_sc_programs_agree() {
    random_agree(&gen::Profile::FENCE_SC, DEFAULT_CASES / 4, 1_000_000);
}

/// Programs with a `bar.red` ([`gen::Profile::BAR_RED`], 8.9.4 item 2): its
/// hidden contribution stores and loads must add no execution in either explorer.
#[test]
fn random_bar_red_programs_agree() {
    random_agree(&gen::Profile::BAR_RED, DEFAULT_CASES / 4, 2_000_000);
}

/// Programs with a `.local` location (one copy per thread, PTX ISA 5.1.5).
#[test]
fn random_local_programs_agree() {
    random_agree(&gen::Profile::LOCAL, DEFAULT_CASES / 4, 4_000_000);
}

/// `cases` random programs of `profile` from seed `seed0` (or
/// `PTXMC_DIFF_CASES` from `PTXMC_DIFF_SEED`), each explored by both
/// explorers; with `PTXMC_DIFF_WRITE=DIR`, their texts are also written there
/// (`diff-SEED.litmus`) for other tools.
fn random_agree(profile: &gen::Profile, cases: usize, seed0: u64) {
    random_agree_with(&|seed| gen::generate_with(seed, profile), cases, seed0);
}

/// Random lock idioms (`gen/locks.rs`), as [`random_agree`] does.
#[test]
fn random_lock_programs_agree() {
    random_agree_with(&gen::locks::generate_lock, DEFAULT_CASES / 4, 3_000_000);
}

/// [`random_agree`] with the generator `generate` (a program per seed).
fn random_agree_with(generate: &dyn Fn(u64) -> String, cases: usize, seed0: u64) {
    let n = env_num("PTXMC_DIFF_CASES").map_or(cases, |n| n as usize);
    let seed = env_num("PTXMC_DIFF_SEED").unwrap_or(seed0);
    let timeout = Duration::from_millis(env_num("PTXMC_DIFF_TIMEOUT_MS").unwrap_or(2000));
    let start = Instant::now();
    let names: Vec<String> = (0..n)
        .map(|i| format!("seed {}", seed.wrapping_add(i as u64)))
        .collect();
    let texts: Vec<String> = (0..n)
        .map(|i| generate(seed.wrapping_add(i as u64)))
        .collect();
    if let Some(dir) = std::env::var_os("PTXMC_DIFF_WRITE") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("PTXMC_DIFF_WRITE directory");
        for (i, t) in texts.iter().enumerate() {
            let f = dir.join(format!("diff-{}.litmus", seed.wrapping_add(i as u64)));
            std::fs::write(&f, t).expect("write a generated program");
        }
    }
    let limits = Limits {
        dpor: timeout,
        brute: timeout,
        quick_skip: false,
    };
    let cases = parallel(n, |i| compare(&texts[i], limits));
    print_coverage(&texts);
    let failures = summarize(
        &format!("random (first seed {seed})"),
        &names,
        &texts,
        &cases,
        start.elapsed(),
    );
    assert!(
        failures.is_empty(),
        "{} of {n} random programs diverge (seeds above; rerun one with \
         PTXMC_DIFF_SEED=<seed> PTXMC_DIFF_CASES=1)",
        failures.len()
    );
}

#[test]
fn corpus_files_agree() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    litmus_files(&manifest.join("../corpus"), &mut files);
    let shared = manifest.join("../../shared/conformance/dat3m-ptx/litmus");
    if shared.is_dir() {
        litmus_files(&shared, &mut files);
    } else {
        println!("SKIP: shared corpus not found at {}", shared.display());
    }
    files.sort();
    // Files DPOR cannot finish in half a second are skipped without running
    // the reference enumerator (most are CADP spin tests that neither explorer
    // finishes in seconds): that keeps the test well under 90 s in release.
    let limits = Limits {
        dpor: Duration::from_millis(500),
        brute: Duration::from_secs(1),
        quick_skip: true,
    };
    let start = Instant::now();
    let names: Vec<String> = files
        .iter()
        .map(|p| {
            p.strip_prefix(&shared)
                .or_else(|_| p.strip_prefix(manifest.join("..")))
                .unwrap_or(p)
                .display()
                .to_string()
        })
        .collect();
    let texts: Vec<String> = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    // Files of `corpus/invalid/` are meant not to parse: not compared.
    let cases = parallel(files.len(), |i| {
        let mut c = compare(&texts[i], limits);
        if let Verdict::ParseError(e) = &c.verdict {
            if files[i].components().any(|c| c.as_os_str() == "invalid") {
                c.verdict = Verdict::Agree("invalid (parse error)");
            } else {
                c.verdict = Verdict::ParseError(e.clone());
            }
        }
        c
    });
    let failures = summarize("corpus", &names, &texts, &cases, start.elapsed());
    assert!(
        failures.is_empty(),
        "{} corpus files diverge (above)",
        failures.len()
    );
}

#[test]
fn regressions_agree() {
    // Only the top level: `perf/` holds programs on which DPOR is slow.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "litmus"));
    files.sort();
    let start = Instant::now();
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let texts: Vec<String> = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    let limits = Limits {
        dpor: Duration::from_secs(10),
        brute: Duration::from_secs(10),
        quick_skip: false,
    };
    let cases = parallel(files.len(), |i| compare(&texts[i], limits));
    let failures = summarize("regressions", &names, &texts, &cases, start.elapsed());
    assert!(
        failures.is_empty(),
        "{} regression files diverge (above)",
        failures.len()
    );
}
