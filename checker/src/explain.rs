//! Why an outcome is forbidden (or which execution allows it): what
//! `ptxmc explain` prints.
//!
//! [`explain`] enumerates the candidate executions of a test with the
//! reference enumerator, without pruning (`explore::brute::candidates`):
//! every combination of paths, reads-from and orientation of coherence between
//! morally strong writes, and, per candidate, every choice of coherence-last
//! writes for the locations the outcome reads. A candidate *gives* the outcome
//! when its final values pass the filter and satisfy the outcome's
//! proposition. If one of those is consistent ([`model::check`] accepts it for
//! some Fence-SC order and barrier synchronization, both existential), the
//! outcome is allowed and [`Explanation::allowed`] shows it. Otherwise every
//! such candidate is rejected for every existential choice, and
//! [`Explanation::reasons`] groups the rejections by shape: the axiom and the
//! positions (thread, program-order index) of its witness cycle.
//!
//! Cycle edges are named ([`Rel`]) from the relations of the rejected
//! candidate: program order, reads-from, coherence, from-reads, observation,
//! synchronizes-with (with the pattern it goes through, [`Step::via`]),
//! causality, Fence-SC order, dependencies.

use crate::event::EventId;
use crate::execution::Execution;
use crate::explore::barrier::{self, BarrierSync};
use crate::explore::brute::{self, Visit};
use crate::explore::candidate::{fence_sc_orders, Ending};
use crate::explore::outcome::{final_write_options, next_pick, Valuation};
use crate::explore::{unsupported, Budget};
use crate::model::{self, Axiom, Orders, Violation};
use crate::relation::BitMatrix;
use crate::report::{FinalState, Options, Status, Witness};
use ptxmc_frontend::ir::{Prop, Test};
use std::time::Instant;

/// Final-memory combinations tried per candidate, beyond which the rest are skipped.
const MAX_FINAL_CHOICES: usize = 4096;

/// A relation that one edge of a witness cycle is in.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Rel {
    /// Program order (8.9.1).
    Po,
    /// From the read half to the write half of an atomic RMW.
    Rmw,
    /// Reads-from (8.9.7).
    Rf,
    /// Coherence order (8.9.6).
    Co,
    /// From-reads (8.9.7).
    Fr,
    /// Observation order (8.9.2).
    Obs,
    /// Synchronizes-with (8.9.4).
    Sync,
    /// Causality order (8.9.5), when no more specific relation names the edge.
    Causality,
    /// Fence-SC order (8.9.3).
    FenceSc,
    /// Address dependency (8.10.4).
    Addr,
    /// Data dependency (8.10.4).
    Data,
    /// Control dependency (8.10.4).
    Ctrl,
    /// None of the above (should not happen; printed as `->`).
    Other,
}

impl Rel {
    /// The short name printed on an edge: `po`, `rf`, `sync`, ...
    pub fn name(self) -> &'static str {
        match self {
            Rel::Po => "po",
            Rel::Rmw => "rmw",
            Rel::Rf => "rf",
            Rel::Co => "co",
            Rel::Fr => "fr",
            Rel::Obs => "obs",
            Rel::Sync => "sync",
            Rel::Causality => "causality",
            Rel::FenceSc => "fence-sc",
            Rel::Addr => "addr",
            Rel::Data => "data",
            Rel::Ctrl => "ctrl",
            Rel::Other => "",
        }
    }
}

/// One edge of a witness cycle.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Step {
    /// Source event.
    pub from: EventId,
    /// Target event.
    pub to: EventId,
    /// The relation that names the edge.
    pub rel: Rel,
    /// For a [`Rel::Sync`] edge between a release and an acquire pattern:
    /// the events in between on the witness path (the pattern's write, the
    /// observation chain, the read), each reached by [`Step::via_rels`].
    pub via: Vec<EventId>,
    /// The relation of each edge of `from, via..., to`.
    pub via_rels: Vec<Rel>,
}

/// A rejection of one candidate under one existential choice.
#[derive(Clone, Debug)]
pub struct Rejection {
    /// The Fence-SC order tried.
    pub fence_sc: Vec<EventId>,
    /// The barrier synchronization tried.
    pub barrier_sync: Vec<(EventId, EventId)>,
    /// The first violated axiom and its witness.
    pub violation: Violation,
    /// The witness as edges: a cycle (closing edge last) for every axiom but
    /// Atomicity, whose witness is a triple.
    pub steps: Vec<Step>,
}

/// Candidates that give the outcome and are rejected the same way.
#[derive(Clone, Debug)]
pub struct Reason {
    /// How many candidates (execution and final values) it rules out.
    pub count: u64,
    /// The first one, with the coherence edges that make its final writes last.
    pub execution: Execution,
    /// Its final register values, per thread.
    pub regs: Vec<Vec<i64>>,
    /// Its final memory, per physical location.
    pub memory: Vec<i64>,
    /// One rejection per distinct existential choice (usually one).
    pub rejections: Vec<Rejection>,
}

/// Candidates whose values come out of thin air: reads-from leaves the
/// values on a cycle of reads-from and dependencies (8.10.4).
#[derive(Clone, Debug)]
pub struct ThinAir {
    /// How many such candidates there are.
    pub count: u64,
    /// The first one (reads-from set, the cycle's values unknown).
    pub execution: Execution,
    /// Its cycle of reads-from and dependency edges.
    pub steps: Vec<Step>,
}

/// What [`explain`] found.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// `Ok` when every candidate was examined (or an allowing one found);
    /// otherwise why the enumeration stopped.
    pub status: Status,
    /// Candidates (execution and final values) that give the outcome.
    pub candidates: u64,
    /// A consistent candidate that gives the outcome: the outcome is allowed.
    pub allowed: Option<Box<Witness>>,
    /// Why each other candidate is rejected, grouped by shape, in the order
    /// first met.
    pub reasons: Vec<Reason>,
    /// Candidates ruled out because their values come out of thin air.
    pub thin_air: Option<ThinAir>,
}

impl Explanation {
    /// Whether the outcome is forbidden: every candidate was examined, none
    /// is consistent.
    pub fn forbidden(&self) -> bool {
        self.status == Status::Ok && self.allowed.is_none()
    }
}

/// A position that names an event independently of event ids: thread and
/// program-order index, or the location of an initial write.
type Pos = (u32, u32);

fn pos(exec: &Execution, e: EventId) -> Pos {
    let ev = exec.event(e);
    match ev.thread {
        Some(t) => (t.0, ev.po_index),
        None => (u32::MAX, ev.loc().map_or(0, |l| l.phys.0)),
    }
}

/// Explains `outcome` (a proposition over final values, like a condition's)
/// for `test`. Uses `opts.unroll` and `opts.timeout`; the explorer is always
/// the reference enumerator.
pub fn explain(test: &Test, outcome: &Prop, opts: &Options) -> Explanation {
    let mut ex = Explanation {
        status: Status::Ok,
        candidates: 0,
        allowed: None,
        reasons: Vec::new(),
        thin_air: None,
    };
    if let Some(msg) = unsupported(test) {
        ex.status = Status::Unsupported(msg);
        return ex;
    }
    if let Some(msg) = crate::explore::rewritten(test) {
        ex.status = Status::Unsupported(msg);
        return ex;
    }
    let mut keys: Vec<Vec<(Axiom, Vec<Pos>)>> = Vec::new();
    let mut budget = Budget::new(opts, Instant::now());
    let mut visit = |v: Visit<'_>| -> Result<(), Status> {
        match v {
            Visit::ValueCycle { exec, unknown } => {
                thin_air(exec, unknown, &mut ex.thin_air);
                Ok(())
            }
            Visit::Candidate {
                exec,
                endings,
                regs,
            } => {
                if endings.iter().any(|e| *e != Ending::Done) {
                    return Ok(());
                }
                candidate(test, outcome, exec, regs, &mut ex, &mut keys)
            }
        }
    };
    let status = brute::candidates(test, opts, &mut budget, &mut visit);
    // The visitor stops the enumeration with `Err(Status::Ok)` once the
    // outcome is allowed.
    ex.status = status;
    ex
}

fn thin_air(exec: &Execution, unknown: &[EventId], slot: &mut Option<ThinAir>) {
    if let Some(t) = slot {
        t.count += 1;
        return;
    }
    let mut rel = BitMatrix::new(exec.len());
    for &e in unknown {
        let ev = exec.event(e);
        if let Some(w) = exec.rf.get(e.index()).copied().flatten() {
            rel.insert(w, e);
        }
        for &r in ev
            .addr_deps
            .iter()
            .chain(&ev.data_deps)
            .chain(&ev.ctrl_deps)
        {
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

/// Coherence as far as a candidate fixes it: initial writes first, the
/// explorer's edges, transitively closed.
fn known_co(exec: &Execution) -> BitMatrix {
    let mut co = exec.co.clone();
    for w in exec.ids() {
        let ev = exec.event(w);
        let Some(loc) = ev.loc() else { continue };
        if !ev.is_init() {
            continue;
        }
        for w2 in exec.ids() {
            let e2 = exec.event(w2);
            if w2 != w && e2.is_write() && e2.loc().is_some_and(|l| l.phys == loc.phys) {
                co.insert(w, w2);
            }
        }
    }
    co.close_transitively();
    co
}

/// One complete, terminating candidate: each choice of coherence-last writes
/// whose final values give the outcome is decided.
fn candidate(
    test: &Test,
    outcome: &Prop,
    exec: &Execution,
    regs: &[Vec<i64>],
    ex: &mut Explanation,
    keys: &mut Vec<Vec<(Axiom, Vec<Pos>)>>,
) -> Result<(), Status> {
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
                    cand.co.insert(w, last);
                }
            }
        }
        let val = Valuation {
            regs: regs.to_vec(),
            mem,
        };
        let passes = test.filter.as_ref().is_none_or(|f| val.holds(test, f));
        if passes && val.holds(test, outcome) {
            decide(test, cand, val, ex, keys)?;
        }
        if !next_pick(&mut pick, &options) {
            return Ok(());
        }
    }
    Ok(())
}

/// Decides one candidate that gives the outcome: allowed (stops the
/// enumeration with `Err(Status::Ok)`) or rejected for every choice.
fn decide(
    test: &Test,
    mut cand: Execution,
    val: Valuation,
    ex: &mut Explanation,
    keys: &mut Vec<Vec<(Axiom, Vec<Pos>)>>,
) -> Result<(), Status> {
    let barriers = match barrier::synchronization(&cand, &[]) {
        BarrierSync::Valid { choices, .. } => choices,
        // Impossible for its barriers whatever the model says.
        BarrierSync::Invalid => return Ok(()),
        BarrierSync::Unsupported(m) => return Err(Status::Unsupported(m)),
        BarrierSync::TooMany => {
            return Err(Status::Limit("too many barrier arrival orders".into()))
        }
    };
    let Some(fences) = fence_sc_orders(&cand) else {
        return Err(Status::Limit("too many fence.sc events".into()));
    };
    ex.candidates += 1;
    let mut rejections: Vec<Rejection> = Vec::new();
    let mut key: Vec<(Axiom, Vec<Pos>)> = Vec::new();
    for b in &barriers {
        for f in &fences {
            cand.barrier_sync.clone_from(b);
            cand.fence_sc.clone_from(f);
            match model::check(&cand) {
                Ok(relations) => {
                    let state = FinalState(Vec::new());
                    let positive = val.holds(test, &test.condition.prop);
                    ex.allowed = Some(Box::new(Witness {
                        execution: cand,
                        relations,
                        state,
                        regs: val.regs,
                        memory: val.mem,
                        positive,
                    }));
                    return Err(Status::Ok);
                }
                Err(violation) => {
                    let k = (
                        violation.axiom,
                        violation.events.iter().map(|&e| pos(&cand, e)).collect(),
                    );
                    if key.contains(&k) {
                        continue;
                    }
                    key.push(k);
                    let steps = label_violation(&cand, &violation);
                    rejections.push(Rejection {
                        fence_sc: f.clone(),
                        barrier_sync: b.clone(),
                        violation,
                        steps,
                    });
                }
            }
        }
    }
    match keys.iter().position(|k| *k == key) {
        Some(i) => ex.reasons[i].count += 1,
        None => {
            keys.push(key);
            ex.reasons.push(Reason {
                count: 1,
                execution: cand,
                regs: val.regs,
                memory: val.mem,
                rejections,
            });
        }
    }
    Ok(())
}

/// The relations an edge can be named by, for one candidate.
struct Rels<'e> {
    exec: &'e Execution,
    po: BitMatrix,
    rmw: BitMatrix,
    co: BitMatrix,
    /// Synchronizes-with, observation and causality (8.9), when derived.
    derived: Option<(BitMatrix, BitMatrix, BitMatrix)>,
}

impl<'e> Rels<'e> {
    fn new(exec: &'e Execution, derive: bool) -> Self {
        let n = exec.len();
        let mut po = BitMatrix::new(n);
        let mut rmw = BitMatrix::new(n);
        for th in &exec.threads {
            for (i, &a) in th.iter().enumerate() {
                for &b in &th[i + 1..] {
                    // Program order as the model reads it (8.9.1, 8.9.1.1).
                    if exec.event(a).po_before(exec.event(b)) {
                        po.insert(a, b);
                    }
                }
                if let Some(&b) = th.get(i + 1) {
                    let (ea, eb) = (exec.event(a), exec.event(b));
                    if ea.is_read() && ea.is_rmw() && eb.is_write() && eb.is_rmw() {
                        rmw.insert(a, b);
                    }
                }
            }
        }
        if exec.events.iter().any(|e| e.is_async()) {
            po.close_transitively();
        }
        let derived = derive.then(|| {
            let o = Orders::new(exec);
            (o.sync.order, o.obs.order, o.causality.order)
        });
        Self {
            exec,
            po,
            rmw,
            co: known_co(exec),
            derived,
        }
    }

    fn has(&self, rel: Rel, a: EventId, b: EventId) -> bool {
        let exec = self.exec;
        match rel {
            Rel::Po => self.po.contains(a, b),
            Rel::Rmw => self.rmw.contains(a, b),
            Rel::Rf => exec.rf.get(b.index()).copied().flatten() == Some(a),
            Rel::Co => self.co.contains(a, b),
            Rel::Fr => {
                exec.event(a).is_read()
                    && exec.event(b).is_write()
                    && exec
                        .rf
                        .get(a.index())
                        .copied()
                        .flatten()
                        .is_some_and(|w| self.co.contains(w, b))
            }
            Rel::Sync => self.derived.as_ref().is_some_and(|d| d.0.contains(a, b)),
            Rel::Obs => self.derived.as_ref().is_some_and(|d| d.1.contains(a, b)),
            Rel::Causality => self.derived.as_ref().is_some_and(|d| d.2.contains(a, b)),
            Rel::FenceSc => {
                let p = |e| exec.fence_sc.iter().position(|&x| x == e);
                matches!((p(a), p(b)), (Some(i), Some(j)) if i < j)
            }
            Rel::Addr => exec.event(b).addr_deps.contains(&a),
            Rel::Data => exec.event(b).data_deps.contains(&a),
            Rel::Ctrl => exec.event(b).ctrl_deps.contains(&a),
            Rel::Other => true,
        }
    }

    fn name(&self, a: EventId, b: EventId, prefer: &[Rel]) -> Rel {
        prefer
            .iter()
            .copied()
            .find(|&r| self.has(r, a, b))
            .unwrap_or(Rel::Other)
    }
}

/// Edge names for the steps of a causality path.
const PATH: &[Rel] = &[
    Rel::Rmw,
    Rel::Po,
    Rel::Sync,
    Rel::Rf,
    Rel::Obs,
    Rel::Causality,
    Rel::Co,
    Rel::Fr,
];

/// The witness of `v` as named edges.
fn label_violation(exec: &Execution, v: &Violation) -> Vec<Step> {
    let ev = &v.events;
    let n = ev.len();
    if n == 0 {
        return Vec::new();
    }
    let rels = Rels::new(exec, true);
    // Edges whose name the axiom fixes: (index of the edge, its names).
    let (prefer, special): (&[Rel], Option<(usize, &[Rel])>) = match v.axiom {
        Axiom::Causality => {
            if n > 1 && rels.has(Rel::Fr, ev[0], ev[1]) {
                (PATH, Some((0, &[Rel::Fr])))
            } else {
                (PATH, Some((n - 1, &[Rel::Rf])))
            }
        }
        Axiom::FenceSc => (PATH, Some((n - 1, &[Rel::FenceSc]))),
        Axiom::Coherence => (
            &[
                Rel::Co,
                Rel::Rmw,
                Rel::Po,
                Rel::Sync,
                Rel::Rf,
                Rel::Obs,
                Rel::Causality,
            ],
            None,
        ),
        Axiom::NoThinAir => (&[Rel::Rf, Rel::Addr, Rel::Data, Rel::Ctrl], None),
        Axiom::ScPerLocation => (&[Rel::Rmw, Rel::Po, Rel::Rf, Rel::Co, Rel::Fr], None),
        Axiom::Atomicity => {
            let steps = ev
                .windows(2)
                .map(|w| {
                    step(
                        w[0],
                        w[1],
                        rels.name(w[0], w[1], &[Rel::Rf, Rel::Fr, Rel::Co, Rel::Rmw, Rel::Po]),
                    )
                })
                .collect();
            return steps;
        }
    };
    label_cycle_with(&rels, ev, prefer, special)
}

fn step(from: EventId, to: EventId, rel: Rel) -> Step {
    Step {
        from,
        to,
        rel,
        via: Vec::new(),
        via_rels: Vec::new(),
    }
}

fn label_cycle(
    exec: &Execution,
    cycle: &[EventId],
    prefer: &[Rel],
    special: Option<(usize, &[Rel])>,
) -> Vec<Step> {
    label_cycle_with(&Rels::new(exec, false), cycle, prefer, special)
}

/// Names each edge `cycle[k] -> cycle[k+1]` (the last one closing the
/// cycle), then folds spelled-out synchronizations (first operation of a
/// release pattern, ..., last operation of an acquire pattern) into one
/// `sync` step.
fn label_cycle_with(
    rels: &Rels<'_>,
    cycle: &[EventId],
    prefer: &[Rel],
    special: Option<(usize, &[Rel])>,
) -> Vec<Step> {
    let n = cycle.len();
    let edge = |k: usize| (cycle[k], cycle[(k + 1) % n]);
    let names: Vec<Rel> = (0..n)
        .map(|k| {
            let (a, b) = edge(k);
            match special {
                Some((i, p)) if i == k => rels.name(a, b, p),
                _ => rels.name(a, b, prefer),
            }
        })
        .collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < n {
        let fixed = |i: usize| special.is_some_and(|(s, _)| s == i);
        // The farthest j such that cycle[k] synchronizes with cycle[j] along
        // edges k..j that the axiom does not fix.
        let mut fold = None;
        if rels.derived.is_some() && !fixed(k) {
            let mut j = k + 2;
            while j < n && !fixed(j - 1) {
                if rels.has(Rel::Sync, cycle[k], cycle[j]) {
                    fold = Some(j);
                }
                j += 1;
            }
        }
        match fold {
            Some(j) => {
                out.push(Step {
                    from: cycle[k],
                    to: cycle[j],
                    rel: Rel::Sync,
                    via: cycle[k + 1..j].to_vec(),
                    via_rels: names[k..j].to_vec(),
                });
                k = j;
            }
            None => {
                let (a, b) = edge(k);
                out.push(step(a, b, names[k]));
                k += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxmc_frontend::parse;

    const MP: &str = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.weak r1, x ;\n~exists (1:r0 == 1 /\\ 1:r1 == 0)\n";

    #[test]
    fn mp_is_forbidden_by_causality() {
        let t = parse(MP).expect("MP parses");
        let ex = explain(&t, &t.condition.prop, &Options::default());
        assert!(ex.forbidden(), "{ex:?}");
        assert_eq!(ex.candidates, 1);
        assert_eq!(ex.reasons.len(), 1);
        let r = &ex.reasons[0].rejections[0];
        assert_eq!(r.violation.axiom, Axiom::Causality);
        assert_eq!(r.steps[0].rel, Rel::Fr);
        assert!(r.steps.iter().any(|s| s.rel == Rel::Sync), "{:?}", r.steps);
        assert!(r.steps.iter().any(|s| s.rel == Rel::Po));
    }

    #[test]
    fn allowed_outcome_has_an_execution() {
        let t = parse(MP).expect("MP parses");
        let p = Prop::True;
        let ex = explain(&t, &p, &Options::default());
        assert!(ex.allowed.is_some());
        assert!(!ex.forbidden());
    }

    #[test]
    fn a_witness_only_when_asked_and_it_decides_the_condition() {
        use crate::report::Strategy;
        let weak = MP
            .replace("acquire", "relaxed")
            .replace("release", "relaxed");
        let forall = MP.replace("~exists (1:r0 == 1 /\\ 1:r1 == 0)", "forall (1:r1 == 1)");
        let cases = [
            (MP.to_string(), None),
            (weak.replace("~exists", "exists"), Some((true, vec![1, 0]))),
            (weak, Some((true, vec![1, 0]))),
            (forall, Some((false, vec![0]))),
        ];
        for (src, want) in cases {
            let t = parse(&src).expect("parses");
            for strategy in [Strategy::Brute, Strategy::Dpor] {
                let plain = crate::check(
                    &t,
                    &Options {
                        strategy,
                        ..Options::default()
                    },
                );
                assert!(plain.witness.is_none());
                let o = Options {
                    strategy,
                    witness: true,
                    ..Options::default()
                };
                let r = crate::check(&t, &o);
                let got = r.witness.as_ref().map(|w| (w.positive, w.state.0.clone()));
                assert_eq!(got, want, "{src} {strategy:?}");
                // Deterministic for a strategy.
                assert_eq!(crate::check(&t, &o).witness, r.witness);
            }
        }
    }

    #[test]
    fn thin_air_candidates_are_reported() {
        let src = "PTX LB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.weak r0, x | ld.weak r1, y ;\n st.weak y, r0 | st.weak x, r1 ;\nexists (x == 1)\n";
        let t = parse(src).expect("LB parses");
        let ex = explain(&t, &t.condition.prop, &Options::default());
        assert!(ex.forbidden(), "{ex:?}");
        let ta = ex.thin_air.expect("a value cycle");
        assert_eq!(ta.count, 1);
        assert_eq!(ta.steps.len(), 4);
    }
}
