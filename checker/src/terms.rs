//! The terms a final state shows (`Report::state_terms`), shared by the
//! completion of explorers (`explore::outcome`) and the mapping of a
//! rewritten test's report back to the original (`sizes`), which therefore
//! do not import each other.

use ptxmc_frontend::ir::{Term, Test};

/// The terms shown in final states: those of the condition, then the observed
/// ones, in first-appearance order.
pub(crate) fn state_terms(test: &Test) -> Vec<Term> {
    let mut out = Vec::new();
    test.condition.prop.terms(&mut out);
    for t in &test.observed {
        if !matches!(t, Term::Const(_)) && !out.contains(t) {
            out.push(*t);
        }
    }
    out
}
