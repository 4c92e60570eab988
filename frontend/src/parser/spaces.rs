//! The `.local` and `.param` state spaces (issue 17; `docs/model-notes.md`,
//! "Instruction-level constructs of chapter 8").
//!
//! 8.2: "Every byte in a PTX state space has a unique address relative to
//! all threads that have access to the same state space." `.local` memory is
//! private to each thread (PTX ISA 5.1.5), so the one name `l @ local` is a
//! different location in every thread: after the register-held addresses are
//! resolved, each access of thread `t` to `l` (or `[l+N]`) is rewritten to
//! `t`'s copy ([`AddrKind::LocalCopy`]), a location of its own with `l`'s
//! initial value (8.2.6). A kernel parameter `p @ param = V` is one location
//! that every thread only reads (PTX ISA 5.1.6.1: read-only), so each load
//! returns `V`. What the state spaces forbid is an error at the instruction.

use super::builder::{space_words, Builder};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{AddrId, AddrKind, AddrOperand, AsyncInstr, Instr, Span, StateSpace, WgmmaA};

/// How an instruction reaches one of its address operands.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Access {
    /// `ld` with this state space.
    Load(StateSpace),
    /// `st` with this state space.
    Store(StateSpace),
    /// `atom`/`red`, an asynchronous copy, an mbarrier or `wgmma` operand:
    /// the mnemonic word for messages.
    Other(&'static str),
}

impl Builder {
    /// The base location and byte offset of the address `a`.
    fn base_of(&self, a: AddrId) -> (AddrId, u32) {
        match self.address_kind(a) {
            Some(AddrKind::Offset(b, off)) => (b, off),
            _ => (a, 0),
        }
    }

    /// Rewrites every access of a `.local` location to the accessing
    /// thread's copy, and checks each access against the state space of its
    /// instruction and of its location (the module comment).
    pub(super) fn resolve_spaces(&mut self) -> Result<(), ParseError> {
        for t in 0..self.threads.len() {
            for k in 0..self.threads[t].code.len() {
                let span = self.threads[t].code[k].span;
                for operand in AddrOperand::ALL {
                    let instr = &self.threads[t].code[k].instr;
                    let Some(a) = instr.address(operand) else {
                        continue;
                    };
                    let access = access_of(instr, operand);
                    let held = self.held(t, k, operand);
                    if let Some(to) = self.check_access(t, a, access, held, span)? {
                        if let Some(slot) = self.threads[t].code[k].instr.address_mut(operand) {
                            *slot = to;
                        }
                    }
                }
                for a in wgmma_tiles(&self.threads[t].code[k].instr) {
                    self.check_access(t, a, Access::Other("wgmma"), true, span)?;
                }
            }
        }
        Ok(())
    }

    /// Whether a register holds the operand `operand` of statement `k` of
    /// thread `t` (an [`Instr::AddrReg`] for it among those just before).
    fn held(&self, t: usize, k: usize, operand: AddrOperand) -> bool {
        self.threads[t].code[..k]
            .iter()
            .rev()
            .map_while(|s| match s.instr {
                Instr::AddrReg { operand: o, .. } => Some(o),
                _ => None,
            })
            .any(|o| o == operand)
    }

    /// Checks one access of thread `t` to `a`; `Some(copy)` when it is to
    /// a `.local` location, to be rewritten to the thread's copy.
    fn check_access(
        &mut self,
        t: usize,
        a: AddrId,
        access: Access,
        held: bool,
        span: Span,
    ) -> Result<Option<AddrId>, ParseError> {
        let (base, off) = self.base_of(a);
        let kind = self.address_kind(base);
        let name = self.addr_name(base).unwrap_or_default();
        let fail = |msg: String| Err(ParseError::new(ParseErrorKind::BadSpaceUse(msg), span));
        // A `.local` or `.param` access names a location declared so.
        let wants = match access {
            Access::Load(s) | Access::Store(s) => s,
            Access::Other(_) => StateSpace::Global,
        };
        match (wants, kind) {
            (StateSpace::Local, Some(AddrKind::Local | AddrKind::LocalCopy(..))) => {}
            (StateSpace::Local, _) => {
                return fail(format!(
                    "`{name}` is not `.local` memory: declare it `{name} @ local` in the initial state"
                ))
            }
            (StateSpace::Param, Some(AddrKind::Param)) => {}
            (StateSpace::Param, _) => {
                return fail(format!(
                    "`{name}` is not a kernel parameter: declare it `{name} @ param = V` in the initial state"
                ))
            }
            _ => {}
        }
        match (kind, access) {
            (Some(AddrKind::Local), Access::Load(s) | Access::Store(s)) => {
                // Generic addressing through a register (`cvta.local`)
                // reaches the thread's own local memory as `.local` does.
                if s != StateSpace::Local && !(held && s == StateSpace::Global) {
                    return fail(format!(
                        "`{name}` is {}: access it with `ld.local`/`st.local`, or generically through a register (`cvta.local`)",
                        space_words(AddrKind::Local)
                    ));
                }
                let copy = self.local_copy(base, t);
                let copy_name = self.addr_name(copy).unwrap_or_default();
                Ok(Some(self.addr_at(&copy_name, off)))
            }
            (Some(AddrKind::Param), Access::Load(s)) => {
                if s != StateSpace::Param && !(held && s == StateSpace::Global) {
                    return fail(format!(
                        "`{name}` is {}: read it with `ld.param`, or generically through a register (`cvta.param`)",
                        space_words(AddrKind::Param)
                    ));
                }
                Ok(None)
            }
            (Some(AddrKind::Param), Access::Store(_)) => fail(format!(
                "`st` cannot write `{name}`, which is {}",
                space_words(AddrKind::Param)
            )),
            (Some(k @ (AddrKind::Local | AddrKind::Param)), Access::Other(what)) => fail(format!(
                "`{what}` cannot access `{name}`, which is {}",
                space_words(k)
            )),
            _ => Ok(None),
        }
    }
}

/// How `instr` reaches its address operand `operand`.
fn access_of(instr: &Instr, operand: AddrOperand) -> Access {
    match (instr, operand) {
        (Instr::Load { space, .. }, _) => Access::Load(*space),
        (Instr::Store { space, .. }, _) => Access::Store(*space),
        (Instr::Rmw { dst: None, .. }, _) => Access::Other("red"),
        (Instr::Rmw { .. }, _) => Access::Other("atom"),
        (Instr::Async(AsyncInstr::StAsync { .. }), AddrOperand::Target) => {
            Access::Other("st.async")
        }
        (Instr::Async(AsyncInstr::Copy { .. }), AddrOperand::Target | AddrOperand::Source) => {
            Access::Other("cp.async")
        }
        _ => Access::Other("an mbarrier operation"),
    }
}

/// The tile locations a `wgmma.mma_async` reads.
fn wgmma_tiles(instr: &Instr) -> Vec<AddrId> {
    match instr {
        Instr::Async(AsyncInstr::WgmmaMma { a, b, .. }) => {
            let mut out = vec![b.1];
            if let WgmmaA::Desc(_, at) = a {
                out.push(*at);
            }
            out
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{AddrKind, Instr, StateSpace, Test, ThreadId};

    fn parse(init: &str, rows: &str) -> Result<Test, String> {
        let src = format!(
            "PTX s\n{{ {init} }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n{rows}exists (0 == 0)"
        );
        crate::parse(&src).map_err(|e| e.to_string())
    }

    /// The locations of the accesses of thread `t`, by name.
    fn accessed(t: &Test, th: usize) -> Vec<String> {
        t.threads[th]
            .code
            .iter()
            .filter_map(|s| match s.instr {
                Instr::Load { addr, .. } | Instr::Store { addr, .. } => {
                    Some(t.addr_name(addr).to_string())
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_thread_accesses_its_own_copy() {
        let t = parse(
            "l @ local = 5; x = 0;",
            " st.local.u32 [l], 1 | ld.local.u32 %r0, [l] ;\n ld.local.u32 %r1, [l+4] | st.global.u32 [x], 2 ;\n",
        )
        .expect("parses");
        assert_eq!(accessed(&t, 0), ["l@P0", "l@P0+4"]);
        assert_eq!(accessed(&t, 1), ["l@P1", "x"]);
        let copy = |name: &str| {
            let i = t.symbols.addrs.iter().position(|n| n == name).expect(name);
            t.addresses[i]
        };
        let (c0, c1) = (copy("l@P0"), copy("l@P1"));
        assert_eq!(
            c0.kind,
            AddrKind::LocalCopy(crate::ir::AddrId(0), ThreadId(0))
        );
        assert_ne!(c0.phys, c1.phys);
        assert_ne!(c0.vaddr, c1.vaddr);
        assert_eq!(t.init_mem[c1.phys.index()], 5);
        // The printer writes the declaration and the location's own name.
        let printed = crate::print(&t);
        assert!(printed.contains("l @ local = 5;"), "{printed}");
        assert!(
            printed.contains("[l+4]") && !printed.contains("@P"),
            "{printed}"
        );
        let again = crate::parse(&printed).expect("reparses");
        assert_eq!(crate::strip_spans(&again), crate::strip_spans(&t));
    }

    #[test]
    fn generic_access_through_cvta_reaches_the_copy() {
        let t = parse(
            "l @ local; p @ param = 7;",
            " cvta.local.u64 %rd1, l | mov.u64 %rd2, p ;\n ld.u32 %r0, [%rd1] | cvta.param.u64 %rd3, %rd2 ;\n ld.param.u32 %r1, [p] | ld.u32 %r2, [%rd3+0] ;\n ld.param::entry.u32 %r3, [p] | ;\n",
        )
        .expect("parses");
        assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
        assert_eq!(accessed(&t, 0), ["l@P0", "p", "p"]);
        assert_eq!(accessed(&t, 1), ["p"]);
        let spaces: Vec<StateSpace> = t.threads[0]
            .code
            .iter()
            .filter_map(|s| match s.instr {
                Instr::Load { space, .. } => Some(space),
                _ => None,
            })
            .collect();
        assert_eq!(
            spaces,
            [StateSpace::Global, StateSpace::Param, StateSpace::Param]
        );
    }

    #[test]
    fn forbidden_uses_are_positioned_errors() {
        let cases = [
            // A named generic or `.global` access of local memory.
            (
                "l @ local;",
                " ld.global.u32 %r0, [l] | ;\n",
                "4:2: `l` is `.local` memory",
            ),
            (
                "l @ local;",
                " atom.local.add.u32 %r0, [l], 1 | ;\n",
                "`atom` takes the `.global` or `.shared`",
            ),
            (
                "l @ local;",
                " mov.u64 %rd1, l | ;\n atom.add.u32 %r0, [%rd1], 1 | ;\n",
                "5:2: `atom` cannot access `l`",
            ),
            (
                "x = 0;",
                " | st.local.u32 [x], 1 ;\n",
                "4:4: `x` is not `.local` memory",
            ),
            (
                "x = 0;",
                " ld.param.u32 %r0, [x] | ;\n",
                "4:2: `x` is not a kernel parameter",
            ),
            (
                "p @ param = 1;",
                " st.param.u32 [p], 2 | ;\n",
                "kernel parameters are read-only",
            ),
            (
                "p @ param = 1;",
                " st.global.u32 [p], 2 | ;\n",
                "4:2: `st` cannot write `p`, which is a kernel parameter",
            ),
            (
                "p @ param = 1;",
                " ld.global.u32 %r0, [p] | ;\n",
                "read it with `ld.param`",
            ),
            (
                "p @ param = 1;",
                " ld.param::func.u32 %r0, [p] | ;\n",
                "litmus threads make no calls",
            ),
            (
                "l @ local; y @ generic aliases l;",
                "",
                "`y` cannot alias `l`",
            ),
        ];
        for (init, rows, want) in cases {
            let e = parse(init, rows).expect_err(want);
            assert!(e.contains(want), "{init} {rows}: {e}");
        }
    }
}
