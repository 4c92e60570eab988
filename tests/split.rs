//! `ptxmc run --split K/N` + `ptxmc merge`: the parts of one exploration
//! merge into the undivided run's JSON, byte for byte apart from `time_ms`;
//! missing, duplicated and mismatched parts are refused by name; the GNU
//! parallel recipe of docs/scale-out.md runs.

mod common;

use common::{ptxmc, s, scratch, stderr};
use std::path::{Path, PathBuf};

/// The file without the values of `time_ms`.
fn timeless_text(p: &Path) -> String {
    let text = std::fs::read_to_string(p).expect("a results file");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("\"time_ms\":") {
        out.push_str(&rest[..i + 10]);
        rest = &rest[i + 10..];
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Runs every part of `paths` split in `n`, merges them, and returns the
/// part files and the merged file.
fn split_and_merge(dir: &Path, paths: &[&str], n: u32) -> (Vec<PathBuf>, PathBuf) {
    let mut parts = Vec::new();
    for k in 1..=n {
        let p = dir.join(format!("part-{n}-{k}.jsonl"));
        let split = format!("{k}/{n}");
        let mut args = vec![
            "run",
            "-j",
            "1",
            "--quiet",
            "--split",
            &split,
            "--json",
            s(&p),
        ];
        args.extend_from_slice(paths);
        let o = ptxmc(&args);
        assert!(p.exists(), "{}", stderr(&o));
        parts.push(p);
    }
    let merged = dir.join(format!("merged-{n}.jsonl"));
    let mut args = vec!["merge", "-o", s(&merged)];
    args.extend(parts.iter().map(|p| s(p)));
    let o = ptxmc(&args);
    assert!(o.status.success(), "merge: {}", stderr(&o));
    (parts, merged)
}

fn whole(dir: &Path, paths: &[&str]) -> PathBuf {
    let full = dir.join("full.jsonl");
    let mut args = vec!["run", "-j", "1", "--quiet", "--json", s(&full)];
    args.extend_from_slice(paths);
    let o = ptxmc(&args);
    assert!(full.exists(), "{}", stderr(&o));
    full
}

fn family(dir: &Path, name: &str, n: &str) -> PathBuf {
    let o = ptxmc(&["family", name, n]);
    assert!(o.status.success());
    let p = dir.join(format!("{name}-{n}.litmus"));
    std::fs::write(&p, &o.stdout).expect("write");
    p
}

#[test]
fn split_and_merge_is_the_undivided_run() {
    let dir = scratch("split-equal");
    let fams = [
        family(&dir, "writers", "3"),
        family(&dir, "counter", "4"),
        family(&dir, "ticket-lock", "2"),
    ];
    let bad = dir.join("bad.litmus");
    std::fs::write(&bad, "PTX bad\n{ x=0; }\n P0 ;\n st.weak x, ;\n").expect("write");
    let mut paths: Vec<&str> = fams.iter().map(|p| s(p)).collect();
    // Liveness violations, barriers, and a file that does not parse.
    paths.extend(["corpus/liveness", "corpus/barriers", s(&bad)]);
    let full = whole(&dir, &paths);
    let expected = timeless_text(&full);
    assert!(expected.contains("\"liveness_holds\":false"));
    for n in [1, 2, 7] {
        let (_, merged) = split_and_merge(&dir, &paths, n);
        assert_eq!(timeless_text(&merged), expected, "{n} parts");
    }
}

#[test]
fn a_rerun_part_is_the_same_and_bad_sets_of_parts_are_refused() {
    let dir = scratch("split-refuse");
    let w = family(&dir, "writers", "4");
    let (parts, _) = split_and_merge(&dir, &[s(&w)], 3);
    // A killed part rerun (here: run again) gives the same bytes.
    let again = dir.join("again.jsonl");
    let o = ptxmc(&[
        "run",
        "-j",
        "1",
        "--quiet",
        "--split",
        "2/3",
        "--json",
        s(&again),
        s(&w),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(timeless_text(&again), timeless_text(&parts[1]));
    // Each part explores a share: none is the whole.
    let count = |p: &Path| -> u64 { common::timeless(p)[0]["executions"].as_u64().unwrap_or(0) };
    let shares: Vec<u64> = parts.iter().map(|p| count(p)).collect();
    let total = count(&whole(&dir, &[s(&w)]));
    assert_eq!(shares.iter().sum::<u64>(), total, "{shares:?}");
    assert!(shares.iter().all(|&x| x > 0 && x < total), "{shares:?}");
    // Missing part 2.
    let o = ptxmc(&["merge", s(&parts[0]), s(&parts[2])]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("part 2/3 missing"), "{}", stderr(&o));
    // Part 2 twice.
    let o = ptxmc(&["merge", s(&parts[0]), s(&parts[1]), s(&again), s(&parts[2])]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("part 2/3 appears twice"),
        "{}",
        stderr(&o)
    );
    // A part made with other options.
    let other = dir.join("other.jsonl");
    let o = ptxmc(&[
        "run",
        "-j",
        "1",
        "--quiet",
        "--unroll",
        "3",
        "--split",
        "2/3",
        "--json",
        s(&other),
        s(&w),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = ptxmc(&["merge", s(&parts[0]), s(&other), s(&parts[2])]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("part 2/3 in") && e.contains("different options"),
        "{e}"
    );
    // A part of another test text under the same file name.
    let w5 = dir.join("w5");
    std::fs::create_dir_all(&w5).expect("dir");
    let o = ptxmc(&["family", "writers", "3"]);
    std::fs::write(w5.join("writers-4.litmus"), &o.stdout).expect("write");
    let text = std::fs::read_to_string(&parts[2]).expect("part");
    let moved = dir.join("moved.jsonl");
    let o = ptxmc(&[
        "run",
        "-j",
        "1",
        "--quiet",
        "--split",
        "3/3",
        "--json",
        s(&moved),
        s(&w5.join("writers-4.litmus")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = std::fs::read_to_string(&moved).expect("part");
    let line = line.replace(s(&w5.join("writers-4.litmus")), s(&w));
    std::fs::write(&moved, line).expect("write");
    let o = ptxmc(&["merge", s(&parts[0]), s(&parts[1]), s(&moved)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a different test text"),
        "{}",
        stderr(&o)
    );
    assert!(!text.is_empty());
}

#[test]
fn split_refuses_what_it_cannot_split() {
    for extra in [
        &["--strategy", "brute"][..],
        &["--graph", "pics"][..],
        &["--model", "spec,dat3m"][..],
        &["--split", "3/2"][..],
    ] {
        let mut args = vec!["run", "corpus/coherence", "--split", "1/2"];
        args.extend_from_slice(extra);
        let o = ptxmc(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&o).contains("--split"), "{extra:?}: {}", stderr(&o));
    }
}

/// The GNU parallel recipe of docs/scale-out.md, as written there.
#[test]
fn the_gnu_parallel_recipe_runs() {
    let have = std::process::Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        eprintln!("SKIPPED: GNU parallel is not installed (apt-get install parallel)");
        return;
    }
    let dir = scratch("split-parallel");
    let w = family(&dir, "writers", "4");
    let bin = env!("CARGO_BIN_EXE_ptxmc");
    let script = format!(
        "cd {d} && parallel -j 2 {bin} run {t} -j 1 --quiet --split {{}}/4 --json part-{{}}.jsonl ::: 1 2 3 4 \
         && {bin} merge part-*.jsonl -o merged.jsonl",
        d = s(&dir),
        t = s(&w),
    );
    let o = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .expect("sh");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let full = whole(&dir, &[s(&w)]);
    assert_eq!(
        timeless_text(&dir.join("merged.jsonl")),
        timeless_text(&full)
    );
}
