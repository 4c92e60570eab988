//! Tests of the code facts of `interp/code.rs`: loops, CAS retry loops, strong locations.
use super::*;
use crate::event::EventId;
use crate::interp::BlockReason;
use crate::interp::{Next, ThreadState};

fn parse(src: &str) -> Test {
    ptxmc_frontend::parse(src).expect("parses")
}

/// Runs thread `t` of `src` under `reading`, every read returning
/// `value`, until it ends; the events it made (as writes or not) and
/// how it ended.
fn run(src: &str, t: usize, reading: Reading, value: i64) -> (Vec<bool>, Next<i64>) {
    let test = parse(src);
    let code = ThreadCode::new(&test, ThreadId::new(t))
        .expect("runs")
        .with_reading(reading);
    let mut st = ThreadState::<i64>::new(&code, &test, 2);
    let mut writes = Vec::new();
    loop {
        match st.next(&code) {
            Next::Event(e) => {
                let id = EventId::new(writes.len());
                writes.push(e.is_write());
                st.commit(id, e.is_read().then_some(value));
            }
            other => return (writes, other),
        }
    }
}

const CAS_LOCK: &str = "PTX t\n{ m=0; d=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
    LC00: | st.release.gpu m, 0 ;\n atom.acquire.gpu.cas r0, m, 0, 1 | ;\n \
    bne r0, 0, LC00 | ;\n st.weak d, 1 | ;\nexists (d == 1)\n";

/// The same lock, with a weak store of the lock word in P1.
fn weak_unlock() -> String {
    CAS_LOCK.replace("st.release.gpu m, 0", "st.weak m, 0")
}

#[test]
fn a_cas_retry_loop_is_a_retry_loop() {
    let test = parse(CAS_LOCK);
    let code = ThreadCode::new(&test, ThreadId::new(0)).expect("runs");
    let l = code.loops()[0];
    assert!(l.retry, "{l:?}");
    // Not a spin loop by its code: only a reading makes it one.
    let weak = parse(&weak_unlock());
    let code = ThreadCode::new(&weak, ThreadId::new(0)).expect("runs");
    let l = code.loops()[0];
    assert!(l.retry && !l.spin, "{l:?}");
}

#[test]
fn a_guarded_cas_loop_is_a_spin_loop_where_its_failure_is_unseen() {
    let spin = |src: &str, r: Reading| {
        let test = parse(src);
        let code = ThreadCode::new(&test, ThreadId::new(0))
            .expect("runs")
            .with_reading(r);
        code.loops()[0].spin
    };
    // Strong lock word: unseen under both readings.
    assert!(spin(CAS_LOCK, Reading::SPEC));
    assert!(spin(CAS_LOCK, Reading::FAILED_CAS_READ));
    // A weak access to it: only when a failed CAS writes nothing.
    assert!(!spin(&weak_unlock(), Reading::SPEC));
    assert!(spin(&weak_unlock(), Reading::FAILED_CAS_READ));
    // A back edge that does not test the CAS's failure is no guard.
    let other = CAS_LOCK.replace("bne r0, 0, LC00", "bne r0, 7, LC00");
    assert!(!spin(&other, Reading::FAILED_CAS_READ));
}

#[test]
fn a_location_is_strong_when_every_access_is_morally_strong() {
    let test = parse(CAS_LOCK);
    let m = (0..test.addresses.len())
        .find(|&a| test.addr_name(ptxmc_frontend::ir::AddrId::new(a)) == "m")
        .expect("m");
    let code = ThreadCode::new(&test, ThreadId::new(0)).expect("runs");
    assert!(code.strong_location(ptxmc_frontend::ir::AddrId::new(m)));
    let weak = parse(&weak_unlock());
    let code = ThreadCode::new(&weak, ThreadId::new(0)).expect("runs");
    assert!(!code.strong_location(ptxmc_frontend::ir::AddrId::new(m)));
    // Two strong accesses whose scopes do not include each other's thread.
    let cta = CAS_LOCK.replace("st.release.gpu m", "st.release.cta m");
    let cta = parse(&cta);
    let code = ThreadCode::new(&cta, ThreadId::new(0)).expect("runs");
    assert!(!code.strong_location(ptxmc_frontend::ir::AddrId::new(m)));
}

/// A failed CAS (every read returns 1) under each reading: the
/// iteration blocks like a spin loop's when its failed CAS is
/// unobservable (it only reads, or writes back a location whose accesses
/// are all morally strong), and is unrolled otherwise.
#[test]
fn a_failed_iteration_blocks_only_when_it_is_unobservable() {
    let (evs, end) = run(CAS_LOCK, 0, Reading::FAILED_CAS_READ, 1);
    assert_eq!((evs, end), (vec![false], Next::Blocked(BlockReason::Spin)));
    let (evs, end) = run(CAS_LOCK, 0, Reading::SPEC, 1);
    assert_eq!(
        (evs, end),
        (vec![false, true], Next::Blocked(BlockReason::Spin))
    );
    // A weak access of the lock word makes the write-back observable
    // (corpus/readings/cas-fail-writeback-race): unrolled, 3 iterations.
    let (evs, end) = run(&weak_unlock(), 0, Reading::SPEC, 1);
    assert_eq!(evs, [false, true].repeat(3));
    assert_eq!(end, Next::Blocked(BlockReason::Bound));
    // ... but not when the failed CAS only reads.
    let (evs, end) = run(&weak_unlock(), 0, Reading::FAILED_CAS_READ, 1);
    assert_eq!((evs, end), (vec![false], Next::Blocked(BlockReason::Spin)));
    // A CAS that succeeds leaves the loop under every reading.
    for r in Reading::ALL {
        let (evs, end) = run(CAS_LOCK, 0, *r, 0);
        assert_eq!(
            (evs, end),
            (vec![false, true, true], Next::Done),
            "{}",
            r.name
        );
    }
}

/// A loop whose exiting path skips a load that its failing path makes:
/// the register keeps the value of a failed iteration, so the loop is
/// not side-effect free and is unrolled (it was taken for a spin loop
/// before, which lost the state `1:r1 == 1`).
#[test]
fn a_register_written_only_on_the_failing_path_stops_the_collapse() {
    let src = include_str!("../../../../corpus/liveness/spin-exit-skips-load.litmus");
    let test = parse(src);
    let code = ThreadCode::new(&test, ThreadId::new(1)).expect("runs");
    let l = code.loops()[0];
    assert!(!l.spin && !l.retry, "{l:?}");
    // The same loop loading y on both paths is a spin loop.
    let both = src.replace(
        "bne r0, 0, LC01          ;",
        "ld.relaxed.gpu r1, y     ;\n                      | bne r0, 0, LC01          ;",
    );
    let test = parse(&both);
    let code = ThreadCode::new(&test, ThreadId::new(1)).expect("runs");
    assert!(code.loops()[0].spin);
    for strategy in crate::report::Strategy::ALL {
        let opts = crate::report::Options {
            strategy: *strategy,
            ..Default::default()
        };
        let rep = crate::check(&parse(src), &opts);
        assert!(rep.condition_holds, "{strategy:?}: 1:r1 == 1 is reachable");
    }
}

#[test]
fn only_cas_retry_loops_get_the_cas_note() {
    let test = parse(CAS_LOCK);
    let back = test.threads[0]
        .code
        .iter()
        .find(|s| matches!(s.instr, Instr::Branch { .. }))
        .expect("a branch")
        .span;
    assert!(cas_retry_loop_at(&test, 0, back));
    let spin = parse(include_str!(
        "../../../../corpus/liveness/spin-exit-skips-load.litmus"
    ));
    let goto = spin.threads[1]
        .code
        .iter()
        .find(|s| matches!(s.instr, Instr::Goto(_)))
        .expect("a goto")
        .span;
    assert!(!cas_retry_loop_at(&spin, 1, goto));
}
