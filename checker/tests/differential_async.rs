//! Differential testing of the explorers on asynchronous operations,
//! `mbarrier`s (`.noComplete` arrivals included: `undefined` when one
//! completes its phase) and proxies (8.9.1.1, 8.6): random small programs in real PTX
//! spelling, each checked by the DPOR explorer and by the reference
//! enumerator, which must agree on final states, outcome counts, verdicts
//! and execution counts (as `differential.rs` compares them).
//!
//! `PTXMC_ASYNC_DIFF_CASES` sets how many programs (default 300 in release,
//! 30 in debug), `PTXMC_ASYNC_DIFF_SEED` the first seed. A second run draws
//! its addresses at byte offsets too (`[a+4]`, `[s+4]`, mbarriers at `[bar]`
//! and `[bar+8]`, 8.2), which the sizes lowering cuts into granules, copies
//! and mbarriers included (half as many programs); a third holds about half
//! of those addresses in registers (`[%rd]`, `[%rd+-8]`, some with an
//! address dependency, 8.10.4; half as many programs). Every run draws the
//! `cp.async.bulk.tensor` family through the tensor map `tm` (`tm @
//! tensormap a, b`: a tensormap-proxy read, 8.6, dispatching to a bulk
//! copy) and `.multicast::cluster` copies into the instances of `mc @
//! cluster s, t1` with an immediate mask.

use ptxmc_checker::{check, Options, Report, Status, Strategy};
use std::time::Duration;

const DEFAULT_CASES: u64 = if cfg!(debug_assertions) { 30 } else { 300 };

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const LOCS: &[&str] = &["a", "b", "s"];

/// The locations of the run with offsets: the words at bytes 0 and 4 of `a`
/// and `s` (4-byte accesses only, so no access overlaps another partially).
const LOCS_OFF: &[&str] = &["a", "a+4", "b", "s", "s+4"];

/// Two mbarrier objects of one array (8 bytes each).
const BARS: &[&str] = &["bar", "bar+8"];

/// One instruction (or a short idiom) of thread `t`; `regs` counts the
/// registers used so far. With `offsets`, locations and the mbarrier are
/// drawn at byte offsets too.
fn instruction(rng: &mut Rng, regs: &mut usize, offsets: bool) -> Vec<String> {
    let (l1, l2, bar) = if offsets {
        (rng.pick(LOCS_OFF), rng.pick(LOCS_OFF), rng.pick(BARS))
    } else {
        (rng.pick(LOCS), rng.pick(LOCS), "bar")
    };
    // `mov.b64 %r, a` takes a name, not an offset.
    let (t1, t2) = (
        l1.split('+').next().unwrap_or(l1),
        l2.split('+').next().unwrap_or(l2),
    );
    let v = 1 + rng.below(2);
    let mut reg = || {
        let r = format!("%r{}", *regs);
        *regs += 1;
        r
    };
    let one = match rng.below(31) {
        0 | 1 => format!(
            "st{}.global.u32 [{l1}], {v}",
            rng.pick(&["", ".relaxed.gpu", ".release.gpu", ".relaxed.cta"])
        ),
        2 | 3 => format!(
            "ld{}.global.u32 {}, [{l1}]",
            rng.pick(&["", ".relaxed.gpu", ".acquire.gpu", ".relaxed.cta"]),
            reg()
        ),
        4 => rng
            .pick(&[
                "fence.acq_rel.gpu",
                "fence.release.gpu",
                "fence.acquire.gpu",
                "fence.proxy.async",
            ])
            .to_string(),
        5 | 6 => format!("cp.async.ca.shared.global [{l1}], [{l2}], 4"),
        7 => rng
            .pick(&[
                "cp.async.commit_group",
                "cp.async.wait_group 0",
                "cp.async.wait_group 1",
                "cp.async.wait_all",
            ])
            .to_string(),
        8 => format!(
            "cp.async.bulk.global.shared::cta.bulk_group{} [{l1}], [{l2}], 4",
            rng.pick(&["", ".relaxed.gpu"])
        ),
        9 => rng
            .pick(&[
                "cp.async.bulk.commit_group",
                "cp.async.bulk.wait_group 0",
                "cp.async.bulk.wait_group.read 0",
            ])
            .to_string(),
        10 => format!(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{l1}], [{l2}], 4, [{bar}]"
        ),
        // Integer and floating-point reductions (values are bit patterns;
        // `.add.f32` adds values, `.max.f32` compares them), of one element
        // or, without offsets (where every access is 4 bytes), of two
        // (element by element, `ir::Elementwise`; a 4-byte access of the
        // location cuts it between the elements).
        11 => format!(
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.{} [{l1}], [{l2}], {}",
            rng.pick(&["add.u32", "add.u32", "add.f32", "max.f32", "min.s32"]),
            if offsets { "4" } else { rng.pick(&["4", "4", "8"]) }
        ),
        12 => format!("mbarrier.init.shared::cta.b64 [{bar}], {}", 1 + rng.below(2)),
        13 => {
            // `.noComplete` takes a count; an execution in which it
            // completes the phase is undefined (instruction descriptions).
            let form = rng.pick(&[
                "",
                ".relaxed.cta",
                ".release.cluster",
                ".noComplete",
                "_drop.noComplete.relaxed.cta",
            ]);
            let count = if form.contains("noComplete") { ", 1" } else { "" };
            format!("mbarrier.arrive{form}.shared::cta.b64 _, [{bar}]{count}")
        }
        14 => format!(
            "mbarrier.{}.shared::cta.b64 _, [{bar}], 4",
            rng.pick(&["arrive.expect_tx", "arrive_drop.expect_tx"])
        ),
        15 => format!("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [{bar}], 4"),
        16 | 17 => format!(
            "mbarrier.test_wait.parity{}.shared::cta.b64 {}, [{bar}], {}",
            rng.pick(&["", ".relaxed.cta"]),
            reg(),
            rng.below(2)
        ),
        18 => format!(
            "st.async{}.shared::cluster.mbarrier::complete_tx::bytes.b32 [{l1}], {v}, [{bar}]",
            rng.pick(&["", ".release.cluster"])
        ),
        19 => format!("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [{bar}]"),
        20 => format!("ld.relaxed.gpu.global.proxy::async.u32 {}, [{l1}]", reg()),
        21 => format!(
            "{}.sys.shared::cluster.u32 {}",
            rng.pick(&["st.release", "st.relaxed"]),
            format_args!("[{l1}], {v}")
        ),
        22 => format!(
            "{}.sys.shared::cluster.u32 {}, [{l1}]",
            rng.pick(&["ld.acquire", "ld.relaxed"]),
            reg()
        ),
        23 => {
            return vec![
                "barrier.cluster.arrive".to_string(),
                "barrier.cluster.wait".to_string(),
            ]
        }
        25 => {
            // A wgmma.mma_async on two tiles (async-proxy reads, 8.9.1.1),
            // dense or sparse (its metadata a register the thread may have
            // loaded: a dependency, 8.10.4).
            let (da, db, d) = (reg(), reg(), reg());
            let mma = if rng.below(2) == 0 {
                format!("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {{{d}}}, {da}, {db}, 0")
            } else {
                format!(
                    "wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {{{d}}}, {da}, {db}, {}, {}, 0",
                    reg(),
                    rng.below(4)
                )
            };
            return vec![
                format!("mov.b64 {da}, {t1}"),
                format!("mov.b64 {db}, {t2}"),
                "wgmma.fence.sync.aligned".to_string(),
                mma,
                "wgmma.commit_group.sync.aligned".to_string(),
            ];
        }
        26 => format!("wgmma.wait_group.sync.aligned {}", rng.below(2)),
        // The tensor family through the map `tm` (`tm @ tensormap a, b`):
        // a tensormap-proxy read of `tm` dispatching to the bulk copy of
        // the box at the coordinate (8.6, 8.9.1.1).
        27 => format!(
            "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.tile [{l1}], [tm, {{{}}}], [{bar}]",
            coord(rng, offsets)
        ),
        28 => format!(
            "{} [tm, {{{}}}], [{l2}]",
            rng.pick(&[
                "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group",
                "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group",
            ]),
            coord(rng, offsets)
        ),
        29 => rng
            .pick(&[
                "st.global.u32 [tm], 1",
                "st.relaxed.gpu.global.u32 [tm], 0",
                "fence.proxy.tensormap::generic.acquire.gpu [tm], 128",
                "fence.proxy.tensormap::generic.release.gpu",
                "cp.async.bulk.prefetch.tensor.1d.L2.global [tm, {0}]",
            ])
            .to_string(),
        // `.multicast::cluster` into the instances of `mc @ cluster s, t1`
        // completing on those of `mb @ cluster bar, b1`.
        30 => {
            let mask = 1 + rng.below(3);
            if rng.below(2) == 0 {
                format!("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [mc], [tm, {{0}}], [mb], {mask}")
            } else {
                format!("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [mc], [{l2}], 4, [mb], {mask}")
            }
        }
        _ => {
            // A wait loop on the mbarrier (a spin loop: it blocks, 8.9.4).
            let p = reg();
            return vec![
                "W:".to_string(),
                format!("mbarrier.try_wait.parity.shared::cta.b64 {p}, [{bar}], 0"),
                format!("@!{p} bra W"),
            ];
        }
    };
    vec![one]
}

/// A tensor coordinate: the box at byte 0, or also at byte 4 when
/// `offsets`.
fn coord(rng: &mut Rng, offsets: bool) -> usize {
    if offsets {
        4 * rng.below(2)
    } else {
        0
    }
}

/// `lines` with about half of their bracketed locations (`[x]`, `[x+N]`)
/// held in registers, as compiled code addresses them: a `mov.u64 %rdK, x`
/// before the line, sometimes moved past `x` (`add.s64`) so that the operand
/// reaches back with a negative offset (`[%rdK+-8]`, 8.2), and sometimes
/// plus 0 computed from the thread's `%r0` (`xor`), an address dependency
/// on whatever wrote it (8.10.4). `rds` counts the thread's `%rd` registers.
fn through_registers(rng: &mut Rng, lines: Vec<String>, rds: &mut usize) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        // The tensor operand `[tm, {0}]` names its map, and a multicast
        // copy finds its instances by name (`[mc]`, `[mb]`).
        if line.contains("multicast") {
            out.push(line);
            continue;
        }
        let mut pre = Vec::new();
        let mut text = String::new();
        let mut rest = line.as_str();
        while let Some(open) = rest.find('[') {
            let Some(close) = rest[open..].find(']').map(|c| open + c) else {
                break;
            };
            text += &rest[..open];
            let inner = &rest[open + 1..close];
            rest = &rest[close + 1..];
            let (name, off) = match inner.split_once('+') {
                Some((n, o)) => (n, o.parse::<i64>().unwrap_or(0)),
                None => (inner, 0),
            };
            if name.starts_with('%') || inner.contains(',') || rng.below(2) == 0 {
                text += &format!("[{inner}]");
                continue;
            }
            let rd = format!("%rd{}", *rds);
            *rds += 1;
            pre.push(format!("mov.u64 {rd}, {name}"));
            let past = [0i64, 8, 16][rng.below(3)];
            if past > 0 {
                pre.push(format!("add.s64 {rd}, {rd}, {past}"));
            }
            if rng.below(3) == 0 {
                let (z, zw) = (format!("%rd{}", *rds), format!("%rd{}", *rds + 1));
                *rds += 2;
                pre.push(format!("xor.b32 {z}, %r0, %r0"));
                pre.push(format!("cvt.u64.u32 {zw}, {z}"));
                pre.push(format!("add.s64 {rd}, {rd}, {zw}"));
            }
            text += &match off - past {
                0 => format!("[{rd}]"),
                d => format!("[{rd}+{d}]"),
            };
        }
        text += rest;
        out.extend(pre);
        out.push(text);
    }
    out
}

/// A random program: 1 to 3 threads of 1 to 4 instructions, with addresses
/// at offsets when `offsets`, and about half of them in registers when
/// `regs_addr` ([`through_registers`]).
fn program_in(seed: u64, offsets: bool, regs_addr: bool) -> String {
    let mut rng = Rng(seed);
    let n_threads = 1 + rng.below(3);
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut first_regs = Vec::new();
    let mut looped = false;
    for t in 0..n_threads {
        let mut regs = 0usize;
        let mut rds = 0usize;
        let mut code = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let mut i = instruction(&mut rng, &mut regs, offsets);
            if i.first().is_some_and(|l| l.ends_with(':')) {
                if looped {
                    continue;
                }
                looped = true;
            }
            if regs_addr {
                i = through_registers(&mut rng, i, &mut rds);
            }
            code.append(&mut i);
        }
        let cta = if rng.below(3) == 0 { 1 } else { 0 };
        let mut col = vec![format!("P{t}@cta {cta},cluster 0,gpu 0")];
        col.extend(code);
        cols.push(col);
        first_regs.push((regs > 0).then(|| format!("P{t}:r0")));
    }
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    let mut text = String::from(
        "PTX gen\n{\na=0;\nb=1;\ns=2;\nbar=0;\ntm=0;\nt1=0;\nb1=0;\ntm @ tensormap a, b;\nmc @ cluster s, t1;\nmb @ cluster bar, b1;\n}\n",
    );
    for r in 0..rows {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| format!(" {}", c.get(r).map_or("", String::as_str)))
            .collect();
        text += &cells.join(" |");
        text += " ;\n";
    }
    let mut terms = vec!["a == 0".to_string(), "b == 1".to_string()];
    terms.extend(
        first_regs
            .into_iter()
            .flatten()
            .map(|r| format!("{r} == 0")),
    );
    text += &format!("exists ({})\n", terms.join(" /\\ "));
    text
}

fn run(test: &ptxmc_frontend::ir::Test, strategy: Strategy) -> Report {
    let opts = Options {
        strategy,
        timeout: Some(Duration::from_secs(2)),
        check_duplicates: true,
        ..Options::default()
    };
    check(test, &opts)
}

/// What differs between the two reports (empty when they agree).
fn differences(b: &Report, d: &Report) -> Vec<String> {
    let mut diffs = Vec::new();
    // An `undefined` message names the first instruction by source
    // position: both explorers find the same one.
    if b.status.name() != d.status.name()
        || (matches!(b.status, Status::Undefined(_)) && b.status != d.status)
    {
        diffs.push(format!("status: brute {:?}, dpor {:?}", b.status, d.status));
        return diffs;
    }
    if b.stats.duplicates != 0 || d.stats.duplicates != 0 {
        diffs.push("duplicate executions".into());
    }
    if b.status != Status::Ok {
        return diffs;
    }
    let pairs = [
        (
            "states",
            format!("{:?}", b.states),
            format!("{:?}", d.states),
        ),
        ("positive", b.positive.to_string(), d.positive.to_string()),
        ("negative", b.negative.to_string(), d.negative.to_string()),
        (
            "condition",
            b.condition_holds.to_string(),
            d.condition_holds.to_string(),
        ),
        (
            "liveness",
            b.liveness_holds.to_string(),
            d.liveness_holds.to_string(),
        ),
        (
            "executions",
            b.stats.executions.to_string(),
            d.stats.executions.to_string(),
        ),
        (
            "blocked",
            b.stats.blocked.to_string(),
            d.stats.blocked.to_string(),
        ),
    ];
    for (what, x, y) in pairs {
        if x != y {
            diffs.push(format!("{what}: brute {x}, dpor {y}"));
        }
    }
    diffs
}

fn cases_and_seed() -> (u64, u64) {
    let n = std::env::var("PTXMC_ASYNC_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    let seed0 = std::env::var("PTXMC_ASYNC_DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7u64);
    (n, seed0)
}

#[test]
fn random_async_programs_agree() {
    let (n, seed0) = cases_and_seed();
    agree_on(n, seed0, false);
}

/// Offsets on the operands of copies, `st.async` and mbarriers (and of
/// `ld`/`st`): the two explorers agree on the lowered programs, none of
/// which is refused.
#[test]
fn random_async_programs_with_offsets_agree() {
    let (n, seed0) = cases_and_seed();
    agree_on(n.div_ceil(2), seed0, true);
}

/// Register-held addresses on every operand (copies, `st.async`, the
/// mbarrier instructions, `ld`/`st`), some at negative offsets from their
/// register and some with an address dependency: the two explorers agree,
/// and no generated address is refused.
#[test]
fn random_async_programs_through_registers_agree() {
    let (n, seed0) = cases_and_seed();
    agree_in(n.div_ceil(2), seed0, true, true);
}

fn agree_on(n: u64, seed0: u64, offsets: bool) {
    agree_in(n, seed0, offsets, false)
}

fn agree_in(n: u64, seed0: u64, offsets: bool, regs_addr: bool) {
    let (mut agree, mut limits, mut asyncs, mut undefined) = (0u64, 0u64, 0u64, 0u64);
    let mut tensors = 0u64;
    let mut failures = Vec::new();
    for i in 0..n {
        let text = program_in(seed0 + i, offsets, regs_addr);
        let test = match ptxmc_frontend::parse(&text) {
            Ok(t) => t,
            Err(e) => panic!("generated program does not parse: {e}\n{text}"),
        };
        assert!(
            test.unsupported.is_empty(),
            "generated program is unsupported: {:?}\n{text}",
            test.unsupported
        );
        if text.contains("async") || text.contains("mbarrier") {
            asyncs += 1;
        }
        if text.contains("tensor.1d") || text.contains("multicast::") || text.contains("[tm]") {
            tensors += 1;
        }
        let d = run(&test, Strategy::Dpor);
        let b = run(&test, Strategy::Brute);
        // The sizes lowering refuses none of them (other refusals, such as
        // a barrier reached twice, are the generator's own).
        if let Status::Unsupported(m) = &d.status {
            assert!(
                !["mixed-size", "offset", "copy"]
                    .iter()
                    .any(|w| m.contains(w)),
                "the sizes lowering refuses a generated program: {m}\n{text}"
            );
        }
        // An `undefined` found before a limit stopped the exploration is
        // a limit too (the other explorer may find an earlier instruction).
        let stopped = |r: &Report| match &r.status {
            Status::Limit(_) => true,
            Status::Undefined(m) => m.contains("exploration stopped"),
            _ => false,
        };
        if stopped(&b) || stopped(&d) {
            limits += 1;
            continue;
        }
        let diffs = differences(&b, &d);
        if diffs.is_empty() {
            agree += 1;
            undefined += u64::from(matches!(d.status, Status::Undefined(_)));
        } else if failures.len() < 5 {
            failures.push(format!(
                "seed {}:\n  {}\n{text}",
                seed0 + i,
                diffs.join("\n  ")
            ));
        } else {
            failures.push(String::new());
        }
    }
    println!(
        "async differential{}{}: {n} programs ({asyncs} with asynchronous operations or mbarriers, \
         {tensors} with the tensor family or multicast): {agree} agree ({undefined} of them undefined), {limits} skipped at the time limit, {} diverge",
        if offsets { " with offsets" } else { "" },
        if regs_addr { " through registers" } else { "" },
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} divergences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(limits * 10 <= n, "too many programs hit the time limit");
}

#[test]
fn generated_programs_parse_in_real_ptx_spelling() {
    for seed in 0..200 {
        for (offsets, regs) in [(false, false), (true, false), (true, true)] {
            let text = program_in(seed, offsets, regs);
            let test = ptxmc_frontend::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert!(test.unsupported.is_empty(), "{text}");
        }
    }
}
