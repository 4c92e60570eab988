//! The thread interpreter: runs one thread's IR and produces its events one at
//! a time (8.2, 8.4), with the dependencies of 8.10.4.
//!
//! Protocol (shared by every explorer):
//! 1. [`ThreadCode::new`] precomputes, per thread, labels, loops and which loops
//!    are side-effect-free spin loops (see `docs/model-notes.md`).
//! 2. [`ThreadState::next`] runs register operations, moves, labels and branches
//!    locally until the next memory operation, fence or barrier, and returns it
//!    as [`Next::Event`] (a read's value is left 0: the explorer supplies it), or
//!    [`Next::Done`], or [`Next::Blocked`] (a spin loop took its back edge, or a
//!    loop hit the unroll bound). With symbolic values ([`Value`] whose
//!    comparisons may be undecided) it may also return [`Next::Branch`]; the
//!    caller then picks the outcome with [`ThreadState::decide`].
//! 3. [`ThreadState::commit`] applies the pending event under the id the explorer
//!    gave it (and, for a read, the value read). Calling `next` again without
//!    committing returns the same event.
//!
//! An `atom`/`red` is a read (`rmw: true`, `red` for `red`) immediately followed
//! in program order by a write (`rmw: true`) whose value is computed from the
//! value read ([`eval_rmw`]); `atom` puts the old value in its destination.
//! Vector accesses are split into one scalar event per element (8.2.4).
//! Barriers are emitted with their runtime id and count; whether a barrier
//! blocks is the explorer's decision.

pub(crate) mod code;
mod dependent;
mod state;
mod writes;

pub use code::{cas_retry_loop_at, Loop, ThreadCode};
pub use dependent::later_writes_depend;
pub use state::{BranchCond, Deps, ThreadState};
pub use writes::{issues_async, write_shapes, WriteShape};

use ptxmc_frontend::ir::{mbarrier, BinOp, CmpOp, RmwOp};
use std::fmt::Debug;

/// Why a thread cannot go on in a blocked execution.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum BlockReason {
    /// Waits forever at a barrier (fewer threads arrive than it expects).
    Barrier,
    /// Spins forever in a side-effect-free loop, reading values that never change
    /// (a fair execution: every read reads a coherence-maximal write).
    Spin,
    /// The loop bound (`--unroll`) cut the execution.
    Bound,
}

/// What [`ThreadState::next`] found.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Next<V> {
    /// The next event of the thread, to be committed with [`ThreadState::commit`].
    /// A read's value is 0 in the event; a write's value is the concrete value when
    /// known (see [`ThreadState::pending_write_value`] for the symbolic one).
    Event(crate::event::Event),
    /// A branch whose outcome the values do not decide (symbolic values only):
    /// call [`ThreadState::decide`].
    Branch(BranchCond<V>),
    /// The thread ran to its end.
    Done,
    /// The thread cannot go on: [`BlockReason::Spin`] (a spin loop took its back
    /// edge) or [`BlockReason::Bound`] (a loop exceeded the unroll bound).
    Blocked(BlockReason),
}

/// The values registers hold while a thread runs: concrete `i64`s for explorers
/// that pick each read's value, or symbolic values for the reference enumerator.
///
/// Implementations must agree with [`eval_binop`], [`eval_rmw`] and
/// [`CmpOp::eval`] on constants.
pub trait Value: Clone + Debug {
    /// A constant.
    fn constant(v: i64) -> Self;
    /// The constant this value is, if it is one.
    fn as_constant(&self) -> Option<i64>;
    /// Register arithmetic.
    fn binop(op: BinOp, a: &Self, b: &Self) -> Self;
    /// The value an RMW writes, given the value it read and its operands
    /// (`b` is the swap value of `cas`, 0 otherwise).
    fn rmw(op: RmwOp, old: &Self, a: &Self, b: &Self) -> Self;
    /// Decides a comparison if the values allow it.
    fn compare(cmp: CmpOp, a: &Self, b: &Self) -> Option<bool> {
        Some(cmp.eval(a.as_constant()?, b.as_constant()?))
    }
}

impl Value for i64 {
    fn constant(v: i64) -> Self {
        v
    }
    fn as_constant(&self) -> Option<i64> {
        Some(*self)
    }
    fn binop(op: BinOp, a: &Self, b: &Self) -> Self {
        eval_binop(op, *a, *b)
    }
    fn rmw(op: RmwOp, old: &Self, a: &Self, b: &Self) -> Self {
        eval_rmw(op, *old, *a, *b)
    }
}

/// Register arithmetic on 64-bit integers ([`BinOp::eval`]).
pub fn eval_binop(op: BinOp, a: i64, b: i64) -> i64 {
    op.eval(a, b)
}

/// The value an `atom`/`red` writes, from the value `old` it read, its operand
/// `a` and (for `cas`) its swap value `b`:
/// `inc` is `old >= a ? 0 : old + 1`, `dec` is `old == 0 || old > a ? a : old - 1`
/// (PTX), `exch` writes `a`, and `cas` writes `b` if `old == a` and writes `old`
/// back otherwise (the corpus' verifier does the same).
pub fn eval_rmw(op: RmwOp, old: i64, a: i64, b: i64) -> i64 {
    match op {
        RmwOp::Add => old.wrapping_add(a),
        RmwOp::Sub => old.wrapping_sub(a),
        RmwOp::Mul => old.wrapping_mul(a),
        RmwOp::Div => eval_binop(BinOp::Div, old, a),
        RmwOp::Inc => {
            if old >= a {
                0
            } else {
                old.wrapping_add(1)
            }
        }
        RmwOp::Dec => {
            if old == 0 || old > a {
                a
            } else {
                old.wrapping_sub(1)
            }
        }
        RmwOp::Min => old.min(a),
        RmwOp::Max => old.max(a),
        RmwOp::And => old & a,
        RmwOp::Or => old | a,
        RmwOp::Xor => old ^ a,
        RmwOp::Exch => a,
        RmwOp::Mbarrier => mbarrier::update(old, a, b),
        RmwOp::Float(f) => f.eval(old, a),
        RmwOp::Elements(e) => e.eval(old, a),
        RmwOp::Cas => {
            if old == a {
                b
            } else {
                old
            }
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ptx;
#[cfg(test)]
pub(crate) mod testutil;
