//! How an estimate (`--strategy estimate`) is shown: never as a verdict.
//! The text block has no `Ok`/`No`, `States` or `Observation` lines; the
//! JSON line has every verdict and count field `null`, and the estimate in
//! an `estimate` object.

use ptxmc_checker::explore::estimate::Estimate;
use ptxmc_checker::Report;
use ptxmc_frontend::ir::Test;
use serde_json::{json, Value};

/// The estimate of `r`, if it is one.
pub fn of(r: &Report) -> Option<&Estimate> {
    match &r.status {
        ptxmc_checker::Status::Estimate(e) => Some(e),
        _ => None,
    }
}

/// The `estimate` object of the JSON line.
pub fn object(e: &Estimate) -> Value {
    json!({
        "executions": e.total,
        "low": e.total_low,
        "high": e.total_high,
        "complete": e.executions,
        "blocked": e.blocked,
        "pruned": e.pruned,
        "nodes": e.nodes,
        "time_s": e.time_ms as f64 / 1000.0,
        "walks": e.walks,
        "walk_s": e.walk_ms as f64 / 1000.0,
        "seed": e.seed,
    })
}

/// The text block of an estimate (after the `Test` and `Status` lines).
pub fn write_block(s: &mut Vec<u8>, test: &Test, r: &Report, e: &Estimate) {
    use std::io::Write as _;
    // Writing into a `Vec<u8>` cannot fail: the results are ignored.
    let _ = writeln!(s, "Estimate (not a verdict: no states, no Ok/No)");
    let _ = writeln!(
        s,
        "Executions about {} (95% interval {}..{}; complete {}, blocked {}, pruned {})",
        e.total, e.total_low, e.total_high, e.executions, e.blocked, e.pruned
    );
    let _ = writeln!(
        s,
        "Exhaustive time about {:.3} s on one thread ({} branching nodes)",
        e.time_ms as f64 / 1000.0,
        e.nodes
    );
    let _ = writeln!(s, "Walks {} (seed {})", e.walks, e.seed);
    let _ = writeln!(s, "Time {} {:.3}", test.name, r.time.as_secs_f64());
}
