//! JSON Lines output: one object per test, written straight into a byte
//! buffer (no `serde_json::Value` tree: a test with tens of thousands of
//! final states would otherwise cost a map, a `String` key and a `Value`
//! per register per state). Scalars and strings go through `serde_json`'s
//! own serializer, so numbers and escapes are written exactly as
//! `Value::to_string` writes them.

use super::herd;
use super::outcome::{Outcome, OutcomeKind};
use ptxmc_checker::{Report, Status};
use ptxmc_frontend::ir::Test;
use serde_json::{Map, Value};

/// The JSON line of one test (no newline). Field order is stable; `time_ms`
/// is the only field that differs between two runs of the same tests.
///
/// Fields, in order: `file`, `name`, `status`, `message`, then for a checked
/// test `kind`, `condition`, `condition_holds`, `liveness_holds`,
/// `liveness_note`, `observation`, `positive`, `negative`, `executions`,
/// `blocked`, `pruned`, `duplicates`, `bound_hits`, `states` (each
/// `{"values":{TERM:VALUE,...},"count":N}`), `time_ms`; for a file that did
/// not read or parse `condition_holds` .. `executions` are null and
/// `time_ms` is 0.
pub fn outcome_line(o: &Outcome) -> String {
    let mut w = Vec::with_capacity(estimate(o));
    let file = o.file.display().to_string();
    w.extend_from_slice(b"{\"file\":");
    string(&mut w, &file);
    w.extend_from_slice(b",\"name\":");
    string(&mut w, &o.name);
    match &o.kind {
        OutcomeKind::Error { status, message } => {
            w.extend_from_slice(b",\"status\":");
            string(&mut w, status);
            w.extend_from_slice(b",\"message\":");
            string(&mut w, message);
            w.extend_from_slice(
                b",\"condition_holds\":null,\"liveness_holds\":null,\"observation\":null,\
                  \"positive\":null,\"negative\":null,\"executions\":null,\"time_ms\":",
            );
            float(&mut w, 0.0);
        }
        OutcomeKind::Checked { test, report: r } => checked(&mut w, test, r),
    }
    w.push(b'}');
    // `serde_json` writes UTF-8 and every literal above is ASCII, so the
    // lossy branch is never taken; it only avoids an `unwrap`.
    String::from_utf8(w).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `line` (an object from [`outcome_line`]) with the field `model` last:
/// the reading of the model the test was checked under.
pub fn with_model(mut line: String, model: &str) -> String {
    if line.ends_with('}') {
        line.pop();
        line.push_str(",\"model\":");
        let mut w = Vec::new();
        string(&mut w, model);
        line.push_str(&String::from_utf8_lossy(&w));
        line.push('}');
    }
    line
}

/// The fields of a checked test after `file` and `name`.
fn checked(w: &mut Vec<u8>, test: &Test, r: &Report) {
    // An estimate (`--strategy estimate`) is no verdict: its verdicts and
    // counts are null, it has no states, and its `estimate` object comes
    // before `time_ms`.
    let estimate = super::estimate_view::of(r);
    w.extend_from_slice(b",\"status\":");
    string(w, r.status.name());
    w.extend_from_slice(b",\"message\":");
    match &r.status {
        Status::Ok => w.extend_from_slice(b"null"),
        Status::Unsupported(m) | Status::Undefined(m) | Status::Limit(m) => string(w, m),
        Status::Estimate(e) => string(w, &e.to_string()),
    }
    w.extend_from_slice(b",\"kind\":");
    string(w, herd::kind(test.condition.quantifier));
    w.extend_from_slice(b",\"condition\":");
    string(w, &herd::condition(test));
    // A verdict only for a test checked to the end (status `ok`): null for
    // `unsupported`, `limit` and `undefined`, whatever the strategy.
    w.extend_from_slice(b",\"condition_holds\":");
    option_bool(w, r.verdict());
    w.extend_from_slice(b",\"liveness_holds\":");
    option_bool(w, r.liveness_verdict());
    w.extend_from_slice(b",\"liveness_note\":");
    match (&r.liveness_note, r.liveness_verdict()) {
        (Some(n), Some(_)) => string(w, n),
        _ => w.extend_from_slice(b"null"),
    }
    w.extend_from_slice(b",\"observation\":");
    let (positive, negative) = herd::shown_counts(r);
    match r.verdict() {
        Some(_) => string(w, herd::observation(positive, negative)),
        None => w.extend_from_slice(b"null"),
    }
    let unsupported = matches!(r.status, Status::Unsupported(_));
    for (key, n) in [
        ("positive", positive),
        ("negative", negative),
        ("executions", r.stats.executions),
        ("blocked", r.stats.blocked),
        ("pruned", r.stats.pruned),
        ("duplicates", r.stats.duplicates),
        ("bound_hits", r.stats.bound_hits),
    ] {
        w.extend_from_slice(b",\"");
        w.extend_from_slice(key.as_bytes());
        w.extend_from_slice(b"\":");
        if estimate.is_some() || (unsupported && matches!(key, "positive" | "negative")) {
            // Not counted: what the explorer saw before the unsupported
            // construct depends on the explorer.
            w.extend_from_slice(b"null");
        } else {
            herd::push_u64(w, n);
        }
    }
    w.extend_from_slice(b",\"states\":[");
    if estimate.is_none() {
        states(w, test, r);
    }
    w.push(b']');
    if let Some(e) = estimate {
        w.extend_from_slice(b",\"estimate\":");
        w.extend_from_slice(super::estimate_view::object(e).to_string().as_bytes());
    }
    w.extend_from_slice(b",\"time_ms\":");
    float(w, r.time.as_secs_f64() * 1000.0);
}

/// The final states, each `{"values":{...},"count":N}`, comma-separated.
///
/// The values object is the map of term names to values: a name that occurs
/// twice in [`Report::state_terms`] appears once, at its first position,
/// with the value of its last occurrence (what inserting the pairs in order
/// into a JSON map gives).
fn states(w: &mut Vec<u8>, test: &Test, r: &Report) {
    // The names once per test, each already quoted and followed by `:`.
    let keys: Vec<Vec<u8>> = r
        .state_terms
        .iter()
        .map(|t| {
            let mut k = Vec::new();
            string(&mut k, &herd::term(test, t));
            k.push(b':');
            k
        })
        .collect();
    let distinct = keys.iter().enumerate().all(|(i, k)| !keys[..i].contains(k));
    // Slow path only: (position of the key's first occurrence, value).
    let mut merged: Vec<(usize, i64)> = Vec::new();
    for (i, (st, n)) in herd::shown_states(r).iter().enumerate() {
        if i > 0 {
            w.push(b',');
        }
        w.extend_from_slice(b"{\"values\":{");
        if distinct {
            for (j, (k, v)) in keys.iter().zip(&st.0).enumerate() {
                if j > 0 {
                    w.push(b',');
                }
                w.extend_from_slice(k);
                herd::push_i64(w, *v);
            }
        } else {
            merged.clear();
            for (j, (k, v)) in keys.iter().zip(&st.0).enumerate() {
                let first = keys[..j].iter().position(|x| x == k).unwrap_or(j);
                match merged.iter_mut().find(|(p, _)| *p == first) {
                    Some(slot) => slot.1 = *v,
                    None => merged.push((first, *v)),
                }
            }
            for (j, (p, v)) in merged.iter().enumerate() {
                if j > 0 {
                    w.push(b',');
                }
                w.extend_from_slice(&keys[*p]);
                herd::push_i64(w, *v);
            }
        }
        w.extend_from_slice(b"},\"count\":");
        herd::push_u64(w, *n);
        w.push(b'}');
    }
}

/// Bytes to reserve for the line of `o`: enough for the states of a
/// checked test with small values, so the buffer is rarely grown.
fn estimate(o: &Outcome) -> usize {
    match &o.kind {
        OutcomeKind::Error { message, .. } => 512 + message.len(),
        OutcomeKind::Checked { report: r, .. } => {
            let per_state = 32 + r.state_terms.len() * 12;
            1024 + r.states.len() * per_state
        }
    }
}

/// A JSON string, escaped by `serde_json`.
fn string(w: &mut Vec<u8>, s: &str) {
    // Writing a `&str` into a `Vec<u8>` cannot fail (no I/O, no map keys).
    let _ = serde_json::to_writer(&mut *w, s);
}

/// A JSON number from an `f64`, formatted by `serde_json` (`null` if not finite).
fn float(w: &mut Vec<u8>, x: f64) {
    // Writing an `f64` into a `Vec<u8>` cannot fail.
    let _ = serde_json::to_writer(&mut *w, &x);
}

fn option_bool(w: &mut Vec<u8>, b: Option<bool>) {
    w.extend_from_slice(match b {
        Some(true) => b"true",
        Some(false) => b"false",
        None => b"null",
    });
}

/// The fields of [`outcome_line`] that the summary and the expectation
/// comparison read (see [`super::results::Record`]), in the same order, as
/// a small map: built without the final states.
pub fn summary(o: &Outcome) -> Value {
    let mut m = Map::with_capacity(10);
    m.insert("file".into(), Value::from(o.file.display().to_string()));
    m.insert("name".into(), Value::from(o.name.as_str()));
    match &o.kind {
        OutcomeKind::Error { status, .. } => {
            m.insert("status".into(), Value::from(*status));
            m.insert("condition_holds".into(), Value::Null);
            m.insert("liveness_holds".into(), Value::Null);
            m.insert("executions".into(), Value::Null);
            m.insert("time_ms".into(), Value::from(0.0));
        }
        OutcomeKind::Checked { report: r, .. } if super::estimate_view::of(r).is_some() => {
            // An estimate: no verdict, no count.
            m.insert("status".into(), Value::from(r.status.name()));
            for key in ["condition_holds", "liveness_holds", "executions"] {
                m.insert(key.into(), Value::Null);
            }
            m.insert("time_ms".into(), Value::from(r.time.as_secs_f64() * 1000.0));
        }
        OutcomeKind::Checked { report: r, .. } => {
            m.insert("status".into(), Value::from(r.status.name()));
            m.insert("condition_holds".into(), Value::from(r.verdict()));
            m.insert("liveness_holds".into(), Value::from(r.liveness_verdict()));
            m.insert("executions".into(), Value::from(r.stats.executions));
            m.insert("blocked".into(), Value::from(r.stats.blocked));
            m.insert("pruned".into(), Value::from(r.stats.pruned));
            m.insert("duplicates".into(), Value::from(r.stats.duplicates));
            m.insert("time_ms".into(), Value::from(r.time.as_secs_f64() * 1000.0));
        }
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxmc_checker::{FinalState, Options};
    use std::path::PathBuf;

    const SRC: &str = "PTX CoRR-json\n\"json test\"\n{\nx=0;\n}\n \
        P0@cta 0,gpu 0         | P1@cta 1,gpu 0         ;\n \
        st.relaxed.cta x, 1    | ld.relaxed.cta r0, x   ;\n \
                               | ld.relaxed.cta r1, x   ;\n\
        exists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

    fn checked() -> Outcome {
        let test = ptxmc_frontend::parse(SRC).expect("the test parses");
        let report = ptxmc_checker::check(&test, &Options::default());
        Outcome {
            file: PathBuf::from("dir/a \"q\".litmus"),
            name: test.name.clone(),
            kind: OutcomeKind::Checked {
                test: Box::new(test),
                report,
            },
        }
    }

    /// The object as `ptxmc` built it before lines were streamed: a map per
    /// state, filled in term order (a repeated name keeps its first place
    /// and takes its last value).
    fn states_as_values(o: &Outcome) -> Value {
        let OutcomeKind::Checked { test, report: r } = &o.kind else {
            return Value::Null;
        };
        let names: Vec<String> = r.state_terms.iter().map(|t| herd::term(test, t)).collect();
        Value::Array(
            r.states
                .iter()
                .map(|(st, n)| {
                    let vals: Map<String, Value> = names
                        .iter()
                        .zip(&st.0)
                        .map(|(t, v)| (t.clone(), Value::from(*v)))
                        .collect();
                    serde_json::json!({ "values": vals, "count": n })
                })
                .collect(),
        )
    }

    #[test]
    fn times_survive_a_parse() {
        // `--resume`, `merge` and the tests read lines back: without
        // serde_json's `float_roundtrip`, 0.439972 came back one ulp off.
        for x in [0.439972, 0.43997200000000003, 0.1, 1e-7, 123.456789, 2.5e3] {
            let s = Value::from(x).to_string();
            let v: Value = serde_json::from_str(&s).expect("a number");
            assert_eq!(v.to_string(), s);
        }
    }

    #[test]
    fn a_line_is_the_object_with_every_final_state_in_order() {
        let o = checked();
        let line = outcome_line(&o);
        let v: Value = serde_json::from_str(&line).expect("the line is JSON");
        // Written again by serde_json: the same bytes (field order, numbers, escapes).
        assert_eq!(v.to_string(), line);
        let keys: Vec<&str> = v
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "file",
                "name",
                "status",
                "message",
                "kind",
                "condition",
                "condition_holds",
                "liveness_holds",
                "liveness_note",
                "observation",
                "positive",
                "negative",
                "executions",
                "blocked",
                "pruned",
                "duplicates",
                "bound_hits",
                "states",
                "time_ms"
            ]
        );
        assert_eq!(v["file"], "dir/a \"q\".litmus");
        assert_eq!(v["condition_holds"], true);
        assert_eq!(v["states"], states_as_values(&o));
        let n = v["states"].as_array().map_or(0, Vec::len);
        assert!(
            n >= 3,
            "CoRR across CTAs has at least 3 final states: {line}"
        );
        // The summary is the same fields, in the same order, with the same values.
        let s = summary(&o);
        let s = s.as_object().expect("an object");
        for (k, x) in s {
            assert_eq!(Some(x), v.get(k), "field {k}");
        }
        let order: Vec<&String> = s.keys().collect();
        let mut in_line = order.clone();
        in_line.sort_by_key(|k| keys.iter().position(|x| x == k));
        assert_eq!(order, in_line);
    }

    #[test]
    fn a_repeated_term_name_appears_once_with_its_last_value() {
        let mut o = checked();
        if let OutcomeKind::Checked { report: r, .. } = &mut o.kind {
            let first = r.state_terms[0];
            r.state_terms.push(first);
            for (i, (st, _)) in r.states.iter_mut().enumerate() {
                st.0.push(-(i as i64) - 7);
            }
            r.states
                .push((FinalState(vec![i64::MIN, i64::MAX]), u64::MAX));
        }
        let v: Value = serde_json::from_str(&outcome_line(&o)).expect("the line is JSON");
        assert_eq!(v["states"], states_as_values(&o));
        let first = &v["states"][0]["values"];
        assert_eq!(first.as_object().map(Map::len), Some(2));
        assert_eq!(first["1:r0"], -7);
    }

    #[test]
    fn an_unparsed_file_has_null_verdicts() {
        let o = Outcome {
            file: PathBuf::from("b.litmus"),
            name: "b".into(),
            kind: OutcomeKind::Error {
                status: "parse-error",
                message: "b.litmus:1:1: error\n^".into(),
            },
        };
        let line = outcome_line(&o);
        assert_eq!(
            line,
            "{\"file\":\"b.litmus\",\"name\":\"b\",\"status\":\"parse-error\",\
             \"message\":\"b.litmus:1:1: error\\n^\",\"condition_holds\":null,\
             \"liveness_holds\":null,\"observation\":null,\"positive\":null,\
             \"negative\":null,\"executions\":null,\"time_ms\":0.0}"
        );
        let v: Value = serde_json::from_str(&line).expect("the line is JSON");
        for (k, x) in summary(&o).as_object().expect("an object") {
            assert_eq!(Some(x), v.get(k), "field {k}");
        }
    }
}
