//! The reference enumerator: every candidate execution, filtered by the model.
//! Clarity over speed: it is the oracle the other explorers are tested against.
//!
//! 1. Each thread runs once per path with symbolic values (herd-style,
//!    [`traces`]): a read's value is a variable, a branch the values do
//!    not decide forks with a constraint, and a thread may stop forever at a
//!    barrier wait that has a thread count.
//! 2. For every combination of one path per thread: initial writes first, then
//!    the threads' events. Every read reads from any write of its location
//!    (reads-from); the values then follow (a cycle of values through
//!    reads-from and data dependencies is a No-Thin-Air cycle, 8.10.4) and must
//!    satisfy the paths' constraints.
//! 3. For every reads-from: every acyclic orientation of the pairs of morally
//!    strong writes to one location (exactly the orientations a linear order of
//!    those writes induces). Each (paths, reads-from, orientation) is one
//!    candidate, and one execution if consistent.
//! 4. The shared completion step ([`super::candidate::finish`]) decides each
//!    candidate: consistent if [`model::check`] accepts it for *some* Fence-SC
//!    order and *some* barrier arrival order (existential choices,
//!    `docs/model-notes.md`, which do not multiply executions). Terminating
//!    executions give final states; blocked ones (spin, loop bound, barrier)
//!    give liveness verdicts.
//!
//! Pruning. Every axiom only forbids, and every relation it reads grows with
//! reads-from, coherence and barrier synchronization edges (8.10; the model
//! does not require morally strong writes to be ordered, the explorer does).
//! So a partial graph (some reads without a write to read from, some pairs not
//! oriented, only the barrier edges every completion has) that the model
//! rejects for every Fence-SC order has no consistent completion, and its
//! subtree is skipped. This changes nothing but the time (every unit test of
//! the enumerator runs both ways; so did the whole corpus once).

mod sym;
mod traces;

use super::barrier;
use super::candidate::{self, Ending, Finish};
use super::outcome::Outcomes;
use super::Budget;
use crate::event::{EventId, EventKind};
use crate::execution::Execution;
use crate::interp::ThreadCode;
use crate::model;
use crate::relation::BitMatrix;
use crate::report::{Options, Status};
use ptxmc_frontend::ir::{Test, ThreadId};
use smallvec::SmallVec;
use std::collections::HashSet;
use std::time::Instant;
use sym::Sym;
use traces::{Trace, TraceEnd};

/// Paths of one thread beyond which the enumerator gives up.
const MAX_PATHS: usize = 100_000;

/// Explores every execution of `test` into `out`; the status says how it ended.
pub(crate) fn explore(
    test: &Test,
    opts: &Options,
    budget: &mut Budget,
    out: &mut Outcomes,
    prune: bool,
) -> Status {
    match explore_all(test, opts, budget, out, prune, None) {
        Ok(()) => Status::Ok,
        Err(s) => s,
    }
}

/// A complete candidate of the enumerator, handed to the visitor of
/// [`candidates`] instead of being decided.
pub(crate) enum Visit<'e> {
    /// Paths, values, reads-from and the orientation of coherence between
    /// morally strong writes are fixed (no Fence-SC order, no barrier
    /// synchronization yet: both are existential).
    Candidate {
        /// The candidate.
        exec: &'e Execution,
        /// How each thread ended.
        endings: &'e [Ending],
        /// Final register values, per thread.
        regs: &'e [Vec<i64>],
    },
    /// Reads-from leaves the values of `unknown` on a cycle of reads-from and
    /// dependencies (values out of thin air, 8.10.4); `exec` has reads-from
    /// but no values for them.
    ValueCycle {
        /// The candidate.
        exec: &'e Execution,
        /// The events whose values the cycle leaves open.
        unknown: &'e [EventId],
    },
    /// A partial graph: reads-from chosen for the first reads only. `regs`
    /// are the final register values as far as they are known. The visitor
    /// answers whether to go on below it (`false`: no completion interests it).
    Partial {
        /// Final register values, per thread (`None`: not known yet).
        regs: &'e [Vec<Option<i64>>],
    },
    /// A partial graph that the model rejects for every Fence-SC order: none
    /// of its completions is consistent, and they are skipped.
    Pruned {
        /// The partial graph (with the barrier edges every completion has
        /// when coherence is being oriented).
        exec: &'e Execution,
    },
}

/// Hands every candidate of `test` (paths and reads-from that the paths'
/// constraints allow, then every acyclic orientation of morally strong write
/// pairs) to `visit`, without deciding consistency: what `ptxmc explain`
/// needs to see the candidates the model rejects. With `prune`, each partial
/// graph is shown first ([`Visit::Partial`], the visitor may skip what is
/// below it), and one the model rejects is shown as [`Visit::Pruned`] and
/// not completed.
pub(crate) fn candidates(
    test: &Test,
    opts: &Options,
    budget: &mut Budget,
    prune: bool,
    visit: &mut dyn FnMut(Visit<'_>) -> Result<bool, Status>,
) -> Status {
    let mut out = Outcomes::new(test);
    match explore_all(test, opts, budget, &mut out, prune, Some(visit)) {
        Ok(()) => Status::Ok,
        Err(s) => s,
    }
}

/// The visitor of [`candidates`].
type Visitor<'a, 'v> = &'a mut (dyn FnMut(Visit<'_>) -> Result<bool, Status> + 'v);

fn explore_all(
    test: &Test,
    opts: &Options,
    budget: &mut Budget,
    out: &mut Outcomes,
    prune: bool,
    visit: Option<Visitor<'_, '_>>,
) -> Result<(), Status> {
    let built = Instant::now();
    let mut codes = Vec::new();
    for t in 0..test.threads.len() {
        let code = ThreadCode::new(test, ThreadId::new(t)).map_err(Status::Unsupported)?;
        codes.push(code.with_reading(opts.reading));
    }
    let mut paths = Vec::new();
    for code in &codes {
        let p = traces::enumerate(code, test, opts.unroll, MAX_PATHS, budget.deadline).map_err(
            |e| match e {
                traces::Stopped::Deadline => Status::Limit(format!(
                    "timeout after {:.3} s",
                    opts.timeout.unwrap_or_default().as_secs_f64()
                )),
                traces::Stopped::TooMany(_) => Status::Limit(format!(
                    "more than {MAX_PATHS} paths (or a path too long) in P{}",
                    code.thread().index()
                )),
            },
        )?;
        paths.push(p);
    }
    if paths.iter().any(Vec::is_empty) {
        return Ok(());
    }
    // Freeing the paths (symbolic values behind `Rc`s) takes up to as long
    // as building them: that time is kept before the deadline, so that a
    // search stopped by it still returns within the limit.
    budget.reserve(built.elapsed());
    let mut brute = Brute {
        test,
        budget,
        seen: opts.check_duplicates.then(HashSet::new),
        prune,
        visit,
    };
    // Every combination of one path per thread (odometer order).
    let mut pick = vec![0usize; paths.len()];
    loop {
        let combo: Vec<&Trace> = pick.iter().zip(&paths).map(|(&i, p)| &p[i]).collect();
        let mut cand = Cand::new(test, combo);
        brute.rf_dfs(&mut cand, 0, out)?;
        let mut k = 0;
        loop {
            if k == paths.len() {
                return Ok(());
            }
            pick[k] += 1;
            if pick[k] < paths[k].len() {
                break;
            }
            pick[k] = 0;
            k += 1;
        }
    }
}

struct Brute<'a, 'v> {
    test: &'a Test,
    budget: &'a mut Budget,
    /// Hashes of the canonical forms seen (with `check_duplicates`).
    seen: Option<HashSet<u64>>,
    /// Whether to skip partial graphs the model rejects (see the module docs).
    prune: bool,
    /// Hand complete candidates here instead of deciding them ([`candidates`]).
    visit: Option<Visitor<'a, 'v>>,
}

/// One combination of paths, being completed into candidates.
struct Cand<'t> {
    traces: Vec<&'t Trace>,
    exec: Execution,
    /// First event id of each thread.
    offsets: Vec<usize>,
    /// For each event: its thread and program-order index (`None`: initial write).
    owner: Vec<Option<(usize, u32)>>,
    /// Reads, in event order.
    reads: Vec<EventId>,
    /// Writes (initial write first) of each physical location.
    writes_by_phys: Vec<Vec<EventId>>,
}

impl<'t> Cand<'t> {
    fn new(test: &Test, traces: Vec<&'t Trace>) -> Self {
        let mut exec = candidate::empty_execution(test);
        let mut owner: Vec<Option<(usize, u32)>> = vec![None; exec.len()];
        let mut offsets = Vec::new();
        for (t, tr) in traces.iter().enumerate() {
            let off = exec.len();
            offsets.push(off);
            let remap = |d: &SmallVec<[EventId; 2]>| -> SmallVec<[EventId; 2]> {
                d.iter().map(|e| EventId::new(off + e.index())).collect()
            };
            for (i, e) in tr.events.iter().enumerate() {
                let mut e = e.clone();
                e.addr_deps = remap(&e.addr_deps);
                e.data_deps = remap(&e.data_deps);
                e.ctrl_deps = remap(&e.ctrl_deps);
                owner.push(Some((t, i as u32)));
                exec.push_event(t, e);
            }
        }
        let mut reads = Vec::new();
        let mut writes_by_phys = vec![Vec::new(); test.n_phys as usize];
        for (i, e) in exec.events().iter().enumerate() {
            match e.kind {
                EventKind::Read { .. } => reads.push(EventId::new(i)),
                EventKind::Write { loc, .. } => {
                    if let Some(ws) = writes_by_phys.get_mut(loc.phys.index()) {
                        ws.push(EventId::new(i));
                    }
                }
                _ => {}
            }
        }
        Cand {
            traces,
            exec,
            offsets,
            owner,
            reads,
            writes_by_phys,
        }
    }

    fn phys(&self, e: EventId) -> usize {
        self.exec.event(e).loc().map_or(0, |l| l.phys.index())
    }

    /// The values every event reads or writes, as far as reads-from so far
    /// determines them (least fixpoint).
    fn values(&self) -> Vec<Option<i64>> {
        let n = self.exec.len();
        let mut vals: Vec<Option<i64>> = vec![None; n];
        for (i, v) in vals.iter_mut().enumerate() {
            if self.owner[i].is_none() {
                *v = self.exec.events()[i].value();
            }
        }
        loop {
            let mut changed = false;
            for i in 0..n {
                if vals[i].is_some() {
                    continue;
                }
                let Some((t, po)) = self.owner[i] else {
                    continue;
                };
                let v = if self.exec.events()[i].is_read() {
                    self.exec.rf()[i].and_then(|w| vals[w.index()])
                } else {
                    let off = self.offsets[t];
                    self.traces[t].write_values[po as usize]
                        .as_ref()
                        .and_then(|s| s.eval(&|j| vals.get(off + j as usize).copied().flatten()))
                };
                if v.is_some() {
                    vals[i] = v;
                    changed = true;
                }
            }
            if !changed {
                return vals;
            }
        }
    }

    /// Whether no path constraint is violated by the values known so far.
    fn constraints_hold(&self, vals: &[Option<i64>]) -> bool {
        self.traces.iter().enumerate().all(|(t, tr)| {
            let off = self.offsets[t];
            let look = |j: u32| vals.get(off + j as usize).copied().flatten();
            tr.constraints
                .iter()
                .all(|c| match (c.a.eval(&look), c.b.eval(&look)) {
                    (Some(a), Some(b)) => c.cmp.eval(a, b) == c.holds,
                    _ => true,
                })
        })
    }

    /// The final register values as far as `vals` determines them.
    fn partial_regs(&self, vals: &[Option<i64>]) -> Vec<Vec<Option<i64>>> {
        self.traces
            .iter()
            .enumerate()
            .map(|(t, tr)| {
                let off = self.offsets[t];
                let look = |j: u32| vals.get(off + j as usize).copied().flatten();
                tr.regs.iter().map(|s| s.eval(&look)).collect()
            })
            .collect()
    }

    fn eval_in(&self, t: usize, s: &Sym, vals: &[Option<i64>]) -> i64 {
        let off = self.offsets[t];
        s.eval(&|j| vals.get(off + j as usize).copied().flatten())
            .unwrap_or(0)
    }

    /// Writes the values into the events (reads, writes, barrier ids and counts).
    fn fill_values(&mut self, vals: &[Option<i64>]) {
        for i in 0..self.exec.len() {
            let Some((t, po)) = self.owner[i] else {
                continue;
            };
            let bar = self.traces[t].barriers[po as usize]
                .as_ref()
                .map(|(id, c)| {
                    (
                        self.eval_in(t, id, vals),
                        c.as_ref().map(|c| self.eval_in(t, c, vals)),
                    )
                });
            match &mut self.exec.event_mut(EventId::new(i)).kind {
                EventKind::Read { value, .. } | EventKind::Write { value, .. } => {
                    *value = vals[i].unwrap_or(0);
                }
                EventKind::Barrier { id, count, .. } => {
                    if let Some((b, c)) = bar {
                        *id = b;
                        *count = c;
                    }
                }
                EventKind::Fence(_) => {}
            }
        }
    }

    /// The pairs of morally strong writes to one location (coherence must orient each).
    fn ms_write_pairs(&self) -> Vec<(EventId, EventId)> {
        let mut out = Vec::new();
        for ws in &self.writes_by_phys {
            for (i, &a) in ws.iter().enumerate() {
                for &b in &ws[i + 1..] {
                    if model::morally_strong(&self.exec, a, b) {
                        out.push((a, b));
                    }
                }
            }
        }
        out
    }

    /// How each thread ended, with event ids of this candidate.
    fn endings(&self) -> Vec<Ending> {
        let global = |t: usize, po: u32| EventId::new(self.offsets[t] + po as usize);
        self.traces
            .iter()
            .enumerate()
            .map(|(t, tr)| match &tr.end {
                TraceEnd::Done => Ending::Done,
                TraceEnd::Spin { iteration, at } => Ending::Spin {
                    iteration: iteration.iter().map(|&po| global(t, po)).collect(),
                    at: *at,
                },
                TraceEnd::Bound { at } => Ending::Bound { at: *at },
                TraceEnd::BarrierStop => {
                    Ending::BarrierStop(global(t, tr.events.len().saturating_sub(1) as u32))
                }
            })
            .collect()
    }
}

impl Brute<'_, '_> {
    /// Chooses the write the `k`-th read reads from, for every read from `k` on.
    fn rf_dfs(&mut self, cand: &mut Cand, k: usize, out: &mut Outcomes) -> Result<(), Status> {
        self.budget.tick(out)?;
        let Some(&r) = cand.reads.get(k) else {
            return self.rf_leaf(cand, out);
        };
        let writes = cand
            .writes_by_phys
            .get(cand.phys(r))
            .cloned()
            .unwrap_or_default();
        for w in writes {
            cand.exec.set_rf(r, Some(w));
            let vals = cand.values();
            if !cand.constraints_hold(&vals) {
                continue;
            }
            if let Some(visit) = &mut self.visit {
                let regs = cand.partial_regs(&vals);
                if !visit(Visit::Partial { regs: &regs })? {
                    continue;
                }
            }
            // Barrier ids may still be unknown: no barrier edges here.
            if self.prune && k + 1 < cand.reads.len() && !consistent_partial(&mut cand.exec, false)
            {
                out.stats.pruned += 1;
                if let Some(visit) = &mut self.visit {
                    visit(Visit::Pruned { exec: &cand.exec })?;
                }
                continue;
            }
            // One level per read: deep for large graphs ([`crate::stack::deep`]).
            crate::stack::deep(|| self.rf_dfs(cand, k + 1, out))?;
        }
        cand.exec.set_rf(r, None);
        Ok(())
    }

    /// Reads-from is complete: fix the values, then enumerate coherence orientations.
    fn rf_leaf(&mut self, cand: &mut Cand, out: &mut Outcomes) -> Result<(), Status> {
        let vals = cand.values();
        if cand.reads.iter().any(|r| vals[r.index()].is_none()) {
            // A value cycle through reads-from and data dependencies: the
            // No-Thin-Air axiom (8.10.4) forbids every such candidate.
            out.stats.pruned += 1;
            if let Some(visit) = &mut self.visit {
                let unknown: Vec<EventId> = (0..vals.len())
                    .filter(|&i| vals[i].is_none() && cand.owner[i].is_some())
                    .map(EventId::new)
                    .collect();
                return visit(Visit::ValueCycle {
                    exec: &cand.exec,
                    unknown: &unknown,
                })
                .map(|_| ());
            }
            return Ok(());
        }
        if !cand.constraints_hold(&vals) {
            return Ok(());
        }
        cand.fill_values(&vals);
        let regs: Vec<Vec<i64>> = cand
            .traces
            .iter()
            .enumerate()
            .map(|(t, tr)| tr.regs.iter().map(|s| cand.eval_in(t, s, &vals)).collect())
            .collect();
        let pairs = cand.ms_write_pairs();
        let mut co = BitMatrix::new(cand.exec.len());
        let result = self.co_dfs(cand, &pairs, &regs, 0, &mut co, out);
        // Back to the least coherence for the partial checks of reads-from.
        cand.exec.set_co(BitMatrix::new(cand.exec.len()));
        result
    }

    /// Orients the `k`-th morally strong pair, and every later one, keeping the
    /// orientation acyclic.
    fn co_dfs(
        &mut self,
        cand: &mut Cand,
        pairs: &[(EventId, EventId)],
        regs: &[Vec<i64>],
        k: usize,
        co: &mut BitMatrix,
        out: &mut Outcomes,
    ) -> Result<(), Status> {
        // Pairs grow with the square of the writes: the time limit is
        // looked at on every level, not only per read.
        self.budget.tick(out)?;
        let Some(&(a, b)) = pairs.get(k) else {
            return self.complete(cand, co, regs, out);
        };
        for (x, y) in [(a, b), (b, a)] {
            // Adding x -> y closes a cycle iff y already reaches x.
            if co.transitive_closure().contains(y, x) {
                continue;
            }
            co.insert(x, y);
            if self.prune && k + 1 < pairs.len() {
                cand.exec.copy_co_from(co);
                if !consistent_partial(&mut cand.exec, true) {
                    out.stats.pruned += 1;
                    if let Some(visit) = &mut self.visit {
                        visit(Visit::Pruned { exec: &cand.exec })?;
                    }
                    co.remove(x, y);
                    continue;
                }
            }
            crate::stack::deep(|| self.co_dfs(cand, pairs, regs, k + 1, co, out))?;
            co.remove(x, y);
        }
        Ok(())
    }

    /// A complete candidate: the shared completion step decides and folds it.
    fn complete(
        &mut self,
        cand: &mut Cand,
        co: &BitMatrix,
        regs: &[Vec<i64>],
        out: &mut Outcomes,
    ) -> Result<(), Status> {
        self.budget.tick(out)?;
        let mut exec = cand.exec.clone();
        exec.set_co(co.clone());
        exec.clear_orders();
        if let Some(visit) = &mut self.visit {
            return visit(Visit::Candidate {
                exec: &exec,
                endings: &cand.endings(),
                regs,
            })
            .map(|_| ());
        }
        let hash = self
            .seen
            .is_some()
            .then(|| candidate::canonical_hash(&cand.exec, co));
        match candidate::finish(self.test, exec, &cand.endings(), regs.to_vec(), out) {
            Finish::Consistent => {
                if let (Some(seen), Some(h)) = (&mut self.seen, hash) {
                    if !seen.insert(h) {
                        out.stats.duplicates += 1;
                    }
                }
                self.budget.check_executions(out)
            }
            Finish::Inconsistent => Ok(()),
            Finish::Stop(s) => Err(s),
        }
    }
}

/// Whether a partial graph (some reads without a write, some pairs not
/// oriented) is consistent for some Fence-SC order, with the barrier edges
/// every completion has (`barriers`) or none.
fn consistent_partial(exec: &mut Execution, barriers: bool) -> bool {
    exec.set_barrier_sync(if barriers {
        barrier::certain_sync(exec)
    } else {
        Vec::new()
    });
    candidate::exists_fence_sc_order(exec, &mut model::consistent)
}
