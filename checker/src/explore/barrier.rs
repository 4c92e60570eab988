//! Barrier synchronization (8.9.4 items 2 and 3) as `docs/model-notes.md`
//! reads it: which barrier operations are on the same barrier, which waits
//! block forever, and the existential choice of arrival order for barriers
//! with a thread count.
//!
//! Shared by the explorers: it works on a candidate's concrete events.

use crate::event::{EventId, EventKind};
use crate::execution::Execution;
use crate::relation::BitMatrix;
use ptxmc_frontend::ir::BarrierKind;
use std::collections::BTreeSet;

/// Arrivals at one barrier beyond which arrival orders are not enumerated.
const MAX_GROUP: usize = 9;
/// Barrier synchronization choices beyond which the product is not enumerated.
const MAX_CHOICES: usize = 50_000;

/// Two barrier operations are on the same barrier when they have the same key.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
struct GroupKey {
    /// `barrier.cluster.*` (per cluster) rather than `bar.*` (per CTA).
    cluster: bool,
    gpu: u32,
    /// CTA id for `bar.*`, cluster id for `barrier.cluster.*`.
    unit: u32,
    instance: u32,
    id: i64,
}

/// The barrier operations on one barrier, in event order.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Group {
    key: GroupKey,
    /// The operations (each thread's in program order).
    pub ops: Vec<EventId>,
}

/// Whether a barrier kind waits (as opposed to only arriving).
fn waits(kind: BarrierKind) -> bool {
    matches!(
        kind,
        BarrierKind::Sync | BarrierKind::Red | BarrierKind::ClusterWait
    )
}

/// A barrier wait that blocks forever in a candidate: fewer operations
/// `arrivals` arrive than its `count`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct StuckWait {
    pub event: EventId,
    pub arrivals: usize,
    pub count: i64,
}

/// What the barriers of a candidate allow.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum BarrierSync {
    /// The candidate is impossible: a thread stopped at a wait that enough
    /// threads reach, a thread passed a wait that too few reach, or no arrival
    /// order is free of cycles with program order.
    Invalid,
    /// Every possible synchronization (one is chosen existentially), and the
    /// waits that block forever.
    Valid {
        choices: Vec<Vec<(EventId, EventId)>>,
        stuck: Vec<StuckWait>,
    },
    /// Not supported: the message says why.
    Unsupported(String),
    /// Too many arrival orders to enumerate.
    TooMany,
}

/// The barrier operations of `exec`, grouped by barrier.
pub(crate) fn groups(exec: &Execution) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for e in exec.ids() {
        let ev = exec.event(e);
        let EventKind::Barrier {
            kind, instance, id, ..
        } = ev.kind
        else {
            continue;
        };
        let Some(p) = exec.placement(e) else {
            continue;
        };
        let cluster = matches!(
            kind,
            BarrierKind::ClusterArrive
                | BarrierKind::ClusterArriveRelaxed
                | BarrierKind::ClusterWait
        );
        let key = GroupKey {
            cluster,
            gpu: p.gpu,
            unit: if cluster { p.cluster } else { p.cta },
            instance,
            id,
        };
        match groups.iter_mut().find(|g| g.key == key) {
            Some(g) => g.ops.push(e),
            None => groups.push(Group { key, ops: vec![e] }),
        }
    }
    groups
}

fn barrier_of(exec: &Execution, e: EventId) -> Option<(BarrierKind, Option<i64>)> {
    match exec.event(e).kind {
        EventKind::Barrier { kind, count, .. } => Some((kind, count)),
        _ => None,
    }
}

/// Why the `bar.red` operations of group `g` are not checked, if they are not.
///
/// `bar.red` reduces the contributions of the threads that take part in one
/// completion of the barrier (`parser/bar_red.rs`). Chapter 8 says which
/// operations synchronize, not which of them a completion reduces: with a
/// thread count C below the N operations that reach the barrier, the quorum
/// reading (`docs/model-notes.md`, "Barriers") completes some waits with only
/// C of them, and a wait's reduction over the others would race. Mixing
/// `bar.red` with `bar.sync`/`bar.arrive` on one barrier is left undefined by
/// the instruction description. Both are refused rather than guessed.
fn reduction_unsupported(exec: &Execution, g: &Group) -> Option<String> {
    let kinds: Vec<(BarrierKind, Option<i64>)> =
        g.ops.iter().filter_map(|&e| barrier_of(exec, e)).collect();
    let red = |k: &BarrierKind| *k == BarrierKind::Red;
    let first_red = g
        .ops
        .iter()
        .find(|&&e| barrier_of(exec, e).is_some_and(|(k, _)| red(&k)))?;
    let span = exec.event(*first_red).span;
    if kinds.iter().any(|(k, _)| !red(k)) {
        return Some(format!(
            "bar.red at {span} shares its barrier with another kind of barrier operation"
        ));
    }
    let n = g.ops.len() as i64;
    if let Some(c) = kinds.iter().filter_map(|(_, c)| *c).find(|&c| c < n) {
        return Some(format!(
            "bar.red at {span} with thread count {c} below the {n} operations on its barrier"
        ));
    }
    None
}

/// The synchronization the barriers of `exec` allow, given the barrier waits
/// `stopped` at which a thread stops forever.
///
/// - Without a count, every operation synchronizes with every waiting one on its
///   barrier, and no wait blocks.
/// - With a count C, operations arrive in some order (respecting program order);
///   a wait at position p completes once max(p, C) operations arrived, and those
///   synchronize with it. If fewer than C arrive, the wait blocks forever.
pub(crate) fn synchronization(exec: &Execution, stopped: &[EventId]) -> BarrierSync {
    let mut per_group: Vec<Vec<Vec<(EventId, EventId)>>> = Vec::new();
    let mut stuck = Vec::new();
    for g in groups(exec) {
        let n = g.ops.len();
        if let Some(m) = reduction_unsupported(exec, &g) {
            return BarrierSync::Unsupported(m);
        }
        let counted = g
            .ops
            .iter()
            .any(|&e| barrier_of(exec, e).is_some_and(|(_, c)| c.is_some()));
        for &y in &g.ops {
            let Some((kind, count)) = barrier_of(exec, y) else {
                continue;
            };
            let is_stopped = stopped.contains(&y);
            let blocks = waits(kind) && count.is_some_and(|c| (n as i64) < c);
            if is_stopped != blocks {
                return BarrierSync::Invalid;
            }
            if let (true, Some(c)) = (blocks, count) {
                stuck.push(StuckWait {
                    event: y,
                    arrivals: n,
                    count: c,
                });
            }
        }
        if !counted {
            // A thread's `barrier.cluster.arrive` and `barrier.cluster.wait`
            // are one participation (8.9.4 item 3): the wait is no arrival.
            let mut threads = BTreeSet::new();
            for &e in &g.ops {
                let cluster_wait =
                    barrier_of(exec, e).is_some_and(|(k, _)| k == BarrierKind::ClusterWait);
                if !threads.insert((exec.event(e).thread, cluster_wait)) {
                    let ev = exec.event(e);
                    return BarrierSync::Unsupported(format!(
                        "a barrier without thread count reached twice by one thread at {}",
                        ev.span
                    ));
                }
            }
            let mut edges = Vec::new();
            for &y in &g.ops {
                if barrier_of(exec, y).is_some_and(|(k, _)| waits(k)) {
                    // 8.9.4 item 3: a barrier.cluster.arrive synchronizes with a
                    // barrier.cluster.wait; one wait does not with another, and
                    // a `.relaxed` arrival orders nothing.
                    let arrives = |x: &&EventId| {
                        barrier_of(exec, **x).is_some_and(|(k, _)| {
                            !matches!(
                                k,
                                BarrierKind::ClusterWait | BarrierKind::ClusterArriveRelaxed
                            )
                        })
                    };
                    edges.extend(
                        g.ops
                            .iter()
                            .filter(|&&x| x != y)
                            .filter(arrives)
                            .map(|&x| (x, y)),
                    );
                }
            }
            per_group.push(vec![edges]);
            continue;
        }
        if n > MAX_GROUP {
            return BarrierSync::TooMany;
        }
        let mut sets = BTreeSet::new();
        for order in arrival_orders(exec, &g.ops) {
            let pos = |e: EventId| order.iter().position(|&x| x == e).map_or(0, |p| p + 1);
            let mut edges = Vec::new();
            for &y in &g.ops {
                let Some((kind, count)) = barrier_of(exec, y) else {
                    continue;
                };
                if !waits(kind) || stopped.contains(&y) {
                    continue;
                }
                let done_at = match count {
                    Some(c) => (pos(y) as i64).max(c),
                    None => n as i64,
                };
                edges.extend(
                    g.ops
                        .iter()
                        .filter(|&&x| x != y && (pos(x) as i64) <= done_at)
                        .map(|&x| (x, y)),
                );
            }
            edges.sort();
            sets.insert(edges);
        }
        per_group.push(sets.into_iter().collect());
    }
    let mut choices: Vec<Vec<(EventId, EventId)>> = vec![Vec::new()];
    for options in per_group {
        if choices.len().saturating_mul(options.len()) > MAX_CHOICES {
            return BarrierSync::TooMany;
        }
        let mut next = Vec::new();
        for c in &choices {
            for o in &options {
                let mut v = c.clone();
                v.extend_from_slice(o);
                next.push(v);
            }
        }
        choices = next;
    }
    choices.retain(|c| acyclic_with_po(exec, c));
    if choices.is_empty() {
        return BarrierSync::Invalid;
    }
    BarrierSync::Valid { choices, stuck }
}

/// The barrier synchronization every completion of a partial graph has:
/// `X -> Y` for every waiting operation Y without a thread count and every
/// other operation X on its barrier, both the first of their thread on that
/// barrier. A wait without a count synchronizes with every operation on its
/// barrier in every choice of [`synchronization`], even once a counted
/// operation joins the barrier; operations added later only add edges. So
/// these edges can prune partial graphs, and the set only grows with the graph.
///
/// Only first operations: a thread that reaches a barrier without a count twice
/// is not modelled ([`synchronization`] says `Unsupported`), but under any
/// reading each thread's first arrival synchronizes with the others' first
/// arrivals, so a graph inconsistent with these edges is inconsistent whatever
/// the repeated arrivals do. Explorers prune such graphs before they complete,
/// or [`super::candidate::finish`] rejects them, so the `Unsupported` verdict
/// does not depend on how much an explorer prunes.
pub(crate) fn certain_sync(exec: &Execution) -> Vec<(EventId, EventId)> {
    let mut edges = Vec::new();
    for g in groups(exec) {
        let mut threads = BTreeSet::new();
        let firsts: Vec<EventId> = g
            .ops
            .iter()
            .copied()
            .filter(|&e| threads.insert(exec.event(e).thread))
            .collect();
        for &y in &firsts {
            if barrier_of(exec, y).is_some_and(|(k, c)| waits(k) && c.is_none()) {
                edges.extend(firsts.iter().filter(|&&x| x != y).map(|&x| (x, y)));
            }
        }
    }
    edges
}

/// Every order of `ops` that keeps each thread's operations in program order.
fn arrival_orders(exec: &Execution, ops: &[EventId]) -> Vec<Vec<EventId>> {
    let mut out = Vec::new();
    let mut order = Vec::new();
    let mut used = vec![false; ops.len()];
    extend_orders(exec, ops, &mut used, &mut order, &mut out);
    out
}

fn extend_orders(
    exec: &Execution,
    ops: &[EventId],
    used: &mut [bool],
    order: &mut Vec<EventId>,
    out: &mut Vec<Vec<EventId>>,
) {
    if order.len() == ops.len() {
        out.push(order.clone());
        return;
    }
    for i in 0..ops.len() {
        if used[i] {
            continue;
        }
        let t = exec.event(ops[i]).thread;
        // An operation arrives only after its thread's earlier ones.
        let earlier_pending = (0..i).any(|j| !used[j] && exec.event(ops[j]).thread == t);
        if earlier_pending {
            continue;
        }
        used[i] = true;
        order.push(ops[i]);
        crate::stack::deep(|| extend_orders(exec, ops, used, order, out));
        order.pop();
        used[i] = false;
    }
}

/// Whether the barrier edges `sync` can happen: split every event into its
/// start (a barrier's arrival) and its end (a wait's completion); program order
/// goes from an event's end to the next one's start, and `X -> Y` means X
/// arrived before Y completed. A cycle means some wait would need an arrival
/// that only its own completion allows.
fn acyclic_with_po(exec: &Execution, sync: &[(EventId, EventId)]) -> bool {
    if sync.is_empty() {
        return true;
    }
    let start = |e: EventId| EventId::new(2 * e.index());
    let end = |e: EventId| EventId::new(2 * e.index() + 1);
    let mut m = BitMatrix::new(2 * exec.len());
    for e in exec.ids() {
        m.insert(start(e), end(e));
    }
    for th in exec.threads() {
        for w in th.windows(2) {
            m.insert(end(w[0]), start(w[1]));
        }
    }
    for &(x, y) in sync {
        m.insert(start(x), end(y));
    }
    m.is_acyclic()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use ptxmc_frontend::ir::{Placement, Proxy, Sem, ThreadId};
    use smallvec::SmallVec;

    /// One thread per entry: (CTA, [(kind, instance, id, count)]).
    type Ops = Vec<(BarrierKind, u32, i64, Option<i64>)>;

    fn exec(threads: Vec<(u32, Ops)>) -> Execution {
        let mut events = Vec::new();
        let mut ids = Vec::new();
        let mut placements = Vec::new();
        for (t, (cta, ops)) in threads.into_iter().enumerate() {
            placements.push(Placement {
                cta,
                cluster: 0,
                gpu: 0,
            });
            let mut th = Vec::new();
            for (i, (kind, instance, id, count)) in ops.into_iter().enumerate() {
                th.push(EventId::new(events.len()));
                events.push(Event {
                    thread: Some(ThreadId::new(t)),
                    po_index: i as u32,
                    kind: EventKind::Barrier {
                        kind,
                        instance,
                        id,
                        count,
                    },
                    sem: Sem::Weak,
                    scope: None,
                    proxy: Proxy::Generic,
                    span: Default::default(),
                    instr: i as u32,
                    addr_deps: SmallVec::new(),
                    data_deps: SmallVec::new(),
                    ctrl_deps: SmallVec::new(),
                    async_order: Default::default(),
                });
            }
            ids.push(th);
        }
        Execution::new(events, ids, placements)
    }

    fn e(i: usize) -> EventId {
        EventId::new(i)
    }

    #[test]
    fn grouping_by_cta_instance_and_id() {
        use BarrierKind::*;
        let x = exec(vec![
            (0, vec![(Sync, 1, 0, None)]),
            (0, vec![(Sync, 1, 0, None)]),
            (0, vec![(Sync, 2, 0, None)]),
            (0, vec![(Sync, 1, 5, None)]),
            (1, vec![(Sync, 1, 0, None)]),
            (0, vec![(ClusterWait, 1, 0, None)]),
        ]);
        let g: Vec<Vec<EventId>> = groups(&x).into_iter().map(|g| g.ops).collect();
        assert_eq!(
            g,
            vec![
                vec![e(0), e(1)],
                vec![e(2)],
                vec![e(3)],
                vec![e(4)],
                vec![e(5)]
            ]
        );
        match synchronization(&x, &[]) {
            BarrierSync::Valid { choices, stuck } => {
                assert_eq!(choices, vec![vec![(e(1), e(0)), (e(0), e(1))]]);
                assert!(stuck.is_empty());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn arrive_does_not_wait() {
        use BarrierKind::*;
        let x = exec(vec![
            (0, vec![(Arrive, 1, 0, None)]),
            (0, vec![(Sync, 1, 0, None)]),
        ]);
        match synchronization(&x, &[]) {
            BarrierSync::Valid { choices, .. } => assert_eq!(choices, vec![vec![(e(0), e(1))]]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn quorum() {
        use BarrierKind::*;
        let b = (Sync, 1, 1, Some(2));
        let x = exec(vec![(0, vec![b]), (0, vec![b]), (0, vec![b])]);
        let BarrierSync::Valid { choices, stuck } = synchronization(&x, &[]) else {
            panic!()
        };
        assert!(stuck.is_empty());
        // The first two arrivals synchronize with each other; the third waits for all.
        assert_eq!(choices.len(), 3);
        assert!(choices.contains(&vec![
            (e(0), e(1)),
            (e(0), e(2)),
            (e(1), e(0)),
            (e(1), e(2))
        ]));
        // Stopping is only possible when fewer than the count arrive.
        assert_eq!(synchronization(&x, &[e(0)]), BarrierSync::Invalid);
        let b4 = (Sync, 1, 1, Some(4));
        let x = exec(vec![(0, vec![b4]), (0, vec![b4])]);
        assert_eq!(synchronization(&x, &[]), BarrierSync::Invalid);
        let BarrierSync::Valid { stuck, .. } = synchronization(&x, &[e(0), e(1)]) else {
            panic!()
        };
        assert_eq!(
            stuck[0],
            StuckWait {
                event: e(0),
                arrivals: 2,
                count: 4
            }
        );
    }

    #[test]
    fn a_wait_cannot_need_its_own_thread_later() {
        use BarrierKind::*;
        // P0 waits for 2 at barrier A, then arrives at B; P1 waits for 2 at B,
        // then arrives at A: a deadlock, no arrival order works.
        let x = exec(vec![
            (0, vec![(Sync, 1, 0, Some(2)), (Arrive, 2, 0, Some(2))]),
            (0, vec![(Sync, 2, 0, Some(2)), (Arrive, 1, 0, Some(2))]),
        ]);
        assert_eq!(synchronization(&x, &[]), BarrierSync::Invalid);
    }

    #[test]
    fn bar_red_refuses_a_short_count_and_mixed_kinds() {
        use BarrierKind::*;
        let red = |c| (Red, 0, 0, c);
        let x = exec(vec![(0, vec![red(Some(2))]), (0, vec![red(Some(2))])]);
        assert!(matches!(
            synchronization(&x, &[]),
            BarrierSync::Valid { .. }
        ));
        let x = exec(vec![(0, vec![red(None)]), (0, vec![red(None)])]);
        assert!(matches!(
            synchronization(&x, &[]),
            BarrierSync::Valid { .. }
        ));
        let x = exec(vec![
            (0, vec![red(Some(2))]),
            (0, vec![red(Some(2))]),
            (0, vec![red(Some(2))]),
        ]);
        let BarrierSync::Unsupported(m) = synchronization(&x, &[]) else {
            panic!()
        };
        assert!(m.contains("thread count 2 below the 3"), "{m}");
        let x = exec(vec![(0, vec![red(None)]), (0, vec![(Sync, 0, 0, None)])]);
        let BarrierSync::Unsupported(m) = synchronization(&x, &[]) else {
            panic!()
        };
        assert!(m.contains("another kind"), "{m}");
        // Too few for the count: every wait blocks, as for bar.sync.
        let x = exec(vec![(0, vec![red(Some(3))]), (0, vec![red(Some(3))])]);
        assert!(matches!(
            synchronization(&x, &[e(0), e(1)]),
            BarrierSync::Valid { .. }
        ));
    }
}
