//! Helpers shared by the end-to-end tests: run the `ptxmc` binary as a user
//! would, in the repository root, and make scratch folders.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `ptxmc ARGS` in the repository root.
pub fn ptxmc(args: &[&str]) -> Output {
    ptxmc_env(args, &[])
}

/// Runs `ptxmc ARGS` with extra environment variables.
pub fn ptxmc_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxmc"));
    c.args(args).current_dir(root());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output()
        .expect("invariant: the test binary can start ptxmc")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh, empty scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxmc-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

/// A path as a `&str` argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("scratch paths are UTF-8")
}

/// The JSON objects of a JSON Lines file, `time_ms` removed, in file order.
pub fn timeless(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .expect("result file")
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("valid JSON line");
            if let Some(o) = v.as_object_mut() {
                o.remove("time_ms");
            }
            v
        })
        .collect()
}

/// MP with a release/acquire flag and a third thread that reads the flag
/// too: its `exists` outcome has po, rf, co, fr, observation,
/// synchronizes-with and causality edges.
pub const MP3: &str = "PTX MP3-rel-acq
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0      | P2@cta 2,gpu 0      ;
 st.weak x, 1        | ld.acquire.gpu r0, y | ld.relaxed.gpu r2, y ;
 st.release.gpu y, 1 | ld.weak r1, x        |                     ;
exists (1:r0 == 1 /\\ 1:r1 == 1 /\\ 2:r2 == 0)
";

/// MP with weak accesses only: the outcome `r0=1, r1=0` is allowed.
pub const MP_WEAK: &str = "PTX MP-weak
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.weak r0, y   ;
 st.weak y, 1   | ld.weak r1, x   ;
exists (1:r0 == 1 /\\ 1:r1 == 0)
";

/// MP with release/acquire: `r0=1, r1=0` is forbidden (Causality).
pub const MP_RA: &str = "PTX MP-rel-acq
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x        ;
~exists (1:r0 == 1 /\\ 1:r1 == 0)
";
