//! herd7-style text output of one checked test.

use ptxmc_checker::{Report, Status};
use ptxmc_frontend::ir::{CmpOp, Prop, Quantifier, Term, Test};
use std::fmt::Write;

/// herd's kind of a test: what its quantifier claims.
pub fn kind(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    }
}

/// herd's observation: whether the proposition is seen never, sometimes or always.
pub fn observation(r: &Report) -> &'static str {
    match (r.positive, r.negative) {
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

fn cmp(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
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
    let q = match test.condition.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    format!("{q} ({})", prop(test, &test.condition.prop))
}

/// The herd7-style block for one test, plus ptxmc's `Executions` and `Liveness` lines.
pub fn block(test: &Test, r: &Report) -> String {
    let name = &test.name;
    let mut s = String::new();
    let _ = writeln!(s, "Test {} {}", name, kind(test.condition.quantifier));
    if let Status::Unsupported(m) | Status::Undefined(m) | Status::Limit(m) = &r.status {
        let _ = writeln!(s, "Status {}: {}", r.status.name(), m);
    }
    let _ = writeln!(s, "States {}", r.states.len());
    for (st, _) in &r.states {
        for (t, v) in r.state_terms.iter().zip(&st.0) {
            let _ = write!(s, "{}={}; ", term(test, t), v);
        }
        s.push('\n');
    }
    let _ = writeln!(s, "{}", if r.condition_holds { "Ok" } else { "No" });
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {} Negative: {}", r.positive, r.negative);
    let _ = writeln!(s, "Condition {}", condition(test));
    let _ = writeln!(
        s,
        "Observation {} {} {} {}",
        name,
        observation(r),
        r.positive,
        r.negative
    );
    let _ = writeln!(s, "Time {} {:.3}", name, r.time.as_secs_f64());
    let _ = writeln!(
        s,
        "Executions {} (blocked {}, pruned {})",
        r.stats.executions, r.stats.blocked, r.stats.pruned
    );
    match (&r.liveness_holds, &r.liveness_note) {
        (true, None) => {
            let _ = writeln!(s, "Liveness ok");
        }
        (true, Some(n)) => {
            let _ = writeln!(s, "Liveness ok ({n})");
        }
        (false, n) => {
            let _ = writeln!(
                s,
                "Liveness violated: {}",
                n.as_deref().unwrap_or("a thread can block forever")
            );
        }
    }
    s
}
