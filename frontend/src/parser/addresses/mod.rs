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

mod rewrite;

use super::builder::Builder;
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{
    self, AddrId, AddrKind, AsyncInstr, BinOp, CmpOp, Instr, LabelId, Operand, RegId, Stmt,
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

/// What one register-held address operand resolved to.
enum Resolved {
    /// One location.
    One(AddrId),
    /// One of several locations, by the register's value:
    /// `(register value, location)`, at least two.
    Choice(Vec<(i64, AddrId)>),
    /// The instruction never runs and the address is no location: the
    /// instruction is left out.
    Dead,
}

impl Builder {
    /// The location an address value lands in and its signed byte offset
    /// from the start of that location, if the value is an address
    /// ([`ir::address_offset_of_value`]); the offset may be outside it.
    fn landing(&self, v: i64) -> Option<(AddrId, i64)> {
        let (a, off) = ir::address_offset_of_value(v)?;
        match self.address_kind(a)? {
            AddrKind::Offset(base, o) => Some((base, off + i64::from(o))),
            _ => Some((a, off)),
        }
    }

    /// The location an address value denotes (a declared location plus an
    /// offset below [`ir::MAX_ADDR_OFFSET`]), with that offset.
    fn location_of(&mut self, v: i64) -> Option<(AddrId, u32)> {
        let (base, off) = self.landing(v)?;
        let off = u32::try_from(off)
            .ok()
            .filter(|&o| i64::from(o) < ir::MAX_ADDR_OFFSET)?;
        let name = self.addr_name(base)?;
        Some((self.addr_at(&name, off), off))
    }

    /// Why the address value `v` of `reg` (the address written `text`) is
    /// no location: a number; bytes before a location (a negative offset),
    /// where nothing is (8.2: an address names "the range of bytes starting
    /// from" it; ptxmc gives locations no addresses, so a location's name
    /// is where it starts); or an offset past the 32-bit signed immediate
    /// of an address operand (PTX ISA 6.4.1), as the named `[x+N]` is.
    fn not_a_location(&self, v: i64, reg: &str, text: &str) -> ParseErrorKind {
        if let Some((a, off)) = self.landing(v) {
            let kind = self.address_kind(a);
            match (self.addr_name(a), off < 0) {
                (Some(location), false) => {
                    return ParseErrorKind::ComputedOffsetOutOfRange {
                        text: text.into(),
                        location,
                        offset: off,
                    }
                }
                (Some(name), true)
                    if matches!(
                        kind,
                        Some(AddrKind::Root | AddrKind::GenericAlias(_) | AddrKind::ProxyAlias(..))
                    ) =>
                {
                    return ParseErrorKind::UnresolvedAddress {
                        text: text.into(),
                        reason: format!(
                            "it is {} bytes before `{name}`, where its location starts: outside every location",
                            off.unsigned_abs()
                        ),
                    };
                }
                _ => {}
            }
        }
        ParseErrorKind::UnresolvedAddress {
            text: text.into(),
            reason: format!(
                "it is the number {v}, not the address of a location (take one with `mov.u64 {reg}, x`, `x` declared in the initial state)"
            ),
        }
    }

    /// Resolves every register-held address of every thread, or fails at the
    /// first (in thread order) that is not one location or a choice between
    /// a few.
    pub(super) fn resolve_addresses(&mut self) -> Result<(), ParseError> {
        let mut pending = std::mem::take(&mut self.pending_addrs);
        // By thread and position; the operands of one instruction stay in
        // the order they were written.
        pending.sort_by_key(|q| (q.thread, q.pos));
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
        let mut resolved: Vec<Resolved> = Vec::with_capacity(pending.len());
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
                    resolved.push(Resolved::Dead);
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
                            resolved.push(Resolved::Dead);
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
            // Code that never runs keeps the first locations its values name.
            let mut targets = Vec::with_capacity(values.len());
            for v in values {
                let at = v.wrapping_add(p.offset);
                let Some((a, off)) = self.location_of(at) else {
                    if !live {
                        break;
                    }
                    return Err(ParseError::new(
                        self.not_a_location(at, &reg, &p.text),
                        p.span,
                    ));
                };
                if off % p.align.max(1) != 0 {
                    if !live {
                        break;
                    }
                    return Err(fail(format!(
                        "it is byte {off} of `{}`, not a multiple of {} (an mbarrier object is 8-byte aligned)",
                        self.addr_name(a).unwrap_or_default(),
                        p.align
                    )));
                }
                targets.push((v, a));
            }
            resolved.push(match targets.as_slice() {
                [(_, a)] => Resolved::One(*a),
                _ if !live => Resolved::Dead,
                _ => Resolved::Choice(targets),
            });
        }
        self.rewrite_addresses(&pending, resolved)
    }
}

#[cfg(test)]
mod tests;
