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
use crate::ir::{self, AddrKind, AsyncInstr, BinOp, Instr, LabelId, Operand, RegId, Stmt};

/// What the analysis knows of a register.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Abs {
    Const(i64),
    Unknown,
}

type State = Vec<Abs>;

fn join(into: &mut State, from: &State) -> bool {
    let mut changed = false;
    for (a, b) in into.iter_mut().zip(from) {
        if *a != *b && *a != Abs::Unknown {
            *a = Abs::Unknown;
            changed = true;
        }
    }
    changed
}

fn get(s: &State, o: Operand) -> Abs {
    match o {
        Operand::Imm(v) => Abs::Const(v),
        Operand::Reg(r) => s.get(r.index()).copied().unwrap_or(Abs::Unknown),
    }
}

fn set(s: &mut State, r: RegId, v: Abs) {
    if let Some(slot) = s.get_mut(r.index()) {
        *slot = v;
    }
}

/// The value of `dst <- a op b`.
fn op_value(op: BinOp, a: Operand, b: Operand, s: &State) -> Abs {
    let (va, vb) = (get(s, a), get(s, b));
    let zero = Abs::Const(0);
    match (va, vb) {
        (Abs::Const(x), _) if op.is_unary() => Abs::Const(op.eval(x, 0)),
        (Abs::Const(x), Abs::Const(y)) => Abs::Const(op.eval(x, y)),
        _ if matches!(op, BinOp::Xor | BinOp::Sub) && a == b => zero,
        _ if matches!(op, BinOp::And | BinOp::Mul) && (va == zero || vb == zero) => zero,
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

/// The state at the entry of every position of `code` (`None`: unreachable).
/// With `refine`, a branch whose operands are constants takes one way only.
fn entry_states(code: &[Stmt], init: State, refine: bool) -> Vec<Option<State>> {
    let n = code.len();
    let mut label_pos: Vec<Option<usize>> = Vec::new();
    for (p, s) in code.iter().enumerate() {
        if let Instr::Label(l) = s.instr {
            if label_pos.len() <= l.index() {
                label_pos.resize(l.index() + 1, None);
            }
            label_pos[l.index()].get_or_insert(p);
        }
    }
    let pos = |l: LabelId| label_pos.get(l.index()).copied().flatten();
    let mut states: Vec<Option<State>> = vec![None; n + 1];
    states[0] = Some(init);
    let mut work = vec![0usize];
    while let Some(p) = work.pop() {
        if p >= n {
            continue;
        }
        let Some(mut s) = states[p].clone() else {
            continue;
        };
        let mut succ: Vec<usize> = Vec::with_capacity(2);
        match &code[p].instr {
            Instr::Op { op, dst, a, b } => {
                let v = op_value(*op, *a, *b, &s);
                set(&mut s, *dst, v);
                succ.push(p + 1);
            }
            Instr::Mov { dst, src } => {
                let v = get(&s, *src);
                set(&mut s, *dst, v);
                succ.push(p + 1);
            }
            Instr::Goto(l) => succ.extend(pos(*l)),
            Instr::Branch { cmp, a, b, target } => match (get(&s, *a), get(&s, *b)) {
                (Abs::Const(x), Abs::Const(y)) if refine && cmp.eval(x, y) => {
                    succ.extend(pos(*target))
                }
                (Abs::Const(_), Abs::Const(_)) if refine => succ.push(p + 1),
                _ => {
                    succ.push(p + 1);
                    succ.extend(pos(*target));
                }
            },
            i => {
                for r in clobbers(i) {
                    set(&mut s, r, Abs::Unknown);
                }
                succ.push(p + 1);
            }
        }
        for q in succ {
            let changed = match &mut states[q] {
                slot @ None => {
                    *slot = Some(s.clone());
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

impl Builder {
    /// Resolves every register-held address of every thread, or fails at the
    /// first (in thread order) that is not one location.
    pub(super) fn resolve_addresses(&mut self) -> Result<(), ParseError> {
        let pending = std::mem::take(&mut self.pending_addrs);
        // Per thread: the states with constant branches decided (addresses
        // that differ between threads, as `%tid`-dependent paths), and
        // without (for code that the thread's own constants make unreachable:
        // it never runs, any path's address will do).
        type States = Vec<Option<State>>;
        let mut cache: Option<(usize, States, States)> = None;
        for p in pending {
            if cache.as_ref().is_none_or(|(t, _, _)| *t != p.thread) {
                let th = &self.threads[p.thread];
                let n_regs = th.n_regs();
                let mut init = vec![Abs::Const(0); n_regs];
                for &(t, r, v) in &self.init_regs {
                    if t.index() == p.thread {
                        set(&mut init, r, Abs::Const(v));
                    }
                }
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
            let state = refined
                .get(p.pos)
                .cloned()
                .flatten()
                .or_else(|| plain.get(p.pos).cloned().flatten());
            let value = match state {
                None => return Err(fail("the instruction is never reached".into())),
                Some(s) => get(&s, Operand::Reg(p.reg)),
            };
            let v = match value {
                Abs::Const(v) => v.wrapping_add(p.offset),
                Abs::Unknown => {
                    return Err(fail(format!(
                        "`{reg}` is not the same address in every execution (it is computed from a value read from memory, or differs between paths)"
                    )))
                }
            };
            let not_address = || {
                fail(format!(
                    "it is the number {v}, not the address of a location (take one with `mov.u64 {reg}, x`, `x` declared in the initial state)"
                ))
            };
            let Some((a, off)) = ir::address_of_value(v) else {
                return Err(not_address());
            };
            let (base, off) = match self.address_kind(a) {
                Some(AddrKind::Offset(base, o)) => (base, off.saturating_add(o)),
                Some(_) => (a, off),
                None => return Err(not_address()),
            };
            if i64::from(off) >= ir::MAX_ADDR_OFFSET {
                return Err(not_address());
            }
            let Some(name) = self.addr_name(base) else {
                return Err(not_address());
            };
            let resolved = self.addr_at(&name, off);
            if let Some(stmt) = self.threads[p.thread].code.get_mut(p.pos) {
                match &mut stmt.instr {
                    Instr::Load { addr, .. }
                    | Instr::Store { addr, .. }
                    | Instr::Rmw { addr, .. }
                        if *addr == UNRESOLVED =>
                    {
                        *addr = resolved;
                    }
                    _ => {}
                }
            }
        }
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
            e.starts_with("5:9:") && e.contains("not the same address"),
            "{e}"
        );
        let e = parse(" st.u32 [%rd1], 1 ;", "x=0;").unwrap_err();
        assert!(e.contains("the number 0"), "{e}");
        let e = parse(
            " ld.u32 %r1, [x] ;\n mov.u64 %rd1, x ;\n setp.eq.u32 %p1, %r1, 0 ;\n @%p1 mov.u64 %rd1, y ;\n st.u32 [%rd1], 1 ;",
            "x=0; y=0;",
        )
        .unwrap_err();
        assert!(
            e.starts_with("8:9:") && e.contains("differs between paths"),
            "{e}"
        );
    }
}
