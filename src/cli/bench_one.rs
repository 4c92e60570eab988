//! `ptxmc bench-one` (hidden): the child side of `ptxmc bench`. It checks one
//! test (a family member or a file) with one strategy and prints one JSON line
//! (status, counts, verdicts, check time, this process's peak resident set
//! size), so that each measurement is a process of its own.

use super::args::BenchOneArgs;
use super::parse_cmd::read_source;
use super::stats;
use super::EXIT_OK;
use ptxmc_checker::Options;
use ptxmc_frontend::families::generate;
use serde_json::{json, Value};
use std::time::Duration;

/// `ptxmc bench-one`: check one test and print one JSON line (status,
/// counts, check time, peak RSS of this process).
pub fn run_one(args: &BenchOneArgs) -> u8 {
    let line = match one(args) {
        Ok(v) => v,
        Err((status, message)) => json!({"status": status, "message": message}),
    };
    println!("{line}");
    EXIT_OK
}

fn one(args: &BenchOneArgs) -> Result<Value, (&'static str, String)> {
    let src = match (&args.family, &args.file) {
        (Some(name), None) => {
            let scope = args.scope.name();
            generate(name, args.n, scope).ok_or(("error", format!("unknown family `{name}`")))?
        }
        (None, Some(f)) => read_source(f).map_err(|e| ("read-error", e))?,
        _ => return Err(("error", "give --family NAME --n N, or --file PATH".into())),
    };
    let test = match &args.file {
        Some(f) => super::kernel_cmd::parse(f, &src)
            .map_err(|e| ("parse-error", e.render(&f.display().to_string(), &src)))?,
        None => ptxmc_frontend::parse(&src).map_err(|e| ("parse-error", e.to_string()))?,
    };
    let timeout = match args.timeout {
        Some(t) => Some(
            Duration::try_from_secs_f64(t)
                .map_err(|_| ("error", format!("bad --timeout `{t}`")))?,
        ),
        None => None,
    };
    let reading = super::models_cmd::readings(std::slice::from_ref(&args.model))
        .map_err(|e| ("error", e))?
        .first()
        .copied()
        .unwrap_or_default();
    let opts = Options {
        reading,
        strategy: args.strategy.0,
        unroll: args.unroll,
        timeout,
        ..Options::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.max(1))
        .build()
        .map_err(|e| ("error", format!("cannot start worker threads: {e}")))?;
    let report = pool.install(|| ptxmc_checker::check(&test, &opts));
    let message = report.status.message();
    // An estimate's columns are its estimated counts (status `estimate`).
    let (executions, blocked, pruned) = match super::estimate_view::of(&report) {
        Some(e) => (e.executions, e.blocked, e.pruned),
        None => (
            report.stats.executions,
            report.stats.blocked,
            report.stats.pruned,
        ),
    };
    Ok(json!({
        "status": report.status.name(),
        "message": message,
        "threads": test.threads.len(),
        "executions": executions,
        "blocked": blocked,
        "pruned": pruned,
        // Verdicts only for a test checked to the end (null otherwise).
        "condition_holds": report.verdict(),
        "liveness_holds": report.liveness_verdict(),
        "time_s": report.time.as_secs_f64(),
        "peak_rss_kib": stats::peak_rss_kib(),
    }))
}
