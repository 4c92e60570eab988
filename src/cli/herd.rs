//! herd7-style text output of one checked test.

use ptxmc_checker::{Report, Status};
use ptxmc_frontend::ir::{CmpOp, Prop, Quantifier, Term, Test};

/// herd's kind of a test: what its quantifier claims.
pub fn kind(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    }
}

/// herd's validation word (the line after the final states): `Ok`/`No`
/// for a test checked to the end, `Undef` for an undefined one (herd's word
/// for a test whose executions leave the model, 8.7.2), and `??` (herd's
/// "don't know") for a test without a verdict (`unsupported`, `limit`).
pub fn validation(r: &Report) -> &'static str {
    match (&r.status, r.verdict()) {
        (_, Some(true)) => "Ok",
        (_, Some(false)) => "No",
        (Status::Undefined(_), None) => "Undef",
        _ => "??",
    }
}

/// The final states a report may show: none for an `unsupported` test
/// (what an explorer saw before it met the unsupported construct depends on
/// the explorer, so showing it would make strategies disagree).
pub fn shown_states(r: &Report) -> &[(ptxmc_checker::FinalState, u64)] {
    match r.status {
        Status::Unsupported(_) => &[],
        _ => &r.states,
    }
}

/// The (positive, negative) counts a report may show: zero for an
/// `unsupported` test (see [`shown_states`]).
pub fn shown_counts(r: &Report) -> (u64, u64) {
    match r.status {
        Status::Unsupported(_) => (0, 0),
        _ => (r.positive, r.negative),
    }
}

/// A stable hash of the test's IR, as herd's `Hash=` line gives one: 128-bit
/// FNV-1a of the test printed back as litmus text from its initial state on
/// (the name and the doc string are left out, as herd leaves out the name),
/// in 32 hex digits. Equal IRs give equal hashes on every machine and run.
pub fn hash(test: &Test) -> String {
    let text = ptxmc_frontend::print(test);
    let body = text.find("\n{").map_or(text.as_str(), |at| &text[at + 1..]);
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    let mut h = OFFSET;
    for b in body.bytes() {
        h ^= u128::from(b);
        h = h.wrapping_mul(PRIME);
    }
    format!("{h:032x}")
}

/// herd's observation: whether the proposition is seen never, sometimes or
/// always, from the (positive, negative) counts.
pub fn observation(positive: u64, negative: u64) -> &'static str {
    match (positive, negative) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    }
}

/// A term as herd writes it: `1:r0`, `x`, `42`.
pub fn term(test: &Test, t: &Term) -> String {
    match *t {
        Term::Const(c) => c.to_string(),
        Term::Reg(th, r) => format!("{}:{}", th.index(), test.reg_name(th, r)),
        Term::Mem(a) => test.addr_name(a).to_string(),
    }
}

/// herd writes equality `=`; the other operators as the litmus text does.
fn cmp(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        other => other.symbol(),
    }
}

/// A proposition in herd's syntax, fully parenthesised below the top level.
pub fn prop(test: &Test, p: &Prop) -> String {
    match p {
        Prop::True => "true".into(),
        Prop::False => "false".into(),
        Prop::Cmp(op, a, b) => format!("{}{}{}", term(test, a), cmp(*op), term(test, b)),
        Prop::Not(q) => format!("not ({})", prop(test, q)),
        Prop::And(a, b) => format!("{} /\\ {}", sub(test, a), sub(test, b)),
        Prop::Or(a, b) => format!("{} \\/ {}", sub(test, a), sub(test, b)),
    }
}

fn sub(test: &Test, p: &Prop) -> String {
    match p {
        Prop::And(..) | Prop::Or(..) => format!("({})", prop(test, p)),
        _ => prop(test, p),
    }
}

/// The `Condition ...` text.
pub fn condition(test: &Test) -> String {
    let q = test.condition.quantifier;
    format!("{q} ({})", prop(test, &test.condition.prop))
}

/// Appends the decimal digits of `n`, as `Display` writes them, without
/// going through `std::fmt`: a test can have a million values to print.
pub fn push_u64(w: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // `n % 10` is below 10, so the cast keeps it whole.
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    w.extend_from_slice(&digits[at..]);
}

/// [`push_u64`] for a signed value (a leading `-` when negative).
pub fn push_i64(w: &mut Vec<u8>, v: i64) {
    if v < 0 {
        w.push(b'-');
    }
    push_u64(w, v.unsigned_abs());
}

/// Appends the herd7-style block for one test, plus ptxmc's `Executions` and
/// `Liveness` lines. The final states are written straight into `s`, with
/// the term names rendered once per test, not once per state.
///
/// Only a test checked to the end carries a verdict: the validation line is
/// [`validation`]'s word and the liveness line `Liveness ??` for the others.
pub fn write_block(s: &mut Vec<u8>, test: &Test, r: &Report) {
    use std::io::Write as _;
    // Writing into a `Vec<u8>` cannot fail: the results are ignored.
    let name = &test.name;
    write_header(s, test, r);
    if let Some(e) = super::estimate_view::of(r) {
        return super::estimate_view::write_block(s, test, r, e);
    }
    let states = shown_states(r);
    let _ = writeln!(s, "States {}", states.len());
    let prefixes: Vec<String> = r
        .state_terms
        .iter()
        .map(|t| format!("{}=", term(test, t)))
        .collect();
    let per_state: usize = prefixes.iter().map(|p| p.len() + 6).sum::<usize>() + 1;
    s.reserve(states.len() * per_state + 512);
    for (st, _) in states {
        for (p, v) in prefixes.iter().zip(&st.0) {
            s.extend_from_slice(p.as_bytes());
            push_i64(s, *v);
            s.extend_from_slice(b"; ");
        }
        s.push(b'\n');
    }
    let _ = writeln!(s, "{}", validation(r));
    let _ = writeln!(s, "Witnesses");
    let (positive, negative) = shown_counts(r);
    // herd7 counts, for `~exists`, the outcomes that satisfy the condition
    // (not the proposition) as positive: the pair is swapped. `Observation`
    // keeps the proposition's counts for every quantifier, as herd7 does.
    let (wp, wn) = match test.condition.quantifier {
        Quantifier::NotExists => (negative, positive),
        Quantifier::Exists | Quantifier::Forall => (positive, negative),
    };
    let _ = writeln!(s, "Positive: {wp} Negative: {wn}");
    let _ = writeln!(s, "Condition {}", condition(test));
    // `Always`/`Sometimes`/`Never` is a claim about every execution: only
    // for a test explored to the end (`ok`, or `undefined`, whose block
    // herd7 also prints), as JSON's `observation`.
    if r.verdict().is_some() || matches!(r.status, Status::Undefined(_)) {
        let obs = observation(positive, negative);
        let _ = writeln!(s, "Observation {name} {obs} {positive} {negative}");
    }
    let _ = writeln!(s, "Time {} {:.3}", name, r.time.as_secs_f64());
    let _ = writeln!(s, "Hash={}", hash(test));
    let _ = writeln!(
        s,
        "Executions {} (blocked {}, pruned {})",
        r.stats.executions, r.stats.blocked, r.stats.pruned
    );
    match (r.liveness_verdict(), &r.liveness_note) {
        (None, _) => {
            let _ = writeln!(s, "Liveness ??");
        }
        (Some(true), None) => {
            let _ = writeln!(s, "Liveness ok");
        }
        (Some(true), Some(n)) => {
            let _ = writeln!(s, "Liveness ok ({n})");
        }
        (Some(false), n) => {
            let _ = writeln!(
                s,
                "Liveness violated: {}",
                n.as_deref().unwrap_or("a thread can block forever")
            );
        }
    }
}

/// The first lines of [`write_block`]: `Test ...` and, for a test not
/// checked to the end, `Status ...`.
pub fn write_header(s: &mut Vec<u8>, test: &Test, r: &Report) {
    use std::io::Write as _;
    // Writing into a `Vec<u8>` cannot fail: the results are ignored.
    let _ = writeln!(s, "Test {} {}", test.name, kind(test.condition.quantifier));
    if let (Status::Unsupported(_) | Status::Undefined(_) | Status::Limit(_), Some(m)) =
        (&r.status, r.status.message())
    {
        let _ = writeln!(s, "Status {}: {}", r.status.name(), m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_written_as_display_writes_them() {
        for v in [0, 1, -1, 9, 10, 42, -100, 1 << 40, i64::MAX, i64::MIN] {
            let mut w = Vec::new();
            push_i64(&mut w, v);
            assert_eq!(String::from_utf8_lossy(&w), v.to_string());
        }
        for n in [0, 7, 10, 99, 1000, u64::MAX] {
            let mut w = b"x".to_vec();
            push_u64(&mut w, n);
            assert_eq!(String::from_utf8_lossy(&w), format!("x{n}"));
        }
    }
}
