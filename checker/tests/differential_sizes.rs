//! Differential testing of the explorers on random programs with the
//! constructs of issue 7 part B: byte-addressed accesses of mixed sizes
//! (`.u16` to `.u64`, `[x+N]` also 2^20 and 2^31 - 8 bytes in, `.v2` vectors,
//! packed `.f16x2` also `.mmio` and `.v4`, 8.2, 8.2.4, 8.2.5), mixed-size data
//! races (8.7.2, status `undefined`), multimem addresses and `multimem.st`/
//! `red`/`ld_reduce` (8.2.3), kernels and
//! streams (8.9.4, API synchronization), `.volatile` and `.mmio` (8.4).
//!
//! Every generated program is checked by DPOR and by the reference
//! enumerator, which must agree on the whole status (the `undefined` message
//! included: it names the first race by source position), the final states
//! and their counts, the verdicts and the execution counts.
//!
//! `PTXMC_SIZES_CASES` (default 1000 in release), `PTXMC_SIZES_SEED`
//! (default 0) and `PTXMC_SIZES_TIMEOUT_MS` (default 3000) tune a run.

#[path = "gen/mod.rs"]
mod gen;

use gen::compare::{differences, env_num, run};
use gen::Rng;
use ptxmc_checker::{Report, Status, Strategy};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

const DEFAULT_CASES: usize = if cfg!(debug_assertions) { 40 } else { 1000 };

const SCOPES: [&str; 3] = ["cta", "gpu", "sys"];

/// The address `off` bytes into the 8-byte window at `base` of `x`.
fn at(base: usize, off: usize) -> String {
    match base + off {
        0 => "[x]".to_string(),
        n => format!("[x+{n}]"),
    }
}

/// The start of a program's 8-byte window in `x`: byte 0 mostly, sometimes
/// far in (2^20, or the last 8 bytes an address offset reaches, 2^31 - 8:
/// PTX ISA 6.4.1), drawn from the seed so that the draws stay as they were.
fn window(seed: u64) -> usize {
    match seed % 10 {
        7 => 1 << 20,
        9 => (1 << 31) - 8,
        _ => 0,
    }
}

/// One memory access of `x` (8 bytes from `base`, accessed by sizes 2, 4 and
/// 8 at aligned offsets).
fn access(rng: &mut Rng, base: usize) -> (String, &'static str, usize) {
    let (ty, size) = rng.pick(&[("u16", 2usize), ("u32", 4), ("u32", 4), ("u64", 8)]);
    let off = size * rng.below(8 / size);
    (at(base, off), ty, size)
}

fn load_sem(rng: &mut Rng) -> String {
    match rng.below(10) {
        0..=4 => String::new(),
        5 | 6 => format!(".relaxed.{}", rng.pick(&SCOPES)),
        7 => format!(".acquire.{}", rng.pick(&SCOPES)),
        8 => ".volatile".into(),
        _ => ".mmio.relaxed.sys".into(),
    }
}

fn store_sem(rng: &mut Rng) -> String {
    match rng.below(10) {
        0..=4 => String::new(),
        5 | 6 => format!(".relaxed.{}", rng.pick(&SCOPES)),
        7 => format!(".release.{}", rng.pick(&SCOPES)),
        8 => ".volatile".into(),
        _ => ".mmio.relaxed.sys".into(),
    }
}

/// One instruction of thread `t`; `regs` counts the registers used so far.
fn instruction(
    rng: &mut Rng,
    t: usize,
    regs: &mut usize,
    multimem: bool,
    base: usize,
    packed: bool,
) -> Vec<String> {
    let reg = |regs: &mut usize| {
        *regs += 1;
        format!("%r{}", *regs - 1)
    };
    match rng.below(100) {
        0..=27 => {
            let (a, ty, _) = access(rng, base);
            vec![format!(
                "st.global{}.{ty} {a}, {}",
                store_sem(rng),
                rng.range(1, 3) * (t + 1)
            )]
        }
        28..=52 => {
            let (a, ty, _) = access(rng, base);
            let r = reg(regs);
            vec![format!("ld.global{}.{ty} {r}, {a}", load_sem(rng))]
        }
        53..=60 if packed && rng.chance(40) => {
            // Packed halves (8.2.5): `.mmio` ones and `.v4` vectors of
            // them are scalar halves; release/acquire ones are unordered.
            let (sem, v4) = match rng.below(4) {
                0 => (".mmio.relaxed.sys", false),
                1 => (".release.gpu", true),
                2 => (".acquire.gpu", true),
                _ => ("", true),
            };
            // Sixteen bytes from the window at 2^31 - 8 would pass the
            // offsets an address holds (the halves' are a parse error).
            let v4 = v4 && base < (1 << 31) - 16;
            let a = at(base, 4 * rng.below(2));
            let store = rng.chance(50) && sem != ".acquire.gpu";
            let load_sem = if sem == ".release.gpu" { "" } else { sem };
            match (store, v4) {
                (true, false) => vec![format!("st.global{sem}.f16x2 {a}, 0x{:04x}0001", t + 1)],
                (false, false) => vec![format!("ld.global{load_sem}.f16x2 {}, {a}", reg(regs))],
                (true, true) => vec![format!(
                    "st.global{sem}.v4.f16x2 {}, {{1, 0x00010002, {}, 3}}",
                    at(base, 0),
                    t + 1
                )],
                (false, true) => {
                    let r: Vec<String> = (0..4).map(|_| reg(regs)).collect();
                    vec![format!(
                        "ld.global{load_sem}.v4.f16x2 {{{}}}, {}",
                        r.join(", "),
                        at(base, 0)
                    )]
                }
            }
        }
        53..=60 => {
            let a = at(base, 4 * rng.below(2));
            let sem = rng.pick(&["", ".volatile", ".relaxed.gpu"]);
            if rng.chance(50) {
                vec![format!("st.global{sem}.v2.u16 {a}, {{1, {}}}", t + 2)]
            } else {
                let (r0, r1) = (reg(regs), reg(regs));
                vec![format!("ld.global{sem}.v2.u16 {{{r0}, {r1}}}, {a}")]
            }
        }
        61..=72 => {
            let (a, _, size) = access(rng, base);
            let op = rng.pick(&["or", "xor", "exch", "add"]);
            let ty = match (op, size) {
                ("add", 2) => "u16",
                ("add", 4) => "u32",
                ("add", _) => "u64",
                (_, 2) => "b16",
                (_, 4) => "b32",
                _ => "b64",
            };
            let sem = rng.pick(&["relaxed", "acq_rel", "relaxed"]);
            let r = reg(regs);
            vec![format!(
                "atom.global.{sem}.{}.{op}.{ty} {r}, {a}, {}",
                rng.pick(&SCOPES),
                1 << (8 * rng.below(2))
            )]
        }
        73..=80 => vec![format!(
            "fence.{}.{}",
            rng.pick(&["sc", "acq_rel"]),
            rng.pick(&SCOPES)
        )],
        81..=92 => {
            // A release/acquire flag on y, the load guarding what follows.
            if rng.chance(50) {
                vec!["st.global.release.gpu.u32 [y], 1".into()]
            } else {
                let r = reg(regs);
                vec![
                    format!("ld.global.acquire.gpu.u32 {r}, [y]"),
                    format!("bne {r}, 1, END{t}"),
                ]
            }
        }
        _ if multimem => {
            let r = reg(regs);
            match rng.below(7) {
                // `multimem.st` of floating-point types stores bits (8.2.4,
                // 8.2.5: one scalar store per element or half, per location).
                5 => vec![format!(
                    "multimem.st.release.gpu.global.v2.f32 [mm], {{1, {}}}",
                    t + 1
                )],
                6 => vec!["multimem.st.relaxed.sys.global.f16x2 [mm], 0x00020001".into()],
                0 => vec![format!("ld.global.u32 {r}, [m]")],
                1 => vec![format!(
                    "multimem.st.relaxed.sys.global.u32 [mm], {}",
                    t + 1
                )],
                2 => vec!["multimem.red.relaxed.gpu.global.add.u32 [mm], 1".into()],
                3 => vec![format!(
                    "multimem.ld_reduce.relaxed.sys.global.max.u32 {r}, [mm]"
                )],
                _ => vec![format!("ld.global.relaxed.sys.u32 {r}, [w]")],
            }
        }
        _ => vec!["st.global.relaxed.sys.u32 [y], 2".into()],
    }
}

/// A random program (real PTX spelling, as the corpus writes it).
fn generate(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let n = rng.range(2, 3);
    let multimem = rng.chance(15);
    let mut init = vec![format!("x={}", rng.pick(&[0i64, 0, 0x0102_0304]))];
    init.push("y=0".into());
    if multimem {
        init.push("m @ multimem".into());
        init.push("z=0".into());
        init.push("w=0".into());
        init.push("mm @ multimem z, w".into());
    }
    if rng.chance(30) {
        // Kernels: each thread in its own kernel, streams with events.
        let kernels =
            |ts: std::ops::Range<usize>| ts.map(|t| format!("K{t}")).collect::<Vec<_>>().join(", ");
        for t in 0..n {
            init.push(format!("kernel K{t} = P{t}"));
        }
        match rng.below(4) {
            0 => init.push(format!("stream S0 = {}", kernels(0..n))),
            1 => {
                init.push("stream S0 = K0, record E".into());
                init.push(format!("stream S1 = wait E, {}", kernels(1..n)));
            }
            2 => {
                init.push("stream S0 = record E, K0".into());
                init.push(format!("stream S1 = wait E, {}", kernels(1..n)));
            }
            _ => {
                for t in 0..n {
                    init.push(format!("stream S{t} = K{t}"));
                }
            }
        }
    }
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut regs_of = Vec::new();
    for t in 0..n {
        let mut regs = 0usize;
        let mut code = Vec::new();
        for _ in 0..rng.range(1, 3) {
            code.extend(instruction(
                &mut rng,
                t,
                &mut regs,
                multimem,
                window(seed),
                seed % 3 == 1,
            ));
        }
        code.push(format!("END{t}:"));
        cols.push(code);
        regs_of.push(regs);
    }
    let mut out = format!("PTX sizes-{seed}\n{{\n");
    for i in &init {
        out.push_str(&format!("{i};\n"));
    }
    out.push_str("}\n");
    let header: Vec<String> = (0..n)
        .map(|t| format!("P{t}@cta {},gpu {}", rng.below(2), rng.below(2)))
        .collect();
    out.push_str(&format!(" {} ;\n", header.join(" | ")));
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    for r in 0..rows {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| c.get(r).cloned().map_or(String::new(), |s| format!("{s};")))
            .collect();
        out.push_str(&format!(" {} ;\n", cells.join(" | ")));
    }
    let mut atoms = vec![format!("x == {}", rng.pick(&[0i64, 1, 2, 0x0102_0304]))];
    for (t, &k) in regs_of.iter().enumerate() {
        if k > 0 {
            atoms.push(format!("{t}:r{} == {}", rng.below(k), rng.below(3)));
        }
    }
    let k = rng.range(1, atoms.len().min(2));
    let q = rng.pick(&["exists", "~exists", "forall"]);
    out.push_str(&format!("{q} ({})\n", atoms[..k].join(" /\\ ")));
    out
}

#[test]
fn random_sized_programs_agree() {
    let n = env_num("PTXMC_SIZES_CASES").map_or(DEFAULT_CASES, |n| n as usize);
    let seed = env_num("PTXMC_SIZES_SEED").unwrap_or(0);
    let timeout = Duration::from_millis(env_num("PTXMC_SIZES_TIMEOUT_MS").unwrap_or(3000));
    let texts: Vec<String> = (0..n).map(|i| generate(seed + i as u64)).collect();
    let next = AtomicUsize::new(0);
    let results: Mutex<BTreeMap<usize, Result<&'static str, String>>> = Mutex::new(BTreeMap::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = match ptxmc_frontend::parse(&texts[i]) {
                    Err(e) => Err(format!("parse error: {e}")),
                    Ok(t) => {
                        let d = run(&t, Strategy::Dpor, timeout);
                        let b = run(&t, Strategy::Brute, timeout);
                        let stopped = |r: &Report| match &r.status {
                            Status::Limit(_) => true,
                            Status::Undefined(m) => m.contains("exploration stopped"),
                            _ => false,
                        };
                        if stopped(&b) || stopped(&d) {
                            Ok("limit")
                        } else {
                            if let (Status::Unsupported(m), Ok(_)) =
                                (&b.status, std::env::var("PTXMC_SIZES_SHOW"))
                            {
                                println!("unsupported: {m}");
                            }
                            let diffs = differences(&b, &d);
                            if diffs.is_empty() {
                                Ok(b.status.name())
                            } else {
                                Err(diffs.join("\n  "))
                            }
                        }
                    }
                };
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(i, r);
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, r) in &results {
        match r {
            Ok(s) => *tally.entry(s).or_default() += 1,
            Err(e) => {
                *tally.entry("DIVERGE").or_default() += 1;
                failures.push(format!("seed {}:\n  {e}\n{}", seed + *i as u64, texts[*i]));
            }
        }
    }
    let uses = |pat: &str| texts.iter().filter(|t| t.contains(pat)).count();
    println!(
        "sizes: {n} programs: {tally:?}; with [x+N] {} (2^20 in {}, 2^31 - 8 in {}), packed {} (.v4 {}, mmio {}), .v2 {}, multimem {} (instructions {}), kernels {}, volatile {}, mmio {}",
        uses("[x+"),
        uses("[x+10485"),
        uses("[x+21474836"),
        uses("f16x2"),
        uses(".v4.f16x2"),
        uses(".mmio.relaxed.sys.f16x2"),
        uses(".v2."),
        uses("multimem"),
        uses("multimem."),
        uses("kernel"),
        uses(".volatile"),
        uses(".mmio")
    );
    for f in &failures {
        println!("FAILURE {f}");
    }
    assert!(failures.is_empty(), "{} programs diverge", failures.len());
    assert!(uses("[x+10485") > 0 && uses("[x+21474836") > 0 || n < 10);
    assert!(uses(".v4.f16x2") > 0 && uses(".mmio.relaxed.sys.f16x2") > 0 || n < 30);
    // The generator must reach the new verdicts, not only refusals.
    assert!(
        tally.get("undefined").copied().unwrap_or(0) > 0,
        "{tally:?}"
    );
    assert!(tally.get("ok").copied().unwrap_or(0) > n / 4, "{tally:?}");
    assert!(
        tally.get("limit").copied().unwrap_or(0) <= n / 20,
        "{tally:?}"
    );
}

/// A program over the words `[x]` and `[x+4]` only (u32 accesses), with a
/// condition on registers.
fn two_words(seed: u64) -> String {
    let mut rng = Rng::new(seed ^ 0x5157_0a0b);
    let n = rng.range(2, 3);
    let mut cols = Vec::new();
    let mut regs_of = Vec::new();
    for t in 0..n {
        let mut regs = 0usize;
        let mut code = Vec::new();
        for _ in 0..rng.range(1, 3) {
            let a = rng.pick(&["[x]", "[x+4]"]);
            let scope = rng.pick(&SCOPES);
            code.push(match rng.below(5) {
                0 => format!("st.global.u32 {a}, {}", t + 1),
                1 => format!("st.global.release.{scope}.u32 {a}, {}", t + 1),
                2 => {
                    regs += 1;
                    format!("ld.global.acquire.{scope}.u32 %r{}, {a}", regs - 1)
                }
                3 => {
                    regs += 1;
                    format!("ld.global.u32 %r{}, {a}", regs - 1)
                }
                _ => {
                    regs += 1;
                    format!("atom.global.relaxed.{scope}.add.u32 %r{}, {a}, 1", regs - 1)
                }
            });
        }
        cols.push(code);
        regs_of.push(regs);
    }
    let header: Vec<String> = (0..n)
        .map(|t| format!("P{t}@cta {},gpu 0", rng.below(2)))
        .collect();
    let mut out = format!(
        "PTX words-{seed}\n{{\nx=0;\n}}\n {} ;\n",
        header.join(" | ")
    );
    for r in 0..cols.iter().map(Vec::len).max().unwrap_or(0) {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| c.get(r).map_or(String::new(), |s| format!("{s};")))
            .collect();
        out.push_str(&format!(" {} ;\n", cells.join(" | ")));
    }
    let atoms: Vec<String> = regs_of
        .iter()
        .enumerate()
        .filter(|(_, &k)| k > 0)
        .map(|(t, &k)| format!("{t}:r{} == {}", rng.below(k), rng.below(3)))
        .collect();
    let prop = if atoms.is_empty() {
        "true".to_string()
    } else {
        atoms.join(" /\\ ")
    };
    out.push_str(&format!("exists ({prop})\n"));
    out
}

/// 8.2: `[x]` and `[x+4]` with 4-byte accesses are two locations; a program
/// over them gives exactly what the same program over two variables gives.
#[test]
fn disjoint_words_behave_as_two_variables() {
    let n = env_num("PTXMC_SIZES_CASES").map_or(DEFAULT_CASES / 4, |n| n as usize / 4);
    let seed = env_num("PTXMC_SIZES_SEED").unwrap_or(0);
    let mut compared = 0;
    for i in 0..n as u64 {
        let split = two_words(seed + i);
        let renamed = split.replace("[x+4]", "[w]").replace("x=0;", "x=0;\nw=0;");
        let (Ok(a), Ok(b)) = (
            ptxmc_frontend::parse(&split),
            ptxmc_frontend::parse(&renamed),
        ) else {
            panic!("does not parse:\n{split}\n{renamed}");
        };
        let timeout = Duration::from_secs(5);
        let (ra, rb) = (
            run(&a, Strategy::Dpor, timeout),
            run(&b, Strategy::Dpor, timeout),
        );
        if matches!(ra.status, Status::Limit(_)) || matches!(rb.status, Status::Limit(_)) {
            continue;
        }
        compared += 1;
        assert_eq!(ra.status, rb.status, "{split}");
        assert_eq!(ra.states, rb.states, "{split}");
        assert_eq!(
            (ra.condition_holds, ra.stats.executions),
            (rb.condition_holds, rb.stats.executions),
            "{split}"
        );
    }
    println!("two words: {compared} of {n} programs compared");
    assert!(compared * 10 >= n * 9);
}
