//! Unit tests of the interpreter: loops and spin loops, RMW values,
//! dependencies, vector accesses, barriers.

use super::testutil::*;
use super::*;
use crate::event::{EventId, EventKind};
use ptxmc_frontend::ir::{BarrierKind, BinOp, CmpOp, Instr, RegId, RmwOp, ThreadId};

fn code_of(t: &ptxmc_frontend::ir::Test, i: usize) -> ThreadCode {
    ThreadCode::new(t, ThreadId::new(i)).expect("valid code")
}

/// Runs thread 0 concretely, answering reads from `reads` in order; returns
/// the events and how it ended.
fn run(
    t: &ptxmc_frontend::ir::Test,
    unroll: u32,
    reads: &[i64],
) -> (Vec<crate::event::Event>, Next<i64>, ThreadState<i64>) {
    let code = code_of(t, 0);
    let mut st = ThreadState::<i64>::new(&code, t, unroll);
    let mut evs = Vec::new();
    let mut reads = reads.iter();
    loop {
        match st.next(&code) {
            Next::Event(mut e) => {
                let id = EventId::new(evs.len());
                let v = if e.is_read() {
                    let v = *reads.next().unwrap_or(&0);
                    if let EventKind::Read { value, .. } = &mut e.kind {
                        *value = v;
                    }
                    Some(v)
                } else {
                    None
                };
                evs.push(e);
                st.commit(id, v);
            }
            other => return (evs, other, st),
        }
    }
}

#[test]
fn spin_loop_detection() {
    // L0: ld r0, x0; bne r0, 0, L1; goto L0; L1:   (XF-Barrier's wait)
    let spin = vec![
        label(0),
        ld(0, 0),
        branch(CmpOp::Ne, r(0), imm(0), 1),
        goto(0),
        label(1),
    ];
    // r1 is read but never written in the body (Ticketlock).
    let invariant = vec![
        rmw(RmwOp::Add, Some(1), 1, imm(1), None),
        label(0),
        ld(2, 0),
        branch(CmpOp::Eq, r(1), r(2), 1),
        goto(0),
        label(1),
    ];
    // An RMW in the body: not a spin loop (CADP's atom.exch loops).
    let exch = vec![
        label(0),
        rmw(RmwOp::Exch, Some(0), 0, imm(1), None),
        branch(CmpOp::Ne, r(0), imm(0), 1),
        goto(0),
        label(1),
    ];
    // r1 is read before it is written in the iteration: a counter.
    let counter = vec![
        label(0),
        Instr::Op {
            op: BinOp::Add,
            dst: RegId(1),
            a: r(1),
            b: imm(1),
        },
        ld(0, 0),
        branch(CmpOp::Ne, r(0), imm(0), 1),
        goto(0),
        label(1),
    ];
    // r1 is written on one path only before it is read.
    let one_path = vec![
        label(0),
        ld(0, 0),
        branch(CmpOp::Eq, r(0), imm(0), 2),
        Instr::Mov {
            dst: RegId(1),
            src: imm(1),
        },
        label(2),
        branch(CmpOp::Ne, r(1), imm(0), 1),
        goto(0),
        label(1),
    ];
    let t = test(2, vec![spin, invariant, exch, counter, one_path]);
    let spins: Vec<Vec<bool>> = (0..5)
        .map(|i| code_of(&t, i).loops().iter().map(|l| l.spin).collect())
        .collect();
    assert_eq!(
        spins,
        vec![
            vec![true],
            vec![true],
            vec![false],
            vec![false],
            vec![false]
        ]
    );
    let l = code_of(&t, 0).loops()[0];
    assert_eq!((l.head, l.back), (0, 3));
}

#[test]
fn spin_loop_blocks_with_its_iteration() {
    let t = test(
        1,
        vec![vec![
            st(0, imm(5)),
            label(0),
            ld(0, 0),
            branch(CmpOp::Ne, r(0), imm(0), 1),
            goto(0),
            label(1),
        ]],
    );
    // Reading 0 keeps it looping: it blocks after one iteration.
    let (evs, end, st) = run(&t, 2, &[0]);
    assert_eq!(evs.len(), 2);
    assert_eq!(end, Next::Blocked(crate::interp::BlockReason::Spin));
    assert_eq!(st.spin_iteration(), &[EventId::new(1)]);
    assert_eq!(st.blocked_at(&code_of(&t, 0)).map(|s| s.line), Some(5));
    // Reading 1 exits.
    let (_, end, _) = run(&t, 2, &[1]);
    assert_eq!(end, Next::Done);
}

#[test]
fn other_loops_are_bounded() {
    let t = test(
        1,
        vec![vec![
            label(0),
            rmw(RmwOp::Exch, Some(0), 0, imm(1), None),
            branch(CmpOp::Ne, r(0), imm(0), 1),
            goto(0),
            label(1),
        ]],
    );
    // Always reading 0: unroll 2 allows 2 back edges, so 3 iterations.
    let (evs, end, _) = run(&t, 2, &[0, 0, 0, 0]);
    assert_eq!(evs.len(), 6);
    assert_eq!(end, Next::Blocked(crate::interp::BlockReason::Bound));
    let (evs, end, _) = run(&t, 0, &[0]);
    assert_eq!(evs.len(), 2);
    assert_eq!(end, Next::Blocked(crate::interp::BlockReason::Bound));
    let (evs, end, _) = run(&t, 2, &[0, 1]);
    assert_eq!(evs.len(), 4);
    assert_eq!(end, Next::Done);
}

#[test]
fn rmw_values() {
    assert_eq!(eval_rmw(RmwOp::Inc, 2, 2, 0), 0);
    assert_eq!(eval_rmw(RmwOp::Inc, 1, 2, 0), 2);
    assert_eq!(eval_rmw(RmwOp::Dec, 0, 5, 0), 5);
    assert_eq!(eval_rmw(RmwOp::Dec, 6, 5, 0), 5);
    assert_eq!(eval_rmw(RmwOp::Dec, 3, 5, 0), 2);
    assert_eq!(eval_rmw(RmwOp::Cas, 1, 1, 9), 9);
    assert_eq!(eval_rmw(RmwOp::Cas, 2, 1, 9), 2);
    assert_eq!(eval_rmw(RmwOp::Div, 7, 0, 0), 0);
    assert_eq!(eval_rmw(RmwOp::Exch, 7, 3, 0), 3);
    assert_eq!(eval_binop(BinOp::Div, i64::MIN, -1), i64::MIN);
    assert_eq!(eval_binop(BinOp::Shl, 1, 70), 0);

    // atom.cas r0, x0, r1(=4), 7 reading 4: writes 7, r0 = 4 (the old value).
    let mut t = test(
        1,
        vec![vec![rmw(RmwOp::Cas, Some(0), 0, r(1), Some(imm(7)))]],
    );
    t.init_regs.push((ThreadId(0), RegId(1), 4));
    let (evs, end, st) = run(&t, 2, &[4]);
    assert_eq!(end, Next::Done);
    assert!(matches!(
        evs[0].kind,
        EventKind::Read {
            rmw: true,
            red: false,
            ..
        }
    ));
    assert!(matches!(
        evs[1].kind,
        EventKind::Write {
            value: 7,
            rmw: true,
            ..
        }
    ));
    assert_eq!(evs[1].po_index, 1);
    assert_eq!(st.regs()[0], 4);
    assert_eq!(st.reg_deps(RegId(0)), &[EventId::new(0)]);
    assert_eq!(evs[1].data_deps.as_slice(), &[EventId::new(0)]);

    // atom.add r0, x0, r0: the operand is read before r0 gets the old value.
    let mut t = test(1, vec![vec![rmw(RmwOp::Add, Some(0), 0, r(0), None)]]);
    t.init_regs.push((ThreadId(0), RegId(0), 10));
    let (evs, _, st) = run(&t, 2, &[5]);
    assert_eq!(evs[1].value(), Some(15));
    assert_eq!(st.regs()[0], 5);

    // red: no destination, the read is marked `red`.
    let t = test(1, vec![vec![rmw(RmwOp::Inc, None, 0, imm(3), None)]]);
    let (evs, _, _) = run(&t, 2, &[3]);
    assert!(matches!(evs[0].kind, EventKind::Read { red: true, .. }));
    assert_eq!(evs[1].value(), Some(0));
}

#[test]
fn dependencies() {
    // ld r0, x0; add r1, r0, 1; st x1, r1; ld r2, x1; beq r2, 0, L0; L0: st x0, 1
    let t = test(
        2,
        vec![vec![
            ld(0, 0),
            Instr::Op {
                op: BinOp::Add,
                dst: RegId(1),
                a: r(0),
                b: imm(1),
            },
            st(1, r(1)),
            ld(2, 1),
            branch(CmpOp::Eq, r(2), imm(0), 0),
            label(0),
            st(0, imm(1)),
        ]],
    );
    let (evs, end, _) = run(&t, 2, &[3, 0]);
    assert_eq!(end, Next::Done);
    assert_eq!(evs.len(), 4);
    assert_eq!(evs[1].value(), Some(4));
    assert_eq!(evs[1].data_deps.as_slice(), &[EventId::new(0)]);
    assert!(evs[1].ctrl_deps.is_empty());
    assert!(evs[3].data_deps.is_empty());
    assert_eq!(evs[3].ctrl_deps.as_slice(), &[EventId::new(2)]);
}

#[test]
fn vector_accesses_split() {
    let mut ldv = ld(0, 0);
    if let Instr::Load { dst, access, .. } = &mut ldv {
        *dst = vec![RegId(0), RegId(1)];
        access.vector = 2;
    }
    let mut stv = st(0, imm(0));
    if let Instr::Store { src, access, .. } = &mut stv {
        *src = vec![imm(1), r(1)];
        access.vector = 2;
    }
    let t = test(1, vec![vec![ldv, stv]]);
    let (evs, end, st) = run(&t, 2, &[7, 8]);
    assert_eq!(end, Next::Done);
    assert_eq!(evs.len(), 4);
    assert_eq!((st.regs()[0], st.regs()[1]), (7, 8));
    assert_eq!(evs[3].value(), Some(8));
    assert_eq!(evs[3].data_deps.as_slice(), &[EventId::new(1)]);
    assert!(evs.iter().all(|e| e.instr < 2));
}

#[test]
fn barriers_carry_runtime_ids() {
    let mut t = test(1, vec![vec![bar(BarrierKind::Sync, 1, r(2), Some(imm(3)))]]);
    t.init_regs.push((ThreadId(0), RegId(2), 5));
    let (evs, end, _) = run(&t, 2, &[]);
    assert_eq!(end, Next::Done);
    assert_eq!(
        evs[0].kind,
        EventKind::Barrier {
            kind: BarrierKind::Sync,
            instance: 1,
            id: 5,
            count: Some(3)
        }
    );
}

#[test]
fn bad_code_is_reported_not_run() {
    let t = test(1, vec![vec![goto(3)]]);
    assert!(ThreadCode::new(&t, ThreadId(0))
        .unwrap_err()
        .contains("undefined label"));
    let t = test(1, vec![vec![Instr::Unsupported("mbarrier".into())]]);
    assert_eq!(
        ThreadCode::new(&t, ThreadId(0)).unwrap_err(),
        "mbarrier at 1:1"
    );
    let t = test(1, vec![vec![rmw(RmwOp::Cas, Some(0), 0, imm(0), None)]]);
    assert!(ThreadCode::new(&t, ThreadId(0)).is_err());
    let t = test(1, vec![vec![ld(0, 4)]]);
    assert!(ThreadCode::new(&t, ThreadId(0)).is_err());
}

/// The facts DPOR's lock pruning reads of the code (`dpor/exits.rs`,
/// `dpor/fairness.rs`): the value a guarded CAS must read to leave its loop,
/// and whether straight-line code to the end writes a location.
#[test]
fn a_cas_lock_exits_on_its_compare_value_and_unlocks_on_every_run() {
    let src = ptxmc_frontend::families::generate("cas-lock", 2, "gpu").expect("a family");
    let test = ptxmc_frontend::parse(&src).expect("parses");
    let phys = |name: &str| {
        (0..test.addresses.len())
            .find(|&a| test.addr_name(ptxmc_frontend::ir::AddrId::new(a)) == name)
            .map(|a| test.addresses[a].phys.index())
            .expect("a location")
    };
    let (m, data) = (phys("m"), phys("data"));
    for reading in [
        crate::model::reading::Reading::SPEC,
        crate::model::reading::Reading::FAILED_CAS_READ,
    ] {
        let code = code_of(&test, 0).with_reading(reading);
        let cas = code
            .stmts()
            .iter()
            .position(|s| matches!(s.instr, Instr::Rmw { op: RmwOp::Cas, .. }))
            .expect("a CAS");
        assert_eq!(code.cas_exit_value(cas), Some(0));
        assert_eq!(code.cas_exit_value(cas + 1), None);
        // In the loop, the code jumps back; after it, it runs straight to
        // the unlock (st.release m, 0) and writes data on the way.
        assert!(!code.writes_on_every_run(cas, m));
        assert!(code.writes_on_every_run(cas + 2, m));
        assert!(code.writes_on_every_run(cas + 2, data));
        let last = code.stmts().len() - 1;
        assert!(!code.writes_on_every_run(last, data));
    }
}

/// A restore of a saved state that neither copy changed since the save is
/// skipped; once the thread went on, the restore brings the saved state
/// back, also past a later save of the changed state (the marks of
/// `ThreadState::save_into`).
#[test]
fn a_restore_is_skipped_only_for_an_unchanged_state() {
    // ld r0, x0; st x1, r0
    let t = test(2, vec![vec![ld(0, 0), st(1, r(0))]]);
    let code = code_of(&t, 0);
    let mut live = ThreadState::<i64>::new(&code, &t, 1);
    let Next::Event(read) = live.next(&code) else {
        panic!("a read first");
    };
    let mut at_read = ThreadState::<i64>::new(&code, &t, 1);
    live.save_into(&mut at_read, 1);
    live.clone_from(&at_read);
    assert_eq!(live.next(&code), Next::Event(read.clone()));
    // The read returns 5: the write writes 5.
    live.commit(EventId::new(0), Some(5));
    assert!(matches!(live.next(&code), Next::Event(e) if e.is_write()));
    assert_eq!(live.pending_write_value(), Some(&5));
    // A later save of the changed state, restored (skipped), then the
    // first one: the read is pending again, and reading 7 writes 7.
    let mut at_write = ThreadState::<i64>::new(&code, &t, 1);
    live.save_into(&mut at_write, 2);
    live.clone_from(&at_write);
    assert_eq!(live.events(), &[EventId::new(0)]);
    live.clone_from(&at_read);
    assert!(live.events().is_empty());
    assert_eq!(live.next(&code), Next::Event(read));
    live.commit(EventId::new(0), Some(7));
    assert!(matches!(live.next(&code), Next::Event(e) if e.is_write()));
    assert_eq!(live.pending_write_value(), Some(&7));
    // And the copy made at the write is still the state with 5.
    assert_eq!(at_write.pending_write_value(), Some(&5));
}

/// A thread state moves as one pointer: explorers keep saved copies in
/// their frames and pools.
#[test]
fn a_thread_state_is_one_pointer() {
    assert_eq!(
        std::mem::size_of::<ThreadState<i64>>(),
        std::mem::size_of::<usize>()
    );
}
