//! Hand-built IR for the interpreter's and explorers' unit tests.
//!
//! Locations are `x0, x1, ...` (one physical location and virtual address
//! each, initially 0); registers are `r0, r1, ...` of each thread; labels are
//! `L0, L1, ...`. Statement `i` of a thread is at line `i + 1`, column `thread + 1`.

use ptxmc_frontend::ir::*;

/// A relaxed `.gpu` load of `x<addr>` into `r<dst>`.
pub(crate) fn ld(dst: u32, addr: u32) -> Instr {
    ld_sem(dst, addr, Sem::Relaxed, Some(Scope::Gpu))
}

/// A load with the given semantics.
pub(crate) fn ld_sem(dst: u32, addr: u32, sem: Sem, scope: Option<Scope>) -> Instr {
    Instr::Load {
        sem,
        scope,
        proxy: Proxy::Generic,
        space: StateSpace::Global,
        access: Access::UNTYPED,
        dst: vec![RegId(dst)],
        addr: AddrId(addr),
    }
}

/// A relaxed `.gpu` store of `v` to `x<addr>`.
pub(crate) fn st(addr: u32, v: Operand) -> Instr {
    st_sem(addr, v, Sem::Relaxed, Some(Scope::Gpu))
}

/// A store with the given semantics.
pub(crate) fn st_sem(addr: u32, v: Operand, sem: Sem, scope: Option<Scope>) -> Instr {
    Instr::Store {
        sem,
        scope,
        proxy: Proxy::Generic,
        space: StateSpace::Global,
        access: Access::UNTYPED,
        addr: AddrId(addr),
        src: vec![v],
    }
}

/// A relaxed `.gpu` RMW (`atom` when `dst` is given, `red` otherwise).
pub(crate) fn rmw(op: RmwOp, dst: Option<u32>, addr: u32, a: Operand, b: Option<Operand>) -> Instr {
    Instr::Rmw {
        sem: Sem::Relaxed,
        scope: Scope::Gpu,
        proxy: Proxy::Generic,
        space: StateSpace::Global,
        access: Access::UNTYPED,
        op,
        dst: dst.map(RegId),
        addr: AddrId(addr),
        a,
        b,
    }
}

/// `bar.cta.sync instance, id[, count]` (or another barrier kind).
pub(crate) fn bar(kind: BarrierKind, instance: u32, id: Operand, count: Option<Operand>) -> Instr {
    Instr::Barrier {
        kind,
        instance,
        id,
        count,
    }
}

/// Register `r<i>`.
pub(crate) fn r(i: u32) -> Operand {
    Operand::Reg(RegId(i))
}

/// Immediate `v`.
pub(crate) fn imm(v: i64) -> Operand {
    Operand::Imm(v)
}

/// Label `L<i>`.
pub(crate) fn label(i: u32) -> Instr {
    Instr::Label(LabelId(i))
}

/// `goto L<i>`.
pub(crate) fn goto(i: u32) -> Instr {
    Instr::Goto(LabelId(i))
}

/// `if a cmp b goto L<i>`.
pub(crate) fn branch(cmp: CmpOp, a: Operand, b: Operand, i: u32) -> Instr {
    Instr::Branch {
        cmp,
        a,
        b,
        target: LabelId(i),
    }
}

/// A test with `n_locs` locations and one thread per code vector, all in CTA 0
/// of GPU 0, with condition `exists true`.
pub(crate) fn test(n_locs: u32, threads: Vec<Vec<Instr>>) -> Test {
    test_placed(n_locs, threads.into_iter().map(|c| (0, c)).collect())
}

/// Like [`test`], with each thread's CTA given.
pub(crate) fn test_placed(n_locs: u32, threads: Vec<(u32, Vec<Instr>)>) -> Test {
    let mut regs = Vec::new();
    let mut labels = Vec::new();
    let mut ths = Vec::new();
    for (t, (cta, code)) in threads.into_iter().enumerate() {
        regs.push((0..16).map(|i| format!("r{i}")).collect());
        labels.push((0..16).map(|i| format!("L{i}")).collect());
        ths.push(Thread {
            placement: Placement {
                cta,
                cluster: cta,
                gpu: 0,
            },
            explicit_cluster: false,
            code: code
                .into_iter()
                .enumerate()
                .map(|(i, instr)| Stmt {
                    instr,
                    span: Span {
                        line: i as u32 + 1,
                        col: t as u32 + 1,
                    },
                })
                .collect(),
        });
    }
    Test {
        name: "unit".to_string(),
        docs: Vec::new(),
        addresses: (0..n_locs)
            .map(|i| Address {
                kind: AddrKind::Root,
                phys: PhysId(i),
                vaddr: VAddrId(i),
            })
            .collect(),
        n_phys: n_locs,
        n_vaddr: n_locs,
        init_mem: vec![0; n_locs as usize],
        init_regs: Vec::new(),
        threads: ths,
        observed: Vec::new(),
        filter: None,
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop: Prop::True,
        },
        unsupported: Vec::new(),
        declarations: Vec::new(),
        multimem: Vec::new(),
        api: Default::default(),
        symbols: Symbols {
            addrs: (0..n_locs).map(|i| format!("x{i}")).collect(),
            regs,
            labels,
        },
    }
}
