//! Differential testing of the explorers on random programs with the
//! constructs of issue 17 (the rest of chapter 8): `.b128` loads, stores and
//! exchanges (8.2.4, 8.10.3), vector `st.async` (8.2.4, 8.9.1.1), packed
//! `.f16x2` accesses (8.2.5), `multimem` (8.2.3; floating-point reductions
//! included), `ld.global.nc` (8.6),
//! `wgmma` (8.9.1.1), `mbarrier.arrive_drop`, and the API synchronization of
//! kernels, streams, graphs and a host thread with its synchronizing calls
//! and query loops (8.9.4).
//!
//! Every generated program is checked by DPOR and by the reference
//! enumerator, which must agree on the whole status (an `undefined` message
//! names the first race by source position), the final states and their
//! counts, the verdicts and the execution counts.
//!
//! `PTXMC_CH8_CASES` (default 300 in release), `PTXMC_CH8_SEED` (default 0),
//! `PTXMC_CH8_TIMEOUT_MS` (default 3000) tune a run; `PTXMC_CH8_SHOW=1`
//! prints the statuses other than `ok`.

#[path = "gen/mod.rs"]
mod gen;

use gen::compare::{differences, env_num, run};
use gen::Rng;
use ptxmc_checker::{Report, Status, Strategy};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

const DEFAULT_CASES: usize = if cfg!(debug_assertions) { 30 } else { 300 };

/// What a generated program may use besides plain accesses.
#[derive(Copy, Clone)]
struct Features {
    /// Threads are in one cluster (st.async to shared::cluster memory).
    cluster: bool,
    /// A multimem address `mm` over `z`, `w`.
    multimem: bool,
    /// Kernels, streams or a graph, and maybe a host thread (the last one).
    api: Api,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Api {
    None,
    Streams,
    Graph,
    Host,
}

/// Registers of a thread: `%rN` and `%rdN` counters.
#[derive(Default)]
struct Regs {
    r: usize,
    rd: usize,
}

impl Regs {
    fn r(&mut self) -> String {
        self.r += 1;
        format!("%r{}", self.r - 1)
    }
}

/// One snippet of device code of thread `t`.
fn device(rng: &mut Rng, t: usize, regs: &mut Regs, f: Features) -> Vec<String> {
    let v = (t + 1) as i64 * if rng.chance(30) { -1 } else { 1 };
    match rng.below(100) {
        // .b128: two 8-byte halves (ld/st), one 16-byte RMW (atom).
        0..=11 => {
            // A .release .b128 store is refused (its halves would need no
            // order between them, docs/model-notes.md): rare.
            let sem = if rng.chance(5) {
                ".release.gpu"
            } else {
                rng.pick(&["", "", ".relaxed.gpu", ".relaxed.sys"])
            };
            vec![format!("st.global{sem}.b128 [x], {v}")]
        }
        12..=21 => {
            let sem = if rng.chance(5) {
                ".acquire.gpu"
            } else {
                rng.pick(&["", ".relaxed.gpu", ".relaxed.gpu"])
            };
            vec![format!("ld.global{sem}.b128 {}, [x]", regs.r())]
        }
        22..=27 => {
            let a = rng.pick(&["[x]", "[x+8]"]);
            vec![format!("ld.global.relaxed.gpu.u64 {}, {a}", regs.r())]
        }
        28..=31 => vec![format!(
            "atom.global.relaxed.gpu.exch.b128 {}, [x], {v}",
            regs.r()
        )],
        // Packed halves (8.2.5).
        32..=37 => {
            let sem = rng.pick(&["", ".relaxed.gpu"]);
            if rng.chance(50) {
                vec![format!(
                    "st.global{sem}.f16x2 [p], {}",
                    0x0001_0001 * (t as i64 + 1)
                )]
            } else {
                vec![format!("ld.global{sem}.f16x2 {}, [p]", regs.r())]
            }
        }
        38..=40 => vec![format!("ld.global.relaxed.gpu.u16 {}, [p+2]", regs.r())],
        // Vector st.async and its readers (8.2.4, 8.9.1.1).
        41..=50 if f.cluster && f.api == Api::None => {
            let sem = rng.pick(&["", ".release.cluster"]);
            vec![format!(
                "st.async{sem}.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [s], {{{}, {}}}, [bar]",
                t + 1,
                t + 2
            )]
        }
        51..=58 if f.cluster => {
            let sem = rng.pick(&["acquire", "relaxed"]);
            let a = rng.pick(&["[s]", "[s+4]"]);
            vec![format!(
                "ld.{sem}.cluster.shared::cluster.u32 {}, {a}",
                regs.r()
            )]
        }
        59 if f.cluster => vec![format!(
            "ld.relaxed.cluster.shared::cluster.u64 {}, [s]",
            regs.r()
        )],
        // Multimem (8.2.3).
        60..=66 if f.multimem => match rng.below(11) {
            0 => vec![format!(
                "multimem.st.relaxed.sys.global.u32 [mm], {}",
                t + 1
            )],
            1 => vec![format!(
                "multimem.st.release.sys.global.u32 [mm], {}",
                t + 1
            )],
            2 => vec!["multimem.red.relaxed.gpu.global.add.u32 [mm], 1".into()],
            3 => vec!["multimem.red.release.gpu.global.add.u32 [mm], 1".into()],
            4 => vec![format!(
                "multimem.ld_reduce.acquire.sys.global.add.u32 {}, [mm]",
                regs.r()
            )],
            5 => vec![format!(
                "multimem.ld_reduce.relaxed.sys.global.add.u32 {}, [mm]",
                regs.r()
            )],
            // Floating-point reductions (values are bit patterns; IEEE
            // arithmetic, packed halves as two operations, 8.2.5).
            6 => vec!["multimem.red.relaxed.gpu.global.add.f32 [mm], 0f3F800000".into()],
            7 => vec!["multimem.red.release.sys.global.add.f32 [mm], 0f3F800000".into()],
            8 => vec!["multimem.red.relaxed.sys.global.add.bf16x2 [mm], 0x3f803f80".into()],
            9 => vec![format!(
                "multimem.ld_reduce.acquire.sys.global.add.f32 {}, [mm]",
                regs.r()
            )],
            _ => vec![format!(
                "multimem.ld_reduce.relaxed.sys.global.max.f32 {}, [mm]",
                regs.r()
            )],
        },
        // Release / acquire vectors, packed halves and their observers (no
        // order between the elements, 8.2.4, 8.2.5).
        60..=66 => match rng.below(5) {
            0 => vec![format!(
                "st.release.gpu.global.v2.u32 [v], {{{}, 1}}",
                t + 1
            )],
            1 => vec![format!(
                "ld.acquire.gpu.global.v2.u32 {{{}, {}}}, [v]",
                regs.r(),
                regs.r()
            )],
            2 => vec![format!(
                "ld.acquire.gpu.global.u32 {}, [v+{}]",
                regs.r(),
                rng.pick(&[0, 4])
            )],
            3 => vec!["st.release.gpu.global.f16x2 [p], 0x00010001".into()],
            _ => vec![format!("ld.acquire.gpu.global.f16x2 {}, [p]", regs.r())],
        },
        // The readonly proxy (8.6).
        // (Asynchronous operations and the readonly proxy are refused in
        // tests with kernels: not generated there.)
        67..=70 if f.api == Api::None => vec![format!("ld.global.nc.u32 {}, [y]", regs.r())],
        // A wgmma stage: the tile read through the async proxy (8.9.1.1, 8.6).
        71..=74 if f.api == Api::None => {
            regs.rd += 2;
            let (a, b) = (regs.rd - 2, regs.rd - 1);
            let acc = regs.r();
            let mut v = Vec::new();
            if rng.chance(60) {
                v.push("fence.proxy.async.shared::cta".into());
            }
            v.extend([
                format!("mov.b64 %rd{a}, ta"),
                format!("mov.b64 %rd{b}, tb"),
                "wgmma.fence.sync.aligned".into(),
                format!(
                    "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {{{acc}}}, %rd{a}, %rd{b}, 0"
                ),
                "wgmma.commit_group.sync.aligned".into(),
                "wgmma.wait_group.sync.aligned 0".into(),
            ]);
            v
        }
        75..=78 => vec![format!("st.shared.u32 [ta], {}", t + 2)],
        // Flags and fences.
        79..=85 => vec![format!("st.global.release.gpu.u32 [y], {}", t + 1)],
        86..=91 => {
            let r = regs.r();
            vec![
                format!("ld.global.acquire.gpu.u32 {r}, [y]"),
                format!("bne {r}, 1, END{t}"),
            ]
        }
        92..=95 => vec![format!(
            "fence.{}.{}",
            rng.pick(&["sc", "acq_rel"]),
            rng.pick(&["cta", "gpu"])
        )],
        _ => vec![format!("st.global.relaxed.gpu.u32 [y], {}", t + 1)],
    }
}

/// The host thread's code: accesses of pinned memory, launches of the
/// kernels (or the graph) into `S0`, a synchronization and reads.
fn host(rng: &mut Rng, kernels: usize, graph: bool, regs: &mut Regs) -> Vec<String> {
    let mut v = Vec::new();
    if rng.chance(50) {
        v.push("st.global.u32 [y], 1".into());
    }
    if graph {
        v.push("cudaGraphLaunch G, S0".into());
    } else {
        for k in 0..kernels {
            let s = if rng.chance(30) { 1 } else { 0 };
            v.push(format!("cudaLaunchKernel K{k}, S{s}"));
        }
    }
    match rng.below(5) {
        0 => v.push("cudaStreamSynchronize S0".into()),
        1 => v.push("cudaDeviceSynchronize".into()),
        2 => {
            v.push("cudaEventRecord E, S0".into());
            v.push("cudaEventSynchronize E".into());
        }
        3 => {
            let r = regs.r();
            v.push("cudaEventRecord E, S0".into());
            v.push("LQ:".into());
            v.push(format!("cudaEventQuery {r}, E"));
            v.push(format!("beq {r}, 0, LQ"));
        }
        _ => {}
    }
    let r = regs.r();
    v.push(format!(
        "ld.global{}.u32 {r}, [{}]",
        rng.pick(&["", ".acquire.sys"]),
        rng.pick(&["y", "z"])
    ));
    v
}

/// A random program (real PTX spelling, as the corpus writes it).
fn generate(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let api = match rng.below(10) {
        0..=4 => Api::None,
        5 | 6 => Api::Streams,
        7 => Api::Graph,
        _ => Api::Host,
    };
    let f = Features {
        cluster: rng.chance(35),
        multimem: api == Api::None && rng.chance(40),
        api,
    };
    let n_dev = rng.range(2, 3).min(if api == Api::Host { 2 } else { 3 });
    let mut init = vec![
        "x=0".to_string(),
        "y=0".into(),
        "z=0".into(),
        "p=0".into(),
        "v=0".into(),
    ];
    init.extend(["ta=1".into(), "tb=2".into()]);
    if f.cluster {
        init.extend(["s=0".into(), "bar=0".into()]);
    }
    if f.multimem {
        init.extend(["w=0".into(), "mm @ multimem z, w".into()]);
    }
    match api {
        Api::None => {}
        Api::Streams | Api::Host => {
            for t in 0..n_dev {
                init.push(format!("kernel K{t} = P{t}"));
            }
            if api == Api::Host {
                init.push("stream S0".into());
                init.push("stream S1".into());
                init.push(format!("host P{n_dev}"));
            } else if rng.chance(50) {
                let ks: Vec<String> = (0..n_dev).map(|t| format!("K{t}")).collect();
                init.push(format!("stream S0 = {}", ks.join(", ")));
            } else {
                init.push("stream S0 = K0, record E".into());
                let ks: Vec<String> = (1..n_dev).map(|t| format!("K{t}")).collect();
                init.push(format!("stream S1 = wait E, {}", ks.join(", ")));
            }
        }
        Api::Graph => {
            for t in 0..n_dev {
                init.push(format!("kernel K{t} = P{t}"));
            }
            let edges = if n_dev == 3 && rng.chance(50) {
                "K0 -> K1, K0 -> K2".to_string()
            } else if n_dev == 3 {
                "K0 -> K1 -> K2".to_string()
            } else {
                "K0 -> K1".to_string()
            };
            init.push(format!("graph G = {edges}"));
            init.push("stream S0 = G".into());
        }
    }
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut regs_of = Vec::new();
    for t in 0..n_dev {
        let mut regs = Regs::default();
        let mut code = Vec::new();
        for _ in 0..rng.range(1, 3) {
            code.extend(device(&mut rng, t, &mut regs, f));
        }
        code.push(format!("END{t}:"));
        cols.push(code);
        regs_of.push(regs.r);
    }
    if api == Api::Host {
        let mut regs = Regs::default();
        let graph = rng.chance(30);
        if graph {
            let g = if n_dev == 2 { "K0 -> K1" } else { "K0" };
            init.push(format!("graph G = {g}"));
        }
        cols.push(host(&mut rng, n_dev, graph, &mut regs));
        regs_of.push(regs.r);
    }
    let mut out = format!("PTX ch8-{seed}\n{{\n");
    for i in &init {
        out.push_str(&format!("{i};\n"));
    }
    out.push_str("}\n");
    let header: Vec<String> = (0..cols.len())
        .map(|t| {
            if f.cluster {
                format!("P{t}@cta {},cluster 0,gpu 0", rng.below(2))
            } else {
                format!("P{t}@cta {},gpu 0", rng.below(2))
            }
        })
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
    let mut atoms = vec![format!("y == {}", rng.below(3))];
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
fn random_ch8_programs_agree() {
    let n = env_num("PTXMC_CH8_CASES").map_or(DEFAULT_CASES, |n| n as usize);
    let seed = env_num("PTXMC_CH8_SEED").unwrap_or(0);
    let timeout = Duration::from_millis(env_num("PTXMC_CH8_TIMEOUT_MS").unwrap_or(3000));
    let show = std::env::var("PTXMC_CH8_SHOW").is_ok();
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
                        if show && !matches!(b.status, Status::Ok) {
                            println!("seed {}: {:?}", seed + i as u64, b.status);
                        }
                        if stopped(&b) || stopped(&d) {
                            Ok("limit")
                        } else {
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
        "ch8: {n} programs: {tally:?}; with .b128 {}, release/acquire vectors {}, multimem release/acquire {}, st.async.v2 {}, f16x2 {}, multimem {} (floating-point {}), nc {}, wgmma {}, graph {}, host {}, query loop {}",
        uses(".b128"),
        uses("ease.gpu.global.v2") + uses("uire.gpu.global.v2"),
        uses("multimem.st.release") + uses("multimem.red.release") + uses("ld_reduce.acquire"),
        uses("bytes.v2"),
        uses(".f16x2"),
        uses("multimem."),
        uses("add.f32 [mm]") + uses("bf16x2 [mm]") + uses(".f32 %"),
        uses(".nc."),
        uses("wgmma.mma_async"),
        uses("graph G"),
        uses("host P"),
        uses("cudaEventQuery"),
    );
    for f in &failures {
        println!("FAILURE {f}");
    }
    assert!(failures.is_empty(), "{} programs diverge", failures.len());
    // The generator must reach verdicts, not only refusals and limits.
    assert!(tally.get("ok").copied().unwrap_or(0) > n / 3, "{tally:?}");
    assert!(
        tally.get("limit").copied().unwrap_or(0) <= n / 10,
        "{tally:?}"
    );
}
