//! (c) Exploration of each family of `ptxmc_frontend::families` at a fixed N,
//! with both strategies (`ptxmc_checker::check`, parsing excluded), and of
//! growing families against N (group `growth`).
//!
//! `cargo bench -p ptxmc-benches --bench explore -- --warm-up-time 1 --measurement-time 3`
//!
//! Before measuring, each case is checked once with both strategies and the
//! execution counts are printed; a mismatch between strategies is a bug and
//! aborts the run.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use ptxmc_benches::{family_test, options};
use ptxmc_checker::{check, Status, Strategy};

/// (family, N): small enough that one iteration takes well under a second.
const CASES: &[(&str, usize)] = &[
    ("readers", 8),
    ("writers", 3),
    ("weak-writers", 4),
    ("sb", 4),
    ("sb-fence-sc", 3),
    ("iriw", 3),
    ("mp-chain", 4),
    ("2+2w", 4),
    ("counter", 4),
    ("ticket-lock", 2),
    ("cas-lock", 2),
];

fn explore(c: &mut Criterion) {
    let mut g = c.benchmark_group("explore");
    g.sample_size(10);
    for &(name, n) in CASES {
        let test = family_test(name, n);
        let case = format!("{name}-{n}");
        let brute = check(&test, &options(Strategy::Brute, None));
        let dpor = check(&test, &options(Strategy::Dpor, None));
        assert_eq!(brute.status, Status::Ok, "{case} brute");
        assert_eq!(dpor.status, Status::Ok, "{case} dpor");
        assert_eq!(
            (brute.stats.executions, brute.stats.blocked),
            (dpor.stats.executions, dpor.stats.blocked),
            "{case}: the strategies disagree on the executions"
        );
        eprintln!(
            "{case}: {} executions, {} blocked; pruned brute {} dpor {}",
            dpor.stats.executions, dpor.stats.blocked, brute.stats.pruned, dpor.stats.pruned
        );
        for &strategy in Strategy::ALL {
            let opts = options(strategy, None);
            g.bench_with_input(BenchmarkId::new(strategy.name(), &case), &test, |b, t| {
                b.iter(|| check(black_box(t), &opts).stats.executions)
            });
        }
    }
    g.finish();
}

/// (family, sizes DPOR runs, sizes the reference enumerator also runs):
/// growing families, up to sizes where one iteration of the reference
/// enumerator stays near a second (the 60 s runs are `ptxmc bench`'s, in
/// docs/performance.md).
const GROWTH: &[(
    &str,
    std::ops::RangeInclusive<usize>,
    std::ops::RangeInclusive<usize>,
)] = &[
    ("sb", 2..=8, 2..=8),
    ("counter", 2..=8, 2..=6),
    ("cas-lock", 2..=3, 2..=2),
];

/// Explored executions and time against N for both strategies.
fn growth(c: &mut Criterion) {
    let mut g = c.benchmark_group("growth");
    g.sample_size(10);
    for (name, sizes, brute_sizes) in GROWTH {
        for n in sizes.clone() {
            let test = family_test(name, n);
            let case = format!("{name}-{n}");
            let dpor = check(&test, &options(Strategy::Dpor, None));
            assert_eq!(dpor.status, Status::Ok, "{case} dpor");
            eprintln!(
                "{case}: {} executions, {} blocked, {} pruned (dpor)",
                dpor.stats.executions, dpor.stats.blocked, dpor.stats.pruned
            );
            let mut strategies = vec![Strategy::Dpor];
            if brute_sizes.contains(&n) {
                strategies.push(Strategy::Brute);
            }
            for strategy in strategies {
                let label = strategy.name();
                let opts = options(strategy, None);
                g.bench_with_input(BenchmarkId::new(label, &case), &test, |b, t| {
                    b.iter(|| check(black_box(t), &opts).stats.executions)
                });
            }
        }
    }
    g.finish();
}

criterion_group!(benches, explore, growth);
criterion_main!(benches);
