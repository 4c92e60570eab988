//! Per-thread facts that depend only on the program: label positions, loops,
//! and which loops are side-effect-free spin loops (`docs/model-notes.md`).

use super::writes::shared_scope;
use crate::model::reading::Reading;
use ptxmc_frontend::ir::{
    Address, AsyncInstr, Instr, LabelId, Operand, RegId, Stmt, Test, ThreadId,
};

/// A loop: a backward `goto`/branch at position `back` to the label at
/// position `head <= back`; its body is `head..=back`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Loop {
    /// Position of the label the back edge jumps to.
    pub head: usize,
    /// Position of the backward jump.
    pub back: usize,
    /// Whether every iteration that takes the back edge is side-effect free,
    /// so that the loop blocks there and is never cut by the unroll bound: a
    /// spin loop (its body has no store, RMW or barrier, every register it
    /// reads is either written earlier in the same iteration, on every path,
    /// or never written in it, and every register it writes that is read
    /// after it or shown is written on every path to each exit), or a CAS
    /// retry loop whose back edge is taken only when its CAS failed, under a
    /// reading where that failure is unobservable ([`ThreadCode::with_reading`]).
    pub spin: bool,
    /// Whether the loop is a retry loop: as a spin loop, but its body has
    /// RMWs. An iteration that made no write (each of its `atom.cas` failed
    /// under a reading where a failed CAS only reads) is side-effect free
    /// and blocks like a spin loop's; one that wrote is unrolled
    /// (`docs/model-notes.md`, "Waits").
    pub retry: bool,
}

impl Loop {
    /// Whether position `p` lies in the loop body.
    pub fn contains(&self, p: usize) -> bool {
        (self.head..=self.back).contains(&p)
    }
}

/// The code of one thread with its precomputed control-flow facts.
#[derive(Clone, Debug)]
pub struct ThreadCode {
    thread: ThreadId,
    // invariant: every Goto/Branch target is a key with a position; every
    // memory instruction's address indexes `addresses`; no Instr::Unsupported.
    stmts: Vec<Stmt>,
    addresses: Vec<Address>,
    label_pos: Vec<Option<usize>>,
    loops: Vec<Loop>,
    /// For each position, the loop whose back edge is there.
    back_edge: Vec<Option<usize>>,
    /// For each position, the loops whose head is there.
    heads: Vec<Vec<usize>>,
    /// For each loop: whether it is a spin loop by its code alone, and the
    /// address of its CAS when it is a guarded CAS retry loop
    /// ([`guarded_cas`]).
    // invariant: one entry per loop, in the order of `loops`.
    loop_facts: Vec<(bool, Option<ptxmc_frontend::ir::AddrId>)>,
    n_regs: usize,
    /// The reading of the model whose choices the events follow.
    reading: Reading,
    /// For each physical location: every access to it in the test is
    /// morally strong with every other ([`strong_locations`]).
    // invariant: one entry per physical location of the test.
    strong_loc: Vec<bool>,
}

impl ThreadCode {
    /// Precomputes the facts of thread `thread` of `test`. Fails with a message
    /// (`"<what> at L:C"`) when the code cannot be run: an unsupported
    /// instruction, a jump to an undefined label, an undeclared address, or a
    /// `cas` without a swap value.
    pub fn new(test: &Test, thread: ThreadId) -> Result<Self, String> {
        let th = test
            .threads
            .get(thread.index())
            .ok_or_else(|| format!("no thread P{}", thread.index()))?;
        let stmts = th.code.clone();
        let mut n_regs = test.n_regs(thread);
        let mut bump = |r: RegId| n_regs = n_regs.max(r.index() + 1);
        for &(t, r, _) in &test.init_regs {
            if t == thread {
                bump(r);
            }
        }
        let mut label_pos: Vec<Option<usize>> = Vec::new();
        for (p, s) in stmts.iter().enumerate() {
            for r in reads(&s.instr).into_iter().chain(writes(&s.instr)) {
                bump(r);
            }
            let addr = match &s.instr {
                Instr::Load { addr, .. } | Instr::Store { addr, .. } | Instr::Rmw { addr, .. } => {
                    Some(*addr)
                }
                _ => None,
            };
            if let Some(a) = addr {
                let ok = test
                    .addresses
                    .get(a.index())
                    .is_some_and(|ad| ad.phys.index() < test.n_phys as usize);
                if !ok {
                    return Err(format!("undeclared address at {}", s.span));
                }
            }
            match &s.instr {
                Instr::Unsupported(what) => return Err(format!("{what} at {}", s.span)),
                // invariant: `api::lower` replaces every CUDA call first.
                Instr::Api(c) => return Err(format!("{} at {}", c.name(), s.span)),
                Instr::Rmw {
                    op: ptxmc_frontend::ir::RmwOp::Cas,
                    b: None,
                    ..
                } => return Err(format!("atom.cas without a swap value at {}", s.span)),
                Instr::Label(l) => {
                    if label_pos.len() <= l.index() {
                        label_pos.resize(l.index() + 1, None);
                    }
                    if label_pos[l.index()].is_some() {
                        return Err(format!("label defined twice at {}", s.span));
                    }
                    label_pos[l.index()] = Some(p);
                }
                _ => {}
            }
        }
        let mut code = ThreadCode {
            thread,
            stmts,
            addresses: test.addresses.clone(),
            label_pos,
            loops: Vec::new(),
            back_edge: Vec::new(),
            heads: Vec::new(),
            loop_facts: Vec::new(),
            n_regs,
            reading: Reading::SPEC,
            strong_loc: strong_locations(test),
        };
        // Registers whose final value is shown (a loop's exit must not leave
        // them from a failed iteration, [`ThreadCode::body_kind`]).
        let shown: Vec<RegId> = crate::terms::state_terms(test)
            .into_iter()
            .filter_map(|t| match t {
                ptxmc_frontend::ir::Term::Reg(th, r) if th == thread => Some(r),
                _ => None,
            })
            .collect();
        let n = code.stmts.len();
        code.back_edge = vec![None; n];
        code.heads = vec![Vec::new(); n];
        for p in 0..n {
            let Some(target) = jump_target(&code.stmts[p].instr) else {
                continue;
            };
            let head = code
                .label(target)
                .ok_or_else(|| format!("jump to an undefined label at {}", code.stmts[p].span))?;
            if head <= p {
                // ... and those read outside the body.
                let mut observed = shown.clone();
                for (q, s) in code.stmts.iter().enumerate() {
                    if q < head || q > p {
                        observed.extend(reads(&s.instr));
                    }
                }
                let (spin, retry) = match code.body_kind(head, p, &observed) {
                    Body::Effects => (false, false),
                    Body::Rmws => (false, true),
                    Body::Reads => (true, false),
                };
                let idx = code.loops.len();
                let guard = if retry {
                    guarded_cas(&code.stmts[head..=p])
                } else {
                    None
                };
                code.loop_facts.push((spin, guard));
                code.loops.push(Loop {
                    head,
                    back: p,
                    spin,
                    retry,
                });
                code.back_edge[p] = Some(idx);
                code.heads[head].push(idx);
            }
        }
        code.set_reading(Reading::SPEC);
        Ok(code)
    }

    /// The same code, its events built under `reading` (`model::reading`).
    /// A guarded CAS retry loop ([`guarded_cas`]) becomes a spin loop when
    /// the reading makes its failed CAS unobservable: a failed CAS only
    /// reads, or its location's accesses are all morally strong
    /// ([`Self::strong_location`]; `docs/model-notes.md`, "Waits").
    pub fn with_reading(mut self, reading: Reading) -> Self {
        self.set_reading(reading);
        self
    }

    fn set_reading(&mut self, reading: Reading) {
        self.reading = reading;
        for (i, &(spin, guard)) in self.loop_facts.iter().enumerate() {
            let unseen =
                guard.is_some_and(|a| !reading.failed_cas_writes || self.strong_location(a));
            if let Some(l) = self.loops.get_mut(i) {
                l.spin = spin || unseen;
            }
        }
    }

    /// The reading of the model the events follow.
    pub fn reading(&self) -> &Reading {
        &self.reading
    }

    /// The thread this code belongs to.
    pub fn thread(&self) -> ThreadId {
        self.thread
    }

    /// The statements, in program order.
    pub fn stmts(&self) -> &[Stmt] {
        &self.stmts
    }

    /// The declared addresses of the test.
    pub fn addresses(&self) -> &[Address] {
        &self.addresses
    }

    /// The loops, in order of their back edges.
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    /// Whether every run of the code from position `pc` on writes the
    /// physical location `phys`: the code from `pc` to its end is
    /// straight-line (no jump, barrier or asynchronous operation), so a
    /// thread there runs to its end unless one of its reads never gets a
    /// writer, and it holds a scalar store or an RMW that always writes
    /// (not an `atom.cas` under a reading where a failed one only reads) to
    /// `phys`.
    pub fn writes_on_every_run(&self, pc: usize, phys: usize) -> bool {
        let Some(rest) = self.stmts.get(pc..) else {
            return false;
        };
        let at = |a: &ptxmc_frontend::ir::AddrId| {
            self.addresses
                .get(a.index())
                .is_some_and(|x| x.phys.index() == phys)
        };
        let mut writes = false;
        for s in rest {
            match &s.instr {
                Instr::Label(_) | Instr::Op { .. } | Instr::Mov { .. } | Instr::Load { .. } => {}
                Instr::Fence { .. } | Instr::AddrReg { .. } => {}
                Instr::Store { addr, src, .. } => writes |= src.len() == 1 && at(addr),
                Instr::Rmw { op, addr, .. } => {
                    let always =
                        *op != ptxmc_frontend::ir::RmwOp::Cas || self.reading.failed_cas_writes;
                    writes |= always && at(addr);
                }
                _ => return false,
            }
        }
        writes
    }

    /// The value that the `atom.cas` at position `pc` must read for its
    /// thread to leave its loop: `Some(a)` when `pc` holds the CAS `atom.cas
    /// d, [m], a, b` (with an immediate `a`) of a guarded CAS retry loop
    /// ([`guarded_cas`]) that blocks when the CAS fails ([`Loop::spin`] under
    /// the reading): read any other value, the thread takes the back edge
    /// and stops there, making no event after the CAS.
    pub fn cas_exit_value(&self, pc: usize) -> Option<i64> {
        let Some(Instr::Rmw {
            op: ptxmc_frontend::ir::RmwOp::Cas,
            a: Operand::Imm(a),
            ..
        }) = self.stmts.get(pc).map(|s| &s.instr)
        else {
            return None;
        };
        let guarded = self
            .loops
            .iter()
            .zip(&self.loop_facts)
            .any(|(l, f)| l.spin && f.1.is_some() && l.contains(pc));
        guarded.then_some(*a)
    }

    /// The position of a label.
    pub fn label(&self, l: LabelId) -> Option<usize> {
        self.label_pos.get(l.index()).copied().flatten()
    }

    /// The loop whose back edge is at position `p`.
    pub fn back_edge_at(&self, p: usize) -> Option<usize> {
        self.back_edge.get(p).copied().flatten()
    }

    /// The loops whose head is at position `p`.
    pub fn loops_headed_at(&self, p: usize) -> &[usize] {
        self.heads.get(p).map_or(&[], Vec::as_slice)
    }

    /// Whether every access to the location of `addr` in the whole test is
    /// morally strong with every other (8.7), the initial write aside: then
    /// the write-back of a failed `atom.cas` there is unobservable
    /// (`docs/model-notes.md`, "Waits").
    pub fn strong_location(&self, addr: ptxmc_frontend::ir::AddrId) -> bool {
        self.addresses
            .get(addr.index())
            .and_then(|a| self.strong_loc.get(a.phys.index()))
            .copied()
            .unwrap_or(false)
    }

    /// The number of registers the thread uses (the size of its register file).
    pub fn n_regs(&self) -> usize {
        self.n_regs
    }

    /// What an iteration of the body `head..=back` may do besides reading
    /// (see [`Body`]). Register rules, on every path through one iteration
    /// (a forward dataflow of the registers certainly written, over the
    /// jumps inside the body; backward jumps can only add registers along a
    /// path, so ignoring them keeps the sets exact for "every path"):
    /// 1. every register read in the body is written before it, or never
    ///    written in the body (no state carried from one iteration to the
    ///    next);
    /// 2. at every exit (a jump out of the body, or falling through past
    ///    `back`), every register written anywhere in the body that is
    ///    `observed` (read by an instruction of the thread outside the body,
    ///    or shown in the final state) has been written on the way: no value
    ///    of a failed iteration reaches the code after the loop or the final
    ///    state (reads inside the body are rule 1's).
    ///
    /// A body that breaks either rule, or writes memory otherwise than
    /// through RMWs, is [`Body::Effects`].
    fn body_kind(&self, head: usize, back: usize, observed: &[RegId]) -> Body {
        let body = &self.stmts[head..=back];
        if body.iter().any(|s| {
            matches!(s.instr, Instr::Store { .. } | Instr::Barrier { .. })
                || matches!(&s.instr, Instr::Async(a) if !matches!(a, AsyncInstr::MbarrierWait { .. }))
        }) {
            return Body::Effects;
        }
        let written_in_body: Vec<RegId> = body.iter().flat_map(|s| writes(&s.instr)).collect();
        let len = body.len();
        let mut must_in: Vec<Option<Vec<RegId>>> = vec![None; len];
        for q in 0..len {
            // A position with no forward predecessor in the body (the head, or one
            // reached only from outside): nothing is known to be written.
            let inn = must_in[q].take().unwrap_or_default();
            let s = &body[q];
            if reads(&s.instr)
                .iter()
                .any(|r| !inn.contains(r) && written_in_body.contains(r))
            {
                return Body::Effects;
            }
            let mut out = inn;
            out.extend(writes(&s.instr));
            for succ in self.successors(head + q) {
                if succ > head + q && succ <= back {
                    let k = succ - head;
                    must_in[k] = Some(match must_in[k].take() {
                        None => out.clone(),
                        Some(prev) => prev.into_iter().filter(|r| out.contains(r)).collect(),
                    });
                } else if (succ < head || succ > back)
                    && !written_in_body
                        .iter()
                        .all(|r| out.contains(r) || !observed.contains(r))
                {
                    // An exit that leaves a register of a failed iteration.
                    return Body::Effects;
                }
            }
        }
        if body.iter().any(|s| matches!(s.instr, Instr::Rmw { .. })) {
            Body::Rmws
        } else {
            Body::Reads
        }
    }

    /// Control-flow successors of position `p`.
    fn successors(&self, p: usize) -> Vec<usize> {
        match &self.stmts[p].instr {
            Instr::Goto(l) => self.label(*l).into_iter().collect(),
            Instr::Branch { target, .. } => {
                let mut v = vec![p + 1];
                v.extend(self.label(*target));
                v
            }
            _ => vec![p + 1],
        }
    }
}

/// The address of the CAS of a loop body `body` (its head label first, its
/// backward branch last) whose back edge is taken only when that CAS
/// failed: the body is straight-line (no jump but the last), its only RMW is
/// an `atom.cas d, [m], a, b`, and the back edge is `bne d, a` (either
/// order), with neither `d` nor a register `a` written between the CAS and
/// the branch. Such a loop's iteration that takes the back edge made no
/// write but the failed CAS's (`lock: atom.cas r, [m], 0, 1; bne r, 0, lock`).
fn guarded_cas(body: &[Stmt]) -> Option<ptxmc_frontend::ir::AddrId> {
    let (last, inner) = body.split_last()?;
    let Instr::Branch {
        cmp: ptxmc_frontend::ir::CmpOp::Ne,
        a: x,
        b: y,
        ..
    } = last.instr
    else {
        return None;
    };
    if inner
        .iter()
        .skip(1)
        .any(|s| jump_target(&s.instr).is_some())
    {
        return None;
    }
    let mut rmws = inner
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.instr, Instr::Rmw { .. }));
    let (at, cas) = rmws.next()?;
    if rmws.next().is_some() {
        return None;
    }
    let Instr::Rmw {
        op: ptxmc_frontend::ir::RmwOp::Cas,
        dst: Some(d),
        addr,
        a,
        ..
    } = cas.instr
    else {
        return None;
    };
    let tested = (x == Operand::Reg(d) && y == a) || (y == Operand::Reg(d) && x == a);
    let rewritten = inner[at + 1..].iter().any(|s| {
        writes(&s.instr)
            .iter()
            .any(|r| *r == d || a == Operand::Reg(*r))
    });
    (tested && !rewritten).then_some(addr)
}

/// What an iteration of a loop body may do besides reading registers and
/// memory ([`ThreadCode::body_kind`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Body {
    /// Stores, barriers, asynchronous operations, or registers carried
    /// across iterations or out of a failed one: unrolled.
    Effects,
    /// RMWs, which write unless a reading lets a failed `atom.cas` only
    /// read: a retry loop.
    Rmws,
    /// Reads only (loads, fences, `mbarrier` waits): a spin loop.
    Reads,
}

/// For each physical location of `test`: whether every access to it (every
/// load, store and atomic of every thread, as the interpreter builds their
/// events) is morally strong with every other (8.7: same thread, or both
/// strong with scopes that include each other's thread; one proxy; one
/// virtual address). `false` for every location of a test with
/// asynchronous operations (their accesses are not scanned).
fn strong_locations(test: &Test) -> Vec<bool> {
    use crate::event::{Event, EventKind, Location};
    let n = test.n_phys as usize;
    let mut per: Vec<Vec<Event>> = vec![Vec::new(); n];
    for (t, th) in test.threads.iter().enumerate() {
        for stmt in &th.code {
            let (addr, sem, scope, proxy, write) = match &stmt.instr {
                Instr::Load {
                    addr,
                    sem,
                    scope,
                    proxy,
                    space,
                    ..
                } => (*addr, *sem, shared_scope(*space, *scope), *proxy, false),
                Instr::Store {
                    addr,
                    sem,
                    scope,
                    proxy,
                    space,
                    ..
                } => (*addr, *sem, shared_scope(*space, *scope), *proxy, true),
                Instr::Rmw {
                    addr,
                    sem,
                    scope,
                    proxy,
                    space,
                    ..
                } => (
                    *addr,
                    *sem,
                    shared_scope(*space, Some(*scope)),
                    *proxy,
                    true,
                ),
                Instr::Async(_) => return vec![false; n],
                _ => continue,
            };
            let Some(a) = test.addresses.get(addr.index()) else {
                continue;
            };
            let loc = Location {
                phys: a.phys,
                vaddr: a.vaddr,
                addr,
            };
            let kind = if write {
                EventKind::Write {
                    loc,
                    value: 0,
                    rmw: false,
                    init: false,
                }
            } else {
                EventKind::Read {
                    loc,
                    value: 0,
                    rmw: false,
                    red: false,
                }
            };
            if let Some(list) = per.get_mut(a.phys.index()) {
                list.push(Event {
                    thread: Some(ThreadId::new(t)),
                    po_index: 0,
                    kind,
                    sem,
                    scope,
                    proxy,
                    span: stmt.span,
                    instr: 0,
                    addr_deps: Default::default(),
                    data_deps: Default::default(),
                    ctrl_deps: Default::default(),
                    async_order: Default::default(),
                });
            }
        }
    }
    let placements: Vec<_> = test.threads.iter().map(|t| t.placement).collect();
    per.iter()
        .map(|evs| {
            evs.iter().enumerate().all(|(i, a)| {
                evs[i + 1..]
                    .iter()
                    .all(|b| crate::model::morally_strong_events(a, b, &placements))
            })
        })
        .collect()
}

/// Whether the backward jump at `at` in thread `thread` of `test` closes a
/// loop with an `atom.cas` in its body: a CAS retry loop, which the unroll
/// bound cuts only after an iteration that wrote (under the spec reading a
/// failed CAS writes the old value back, `model::reading`). A scan of the
/// code, no allocation: for the note of a cut execution.
pub fn cas_retry_loop_at(test: &Test, thread: usize, at: ptxmc_frontend::ir::Span) -> bool {
    let Some(code) = test.threads.get(thread).map(|t| &t.code) else {
        return false;
    };
    let Some(back) = code
        .iter()
        .position(|s| s.span == at && jump_target(&s.instr).is_some())
    else {
        return false;
    };
    let Some(target) = jump_target(&code[back].instr) else {
        return false;
    };
    let head = code
        .iter()
        .position(|s| matches!(s.instr, Instr::Label(l) if l == target));
    head.is_some_and(|h| {
        h <= back
            && code[h..=back].iter().any(|s| {
                matches!(
                    s.instr,
                    Instr::Rmw {
                        op: ptxmc_frontend::ir::RmwOp::Cas,
                        ..
                    }
                )
            })
    })
}

/// The label an instruction may jump to.
fn jump_target(i: &Instr) -> Option<LabelId> {
    match i {
        Instr::Goto(l) => Some(*l),
        Instr::Branch { target, .. } => Some(*target),
        _ => None,
    }
}

fn regs_of(ops: &[Operand]) -> Vec<RegId> {
    ops.iter()
        .filter_map(|o| match o {
            Operand::Reg(r) => Some(*r),
            Operand::Imm(_) => None,
        })
        .collect()
}

/// Registers an instruction reads.
pub(crate) fn reads(i: &Instr) -> Vec<RegId> {
    match i {
        Instr::Store { src, .. } => regs_of(src),
        Instr::Rmw { a, b, .. } => {
            let mut v = regs_of(&[*a]);
            v.extend(b.iter().flat_map(|b| regs_of(&[*b])));
            v
        }
        Instr::Barrier { id, count, .. } => {
            let mut v = regs_of(&[*id]);
            v.extend(count.iter().flat_map(|c| regs_of(&[*c])));
            v
        }
        Instr::Op { a, b, .. } | Instr::Branch { a, b, .. } => regs_of(&[*a, *b]),
        Instr::Mov { src, .. } => regs_of(&[*src]),
        Instr::AddrReg { reg, .. } => vec![*reg],
        Instr::Async(AsyncInstr::StAsync { src, .. }) => regs_of(&[*src]),
        Instr::Async(AsyncInstr::MbarrierWait { x, .. }) => regs_of(&[*x]),
        Instr::Async(AsyncInstr::WgmmaMma {
            dst,
            a,
            scale_d,
            sparse,
            ..
        }) => {
            let mut v = dst.clone();
            if let ptxmc_frontend::ir::WgmmaA::Regs(rs) = a {
                v.extend(rs.iter().copied());
            }
            v.extend(regs_of(&[*scale_d]));
            if let Some(sp) = sparse {
                v.extend(regs_of(&[sp.meta]));
            }
            v
        }
        Instr::Async(_)
        | Instr::Load { .. }
        | Instr::Fence { .. }
        | Instr::Label(_)
        | Instr::Unordered(_)
        | Instr::Goto(_)
        | Instr::Unsupported(_)
        | Instr::Api(_) => Vec::new(),
    }
}

/// Registers an instruction writes.
pub(crate) fn writes(i: &Instr) -> Vec<RegId> {
    match i {
        Instr::Load { dst, .. } => dst.clone(),
        Instr::Rmw { dst, .. } => dst.iter().copied().collect(),
        Instr::Op { dst, .. } | Instr::Mov { dst, .. } => vec![*dst],
        Instr::Async(AsyncInstr::MbarrierUpdate { dst, .. }) => dst.iter().copied().collect(),
        Instr::Async(AsyncInstr::MbarrierWait { dst, .. }) => vec![*dst],
        Instr::Async(AsyncInstr::WgmmaMma { dst, .. }) => dst.clone(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
