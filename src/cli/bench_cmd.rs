//! `ptxmc bench`: run several exploration strategies on the same tests and
//! compare them side by side (a Markdown table, JSON Lines, an SVG plot).
//!
//! Each (test, strategy) runs in a child process of the same binary (the
//! hidden `ptxmc bench-one`), one at a time: its time is its own check time,
//! its peak memory the child's own peak resident set size (`VmHWM` of
//! `/proc/self/status`, read by the child when the check is done, or by the
//! parent from `/proc/PID/status` just before it kills a child that overran
//! the limit), and a run that exhausts memory or crashes cannot take the
//! others down.

use super::args::{BenchArgs, BenchOneArgs, StrategyArg};
use super::collect::litmus_files;
use super::parse_cmd::read_source;
use super::stats;
use super::svg::{self, Point, Series};
use super::{EXIT_ERROR, EXIT_MISMATCH, EXIT_OK};
use ptxmc_checker::Options;
use ptxmc_frontend::families::{generate, FAMILIES};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where a benchmarked test comes from.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    /// Family member: name and size.
    Family(String, usize),
    /// A litmus file.
    File(PathBuf),
}

/// One test of the benchmark.
#[derive(Clone, Debug)]
struct Item {
    source: Source,
    /// Shown in the table.
    name: String,
    /// The series it belongs to in the plot.
    family: String,
    /// Its x coordinate.
    size: usize,
}

/// How one (test, strategy) run ended.
#[derive(Clone, Debug, PartialEq)]
enum RunStatus {
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
    fn name(&self) -> &str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Limit => "limit",
            RunStatus::Killed => "killed",
            RunStatus::Skipped => "skipped",
            RunStatus::Other(s) => s,
        }
    }

    fn stopped(&self) -> bool {
        matches!(self, RunStatus::Limit | RunStatus::Killed)
    }
}

/// The measurement of one (test, strategy).
#[derive(Clone, Debug)]
struct Measure {
    status: RunStatus,
    message: Option<String>,
    executions: u64,
    blocked: u64,
    pruned: u64,
    /// Seconds of the check (the child's own measure).
    time_s: f64,
    peak_rss_kib: Option<u64>,
    condition_holds: Option<bool>,
    liveness_holds: Option<bool>,
}

impl Measure {
    fn not_run(status: RunStatus, message: Option<String>) -> Measure {
        Measure {
            status,
            message,
            executions: 0,
            blocked: 0,
            pruned: 0,
            time_s: 0.0,
            peak_rss_kib: None,
            condition_holds: None,
            liveness_holds: None,
        }
    }
}

fn strategy_name(s: StrategyArg) -> &'static str {
    s.0.name()
}

/// `A..B` with A <= B, or a single `N`.
fn parse_sizes(s: &str) -> Option<(usize, usize)> {
    match s.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
            (a <= b).then_some((a, b))
        }
        None => {
            let n = s.trim().parse().ok()?;
            Some((n, n))
        }
    }
}

fn family_min(name: &str) -> Option<usize> {
    FAMILIES.iter().find(|f| f.0 == name).map(|f| f.2)
}

/// Expands one command-line spec: an existing path (file or folder), a family
/// `NAME` (sizes from `--sizes`), `NAME:A..B`, `NAME:N` or `NAME-N`.
fn expand(spec: &str, default_sizes: (usize, usize)) -> Result<Vec<Item>, String> {
    let path = PathBuf::from(spec);
    if path.exists() {
        return Ok(litmus_files(&[path])?.into_iter().map(file_item).collect());
    }
    let (name, (lo, hi)) = if let Some((name, sizes)) = spec.split_once(':') {
        let r = parse_sizes(sizes).ok_or_else(|| {
            format!("`{spec}`: expected NAME:A..B or NAME:N with A <= B, found `{sizes}`")
        })?;
        (name, r)
    } else if family_min(spec).is_some() {
        (spec, default_sizes)
    } else {
        match spec.rsplit_once('-') {
            Some((name, n)) if family_min(name).is_some() => {
                let n: usize = n
                    .parse()
                    .map_err(|_| format!("`{spec}`: not a file, folder or family"))?;
                (name, (n, n))
            }
            _ => {
                return Err(format!(
                    "`{spec}`: no such file or folder, and not a family (see `ptxmc family --list`)"
                ))
            }
        }
    };
    let min = family_min(name)
        .ok_or_else(|| format!("unknown family `{name}` (see `ptxmc family --list`)"))?;
    Ok((lo.max(min)..=hi)
        .map(|n| Item {
            source: Source::Family(name.to_string(), n),
            name: format!("{name}-{n}"),
            family: name.to_string(),
            size: n,
        })
        .collect())
}

/// A file `NAME-N.litmus` is size N of the series NAME; any other file is
/// its own series, at the size of its number of threads (0 when it does not
/// parse; the child process then reports the error).
fn file_item(f: PathBuf) -> Item {
    let stem = f
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (family, size) = match stem.rsplit_once('-') {
        Some((fam, n)) if !fam.is_empty() && n.parse::<usize>().is_ok() => {
            (fam.to_string(), n.parse().unwrap_or(0))
        }
        _ => {
            let threads = read_source(&f)
                .ok()
                .and_then(|src| super::kernel_cmd::parse(&f, &src).ok())
                .map_or(0, |t| t.threads.len());
            (stem.clone(), threads)
        }
    };
    Item {
        source: Source::File(f),
        name: stem,
        family,
        size,
    }
}

/// Runs `ptxmc bench-one` for one (test, strategy) and reads its line back.
fn measure(item: &Item, strategy: StrategyArg, args: &BenchArgs) -> Result<Measure, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find ptxmc itself: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.arg("bench-one")
        .args(["--strategy", strategy_name(strategy)])
        .args(["-j", &args.jobs.to_string()])
        .args(["--timeout", &args.timeout.to_string()])
        .args(["--unroll", &args.unroll.to_string()]);
    match &item.source {
        Source::Family(name, n) => {
            cmd.args(["--family", name])
                .args(["--n", &n.to_string()])
                .args(["--scope", args.scope.name()]);
        }
        Source::File(f) => {
            cmd.arg("--file").arg(f);
        }
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start a child ptxmc: {e}"))?;
    // The explorer stops itself at the limit; a child still running well
    // after it (a phase that does not look at the clock) is killed.
    let hard = Duration::from_secs_f64(args.timeout * 2.0 + 5.0);
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if start.elapsed() > hard => break None,
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(format!("waiting for a child ptxmc: {e}")),
        }
    };
    let Some(status) = status else {
        let rss = stats::peak_rss_kib_of(child.id());
        let _ = child.kill();
        let _ = child.wait();
        return Ok(Measure {
            time_s: start.elapsed().as_secs_f64(),
            peak_rss_kib: rss,
            ..Measure::not_run(
                RunStatus::Killed,
                Some(format!(
                    "killed after {:.1} s, past the limit",
                    start.elapsed().as_secs_f64()
                )),
            )
        });
    };
    let (mut out, mut err) = (String::new(), String::new());
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let Some(line) = out.lines().find(|l| l.starts_with('{')) else {
        let why = err.lines().next().unwrap_or("no output").to_string();
        return Ok(Measure::not_run(
            RunStatus::Other("error".into()),
            Some(format!("child ptxmc ended with {status}: {why}")),
        ));
    };
    let v: Value =
        serde_json::from_str(line).map_err(|e| format!("bad line from a child ptxmc: {e}"))?;
    let num = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let st = match v.get("status").and_then(Value::as_str).unwrap_or("error") {
        "ok" => RunStatus::Ok,
        "limit" => RunStatus::Limit,
        other => RunStatus::Other(other.to_string()),
    };
    Ok(Measure {
        status: st,
        message: v.get("message").and_then(Value::as_str).map(str::to_string),
        executions: num("executions"),
        blocked: num("blocked"),
        pruned: num("pruned"),
        time_s: v.get("time_s").and_then(Value::as_f64).unwrap_or(0.0),
        peak_rss_kib: v.get("peak_rss_kib").and_then(Value::as_u64),
        condition_holds: v.get("condition_holds").and_then(Value::as_bool),
        liveness_holds: v.get("liveness_holds").and_then(Value::as_bool),
    })
}

/// `12.3 ms`, `1.23 s`, `456 µs`.
fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

/// `1,234,567`.
fn fmt_count(n: u64) -> String {
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
fn cells(m: &Measure, timeout: f64) -> [String; 7] {
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
                fmt_count(m.pruned),
                time,
                rate,
                m.peak_rss_kib.map_or_else(dash, stats::human_kib),
                m.status.name().to_string(),
            ]
        }
    }
}

fn header(strategies: &[StrategyArg]) -> String {
    let mut h = String::from("| test | N |");
    let mut rule = String::from("| --- | ---: |");
    for s in strategies {
        let s = strategy_name(*s);
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

/// Where strategies that all finished disagree: a message, or `None`.
fn disagreement(strategies: &[StrategyArg], ms: &[Measure]) -> Option<String> {
    let done: Vec<(StrategyArg, &Measure)> = strategies
        .iter()
        .copied()
        .zip(ms)
        .filter(|(_, m)| m.status == RunStatus::Ok)
        .collect();
    let (s0, m0) = done.first()?;
    for (s, m) in &done[1..] {
        let key = |m: &Measure| (m.executions, m.condition_holds, m.liveness_holds);
        if key(m) != key(m0) {
            return Some(format!(
                "{} and {} disagree: executions {} vs {}, condition {:?} vs {:?}, liveness {:?} vs {:?}",
                strategy_name(*s0),
                strategy_name(*s),
                m0.executions,
                m.executions,
                m0.condition_holds,
                m.condition_holds,
                m0.liveness_holds,
                m.liveness_holds
            ));
        }
    }
    None
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &BenchArgs) -> u8 {
    match run_checked(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_ERROR
        }
    }
}

fn run_checked(args: &BenchArgs) -> Result<u8, String> {
    if args.jobs == 0 {
        return Err("-j must be at least 1".into());
    }
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(format!(
            "--timeout expects a number of seconds > 0, found `{}`",
            args.timeout
        ));
    }
    let mut strategies: Vec<StrategyArg> = Vec::new();
    for s in &args.strategy {
        if !strategies.contains(s) {
            strategies.push(*s);
        }
    }
    let default_sizes = parse_sizes(&args.sizes)
        .ok_or_else(|| format!("--sizes expects A..B with A <= B, found `{}`", args.sizes))?;
    let mut items = Vec::new();
    for spec in &args.specs {
        items.extend(expand(spec, default_sizes)?);
    }
    if items.is_empty() {
        return Err("no test to run".into());
    }
    let mut json_out = match &args.json {
        Some(p) => Some((
            p,
            std::fs::File::create(p).map_err(|e| format!("{}: {}", p.display(), e))?,
        )),
        None => None,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(
        out,
        "ptxmc bench: {} tests x {} strategies, -j {}, limit {} s per run, unroll {}",
        items.len(),
        strategies.len(),
        args.jobs,
        args.timeout,
        args.unroll
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", header(&strategies));
    let _ = out.flush();

    let mut series: Vec<Series> = Vec::new();
    let mut results: Vec<(Item, Vec<Measure>)> = Vec::new();
    let (mut disagreements, mut errors) = (Vec::new(), 0usize);
    for item in &items {
        let mut ms = Vec::with_capacity(strategies.len());
        for &s in &strategies {
            let stopped_before = !args.keep_going
                && results.iter().any(|(it, prev)| {
                    it.family == item.family
                        && it.size < item.size
                        && matches!(it.source, Source::Family(..))
                        && matches!(item.source, Source::Family(..))
                        && prev[ms.len()].status.stopped()
                });
            let m = if stopped_before {
                Measure::not_run(RunStatus::Skipped, None)
            } else {
                measure(item, s, args)?
            };
            if let RunStatus::Other(st) = &m.status {
                if st == "error" || st.ends_with("error") {
                    errors += 1;
                    eprintln!(
                        "error: {} ({}): {}",
                        item.name,
                        strategy_name(s),
                        m.message.as_deref().unwrap_or("failed")
                    );
                }
            }
            ms.push(m);
        }
        let mut row = format!("| {} | {} |", item.name, item.size);
        for m in &ms {
            for c in cells(m, args.timeout) {
                row.push_str(&format!(" {c} |"));
            }
        }
        let _ = writeln!(out, "{row}");
        let _ = out.flush();
        if let Some(d) = disagreement(&strategies, &ms) {
            disagreements.push(format!("{}: {d}", item.name));
        }
        for (&s, m) in strategies.iter().zip(&ms) {
            if let Some((p, f)) = &mut json_out {
                let line = json!({
                    "test": item.name,
                    "family": item.family,
                    "size": item.size,
                    "strategy": strategy_name(s),
                    "jobs": args.jobs,
                    "timeout_s": args.timeout,
                    "status": m.status.name(),
                    "message": m.message,
                    "executions": m.executions,
                    "blocked": m.blocked,
                    "pruned": m.pruned,
                    "time_s": m.time_s,
                    "executions_per_s": if m.time_s > 0.0 { m.executions as f64 / m.time_s } else { 0.0 },
                    "peak_rss_kib": m.peak_rss_kib,
                    "condition_holds": m.condition_holds,
                    "liveness_holds": m.liveness_holds,
                });
                if let Err(e) = writeln!(f, "{line}") {
                    return Err(format!("{}: {}", p.display(), e));
                }
            }
            if matches!(
                m.status,
                RunStatus::Ok | RunStatus::Limit | RunStatus::Killed
            ) {
                let point = Point {
                    size: item.size as f64,
                    time_s: if m.status.stopped() {
                        args.timeout
                    } else {
                        m.time_s
                    },
                    executions: m.executions,
                    limited: m.status.stopped(),
                };
                let name = strategy_name(s);
                match series
                    .iter_mut()
                    .find(|se| se.family == item.family && se.strategy == name)
                {
                    Some(se) => se.points.push(point),
                    None => series.push(Series {
                        family: item.family.clone(),
                        strategy: name.to_string(),
                        points: vec![point],
                    }),
                }
            }
        }
        results.push((item.clone(), ms));
    }
    let _ = writeln!(out);
    ratios(&mut out, &strategies, &results);
    for d in &disagreements {
        let _ = writeln!(out, "DIFFER: {d}");
    }
    if let Some(path) = &args.svg {
        for se in &mut series {
            se.points.sort_by(|a, b| a.size.total_cmp(&b.size));
        }
        let names: Vec<&str> = strategies.iter().map(|s| strategy_name(*s)).collect();
        let title = format!(
            "ptxmc bench: {} (-j {}, limit {} s)",
            names.join(" vs "),
            args.jobs,
            args.timeout
        );
        std::fs::write(path, svg::plot(&title, &series, args.timeout))
            .map_err(|e| format!("{}: {}", path.display(), e))?;
        let _ = writeln!(out, "Plot: {}", path.display());
    }
    Ok(if errors > 0 {
        EXIT_ERROR
    } else if !disagreements.is_empty() {
        EXIT_MISMATCH
    } else {
        EXIT_OK
    })
}

/// Per family: the time of the first strategy over each other one at the
/// largest size where all of them finished.
fn ratios(out: &mut impl Write, strategies: &[StrategyArg], results: &[(Item, Vec<Measure>)]) {
    if strategies.len() < 2 {
        return;
    }
    let mut families: Vec<&str> = Vec::new();
    for (it, _) in results {
        if !families.contains(&it.family.as_str()) {
            families.push(&it.family);
        }
    }
    let first = strategy_name(strategies[0]);
    let _ = writeln!(
        out,
        "Time ratio {first}/other at the largest size where every strategy finished:"
    );
    for fam in families {
        let best = results
            .iter()
            .filter(|(it, ms)| it.family == fam && ms.iter().all(|m| m.status == RunStatus::Ok))
            .max_by_key(|(it, _)| it.size);
        let Some((it, ms)) = best else {
            let _ = writeln!(out, "  {fam}: no size where every strategy finished");
            continue;
        };
        let parts: Vec<String> = strategies[1..]
            .iter()
            .zip(&ms[1..])
            .map(|(s, m)| {
                let r = if m.time_s > 0.0 {
                    ms[0].time_s / m.time_s
                } else {
                    f64::INFINITY
                };
                format!(
                    "{first}/{} = {r:.2}x ({} vs {})",
                    strategy_name(*s),
                    fmt_time(ms[0].time_s),
                    fmt_time(m.time_s)
                )
            })
            .collect();
        let _ = writeln!(out, "  {fam} (N = {}): {}", it.size, parts.join(", "));
    }
}

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
    let opts = Options {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_expand_to_family_members() {
        let names = |v: Vec<Item>| v.into_iter().map(|i| i.name).collect::<Vec<_>>();
        assert_eq!(
            names(expand("readers", (2, 3)).expect("family")),
            ["readers-2", "readers-3"]
        );
        assert_eq!(
            names(expand("sb:1..3", (9, 9)).expect("range")),
            ["sb-2", "sb-3"],
            "sizes below the family's minimum are dropped"
        );
        assert_eq!(
            names(expand("writers-4", (2, 3)).expect("one")),
            ["writers-4"]
        );
        assert_eq!(
            names(expand("sb-fence-sc", (2, 2)).expect("hyphenated family")),
            ["sb-fence-sc-2"]
        );
        assert!(expand("no-such-thing", (2, 3)).is_err());
        assert!(expand("readers:5..2", (2, 3)).is_err());
    }

    #[test]
    fn files_named_like_family_members_form_a_series() {
        let it = file_item(PathBuf::from("d/counter-5.litmus"));
        assert_eq!((it.family.as_str(), it.size), ("counter", 5));
        let it = file_item(PathBuf::from("d/no-such-MP+rel+acq.litmus"));
        assert_eq!((it.family.as_str(), it.size), ("no-such-MP+rel+acq", 0));
        let mp = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/spec/8.10.6-mp.litmus");
        let it = file_item(mp);
        assert_eq!((it.family.as_str(), it.size), ("8.10.6-mp", 2));
    }

    #[test]
    fn a_stopped_run_shows_the_limit() {
        let m = Measure {
            executions: 1234,
            pruned: 56_789,
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
    fn strategies_that_finished_must_agree() {
        let ok = |n| Measure {
            executions: n,
            ..Measure::not_run(RunStatus::Ok, None)
        };
        let both = StrategyArg::all();
        assert!(disagreement(&both, &[ok(4), ok(4)]).is_none());
        assert!(disagreement(&both, &[ok(4), ok(5)]).is_some());
        let stopped = Measure::not_run(RunStatus::Limit, None);
        assert!(disagreement(&both, &[stopped, ok(5)]).is_none());
    }
}
