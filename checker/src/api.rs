//! CUDA API synchronization (8.9.4, "API synchronization"): kernels and
//! streams declared in the initial state (`kernel K = P0, P1;`,
//! `stream S = K0, record E, K1;`).
//!
//! "Completion of a task enqueued in a CUDA stream synchronizes with the start
//! of the following task in the same stream" (item 1), "an event record task
//! synchronizes with matching event wait tasks" (item 2), and "Start of a CUDA
//! kernel synchronizes with start of all threads in the kernel. End of all
//! threads in a kernel synchronize with end of the kernel" (item 3). Together:
//! when kernel A precedes kernel B ([`ptxmc_frontend::ir::Api::kernel_order`]),
//! the end of every thread of A synchronizes with the start of every thread of
//! B. [`lower`] expresses exactly that with the model's own synchronization:
//! each thread of A ends with a release store at `.sys` to a flag of its own,
//! and each thread of B starts by spinning with acquire loads at `.sys` until
//! every such flag is set (release pattern 1 synchronizes with acquire pattern
//! 1, 8.8, 8.9.4 item 4). A spin loop that can never exit is a liveness
//! violation, as a kernel that never starts is.
//!
//! The API mechanisms also "participate in proxy-preserved base causality
//! order" for all proxies but the tensormap proxy; release and acquire only
//! carry the generic proxy, so a test that combines kernels with other
//! proxies or virtual aliases is reported unsupported rather than checked
//! too weakly.

use ptxmc_frontend::ir::{
    Access, AddrId, AddrKind, Address, CmpOp, Instr, LabelId, Operand, PhysId, Proxy, RegId, Scope,
    Sem, Span, StateSpace, Stmt, Test, ThreadId, VAddrId,
};

/// The test with the API synchronization written out (`None`: the test
/// declares no kernel), or what cannot be checked (`"<what> at L:C"`).
pub(crate) fn lower(test: &Test) -> Result<Option<Test>, String> {
    if test.api.kernels.is_empty() {
        return Ok(None);
    }
    for th in &test.threads {
        for s in &th.code {
            let (proxy, addr) = match &s.instr {
                Instr::Load { proxy, addr, .. }
                | Instr::Store { proxy, addr, .. }
                | Instr::Rmw { proxy, addr, .. } => (*proxy, *addr),
                _ => continue,
            };
            let alias = test.addresses.get(addr.index()).is_some_and(|a| {
                matches!(a.kind, AddrKind::GenericAlias(_) | AddrKind::ProxyAlias(..))
            });
            if proxy != Proxy::Generic || alias {
                return Err(format!(
                    "kernels with a non-generic proxy or a virtual alias (API synchronization in proxy-preserved base causality, 8.9.4) at {}",
                    s.span
                ));
            }
        }
    }
    let order = test.api.kernel_order();
    let mut out = test.clone();
    // The flag of each thread that ends a kernel some other kernel waits for.
    let mut flag: Vec<Option<AddrId>> = vec![None; test.threads.len()];
    let mut waits: Vec<Vec<AddrId>> = vec![Vec::new(); test.threads.len()];
    for &(a, b) in &order {
        let (Some(ka), Some(kb)) = (test.api.kernels.get(a), test.api.kernels.get(b)) else {
            continue;
        };
        for &t in &ka.threads {
            let f = match flag.get(t.index()).copied().flatten() {
                Some(f) => f,
                None => {
                    let f = new_flag(&mut out, t);
                    if let Some(slot) = flag.get_mut(t.index()) {
                        *slot = Some(f);
                    }
                    f
                }
            };
            for &u in &kb.threads {
                if let Some(w) = waits.get_mut(u.index()) {
                    if !w.contains(&f) {
                        w.push(f);
                    }
                }
            }
        }
    }
    for (t, th) in out.threads.iter_mut().enumerate() {
        let mut prefix = Vec::new();
        for &f in &waits[t] {
            let label = fresh_label(&mut out.symbols.labels, t);
            let reg = fresh_reg(&mut out.symbols.regs, test, t);
            prefix.push(stmt(Instr::Label(label)));
            prefix.push(stmt(Instr::Load {
                sem: Sem::Acquire,
                scope: Some(Scope::Sys),
                proxy: Proxy::Generic,
                space: StateSpace::Global,
                access: Access::UNTYPED,
                dst: vec![reg],
                addr: f,
            }));
            prefix.push(stmt(Instr::Branch {
                cmp: CmpOp::Ne,
                a: Operand::Reg(reg),
                b: Operand::Imm(1),
                target: label,
            }));
        }
        let mut code = prefix;
        code.append(&mut th.code);
        if let Some(f) = flag[t] {
            code.push(stmt(Instr::Store {
                sem: Sem::Release,
                scope: Some(Scope::Sys),
                proxy: Proxy::Generic,
                space: StateSpace::Global,
                access: Access::UNTYPED,
                addr: f,
                src: vec![Operand::Imm(1)],
            }));
        }
        th.code = code;
    }
    Ok(Some(out))
}

fn stmt(instr: Instr) -> Stmt {
    Stmt {
        instr,
        span: Span::default(),
    }
}

/// A new location `__api_done_P<t>` (initial value 0).
fn new_flag(out: &mut Test, t: ThreadId) -> AddrId {
    let phys = PhysId::new(out.n_phys as usize);
    let vaddr = VAddrId::new(out.n_vaddr as usize);
    out.n_phys += 1;
    out.n_vaddr += 1;
    out.init_mem.push(0);
    out.addresses.push(Address {
        kind: AddrKind::Root,
        phys,
        vaddr,
    });
    out.symbols.addrs.push(format!("__api_done_P{}", t.index()));
    AddrId::new(out.addresses.len() - 1)
}

fn fresh_label(labels: &mut Vec<Vec<String>>, t: usize) -> LabelId {
    if labels.len() <= t {
        labels.resize(t + 1, Vec::new());
    }
    let n = labels[t].len();
    labels[t].push(format!("__api_wait{n}"));
    LabelId::new(n)
}

fn fresh_reg(regs: &mut Vec<Vec<String>>, test: &Test, t: usize) -> RegId {
    if regs.len() <= t {
        regs.resize(t + 1, Vec::new());
    }
    let n = regs[t].len().max(test.n_regs(ThreadId::new(t)));
    regs[t].resize(n, String::new());
    regs[t].push(format!("%api{n}"));
    RegId::new(n)
}

#[cfg(test)]
mod tests {
    use crate::report::{Options, Status, Strategy};

    fn verdict(init: &str) -> (Status, bool, bool) {
        let src = format!(
            "PTX t\n{{ x=0; {init} }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.global.u32 [x], 1 | ld.global.u32 %r0, [x] ;\nexists (1:r0 == 0)"
        );
        let t = ptxmc_frontend::parse(&src).expect("parses");
        let mut out = Vec::new();
        for strategy in [Strategy::Brute, Strategy::Dpor] {
            let r = crate::check(
                &t,
                &Options {
                    strategy,
                    ..Options::default()
                },
            );
            out.push((r.status, r.condition_holds, r.liveness_holds));
        }
        assert_eq!(out[0], out[1]);
        out.remove(0)
    }

    #[test]
    fn stream_order_orders_kernels() {
        // Same stream: the consumer kernel cannot read the initial 0.
        let (s, holds, live) = verdict("kernel A = P0; kernel B = P1; stream S = A, B;");
        assert_eq!((s, holds, live), (Status::Ok, false, true));
        // Different streams, no event: it can.
        let (s, holds, _) = verdict("kernel A = P0; kernel B = P1; stream S = A; stream T = B;");
        assert_eq!((s, holds), (Status::Ok, true));
        // An event recorded after A and waited before B orders them.
        let (_, holds, _) =
            verdict("kernel A = P0; kernel B = P1; stream S = A, record E; stream T = wait E, B;");
        assert!(!holds);
        // Reversed order in the stream: B runs first and reads 0.
        let (_, holds, _) = verdict("kernel A = P0; kernel B = P1; stream S = B, A;");
        assert!(holds);
    }

    #[test]
    fn kernels_with_aliases_are_unsupported() {
        let src = "PTX t\n{ x=0; y @ generic aliases x; kernel A = P0; kernel B = P1; stream S = A, B; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.global.u32 [x], 1 | ld.global.u32 %r0, [y] ;\nexists (1:r0 == 0)";
        let t = ptxmc_frontend::parse(src).expect("parses");
        let m = super::lower(&t).err().unwrap_or_default();
        assert!(m.contains("virtual alias") && m.ends_with("at 4:25"), "{m}");
    }
}
