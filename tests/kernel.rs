//! End-to-end tests of kernel mode (`docs/cli/kernel.md`): `ptxmc run` on
//! launch descriptions, with both strategies, and errors at `file:line:col`.

mod common;
use common::*;

#[test]
fn kernels_get_their_verdicts_with_both_strategies() {
    for strategy in ["dpor", "brute"] {
        let o = ptxmc(&[
            "run",
            "corpus/kernels",
            "--strategy",
            strategy,
            "--expect",
            "corpus/expected.csv",
            "--expect",
            "corpus/expected-Liveness.csv",
        ]);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
        assert!(out.contains("Summary: 3 tests: 3 ok"), "{out}");
        assert!(
            out.contains("Observation mp-threadfence Always 1 0"),
            "{out}"
        );
        assert!(
            out.contains("Observation mp-relaxed-flag Sometimes 1 1"),
            "{out}"
        );
        assert!(out.contains("expectations: matched 6 of 6"), "{out}");
    }
}

#[test]
fn a_bad_launch_is_an_error_at_the_ptx_position() {
    let d = scratch("kernel-bad");
    std::fs::write(
        d.join("k.ptx"),
        ".version 8.0\n.visible .entry k()\n{\n\tld.global.u32 \t%r1, [%rd9];\n\tret;\n}\n",
    )
    .expect("scratch file");
    std::fs::write(
        d.join("k.launch"),
        "KERNEL k\nmodule k.ptx\nexists (x == 0)\n",
    )
    .expect("scratch file");
    let o = ptxmc(&["run", d.join("k.launch").to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        all.contains("k.ptx:4:22: cannot resolve the address `[%rd9]`"),
        "{all}"
    );
}
