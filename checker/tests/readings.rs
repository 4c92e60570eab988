//! The `dat3m` reading against the Dat3M corpus' own expectations: every row
//! of the four expected CSVs of `../shared/conformance/dat3m-ptx/` (condition
//! verdicts, and liveness in the `Liveness` CSVs) must match when the tests
//! are checked under `Reading::DAT3M` with the DPOR explorer. Without the
//! shared corpus the test prints `SKIP: ...` and passes.

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
