//! Unit tests of `explain`: verdicts, reasons, thin air, hangs.

use super::*;
use crate::model::Axiom;
use ptxmc_frontend::parse;

const MP: &str = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.weak r1, x ;\n~exists (1:r0 == 1 /\\ 1:r1 == 0)\n";

#[test]
fn mp_is_forbidden_by_causality() {
    let t = parse(MP).expect("MP parses");
    let ex = explain(&t, &t.condition.prop, &Options::default());
    assert!(ex.forbidden(), "{ex:?}");
    assert_eq!(ex.candidates, 1);
    assert_eq!(ex.reasons.len(), 1);
    let r = &ex.reasons[0].rejections[0];
    assert_eq!(r.violation.axiom, Axiom::Causality);
    assert_eq!(r.steps[0].rel, Rel::Fr);
    assert!(r.steps.iter().any(|s| s.rel == Rel::Sync), "{:?}", r.steps);
    assert!(r.steps.iter().any(|s| s.rel == Rel::Po));
}

#[test]
fn allowed_outcome_has_an_execution() {
    let t = parse(MP).expect("MP parses");
    let p = Prop::True;
    let ex = explain(&t, &p, &Options::default());
    assert!(ex.allowed.is_some());
    assert!(!ex.forbidden());
}

#[test]
fn a_witness_only_when_asked_and_it_decides_the_condition() {
    use crate::report::Strategy;
    let weak = MP
        .replace("acquire", "relaxed")
        .replace("release", "relaxed");
    let forall = MP.replace("~exists (1:r0 == 1 /\\ 1:r1 == 0)", "forall (1:r1 == 1)");
    let cases = [
        (MP.to_string(), None),
        (weak.replace("~exists", "exists"), Some((true, vec![1, 0]))),
        (weak, Some((true, vec![1, 0]))),
        (forall, Some((false, vec![0]))),
    ];
    for (src, want) in cases {
        let t = parse(&src).expect("parses");
        for strategy in [Strategy::Brute, Strategy::Dpor] {
            let plain = crate::check(
                &t,
                &Options {
                    strategy,
                    ..Options::default()
                },
            );
            assert!(plain.witness.is_none());
            let o = Options {
                strategy,
                witness: true,
                ..Options::default()
            };
            let r = crate::check(&t, &o);
            let got = r.witness.as_ref().map(|w| (w.positive, w.state.0.clone()));
            assert_eq!(got, want, "{src} {strategy:?}");
            // Deterministic for a strategy.
            assert_eq!(crate::check(&t, &o).witness, r.witness);
        }
    }
}

#[test]
fn thin_air_candidates_are_reported() {
    let src = "PTX LB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.weak r0, x | ld.weak r1, y ;\n st.weak y, r0 | st.weak x, r1 ;\nexists (x == 1)\n";
    let t = parse(src).expect("LB parses");
    let ex = explain(&t, &t.condition.prop, &Options::default());
    assert!(ex.forbidden(), "{ex:?}");
    let ta = ex.thin_air.expect("a value cycle");
    assert_eq!(ta.count, 1);
    assert_eq!(ta.steps.len(), 4);
}

#[test]
fn reasons_are_grouped_and_counted() {
    // SB with fence.sc: two Fence-SC orders, each rejected by Causality.
    let src = "PTX SB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | st.weak y, 1 ;\n fence.sc.gpu | fence.sc.gpu ;\n ld.weak r0, y | ld.weak r1, x ;\nexists (0:r0 == 0 /\\ 1:r1 == 0)\n";
    let t = parse(src).expect("SB parses");
    let ex = explain(&t, &t.condition.prop, &Options::default());
    assert!(ex.forbidden(), "{ex:?}");
    assert!(ex.reasons_complete);
    assert_eq!(ex.reasons.len(), 1, "{:?}", ex.reasons);
    let r = &ex.reasons[0];
    assert_eq!(r.count, ex.candidates + ex.partial);
    assert_eq!(r.rejections.len(), 2, "one rejection per Fence-SC order");
    assert!(r
        .rejections
        .iter()
        .all(|j| j.violation.axiom == Axiom::Causality));
}

#[test]
fn the_verdict_comes_from_the_check_and_a_hang_is_shown() {
    // P1 spins on a flag nobody sets: a liveness violation (8.6.1).
    let src = "PTX hang\n{ x=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | L: ;\n | ld.relaxed.gpu r0, f ;\n | bne r0, 1, L ;\nexists (x == 1)\n";
    let t = parse(src).expect("parses");
    let ex = explain(&t, &t.condition.prop, &Options::default());
    assert!(ex.liveness_note.is_some(), "{ex:?}");
    let h = ex.hang.as_ref().expect("a blocked execution");
    assert_eq!(h.waits.len(), 2);
    assert_eq!(h.waits[0].kind, WaitKind::Done);
    match &h.waits[1].kind {
        WaitKind::Spin { reads, .. } => {
            assert_eq!(reads.len(), 1);
            let w = reads[0].1.expect("reads a write");
            assert!(h.execution.event(w).is_init(), "reads the initial f=0");
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn a_limit_stops_every_phase() {
    let t = parse(MP).expect("MP parses");
    let o = Options {
        timeout: Some(std::time::Duration::ZERO),
        ..Options::default()
    };
    let ex = explain(&t, &t.condition.prop, &o);
    assert!(
        matches!(ex.status, Status::Limit(_)) || ex.stopped.is_some(),
        "{ex:?}"
    );
}

#[test]
fn a_double_checked_init_gets_every_reason_quickly() {
    let src = include_str!("../../../corpus/idioms/dcl-init.litmus");
    let t = parse(src).expect("dcl-init parses");
    let outcome = Prop::Not(Box::new(t.condition.prop.clone()));
    let start = std::time::Instant::now();
    let ex = explain(&t, &outcome, &Options::default());
    assert!(ex.forbidden(), "{ex:?}");
    assert!(ex.reasons_complete, "{:?}", ex.stopped);
    assert!(ex.stopped.is_none());
    // A reader of the flag synchronizes with the initializer (8.8, 8.9.4).
    assert!(ex.reasons.iter().any(|r| r.rejections.iter().any(|j| {
        j.violation.axiom == Axiom::Causality && j.steps.iter().any(|s| s.rel == Rel::Sync)
    })));
    // Counts add up: every graph is in exactly one reason.
    let total: u64 = ex.reasons.iter().map(|r| r.count).sum();
    assert_eq!(total, ex.candidates + ex.partial);
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}
