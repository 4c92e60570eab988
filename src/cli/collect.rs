//! Finding the litmus files named on the command line.

use std::path::{Path, PathBuf};

/// The `.litmus` files of a command line, and what could not be read.
#[derive(Default, Debug)]
pub struct Collected {
    /// Sorted, de-duplicated, normalised ([`normalise`]).
    pub files: Vec<PathBuf>,
    /// Folders (or files) that could not be read, each with the error, in
    /// the order met: a run records each as a `read-error` and goes on.
    pub unreadable: Vec<(PathBuf, String)>,
}

/// Expands files and folders into a sorted, de-duplicated list of `.litmus`
/// files. A folder is searched recursively; a file is taken whatever its name.
/// A folder that cannot be read is an error.
pub fn litmus_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let c = collect(paths)?;
    match c.unreadable.first() {
        Some((p, e)) => Err(format!("{}: {}", p.display(), e)),
        None => Ok(c.files),
    }
}

/// [`litmus_files`] for a batch: a named path that does not exist is an
/// error, but a folder or file found unreadable is listed in
/// [`Collected::unreadable`] and the search goes on; entries that are not
/// regular files or folders (a FIFO, a socket, a device: reading one could
/// block forever) are skipped with a message on stderr.
pub fn collect(paths: &[PathBuf]) -> Result<Collected, String> {
    let mut c = Collected::default();
    for p in paths {
        let p = normalise(p);
        let meta = std::fs::metadata(&p).map_err(|e| format!("{}: {}", p.display(), e))?;
        if meta.is_dir() && p == Path::new(".") {
            // `./a.litmus` from `read_dir(".")`: spelled `a.litmus`.
            let from = c.files.len();
            walk(&p, &mut c);
            for f in &mut c.files[from..] {
                *f = normalise(f);
            }
        } else if meta.is_dir() {
            walk(&p, &mut c);
        } else if meta.is_file() {
            c.files.push(p);
        } else {
            eprintln!("skipped {}: not a regular file", p.display());
        }
    }
    // A single folder comes out of `walk` sorted already; checking costs one
    // comparison per file, sorting (paths compare component by component)
    // about twenty.
    if !c.files.windows(2).all(|w| w[0] < w[1]) {
        c.files.sort();
        c.files.dedup();
    }
    Ok(c)
}

/// `p` without `.` components and trailing or doubled separators: `./fam`,
/// `fam/` and `fam` name the same files the same way, so that results
/// recorded under one spelling are found under another (`--resume`,
/// `compare`, expectations).
pub fn normalise(p: &Path) -> PathBuf {
    let out: PathBuf = p
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if out.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out
    }
}

fn walk(dir: &Path, c: &mut Collected) {
    let mut entries: Vec<(std::ffi::OsString, PathBuf, Kind)> = Vec::new();
    let read = std::fs::read_dir(dir).and_then(|rd| {
        for e in rd {
            let e = e?;
            let path = e.path();
            // Follow symbolic links, as opening the file would.
            let kind = match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => Kind::Dir,
                Ok(m) if m.is_file() => Kind::File,
                Ok(_) => Kind::Other,
                Err(err) => Kind::Broken(err.to_string()),
            };
            entries.push((e.file_name(), path, kind));
        }
        Ok(())
    });
    if let Err(e) = read {
        c.unreadable.push((dir.to_path_buf(), e.to_string()));
        return;
    }
    // Entries of one folder differ only in their last component: comparing
    // file names orders them as comparing whole paths would, without
    // parsing paths per comparison.
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, path, kind) in entries {
        let litmus = path
            .extension()
            .is_some_and(|x| x == "litmus" || x == "launch");
        match kind {
            Kind::Dir => walk(&path, c),
            Kind::File if litmus => c.files.push(path),
            Kind::Other if litmus => {
                eprintln!("skipped {}: not a regular file", path.display());
            }
            Kind::Broken(e) if litmus => c.unreadable.push((path, e)),
            _ => {}
        }
    }
}

/// What a folder entry is, its links followed.
enum Kind {
    Dir,
    File,
    /// A FIFO, socket or device.
    Other,
    /// Its metadata could not be read (a dangling link, no permission).
    Broken(String),
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
