//! Expectation files in Dat3M's CSV format: `path,0|1` rows, no header.
//! ptxmc also reads `path,undefined`: the test's behaviour is undefined
//! (status `undefined`: a mixed-size data race, 8.7.2, or a non-`multimem`
//! access to a multimem address, 8.2.3), which Dat3M's 0/1 cannot say.
//!
//! A row matches a test whose file path ends with the row's path. A CSV whose
//! file name contains `Liveness` gives liveness verdicts; any other gives
//! condition verdicts (herd's "Ok").

use std::path::{Path, PathBuf};

/// Which verdict a CSV gives.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Property {
    /// The final condition holds (herd's Ok).
    Condition,
    /// Every fair execution terminates.
    Liveness,
}

/// One expectation row.
#[derive(Clone, Debug)]
pub struct Row {
    /// The CSV it came from.
    pub csv: PathBuf,
    /// 1-based line in the CSV.
    pub line: usize,
    /// Test path suffix.
    pub path: String,
    /// What is expected.
    pub property: Property,
    /// Expected verdict.
    pub holds: bool,
    /// `path,undefined`: the expected status is `undefined` (no verdict).
    pub undefined: bool,
}

/// Reads a CSV; errors name the file and line.
pub fn read_csv(csv: &Path) -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(csv).map_err(|e| format!("{}: {}", csv.display(), e))?;
    let property = if csv
        .file_name()
        .is_some_and(|n| n.to_string_lossy().contains("Liveness"))
    {
        Property::Liveness
    } else {
        Property::Condition
    };
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_t = line.trim();
        if line_t.is_empty() || line_t.starts_with("//") {
            continue;
        }
        let fields: Vec<&str> = line_t.split(',').map(str::trim).collect();
        let [path, verdict] = fields.as_slice() else {
            return Err(format!(
                "{}:{}: expected `path,0|1`, found `{}`",
                csv.display(),
                i + 1,
                line_t
            ));
        };
        let (holds, undefined) = match *verdict {
            "1" => (true, false),
            "0" => (false, false),
            "undefined" => (false, true),
            v => {
                return Err(format!(
                    "{}:{}: verdict must be 0, 1 or undefined, found `{}`",
                    csv.display(),
                    i + 1,
                    v
                ))
            }
        };
        rows.push(Row {
            csv: csv.to_path_buf(),
            line: i + 1,
            path: path.to_string(),
            property,
            holds,
            undefined,
        });
    }
    Ok(rows)
}

/// Whether `file` is the test a row names: its path ends with the row's path,
/// on a component boundary.
pub fn matches(file: &Path, row_path: &str) -> bool {
    let f = file.to_string_lossy().replace('\\', "/");
    let r = row_path.trim_start_matches("./");
    f == r || f.ends_with(&format!("/{r}"))
}
