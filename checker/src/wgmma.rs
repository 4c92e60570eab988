//! The register rules of `wgmma` whose breach the instruction descriptions
//! make undefined behaviour (not chapter 8; `docs/model-notes.md`, "wgmma"):
//!
//! - `wgmma.fence`: it "must be issued by all warps of the warpgroup ...
//!   before the first `wgmma.mma_async` operation in a warpgroup" and
//!   "between a register access by a thread in the warpgroup and any
//!   `wgmma.mma_async` instruction that accesses the same registers, either
//!   as accumulator or input register containing fragments of matrix A,
//!   except when these are accumulator register accesses across multiple
//!   `wgmma.mma_async` instructions of the same shape"; "Otherwise, the
//!   behavior is undefined."
//! - `wgmma.mma_async`: accessing its accumulator or A-fragment registers
//!   before a `wgmma.wait_group` that waits for its group is undefined.
//!
//! A forward "may" dataflow over each thread's code: a breach on some path
//! of the code (whether or not an execution takes it) makes the test
//! `undefined`.

use ptxmc_frontend::ir::{AsyncInstr, Instr, RegId, Span, Stmt, Test, WgmmaA};
use std::collections::BTreeSet;

/// The most committed groups followed one by one; older ones are merged.
const MAX_GROUPS: usize = 8;

#[derive(Clone, PartialEq, Eq, Default, Debug)]
struct State {
    /// A `wgmma.fence` on every path so far.
    fenced: bool,
    /// Registers accessed by other instructions since the last `wgmma.fence`.
    touched: BTreeSet<RegId>,
    /// The shape of the last `wgmma.mma_async` that wrote each accumulator
    /// since the last fence (its later accesses of the same shape are fine).
    acc_shape: Vec<(RegId, String)>,
    /// Registers of issued, uncommitted `wgmma.mma_async`.
    open: BTreeSet<RegId>,
    /// Registers of committed groups still pending, oldest first.
    groups: Vec<BTreeSet<RegId>>,
}

impl State {
    fn join(&mut self, o: &State) -> bool {
        let before = self.clone();
        self.fenced &= o.fenced;
        self.touched.extend(o.touched.iter().copied());
        for (r, s) in &o.acc_shape {
            if !self.acc_shape.iter().any(|(q, t)| q == r && t == s) {
                self.acc_shape.push((*r, s.clone()));
            }
        }
        self.open.extend(o.open.iter().copied());
        // Align the most recent groups.
        let n = self.groups.len().max(o.groups.len());
        let pad = |g: &[BTreeSet<RegId>]| {
            let mut v = vec![BTreeSet::new(); n - g.len()];
            v.extend(g.iter().cloned());
            v
        };
        let (a, b) = (pad(&self.groups), pad(&o.groups));
        self.groups = a
            .into_iter()
            .zip(b)
            .map(|(mut x, y)| {
                x.extend(y);
                x
            })
            .collect();
        *self != before
    }

    fn in_flight(&self, r: RegId) -> bool {
        self.open.contains(&r) || self.groups.iter().any(|g| g.contains(&r))
    }
}

fn mma_regs(a: &AsyncInstr) -> Option<(Vec<RegId>, Vec<RegId>, &str)> {
    match a {
        AsyncInstr::WgmmaMma { dst, a, shape, .. } => {
            let frags = match a {
                WgmmaA::Regs(rs) => rs.clone(),
                WgmmaA::Desc(..) => Vec::new(),
            };
            Some((dst.clone(), frags, shape))
        }
        _ => None,
    }
}

/// The first breach in `code`, as a message, from the state before each
/// statement.
fn step(s: &mut State, st: &Stmt) -> Option<String> {
    let at = |span: Span, what: &str| format!("{what} at line {} (wgmma rules)", span.line);
    match &st.instr {
        Instr::Async(AsyncInstr::WgmmaFence) => {
            s.fenced = true;
            s.touched.clear();
            s.acc_shape.clear();
        }
        Instr::Async(AsyncInstr::WgmmaCommit) => {
            let open = std::mem::take(&mut s.open);
            if !open.is_empty() {
                s.groups.push(open);
            }
            if s.groups.len() > MAX_GROUPS {
                let g = s.groups.remove(1);
                s.groups[0].extend(g);
            }
        }
        Instr::Async(AsyncInstr::WgmmaWait { pending }) => {
            let keep = (*pending as usize).min(s.groups.len());
            s.groups.drain(..s.groups.len() - keep);
        }
        Instr::Async(a) if mma_regs(a).is_some() => {
            let (dst, frags, shape) = mma_regs(a)?;
            if !s.fenced {
                return Some(at(
                    st.span,
                    "wgmma.mma_async without a wgmma.fence before it",
                ));
            }
            for r in dst.iter().chain(&frags) {
                if s.touched.contains(r) {
                    return Some(at(
                        st.span,
                        "wgmma.mma_async on a register accessed since the last wgmma.fence",
                    ));
                }
            }
            for r in &dst {
                if s.acc_shape.iter().any(|(q, t)| q == r && t != shape) {
                    return Some(at(
                        st.span,
                        "wgmma.mma_async of another shape on an accumulator since the last wgmma.fence",
                    ));
                }
                if !s.acc_shape.iter().any(|(q, _)| q == r) {
                    s.acc_shape.push((*r, shape.to_string()));
                }
            }
            s.open.extend(dst.iter().chain(&frags).copied());
        }
        i => {
            let regs = crate::interp::code::reads(i)
                .into_iter()
                .chain(crate::interp::code::writes(i));
            for r in regs {
                if s.in_flight(r) {
                    return Some(at(
                        st.span,
                        "a register of a wgmma.mma_async accessed before a wgmma.wait_group covering it",
                    ));
                }
                s.touched.insert(r);
            }
        }
    }
    None
}

/// The successors of statement `i` of `code`.
fn successors(code: &[Stmt], i: usize) -> Vec<usize> {
    let label = |l| {
        code.iter()
            .position(|s| matches!(s.instr, Instr::Label(m) if m == l))
    };
    match code[i].instr {
        Instr::Goto(l) => label(l).into_iter().collect(),
        Instr::Branch { target, .. } => {
            let mut v = vec![i + 1];
            v.extend(label(target));
            v
        }
        _ => vec![i + 1],
    }
}

/// A breach of the wgmma register rules in some thread of `test`, if any.
pub(crate) fn misuse(test: &Test) -> Option<String> {
    for th in &test.threads {
        let code = &th.code;
        let uses = code.iter().any(|s| {
            matches!(
                s.instr,
                Instr::Async(
                    AsyncInstr::WgmmaMma { .. }
                        | AsyncInstr::WgmmaWait { .. }
                        | AsyncInstr::WgmmaCommit
                )
            )
        });
        if !uses {
            continue;
        }
        let mut states: Vec<Option<State>> = vec![None; code.len() + 1];
        states[0] = Some(State::default());
        let mut work = vec![0usize];
        while let Some(i) = work.pop() {
            if i >= code.len() {
                continue;
            }
            let Some(mut s) = states[i].clone() else {
                continue;
            };
            if let Some(msg) = step(&mut s, &code[i]) {
                return Some(msg);
            }
            for n in successors(code, i) {
                let changed = match &mut states[n] {
                    Some(old) => old.join(&s),
                    slot @ None => {
                        *slot = Some(s.clone());
                        true
                    }
                };
                if changed {
                    work.push(n);
                }
            }
        }
    }
    None
}
