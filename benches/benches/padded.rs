//! (e) Cost per execution across 64 events: writers-3 and sb-8 padded with
//! private stores, loads or both (`ptxmc_benches::padded`), at sizes around
//! the one-word rows of `model::fast` (61, 66 and about 130 events for
//! writers-3). Issue 14 wants the cost per execution to grow smoothly there.
//!
//! `cargo bench -p ptxmc-benches --bench padded -- --warm-up-time 1 --measurement-time 3`
//!
//! Before measuring, each case is checked once and its executions and pruned
//! graphs are printed; both must be the unpadded family's.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use ptxmc_benches::padded::{padded_test, Pad};
use ptxmc_benches::{family_test, options};
use ptxmc_checker::{check, Status, Strategy};

/// (family, N, padding per thread): writers-3 has 5 threads and 6 other
/// events, sb-8 8 threads and 24.
/// The sizes around the first widening (61 -> 66 and 64 -> 72 events),
/// about 130 events, and the ends of the sweep (no padding; writers-3 with
/// 40 per thread, 211 events).
const CASES: &[(&str, usize, usize)] = &[
    ("writers", 3, 0),
    ("writers", 3, 10),
    ("writers", 3, 11),
    ("writers", 3, 24),
    ("writers", 3, 40),
    ("sb", 8, 0),
    ("sb", 8, 4),
    ("sb", 8, 5),
    ("sb", 8, 13),
];

fn padded(c: &mut Criterion) {
    let mut g = c.benchmark_group("padded");
    g.sample_size(10);
    for &(name, n, pad) in CASES {
        let plain = check(&family_test(name, n), &options(Strategy::Dpor, None));
        for kind in [Pad::Stores, Pad::Loads, Pad::Both] {
            let test = padded_test(name, n, pad, kind);
            let events: usize =
                test.threads.iter().map(|t| t.code.len()).sum::<usize>() + test.n_phys as usize;
            let case = format!("{name}-{n}-pad{pad}-{}", kind.name());
            let r = check(&test, &options(Strategy::Dpor, None));
            assert_eq!(r.status, Status::Ok, "{case}");
            assert_eq!(r.stats.executions, plain.stats.executions, "{case}");
            // (Pruning does not switch off past 64 events.)
            assert_eq!(r.stats.pruned, plain.stats.pruned, "{case}");
            eprintln!(
                "{case}: about {events} events, {} executions, {} pruned",
                r.stats.executions, r.stats.pruned
            );
            let opts = options(Strategy::Dpor, None);
            g.bench_with_input(BenchmarkId::new("dpor", &case), &test, |b, t| {
                b.iter(|| black_box(check(t, &opts)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, padded);
criterion_main!(benches);
