//! Command-line interface: flags, subcommands, exit codes (0 ok, 1 expectation
//! mismatch or differing results, 2 bad usage or input).

mod args;
mod bench_cmd;
mod bench_one;
mod bench_table;
mod collect;
mod compare_cmd;
mod crash;
mod estimate_view;
mod expect;
mod explain_cmd;
mod explain_words;
mod family_cmd;
mod gen_cmd;
mod genmc;
mod graph;
mod herd;
mod json;
mod kernel_cmd;
mod label;
mod limits;
mod long_run;
mod merge_cmd;
mod models_cmd;
mod outcome;
mod parse_cmd;
mod progress;
mod prop;
mod result_lines;
mod results;
mod run_cmd;
mod sink;
mod split_parts;
mod stats;
mod svg;
mod totals;

use clap::Parser;
use std::process::ExitCode;

pub use args::{Args, Command};

/// Exit code for success.
pub const EXIT_OK: u8 = 0;
/// Exit code when results differ from expectations.
pub const EXIT_MISMATCH: u8 = 1;
/// Exit code for bad usage, unreadable files, or tests that failed to parse.
pub const EXIT_ERROR: u8 = 2;

/// Parses the command line and runs the subcommand.
pub fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            // clap prints help/version to stdout with exit 0, errors to stderr with exit 2.
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let code = match args.command {
        Command::Parse(p) => parse_cmd::run(&p),
        Command::Run(r) => run_cmd::run(&r),
        Command::Family(f) => family_cmd::run(&f),
        Command::Gen(g) => gen_cmd::run(&g),
        Command::Explain(e) => explain_cmd::run(&e),
        Command::Merge(m) => merge_cmd::run(&m),
        Command::Compare(c) => compare_cmd::run(&c),
        Command::Bench(b) => bench_cmd::run(&b),
        Command::BenchOne(b) => bench_one::run_one(&b),
        Command::Models => models_cmd::list(),
    };
    ExitCode::from(code)
}
