//! `ptxmc compare`: the tests whose verdicts differ between two JSON Lines
//! result files (like herd's mcompare7).

use super::args::CompareArgs;
use super::collect::normalise;
use super::results::{self, Record};
use super::{EXIT_ERROR, EXIT_MISMATCH, EXIT_OK};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::path::Path;

/// One final state as herd prints it: `1:r0=1; 1:r1=0;`.
fn state_text(s: &Value) -> String {
    match s.get("values").and_then(Value::as_object) {
        Some(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={v};"))
            .collect::<Vec<_>>()
            .join(" "),
        None => "?".into(),
    }
}

/// [`state_text`] of one state as written.
fn state_text_of(raw: &[u8]) -> String {
    serde_json::from_slice::<Value>(raw)
        .map(|v| state_text(&v))
        .unwrap_or_else(|_| "?".into())
}

/// What of a state as written identifies it: its `"values":{...}` part
/// (the count after it left out), as one writer prints it; the whole text
/// when it has no count.
fn values_part(raw: &[u8]) -> &[u8] {
    const COUNT: &[u8] = b",\"count\":";
    match raw.windows(COUNT.len()).rposition(|w| w == COUNT) {
        Some(i) => &raw[..i],
        None => raw,
    }
}

/// A 128-bit hash of a state's values as written.
fn raw_hash(raw: &[u8]) -> u128 {
    use std::hash::{Hash, Hasher};
    let half = |salt: u8| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        salt.hash(&mut h);
        values_part(raw).hash(&mut h);
        h.finish()
    };
    (u128::from(half(1)) << 64) | u128::from(half(2))
}

/// The distinct states of a record, as sorted hashes: one state in memory
/// at a time, 16 bytes per state kept, nothing parsed.
fn state_hashes(r: &Record) -> Result<Vec<u128>, String> {
    let mut v = Vec::new();
    r.each_state(&mut |raw| v.push(raw_hash(raw)))?;
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// The texts of the states of `r` whose hashes are in `only` (sorted):
/// only those are parsed.
fn texts_of(r: &Record, only: &[u128]) -> Result<BTreeSet<String>, String> {
    let mut out = BTreeSet::new();
    if only.is_empty() {
        return Ok(out);
    }
    r.each_state(&mut |raw| {
        if only.binary_search(&raw_hash(raw)).is_ok() {
            out.insert(state_text_of(raw));
        }
    })?;
    Ok(out)
}

/// Sorted `a` minus sorted `b`.
fn minus(a: &[u128], b: &[u128]) -> Vec<u128> {
    a.iter()
        .filter(|x| b.binary_search(x).is_err())
        .copied()
        .collect()
}

fn field(r: &Record, k: &str) -> String {
    match r.value.get(k) {
        None | Some(Value::Null) => "-".into(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// How `a` and `b` differ: one line per field that differs; for the final
/// states, the counts then one line per state only one of them has.
///
/// The states are read twice, one at a time, never held: first as hashes
/// (which states only one side has), then for the texts of those.
pub fn differences(a: &Record, b: &Record) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for k in ["status", "condition_holds", "liveness_holds", "observation"] {
        let (x, y) = (field(a, k), field(b, k));
        if x != y {
            out.push(format!("{k}: {x} | {y}"));
        }
    }
    // The same text is the same states (one writer, sorted); only states
    // that differ as text are read state by state.
    if a.same_states(b)? {
        return Ok(out);
    }
    let (ha, hb) = (state_hashes(a)?, state_hashes(b)?);
    let (only_a, only_b) = (minus(&ha, &hb), minus(&hb, &ha));
    let (ta, tb) = (texts_of(a, &only_a)?, texts_of(b, &only_b)?);
    // (States written differently but equal as text are the same.)
    let (ta, tb): (Vec<&String>, Vec<&String>) =
        (ta.difference(&tb).collect(), tb.difference(&ta).collect());
    if !ta.is_empty() || !tb.is_empty() {
        // Like diff: `<` only in the first file, `>` only in the second.
        let (na, nb) = (
            ha.len() - (only_a.len() - ta.len()),
            hb.len() - (only_b.len() - tb.len()),
        );
        out.push(format!("states: {na} | {nb}"));
        for st in ta {
            out.push(format!("  < {st}"));
        }
        for st in tb {
            out.push(format!("  > {st}"));
        }
    }
    Ok(out)
}

fn keyed(records: Vec<Record>, by_name: bool) -> BTreeMap<String, Record> {
    let mut m = BTreeMap::new();
    for r in records {
        let k = if by_name {
            r.name().to_string()
        } else {
            normalise(Path::new(&r.file)).display().to_string()
        };
        m.entry(k).or_insert(r);
    }
    m
}

/// Runs made from different folders name the same file differently
/// (`corpus/idioms/a.litmus` from the repository, `idioms/a.litmus` from
/// `corpus/`, or an absolute path): each key of `b` found in `a` under no
/// spelling is renamed to the one key of `a`, not in `b` either, whose path
/// ends with it or that it ends with (whole components). Keys with no such
/// key, or with several, stay as they are.
fn align(a: &BTreeMap<String, Record>, b: BTreeMap<String, Record>) -> BTreeMap<String, Record> {
    let only_a: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
    if only_a.is_empty() {
        return b;
    }
    let mut by_file: HashMap<&std::ffi::OsStr, Vec<&String>> = HashMap::new();
    for k in &only_a {
        if let Some(f) = Path::new(k.as_str()).file_name() {
            by_file.entry(f).or_default().push(k);
        }
    }
    let mut taken: HashSet<&String> = HashSet::new();
    let mut out = BTreeMap::new();
    for (k, r) in b {
        let mut key = k.clone();
        if !a.contains_key(&k) {
            let p = Path::new(&k);
            let fits: Vec<&&String> = p
                .file_name()
                .and_then(|f| by_file.get(f))
                .map(|c| {
                    c.iter()
                        .filter(|x| {
                            let q = Path::new(x.as_str());
                            q.ends_with(p) || p.ends_with(q)
                        })
                        .collect()
                })
                .unwrap_or_default();
            if let [one] = fits.as_slice() {
                if taken.insert(one) {
                    key = (**one).clone();
                }
            }
        }
        out.entry(key).or_insert(r);
    }
    out
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &CompareArgs) -> u8 {
    let load = |p: &std::path::Path| results::load_warn(p);
    let (a, b) = match (load(&args.a), load(&args.b)) {
        (Ok(a), Ok(b)) => {
            let (a, b) = (keyed(a, args.by_name), keyed(b, args.by_name));
            let b = if args.by_name { b } else { align(&a, b) };
            (a, b)
        }
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (an, bn) = (args.a.display(), args.b.display());
    let mut differ = 0usize;
    let mut common = 0usize;
    for (k, ra) in &a {
        let Some(rb) = b.get(k) else { continue };
        common += 1;
        let d = match differences(ra, rb) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
        };
        if d.is_empty() {
            continue;
        }
        differ += 1;
        if !args.quiet {
            let name = ra.name();
            let title = if args.by_name || name.is_empty() {
                k.clone()
            } else {
                format!("{name} ({k})")
            };
            let _ = writeln!(out, "{title}");
            for l in d {
                let _ = writeln!(out, "  {l}");
            }
        }
    }
    let only_a: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
    let only_b: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
    if !args.quiet {
        for k in &only_a {
            let _ = writeln!(out, "only in {an}: {k}");
        }
        for k in &only_b {
            let _ = writeln!(out, "only in {bn}: {k}");
        }
    }
    let _ = writeln!(
        out,
        "compare: {} tests in both, {} differ; {} only in {}, {} only in {}",
        common,
        differ,
        only_a.len(),
        an,
        only_b.len(),
        bn
    );
    if differ > 0 || !only_a.is_empty() || !only_b.is_empty() {
        EXIT_MISMATCH
    } else {
        EXIT_OK
    }
}
