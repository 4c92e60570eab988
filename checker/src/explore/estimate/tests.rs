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

#[test]
fn an_uneven_tree_is_estimated_within_ten_percent() {
    // counter-7: 7! executions, and more pruned graphs than executions; a
    // plain Knuth walk's counts range over orders of magnitude there. With
    // the look-ahead and importance sampling, every seed lands within 10%.
    let known = exact("counter", 7);
    assert_eq!(known, 5040);
    for seed in 1..=5 {
        let e = estimate("counter", 7, seed);
        let err = (e.total as f64 - known as f64).abs() / known as f64;
        assert!(
            err <= 0.10,
            "counter-7, seed {seed}: {e} ({:.1}% off)",
            err * 100.0
        );
        assert!(e.walks > super::LEARN_WALKS, "seed {seed}: {e}");
    }
}

#[test]
fn scaling_by_a_fraction_keeps_the_expectation() {
    let mut rng = 42;
    // A whole factor, or one within rounding of it, scales exactly.
    assert_eq!(super::walk::scaled(7, 3.0, &mut rng), 21);
    assert_eq!(
        super::walk::scaled(7, 1.0 / (0.9 / 3.0 + 0.1 / 3.0), &mut rng),
        21
    );
    assert_eq!(super::walk::scaled(0, 2.5, &mut rng), 0);
    // 3 * 1.5 = 4.5: 4 or 5, each about half of the time.
    let n = 20_000;
    let draws: Vec<u64> = (0..n)
        .map(|_| super::walk::scaled(3, 1.5, &mut rng))
        .collect();
    assert!(draws.iter().all(|&d| d == 4 || d == 5));
    let mean = draws.iter().sum::<u64>() as f64 / n as f64;
    assert!((mean - 4.5).abs() < 0.02, "mean {mean}");
}

#[test]
fn the_first_walks_only_teach() {
    // readers-6 is uniform: every walk is exact, those that only teach too;
    // the walks made count them.
    let e = estimate("readers", 6, 3);
    assert_eq!(e.total, 64);
    assert!(e.walks >= super::MIN_WALKS, "{e}");
    assert!(e.walks > super::LEARN_WALKS, "{e}");
}
