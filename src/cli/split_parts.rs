//! `ptxmc run --split K/N`: the JSON line of one part of a test's
//! exploration, and `ptxmc merge` of the N parts back into the line the
//! undivided `ptxmc run --json` writes (the checker's side is
//! `ptxmc_checker::explore::split`; docs/scale-out.md).
//!
//! A part's line has the fields of a result line that the batch machinery
//! reads (`file`, `name`, `status`, this part's counts, `time_ms`), no
//! verdict (`condition_holds` and `liveness_holds` are null: a part has
//! none), and a `split` object: the part, the number of parts, the identity
//! (digests of the test text and of the plan, the reading of the model, the
//! options, the ptxmc version), the test text itself (so that the merge needs
//! no access to the files) and the pieces of the exploration.

use super::args::RunArgs;
use super::outcome::{Outcome, OutcomeKind};
use super::results::Record;
use super::{json, kernel_cmd};
use ptxmc_checker::explore::split::{self, Fnv, PartResult, Piece, StopKind, Tally};
use ptxmc_checker::{Options, Stats, Status, Strategy};
use ptxmc_frontend::ir::Test;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most parts a test may be split into.
const MAX_PARTS: u32 = 100_000;

/// `K/N` with 1 <= K <= N.
pub fn parse(s: &str) -> Result<(u32, u32), String> {
    let (k, n) = k_of_n("--split", s, MAX_PARTS as usize)?;
    Ok((k as u32, n as u32))
}

/// `K/N` with 1 <= K <= N <= `max`, the argument of `flag` (`--split`, and
/// `--shard` for batches).
pub fn k_of_n(flag: &str, s: &str, max: usize) -> Result<(usize, usize), String> {
    let bad = || {
        let bound = if max == usize::MAX {
            String::new()
        } else {
            format!(" <= {max}")
        };
        format!("{flag} expects K/N with 1 <= K <= N{bound} (for example 2/8), found `{s}`")
    };
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n || n > max {
        return Err(bad());
    }
    Ok((k, n))
}

/// `--split` of `args`, refused with what it cannot go with.
pub fn of(args: &RunArgs, readings: usize) -> Result<Option<(u32, u32)>, String> {
    let Some(s) = &args.split else {
        return Ok(None);
    };
    let kn = parse(s)?;
    let refuse = |what: &str| Err(format!("--split cannot go with {what}"));
    if args.strategy.0 != Strategy::Dpor {
        return refuse("--strategy other than dpor (only the DPOR tree is split)");
    }
    if readings > 1 {
        return refuse("several readings of the model (split one reading at a time)");
    }
    if args.graph.is_some() {
        return refuse("--graph (a part has no witness; draw it from an undivided run)");
    }
    if !args.expect.is_empty() {
        return refuse("--expect (a part has no verdict: give --expect to `ptxmc merge`)");
    }
    Ok(Some(kn))
}

fn hex(x: u64) -> String {
    format!("{x:016x}")
}

fn digest(s: &str) -> u64 {
    let mut h = Fnv::default();
    h.bytes(s.as_bytes());
    h.0
}

/// The options that decide the exploration, in words.
fn options_text(opts: &Options) -> String {
    format!(
        "strategy={} unroll={} max_executions={:?} timeout={:?} seed={} check_duplicates={}",
        opts.strategy.name(),
        opts.unroll,
        opts.max_executions,
        opts.timeout.map(|t| t.as_secs_f64()),
        opts.seed,
        opts.check_duplicates
    )
}

/// The identity fields of a part, without the part number.
fn identity(src: &str, opts: &Options, n: u32, plan: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("parts".into(), json!(n));
    m.insert("test".into(), json!(hex(digest(src))));
    m.insert("model".into(), json!(opts.reading.name));
    m.insert("options".into(), json!(options_text(opts)));
    m.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    m.insert("plan".into(), json!(plan));
    let id = digest(&Value::Object(m.clone()).to_string());
    m.insert("id".into(), json!(hex(id)));
    m
}

fn status_value(s: &Status) -> (Value, Value) {
    (
        json!(s.name()),
        s.message().map_or(Value::Null, Value::from),
    )
}

fn tally_value(t: &Tally) -> Value {
    json!({
        "positive": t.positive,
        "negative": t.negative,
        "executions": t.stats.executions,
        "blocked": t.stats.blocked,
        "pruned": t.stats.pruned,
        "duplicates": t.stats.duplicates,
        "bound_hits": t.stats.bound_hits,
        "liveness_violation": t.liveness_violation,
        "bound_note": t.bound_note,
        "undefined": t.undefined.as_ref().map(|((a, b, c, d), m)| json!([[a, b, c, d], m])),
        "finals": t.states.iter().map(|(v, n)| json!([v, n])).collect::<Vec<_>>(),
    })
}

/// A part of a checked test: its JSON line, and the text printed for it.
pub fn check(
    file: &Path,
    src: &str,
    test: &Test,
    opts: &Options,
    k: u32,
    n: u32,
) -> (String, Vec<u8>) {
    let part = split::check_part(test, opts, k, n);
    let mut stats = Stats::default();
    let (mut positive, mut negative) = (0u64, 0u64);
    for p in &part.pieces {
        let s = &p.tally.stats;
        stats.executions += s.executions;
        stats.blocked += s.blocked;
        stats.pruned += s.pruned;
        stats.duplicates += s.duplicates;
        stats.bound_hits += s.bound_hits;
        positive += p.tally.positive;
        negative += p.tally.negative;
    }
    let (status, message) = status_value(&part.status);
    let mut sp = Map::new();
    sp.insert("format".into(), json!(1));
    sp.insert("part".into(), json!(k));
    sp.extend(identity(src, opts, n, &hex(part.plan)));
    sp.insert("roots".into(), json!(part.roots));
    sp.insert("source".into(), json!(src));
    let pieces: Vec<Value> = part
        .pieces
        .iter()
        .map(|p| {
            let mut v = tally_value(&p.tally);
            if let Some(o) = v.as_object_mut() {
                let stop = match p.stop {
                    None => Value::Null,
                    Some(StopKind::Stop) => json!("stop"),
                    Some(StopKind::Limit) => json!("limit"),
                };
                let mut m = Map::new();
                m.insert("at".into(), json!([p.at.0, p.at.1]));
                m.insert("stop".into(), stop);
                m.extend(std::mem::take(o));
                *o = m;
            }
            v
        })
        .collect();
    sp.insert("pieces".into(), Value::Array(pieces));
    let line = json!({
        "file": file.display().to_string(),
        "name": test.name,
        "status": status,
        "message": message,
        "condition_holds": null,
        "liveness_holds": null,
        "positive": positive,
        "negative": negative,
        "executions": stats.executions,
        "blocked": stats.blocked,
        "pruned": stats.pruned,
        "duplicates": stats.duplicates,
        "bound_hits": stats.bound_hits,
        "split": Value::Object(sp),
        "model": opts.reading.name,
        "time_ms": part.time.as_secs_f64() * 1000.0,
    })
    .to_string();
    let text = format!(
        "{}: part {k}/{n} ({} of {} frontier subtrees' share): {} executions, {} blocked, {} pruned; status {}; no verdict until `ptxmc merge` of the {n} parts\n",
        file.display(),
        test.name,
        part.roots,
        stats.executions,
        stats.blocked,
        stats.pruned,
        part.status.name()
    );
    (line, text.into_bytes())
}

/// The line of a file that did not read or parse, as part `k` of `n`: the
/// undivided run's line, kept whole in the `split` object.
pub fn error_line(line: &str, opts: &Options, k: u32, n: u32) -> String {
    let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(line) else {
        return line.to_string();
    };
    let mut sp = Map::new();
    sp.insert("format".into(), json!(1));
    sp.insert("part".into(), json!(k));
    sp.extend(identity(line, opts, n, "none"));
    sp.insert("line".into(), json!(line));
    let time = m.remove("time_ms");
    m.insert("split".into(), Value::Object(sp));
    if let Some(t) = time {
        m.insert("time_ms".into(), t);
    }
    Value::Object(m).to_string()
}

/// The parts of `--split` runs met by `ptxmc merge`, by test file.
#[derive(Default)]
pub struct Parts {
    by_file: BTreeMap<String, Vec<(Record, PathBuf)>>,
}

fn field<'v>(r: &'v Record, key: &str) -> &'v Value {
    r.value
        .get("split")
        .and_then(|s| s.get(key))
        .unwrap_or(&Value::Null)
}

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

impl Parts {
    /// Keeps `r` when it is a part (from the file `from`); gives it back otherwise.
    pub fn take(&mut self, r: Record, from: &Path) -> Option<Record> {
        if r.value.get("split").is_none() {
            return Some(r);
        }
        self.by_file
            .entry(r.file.clone())
            .or_default()
            .push((r, from.to_path_buf()));
        None
    }

    /// Each test's parts merged into the line of the undivided run, with the
    /// file of its first part; refuses missing, duplicated or mismatched
    /// parts, naming them.
    pub fn merge(self) -> Result<Vec<(Record, PathBuf)>, String> {
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for (file, parts) in self.by_file {
            match merge_test(&file, parts) {
                Ok(r) => out.push(r),
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(errors.join("\nerror: "))
        }
    }
}

fn merge_test(file: &str, mut parts: Vec<(Record, PathBuf)>) -> Result<(Record, PathBuf), String> {
    parts.sort_by_key(|(r, _)| num(field(r, "part")));
    let (first, first_from) = &parts[0];
    let n = num(field(first, "parts"));
    let name = |r: &Record, from: &Path| {
        format!(
            "part {}/{} in {}",
            num(field(r, "part")),
            num(field(r, "parts")),
            from.display()
        )
    };
    for (r, from) in &parts {
        for (key, what) in [
            ("format", "a different format of parts"),
            ("parts", "a different number of parts"),
            ("version", "a different ptxmc version"),
            ("test", "a different test text"),
            ("model", "a different reading of the model"),
            ("options", "different options"),
            ("plan", "a different plan (frontier)"),
            ("id", "a different identity"),
        ] {
            if field(r, key) != field(first, key) {
                return Err(format!(
                    "{file}: {} does not belong with {}: {what} ({} vs {})",
                    name(r, from),
                    name(first, first_from),
                    field(r, key),
                    field(first, key)
                ));
            }
        }
    }
    for w in parts.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if num(field(&a.0, "part")) == num(field(&b.0, "part")) {
            return Err(format!(
                "{file}: part {}/{n} appears twice: in {} and {}",
                num(field(&a.0, "part")),
                a.1.display(),
                b.1.display()
            ));
        }
    }
    let have: Vec<u64> = parts.iter().map(|(r, _)| num(field(r, "part"))).collect();
    let missing: Vec<String> = (1..=n)
        .filter(|k| !have.contains(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if n == 0 || !missing.is_empty() || have.iter().any(|&k| k == 0 || k > n) {
        return Err(format!(
            "{file}: part {} missing (have {} of {n} parts)",
            missing.join(", part "),
            have.len()
        ));
    }
    let from = first_from.clone();
    if let Some(line) = field(first, "line").as_str() {
        // A file that did not read or parse: the same line in every part.
        let r = Record::parse(line).map_err(|e| format!("{file}: {e}"))?;
        return Ok((r, from));
    }
    let src = field(first, "source")
        .as_str()
        .unwrap_or_default()
        .to_string();
    let test = kernel_cmd::parse(Path::new(file), &src).map_err(|e| {
        format!(
            "{file}: the parts' test text does not parse: {}",
            e.render(file, &src)
        )
    })?;
    let results: Vec<PartResult> = parts
        .iter()
        .map(|(r, from)| part_result(r).map_err(|e| format!("{file}: {}: {e}", name(r, from))))
        .collect::<Result<_, _>>()?;
    let report = split::merge(&test, &results);
    let model = field(first, "model")
        .as_str()
        .unwrap_or_default()
        .to_string();
    let o = Outcome {
        file: PathBuf::from(file),
        name: test.name.clone(),
        kind: OutcomeKind::Checked {
            test: Box::new(test),
            report,
        },
    };
    let line = json::with_model(json::outcome_line(&o), &model);
    let r = Record::parse(&line).map_err(|e| format!("{file}: {e}"))?;
    Ok((r, from))
}

fn status_of(name: &str, message: Option<&str>) -> Result<Status, String> {
    let m = message.unwrap_or_default().to_string();
    Ok(match name {
        "ok" => Status::Ok,
        "unsupported" => Status::Unsupported(m),
        "undefined" => Status::Undefined(m),
        "limit" => Status::Limit(m),
        other => return Err(format!("status `{other}` of a part")),
    })
}

fn part_result(r: &Record) -> Result<PartResult, String> {
    let bad = |what: &str| format!("a broken part ({what})");
    let status = status_of(r.status(), r.value.get("message").and_then(Value::as_str))?;
    let pieces = field(r, "pieces")
        .as_array()
        .ok_or_else(|| bad("no pieces"))?;
    let mut out = Vec::with_capacity(pieces.len());
    for p in pieces {
        let at = p
            .get("at")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("at"))?;
        let at = (
            at.first()
                .and_then(Value::as_u64)
                .ok_or_else(|| bad("at"))? as u32,
            at.get(1).and_then(Value::as_u64).ok_or_else(|| bad("at"))? as u32,
        );
        let stop = match p.get("stop").and_then(Value::as_str) {
            None => None,
            Some("stop") => Some(StopKind::Stop),
            Some("limit") => Some(StopKind::Limit),
            Some(_) => return Err(bad("stop")),
        };
        let n = |k: &str| p.get(k).and_then(Value::as_u64).unwrap_or(0);
        let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
        let undefined = match p.get("undefined") {
            Some(Value::Array(u)) => {
                let pos: Vec<u64> = u
                    .first()
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_u64).collect())
                    .unwrap_or_default();
                let msg = u.get(1).and_then(Value::as_str).unwrap_or_default();
                if pos.len() != 4 {
                    return Err(bad("undefined"));
                }
                Some((
                    (pos[0] as u32, pos[1] as u32, pos[2] as u32, pos[3] as u32),
                    msg.to_string(),
                ))
            }
            _ => None,
        };
        let mut states = Vec::new();
        for f in p
            .get("finals")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("finals"))?
        {
            let vals: Vec<i64> = f
                .get(0)
                .and_then(Value::as_array)
                .ok_or_else(|| bad("finals"))?
                .iter()
                .map(|x| x.as_i64().ok_or_else(|| bad("finals")))
                .collect::<Result<_, _>>()?;
            states.push((vals, f.get(1).and_then(Value::as_u64).unwrap_or(0)));
        }
        out.push(Piece {
            at,
            stop,
            tally: Tally {
                states,
                positive: n("positive"),
                negative: n("negative"),
                liveness_violation: s("liveness_violation"),
                bound_note: s("bound_note"),
                undefined,
                stats: Stats {
                    executions: n("executions"),
                    blocked: n("blocked"),
                    pruned: n("pruned"),
                    duplicates: n("duplicates"),
                    bound_hits: n("bound_hits"),
                },
            },
        });
    }
    let time = r
        .value
        .get("time_ms")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    Ok(PartResult {
        status,
        pieces: out,
        plan: 0,
        roots: num(field(r, "roots")) as u32,
        time: Duration::try_from_secs_f64(time / 1000.0).unwrap_or_default(),
    })
}
