//! The classic shapes as predefined cycles.

use super::cycle::{parse_cycle, Cycle};
use std::sync::OnceLock;

/// The classic shapes: name, cycle (whose last edge ends a thread, so thread
/// 0 starts at the cycle's first event), one-line description.
pub const SHAPES: &[(&str, &str, &str)] = &[
    (
        "MP",
        "PodWW Rfe PodRR Fre",
        "message passing: W x; W y | R y; R x",
    ),
    (
        "SB",
        "PodWR Fre PodWR Fre",
        "store buffering: W x; R y | W y; R x",
    ),
    (
        "LB",
        "PodRW Rfe PodRW Rfe",
        "load buffering: R x; W y | R y; W x",
    ),
    (
        "IRIW",
        "Rfe PodRR Fre Rfe PodRR Fre",
        "independent reads of independent writes: W x | R x; R y | W y | R y; R x",
    ),
    (
        "WRC",
        "Rfe PodRW Rfe PodRR Fre",
        "write-to-read causality: W x | R x; W y | R y; R x",
    ),
    (
        "ISA2",
        "PodWW Rfe PodRW Rfe PodRR Fre",
        "MP through a middle thread: W x; W y | R y; W z | R z; R x",
    ),
    (
        "RWC",
        "Rfe PodRR Fre PodWR Fre",
        "read-to-write causality: W x | R x; R y | W y; R x",
    ),
    (
        "2+2W",
        "PodWW Wse PodWW Wse",
        "two writers in opposite orders: W x; W y | W y; W x",
    ),
    ("R", "PodWW Wse PodWR Fre", "W x; W y | W y; R x"),
    ("S", "PodWW Rfe PodRW Wse", "W x; W y | R y; W x"),
    (
        "CoRR",
        "Rfe PosRR Fre",
        "coherence of two reads: W x | R x; R x",
    ),
    (
        "CoWR",
        "PosWR Fre Wse",
        "coherence of a write and a later read: W x; R x | W x",
    ),
    (
        "CoRW",
        "Rfe PosRW Wse",
        "coherence of a read and a later write (CoRW2): W x | R x; W x",
    ),
    (
        "CoWW",
        "PosWW Wsi",
        "coherence of two writes of one thread: W x; W x",
    ),
    (
        "CoRW1",
        "PosRW Rfi",
        "a read cannot see its own thread's later write: R x; W x",
    ),
    (
        "CoWR0",
        "PosWR Fri",
        "a read cannot miss its own thread's earlier write: W x; R x",
    ),
];

/// The shape keys (`Edge::shape_key`) of every shape, parsed once.
pub(crate) fn shape_keys() -> &'static [(&'static str, Vec<String>)] {
    static KEYS: OnceLock<Vec<(&'static str, Vec<String>)>> = OnceLock::new();
    KEYS.get_or_init(|| {
        SHAPES
            .iter()
            .filter_map(|(name, cycle, _)| {
                let c = parse_cycle(cycle).ok()?.into_iter().next()?;
                Some((*name, c.edges.iter().map(|e| e.shape_key()).collect()))
            })
            .collect()
    })
}

/// The cycle of a classic shape (names are matched case-insensitively).
pub fn shape(name: &str) -> Option<(&'static str, Cycle)> {
    let (n, c, _) = SHAPES.iter().find(|s| s.0.eq_ignore_ascii_case(name))?;
    let cycle = parse_cycle(c).ok()?.into_iter().next()?;
    Some((n, cycle))
}
