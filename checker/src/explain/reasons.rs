//! The reasons a forbidden outcome is forbidden: the reference enumerator's
//! graphs (`explore::brute::candidates`, with its pruning), restricted early
//! to those that can still give the outcome, each rejection grouped by shape.
//!
//! What is enumerated: every combination of paths, then reads-from read by
//! read. After each choice, the final register values known so far are
//! checked against the outcome (three-valued: a term not known yet may be
//! anything); a partial graph that can no longer give it is not completed.
//! A partial graph the model rejects for every Fence-SC order (8.10: the
//! axioms only forbid, and every relation grows with reads-from and
//! coherence) is not completed: when its known values already give the
//! outcome it is a reason (for all of its completions); otherwise it is
//! only counted, by axiom ([`Explanation::undecided`]).
//! Complete candidates (reads-from and the orientation of coherence between
//! morally strong writes) that give the outcome for some choice of
//! coherence-last writes are checked for every existential choice (Fence-SC
//! order, barrier arrival order).

use super::edges::{known_co, label_cycle, label_violation, Rel};
use super::{Explanation, Reason, Rejection, ThinAir};
use crate::event::EventId;
use crate::execution::Execution;
use crate::explore::barrier::{self, BarrierSync};
use crate::explore::brute::{self, Visit};
use crate::explore::candidate::{fence_sc_orders, Ending};
use crate::explore::outcome::{final_write_options, next_pick, Valuation};
use crate::explore::Budget;
use crate::model::{self, Axiom, Violation};
use crate::relation::BitMatrix;
use crate::report::{Options, Status};
use ptxmc_frontend::ir::{Prop, Term, Test};

/// Final-memory combinations tried per candidate, beyond which the rest are skipped.
const MAX_FINAL_CHOICES: usize = 4096;

/// Graphs examined for reasons, beyond which the enumeration stops (the
/// verdict is known; this bounds the words, not the answer).
const MAX_GRAPHS: u64 = 200_000;

/// The shape of a rejection: its axiom and the relations along its cycle,
/// from the rotation that is smallest (so that where a cycle is entered
/// does not matter).
type Shape = (Axiom, Vec<Rel>);

fn shape(r: &Rejection) -> Shape {
    let names: Vec<Rel> = r.steps.iter().map(|s| s.rel).collect();
    let n = names.len();
    let best = (0..n.max(1))
        .map(|k| {
            let mut v = names[k.min(n)..].to_vec();
            v.extend_from_slice(&names[..k.min(n)]);
            v
        })
        .min_by_key(|v| v.iter().map(|r| *r as u8).collect::<Vec<_>>())
        .unwrap_or_default();
    (r.violation.axiom, best)
}

struct Collector<'a> {
    test: &'a Test,
    outcome: &'a Prop,
    ex: &'a mut Explanation,
    keys: Vec<Vec<Shape>>,
    graphs: u64,
    /// The known final values of the last partial graph shown.
    regs: Vec<Vec<Option<i64>>>,
    /// Whether they already give the outcome (whatever the rest).
    decided: bool,
}

/// Fills `ex.reasons`, `ex.candidates`, `ex.partial` and `ex.thin_air`;
/// `Err` says why the enumeration stopped early.
pub(super) fn collect(
    test: &Test,
    outcome: &Prop,
    opts: &Options,
    budget: &mut Budget,
    ex: &mut Explanation,
) -> Result<(), String> {
    let mut c = Collector {
        test,
        outcome,
        ex,
        keys: Vec::new(),
        graphs: 0,
        regs: Vec::new(),
        decided: false,
    };
    let mut visit = |v: Visit<'_>| -> Result<bool, Status> { c.visit(v) };
    let interrupted = crate::interrupt::interruptions();
    let status = brute::candidates(test, opts, budget, true, &mut visit);
    // A check stopped at the deadline decided nothing (`interrupt.rs`):
    // the reasons found are real, the list is not complete.
    let status = match status {
        Status::Ok if crate::interrupt::interruptions() != interrupted => {
            Status::Limit(timeout_text(opts))
        }
        s => s,
    };
    let ex = c.ex;
    // Reasons of complete candidates first, then the shortest cycles.
    ex.reasons
        .sort_by_key(|r| (r.count == r.partial, r.length(), std::cmp::Reverse(r.count)));
    ex.undecided.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    match status {
        Status::Ok => {
            ex.reasons_complete = true;
            Ok(())
        }
        Status::Limit(m) => Err(m),
        other => Err(format!("{}: {}", other.name(), status_text(&other))),
    }
}

/// The message of a phase stopped by `opts.timeout`.
pub(super) fn timeout_text(opts: &Options) -> String {
    format!(
        "timeout after {:.3} s",
        opts.timeout.unwrap_or_default().as_secs_f64()
    )
}

/// Whether `v` is the answer of a check stopped at its deadline (no
/// witness: not a reason).
fn interrupted(v: &Violation) -> bool {
    v.events.is_empty()
}

fn status_text(s: &Status) -> String {
    s.message().unwrap_or_default()
}

impl Collector<'_> {
    fn visit(&mut self, v: Visit<'_>) -> Result<bool, Status> {
        self.graphs += 1;
        if self.graphs > MAX_GRAPHS {
            return Err(Status::Limit(format!("stopped after {MAX_GRAPHS} graphs")));
        }
        match v {
            Visit::Partial { regs } => {
                self.regs = regs.to_vec();
                let m = self.may_give(regs, &[]);
                self.decided = m == Some(true);
                Ok(m != Some(false))
            }
            Visit::Pruned { exec } => {
                if self.decided {
                    let regs = self.regs.clone();
                    let memory = vec![None; self.test.n_phys as usize];
                    self.ex.partial += 1;
                    self.decide(exec.clone(), regs, memory, true);
                } else {
                    self.undecided(exec);
                }
                Ok(true)
            }
            Visit::ValueCycle { exec, unknown } => {
                thin_air(exec, unknown, &mut self.ex.thin_air);
                Ok(true)
            }
            Visit::Candidate {
                exec,
                endings,
                regs,
            } => {
                if endings.iter().any(|e| *e != Ending::Done) {
                    return Ok(true);
                }
                self.candidate(exec, regs)?;
                Ok(true)
            }
        }
    }

    /// A pruned partial graph whose known values do not decide the outcome
    /// yet: counted by the axiom that rejects it.
    fn undecided(&mut self, exec: &Execution) {
        let mut g = exec.clone();
        let Some(fences) = fence_sc_orders(&g) else {
            return;
        };
        let axiom = fences.iter().find_map(|f| {
            g.copy_fence_sc_from(f);
            model::check(&g)
                .err()
                .filter(|v| !interrupted(v))
                .map(|v| v.axiom)
        });
        if let Some(a) = axiom {
            let u = &mut self.ex.undecided;
            match u.iter_mut().find(|(b, _)| *b == a) {
                Some((_, n)) => *n += 1,
                None => u.push((a, 1)),
            }
        }
    }

    /// Whether final values as far as known (`regs`, and `mem` for the
    /// locations it has) pass the filter and give the outcome: `Some(true)`
    /// whatever the values not known yet, `None` when those decide.
    fn may_give(&self, regs: &[Vec<Option<i64>>], mem: &[Option<i64>]) -> Option<bool> {
        let term = |t: &Term| -> Option<i64> {
            match *t {
                Term::Const(c) => Some(c),
                Term::Reg(th, r) => match regs.get(th.index()) {
                    Some(rs) => rs.get(r.index()).copied().unwrap_or(Some(0)),
                    None => Some(0),
                },
                Term::Mem(a) => self
                    .test
                    .addresses
                    .get(a.index())
                    .and_then(|ad| mem.get(ad.phys.index()))
                    .copied()
                    .flatten(),
            }
        };
        let filter = match &self.test.filter {
            Some(f) => maybe(f, &term),
            None => Some(true),
        };
        match (filter, maybe(self.outcome, &term)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        }
    }

    /// One complete, terminating candidate: each choice of coherence-last
    /// writes whose final values give the outcome is decided.
    fn candidate(&mut self, exec: &Execution, regs: &[Vec<i64>]) -> Result<(), Status> {
        let test = self.test;
        let co = known_co(exec);
        let options = final_write_options(test, exec, &co);
        let base: Vec<i64> = (0..test.n_phys as usize)
            .map(|p| test.init_mem.get(p).copied().unwrap_or(0))
            .collect();
        let mut pick = vec![0usize; options.len()];
        for _ in 0..MAX_FINAL_CHOICES {
            let mut mem = base.clone();
            let mut cand = exec.clone();
            for (k, (p, writes, maximal)) in options.iter().enumerate() {
                let last = maximal[pick[k]];
                if let (Some(slot), Some(v)) = (mem.get_mut(p.index()), exec.event(last).value()) {
                    *slot = v;
                }
                for &w in writes {
                    if w != last && !co.contains(w, last) {
                        cand.order_co(w, last);
                    }
                }
            }
            let val = Valuation {
                regs: regs.to_vec(),
                mem,
            };
            let passes = test.filter.as_ref().is_none_or(|f| val.holds(test, f));
            if passes && val.holds(test, self.outcome) {
                self.ex.candidates += 1;
                let regs = val
                    .regs
                    .iter()
                    .map(|t| t.iter().map(|&v| Some(v)).collect());
                let memory = val.mem.iter().map(|&v| Some(v)).collect();
                if !self.decide(cand, regs.collect(), memory, false) {
                    // The check said no execution gives the outcome; a
                    // consistent candidate here would contradict it.
                    return Err(Status::Limit(
                        "a candidate that gives the outcome is consistent: the reasons cannot be listed".into(),
                    ));
                }
            }
            if !next_pick(&mut pick, &options) {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Groups the rejections of `g` for every existential choice; `false`
    /// when some choice makes it consistent.
    fn decide(
        &mut self,
        mut g: Execution,
        regs: Vec<Vec<Option<i64>>>,
        memory: Vec<Option<i64>>,
        is_partial: bool,
    ) -> bool {
        let barriers = if is_partial {
            vec![g.barrier_sync().to_vec()]
        } else {
            match barrier::synchronization(&g, &[]) {
                BarrierSync::Valid { choices, .. } => choices,
                // Impossible for its barriers whatever the model says.
                BarrierSync::Invalid | BarrierSync::Unsupported(_) | BarrierSync::TooMany => {
                    return true
                }
            }
        };
        let Some(fences) = fence_sc_orders(&g) else {
            return true;
        };
        let mut rejections: Vec<Rejection> = Vec::new();
        let mut key: Vec<Shape> = Vec::new();
        for b in &barriers {
            for f in &fences {
                g.copy_barrier_sync_from(b);
                g.copy_fence_sc_from(f);
                let Err(violation) = model::check(&g) else {
                    if is_partial {
                        // Pruned for another Fence-SC order only: skip.
                        continue;
                    }
                    return false;
                };
                if interrupted(&violation) {
                    continue;
                }
                let steps = label_violation(&g, &violation);
                let r = Rejection {
                    fence_sc: f.clone(),
                    barrier_sync: b.clone(),
                    violation,
                    steps,
                };
                // One rejection per distinct witness (events and axiom).
                let same = |o: &Rejection| {
                    o.violation.axiom == r.violation.axiom
                        && o.violation.events == r.violation.events
                };
                if !rejections.iter().any(same) {
                    let k = shape(&r);
                    if !key.contains(&k) {
                        key.push(k);
                    }
                    rejections.push(r);
                }
            }
        }
        if rejections.is_empty() {
            return true;
        }
        key.sort_by_key(|(a, rels)| (*a as u8, rels.iter().map(|r| *r as u8).collect::<Vec<_>>()));
        match self.keys.iter().position(|k| *k == key) {
            Some(i) => {
                let r = &mut self.ex.reasons[i];
                r.count += 1;
                r.partial += u64::from(is_partial);
            }
            None => {
                self.keys.push(key);
                self.ex.reasons.push(Reason {
                    count: 1,
                    partial: u64::from(is_partial),
                    execution: g,
                    is_partial,
                    regs,
                    memory,
                    rejections,
                });
            }
        }
        true
    }
}

/// `p` in three-valued logic: `None` when the terms not known yet decide it.
fn maybe(p: &Prop, term: &dyn Fn(&Term) -> Option<i64>) -> Option<bool> {
    match p {
        Prop::True => Some(true),
        Prop::False => Some(false),
        Prop::Cmp(c, a, b) => Some(c.eval(term(a)?, term(b)?)),
        Prop::Not(q) => maybe(q, term).map(|v| !v),
        Prop::And(a, b) => match (maybe(a, term), maybe(b, term)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Prop::Or(a, b) => match (maybe(a, term), maybe(b, term)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
    }
}

fn thin_air(exec: &Execution, unknown: &[EventId], slot: &mut Option<ThinAir>) {
    if let Some(t) = slot {
        t.count += 1;
        return;
    }
    let mut rel = BitMatrix::new(exec.len());
    for &e in unknown {
        let ev = exec.event(e);
        if let Some(w) = exec.rf().get(e.index()).copied().flatten() {
            rel.insert(w, e);
        }
        for &r in ev.deps() {
            rel.insert(r, e);
        }
    }
    let cycle = rel.find_cycle().unwrap_or_default();
    let steps = label_cycle(
        exec,
        &cycle,
        &[Rel::Rf, Rel::Addr, Rel::Data, Rel::Ctrl],
        None,
    );
    *slot = Some(ThinAir {
        count: 1,
        execution: exec.clone(),
        steps,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxmc_frontend::ir::{CmpOp, RegId, ThreadId};

    #[test]
    fn three_valued_outcomes() {
        let r = |t, i| Term::Reg(ThreadId::new(t), RegId::new(i));
        let eq = |a, v| Prop::Cmp(CmpOp::Eq, a, Term::Const(v));
        let p = Prop::And(Box::new(eq(r(0, 0), 1)), Box::new(eq(r(1, 0), 0)));
        let known = |v0: Option<i64>, v1: Option<i64>| {
            move |t: &Term| match *t {
                Term::Const(c) => Some(c),
                Term::Reg(th, _) if th.index() == 0 => v0,
                _ => v1,
            }
        };
        assert_eq!(maybe(&p, &known(None, None)), None);
        assert_eq!(maybe(&p, &known(Some(0), None)), Some(false));
        assert_eq!(maybe(&p, &known(Some(1), None)), None);
        assert_eq!(maybe(&p, &known(Some(1), Some(0))), Some(true));
        let q = Prop::Or(
            Box::new(p.clone()),
            Box::new(Prop::Not(Box::new(eq(r(1, 0), 0)))),
        );
        assert_eq!(maybe(&q, &known(Some(0), None)), None);
        assert_eq!(maybe(&q, &known(Some(0), Some(3))), Some(true));
    }
}
