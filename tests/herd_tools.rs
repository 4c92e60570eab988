//! herd's own log tools on ptxmc's text log, when they are installed
//! (herdtools7's `msum7` and `mcompare7`; build them from
//! github.com/herd/herdtools7, docs/cli/run.md says how): every test of the
//! log is kept, names whole, and tests without a check are not `Ok`.
//! The tools are found on PATH, or in the folder `PTXMC_HERDTOOLS` names.
//! Without them each test says SKIP; `tests/honest.rs` checks the format
//! against a golden log either way.

mod common;

use common::{ptxmc, scratch, stdout};
use std::path::PathBuf;
use std::process::Command;

/// The tool's path when it runs (`-help` exits 0 in herdtools7 7.56; there
/// is no `-version`).
fn tool(name: &str) -> Option<PathBuf> {
    let path = match std::env::var_os("PTXMC_HERDTOOLS") {
        Some(dir) => PathBuf::from(dir).join(name),
        None => PathBuf::from(name),
    };
    Command::new(&path)
        .arg("-help")
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some(path)
}

#[test]
fn msum7_keeps_every_test_of_a_ptxmc_log() {
    let Some(msum) = tool("msum7") else {
        eprintln!("SKIP: msum7 (herdtools7) is not installed");
        return;
    };
    let d = scratch("herd-tools");
    let gen = ptxmc(&[
        "gen",
        "--shapes",
        "MP,SB",
        "--out",
        d.to_str().unwrap_or("."),
    ]);
    assert_eq!(gen.status.code(), Some(0));
    let run = ptxmc(&["run", d.to_str().unwrap_or("."), "--no-progress"]);
    let log = stdout(&run);
    let tests = log.lines().filter(|l| l.starts_with("Test ")).count();
    assert!(tests > 100, "{tests} tests generated");
    let log_file = d.join("ptxmc.log");
    std::fs::write(&log_file, &log).expect("log");
    let o = Command::new(msum)
        .arg(&log_file)
        .output()
        .expect("msum7 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summed = String::from_utf8_lossy(&o.stdout);
    let kept = summed.lines().filter(|l| l.starts_with("Test ")).count();
    assert_eq!(kept, tests, "msum7 kept {kept} of {tests} tests");
    let _ = std::fs::remove_dir_all(&d);
}

/// mcompare7 reads a checked test as `Ok`/`No` and an unsupported, a
/// limit and an undefined one as `??`: its verdict row never says `Ok`.
#[test]
fn mcompare7_reads_tests_without_a_check_as_not_ok() {
    let Some(mcompare) = tool("mcompare7") else {
        eprintln!("SKIP: mcompare7 (herdtools7) is not installed");
        return;
    };
    let d = scratch("herd-mcompare");
    let dir = d.join("t");
    std::fs::create_dir_all(&dir).expect("scratch");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (from, to) in [
        ("corpus/sizes/MP-byte-of-word-race.litmus", "undef.litmus"),
        ("corpus/ptx/MP-selp.litmus", "mp.litmus"),
    ] {
        std::fs::copy(root.join(from), dir.join(to)).expect("copy a test");
    }
    std::fs::write(
        dir.join("unsup.litmus"),
        "PTX unsup\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n vote.sync.all.pred p1, 1, 1 | ;\nexists (1:r0 == 1)\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("many.litmus"),
        "PTX many\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu x, 2 | ld.relaxed.gpu r0, x ;\n | | ld.relaxed.gpu r1, x ;\nexists (2:r0 == 1)\n",
    )
    .expect("write");
    let t = dir.to_str().unwrap_or(".");
    // A run that stops `many` with `--max-executions 2` (status `limit`),
    // and one of the checked test alone, with no limit.
    let limited = ptxmc(&["run", t, "--no-progress", "--max-executions", "2"]);
    let mp = dir.join("mp.litmus");
    let checked = ptxmc(&["run", mp.to_str().unwrap_or("."), "--no-progress"]);
    let table = |log: &str| -> String {
        let path = d.join("log.txt");
        std::fs::write(&path, log).expect("log");
        let o = Command::new(&mcompare)
            .arg(&path)
            .output()
            .expect("mcompare7 runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // Each test's rows: the name row, then the verdict row (`|Ok`, `|No`
    // or `|??` in the kind column).
    let verdict = |table: &str, name: &str| -> String {
        let mut rows = table.lines().skip_while(|l| !l.starts_with(name));
        let _ = rows.next();
        rows.next().unwrap_or_default().to_string()
    };
    let limited = table(&stdout(&limited));
    for name in ["MP-byte-of-word-race", "unsup", "many"] {
        let v = verdict(&limited, name);
        assert!(
            v.contains("??") && !v.contains("Ok"),
            "{name}: `{v}`\n{limited}"
        );
    }
    let checked = table(&stdout(&checked));
    let v = verdict(&checked, "MP-selp");
    assert!(
        v.contains("|Ok") || v.contains("|No"),
        "MP-selp: `{v}`\n{checked}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
