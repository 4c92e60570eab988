//! ptxmc's checker: the PTX memory consistency model (chapter 8 of the PTX ISA
//! 9.4 manual) and the explorers that enumerate the executions of a litmus
//! test. No I/O: the CLI reads files and prints reports.
//!
//! Flow: [`interp`] runs each thread's IR and produces [`event::Event`]s;
//! an explorer ([`explore`]) builds candidate [`execution::Execution`]s;
//! [`model::check`] decides consistency; the explorer folds the consistent,
//! terminating executions into a [`report::Report`].

pub mod event;
pub mod execution;
pub mod explore;
pub mod interp;
pub mod model;
pub mod relation;
pub mod report;

pub use explore::check;
pub use report::{BlockReason, FinalState, Options, Report, Stats, Status, Strategy};
