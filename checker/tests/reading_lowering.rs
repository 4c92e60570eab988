//! Each reading of the model (`--model`, `model/reading.rs`) lowered into
//! the interpreter's events, and told apart by a corpus test under every
//! strategy. (Moved out of `model/reading.rs`'s unit tests: they run the
//! interpreter and the explorers, which the model must not import.)

use ptxmc_checker::event::{Event, EventId, EventKind};
use ptxmc_checker::interp::{Next, ThreadCode, ThreadState};
use ptxmc_checker::{Options, Reading, Strategy};
use ptxmc_frontend::ir::{Sem, ThreadId};

/// The events of thread 0 of `src`, built under `reading`, every read
/// reading 0.
fn events(src: &str, reading: Reading) -> Vec<Event> {
    let test = ptxmc_frontend::parse(src).expect("parses");
    let code = ThreadCode::new(&test, ThreadId::new(0))
        .expect("runs")
        .with_reading(reading);
    let mut st = ThreadState::<i64>::new(&code, &test, 2);
    let mut evs = Vec::new();
    while let Next::Event(e) = st.next(&code) {
        let id = EventId::new(evs.len());
        let v = e.is_read().then_some(0);
        evs.push(e);
        st.commit(id, v);
    }
    evs
}

const ONE_OF_EACH: &str = "PTX t\n{ x=0; y=0; }\n P0@cta 0,gpu 0 ;\n fence.sc.gpu ;\n \
    red.relaxed.gpu.add x, 1 ;\n atom.relaxed.gpu.exch r0, y, 1 ;\n \
    atom.relaxed.gpu.add r1, y, 1 ;\nexists (x == 1)\n";

#[test]
fn each_choice_is_lowered_into_the_events() {
    for r in Reading::ALL {
        let evs = events(ONE_OF_EACH, *r);
        // fence.sc, red (read, write), exch (read, write), add (read, write).
        assert_eq!(evs.len(), 7, "{}", r.name);
        let sc_sem = if r.fence_sc_acq_rel {
            Sem::AcqRel
        } else {
            Sem::Relaxed
        };
        assert_eq!(evs[0].sem, sc_sem, "{}", r.name);
        let red = matches!(evs[1].kind, EventKind::Read { red: true, .. });
        assert_eq!(red, r.red_never_acquires, "{}", r.name);
        let exch_dep = evs[4].data_deps.contains(&EventId::new(3));
        assert_eq!(exch_dep, r.exch_write_depends_on_read, "{}", r.name);
        // Every other RMW write depends on its read under every reading.
        assert!(evs[6].data_deps.contains(&EventId::new(5)), "{}", r.name);
        assert!(evs[2].data_deps.contains(&EventId::new(1)), "{}", r.name);
    }
}

/// The corpus tests that tell the readings apart, with the verdict
/// (`condition_holds`) under spec, fence-sc-plain, red-acquires,
/// exch-independent, failed-cas-read, dat3m and host-sys-nonatomic (`docs/model-notes.md`,
/// "Readings").
const TELLERS: [(&str, &str, [bool; 7]); 9] = [
    (
        "readings/MP-fence-sc-release",
        include_str!("../../corpus/readings/MP-fence-sc-release.litmus"),
        [true, false, true, true, true, false, true],
    ),
    (
        "spec/8.11.1-mp-red",
        include_str!("../../corpus/spec/8.11.1-mp-red.litmus"),
        [true, true, false, true, true, false, true],
    ),
    (
        "readings/LB-exch-weak-copy",
        include_str!("../../corpus/readings/LB-exch-weak-copy.litmus"),
        [false, false, false, true, false, true, false],
    ),
    (
        "readings/LB-exch-weak-relay",
        include_str!("../../corpus/readings/LB-exch-weak-relay.litmus"),
        [false, false, false, true, false, true, false],
    ),
    (
        "readings/LB-add-weak-copy",
        include_str!("../../corpus/readings/LB-add-weak-copy.litmus"),
        [false, false, false, false, false, false, false],
    ),
    (
        "readings/cas-fail-writeback-race",
        include_str!("../../corpus/readings/cas-fail-writeback-race.litmus"),
        [true, true, true, true, false, true, true],
    ),
    (
        "readings/LB-cas-fail-relay-weak",
        include_str!("../../corpus/readings/LB-cas-fail-relay-weak.litmus"),
        [true, true, true, true, false, true, true],
    ),
    (
        "readings/LB-cas-fail-relay",
        include_str!("../../corpus/readings/LB-cas-fail-relay.litmus"),
        [false, false, false, false, false, false, false],
    ),
    (
        "readings/host-sys-atomic-add",
        include_str!("../../corpus/readings/host-sys-atomic-add.litmus"),
        [false, false, false, false, false, false, true],
    ),
];

#[test]
fn each_reading_has_a_test_that_tells_it_apart() {
    for (name, src, verdicts) in TELLERS {
        let test = ptxmc_frontend::parse(src).expect("parses");
        for (r, want) in Reading::ALL.iter().zip(verdicts) {
            let mut counts = Vec::new();
            for &strategy in Strategy::ALL {
                let opts = Options {
                    strategy,
                    reading: *r,
                    check_duplicates: true,
                    ..Options::default()
                };
                let rep = ptxmc_checker::check(&test, &opts);
                assert_eq!(rep.status, ptxmc_checker::Status::Ok, "{name} {}", r.name);
                assert_eq!(rep.condition_holds, want, "{name} under {}", r.name);
                assert_eq!(rep.stats.duplicates, 0);
                counts.push((rep.stats.executions, rep.stats.blocked));
            }
            assert!(counts.windows(2).all(|w| w[0] == w[1]), "{name} {counts:?}");
        }
    }
    // Every reading but the default changes some verdict.
    for (i, r) in Reading::ALL.iter().enumerate().skip(1) {
        assert!(
            TELLERS.iter().any(|(_, _, v)| v[i] != v[0]),
            "{} is told apart",
            r.name
        );
    }
}

#[test]
fn a_failed_cas_writes_only_under_the_readings_that_say_so() {
    let src = "PTX t\n{ x=3; }\n P0@cta 0,gpu 0 ;\n atom.relaxed.gpu.cas r0, x, 0, 1 ;\n \
               atom.relaxed.gpu.cas r1, x, 0, 2 ;\nexists (x == 1)\n";
    for r in Reading::ALL {
        // Every read reads 0 here: both CASes succeed, read then write.
        let evs = events(src, *r);
        assert_eq!(evs.len(), 4, "{}", r.name);
    }
    // Reading 3 (the initial value): a failed CAS.
    let test = ptxmc_frontend::parse(src).expect("parses");
    for r in Reading::ALL {
        let code = ThreadCode::new(&test, ThreadId::new(0))
            .expect("runs")
            .with_reading(*r);
        let mut st = ThreadState::<i64>::new(&code, &test, 2);
        let mut kinds = Vec::new();
        while let Next::Event(e) = st.next(&code) {
            let id = EventId::new(kinds.len());
            let is_read = e.is_read();
            kinds.push(e.is_write());
            // The thread knows before the value is given whether the
            // write half follows a read of 3.
            if is_read {
                assert_eq!(st.pending_rmw_writes(Some(&3)), r.failed_cas_writes);
                assert!(st.pending_rmw_writes(Some(&0)));
                assert_eq!(st.pending_rmw_writes(None), r.failed_cas_writes);
            }
            st.commit(id, is_read.then_some(3));
        }
        let want: &[bool] = if r.failed_cas_writes {
            &[false, true, false, true]
        } else {
            &[false, false]
        };
        assert_eq!(kinds, want, "{}", r.name);
    }
}
