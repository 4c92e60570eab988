//! Result records: the JSON Lines objects `ptxmc run --json` writes, read
//! back for `--resume`, `merge`, `compare`, the summary and expectations.

use super::expect::{self, Property, Row};
use super::result_lines::{self, Body, Lines, LONG_LINE};
use serde_json::Value;
use std::fmt::Display;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One test's result.
#[derive(Clone, Debug)]
pub struct Record {
    /// The `file` field.
    pub file: String,
    /// The line as written (no newline); empty for a test checked by a run
    /// that writes no JSON ([`Record::fresh`]).
    pub line: String,
    /// The parsed object, without its final states: `states` is `[]` here
    /// and the states stay as text in `line` ([`Record::states_text`]), so
    /// that reading back a test with a million final states costs its line,
    /// not a JSON tree twenty times its size.
    pub value: Value,
    /// Where the `states` array is in `line` (bytes), when it has one.
    states: Option<(usize, usize)>,
    /// Where the line is in its file, for a line too long to hold
    /// ([`result_lines::LONG_LINE`]): `line` is then empty, and `value` was
    /// parsed from the line without its states.
    in_file: Option<InFile>,
}

/// A long line left in its file.
#[derive(Clone, Debug)]
struct InFile {
    path: Arc<PathBuf>,
    /// Byte offset and length (no newline) of the line.
    start: u64,
    len: u64,
    /// `[start, end)` of its states array in the file.
    states: Option<(u64, u64)>,
}

/// The byte range of the top-level `"states":[...]` array's value in a
/// result line. Inside a JSON string a `"` is escaped, so `"states":[`
/// occurs only as a key; the end is found by bracket depth, skipping
/// strings.
fn states_span(line: &str) -> Option<(usize, usize)> {
    const KEY: &str = "\"states\":[";
    let start = line.rfind(KEY)? + KEY.len() - 1;
    let b = line.as_bytes();
    let (mut depth, mut i, mut in_str) = (0usize, start, false);
    while i < b.len() {
        match (in_str, b[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') => in_str = false,
            (false, b'"') => in_str = true,
            (false, b'[' | b'{') => depth += 1,
            (false, b']' | b'}') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some((start, i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

impl Record {
    /// Parses one JSON Lines line; it must be an object with a string `file`.
    pub fn parse(line: &str) -> Result<Record, String> {
        Self::parse_owned(line.to_string())
    }

    /// [`Record::parse`] of a line already owned.
    pub fn parse_owned(line: String) -> Result<Record, String> {
        let states = states_span(&line);
        let value: Value = match states {
            Some((a, b)) => {
                let mut rest = String::with_capacity(line.len() - (b - a) + 2);
                rest.push_str(&line[..a]);
                rest.push_str("[]");
                rest.push_str(&line[b..]);
                serde_json::from_str(&rest)
            }
            None => serde_json::from_str(&line),
        }
        .map_err(|e| e.to_string())?;
        let file = value
            .get("file")
            .and_then(Value::as_str)
            .ok_or("not a ptxmc result: no string field `file`")?
            .to_string();
        Ok(Record {
            file,
            line,
            value,
            states,
            in_file: None,
        })
    }

    /// The record of a long line: its head (the line with `"states":[]`)
    /// parsed, the rest left in the file `path`.
    fn parse_long(
        head: &str,
        path: &Arc<PathBuf>,
        start: u64,
        len: u64,
        states: Option<(u64, u64)>,
    ) -> Result<Record, String> {
        let mut r = Self::parse(head)?;
        r.line = String::new();
        r.states = None;
        r.in_file = Some(InFile {
            path: path.clone(),
            start,
            len,
            states,
        });
        Ok(r)
    }

    /// The `states` array as written (`[...]`), or `[]`, for a record that
    /// holds its line (see [`Record::states_reader`] for any record).
    pub fn states_text(&self) -> &str {
        self.states.map_or("[]", |(a, b)| &self.line[a..b])
    }

    /// A reader of the `states` array as written, from memory or from the
    /// file of a long line.
    pub fn states_reader(&self) -> std::io::Result<Box<dyn BufRead + '_>> {
        match &self.in_file {
            Some(InFile {
                path,
                states: Some((a, b)),
                ..
            }) => Ok(Box::new(result_lines::range_reader(path, *a, b - a)?)),
            _ => Ok(Box::new(self.states_text().as_bytes())),
        }
    }

    /// Hands each final state, as written (`{"values":...}`), to `f`, one
    /// at a time.
    pub fn each_state(&self, f: &mut dyn FnMut(&[u8])) -> Result<(), String> {
        let mut r = self.states_reader().map_err(|e| self.io_error(e))?;
        result_lines::each_element(&mut *r, f).map_err(|e| self.io_error(e))
    }

    /// Whether two records' states are written the same.
    pub fn same_states(&self, o: &Record) -> Result<bool, String> {
        if self.in_file.is_none() && o.in_file.is_none() {
            return Ok(self.states_text() == o.states_text());
        }
        let mut a = self.states_reader().map_err(|e| self.io_error(e))?;
        let mut b = o.states_reader().map_err(|e| o.io_error(e))?;
        result_lines::same_bytes(&mut *a, &mut *b).map_err(|e| self.io_error(e))
    }

    /// Writes the line as read (no newline), from memory or from its file.
    pub fn write_line(&self, out: &mut dyn Write) -> std::io::Result<()> {
        match &self.in_file {
            Some(f) => result_lines::copy_range(&f.path, f.start, f.len, out),
            None => out.write_all(self.line.as_bytes()),
        }
    }

    fn io_error(&self, e: std::io::Error) -> String {
        match &self.in_file {
            Some(f) => format!("{}: {e}", f.path.display()),
            None => format!("{}: {e}", self.file),
        }
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
        Record {
            file,
            line,
            value,
            states: None,
            in_file: None,
        }
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

    /// The object without `time_ms`, the one field that differs between
    /// runs (its `states` left out: compare [`Record::states_text`] too).
    pub fn timeless(&self) -> Value {
        let mut v = self.value.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("time_ms");
        }
        v
    }

    /// Whether two records give the same result: every field but `time_ms`
    /// (a states array that cannot be read back is not the same).
    pub fn same_result(&self, o: &Record) -> bool {
        self.timeless() == o.timeless() && self.same_states(o).unwrap_or(false)
    }

    /// Whether the file could not be read or parsed, or took the process
    /// down (`crash`).
    pub fn is_error(&self) -> bool {
        matches!(self.status(), "parse-error" | "read-error" | "crash")
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
    /// How many records were read.
    pub count: usize,
    /// Whether some record has no string `status` (not ptxmc's).
    pub foreign: bool,
}

/// Reads a JSON Lines result file. A last line that does not parse (a run
/// killed mid-write) is dropped and reported in [`Loaded::dropped_tail`]; a
/// broken line before the last is an error naming the file and line.
pub fn load(path: &Path) -> Result<Loaded, String> {
    load_with(path, None)
}

/// The fields a run keeps of each previous record when resuming: what the
/// summary, the expectations and the resumption read.
const SLIM_KEYS: [&str; 10] = [
    "file",
    "name",
    "status",
    "condition_holds",
    "liveness_holds",
    "executions",
    "blocked",
    "pruned",
    "duplicates",
    "time_ms",
];

/// [`load`] handing each record to `f` as it is read, with only
/// [`SLIM_KEYS`] and no line: what `--resume` needs of a previous run, so
/// that it holds no more of it than it keeps (the lines stay in the file
/// and are copied from there, [`rewrite_sorted`]). [`Loaded::records`] is
/// empty.
pub fn load_each(path: &Path, f: &mut dyn FnMut(Record)) -> Result<Loaded, String> {
    load_with(path, Some(f))
}

fn slim(mut r: Record) -> Record {
    if let Value::Object(m) = &mut r.value {
        m.retain(|k, _| SLIM_KEYS.contains(&k.as_str()));
    }
    r.line = String::new();
    r.states = None;
    r.in_file = None;
    r
}

fn load_with(path: &Path, each: Option<&mut dyn FnMut(Record)>) -> Result<Loaded, String> {
    load_lines(path, each, LONG_LINE)
}

/// [`load_with`], lines of `long` bytes or more scanned as they are read
/// (tests use a small `long`).
fn load_lines(
    path: &Path,
    mut each: Option<&mut dyn FnMut(Record)>,
    long: usize,
) -> Result<Loaded, String> {
    let err = |e: std::io::Error| format!("{}: {}", path.display(), e);
    // Line by line, and a long line piece by piece: the file is never held
    // whole, nor a long line, nor (for `load`) any line: a record kept
    // says where its line is ([`Record::write_line`]).
    let file = std::fs::File::open(path).map_err(err)?;
    let mut lines = Lines::new(std::io::BufReader::with_capacity(1 << 16, file), long);
    let shared = Arc::new(path.to_path_buf());
    let mut records = Vec::new();
    let (mut count, mut foreign) = (0usize, false);
    let (mut offset, mut good_len) = (0u64, 0u64);
    let mut pending: Option<(usize, String, u64)> = None;
    let mut n = 0usize;
    while let Some(raw) = lines.next_line().map_err(err)? {
        n += 1;
        let start = raw.start;
        offset += raw.read;
        let parsed = match raw.body {
            Body::Whole(line) => {
                if line.trim().is_empty() {
                    if pending.is_none() {
                        good_len = offset;
                    }
                    continue;
                }
                Record::parse_owned(line).map(|mut r| {
                    if each.is_none() {
                        // Kept: the line stays in the file.
                        let len = r.line.len() as u64;
                        let states = r.states.map(|(a, b)| (start + a as u64, start + b as u64));
                        r.line = String::new();
                        r.states = None;
                        r.in_file = Some(InFile {
                            path: shared.clone(),
                            start,
                            len,
                            states,
                        });
                    }
                    r
                })
            }
            Body::Long { head, len, states } => {
                Record::parse_long(&head, &shared, start, len, states)
            }
        };
        if let Some((i, e, _)) = pending.take() {
            // A broken line with more after it: not a cut last line.
            return Err(format!("{}:{}: {}", path.display(), i, e));
        }
        match parsed {
            Ok(r) => {
                count += 1;
                foreign |= r.value.get("status").and_then(Value::as_str).is_none();
                match &mut each {
                    Some(f) => f(slim(r)),
                    None => records.push(r),
                }
                good_len = offset;
            }
            Err(e) => pending = Some((n, e, start)),
        }
    }
    let dropped_tail = pending.is_some();
    if let Some((_, _, start)) = pending {
        good_len = start;
    }
    Ok(Loaded {
        records,
        good_len,
        dropped_tail,
        count,
        foreign,
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
            r.write_line(&mut f)?;
            f.write_all(b"\n")?;
        }
        f.flush()?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Rewrites the JSON Lines file `path` sorted by the records' `file`
/// (stable: records of one file keep their order), through a temporary
/// file renamed over it, leaving out the records whose index (counting
/// records, not blank lines, from 0) is in `drop`. Memory: one index entry
/// per record (its file and byte range), not the lines: each line is copied
/// from the file.
pub fn rewrite_sorted(path: &Path, drop: &std::collections::HashSet<usize>) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut index: Vec<(String, u64, u64)> = Vec::new();
    {
        let file = std::fs::File::open(path)?;
        let mut lines = Lines::new(std::io::BufReader::with_capacity(1 << 16, file), LONG_LINE);
        let mut n = 0usize;
        while let Some(raw) = lines.next_line()? {
            let (file, len) = match &raw.body {
                Body::Whole(line) if line.trim().is_empty() => continue,
                Body::Whole(line) => (file_field(line), line.len() as u64),
                Body::Long { head, len, .. } => (file_field(head), *len),
            };
            let keep = !drop.contains(&n);
            n += 1;
            if keep {
                index.push((file.unwrap_or_default(), raw.start, len));
            }
        }
    }
    index.sort_by(|a, b| a.0.cmp(&b.0));
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    let tmp: PathBuf = path.with_file_name(name);
    let written = (|| {
        let mut src = std::fs::File::open(path)?;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        for (_, start, len) in &index {
            src.seek(SeekFrom::Start(*start))?;
            std::io::copy(&mut (&mut src).take(*len), &mut f)?;
            f.write_all(b"\n")?;
        }
        f.flush()
    })();
    written
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// The `file` field of a result line, read without building the rest:
/// ptxmc writes it first (`{"file":"...`); any other line is parsed.
fn file_field(line: &str) -> Option<String> {
    const KEY: &str = "{\"file\":";
    if let Some(rest) = line.strip_prefix(KEY) {
        let mut de = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        if let Some(Ok(f)) = de.next() {
            return Some(f);
        }
    }
    Record::parse(line).ok().map(|r| r.file)
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
    fn a_rewrite_sorts_by_file_from_the_file_itself_and_drops_superseded_records() {
        let dir = std::env::temp_dir().join(format!("ptxmc-rewrite-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let p = dir.join("r.jsonl");
        let lines = [
            r#"{"file":"c","status":"ok"}"#,
            r#"{"file":"a","status":"read-error"}"#,
            "",
            r#"{"status":"ok","file":"b"}"#,
            r#"{"file":"a","status":"ok","n":1}"#,
            r#"{"file":"a\"q","status":"ok"}"#,
        ];
        std::fs::write(&p, lines.join("\n") + "\n").expect("write");
        // Record 1 (the read-error, counting records, not the blank line).
        rewrite_sorted(&p, &[1].into_iter().collect()).expect("rewrites");
        let got = std::fs::read_to_string(&p).expect("read");
        let want = [lines[4], lines[5], lines[3], lines[0]].join("\n") + "\n";
        assert_eq!(got, want);
        let mut seen = Vec::new();
        let l = load_each(&p, &mut |r| seen.push(r)).expect("loads");
        assert_eq!((l.count, l.foreign, l.records.len()), (4, false, 0));
        assert!(seen
            .iter()
            .all(|r| r.line.is_empty() && r.value.get("n").is_none()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn states_stay_text_and_the_rest_is_parsed() {
        let line = r#"{"file":"a \"states\":[","name":"n","states":[{"values":{"x[1]":1,"q\"]":2},"count":3}],"time_ms":1.5}"#;
        let r = Record::parse(line).expect("parses");
        assert_eq!(r.file, "a \"states\":[");
        assert_eq!(r.value["states"], serde_json::json!([]));
        assert_eq!(r.value["time_ms"], 1.5);
        assert_eq!(
            r.states_text(),
            r#"[{"values":{"x[1]":1,"q\"]":2},"count":3}]"#
        );
        let mut counts = Vec::new();
        r.each_state(&mut |raw| {
            let v: Value = serde_json::from_slice(raw).unwrap_or_default();
            counts.push(v["count"].as_u64());
        })
        .expect("walks");
        assert_eq!(counts, [Some(3)]);
        let other = Record::parse(&line.replace("\"count\":3", "\"count\":4")).expect("parses");
        assert!(!r.same_result(&other));
        let later = Record::parse(&line.replace("1.5", "2.5")).expect("parses");
        assert!(r.same_result(&later));
        assert_eq!(r.line, line);
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
