//! `ptxmc merge`: combine JSON Lines result files (shards) into one report.

use super::args::MergeArgs;
use super::results::{self, Record};
use super::totals::Totals;
use super::{EXIT_ERROR, EXIT_MISMATCH, EXIT_OK};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Merges `files`: sorted by file path; a test in several files must have
/// the same result in each, `time_ms` aside (the first is kept).
pub fn merge(files: &[&Path]) -> Result<Vec<Record>, String> {
    let mut by_file: BTreeMap<String, (Record, &Path)> = BTreeMap::new();
    let mut conflicts = Vec::new();
    // Parts of `run --split` runs, merged per test first (`split_parts.rs`).
    let mut parts = super::split_parts::Parts::default();
    let mut records: Vec<(Record, &Path)> = Vec::new();
    for &f in files {
        for r in results::load_warn(f)? {
            if let Some(r) = parts.take(r, f) {
                records.push((r, f));
            }
        }
    }
    let merged = parts.merge()?;
    let merged: Vec<(Record, &Path)> = merged
        .iter()
        .map(|(r, p)| (r.clone(), p.as_path()))
        .collect();
    {
        for (r, f) in records.into_iter().chain(merged) {
            match by_file.get(&r.file) {
                None => {
                    by_file.insert(r.file.clone(), (r, f));
                }
                Some((old, from)) => {
                    if !old.same_result(&r) {
                        conflicts.push(format!(
                            "{}: different results in {} and {}",
                            r.file,
                            from.display(),
                            f.display()
                        ));
                    }
                }
            }
        }
    }
    if !conflicts.is_empty() {
        return Err(conflicts.join("\nerror: "));
    }
    let mut out: Vec<Record> = by_file.into_values().map(|(r, _)| r).collect();
    results::sort(&mut out);
    Ok(out)
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &MergeArgs) -> u8 {
    let rows = match results::read_expectations(&args.expect) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let files: Vec<&Path> = args.files.iter().map(|p| p.as_path()).collect();
    let merged = match merge(&files) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let to_stdout = args.output.as_deref() == Some(Path::new("-"));
    if to_stdout {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        for r in &merged {
            if let Err(e) = r.write_line(&mut out).and_then(|()| out.write_all(b"\n")) {
                eprintln!("error: {}: {e}", r.file);
                return EXIT_ERROR;
            }
        }
    } else if let Some(p) = &args.output {
        if let Err(e) = results::write_atomically(p, &merged) {
            eprintln!("error: {}: {}", p.display(), e);
            return EXIT_ERROR;
        }
    }
    // The summary goes to stderr when stdout carries the merged lines.
    let mut text: Vec<u8> = Vec::new();
    let t = Totals::of(&merged);
    let _ = writeln!(
        text,
        "Merged {} files: {} tests",
        args.files.len(),
        merged.len()
    );
    let _ = writeln!(text, "{}", t.line());
    let _ = writeln!(text, "{}", t.verdict_line());
    let _ = writeln!(
        text,
        "Explored {} executions ({} blocked, {} pruned, {} duplicates); checking time {:.3} s (sum over tests)",
        t.executions,
        t.blocked,
        t.pruned,
        t.duplicates,
        t.time_ms / 1000.0
    );
    let mismatches = if rows.is_empty() {
        0
    } else {
        results::compare_expectations(&mut text, &merged, &rows)
    };
    if to_stdout {
        let _ = std::io::stderr().write_all(&text);
    } else {
        let _ = std::io::stdout().write_all(&text);
    }
    if mismatches > 0 {
        EXIT_MISMATCH
    } else {
        EXIT_OK
    }
}
