//! `ptxmc models` (the readings of the model) and `ptxmc run --model A,B`
//! (the tests whose verdicts differ between readings).

use super::{EXIT_ERROR, EXIT_OK};
use ptxmc_checker::{Options, Reading, Report, Status};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `ptxmc models`: one line per reading, then the sections it concerns.
pub fn list() -> u8 {
    let mut out = std::io::stdout().lock();
    let width = Reading::ALL.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for r in Reading::ALL {
        let _ = writeln!(out, "{:width$}  {} [{}]", r.name, r.about, r.sections);
    }
    EXIT_OK
}

/// The readings `--model` names, in order, each once.
pub fn readings(names: &[String]) -> Result<Vec<Reading>, String> {
    let mut out: Vec<Reading> = Vec::new();
    for n in names {
        let r: Reading = n.trim().parse().map_err(|e| format!("--model: {e}"))?;
        if !out.contains(&r) {
            out.push(r);
        }
    }
    if out.is_empty() {
        out.push(Reading::SPEC);
    }
    Ok(out)
}

/// What one test gave under one reading, as compared across readings.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Verdict {
    /// The file did not read or parse (the same under every reading).
    Error(String),
    /// Status name, then the condition's and liveness's verdicts when the
    /// status is `ok`.
    Checked(&'static str, Option<(bool, bool)>),
}

impl Verdict {
    fn of(r: &Report) -> Self {
        let v = (r.status == Status::Ok).then_some((r.condition_holds, r.liveness_holds));
        Verdict::Checked(r.status.name(), v)
    }

    fn text(&self) -> String {
        match self {
            Verdict::Error(e) => e.clone(),
            Verdict::Checked(_, Some((c, l))) => format!(
                "{}{}",
                if *c { "Ok" } else { "No" },
                if *l { "" } else { " (liveness violated)" }
            ),
            Verdict::Checked(status, None) => format!("status {status}"),
        }
    }
}

fn verdicts(file: &Path, readings: &[Reading], opts: &Options) -> Vec<Verdict> {
    let src = match super::parse_cmd::read_source(file) {
        Ok(s) => s,
        Err(e) => return vec![Verdict::Error(e); readings.len()],
    };
    let test = match super::kernel_cmd::parse(file, &src) {
        Ok(t) => t,
        Err(e) => {
            let e = e.render(&file.display().to_string(), &src);
            return vec![Verdict::Error(format!("parse error: {e}")); readings.len()];
        }
    };
    readings
        .iter()
        .map(|&reading| {
            let o = Options {
                reading,
                witness: false,
                ..opts.clone()
            };
            Verdict::of(&ptxmc_checker::check(&test, &o))
        })
        .collect()
}

/// `ptxmc run --model A,B,...`: checks every file under each reading and
/// prints one line per test whose verdicts differ, then a summary.
pub fn compare(files: &[PathBuf], readings: &[Reading], opts: &Options, jobs: usize) -> u8 {
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot start worker threads: {e}");
            return EXIT_ERROR;
        }
    };
    let all: Vec<Vec<Verdict>> = pool.install(|| {
        files
            .par_iter()
            .map(|f| verdicts(f, readings, opts))
            .collect()
    });
    let names: Vec<&str> = readings.iter().map(|r| r.name).collect();
    let mut out = std::io::stdout().lock();
    let mut differ = 0usize;
    let mut errors = 0usize;
    for (file, v) in files.iter().zip(&all) {
        if v.iter().any(|x| matches!(x, Verdict::Error(_))) {
            errors += 1;
            eprintln!("error: {}: {}", file.display(), v[0].text());
            continue;
        }
        if v.windows(2).all(|w| w[0] == w[1]) {
            continue;
        }
        differ += 1;
        let cells: Vec<String> = names
            .iter()
            .zip(v)
            .map(|(n, x)| format!("{n} {}", x.text()))
            .collect();
        let _ = writeln!(out, "{}: {}", file.display(), cells.join(", "));
    }
    let _ = writeln!(
        out,
        "Models {}: {differ} of {} tests differ{}",
        names.join(", "),
        files.len(),
        if errors > 0 {
            format!(" ({errors} files not checked)")
        } else {
            String::new()
        }
    );
    if errors > 0 {
        EXIT_ERROR
    } else {
        EXIT_OK
    }
}
