//! Inputs whose size makes recursion deep: every explorer must end with a
//! verdict or a `limit` status, never a stack overflow (issue 14, item 3).
//!
//! Each check runs on a thread with a 256 KiB stack, far less than the
//! explorers' recursion needs at these sizes, and with a short time limit, so
//! the whole file takes a few seconds in release. A stack overflow aborts
//! the test binary (the failure this guards against).

use ptxmc_checker::{check, Options, Report, Strategy};
use std::time::Duration;

/// Checks `src` with `strategy` on a thread with a small stack.
fn check_small_stack(src: &str, strategy: Strategy, unroll: u32, timeout_ms: u64) -> Report {
    let test = ptxmc_frontend::parse(src).expect("parses");
    let opts = Options {
        strategy,
        unroll,
        timeout: Some(Duration::from_millis(timeout_ms)),
        ..Options::default()
    };
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || check(&test, &opts))
        .expect("a thread")
        .join()
        .expect("the check returns")
}

/// `ok` or `limit`: a verdict or a limit reached, nothing else.
fn ends(r: &Report, what: &str) {
    let name = r.status.name();
    assert!(name == "ok" || name == "limit", "{what}: status {name}");
}

/// Two threads; the first runs `body` (one instruction per line) between a
/// store of `x` and a load of `y`, the second the mirror image on `b`.
fn two_threads(name: &str, per_thread: usize, line: &dyn Fn(usize, &str) -> String) -> String {
    let mut rows = vec!["st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1".to_string()];
    for i in 0..per_thread {
        rows.push(format!("{} | {}", line(i, "a"), line(i, "b")));
    }
    rows.push("ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x".into());
    format!(
        "PTX {name}\n{{ x=0; y=0; a=0; b=0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n {} ;\nexists (0:r0 == 0 /\\ 1:r0 == 0)\n",
        rows.join(" ;\n ")
    )
}

/// The shared reproducer of the overflow: a four-instruction loop unrolled
/// 1,000 times (4,000 events on one thread).
#[test]
fn loop_unrolled_a_thousand_times() {
    let src = "PTX UL\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | st.weak x, 1 ;\n ld.weak r0, y |  ;\n add r1, r1, 1 |  ;\n bne r0, 1, LC00 |  ;\nexists (x == 1)\n";
    // The reference enumerator's consistency checks cost a second and a GiB
    // at 4,000 events: it runs the loop 175 times only.
    for (strategy, unroll) in [
        (Strategy::Dpor, 175),
        (Strategy::Dpor, 1000),
        (Strategy::Brute, 175),
    ] {
        let r = check_small_stack(src, strategy, unroll, 1000);
        ends(&r, &format!("{strategy:?} --unroll {unroll}"));
    }
}

/// 1,000 threads, each storing to its own location and loading it back.
#[test]
fn a_thousand_threads() {
    let n = 1000;
    let header: Vec<String> = (0..n).map(|i| format!("P{i}@cta {i},gpu 0")).collect();
    let init: Vec<String> = (0..n).map(|i| format!("v{i}=0;")).collect();
    let st: Vec<String> = (0..n).map(|i| format!("st.weak v{i}, 1")).collect();
    let ld: Vec<String> = (0..n).map(|i| format!("ld.weak r0, v{i}")).collect();
    let src = format!(
        "PTX T1000\n{{ {} }}\n {} ;\n {} ;\n {} ;\nexists (0:r0 == 0)\n",
        init.join(" "),
        header.join(" | "),
        st.join(" | "),
        ld.join(" | ")
    );
    for strategy in [Strategy::Dpor, Strategy::Brute] {
        let r = check_small_stack(&src, strategy, 2, 1000);
        ends(&r, &format!("{strategy:?}"));
    }
}

/// 10,000 events: two threads of 5,000 stores to a private location each,
/// or alternating stores and loads of it.
#[test]
fn ten_thousand_events() {
    let stores = two_threads("E10000", 5000, &|i, loc| {
        format!("st.weak {loc}, {}", i % 7)
    });
    let mixed = two_threads("M10000", 5000, &|i, loc| match i % 2 {
        0 => format!("st.weak {loc}, {}", i % 7),
        _ => format!("ld.weak r1, {loc}"),
    });
    for src in [&stores, &mixed] {
        let r = check_small_stack(src, Strategy::Dpor, 2, 1000);
        ends(&r, "dpor");
    }
    // One consistency check of the reference enumerator costs a few seconds
    // at 10,000 events: 2,000 keep the test short.
    let small = two_threads("E2000", 1000, &|i, loc| format!("st.weak {loc}, {}", i % 7));
    ends(
        &check_small_stack(&small, Strategy::Brute, 2, 1000),
        "brute",
    );
}

/// A thread alternating stores and loads of a private location (each load
/// reads the store before it, 8.10.6), 200 events: the value domain and the
/// search handle it (the domain gave up at 111 events, and every load
/// branched over every earlier store).
#[test]
fn private_store_load_alternation() {
    let src = two_threads("M200", 100, &|i, loc| match i % 2 {
        0 => format!("st.weak {loc}, {}", i % 7),
        _ => format!("ld.weak r1, {loc}"),
    });
    let r = check_small_stack(&src, Strategy::Dpor, 2, 20_000);
    assert_eq!(r.status.name(), "ok");
    assert_eq!(r.stats.executions, 4);
    assert!(r.stats.pruned <= 10, "{} pruned", r.stats.pruned);
}

/// A symbolic value nested 10,000 deep (the reference enumerator keeps
/// register arithmetic as expressions over the values read).
#[test]
fn a_deep_chain_of_register_arithmetic() {
    let mut rows = vec!["ld.relaxed.gpu r1, x | st.relaxed.gpu x, 1".to_string()];
    for _ in 0..10_000 {
        rows.push("add r1, r1, 1 | ".into());
    }
    rows.push("st.relaxed.gpu y, r1 | ".into());
    let src = format!(
        "PTX CHAIN\n{{ x=0; y=0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n {} ;\nexists (y == 10001)\n",
        rows.join(" ;\n ")
    );
    for strategy in [Strategy::Dpor, Strategy::Brute] {
        let r = check_small_stack(&src, strategy, 2, 2000);
        assert_eq!(r.status.name(), "ok", "{strategy:?}");
        assert_eq!(r.stats.executions, 2, "{strategy:?}");
    }
}
