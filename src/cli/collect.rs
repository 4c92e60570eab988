//! Finding the litmus files named on the command line.

use std::io;
use std::path::{Path, PathBuf};

/// Expands files and folders into a sorted, de-duplicated list of `.litmus`
/// files. A folder is searched recursively; a file is taken whatever its name.
pub fn litmus_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("{}: {}", p.display(), e))?;
        if meta.is_dir() {
            walk(p, &mut out).map_err(|e| format!("{}: {}", p.display(), e))?;
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        let ty = e.file_type()?;
        if ty.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "litmus") {
            out.push(path);
        }
    }
    Ok(())
}
