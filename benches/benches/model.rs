//! (b) One consistency check: `ptxmc_checker::model::check` on candidate
//! executions built by hand (`ptxmc_benches::ExecBuilder`), consistent and
//! inconsistent ones.
//!
//! `cargo bench -p ptxmc-benches --bench model -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use ptxmc_benches::{mp_violation_execution, sb_ring_execution, writers_execution};
use ptxmc_checker::execution::Execution;
use ptxmc_checker::model;

fn consistency(c: &mut Criterion) {
    let mut cases: Vec<(String, Execution, bool)> = Vec::new();
    for n in [2, 4, 8, 16] {
        cases.push((format!("sb-ring-{n}"), sb_ring_execution(n), true));
    }
    for n in [4, 12] {
        cases.push((format!("writers-{n}"), writers_execution(n), true));
    }
    cases.push(("mp-violation".into(), mp_violation_execution(), false));
    let mut g = c.benchmark_group("model_check");
    for (name, exec, consistent) in &cases {
        assert_eq!(model::check(exec).is_ok(), *consistent, "{name}");
        eprintln!("{name}: {} events, consistent: {consistent}", exec.len());
        g.bench_with_input(BenchmarkId::new("check", name), exec, |b, e| {
            b.iter(|| model::check(black_box(e)).is_ok())
        });
    }
    g.finish();
}

criterion_group!(benches, consistency);
criterion_main!(benches);
