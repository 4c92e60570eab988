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

use super::args::{BenchArgs, StrategyArg};
use super::bench_table::{cells, fmt_time, header, Measure, RunStatus};
use super::collect::litmus_files;
use super::genmc::{self, Genmc};
use super::parse_cmd::read_source;
use super::stats;
use super::svg::{self, Point, Series};
use super::{EXIT_ERROR, EXIT_MISMATCH, EXIT_OK};
use ptxmc_frontend::families::FAMILIES;
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
        .args(["--unroll", &args.unroll.to_string()])
        .args(["--model", &args.model]);
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
            wall_s: start.elapsed().as_secs_f64(),
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
    let wall_s = start.elapsed().as_secs_f64();
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
        pruned: Some(num("pruned")),
        time_s: v.get("time_s").and_then(Value::as_f64).unwrap_or(0.0),
        wall_s,
        peak_rss_kib: v.get("peak_rss_kib").and_then(Value::as_u64),
        condition_holds: v.get("condition_holds").and_then(Value::as_bool),
        liveness_holds: v.get("liveness_holds").and_then(Value::as_bool),
    })
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
    if args.repeat == 0 {
        return Err("--repeat must be at least 1".into());
    }
    // An unknown --model is refused before any child runs.
    super::models_cmd::readings(std::slice::from_ref(&args.model))?;
    let genmc = if args.no_genmc {
        None
    } else {
        genmc::locate(args.genmc.as_deref())?
    };
    let mut tools: Vec<Tool> = strategies.iter().map(|&s| Tool::Ptxmc(s)).collect();
    if genmc.is_some() {
        tools.push(Tool::Genmc);
    }
    let names: Vec<&str> = tools.iter().map(Tool::name).collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(
        out,
        "ptxmc bench: {} tests x {} strategies, -j {}, limit {} s per run, unroll {}, model {}{}",
        items.len(),
        strategies.len(),
        args.jobs,
        args.timeout,
        args.unroll,
        args.model,
        if args.repeat > 1 {
            format!(", {} runs each (tools alternating, medians)", args.repeat)
        } else {
            String::new()
        }
    );
    match &genmc {
        Some(g) => {
            let flags = if args.genmc_arg.is_empty() {
                genmc::DEFAULT_FLAGS.join(" ")
            } else {
                args.genmc_arg.join(" ")
            };
            let _ = writeln!(
                out,
                "GenMC: {} ({}), flags `{flags}`, on the C11 mirrors of the families",
                g.path.display(),
                g.version
            );
        }
        None if args.no_genmc => {}
        None => {
            let _ = writeln!(
                out,
                "GenMC: not found on PATH (give --genmc PATH to compare with it); ptxmc alone"
            );
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", header(&names));
    let _ = out.flush();

    let mut series: Vec<Series> = Vec::new();
    let mut results: Vec<(Item, Vec<Measure>)> = Vec::new();
    let (mut disagreements, mut errors) = (Vec::new(), 0usize);
    for item in &items {
        // Larger sizes of a family are skipped for a tool that reached the limit.
        let skipped: Vec<bool> = (0..tools.len())
            .map(|k| {
                !args.keep_going
                    && results.iter().any(|(it, prev)| {
                        it.family == item.family
                            && it.size < item.size
                            && matches!(it.source, Source::Family(..))
                            && matches!(item.source, Source::Family(..))
                            && prev[k].status.stopped()
                    })
            })
            .collect();
        let mirror = match (&genmc, &item.source) {
            (Some(_), Source::Family(name, n)) => genmc::mirror(name, *n),
            _ => None,
        };
        let mut runs: Vec<Vec<Measure>> = vec![Vec::new(); tools.len()];
        for _ in 0..args.repeat {
            for (k, tool) in tools.iter().enumerate() {
                if skipped[k] || runs[k].first().is_some_and(|m| m.status != RunStatus::Ok) {
                    continue;
                }
                let m = match tool {
                    Tool::Ptxmc(s) => measure(item, *s, args)?,
                    Tool::Genmc => match (&genmc, &mirror) {
                        (Some(g), Some(c)) => measure_genmc(g, c, &item.name, args),
                        _ => Measure::not_run(RunStatus::Other("no mirror".into()), None),
                    },
                };
                runs[k].push(m);
            }
        }
        let ms: Vec<Measure> = runs
            .into_iter()
            .zip(&skipped)
            .map(|(r, &skip)| {
                if skip {
                    Measure::not_run(RunStatus::Skipped, None)
                } else {
                    median(r)
                }
            })
            .collect();
        for (tool, m) in tools.iter().zip(&ms) {
            if let RunStatus::Other(st) = &m.status {
                if st == "error" || st.ends_with("error") {
                    errors += 1;
                    eprintln!(
                        "error: {} ({}): {}",
                        item.name,
                        tool.name(),
                        m.message.as_deref().unwrap_or("failed")
                    );
                }
            }
        }
        let mut row = format!("| {} | {} |", item.name, item.size);
        for m in &ms {
            for c in cells(m, args.timeout) {
                row.push_str(&format!(" {c} |"));
            }
        }
        let _ = writeln!(out, "{row}");
        let _ = out.flush();
        if let Some(d) = disagreement(&strategies, &ms[..strategies.len()]) {
            disagreements.push(format!("{}: {d}", item.name));
        }
        for (tool, m) in tools.iter().zip(&ms) {
            if let Some((p, f)) = &mut json_out {
                let line = json!({
                    "test": item.name,
                    "family": item.family,
                    "size": item.size,
                    "strategy": tool.name(),
                    "model": args.model,
                    "jobs": args.jobs,
                    "timeout_s": args.timeout,
                    "repeat": args.repeat,
                    "status": m.status.name(),
                    "message": m.message,
                    "executions": m.executions,
                    "blocked": m.blocked,
                    "pruned": m.pruned,
                    "time_s": m.time_s,
                    "wall_s": m.wall_s,
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
                let name = tool.name();
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
    ratios(&mut out, &names[..strategies.len()], &results);
    if genmc.is_some() {
        genmc_table(&mut out, &strategies, &results);
    }
    for d in &disagreements {
        let _ = writeln!(out, "DIFFER: {d}");
    }
    if let Some(path) = &args.svg {
        for se in &mut series {
            se.points.sort_by(|a, b| a.size.total_cmp(&b.size));
        }
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
fn ratios(out: &mut impl Write, strategies: &[&str], results: &[(Item, Vec<Measure>)]) {
    if strategies.len() < 2 {
        return;
    }
    let mut families: Vec<&str> = Vec::new();
    for (it, _) in results {
        if !families.contains(&it.family.as_str()) {
            families.push(&it.family);
        }
    }
    let first = strategies[0];
    let _ = writeln!(
        out,
        "Time ratio {first}/other at the largest size where every strategy finished:"
    );
    for fam in families {
        let best = results
            .iter()
            .filter(|(it, ms)| {
                it.family == fam
                    && ms[..strategies.len()]
                        .iter()
                        .all(|m| m.status == RunStatus::Ok)
            })
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
                    s,
                    fmt_time(ms[0].time_s),
                    fmt_time(m.time_s)
                )
            })
            .collect();
        let _ = writeln!(out, "  {fam} (N = {}): {}", it.size, parts.join(", "));
    }
}

/// A column group of the table: one ptxmc strategy, or GenMC.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tool {
    Ptxmc(StrategyArg),
    Genmc,
}

impl Tool {
    fn name(&self) -> &'static str {
        match self {
            Tool::Ptxmc(s) => strategy_name(*s),
            Tool::Genmc => "genmc",
        }
    }
}

/// The median of repeated runs of one (test, tool): the run of median
/// whole-process time, with the median check time (runs that did not end
/// `ok` are not repeated, so a list that is not all `ok` has one run).
fn median(mut runs: Vec<Measure>) -> Measure {
    if runs.len() <= 1 {
        return runs
            .pop()
            .unwrap_or_else(|| Measure::not_run(RunStatus::Other("not run".into()), None));
    }
    let mut times: Vec<f64> = runs.iter().map(|m| m.time_s).collect();
    times.sort_by(f64::total_cmp);
    runs.sort_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
    let mid = runs.len() / 2;
    let mut m = runs.swap_remove(mid);
    m.time_s = times[mid];
    m
}

/// One GenMC run on the mirror `c` of the test `name`.
fn measure_genmc(g: &Genmc, c: &str, name: &str, args: &BenchArgs) -> Measure {
    let r = genmc::run(g, c, name, &args.genmc_arg, args.timeout);
    let (status, message, holds) = match r.ending {
        genmc::Ending::Verified => (RunStatus::Ok, None, Some(true)),
        // GenMC stops at the first error: a failed assertion is a verdict
        // (the mirror's `forall`), any other error is not.
        genmc::Ending::Error(e) if e.contains("Safety violation") => {
            (RunStatus::Ok, Some(e), Some(false))
        }
        genmc::Ending::Error(e) => (RunStatus::Other("genmc-error".into()), Some(e), None),
        genmc::Ending::Killed => (
            RunStatus::Killed,
            Some(format!("killed at the limit ({} s)", args.timeout)),
            None,
        ),
        genmc::Ending::Failed(e) => (RunStatus::Other("genmc-error".into()), Some(e), None),
    };
    Measure {
        status,
        message,
        executions: r.executions,
        blocked: r.blocked,
        pruned: None,
        time_s: r.own_s.unwrap_or(r.wall_s),
        wall_s: r.wall_s,
        peak_rss_kib: None,
        condition_holds: holds,
        liveness_holds: None,
    }
}

/// The side-by-side table of ptxmc's last strategy and GenMC: whole-process
/// wall times (GenMC's includes compiling the C mirror, ptxmc's generating
/// the family member) and their ratio, then each tool's own time (ptxmc's
/// check, GenMC's "Total wall-clock time") and their ratio, and whether both
/// explored the same number of complete executions.
fn genmc_table(out: &mut impl Write, strategies: &[StrategyArg], results: &[(Item, Vec<Measure>)]) {
    let Some(k) = strategies.len().checked_sub(1) else {
        return;
    };
    let name = strategy_name(strategies[k]);
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "GenMC side by side (medians of the runs; `own` is ptxmc's check time and GenMC's \
         \"Total wall-clock time\"):"
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "| test | ptxmc {name} process | GenMC process | GenMC/ptxmc | ptxmc own | GenMC own | \
         GenMC/ptxmc own | executions ptxmc / GenMC | blocked ptxmc / GenMC |"
    );
    let _ = writeln!(
        out,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
    );
    for (it, ms) in results {
        let (p, g) = (&ms[k], &ms[ms.len() - 1]);
        if g.status == RunStatus::Other("no mirror".into()) {
            continue;
        }
        let both = p.status == RunStatus::Ok && g.status == RunStatus::Ok;
        let t = |m: &Measure, x: f64| match m.status {
            RunStatus::Ok => fmt_time(x),
            ref st => st.name().to_string(),
        };
        let ratio = |a: f64, b: f64| {
            if both && b > 0.0 {
                format!("{:.2}x", a / b)
            } else {
                "-".into()
            }
        };
        let same = if p.executions == g.executions {
            ""
        } else {
            " (differ)"
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} / {}{same} | {} / {} |",
            it.name,
            t(p, p.wall_s),
            t(g, g.wall_s),
            ratio(g.wall_s, p.wall_s),
            t(p, p.time_s),
            t(g, g.time_s),
            ratio(g.time_s, p.time_s),
            p.executions,
            g.executions,
            p.blocked,
            g.blocked
        );
    }
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
