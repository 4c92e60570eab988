//! The rewriting of asynchronous copies and mbarrier operands on split
//! locations (`super::super::async_access` gives their bytes).
//!
//! A copy whose source or destination is cut into granules becomes one copy
//! per granule it moves, in address order: part `k` reads the source's
//! granule at copy bytes `r0..r1` and writes the destination's granule at the
//! same copy bytes (`propagate` made both sides granules there). The parts
//! are one asynchronous operation (`AsyncInstr::Copy::continued`): each part
//! is ordered after the parts before it, as "the loads and stores performed
//! as part of a cp.async are ordered with respect to each other" (8.9.1.1),
//! and the last carries the mbarrier, whose complete-tx of the copy's size
//! is then ordered after every part ("ordered only with respect to the memory
//! operations performed by the same asynchronous instruction"). An mbarrier
//! operand becomes the address of the granule that is its 8-byte object.

use super::super::async_access::{copy_len, MBARRIER_BYTES};
use super::{base_offset, name_of, Dir, Lowering, Origin};
use ptxmc_frontend::ir::{AddrId, AsyncInstr, Instr, PhysId, RmwOp, Span, Stmt};

/// Bytes of one scalar operation of a copy (8.2.4: at most 64 bits).
const CHUNK: u32 = 8;

impl Lowering<'_> {
    /// The address of the granule that is the mbarrier object at `m`
    /// (`m` itself when its location is not split).
    fn mbar_addr(&self, m: AddrId, span: Span) -> Result<AddrId, String> {
        let test = self.test;
        let Some(p) = test.addresses.get(m.index()).map(|a| a.phys.index()) else {
            return Ok(m);
        };
        if !self.split.get(p).copied().unwrap_or(false) {
            return Ok(m);
        }
        let (base, off) = base_offset(test, m);
        self.granule_at(
            p,
            base,
            (off, off + MBARRIER_BYTES),
            span,
            "an mbarrier object cut into parts",
        )
    }

    /// The address of the granule of location `p` (base address `base`)
    /// that is exactly bytes `s..e`; an error naming `what` when those
    /// bytes are not one granule.
    fn granule_at(
        &self,
        p: usize,
        base: AddrId,
        (s, e): (u32, u32),
        span: Span,
        what: &str,
    ) -> Result<AddrId, String> {
        match self.covered(p, s, e)[..] {
            [(g, gs, ge)] if (gs, ge) == (s, e) => {
                Ok(self.gaddr.get(&(base.index(), g)).copied().unwrap_or(base))
            }
            _ => Err(format!(
                "mixed-size accesses to {} ({what}) at {span}",
                name_of(self.test, base)
            )),
        }
    }

    /// The address of the granule at bytes `s..e` of the location of
    /// `addr` (`addr` itself when that location is not split).
    fn part_addr(&self, addr: AddrId, (s, e): (u32, u32), span: Span) -> Result<AddrId, String> {
        let test = self.test;
        let p = test
            .addresses
            .get(addr.index())
            .map_or(0, |a| a.phys.index());
        if !self.split.get(p).copied().unwrap_or(false) {
            return Ok(addr);
        }
        let (base, _) = base_offset(test, addr);
        self.granule_at(p, base, (s, e), span, "a copy part across granules")
    }

    pub(super) fn is_split(&self, a: AddrId) -> Option<PhysId> {
        let p = self.test.addresses.get(a.index())?.phys;
        self.split
            .get(p.index())
            .copied()
            .unwrap_or(false)
            .then_some(p)
    }

    /// Rewrites a copy or an mbarrier instruction into `code`
    /// (with its `origin`s; `again`: the `AddrReg`s to repeat before each
    /// part of a split copy after the first) and gives `None`; any other instruction is given
    /// back, a `st.async` with its mbarrier operand rewritten.
    pub(super) fn async_stmt(
        &mut self,
        s: &Stmt,
        again: &[Stmt],
        code: &mut Vec<Stmt>,
        origin: &mut Vec<Vec<Origin>>,
    ) -> Result<Option<Instr>, String> {
        let span = s.span;
        let Instr::Async(a) = &s.instr else {
            return Ok(Some(s.instr.clone()));
        };
        let mut a = a.clone();
        match &mut a {
            AsyncInstr::Copy { .. } => {
                self.copy(&a, span, again, code, origin)?;
                return Ok(None);
            }
            AsyncInstr::StAsync { mbar, .. } => {
                *mbar = self.mbar_addr(*mbar, span)?;
                return Ok(Some(Instr::Async(a)));
            }
            AsyncInstr::CpAsyncArrive { mbar, .. }
            | AsyncInstr::MbarrierInit { mbar, .. }
            | AsyncInstr::MbarrierUpdate { mbar, .. }
            | AsyncInstr::MbarrierWait { mbar, .. } => *mbar = self.mbar_addr(*mbar, span)?,
            _ => return Ok(Some(Instr::Async(a))),
        }
        code.push(Stmt {
            instr: Instr::Async(a),
            span,
        });
        origin.push(Vec::new());
        Ok(None)
    }

    /// A copy: unchanged (its mbarrier operand on its granule) when neither
    /// side is split, else one part per granule (module documentation).
    fn copy(
        &mut self,
        a: &AsyncInstr,
        span: Span,
        again: &[Stmt],
        code: &mut Vec<Stmt>,
        origin: &mut Vec<Vec<Origin>>,
    ) -> Result<(), String> {
        let AsyncInstr::Copy {
            src,
            dst,
            size,
            mbar,
            reduce,
            continued,
            ..
        } = a
        else {
            return Ok(());
        };
        let mbar = mbar.map(|m| self.mbar_addr(m, span)).transpose()?;
        let with = |src: AddrId, dst: AddrId, mbar: Option<AddrId>, continued: bool| {
            let mut c = a.clone();
            if let AsyncInstr::Copy {
                src: s,
                dst: d,
                mbar: m,
                continued: k,
                ..
            } = &mut c
            {
                (*s, *d, *m, *k) = (src, dst, mbar, continued);
            }
            Instr::Async(c)
        };
        let (ps, pd) = (self.is_split(*src), self.is_split(*dst));
        if ps.is_none() && pd.is_none() {
            code.push(Stmt {
                instr: with(*src, *dst, mbar, *continued),
                span,
            });
            origin.push(Vec::new());
            return Ok(());
        }
        let test = self.test;
        let Some(n) = copy_len(*size) else {
            return Err(format!(
                "a copy of {size} bytes to or from a location cut into parts at {span}"
            ));
        };
        let (_, a0) = base_offset(test, *src);
        let (_, b0) = base_offset(test, *dst);
        // A copy into bytes it reads from (other than the same bytes): the
        // instruction descriptions give it no meaning, and part by part it
        // would read what its earlier parts wrote.
        if ps.is_some() && ps == pd && a0 != b0 && a0 < b0 + n && b0 < a0 + n {
            return Err(format!(
                "a copy whose source and destination overlap at {span}"
            ));
        }
        // The parts, in copy bytes: the granules of a split side.
        let parts: Vec<(u32, u32)> = match (ps, pd) {
            (Some(p), _) => self
                .covered(p.index(), a0, a0 + n)
                .into_iter()
                .map(|(_, s, e)| (s - a0, e - a0))
                .collect(),
            (None, Some(p)) => self
                .covered(p.index(), b0, b0 + n)
                .into_iter()
                .map(|(_, s, e)| (s - b0, e - b0))
                .collect(),
            (None, None) => Vec::new(),
        };
        let tiles = parts.first().is_some_and(|p| p.0 == 0)
            && parts.last().is_some_and(|p| p.1 == n)
            && parts.windows(2).all(|w| w[0].1 == w[1].0);
        if !tiles {
            return Err(format!(
                "a copy of {n} bytes that its granules do not cover at {span}"
            ));
        }
        // A reduction cut into parts reduces each part on its own: right when
        // no element straddles a cut (element-wise, `ir::Elementwise`), or
        // when every byte is its own (`.and`, `.or`, `.xor`).
        let cuttable = match reduce {
            None | Some(RmwOp::And | RmwOp::Or | RmwOp::Xor) => true,
            Some(RmwOp::Elements(e)) => {
                let b = u32::from(e.bytes());
                e.bytewise() || parts.iter().all(|&(s, e)| s % b == 0 && e % b == 0)
            }
            Some(_) => false,
        };
        if parts.len() > 1 && !cuttable {
            let op = match reduce {
                Some(RmwOp::Elements(e)) => e.words(),
                Some(op) => op.to_string(),
                None => String::new(),
            };
            return Err(format!(
                "mixed-size accesses to {} (a `cp.reduce.async.bulk.{op}` split into {} parts) at {span}",
                name_of(test, base_offset(test, *dst).0),
                parts.len()
            ));
        }
        // The copy's scalar operations: one read and one write per 8 bytes.
        let chunks = n.div_ceil(CHUNK);
        let (src_op, dst_op) = (self.next_op, self.next_op + chunks);
        self.next_op += 2 * chunks;
        let origin_at = |p: PhysId, base: u32, r0: u32, op: u32, dir: Dir| {
            let j = r0 / CHUNK;
            Origin {
                phys: p,
                start: base + j * CHUNK,
                end: base + ((j + 1) * CHUNK).min(n),
                span,
                op: op + j,
                dir,
            }
        };
        let dst_dir = if reduce.is_some() {
            Dir::Any
        } else {
            Dir::Writes
        };
        for (k, &(r0, r1)) in parts.iter().enumerate() {
            let last = k + 1 == parts.len();
            let s = self.part_addr(*src, (a0 + r0, a0 + r1), span)?;
            let d = self.part_addr(*dst, (b0 + r0, b0 + r1), span)?;
            // Each part keeps the address dependencies (`addr_regs.rs`).
            if k > 0 {
                code.extend(again.iter().cloned());
                origin.extend(again.iter().map(|_| Vec::new()));
            }
            code.push(Stmt {
                instr: with(s, d, mbar.filter(|_| last), !last || *continued),
                span,
            });
            let mut o = Vec::new();
            if let Some(p) = ps {
                o.push(origin_at(p, a0, r0, src_op, Dir::Reads));
            }
            if let Some(p) = pd {
                o.push(origin_at(p, b0, r0, dst_op, dst_dir));
            }
            origin.push(o);
        }
        Ok(())
    }
}
