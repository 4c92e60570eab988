//! The DPOR explorer: builds execution graphs one event at a time, each
//! consistent graph exactly once, with no set of visited graphs.
//!
//! Design (after GenMC's TruSt, POPL 2022, and HMC, ASPLOS 2020, adapted to
//! PTX; see `../shared/design/dpor-for-ptx.md` and `ARCHITECTURE.md`):
//!
//! - Events are added in a fixed order: thread 0 to its end, then thread 1,
//!   and so on, each thread in program order. Every event is added to a
//!   graph whose prefix is consistent; a graph is pruned as soon as it is
//!   inconsistent, which is sound because every axiom of 8.10 is monotone in
//!   the events and edges present (relations only grow).
//! - A **read** branches over the writes already in the graph (forward
//!   revisits), and over one more choice per value that a write not yet added
//!   can write: it *commits* to reading from a later write (of a later thread,
//!   or of its own thread in program order after it). That is how load
//!   buffering (8.10.4) is reached without a porf-prefix: the read's value is
//!   fixed, the write it reads from is chosen when that write is added.
//! - A **write** branches over its coherence position with respect to the
//!   morally strong writes of its location already added (8.9.6: only those
//!   pairs are ordered; racing writes cost no branching), and over which of
//!   the committed reads of the same location and value read from it
//!   (backward revisits). A committed read that no write ever satisfies
//!   discards its graph.
//! - Each complete graph is produced from exactly one path of choices (a
//!   read's writer is chosen either when the read is added, if the writer
//!   already exists, or when the writer is added), so no graph is visited
//!   twice. Memory is linear in the depth of the search.
//! - Fence-SC order and barrier arrival order are existential, as in the
//!   reference enumerator; the completion step ([`super::candidate`]) is
//!   shared with it, so both count and judge executions identically.

use super::barrier;
use super::candidate::{self, Ending, Finish};
use super::outcome::Outcomes;
use super::Budget;
use crate::event::{EventId, EventKind};
use crate::execution::Execution;
use crate::interp::{Next, ThreadCode, ThreadState};
use crate::model;
use crate::relation::BitMatrix;
use crate::report::{BlockReason, Status};
use ptxmc_frontend::ir::{BarrierKind, Instr, Proxy, Test, ThreadId, VAddrId};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashSet};

/// How a thread stands in a partial graph.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Run {
    /// Still has instructions to execute.
    Running,
    /// Ended: done, blocked, or stopped at a barrier forever.
    Ended(Ending),
}

/// One node of the search: a consistent partial graph and the thread states.
#[derive(Clone)]
struct Node {
    exec: Execution,
    /// Coherence edges between morally strong writes, as the explorer chose them.
    co_edges: Vec<(EventId, EventId)>,
    states: Vec<ThreadState<i64>>,
    runs: Vec<Run>,
    /// Reads committed to reading from a write not yet added.
    pending: Vec<EventId>,
}

/// Values each thread may write to each physical location: `[thread][phys]`.
pub(crate) type WriteDomain = Vec<Vec<BTreeSet<i64>>>;

/// The explorer's fixed inputs.
pub(crate) struct Dpor<'a> {
    test: &'a Test,
    codes: &'a [ThreadCode],
    unroll: u32,
    /// `writes[t][p]`: values a write of thread `t` may write to `p`.
    writes: &'a WriteDomain,
    /// `accesses[t][p]`: the (virtual address, proxy) pairs through which
    /// thread `t` writes `p`.
    accesses: Vec<Vec<BTreeSet<(VAddrId, Proxy)>>>,
    /// Hashes of the complete graphs seen, with `--check-duplicates`.
    seen: RefCell<Option<HashSet<u64>>>,
}

impl<'a> Dpor<'a> {
    /// The explorer for `test`, given each thread's possible written values.
    pub(crate) fn new(
        test: &'a Test,
        codes: &'a [ThreadCode],
        unroll: u32,
        writes: &'a WriteDomain,
        check_duplicates: bool,
    ) -> Self {
        let mut accesses = vec![vec![BTreeSet::new(); test.n_phys as usize]; test.threads.len()];
        for (t, th) in test.threads.iter().enumerate() {
            for stmt in &th.code {
                let (addr, proxy) = match &stmt.instr {
                    Instr::Store { addr, proxy, .. } | Instr::Rmw { addr, proxy, .. } => {
                        (*addr, *proxy)
                    }
                    _ => continue,
                };
                if let Some(a) = test.addresses.get(addr.index()) {
                    if let Some(slot) = accesses[t].get_mut(a.phys.index()) {
                        slot.insert((a.vaddr, proxy));
                    }
                }
            }
        }
        Self {
            test,
            codes,
            unroll,
            writes,
            accesses,
            seen: RefCell::new(check_duplicates.then(HashSet::new)),
        }
    }

    /// Whether a read of thread `t` through `(vaddr, proxy)` may read from a
    /// write of its own thread that comes later in program order. Program order
    /// is in base causality, so through the same address and proxy it is also
    /// causality order (8.9.5 cases 1 and 2), and the Causality axiom (8.10.6
    /// item 1) forbids reading from it; through an alias or another proxy it
    /// is not forbidden.
    fn may_read_own_later_write(
        &self,
        t: usize,
        phys: usize,
        vaddr: VAddrId,
        proxy: Proxy,
    ) -> bool {
        self.accesses[t][phys].iter().any(|&a| a != (vaddr, proxy))
    }

    /// Values a write not yet added may write to `phys`: those of the threads
    /// still running.
    fn future_values(&self, node: &Node, reader: EventId) -> BTreeSet<i64> {
        let mut out = BTreeSet::new();
        let ev = node.exec.event(reader);
        let (Some(rt), Some(loc)) = (ev.thread, ev.loc()) else {
            return out;
        };
        let phys = loc.phys.index();
        for (t, r) in node.runs.iter().enumerate() {
            if t == rt.index() && !self.may_read_own_later_write(t, phys, loc.vaddr, ev.proxy) {
                continue;
            }
            if *r == Run::Running {
                if let Some(w) = self.writes.get(t).and_then(|w| w.get(phys)) {
                    out.extend(w.iter().copied());
                }
            }
        }
        out
    }

    /// The thread to extend next: the first running one. (Any deterministic
    /// choice keeps each graph produced once; running threads to their end in
    /// order lets every read of a thread find the writes of earlier threads
    /// already in the graph.)
    fn schedule(&self, node: &Node) -> Option<usize> {
        node.runs.iter().position(|r| *r == Run::Running)
    }

    /// Explores every execution, folding complete ones into `out`.
    pub(crate) fn run(&self, out: &mut Outcomes, budget: &mut Budget) -> Status {
        let exec = candidate::empty_execution(self.test);
        let states = self
            .codes
            .iter()
            .map(|c| ThreadState::new(c, self.test, self.unroll))
            .collect();
        let root = Node {
            exec,
            co_edges: Vec::new(),
            states,
            runs: vec![Run::Running; self.codes.len()],
            pending: Vec::new(),
        };
        match self.visit(root, out, budget) {
            Ok(()) => Status::Ok,
            Err(s) => s,
        }
    }

    fn visit(&self, mut node: Node, out: &mut Outcomes, budget: &mut Budget) -> Result<(), Status> {
        budget.tick(out)?;
        let Some(t) = self.schedule(&node) else {
            return self.complete(node, out, budget);
        };
        let code = &self.codes[t];
        match node.states[t].next(code) {
            Next::Done => {
                node.runs[t] = Run::Ended(Ending::Done);
                self.next_thread(node, out, budget)
            }
            Next::Blocked(reason) => {
                let at = node.states[t].blocked_at(code).unwrap_or_default();
                let ending = match reason {
                    BlockReason::Spin => Ending::Spin {
                        iteration: node.states[t].spin_iteration().to_vec(),
                        at,
                    },
                    _ => Ending::Bound { at },
                };
                node.runs[t] = Run::Ended(ending);
                self.next_thread(node, out, budget)
            }
            Next::Branch(_) => Err(Status::Unsupported(
                "a branch on an undetermined value (internal: concrete values always decide)"
                    .into(),
            )),
            Next::Event(ev) => {
                let id = EventId::new(node.exec.events.len());
                match ev.kind {
                    EventKind::Read { loc, .. } => {
                        let phys = loc.phys;
                        let writes: Vec<EventId> = node
                            .exec
                            .ids()
                            .filter(|&w| {
                                let e = node.exec.event(w);
                                e.is_write() && e.loc().is_some_and(|l| l.phys == phys)
                            })
                            .collect();
                        for w in writes {
                            let value = node.exec.event(w).value().unwrap_or(0);
                            let mut child = node.clone();
                            push_event(&mut child, t, ev.clone(), Some(value));
                            child.exec.rf[id.index()] = Some(w);
                            child.states[t].commit(id, Some(value));
                            self.visit_if_consistent(child, out, budget)?;
                        }
                        let mut probe = node.clone();
                        push_event(&mut probe, t, ev.clone(), Some(0));
                        for value in self.future_values(&probe, id) {
                            let mut child = node.clone();
                            push_event(&mut child, t, ev.clone(), Some(value));
                            child.pending.push(id);
                            child.states[t].commit(id, Some(value));
                            self.visit_if_consistent(child, out, budget)?;
                        }
                        Ok(())
                    }
                    EventKind::Write { loc, value, .. } => {
                        push_event(&mut node, t, ev, None);
                        node.states[t].commit(id, None);
                        let ms: Vec<EventId> = node
                            .exec
                            .ids()
                            .filter(|&w| {
                                w != id && {
                                    let e = node.exec.event(w);
                                    e.is_write()
                                        && !e.is_init()
                                        && e.loc().is_some_and(|l| l.phys == loc.phys)
                                        && model::morally_strong(&node.exec, w, id)
                                }
                            })
                            .collect();
                        let readers: Vec<EventId> = node
                            .pending
                            .iter()
                            .copied()
                            .filter(|&r| {
                                let e = node.exec.event(r);
                                let own_later = e.thread == Some(ThreadId::new(t))
                                    && !self.may_read_own_later_write(
                                        t,
                                        loc.phys.index(),
                                        e.loc().map_or(loc.vaddr, |l| l.vaddr),
                                        e.proxy,
                                    );
                                !own_later
                                    && e.loc().is_some_and(|l| l.phys == loc.phys)
                                    && e.value() == Some(value)
                            })
                            .collect();
                        // The write half of an RMW follows its read in program order.
                        let rmw_source = match node.exec.threads[t].iter().rev().nth(1) {
                            Some(&r)
                                if node.exec.event(id).is_rmw()
                                    && node.exec.event(r).is_rmw()
                                    && node.exec.event(r).is_read() =>
                            {
                                node.exec.rf[r.index()]
                            }
                            _ => None,
                        };
                        if readers.len() > 20 {
                            return Err(Status::Limit(format!(
                                "{} reads wait for one write at {}",
                                readers.len(),
                                node.exec.event(id).span
                            )));
                        }
                        for before in coherence_positions(&node, &ms, rmw_source) {
                            for mask in 0u64..(1u64 << readers.len()) {
                                let mut child = node.clone();
                                for &m in &ms {
                                    if before.contains(&m) {
                                        child.co_edges.push((m, id));
                                    } else {
                                        child.co_edges.push((id, m));
                                    }
                                }
                                for (k, &r) in readers.iter().enumerate() {
                                    if mask >> k & 1 == 1 {
                                        child.exec.rf[r.index()] = Some(id);
                                        child.pending.retain(|&p| p != r);
                                    }
                                }
                                self.visit_if_consistent(child, out, budget)?;
                            }
                        }
                        Ok(())
                    }
                    EventKind::Fence(_) => {
                        push_event(&mut node, t, ev, None);
                        node.states[t].commit(id, None);
                        self.visit_if_consistent(node, out, budget)
                    }
                    EventKind::Barrier { kind, count, .. } => {
                        push_event(&mut node, t, ev, None);
                        node.states[t].commit(id, None);
                        let waits = matches!(
                            kind,
                            BarrierKind::Sync | BarrierKind::Red | BarrierKind::ClusterWait
                        );
                        if waits && count.is_some() {
                            let mut stopped = node.clone();
                            stopped.runs[t] = Run::Ended(Ending::BarrierStop(id));
                            self.visit_if_consistent_next(stopped, out, budget)?;
                        }
                        self.visit_if_consistent(node, out, budget)
                    }
                }
            }
        }
    }

    /// After thread `t` ended: prune committed reads that no later thread can satisfy.
    fn next_thread(
        &self,
        node: Node,
        out: &mut Outcomes,
        budget: &mut Budget,
    ) -> Result<(), Status> {
        let dead = node.pending.iter().any(|&r| {
            let e = node.exec.event(r);
            match (e.loc(), e.value()) {
                (Some(_), Some(v)) => !self.future_values(&node, r).contains(&v),
                _ => true,
            }
        });
        if dead {
            out.stats.pruned += 1;
            return Ok(());
        }
        self.visit(node, out, budget)
    }

    fn visit_if_consistent_next(
        &self,
        node: Node,
        out: &mut Outcomes,
        budget: &mut Budget,
    ) -> Result<(), Status> {
        if self.consistent(&node) {
            self.next_thread(node, out, budget)
        } else {
            out.stats.pruned += 1;
            Ok(())
        }
    }

    fn visit_if_consistent(
        &self,
        node: Node,
        out: &mut Outcomes,
        budget: &mut Budget,
    ) -> Result<(), Status> {
        if self.consistent(&node) {
            self.visit(node, out, budget)
        } else {
            out.stats.pruned += 1;
            Ok(())
        }
    }

    /// Whether the partial graph can still be part of a consistent execution:
    /// some Fence-SC order satisfies every axiom with the barrier
    /// synchronization that every completion will have (barriers without a
    /// thread count; counted barriers add edges only at completion).
    fn consistent(&self, node: &Node) -> bool {
        let mut exec = node.exec.clone();
        exec.co = co_matrix(exec.events.len(), &node.co_edges);
        exec.barrier_sync = barrier::certain_sync(&exec);
        candidate::exists_fence_sc_order(&mut exec, &mut |e| model::check(e).is_ok())
    }

    fn complete(&self, node: Node, out: &mut Outcomes, budget: &mut Budget) -> Result<(), Status> {
        if !node.pending.is_empty() {
            out.stats.pruned += 1;
            return Ok(());
        }
        let mut exec = node.exec;
        exec.co = co_matrix(exec.events.len(), &node.co_edges);
        let endings: Vec<Ending> = node
            .runs
            .into_iter()
            .map(|r| match r {
                Run::Ended(e) => e,
                Run::Running => Ending::Done,
            })
            .collect();
        let regs: Vec<Vec<i64>> = node.states.iter().map(|s| s.regs().to_vec()).collect();
        let mut seen = self.seen.borrow_mut();
        let hash = seen
            .is_some()
            .then(|| candidate::canonical_hash(&exec, &exec.co));
        match candidate::finish(self.test, exec, &endings, regs, out) {
            Finish::Consistent => {
                if let (Some(seen), Some(h)) = (seen.as_mut(), hash) {
                    if !seen.insert(h) {
                        out.stats.duplicates += 1;
                    }
                }
                budget.check_executions(out)
            }
            Finish::Inconsistent => Ok(()),
            Finish::Stop(status) => Err(status),
        }
    }
}

/// Appends `ev` (with its read value, if a read) as the next event of thread `t`.
fn push_event(node: &mut Node, t: usize, mut ev: crate::event::Event, read_value: Option<i64>) {
    if let (EventKind::Read { value, .. }, Some(v)) = (&mut ev.kind, read_value) {
        *value = v;
    }
    let id = EventId::new(node.exec.events.len());
    node.exec.events.push(ev);
    node.exec.rf.push(None);
    node.exec.threads[t].push(id);
}

/// The explorer's coherence edges as a matrix over `n` events.
fn co_matrix(n: usize, edges: &[(EventId, EventId)]) -> BitMatrix {
    let mut m = BitMatrix::new(n);
    for &(a, b) in edges {
        m.insert(a, b);
    }
    m
}

/// Every way to place a new write among the morally strong writes `ms` of its
/// location: the sets of those that come before it, such that no write after
/// it already precedes (transitively) a write before it; that is, the sets
/// that are down-closed under the coherence edges chosen so far.
///
/// `rmw_source` is the write the new write's RMW read reads from, when known:
/// RMW atomicity (8.10.3) then forbids placing any morally strong write that
/// is coherence-after that source before the new write (so with the initial
/// write as source, the new write comes first).
fn coherence_positions(
    node: &Node,
    ms: &[EventId],
    rmw_source: Option<EventId>,
) -> Vec<Vec<EventId>> {
    let n = node.exec.events.len();
    let reach = co_matrix(n, &node.co_edges).transitive_closure();
    // Topological order of `ms` under `reach`: fewer ancestors first.
    let mut order: Vec<EventId> = ms.to_vec();
    order.sort_by_key(|&x| ms.iter().filter(|&&y| reach.contains(y, x)).count());
    let forbidden = |x: EventId| match rmw_source {
        Some(src) if node.exec.event(src).is_init() => true,
        Some(src) => reach.contains(src, x),
        None => false,
    };
    let mut out = Vec::new();
    let mut chosen: Vec<EventId> = Vec::new();
    down_sets(&order, 0, &reach, &forbidden, &mut chosen, &mut out);
    out
}

fn down_sets(
    order: &[EventId],
    i: usize,
    reach: &BitMatrix,
    forbidden: &dyn Fn(EventId) -> bool,
    chosen: &mut Vec<EventId>,
    out: &mut Vec<Vec<EventId>>,
) {
    let Some(&x) = order.get(i) else {
        out.push(chosen.clone());
        return;
    };
    // Leave x after the new write.
    down_sets(order, i + 1, reach, forbidden, chosen, out);
    // Put x before it: every morally strong write that precedes x must be before too.
    let preds_in = order[..i]
        .iter()
        .filter(|&&y| reach.contains(y, x))
        .all(|y| chosen.contains(y));
    if preds_in && !forbidden(x) {
        chosen.push(x);
        down_sets(order, i + 1, reach, forbidden, chosen, out);
        chosen.pop();
    }
}
