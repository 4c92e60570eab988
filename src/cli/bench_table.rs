//! The table of `ptxmc bench`: how a run ended, what it measured, and how a
//! row of measures is written (Markdown cells).

use super::stats;

/// How one (test, strategy) run ended.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum RunStatus {
    /// Explored completely.
    Ok,
    /// Stopped by the explorer at the time limit (or another limit).
    Limit,
    /// Killed by `ptxmc bench` after overrunning the limit.
    Killed,
    /// Not run: a smaller size of the family reached the limit.
    Skipped,
    /// Unsupported or undefined test, or a child that failed.
    Other(String),
}

impl RunStatus {
    pub(super) fn name(&self) -> &str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Limit => "limit",
            RunStatus::Killed => "killed",
            RunStatus::Skipped => "skipped",
            RunStatus::Other(s) => s,
        }
    }

    pub(super) fn stopped(&self) -> bool {
        matches!(self, RunStatus::Limit | RunStatus::Killed)
    }
}

/// The measurement of one (test, strategy).
#[derive(Clone, Debug)]
pub(super) struct Measure {
    pub(super) status: RunStatus,
    pub(super) message: Option<String>,
    pub(super) executions: u64,
    pub(super) blocked: u64,
    /// Partial graphs discarded (`None` for a tool that does not say).
    pub(super) pruned: Option<u64>,
    /// Seconds of the check (the child's own measure; for GenMC, which
    /// does not separate it, the whole process).
    pub(super) time_s: f64,
    /// Seconds of the whole child process, as its parent saw them.
    pub(super) wall_s: f64,
    pub(super) peak_rss_kib: Option<u64>,
    pub(super) condition_holds: Option<bool>,
    pub(super) liveness_holds: Option<bool>,
}

impl Measure {
    pub(super) fn not_run(status: RunStatus, message: Option<String>) -> Measure {
        Measure {
            status,
            message,
            executions: 0,
            blocked: 0,
            pruned: None,
            time_s: 0.0,
            wall_s: 0.0,
            peak_rss_kib: None,
            condition_holds: None,
            liveness_holds: None,
        }
    }
}

/// `12.3 ms`, `1.23 s`, `456 µs`.
pub(super) fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

/// `1,234,567`.
pub(super) fn fmt_count(n: u64) -> String {
    let digits: Vec<char> = n.to_string().chars().rev().collect();
    let groups: Vec<String> = digits
        .chunks(3)
        .map(|g| g.iter().rev().collect())
        .rev()
        .collect();
    groups.join(",")
}

/// The table cells of one measure: executions, blocked, pruned partial
/// graphs, time, executions/s, peak memory, status.
pub(super) fn cells(m: &Measure, timeout: f64) -> [String; 7] {
    let dash = || "-".to_string();
    match m.status {
        RunStatus::Skipped => [
            dash(),
            dash(),
            dash(),
            dash(),
            dash(),
            dash(),
            "skipped".into(),
        ],
        RunStatus::Other(ref s) if m.time_s == 0.0 => {
            [dash(), dash(), dash(), dash(), dash(), dash(), s.clone()]
        }
        _ => {
            let stopped = m.status.stopped();
            let time = if stopped {
                format!(">{timeout} s (limit)")
            } else {
                fmt_time(m.time_s)
            };
            let rate = if m.time_s > 0.0 && !stopped {
                fmt_count((m.executions as f64 / m.time_s).round() as u64)
            } else {
                dash()
            };
            let execs = if stopped {
                format!(">={}", fmt_count(m.executions))
            } else {
                fmt_count(m.executions)
            };
            [
                execs,
                fmt_count(m.blocked),
                m.pruned.map_or_else(dash, fmt_count),
                time,
                rate,
                m.peak_rss_kib.map_or_else(dash, stats::human_kib),
                m.status.name().to_string(),
            ]
        }
    }
}

/// The table's header: a group of columns per tool (`dpor`, `genmc`, ...).
pub(super) fn header(tools: &[&str]) -> String {
    let mut h = String::from("| test | N |");
    let mut rule = String::from("| --- | ---: |");
    for s in tools {
        for col in [
            "executions",
            "blocked",
            "pruned",
            "time",
            "executions/s",
            "peak memory",
            "status",
        ] {
            h.push_str(&format!(" {s} {col} |"));
            rule.push_str(if col == "status" { " --- |" } else { " ---: |" });
        }
    }
    format!("{h}\n{rule}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_run_shows_the_limit() {
        let m = Measure {
            executions: 1234,
            pruned: Some(56_789),
            time_s: 2.01,
            peak_rss_kib: Some(2048),
            ..Measure::not_run(RunStatus::Limit, None)
        };
        let c = cells(&m, 2.0);
        assert_eq!(c[0], ">=1,234");
        assert_eq!(c[2], "56,789");
        assert_eq!(c[3], ">2 s (limit)");
        assert_eq!(c[4], "-");
        assert_eq!(c[5], "2.0 MiB");
        assert_eq!(c[6], "limit");
        let unknown = Measure {
            time_s: 0.5,
            ..Measure::not_run(RunStatus::Ok, None)
        };
        assert_eq!(
            cells(&unknown, 2.0)[2],
            "-",
            "a tool that does not count pruned graphs"
        );
    }

    #[test]
    fn counts_and_times_are_readable() {
        assert_eq!(fmt_count(0), "0");
        assert_eq!(fmt_count(999), "999");
        assert_eq!(fmt_count(3_628_800), "3,628,800");
        assert_eq!(fmt_time(0.000_25), "250 µs");
        assert_eq!(fmt_time(0.0123), "12.3 ms");
        assert_eq!(fmt_time(2.5), "2.50 s");
    }

    #[test]
    fn the_header_has_a_group_per_tool() {
        let h = header(&["dpor", "genmc"]);
        assert!(h.contains("| dpor executions |") && h.contains("| genmc status |"));
        assert_eq!(h.lines().nth(1).map(|l| l.matches("---").count()), Some(16));
    }
}
