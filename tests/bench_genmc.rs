//! End-to-end tests of `ptxmc bench` next to GenMC: with a stand-in `genmc`
//! (a shell script that records what it is given and answers like GenMC),
//! without one, and with the real one when it is on PATH.

mod common;
use common::*;
use std::path::Path;

/// Writes an executable stand-in for GenMC into `dir`: it answers
/// `--version` like GenMC v0.11, copies the C file it is given (its last
/// argument) and its flags into `dir`, and reports `executions` complete
/// executions with no error.
fn fake_genmc(dir: &Path, executions: u64) -> std::path::PathBuf {
    let path = dir.join("genmc");
    let script = format!(
        "#!/bin/sh\n\
         if [ \"$1\" = --version ]; then echo 'GenMC v0.11.0 (LLVM 19.1.7)'; exit 0; fi\n\
         for last; do :; done\n\
         cp \"$last\" '{d}/mirror.c'\n\
         echo \"$@\" > '{d}/flags.txt'\n\
         echo '*** Verification complete.'\n\
         echo 'No errors were detected.'\n\
         echo 'Number of complete executions explored: {executions}'\n\
         echo 'Total wall-clock time: 0.01s'\n",
        d = dir.display()
    );
    std::fs::write(&path, script).expect("write the stand-in");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("make it executable");
    }
    path
}

#[test]
fn bench_runs_genmc_on_the_mirror_and_shows_both() {
    let dir = scratch("bench-genmc");
    let g = fake_genmc(&dir, 24);
    let json = dir.join("b.jsonl");
    let o = ptxmc(&[
        "bench",
        "counter-4",
        "--strategy",
        "dpor",
        "--genmc",
        s(&g),
        "--json",
        s(&json),
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(
        out.contains("GenMC: ") && out.contains("GenMC v0.11.0"),
        "{out}"
    );
    assert!(out.contains("| genmc executions |"), "{out}");
    assert!(out.contains("GenMC side by side"), "{out}");
    let row = out
        .lines()
        .rfind(|l| l.starts_with("| counter-4 |"))
        .expect("a side-by-side row");
    assert!(row.contains("24 / 24"), "same executions: {row}");
    let c = std::fs::read_to_string(dir.join("mirror.c")).expect("GenMC got a C file");
    assert_eq!(c.matches("atomic_fetch_add_explicit").count(), 1, "{c}");
    assert!(
        c.contains("i < 4")
            && c.contains("assert(atomic_load_explicit(&x, memory_order_relaxed) == 4)")
    );
    let flags = std::fs::read_to_string(dir.join("flags.txt")).expect("flags");
    assert!(
        flags.starts_with("-rc11 --disable-sr --disable-estimation --"),
        "{flags}"
    );
    let lines = timeless(&json);
    let tools: Vec<&str> = lines
        .iter()
        .filter_map(|v| v["strategy"].as_str())
        .collect();
    assert_eq!(tools, ["dpor", "genmc"]);
    assert_eq!(lines[1]["executions"], 24);
    assert_eq!(lines[1]["condition_holds"], true);
}

#[test]
fn a_count_that_differs_is_shown_and_flags_can_be_given() {
    let dir = scratch("bench-genmc-differ");
    let g = fake_genmc(&dir, 7);
    let o = ptxmc(&[
        "bench",
        "counter-3",
        "--strategy",
        "dpor",
        "--genmc",
        s(&g),
        "--genmc-arg=-imm",
        "--repeat",
        "2",
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("6 / 7 (differ)"), "{out}");
    assert!(out.contains("2 runs each"), "{out}");
    let flags = std::fs::read_to_string(dir.join("flags.txt")).expect("flags");
    assert!(flags.starts_with("-imm --"), "{flags}");
}

#[test]
fn tests_without_a_mirror_and_bench_without_genmc() {
    let dir = scratch("bench-genmc-none");
    let g = fake_genmc(&dir, 1);
    let o = ptxmc(&[
        "bench",
        "weak-writers-1",
        "--strategy",
        "dpor",
        "--genmc",
        s(&g),
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("| no mirror |"), "{out}");
    // No `genmc` on this PATH: bench says so and runs ptxmc alone.
    let o = ptxmc_env(
        &["bench", "counter-2", "--strategy", "dpor"],
        &[("PATH", s(&dir.join("empty")))],
    );
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("GenMC: not found on PATH"), "{out}");
    assert!(!out.contains("genmc executions"), "{out}");
    let o = ptxmc(&[
        "bench",
        "counter-2",
        "--genmc",
        s(&dir.join("no-such-genmc")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot run it"), "{}", stderr(&o));
}

/// With the real GenMC (on PATH, or `PTXMC_GENMC`): the mirrors build the
/// same complete executions as ptxmc.
#[test]
fn the_real_genmc_counts_the_same_executions() {
    let explicit = std::env::var("PTXMC_GENMC").ok();
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("genmc"))
            .find(|p| p.is_file())
    });
    let Some(g) = explicit.map(std::path::PathBuf::from).or(on_path) else {
        eprintln!("SKIPPED: no `genmc` on PATH and no PTXMC_GENMC (see docs/cli/bench.md)");
        return;
    };
    let o = ptxmc(&[
        "bench",
        "counter-3",
        "ticket-lock-3",
        "sb-fence-sc-3",
        "--strategy",
        "dpor",
        "--genmc",
        s(&g),
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    for (test, n) in [("counter-3", 6), ("ticket-lock-3", 6), ("sb-fence-sc-3", 7)] {
        let row = out
            .lines()
            .rfind(|l| l.starts_with(&format!("| {test} |")))
            .unwrap_or_else(|| panic!("{test}: {out}"));
        assert!(row.contains(&format!("{n} / {n} |")), "{row}");
    }
}
