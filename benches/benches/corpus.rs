//! (d) The batch of the whole shared conformance corpus
//! (`../shared/conformance/dat3m-ptx/litmus`, or `PTXMC_CONFORMANCE`) with
//! `Strategy::Dpor`, unroll 2 and a per-test timeout of 1 s, one test after
//! the other on one thread.
//!
//! `cargo bench -p ptxmc-benches --bench corpus`
//!
//! Not a criterion benchmark: one batch takes about a minute (most of it in
//! the tests that reach the 1 s limit), so it runs once and prints the wall
//! time, how many tests hit the limit, and the slowest tests that finished.
//! `PTXMC_BENCH_STRATEGY=brute` runs the reference enumerator instead.
//! Prints a message and exits 0 when the corpus is absent.

use ptxmc_benches::{conformance_dir, litmus_files, options};
use ptxmc_checker::{check, Status, Strategy};
use std::time::{Duration, Instant};

fn main() {
    let Some(dir) = conformance_dir() else {
        println!("corpus: SKIP: shared conformance corpus not found (../shared/conformance/dat3m-ptx/litmus)");
        return;
    };
    let strategy = match std::env::var("PTXMC_BENCH_STRATEGY").as_deref() {
        Ok("brute") => Strategy::Brute,
        _ => Strategy::Dpor,
    };
    let opts = ptxmc_checker::Options {
        unroll: 2,
        ..options(strategy, Some(Duration::from_secs(1)))
    };
    let files = litmus_files(&dir);
    let start = Instant::now();
    let (mut ok, mut limit, mut other, mut parse_errors) = (0usize, Vec::new(), 0usize, 0usize);
    let (mut executions, mut finished_time) = (0u64, Duration::ZERO);
    let mut slowest: Vec<(Duration, String, u64)> = Vec::new();
    for f in &files {
        let name = f.strip_prefix(&dir).unwrap_or(f).display().to_string();
        let Ok(test) = std::fs::read_to_string(f)
            .map_err(|e| e.to_string())
            .and_then(|s| ptxmc_frontend::parse(&s).map_err(|e| e.to_string()))
        else {
            parse_errors += 1;
            continue;
        };
        let r = check(&test, &opts);
        executions += r.stats.executions;
        match r.status {
            Status::Ok => {
                ok += 1;
                finished_time += r.time;
                slowest.push((r.time, name, r.stats.executions));
            }
            Status::Limit(_) => limit.push(name),
            _ => other += 1,
        }
    }
    let wall = start.elapsed();
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    println!(
        "corpus: {} ({strategy:?}, unroll 2, timeout 1 s per test, 1 thread)",
        dir.display()
    );
    println!(
        "corpus: {} tests in {:.2} s: {ok} ok, {} limit, {other} unsupported/undefined, {parse_errors} parse errors; {executions} executions",
        files.len(),
        wall.as_secs_f64(),
        limit.len()
    );
    println!(
        "corpus: the {ok} tests that finished took {:.2} s together",
        finished_time.as_secs_f64()
    );
    println!("corpus: slowest finished tests:");
    for (t, name, ex) in slowest.iter().take(5) {
        println!(
            "  {:8.1} ms  {ex:6} executions  {name}",
            t.as_secs_f64() * 1e3
        );
    }
    println!("corpus: tests that hit the limit:");
    for name in &limit {
        println!("  {name}");
    }
}
