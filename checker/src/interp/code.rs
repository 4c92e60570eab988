//! Per-thread facts that depend only on the program: label positions, loops,
//! and which loops are side-effect-free spin loops (`docs/model-notes.md`).

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
    /// Whether the loop is a side-effect-free spin loop: its body has no
    /// store, RMW or barrier, and every register it reads is either written
    /// earlier in the same iteration (on every path) or never written in it.
    pub spin: bool,
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
    n_regs: usize,
    /// The reading of the model whose choices the events follow.
    reading: Reading,
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
            n_regs,
            reading: Reading::SPEC,
        };
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
                let spin = code.is_spin_body(head, p);
                let idx = code.loops.len();
                code.loops.push(Loop {
                    head,
                    back: p,
                    spin,
                });
                code.back_edge[p] = Some(idx);
                code.heads[head].push(idx);
            }
        }
        Ok(code)
    }

    /// The same code, its events built under `reading` (`model::reading`).
    pub fn with_reading(mut self, reading: Reading) -> Self {
        self.reading = reading;
        self
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

    /// The number of registers the thread uses (the size of its register file).
    pub fn n_regs(&self) -> usize {
        self.n_regs
    }

    /// Whether the body `head..=back` is a side-effect-free spin loop: no store,
    /// RMW or barrier, and every register read in the body is written before it
    /// on every path through the iteration, or never written in the body.
    fn is_spin_body(&self, head: usize, back: usize) -> bool {
        let body = &self.stmts[head..=back];
        if body.iter().any(|s| {
            matches!(
                s.instr,
                Instr::Store { .. } | Instr::Rmw { .. } | Instr::Barrier { .. }
            ) || matches!(&s.instr, Instr::Async(a) if !matches!(a, AsyncInstr::MbarrierWait { .. }))
        }) {
            return false;
        }
        let written_in_body: Vec<RegId> = body.iter().flat_map(|s| writes(&s.instr)).collect();
        // Must-written registers on entry of each position: a forward dataflow over
        // the jumps inside the body (backward jumps can only add registers along a
        // path, so ignoring them keeps the sets exact for "every path").
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
                return false;
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
                }
            }
        }
        true
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
        Instr::Async(_)
        | Instr::Load { .. }
        | Instr::Fence { .. }
        | Instr::Label(_)
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
        _ => Vec::new(),
    }
}
