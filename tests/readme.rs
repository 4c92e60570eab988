//! The README as a newcomer reads it (issue 15, item 8): its first command
//! prints a report a person reads (it printed 4,599 lines), it says how to
//! put `ptxmc` on PATH and that the first build takes a while, and it quotes
//! no count of tests or expectations that goes stale (it said 173 tests and
//! 252 expectations when there were 264 and 431).

mod common;

use common::{ptxmc, stdout};

fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    std::fs::read_to_string(path).expect("README.md")
}

/// The first command of the README's first `sh` block, as `ptxmc` arguments.
fn first_command(text: &str) -> Vec<String> {
    let block = text.split("```sh\n").nth(1).expect("a sh block");
    let line = block.lines().next().expect("a first command");
    let args = line
        .strip_prefix("cargo run --release -- ")
        .or_else(|| line.strip_prefix("ptxmc "))
        .unwrap_or_else(|| panic!("not a ptxmc command: {line}"));
    args.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_first_command_prints_a_short_report_that_matches_its_expectations() {
    let args = first_command(&readme());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ptxmc(&args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let lines = out.lines().count();
    assert!(lines <= 30, "{lines} lines: {out}");
    assert!(out.contains("Summary:"), "{out}");
    let matched = out
        .lines()
        .find_map(|l| l.strip_prefix("expectations: matched "))
        .unwrap_or_else(|| panic!("no expectations line: {out}"));
    let (m, n) = matched.split_once(" of ").expect("M of N");
    assert_eq!(m.trim(), n.trim(), "{out}");
}

#[test]
fn the_readme_says_how_to_install_and_quotes_no_counts() {
    let text = readme();
    assert!(text.contains("cargo install --path ."), "no install step");
    assert!(text.contains("first build"), "no note on the first build");
    // A count of tests or expectations goes stale with the next test added.
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        for w in words.windows(2) {
            let n = w[0].trim_matches(|c: char| !c.is_ascii_digit());
            let counted = w[1].trim_end_matches(|c: char| !c.is_alphabetic());
            let stale = matches!(counted, "tests" | "expectations" | "files")
                && n.len() >= 2
                && w[0].chars().all(|c| c.is_ascii_digit() || c == ',');
            assert!(!stale, "README quotes a count: {line}");
        }
    }
}
