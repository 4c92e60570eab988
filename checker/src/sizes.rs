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
//! reassembles loaded ones (little-endian). A test whose overlaps are all
//! complete is left untouched.
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

use crate::event::{EventId, EventKind};
use crate::execution::Execution;
use crate::model::Relations;
use crate::report::{FinalState, Report};
use ptxmc_frontend::ir::{
    Access, AddrId, AddrKind, Address, BinOp, CmpOp, Condition, Instr, Operand, PhysId, Prop,
    Quantifier, RegId, RmwOp, Sem, Span, Stmt, Term, Test, VAddrId,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The scalar memory operation (8.2.4) a rewritten access comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The physical location of the original test.
    phys: PhysId,
    /// Its first byte.
    start: u32,
    /// One past its last byte.
    end: u32,
    /// Where it is written.
    span: Span,
    /// Which scalar operation of the original code (a dense id).
    op: u32,
}

/// What the explorers' completion step checks on every consistent execution:
/// mixed-size data races and accesses to multimem addresses.
#[derive(Clone, Debug, Default)]
pub(crate) struct SizeInfo {
    /// Per thread, per statement of the rewritten code: the scalar operation
    /// a memory access comes from, when its location was cut into granules.
    origin: Vec<Vec<Option<Origin>>>,
    /// Per address of the rewritten test: whether it is a multimem address.
    multimem: Vec<bool>,
    /// Names of the original physical locations (for messages).
    names: Vec<String>,
}

/// An undefined-behaviour finding: a sort key (so that every explorer reports
/// the same one, whatever the order it finds them in) and the message.
pub(crate) type Finding = ((u32, u32, u32, u32), String);

fn key(a: Span, b: Span) -> (u32, u32, u32, u32) {
    (a.line, a.col, b.line, b.col)
}

impl SizeInfo {
    /// The first (by source position) reason why the program's behaviour is
    /// undefined that the consistent execution `exec` with relations `rel`
    /// shows, if any.
    pub(crate) fn undefined(&self, exec: &Execution, rel: &Relations) -> Option<Finding> {
        let mut best: Option<Finding> = None;
        let mut keep = |f: Finding| {
            if best.as_ref().is_none_or(|b| f.0 < b.0) {
                best = Some(f);
            }
        };
        let ids: Vec<EventId> = exec.ids().collect();
        for &a in &ids {
            let ea = exec.event(a);
            let Some(la) = ea.loc() else { continue };
            if ea.thread.is_none() {
                continue;
            }
            if self.multimem.get(la.addr.index()).copied().unwrap_or(false) {
                let name = self.names.get(la.phys.index()).map_or("?", String::as_str);
                keep((
                    key(ea.span, ea.span),
                    format!(
                        "non-multimem access to the multimem address {name} at {} (8.2.3)",
                        ea.span
                    ),
                ));
            }
        }
        for (i, &a) in ids.iter().enumerate() {
            let ea = exec.event(a);
            let (Some(la), Some(oa)) = (ea.loc(), self.origin_of(exec, a)) else {
                continue;
            };
            for &b in &ids[i + 1..] {
                let eb = exec.event(b);
                let (Some(lb), Some(ob)) = (eb.loc(), self.origin_of(exec, b)) else {
                    continue;
                };
                if la.phys != lb.phys
                    || (oa.start, oa.end) == (ob.start, ob.end)
                    || !(ea.is_write() || eb.is_write())
                    || rel.causality.contains(a, b)
                    || rel.causality.contains(b, a)
                {
                    continue;
                }
                let (s1, s2) = if (oa.span.line, oa.span.col) <= (ob.span.line, ob.span.col) {
                    (oa.span, ob.span)
                } else {
                    (ob.span, oa.span)
                };
                let name = self.names.get(oa.phys.index()).map_or("?", String::as_str);
                keep((
                    key(s1, s2),
                    format!(
                        "mixed-size data race on {name} between {s1} and {s2} (8.7.2: partially overlapping, not ordered by causality)"
                    ),
                ));
            }
        }
        best
    }

    /// Whether `exec`, an execution of the rewritten test, is one of the
    /// original test: operations that overlap completely and are morally
    /// strong act on their whole location at once (8.7, 8.10.3, 8.10.5), so
    /// the parts of one such operation agree on how they relate to the parts
    /// of another. For two writes, coherence order has the same direction on
    /// every part; for a read and a write, the read reads from the write on
    /// every part, or on none and then from a write before it on every part
    /// or from one after it on every part. Pairs of atomic operations are
    /// pairs of writes, so mixed-size RMW atomicity follows.
    pub(crate) fn accept(&self, exec: &Execution, rel: &Relations) -> bool {
        if self.origin.is_empty() {
            return true;
        }
        let inst = self.instances(exec);
        for (i, a) in inst.iter().enumerate() {
            for b in &inst[i + 1..] {
                if (a.phys, a.start, a.end) != (b.phys, b.start, b.end) || a.parts.len() < 2 {
                    continue;
                }
                if !self.agree(exec, rel, a, b) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether the parts of instances `a` and `b` (same range) agree.
    fn agree(&self, exec: &Execution, rel: &Relations, a: &Instance, b: &Instance) -> bool {
        let strong = a.parts.iter().any(|&(ga, ea)| {
            b.parts
                .iter()
                .any(|&(gb, eb)| ga == gb && rel.morally_strong.contains(ea, eb))
        });
        if !strong {
            return true;
        }
        // Writes: coherence direction per part.
        let dir = |x: &Instance, y: &Instance| -> Vec<Option<bool>> {
            x.parts
                .iter()
                .filter(|&&(_, e)| exec.event(e).is_write())
                .filter_map(|&(g, ex)| {
                    let ey = y
                        .parts
                        .iter()
                        .find(|&&(gy, e)| gy == g && exec.event(e).is_write())?
                        .1;
                    Some(if rel.co.contains(ex, ey) {
                        Some(true)
                    } else if rel.co.contains(ey, ex) {
                        Some(false)
                    } else {
                        None
                    })
                })
                .collect()
        };
        let same = |v: &[Option<bool>]| v.windows(2).all(|w| w[0] == w[1]);
        if !same(&dir(a, b)) {
            return false;
        }
        // A read of one against the writes of the other.
        let read_vs = |r: &Instance, w: &Instance| -> bool {
            // 0: reads from the write; 1: from one before it; 2: from one after it.
            let mut seen: Vec<u8> = Vec::new();
            for &(g, er) in &r.parts {
                if !exec.event(er).is_read() {
                    continue;
                }
                let Some(ew) = w
                    .parts
                    .iter()
                    .find(|&&(gw, e)| gw == g && exec.event(e).is_write())
                    .map(|p| p.1)
                else {
                    continue;
                };
                let src = exec.rf.get(er.index()).copied().flatten();
                let k = match src {
                    Some(s) if s == ew => 0,
                    Some(s) if rel.co.contains(ew, s) => 2,
                    Some(s) if rel.co.contains(s, ew) => 1,
                    // Unrelated in coherence (a write in a data race): no constraint.
                    _ => continue,
                };
                seen.push(k);
            }
            seen.windows(2).all(|w| w[0] == w[1])
        };
        read_vs(a, b) && read_vs(b, a)
    }

    /// The executed instances of split scalar operations: the events of one
    /// instance follow each other in their thread, one per granule.
    fn instances(&self, exec: &Execution) -> Vec<Instance> {
        let mut out: Vec<Instance> = Vec::new();
        for th in &exec.threads {
            let mut cur: Option<Instance> = None;
            for &e in th {
                let Some(o) = self.origin_of(exec, e) else {
                    continue;
                };
                let Some(loc) = exec.event(e).loc() else {
                    continue;
                };
                let fits = cur.as_ref().is_some_and(|c| {
                    c.op == o.op
                        && !c.parts.iter().any(|&(g, x)| {
                            g == loc.phys && exec.event(x).is_write() == exec.event(e).is_write()
                        })
                });
                if !fits {
                    out.extend(cur.take());
                    cur = Some(Instance {
                        op: o.op,
                        phys: o.phys,
                        start: o.start,
                        end: o.end,
                        parts: Vec::new(),
                    });
                }
                if let Some(c) = cur.as_mut() {
                    c.parts.push((loc.phys, e));
                }
            }
            out.extend(cur.take());
        }
        out
    }

    fn origin_of(&self, exec: &Execution, e: EventId) -> Option<&Origin> {
        let ev = exec.event(e);
        if !matches!(ev.kind, EventKind::Read { .. } | EventKind::Write { .. }) {
            return None;
        }
        self.origin
            .get(ev.thread?.index())?
            .get(ev.instr as usize)?
            .as_ref()
    }
}

/// One executed scalar operation whose location was split: its events, one
/// per granule (two for an RMW part: read and write).
#[derive(Clone, Debug)]
struct Instance {
    op: u32,
    phys: PhysId,
    start: u32,
    end: u32,
    /// (granule location, event).
    parts: Vec<(PhysId, EventId)>,
}

/// How to compute the final states of the original test from those of the
/// rewritten one.
#[derive(Clone, Debug)]
pub(crate) struct ReportMap {
    /// For each term the rewritten test observes: what it is.
    lowered_terms: Vec<Term>,
    /// For each original term (condition, observed, filter): how to read it
    /// off the rewritten terms.
    terms: Vec<(Term, TermValue)>,
}

/// The value of one original term.
#[derive(Clone, Debug)]
enum TermValue {
    /// The rewritten term at this index.
    Same(usize),
    /// A split location: its initial value with the bytes of these
    /// granules (rewritten term index, byte offset, bytes) replaced.
    Bytes(i64, Vec<(usize, u32, u32)>),
}

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

/// The base address and byte offset of an address (`[x+N]` is `x` plus `N`).
fn base_offset(test: &Test, a: AddrId) -> (AddrId, u32) {
    match test.addresses.get(a.index()).map(|ad| ad.kind) {
        Some(AddrKind::Offset(b, o)) => (b, o),
        _ => (a, 0),
    }
}

/// The scalar accesses of a memory instruction (8.2.4: one per vector element).
fn scalars(test: &Test, instr: &Instr) -> Option<(AddrId, Vec<Scalar>)> {
    let (addr, access) = match instr {
        Instr::Load { addr, access, .. }
        | Instr::Store { addr, access, .. }
        | Instr::Rmw { addr, access, .. } => (*addr, *access),
        _ => return None,
    };
    let phys = test.addresses.get(addr.index())?.phys;
    let (_, off) = base_offset(test, addr);
    let b = u32::from(access.bytes);
    let v = u32::from(access.vector.max(1));
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

/// The granules of a split location: the maximal byte ranges between access
/// boundaries that some access covers.
fn granules(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut cuts: Vec<u32> = ranges.iter().flat_map(|&(s, e)| [s, e]).collect();
    cuts.sort_unstable();
    cuts.dedup();
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
    let split: Vec<bool> = (0..n_phys)
        .map(|p| !untyped[p] && (ranges[p].len() > 1 || ranges[p].iter().any(|r| r.0 != 0)))
        .collect();
    let any_multimem = multimem_phys.iter().any(|&m| m);
    if !split.iter().any(|&s| s) {
        let info = any_multimem.then(|| {
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
            })
        });
        return Ok(Prepared {
            test: None,
            info,
            map: None,
        });
    }
    Lowering::new(test, &ranges, &split, &multimem_phys)?.run()
}

/// The rewriting of a test with split locations.
struct Lowering<'t> {
    test: &'t Test,
    /// Per original physical location: its granules (one `(0, 0)` pseudo
    /// granule for a location that is not split) and their new ids.
    granules: Vec<Vec<(u32, u32)>>,
    new_phys: Vec<Vec<PhysId>>,
    split: Vec<bool>,
    /// The rewritten test being built.
    out: Test,
    /// Per original address and granule index: the new address.
    gaddr: HashMap<(usize, usize), AddrId>,
    origin: Vec<Vec<Option<Origin>>>,
    multimem_phys: Vec<bool>,
    /// The next scalar operation id.
    next_op: u32,
}

impl<'t> Lowering<'t> {
    fn new(
        test: &'t Test,
        ranges: &[Vec<(u32, u32)>],
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
                let g = granules(r);
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
        })
    }

    fn run(mut self) -> Result<Prepared, String> {
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
        let info = SizeInfo {
            origin,
            multimem,
            names,
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

    /// The rewritten code of thread `t`.
    fn thread(&mut self, t: usize) -> Result<Vec<Stmt>, String> {
        let test = self.test;
        let mut code: Vec<Stmt> = Vec::new();
        let mut origin: Vec<Option<Origin>> = Vec::new();
        for s in &test.threads[t].code {
            let span = s.span;
            let Some((addr, sc)) = scalars(test, &s.instr) else {
                code.push(s.clone());
                origin.push(None);
                continue;
            };
            let p = sc.first().map_or(0, |x| x.phys.index());
            if !self.split.get(p).copied().unwrap_or(false) {
                code.push(s.clone());
                origin.push(None);
                continue;
            }
            let (base, _) = base_offset(test, addr);
            let parts: usize = sc
                .iter()
                .map(|x| self.covered(p, x.start, x.end).len())
                .sum();
            let sem = match &s.instr {
                Instr::Load { sem, .. } | Instr::Store { sem, .. } | Instr::Rmw { sem, .. } => *sem,
                _ => Sem::Weak,
            };
            if parts > 1 && sem == Sem::Mmio {
                return Err(format!(
                    "`.mmio` access split into {parts} parts (8.4.1: mmio writes and reads are performed as written) at {span}"
                ));
            }
            if parts > 1 && (sem.is_release() || sem.is_acquire()) {
                return Err(format!(
                    "release/acquire access split into {parts} parts (unspecified order, 8.2.4) at {span}"
                ));
            }
            let gmap = self.gaddr.clone();
            let gaddr = |g: usize| gmap.get(&(base.index(), g)).copied().unwrap_or(base);
            let mut push = |code: &mut Vec<Stmt>, instr: Instr, o: Option<Origin>| {
                code.push(Stmt { instr, span });
                origin.push(o);
            };
            let op0 = self.next_op;
            self.next_op += sc.len() as u32;
            let origin_of = |x: &Scalar| Origin {
                phys: PhysId::new(p),
                start: x.start,
                end: x.end,
                span,
                op: op0 + sc.iter().position(|y| y.start == x.start).unwrap_or(0) as u32,
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
                    for (x, &d) in sc.iter().zip(dst) {
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
                    for (x, &o) in sc.iter().zip(src) {
                        for (g, gs, ge) in self.covered(p, x.start, x.end) {
                            let (len, shift) = (ge - gs, 8 * (gs - x.start));
                            let value = match o {
                                Operand::Imm(v) => Operand::Imm(slice(v, gs - x.start, len)),
                                Operand::Reg(_) if shift == 0 && len >= 8 => o,
                                Operand::Reg(_) => {
                                    let r = self.fresh_reg(t);
                                    push(
                                        &mut code,
                                        Instr::Op {
                                            op: BinOp::Shr,
                                            dst: r,
                                            a: o,
                                            b: Operand::Imm(i64::from(shift)),
                                        },
                                        None,
                                    );
                                    if len < 8 {
                                        push(
                                            &mut code,
                                            op(BinOp::And, r, Operand::Reg(r), mask(len)),
                                            None,
                                        );
                                    }
                                    Operand::Reg(r)
                                }
                            };
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
                            "mixed-size accesses to {} (an atomic `{rop:?}` split into {} parts) at {span}",
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
                            match *a {
                                Operand::Imm(v) => Operand::Imm(slice(v, rel_start, len)),
                                Operand::Reg(_) => {
                                    let r = self.fresh_reg(t);
                                    push(
                                        &mut code,
                                        Instr::Op {
                                            op: BinOp::Shr,
                                            dst: r,
                                            a: *a,
                                            b: Operand::Imm(i64::from(8 * rel_start)),
                                        },
                                        None,
                                    );
                                    push(
                                        &mut code,
                                        op(BinOp::And, r, Operand::Reg(r), mask(len)),
                                        None,
                                    );
                                    Operand::Reg(r)
                                }
                            }
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
        if self.origin.len() <= t {
            self.origin.resize(t + 1, Vec::new());
        }
        self.origin[t] = origin;
        Ok(code)
    }

    /// Replaces the condition, filter and observed terms of the rewritten test
    /// with the plain list of what the original ones need.
    fn report_map(&mut self) -> ReportMap {
        let test = self.test;
        let mut originals = crate::explore::outcome::state_terms(test);
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

/// The span of the first access to physical location `p`.
fn first_span(test: &Test, p: PhysId) -> Span {
    test.threads
        .iter()
        .flat_map(|th| &th.code)
        .find(|s| scalars(test, &s.instr).is_some_and(|(_, sc)| sc.iter().any(|x| x.phys == p)))
        .map(|s| s.span)
        .unwrap_or_default()
}

impl ReportMap {
    /// The report of the original `test` from the report `r` of the rewritten one.
    pub(crate) fn map(&self, test: &Test, r: Report) -> Report {
        let state_terms = crate::explore::outcome::state_terms(test);
        let mut states: BTreeMap<FinalState, u64> = BTreeMap::new();
        let (mut positive, mut negative) = (0u64, 0u64);
        for (state, n) in &r.states {
            let value = |t: &Term| -> i64 {
                if let Term::Const(c) = t {
                    return *c;
                }
                let Some((_, v)) = self.terms.iter().find(|(x, _)| x == t) else {
                    return 0;
                };
                let at = |i: usize| state.0.get(i).copied().unwrap_or(0);
                match v {
                    TermValue::Same(i) => at(*i),
                    TermValue::Bytes(init, parts) => {
                        let mut v = *init;
                        for &(i, off, len) in parts {
                            if off >= 8 {
                                continue;
                            }
                            let m = mask(len.min(8 - off)) << (8 * off);
                            v = (v & !m) | ((at(i) << (8 * off)) & m);
                        }
                        v
                    }
                }
            };
            if let Some(f) = &test.filter {
                if !holds(f, &value) {
                    continue;
                }
            }
            if holds(&test.condition.prop, &value) {
                positive += n;
            } else {
                negative += n;
            }
            let s = FinalState(state_terms.iter().map(&value).collect());
            *states.entry(s).or_insert(0) += n;
        }
        debug_assert_eq!(self.lowered_terms.len(), r.state_terms.len());
        let condition_holds = match test.condition.quantifier {
            Quantifier::Exists => positive > 0,
            Quantifier::NotExists => positive == 0,
            Quantifier::Forall => negative == 0,
        };
        Report {
            state_terms,
            states: states.into_iter().collect(),
            positive,
            negative,
            condition_holds,
            witness: None,
            ..r
        }
    }
}

fn holds(p: &Prop, value: &dyn Fn(&Term) -> i64) -> bool {
    match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Cmp(c, a, b) => CmpOp::eval(*c, value(a), value(b)),
        Prop::Not(q) => !holds(q, value),
        Prop::And(a, b) => holds(a, value) && holds(b, value),
        Prop::Or(a, b) => holds(a, value) || holds(b, value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Options, Status, Strategy};

    fn both(src: &str) -> Report {
        let t = ptxmc_frontend::parse(src).expect("parses");
        let b = crate::check(
            &t,
            &Options {
                strategy: Strategy::Brute,
                ..Options::default()
            },
        );
        let d = crate::check(&t, &Options::default());
        assert_eq!(b.status, d.status);
        assert_eq!(b.states, d.states);
        d
    }

    const HEAD: &str = "PTX t\n{ x=0x04030201; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n";

    #[test]
    fn uniform_sizes_are_not_rewritten() {
        let t = ptxmc_frontend::parse(&format!(
            "{HEAD} st.global.u32 [x], 1 | ld.global.u32 %r0, [x] ;\nexists (1:r0 == 1)"
        ))
        .expect("parses");
        let p = prepare(&t).expect("supported");
        assert!(p.test.is_none() && p.info.is_none() && p.map.is_none());
    }

    #[test]
    fn partial_overlap_race_is_undefined_and_names_both_lines() {
        let r = both(&format!(
            "{HEAD} st.global.u32 [x], 1 | ld.global.u8 %r0, [x+1] ;\nexists (1:r0 == 3)"
        ));
        assert_eq!(
            r.status,
            Status::Undefined(
                "mixed-size data race on x between 4:2 and 4:25 (8.7.2: partially overlapping, not ordered by causality)"
                    .into()
            )
        );
    }

    #[test]
    fn ordered_partial_overlap_reads_the_right_bytes() {
        let r = both(
            "PTX t\n{ x=0x04030201; }\n P0@cta 0,gpu 0 ;\n st.global.u16 [x+2], 0x0605 ;\n ld.global.u32 %r0, [x] ;\n ld.global.u8 %r1, [x+3] ;\nforall (0:r0 == 0x06050201 /\\ 0:r1 == 6 /\\ x == 0x06050201)",
        );
        assert_eq!(r.status, Status::Ok);
        assert!(r.condition_holds, "{:?}", r.states);
    }

    #[test]
    fn reads_only_never_race() {
        let r = both(&format!(
            "{HEAD} ld.global.u32 %r1, [x] | ld.global.u16 %r0, [x+2] ;\nforall (1:r0 == 0x0403 /\\ 0:r1 == 0x04030201)"
        ));
        assert_eq!(r.status, Status::Ok);
        assert!(r.condition_holds);
    }

    #[test]
    fn what_cannot_be_split_is_unsupported() {
        for (code, what) in [
            (
                "atom.global.add.u32 %r0, [x], 1 | ld.global.u16 %r1, [x]",
                "atomic `Add`",
            ),
            (
                "st.global.release.gpu.u32 [x], 1 | ld.global.u16 %r1, [x]",
                "release/acquire",
            ),
            (
                "st.mmio.relaxed.sys.global.u32 [x], 1 | ld.global.u16 %r1, [x]",
                "`.mmio`",
            ),
            (
                "st.global.u32 [x], 1 | ld.weak %r1, x",
                "mixed-size accesses to x",
            ),
        ] {
            let t = ptxmc_frontend::parse(&format!("{HEAD} {code} ;\nexists (1:r1 == 0)"))
                .expect("parses");
            let m = prepare(&t).err().unwrap_or_default();
            assert!(m.contains(what), "{code}: {m}");
        }
    }

    #[test]
    fn multimem_access_is_undefined() {
        let r = both(
            "PTX t\n{ mc @ multimem; }\n P0@cta 0,gpu 0 ;\n ld.global.u32 %r0, [mc] ;\nexists (0:r0 == 0)",
        );
        assert_eq!(
            r.status,
            Status::Undefined(
                "non-multimem access to the multimem address mc at 4:2 (8.2.3)".into()
            )
        );
    }

    #[test]
    fn granules_cut_at_every_boundary() {
        assert_eq!(granules(&[(0, 4), (2, 4)]), vec![(0, 2), (2, 4)]);
        assert_eq!(granules(&[(0, 4), (4, 8)]), vec![(0, 4), (4, 8)]);
        assert_eq!(
            granules(&[(0, 8), (2, 6), (4, 8)]),
            vec![(0, 2), (2, 4), (4, 6), (6, 8)]
        );
        assert_eq!(granules(&[(0, 1), (4, 5)]), vec![(0, 1), (4, 5)]);
    }

    #[test]
    fn slices_are_little_endian() {
        assert_eq!(slice(0x0102_0304, 0, 2), 0x0304);
        assert_eq!(slice(0x0102_0304, 2, 2), 0x0102);
        assert_eq!(slice(-1, 9, 1), 0xff);
        assert_eq!(slice(5, 4, 4), 0);
    }
}
