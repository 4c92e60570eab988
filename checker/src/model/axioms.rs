//! The axioms of 8.10, each returning its first violation with a witness.

use crate::event::{EventId, EventKind};
use crate::model::coherence::{co_source, CoSource};
use crate::model::communication::{byte_sources, communication};
use crate::model::witness::extend_path;
use crate::model::{Axiom, Communication, Orders, Violation};
use crate::relation::BitMatrix;

/// Axiom Coherence (8.10.1): a cycle of the coherence generator means no
/// coherence order puts every causality-ordered pair of overlapping writes
/// in order. Causality edges of the cycle are spelled out as paths.
pub(crate) fn coherence_violation(orders: &Orders<'_>, cycle: &[EventId]) -> Violation {
    let mut events = vec![cycle[0]];
    for i in 0..cycle.len() {
        let (a, b) = (cycle[i], cycle[(i + 1) % cycle.len()]);
        match co_source(orders.exec, a, b) {
            CoSource::Causality => extend_path(&mut events, &orders.causality_path(a, b)),
            CoSource::Initial | CoSource::Chosen => extend_path(&mut events, &[a, b]),
        }
    }
    close_cycle(events, Axiom::Coherence)
}

/// Axiom Coherence (8.10.1) for W' = W: a write that precedes itself in
/// causality order would have to precede itself in coherence order. The
/// coherence generator leaves these self-loops out so that the axioms about
/// what closes such a cycle (Fence-SC, Causality) report it first; this
/// check runs last and reports what remains.
pub(crate) fn coherence_self_loop(orders: &Orders<'_>) -> Result<(), Violation> {
    let exec = orders.exec;
    let cause = &orders.causality.order;
    match exec
        .ids()
        .find(|&w| exec.event(w).is_write() && cause.contains(w, w))
    {
        Some(w) => Err(close_cycle(orders.causality_path(w, w), Axiom::Coherence)),
        None => Ok(()),
    }
}

/// Drops the last event of a cycle when it repeats the first.
fn close_cycle(mut events: Vec<EventId>, axiom: Axiom) -> Violation {
    if events.len() > 1 && events.first() == events.last() {
        events.pop();
    }
    Violation { axiom, events }
}

/// Axiom Fence-SC (8.10.2): for morally strong `fence.sc` F1, F2, if F1
/// precedes F2 in causality order then F1 precedes F2 in Fence-SC order.
pub(crate) fn fence_sc(orders: &Orders<'_>) -> Result<(), Violation> {
    for (f1, f2) in orders.exec.fence_sc_pairs() {
        // f1 precedes f2 in Fence-SC order: f2 must not cause f1.
        if orders.ms.contains(f1, f2) && orders.causality.order.contains(f2, f1) {
            let events = orders.causality_path(f2, f1);
            return Err(close_cycle(events, Axiom::FenceSc));
        }
    }
    Ok(())
}

/// Axiom Atomicity (8.10.3).
///
/// Single-copy atomicity: a read R and a morally strong write W: R cannot
/// read bytes both from W and from a write W' coherence-before W.
///
/// RMW atomicity: an atomic operation A and a morally strong overlapping
/// write W: A cannot both read from a write W' coherence-before W and follow
/// W in coherence order.
pub(crate) fn atomicity(orders: &Orders<'_>, com: &Communication) -> Result<(), Violation> {
    let exec = orders.exec;
    let co = &com.co.order;
    for r in exec.ids().filter(|&r| exec.event(r).is_read()) {
        for w in orders.ms.successors(r) {
            if !exec.event(w).is_write() || !byte_sources(exec, r).any(|s| s == w) {
                continue;
            }
            if let Some(w0) = byte_sources(exec, r).find(|&s| co.contains(s, w)) {
                return Err(Violation {
                    axiom: Axiom::Atomicity,
                    events: vec![w0, r, w],
                });
            }
        }
    }
    for (a_read, a_write) in orders.po.rmw.pairs() {
        for w0 in byte_sources(exec, a_read) {
            for w in co.successors(w0) {
                if w != a_write
                    && co.contains(w, a_write)
                    && orders.ms.contains(w, a_write)
                    && orders.ms.contains(w, a_read)
                {
                    return Err(Violation {
                        axiom: Axiom::Atomicity,
                        events: vec![a_read, w, a_write],
                    });
                }
            }
        }
    }
    Ok(())
}

/// Axiom No-Thin-Air (8.10.4): `rf ∪ dep` is acyclic, where `dep` relates
/// each read an event depends on (address, data, control) to the event.
pub(crate) fn no_thin_air(orders: &Orders<'_>) -> Result<(), Violation> {
    let exec = orders.exec;
    let mut rel = orders.rf.clone();
    for e in exec.ids() {
        let ev = exec.event(e);
        for &r in ev.deps() {
            rel.insert(r, e);
        }
    }
    match rel.find_cycle() {
        Some(events) => Err(Violation {
            axiom: Axiom::NoThinAir,
            events,
        }),
        None => Ok(()),
    }
}

/// Axiom Sequential Consistency per Location (8.10.5): within every set of
/// overlapping memory operations that are pairwise morally strong, program
/// order between them and communication order are acyclic. Checked on every
/// maximal such set (a cycle inside a set is a cycle inside any set that
/// contains it).
pub(crate) fn sc_per_location(orders: &Orders<'_>, com: &Communication) -> Result<(), Violation> {
    let exec = orders.exec;
    let n = exec.len();
    let com_rel = communication(&orders.rf, &com.co.order, &com.fr);
    let mut by_location: Vec<(u32, Vec<EventId>)> = Vec::new();
    for e in exec.ids() {
        let ev = exec.event(e);
        let (Some(loc), Some(_)) = (ev.loc(), ev.thread) else {
            continue;
        };
        match by_location.iter_mut().find(|(p, _)| *p == loc.phys.0) {
            Some((_, v)) => v.push(e),
            None => by_location.push((loc.phys.0, vec![e])),
        }
    }
    for (_, ops) in &by_location {
        // Fast path: `po-loc ∪ (ms ∩ com)` over the location contains every
        // edge of every pairwise morally strong set.
        let mut all = BitMatrix::new(n);
        for &a in ops {
            for &b in ops {
                let ms_com = orders.ms.contains(a, b) && com_rel.contains(a, b);
                if orders.po.po.contains(a, b) || ms_com {
                    all.insert(a, b);
                }
            }
        }
        if all.is_acyclic() {
            continue;
        }
        for clique in maximal_cliques(ops, &orders.ms) {
            let mut rel = BitMatrix::new(n);
            for &a in &clique {
                for &b in &clique {
                    if orders.po.po.contains(a, b) || com_rel.contains(a, b) {
                        rel.insert(a, b);
                    }
                }
            }
            if let Some(events) = rel.find_cycle() {
                return Err(Violation {
                    axiom: Axiom::ScPerLocation,
                    events,
                });
            }
        }
    }
    Ok(())
}

/// The maximal sets of `vertices` that are pairwise related by the
/// symmetric relation `adj` (Bron–Kerbosch with pivoting), each in
/// increasing id order, sets in a deterministic order.
fn maximal_cliques(vertices: &[EventId], adj: &BitMatrix) -> Vec<Vec<EventId>> {
    fn extend(
        r: &mut Vec<EventId>,
        p: Vec<EventId>,
        mut x: Vec<EventId>,
        adj: &BitMatrix,
        out: &mut Vec<Vec<EventId>>,
    ) {
        if p.is_empty() {
            if x.is_empty() {
                let mut c = r.clone();
                c.sort();
                out.push(c);
            }
            return;
        }
        let pivot = *p
            .iter()
            .chain(&x)
            .max_by_key(|&&u| p.iter().filter(|&&v| adj.contains(u, v)).count())
            .expect("p is not empty");
        let mut p = p;
        let candidates: Vec<EventId> = p
            .iter()
            .copied()
            .filter(|&v| !adj.contains(pivot, v))
            .collect();
        for v in candidates {
            r.push(v);
            let np = p.iter().copied().filter(|&u| adj.contains(v, u)).collect();
            let nx = x.iter().copied().filter(|&u| adj.contains(v, u)).collect();
            extend(r, np, nx, adj, out);
            r.pop();
            p.retain(|&u| u != v);
            x.push(v);
        }
    }
    let mut out = Vec::new();
    extend(
        &mut Vec::new(),
        vertices.to_vec(),
        Vec::new(),
        adj,
        &mut out,
    );
    out.sort();
    out
}

/// Axiom Causality (8.10.6), for a read R and an overlapping write W:
///
/// 1. if R precedes W in causality order, R cannot read from W;
/// 2. if W precedes R in causality order, R cannot read from a write that
///    precedes W in coherence order (R does not from-read W).
pub(crate) fn causality(orders: &Orders<'_>, com: &Communication) -> Result<(), Violation> {
    let exec = orders.exec;
    let cause = &orders.causality.order;
    for r in exec.ids() {
        let EventKind::Read { loc, .. } = exec.event(r).kind else {
            continue;
        };
        if let Some(w) = exec.rf()[r.index()] {
            if cause.contains(r, w) {
                let events = orders.causality_path(r, w);
                return Err(close_cycle(events, Axiom::Causality));
            }
        }
        for w in com.fr.successors(r) {
            let overlapping = exec.event(w).loc().is_some_and(|l| l.phys == loc.phys);
            if overlapping && cause.contains(w, r) {
                let mut events = vec![r];
                extend_path(&mut events, &orders.causality_path(w, r));
                return Err(close_cycle(events, Axiom::Causality));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(i: usize) -> EventId {
        EventId::new(i)
    }

    #[test]
    fn maximal_cliques_of_a_small_graph() {
        // 0-1, 1-2, 0-2 (triangle), 2-3; 4 isolated.
        let mut adj = BitMatrix::new(5);
        for (a, b) in [(0, 1), (1, 2), (0, 2), (2, 3)] {
            adj.insert(e(a), e(b));
            adj.insert(e(b), e(a));
        }
        let vs: Vec<EventId> = (0..5).map(e).collect();
        let cliques = maximal_cliques(&vs, &adj);
        assert_eq!(
            cliques,
            vec![vec![e(0), e(1), e(2)], vec![e(2), e(3)], vec![e(4)]]
        );
    }
}
