//! Graphs past 64 events (issue 14): the DPOR explorer against the reference
//! enumerator on families padded with private accesses (each thread first
//! stores to or loads from a location of its own), and on message passing
//! whose data location has one writer and a reader in another thread. Past
//! 64 events DPOR takes shortcuts for private locations (one writer thread,
//! one address, generic proxy): a read of one reads its thread's last write,
//! a write to one is ordered after its thread's earlier ones, and neither is
//! checked again. These must give the enumerator's executions and states.

use ptxmc_checker::{check, Options, Report, Strategy};
use std::time::Duration;

/// Family `name`-`n`, each thread first making `pad` accesses to `p<t>`:
/// stores (`kind` 0), loads (1) or both alternating (2).
fn padded(name: &str, n: usize, pad: usize, kind: usize) -> String {
    let text = ptxmc_frontend::families::generate(name, n, "gpu").expect("a family");
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with("P0@"))
        .expect("a thread header");
    let threads = lines[header].split('|').count();
    let close = lines[..header]
        .iter()
        .rposition(|l| l.trim() == "}")
        .expect("an initial state");
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == close {
            out.extend((0..threads).map(|t| format!("p{t}=0;")));
        }
        out.push((*l).to_string());
        if i == header {
            for k in 0..pad {
                let row: Vec<String> = (0..threads)
                    .map(|t| match (kind, k % 2) {
                        (0, _) | (2, 0) => format!("st.weak p{t}, {}", k % 5 + 1),
                        _ => format!("ld.weak r9, p{t}"),
                    })
                    .collect();
                out.push(format!(" {} ;", row.join(" | ")));
            }
        }
    }
    out.join("\n") + "\n"
}

fn run(src: &str, strategy: Strategy) -> Report {
    let test = ptxmc_frontend::parse(src).expect("parses");
    let opts = Options {
        strategy,
        check_duplicates: true,
        timeout: Some(Duration::from_secs(60)),
        ..Options::default()
    };
    let mut r = check(&test, &opts);
    r.time = Duration::ZERO;
    r
}

fn agree(src: &str, what: &str) {
    let dpor = run(src, Strategy::Dpor);
    let brute = run(src, Strategy::Brute);
    assert_eq!(dpor.status.name(), "ok", "{what}");
    assert_eq!(brute.status.name(), "ok", "{what}");
    assert_eq!(dpor.stats.duplicates, 0, "{what}");
    assert_eq!(dpor.stats.executions, brute.stats.executions, "{what}");
    assert_eq!(dpor.stats.blocked, brute.stats.blocked, "{what}");
    assert_eq!(dpor.states, brute.states, "{what}");
    assert_eq!(
        (dpor.positive, dpor.negative),
        (brute.positive, brute.negative),
        "{what}"
    );
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the reference enumerator is slow at this size in debug: run with --release"
)]
fn padded_families_past_64_events() {
    // writers-2: 69 events; sb-4: 72; mp-chain-3: 68 (fewer with loads).
    for (name, n, pad) in [("writers", 2, 15), ("sb", 4, 14), ("mp-chain", 3, 14)] {
        for kind in [0, 2] {
            agree(
                &padded(name, n, pad, kind),
                &format!("{name}-{n} pad {pad} kind {kind}"),
            );
        }
    }
}

/// The data location has one writer (so it is private to it) and is read by
/// the other thread: its reads are not the writer's, and waiting reads get
/// the writer's stores (67 events).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the reference enumerator is slow at this size in debug: run with --release"
)]
fn a_private_location_read_by_another_thread() {
    let mut rows = Vec::new();
    for k in 0..30 {
        rows.push(format!("st.weak a, {} | ld.weak r{}, b", k % 3, k % 2 + 2));
    }
    rows.push("st.release.gpu f, 1 | ld.acquire.gpu r0, f".into());
    rows.push("ld.weak r1, a | ld.weak r1, a".into());
    let src = format!(
        "PTX MP-private\n{{ a=0; b=0; f=0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n {} ;\nexists (1:r0 == 1 /\\ 1:r1 != 2)\n",
        rows.join(" ;\n ")
    );
    agree(&src, "MP-private");
}

/// The parallel search on a graph deep enough for the search to move to heap
/// stack segments (131 events, workers with 256 KiB stacks) gives the
/// sequential report.
#[test]
fn parallel_search_on_deep_graphs_is_deterministic() {
    let src = padded("writers", 3, 24, 2);
    let report = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(256 * 1024)
            .build()
            .expect("a pool");
        pool.install(|| run(&src, Strategy::Dpor))
    };
    let one = report(1);
    assert_eq!(one.status.name(), "ok");
    assert_eq!(one.stats.executions, 120);
    for threads in [2, 3] {
        assert_eq!(report(threads), one, "{threads} threads");
    }
}
