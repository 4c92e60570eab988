//! The summary of a run or a merge: counts by status and verdict
//! ([`Totals`]), the `Explored ...` line and the statistics block.

use super::results::Record;
use super::stats;
use serde_json::Value;
use std::io::Write;

/// Counts for the summary.
#[derive(Default)]
pub struct Totals {
    /// Tests.
    pub tests: usize,
    /// By status: ok, unsupported, undefined, limit, parse-error,
    /// read-error, crash.
    pub by_status: [usize; 7],
    /// Tests whose liveness is violated.
    pub live_violations: usize,
    /// Tests whose claim (the condition's quantifier) holds.
    pub holds: usize,
    /// Tests whose claim fails.
    pub fails: usize,
    /// Tests without a verdict: not checked to the end (unsupported, limit,
    /// undefined) or not read or parsed.
    pub no_verdict: usize,
    /// Estimates (`--strategy estimate`): no verdict, no status above.
    pub estimates: usize,
    /// Executions, blocked, pruned, duplicates.
    pub executions: u64,
    /// Blocked executions.
    pub blocked: u64,
    /// Pruned candidates.
    pub pruned: u64,
    /// Duplicates.
    pub duplicates: u64,
    /// Sum of `time_ms`.
    pub time_ms: f64,
    /// Tests that could not be read or parsed, or took the process down
    /// ([`Record::is_error`]).
    pub errors: usize,
}

impl Totals {
    /// Adds up `records`.
    pub fn of(records: &[Record]) -> Totals {
        let mut t = Totals::default();
        for r in records {
            t.add(r);
        }
        t
    }

    /// Adds one record.
    pub fn add(&mut self, r: &Record) {
        let t = self;
        {
            t.tests += 1;
            t.errors += usize::from(r.is_error());
            if r.status() == "estimate" {
                // An estimate is not a verdict (`--require-ok` fails on it).
                t.estimates += 1;
                t.no_verdict += 1;
                return;
            }
            let k = match r.status() {
                "ok" => 0,
                "unsupported" => 1,
                "undefined" => 2,
                "limit" => 3,
                "parse-error" => 4,
                "crash" => 6,
                _ => 5,
            };
            t.by_status[k] += 1;
            t.live_violations +=
                usize::from(r.status() == "ok" && r.flag("liveness_holds") == Some(false));
            // Only a test checked to the end has a verdict (records written
            // before verdicts were null for other statuses say `true`/`false`).
            match (r.status(), r.flag("condition_holds")) {
                ("ok", Some(true)) => t.holds += 1,
                ("ok", Some(false)) => t.fails += 1,
                _ => t.no_verdict += 1,
            }
            t.executions += r.count("executions");
            t.blocked += r.count("blocked");
            t.pruned += r.count("pruned");
            t.duplicates += r.count("duplicates");
            t.time_ms += r
                .value
                .get("time_ms")
                .and_then(Value::as_f64)
                .unwrap_or(0.0);
        }
    }

    /// The `Summary: ...` line (crashes only when there are some).
    pub fn line(&self) -> String {
        let n = &self.by_status;
        let crashes = if n[6] > 0 {
            format!(", {} crashes", n[6])
        } else {
            String::new()
        };
        let estimates = match self.estimates {
            0 => String::new(),
            e => format!(", {e} estimates"),
        };
        format!(
            "Summary: {} tests: {} ok, {} unsupported, {} undefined, {} limit, {} parse errors, {} read errors{crashes}{estimates}; {} liveness violations",
            self.tests, n[0], n[1], n[2], n[3], n[4], n[5], self.live_violations
        )
    }

    /// The `Verdicts: ...` line: claims that hold, claims that fail, tests
    /// without a verdict, liveness violations.
    pub fn verdict_line(&self) -> String {
        format!(
            "Verdicts: {} hold, {} fail, {} without a verdict; {} liveness violations",
            self.holds, self.fails, self.no_verdict, self.live_violations
        )
    }

    /// Whether `--require-ok` passes: every test has a verdict, every claim
    /// holds and no liveness is violated.
    pub fn all_ok(&self) -> bool {
        self.fails == 0 && self.no_verdict == 0 && self.live_violations == 0
    }
}

/// Prints the `Explored ...` line of a run: `explored` executions found now
/// in `secs` of wall time (the totals count every test, resumed ones too).
pub fn explored_line(out: &mut impl Write, t: &Totals, explored: u64, secs: f64) {
    let rss = stats::peak_rss_kib();
    let _ = writeln!(
        out,
        "Explored {} executions ({} blocked, {} pruned, {} duplicates) in {:.3} s: {:.0} executions/s, peak memory {}",
        t.executions,
        t.blocked,
        t.pruned,
        t.duplicates,
        secs,
        rate(explored, secs),
        rss.map_or_else(|| "unknown".to_string(), stats::human_kib)
    );
}

fn rate(n: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        n as f64 / secs
    } else {
        0.0
    }
}

/// Prints the `--stats` block: one `stats.KEY: VALUE` line per figure, for
/// scripts (see docs/cli/run.md). Times are seconds; `parse_s`, `check_s`
/// and `output_s` are summed over worker threads (plus the printing thread's
/// time for `output_s`), so with `-j N` they can add up to N times `wall_s`.
pub fn stats_block(
    out: &mut impl Write,
    t: &Totals,
    explored: u64,
    secs: f64,
    phases: &super::outcome::Phases,
    jobs: usize,
) {
    let rows: [(&str, String); 13] = [
        ("tests", t.tests.to_string()),
        ("jobs", jobs.to_string()),
        ("executions", t.executions.to_string()),
        ("blocked", t.blocked.to_string()),
        ("pruned", t.pruned.to_string()),
        ("duplicates", t.duplicates.to_string()),
        ("explored_now", explored.to_string()),
        ("wall_s", format!("{secs:.6}")),
        ("executions_per_s", format!("{:.1}", rate(explored, secs))),
        (
            "peak_rss_kib",
            stats::peak_rss_kib().map_or_else(|| "unknown".into(), |k| k.to_string()),
        ),
        ("parse_s", format!("{:.6}", phases.parse.as_secs_f64())),
        ("check_s", format!("{:.6}", phases.check.as_secs_f64())),
        ("output_s", format!("{:.6}", phases.output.as_secs_f64())),
    ];
    for (k, v) in rows {
        let _ = writeln!(out, "stats.{k}: {v}");
    }
}
