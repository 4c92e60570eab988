//! The `dat3m` reading against the Dat3M corpus' own expectations: every row
//! of the four expected CSVs of `../shared/conformance/dat3m-ptx/` (condition
//! verdicts, and liveness in the `Liveness` CSVs) must match when the tests
//! are checked under `Reading::DAT3M` with the DPOR explorer. Without the
//! shared corpus the test prints `SKIP: ...` and passes.

mod common;

use common::litmus_files;
use ptxmc_checker::{check, Options, Reading, Status, Strategy};
use std::path::Path;
use std::time::Duration;

/// The rows of one expected CSV: `path,0|1`, blank and `//` lines skipped.
fn rows(path: &Path) -> Vec<(String, bool)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .filter_map(|l| {
            let (p, v) = l.split_once(',')?;
            Some((p.trim().to_string(), v.trim() == "1"))
        })
        .collect()
}

#[test]
fn dat3m_reading_matches_the_four_shared_csvs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/dat3m-ptx");
    let Ok(dir) = std::fs::read_dir(root.join("expected")) else {
        println!("SKIP: shared Dat3M corpus not found at {}", root.display());
        return;
    };
    let mut csvs: Vec<_> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    csvs.sort();
    assert_eq!(csvs.len(), 4, "{csvs:?}");
    let opts = Options {
        strategy: Strategy::Dpor,
        reading: Reading::DAT3M,
        timeout: Some(Duration::from_secs(30)),
        ..Options::default()
    };
    let (mut total, mut mismatches) = (0usize, Vec::new());
    let mut cache = std::collections::BTreeMap::new();
    for csv in &csvs {
        let liveness = csv.to_string_lossy().contains("Liveness");
        for (file, want) in rows(csv) {
            total += 1;
            let got = cache
                .entry(file.clone())
                .or_insert_with(|| {
                    let src =
                        std::fs::read_to_string(root.join(&file)).map_err(|e| e.to_string())?;
                    let test = ptxmc_frontend::parse(&src).map_err(|e| e.to_string())?;
                    let r = check(&test, &opts);
                    if r.status != Status::Ok {
                        return Err(format!("status {:?}", r.status));
                    }
                    Ok((r.condition_holds, r.liveness_holds))
                })
                .clone()
                .map(|(c, l)| if liveness { l } else { c });
            if got != Ok(want) {
                mismatches.push(format!(
                    "{},{file}: expected {want}, got {got:?}",
                    csv.display()
                ));
            }
        }
    }
    for m in &mismatches {
        println!("MISMATCH: {m}");
    }
    println!(
        "dat3m reading: matched {} of {total} rows",
        total - mismatches.len()
    );
    assert!(total > 400, "only {total} rows read");
    assert!(mismatches.is_empty(), "{} mismatches", mismatches.len());
}

/// Under `failed-cas-read` (a failed `atom.cas` only reads, and the write
/// half of a CAS exists only for some values read), the reference
/// enumerator and DPOR agree on every test of `corpus/` the enumerator
/// finishes: status, verdicts, final states and the explored and blocked
/// execution counts.
#[test]
fn brute_and_dpor_agree_on_the_corpus_under_failed_cas_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut files = Vec::new();
    litmus_files(&root, &mut files);
    files.sort();
    assert!(files.len() > 250, "only {} corpus files", files.len());
    let (mut compared, mut differ) = (0usize, Vec::new());
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable corpus file");
        let Ok(test) = ptxmc_frontend::parse(&src) else {
            continue;
        };
        let run = |strategy| {
            check(
                &test,
                &Options {
                    strategy,
                    reading: Reading::FAILED_CAS_READ,
                    timeout: Some(Duration::from_secs(20)),
                    check_duplicates: true,
                    ..Options::default()
                },
            )
        };
        let brute = run(Strategy::Brute);
        if matches!(brute.status, Status::Limit(_)) {
            continue;
        }
        let dpor = run(Strategy::Dpor);
        compared += 1;
        let key = |r: &ptxmc_checker::Report| {
            (
                format!("{:?}", r.status),
                r.condition_holds,
                r.liveness_holds,
                format!("{:?}", r.states),
                r.stats.executions,
                r.stats.blocked,
                r.stats.duplicates,
            )
        };
        if key(&brute) != key(&dpor) {
            differ.push(format!(
                "{}: brute {:?} / dpor {:?}",
                f.display(),
                key(&brute),
                key(&dpor)
            ));
        }
    }
    for d in &differ {
        println!("DIFFER: {d}");
    }
    println!("failed-cas-read: brute and dpor compared on {compared} corpus tests");
    assert!(compared > 250, "only {compared} compared");
    assert!(differ.is_empty(), "{} tests differ", differ.len());
}
