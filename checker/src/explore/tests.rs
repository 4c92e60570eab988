//! Unit tests of the reference enumerator on hand-built IR: closed-form
//! execution counts, existential choices, values, barriers, liveness.

use crate::interp::testutil::*;
use crate::report::{Options, Report, Status, Strategy};
use ptxmc_frontend::ir::*;

fn opts() -> Options {
    Options {
        strategy: Strategy::Brute,
        check_duplicates: true,
        ..Options::default()
    }
}

/// Checks `t` with and without pruning partial graphs: only the time and the
/// number of pruned graphs may differ.
fn run(t: &Test) -> Report {
    let rep = super::check(t, &opts());
    assert_eq!(rep.status, Status::Ok, "{rep:?}");
    assert_eq!(rep.stats.duplicates, 0);
    let mut slow = super::check_pruning(t, &opts(), false);
    slow.time = rep.time;
    slow.stats.pruned = rep.stats.pruned;
    assert_eq!(slow, rep, "pruning changed the result");
    rep
}

fn reg(t: u32, r: u32) -> Term {
    Term::Reg(ThreadId(t), RegId(r))
}

fn eq(a: Term, v: i64) -> Prop {
    Prop::Cmp(CmpOp::Eq, a, Term::Const(v))
}

fn and(a: Prop, b: Prop) -> Prop {
    Prop::And(Box::new(a), Box::new(b))
}

#[test]
fn n_writers_one_reader() {
    for n in 0..3u32 {
        let mut threads: Vec<Vec<Instr>> =
            (0..=n).map(|i| vec![st(0, imm(i as i64 + 1))]).collect();
        threads.push(vec![ld(0, 0)]);
        let rep = run(&test(1, threads));
        let fact: u64 = (1..=(n as u64 + 1)).product();
        assert_eq!(rep.stats.executions, fact * (n as u64 + 2), "n = {n}");
    }
}

#[test]
fn readers() {
    for n in 1..4u32 {
        let mut threads = vec![vec![st(0, imm(1))]];
        threads.extend((0..n).map(|_| vec![ld(0, 0)]));
        let rep = run(&test(1, threads));
        assert_eq!(rep.stats.executions, 1 << n);
    }
}

#[test]
fn store_buffering_and_fence_sc() {
    let sb = |fence: bool| {
        let f = Instr::Fence {
            kind: FenceKind::Sc,
            scope: Some(Scope::Gpu),
        };
        let mut p0 = vec![st(0, imm(1)), ld(0, 1)];
        let mut p1 = vec![st(1, imm(1)), ld(0, 0)];
        if fence {
            p0.insert(1, f.clone());
            p1.insert(1, f);
        }
        let mut t = test(2, vec![p0, p1]);
        t.condition.prop = and(eq(reg(0, 0), 0), eq(reg(1, 0), 0));
        t
    };
    let rep = run(&sb(false));
    assert_eq!(rep.stats.executions, 4);
    assert!(rep.condition_holds);
    let rep = run(&sb(true));
    // The Fence-SC order is existential: it does not double the executions.
    assert_eq!(rep.stats.executions, 3);
    assert!(!rep.condition_holds);
    assert_eq!(rep.state_terms, vec![reg(0, 0), reg(1, 0)]);
}

#[test]
fn counters_and_load_buffering() {
    // Two atom.add on one location: the second reads the first, in either order.
    let mut t = test(
        1,
        vec![
            vec![rmw(RmwOp::Add, Some(0), 0, imm(1), None)],
            vec![rmw(RmwOp::Add, Some(0), 0, imm(1), None)],
        ],
    );
    t.condition.prop = eq(Term::Mem(AddrId(0)), 2);
    t.condition.quantifier = Quantifier::Forall;
    let rep = run(&t);
    assert_eq!(rep.stats.executions, 2);
    assert!(rep.condition_holds);

    // LB+data: r0 = x0; x1 = r0 || r1 = x1; x0 = r1. Only zeros.
    let lb = |data: bool| {
        let v = |i| if data { r(i) } else { imm(1) };
        let mut t = test(
            2,
            vec![vec![ld(0, 0), st(1, v(0))], vec![ld(1, 1), st(0, v(1))]],
        );
        t.condition.prop = and(eq(reg(0, 0), 1), eq(reg(1, 1), 1));
        t
    };
    assert!(run(&lb(false)).condition_holds);
    assert!(!run(&lb(true)).condition_holds);
}

#[test]
fn quorum_barriers() {
    // Barrier/quorum2-{pass,hang}: P0: ld r0 x; bar 1,1,C | P1: bar 1,1,C; st x 1 | P2: bar 1,1,C.
    let q = |c: i64| {
        let b = || bar(BarrierKind::Sync, 1, imm(1), Some(imm(c)));
        let mut t = test(
            1,
            vec![
                vec![ld_sem(0, 0, Sem::Weak, None), b()],
                vec![b(), st_sem(0, imm(1), Sem::Weak, None)],
                vec![b()],
            ],
        );
        t.condition.prop = eq(reg(0, 0), 1);
        t
    };
    let rep = run(&q(2));
    assert!(rep.condition_holds, "{rep:?}");
    assert!(rep.liveness_holds, "{rep:?}");
    let rep = run(&q(3));
    assert!(!rep.condition_holds, "{rep:?}");
    assert!(rep.liveness_holds);
    let rep = run(&q(4));
    assert!(!rep.condition_holds);
    assert!(!rep.liveness_holds);
    assert_eq!(rep.stats.executions, 0);
    assert!(rep
        .liveness_note
        .as_deref()
        .is_some_and(|n| n.contains("waits forever at barrier") && n.contains("3 of 4")));
}

#[test]
fn spin_liveness() {
    // P0: x0 = 1 (weak or relaxed) | P1: L0: r0 = x0; beq r0, 0, L0.
    let spin = |sem: Sem, scope: Option<Scope>| {
        test(
            1,
            vec![
                vec![st_sem(0, imm(1), sem, scope)],
                vec![
                    label(0),
                    ld_sem(0, 0, sem, scope),
                    branch(CmpOp::Eq, r(0), imm(0), 0),
                ],
            ],
        )
    };
    let rep = run(&spin(Sem::Relaxed, Some(Scope::Gpu)));
    assert!(rep.liveness_holds, "{rep:?}");
    assert_eq!(rep.stats.executions, 1);
    // The graph where P1 reads the initial value and blocks is unfair (a
    // morally strong newer write, 8.6.1): no hang, not kept as blocked
    // (`docs/model-notes.md`, "Waits").
    assert_eq!(rep.stats.blocked, 0);
    // A spin loop that nothing releases.
    let t = test(
        1,
        vec![vec![label(0), ld(0, 0), branch(CmpOp::Eq, r(0), imm(0), 0)]],
    );
    let rep = run(&t);
    assert!(!rep.liveness_holds);
    assert!(rep
        .liveness_note
        .as_deref()
        .is_some_and(|n| n.starts_with("P0 spins forever at 3:1")));
}

#[test]
fn bound_hits_are_reported() {
    let t = test(
        1,
        vec![vec![
            label(0),
            rmw(RmwOp::Exch, Some(0), 0, imm(0), None),
            branch(CmpOp::Eq, r(0), imm(0), 0),
        ]],
    );
    let rep = run(&t);
    assert!(rep.stats.bound_hits > 0);
    assert!(rep.liveness_holds);
    assert!(rep.liveness_note.is_some_and(|n| n.contains("loop bound")));
}

#[test]
fn unsupported_and_limits() {
    let mut t = test(
        1,
        vec![vec![ld(0, 0)], vec![Instr::Unsupported("mbarrier".into())]],
    );
    t.unsupported.push(Unsupported {
        construct: "mbarrier".into(),
        span: Span { line: 1, col: 2 },
    });
    let rep = super::check(&t, &opts());
    assert_eq!(rep.status, Status::Unsupported("mbarrier at 1:2".into()));

    let mut t = test(1, vec![vec![ld(0, 0)], vec![st(0, imm(1))]]);
    if let Instr::Load { access, .. } = &mut t.threads[0].code[0].instr {
        access.bytes = 4;
    }
    let rep = super::check(&t, &opts());
    assert_eq!(
        rep.status,
        Status::Unsupported("mixed-size accesses to x0 at 1:2".into())
    );

    let t = test(1, vec![vec![st(0, imm(1))], vec![ld(0, 0)], vec![ld(0, 0)]]);
    let o = Options {
        max_executions: Some(2),
        ..opts()
    };
    let rep = super::check(&t, &o);
    assert!(matches!(rep.status, Status::Limit(_)));
    assert_eq!(rep.stats.executions, 3);
}
