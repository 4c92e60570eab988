//! Which reads every later write of their thread depends on (8.10.4).
//!
//! When every write a thread can make after a read depends on that read
//! (address, data or control, as the interpreter records them), a graph in
//! which the read takes its value from a write of another thread that does
//! not exist yet can be built by stopping the thread at the read until that
//! write is added: nothing the thread would do meanwhile can be what the
//! write waits for, or `rf ∪ dep` would have a cycle, which the No-Thin-Air
//! axiom (8.10.4) forbids. The DPOR explorer lets such reads wait for their
//! writer instead of committing to a value in advance.
//!
//! The analysis is a sound under-approximation: it follows the fall-through
//! path from the read and answers `true` only when, on that path, every
//! write depends on the read's value before the code either ends or
//! branches on a register holding that value (after which every event
//! carries a control dependency on the read: the interpreter never drops
//! one). Unconditional jumps, branches on other registers, asynchronous
//! operations and vector loads answer `false`.

use super::code::{reads, writes};
use super::ThreadCode;
use ptxmc_frontend::ir::{Instr, Operand, RegId, RmwOp};
use smallvec::SmallVec;

/// Whether every write the thread makes after the read of the instruction
/// at position `pc` (a scalar `ld`, or the read half of an `atom`/`red`)
/// depends on that read. `false` for any other instruction.
pub fn later_writes_depend(code: &ThreadCode, pc: usize) -> bool {
    let stmts = code.stmts();
    let Some(stmt) = stmts.get(pc) else {
        return false;
    };
    // Registers whose value certainly depends on the read.
    let mut tainted: SmallVec<[RegId; 4]> = SmallVec::new();
    match &stmt.instr {
        Instr::Load { dst, .. } if dst.len() == 1 => tainted.push(dst[0]),
        // The write half of an RMW has its own read among its data
        // dependencies (`ThreadState::commit`), but for `exch` under a
        // reading where it writes only its operand.
        Instr::Rmw {
            op: RmwOp::Exch, ..
        } if !code.reading().exch_write_depends_on_read => return false,
        Instr::Rmw { dst, .. } => tainted.extend(dst.iter().copied()),
        _ => return false,
    }
    let is_tainted = |t: &[RegId], o: &Operand| matches!(o, Operand::Reg(r) if t.contains(r));
    // Whether the address of the next memory instruction is held in a
    // tainted register (an address dependency, 8.10.4).
    let mut addr_dep = false;
    for s in stmts.iter().skip(pc + 1) {
        let via_addr = std::mem::take(&mut addr_dep);
        match &s.instr {
            // One per register-held operand, in a row before the instruction.
            Instr::AddrReg { reg, .. } => addr_dep = via_addr || tainted.contains(reg),
            Instr::Label(_) | Instr::Unordered(_) | Instr::Fence { .. } | Instr::Barrier { .. } => {
            }
            Instr::Branch { a, b, .. } => {
                return is_tainted(&tainted, a) || is_tainted(&tainted, b);
            }
            Instr::Op { dst, .. } | Instr::Mov { dst, .. } => {
                let dep = reads(&s.instr).iter().any(|r| tainted.contains(r));
                tainted.retain(|r| r != dst);
                if dep {
                    tainted.push(*dst);
                }
            }
            Instr::Load { .. } => {
                for r in writes(&s.instr) {
                    tainted.retain(|x| *x != r);
                }
            }
            Instr::Store { src, .. } => {
                if !via_addr && !src.iter().all(|o| is_tainted(&tainted, o)) {
                    return false;
                }
            }
            Instr::Rmw { a, b, dst, .. } => {
                let dep = via_addr
                    || is_tainted(&tainted, a)
                    || b.as_ref().is_some_and(|b| is_tainted(&tainted, b));
                if !dep {
                    return false;
                }
                if let Some(d) = dst {
                    tainted.retain(|x| x != d);
                }
            }
            Instr::Goto(_) | Instr::Async(_) | Instr::Unsupported(_) | Instr::Api(_) => {
                return false
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxmc_frontend::ir::ThreadId;

    /// Position of the first statement of thread 0 whose text starts with `prefix`.
    fn answers(src: &str) -> Vec<bool> {
        let test = ptxmc_frontend::parse(src).expect("parses");
        let code = ThreadCode::new(&test, ThreadId::new(0)).expect("runs");
        (0..code.stmts().len())
            .map(|p| later_writes_depend(&code, p))
            .collect()
    }

    fn litmus(body: &str) -> String {
        format!("PTX t\n{{ x=0; y=0; z=0; }}\n P0@cta 0,gpu 0 ;\n{body}\nexists (x == 0)\n")
    }

    #[test]
    fn an_rmw_alone_waits() {
        let a = answers(&litmus(" atom.relaxed.gpu.add r0, x, 1 ;"));
        assert_eq!(a, vec![true]);
    }

    #[test]
    fn a_branch_on_the_value_makes_the_rest_dependent() {
        let a = answers(&litmus(
            " LC: ;\n atom.acquire.gpu.cas r0, x, 0, 1 ;\n bne r0, 0, LC ;\n st.weak y, 1 ;",
        ));
        // label, cas, branch, store
        assert_eq!(a, vec![false, true, false, false]);
    }

    #[test]
    fn an_independent_later_write_does_not_wait() {
        let a = answers(&litmus(
            " ld.weak r0, x ;\n st.weak z, r0 ;\n st.weak y, 1 ;",
        ));
        assert_eq!(a, vec![false, false, false]);
        let b = answers(&litmus(
            " ld.weak r0, x ;\n add r1, r0, 1 ;\n st.weak y, r1 ;",
        ));
        assert_eq!(b, vec![true, false, false]);
    }

    #[test]
    fn an_overwritten_register_loses_the_dependency() {
        let a = answers(&litmus(" ld.weak r0, x ;\n mov r0, 1 ;\n st.weak y, r0 ;"));
        assert!(!a[0]);
        let b = answers(&litmus(
            " ld.weak r0, x ;\n ld.weak r0, y ;\n bne r0, 0, L ;\n L: ;",
        ));
        assert!(!b[0]);
    }

    #[test]
    fn a_branch_on_another_register_does_not_wait() {
        let a = answers(&litmus(
            " ld.weak r0, x ;\n ld.weak r1, y ;\n bne r1, 0, L ;\n st.weak z, 1 ;\n L: ;",
        ));
        assert!(!a[0]);
        assert!(a[1]);
    }
}
