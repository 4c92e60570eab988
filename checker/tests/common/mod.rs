//! Helpers shared by the checker's integration tests.

use std::path::{Path, PathBuf};

/// Appends every `.litmus` file under `dir`, recursively, to `out` (in
/// directory order; callers sort).
pub fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            litmus_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            out.push(p);
        }
    }
}
