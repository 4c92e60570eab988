//! Byte-addressed memory (8.2), mixed-size accesses and mixed-size data races
//! (8.2.1, 8.7.2), vector accesses (8.2.4) and multimem addresses (8.2.3).
//!
//! The explorers and the model work on locations that every access covers
//! completely. [`prepare`] rewrites a test whose accesses overlap partially
//! (or that uses `[x+N]`, typed vectors, ...) into such a test: each physical
//! location is cut into *granules*, the maximal byte ranges that no access
//! boundary crosses, each a location of its own; an access becomes one
//! access per granule it covers (8.2.4: a vector access is a set of scalar
//! accesses), with register arithmetic that slices stored values and
//! reassembles loaded ones (little-endian). The bytes of asynchronous copies
//! and of mbarrier objects take part too (`async_access.rs`): a copy on a split
//! location moves one granule per part, an mbarrier operand names the granule
//! of its 8-byte object. A test whose overlaps are all complete is left
//! untouched.
//!
//! Each rewritten access remembers the scalar operation it comes from
//! ([`Origin`]). For every consistent execution the explorers find,
//! [`SizeInfo::undefined`] looks for a *mixed-size data race* (8.7.1, 8.7.2):
//! two operations that overlap partially, at least one a write, not related
//! in causality order (partially overlapping operations are never morally
//! strong, 8.7 item 3). One such execution makes the program's behaviour
//! undefined, and the verdict says so with the two lines. The same hook
//! reports an access to a multimem address by a non-`multimem` operation
//! (8.2.3). Choices are in `docs/model-notes.md` ("Sizes and multimem").

mod async_access;
#[cfg(test)]
mod async_tests;
mod check;
mod lowering;
mod report_map;
#[cfg(test)]
mod tests;

pub(crate) use check::{Finding, SizeInfo};
pub(crate) use report_map::ReportMap;

use async_access::{async_accesses, must_split, propagate};
use lowering::Lowering;
use ptxmc_frontend::ir::{AddrId, AddrKind, AsyncInstr, Instr, PhysId, Span, Test};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The test the explorers run, and what to check on each execution.
pub(crate) struct Prepared {
    /// The rewritten test (`None`: the original one, unchanged).
    pub test: Option<Test>,
    /// The checks on every consistent execution (`None`: nothing to check).
    pub info: Option<Arc<SizeInfo>>,
    /// How to map the report back (`None`: it needs no mapping).
    pub map: Option<ReportMap>,
}

/// One scalar access of an instruction: a byte range of a physical location.
#[derive(Copy, Clone, Debug)]
struct Scalar {
    phys: PhysId,
    start: u32,
    end: u32,
    /// Untyped (the corpus dialect): the width is unknown.
    untyped: bool,
}

/// Bytes of a `.b128` access.
const WIDE: u32 = 16;

/// The base address and byte offset of an address (`[x+N]` is `x` plus `N`).
fn base_offset(test: &Test, a: AddrId) -> (AddrId, u32) {
    match test.addresses.get(a.index()).map(|ad| ad.kind) {
        Some(AddrKind::Offset(b, o)) => (b, o),
        _ => (a, 0),
    }
}

/// The scalar accesses of a memory instruction (8.2.4: one per vector element),
/// the stored bytes of a `st.async` included (its mbarrier signal is no data
/// access of the stored location).
fn scalars(test: &Test, instr: &Instr) -> Option<(AddrId, Vec<Scalar>)> {
    let (addr, access) = match instr {
        Instr::Load { addr, access, .. }
        | Instr::Store { addr, access, .. }
        | Instr::Rmw { addr, access, .. }
        | Instr::Async(AsyncInstr::StAsync { addr, access, .. }) => (*addr, *access),
        _ => return None,
    };
    let phys = test.addresses.get(addr.index())?.phys;
    let (_, off) = base_offset(test, addr);
    let (b, v) = (u32::from(access.bytes), u32::from(access.vector.max(1)));
    // 8.2.4: the model's scalar data types "have a maximum size and alignment
    // of 64 bits": a 16-byte `ld`/`st` (`.b128`) is two 8-byte scalar
    // operations, as `.v2.b64`. A 16-byte RMW (`atom.exch/cas.b128`) stays one
    // operation (8.10.3, the atomicity of a read-modify-write).
    let (b, v) = if b == WIDE && !matches!(instr, Instr::Rmw { .. }) {
        (WIDE / 2, v * 2)
    } else {
        (b, v)
    };
    let out = if b == 0 {
        vec![Scalar {
            phys,
            start: off,
            end: off,
            untyped: true,
        }]
    } else {
        (0..v)
            .map(|k| Scalar {
                phys,
                start: off + k * b,
                end: off + (k + 1) * b,
                untyped: false,
            })
            .collect()
    };
    Some((addr, out))
}

fn name_of(test: &Test, a: AddrId) -> String {
    test.symbols
        .addrs
        .get(a.index())
        .cloned()
        .unwrap_or_else(|| "?".into())
}

/// The name of a physical location: its first root (or first) name.
fn phys_name(test: &Test, p: PhysId) -> String {
    let i = test
        .addresses
        .iter()
        .position(|a| a.phys == p && matches!(a.kind, AddrKind::Root | AddrKind::Multimem))
        .or_else(|| test.addresses.iter().position(|a| a.phys == p));
    i.map_or_else(|| "?".into(), |i| name_of(test, AddrId::new(i)))
}

fn mask(bytes: u32) -> i64 {
    if bytes >= 8 {
        -1
    } else {
        ((1u64 << (8 * bytes)) - 1) as i64
    }
}

/// Bytes `[start, start + len)` of `v` (little-endian, two's complement; bytes
/// past the 8 of an `i64` are copies of the sign).
fn slice(v: i64, start: u32, len: u32) -> i64 {
    let shifted = if start >= 64 / 8 {
        if v < 0 {
            -1
        } else {
            0
        }
    } else {
        v >> (8 * start)
    };
    shifted & mask(len)
}

/// The access boundaries of a location: where its ranges start and end.
fn cuts_of(ranges: &[(u32, u32)]) -> BTreeSet<u32> {
    ranges.iter().flat_map(|&(s, e)| [s, e]).collect()
}

/// The granules of a split location: the maximal byte ranges between access
/// boundaries that some access covers.
#[cfg(test)]
fn granules(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    granules_at(ranges, &cuts_of(ranges))
}

/// The granules of a split location cut at `cuts` (its access boundaries and
/// those its copies carry over, [`propagate`]): the byte ranges between
/// consecutive cuts that some access covers.
fn granules_at(ranges: &[(u32, u32)], cuts: &BTreeSet<u32>) -> Vec<(u32, u32)> {
    let cuts: Vec<u32> = cuts.iter().copied().collect();
    cuts.windows(2)
        .map(|w| (w[0], w[1]))
        .filter(|&(s, e)| ranges.iter().any(|&(rs, re)| rs <= s && e <= re))
        .collect()
}

/// What in `test` the size analysis cannot handle, as `"<what> at L:C"`
/// items (empty when everything is supported).
pub(crate) fn unsupported(test: &Test) -> Vec<String> {
    match prepare(test) {
        Ok(_) => Vec::new(),
        Err(m) => vec![m],
    }
}

/// Rewrites `test` so that every overlap is complete (see the module
/// documentation), or says what it cannot handle (`"<what> at L:C"`; a
/// partial overlap it cannot split keeps the message
/// `mixed-size accesses to x at L:C`).
pub(crate) fn prepare(test: &Test) -> Result<Prepared, String> {
    let n_phys = test.n_phys as usize;
    // Per physical location: its distinct typed ranges, and the first untyped /
    // typed access (to report a dialect location accessed with a size).
    let mut ranges: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n_phys];
    let mut untyped: Vec<bool> = vec![false; n_phys];
    let mut first_kind: Vec<Option<(bool, u32, u32)>> = vec![None; n_phys];
    let multimem_phys: Vec<bool> = (0..n_phys)
        .map(|p| {
            test.addresses
                .iter()
                .any(|a| a.phys.index() == p && a.kind == AddrKind::Multimem)
        })
        .collect();
    for th in &test.threads {
        for s in &th.code {
            let Some((addr, sc)) = scalars(test, &s.instr) else {
                continue;
            };
            for x in sc {
                let p = x.phys.index();
                if p >= n_phys {
                    continue;
                }
                if x.untyped && x.start != 0 {
                    return Err(format!("address offset on an untyped access at {}", s.span));
                }
                let key = (x.untyped, x.start, x.end - x.start);
                match first_kind[p] {
                    None => first_kind[p] = Some(key),
                    Some(k) if (k.0 || x.untyped) && k != key => {
                        return Err(format!(
                            "mixed-size accesses to {} at {}",
                            name_of(test, base_offset(test, addr).0),
                            s.span
                        ));
                    }
                    Some(_) => {}
                }
                if x.untyped {
                    untyped[p] = true;
                } else if !ranges[p].contains(&(x.start, x.end)) {
                    ranges[p].push((x.start, x.end));
                }
            }
        }
    }
    // The copies' ranges and the mbarrier objects (`async_access.rs`), and
    // the mbarrier instructions that may make the behaviour undefined.
    let mut hazards = Vec::new();
    for (t, th) in test.threads.iter().enumerate() {
        for (k, s) in th.code.iter().enumerate() {
            for x in async_accesses(test, &s.instr) {
                let p = x.phys.index();
                if p >= n_phys {
                    continue;
                }
                if untyped[p] {
                    if x.start != 0 {
                        return Err(format!(
                            "address offset on {}, a location accessed untyped, at {}",
                            name_of(test, base_offset(test, x.addr).0),
                            s.span
                        ));
                    }
                    continue;
                }
                if !ranges[p].contains(&(x.start, x.end)) {
                    ranges[p].push((x.start, x.end));
                }
            }
            if let Some(h) = async_access::hazard(test, &s.instr, s.span) {
                hazards.push((t, k, h));
            }
        }
    }
    let mut cuts: Vec<BTreeSet<u32>> = ranges.iter().map(|r| cuts_of(r)).collect();
    let mut split: Vec<bool> = (0..n_phys)
        .map(|p| !untyped[p] && must_split(&cuts[p]))
        .collect();
    propagate(test, &mut cuts, &mut split, &untyped)?;
    let any_multimem = multimem_phys.iter().any(|&m| m);
    if !split.iter().any(|&s| s) {
        // Nothing rewritten: the hazards' statements keep their indices.
        let hazards: Vec<_> = hazards
            .into_iter()
            .map(|(t, k, h)| ((t, k as u32), h))
            .collect();
        let info = (any_multimem || !hazards.is_empty()).then(|| {
            Arc::new(SizeInfo {
                origin: Vec::new(),
                multimem: test
                    .addresses
                    .iter()
                    .map(|a| multimem_phys.get(a.phys.index()).copied().unwrap_or(false))
                    .collect(),
                names: (0..n_phys)
                    .map(|p| phys_name(test, PhysId::new(p)))
                    .collect(),
                home: Vec::new(),
                bytes: Vec::new(),
                hazards,
            })
        });
        return Ok(Prepared {
            test: None,
            info,
            map: None,
        });
    }
    Lowering::new(test, &ranges, &cuts, &split, &multimem_phys)?
        .with_hazards(hazards)
        .run()
}

/// The span of the first access to physical location `p`.
fn first_span(test: &Test, p: PhysId) -> Span {
    test.threads
        .iter()
        .flat_map(|th| &th.code)
        .find(|s| {
            scalars(test, &s.instr).is_some_and(|(_, sc)| sc.iter().any(|x| x.phys == p))
                || async_accesses(test, &s.instr).iter().any(|x| x.phys == p)
        })
        .map(|s| s.span)
        .unwrap_or_default()
}
