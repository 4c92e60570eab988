//! What a run produced for one file ([`Outcome`]) and where a run's time went
//! ([`Phases`]): the values that `run`, the JSON and text writers, the summary
//! and `--split` parts share.

use ptxmc_checker::Report;
use ptxmc_frontend::ir::Test;
use std::path::PathBuf;
use std::time::Duration;

/// What happened to one file.
pub struct Outcome {
    /// The file.
    pub file: PathBuf,
    /// The test name (the file stem when the file did not parse).
    pub name: String,
    /// Result.
    pub kind: OutcomeKind,
}

/// Result of one file.
pub enum OutcomeKind {
    /// The file could not be read or parsed.
    Error {
        /// `parse-error` or `read-error`.
        status: &'static str,
        /// The rendered error (file:line:col, source line, caret).
        message: String,
    },
    /// The test was checked (possibly unsupported/undefined/limit).
    Checked {
        /// The parsed test.
        test: Box<Test>,
        /// The checker's report.
        report: Report,
    },
}

/// Time spent per phase, summed over tests (worker time, not wall time,
/// except `output`, which also counts the printing thread's wall time).
#[derive(Default, Clone, Copy)]
pub struct Phases {
    /// Reading and parsing files.
    pub parse: Duration,
    /// `ptxmc_checker::check`.
    pub check: Duration,
    /// Building JSON records, pictures, printing and writing results.
    pub output: Duration,
}

impl Phases {
    pub(super) fn add(&mut self, o: &Phases) {
        self.parse += o.parse;
        self.check += o.check;
        self.output += o.output;
    }
}
