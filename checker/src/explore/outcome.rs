//! Folding explored executions into a [`Report`]: final states (with the
//! coherence-last rule of `docs/model-notes.md`), the condition and filter,
//! liveness, and statistics. Shared by the explorers.

use crate::event::EventId;
use crate::execution::Execution;
use crate::model::Relations;
use crate::relation::BitMatrix;
use crate::report::{FinalState, Report, Stats, Status, Witness};
use crate::sizes::{Finding, SizeInfo};
use ptxmc_frontend::ir::{PhysId, Prop, Quantifier, Term, Test};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The final values of one outcome: registers per thread, memory per physical location.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Valuation {
    pub regs: Vec<Vec<i64>>,
    pub mem: Vec<i64>,
}

impl Valuation {
    /// The final value of a term.
    pub(crate) fn term(&self, test: &Test, t: &Term) -> i64 {
        term_value(
            test,
            t,
            |th, r| self.regs.get(th).and_then(|rs| rs.get(r)).copied(),
            &self.mem,
        )
    }

    /// Whether the proposition `p` holds for these final values.
    pub(crate) fn holds(&self, test: &Test, p: &Prop) -> bool {
        holds(p, &|t| self.term(test, t))
    }
}

/// The final value of the term `t`, given `reg(thread, register)` (the final
/// value of a register, by index) and `mem` (the final value of each physical
/// location); a register or location without a value reads 0.
pub fn term_value(
    test: &Test,
    t: &Term,
    reg: impl Fn(usize, usize) -> Option<i64>,
    mem: &[i64],
) -> i64 {
    match *t {
        Term::Const(c) => c,
        Term::Reg(th, r) => reg(th.index(), r.index()).unwrap_or(0),
        Term::Mem(a) => test
            .addresses
            .get(a.index())
            .and_then(|ad| mem.get(ad.phys.index()))
            .copied()
            .unwrap_or(0),
    }
}

/// Whether the proposition `p` holds when each term has the value `term`
/// gives it.
pub(crate) fn holds(p: &Prop, term: &dyn Fn(&Term) -> i64) -> bool {
    match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Cmp(c, a, b) => c.eval(term(a), term(b)),
        Prop::Not(q) => !holds(q, term),
        Prop::And(a, b) => holds(a, term) && holds(b, term),
        Prop::Or(a, b) => holds(a, term) || holds(b, term),
    }
}

pub(crate) use crate::terms::state_terms;

/// Physical locations whose final value some term (condition, observed, filter) reads.
pub(crate) fn relevant_locations(test: &Test) -> Vec<PhysId> {
    let mut terms = state_terms(test);
    if let Some(f) = &test.filter {
        f.terms(&mut terms);
    }
    let mut out: Vec<PhysId> = Vec::new();
    for t in terms {
        if let Term::Mem(a) = t {
            if let Some(ad) = test.addresses.get(a.index()) {
                if !out.contains(&ad.phys) {
                    out.push(ad.phys);
                }
            }
        }
    }
    out
}

/// The possible final memories of a consistent execution whose final coherence
/// order is `co`: for each relevant location, a write that can be
/// coherence-last. A write W that is the only maximal one is last; when several
/// writes are maximal, W is a candidate if the execution stays consistent after
/// ordering every other write of the location before it (`consistent_with`
/// receives the explorer's coherence edges plus those, for every location at
/// once). Locations that are not relevant keep their initial value.
///
/// Each memory comes with the explorer's coherence edges plus those that make
/// its writes coherence-last, when it needed any (`None`: the writes are
/// coherence-last in `co` already).
pub(crate) fn final_memories(
    test: &Test,
    exec: &Execution,
    co: &BitMatrix,
    consistent_with: &mut dyn FnMut(&BitMatrix) -> bool,
) -> Vec<(Vec<i64>, Option<BitMatrix>)> {
    let base: Vec<i64> = (0..test.n_phys as usize)
        .map(|p| test.init_mem.get(p).copied().unwrap_or(0))
        .collect();
    let options = final_write_options(test, exec, co);
    let mut out: Vec<(Vec<i64>, Option<BitMatrix>)> = Vec::new();
    let mut pick = vec![0usize; options.len()];
    loop {
        let mut mem = base.clone();
        let mut extra: Option<BitMatrix> = None;
        for (k, (p, writes, maximal)) in options.iter().enumerate() {
            let last = maximal[pick[k]];
            if let (Some(slot), Some(v)) = (mem.get_mut(p.index()), exec.event(last).value()) {
                *slot = v;
            }
            if maximal.len() > 1 {
                let m = extra.get_or_insert_with(|| exec.co().clone());
                for &w in writes {
                    if w != last {
                        m.insert(w, last);
                    }
                }
            }
        }
        let ok = match &extra {
            None => true,
            Some(m) => consistent_with(m),
        };
        if ok && !out.iter().any(|(m, _)| *m == mem) {
            out.push((mem, extra));
        }
        if !next_pick(&mut pick, &options) {
            return out;
        }
    }
}

/// For one location whose final value the test observes: the location, its
/// writes, and those that may be coherence-last (no write after them in the
/// coherence known so far).
pub(crate) type FinalWrites = (PhysId, Vec<EventId>, Vec<EventId>);

/// [`FinalWrites`] for every location of [`relevant_locations`] that has a
/// write, with coherence `co`.
pub(crate) fn final_write_options(
    test: &Test,
    exec: &Execution,
    co: &BitMatrix,
) -> Vec<FinalWrites> {
    let mut options = Vec::new();
    for p in relevant_locations(test) {
        let writes: Vec<EventId> = exec
            .ids()
            .filter(|&w| {
                let e = exec.event(w);
                e.is_write() && e.loc().is_some_and(|l| l.phys == p)
            })
            .collect();
        let maximal: Vec<EventId> = writes
            .iter()
            .copied()
            .filter(|&w| !writes.iter().any(|&w2| w2 != w && co.contains(w, w2)))
            .collect();
        if !maximal.is_empty() {
            options.push((p, writes, maximal));
        }
    }
    options
}

/// Moves `pick` (one index into each option's coherence-last writes) to the
/// next combination, like an odometer; false once every combination was
/// picked.
pub(crate) fn next_pick(pick: &mut [usize], options: &[FinalWrites]) -> bool {
    for (k, slot) in pick.iter_mut().enumerate() {
        *slot += 1;
        if *slot < options[k].2.len() {
            return true;
        }
        *slot = 0;
    }
    false
}

/// What the explorer has seen so far.
#[derive(Clone, Debug)]
pub(crate) struct Outcomes {
    terms: Vec<Term>,
    /// Final states (the values of `terms`) with their counts: keyed on the
    /// values alone, so that counting one more execution of a state already
    /// seen allocates nothing ([`Self::add_final`]).
    states: BTreeMap<Box<[i64]>, u64>,
    /// Scratch space for the state of [`Self::add_final`].
    key: Vec<i64>,
    positive: u64,
    negative: u64,
    liveness_violation: Option<String>,
    bound_note: Option<String>,
    /// Whether to keep a witness ([`crate::report::Options::witness`]).
    want_witness: bool,
    witness: Option<Box<Witness>>,
    /// What to check on every consistent execution for undefined behaviour
    /// (mixed-size data races, multimem addresses; `crate::sizes`).
    sizes: Option<Arc<SizeInfo>>,
    /// The first (by source position) undefined behaviour found.
    undefined: Option<Finding>,
    /// Statistics (the explorer updates them directly).
    pub stats: Stats,
    /// The deadline of the check (copied by [`Self::fork`]): past it, the
    /// states of a finished part are not merged ([`Self::merge`]).
    deadline: Option<Instant>,
    /// Whether some part's states were left out past the deadline: the
    /// check then ends with status `limit` (`explore::check_pruning`).
    pub(crate) late: bool,
}

impl Outcomes {
    /// Nothing seen yet.
    pub fn new(test: &Test) -> Self {
        Self {
            terms: state_terms(test),
            states: BTreeMap::new(),
            key: Vec::new(),
            positive: 0,
            negative: 0,
            liveness_violation: None,
            bound_note: None,
            want_witness: false,
            witness: None,
            sizes: None,
            undefined: None,
            stats: Stats::default(),
            deadline: None,
            late: false,
        }
    }

    /// Sets the checks for undefined behaviour ([`SizeInfo`]).
    pub fn set_sizes(&mut self, sizes: Option<Arc<SizeInfo>>) {
        self.sizes = sizes;
    }

    /// Whether complete executions must go through the checks for undefined
    /// behaviour and torn parts ([`SizeInfo`]), which only
    /// [`super::candidate::finish`] makes.
    pub fn checks_sizes(&self) -> bool {
        self.sizes.is_some()
    }

    /// Checks the consistent execution `exec` (relations `rel`) for undefined
    /// behaviour (8.7.2 mixed-size data races, 8.2.3 multimem addresses).
    pub fn check_undefined(&mut self, exec: &Execution, rel: &Relations) {
        let Some(info) = &self.sizes else { return };
        if let Some(f) = info.undefined(exec, rel) {
            self.keep_undefined(f);
        }
    }

    /// Whether the execution `exec` of a rewritten test is one of the
    /// original test ([`SizeInfo::accept`]).
    pub fn sizes_accept(&self, exec: &Execution, rel: &Relations) -> bool {
        self.sizes.as_ref().is_none_or(|i| i.accept(exec, rel))
    }

    fn keep_undefined(&mut self, f: Finding) {
        if self.undefined.as_ref().is_none_or(|u| f.0 < u.0) {
            self.undefined = Some(f);
        }
    }

    /// The undefined behaviour found, in words.
    pub fn undefined(&self) -> Option<&str> {
        self.undefined.as_ref().map(|f| f.1.as_str())
    }

    /// Asks for a witness ([`crate::report::Options::witness`]).
    pub fn want_witness(&mut self, on: bool) {
        self.want_witness = on;
    }

    /// The valuation among `valuations` that would make a witness, if a
    /// witness is wanted and none is kept yet: the first that passes the
    /// filter and decides the condition (satisfies the proposition of
    /// `exists`/`~exists`, violates that of `forall`).
    pub fn witness_candidate(&self, test: &Test, valuations: &[Valuation]) -> Option<usize> {
        if !self.want_witness || self.witness.is_some() {
            return None;
        }
        let wanted = test.condition.quantifier != Quantifier::Forall;
        valuations.iter().position(|v| {
            test.filter.as_ref().is_none_or(|f| v.holds(test, f))
                && v.holds(test, &test.condition.prop) == wanted
        })
    }

    /// Keeps the witness: `exec` with `relations`, final values `v`.
    pub fn set_witness(
        &mut self,
        test: &Test,
        execution: Execution,
        relations: Relations,
        v: &Valuation,
    ) {
        let state = FinalState(self.terms.iter().map(|t| v.term(test, t)).collect());
        self.witness = Some(Box::new(Witness {
            execution,
            relations,
            state,
            regs: v.regs.clone(),
            memory: v.mem.clone(),
            positive: v.holds(test, &test.condition.prop),
        }));
    }

    /// Adds one terminating, consistent execution with its possible final
    /// valuations: each distinct final state that passes the filter is one
    /// outcome, positive or negative for the condition.
    pub fn add_execution(&mut self, test: &Test, valuations: &[Valuation]) {
        self.stats.executions += 1;
        let mut seen = BTreeSet::new();
        for v in valuations {
            if let Some(f) = &test.filter {
                if !v.holds(test, f) {
                    continue;
                }
            }
            let state: Box<[i64]> = self.terms.iter().map(|t| v.term(test, t)).collect();
            if !seen.insert(state.clone()) {
                continue;
            }
            if v.holds(test, &test.condition.prop) {
                self.positive += 1;
            } else {
                self.negative += 1;
            }
            *self.states.entry(state).or_insert(0) += 1;
        }
    }

    /// Adds one terminating, consistent execution with a single final
    /// valuation, given as the value of each term: what [`Self::add_execution`]
    /// does with one valuation, without allocating when its final state was
    /// seen before (the explorers' hot path).
    pub fn add_final(&mut self, test: &Test, term: &dyn Fn(&Term) -> i64) {
        self.stats.executions += 1;
        if test.filter.as_ref().is_some_and(|f| !holds(f, term)) {
            return;
        }
        if holds(&test.condition.prop, term) {
            self.positive += 1;
        } else {
            self.negative += 1;
        }
        self.key.clear();
        self.key.extend(self.terms.iter().map(term));
        match self.states.get_mut(&self.key[..]) {
            Some(n) => *n += 1,
            None => {
                self.states.insert(self.key[..].into(), 1);
            }
        }
    }

    /// Whether a terminating execution would be considered for the witness
    /// ([`Self::witness_candidate`] may pick one of its valuations).
    pub fn wants_witness(&self) -> bool {
        self.want_witness && self.witness.is_none()
    }

    /// Records a liveness violation (the first one is kept).
    pub fn liveness_violation(&mut self, note: String) {
        if self.liveness_violation.is_none() {
            self.liveness_violation = Some(note);
        }
    }

    /// Records an execution cut by the loop bound.
    pub fn bound_hit(&mut self, note: String) {
        self.stats.bound_hits += 1;
        if self.bound_note.is_none() {
            self.bound_note = Some(note);
        }
    }

    /// Forgets the final states seen (a check stopped by the memory limit
    /// reports its counts but does not build states it has no room for).
    pub fn forget_states(&mut self) {
        self.states = BTreeMap::new();
    }

    /// The report.
    pub fn into_report(self, test: &Test, status: Status, time: Duration) -> Report {
        let condition_holds = match test.condition.quantifier {
            Quantifier::Exists => self.positive > 0,
            Quantifier::NotExists => self.positive == 0,
            Quantifier::Forall => self.negative == 0,
        };
        let liveness_holds = self.liveness_violation.is_none();
        let liveness_note = match (self.liveness_violation, self.bound_note) {
            (Some(v), Some(b)) => Some(format!("{v}; {b}")),
            (Some(v), None) => Some(v),
            (None, b) => b,
        };
        Report {
            status,
            state_terms: self.terms,
            states: self
                .states
                .into_iter()
                .map(|(k, n)| (FinalState(k.into_vec()), n))
                .collect(),
            positive: self.positive,
            negative: self.negative,
            condition_holds,
            liveness_holds,
            liveness_note,
            stats: self.stats,
            time,
            witness: self.witness,
        }
    }
}

/// Splitting an exploration between parallel workers (the DPOR explorer).
impl Outcomes {
    /// An empty `Outcomes` with the same settings, for a worker that explores
    /// a part of the search on its own.
    pub(crate) fn fork(&self) -> Self {
        Self {
            terms: self.terms.clone(),
            states: BTreeMap::new(),
            key: Vec::new(),
            positive: 0,
            negative: 0,
            liveness_violation: None,
            bound_note: None,
            want_witness: self.want_witness,
            witness: None,
            sizes: self.sizes.clone(),
            undefined: None,
            stats: Stats::default(),
            deadline: self.deadline,
            late: false,
        }
    }

    /// Sets the deadline of the check ([`Self::merge`]).
    pub(crate) fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Folds in what a worker found in the part of the search that comes
    /// after this one's (in the sequential order): counts add up, and what is
    /// kept once (the liveness and loop-bound notes, the witness) stays this
    /// one's when it has one. Merging the parts in search order gives exactly
    /// what one sequential exploration gives, whatever the number of workers.
    pub(crate) fn merge(&mut self, later: Outcomes) {
        let mut small = later.states;
        // The smaller set goes into the larger: the parts of a parallel
        // search are merged as they end, often after the deadline, and a
        // worker that found most states must not be copied into one that
        // found few.
        if small.len() > self.states.len() {
            std::mem::swap(&mut self.states, &mut small);
        }
        self.late |= later.late;
        if small.is_empty() {
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            // Past the deadline the states of the larger part are what is
            // known (merging millions of states would hold the answer back);
            // the check is then stopped by the time limit, whatever else it
            // found.
            self.late = true;
        } else if small.len().saturating_mul(16) < self.states.len() {
            for (state, n) in small {
                *self.states.entry(state).or_insert(0) += n;
            }
        } else {
            // Two sets of similar size: one pass over both, in key order,
            // and a map built from the sorted result.
            let big = std::mem::take(&mut self.states);
            self.states = merge_sorted(big, small).into_iter().collect();
        }
        self.positive += later.positive;
        self.negative += later.negative;
        if self.liveness_violation.is_none() {
            self.liveness_violation = later.liveness_violation;
        }
        if self.bound_note.is_none() {
            self.bound_note = later.bound_note;
        }
        if self.witness.is_none() {
            self.witness = later.witness;
        }
        if let Some(f) = later.undefined {
            self.keep_undefined(f);
        }
        let (s, l) = (&mut self.stats, later.stats);
        s.executions += l.executions;
        s.blocked += l.blocked;
        s.pruned += l.pruned;
        s.duplicates += l.duplicates;
        s.bound_hits += l.bound_hits;
    }
}

/// What a piece of a part counts: the data [`Outcomes::merge`] reads, which
/// the parts of a split exploration (`explore/split.rs`) carry.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Tally {
    /// Final states (values of the terms) with their counts, sorted.
    pub states: Vec<(Vec<i64>, u64)>,
    /// Outcomes satisfying the condition's proposition.
    pub positive: u64,
    /// Outcomes that do not.
    pub negative: u64,
    /// The first liveness violation of the piece.
    pub liveness_violation: Option<String>,
    /// The first loop-bound note of the piece.
    pub bound_note: Option<String>,
    /// The first undefined behaviour (by source position) of the piece.
    pub undefined: Option<((u32, u32, u32, u32), String)>,
    /// Statistics.
    pub stats: Stats,
}

/// The states of `a` and `b` in key order, the counts of a state in both
/// added.
fn merge_sorted(
    a: BTreeMap<Box<[i64]>, u64>,
    b: BTreeMap<Box<[i64]>, u64>,
) -> Vec<(Box<[i64]>, u64)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some((x, _)), Some((y, _))) => match x.cmp(y) {
                std::cmp::Ordering::Less => a.next(),
                std::cmp::Ordering::Greater => b.next(),
                std::cmp::Ordering::Equal => {
                    let (k, m) = a.next().unwrap_or_default();
                    let n = b.next().map_or(0, |(_, n)| n);
                    Some((k, m + n))
                }
            },
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        out.extend(next);
    }
    out
}

/// What the parts of a split exploration carry (`explore/split.rs`).
impl Outcomes {
    /// Everything [`Self::merge`] reads, as plain data.
    pub(crate) fn tally(&self) -> Tally {
        Tally {
            states: self.states.iter().map(|(k, &n)| (k.to_vec(), n)).collect(),
            positive: self.positive,
            negative: self.negative,
            liveness_violation: self.liveness_violation.clone(),
            bound_note: self.bound_note.clone(),
            undefined: self.undefined.clone(),
            stats: self.stats.clone(),
        }
    }

    /// Folds in a part that comes after this one in the search order.
    pub(crate) fn merge_tally(&mut self, t: &Tally) {
        let mut later = self.fork();
        later.states = t
            .states
            .iter()
            .map(|(k, n)| (k.clone().into(), *n))
            .collect();
        later.positive = t.positive;
        later.negative = t.negative;
        later.liveness_violation = t.liveness_violation.clone();
        later.bound_note = t.bound_note.clone();
        later.undefined = t.undefined.clone();
        later.stats = t.stats.clone();
        self.merge(later);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `add_final` counts exactly what `add_execution` counts for one
    /// valuation: executions, positive and negative outcomes, states.
    #[test]
    fn add_final_is_add_execution_of_one_valuation() {
        let src = "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
                   st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n\
                   exists (1:r0 == 1 /\\ x == 1)";
        let test = ptxmc_frontend::parse(src).expect("parses");
        let mut one = Outcomes::new(&test);
        let mut two = Outcomes::new(&test);
        for (r0, x) in [(1, 1), (0, 1), (1, 1), (0, 0)] {
            let v = Valuation {
                regs: vec![vec![], vec![r0]],
                mem: vec![x],
            };
            one.add_execution(&test, std::slice::from_ref(&v));
            two.add_final(&test, &|t| v.term(&test, t));
        }
        let a = one.into_report(&test, Status::Ok, Duration::ZERO);
        let b = two.into_report(&test, Status::Ok, Duration::ZERO);
        assert_eq!(a, b);
        assert_eq!((b.positive, b.negative, b.states.len()), (2, 2, 3));
    }

    /// Merging the states of two sets gives the counts of both, whichever
    /// is larger and however much they overlap.
    #[test]
    fn merged_states_add_their_counts() {
        let set = |keys: &[(i64, u64)]| -> BTreeMap<Box<[i64]>, u64> {
            keys.iter().map(|&(k, n)| (vec![k].into(), n)).collect()
        };
        let small = [(1, 1), (5, 2)];
        let overlapping = [(0, 1), (1, 3), (2, 1), (4, 1), (5, 1), (9, 9)];
        let mut many: Vec<(i64, u64)> = (0..100).map(|k| (k, 1)).collect();
        many.push((200, 1));
        for (a, b) in [
            (&small[..], &overlapping[..]),
            (&overlapping[..], &small[..]),
            (&small[..], &many[..]),
            (&many[..], &overlapping[..]),
            (&[][..], &small[..]),
        ] {
            let mut want = set(a);
            for (k, n) in set(b) {
                *want.entry(k).or_insert(0) += n;
            }
            let test = ptxmc_frontend::parse(
                "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)",
            )
            .expect("parses");
            let mut x = Outcomes::new(&test);
            let mut y = Outcomes::new(&test);
            x.states = set(a);
            y.states = set(b);
            x.merge(y);
            assert_eq!(x.states, want);
            assert_eq!(
                merge_sorted(set(a), set(b))
                    .into_iter()
                    .collect::<BTreeMap<_, _>>(),
                want
            );
        }
    }
}
