//! The fast path against the full computation on random executions.

use super::*;
use crate::event::EventId;
use crate::model::testutil::*;
use crate::model::{check_full, Relations};
use ptxmc_frontend::ir::{FenceKind, Proxy, Scope, Sem};

/// A small deterministic generator (xorshift).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// A random candidate execution: threads in a few CTAs and GPUs,
/// accesses through aliases and proxies, fences of every kind, RMWs,
/// dependencies, any reads-from, coherence orientations (and sometimes
/// extra coherence edges), Fence-SC orders and barrier pairs.
pub(crate) fn random_execution(rng: &mut Rng) -> crate::execution::Execution {
    // One case in eight has a first thread of 60 to 150 events (fences and
    // loads), so that the others lie past one and two words of rows.
    let pad = if rng.below(8) == 0 {
        60 + rng.below(90)
    } else {
        0
    };
    random_padded(rng, pad)
}

/// [`random_execution`] after a first thread of `pad` events.
fn random_padded(rng: &mut Rng, pad: usize) -> crate::execution::Execution {
    let mut b = ExecBuilder::new(2);
    let alias = b.alias(0);
    let addrs = [
        b.loc(0),
        b.loc(1),
        alias,
        b.loc(0).via(Proxy::Surface),
        alias.via(Proxy::Texture),
    ];
    let strengths = [
        WEAK,
        WEAK,
        RLX_CTA,
        RLX_GPU,
        RLX_SYS,
        REL_GPU,
        ACQ_GPU,
        ACQ_SYS,
        ACQ_REL_GPU,
        (Sem::Volatile, None),
    ];
    let fences = [
        (FenceKind::Sc, Some(Scope::Gpu)),
        (FenceKind::Sc, Some(Scope::Cta)),
        (FenceKind::AcqRel, Some(Scope::Gpu)),
        (FenceKind::Acquire, Some(Scope::Sys)),
        (FenceKind::Release, Some(Scope::Cta)),
        (FenceKind::ProxyAlias, None),
        (FenceKind::ProxySurface, None),
        (FenceKind::ProxyTexture, None),
    ];
    let placements = [cta(0), cta(0), cta(1), gpu(1)];
    let n_threads = 1 + rng.below(4);
    let mut reads = Vec::new();
    let mut writes: Vec<EventId> = (0..2).map(|i| b.init(i)).collect();
    let mut barriers = Vec::new();
    if pad > 0 {
        let t = b.thread(cta(1));
        for k in 0..pad {
            if k % 3 == 2 {
                reads.push(b.ld(t, addrs[k % 2], RLX_GPU));
            } else {
                b.fence(t, FenceKind::AcqRel, Some(Scope::Cta));
            }
        }
    }
    for _ in 0..n_threads {
        let t = b.thread(rng.pick(&placements));
        let mut thread_reads = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let a = rng.pick(&addrs);
            let s = rng.pick(&strengths);
            let e = match rng.below(10) {
                0..=2 => {
                    let w = b.st(t, a, 1 + rng.below(3) as i64, s);
                    writes.push(w);
                    w
                }
                3..=5 => {
                    let r = b.ld(t, a, s);
                    reads.push(r);
                    thread_reads.push(r);
                    r
                }
                6 | 7 => {
                    let (r, w) = if rng.below(3) == 0 {
                        b.red(t, a, s)
                    } else {
                        b.rmw(t, a, s)
                    };
                    reads.push(r);
                    writes.push(w);
                    thread_reads.push(r);
                    w
                }
                8 => {
                    let (k, scope) = rng.pick(&fences);
                    b.fence(t, k, scope)
                }
                _ => {
                    let x = b.barrier(t);
                    barriers.push(x);
                    x
                }
            };
            if !thread_reads.is_empty() && rng.below(3) == 0 {
                let r = rng.pick(&thread_reads);
                if r != e {
                    let kind = rng.pick(&[Dep::Addr, Dep::Data, Dep::Ctrl]);
                    b.dep(r, e, kind);
                }
            }
        }
    }
    let mut exec = b.build();
    for &r in &reads {
        let phys = exec.event(r).loc().map(|l| l.phys);
        let same: Vec<EventId> = writes
            .iter()
            .copied()
            .filter(|&w| exec.event(w).loc().map(|l| l.phys) == phys)
            .collect();
        exec.set_rf(r, Some(rng.pick(&same)));
    }
    // Flip some chosen orientations, add an extra edge now and then.
    let pairs: Vec<(EventId, EventId)> = exec.co().pairs().collect();
    for (a, c) in pairs {
        if rng.below(3) == 0 {
            exec.unorder_co(a, c);
            exec.order_co(c, a);
        }
    }
    if rng.below(4) == 0 {
        let (a, c) = (rng.pick(&writes), rng.pick(&writes));
        let phys = |e: EventId| exec.event(e).loc().map(|l| l.phys);
        if a != c && phys(a) == phys(c) {
            exec.order_co(a, c);
        }
    }
    // A random Fence-SC order.
    let mut f = exec.fence_sc().to_vec();
    for i in (1..f.len()).rev() {
        f.swap(i, rng.below(i + 1));
    }
    exec.set_fence_sc(f);
    if barriers.len() > 1 && rng.below(2) == 0 {
        let (x, y) = (rng.pick(&barriers), rng.pick(&barriers));
        if x != y {
            exec.add_barrier_sync(x, y);
        }
    }
    exec
}

/// The first `keep` events of `exec` (ids increase along each thread).
fn prefix(exec: &crate::execution::Execution, keep: usize) -> crate::execution::Execution {
    let mut p = exec.clone();
    p.truncate(keep);
    p
}

/// Whether two statics describe the same events the same way.
fn same(a: &Statics, b: &Statics) -> bool {
    let (x, y) = (a.snapshot(), b.snapshot());
    if x != y {
        eprintln!(
            "differ: n {} {}, attrs {}, threads {:?} {:?}, rows {:?}, masks {:?} {:?}",
            x.0,
            y.0,
            x.1 == y.1,
            x.2,
            y.2,
            (0..10).filter(|&k| x.3[k] != y.3[k]).collect::<Vec<_>>(),
            x.4,
            y.4
        );
    }
    x == y
}

/// The program-order predecessors of event `i` in `exec`, as words.
fn preds_of(exec: &crate::execution::Execution, i: usize) -> Vec<u64> {
    let mut words = vec![0u64; i.div_ceil(64).max(1)];
    let t = exec.event(EventId::new(i)).thread.expect("a thread event");
    for e in exec.threads()[t.index()]
        .iter()
        .take_while(|e| e.index() < i)
    {
        words[e.index() / 64] |= 1u64 << (e.index() % 64);
    }
    words
}

fn relations_eq(a: &Relations, b: &Relations) -> bool {
    a.co == b.co
        && a.rf == b.rf
        && a.fr == b.fr
        && a.morally_strong == b.morally_strong
        && a.observation == b.observation
        && a.sync == b.sync
        && a.base_causality == b.base_causality
        && a.causality == b.causality
}

#[test]
fn fast_path_agrees_with_the_full_check() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut consistent, mut inconsistent, mut unknown) = (0, 0, 0);
    for case in 0..20_000 {
        let exec = random_execution(&mut rng);
        let st = Statics::new(&exec).expect("small executions take the fast path");
        let mut d = Derived::new();
        let full = check_full(&exec);
        match decide(&exec, &st, &mut d) {
            Decision::Consistent => {
                consistent += 1;
                let full = full.unwrap_or_else(|v| panic!("case {case}: full check: {v:?}"));
                let fast = crate::model::fast_relations(exec.len(), &st, &d);
                assert!(relations_eq(&fast, &full), "case {case}: relations differ");
            }
            Decision::Inconsistent => {
                inconsistent += 1;
                assert!(full.is_err(), "case {case}: full check says consistent");
            }
            Decision::Unknown => unknown += 1,
        }
        // Grown event by event, cut back, and reused for another
        // execution, the statics are those built from scratch.
        let mut grown = Statics::new(&prefix(&exec, 2)).expect("initial writes");
        for i in 2..exec.len() {
            assert!(grown.push(&exec, EventId::new(i), &preds_of(&exec, i)));
        }
        assert!(same(&grown, &st), "case {case}: pushed one by one");
        assert!(grown.matches(&exec));
        // Dropped a few at a time (an explorer's backtrack), then pushed
        // again.
        let back = (exec.len() - rng.below(exec.len().min(10) - 1) - 1).max(2);
        let mut n = exec.len();
        while n > back {
            n -= 1 + rng.below(2).min(n - back - 1);
            grown.truncate(n);
            assert!(
                same(&grown, &Statics::new(&prefix(&exec, n)).unwrap()),
                "case {case}: cut back to {n}"
            );
        }
        for i in n..exec.len() {
            assert!(grown.push(&exec, EventId::new(i), &preds_of(&exec, i)));
        }
        assert!(same(&grown, &st), "case {case}: pushed again");
        let keep = 2 + rng.below(exec.len() - 1);
        grown.truncate(keep);
        let cut = prefix(&exec, keep);
        assert!(
            same(&grown, &Statics::new(&cut).unwrap()),
            "case {case}: truncated"
        );
        assert_eq!(grown.matches(&exec), keep == exec.len());
        let mut reused = Statics::new(&cut).unwrap();
        assert!(
            reused.rebuild(&exec) && same(&reused, &st),
            "case {case}: rebuilt"
        );
    }
    eprintln!("fast path: {consistent} consistent, {inconsistent} inconsistent, {unknown} unknown");
    assert!(
        consistent > 1000 && inconsistent > 1000,
        "{consistent} {inconsistent} {unknown}"
    );
    assert!(
        unknown * 20 < consistent + inconsistent,
        "{unknown} unknown"
    );
}

/// The rows pushed with the candidates of each event's location (morally
/// strong, same location, direct cases) are those of the per-concept
/// modules, pair by pair, and so are the release-pattern starts.
#[test]
fn statics_rows_are_the_relations_pair_by_pair() {
    use crate::model::causality::direct_case;
    use crate::model::morally_strong::morally_strong;
    let mut rng = Rng(0x3c6e_f372_fe94_f82b);
    for case in 0..3_000 {
        let exec = random_execution(&mut rng);
        let st = Statics::new(&exec).expect("the fast path applies");
        let (n, _, _, rows, masks) = st.snapshot();
        let has = |row: &Vec<u64>, j: usize| row[j / 64] >> (j % 64) & 1 == 1;
        let (ms, same_loc, direct) = (&rows[2], &rows[7], &rows[8]);
        for a in 0..n {
            for e in 0..n {
                let (x, y) = (EventId::new(a), EventId::new(e));
                let (ea, ee) = (exec.event(x), exec.event(y));
                if a != e {
                    assert_eq!(
                        has(&ms[a], e),
                        morally_strong(&exec, x, y),
                        "case {case}: ms {a} {e}"
                    );
                }
                let phys = |ev: &crate::event::Event| ev.loc().map(|l| l.phys);
                let loc = phys(ea).is_some() && phys(ea) == phys(ee);
                assert_eq!(
                    has(&same_loc[a], e),
                    loc,
                    "case {case}: same location {a} {e}"
                );
                let both = ea.thread.is_some() && ee.thread.is_some();
                let want = loc && both && direct_case(&exec, ea, ee);
                assert_eq!(has(&direct[a], e), want, "case {case}: direct {a} {e}");
            }
        }
        assert_eq!(masks.len(), 7);
        assert!(st.rel_firsts_cover(), "case {case}: release starts");
    }
}

/// An incremental check (`add_read`, `add_write`) of `exec`, whose last
/// event is `x`, from the relations of the graph without it, against
/// deciding `exec` from scratch: `None` when the graph without `x` is not
/// consistent (nothing to extend); else the incremental decision and the
/// one from scratch, asserted to agree whenever the incremental one decides,
/// relations included.
fn against_scratch(
    exec: &Execution,
    x: usize,
    case: usize,
    step: fn(&Execution, &Statics, &mut Derived, usize) -> Decision,
) -> Option<(Decision, Decision)> {
    let before = prefix(exec, x);
    let st0 = Statics::new(&before).unwrap();
    let mut d = Derived::new();
    if decide(&before, &st0, &mut d) != Decision::Consistent {
        return None;
    }
    let st = Statics::new(exec).unwrap();
    let mut fresh = Derived::new();
    let expected = decide(exec, &st, &mut fresh);
    let got = step(exec, &st, &mut d, x);
    match got {
        Decision::Consistent => {
            assert_eq!(expected, Decision::Consistent, "case {case}");
            let n = exec.len();
            let (a, b) = (relations(n, &st, &d), relations(n, &st, &fresh));
            assert!(relations_eq(&a, &b), "case {case}: relations differ");
        }
        Decision::Inconsistent => assert_eq!(expected, Decision::Inconsistent, "case {case}"),
        Decision::Unknown => {}
    }
    Some((got, expected))
}

#[test]
fn adding_a_read_agrees_with_deciding_from_scratch() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut same, mut pruned, mut unknown) = (0, 0, 0);
    for case in 0..40_000 {
        let mut exec = random_execution(&mut rng);
        let r = exec.len() - 1;
        if !exec.event(EventId::new(r)).is_read() {
            continue;
        }
        if rng.below(4) == 0 {
            // Committed to a write not in the graph yet.
            exec.set_rf(EventId::new(r), None);
        }
        let first_fence = exec.fence_sc().iter().take(1).copied().collect();
        exec.clear_orders();
        exec.set_fence_sc(first_fence);
        match against_scratch(&exec, r, case, add_read) {
            Some((Decision::Consistent, _)) => same += 1,
            Some((Decision::Inconsistent, _)) => pruned += 1,
            Some((Decision::Unknown, _)) => unknown += 1,
            None => {}
        }
    }
    eprintln!("add_read: {same} consistent, {pruned} inconsistent, {unknown} unknown");
    assert!(same > 500 && pruned > 100, "{same} {pruned} {unknown}");
}

#[test]
fn adding_a_write_agrees_with_deciding_from_scratch() {
    let mut rng = Rng(0x6a09_e667_f3bc_c909);
    let (mut same, mut pruned, mut unknown, mut missed) = (0, 0, 0, 0);
    for case in 0..40_000 {
        let mut exec = random_execution(&mut rng);
        let w = exec.len() - 1;
        if !exec.event(EventId::new(w)).is_write() {
            continue;
        }
        // Read by nobody (the case `add_write` is for).
        for r in exec.ids() {
            if exec.rf()[r.index()] == Some(EventId::new(w)) {
                exec.set_rf(r, None);
            }
        }
        let first_fence = exec.fence_sc().iter().take(1).copied().collect();
        exec.clear_orders();
        exec.set_fence_sc(first_fence);
        match against_scratch(&exec, w, case, add_write) {
            Some((Decision::Consistent, _)) => same += 1,
            Some((Decision::Inconsistent, _)) => pruned += 1,
            Some((Decision::Unknown, expected)) => {
                unknown += 1;
                missed += usize::from(expected != Decision::Unknown);
            }
            None => {}
        }
    }
    eprintln!("add_write: {same} consistent, {pruned} inconsistent, {unknown} unknown ({missed} decided from scratch)");
    assert!(same > 500 && pruned > 100, "{same} {pruned} {unknown}");
}

#[test]
fn deciding_an_order_from_the_relations_with_no_pair_agrees_with_scratch() {
    let mut rng = Rng(0xbb67_ae85_84ca_a73b);
    let (mut consistent, mut inconsistent, mut unknown) = (0, 0, 0);
    for case in 0..200_000 {
        let mut exec = random_execution(&mut rng);
        if exec.fence_sc().len() < 2 || !exec.barrier_sync().is_empty() {
            continue;
        }
        let st = Statics::new(&exec).unwrap();
        let order = exec.take_fence_sc();
        let mut no_pair = Derived::new();
        if decide(&exec, &st, &mut no_pair) != Decision::Consistent {
            continue;
        }
        exec.set_fence_sc(order);
        let mut fresh = Derived::new();
        let expected = decide(&exec, &st, &mut fresh);
        let mut d = Derived::new();
        let got = decide_with_order(&exec, &st, &no_pair, &mut d);
        match got {
            Decision::Consistent => {
                consistent += 1;
                assert_eq!(expected, Decision::Consistent, "case {case}");
                let n = exec.len();
                let (a, b) = (relations(n, &st, &d), relations(n, &st, &fresh));
                assert!(relations_eq(&a, &b), "case {case}: relations differ");
            }
            Decision::Inconsistent => {
                inconsistent += 1;
                assert_eq!(expected, Decision::Inconsistent, "case {case}");
            }
            Decision::Unknown => {
                unknown += 1;
                assert_eq!(expected, Decision::Unknown, "case {case}");
            }
        }
    }
    eprintln!("decide_with_order: {consistent} consistent, {inconsistent} inconsistent, {unknown} unknown");
    assert!(
        consistent > 500 && inconsistent > 150,
        "{consistent} {inconsistent} {unknown}"
    );
}
