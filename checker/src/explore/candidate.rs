//! The completion step every explorer shares: given a complete candidate
//! (events with their values, reads-from, the orientation of coherence between
//! morally strong writes, and how each thread ended), decide consistency over
//! the existential choices (Fence-SC order, barrier arrival order) and fold the
//! result into [`Outcomes`]. Sharing it is what makes explorers count and judge
//! executions identically (`ARCHITECTURE.md`).

use super::barrier::{self, BarrierSync, StuckWait};
use super::outcome::{final_memories, Outcomes, Valuation};
use crate::event::{Event, EventId, EventKind, Location};
use crate::execution::Execution;
use crate::model::{self, Relations};
use crate::relation::BitMatrix;
use crate::report::Status;
use ptxmc_frontend::ir::{AddrId, AddrKind, PhysId, Proxy, Sem, Span, Test, VAddrId};
use smallvec::SmallVec;
use std::collections::BTreeSet;

/// `fence.sc` events beyond which [`fence_sc_orders`] (for `explain`) does not
/// enumerate Fence-SC orders; deciding consistency searches instead
/// ([`exists_fence_sc_order`]) and has no such limit.
const MAX_FENCES: usize = 8;

/// How a thread ended in a candidate.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Ending {
    /// It ran to its end.
    Done,
    /// A spin loop took its back edge at `at`; `iteration` holds the events of
    /// that iteration.
    Spin { iteration: Vec<EventId>, at: Span },
    /// A loop exceeded the unroll bound at `at`.
    Bound { at: Span },
    /// It waits forever at this barrier (a wait with a thread count).
    BarrierStop(EventId),
}

/// What [`finish`] decided.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Finish {
    /// Consistent for some existential choice: folded into the outcomes.
    Consistent,
    /// Inconsistent for every choice, impossible for its barriers, or
    /// blocked in a spin loop unfairly (no hang, no final state; counted in
    /// `stats.pruned`).
    Inconsistent,
    /// The exploration must stop (`Status::Limit` or `Status::Unsupported`).
    Stop(Status),
}

/// The initial write of a physical location (8.2.6): no thread, weak, generic,
/// through the first root name of the location.
fn init_write(test: &Test, p: usize) -> Event {
    let phys = PhysId::new(p);
    let addr = test
        .addresses
        .iter()
        .position(|a| a.phys == phys && matches!(a.kind, AddrKind::Root))
        .or_else(|| test.addresses.iter().position(|a| a.phys == phys));
    let (addr, vaddr) = match addr {
        Some(i) => (AddrId::new(i), test.addresses[i].vaddr),
        None => (AddrId::new(0), VAddrId::new(0)),
    };
    Event {
        thread: None,
        po_index: 0,
        kind: EventKind::Write {
            loc: Location { phys, vaddr, addr },
            value: test.init_mem.get(p).copied().unwrap_or(0),
            rmw: false,
            init: true,
        },
        sem: Sem::Weak,
        scope: None,
        proxy: Proxy::Generic,
        span: Span::default(),
        instr: 0,
        addr_deps: SmallVec::new(),
        data_deps: SmallVec::new(),
        ctrl_deps: SmallVec::new(),
        async_order: Default::default(),
    }
}

/// An execution with only the initial writes (one per physical location, in
/// `PhysId` order) and an empty event list per thread.
pub(crate) fn empty_execution(test: &Test) -> Execution {
    let n = test.n_phys as usize;
    Execution::new(
        (0..n).map(|p| init_write(test, p)).collect(),
        vec![Vec::new(); test.threads.len()],
        test.threads.iter().map(|t| t.placement).collect(),
    )
}

/// Every order of `items`.
fn permutations(items: &[EventId]) -> Vec<Vec<EventId>> {
    if items.is_empty() {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// The orders of the `fence.sc` events of `exec` worth trying: one per
/// distinct orientation of its morally strong pairs (the only pairs the model
/// reads). `None` when there are too many fences to enumerate.
pub(crate) fn fence_sc_orders(exec: &Execution) -> Option<Vec<Vec<EventId>>> {
    let fences: Vec<EventId> = exec
        .ids()
        .filter(|&e| exec.event(e).is_fence_sc())
        .collect();
    if fences.len() > MAX_FENCES {
        return None;
    }
    let mut ms = Vec::new();
    for (i, &a) in fences.iter().enumerate() {
        for &b in &fences[i + 1..] {
            if model::morally_strong(exec, a, b) {
                ms.push((a, b));
            }
        }
    }
    let mut keys = BTreeSet::new();
    let mut out = Vec::new();
    for perm in permutations(&fences) {
        let pos = |e: EventId| perm.iter().position(|&x| x == e);
        let key: Vec<bool> = ms.iter().map(|&(a, b)| pos(a) < pos(b)).collect();
        if keys.insert(key) {
            out.push(perm);
        }
    }
    Some(out)
}

/// Whether `ok` accepts `exec` with some Fence-SC order (8.9.3); the
/// search is the model's ([`crate::model::fence_sc`]).
pub(crate) use crate::model::fence_sc::exists_order as exists_fence_sc_order;

/// Whether some pair of `fence.sc` events of `exec` is morally strong: when
/// none is, every Fence-SC order gives the same relations.
fn fence_sc_matters(exec: &Execution) -> bool {
    let fences: Vec<EventId> = exec
        .ids()
        .filter(|&e| exec.event(e).is_fence_sc())
        .collect();
    fences.iter().enumerate().any(|(i, &a)| {
        fences[i + 1..]
            .iter()
            .any(|&b| model::morally_strong(exec, a, b))
    })
}

/// The relations of `exec` under the first consistent pair of existential
/// choices (barrier synchronization, then Fence-SC order by
/// [`exists_fence_sc_order`]), left in `exec`.
pub(crate) fn exists_consistent(
    exec: &mut Execution,
    barriers: &[Vec<(EventId, EventId)>],
) -> Option<Relations> {
    for b in barriers {
        exec.copy_barrier_sync_from(b);
        // Decided without witnesses (most partial orders tried fail); the
        // relations are computed once, for the order found.
        if exists_consistent_order(exec) {
            return model::check(exec).ok();
        }
    }
    None
}

/// [`exists_fence_sc_order`] with [`model::consistent`], the first order in
/// lexicographic order of event ids left in `exec.fence_sc()`
/// ([`crate::model::fence_sc::first_consistent_order`]).
fn exists_consistent_order(exec: &mut Execution) -> bool {
    model::fence_sc::first_consistent_order(exec)
}

/// The barrier events at which threads of a blocked candidate stopped.
pub(crate) fn barrier_stops(endings: &[Ending]) -> Vec<EventId> {
    endings
        .iter()
        .filter_map(|e| match e {
            Ending::BarrierStop(b) => Some(*b),
            _ => None,
        })
        .collect()
}

/// Decides a complete candidate and folds it into `out`: a terminating
/// execution gives its final states ([`final_memories`]); a blocked one counts
/// in `stats.blocked` and may be a liveness violation ([`liveness`]).
/// `regs` are the final register values of each thread.
pub(crate) fn finish(
    test: &Test,
    mut exec: Execution,
    endings: &[Ending],
    regs: Vec<Vec<i64>>,
    out: &mut Outcomes,
) -> Finish {
    let stopped = barrier_stops(endings);
    let (barriers, stuck) = match barrier::synchronization(&exec, &stopped) {
        BarrierSync::Valid { choices, stuck } => (choices, stuck),
        BarrierSync::Invalid => {
            out.stats.pruned += 1;
            return Finish::Inconsistent;
        }
        BarrierSync::Unsupported(m) => {
            // Unsupported only if the candidate can be consistent with the
            // synchronization every reading gives ([`barrier::certain_sync`]);
            // otherwise it is inconsistent whatever the barrier does, and an
            // explorer that pruned it earlier must not differ.
            exec.set_barrier_sync(barrier::certain_sync(&exec));
            if !exists_consistent_order(&mut exec) {
                out.stats.pruned += 1;
                return Finish::Inconsistent;
            }
            return Finish::Stop(Status::Unsupported(m));
        }
        BarrierSync::TooMany => {
            return Finish::Stop(Status::Limit("too many barrier arrival orders".into()))
        }
    };
    let Some(rel) = exists_consistent(&mut exec, &barriers) else {
        out.stats.pruned += 1;
        return Finish::Inconsistent;
    };
    if !out.sizes_accept(&exec, &rel) {
        out.stats.pruned += 1;
        return Finish::Inconsistent;
    }
    // Undefined behaviour is looked for in executions only: complete ones
    // and fair hangs, not the unfair blocked graphs discarded below
    // (`docs/model-notes.md`, "Waits": no execution of their own).
    if endings.iter().all(|e| *e == Ending::Done) {
        out.check_undefined(&exec, &rel);
        let mut recheck = |m: &BitMatrix| {
            let mut e = exec.clone();
            e.set_co(m.clone());
            exists_consistent(&mut e, &barriers).is_some()
        };
        // With one choice of Fence-SC order and barrier synchronization,
        // its coherence order decides which writes may be last. With several,
        // a write coherence-before another under the choice found first may
        // be last under another: start from the coherence every choice has
        // (the explorer's edges, initial writes first), and let `recheck`
        // find a choice for each combination of last writes.
        let several = barriers.len() > 1 || fence_sc_matters(&exec);
        let co = if several {
            common_coherence(&exec)
        } else {
            rel.co.clone()
        };
        let mems = final_memories(test, &exec, &co, &mut recheck);
        let vals: Vec<Valuation> = mems
            .iter()
            .map(|(mem, _)| Valuation {
                regs: regs.clone(),
                mem: mem.clone(),
            })
            .collect();
        if let Some(i) = out.witness_candidate(test, &vals) {
            keep_witness(
                test,
                &exec,
                rel,
                mems[i].1.as_ref(),
                &barriers,
                &vals[i],
                out,
            );
        }
        out.add_execution(test, &vals);
    } else if !endings.iter().any(|e| matches!(e, Ending::Bound { .. }))
        && !spins_fair(&exec, endings, &rel)
    {
        // Blocked and unfair: a spinning thread would see a newer write
        // (8.6.1), so this is no hang, and it gives no final state. Not an
        // execution of its own (`docs/model-notes.md`, "Waits"); DPOR prunes
        // it as soon as its graph holds that write.
        out.stats.pruned += 1;
        return Finish::Inconsistent;
    } else {
        out.check_undefined(&exec, &rel);
        out.stats.blocked += 1;
        liveness(test, &exec, endings, &stuck, out);
    }
    Finish::Consistent
}

/// The coherence order that every consistent choice of Fence-SC order and
/// barrier synchronization extends: the explorer's edges and the initial
/// writes before every other write of their location (8.9.6), closed
/// transitively.
fn common_coherence(exec: &Execution) -> BitMatrix {
    let mut co = exec.co().clone();
    for i in exec.ids().filter(|&i| exec.event(i).is_init()) {
        let loc = exec.event(i).loc().map(|l| l.phys);
        for w in exec.ids() {
            let e = exec.event(w);
            if w != i && e.is_write() && !e.is_init() && e.loc().map(|l| l.phys) == loc {
                co.insert(i, w);
            }
        }
    }
    co.transitive_closure()
}

/// Keeps `exec` as the report's witness ([`crate::report::Options::witness`])
/// with final values `v`. When `v`'s writes are coherence-last only with the
/// extra coherence edges `last`, the witness gets those edges and the
/// relations under them, so that its picture shows the order it relies on.
#[allow(clippy::too_many_arguments)]
fn keep_witness(
    test: &Test,
    exec: &Execution,
    rel: Relations,
    last: Option<&BitMatrix>,
    barriers: &[Vec<(EventId, EventId)>],
    v: &Valuation,
    out: &mut Outcomes,
) {
    let mut w = exec.clone();
    let rel = match last {
        Some(m) => {
            w.set_co(m.clone());
            match exists_consistent(&mut w, barriers) {
                Some(r) => r,
                None => {
                    w = exec.clone();
                    rel
                }
            }
        }
        None => rel,
    };
    out.set_witness(test, w, rel, v);
}

/// A consistent blocked execution is a liveness violation when it is fair: no
/// thread was cut by the loop bound, and no read of a blocked spin iteration is
/// bound to see a newer write (checked once, by [`finish`], which discards an
/// unfair graph before it gets here). Chapter 8 promises eventual visibility only for
/// strong modifications observed by strong accesses (8.6.1), so a read can keep
/// reading its write forever unless a write coherence-after it is morally
/// strong with the read (8.7), or a strong write through another proxy that
/// 8.6.1 makes eventually observable to it; weak reads may keep seeing a stale value. A cut by the
/// loop bound is recorded instead (`stats.bound_hits`).
fn liveness(
    test: &Test,
    exec: &Execution,
    endings: &[Ending],
    stuck: &[StuckWait],
    out: &mut Outcomes,
) {
    for (t, e) in endings.iter().enumerate() {
        if let Ending::Bound { at } = e {
            let why = if crate::interp::cas_retry_loop_at(test, t, *at) {
                " (an iteration of this CAS retry loop wrote, so it is not collapsed: a failed \
                 atom.cas writes the old value back unless --model failed-cas-read, \
                 docs/model-notes.md \"Waits\")"
            } else {
                ""
            };
            out.bound_hit(format!(
                "P{t} was cut by the loop bound at {at}{why}: verdicts are for the bounded program"
            ));
            return;
        }
    }
    // Fair: [`finish`] discards a blocked graph that is not ([`spins_fair`]).
    let spin_note = endings.iter().enumerate().find_map(|(t, e)| match e {
        Ending::Spin { at, .. } => Some(format!(
            "P{t} spins forever at {at} (no newer write it reads is bound to become visible, 8.6.1)"
        )),
        _ => None,
    });
    let note = match stuck.first() {
        Some(s) => {
            let ev = exec.event(s.event);
            let who = ev
                .thread
                .map_or("?".to_string(), |t| format!("P{}", t.index()));
            Some(format!(
                "{who} waits forever at barrier {} ({} of {} threads arrive)",
                ev.span, s.arrivals, s.count
            ))
        }
        None => spin_note,
    };
    if let Some(n) = note {
        out.liveness_violation(n);
    }
}

/// Whether every thread that ended in a spin loop spins fairly: no read of
/// its blocking iteration has a write coherence-after (`rel.co`) the write
/// it reads that is morally strong with the read (8.7) or eventually
/// observable to it across proxies (8.6.1): the model's rule,
/// [`model::fairness::reads_fairly`].
fn spins_fair(exec: &Execution, endings: &[Ending], rel: &Relations) -> bool {
    endings.iter().all(|e| {
        let Ending::Spin { iteration, .. } = e else {
            return true;
        };
        iteration
            .iter()
            .all(|&r| model::fairness::reads_fairly(exec, r, &rel.co))
    })
}

/// A hash of the canonical form of a complete graph, for `--check-duplicates`:
/// each thread's events (instruction and kind, values included), reads-from
/// and the explorer's coherence edges `co`, with events named by position
/// (thread and program-order index; initial writes by location) rather than
/// by the order in which an explorer added them.
pub(crate) fn canonical_hash(exec: &Execution, co: &BitMatrix) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut pos: Vec<(u32, u32)> = vec![(u32::MAX, 0); exec.events().len()];
    for (i, e) in exec.events().iter().enumerate() {
        if let (true, Some(l)) = (e.is_init(), e.loc()) {
            pos[i] = (u32::MAX, l.phys.0);
        }
    }
    for (t, th) in exec.threads().iter().enumerate() {
        for (k, &e) in th.iter().enumerate() {
            pos[e.index()] = (t as u32, k as u32);
        }
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for th in exec.threads() {
        th.len().hash(&mut h);
        for &e in th {
            let ev = exec.event(e);
            ev.instr.hash(&mut h);
            ev.kind.hash(&mut h);
            exec.rf()[e.index()].map(|w| pos[w.index()]).hash(&mut h);
        }
    }
    let mut pairs: Vec<((u32, u32), (u32, u32))> = co
        .pairs()
        .map(|(a, b)| (pos[a.index()], pos[b.index()]))
        .collect();
    pairs.sort_unstable();
    pairs.hash(&mut h);
    h.finish()
}
