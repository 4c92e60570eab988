//! The chapter-8 model's answers to the explorers ([`Model`]) against the
//! full check (the per-concept modules), on random graphs grown event by
//! event through the graph's mutations, as an explorer grows them: every
//! write or position a shortcut rules out must make the graph
//! inconsistent, and every incremental answer must be the full check's.

use super::consistency::{Decision, Model};
use super::fast::tests::{random_execution, Rng};
use super::{check_full, Chapter8};
use crate::event::{EventId, EventKind};
use crate::execution::Execution;
use ptxmc_frontend::ir::{FenceKind, Scope, Sem};

/// The graph of the first `keep` events of `exec`, grown event by event
/// with the model `m` following it: reads-from and coherence edges of
/// `exec` between the events kept (a read of a write not kept reads
/// nothing), no Fence-SC order, no barrier synchronization. `None` when the
/// model cannot follow it.
fn grow(exec: &Execution, keep: usize) -> Option<(Execution, Chapter8)> {
    let init = exec
        .events()
        .iter()
        .take_while(|e| e.thread.is_none())
        .count();
    let mut g = exec.clone();
    g.truncate(init);
    g.clear_orders();
    let mut m = Chapter8::new(&g);
    for i in init..keep {
        let ev = exec.events()[i].clone();
        let t = ev.thread?.index();
        let id = g.push_event(t, ev);
        m.push(&g, t, id);
    }
    for r in g.ids() {
        if let Some(w) = exec.rf()[r.index()].filter(|w| w.index() < keep) {
            g.set_rf(r, Some(w));
        }
    }
    for (a, b) in exec.co().pairs() {
        if a.index() < keep && b.index() < keep {
            g.order_co(a, b);
        }
    }
    m.forget();
    m.follows(&g).then_some((g, m))
}

/// Writes, with their values.
type Sources = smallvec::SmallVec<[(EventId, i64); 16]>;

/// The writes to the location of `r` in `g`, with their values.
fn writes_to(g: &Execution, r: EventId) -> Sources {
    let phys = g.event(r).loc().map(|l| l.phys);
    g.ids()
        .filter(|&w| g.event(w).is_write() && g.event(w).loc().map(|l| l.phys) == phys)
        .map(|w| (w, g.event(w).value().unwrap_or(0)))
        .collect()
}

#[test]
fn deciding_agrees_with_the_full_check_event_by_event() {
    let mut rng = Rng(0x51ed_270b_a3f1_9c4d);
    let (mut consistent, mut inconsistent) = (0, 0);
    for _ in 0..300 {
        let exec = random_execution(&mut rng);
        for keep in 0..=exec.len() {
            let Some((g, mut m)) = grow(&exec, keep) else {
                continue;
            };
            let full = check_full(&g).is_ok();
            assert_eq!(m.decide(&g), full, "decide, {keep} events of {exec:?}");
            assert_eq!(m.consistent(&g), full, "consistent, {keep} events");
            // The full check through the trait: the same violation and
            // witness as the per-concept modules give.
            assert_eq!(Chapter8::check(&g).err(), check_full(&g).err());
            if full {
                consistent += 1;
            } else {
                inconsistent += 1;
            }
        }
    }
    assert!(
        consistent > 100 && inconsistent > 100,
        "{consistent} {inconsistent}"
    );
}

#[test]
fn the_writes_a_read_may_not_read_make_it_inconsistent() {
    let mut rng = Rng(0x0dd5_eed5_1234_abcd);
    let (mut ruled_out, mut incremental) = (0, 0);
    for _ in 0..400 {
        let exec = random_execution(&mut rng);
        for r in exec.ids().filter(|&r| exec.event(r).is_read()) {
            // The graph before the read, and its relations if consistent.
            let Some((before, mut m)) = grow(&exec, r.index()) else {
                continue;
            };
            let parent = m.decide(&before).then(|| m.save(r.index()));
            let Some((mut g, _)) = grow(&exec, r.index() + 1) else {
                continue;
            };
            g.set_rf(r, None);
            let t = exec.event(r).thread.map_or(0, |t| t.index());
            // The model follows `g` from `before`.
            m.push(&g, t, r);
            let all = writes_to(&g, r);
            let mut kept = all.clone();
            m.readable(
                &g,
                r,
                &mut kept,
                |&c| Some(c),
                &|_| true,
                false,
                parent.as_ref(),
            );
            // With the RMW's write half, as the explorer adds it at once.
            let half = exec.threads()[t]
                .iter()
                .position(|&x| x == r)
                .and_then(|k| exec.threads()[t].get(k + 1).copied())
                .filter(|&h| exec.event(r).is_rmw() && exec.event(h).is_rmw());
            for &(w, _) in &all {
                let mut h = match half {
                    Some(h) => grow(&exec, h.index() + 1)
                        .map(|(h, _)| h)
                        .unwrap_or_else(|| g.clone()),
                    None => g.clone(),
                };
                h.set_rf(r, Some(w));
                if !kept.iter().any(|&(k, _)| k == w) {
                    ruled_out += 1;
                    assert!(
                        check_full(&h).is_err(),
                        "reading {w:?} was ruled out for {r:?}, yet consistent: {h:?}"
                    );
                }
                if let Some(p) = &parent {
                    g.set_rf(r, Some(w));
                    let d = m.decide_read(&g, p, r);
                    if d != Decision::Unknown {
                        incremental += 1;
                        assert_eq!(d == Decision::Consistent, check_full(&g).is_ok(), "{g:?}");
                    }
                    g.set_rf(r, None);
                }
            }
        }
    }
    assert!(
        ruled_out > 20 && incremental > 100,
        "{ruled_out} {incremental}"
    );
}

#[test]
fn the_coherence_positions_left_out_are_inconsistent() {
    let mut rng = Rng(0x7777_1357_2468_aaaa);
    let (mut left_out, mut rivals_seen) = (0, 0);
    for _ in 0..400 {
        let exec = random_execution(&mut rng);
        let writes = exec
            .ids()
            .filter(|&w| exec.event(w).is_write() && exec.event(w).thread.is_some());
        for w in writes {
            let Some((before, mut m)) = grow(&exec, w.index()) else {
                continue;
            };
            let t = exec.event(w).thread.map_or(0, |t| t.index());
            let forced = if m.decide(&before) {
                m.causal_writes_before(&before, t, exec.event(w), false)
            } else {
                0
            };
            let Some((mut g, _)) = grow(&exec, w.index() + 1) else {
                continue;
            };
            m.push(&g, t, w);
            let rivals = m.rivals(&g, w);
            // The same writes from the events alone (a model that does not
            // follow the graph).
            let cold = Chapter8::new(&before);
            assert_eq!(cold.rivals(&g, w), rivals);
            if rivals.len() > 8 {
                continue;
            }
            rivals_seen += rivals.len();
            for &x in &rivals {
                g.unorder_co(x, w);
            }
            let positions = m.coherence_positions(&g, w, &rivals, forced);
            for mask in 0u64..1 << rivals.len() {
                if positions.list.contains(&mask) {
                    continue;
                }
                left_out += 1;
                let mut h = g.clone();
                for (k, &x) in rivals.iter().enumerate() {
                    if mask >> k & 1 == 1 {
                        h.order_co(x, w);
                    } else {
                        h.order_co(w, x);
                    }
                }
                assert!(check_full(&h).is_err(), "position {mask:b} left out: {h:?}");
            }
        }
    }
    assert!(
        left_out > 20 && rivals_seen > 100,
        "{left_out} {rivals_seen}"
    );
}

/// The relations that incremental steps and a fresh check give for `g`.
fn same_relations(a: &super::Relations, b: &super::Relations, g: &Execution) {
    let pairs = [
        ("co", &a.co, &b.co),
        ("rf", &a.rf, &b.rf),
        ("fr", &a.fr, &b.fr),
        ("observation", &a.observation, &b.observation),
        ("sync", &a.sync, &b.sync),
        ("base causality", &a.base_causality, &b.base_causality),
        ("causality", &a.causality, &b.causality),
    ];
    for (name, x, y) in pairs {
        assert_eq!(x, y, "{name} of {g:?}");
    }
}

/// Whether some Fence-SC order makes `g` consistent (the exact search).
fn some_order(g: &Execution) -> bool {
    super::fence_sc::exists_order(&mut g.clone(), &mut |x| check_full(x).is_ok())
}

/// An explorer's path through a random graph, event by event: each read and
/// write decided from the frame saved before it ([`Model::decide_read`],
/// [`Model::decide_write`]), each fence extending the relations at push,
/// each waiting read served by its write once that write is added
/// ([`Model::decide_served`]), and, with two `fence.sc` or more, the
/// relations under the model's Fence-SC order kept next to those with no
/// pair. Every answer must be the full check's: consistent with no pair is
/// the full check of the graph with no order, `ordered` means some order
/// serves, an inconsistency is one under every order.
#[test]
fn the_incremental_path_agrees_with_the_full_check() {
    let mut rng = Rng(0x2f1e_5eed_c0ff_ee11);
    let (mut decided, mut served, mut ordered, mut fences, mut pairs) = (0, 0, 0, 0, 0);
    let mut compared = 0;
    for case in 0..1200 {
        let mut exec = random_execution(&mut rng);
        // Every other graph with its acq_rel and release fences made
        // `fence.sc` (at `.gpu`), for graphs with several (acquire fences
        // stay, to be added under a Fence-SC order).
        if case % 2 == 1 {
            for i in 0..exec.len() {
                let e = exec.event_mut(EventId::new(i));
                if let EventKind::Fence(FenceKind::AcqRel | FenceKind::Release) = e.kind {
                    e.kind = EventKind::Fence(FenceKind::Sc);
                    e.sem = Sem::AcqRel;
                    e.scope = Some(Scope::Gpu);
                }
            }
        }
        let init = exec
            .events()
            .iter()
            .take_while(|e| e.thread.is_none())
            .count();
        let Some((mut g, mut m)) = grow(&exec, init) else {
            continue;
        };
        if !m.decide(&g) {
            continue;
        }
        // Reads waiting for a write not added yet.
        let mut waiting: Vec<EventId> = Vec::new();
        for i in init..exec.len() {
            let ev = exec.events()[i].clone();
            let Some(t) = ev.thread.map(|t| t.index()) else {
                break;
            };
            // A thread stopped at a waiting read adds nothing after it.
            if waiting.iter().any(|&r| g.event(r).thread == ev.thread) {
                break;
            }
            let frame = m.known().then(|| m.save(g.len()));
            let id = g.push_event(t, ev);
            m.push(&g, t, id);
            let e = g.event(id).clone();
            let d = if e.is_read() {
                match exec.rf()[i] {
                    Some(w) if w.index() < i => g.set_rf(id, Some(w)),
                    Some(_) => waiting.push(id),
                    None => {}
                }
                frame.as_ref().map(|f| m.decide_read(&g, f, id))
            } else if e.is_write() {
                for (a, b) in exec.co().pairs() {
                    if (a == id && b.index() < i) || (b == id && a.index() < i) {
                        g.order_co(a, b);
                    }
                }
                let mut d = frame.as_ref().map(|f| m.decide_write(&g, Some(f), id));
                // The waiting reads of this write, served one by one.
                let readers: Vec<EventId> = waiting
                    .iter()
                    .copied()
                    .filter(|r| exec.rf()[r.index()] == Some(id))
                    .collect();
                for r in readers {
                    waiting.retain(|&x| x != r);
                    g.set_rf(r, Some(id));
                    if d == Some(Decision::Consistent) {
                        let s = m.decide_served(&g, r);
                        served += usize::from(s != Decision::Unknown);
                        d = Some(s);
                    } else {
                        m.forget();
                        d = None;
                    }
                }
                d
            } else {
                fences += usize::from(m.known());
                None
            };
            let has_pair = g.ids().filter(|&x| g.event(x).is_fence_sc()).count() > 1;
            pairs += usize::from(has_pair);
            match d {
                Some(Decision::Inconsistent) => {
                    assert!(!some_order(&g), "inconsistent, yet an order serves: {g:?}");
                    break;
                }
                Some(Decision::Consistent) => decided += 1,
                _ => {}
            }
            if m.known() {
                assert!(check_full(&g).is_ok(), "known, yet inconsistent: {g:?}");
            }
            // The relations extended are those a check from scratch finds.
            let (no_pair, under) = m.relations_at_hand(&g);
            if no_pair.is_some() || under.is_some() {
                let mut fresh = m.clone();
                if let Some(a) = no_pair {
                    assert!(fresh.decide(&g));
                    let b = fresh.relations_at_hand(&g).0.expect("decided");
                    same_relations(&a, &b, &g);
                    compared += 1;
                }
                if let Some(a) = under {
                    let mut h = g.clone();
                    h.set_fence_sc(m.fence_sc_order());
                    let b = check_full(&h).expect("consistent under the model's order");
                    same_relations(&a, &b, &h);
                    compared += 1;
                }
            }
            if m.ordered() {
                ordered += usize::from(has_pair);
                assert!(some_order(&g), "ordered, yet no order serves: {g:?}");
            }
            if !m.known() && !m.decide(&g) {
                break;
            }
            if has_pair && !m.ordered() {
                let mut hint = Vec::new();
                let found = m.exists_fence_sc_order(&mut g, &mut hint);
                g.clear_orders();
                assert_eq!(found, some_order(&g), "the order search: {g:?}");
                if !found {
                    break;
                }
            }
        }
    }
    assert!(
        decided > 1000 && served > 20 && ordered > 200 && fences > 500 && compared > 2000,
        "{decided} {served} {ordered} {fences} {pairs} {compared}"
    );
}
