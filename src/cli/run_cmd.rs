//! `ptxmc run`: check every test, print herd-style blocks, a summary, JSON
//! Lines, and the comparison with expectation files.

use super::args::{RunArgs, StrategyArg};
use super::collect::litmus_files;
use super::expect::{self, Property, Row};
use super::parse_cmd::read_source;
use super::{herd, json, stats, EXIT_ERROR, EXIT_MISMATCH, EXIT_OK};
use ptxmc_checker::{Options, Report, Status, Strategy};
use ptxmc_frontend::ir::Test;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What happened to one file.
pub struct Outcome {
    /// The file.
    pub file: PathBuf,
    /// The test name (the file stem when the file did not parse).
    pub name: String,
    /// Result.
    pub kind: OutcomeKind,
}

/// Result of one file.
pub enum OutcomeKind {
    /// The file could not be read or parsed.
    Error {
        /// `parse-error` or `read-error`.
        status: &'static str,
        /// The rendered error (file:line:col, source line, caret).
        message: String,
    },
    /// The test was checked (possibly unsupported/undefined/limit).
    Checked {
        /// The parsed test.
        test: Box<Test>,
        /// The checker's report.
        report: Report,
    },
}

fn options(args: &RunArgs) -> Options {
    Options {
        strategy: match args.strategy {
            StrategyArg::Brute => Strategy::Brute,
            StrategyArg::Dpor => Strategy::Dpor,
        },
        unroll: args.unroll,
        max_executions: args.max_executions,
        timeout: args.timeout.map(Duration::from_secs_f64),
        check_duplicates: args.check_duplicates,
    }
}

fn check_file(file: &Path, opts: &Options) -> Outcome {
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let src = match read_source(file) {
        Ok(s) => s,
        Err(message) => {
            return Outcome {
                file: file.to_path_buf(),
                name,
                kind: OutcomeKind::Error {
                    status: "read-error",
                    message,
                },
            }
        }
    };
    match ptxmc_frontend::parse(&src) {
        Err(e) => Outcome {
            file: file.to_path_buf(),
            name,
            kind: OutcomeKind::Error {
                status: "parse-error",
                message: e.render(&file.display().to_string(), &src),
            },
        },
        Ok(test) => {
            let report = ptxmc_checker::check(&test, opts);
            Outcome {
                file: file.to_path_buf(),
                name: test.name.clone(),
                kind: OutcomeKind::Checked {
                    test: Box::new(test),
                    report,
                },
            }
        }
    }
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &RunArgs) -> u8 {
    let files = match litmus_files(&args.paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let mut rows: Vec<Row> = Vec::new();
    for csv in &args.expect {
        match expect::read_csv(csv) {
            Ok(r) => rows.extend(r),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
        }
    }
    if args.jobs == Some(0) {
        eprintln!("error: -j must be at least 1");
        return EXIT_ERROR;
    }
    let opts = options(args);
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(j) = args.jobs {
        pool = pool.num_threads(j);
    }
    let pool = match pool.build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot start worker threads: {e}");
            return EXIT_ERROR;
        }
    };
    let start = Instant::now();
    let outcomes: Vec<Outcome> =
        pool.install(|| files.par_iter().map(|f| check_file(f, &opts)).collect());
    let wall = start.elapsed();

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut errors = 0usize;
    for o in &outcomes {
        match &o.kind {
            OutcomeKind::Error { message, .. } => {
                errors += 1;
                eprintln!("{message}");
            }
            OutcomeKind::Checked { test, report } => {
                if !args.quiet {
                    let _ = writeln!(out, "{}", herd::block(test, report));
                } else if report.status != Status::Ok {
                    let _ = writeln!(
                        out,
                        "{}: {}",
                        o.file.display(),
                        herd::block(test, report).lines().nth(1).unwrap_or_default()
                    );
                }
            }
        }
    }

    if let Some(path) = &args.json {
        if let Err(e) = write_json(path, &outcomes) {
            eprintln!("error: {}: {}", path.display(), e);
            errors += 1;
        }
    }

    summary(&mut out, &outcomes, wall, args.stats);
    let mismatches = if rows.is_empty() {
        0
    } else {
        compare(&mut out, &outcomes, &rows)
    };
    if errors > 0 {
        EXIT_ERROR
    } else if mismatches > 0 {
        EXIT_MISMATCH
    } else {
        EXIT_OK
    }
}

fn write_json(path: &Path, outcomes: &[Outcome]) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    for o in outcomes {
        writeln!(f, "{}", json::outcome(o))?;
    }
    f.flush()
}

fn summary(out: &mut impl Write, outcomes: &[Outcome], wall: Duration, kv: bool) {
    let mut n = [0usize; 6]; // ok, unsupported, undefined, limit, parse-error, read-error
    let (mut execs, mut blocked, mut pruned, mut dups) = (0u64, 0u64, 0u64, 0u64);
    let mut live_violations = 0usize;
    for o in outcomes {
        match &o.kind {
            OutcomeKind::Error { status, .. } => {
                n[if *status == "parse-error" { 4 } else { 5 }] += 1
            }
            OutcomeKind::Checked { report, .. } => {
                n[match report.status {
                    Status::Ok => 0,
                    Status::Unsupported(_) => 1,
                    Status::Undefined(_) => 2,
                    Status::Limit(_) => 3,
                }] += 1;
                execs += report.stats.executions;
                blocked += report.stats.blocked;
                pruned += report.stats.pruned;
                dups += report.stats.duplicates;
                live_violations += usize::from(!report.liveness_holds);
            }
        }
    }
    let secs = wall.as_secs_f64();
    let rate = if secs > 0.0 { execs as f64 / secs } else { 0.0 };
    let rss = stats::peak_rss_kib();
    let _ = writeln!(
        out,
        "Summary: {} tests: {} ok, {} unsupported, {} undefined, {} limit, {} parse errors, {} read errors; {} liveness violations",
        outcomes.len(), n[0], n[1], n[2], n[3], n[4], n[5], live_violations
    );
    let _ = writeln!(
        out,
        "Explored {} executions ({} blocked, {} pruned, {} duplicates) in {:.3} s: {:.0} executions/s, peak memory {}",
        execs,
        blocked,
        pruned,
        dups,
        secs,
        rate,
        rss.map_or_else(|| "unknown".to_string(), stats::human_kib)
    );
    if kv {
        let _ = writeln!(
            out,
            "stats: tests={} executions={} blocked={} pruned={} duplicates={} wall_s={:.6} executions_per_s={:.1} peak_rss_kib={}",
            outcomes.len(),
            execs,
            blocked,
            pruned,
            dups,
            secs,
            rate,
            rss.unwrap_or(0)
        );
    }
}

/// Prints every mismatch and `expectations: matched M of N`; returns the number of mismatches.
fn compare(out: &mut impl Write, outcomes: &[Outcome], rows: &[Row]) -> usize {
    let (mut matched, mut total) = (0usize, 0usize);
    for row in rows {
        let Some(o) = outcomes
            .iter()
            .find(|o| expect::matches(&o.file, &row.path))
        else {
            continue;
        };
        total += 1;
        let what = match row.property {
            Property::Condition => "condition",
            Property::Liveness => "liveness",
        };
        let got = match &o.kind {
            OutcomeKind::Checked { report, .. } if report.status == Status::Ok => {
                Some(match row.property {
                    Property::Condition => report.condition_holds,
                    Property::Liveness => report.liveness_holds,
                })
            }
            _ => None,
        };
        match got {
            Some(g) if g == row.holds => matched += 1,
            Some(g) => {
                let _ = writeln!(
                    out,
                    "mismatch: {} ({}:{}): {} expected {}, got {}",
                    o.file.display(),
                    row.csv.display(),
                    row.line,
                    what,
                    u8::from(row.holds),
                    u8::from(g)
                );
            }
            None => {
                let status = match &o.kind {
                    OutcomeKind::Error { status, .. } => status.to_string(),
                    OutcomeKind::Checked { report, .. } => report.status.name().to_string(),
                };
                let _ = writeln!(
                    out,
                    "mismatch: {} ({}:{}): {} expected {}, got no verdict ({})",
                    o.file.display(),
                    row.csv.display(),
                    row.line,
                    what,
                    u8::from(row.holds),
                    status
                );
            }
        }
    }
    let _ = writeln!(out, "expectations: matched {matched} of {total}");
    total - matched
}
