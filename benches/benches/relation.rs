//! (a) Relation primitives: `BitMatrix` over 64, 128 and 256 events, on
//! random sparse relations (2 edges per event, fixed seeds).
//!
//! `cargo bench -p ptxmc-benches --bench relation -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use ptxmc_benches::{random_dag, random_relation};

const SIZES: [usize; 3] = [64, 128, 256];
const DEGREE: usize = 2;

fn relation(c: &mut Criterion) {
    let mut g = c.benchmark_group("relation");
    for n in SIZES {
        let a = random_relation(n, DEGREE, 1);
        let b = random_relation(n, DEGREE, 2);
        let dag = random_dag(n, DEGREE, 3);
        g.bench_with_input(BenchmarkId::new("transitive_closure", n), &a, |bch, a| {
            bch.iter(|| black_box(a).transitive_closure())
        });
        g.bench_with_input(
            BenchmarkId::new("transitive_closure_dag", n),
            &dag,
            |bch, d| bch.iter(|| black_box(d).transitive_closure()),
        );
        g.bench_with_input(BenchmarkId::new("union_with", n), &b, |bch, b| {
            bch.iter_batched_ref(
                || a.clone(),
                |x| x.union_with(black_box(b)),
                BatchSize::SmallInput,
            )
        });
        g.bench_with_input(BenchmarkId::new("compose", n), &b, |bch, b| {
            bch.iter(|| black_box(&a).compose(black_box(b)))
        });
        // Acyclic input: the check visits every event (no early exit).
        g.bench_with_input(BenchmarkId::new("is_acyclic_dag", n), &dag, |bch, d| {
            bch.iter(|| black_box(d).is_acyclic())
        });
        // Random input: cyclic, the check stops at the first cycle.
        g.bench_with_input(BenchmarkId::new("is_acyclic_random", n), &a, |bch, a| {
            bch.iter(|| black_box(a).is_acyclic())
        });
        g.bench_with_input(BenchmarkId::new("find_cycle_random", n), &a, |bch, a| {
            bch.iter(|| black_box(a).find_cycle())
        });
    }
    g.finish();
}

criterion_group!(benches, relation);
criterion_main!(benches);
