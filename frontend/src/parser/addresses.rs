//! Register-held addresses (`mov.u64 %rd1, x; st.u32 [%rd1+4], 1`) resolved
//! to locations once a thread's code is known.
//!
//! A constant propagation over the thread's code (forward dataflow to a
//! fixed point over its jumps): a register is a known constant or unknown
//! (a value read from memory, or different constants on different paths).
//! `xor r, a, a` and `sub r, a, a` are 0 and `and`/`mul` with 0 are 0 even
//! when `a` is unknown, the usual way litmus tests build an address
//! dependency (8.10.4) without changing the address. An address must be
//! the same location in every execution: it is the constant that
//! [`ir::address_value`] gave a name plus offsets; anything else is an
//! error at the address, never a guess. The interpreter computes the same
//! values at run time ([`BinOp::eval`]) and takes the address dependency
//! from the register ([`Instr::AddrReg`]).

use super::builder::{Builder, UNRESOLVED};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{
    self, AddrId, AddrKind, AsyncInstr, BinOp, CmpOp, Instr, LabelId, Operand, RegId, Span, Stmt,
};

/// The most values the analysis follows for one register (an address
/// chosen between this many locations is lowered to a dispatch).
const MAX_VALUES: usize = 8;

/// What the analysis knows of a register: one of a few constants, or
/// unknown.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Abs {
    /// invariant: sorted, without duplicates, `1..=MAX_VALUES` long.
    Consts(Vec<i64>),
    Unknown,
}

impl Abs {
    fn one(v: i64) -> Abs {
        Abs::Consts(vec![v])
    }

    fn of(mut vs: Vec<i64>) -> Abs {
        vs.sort_unstable();
        vs.dedup();
        if vs.is_empty() || vs.len() > MAX_VALUES {
            Abs::Unknown
        } else {
            Abs::Consts(vs)
        }
    }

    /// The constant, when there is only one.
    fn single(&self) -> Option<i64> {
        match self {
            Abs::Consts(v) if v.len() == 1 => Some(v[0]),
            _ => None,
        }
    }
}

type State = Vec<Abs>;

fn join(into: &mut State, from: &State) -> bool {
    let mut changed = false;
    for (a, b) in into.iter_mut().zip(from) {
        let joined = match (&*a, b) {
            (Abs::Unknown, _) => continue,
            (x, y) if x == y => continue,
            (Abs::Consts(x), Abs::Consts(y)) => Abs::of(x.iter().chain(y).copied().collect()),
            _ => Abs::Unknown,
        };
        if joined != *a {
            *a = joined;
            changed = true;
        }
    }
    changed
}

fn get(s: &State, o: Operand) -> Abs {
    match o {
        Operand::Imm(v) => Abs::one(v),
        Operand::Reg(r) => s.get(r.index()).cloned().unwrap_or(Abs::Unknown),
    }
}

fn set(s: &mut State, r: RegId, v: Abs) {
    if let Some(slot) = s.get_mut(r.index()) {
        *slot = v;
    }
}

/// The value of `dst <- a op b`: every combination of the operands' values
/// (`selp` is lowered to arithmetic on a 0/1 comparison, so that a choice
/// between two addresses is the set of both).
fn op_value(op: BinOp, a: Operand, b: Operand, s: &State) -> Abs {
    let (va, vb) = (get(s, a), get(s, b));
    let zero = Abs::one(0);
    match (&va, &vb) {
        (Abs::Consts(x), _) if op.is_unary() => Abs::of(x.iter().map(|&x| op.eval(x, 0)).collect()),
        (Abs::Consts(x), Abs::Consts(y)) if x.len() * y.len() <= MAX_VALUES * MAX_VALUES => {
            Abs::of(
                x.iter()
                    .flat_map(|&x| y.iter().map(move |&y| op.eval(x, y)))
                    .collect(),
            )
        }
        _ if matches!(op, BinOp::Xor | BinOp::Sub) && a == b => zero,
        _ if matches!(op, BinOp::And | BinOp::Mul) && (va == zero || vb == zero) => zero,
        // A comparison is 0 or 1 whatever it compares.
        _ if matches!(op, BinOp::Setp { .. }) => Abs::Consts(vec![0, 1]),
        _ => Abs::Unknown,
    }
}

/// Registers an instruction writes with a value the analysis does not follow.
fn clobbers(i: &Instr) -> Vec<RegId> {
    match i {
        Instr::Load { dst, .. } => dst.clone(),
        Instr::Rmw { dst, .. } => dst.iter().copied().collect(),
        Instr::Async(AsyncInstr::MbarrierUpdate { dst, .. }) => dst.iter().copied().collect(),
        Instr::Async(AsyncInstr::MbarrierWait { dst, .. }) => vec![*dst],
        _ => Vec::new(),
    }
}

/// The states after `if a cmp b` is taken and not taken (`None`: that way
/// is impossible). `a == v` / `a != v` for a constant `v` narrows `a`'s
/// values (the dispatch of an address chosen between locations, below,
/// reads back to itself).
fn branch_states(cmp: CmpOp, a: Operand, b: Operand, s: &State) -> (Option<State>, Option<State>) {
    let (reg, v) = match (a, b) {
        (Operand::Reg(r), Operand::Imm(v)) | (Operand::Imm(v), Operand::Reg(r)) => (r, v),
        _ => return (Some(s.clone()), Some(s.clone())),
    };
    let (eq, ne) = {
        let cur = get(s, Operand::Reg(reg));
        let eq = match &cur {
            Abs::Consts(vs) if !vs.contains(&v) => None,
            _ => Some(Abs::one(v)),
        };
        let ne = match cur {
            Abs::Consts(vs) => {
                let rest: Vec<i64> = vs.into_iter().filter(|&x| x != v).collect();
                (!rest.is_empty()).then(|| Abs::of(rest))
            }
            Abs::Unknown => Some(Abs::Unknown),
        };
        (eq, ne)
    };
    let with = |v: Option<Abs>| {
        v.map(|v| {
            let mut t = s.clone();
            set(&mut t, reg, v);
            t
        })
    };
    match cmp {
        CmpOp::Eq => (with(eq), with(ne)),
        CmpOp::Ne => (with(ne), with(eq)),
        _ => (Some(s.clone()), Some(s.clone())),
    }
}

/// The first position of each label of `code`.
fn label_positions(code: &[Stmt]) -> Vec<Option<usize>> {
    let mut label_pos: Vec<Option<usize>> = Vec::new();
    for (p, s) in code.iter().enumerate() {
        if let Instr::Label(l) = s.instr {
            if label_pos.len() <= l.index() {
                label_pos.resize(l.index() + 1, None);
            }
            label_pos[l.index()].get_or_insert(p);
        }
    }
    label_pos
}

/// The positions that follow `p` with the state `s` at its entry, each with
/// its state at entry. With `refine`, a branch whose operands are constants
/// takes one way only, and one on a register compared with a constant
/// narrows the register on each way.
fn successors(
    code: &[Stmt],
    p: usize,
    mut s: State,
    refine: bool,
    label_pos: &[Option<usize>],
) -> Vec<(usize, State)> {
    let pos = |l: LabelId| label_pos.get(l.index()).copied().flatten();
    let mut succ: Vec<(usize, State)> = Vec::with_capacity(2);
    match &code[p].instr {
        Instr::Op { op, dst, a, b } => {
            let v = op_value(*op, *a, *b, &s);
            set(&mut s, *dst, v);
            succ.push((p + 1, s));
        }
        Instr::Mov { dst, src } => {
            let v = get(&s, *src);
            set(&mut s, *dst, v);
            succ.push((p + 1, s));
        }
        Instr::Goto(l) => succ.extend(pos(*l).map(|q| (q, s))),
        Instr::Branch { cmp, a, b, target } => match (get(&s, *a).single(), get(&s, *b).single()) {
            (Some(x), Some(y)) if refine && cmp.eval(x, y) => {
                succ.extend(pos(*target).map(|q| (q, s)))
            }
            (Some(_), Some(_)) if refine => succ.push((p + 1, s)),
            _ if !refine => {
                succ.push((p + 1, s.clone()));
                succ.extend(pos(*target).map(|q| (q, s)));
            }
            _ => {
                let (taken, fall) = branch_states(*cmp, *a, *b, &s);
                succ.extend(fall.map(|f| (p + 1, f)));
                if let (Some(q), Some(t)) = (pos(*target), taken) {
                    succ.push((q, t));
                }
            }
        },
        i => {
            for r in clobbers(i) {
                set(&mut s, r, Abs::Unknown);
            }
            succ.push((p + 1, s));
        }
    }
    succ
}

/// The state at the entry of every position of `code` (`None`: unreachable).
/// With `refine`, a branch whose operands are constants takes one way only.
fn entry_states(code: &[Stmt], init: State, refine: bool) -> Vec<Option<State>> {
    let n = code.len();
    let label_pos = label_positions(code);
    let mut states: Vec<Option<State>> = vec![None; n + 1];
    states[0] = Some(init);
    let mut work = vec![0usize];
    while let Some(p) = work.pop() {
        if p >= n {
            continue;
        }
        let Some(s) = states[p].clone() else {
            continue;
        };
        let succ = successors(code, p, s, refine, &label_pos);
        for (q, s) in succ {
            let changed = match &mut states[q] {
                slot @ None => {
                    *slot = Some(s);
                    true
                }
                Some(old) => join(old, &s),
            };
            if changed {
                work.push(q);
            }
        }
    }
    states
}

/// The most values an address may take in the path-sensitive analysis
/// (an array walk: one location per iteration).
const MAX_WALK_VALUES: usize = 64;

/// The most (position, state) pairs the path-sensitive analysis visits.
const MAX_WALK_STATES: usize = 20_000;

/// What the path-sensitive analysis found for one register at one position.
#[derive(Default)]
struct WalkValues {
    values: std::collections::BTreeSet<i64>,
    /// Some path reaches the position with the register unknown (or with
    /// more than [`MAX_WALK_VALUES`] values).
    unknown: bool,
}

/// A path-sensitive version of [`entry_states`] for addresses the joined
/// analysis loses, such as an array walk (`ld [%rd3]; add %rd3, %rd3, 4`
/// in a loop whose trip count the thread's constants decide): the states
/// are not joined where paths meet, so each iteration keeps its own address.
/// A repeated (position, state) pair is not visited again, so a loop whose
/// state repeats (a spin loop) ends the search. `None`: more than
/// [`MAX_WALK_STATES`] pairs (a loop bounded by a value read from memory).
/// Otherwise the values of each `(position, register)` of `wanted`, with
/// positions no path reaches left out.
fn walk_states(
    code: &[Stmt],
    init: State,
    wanted: &[(usize, RegId)],
) -> Option<std::collections::HashMap<(usize, RegId), WalkValues>> {
    let n = code.len();
    let label_pos = label_positions(code);
    let mut out: std::collections::HashMap<(usize, RegId), WalkValues> =
        std::collections::HashMap::new();
    let mut seen: std::collections::HashSet<(usize, State)> = std::collections::HashSet::new();
    let mut work = vec![(0usize, init)];
    while let Some((p, s)) = work.pop() {
        if p >= n || !seen.insert((p, s.clone())) {
            continue;
        }
        if seen.len() > MAX_WALK_STATES {
            return None;
        }
        for &(wp, r) in wanted {
            if wp == p {
                let w = out.entry((p, r)).or_default();
                match get(&s, Operand::Reg(r)) {
                    Abs::Consts(vs) if !w.unknown => {
                        w.values.extend(vs);
                        if w.values.len() > MAX_WALK_VALUES {
                            w.unknown = true;
                        }
                    }
                    _ => w.unknown = true,
                }
            }
        }
        work.extend(successors(code, p, s, true, &label_pos));
    }
    Some(out)
}

/// A memory instruction whose register-held address is one of several
/// locations, by the value of the register.
struct Dispatch {
    thread: usize,
    /// Position of the memory instruction (its `AddrReg` is just before).
    pos: usize,
    reg: RegId,
    offset: i64,
    span: Span,
    /// `(register value, location)`, at least two.
    targets: Vec<(i64, AddrId)>,
}

impl Builder {
    /// The location an address value denotes (a declared location plus an
    /// offset below [`ir::MAX_ADDR_OFFSET`]).
    fn location_of(&mut self, v: i64) -> Option<AddrId> {
        let (a, off) = ir::address_of_value(v)?;
        let (base, off) = match self.address_kind(a)? {
            AddrKind::Offset(base, o) => (base, off.saturating_add(o)),
            _ => (a, off),
        };
        if i64::from(off) >= ir::MAX_ADDR_OFFSET {
            return None;
        }
        let name = self.addr_name(base)?;
        Some(self.addr_at(&name, off))
    }

    /// Resolves every register-held address of every thread, or fails at the
    /// first (in thread order) that is not one location or a choice between
    /// a few.
    pub(super) fn resolve_addresses(&mut self) -> Result<(), ParseError> {
        let pending = std::mem::take(&mut self.pending_addrs);
        // Per thread: the states with constant branches decided (addresses
        // that differ between threads, as `%tid`-dependent paths), and
        // without (for code that the thread's own constants make unreachable:
        // it never runs, any path's address will do, and one that is no
        // location is left out).
        type States = Vec<Option<State>>;
        let mut cache: Option<(usize, States, States)> = None;
        type Walk = Option<std::collections::HashMap<(usize, RegId), WalkValues>>;
        let mut walk: Option<(usize, Walk)> = None;
        let wanted_of = |t: usize| -> Vec<(usize, RegId)> {
            pending
                .iter()
                .filter(|q| q.thread == t)
                .map(|q| (q.pos, q.reg))
                .collect()
        };
        let init_of = |b: &Builder, t: usize| -> State {
            let mut init = vec![Abs::one(0); b.threads[t].n_regs()];
            for &(tt, r, v) in &b.init_regs {
                if tt.index() == t {
                    set(&mut init, r, Abs::one(v));
                }
            }
            init
        };
        let mut dispatches: Vec<Dispatch> = Vec::new();
        let mut dead: Vec<(usize, usize)> = Vec::new();
        for p in &pending {
            if cache.as_ref().is_none_or(|(t, _, _)| *t != p.thread) {
                let th = &self.threads[p.thread];
                let init = init_of(self, p.thread);
                let refined = entry_states(&th.code, init.clone(), true);
                let plain = entry_states(&th.code, init, false);
                cache = Some((p.thread, refined, plain));
            }
            let Some((_, refined, plain)) = &cache else {
                continue;
            };
            let fail = |reason: String| {
                ParseError::new(
                    ParseErrorKind::UnresolvedAddress {
                        text: p.text.clone(),
                        reason,
                    },
                    p.span,
                )
            };
            let reg = format!("%{}", self.threads[p.thread].reg_name(p.reg));
            let (state, live) = match refined.get(p.pos).cloned().flatten() {
                Some(s) => (Some(s), true),
                None => (plain.get(p.pos).cloned().flatten(), false),
            };
            let value = match state {
                None => return Err(fail("the instruction is never reached".into())),
                Some(s) => get(&s, Operand::Reg(p.reg)),
            };
            let values = match value {
                Abs::Consts(vs) => vs,
                Abs::Unknown if !live => {
                    dead.push((p.thread, p.pos));
                    continue;
                }
                Abs::Unknown => {
                    // Per path (an array walk), once per thread.
                    if walk.as_ref().is_none_or(|(t, _)| *t != p.thread) {
                        let th = &self.threads[p.thread];
                        let wanted: Vec<(usize, RegId)> = wanted_of(p.thread);
                        let init = init_of(self, p.thread);
                        walk = Some((p.thread, walk_states(&th.code, init, &wanted)));
                    }
                    match walk.as_ref().and_then(|(_, w)| w.as_ref()).map(|w| w.get(&(p.pos, p.reg))) {
                        Some(Some(w)) if !w.unknown => w.values.iter().copied().collect(),
                        // No path reaches it.
                        Some(None) => {
                            dead.push((p.thread, p.pos));
                            continue;
                        }
                        None => {
                            return Err(fail(format!(
                                "`{reg}` is not one of at most {MAX_WALK_VALUES} addresses in every execution (more than {MAX_WALK_STATES} paths: a loop that constants do not bound)"
                            )))
                        }
                        Some(Some(_)) => {
                            return Err(fail(format!(
                                "`{reg}` is not one of at most {MAX_WALK_VALUES} addresses in every execution (it is computed from a value read from memory)"
                            )))
                        }
                    }
                }
            };
            let mut targets = Vec::with_capacity(values.len());
            for v in values {
                let Some(a) = self.location_of(v.wrapping_add(p.offset)) else {
                    if !live {
                        break;
                    }
                    let v = v.wrapping_add(p.offset);
                    return Err(fail(format!(
                        "it is the number {v}, not the address of a location (take one with `mov.u64 {reg}, x`, `x` declared in the initial state)"
                    )));
                };
                targets.push((v, a));
            }
            match targets.as_slice() {
                [(_, a)] => self.set_addr(p.thread, p.pos, *a),
                _ if !live => dead.push((p.thread, p.pos)),
                _ => dispatches.push(Dispatch {
                    thread: p.thread,
                    pos: p.pos,
                    reg: p.reg,
                    offset: p.offset,
                    span: p.span,
                    targets,
                }),
            }
        }
        // Rewrites, last position first so that earlier positions stay.
        enum Edit {
            Dispatch(Dispatch),
            Drop(usize, usize),
        }
        let mut edits: Vec<Edit> = dispatches.into_iter().map(Edit::Dispatch).collect();
        edits.extend(dead.into_iter().map(|(t, p)| Edit::Drop(t, p)));
        let key = |e: &Edit| match e {
            Edit::Dispatch(d) => (d.thread, d.pos),
            Edit::Drop(t, p) => (*t, *p),
        };
        edits.sort_by_key(|e| std::cmp::Reverse(key(e)));
        for e in edits {
            match e {
                Edit::Dispatch(d) => self.dispatch(d)?,
                Edit::Drop(t, pos) => {
                    // Never runs: the access and its `AddrReg` are left out.
                    let code = &mut self.threads[t].code;
                    let from = if pos > 0 && matches!(code[pos - 1].instr, Instr::AddrReg { .. }) {
                        pos - 1
                    } else {
                        pos
                    };
                    code.drain(from..=pos);
                }
            }
        }
        Ok(())
    }

    /// A new label `$aN` of thread `t`, defined here (all of the thread's
    /// own labels are defined by now, so a name that is taken fails).
    fn fresh_label(&mut self, t: usize, span: Span) -> Result<LabelId, ParseError> {
        let mut tries = 0;
        loop {
            let name = self.fresh(t, "$a");
            match self.label_def(t, &name, span) {
                Ok(l) => return Ok(l),
                Err(e) if tries > 64 => return Err(e),
                Err(_) => tries += 1,
            }
        }
    }

    fn set_addr(&mut self, t: usize, pos: usize, resolved: AddrId) {
        if let Some(stmt) = self.threads[t].code.get_mut(pos) {
            match &mut stmt.instr {
                Instr::Load { addr, .. } | Instr::Store { addr, .. } | Instr::Rmw { addr, .. }
                    if *addr == UNRESOLVED =>
                {
                    *addr = resolved;
                }
                _ => {}
            }
        }
    }

    /// An access whose address is one of several locations, by the value of
    /// its register, becomes a chain of `bne REG, VALUE, next; AddrReg;
    /// ACCESS [LOCATION]; bra done; next: ...`: the access is control and
    /// address dependent on the register's reads (8.10.4), and it reads back
    /// to itself (the analysis narrows the register at each `bne`).
    fn dispatch(&mut self, d: Dispatch) -> Result<(), ParseError> {
        let t = d.thread;
        let Some(access) = self.threads[t].code.get(d.pos).cloned() else {
            return Ok(());
        };
        let span = d.span;
        let with_addr = |a: AddrId| {
            let mut s = access.clone();
            match &mut s.instr {
                Instr::Load { addr, .. } | Instr::Store { addr, .. } | Instr::Rmw { addr, .. } => {
                    *addr = a;
                }
                _ => {}
            }
            s
        };
        let addr_reg = Stmt {
            instr: Instr::AddrReg {
                reg: d.reg,
                offset: d.offset,
            },
            span,
        };
        let done = self.fresh_label(t, span)?;
        let mut chain = Vec::with_capacity(d.targets.len() * 5);
        let last = d.targets.len() - 1;
        for (i, &(value, a)) in d.targets.iter().enumerate() {
            if i < last {
                let next = self.fresh_label(t, span)?;
                let stmt = |instr| Stmt { instr, span };
                chain.push(stmt(Instr::Branch {
                    cmp: CmpOp::Ne,
                    a: Operand::Reg(d.reg),
                    b: Operand::Imm(value),
                    target: next,
                }));
                chain.push(addr_reg.clone());
                chain.push(with_addr(a));
                chain.push(stmt(Instr::Goto(done)));
                chain.push(stmt(Instr::Label(next)));
            } else {
                chain.push(addr_reg.clone());
                chain.push(with_addr(a));
                chain.push(Stmt {
                    instr: Instr::Label(done),
                    span,
                });
            }
        }
        let code = &mut self.threads[t].code;
        let from = if d.pos > 0 && matches!(code[d.pos - 1].instr, Instr::AddrReg { .. }) {
            d.pos - 1
        } else {
            d.pos
        };
        code.splice(from..=d.pos, chain);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Instr, Test};

    fn parse(body: &str, init: &str) -> Result<Test, String> {
        let src =
            format!("PTX t\n{{ {init} }}\n P0@cta 0,gpu 0,tid 1 ;\n{body}\nexists (x == 0)\n");
        crate::parse(&src).map_err(|e| e.to_string())
    }

    fn addr_names(t: &Test) -> Vec<String> {
        t.threads[0]
            .code
            .iter()
            .filter_map(|s| match &s.instr {
                Instr::Load { addr, .. } | Instr::Store { addr, .. } | Instr::Rmw { addr, .. } => {
                    Some(t.addr_name(*addr).to_string())
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn constants_names_and_offsets_resolve() {
        let t = parse(
            " mov.u64 %rd1, x ;\n st.u32 [%rd1], 1 ;\n add.s64 %rd2, %rd1, 8 ;\n st.u32 [%rd2+4], 2 ;\n mov.u32 %r1, %tid.x ;\n mul.wide.u32 %rd3, %r1, 4 ;\n add.s64 %rd4, %rd1, %rd3 ;\n ld.u32 %r2, [%rd4] ;",
            "x=0;",
        )
        .unwrap();
        assert_eq!(addr_names(&t), ["x", "x+12", "x+4"]);
    }

    #[test]
    fn a_fake_dependency_keeps_the_address() {
        let t = parse(
            " ld.u32 %r1, [y] ;\n xor.b32 %r2, %r1, %r1 ;\n cvt.u64.u32 %rd2, %r2 ;\n mov.u64 %rd1, x ;\n add.s64 %rd3, %rd1, %rd2 ;\n st.u32 [%rd3], 1 ;",
            "x=0; y=0;",
        )
        .unwrap();
        assert_eq!(addr_names(&t), ["y", "x"]);
        assert!(t.threads[0]
            .code
            .iter()
            .any(|s| matches!(s.instr, Instr::AddrReg { .. })));
    }

    #[test]
    fn a_loop_keeps_a_constant_address() {
        let t = parse(
            " mov.u64 %rd1, x ;\n L: ;\n ld.u32 %r1, [%rd1] ;\n setp.eq.u32 %p1, %r1, 0 ;\n @%p1 bra L ;",
            "x=0;",
        )
        .unwrap();
        assert_eq!(addr_names(&t), ["x"]);
    }

    #[test]
    fn unresolvable_addresses_are_errors() {
        let e = parse(" ld.u64 %rd1, [y] ;\n st.u32 [%rd1], 1 ;", "x=0; y=0;").unwrap_err();
        assert!(
            e.starts_with("5:9:") && e.contains("not one of at most 64 addresses"),
            "{e}"
        );
        let e = parse(" st.u32 [%rd1], 1 ;", "x=0;").unwrap_err();
        assert!(e.contains("the number 0"), "{e}");
        // A choice between a location and a number is no location.
        let e = parse(
            " ld.u32 %r1, [x] ;\n mov.u64 %rd1, x ;\n setp.eq.u32 %p1, %r1, 0 ;\n @%p1 mov.u64 %rd1, 8 ;\n st.u32 [%rd1], 1 ;",
            "x=0; y=0;",
        )
        .unwrap_err();
        assert!(e.starts_with("8:9:") && e.contains("the number 8"), "{e}");
    }

    const CHOICE: &str = " ld.u32 %r1, [x] ;\n mov.u64 %rd1, x ;\n setp.eq.u32 %p1, %r1, 0 ;\n @%p1 mov.u64 %rd1, y ;\n st.u32 [%rd1+4], 1 ;\n ld.u32 %r2, [%rd1+4] ;";

    #[test]
    fn an_address_chosen_between_locations_is_a_dispatch() {
        let t = parse(CHOICE, "x=0; y=0;").unwrap();
        // The store and the load each become one access per location.
        assert_eq!(addr_names(&t), ["x", "x+4", "y+4", "x+4", "y+4"]);
        let code = &t.threads[0].code;
        let bne = code
            .iter()
            .filter(|s| {
                matches!(
                    s.instr,
                    Instr::Branch {
                        cmp: crate::ir::CmpOp::Ne,
                        b: crate::ir::Operand::Imm(_),
                        ..
                    }
                )
            })
            .count();
        assert!(bne >= 2, "{code:?}");
        // Every access through the register keeps its address dependency.
        let addr_regs = code
            .iter()
            .filter(|s| matches!(s.instr, Instr::AddrReg { .. }))
            .count();
        assert_eq!(addr_regs, 4);
    }

    #[test]
    fn a_dispatch_reads_back_to_itself() {
        let t = parse(CHOICE, "x=0; y=0;").unwrap();
        let printed = crate::print(&t);
        let again = crate::parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
        assert_eq!(
            again.threads[0].code.len(),
            t.threads[0].code.len(),
            "{printed}"
        );
        assert_eq!(addr_names(&again), addr_names(&t));
    }

    #[test]
    fn an_array_walk_resolves_per_path() {
        // Sum x[0..3] through a stepped register; the trip count is a constant.
        let walk = " mov.u64 %rd1, x ;\n mov.u32 %r1, 3 ;\n L: ;\n ld.u32 %r2, [%rd1] ;\n add.s64 %rd1, %rd1, 4 ;\n add.s32 %r1, %r1, -1 ;\n setp.ne.s32 %p1, %r1, 0 ;\n @%p1 bra L ;";
        let t = parse(walk, "x=0;").unwrap();
        assert_eq!(addr_names(&t), ["x", "x+4", "x+8"]);
        // Bounded by a value read from memory: no finite set of addresses.
        let unbounded = walk.replace("mov.u32 %r1, 3", "ld.u32 %r1, [y]");
        let e = parse(&unbounded, "x=0; y=0;").unwrap_err();
        assert!(e.contains("not one of at most 64 addresses"), "{e}");
    }

    #[test]
    fn code_the_placement_never_runs_needs_no_address() {
        // tid is 1: the guarded-off path would compute `x - 4`, no location.
        let t = parse(
            " mov.u32 %r1, %tid.x ;\n setp.ne.u32 %p1, %r1, 0 ;\n mov.u64 %rd1, x ;\n @%p1 bra L ;\n add.s64 %rd1, %rd1, -4 ;\n st.u32 [%rd1], 1 ;\n L: ;\n st.u32 [%rd1], 2 ;",
            "x=0;",
        )
        .unwrap();
        assert_eq!(addr_names(&t), ["x"]);
    }
}
