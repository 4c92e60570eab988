//! The running state of one thread and its step function.

use super::writes::shared_scope;
use super::BlockReason;
use super::{Next, ThreadCode, Value};
use crate::event::{copy_ids, AsyncOrder, Event, EventId, EventKind, Location};
use ptxmc_frontend::ir::{
    AddrId, AsyncInstr, BarrierKind, BinOp, CmpOp, FenceKind, Instr, Operand, Proxy, RegId, RmwOp,
    Scope, Sem, Span, Test, ThreadId,
};
use smallvec::SmallVec;

mod async_ops;
mod clone;
mod memory;
mod rmw;

use rmw::{RmwPlan, Undecided};

/// A set of read events (sorted, without repeats): where a value came from.
pub type Deps = SmallVec<[EventId; 2]>;

/// Local steps (register operations, jumps) one call of [`ThreadState::next`]
/// may take before the thread is cut as [`BlockReason::Bound`]: a safety net,
/// since every loop is already bounded.
const MAX_LOCAL_STEPS: u32 = 1 << 20;

/// A branch the values did not decide: `if a cmp b goto ...`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BranchCond<V> {
    /// The comparison.
    pub cmp: CmpOp,
    /// Left value.
    pub a: V,
    /// Right value.
    pub b: V,
    /// Where the branch is.
    pub span: Span,
}

/// What committing the pending event does to the state.
#[derive(Clone, Debug)]
enum Effect<V> {
    /// A read into `dst` (if any); for an RMW, the plan of its write half.
    Read {
        dst: Option<RegId>,
        rmw: Option<RmwPlan<V>>,
    },
    /// The read of an `mbarrier` wait: `dst <- op(value read, x)`.
    Wait { dst: RegId, op: BinOp, x: V },
    /// The source read of an asynchronous copy: the value goes to the copy's write.
    CopyRead,
    /// The `b` read of `wgmma.mma_async` (boxed: rare, and the largest
    /// effect, which every pending event would otherwise pay for).
    Mma(Box<MmaEffect<V>>),
    /// A write of `value`.
    Write { value: V },
    /// The write-back of a failed CAS that no other operation can tell from
    /// its source ([`RmwPlan::write_back_unseen`]): a write of `value` that
    /// does not count as a side effect of its loop iteration.
    WriteBack { value: V },
    /// A fence.
    Fence,
    /// A barrier with its runtime id and count.
    Barrier { id: V, count: Option<V> },
}

/// The `b` read of `wgmma.mma_async`: `dst[k] = a * b + (scale != 0) * dst[k]`,
/// `a` the value of [`ThreadState::copy_value`] (the `a` read) or given;
/// `dst` depends also on the sparse form's metadata (`meta`).
#[derive(Clone, Debug)]
struct MmaEffect<V> {
    dst: Vec<RegId>,
    a: Option<(V, Deps)>,
    scale: (V, Deps),
    meta: Deps,
}

/// Where a thread stands in one of its loops.
#[derive(Clone, Copy, Default, Debug)]
struct LoopMark {
    /// Back edges taken since the loop was entered from outside.
    count: u32,
    /// `writes` when the loop's head was last reached.
    writes: u32,
    /// `events.len()` when the loop's head was last reached.
    entry: usize,
}

#[derive(Clone, Debug)]
struct Pending<V> {
    event: Event,
    effect: Effect<V>,
    /// Whether this is the last event of its instruction.
    last: bool,
}

#[derive(Clone, PartialEq, Eq, Debug)]
enum Run {
    Running,
    Done,
    Blocked(BlockReason),
}

/// The state of one running thread: program counter, registers with the reads
/// each value depends on, the control dependencies so far, loop counters and
/// the events committed so far.
///
/// Boxed, so that moving a state (explorers keep saved copies on their
/// stack frames and in pools) copies a pointer, not the few hundred bytes
/// of [`Fields`].
#[derive(Debug)]
pub struct ThreadState<V>(Box<Fields<V>>);

impl<V> std::ops::Deref for ThreadState<V> {
    type Target = Fields<V>;
    fn deref(&self) -> &Fields<V> {
        &self.0
    }
}

impl<V> std::ops::DerefMut for ThreadState<V> {
    fn deref_mut(&mut self) -> &mut Fields<V> {
        &mut self.0
    }
}

impl<V: Clone> Clone for ThreadState<V> {
    fn clone(&self) -> Self {
        ThreadState(self.0.clone())
    }

    fn clone_from(&mut self, source: &Self) {
        // In place: the buffers of the state overwritten are reused.
        (*self.0).clone_from(&*source.0);
    }
}

/// What a [`ThreadState`] holds.
#[derive(Debug)]
pub struct Fields<V> {
    thread: ThreadId,
    unroll: u32,
    pc: usize,
    /// The position executed just before `pc` (to tell a loop entry from a back edge).
    came_from: Option<usize>,
    /// Index of the next event within the current memory instruction.
    sub: usize,
    // invariant: regs.len() == deps.len() == code.n_regs() of the code it was built for.
    regs: Vec<V>,
    deps: Vec<Deps>,
    ctrl: Deps,
    // invariant: loops.len() == code.loops().len().
    /// Per loop of the code (one vector, so that a restore copies one).
    loops: Vec<LoopMark>,
    /// Write events committed so far (to tell an iteration that wrote nothing).
    writes: u32,
    events: Vec<EventId>,
    pending: Option<Pending<V>>,
    /// The write half of the RMW whose read was committed: value,
    /// dependencies, and whether it is an unobservable write-back of a
    /// failed CAS ([`RmwPlan::write_back_unseen`]).
    rmw_write: Option<(V, Deps, bool)>,
    /// Boxed: only symbolic values leave a comparison undecided.
    undecided: Option<Box<(BranchCond<V>, Undecided<V>)>>,
    run: Run,
    blocked_at: Option<usize>,
    spin_loop: Option<usize>,
    /// Asynchronous operations issued so far per [`AsyncGroup`] (8.9.1.1).
    issued: [u32; 4],
    /// Per group kind (`cp.async`, bulk, `wgmma`): the issue count at each
    /// commit; `None` until the first commit (boxed: most threads have none).
    committed: Option<Box<[Vec<u32>; 3]>>,
    /// Per group kind: how many operations, from the first, are complete.
    awaited: [u32; 3],
    /// The value the source read of the current asynchronous copy returned
    /// (boxed: rare).
    copy_value: Option<Box<(V, Deps)>>,
    /// The reads each address operand of the next memory instruction
    /// depends on, by [`AddrOperand::index`](ptxmc_frontend::ir::AddrOperand::index) (the [`Instr::AddrReg`]s before
    /// it); cleared when that instruction is done.
    addr_deps: [Deps; 3],
    // invariant: when `mark != 0`, the state is equal to every other state
    // with the same `mark` (a copy made by [`Self::save_into`] and not
    // changed since); every change sets it to 0.
    /// What lets [`Clone::clone_from`] skip a restore that would change
    /// nothing (explorers restore a thread's state once per child of a
    /// node, also for the first child, which finds it as it was saved).
    mark: u64,
    /// After an [`Instr::Unordered`]: the group's id (the thread's event
    /// count when it began) and how many of its memory instructions are
    /// still to come (which also tells its elements apart); the events of
    /// different elements are not ordered with each other (8.2.4).
    elements: Option<(u32, u32)>,
}

fn union_into(into: &mut Deps, from: &[EventId]) {
    for &e in from {
        if let Err(i) = into.binary_search(&e) {
            into.insert(i, e);
        }
    }
}

impl<V: Value> ThreadState<V> {
    /// The initial state of `code`'s thread: registers from `test.init_regs`
    /// (others 0), no dependencies. Loops other than spin loops may jump back
    /// `unroll` times before the thread is cut.
    pub fn new(code: &ThreadCode, test: &Test, unroll: u32) -> Self {
        let n = code.n_regs();
        let mut regs = vec![V::constant(0); n];
        for &(t, r, v) in &test.init_regs {
            if t == code.thread() {
                if let Some(slot) = regs.get_mut(r.index()) {
                    *slot = V::constant(v);
                }
            }
        }
        let nl = code.loops().len();
        ThreadState(Box::new(Fields {
            thread: code.thread(),
            unroll,
            pc: 0,
            came_from: None,
            sub: 0,
            regs,
            deps: vec![Deps::new(); n],
            ctrl: Deps::new(),
            loops: vec![LoopMark::default(); nl],
            writes: 0,
            events: Vec::new(),
            pending: None,
            rmw_write: None,
            undecided: None,
            run: Run::Running,
            blocked_at: None,
            spin_loop: None,
            issued: [0; 4],
            committed: None,
            awaited: [0; 3],
            copy_value: None,
            addr_deps: Default::default(),
            mark: 0,
            elements: None,
        }))
    }

    /// Makes `into` a copy of this state that a later `into.clone_from`
    /// or `self.clone_from(&into)` may skip while neither changed: `mark`
    /// must be new (never given to this state's lineage before, so `0` is
    /// never one).
    pub fn save_into(&mut self, into: &mut Self, mark: u64) {
        debug_assert_ne!(mark, 0);
        self.mark = mark;
        into.clone_from(self);
    }

    /// A new copy of this state, as [`Self::save_into`] makes it.
    pub fn saved(&mut self, mark: u64) -> Self {
        debug_assert_ne!(mark, 0);
        self.mark = mark;
        self.clone()
    }

    /// The thread.
    /// The position of the instruction the thread executes next (or is in
    /// the middle of).
    pub fn pc(&self) -> usize {
        self.pc
    }

    pub fn thread(&self) -> ThreadId {
        self.thread
    }

    /// The register values.
    pub fn regs(&self) -> &[V] {
        &self.regs
    }

    /// The reads a register's value depends on.
    pub fn reg_deps(&self, r: RegId) -> &[EventId] {
        self.deps.get(r.index()).map_or(&[], |d| d.as_slice())
    }

    /// The reads that decided a branch so far (control dependencies).
    pub fn ctrl_deps(&self) -> &[EventId] {
        &self.ctrl
    }

    /// The ids of the events committed so far, in program order.
    pub fn events(&self) -> &[EventId] {
        &self.events
    }

    /// The program-order index the next event will have.
    pub fn po_index(&self) -> u32 {
        self.events.len() as u32
    }

    /// The value the pending write will write (symbolic values: the event holds 0
    /// unless it is a constant).
    pub fn pending_write_value(&self) -> Option<&V> {
        match &self.pending {
            Some(Pending {
                effect: Effect::Write { value } | Effect::WriteBack { value },
                ..
            }) => Some(value),
            _ => None,
        }
    }

    /// The runtime id and count of the pending barrier.
    pub fn pending_barrier(&self) -> Option<(&V, Option<&V>)> {
        match &self.pending {
            Some(Pending {
                effect: Effect::Barrier { id, count },
                ..
            }) => Some((id, count.as_ref())),
            _ => None,
        }
    }

    /// Whether the thread ran to its end.
    pub fn is_done(&self) -> bool {
        self.run == Run::Done
    }

    /// Why the thread is blocked, if it is.
    pub fn blocked(&self) -> Option<BlockReason> {
        match &self.run {
            Run::Blocked(r) => Some(r.clone()),
            _ => None,
        }
    }

    /// Where the thread blocked (the backward jump of the loop).
    pub fn blocked_at(&self, code: &ThreadCode) -> Option<Span> {
        self.blocked_at
            .and_then(|p| code.stmts().get(p))
            .map(|s| s.span)
    }

    /// The events of the iteration of the spin loop the thread blocked in: those
    /// committed since it last reached the loop's head. Empty unless blocked by
    /// [`BlockReason::Spin`].
    pub fn spin_iteration(&self) -> &[EventId] {
        match self.spin_loop.and_then(|l| self.loops.get(l)) {
            Some(m) => self.events.get(m.entry..).unwrap_or(&[]),
            None => &[],
        }
    }

    fn operand(&self, o: Operand) -> (V, Deps) {
        match o {
            Operand::Imm(v) => (V::constant(v), Deps::new()),
            Operand::Reg(r) => (
                self.regs
                    .get(r.index())
                    .cloned()
                    .unwrap_or_else(|| V::constant(0)),
                self.deps.get(r.index()).map(copy_ids).unwrap_or_default(),
            ),
        }
    }

    fn set_reg(&mut self, r: RegId, v: V, d: Deps) {
        let f = &mut *self.0;
        if let (Some(slot), Some(ds)) = (f.regs.get_mut(r.index()), f.deps.get_mut(r.index())) {
            *slot = v;
            *ds = d;
        }
    }

    fn block(&mut self, why: BlockReason, at: usize) {
        self.run = Run::Blocked(why);
        self.blocked_at = Some(at);
    }

    /// Moves to position `to` from the current one, which was executed.
    fn step_to(&mut self, to: usize) {
        self.came_from = Some(self.pc);
        self.pc = to;
    }

    /// Jumps from the current position to `to`, counting back edges.
    fn jump(&mut self, code: &ThreadCode, to: usize) {
        let from = self.pc;
        if to <= from {
            if let Some(l) = code.back_edge_at(from) {
                // A spin loop's iteration is side-effect free by its code; a
                // retry loop's when it made no write (a failed `atom.cas` that
                // only reads): either blocks (`docs/model-notes.md`, "Waits").
                let spin = code.loops().get(l).is_some_and(|lp| {
                    lp.spin
                        || (lp.retry && self.loops.get(l).is_some_and(|m| m.writes == self.writes))
                });
                if spin {
                    self.spin_loop = Some(l);
                    self.block(BlockReason::Spin, from);
                    return;
                }
                if let Some(m) = self.loops.get_mut(l) {
                    m.count += 1;
                    if m.count > self.unroll {
                        self.block(BlockReason::Bound, from);
                        return;
                    }
                }
            }
        }
        self.step_to(to);
    }

    /// Reaching a label: entering a loop from outside resets its counter; every
    /// pass starts a new iteration.
    fn reach_label(&mut self, code: &ThreadCode) {
        let here = self.pc;
        for &l in code.loops_headed_at(here) {
            let Some(lp) = code.loops().get(l) else {
                continue;
            };
            let from_inside = self.came_from.is_some_and(|p| lp.contains(p));
            let (entry, writes) = (self.events.len(), self.writes);
            if let Some(m) = self.loops.get_mut(l) {
                if !from_inside {
                    m.count = 0;
                }
                m.entry = entry;
                m.writes = writes;
            }
        }
    }

    /// Runs local instructions until the next event, the end, a block, or (with
    /// symbolic values) an undecided branch. See the module documentation.
    pub fn next(&mut self, code: &ThreadCode) -> Next<V> {
        let mut steps = 0u32;
        loop {
            if let Some(p) = &self.pending {
                return Next::Event(p.event.clone());
            }
            if let Some(u) = &self.undecided {
                return Next::Branch(u.0.clone());
            }
            match &self.run {
                Run::Done => return Next::Done,
                Run::Blocked(r) => return Next::Blocked(r.clone()),
                // From here on the state changes.
                Run::Running => self.mark = 0,
            }
            if let Some((v, d, back)) = self.rmw_write.take() {
                self.pending = Some(self.rmw_write_event(code, v, d, back));
                continue;
            }
            let Some(stmt) = code.stmts().get(self.pc) else {
                self.run = Run::Done;
                return Next::Done;
            };
            steps += 1;
            if steps > MAX_LOCAL_STEPS {
                self.block(BlockReason::Bound, self.pc);
                continue;
            }
            let span = stmt.span;
            match &stmt.instr {
                Instr::Label(_) => {
                    self.reach_label(code);
                    self.step_to(self.pc + 1);
                }
                Instr::Unordered(n) => {
                    self.elements = (*n > 0).then_some((self.events.len() as u32, *n));
                    self.step_to(self.pc + 1);
                }
                Instr::Goto(l) => match code.label(*l) {
                    Some(to) => self.jump(code, to),
                    None => self.step_to(self.pc + 1),
                },
                Instr::Branch { cmp, a, b, target } => {
                    let (va, da) = self.operand(*a);
                    let (vb, db) = self.operand(*b);
                    union_into(&mut self.ctrl, &da);
                    union_into(&mut self.ctrl, &db);
                    let Some(to) = code.label(*target) else {
                        self.step_to(self.pc + 1);
                        continue;
                    };
                    match V::compare(*cmp, &va, &vb) {
                        Some(true) => self.jump(code, to),
                        Some(false) => self.step_to(self.pc + 1),
                        None => {
                            let c = BranchCond {
                                cmp: *cmp,
                                a: va,
                                b: vb,
                                span,
                            };
                            self.undecided = Some(Box::new((c, Undecided::Jump(to))));
                        }
                    }
                }
                Instr::Op { op, dst, a, b } => {
                    let (va, mut da) = self.operand(*a);
                    let (vb, db) = self.operand(*b);
                    union_into(&mut da, &db);
                    self.set_reg(*dst, V::binop(*op, &va, &vb), da);
                    self.step_to(self.pc + 1);
                }
                Instr::Mov { dst, src } => {
                    let (v, d) = self.operand(*src);
                    self.set_reg(*dst, v, d);
                    self.step_to(self.pc + 1);
                }
                Instr::AddrReg { reg, operand, .. } => {
                    let (_, d) = self.operand(Operand::Reg(*reg));
                    self.addr_deps[operand.index()] = d;
                    self.step_to(self.pc + 1);
                }
                Instr::Unsupported(_) => {
                    // Never reached: ThreadCode::new rejects such code.
                    self.run = Run::Done;
                }
                Instr::Async(AsyncInstr::Commit { bulk }) => {
                    self.commit_group(usize::from(*bulk));
                    self.step_to(self.pc + 1);
                }
                Instr::Async(AsyncInstr::Wait {
                    bulk, pending, all, ..
                }) => {
                    let g = usize::from(*bulk);
                    if *all {
                        self.commit_group(g);
                    }
                    self.wait_groups(g, *pending);
                    self.step_to(self.pc + 1);
                }
                // 8.9.1.1; `docs/model-notes.md` ("wgmma"): the fence orders
                // register accesses only; commit and wait as for `cp.async`.
                Instr::Async(AsyncInstr::WgmmaFence) => self.step_to(self.pc + 1),
                Instr::Async(AsyncInstr::WgmmaCommit) => {
                    self.commit_group(2);
                    self.step_to(self.pc + 1);
                }
                Instr::Async(AsyncInstr::WgmmaWait { pending }) => {
                    let before = self.awaited[2];
                    self.wait_groups(2, *pending);
                    if self.awaited[2] > before {
                        self.pending = Some(self.wgmma_completion_fence(code));
                    } else {
                        self.step_to(self.pc + 1);
                    }
                }
                _ => match self.memory_event(code) {
                    Some(p) => self.pending = Some(p),
                    None => {
                        // An access with no elements: no event.
                        self.sub = 0;
                        self.addr_deps.iter_mut().for_each(Deps::clear);
                        self.step_to(self.pc + 1);
                    }
                },
            }
        }
    }

    /// Commits the pending event under id `id`. For a read, `read_value` is the
    /// value read (0 when `None`); it goes to the destination register with
    /// dependency `{id}`. Does nothing when no event is pending.
    pub fn commit(&mut self, id: EventId, read_value: Option<V>) {
        let Some(p) = self.pending.take() else {
            return;
        };
        self.mark = 0;
        self.events.push(id);
        if p.last {
            self.finish_async(&p.event.async_order);
        }
        // An RMW whose write half does not follow ends with its read.
        let mut last = p.last;
        match p.effect {
            Effect::Read { dst, rmw } => {
                let v = read_value.unwrap_or_else(|| V::constant(0));
                if let Some(plan) = rmw {
                    let succeeds = plan.succeeds(&v);
                    let back = plan.write_back_unseen;
                    // (`cas` writes `b` if it succeeds and `old` back if not.)
                    let w = V::rmw(plan.op, &v, &plan.a, &plan.b);
                    let mut d = plan.deps;
                    if plan.on_read {
                        union_into(&mut d, &[id]);
                    }
                    match succeeds {
                        Some(true) => self.rmw_write = Some((w, d, false)),
                        Some(false) if back => self.rmw_write = Some((w, d, true)),
                        Some(false) => last = true,
                        None => {
                            let c = BranchCond {
                                cmp: CmpOp::Eq,
                                a: v.clone(),
                                b: plan.a,
                                span: p.event.span,
                            };
                            self.undecided = Some(Box::new((c, Undecided::CasWrite(w, d, back))));
                        }
                    }
                }
                if let Some(r) = dst {
                    let mut d = Deps::new();
                    d.push(id);
                    self.set_reg(r, v, d);
                }
            }
            Effect::Wait { dst, op, x } => {
                let v = read_value.unwrap_or_else(|| V::constant(0));
                let mut d = Deps::new();
                d.push(id);
                self.set_reg(dst, V::binop(op, &v, &x), d);
            }
            Effect::CopyRead => {
                let v = read_value.unwrap_or_else(|| V::constant(0));
                let mut d = Deps::new();
                d.push(id);
                self.copy_value = Some(Box::new((v, d)));
            }
            Effect::Mma(mma) => {
                let MmaEffect {
                    dst,
                    a,
                    scale,
                    meta,
                } = *mma;
                let b = read_value.unwrap_or_else(|| V::constant(0));
                let (a, mut da) = a
                    .or_else(|| self.copy_value.take().map(|b| *b))
                    .unwrap_or_else(|| (V::constant(0), Deps::new()));
                union_into(&mut da, &[id]);
                union_into(&mut da, &meta);
                let product = V::binop(BinOp::Mul, &a, &b);
                let ne = BinOp::Setp {
                    cmp: CmpOp::Ne,
                    signed: false,
                    bits: 64,
                };
                let keep = V::binop(ne, &scale.0, &V::constant(0));
                for r in dst {
                    let (old, mut d) = self.operand(Operand::Reg(r));
                    let v = V::binop(BinOp::Add, &product, &V::binop(BinOp::Mul, &keep, &old));
                    union_into(&mut d, &da);
                    union_into(&mut d, &scale.1);
                    self.set_reg(r, v, d);
                }
            }
            Effect::Write { .. } => self.writes += 1,
            Effect::WriteBack { .. } => {}
            Effect::Fence | Effect::Barrier { .. } => {}
        }
        if last {
            // One more element of an unordered group is done.
            self.elements = self
                .elements
                .and_then(|(id, left)| (left > 1).then_some((id, left - 1)));
            self.end_instruction();
        } else {
            self.sub += 1;
        }
    }

    fn base_event(&self, code: &ThreadCode, kind: EventKind) -> Event {
        let stmt = code.stmts().get(self.pc);
        Event {
            thread: Some(self.thread),
            po_index: self.po_index(),
            kind,
            sem: Sem::Weak,
            scope: None,
            proxy: Proxy::Generic,
            span: stmt.map(|s| s.span).unwrap_or_default(),
            instr: self.pc as u32,
            addr_deps: copy_ids(&self.addr_deps[self.addr_operand(code).index()]),
            data_deps: SmallVec::new(),
            ctrl_deps: copy_ids(&self.ctrl),
            async_order: AsyncOrder {
                op: None,
                awaited: self.awaited,
                unordered: self.elements,
            },
        }
    }

    /// `commit_group` of group kind `g` (0: `cp.async`, 1: bulk, 2: `wgmma`): the
    /// operations issued since the last commit form a group.
    fn commit_group(&mut self, g: usize) {
        // `issued` has a slot for the operations completed through an
        // mbarrier (index 2) before the `wgmma` one.
        let n = self.issued[if g == 2 { 3 } else { g }];
        let committed = self.committed.get_or_insert_with(Default::default);
        if committed[g].last() != Some(&n) {
            committed[g].push(n);
        }
    }

    /// `wait_group N` of group kind `g`: every committed group but the `N`
    /// most recent is complete (8.9.1.1).
    fn wait_groups(&mut self, g: usize, pending: u32) {
        let Some(committed) = &self.committed else {
            return;
        };
        let groups = &committed[g];
        let k = groups.len().saturating_sub(pending as usize);
        if k > 0 {
            if let Some(&bound) = groups.get(k - 1) {
                self.awaited[g] = self.awaited[g].max(bound);
            }
        }
    }

    fn location(code: &ThreadCode, addr: AddrId) -> Location {
        let a = code.addresses().get(addr.index());
        Location {
            phys: a.map_or(ptxmc_frontend::ir::PhysId(0), |a| a.phys),
            vaddr: a.map_or(ptxmc_frontend::ir::VAddrId(0), |a| a.vaddr),
            addr,
        }
    }

    fn rmw_write_event(&self, code: &ThreadCode, value: V, deps: Deps, back: bool) -> Pending<V> {
        let mut order = None;
        let mut last = true;
        let (loc, sem, scope, proxy) = match code.stmts().get(self.pc).map(|s| &s.instr) {
            Some(Instr::Rmw {
                sem,
                scope,
                proxy,
                space,
                addr,
                ..
            }) => (
                Self::location(code, *addr),
                *sem,
                shared_scope(*space, Some(*scope)),
                *proxy,
            ),
            Some(Instr::Async(a)) => {
                let t = self.async_rmw_target(code, a);
                order = t.order;
                last = t.last;
                (t.loc, t.sem, t.scope, t.proxy)
            }
            _ => (
                Self::location(code, AddrId(0)),
                Sem::Weak,
                None,
                Proxy::Generic,
            ),
        };
        let mut e = self.base_event(
            code,
            EventKind::Write {
                loc,
                value: value.as_constant().unwrap_or(0),
                rmw: true,
                init: false,
            },
        );
        e.sem = sem;
        e.scope = scope;
        e.proxy = proxy;
        e.data_deps = deps;
        if let Some(o) = order {
            e.async_order = o;
        }
        Pending {
            event: e,
            effect: if back {
                Effect::WriteBack { value }
            } else {
                Effect::Write { value }
            },
            last,
        }
    }
}
