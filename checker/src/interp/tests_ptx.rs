//! Unit tests of the interpreter on compiler-style PTX: register-held
//! addresses (address dependencies), guards (control dependencies and
//! guarded-off accesses), `setp`/`selp` values, `ret`.

use super::*;
use crate::event::{Event, EventId, EventKind};
use ptxmc_frontend::ir::{Test, ThreadId};

fn parse(body: &str) -> Test {
    let src = format!("PTX t\n{{ x=0; y=0; }}\n P0@cta 0,gpu 0,tid 5 ;\n{body}\nexists (x == 0)\n");
    ptxmc_frontend::parse(&src).expect("parses")
}

/// Runs thread 0 concretely, answering reads from `reads` in order.
fn run(t: &Test, reads: &[i64]) -> (Vec<Event>, ThreadState<i64>) {
    let code = ThreadCode::new(t, ThreadId::new(0)).expect("valid code");
    let mut st = ThreadState::<i64>::new(&code, t, 2);
    let mut evs = Vec::new();
    let mut reads = reads.iter();
    while let Next::Event(e) = st.next(&code) {
        let id = EventId::new(evs.len());
        let v = e.is_read().then(|| *reads.next().unwrap_or(&0));
        evs.push(e);
        st.commit(id, v);
    }
    (evs, st)
}

fn reg(t: &Test, st: &ThreadState<i64>, name: &str) -> i64 {
    let i = t.symbols.regs[0]
        .iter()
        .position(|n| n == name)
        .expect("register exists");
    st.regs()[i]
}

fn write_loc(t: &Test, e: &Event) -> Option<String> {
    match &e.kind {
        EventKind::Write { loc, .. } => Some(t.addr_name(loc.addr).to_string()),
        _ => None,
    }
}

#[test]
fn an_address_computed_from_a_load_is_an_address_dependency() {
    let t = parse(
        " ld.relaxed.gpu.u32 %r1, [y] ;\n xor.b32 %r2, %r1, %r1 ;\n cvt.u64.u32 %rd2, %r2 ;\n mov.u64 %rd1, x ;\n add.s64 %rd3, %rd1, %rd2 ;\n st.relaxed.gpu.u32 [%rd3], 1 ;\n st.relaxed.gpu.u32 [%rd1], 2 ;",
    );
    let (evs, _) = run(&t, &[7]);
    assert_eq!(evs.len(), 3);
    assert_eq!(write_loc(&t, &evs[1]).as_deref(), Some("x"));
    assert_eq!(evs[1].addr_deps.as_slice(), &[EventId::new(0)]);
    assert!(evs[1].data_deps.is_empty() && evs[1].ctrl_deps.is_empty());
    // The base address alone does not depend on the load.
    assert!(evs[2].addr_deps.is_empty());
    // The last store does not depend on the load: the read may not wait.
    let code = ThreadCode::new(&t, ThreadId::new(0)).expect("valid code");
    assert!(!later_writes_depend(&code, 0));
    // Without it, every later write depends on the load: DPOR may let it
    // wait for its writer (8.10.4).
    let t = parse(
        " ld.relaxed.gpu.u32 %r1, [y] ;\n and.b32 %r2, %r1, 0 ;\n mov.u64 %rd1, x ;\n add.s64 %rd3, %rd1, %r2 ;\n st.relaxed.gpu.u32 [%rd3], 1 ;",
    );
    let code = ThreadCode::new(&t, ThreadId::new(0)).expect("valid code");
    assert!(later_writes_depend(&code, 0));
}

#[test]
fn a_guarded_store_is_control_dependent_and_absent_when_guarded_off() {
    let t = parse(
        " ld.relaxed.gpu.u32 %r0, [x] ;\n setp.eq.u32 %p1, %r0, 1 ;\n @%p1 st.relaxed.gpu.u32 [y], 1 ;\n @!%p1 st.relaxed.gpu.u32 [y], 2 ;",
    );
    let (evs, _) = run(&t, &[1]);
    assert_eq!(evs.len(), 2, "{evs:?}");
    assert!(matches!(evs[1].kind, EventKind::Write { value: 1, .. }));
    assert_eq!(evs[1].ctrl_deps.as_slice(), &[EventId::new(0)]);
    let (evs, _) = run(&t, &[0]);
    assert_eq!(evs.len(), 2);
    assert!(matches!(evs[1].kind, EventKind::Write { value: 2, .. }));
    let code = ThreadCode::new(&t, ThreadId::new(0)).expect("valid code");
    assert!(later_writes_depend(&code, 0));
}

#[test]
fn setp_compares_at_the_type_width_and_signedness() {
    let t = parse(
        " ld.u32 %r0, [x] ;\n setp.lt.s32 %p1, %r0, 1 ;\n setp.lt.u32 %p2, %r0, 1 ;\n setp.hi.u32 %p3, %r0, 1 ;\n setp.eq.b32 %p4, %r0, 4294967295 ;\n setp.lt.and.s32 %p5, %r0, 0, %p3 ;\n setp.ge.or.s64 %p6, %r0, 0, !%p4 ;\n selp.b32 %r1, 10, 20, %p5 ;\n not.pred %p7, %p5 ;\n mov.u32 %r2, %tid.x ;\n mad.lo.s32 %r3, %r2, 4, 1 ;\n neg.s32 %r4, %r2 ;\n popc.b32 %r5, %r2 ;\n cvt.u32.s64 %r6, %r0 ;",
    );
    let (_, st) = run(&t, &[-1]);
    let v = |n| reg(&t, &st, n);
    assert_eq!(v("p1"), 1, "-1 < 1 signed");
    assert_eq!(v("p2"), 0, "0xffffffff < 1 unsigned");
    assert_eq!(v("p3"), 1);
    assert_eq!(v("p4"), 1, "the low 32 bits compare");
    assert_eq!(v("p5"), 1);
    assert_eq!(v("p6"), 0);
    assert_eq!(v("r1"), 10);
    assert_eq!(v("p7"), 0);
    assert_eq!(v("r2"), 5, "tid 5 from the placement");
    assert_eq!(v("r3"), 21);
    assert_eq!(v("r4"), -5);
    assert_eq!(v("r5"), 2);
    assert_eq!(v("r6"), 0xffff_ffff);
}

#[test]
fn selp_depends_on_its_values_and_predicate() {
    let t = parse(
        " ld.u32 %r0, [x] ;\n ld.u32 %r1, [y] ;\n setp.ne.u32 %p1, %r0, 0 ;\n selp.u32 %r2, %r1, 3, %p1 ;\n st.u32 [y], %r2 ;",
    );
    let (evs, st) = run(&t, &[1, 9]);
    assert_eq!(reg(&t, &st, "r2"), 9);
    assert_eq!(
        evs[2].data_deps.as_slice(),
        &[EventId::new(0), EventId::new(1)]
    );
    let (_, st) = run(&t, &[0, 9]);
    assert_eq!(reg(&t, &st, "r2"), 3);
}

#[test]
fn ret_ends_the_thread_and_nanosleep_makes_no_event() {
    let t = parse(
        " st.u32 [x], 1 ;\n nanosleep.u32 20 ;\n setp.eq.u32 %p1, %tid.x, 5 ;\n @%p1 ret ;\n st.u32 [y], 1 ;",
    );
    let (evs, st) = run(&t, &[]);
    assert_eq!(evs.len(), 1);
    assert!(st.is_done());
}

/// Each event of an asynchronous instruction depends on the register of the
/// address operand it accesses (8.10.4): a copy's source read on the source
/// register, its destination write on the destination register, its
/// complete-tx on the mbarrier register; an mbarrier instruction's on its
/// operand's.
#[test]
fn async_events_depend_on_their_own_operands_register() {
    let src = "PTX t\n{ x=0; y=0; z=0; g=0; s=0; bar=0; }\n P0@cta 0,gpu 0 ;\n ld.relaxed.gpu.u32 %r1, [x] ;\n ld.relaxed.gpu.u32 %r2, [y] ;\n ld.relaxed.gpu.u32 %r3, [z] ;\n xor.b32 %r4, %r1, %r1 ;\n xor.b32 %r5, %r2, %r2 ;\n xor.b32 %r6, %r3, %r3 ;\n mov.u64 %rd1, s ;\n add.s64 %rd1, %rd1, %r4 ;\n mov.u64 %rd2, g ;\n add.s64 %rd2, %rd2, %r5 ;\n mov.u64 %rd3, bar ;\n add.s64 %rd3, %rd3, %r6 ;\n cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [%rd2], 4, [%rd3] ;\n mbarrier.arrive.shared::cta.b64 _, [%rd3] ;\nexists (x == 0)\n";
    let t = ptxmc_frontend::parse(src).expect("parses");
    let (evs, _) = run(&t, &[1, 2, 3, 0, 0, 0]);
    let deps = |i: usize| evs[i].addr_deps.to_vec();
    let (x, y, z) = (EventId::new(0), EventId::new(1), EventId::new(2));
    // Source read, destination write, complete-tx read and write, arrive
    // read and write.
    assert_eq!(evs.len(), 9, "{evs:?}");
    assert_eq!(deps(3), [y], "source read");
    assert_eq!(deps(4), [x], "destination write");
    assert_eq!((deps(5), deps(6)), (vec![z], vec![z]), "complete-tx");
    assert_eq!((deps(7), deps(8)), (vec![z], vec![z]), "arrive");
}
