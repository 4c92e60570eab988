//! Merging the parts of a split gives the undivided report.

use crate::report::{Options, Report};
use std::time::Duration;

fn family(name: &str, n: usize) -> ptxmc_frontend::ir::Test {
    let src = ptxmc_frontend::families::generate(name, n, "gpu").expect("a family");
    ptxmc_frontend::parse(&src).expect("parses")
}

fn corpus(rel: &str) -> ptxmc_frontend::ir::Test {
    let path = format!("{}/../corpus/{rel}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    ptxmc_frontend::parse(&src).expect("parses")
}

fn timeless(mut r: Report) -> Report {
    r.time = Duration::ZERO;
    r
}

fn split(test: &ptxmc_frontend::ir::Test, opts: &Options, n: u32) -> Vec<super::PartResult> {
    (1..=n)
        .map(|k| super::check_part(test, opts, k, n))
        .collect()
}

#[test]
fn the_parts_merge_into_the_undivided_report() {
    let tests = [
        family("writers", 3),
        family("counter", 4),
        family("ticket-lock", 2),
        family("sb-fence-sc", 3),
        corpus("liveness/spin-weak-flag-race.litmus"),
        corpus("liveness/spin-bar-deadlock.litmus"),
    ];
    let opts = Options::default();
    for test in &tests {
        let whole = timeless(crate::explore::check(test, &opts));
        for n in [1, 2, 3, 7] {
            let parts = split(test, &opts, n);
            let plans: Vec<u64> = parts.iter().map(|p| p.plan).collect();
            assert!(
                plans.iter().all(|&p| p == plans[0]),
                "{}: plans differ",
                test.name
            );
            let merged = timeless(super::merge(test, &parts));
            assert_eq!(whole, merged, "{} in {n} parts", test.name);
        }
    }
}

#[test]
fn parts_share_the_work_and_a_rerun_is_the_same() {
    let test = family("writers", 4);
    let opts = Options::default();
    let parts = split(&test, &opts, 2);
    let size = |p: &super::PartResult| {
        p.pieces
            .iter()
            .map(|x| x.tally.stats.executions + x.tally.stats.pruned)
            .sum::<u64>()
    };
    let (a, b) = (size(&parts[0]), size(&parts[1]));
    assert!(a > 0 && b > 0, "{a} {b}");
    assert!(parts[0].roots >= 2);
    let again = super::check_part(&test, &opts, 2, 2);
    assert_eq!(again.pieces, parts[1].pieces);
    // A part alone is not the whole.
    let whole = crate::explore::check(&test, &opts);
    let one = super::merge(&test, &parts[..1]);
    assert!(one.stats.executions < whole.stats.executions);
}

#[test]
fn owners_are_contiguous_and_balanced() {
    let roots: Vec<(super::Path, u64)> = (0..10).map(|i| (vec![(0, i)], 10)).collect();
    let o = super::owners(&roots, 2);
    assert_eq!(o, vec![1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    let o = super::owners(&roots, 3);
    assert!(o.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(o.first(), Some(&1));
    assert_eq!(o.last(), Some(&3));
}

/// A part whose states were left out past its deadline (or during which a
/// consistency check was interrupted) carries no verdict: status `limit`,
/// as a whole run (`explore::check_pruning`); before the deadline, or for a
/// status that already says why, the status stays.
#[test]
fn an_interrupted_part_is_a_limit() {
    use super::super::outcome::Outcomes;
    use super::super::Budget;
    use crate::report::Status;
    use std::time::Instant;
    let test = family("writers", 2);
    let start = Instant::now();
    let passed = Options {
        timeout: Some(Duration::ZERO),
        ..Options::default()
    };
    let later = Options {
        timeout: Some(Duration::from_secs(3600)),
        ..Options::default()
    };
    let mut out = Outcomes::new(&test);
    let before = crate::interrupt::interruptions();
    let guard = |status: Status, out: &Outcomes, opts: &Options| {
        super::deadline_guard(status, before, out, &Budget::new(opts, start), opts)
    };
    // Nothing happened: the status stays.
    assert_eq!(guard(Status::Ok, &out, &passed), Status::Ok);
    out.late = true;
    assert_eq!(
        guard(Status::Ok, &out, &passed),
        Status::Limit("timeout after 0.000 s".into())
    );
    assert_eq!(guard(Status::Ok, &out, &later), Status::Ok);
    let why = Status::Unsupported("x".into());
    assert_eq!(guard(why.clone(), &out, &passed), why);
    // And a whole part whose deadline has passed ends as a limit, never `ok`.
    let part = super::check_part(&family("writers", 3), &passed, 1, 2);
    assert!(matches!(part.status, Status::Limit(_)), "{:?}", part.status);
}
