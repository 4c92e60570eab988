//! Litmus-style tests of [`check`]: the chapter's own litmus tests, and one
//! test per rule of the model, each built by hand with its outcome pinned.

use super::testutil::*;
use super::*;
use ptxmc_frontend::ir::{FenceKind, Scope, Sem};

fn violated(exec: &Execution) -> Option<Axiom> {
    check(exec).err().map(|v| v.axiom)
}

fn assert_consistent(exec: &Execution) -> Relations {
    match check(exec) {
        Ok(rel) => rel,
        Err(v) => panic!("expected consistent, got {v:?}"),
    }
}

/// Every consecutive pair of a witness cycle is related by some relation of
/// the model (po, rf, rmw, co, fr, sync, observation, causality, dep, Fence-SC).
fn assert_cycle_is_connected(exec: &Execution, v: &Violation) {
    let orders = Orders::new(exec);
    let co = Coherence::new(exec, &orders.causality.order)
        .map(|c| c.order)
        .unwrap_or_else(|_| exec.co().clone());
    let fr = communication::from_reads(exec, &co);
    let n = v.events.len();
    assert!(n >= 2, "{v:?}");
    for i in 0..n {
        let (a, b) = (v.events[i], v.events[(i + 1) % n]);
        let dep = {
            let eb = exec.event(b);
            eb.addr_deps.contains(&a) || eb.data_deps.contains(&a) || eb.ctrl_deps.contains(&a)
        };
        let fence_sc = exec.fence_sc_pairs().any(|p| p == (a, b));
        let related = orders.po.po.contains(a, b)
            || orders.rf.contains(a, b)
            || orders.po.rmw.contains(a, b)
            || co.contains(a, b)
            || fr.contains(a, b)
            || orders.sync.order.contains(a, b)
            || orders.causality.order.contains(a, b)
            || dep
            || fence_sc;
        assert!(related, "{a:?} -> {b:?} unrelated in witness {v:?}");
    }
}

/// MP (8.10.6) with a flag written by `w_sem` and read by `r_sem`; the data
/// read returns the initial value. Returns (exec, [W1, W2, R1, R2]).
fn mp(
    w_sem: Strength,
    r_sem: Strength,
    reader: ptxmc_frontend::ir::Placement,
) -> (Execution, [EventId; 4]) {
    let mut b = ExecBuilder::new(2);
    let (data, flag) = (b.loc(0), b.loc(1));
    let t0 = b.thread(cta(0));
    let t1 = b.thread(reader);
    let w1 = b.st(t0, data, 1, WEAK);
    let w2 = b.st(t0, flag, 1, w_sem);
    let r1 = b.ld(t1, flag, r_sem);
    let r2 = b.ld(t1, data, WEAK);
    b.rf(r1, w2);
    (b.build(), [w1, w2, r1, r2])
}

#[test]
fn mp_release_acquire_is_forbidden_with_a_causality_witness() {
    let (exec, [w1, w2, r1, r2]) = mp(REL_GPU, ACQ_GPU, cta(1));
    let v = check(&exec).unwrap_err();
    assert_eq!(v.axiom, Axiom::Causality);
    // R2 from-reads W1; W1 -po-> W2 -rf/sync-> R1 -po-> R2.
    assert_eq!(v.events, vec![r2, w1, w2, r1]);
    assert_cycle_is_connected(&exec, &v);
}

#[test]
fn mp_release_acquire_reading_the_data_is_consistent() {
    let (mut exec, [w1, w2, r1, r2]) = mp(REL_GPU, ACQ_GPU, cta(1));
    exec.set_rf(r2, Some(w1));
    let rel = assert_consistent(&exec);
    assert!(rel.sync.contains(w2, r1));
    assert!(rel.causality.contains(w1, r2));
    assert!(rel.observation.contains(w2, r1));
}

#[test]
fn mp_with_weak_flag_is_allowed() {
    let (exec, _) = mp(WEAK, WEAK, cta(1));
    assert_consistent(&exec);
    let (exec, _) = mp(RLX_GPU, RLX_GPU, cta(1));
    assert_consistent(&exec);
}

#[test]
fn mp_scopes_must_include_each_other() {
    // cta-scoped release/acquire across CTAs: not morally strong, no sync.
    let cta_rel = (Sem::Release, Some(Scope::Cta));
    let cta_acq = (Sem::Acquire, Some(Scope::Cta));
    let (exec, _) = mp(cta_rel, cta_acq, cta(1));
    assert_consistent(&exec);
    let (exec, _) = mp(cta_rel, cta_acq, cta(0));
    assert_eq!(violated(&exec), Some(Axiom::Causality));
}

/// MP through fences: `W1; F1; W2` and `R1; F2; R2`, R1 reads W2, R2 reads init.
fn mp_fences(f1: FenceKind, f2: FenceKind, scope: Scope, reader_cta: u32) -> Option<Axiom> {
    let mut b = ExecBuilder::new(2);
    let (data, flag) = (b.loc(0), b.loc(1));
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(reader_cta));
    b.st(t0, data, 1, WEAK);
    b.fence(t0, f1, Some(scope));
    let w2 = b.st(t0, flag, 1, RLX_SYS);
    let r1 = b.ld(t1, flag, RLX_SYS);
    b.fence(t1, f2, Some(scope));
    b.ld(t1, data, WEAK);
    b.rf(r1, w2);
    violated(&b.build())
}

#[test]
fn mp_with_fences_and_relaxed_flag_forms_patterns() {
    use FenceKind::*;
    assert_eq!(
        mp_fences(AcqRel, AcqRel, Scope::Sys, 1),
        Some(Axiom::Causality)
    );
    assert_eq!(
        mp_fences(Release, Acquire, Scope::Gpu, 1),
        Some(Axiom::Causality)
    );
    assert_eq!(mp_fences(Sc, Sc, Scope::Gpu, 1), Some(Axiom::Causality));
    // Wrong direction: an acquire fence forms no release pattern.
    assert_eq!(mp_fences(Acquire, Release, Scope::Gpu, 1), None);
    // cta fences in different CTAs are not morally strong.
    assert_eq!(mp_fences(AcqRel, AcqRel, Scope::Cta, 1), None);
    assert_eq!(
        mp_fences(AcqRel, AcqRel, Scope::Cta, 0),
        Some(Axiom::Causality)
    );
}

/// 8.11.1: `W1; st.release flag` and `red|atom flag; fence.acquire; ld x`.
fn mp_rmw_then_fence(reduction: bool) -> Option<Axiom> {
    let mut b = ExecBuilder::new(2);
    let (x, flag) = (b.loc(0), b.loc(1));
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    b.st(t0, x, 42, WEAK);
    let w2 = b.st(t0, flag, 1, REL_GPU);
    let sys = (Sem::Relaxed, Some(Scope::Sys));
    let (r, w) = if reduction {
        b.red(t1, flag, sys)
    } else {
        b.rmw(t1, flag, sys)
    };
    b.fence(t1, FenceKind::Acquire, Some(Scope::Gpu));
    b.ld(t1, x, WEAK);
    b.rf(r, w2);
    b.co(w2, w);
    violated(&b.build())
}

#[test]
fn reductions_form_no_acquire_pattern() {
    assert_eq!(mp_rmw_then_fence(true), None, "8.11.1: outcome allowed");
    assert_eq!(mp_rmw_then_fence(false), Some(Axiom::Causality));
}

/// SB (8.10.6) with fence `kind` in both threads; both reads return 0.
fn sb(kind: FenceKind, first: usize) -> (Execution, Option<Axiom>) {
    let mut b = ExecBuilder::new(2);
    let (x, y) = (b.loc(0), b.loc(1));
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    b.st(t0, x, 1, WEAK);
    let f1 = b.fence(t0, kind, Some(Scope::Sys));
    b.ld(t0, y, WEAK);
    b.st(t1, y, 1, WEAK);
    let f2 = b.fence(t1, kind, Some(Scope::Sys));
    b.ld(t1, x, WEAK);
    if kind == FenceKind::Sc {
        let order = if first == 0 { [f1, f2] } else { [f2, f1] };
        b.fence_order(&order);
    }
    let exec = b.build();
    let v = violated(&exec);
    (exec, v)
}

#[test]
fn sb_with_fence_sc_is_forbidden_in_both_fence_sc_orders() {
    for first in [0, 1] {
        let (exec, v) = sb(FenceKind::Sc, first);
        assert_eq!(v, Some(Axiom::Causality), "order {first}");
        assert_cycle_is_connected(&exec, &check(&exec).unwrap_err());
    }
}

#[test]
fn sb_with_acq_rel_fences_is_allowed() {
    assert_eq!(sb(FenceKind::AcqRel, 0).1, None);
}

#[test]
fn fence_sc_order_cannot_contradict_causality() {
    // F1; st.release flag  |  ld.acquire flag; F2 — F1 causes F2.
    let build = |order_f1_first: bool| {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(1));
        let f1 = b.fence(t0, FenceKind::Sc, Some(Scope::Gpu));
        let w = b.st(t0, b.loc(0), 1, REL_GPU);
        let r = b.ld(t1, b.loc(0), ACQ_GPU);
        let f2 = b.fence(t1, FenceKind::Sc, Some(Scope::Gpu));
        b.rf(r, w);
        let order = if order_f1_first { [f1, f2] } else { [f2, f1] };
        b.fence_order(&order);
        (b.build(), [f1, w, r, f2])
    };
    let (exec, _) = build(true);
    assert_consistent(&exec);
    let (exec, [f1, w, r, f2]) = build(false);
    let v = check(&exec).unwrap_err();
    assert_eq!(v.axiom, Axiom::FenceSc);
    assert_eq!(v.events, vec![f1, w, r, f2]);
    assert_cycle_is_connected(&exec, &v);
}

#[test]
fn corr_is_forbidden() {
    let mut b = ExecBuilder::new(1);
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    let w1 = b.st(t0, b.loc(0), 1, RLX_SYS);
    let r1 = b.ld(t1, b.loc(0), RLX_SYS);
    let r2 = b.ld(t1, b.loc(0), RLX_SYS);
    b.rf(r1, w1);
    let exec = b.build();
    let v = check(&exec).unwrap_err();
    assert!(matches!(v.axiom, Axiom::ScPerLocation | Axiom::Causality));
    assert_eq!(v.axiom, Axiom::ScPerLocation, "checked first");
    let mut cycle = v.events.clone();
    cycle.sort();
    assert_eq!(cycle, vec![w1, r1, r2]);
    assert_cycle_is_connected(&exec, &v);

    // Reading W1 then W1 again, or init then W1, is fine.
    let mut ok = exec.clone();
    ok.set_rf(r2, Some(w1));
    assert_consistent(&ok);
    ok.set_rf(r1, Some(b_init(&ok)));
    assert_consistent(&ok);
}

fn b_init(exec: &Execution) -> EventId {
    exec.ids().find(|&e| exec.event(e).is_init()).unwrap()
}

#[test]
fn corr_with_a_different_cta_relaxed_cta_writer_is_outside_sc_per_location() {
    // W1 is relaxed.cta in another CTA: not morally strong with the reads,
    // and no causality orders them: the outcome is allowed.
    let mut b = ExecBuilder::new(1);
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    let w1 = b.st(t0, b.loc(0), 1, RLX_CTA);
    let r1 = b.ld(t1, b.loc(0), RLX_SYS);
    b.ld(t1, b.loc(0), RLX_SYS);
    b.rf(r1, w1);
    assert_consistent(&b.build());
}

/// LB (8.10.4): each thread reads one location and writes the other; both
/// reads return the other thread's write.
fn lb(deps: Option<Dep>) -> (Execution, [EventId; 4]) {
    let mut b = ExecBuilder::new(2);
    let (x, y) = (b.loc(0), b.loc(1));
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    let a1 = b.ld(t0, x, WEAK);
    let b1 = b.st(t0, y, 1, WEAK);
    let a2 = b.ld(t1, y, WEAK);
    let b2 = b.st(t1, x, 1, WEAK);
    b.rf(a1, b2);
    b.rf(a2, b1);
    if let Some(kind) = deps {
        b.dep(a1, b1, kind);
        b.dep(a2, b2, Dep::Data);
    }
    (b.build(), [a1, b1, a2, b2])
}

#[test]
fn lb_with_dependencies_violates_no_thin_air() {
    for kind in [Dep::Addr, Dep::Data, Dep::Ctrl] {
        let (exec, ids) = lb(Some(kind));
        let v = check(&exec).unwrap_err();
        assert_eq!(v.axiom, Axiom::NoThinAir);
        let mut cycle = v.events.clone();
        cycle.sort();
        assert_eq!(cycle, ids.to_vec());
        assert_cycle_is_connected(&exec, &v);
    }
}

#[test]
fn lb_without_dependencies_is_allowed() {
    assert_consistent(&lb(None).0);
}

#[test]
fn lb_with_release_acquire_is_forbidden_by_causality() {
    let mut b = ExecBuilder::new(2);
    let (x, y) = (b.loc(0), b.loc(1));
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    let a1 = b.ld(t0, x, ACQ_GPU);
    let b1 = b.st(t0, y, 1, REL_GPU);
    let a2 = b.ld(t1, y, ACQ_GPU);
    let b2 = b.st(t1, x, 1, REL_GPU);
    b.rf(a1, b2);
    b.rf(a2, b1);
    assert_eq!(violated(&b.build()), Some(Axiom::Causality));
}

/// Litmus Tests 1 and 2 (8.10.3): two increments both read the initial value.
fn two_increments(s0: Strength, s1: Strength, cta1: u32) -> Result<Relations, Violation> {
    let mut b = ExecBuilder::new(1);
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(cta1));
    b.rmw(t0, b.loc(0), s0);
    b.rmw(t1, b.loc(0), s1);
    check(&b.build())
}

#[test]
fn rmw_atomicity_between_morally_strong_atomics() {
    let v = two_increments(RLX_SYS, RLX_SYS, 1).unwrap_err();
    assert_eq!(v.axiom, Axiom::Atomicity);
    assert_eq!(v.events.len(), 3);
}

#[test]
fn no_rmw_atomicity_between_cta_and_gpu_atomics_in_different_ctas() {
    let rel = two_increments(RLX_CTA, RLX_GPU, 1).unwrap();
    // Both increments race: coherence leaves their writes unordered.
    let (w0, w1) = (EventId::new(2), EventId::new(4));
    assert!(!rel.co.contains(w0, w1) && !rel.co.contains(w1, w0));
    // In one CTA the cta atomic's scope includes the other thread.
    assert_eq!(
        two_increments(RLX_CTA, RLX_GPU, 0).unwrap_err().axiom,
        Axiom::Atomicity
    );
}

#[test]
fn rmw_atomicity_even_with_the_explorer_ordering_non_morally_strong_writes() {
    let mut b = ExecBuilder::new(1);
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    let (_, w0) = b.rmw(t0, b.loc(0), RLX_CTA);
    let (_, w1) = b.rmw(t1, b.loc(0), RLX_GPU);
    b.co(w0, w1);
    assert_consistent(&b.build());
}

#[test]
fn observation_through_an_rmw_synchronizes() {
    // W1; st.release flag | atom.relaxed flag | ld.acquire flag; ld data
    let mut b = ExecBuilder::new(2);
    let (data, flag) = (b.loc(0), b.loc(1));
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    let t2 = b.thread(cta(2));
    let w1 = b.st(t0, data, 1, WEAK);
    let w2 = b.st(t0, flag, 1, REL_GPU);
    let (ar, aw) = b.rmw(t1, flag, RLX_GPU);
    let r1 = b.ld(t2, flag, ACQ_GPU);
    let r2 = b.ld(t2, data, WEAK);
    b.rf(ar, w2);
    b.rf(r1, aw);
    b.co(w2, aw);
    let exec = b.build();
    let v = check(&exec).unwrap_err();
    assert_eq!(v.axiom, Axiom::Causality);
    assert_eq!(v.events, vec![r2, w1, w2, ar, aw, r1]);
    assert_cycle_is_connected(&exec, &v);
    let mut ok = exec.clone();
    ok.set_rf(r2, Some(w1));
    let rel = assert_consistent(&ok);
    assert!(rel.sync.contains(w2, r1));
}

#[test]
fn barrier_synchronization_gives_causality() {
    let build = |synced: bool| {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        b.st(t0, b.loc(0), 1, WEAK);
        let b0 = b.barrier(t0);
        let b1 = b.barrier(t1);
        b.ld(t1, b.loc(0), WEAK);
        if synced {
            b.barrier_sync(b0, b1);
            b.barrier_sync(b1, b0);
        }
        b.build()
    };
    assert_eq!(violated(&build(true)), Some(Axiom::Causality));
    assert_consistent(&build(false));
}

#[test]
fn coherence_cycle_against_program_order_is_detected() {
    let mut b = ExecBuilder::new(1);
    let t0 = b.thread(cta(0));
    let w1 = b.st(t0, b.loc(0), 1, WEAK);
    let w2 = b.st(t0, b.loc(0), 2, WEAK);
    b.co(w2, w1);
    let exec = b.build();
    let v = check(&exec).unwrap_err();
    assert_eq!(v.axiom, Axiom::Coherence);
    let mut cycle = v.events.clone();
    cycle.sort();
    assert_eq!(cycle, vec![w1, w2]);
    assert_cycle_is_connected(&exec, &v);
}

#[test]
fn coherence_is_forced_by_causality_across_threads() {
    // W1 data; st.release flag | ld.acquire flag; W2 data
    let mut b = ExecBuilder::new(2);
    let (data, flag) = (b.loc(0), b.loc(1));
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    let w1 = b.st(t0, data, 1, WEAK);
    let wf = b.st(t0, flag, 1, REL_GPU);
    let rf = b.ld(t1, flag, ACQ_GPU);
    let w2 = b.st(t1, data, 2, WEAK);
    b.rf(rf, wf);
    let exec = b.build();
    let rel = assert_consistent(&exec);
    assert!(rel.co.contains(w1, w2));
    assert!(!rel.co.contains(w2, w1));
    // The explorer cannot order them the other way round.
    let mut bad = exec.clone();
    bad.order_co(w2, w1);
    let v = check(&bad).unwrap_err();
    assert_eq!(v.axiom, Axiom::Coherence);
    // W2 -co-> W1 (the explorer's), W1 -po-> flag -sync-> read -po-> W2.
    assert_eq!(v.events, vec![w2, w1, wf, rf]);
    assert_cycle_is_connected(&bad, &v);
}

#[test]
fn racing_weak_writes_stay_unordered() {
    let mut b = ExecBuilder::new(1);
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    let w1 = b.st(t0, b.loc(0), 1, WEAK);
    let w2 = b.st(t1, b.loc(0), 2, WEAK);
    let rel = assert_consistent(&b.build());
    assert!(!rel.co.contains(w1, w2) && !rel.co.contains(w2, w1));
    assert!(rel.co.contains(EventId::new(0), w1));
}

#[test]
fn crossed_release_acquire_through_rmws_violates_coherence() {
    // Two crossed release/acquire pairs whose flags each pass through an
    // RMW of a third thread: no read reads from a write it causes, but W0
    // and the RMW on its flag cause each other.
    let mut b = ExecBuilder::new(2);
    let (f0, f1) = (b.loc(0), b.loc(1));
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(1));
    let t2 = b.thread(cta(2));
    let t3 = b.thread(cta(3));
    let r0 = b.ld(t0, f1, ACQ_GPU);
    let w0 = b.st(t0, f0, 1, REL_GPU);
    let r1 = b.ld(t1, f0, ACQ_GPU);
    let w1 = b.st(t1, f1, 1, REL_GPU);
    let (ar, aw) = b.rmw(t2, f1, RLX_GPU);
    let (br, bw) = b.rmw(t3, f0, RLX_GPU);
    b.rf(ar, w1);
    b.rf(r0, aw);
    b.rf(br, w0);
    b.rf(r1, bw);
    let exec = b.build();
    let v = check(&exec).unwrap_err();
    assert_eq!(v.axiom, Axiom::Coherence);
    // B's write -rf-> R1 -po-> W1 -rf-> A -rmw-> A -rf-> R0 -po-> W0 -co-> B's write.
    assert_eq!(v.events, vec![bw, r1, w1, ar, aw, r0, w0]);
    assert_cycle_is_connected(&exec, &v);
}

#[test]
fn a_write_that_precedes_itself_in_causality_violates_coherence() {
    // Barrier pairs that no explorer would produce, closing a cycle of
    // base causality through W alone.
    let mut b = ExecBuilder::new(1);
    let t0 = b.thread(cta(0));
    let t1 = b.thread(cta(0));
    let b0a = b.barrier(t0);
    let w = b.st(t0, b.loc(0), 1, WEAK);
    let b0b = b.barrier(t0);
    let b1a = b.barrier(t1);
    let b1b = b.barrier(t1);
    b.barrier_sync(b0b, b1a);
    b.barrier_sync(b1b, b0a);
    let exec = b.build();
    let v = check(&exec).unwrap_err();
    assert_eq!(v.axiom, Axiom::Coherence);
    assert_eq!(v.events, vec![w, b0b, b1a, b1b, b0a]);
    assert_cycle_is_connected(&exec, &v);
}
