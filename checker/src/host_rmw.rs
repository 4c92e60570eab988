//! 8.1.1 under the `host-sys-nonatomic` reading: "When communicating with
//! the host CPU, certain strong operations with system scope may not be
//! performed atomically on some systems."
//!
//! When [`Reading::sys_rmw_atomic_on_host`] is `false`, every `.sys` `atom` /
//! `red` on a location the host thread accesses (the test's only way to
//! communicate with the host CPU) is checked as its read and its write
//! performed separately: a strong load (`.acquire` for an acquire or
//! acq_rel RMW, else `.relaxed`), register arithmetic, and a strong store
//! (`.release` for a release or acq_rel RMW, else `.relaxed`), all `.sys`.
//! Atomicity (8.10.3) then no longer relates them, so another write may come
//! between. `inc`/`dec` (whose written value needs a branch) stay atomic;
//! `docs/model-notes.md` ("Readings") gives the argument.

use crate::model::reading::Reading;
use ptxmc_frontend::ir::{
    BinOp, CmpOp, Instr, Operand, PhysId, RegId, RmwOp, Scope, Sem, Stmt, Test, ThreadId,
};

/// The register arithmetic of `op`, when it has one.
fn binop(op: RmwOp) -> Option<BinOp> {
    Some(match op {
        RmwOp::Add => BinOp::Add,
        RmwOp::Sub => BinOp::Sub,
        RmwOp::Mul => BinOp::Mul,
        RmwOp::Div => BinOp::Div,
        RmwOp::Min => BinOp::Min,
        RmwOp::Max => BinOp::Max,
        RmwOp::And => BinOp::And,
        RmwOp::Or => BinOp::Or,
        RmwOp::Xor => BinOp::Xor,
        RmwOp::Float(f) => BinOp::Float(f),
        _ => return None,
    })
}

fn splittable(op: RmwOp) -> bool {
    binop(op).is_some() || matches!(op, RmwOp::Exch | RmwOp::Cas)
}

/// The physical locations the host thread's memory instructions access.
fn host_locations(test: &Test) -> Vec<PhysId> {
    let Some(h) = test.api.host else {
        return Vec::new();
    };
    let Some(th) = test.threads.get(h.index()) else {
        return Vec::new();
    };
    let mut v: Vec<PhysId> = th
        .code
        .iter()
        .filter_map(|s| match s.instr {
            Instr::Load { addr, .. } | Instr::Store { addr, .. } | Instr::Rmw { addr, .. } => {
                test.addresses.get(addr.index()).map(|a| a.phys)
            }
            _ => None,
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A fresh register of thread `t` named `%__hostN`.
fn fresh(test: &mut Test, t: usize) -> RegId {
    let n = test.n_regs(ThreadId::new(t));
    let regs = &mut test.symbols.regs;
    if regs.len() <= t {
        regs.resize(t + 1, Vec::new());
    }
    regs[t].resize(n, String::new());
    regs[t].push(format!("%__host{n}"));
    RegId::new(n)
}

/// `test` with its `.sys` RMWs on host locations split, or `None` when the
/// reading keeps them atomic or there is none.
pub(crate) fn split(test: &Test, reading: &Reading) -> Option<Test> {
    if reading.sys_rmw_atomic_on_host {
        return None;
    }
    let host = host_locations(test);
    let on_host = |test: &Test, s: &Stmt| match s.instr {
        Instr::Rmw {
            scope: Scope::Sys,
            op,
            addr,
            ..
        } => {
            splittable(op)
                && test
                    .addresses
                    .get(addr.index())
                    .is_some_and(|a| host.contains(&a.phys))
        }
        _ => false,
    };
    if !test
        .threads
        .iter()
        .any(|th| th.code.iter().any(|s| on_host(test, s)))
    {
        return None;
    }
    let mut out = test.clone();
    for t in 0..out.threads.len() {
        let code = std::mem::take(&mut out.threads[t].code);
        let mut new = Vec::with_capacity(code.len());
        for s in code {
            if !on_host(test, &s) {
                new.push(s);
                continue;
            }
            let Instr::Rmw {
                sem,
                proxy,
                space,
                access,
                op,
                dst,
                addr,
                a,
                b,
                ..
            } = s.instr
            else {
                continue;
            };
            let span = s.span;
            let mut push = |instr| new.push(Stmt { instr, span });
            let old = fresh(&mut out, t);
            let (ld_sem, st_sem) = match sem {
                Sem::AcqRel => (Sem::Acquire, Sem::Release),
                Sem::Acquire => (Sem::Acquire, Sem::Relaxed),
                Sem::Release => (Sem::Relaxed, Sem::Release),
                _ => (Sem::Relaxed, Sem::Relaxed),
            };
            push(Instr::Load {
                sem: ld_sem,
                scope: Some(Scope::Sys),
                proxy,
                space,
                access,
                dst: vec![old],
                addr,
            });
            let value = match (op, binop(op)) {
                (_, Some(bop)) => {
                    let v = fresh(&mut out, t);
                    push(Instr::Op {
                        op: bop,
                        dst: v,
                        a: Operand::Reg(old),
                        b: a,
                    });
                    Operand::Reg(v)
                }
                (RmwOp::Cas, _) => {
                    // old + (old == a) * (b - old): b when the compare
                    // succeeds, old written back otherwise.
                    let (eq, diff, v) =
                        (fresh(&mut out, t), fresh(&mut out, t), fresh(&mut out, t));
                    let eq_op = BinOp::Setp {
                        cmp: CmpOp::Eq,
                        signed: false,
                        bits: 64,
                    };
                    push(Instr::Op {
                        op: eq_op,
                        dst: eq,
                        a: Operand::Reg(old),
                        b: a,
                    });
                    let swap = b.unwrap_or(Operand::Imm(0));
                    push(Instr::Op {
                        op: BinOp::Sub,
                        dst: diff,
                        a: swap,
                        b: Operand::Reg(old),
                    });
                    push(Instr::Op {
                        op: BinOp::Mul,
                        dst: diff,
                        a: Operand::Reg(diff),
                        b: Operand::Reg(eq),
                    });
                    push(Instr::Op {
                        op: BinOp::Add,
                        dst: v,
                        a: Operand::Reg(old),
                        b: Operand::Reg(diff),
                    });
                    Operand::Reg(v)
                }
                // exch writes its operand.
                _ => a,
            };
            push(Instr::Store {
                sem: st_sem,
                scope: Some(Scope::Sys),
                proxy,
                space,
                access,
                addr,
                src: vec![value],
            });
            if let Some(d) = dst {
                push(Instr::Mov {
                    dst: d,
                    src: Operand::Reg(old),
                });
            }
        }
        out.threads[t].code = new;
    }
    Some(out)
}
