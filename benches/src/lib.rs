//! Benchmarks of ptxmc (criterion); see `benches/`.
