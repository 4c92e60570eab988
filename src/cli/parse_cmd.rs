//! `ptxmc parse`: parse each test and print its IR back as litmus text.

use super::args::ParseArgs;
use super::collect::litmus_files;
use super::{EXIT_ERROR, EXIT_OK};
use std::io::Write;
use std::path::Path;

/// Reads a file as text; invalid UTF-8 is replaced so that the parser reports
/// a positioned error instead of the reader failing.
pub fn read_source(path: &Path) -> Result<String, String> {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| format!("{}: {}", path.display(), e))
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &ParseArgs) -> u8 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let files = match litmus_files(&args.paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let (mut parsed, mut failed) = (0usize, 0usize);
    for file in &files {
        let src = match read_source(file) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
                continue;
            }
        };
        match super::kernel_cmd::parse(file, &src) {
            Ok(test) => {
                parsed += 1;
                if !args.quiet {
                    let _ = writeln!(out, "(* {} *)", file.display());
                    let _ = writeln!(out, "{}", ptxmc_frontend::print(&test));
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("{}", e.render(&file.display().to_string(), &src));
            }
        }
    }
    // A comment, so that the output of one file is itself a litmus file
    // that parses to the same IR.
    let _ = writeln!(out, "(* parsed {parsed}, failed {failed} *)");
    if failed == 0 {
        EXIT_OK
    } else {
        EXIT_ERROR
    }
}
