//! Final states of the original test from those of the rewritten one: a
//! split location's value is reassembled from its granules (little-endian),
//! then the original filter and condition are evaluated.

use super::mask;
use crate::report::{FinalState, Report};
use ptxmc_frontend::ir::{CmpOp, Prop, Quantifier, Term, Test};
use std::collections::BTreeMap;

/// How to compute the final states of the original test from those of the
/// rewritten one.
#[derive(Clone, Debug)]
pub(crate) struct ReportMap {
    /// For each term the rewritten test observes: what it is.
    pub(super) lowered_terms: Vec<Term>,
    /// For each original term (condition, observed, filter): how to read it
    /// off the rewritten terms.
    pub(super) terms: Vec<(Term, TermValue)>,
}

/// The value of one original term.
#[derive(Clone, Debug)]
pub(super) enum TermValue {
    /// The rewritten term at this index.
    Same(usize),
    /// A split location: its initial value with the bytes of these
    /// granules (rewritten term index, byte offset, bytes) replaced.
    Bytes(i64, Vec<(usize, u32, u32)>),
}

impl ReportMap {
    /// The report of the original `test` from the report `r` of the rewritten one.
    pub(crate) fn map(&self, test: &Test, r: Report) -> Report {
        let state_terms = crate::terms::state_terms(test);
        let mut states: BTreeMap<FinalState, u64> = BTreeMap::new();
        let (mut positive, mut negative) = (0u64, 0u64);
        for (state, n) in &r.states {
            let value = |t: &Term| -> i64 {
                if let Term::Const(c) = t {
                    return *c;
                }
                let Some((_, v)) = self.terms.iter().find(|(x, _)| x == t) else {
                    return 0;
                };
                let at = |i: usize| state.0.get(i).copied().unwrap_or(0);
                match v {
                    TermValue::Same(i) => at(*i),
                    TermValue::Bytes(init, parts) => {
                        let mut v = *init;
                        for &(i, off, len) in parts {
                            if off >= 8 {
                                continue;
                            }
                            let m = mask(len.min(8 - off)) << (8 * off);
                            v = (v & !m) | ((at(i) << (8 * off)) & m);
                        }
                        v
                    }
                }
            };
            if let Some(f) = &test.filter {
                if !holds(f, &value) {
                    continue;
                }
            }
            if holds(&test.condition.prop, &value) {
                positive += n;
            } else {
                negative += n;
            }
            let s = FinalState(state_terms.iter().map(&value).collect());
            *states.entry(s).or_insert(0) += n;
        }
        debug_assert_eq!(self.lowered_terms.len(), r.state_terms.len());
        let condition_holds = match test.condition.quantifier {
            Quantifier::Exists => positive > 0,
            Quantifier::NotExists => positive == 0,
            Quantifier::Forall => negative == 0,
        };
        Report {
            state_terms,
            states: states.into_iter().collect(),
            positive,
            negative,
            condition_holds,
            witness: None,
            ..r
        }
    }
}

fn holds(p: &Prop, value: &dyn Fn(&Term) -> i64) -> bool {
    match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Cmp(c, a, b) => CmpOp::eval(*c, value(a), value(b)),
        Prop::Not(q) => !holds(q, value),
        Prop::And(a, b) => holds(a, value) && holds(b, value),
        Prop::Or(a, b) => holds(a, value) || holds(b, value),
    }
}
