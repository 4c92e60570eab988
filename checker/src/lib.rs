//! ptxmc's checker: the PTX memory consistency model (chapter 8 of the PTX ISA
//! 9.4 manual) and the explorers that enumerate the executions of a litmus
//! test. No I/O: the CLI reads files and prints reports.
//!
//! Flow: [`interp`] runs each thread's IR and produces [`event::Event`]s;
//! an explorer ([`explore`]) builds candidate [`execution::Execution`]s;
//! [`model::check`] decides consistency; the explorer folds the consistent,
//! terminating executions into a [`report::Report`]. [`explain()`] tells
//! why an outcome is forbidden (the axiom and its witness cycle), or which
//! execution allows it.

mod api;
pub mod event;
pub mod execution;
pub mod explain;
pub mod explore;
mod host_rmw;
pub mod interp;
mod interrupt;
pub mod model;
pub mod relation;
pub mod report;
mod sizes;
mod stack;
mod terms;
mod wgmma;

pub use explain::{explain, Explanation};
pub use explore::check;
pub use explore::strategy::UnknownStrategy;
pub use model::reading::{Reading, UnknownReading};
pub use report::{BlockReason, FinalState, Options, Report, Stats, Status, Strategy, Witness};
