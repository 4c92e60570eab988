//! The bytes that asynchronous copies and mbarrier instructions access (8.2,
//! 8.9.1.1), and the cuts that copies carry between locations.
//!
//! A copy of `size` bytes from `[g+N]` to `[s+M]` reads bytes `N..N+size`
//! of `g` and writes bytes `M..M+size` of `s`; an mbarrier operand `[bar+N]`
//! is the 8-byte mbarrier object at bytes `N..N+8` of `bar` (the ISA's
//! mbarrier section: "an opaque object in shared memory with an alignment of
//! 8 bytes", a `.b64`). These ranges take part in cutting locations into
//! granules like the ranges of `ld`/`st`. A copy moves each granule of its
//! source into the bytes at the same place of its destination, so when
//! either side is cut, both are cut at the same places ([`propagate`]).
//! Copies longer than 8 bytes are cut every 8 bytes from their start where
//! they must be cut at all: 8.2.4, the model's scalar data types "have a
//! maximum size and alignment of 64 bits", as for a `.b128` `ld`/`st`.
//!
//! On a location accessed untyped (the corpus dialect, no width), these
//! accesses at offset 0 take the whole location, as before offsets were
//! read: they add no range there.

use super::check::{Hazard, When};
use super::{base_offset, name_of, phys_name};
use ptxmc_frontend::ir::{AddrId, AsyncInstr, Instr, MbarrierUpdate, PhysId, Span, Test};
use std::collections::BTreeSet;

/// Bytes of an mbarrier object (`.b64`), also its alignment.
pub(super) const MBARRIER_BYTES: u32 = 8;

/// Bytes of the largest scalar operation (8.2.4): copies are cut here.
const SCALAR_BYTES: u32 = 8;

/// Copies of more bytes than this are not cut (a bulk copy of 2^20 bytes is
/// already far past what a litmus test enumerates).
const MAX_COPY: u32 = 1 << 20;

/// What an access of an asynchronous instruction is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Role {
    /// The source a copy reads.
    Src,
    /// The destination a copy writes (or reduces into).
    Dst,
    /// An mbarrier object.
    Mbar,
}

/// One byte range an asynchronous or mbarrier instruction accesses.
#[derive(Copy, Clone, Debug)]
pub(super) struct AsyncAccess {
    pub addr: AddrId,
    pub phys: PhysId,
    pub start: u32,
    pub end: u32,
    pub role: Role,
}

/// The byte count of a copy, when it is one the lowering can cut
/// (1 to 2^20 bytes).
pub(super) fn copy_len(size: i64) -> Option<u32> {
    u32::try_from(size)
        .ok()
        .filter(|n| (1..=MAX_COPY).contains(n))
}

/// The mbarrier operand of an instruction, if it has one.
pub(super) fn mbar_of(instr: &Instr) -> Option<AddrId> {
    match instr {
        Instr::Async(
            AsyncInstr::StAsync { mbar, .. }
            | AsyncInstr::CpAsyncArrive { mbar, .. }
            | AsyncInstr::MbarrierInit { mbar, .. }
            | AsyncInstr::MbarrierUpdate { mbar, .. }
            | AsyncInstr::MbarrierWait { mbar, .. },
        ) => Some(*mbar),
        Instr::Async(AsyncInstr::Copy { mbar, .. }) => *mbar,
        _ => None,
    }
}

/// The copy source and destination ranges and the mbarrier object of
/// `instr` (the stored bytes of a `st.async` are a scalar access, see
/// `super::scalars`).
pub(super) fn async_accesses(test: &Test, instr: &Instr) -> Vec<AsyncAccess> {
    let at = |addr: AddrId, len: u32, role: Role| {
        let phys = test.addresses.get(addr.index())?.phys;
        let (_, start) = base_offset(test, addr);
        Some(AsyncAccess {
            addr,
            phys,
            start,
            end: start + len,
            role,
        })
    };
    let mut out = Vec::new();
    if let Instr::Async(AsyncInstr::Copy { src, dst, size, .. }) = instr {
        if let Some(n) = copy_len(*size) {
            out.extend(at(*src, n, Role::Src));
            out.extend(at(*dst, n, Role::Dst));
        }
    }
    if let Some(m) = mbar_of(instr) {
        out.extend(at(m, MBARRIER_BYTES, Role::Mbar));
    }
    out
}

/// One copy, as [`propagate`] sees it: (location, first byte) of its source
/// and destination, its length, and where it is written.
struct CopyRange {
    src: (usize, u32),
    dst: (usize, u32),
    len: u32,
    span: Span,
}

fn copies(test: &Test) -> Vec<CopyRange> {
    let mut out = Vec::new();
    for s in test.threads.iter().flat_map(|th| &th.code) {
        let acc = async_accesses(test, &s.instr);
        let (Some(a), Some(b)) = (
            acc.iter().find(|a| a.role == Role::Src),
            acc.iter().find(|a| a.role == Role::Dst),
        ) else {
            continue;
        };
        out.push(CopyRange {
            src: (a.phys.index(), a.start),
            dst: (b.phys.index(), b.start),
            len: a.end - a.start,
            span: s.span,
        });
    }
    out
}

/// Whether location `p` with these cuts must be cut into granules: its
/// accesses do not all cover the same bytes from byte 0.
pub(super) fn must_split(cuts: &BTreeSet<u32>) -> bool {
    cuts.len() > 2 || cuts.first().is_some_and(|&c| c != 0)
}

/// Extends the cuts of every physical location (`cuts[p]`: the access
/// boundaries) and `split` until every copy touching a split location
/// moves whole granules: its ranges on split locations cut every 8 bytes
/// from their start, and each cut inside a copy's source range mapped into
/// its destination range and back. A cut needed inside a location accessed
/// untyped (`untyped[p]`), which has no bytes to cut, is refused.
pub(super) fn propagate(
    test: &Test,
    cuts: &mut [BTreeSet<u32>],
    split: &mut [bool],
    untyped: &[bool],
) -> Result<(), String> {
    let copies = copies(test);
    let n = cuts.len();
    let refuse = |p: usize, span: Span| {
        Err(format!(
            "mixed-size accesses to {} (a copy moves a part of it) at {span}",
            phys_name(test, PhysId::new(p))
        ))
    };
    loop {
        let mut changed = false;
        for c in &copies {
            let ((ps, a), (pd, b)) = (c.src, c.dst);
            if ps >= n || pd >= n || !(split[ps] || split[pd]) {
                continue;
            }
            // Cuts every 8 bytes, then those of either side on the other.
            let mut inner: BTreeSet<u32> = (SCALAR_BYTES..c.len).step_by(8).collect();
            inner.extend(cuts[ps].range(a + 1..a + c.len).map(|&x| x - a));
            inner.extend(cuts[pd].range(b + 1..b + c.len).map(|&x| x - b));
            for (p, base) in [(ps, a), (pd, b)] {
                for &r in &inner {
                    if cuts[p].insert(base + r) {
                        if untyped[p] {
                            return refuse(p, c.span);
                        }
                        changed = true;
                    }
                }
            }
        }
        for p in 0..n {
            if !split[p] && !untyped[p] && must_split(&cuts[p]) {
                split[p] = true;
                changed = true;
            }
        }
        if !changed {
            return Ok(());
        }
    }
}

/// Why executing `instr` may make the behaviour undefined, if it may: an
/// mbarrier operand that is not 8-byte aligned (every declared location is
/// taken to start 8-byte aligned: ptxmc gives locations no address), or an
/// `mbarrier.arrive{,_drop}.noComplete`, undefined when its arrive-on
/// completes the current phase (instruction descriptions).
pub(super) fn hazard(test: &Test, instr: &Instr, span: Span) -> Option<Hazard> {
    let m = mbar_of(instr)?;
    let (base, off) = base_offset(test, m);
    if off % MBARRIER_BYTES != 0 {
        return Some(Hazard {
            message: format!(
                "misaligned mbarrier object [{}+{off}] at {span} (an mbarrier object is 8-byte aligned)",
                name_of(test, base)
            ),
            when: When::Runs,
        });
    }
    match instr {
        Instr::Async(AsyncInstr::MbarrierUpdate {
            kind,
            no_complete: true,
            ..
        }) => Some(Hazard {
            message: format!(
                "mbarrier.{}.noComplete at {span} completes the current phase (undefined: the instruction description)",
                if *kind == MbarrierUpdate::ArriveDrop { "arrive_drop" } else { "arrive" }
            ),
            when: When::Completes,
        }),
        _ => None,
    }
}
