//! The estimator on families whose counts are known.

use crate::report::{Options, Status, Strategy};

fn family(name: &str, n: usize) -> ptxmc_frontend::ir::Test {
    let src = ptxmc_frontend::families::generate(name, n, "gpu").expect("a family");
    ptxmc_frontend::parse(&src).expect("parses")
}

fn estimate(name: &str, n: usize, seed: u64) -> super::Estimate {
    let opts = Options {
        strategy: Strategy::Estimate,
        seed,
        ..Options::default()
    };
    let r = crate::explore::check(&family(name, n), &opts);
    match r.status {
        Status::Estimate(e) => *e,
        other => panic!("{name}-{n}: {other:?}"),
    }
}

fn exact(name: &str, n: usize) -> u64 {
    let r = crate::explore::check(&family(name, n), &Options::default());
    assert_eq!(r.status, Status::Ok);
    r.stats.executions + r.stats.blocked
}

#[test]
fn a_uniform_tree_is_counted_exactly() {
    // readers-N: every reader reads the initial value or the one write.
    for n in 1..=6 {
        let e = estimate("readers", n, 1);
        assert_eq!(e.total, 1 << n, "readers-{n}");
        assert_eq!(
            (e.total_low, e.total_high),
            (e.total, e.total),
            "readers-{n}"
        );
        assert_eq!(e.blocked, 0);
    }
}

#[test]
fn known_counts_lie_in_the_interval() {
    let fact = |n: u64| (1..=n).product::<u64>();
    let cases = [
        // writers-N: (N+1)!(N+2).
        ("writers", 3, fact(4) * 5),
        ("writers", 4, fact(5) * 6),
        // counter-N: N!.
        ("counter", 4, fact(4)),
        ("counter", 5, fact(5)),
    ];
    for (name, n, known) in cases {
        assert_eq!(exact(name, n), known, "{name}-{n} exact");
        let e = estimate(name, n, super::DEFAULT_SEED);
        assert!(
            e.total_low <= known && known <= e.total_high,
            "{name}-{n}: {known} not in {e}"
        );
        assert!(e.walks >= super::MIN_WALKS);
    }
}

#[test]
fn the_seed_decides_the_estimate() {
    let a = estimate("counter", 5, 7);
    let b = estimate("counter", 5, 7);
    assert_eq!(
        (a.total, a.total_low, a.total_high, a.walks),
        (b.total, b.total_low, b.total_high, b.walks)
    );
    assert_eq!(a.seed, 7);
}

#[test]
fn an_estimate_is_no_verdict() {
    let r = crate::explore::check(
        &family("writers", 3),
        &Options {
            strategy: Strategy::Estimate,
            ..Options::default()
        },
    );
    assert_eq!(r.status.name(), "estimate");
    assert!(r.states.is_empty(), "no final states of an estimate");
    assert!(r.status.message().is_some_and(|m| m.contains("about")));
}
