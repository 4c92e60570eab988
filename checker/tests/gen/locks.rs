//! Random variants of lock idioms for the differential test: ticket locks
//! (an `atom.add` on a ticket counter, a spin until `serving` equals the
//! ticket, a critical section, a release), `while (!CAS)` locks and one-shot
//! barriers (below), with their parts changed one at a
//! time, so that the explorer's lock shortcuts (RMW chains that only grow,
//! spins that only a later write lets pass: `dpor/ahead.rs`) meet both the
//! programs they hold for and the ones just outside them.
//!
//! Changed at random: the number of lockers (2 or 3), the ticket's increment
//! (1 or 2) and operation (`add`, or `exch`/`st` that break the chain), the
//! initial values, the spin's semantics (acquire, relaxed, relaxed followed
//! by a fence) and scope, the release (an `atom.add` or a store of the
//! ticket plus one), the critical section's accesses, the placement, and an
//! extra thread that writes `serving` or `next`, or reads `data`.

use super::Rng;
use std::fmt::Write as _;

/// A random lock or barrier program of the corpus dialect for `seed`.
pub fn generate_lock(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    match rng.below(10) {
        0..=2 => return barrier(&mut rng, seed),
        3..=4 => return cas_lock(&mut rng, seed),
        _ => {}
    }
    let lockers = rng.range(2, 3);
    let step = if rng.chance(80) { 1 } else { 2 };
    let take = match rng.below(10) {
        0 => format!("atom.relaxed.gpu.exch r0, next, {step}"),
        1 => "ld.relaxed.gpu r0, next".to_string(),
        _ => format!("atom.relaxed.gpu.add r0, next, {step}"),
    };
    let spin_scope = if rng.chance(80) { "gpu" } else { "cta" };
    let (spin, spin_fence) = match rng.below(10) {
        0..=5 => (format!("ld.acquire.{spin_scope} r1, serving"), false),
        6..=7 => (format!("ld.relaxed.{spin_scope} r1, serving"), true),
        _ => (format!("ld.relaxed.{spin_scope} r1, serving"), false),
    };
    let release = match rng.below(10) {
        0..=6 => format!("atom.release.gpu.add r3, serving, {step}"),
        7..=8 => "add r4, r0, 1 ; st.release.gpu serving, r4".to_string(),
        _ => format!("atom.relaxed.gpu.add r3, serving, {step}"),
    };
    let (load, store) = if rng.chance(75) {
        ("ld.weak r2, data", "st.weak data, r2")
    } else {
        ("ld.relaxed.gpu r2, data", "st.relaxed.gpu data, r2")
    };
    let mut threads: Vec<Vec<String>> = (0..lockers)
        .map(|_| {
            let mut c = vec![take.clone(), "LC00:".into(), spin.clone()];
            c.push("bne r0, r1, LC00".into());
            if spin_fence {
                c.push("fence.acq_rel.gpu".into());
            }
            c.push(load.into());
            c.push("add r2, r2, 1".into());
            c.push(store.into());
            c.extend(release.split(" ; ").map(str::to_string));
            c
        })
        .collect();
    if rng.chance(30) {
        threads.push(match rng.below(4) {
            0 => vec![format!("st.release.gpu serving, {}", rng.range(1, 2))],
            1 => vec![format!("atom.relaxed.gpu.add r0, next, {step}")],
            2 => vec![
                "ld.acquire.gpu r1, serving".into(),
                "ld.weak r2, data".into(),
            ],
            _ => vec!["st.relaxed.gpu data, 5".into()],
        });
    }
    let next0 = if rng.chance(85) { 0 } else { 1 };
    let serving0 = if rng.chance(85) { 0 } else { 1 };
    let split = rng.chance(20);
    let mut out = format!("PTX lock-{seed}\n\"generated lock variant\"\n{{\n");
    let _ = writeln!(out, "next={next0}; serving={serving0}; data=0;\n}}");
    columns(&mut out, &threads, split);
    let want = rng.range(lockers - 1, lockers + 1);
    let q = match rng.below(3) {
        0 => "exists",
        1 => "~exists",
        _ => "forall",
    };
    let _ = write!(out, "{q} (data == {want})");
    out
}

/// A one-shot barrier of 2 or 3 threads: each writes its own location,
/// arrives with an RMW on a counter (or breaks the chain with `exch` or a
/// store), spins until the counter reaches the number of threads (an
/// acquire read, or a relaxed one with a fence after the loop, or none),
/// and reads the next thread's location.
fn barrier(rng: &mut Rng, seed: u64) -> String {
    let n = rng.range(2, 3);
    let locs = ["x", "y", "z"];
    let step = if rng.chance(85) { 1 } else { 2 };
    let arrive = match rng.below(10) {
        0 => "atom.relaxed.gpu.exch r0, arrived, 1".to_string(),
        1 => "st.relaxed.gpu arrived, 1".to_string(),
        2..=4 => format!("atom.release.gpu.add r0, arrived, {step}"),
        _ => format!("atom.relaxed.gpu.add r0, arrived, {step}"),
    };
    let fence_before = rng.chance(60);
    let (spin, fence_after) = match rng.below(10) {
        0..=3 => ("ld.acquire.gpu r1, arrived", false),
        4..=7 => ("ld.relaxed.gpu r1, arrived", true),
        _ => ("ld.relaxed.gpu r1, arrived", false),
    };
    let target = if rng.chance(85) {
        n * step
    } else {
        n * step + 1
    };
    let threads: Vec<Vec<String>> = (0..n)
        .map(|t| {
            let mut c = vec![format!("st.weak {}, 1", locs[t])];
            if fence_before {
                c.push("fence.acq_rel.gpu".into());
            }
            c.push(arrive.clone());
            c.push("LB00:".into());
            c.push(spin.into());
            c.push(format!("bne r1, {target}, LB00"));
            if fence_after {
                c.push("fence.acq_rel.gpu".into());
            }
            c.push(format!("ld.weak r2, {}", locs[(t + 1) % n]));
            c
        })
        .collect();
    let mut out = format!("PTX barrier-{seed}\n\"generated barrier variant\"\n{{\n");
    let _ = writeln!(out, "arrived=0; x=0; y=0; z=0;\n}}");
    columns(&mut out, &threads, rng.chance(20));
    let q = if rng.chance(50) { "exists" } else { "forall" };
    let _ = write!(out, "{q} (P0:r2 == 1)");
    out
}

/// A `while (!CAS) ;` lock of 2 or 3 threads: the CAS (acquire, or
/// relaxed with a fence after the loop), a critical section, a release (a
/// store, an exchange, or a relaxed store), sometimes an extra thread that
/// stores to the lock or the data.
fn cas_lock(rng: &mut Rng, seed: u64) -> String {
    let n = rng.range(2, 3);
    let (cas, fence) = match rng.below(10) {
        0..=6 => ("atom.acquire.gpu.cas r0, m, 0, 1", false),
        7..=8 => ("atom.relaxed.gpu.cas r0, m, 0, 1", true),
        _ => ("atom.relaxed.gpu.cas r0, m, 0, 1", false),
    };
    let release = match rng.below(10) {
        0..=6 => "st.release.gpu m, 0",
        7..=8 => "atom.release.gpu.exch r3, m, 0",
        _ => "st.relaxed.gpu m, 0",
    };
    let mut threads: Vec<Vec<String>> = (0..n)
        .map(|_| {
            let mut c = vec!["LC00:".to_string(), cas.into(), "bne r0, 0, LC00".into()];
            if fence {
                c.push("fence.acq_rel.gpu".into());
            }
            c.extend(
                [
                    "ld.weak r2, data",
                    "add r2, r2, 1",
                    "st.weak data, r2",
                    release,
                ]
                .map(String::from),
            );
            c
        })
        .collect();
    if rng.chance(25) {
        threads.push(vec![if rng.chance(50) {
            "st.release.gpu m, 0"
        } else {
            "st.relaxed.gpu data, 7"
        }
        .into()]);
    }
    let m0 = if rng.chance(85) { 0 } else { 1 };
    let mut out = format!("PTX cas-lock-{seed}\n\"generated CAS lock variant\"\n{{\n");
    let _ = writeln!(out, "m={m0}; data=0;\n}}");
    columns(&mut out, &threads, rng.chance(20));
    let want = rng.range(n - 1, n + 1);
    let q = if rng.chance(50) { "exists" } else { "forall" };
    let _ = write!(out, "{q} (data == {want})");
    out
}

/// The thread columns of a test, padded, each thread in CTA 0 (or CTAs 0
/// and 1 alternately, `split`).
fn columns(out: &mut String, threads: &[Vec<String>], split: bool) {
    let columns = threads
        .iter()
        .enumerate()
        .map(|(t, th)| {
            let mut col = vec![format!("P{t}@cta {},gpu 0", if split { t % 2 } else { 0 })];
            col.extend(th.iter().cloned());
            col
        })
        .collect();
    super::write_columns(out, columns);
}
