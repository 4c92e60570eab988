//! Result records: the JSON Lines objects `ptxmc run --json` writes, read
//! back for `--resume`, `merge`, `compare`, the summary and expectations.

use super::expect::{self, Property, Row};
use super::stats;
use serde_json::Value;
use std::fmt::Display;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One test's result.
#[derive(Clone, Debug)]
pub struct Record {
    /// The `file` field.
    pub file: String,
    /// The line as written (no newline); empty for a test checked by a run
    /// that writes no JSON ([`Record::fresh`]).
    pub line: String,
    /// The parsed object.
    pub value: Value,
}

impl Record {
    /// Parses one JSON Lines line; it must be an object with a string `file`.
    pub fn parse(line: &str) -> Result<Record, String> {
        let value: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let file = value
            .get("file")
            .and_then(Value::as_str)
            .ok_or("not a ptxmc result: no string field `file`")?
            .to_string();
        Ok(Record {
            file,
            line: line.to_string(),
            value,
        })
    }

    /// The record of a test checked now: `value` holds only the fields the
    /// summary and the expectation comparison read (see
    /// [`super::json::summary`]), so that a batch of many thousand tests
    /// holds a few hundred bytes per test instead of the final states;
    /// `line` is the whole JSON line, or empty when the run writes none.
    pub fn fresh(value: Value, line: String) -> Record {
        let file = value
            .get("file")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        Record { file, line, value }
    }

    /// The test name.
    pub fn name(&self) -> &str {
        self.value
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The status: `ok`, `unsupported`, `undefined`, `limit`, `parse-error`, `read-error`.
    pub fn status(&self) -> &str {
        self.value
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("?")
    }

    /// A boolean field (`None` when null or absent).
    pub fn flag(&self, key: &str) -> Option<bool> {
        self.value.get(key).and_then(Value::as_bool)
    }

    /// A count field (0 when null or absent).
    pub fn count(&self, key: &str) -> u64 {
        self.value.get(key).and_then(Value::as_u64).unwrap_or(0)
    }

    /// The object without `time_ms`, the one field that differs between runs.
    pub fn timeless(&self) -> Value {
        let mut v = self.value.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("time_ms");
        }
        v
    }

    /// Whether the file could not be read or parsed.
    pub fn is_error(&self) -> bool {
        matches!(self.status(), "parse-error" | "read-error")
    }
}

/// The records of a JSON Lines file, and the byte length of its intact part.
pub struct Loaded {
    /// The records, in file order.
    pub records: Vec<Record>,
    /// Bytes up to the end of the last intact line (newline included if present).
    pub good_len: u64,
    /// Whether a truncated or broken last line was dropped.
    pub dropped_tail: bool,
}

/// Reads a JSON Lines result file. A last line that does not parse (a run
/// killed mid-write) is dropped and reported in [`Loaded::dropped_tail`]; a
/// broken line before the last is an error naming the file and line.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {}", path.display(), e))?;
    let text = String::from_utf8_lossy(&bytes);
    let mut records = Vec::new();
    let mut offset = 0usize;
    let mut good_len = 0usize;
    let mut dropped_tail = false;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, raw) in lines.iter().enumerate() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            good_len = offset;
            continue;
        }
        match Record::parse(line) {
            Ok(r) => {
                records.push(r);
                good_len = offset;
            }
            Err(e) => {
                let is_last = lines[i + 1..].iter().all(|l| l.trim().is_empty());
                if is_last {
                    dropped_tail = true;
                    good_len = start;
                    break;
                }
                return Err(format!("{}:{}: {}", path.display(), i + 1, e));
            }
        }
    }
    Ok(Loaded {
        records,
        good_len: good_len as u64,
        dropped_tail,
    })
}

/// [`load`], warning on stderr about a dropped last line.
pub fn load_warn(path: &Path) -> Result<Vec<Record>, String> {
    let l = load(path)?;
    if l.dropped_tail {
        eprintln!(
            "warning: {}: ignoring a truncated last line",
            path.display()
        );
    }
    Ok(l.records)
}

/// Sorts records by file path (stable).
pub fn sort(records: &mut [Record]) {
    records.sort_by(|a, b| a.file.cmp(&b.file));
}

/// Writes records, one per line, to `path` through a temporary file renamed
/// over it, so that a kill during the write leaves the old file intact.
pub fn write_atomically(path: &Path, records: &[Record]) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    let tmp: PathBuf = path.with_file_name(name);
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        for r in records {
            writeln!(f, "{}", r.line)?;
        }
        f.flush()?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Counts for the summary.
#[derive(Default)]
pub struct Totals {
    /// Tests.
    pub tests: usize,
    /// By status: ok, unsupported, undefined, limit, parse-error, read-error.
    pub by_status: [usize; 6],
    /// Tests whose liveness is violated.
    pub live_violations: usize,
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
}

impl Totals {
    /// Adds up `records`.
    pub fn of(records: &[Record]) -> Totals {
        let mut t = Totals::default();
        for r in records {
            t.tests += 1;
            if r.status() == "estimate" {
                t.estimates += 1;
                continue;
            }
            let k = match r.status() {
                "ok" => 0,
                "unsupported" => 1,
                "undefined" => 2,
                "limit" => 3,
                "parse-error" => 4,
                _ => 5,
            };
            t.by_status[k] += 1;
            t.live_violations += usize::from(r.flag("liveness_holds") == Some(false));
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
        t
    }

    /// The `Summary: ...` line.
    pub fn line(&self) -> String {
        let n = &self.by_status;
        let estimates = match self.estimates {
            0 => String::new(),
            e => format!(", {e} estimates"),
        };
        format!(
            "Summary: {} tests: {} ok, {} unsupported, {} undefined, {} limit, {} parse errors, {} read errors{estimates}; {} liveness violations",
            self.tests, n[0], n[1], n[2], n[3], n[4], n[5], self.live_violations
        )
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
    phases: &super::run_cmd::Phases,
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

/// Prints every mismatch between `records` and the expectation `rows` and
/// `expectations: matched M of N`; returns the number of mismatches. Rows
/// that match no record are not counted.
pub fn compare_expectations(out: &mut impl Write, records: &[Record], rows: &[Row]) -> usize {
    let (mut matched, mut total) = (0usize, 0usize);
    for row in rows {
        let Some(r) = records
            .iter()
            .find(|r| expect::matches(Path::new(&r.file), &row.path))
        else {
            continue;
        };
        total += 1;
        let what = match row.property {
            Property::Condition => "condition",
            Property::Liveness => "liveness",
        };
        let mismatch = |out: &mut dyn Write, expected: &dyn Display, got: &dyn Display| {
            let _ = writeln!(
                out,
                "mismatch: {} ({}:{}): {what} expected {expected}, got {got}",
                r.file,
                row.csv.display(),
                row.line,
            );
        };
        if row.undefined {
            if r.status() == "undefined" {
                matched += 1;
            } else {
                mismatch(out, &"undefined", &r.status());
            }
            continue;
        }
        let got = if r.status() == "ok" {
            r.flag(match row.property {
                Property::Condition => "condition_holds",
                Property::Liveness => "liveness_holds",
            })
        } else {
            None
        };
        match got {
            Some(g) if g == row.holds => matched += 1,
            Some(g) => mismatch(out, &u8::from(row.holds), &u8::from(g)),
            None => mismatch(
                out,
                &u8::from(row.holds),
                &format_args!("no verdict ({})", r.status()),
            ),
        }
    }
    let _ = writeln!(out, "expectations: matched {matched} of {total}");
    total - matched
}

/// Reads every expectation CSV.
pub fn read_expectations(csvs: &[PathBuf]) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for csv in csvs {
        rows.extend(expect::read_csv(csv)?);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_truncated_last_line_is_dropped_and_others_are_errors() {
        let dir = std::env::temp_dir().join(format!("ptxmc-results-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let p = dir.join("a.jsonl");
        std::fs::write(&p, "{\"file\":\"a\"}\n{\"file\":\"b\"}\n{\"fi").expect("write");
        let l = load(&p).expect("loads");
        assert_eq!(l.records.len(), 2);
        assert!(l.dropped_tail);
        assert_eq!(l.good_len, 26);
        std::fs::write(&p, "{\"file\":\"a\"}\n{\"fi\n{\"file\":\"b\"}\n").expect("write");
        let e = load(&p).err().expect("an error");
        assert!(e.contains("a.jsonl:2:"), "{e}");
        std::fs::write(&p, "{\"file\":\"a\"}").expect("write");
        let l = load(&p).expect("loads");
        assert_eq!(
            (l.records.len(), l.dropped_tail, l.good_len),
            (1, false, 12)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn undefined_rows_match_only_undefined_statuses() {
        let dir = std::env::temp_dir().join(format!("ptxmc-undef-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let csv = dir.join("e.csv");
        std::fs::write(
            &csv,
            "// c\nsizes/a.litmus,undefined\nsizes/b.litmus,undefined\n",
        )
        .expect("write");
        let rows = expect::read_csv(&csv).expect("reads");
        assert!(rows.iter().all(|r| r.undefined));
        let records = [
            Record::parse(r#"{"file":"corpus/sizes/a.litmus","status":"undefined"}"#)
                .expect("record"),
            Record::parse(
                r#"{"file":"corpus/sizes/b.litmus","status":"ok","condition_holds":true}"#,
            )
            .expect("record"),
        ];
        let mut out = Vec::new();
        assert_eq!(compare_expectations(&mut out, &records, &rows), 1);
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.contains("b.litmus") && text.contains("expected undefined, got ok"),
            "{text}"
        );
        std::fs::write(&csv, "a.litmus,2\n").expect("write");
        let e = expect::read_csv(&csv).err().unwrap_or_default();
        assert!(e.contains("0, 1 or undefined"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
