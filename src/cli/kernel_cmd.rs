//! Kernel mode in `ptxmc run` (`docs/cli/kernel.md`): a `.launch` file
//! names a `.ptx` module (relative to the launch file) and how to launch it;
//! any other file is a litmus test.

use ptxmc_frontend::ir::Test;
use std::path::Path;

/// A parse error of either kind, rendered like the litmus parser's.
pub enum SourceError {
    /// A litmus test's error.
    Litmus(ptxmc_frontend::ParseError),
    /// A launch description's or a module's error (`file:line:col: reason`).
    Kernel(ptxmc_frontend::kernel::KernelError),
}

impl SourceError {
    /// The error for a terminal, as [`ptxmc_frontend::ParseError::render`].
    pub fn render(&self, file: &str, src: &str) -> String {
        match self {
            SourceError::Litmus(e) => e.render(file, src),
            SourceError::Kernel(e) => format!("{e}"),
        }
    }
}

/// Whether `file` is a launch description.
pub fn is_launch(file: &Path) -> bool {
    file.extension().is_some_and(|x| x == "launch")
}

/// Parses `src`, read from `file`: a launch description (with its module)
/// or a litmus test.
pub fn parse(file: &Path, src: &str) -> Result<Test, SourceError> {
    if !is_launch(file) {
        return ptxmc_frontend::parse(src).map_err(SourceError::Litmus);
    }
    let dir = file.parent().unwrap_or_else(|| Path::new("."));
    let read = |m: &str| {
        let p = dir.join(m);
        std::fs::read(&p)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| e.to_string())
    };
    let shown = file.display().to_string();
    ptxmc_frontend::kernel::parse_launch(src, &shown, &read).map_err(|mut e| {
        if e.file != shown {
            // The module, named relative to the launch file.
            e.file = dir.join(&e.file).display().to_string();
        }
        SourceError::Kernel(e)
    })
}
