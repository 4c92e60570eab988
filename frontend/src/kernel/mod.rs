//! Kernel mode: a `.ptx` module and a launch description (`docs/cli/kernel.md`)
//! become a litmus test, one thread per launched PTX thread.
//!
//! The launch description names the module, the `.entry`, the grid and CTA
//! shape, which threads run, what each `.param` is bound to (a buffer, that
//! is a location, or an integer), the initial memory and the final
//! condition. The translation writes a litmus test in the corpus dialect:
//! module `.global` variables and the buffers are locations, `.shared`
//! variables one location per CTA (`name_ctaN`), `ld.param` a move of the
//! bound value, and every thread runs the entry's statements with its
//! placement (`tid`, `ntid`, `nctaid`, ...: `docs/ptx-forms.md`). That test is
//! then parsed as any other, and an error in it is reported at the position
//! of the `.ptx` statement (or of the launch line) it came from.

mod inline;
mod launch;
pub mod module;

pub use launch::parse_launch;

/// An error of kernel mode: the file (the module or the launch description),
/// 1-based line and column, and a one-line reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct KernelError {
    /// The file, as named.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// Why.
    pub message: String,
}
