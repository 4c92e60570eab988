//! `--timeout` honoured within 1.15 s for a 1 s limit (issue 15 item 4),
//! where it used not to be: one consistency check of a graph of 20,000
//! events (about 0.3 s of CPU, more on a loaded machine, never looked at the
//! clock), the parallel parts of readers-22 merged after the deadline, and
//! the library's `explain()`.
//!
//! The library's `explain()` meets the same bar without the CLI's watchdog
//! thread: its verdict check gets what is left of the limit after the
//! lowering (it used to get the whole limit again, 1.2 s on 10,000
//! locations), and the reference enumerator keeps the time it took to build
//! its paths before the deadline, for freeing them (1.3 s on a loaded
//! machine for `explain-paths` before; 2.8 s before the path enumeration
//! looked at the clock).
//!
//! Wall times on a shared machine are noisy, and these run on two cores
//! that other builds use too: each case is timed up to three times and the
//! fastest run counts. One `#[test]` runs them one after another, so that
//! they do not compete with each other.

mod common;

use common::{ptxmc, s, scratch, stdout};
use std::path::Path;
use std::time::{Duration, Instant};

/// One thread storing to 10,000 locations (`../shared/repro/locs10000.litmus`).
fn locs(n: usize) -> String {
    let mut t = String::from("PTX L10k\n{ ");
    for i in 0..n {
        t.push_str(&format!("x{i}=0; "));
    }
    t.push_str("}\n P0@cta 0,gpu 0 ;\n");
    for i in 0..n {
        t.push_str(&format!(" st.weak x{i}, 1 ;\n"));
    }
    t.push_str("exists (x0 == 1)\n");
    t
}

/// The fastest of up to three runs of `f` (fewer once one is within `bar`).
fn fastest(bar: Duration, f: &mut dyn FnMut() -> Duration) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..3 {
        best = best.min(f());
        if best <= bar {
            break;
        }
    }
    best
}

/// The bar for a 1 s limit: 1.15 s, and 50 ms more for the process start
/// and exit on a loaded machine.
const BAR: Duration = Duration::from_millis(1200);

fn run_timed(f: &Path, j: &str) -> Duration {
    let t = Instant::now();
    let o = ptxmc(&[
        "run",
        s(f),
        "--timeout",
        "1",
        "-j",
        j,
        "-q",
        "--no-progress",
    ]);
    let took = t.elapsed();
    let out = stdout(&o);
    assert!(
        out.contains("Status limit: timeout after 1.000 s"),
        "{}: {out}",
        f.display()
    );
    took
}

fn explain_timed(test: &ptxmc_frontend::ir::Test) -> Duration {
    let opts = ptxmc_checker::Options {
        timeout: Some(Duration::from_secs(1)),
        ..ptxmc_checker::Options::default()
    };
    let t = Instant::now();
    let ex = ptxmc_checker::explain(test, &test.condition.prop, &opts);
    let took = t.elapsed();
    let stopped = !matches!(ex.status, ptxmc_checker::Status::Ok) || ex.stopped.is_some();
    assert!(stopped, "{}: {:?}", test.name, ex.status);
    took
}

#[test]
fn a_one_second_limit_stops_within_the_bar() {
    let d = scratch("limits");
    let big = d.join("locs10000.litmus");
    std::fs::write(&big, locs(10_000)).expect("write");
    let readers = d.join("readers-22.litmus");
    let o = ptxmc(&["family", "readers", "22"]);
    std::fs::write(&readers, &o.stdout).expect("write");
    let mut failures = Vec::new();
    for (f, j) in [(&big, "1"), (&big, "2"), (&readers, "2")] {
        let took = fastest(BAR, &mut || run_timed(f, j));
        if took > BAR {
            failures.push(format!("run {} -j {j}: {took:?}", f.display()));
        }
    }
    let paths = include_str!("data/explain-paths.litmus");
    let text = std::fs::read_to_string(&big).expect("read");
    for src in [&text[..], paths] {
        // No process to start: 1.15 s.
        let bar = Duration::from_millis(1150);
        let test = ptxmc_frontend::parse(src).expect("parses");
        let took = fastest(bar, &mut || explain_timed(&test));
        if took > bar {
            failures.push(format!("explain() {}: {took:?}", test.name));
        }
    }
    let _ = std::fs::remove_dir_all(&d);
    assert!(failures.is_empty(), "over the bar: {failures:?}");
}
