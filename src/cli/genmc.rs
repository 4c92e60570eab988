//! GenMC next to ptxmc in `ptxmc bench`: the C11 mirrors of the benchmark
//! families, and one run of a `genmc` binary on one of them.
//!
//! GenMC (MPI-SWS) checks C/C++ programs under RC11 or IMM; it is the speed
//! anchor of ptxmc's explorer. A mirror builds the same execution graphs as
//! the family member (same threads, same accesses, same orders where C11 has
//! them): every thread of a family is in one CTA, so every scope contains
//! every thread and C11's unscoped atomics give the same morally strong pairs.
//! Conditions: a `forall` becomes an `assert` in `main` after the joins (GenMC
//! stops at the first violation); an `exists` is not checked, only counted.
//! The counts are printed next to ptxmc's, so that "the same graphs" is seen,
//! not assumed.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A `genmc` binary and its version line.
#[derive(Clone, Debug)]
pub struct Genmc {
    pub path: PathBuf,
    pub version: String,
}

/// The binary given by `--genmc PATH`, or else `genmc` on `PATH`; `Ok(None)`
/// when there is none on `PATH`, an error when the given one cannot run.
pub fn locate(explicit: Option<&Path>) -> Result<Option<Genmc>, String> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => match on_path("genmc") {
            Some(p) => p,
            None => return Ok(None),
        },
    };
    let out = Command::new(&path)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("--genmc {}: cannot run it: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("GenMC v"))
        .unwrap_or("GenMC (unknown version)")
        .to_string();
    Ok(Some(Genmc { path, version }))
}

fn on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

const HEAD: &str = "#include <assert.h>\n#include <stdatomic.h>\n#include <pthread.h>\n";

/// `main` starting `threads` (each `t{i}`, or `t` for all when `same`),
/// then, when there is a `check` (an assertion), joining them before it.
fn main_fn(threads: usize, same: bool, check: &str) -> String {
    let mut s = format!("int main(void) {{\n\tpthread_t th[{threads}];\n");
    if same {
        s.push_str(&format!(
            "\tfor (int i = 0; i < {threads}; i++) pthread_create(&th[i], NULL, t, NULL);\n"
        ));
    } else {
        for i in 0..threads {
            s.push_str(&format!("\tpthread_create(&th[{i}], NULL, t{i}, NULL);\n"));
        }
    }
    // A join is an event in GenMC's graph (it reads the thread's end), and
    // ptxmc's graph has none: the anchors (`../shared/anchors/genmc/`) join
    // only where an assertion needs the final state, and so do the mirrors.
    // Joins that nothing needs cost GenMC up to 3.5x on sb-fence-sc-16.
    if !check.is_empty() {
        s.push_str(&format!(
            "\tfor (int i = 0; i < {threads}; i++) pthread_join(th[i], NULL);\n"
        ));
    }
    s.push_str(&format!("{check}\treturn 0;\n}}\n"));
    s
}

fn thread_fn(name: &str, body: &str) -> String {
    format!("void *{name}(void *arg) {{\n{body}\treturn NULL;\n}}\n")
}

const RLX: &str = "memory_order_relaxed";

/// The C11 mirror of family `family` at size `n`, or `None` when there is
/// none (a family with weak accesses that race has no C11 counterpart:
/// GenMC reports the race and stops). The mirror of `cas-lock` is a C11
/// CAS retry loop under every reading: GenMC reads a failed CAS as a read
/// only (ptxmc's `failed-cas-read`), and under the spec reading, where a
/// failed `atom.cas` writes the old value back, ptxmc collapses the retry
/// loop on a location all of whose accesses are morally strong
/// (`docs/model-notes.md` "Waits"), so both explore N! executions with no
/// blocked one (the counts are shown side by side, and differ when they do).
pub fn mirror(family: &str, n: usize) -> Option<String> {
    let mut s = String::from(HEAD);
    match family {
        "readers" => {
            s.push_str("atomic_int x;\n");
            s.push_str(&thread_fn(
                "t0",
                &format!("\tatomic_store_explicit(&x, 42, {RLX});\n"),
            ));
            for i in 1..=n {
                s.push_str(&thread_fn(
                    &format!("t{i}"),
                    &format!("\t(void)atomic_load_explicit(&x, {RLX});\n"),
                ));
            }
            s.push_str(&main_fn(n + 1, false, ""));
        }
        "writers" => {
            s.push_str("atomic_int x;\n");
            for i in 0..=n {
                s.push_str(&thread_fn(
                    &format!("t{i}"),
                    &format!("\tatomic_store_explicit(&x, {}, {RLX});\n", i + 1),
                ));
            }
            s.push_str(&thread_fn(
                &format!("t{}", n + 1),
                &format!("\t(void)atomic_load_explicit(&x, {RLX});\n"),
            ));
            s.push_str(&main_fn(n + 2, false, ""));
        }
        "sb" | "sb-fence-sc" => {
            for i in 0..n {
                s.push_str(&format!("atomic_int x{i};\n"));
            }
            for i in 0..n {
                let fence = if family == "sb-fence-sc" {
                    "\tatomic_thread_fence(memory_order_seq_cst);\n"
                } else {
                    ""
                };
                s.push_str(&thread_fn(
                    &format!("t{i}"),
                    &format!(
                        "\tatomic_store_explicit(&x{i}, 1, {RLX});\n{fence}\t(void)atomic_load_explicit(&x{}, {RLX});\n",
                        (i + 1) % n
                    ),
                ));
            }
            s.push_str(&main_fn(n, false, ""));
        }
        "iriw" => {
            for i in 0..n {
                s.push_str(&format!("atomic_int x{i};\n"));
            }
            for i in 0..n {
                s.push_str(&thread_fn(
                    &format!("t{i}"),
                    &format!("\tatomic_store_explicit(&x{i}, 1, {RLX});\n"),
                ));
            }
            let load =
                |i: usize| format!("\t(void)atomic_load_explicit(&x{i}, memory_order_acquire);\n");
            let fwd: String = (0..n).map(load).collect();
            let bwd: String = (0..n).rev().map(load).collect();
            s.push_str(&thread_fn(&format!("t{n}"), &fwd));
            s.push_str(&thread_fn(&format!("t{}", n + 1), &bwd));
            s.push_str(&main_fn(n + 2, false, ""));
        }
        "2+2w" => {
            for i in 0..n {
                s.push_str(&format!("atomic_int x{i};\n"));
            }
            for i in 0..n {
                s.push_str(&thread_fn(
                    &format!("t{i}"),
                    &format!(
                        "\tatomic_store_explicit(&x{i}, 2, {RLX});\n\tatomic_store_explicit(&x{}, 1, {RLX});\n",
                        (i + 1) % n
                    ),
                ));
            }
            s.push_str(&main_fn(n, false, ""));
        }
        "counter" => {
            s.push_str("atomic_int x;\n");
            s.push_str(&thread_fn(
                "t",
                &format!("\tatomic_fetch_add_explicit(&x, 1, {RLX});\n"),
            ));
            s.push_str(&main_fn(
                n,
                true,
                &format!("\tassert(atomic_load_explicit(&x, {RLX}) == {n});\n"),
            ));
        }
        "ticket-lock" => {
            s.push_str("atomic_int next, serving;\nint data;\n");
            s.push_str(&thread_fn(
                "t",
                &format!(
                    "\tint my = atomic_fetch_add_explicit(&next, 1, {RLX});\n\
                     \twhile (atomic_load_explicit(&serving, memory_order_acquire) != my)\n\t\t;\n\
                     \tint r = data;\n\tdata = r + 1;\n\
                     \tatomic_fetch_add_explicit(&serving, 1, memory_order_release);\n"
                ),
            ));
            s.push_str(&main_fn(n, true, &format!("\tassert(data == {n});\n")));
        }
        "cas-lock" => {
            s.push_str("#include <genmc.h>\natomic_int m;\nint data;\n");
            let take = "\tint e = 0;\n\
                 \twhile (!atomic_compare_exchange_strong_explicit(&m, &e, 1, memory_order_acquire, memory_order_acquire))\n\
                 \t\te = 0;\n";
            s.push_str(&thread_fn(
                "t",
                &format!(
                    "{take}\tint r = data;\n\tdata = r + 1;\n\
                     \tatomic_store_explicit(&m, 0, memory_order_release);\n"
                ),
            ));
            s.push_str(&main_fn(n, true, &format!("\tassert(data == {n});\n")));
        }
        _ => return None,
    }
    Some(s)
}

/// How one GenMC run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// Verified: no error detected.
    Verified,
    /// GenMC reported an error (an assertion, a race, ...): its line.
    Error(String),
    /// Killed at the time limit.
    Killed,
    /// It did not run, or printed nothing we could read.
    Failed(String),
}

/// One GenMC run: counts as GenMC prints them, and the whole process's wall
/// time (compilation of the C file included, as a user sees it).
#[derive(Clone, Debug)]
pub struct Run {
    pub ending: Ending,
    pub executions: u64,
    pub blocked: u64,
    pub wall_s: f64,
    /// GenMC's own "Total wall-clock time" (its verification, without
    /// starting the process).
    pub own_s: Option<f64>,
}

/// The default flags: RC11, no symmetry reduction and no estimation (the
/// anchor's recipe: `../shared/anchors/genmc/README.md`).
pub const DEFAULT_FLAGS: &[&str] = &["-rc11", "--disable-sr", "--disable-estimation"];

/// Runs `genmc FLAGS -- file` on the C text `source`, written under `dir`,
/// killed after `timeout`.
pub fn run(g: &Genmc, source: &str, name: &str, flags: &[String], timeout: f64) -> Run {
    let failed = |why: String| Run {
        ending: Ending::Failed(why),
        executions: 0,
        blocked: 0,
        wall_s: 0.0,
        own_s: None,
    };
    let dir = std::env::temp_dir().join(format!("ptxmc-genmc-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return failed(format!("{}: {e}", dir.display()));
    }
    let file = dir.join(format!("{name}.c"));
    if let Err(e) = std::fs::write(&file, source) {
        return failed(format!("{}: {e}", file.display()));
    }
    let mut cmd = Command::new(&g.path);
    if flags.is_empty() {
        cmd.args(DEFAULT_FLAGS);
    } else {
        cmd.args(flags);
    }
    cmd.arg("--")
        .arg(&file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return failed(format!("cannot start {}: {e}", g.path.display())),
    };
    // Read both pipes on their own threads, so that a chatty GenMC never
    // blocks on a full pipe while we wait for it.
    let pipe = |p: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut p) = p {
                let _ = p.read_to_string(&mut s);
            }
            s
        })
    };
    let out = pipe(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = pipe(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let limit = Duration::from_secs_f64(timeout);
    let killed = loop {
        match child.try_wait() {
            Ok(Some(_)) => break false,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break true;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return failed(format!("waiting for GenMC: {e}")),
        }
    };
    let wall_s = start.elapsed().as_secs_f64();
    let text = format!(
        "{}\n{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    let _ = std::fs::remove_file(&file);
    let mut r = parse(&text);
    r.wall_s = wall_s;
    if killed {
        r.ending = Ending::Killed;
    }
    r
}

/// Reads GenMC's summary lines.
pub fn parse(text: &str) -> Run {
    let number = |key: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let executions = number("Number of complete executions explored:");
    let blocked = number("Number of blocked executions seen:").unwrap_or(0);
    let own_s = text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("Total wall-clock time:")
            .and_then(|v| v.trim().trim_end_matches('s').parse::<f64>().ok())
    });
    let error = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Error"))
        .map(str::to_string);
    let ending = match (error, executions, text.contains("No errors were detected")) {
        (Some(e), _, _) => Ending::Error(e),
        (None, Some(_), true) => Ending::Verified,
        _ => Ending::Failed(
            text.lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty())
                .unwrap_or("no output")
                .to_string(),
        ),
    };
    Run {
        ending,
        executions: executions.unwrap_or(0),
        blocked,
        wall_s: 0.0,
        own_s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genmc_summaries_are_read() {
        let ok = "*** Verification complete.\nNo errors were detected.\n\
                  Number of complete executions explored: 42\n\
                  Number of blocked executions seen: 72\nTotal wall-clock time: 0.06s\n";
        let r = parse(ok);
        assert_eq!(r.ending, Ending::Verified);
        assert_eq!((r.executions, r.blocked), (42, 72));
        assert_eq!(r.own_s, Some(0.06));
        let bad = "Error: Safety violation!\nAssertion violation: x == 3\n\
                   *** Verification unsuccessful.\nNumber of complete executions explored: 1\n";
        let r = parse(bad);
        assert_eq!(r.ending, Ending::Error("Error: Safety violation!".into()));
        assert_eq!(r.executions, 1);
        assert!(matches!(parse("clang: error\n").ending, Ending::Failed(_)));
    }

    #[test]
    fn mirrors_have_the_family_shape() {
        let w = mirror("writers", 2).expect("writers");
        assert_eq!(w.matches("atomic_store_explicit").count(), 3);
        assert!(w.contains("pthread_create(&th[3], NULL, t3, NULL)"));
        let sb = mirror("sb-fence-sc", 3).expect("sb");
        assert_eq!(sb.matches("memory_order_seq_cst").count(), 3);
        assert!(sb.contains("atomic_load_explicit(&x0,"), "the ring closes");
        assert!(!sb.contains("pthread_join"), "no join that nothing needs");
        let cas = mirror("cas-lock", 3).expect("cas");
        assert!(cas.contains("atomic_compare_exchange_strong_explicit"));
        assert!(
            !cas.contains("atomic_exchange_explicit"),
            "no bounded exchange loop"
        );
        let ticket = mirror("ticket-lock", 4).expect("ticket");
        assert!(ticket.contains("pthread_join") && ticket.contains("assert(data == 4)"));
        assert!(mirror("weak-writers", 2).is_none());
        assert!(mirror("mp-chain", 3).is_none());
    }
}
