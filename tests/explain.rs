//! End-to-end tests of `ptxmc explain`.

mod common;
use common::*;

#[test]
fn explain_names_causality_and_prints_the_cycle_for_mp() {
    let o = ptxmc(&["explain", "corpus/spec/8.10.6-mp.litmus"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Forbidden: no consistent execution"), "{out}");
    assert!(
        out.contains("Reason 1 (rules out 1 candidate execution)"),
        "{out}"
    );
    assert!(out.contains("Causality (8.10.6): R P1:2"), "{out}");
    assert!(out.contains("reads from W0 (data=0)"), "{out}");
    assert!(
        out.contains("cycle: P1:2 -fr-> P0:0 -po-> P0:1 -sync-> P1:1 -po-> P1:2"),
        "{out}"
    );
    assert!(out.contains("synchronizes with"), "{out}");
}

#[test]
fn explain_takes_an_outcome_and_says_allowed_or_forbidden() {
    let dir = scratch("explain-outcome");
    let ra = dir.join("mp-ra.litmus");
    let weak = dir.join("mp-weak.litmus");
    std::fs::write(&ra, MP_RA).expect("write");
    std::fs::write(&weak, MP_WEAK).expect("write");
    let o = ptxmc(&["explain", s(&ra), "--outcome", "P1:r0 == 1 /\\ P1:r1 == 0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Causality (8.10.6)"), "{out}");
    assert!(
        out.contains("P0:0 -po-> P0:1 st.release.gpu y -sync-> P1:0 ld.acquire.gpu y -po-> P1:1"),
        "{out}"
    );
    // The same outcome without release/acquire is allowed.
    let o = ptxmc(&["explain", s(&weak)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Allowed"), "{out}");
    assert!(
        out.contains("P1:1 ld.weak x reads x=0 from the initial write W0"),
        "{out}"
    );
    // An outcome no execution can even produce.
    let o = ptxmc(&["explain", s(&weak), "--outcome", "1:r0 == 7"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("No candidate execution gives this outcome"),
        "{}",
        stdout(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_covers_fence_sc_choices_and_thin_air() {
    let o = ptxmc(&["explain", "corpus/spec/8.10.6-sb-fence-sc.litmus"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("with Fence-SC order P0:1 < P1:1"), "{out}");
    assert!(out.contains("with Fence-SC order P1:1 < P0:1"), "{out}");
    let o = ptxmc(&["explain", "corpus/spec/8.10.4-lb-deps.litmus"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("No-Thin-Air (8.10.4)"), "{out}");
    assert!(out.contains("-data->") && out.contains("-rf->"), "{out}");
}

#[test]
fn explain_errors_exit_2() {
    let o = ptxmc(&["explain", "no/such/file.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/file.litmus"), "{}", stderr(&o));
    let o = ptxmc(&["explain"]);
    assert_eq!(o.status.code(), Some(2));
    let o = ptxmc(&["explain", "--no-such-flag", "corpus/spec/8.10.6-mp.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--no-such-flag"));
    for bad in ["P7:r0 == 1", "1:r0 ==", "nowhere == 1", "(1:r0 == 1"] {
        let o = ptxmc(&["explain", "corpus/spec/8.10.6-mp.litmus", "--outcome", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("--outcome"), "{}", stderr(&o));
    }
    let dir = scratch("explain-bad");
    let f = dir.join("broken.litmus");
    std::fs::write(&f, "PTX broken\n{ x=0; \n").expect("write");
    let o = ptxmc(&["explain", s(&f)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("broken.litmus:"), "{}", stderr(&o));
    let o = ptxmc(&["explain", "corpus/spec/8.10.6-mp.litmus", "--timeout", "-1"]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
