//! What keeps a JSON Lines results file safe while a run writes it: a lock
//! file refusing a second writer, the "started" markers that let the next
//! `--resume` name a test that took the process down, and the clean-up of
//! temporary files a killed run left.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `FILE` with `suffix` appended to its name (`r.jsonl` -> `r.jsonl.lock`).
pub fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// Whether process `pid` is running (Linux: `/proc/PID` exists; elsewhere
/// a process is assumed running, so a lock is never taken over wrongly).
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc_root = Path::new("/proc");
    if proc_root.join("self").exists() {
        proc_root.join(pid.to_string()).exists()
    } else {
        true
    }
}

/// The lock on a results file: `FILE.lock`, holding the writer's process
/// id, created when the run opens `FILE` and removed when it ends. A second
/// run writing the same file (two shards given one `--json`) is refused
/// while the first runs; a lock whose process is gone (a killed run) is
/// taken over.
pub struct Lock {
    path: PathBuf,
}

impl Lock {
    /// Takes the lock of `results`, or says which process holds it.
    pub fn take(results: &Path) -> Result<Lock, String> {
        let path = beside(results, ".lock");
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    let _ = writeln!(f, "{}", std::process::id());
                    return Ok(Lock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path)
                        .ok()
                        .and_then(|s| s.trim().parse::<u32>().ok());
                    match holder {
                        Some(pid) if alive(pid) => {
                            return Err(format!(
                                "{}: being written by ptxmc process {pid} (lock file {}); \
                                 give each run its own --json file and join them with `ptxmc merge`",
                                results.display(),
                                path.display()
                            ))
                        }
                        // Left by a run that was killed (or half written):
                        // taken over.
                        _ => {
                            let _ = std::fs::remove_file(&path);
                        }
                    }
                }
                Err(e) => return Err(format!("{}: {}", path.display(), e)),
            }
        }
        Err(format!("{}: cannot take the lock", path.display()))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes `FILE.tmp-PID` files of processes that are gone (a run killed
/// while it rewrote `FILE`); returns how many.
pub fn clean_stale_tmp(results: &Path) -> usize {
    let Some(name) = results.file_name().and_then(|n| n.to_str()) else {
        return 0;
    };
    let prefix = format!("{name}.tmp-");
    let dir = match results.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let file_name = e.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !alive(pid) && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// `FILE.running`: one line per test, its path, written (and handed to the
/// OS) just before the test is checked. A test marked there that has no
/// record in `FILE` was being checked when the process ended: killed, or
/// taken down by the test itself (a stack overflow aborts the whole
/// process). `--resume` checks such tests again in a child process and
/// records `crash` for one that takes the child down too, so that a batch
/// is never wedged on it. The file is removed when a run ends normally.
pub struct Markers {
    path: PathBuf,
    file: File,
}

impl Markers {
    /// Opens the markers of `results`: appending to them when resuming,
    /// emptied for a fresh run.
    pub fn open(results: &Path, resume: bool) -> Result<Markers, String> {
        let path = beside(results, ".running");
        if !resume {
            let _ = std::fs::remove_file(&path);
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| format!("{}: {}", path.display(), e))?;
        Ok(Markers { path, file })
    }

    /// Marks `test` as started: one `write` of one line (appends of one
    /// line are not interleaved between threads).
    pub fn start(&self, test: &Path) {
        let mut line = test.display().to_string().into_bytes();
        line.push(b'\n');
        let _ = (&self.file).write_all(&line);
    }

    /// The tests marked in the markers file of `results`, if there is one.
    pub fn read(results: &Path) -> Vec<String> {
        std::fs::read_to_string(beside(results, ".running"))
            .map(|s| s.lines().map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// Removes the markers file: the run ended normally.
    pub fn finish(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The JSON Lines file being written.
pub struct Sink {
    /// Where.
    pub path: PathBuf,
    /// The open file.
    pub file: File,
    /// Whether a write failed (reported once; nothing more is written).
    pub failed: bool,
    /// Lines not written yet.
    pub buf: Vec<u8>,
}

impl Sink {
    /// Queues one line; [`Sink::flush`] hands the queued lines to the OS.
    /// A line of [`SINK_BUFFER`] bytes or more (a test with many final
    /// states) is written at once after the queued ones, not copied.
    pub fn append(&mut self, line: &str) {
        if self.failed {
            return;
        }
        if line.len() >= SINK_BUFFER {
            self.flush();
            if let Err(e) = self
                .file
                .write_all(line.as_bytes())
                .and_then(|()| self.file.write_all(b"\n"))
                .and_then(|()| self.file.flush())
            {
                eprintln!("error: {}: {}", self.path.display(), e);
                self.failed = true;
            }
            return;
        }
        self.buf.extend_from_slice(line.as_bytes());
        self.buf.push(b'\n');
        if self.buf.len() >= SINK_BUFFER {
            self.flush();
        }
    }

    /// Writes the queued lines (one system call for all the results that
    /// arrived since the last poll), so that a kill keeps them.
    pub fn flush(&mut self) {
        if self.failed || self.buf.is_empty() {
            return;
        }
        if let Err(e) = self
            .file
            .write_all(&self.buf)
            .and_then(|()| self.file.flush())
        {
            eprintln!("error: {}: {}", self.path.display(), e);
            self.failed = true;
        }
        self.buf.clear();
    }
}

/// Bytes of queued JSON lines that make [`Sink::append`] write at once.
pub const SINK_BUFFER: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_refuses_a_second_writer_and_a_dead_one_is_taken_over() {
        let d = std::env::temp_dir().join(format!("ptxmc-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch");
        let r = d.join("r.jsonl");
        let first = Lock::take(&r).expect("free");
        let e = Lock::take(&r).err().expect("held by this process");
        assert!(e.contains("being written by ptxmc process"), "{e}");
        drop(first);
        assert!(!beside(&r, ".lock").exists());
        // A lock of a process that is gone (pid 0 never names a user process
        // under /proc; any pid parse failure counts as stale too).
        std::fs::write(beside(&r, ".lock"), "not a pid\n").expect("write");
        let again = Lock::take(&r).expect("stale lock taken over");
        drop(again);
        std::fs::write(beside(&r, ".tmp-999999999"), "x").expect("write");
        std::fs::write(beside(&r, ".tmp-notapid"), "x").expect("write");
        assert_eq!(clean_stale_tmp(&r), 1);
        assert!(beside(&r, ".tmp-notapid").exists());
        let _ = std::fs::remove_dir_all(&d);
    }
}
