//! `ptxmc run`: check every test, print herd-style blocks, a summary, JSON
//! Lines, pictures, and the comparison with expectation files.
//!
//! Tests run on worker threads ([`spawn_workers`]) and come back over a
//! channel as each finishes: the JSON line is appended and handed to the OS
//! within one poll interval ([`POLL`], a few milliseconds), so a killed run
//! keeps what it finished and `--resume` skips it; the text blocks are
//! printed in file order, so the output does not depend on `-j`. At the end
//! the JSON file is rewritten sorted by file path, so that it too is the same
//! for every `-j`, shard split or resumption (apart from `time_ms`).

use super::args::RunArgs;
use super::collect::{self, normalise};
use super::graph::{GraphResult, GraphSetup};
use super::outcome::{Outcome, OutcomeKind, Phases};
use super::parse_cmd::read_source;
use super::progress::Progress;
use super::results::{self, Record};
use super::sink::{self, Lock, Markers, Sink, SINK_BUFFER};
use super::totals::{self, Totals};
use super::{herd, json, EXIT_ERROR, EXIT_MISMATCH, EXIT_OK};
use ptxmc_checker::{Options, Reading, Status};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn options(args: &RunArgs, timeout: Option<Duration>, reading: Reading) -> Options {
    Options {
        reading,
        strategy: args.strategy.0,
        unroll: args.unroll,
        max_executions: args.max_executions,
        timeout,
        check_duplicates: args.check_duplicates,
        seed: args.seed,
        witness: args.graph.is_some(),
    }
}

/// How often the printing thread looks for finished tests.
const POLL: Duration = Duration::from_millis(2);

/// A finished test, as the worker hands it back: everything the printing
/// thread needs is already rendered, so that it does little per test.
struct Done {
    /// Index in the list of tests to check.
    index: usize,
    /// What to print, in file order.
    printed: Printed,
    /// The fields the summary needs, and the JSON line when the run writes
    /// one.
    record: Record,
    graph: GraphResult,
    /// Time spent in each phase of this test on its worker.
    phases: Phases,
}

/// The text of one test for stdout and stderr.
#[derive(Default)]
struct Printed {
    out: Vec<u8>,
    err: String,
}

/// What every test of a run is checked and reported with.
#[derive(Clone, Copy)]
struct Job<'a> {
    opts: &'a Options,
    /// Where pictures go (`--graph`).
    graph: Option<&'a GraphSetup>,
    /// `--quiet`: print only tests whose status is not `ok`.
    quiet: bool,
    /// Whether JSON lines are written (`--json` or `--resume`).
    json: bool,
    /// Paths found unreadable while collecting files, with the error.
    unreadable: &'a HashMap<PathBuf, String>,
    /// Where each test is marked as started before it is checked.
    markers: Option<&'a Markers>,
    /// `--split K/N` (`split_parts.rs`).
    split: Option<(u32, u32)>,
    /// Threads, when a long check is warned about first (`long_run.rs`).
    warn_long: Option<usize>,
}

fn check_file(index: usize, file: &Path, job: Job<'_>) -> Done {
    let Job {
        opts,
        graph,
        quiet,
        json,
        unreadable,
        markers,
        split,
        warn_long,
    } = job;
    if let Some(m) = markers {
        m.start(file);
    }
    let mut phases = Phases::default();
    let t0 = Instant::now();
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut graph_result = GraphResult::NoWitness;
    let source = match unreadable.get(file) {
        Some(e) => Err(format!("{}: {}", file.display(), e)),
        None => read_source(file),
    };
    let outcome = match source {
        Err(message) => Outcome {
            file: file.to_path_buf(),
            name,
            kind: OutcomeKind::Error {
                status: "read-error",
                message,
            },
        },
        Ok(src) => match super::kernel_cmd::parse(file, &src) {
            Err(e) => Outcome {
                file: file.to_path_buf(),
                name,
                kind: OutcomeKind::Error {
                    status: "parse-error",
                    message: e.render(&file.display().to_string(), &src),
                },
            },
            Ok(test) if split.is_some() => {
                // --split: a part of the exploration (`split_parts.rs`).
                let (k, n) = split.unwrap_or((1, 1));
                let t1 = Instant::now();
                phases.parse = t1 - t0;
                let (line, out) = super::split_parts::check(file, &src, &test, opts, k, n);
                phases.check = t1.elapsed();
                let value = serde_json::from_str(&line).unwrap_or_default();
                return Done {
                    index,
                    record: Record::fresh(value, if json { line } else { String::new() }),
                    printed: Printed {
                        out,
                        err: String::new(),
                    },
                    graph: graph_result,
                    phases,
                };
            }
            Ok(test) => {
                let t1 = Instant::now();
                phases.parse = t1 - t0;
                if let Some(w) =
                    warn_long.and_then(|j| super::long_run::warning(file, &test, opts, j))
                {
                    eprintln!("{w}");
                }
                let mut report = ptxmc_checker::check(&test, opts);
                phases.check = t1.elapsed();
                if let Some(g) = graph {
                    graph_result = g.write(file, &test, &src, &report);
                }
                // The picture is written; do not keep the execution around.
                report.witness = None;
                Outcome {
                    file: file.to_path_buf(),
                    name: test.name.clone(),
                    kind: OutcomeKind::Checked {
                        test: Box::new(test),
                        report,
                    },
                }
            }
        },
    };
    if phases.check.is_zero() {
        // Not parsed: all of it was reading and parsing.
        phases.parse = t0.elapsed();
    }
    // The JSON line only when it is written: for a test with many final
    // states it is most of the output work.
    let mut line = if json {
        json::with_model(json::outcome_line(&outcome), opts.reading.name)
    } else {
        String::new()
    };
    if let (Some((k, n)), true) = (split, json) {
        line = super::split_parts::error_line(&line, opts, k, n);
    }
    let record = Record::fresh(json::summary(&outcome), line);
    let printed = print_outcome(&outcome, quiet);
    // Output: the picture (written after the check), the record, the text.
    phases.output = t0.elapsed().saturating_sub(phases.parse + phases.check);
    Done {
        index,
        record,
        printed,
        graph: graph_result,
        phases,
    }
}

/// `K/N` with 1 <= K <= N.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    super::split_parts::k_of_n("--shard", s, usize::MAX)
}

/// Seconds given on the command line: finite and not negative.
fn seconds(flag: &str, v: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(v)
        .map_err(|_| format!("{flag} expects a number of seconds >= 0, found `{v}`"))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Refuses to resume from (and so truncate or rewrite) a file that is not
/// ptxmc's JSON Lines: one with content but no record, or whose records
/// lack a `status`.
fn refuse_foreign(path: &Path, l: &results::Loaded) -> Result<(), String> {
    let empty = std::fs::metadata(path)
        .map(|m| m.len() == 0)
        .unwrap_or(true);
    if l.foreign || (l.count == 0 && !empty && l.dropped_tail) {
        return Err(format!(
            "{}: not a ptxmc results file (JSON Lines of `ptxmc run --json`); left as it is",
            path.display()
        ));
    }
    Ok(())
}

/// The results of a previous run (`--resume`), each handed to `previous`
/// as it is read, and the file to stream to.
fn open_results(args: &RunArgs, previous: &mut dyn FnMut(Record)) -> Result<Option<Sink>, String> {
    let err = |p: &Path, e: std::io::Error| format!("{}: {}", p.display(), e);
    let Some(resume) = &args.resume else {
        return match &args.json {
            None => Ok(None),
            Some(p) => {
                let file = File::create(p).map_err(|e| err(p, e))?;
                Ok(Some(Sink {
                    path: p.clone(),
                    file,
                    failed: false,
                    buf: Vec::new(),
                }))
            }
        };
    };
    let (good_len, dropped) = if resume.exists() {
        let l = results::load_each(resume, previous)?;
        refuse_foreign(resume, &l)?;
        (l.good_len, l.dropped_tail)
    } else {
        (0, false)
    };
    if dropped && !args.quiet {
        eprintln!(
            "resume: {}: dropped a truncated last line",
            resume.display()
        );
    }
    let out = args.json.clone().unwrap_or_else(|| resume.clone());
    let file = if same_file(&out, resume) {
        let mut f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&out)
            .map_err(|e| err(&out, e))?;
        f.set_len(good_len).map_err(|e| err(&out, e))?;
        f.seek(SeekFrom::End(0)).map_err(|e| err(&out, e))?;
        if good_len > 0 {
            // The last byte only: the file can be gigabytes.
            let mut last = [0u8; 1];
            f.seek(SeekFrom::Start(good_len - 1))
                .and_then(|_| std::io::Read::read_exact(&mut f, &mut last))
                .and_then(|()| f.seek(SeekFrom::End(0)))
                .map_err(|e| err(&out, e))?;
            if last[0] != b'\n' {
                f.write_all(b"\n").map_err(|e| err(&out, e))?;
            }
        }
        f
    } else {
        // The intact part of the previous file, copied as it is: its lines
        // are not held (the records are slim).
        let mut f = File::create(&out).map_err(|e| err(&out, e))?;
        let mut src = File::open(resume).map_err(|e| err(resume, e))?;
        std::io::copy(&mut std::io::Read::take(&mut src, good_len), &mut f)
            .map_err(|e| err(&out, e))?;
        if good_len > 0 {
            f.write_all(b"\n").map_err(|e| err(&out, e))?;
        }
        f
    };
    Ok(Some(Sink {
        path: out,
        file,
        failed: false,
        buf: Vec::new(),
    }))
}

/// The block of one finished test (or its error).
fn print_outcome(o: &Outcome, quiet: bool) -> Printed {
    let mut p = Printed::default();
    match &o.kind {
        OutcomeKind::Error { message, .. } => p.err = format!("{message}\n"),
        OutcomeKind::Checked { test, report } => {
            if !quiet {
                herd::write_block(&mut p.out, test, report);
                p.out.push(b'\n');
            } else if let Status::Estimate(e) = &report.status {
                p.out = format!("{}: Estimate {e}\n", o.file.display()).into_bytes();
            } else if report.status != Status::Ok {
                // The second line of the block: for a status other than
                // `ok` it is in the header (the `Status` line).
                let mut header = Vec::new();
                herd::write_header(&mut header, test, report);
                let header = String::from_utf8_lossy(&header);
                p.out = format!(
                    "{}: {}\n",
                    o.file.display(),
                    header.lines().nth(1).unwrap_or_default()
                )
                .into_bytes();
            }
        }
    }
    p
}

/// Prints `text` on stdout (without garbling the progress bar) and empties it.
fn emit(progress: &Progress, text: &mut Vec<u8>) {
    if text.is_empty() {
        return;
    }
    progress.suspend(|| {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text);
        let _ = out.flush();
    });
    if text.capacity() > 4 * SINK_BUFFER {
        // A block of a test with many final states: do not keep its size.
        *text = Vec::new();
    } else {
        text.clear();
    }
}

/// The number of worker threads when `-j` is not given: all cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Starts the workers that check `todo` and send each result over `tx`.
///
/// With more tests than threads, each of the `jobs` workers takes the next
/// test from a shared counter and checks it inside its own one-thread rayon
/// pool, so `rayon::current_num_threads()` is 1 in the explorer and it does
/// not split a test into parts: parallelism comes from the batch, and no test
/// pays for forking graphs and merging outcomes (profiled in
/// docs/performance.md). With at most as many tests as threads, the tests run
/// on one shared pool of `jobs` threads and the DPOR explorer splits each
/// test across it ([`rayon::join`]). Either way the per-test `--timeout` is
/// the explorer's own, and results are the same for every `-j`.
fn spawn_workers<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    todo: &'env [&'env PathBuf],
    jobs: usize,
    job: Job<'env>,
    tx: mpsc::Sender<Done>,
) -> Result<(), String> {
    let start_err = |e: rayon::ThreadPoolBuildError| format!("cannot start worker threads: {e}");
    if todo.len() <= jobs {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(start_err)?;
        scope.spawn(move || {
            pool.install(|| {
                todo.par_iter().enumerate().for_each_with(tx, |tx, (i, f)| {
                    let _ = tx.send(check_file(i, f, job));
                })
            })
        });
        return Ok(());
    }
    let next = std::sync::Arc::new(AtomicUsize::new(0));
    for _ in 0..jobs {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(start_err)?;
        let (tx, next) = (tx.clone(), next.clone());
        scope.spawn(move || {
            // One `install` for the whole loop: the loop runs on the pool's
            // thread, so each test costs no hand-over between threads.
            pool.install(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(f) = todo.get(i) else { break };
                if tx.send(check_file(i, f, job)).is_err() {
                    break;
                }
            })
        });
    }
    Ok(())
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &RunArgs) -> u8 {
    match run_checked(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_ERROR
        }
    }
}

/// The most worker threads per core `-j` may ask for: more only adds
/// memory (a pool and a graph per thread) and switching between them.
const JOBS_PER_CORE: usize = 4;

/// `-j N` capped at [`JOBS_PER_CORE`] times the available parallelism, with
/// a message when it is.
fn capped_jobs(asked: Option<usize>, quiet: bool) -> Result<usize, String> {
    let cores = default_jobs();
    match asked {
        None => Ok(cores),
        Some(0) => Err("-j must be at least 1".into()),
        Some(n) if n > JOBS_PER_CORE * cores => {
            let cap = JOBS_PER_CORE * cores;
            if !quiet {
                eprintln!("-j {n}: capped to {cap} ({JOBS_PER_CORE} per available core)");
            }
            Ok(cap)
        }
        Some(n) => Ok(n),
    }
}

fn run_checked(args: &RunArgs) -> Result<u8, String> {
    let collected = collect::collect(&args.paths)?;
    let unreadable: HashMap<PathBuf, String> = collected.unreadable.iter().cloned().collect();
    let mut all_files = collected.files;
    if !unreadable.is_empty() {
        // Each is checked as a file that cannot be read: a `read-error`
        // record naming it, and the batch goes on.
        all_files.extend(unreadable.keys().cloned());
        all_files.sort();
        all_files.dedup();
    }
    let rows = results::read_expectations(&args.expect)?;
    let jobs = capped_jobs(args.jobs, args.quiet)?;
    let timeout = args.timeout.map(|t| seconds("--timeout", t)).transpose()?;
    super::limits::set_max_memory(args.max_memory.as_deref())?;
    let interval = seconds("--progress-interval", args.progress_interval)?;
    let files: Vec<PathBuf> = match &args.shard {
        None => all_files.clone(),
        Some(s) => {
            let (k, n) = parse_shard(s)?;
            all_files
                .iter()
                .enumerate()
                .filter(|(i, _)| i % n == k - 1)
                .map(|(_, f)| f.clone())
                .collect()
        }
    };
    let graph = match &args.graph {
        Some(dir) => Some(GraphSetup::new(dir, &all_files)?),
        None => None,
    };
    let readings = super::models_cmd::readings(&args.model)?;
    let split = super::split_parts::of(args, readings.len())?;
    if readings.len() > 1 {
        let opts = options(args, timeout, Reading::SPEC);
        return Ok(super::models_cmd::compare(&files, &readings, &opts, jobs));
    }
    let opts = options(args, timeout, readings.first().copied().unwrap_or_default());
    // The lock first: nothing is truncated or rewritten under another run.
    let target = args.json.as_ref().or(args.resume.as_ref());
    let lock = target.map(|p| Lock::take(p)).transpose()?;
    if let Some(p) = target {
        let n = sink::clean_stale_tmp(p);
        if n > 0 && !args.quiet {
            eprintln!(
                "removed {n} temporary files left by killed runs beside {}",
                p.display()
            );
        }
    }
    // Records are matched by normalised path (`./fam/a`, `fam//a` and
    // `fam/a` are one test); `read-error` records are checked again. Each
    // previous record is looked at as it is read: added to the summary,
    // its file noted, and kept only for the expectations (memory per test
    // otherwise: its path).
    let selected: HashSet<String> = files.iter().map(|f| f.display().to_string()).collect();
    let keep_records = !rows.is_empty();
    let mut totals = Totals::default();
    let mut previous: Vec<Record> = Vec::new();
    let mut have: HashSet<String> = HashSet::new();
    // The indices (in the results file) of the records checked again: left
    // out when the file is rewritten.
    let mut superseded: HashSet<usize> = HashSet::new();
    let mut n_previous = 0usize;
    let mut sink = open_results(args, &mut |r: Record| {
        let at = n_previous + superseded.len();
        let key = normalise(Path::new(&r.file)).display().to_string();
        if r.status() == "read-error" && selected.contains(&key) {
            superseded.insert(at);
            return;
        }
        n_previous += 1;
        totals.add(&r);
        have.insert(key);
        if keep_records {
            previous.push(r);
        }
    })?;
    // Tests a previous run started but never recorded: checked again alone.
    let started: HashSet<String> = match &args.resume {
        Some(r) => sink::Markers::read(r)
            .into_iter()
            .map(|f| normalise(Path::new(&f)).display().to_string())
            .collect(),
        None => HashSet::new(),
    };
    let markers = match &sink {
        Some(s) => Some(Markers::open(&s.path, args.resume.is_some())?),
        None => None,
    };
    let mut todo: Vec<&PathBuf> = Vec::with_capacity(files.len());
    let mut rechecked: Vec<Record> = Vec::new();
    for f in &files {
        let key = f.display().to_string();
        if have.contains(&key) {
            continue;
        }
        if started.contains(&key) {
            if let (Some(m), Some(r)) = (&markers, &args.resume) {
                m.start(f);
                let rec = super::crash::recheck(f, args, r);
                eprintln!(
                    "resume: {}: the previous run ended while checking it; checked again alone: {}",
                    key,
                    rec.status()
                );
                rechecked.push(rec);
                continue;
            }
        }
        todo.push(f);
    }
    if let Some(s) = &mut sink {
        for r in &rechecked {
            s.append(&r.line);
        }
        s.flush();
    }
    for r in rechecked {
        totals.add(&r);
        n_previous += 1;
        if keep_records {
            previous.push(r);
        }
    }
    let mut progress = Progress::new(todo.len(), !args.quiet && !args.no_progress, interval);

    let stdout = std::io::stdout();
    let start = Instant::now();
    let mut new_records: Vec<Record> = Vec::new();
    let mut pending: BTreeMap<usize, Printed> = BTreeMap::new();
    // Blocks ready to print, in file order, not printed yet.
    let mut text: Vec<u8> = Vec::new();
    let mut next = 0usize;
    let (mut explored, mut pictures, mut svgs, mut no_witness) = (0u64, 0usize, 0usize, 0usize);
    let mut io_errors = 0usize;
    let mut phases = Phases::default();
    let (tx, rx) = mpsc::channel::<Done>();
    std::thread::scope(|scope| -> Result<(), String> {
        let job = Job {
            opts: &opts,
            graph: graph.as_ref(),
            quiet: args.quiet,
            json: sink.is_some(),
            unreadable: &unreadable,
            markers: markers.as_ref(),
            split,
            warn_long: super::long_run::wanted(todo.len(), &opts, args.no_estimate_warning)
                .then_some(jobs),
        };
        spawn_workers(scope, &todo, jobs, job, tx)?;
        loop {
            // Polled, not blocking: a worker's `send` then never has to wake
            // this thread (a futex call and a context switch per test, which
            // cost about as much as checking a small test); results wait at
            // most one poll interval. Everything that arrived since the last
            // poll is written with one call per stream when the channel runs
            // dry.
            let d = match rx.try_recv() {
                Ok(d) => d,
                Err(e) => {
                    let t_out = Instant::now();
                    if let Some(s) = &mut sink {
                        s.flush();
                    }
                    emit(&progress, &mut text);
                    phases.output += t_out.elapsed();
                    if e == mpsc::TryRecvError::Disconnected {
                        break;
                    }
                    progress.tick();
                    std::thread::sleep(POLL);
                    continue;
                }
            };
            let t_out = Instant::now();
            phases.add(&d.phases);
            let mut d = d;
            if let Some(s) = &mut sink {
                s.append(&d.record.line);
            }
            // Written: the line is not kept (the file is rewritten sorted
            // from itself), so memory does not grow with the results.
            d.record.line = String::new();
            let execs = d.record.count("executions");
            explored += execs;
            match d.graph {
                GraphResult::NoWitness => no_witness += 1,
                GraphResult::Written { svg } => {
                    pictures += 1;
                    svgs += usize::from(svg);
                }
                GraphResult::Error(e) => {
                    io_errors += 1;
                    eprintln!("error: {e}");
                }
            }
            totals.add(&d.record);
            if keep_records {
                new_records.push(d.record);
            }
            pending.insert(d.index, d.printed);
            while let Some(p) = pending.remove(&next) {
                if !p.err.is_empty() {
                    // Keep the order of the streams: what precedes the error
                    // on stdout goes out first.
                    emit(&progress, &mut text);
                    progress.suspend(|| eprint!("{}", p.err));
                }
                if text.is_empty() {
                    // Moved, not copied: a block can be megabytes.
                    text = p.out;
                } else {
                    text.extend_from_slice(&p.out);
                }
                next += 1;
            }
            if text.len() >= SINK_BUFFER {
                emit(&progress, &mut text);
            }
            progress.inc(execs);
            phases.output += t_out.elapsed();
        }
        Ok(())
    })?;
    progress.finish();
    let wall = start.elapsed();
    let t_out = Instant::now();

    let mut all = previous;
    all.extend(new_records);
    results::sort(&mut all);
    if let Some(s) = &sink {
        if s.failed {
            io_errors += 1;
        } else if let Err(e) = results::rewrite_sorted(&s.path, &superseded) {
            eprintln!("error: {}: {}", s.path.display(), e);
            io_errors += 1;
        } else if let Some(m) = markers {
            // Every started test has its record: nothing to check again.
            m.finish();
        }
    }
    drop(lock);

    let mut out = stdout.lock();
    if let Some(r) = &args.resume {
        let _ = writeln!(
            out,
            "Resumed: {} tests from {}, {} checked now",
            n_previous,
            r.display(),
            todo.len()
        );
    }
    let _ = writeln!(out, "{}", totals.line());
    let _ = writeln!(out, "{}", totals.verdict_line());
    phases.output += t_out.elapsed();
    totals::explored_line(&mut out, &totals, explored, wall.as_secs_f64());
    let _ = writeln!(out, "Model {}", opts.reading.name);
    if args.stats {
        totals::stats_block(
            &mut out,
            &totals,
            explored,
            wall.as_secs_f64(),
            &phases,
            jobs,
        );
    }
    if let Some(g) = &graph {
        let _ = writeln!(
            out,
            "Graphs: {} pictures in {} ({} SVG); {} tests without a witness",
            pictures,
            g.dir.display(),
            svgs,
            no_witness
        );
        if !g.dot && pictures > 0 {
            eprintln!("dot not found: wrote .dot files only");
        }
    }
    let mismatches = if rows.is_empty() {
        0
    } else {
        results::compare_expectations(&mut out, &all, &rows)
    };
    let errors = totals.errors + io_errors;
    let required = args.require_ok && !totals.all_ok();
    if required {
        let _ = writeln!(
            out,
            "--require-ok: {} claims fail, {} tests without a verdict, {} liveness violations",
            totals.fails, totals.no_verdict, totals.live_violations
        );
    }
    Ok(if errors > 0 {
        EXIT_ERROR
    } else if mismatches > 0 || required {
        EXIT_MISMATCH
    } else {
        EXIT_OK
    })
}
