//! End-to-end checks through the parser: closed-form execution counts,
//! existential choices, RMW values, final states with racing writes, vector
//! and mixed-size accesses, barriers, liveness, limits and unsupported input.

use ptxmc_checker::{check, Options, Report, Status, Strategy};
use std::time::Duration;

fn opts() -> Options {
    Options {
        strategy: Strategy::Brute,
        check_duplicates: true,
        ..Options::default()
    }
}

fn run_with(src: &str, o: &Options) -> Report {
    let test = match ptxmc_frontend::parse(src) {
        Ok(t) => t,
        Err(e) => panic!("parse error {e} in\n{src}"),
    };
    let r = check(&test, o);
    assert_eq!(r.stats.duplicates, 0, "{r:?}");
    r
}

fn run(src: &str) -> Report {
    let r = run_with(src, &opts());
    assert_eq!(r.status, Status::Ok, "{r:?}");
    r
}

/// A test with one thread per column (all in CTA 0 of GPU 0), one instruction per row.
fn litmus(init: &str, columns: &[&[&str]], tail: &str) -> String {
    let rows = columns.iter().map(|c| c.len()).max().unwrap_or(0);
    let mut s = format!("PTX t\n{{\n{init}\n}}\n");
    let header: Vec<String> = (0..columns.len())
        .map(|i| format!("P{i}@cta 0,gpu 0"))
        .collect();
    s += &format!("{} ;\n", header.join(" | "));
    for r in 0..rows {
        let cells: Vec<&str> = columns
            .iter()
            .map(|c| c.get(r).copied().unwrap_or(""))
            .collect();
        s += &format!("{} ;\n", cells.join(" | "));
    }
    s + tail + "\n"
}

#[test]
fn closed_form_counts() {
    // N + 1 morally strong writers and one reader: (N + 1)! x (N + 2).
    let writes = [
        "st.relaxed.gpu x, 1",
        "st.relaxed.gpu x, 2",
        "st.relaxed.gpu x, 3",
    ];
    for n in 0..3 {
        let mut cols: Vec<&[&str]> = writes[..=n].iter().map(std::slice::from_ref).collect();
        let reader = ["ld.relaxed.gpu r0, x"];
        cols.push(&reader);
        let r = run(&litmus("x=0;", &cols, "exists (x == 0)"));
        let fact: u64 = (1..=(n as u64 + 1)).product();
        assert_eq!(r.stats.executions, fact * (n as u64 + 2), "n = {n}");
        assert!(!r.condition_holds);
    }
    // readers-N: 2^N.
    for n in 1..4 {
        let w = ["st.relaxed.gpu x, 1"];
        let rd = ["ld.relaxed.gpu r0, x"];
        let mut cols: Vec<&[&str]> = vec![&w];
        cols.extend((0..n).map(|_| &rd[..]));
        let r = run(&litmus("x=0;", &cols, "exists (x == 1)"));
        assert_eq!(r.stats.executions, 1 << n);
    }
}

#[test]
fn fence_sc_order_is_existential() {
    let sb = |f: &str| {
        litmus(
            "x=0; y=0;",
            &[
                &["st.relaxed.gpu x, 1", f, "ld.relaxed.gpu r0, y"],
                &["st.relaxed.gpu y, 1", f, "ld.relaxed.gpu r0, x"],
            ],
            "exists (P0:r0 == 0 /\\ P1:r0 == 0)",
        )
    };
    let r = run(&sb("fence.sc.gpu"));
    assert_eq!(r.stats.executions, 3);
    assert!(!r.condition_holds);
    let r = run(&sb("fence.acq_rel.gpu"));
    assert_eq!(r.stats.executions, 4);
    assert!(r.condition_holds);
}

#[test]
fn rmw_values() {
    // atom.inc wraps at its operand; cas writes only when the compare matches.
    let r = run(&litmus(
        "x=1;",
        &[
            &["atom.relaxed.gpu.inc r0, x, 1"],
            &["atom.relaxed.gpu.cas r1, x, 0, 5"],
        ],
        "locations [x;] exists (x == 5)",
    ));
    let mut states: Vec<Vec<i64>> = r.states.iter().map(|(s, _)| s.0.clone()).collect();
    states.sort();
    // inc then cas: 1 -> 0 -> 5 (r0 = 1, r1 = 0); cas then inc: cas fails (r1 = 1), 1 -> 0.
    assert_eq!(states, vec![vec![0], vec![5]]);
    assert!(r.condition_holds);
    assert_eq!(r.stats.executions, 2);

    let r = run(&litmus(
        "x=0;",
        &[&["atom.relaxed.gpu.exch r0, x, 3", "red.relaxed.gpu.add x, 4"]],
        "forall (x == 7 /\\ P0:r0 == 0)",
    ));
    assert!(r.condition_holds, "{r:?}");
}

#[test]
fn racing_writes_give_several_final_states() {
    // Two weak writes race: coherence leaves them unordered, so either can be
    // last. One execution, two outcomes.
    let r = run(&litmus(
        "x=0;",
        &[&["st.weak x, 1"], &["st.weak x, 2"]],
        "exists (x == 1)",
    ));
    assert_eq!(r.stats.executions, 1);
    assert_eq!((r.positive, r.negative), (1, 1));
    assert_eq!(r.states.len(), 2);
    // Morally strong writes are ordered: two executions, one final state each.
    let r = run(&litmus(
        "x=0;",
        &[&["st.relaxed.gpu x, 1"], &["st.relaxed.gpu x, 2"]],
        "exists (x == 1)",
    ));
    assert_eq!(r.stats.executions, 2);
    assert_eq!((r.positive, r.negative), (1, 1));
}

#[test]
fn filter_excludes_outcomes() {
    let r = run(&litmus(
        "x=0; y=0;",
        &[
            &["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 1"],
            &["ld.relaxed.gpu r0, y", "ld.relaxed.gpu r1, x"],
        ],
        "filter (P1:r0 == 1) exists (P1:r1 == 0)",
    ));
    // Four executions; the two where P1 reads y == 1 pass the filter.
    assert_eq!(r.stats.executions, 4);
    assert!(r.condition_holds);
    assert_eq!((r.positive, r.negative), (1, 1));
}

#[test]
fn vector_accesses_are_split() {
    let src = "PTX vec\n{\nx=0;\n}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
               st.relaxed.gpu.global.v2.u32 [x], {1, 2}; | ld.relaxed.gpu.global.v2.u32 {%r0, %r1}, [x]; ;\n\
               exists (P1:r0 == 2 /\\ P1:r1 == 1)\n";
    let r = run(src);
    // Element k is bytes 4k..4k+4 of x (8.2.4): the load's first element never reads
    // the store's second one.
    assert!(!r.condition_holds, "{r:?}");
}

#[test]
fn unsupported_input_is_reported() {
    let src = "PTX mixed\n{\nx=0;\n}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
               ld.global.u32 %r0, [x]; | st.global.u64 [x], 1; ;\n\
               exists (P0:r0 == 1)\n";
    // A u32 load racing with a u64 store of the same bytes: a mixed-size data race (8.7.2).
    let r = run_with(src, &opts());
    match &r.status {
        Status::Undefined(m) => assert!(m.starts_with("mixed-size data race on x"), "{m}"),
        s => panic!("{s:?}"),
    }
    // A dialect (untyped) access next to a typed one has no width to compare.
    let src = "PTX mixed\n{\nx=0;\n}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
               ld.global.u32 %r0, [x]; | st.weak x, 1; ;\n\
               exists (P0:r0 == 1)\n";
    let r = run_with(src, &opts());
    match &r.status {
        Status::Unsupported(m) => assert!(m.starts_with("mixed-size accesses to x at"), "{m}"),
        s => panic!("{s:?}"),
    }
    let src = "PTX mbar\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n mbarrier.init.shared.b64 [x], 1; ;\n\
               exists (x == 0)\n";
    let test = ptxmc_frontend::parse(src).expect("parses");
    if !test.unsupported.is_empty() {
        let r = check(&test, &opts());
        assert!(matches!(r.status, Status::Unsupported(_)), "{r:?}");
    }
}

#[test]
fn barriers_with_register_ids_and_counts() {
    // P0's barrier id comes from memory: with id 1 it meets P1's barrier.
    let src = litmus(
        "x=0; y=0; z=0;",
        &[
            &[
                "st.weak x, 1",
                "ld.weak r2, z",
                "bar.cta.sync 1, r2",
                "ld.weak r0, y",
            ],
            &["st.weak y, 1", "bar.cta.sync 1, 1", "ld.weak r1, x"],
            &["st.weak z, 1"],
        ],
        "exists (P0:r2 == 1 /\\ P0:r0 == 0 /\\ P1:r1 == 0)",
    );
    assert!(!run(&src).condition_holds);
    // A count larger than the arrivals blocks forever.
    let r = run(&litmus(
        "x=0;",
        &[&["bar.cta.sync 1, 0, 3"], &["bar.cta.sync 1, 0, 3"]],
        "exists (x == 0)",
    ));
    assert!(!r.liveness_holds);
    assert_eq!(r.stats.executions, 0);
    assert_eq!(
        r.liveness_note.as_deref(),
        Some("P0 waits forever at barrier 6:1 (2 of 3 threads arrive)")
    );
}

#[test]
fn spin_loops_and_bounds() {
    // A weak flag: the reader may keep reading its stale value forever.
    let spin = |sem: &str| {
        litmus(
            "x=0;",
            &[
                &[&format!("st.{sem} x, 1")],
                &["LC00:", &format!("ld.{sem} r0, x"), "beq r0, 0, LC00"],
            ],
            "exists (P1:r0 == 1)",
        )
    };
    let r = run(&spin("relaxed.gpu"));
    assert!(r.liveness_holds && r.condition_holds, "{r:?}");
    assert_eq!(r.stats.executions, 1);
    // A weak write is not bound to become visible to a weak read (8.6.1 only
    // promises it for strong modifications seen by strong accesses).
    let r = run(&spin("weak"));
    assert!(
        !r.liveness_holds && r.condition_holds,
        "a weak reader may spin forever: {r:?}"
    );
    assert_eq!(r.stats.executions, 1);
    // A loop with a side effect is unrolled, and the cut is reported.
    let r = run(&litmus(
        "x=0;",
        &[&["LC00:", "atom.relaxed.gpu.exch r0, x, 0", "beq r0, 0, LC00"]],
        "exists (P0:r0 == 1)",
    ));
    assert_eq!(r.stats.bound_hits, 1);
    assert!(r.liveness_note.is_some_and(|n| n.contains("loop bound")));
}

#[test]
fn limits_are_reported() {
    let src = litmus(
        "x=0;",
        &[
            &["st.relaxed.gpu x, 1"],
            &["st.relaxed.gpu x, 2"],
            &["ld.relaxed.gpu r0, x"],
        ],
        "exists (x == 0)",
    );
    let o = Options {
        max_executions: Some(3),
        ..opts()
    };
    let r = run_with(&src, &o);
    assert!(matches!(r.status, Status::Limit(_)), "{r:?}");
    // Stopped at the first execution past the bound.
    assert_eq!(r.stats.executions, 4);
    // Six executions: a bound of 5 is passed, a bound of exactly 6 is not
    // (the test is checked to the end).
    let o = Options {
        max_executions: Some(5),
        ..opts()
    };
    assert!(matches!(run_with(&src, &o).status, Status::Limit(_)));
    for m in [6, 7] {
        let o = Options {
            max_executions: Some(m),
            ..opts()
        };
        let r = run_with(&src, &o);
        assert_eq!(r.status, Status::Ok, "--max-executions {m}");
        assert_eq!(r.stats.executions, 6);
    }
    let o = Options {
        timeout: Some(Duration::ZERO),
        ..opts()
    };
    assert!(matches!(run_with(&src, &o).status, Status::Limit(_)));
}
