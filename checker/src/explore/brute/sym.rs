//! Symbolic values for the reference enumerator: a thread runs once per path
//! with every value read left as a variable (herd-style), and reads-from later
//! fixes the variables.
//!
//! No algebraic simplification happens across variables (`r * 0` stays an
//! expression), so a value depends on a read exactly when the interpreter's
//! syntactic data dependencies say so.

use crate::interp::{eval_binop, eval_rmw, Value};
use ptxmc_frontend::ir::{BinOp, RmwOp};
use std::rc::Rc;

/// A value: a constant, or an expression over the values of this thread's reads
/// (a read is named by its program-order index in the thread).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Sym {
    /// A known value.
    Const(i64),
    /// An expression over reads.
    Expr(Rc<Expr>),
}

/// An expression over the values of reads.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Expr {
    /// The value read by the thread's event with this program-order index.
    Read(u32),
    /// Register arithmetic.
    Bin(BinOp, Sym, Sym),
    /// The value an RMW writes: `op(old, a, b)`.
    Rmw(RmwOp, Sym, Sym, Sym),
}

/// Dropping an expression frees its subexpressions with a work list, not by
/// recursion: a chain of register arithmetic as long as an unrolled loop
/// would otherwise take a stack frame per link.
impl Drop for Expr {
    fn drop(&mut self) {
        let mut work: Vec<Rc<Expr>> = Vec::new();
        take_children(self, &mut work);
        while let Some(rc) = work.pop() {
            if let Some(mut e) = Rc::into_inner(rc) {
                take_children(&mut e, &mut work);
            }
        }
    }
}

/// Moves the subexpressions of `e` that only `e` holds into `work`.
fn take_children(e: &mut Expr, work: &mut Vec<Rc<Expr>>) {
    let mut take = |s: &mut Sym| {
        if matches!(s, Sym::Expr(rc) if Rc::strong_count(rc) == 1) {
            if let Sym::Expr(rc) = std::mem::replace(s, Sym::Const(0)) {
                work.push(rc);
            }
        }
    };
    match e {
        Expr::Read(_) => {}
        Expr::Bin(_, a, b) => {
            take(a);
            take(b);
        }
        Expr::Rmw(_, old, a, b) => {
            take(old);
            take(a);
            take(b);
        }
    }
}

impl Sym {
    /// The value read by the thread's event with program-order index `po`.
    pub fn read(po: u32) -> Self {
        Sym::Expr(Rc::new(Expr::Read(po)))
    }

    /// Evaluates the value, given the values of the thread's reads (by
    /// program-order index); `None` if a needed read value is unknown.
    /// Expressions nest as deep as a chain of register arithmetic is long
    /// (an unrolled loop), so each level goes through [`crate::stack::deep`].
    pub fn eval(&self, read: &dyn Fn(u32) -> Option<i64>) -> Option<i64> {
        crate::stack::deep(|| self.eval_here(read))
    }

    fn eval_here(&self, read: &dyn Fn(u32) -> Option<i64>) -> Option<i64> {
        match self {
            Sym::Const(v) => Some(*v),
            Sym::Expr(e) => match &**e {
                Expr::Read(po) => read(*po),
                Expr::Bin(op, a, b) => Some(eval_binop(*op, a.eval(read)?, b.eval(read)?)),
                Expr::Rmw(op, old, a, b) => {
                    Some(eval_rmw(*op, old.eval(read)?, a.eval(read)?, b.eval(read)?))
                }
            },
        }
    }
}

impl Value for Sym {
    fn constant(v: i64) -> Self {
        Sym::Const(v)
    }
    fn as_constant(&self) -> Option<i64> {
        match self {
            Sym::Const(v) => Some(*v),
            Sym::Expr(_) => None,
        }
    }
    fn binop(op: BinOp, a: &Self, b: &Self) -> Self {
        match (a, b) {
            (Sym::Const(x), Sym::Const(y)) => Sym::Const(eval_binop(op, *x, *y)),
            _ => Sym::Expr(Rc::new(Expr::Bin(op, a.clone(), b.clone()))),
        }
    }
    fn rmw(op: RmwOp, old: &Self, a: &Self, b: &Self) -> Self {
        match (old, a, b) {
            (Sym::Const(o), Sym::Const(x), Sym::Const(y)) => Sym::Const(eval_rmw(op, *o, *x, *y)),
            // `exch` writes its operand whatever it read: whether the write
            // depends on the read is the reading's choice, recorded in the
            // event's dependencies (No-Thin-Air, 8.10.4), not a value cycle.
            _ if op == RmwOp::Exch => a.clone(),
            _ => Sym::Expr(Rc::new(Expr::Rmw(op, old.clone(), a.clone(), b.clone()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_constants_only() {
        let r = Sym::read(0);
        let z = Sym::Const(0);
        let e = Sym::binop(BinOp::Mul, &r, &z);
        assert!(e.as_constant().is_none(), "r * 0 keeps its dependency");
        assert_eq!(e.eval(&|_| Some(5)), Some(0));
        assert_eq!(e.eval(&|_| None), None);
        assert_eq!(
            Sym::binop(BinOp::Add, &Sym::Const(2), &Sym::Const(3)),
            Sym::Const(5)
        );
        let cas = Sym::rmw(RmwOp::Cas, &r, &Sym::Const(1), &Sym::Const(7));
        assert_eq!(cas.eval(&|_| Some(1)), Some(7));
        assert_eq!(cas.eval(&|_| Some(2)), Some(2));
    }
}
