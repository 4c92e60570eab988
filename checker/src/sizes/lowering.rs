//! The rewriting of a test whose locations are cut into granules (8.2,
//! 8.2.4): new locations and addresses, accesses split into one access per
//! granule with the register arithmetic that slices and reassembles values.

mod addr_regs;
mod copies;

use super::check::{Dir, Hazard, Origin, SizeInfo};
use super::report_map::{ReportMap, TermValue};
use super::{
    base_offset, first_span, granules_at, mask, name_of, phys_name, scalars, slice, Prepared,
    Scalar, WIDE,
};
use ptxmc_frontend::ir::{
    Access, AddrId, AddrKind, Address, AsyncInstr, BinOp, Condition, Instr, Operand, PhysId, Prop,
    Quantifier, RegId, RmwOp, Sem, Stmt, Term, Test, VAddrId,
};
use std::collections::BTreeSet;
use std::collections::HashMap;
use std::sync::Arc;

/// The rewriting of a test with split locations.
pub(super) struct Lowering<'t> {
    test: &'t Test,
    /// Per original physical location: its granules (one `(0, 0)` pseudo
    /// granule for a location that is not split) and their new ids.
    // invariant: `granules`, `new_phys` and `split` have one entry per physical
    // location of `test` (`test.n_phys`), and `new_phys[p]` one id per
    // granule of `granules[p]`; every memory instruction's address has its
    // physical location below `test.n_phys` (`prepare` only builds a
    // `Lowering` from accesses it read through `scalars`, which checks it).
    granules: Vec<Vec<(u32, u32)>>,
    new_phys: Vec<Vec<PhysId>>,
    split: Vec<bool>,
    /// The rewritten test being built.
    // invariant: `out` starts as a clone of `test`: same threads and addresses
    // (plus the granule addresses appended after them).
    out: Test,
    /// Per original address and granule index: the new address.
    gaddr: HashMap<(usize, usize), AddrId>,
    origin: Vec<Vec<Vec<Origin>>>,
    multimem_phys: Vec<bool>,
    /// The next scalar operation id.
    next_op: u32,
    /// The statements (thread, index) of `test` whose execution can make
    /// the behaviour undefined.
    hazards_in: Vec<(usize, usize, Hazard)>,
    /// Those of the rewritten code ([`SizeInfo::hazards`]).
    hazards: Vec<((usize, u32), Hazard)>,
}

impl<'t> Lowering<'t> {
    /// The rewriting of `test` whose locations `p` with `split[p]` are cut
    /// at `cuts[p]` into the granules `ranges[p]` cover.
    pub(super) fn new(
        test: &'t Test,
        ranges: &[Vec<(u32, u32)>],
        cuts: &[BTreeSet<u32>],
        split: &[bool],
        multimem_phys: &[bool],
    ) -> Result<Self, String> {
        let mut out = test.clone();
        let mut granule_list = Vec::new();
        let mut new_phys = Vec::new();
        let mut init_mem = Vec::new();
        for (p, r) in ranges.iter().enumerate() {
            let init = test.init_mem.get(p).copied().unwrap_or(0);
            if split[p] {
                let g = granules_at(r, &cuts[p]);
                if let Some(&(s, e)) = g.iter().find(|&&(s, e)| e - s > 8) {
                    return Err(format!(
                        "mixed-size accesses to {} (a part of {} bytes at byte {s}) at {}",
                        phys_name(test, PhysId::new(p)),
                        e - s,
                        first_span(test, PhysId::new(p))
                    ));
                }
                new_phys.push(
                    g.iter()
                        .map(|&(s, e)| {
                            init_mem.push(slice(init, s, e - s));
                            PhysId::new(init_mem.len() - 1)
                        })
                        .collect(),
                );
                granule_list.push(g);
            } else {
                init_mem.push(init);
                new_phys.push(vec![PhysId::new(init_mem.len() - 1)]);
                granule_list.push(vec![(0, 0)]);
            }
        }
        // Virtual addresses: one per (old virtual address, granule).
        let mut vmap: HashMap<(VAddrId, usize), VAddrId> = HashMap::new();
        let mut n_vaddr = 0u32;
        let mut vaddr = |v: VAddrId, g: usize| {
            *vmap.entry((v, g)).or_insert_with(|| {
                n_vaddr += 1;
                VAddrId(n_vaddr - 1)
            })
        };
        let mut gaddr = HashMap::new();
        for (i, a) in test.addresses.iter().enumerate() {
            let p = a.phys.index();
            let first = new_phys
                .get(p)
                .and_then(|v| v.first())
                .copied()
                .unwrap_or(PhysId(0));
            out.addresses[i] = Address {
                kind: a.kind,
                phys: first,
                vaddr: vaddr(a.vaddr, 0),
            };
            if !split.get(p).copied().unwrap_or(false) || matches!(a.kind, AddrKind::Offset(..)) {
                gaddr.insert((i, 0), AddrId::new(i));
                continue;
            }
            for (g, &(s, e)) in granule_list[p].iter().enumerate() {
                let kind = match a.kind {
                    AddrKind::GenericAlias(of) => {
                        AddrKind::GenericAlias(gaddr.get(&(of.index(), g)).copied().unwrap_or(of))
                    }
                    AddrKind::ProxyAlias(px, of) => {
                        AddrKind::ProxyAlias(px, gaddr.get(&(of.index(), g)).copied().unwrap_or(of))
                    }
                    k => k,
                };
                out.addresses.push(Address {
                    kind,
                    phys: new_phys[p][g],
                    vaddr: vaddr(a.vaddr, g),
                });
                out.symbols
                    .addrs
                    .push(format!("{}[{s}..{e}]", name_of(test, AddrId::new(i))));
                gaddr.insert((i, g), AddrId::new(out.addresses.len() - 1));
            }
        }
        out.n_phys = init_mem.len() as u32;
        out.init_mem = init_mem;
        out.n_vaddr = n_vaddr;
        Ok(Self {
            test,
            granules: granule_list,
            new_phys,
            split: split.to_vec(),
            out,
            gaddr,
            origin: Vec::new(),
            multimem_phys: multimem_phys.to_vec(),
            next_op: 0,
            hazards_in: Vec::new(),
            hazards: Vec::new(),
        })
    }

    /// The statements (thread, index, hazard) whose execution can make the
    /// behaviour undefined (a misaligned mbarrier operand, `.noComplete`).
    pub(super) fn with_hazards(mut self, h: Vec<(usize, usize, Hazard)>) -> Self {
        self.hazards_in = h;
        self
    }

    pub(super) fn run(mut self) -> Result<Prepared, String> {
        for t in 0..self.test.threads.len() {
            let code = self.thread(t)?;
            self.out.threads[t].code = code;
        }
        let map = self.report_map();
        let n_phys = self.test.n_phys as usize;
        let mut multimem = vec![false; self.out.addresses.len()];
        for (i, m) in multimem.iter_mut().enumerate() {
            // The original addresses keep their ids.
            if let Some(a) = self.test.addresses.get(i) {
                *m = self
                    .multimem_phys
                    .get(a.phys.index())
                    .copied()
                    .unwrap_or(false);
            }
        }
        // Names per new physical location (for messages): those of the original one.
        let mut names = vec![String::new(); self.out.n_phys as usize];
        for p in 0..n_phys {
            for &np in &self.new_phys[p] {
                if let Some(n) = names.get_mut(np.index()) {
                    *n = phys_name(self.test, PhysId::new(p));
                }
            }
        }
        // Origins name original locations; SizeInfo names new ones.
        let mut origin = std::mem::take(&mut self.origin);
        for th in &mut origin {
            for o in th.iter_mut().flatten() {
                o.phys = self
                    .new_phys
                    .get(o.phys.index())
                    .and_then(|v| v.first())
                    .copied()
                    .unwrap_or(o.phys);
            }
        }
        let mut home = vec![PhysId(0); self.out.n_phys as usize];
        for ids in &self.new_phys {
            for &np in ids {
                if let (Some(h), Some(&first)) = (home.get_mut(np.index()), ids.first()) {
                    *h = first;
                }
            }
        }
        let mut bytes = vec![(0, 0); self.out.n_phys as usize];
        for (ids, gs) in self.new_phys.iter().zip(&self.granules) {
            for (&np, &g) in ids.iter().zip(gs) {
                if let Some(b) = bytes.get_mut(np.index()) {
                    *b = g;
                }
            }
        }
        let info = SizeInfo {
            origin,
            multimem,
            names,
            home,
            bytes,
            hazards: std::mem::take(&mut self.hazards),
        };
        Ok(Prepared {
            test: Some(self.out),
            info: Some(Arc::new(info)),
            map: Some(map),
        })
    }

    fn fresh_reg(&mut self, t: usize) -> RegId {
        let regs = &mut self.out.symbols.regs;
        if regs.len() <= t {
            regs.resize(t + 1, Vec::new());
        }
        let base = self.test.n_regs(ptxmc_frontend::ir::ThreadId::new(t));
        let n = regs[t].len().max(base);
        regs[t].resize(n, String::new());
        regs[t].push(format!("%sz{n}"));
        RegId::new(n)
    }

    /// The granules `[s, e)` covers on original location `p`: (granule index, start).
    fn covered(&self, p: usize, s: u32, e: u32) -> Vec<(usize, u32, u32)> {
        self.granules[p]
            .iter()
            .enumerate()
            .filter(|(_, &(gs, ge))| s <= gs && ge <= e)
            .map(|(g, &(gs, ge))| (g, gs, ge))
            .collect()
    }

    /// Bytes `start..start + len` of the value `o` as an operand of thread
    /// `t`: an immediate sliced here, or a register shifted (and masked when
    /// under 8 bytes or `always_mask`) into a fresh register by the
    /// instructions added to `prep`.
    fn operand_part(
        &mut self,
        t: usize,
        o: Operand,
        (start, len): (u32, u32),
        always_mask: bool,
        prep: &mut Vec<Instr>,
    ) -> Operand {
        match o {
            Operand::Imm(v) => Operand::Imm(slice(v, start, len)),
            Operand::Reg(_) => {
                let r = self.fresh_reg(t);
                prep.push(op(BinOp::Shr, r, o, i64::from(8 * start)));
                if len < 8 || always_mask {
                    prep.push(op(BinOp::And, r, Operand::Reg(r), mask(len)));
                }
                Operand::Reg(r)
            }
        }
    }

    /// The rewritten code of thread `t`.
    fn thread(&mut self, t: usize) -> Result<Vec<Stmt>, String> {
        let test = self.test;
        let mut code: Vec<Stmt> = Vec::new();
        let mut origin: Vec<Vec<Origin>> = Vec::new();
        // The memory instructions still to come of an `unordered N` group of
        // the original code (its count is of instructions, not of parts).
        let mut in_group = 0u32;
        // An instruction with a hazard: its first rewritten statement and
        // the hazard.
        let mut flagged: Option<(usize, Hazard)> = None;
        let mut again: Vec<Stmt> = Vec::new();
        for (k, s) in test.threads[t].code.iter().enumerate() {
            self.flag(t, &mut flagged, code.len());
            if let Some((.., m)) = self
                .hazards_in
                .iter()
                .find(|(ft, fk, _)| (*ft, *fk) == (t, k))
            {
                flagged = Some((code.len(), m.clone()));
            }
            let span = s.span;
            // The `AddrReg`s of an access that may be cut into parts, to
            // repeat before each part after the first (`addr_regs.rs`).
            if matches!(s.instr, Instr::AddrReg { .. }) {
                again.extend(self.addr_reg(t, k, s, &mut code, &mut origin));
                continue;
            }
            let again = std::mem::take(&mut again);
            // Copies and mbarrier operands (`copies.rs`); a `st.async` goes on
            // below with its mbarrier operand on its granule.
            let Some(instr) = self.async_stmt(s, &again, &mut code, &mut origin)? else {
                continue;
            };
            let s = &Stmt { instr, span };
            if let Instr::Unordered(n) = s.instr {
                in_group = n;
            }
            let Some((addr, sc)) = scalars(test, &s.instr) else {
                code.push(s.clone());
                origin.push(Vec::new());
                continue;
            };
            let grouped = in_group > 0;
            in_group = in_group.saturating_sub(1);
            let p = sc.first().map_or(0, |x| x.phys.index());
            if !self.split.get(p).copied().unwrap_or(false) {
                code.push(s.clone());
                origin.push(Vec::new());
                continue;
            }
            let (base, _) = base_offset(test, addr);
            let parts: usize = sc
                .iter()
                .map(|x| self.covered(p, x.start, x.end).len())
                .sum();
            let sem = match &s.instr {
                Instr::Load { sem, .. }
                | Instr::Store { sem, .. }
                | Instr::Rmw { sem, .. }
                | Instr::Async(AsyncInstr::StAsync { sem, .. }) => *sem,
                _ => Sem::Weak,
            };
            if parts > 1 && sem == Sem::Mmio {
                return Err(format!(
                    "`.mmio` access split into {parts} parts (8.4.1: mmio writes and reads are performed as written) at {span}"
                ));
            }
            // The parts of a `st.async` are asynchronous operations of their
            // own, not ordered with each other (8.9.1.1): no order is added.
            let is_async = matches!(s.instr, Instr::Async(_));
            if parts > 1 && grouped {
                return Err(format!(
                    "an element of an unordered operation (a multimem location) split into {parts} parts at {span}"
                ));
            }
            // 8.2.4: the parts of a release or acquire access are "executed in
            // an unspecified order": none is ordered with another, so that no
            // part's release (acquire) covers another part
            // (`docs/model-notes.md`, "Unspecified order").
            if parts > 1 && !is_async && (sem.is_release() || sem.is_acquire()) {
                code.push(Stmt {
                    instr: Instr::Unordered(parts as u32),
                    span,
                });
                origin.push(Vec::new());
            }
            let gmap = self.gaddr.clone();
            let gaddr = |g: usize| gmap.get(&(base.index(), g)).copied().unwrap_or(base);
            let mut first_part = true;
            let mut push = |code: &mut Vec<Stmt>, instr: Instr, o: Option<Origin>| {
                // A memory part (with its origin) after the first.
                if o.is_some() && !std::mem::replace(&mut first_part, false) {
                    code.extend(again.iter().cloned());
                    origin.extend(again.iter().map(|_| Vec::new()));
                }
                code.push(Stmt { instr, span });
                origin.push(o.into_iter().collect());
            };
            let op0 = self.next_op;
            self.next_op += sc.len() as u32;
            let origin_of = |x: &Scalar| Origin {
                phys: PhysId::new(p),
                start: x.start,
                end: x.end,
                span,
                op: op0 + sc.iter().position(|y| y.start == x.start).unwrap_or(0) as u32,
                dir: Dir::Any,
            };
            match &s.instr {
                Instr::Load {
                    sem,
                    scope,
                    proxy,
                    space,
                    dst,
                    ..
                } => {
                    let mut combine: Vec<Instr> = Vec::new();
                    // A `.b128` load has one register for its two halves
                    // (ptxmc's registers hold 64 bits): the high half is read
                    // into a register of its own.
                    let wide = sc.len() > dst.len();
                    for (k, x) in sc.iter().enumerate() {
                        let d = match (wide, dst.get(k), dst.get(k / 2)) {
                            (false, Some(&d), _) => d,
                            (true, _, Some(&d)) if k % 2 == 0 => d,
                            _ => self.fresh_reg(t),
                        };
                        let cov = self.covered(p, x.start, x.end);
                        if x.end - x.start > 8 {
                            return Err(format!(
                                "mixed-size accesses to {} (a load of {} bytes split into parts) at {span}",
                                name_of(test, base),
                                x.end - x.start
                            ));
                        }
                        for (k, &(g, gs, ge)) in cov.iter().enumerate() {
                            let r = if cov.len() == 1 { d } else { self.fresh_reg(t) };
                            let gaddr = gaddr(g);
                            push(
                                &mut code,
                                Instr::Load {
                                    sem: *sem,
                                    scope: *scope,
                                    proxy: *proxy,
                                    space: *space,
                                    access: Access {
                                        bytes: (ge - gs) as u8,
                                        vector: 1,
                                    },
                                    dst: vec![r],
                                    addr: gaddr,
                                },
                                Some(origin_of(x)),
                            );
                            if ge - gs < 8 {
                                combine.push(op(BinOp::And, r, Operand::Reg(r), mask(ge - gs)));
                            }
                            if cov.len() > 1 {
                                if gs > x.start {
                                    combine.push(op(
                                        BinOp::Shl,
                                        r,
                                        Operand::Reg(r),
                                        i64::from(8 * (gs - x.start)),
                                    ));
                                }
                                combine.push(if k == 0 {
                                    Instr::Mov {
                                        dst: d,
                                        src: Operand::Reg(r),
                                    }
                                } else {
                                    Instr::Op {
                                        op: BinOp::Or,
                                        dst: d,
                                        a: Operand::Reg(d),
                                        b: Operand::Reg(r),
                                    }
                                });
                            }
                        }
                    }
                    for i in combine {
                        push(&mut code, i, None);
                    }
                }
                Instr::Store {
                    sem,
                    scope,
                    proxy,
                    space,
                    src,
                    ..
                } => {
                    // A `.b128` store has one value for its two halves: the
                    // high half is bytes 8..16 of the value (copies of its sign).
                    let wide = sc.len() > src.len();
                    for (k, x) in sc.iter().enumerate() {
                        let o = match (wide, src.get(k), src.get(k / 2)) {
                            (false, Some(&o), _) => o,
                            (true, _, Some(&o)) if k % 2 == 0 => o,
                            (true, _, Some(&o)) => {
                                let mut prep = Vec::new();
                                let hi =
                                    self.operand_part(t, o, (WIDE / 2, WIDE / 2), false, &mut prep);
                                for i in prep {
                                    push(&mut code, i, None);
                                }
                                hi
                            }
                            _ => continue,
                        };
                        for (g, gs, ge) in self.covered(p, x.start, x.end) {
                            let (len, rel_start) = (ge - gs, gs - x.start);
                            let mut prep = Vec::new();
                            let value = match o {
                                Operand::Reg(_) if rel_start == 0 && len >= 8 => o,
                                _ => self.operand_part(t, o, (rel_start, len), false, &mut prep),
                            };
                            for i in prep {
                                push(&mut code, i, None);
                            }
                            push(
                                &mut code,
                                Instr::Store {
                                    sem: *sem,
                                    scope: *scope,
                                    proxy: *proxy,
                                    space: *space,
                                    access: Access {
                                        bytes: len as u8,
                                        vector: 1,
                                    },
                                    addr: gaddr(g),
                                    src: vec![value],
                                },
                                Some(origin_of(x)),
                            );
                        }
                    }
                }
                Instr::Async(AsyncInstr::StAsync {
                    sem,
                    scope,
                    src,
                    mbar,
                    ..
                }) => {
                    // One `st.async` per granule, each signalling `mbar` with
                    // its own bytes (the sum is the instruction's).
                    let Some(x) = sc.first() else { continue };
                    for (g, gs, ge) in self.covered(p, x.start, x.end) {
                        let (len, rel_start) = (ge - gs, gs - x.start);
                        let mut prep = Vec::new();
                        let value = match src {
                            Operand::Reg(_) if rel_start == 0 && len >= 8 => *src,
                            _ => self.operand_part(t, *src, (rel_start, len), false, &mut prep),
                        };
                        for i in prep {
                            push(&mut code, i, None);
                        }
                        push(
                            &mut code,
                            Instr::Async(AsyncInstr::StAsync {
                                sem: *sem,
                                scope: *scope,
                                access: Access {
                                    bytes: len as u8,
                                    vector: 1,
                                },
                                addr: gaddr(g),
                                src: value,
                                mbar: *mbar,
                            }),
                            Some(origin_of(x)),
                        );
                    }
                }
                Instr::Rmw {
                    sem,
                    scope,
                    proxy,
                    space,
                    op: rop,
                    dst,
                    a,
                    b,
                    ..
                } => {
                    let Some(x) = sc.first() else { continue };
                    let cov = self.covered(p, x.start, x.end);
                    // Bitwise operations and `exch` act on each byte on its own, so
                    // their parts are exact; the others carry between bytes.
                    let bytewise = matches!(rop, RmwOp::And | RmwOp::Or | RmwOp::Xor | RmwOp::Exch);
                    if cov.len() != 1 && !bytewise {
                        return Err(format!(
                            "mixed-size accesses to {} (an atomic `{rop}` split into {} parts) at {span}",
                            name_of(test, base),
                            cov.len()
                        ));
                    }
                    let mut combine: Vec<Instr> = Vec::new();
                    for (k, &(g, gs, ge)) in cov.iter().enumerate() {
                        let (len, rel_start) = (ge - gs, gs - x.start);
                        let operand = if cov.len() == 1 {
                            *a
                        } else {
                            let mut prep = Vec::new();
                            let part = self.operand_part(t, *a, (rel_start, len), true, &mut prep);
                            for i in prep {
                                push(&mut code, i, None);
                            }
                            part
                        };
                        let part_dst = match dst {
                            Some(d) if cov.len() == 1 => Some(*d),
                            Some(_) => Some(self.fresh_reg(t)),
                            None => None,
                        };
                        push(
                            &mut code,
                            Instr::Rmw {
                                sem: *sem,
                                scope: *scope,
                                proxy: *proxy,
                                space: *space,
                                access: Access {
                                    bytes: len as u8,
                                    vector: 1,
                                },
                                op: *rop,
                                dst: part_dst,
                                addr: gaddr(g),
                                a: operand,
                                b: *b,
                            },
                            Some(origin_of(x)),
                        );
                        let (Some(d), Some(r)) = (dst, part_dst) else {
                            continue;
                        };
                        if len < 8 {
                            combine.push(op(BinOp::And, r, Operand::Reg(r), mask(len)));
                        }
                        if cov.len() > 1 {
                            if rel_start > 0 {
                                combine.push(op(
                                    BinOp::Shl,
                                    r,
                                    Operand::Reg(r),
                                    i64::from(8 * rel_start),
                                ));
                            }
                            combine.push(if k == 0 {
                                Instr::Mov {
                                    dst: *d,
                                    src: Operand::Reg(r),
                                }
                            } else {
                                Instr::Op {
                                    op: BinOp::Or,
                                    dst: *d,
                                    a: Operand::Reg(*d),
                                    b: Operand::Reg(r),
                                }
                            });
                        }
                    }
                    for i in combine {
                        push(&mut code, i, None);
                    }
                }
                _ => {}
            }
        }
        self.flag(t, &mut flagged, code.len());
        if self.origin.len() <= t {
            self.origin.resize(t + 1, Vec::new());
        }
        self.origin[t] = origin;
        Ok(code)
    }

    /// Records the rewritten statements `from..to` of thread `t` of an
    /// instruction with a hazard (`flagged`), and clears it.
    fn flag(&mut self, t: usize, flagged: &mut Option<(usize, Hazard)>, to: usize) {
        if let Some((from, m)) = flagged.take() {
            for i in from..to {
                self.hazards.push(((t, i as u32), m.clone()));
            }
        }
    }

    /// Replaces the condition, filter and observed terms of the rewritten test
    /// with the plain list of what the original ones need.
    fn report_map(&mut self) -> ReportMap {
        let test = self.test;
        let mut originals = crate::terms::state_terms(test);
        if let Some(f) = &test.filter {
            f.terms(&mut originals);
        }
        let mut lowered_terms: Vec<Term> = Vec::new();
        let index = |t: Term, lowered_terms: &mut Vec<Term>| {
            lowered_terms
                .iter()
                .position(|x| *x == t)
                .unwrap_or_else(|| {
                    lowered_terms.push(t);
                    lowered_terms.len() - 1
                })
        };
        let mut terms = Vec::new();
        for t in originals {
            let v = match t {
                Term::Mem(a) => {
                    let p = test
                        .addresses
                        .get(a.index())
                        .map_or(0, |ad| ad.phys.index());
                    if self.split.get(p).copied().unwrap_or(false) {
                        let (base, off) = base_offset(test, a);
                        let width = self.granules[p]
                            .iter()
                            .map(|g| g.1)
                            .max()
                            .unwrap_or(0)
                            .saturating_sub(off)
                            .min(8);
                        let mut parts = Vec::new();
                        for (g, gs, ge) in self.covered(p, off, off + width) {
                            let ga = self.gaddr.get(&(base.index(), g)).copied().unwrap_or(base);
                            parts.push((
                                index(Term::Mem(ga), &mut lowered_terms),
                                gs - off,
                                ge - gs,
                            ));
                        }
                        let init = test.init_mem.get(p).copied().unwrap_or(0);
                        TermValue::Bytes(slice(init, off, width), parts)
                    } else {
                        TermValue::Same(index(t, &mut lowered_terms))
                    }
                }
                _ => TermValue::Same(index(t, &mut lowered_terms)),
            };
            terms.push((t, v));
        }
        self.out.observed = lowered_terms.clone();
        self.out.filter = None;
        self.out.condition = Condition {
            quantifier: Quantifier::Exists,
            prop: Prop::True,
        };
        ReportMap {
            lowered_terms,
            terms,
        }
    }
}

fn op(op: BinOp, dst: RegId, a: Operand, b: i64) -> Instr {
    Instr::Op {
        op,
        dst,
        a,
        b: Operand::Imm(b),
    }
}
