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
    // A single folder comes out of `walk` sorted already; checking costs one
    // comparison per file, sorting (paths compare component by component)
    // about twenty.
    if !out.windows(2).all(|w| w[0] < w[1]) {
        out.sort();
        out.dedup();
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<(std::ffi::OsString, PathBuf, bool)> = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        entries.push((e.file_name(), e.path(), e.file_type()?.is_dir()));
    }
    // Entries of one folder differ only in their last component: comparing
    // file names orders them as comparing whole paths would, without
    // parsing paths per comparison.
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, path, is_dir) in entries {
        if is_dir {
            walk(&path, out)?;
        } else if path
            .extension()
            .is_some_and(|x| x == "litmus" || x == "launch")
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_come_sorted_and_once_whatever_the_order_given() {
        let d = std::env::temp_dir().join(format!("ptxmc-collect-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        for sub in ["b", "a/c", "a-b"] {
            std::fs::create_dir_all(d.join(sub)).expect("scratch folder");
        }
        for f in [
            "b/2.litmus",
            "b/10.litmus",
            "a/c/x.litmus",
            "a-b/y.litmus",
            "a/z.litmus",
            "a/n.txt",
        ] {
            std::fs::write(d.join(f), "").expect("scratch file");
        }
        let one = litmus_files(std::slice::from_ref(&d)).expect("walks");
        let mut sorted = one.clone();
        sorted.sort();
        assert_eq!(one, sorted);
        assert_eq!(one.len(), 5, "{one:?}");
        let twice = litmus_files(&[d.join("b"), d.clone(), d.join("a/z.litmus")]).expect("walks");
        assert_eq!(twice, one);
        let _ = std::fs::remove_dir_all(&d);
    }
}
