//! JSON Lines output: one object per test.

use super::herd;
use super::run_cmd::{Outcome, OutcomeKind};
use serde_json::{json, Value};

/// The JSON object of one test. Field order is stable; `time_ms` is the only
/// field that differs between two runs of the same tests.
pub fn outcome(o: &Outcome) -> Value {
    let file = o.file.display().to_string();
    match &o.kind {
        OutcomeKind::Error { status, message } => json!({
            "file": file,
            "name": o.name,
            "status": status,
            "message": message,
            "condition_holds": null,
            "liveness_holds": null,
            "observation": null,
            "positive": null,
            "negative": null,
            "executions": null,
            "time_ms": 0.0,
        }),
        OutcomeKind::Checked { test, report: r } => {
            // The names once per test, not once per final state.
            let names: Vec<String> = r.state_terms.iter().map(|t| herd::term(test, t)).collect();
            let states: Vec<Value> = r
                .states
                .iter()
                .map(|(st, n)| {
                    let vals: serde_json::Map<String, Value> = names
                        .iter()
                        .zip(&st.0)
                        .map(|(t, v)| (t.clone(), Value::from(*v)))
                        .collect();
                    // Built as values, not with `json!`, which would copy
                    // `vals` through the serializer.
                    let mut state = serde_json::Map::with_capacity(2);
                    state.insert("values".into(), Value::Object(vals));
                    state.insert("count".into(), Value::from(*n));
                    Value::Object(state)
                })
                .collect();
            let message = match &r.status {
                ptxmc_checker::Status::Ok => Value::Null,
                ptxmc_checker::Status::Unsupported(m)
                | ptxmc_checker::Status::Undefined(m)
                | ptxmc_checker::Status::Limit(m) => json!(m),
            };
            let mut v = json!({
                "file": file,
                "name": o.name,
                "status": r.status.name(),
                "message": message,
                "kind": herd::kind(test.condition.quantifier),
                "condition": herd::condition(test),
                "condition_holds": r.condition_holds,
                "liveness_holds": r.liveness_holds,
                "liveness_note": r.liveness_note,
                "observation": herd::observation(r),
                "positive": r.positive,
                "negative": r.negative,
                "executions": r.stats.executions,
                "blocked": r.stats.blocked,
                "pruned": r.stats.pruned,
                "duplicates": r.stats.duplicates,
                "bound_hits": r.stats.bound_hits,
                "states": null,
                "time_ms": r.time.as_secs_f64() * 1000.0,
            });
            // In place of the `null` (same position): moved, not copied
            // through the serializer as `json!` would.
            if let Some(obj) = v.as_object_mut() {
                obj.insert("states".into(), Value::Array(states));
            }
            v
        }
    }
}
