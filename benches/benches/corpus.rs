//! (d) The batch of the whole shared conformance corpus
//! (`../shared/conformance/dat3m-ptx/litmus`, or `PTXMC_CONFORMANCE`) with
//! `Strategy::Dpor`, unroll 2, as `ptxmc run DIR -j N` checks it: a criterion
//! group `corpus` with one benchmark, `batch/dpor-jN`, whose iteration is the
//! whole batch (parsing excluded: the tests are parsed once before).
//!
//! `cargo bench -p ptxmc-benches --bench corpus`
//!
//! N is `PTXMC_BENCH_JOBS` (default: all cores). The tests are shared out as
//! `ptxmc run` shares them (`src/cli/run_cmd.rs`): with more tests than
//! threads, N workers take the next test from a shared counter and check it
//! inside their own one-thread rayon pool, so that the explorer does not
//! split it. One iteration takes seconds, so the group uses criterion's
//! smallest sample size (10) and `PTXMC_BENCH_SECS` seconds of measurement
//! (default 20; criterion says when 10 samples need longer).
//! `PTXMC_BENCH_STRATEGY=brute` measures the reference enumerator instead.
//! Before measuring, one batch is run and summarised (statuses, executions,
//! the slowest tests). Prints a `SKIP` message and measures nothing when the
//! corpus is absent.

use criterion::{criterion_group, criterion_main, Criterion};
use ptxmc_benches::{conformance_dir, litmus_files, options};
use ptxmc_checker::{check, Options, Report, Status, Strategy};
use ptxmc_frontend::ir::Test;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Checks every test on `jobs` workers; returns the reports in test order.
fn batch(tests: &[(String, Test)], opts: &Options, jobs: usize) -> Vec<Option<Report>> {
    let next = AtomicUsize::new(0);
    let reports: Mutex<Vec<Option<Report>>> = Mutex::new(vec![None; tests.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let work = || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((_, t)) = tests.get(i) else { break };
                    let r = check(t, opts);
                    if let Ok(mut all) = reports.lock() {
                        all[i] = Some(r);
                    }
                };
                match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
                    Ok(pool) => pool.install(work),
                    // No pool: the explorer then splits tests across the
                    // global pool, which is slower but gives the same results.
                    Err(_) => work(),
                }
            });
        }
    });
    reports.into_inner().unwrap_or_default()
}

fn corpus(c: &mut Criterion) {
    let Some(dir) = conformance_dir() else {
        println!(
            "corpus: SKIP: shared conformance corpus not found \
             (../shared/conformance/dat3m-ptx/litmus or PTXMC_CONFORMANCE)"
        );
        return;
    };
    let strategy = std::env::var("PTXMC_BENCH_STRATEGY")
        .ok()
        .and_then(|s| s.parse::<Strategy>().ok())
        .unwrap_or(Strategy::Dpor);
    let jobs = std::env::var("PTXMC_BENCH_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .filter(|&j: &usize| j > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let secs = std::env::var("PTXMC_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20u64);
    let opts = Options {
        unroll: 2,
        ..options(strategy, None)
    };
    let mut tests = Vec::new();
    let mut parse_errors = 0usize;
    for f in litmus_files(&dir) {
        let name = f.strip_prefix(&dir).unwrap_or(&f).display().to_string();
        match std::fs::read_to_string(&f)
            .map_err(|e| e.to_string())
            .and_then(|s| ptxmc_frontend::parse(&s).map_err(|e| e.to_string()))
        {
            Ok(t) => tests.push((name, t)),
            Err(_) => parse_errors += 1,
        }
    }
    // One batch first: what is being measured.
    let start = std::time::Instant::now();
    let reports = batch(&tests, &opts, jobs);
    let wall = start.elapsed();
    let (mut ok, mut other, mut executions) = (0usize, 0usize, 0u64);
    let mut slowest: Vec<(Duration, &str, u64)> = Vec::new();
    for ((name, _), r) in tests.iter().zip(&reports) {
        let Some(r) = r else { continue };
        executions += r.stats.executions;
        if r.status == Status::Ok {
            ok += 1;
        } else {
            other += 1;
        }
        slowest.push((r.time, name, r.stats.executions));
    }
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    println!(
        "corpus: {} ({strategy:?}, unroll 2, {jobs} workers): {} tests, {ok} ok, {other} not ok, \
         {parse_errors} parse errors, {executions} executions; one batch {:.2} s",
        dir.display(),
        tests.len(),
        wall.as_secs_f64()
    );
    for (t, name, ex) in slowest.iter().take(5) {
        println!(
            "  {:8.1} ms  {ex:6} executions  {name}",
            t.as_secs_f64() * 1e3
        );
    }

    let mut g = c.benchmark_group("corpus");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(secs));
    let id = format!("batch/{}-j{jobs}", strategy.name());
    g.bench_function(id, |b| {
        b.iter(|| {
            batch(&tests, &opts, jobs)
                .iter()
                .flatten()
                .map(|r| r.stats.executions)
                .sum::<u64>()
        })
    });
    g.finish();
}

criterion_group!(benches, corpus);
criterion_main!(benches);
