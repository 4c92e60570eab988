//! `ptxmc`: check PTX litmus tests against the PTX memory consistency model.
//!
//! Only command-line handling lives here; parsing is in `ptxmc-frontend`,
//! the model and explorers in `ptxmc-checker`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
