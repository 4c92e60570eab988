//! Unit tests of the parser pieces: header, initial state, thread table, instructions, condition.

use super::parse;
use crate::ir::*;

const MP: &str = r#"PTX MP-gpu
"Message passing"
{
x=0;
y=0;
P1:r1=0;
P1:r2=0;
}
 P0@cta 0,gpu 0         | P1@cta 0,gpu 0         ;
 st.weak x, 1           | ld.acquire.gpu r1, y   ;
 st.release.gpu y, 1    | ld.weak r2, x          ;
~exists
(P1:r1 == 1 /\ P1:r2 != 1)"#;

fn err(src: &str) -> String {
    match parse(src) {
        Ok(t) => panic!("parsed: {t:?}"),
        Err(e) => e.to_string(),
    }
}

/// A one-thread test around `code` (one instruction row per line).
fn one(code: &str) -> Test {
    let rows: String = code.lines().map(|l| format!(" {l} ;\n")).collect();
    let src = format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n{rows}exists (0==0)");
    parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn instrs(code: &str) -> Vec<Instr> {
    one(code).threads[0]
        .code
        .iter()
        .map(|s| s.instr.clone())
        .collect()
}

#[test]
fn message_passing() {
    let t = parse(MP).expect("parses");
    assert_eq!(t.name, "MP-gpu");
    assert_eq!(t.docs, ["Message passing"]);
    assert_eq!(t.symbols.addrs, ["x", "y"]);
    assert_eq!(
        t.symbols.regs,
        [vec![], vec!["r1".to_string(), "r2".to_string()]]
    );
    assert_eq!(
        t.init_regs,
        [(ThreadId(1), RegId(0), 0), (ThreadId(1), RegId(1), 0)]
    );
    assert_eq!(t.threads.len(), 2);
    assert_eq!(
        t.threads[1].placement,
        Placement {
            cta: 0,
            cluster: 0,
            gpu: 0
        }
    );
    assert!(!t.threads[1].explicit_cluster);
    assert_eq!(
        t.threads[0].code[1].instr,
        Instr::Store {
            sem: Sem::Release,
            scope: Some(Scope::Gpu),
            proxy: Proxy::Generic,
            space: StateSpace::Global,
            access: Access::UNTYPED,
            addr: AddrId(1),
            src: vec![Operand::Imm(1)],
        }
    );
    assert_eq!(t.threads[1].code[0].span, Span { line: 10, col: 27 });
    assert_eq!(t.condition.quantifier, Quantifier::NotExists);
    assert_eq!(
        t.condition.prop,
        Prop::And(
            Box::new(Prop::Cmp(
                CmpOp::Eq,
                Term::Reg(ThreadId(1), RegId(0)),
                Term::Const(1)
            )),
            Box::new(Prop::Cmp(
                CmpOp::Ne,
                Term::Reg(ThreadId(1), RegId(1)),
                Term::Const(1)
            )),
        )
    );
}

#[test]
fn aliases_share_physical_locations() {
    let t = parse(
        "PTX a { x = 0; y @ generic aliases x; s @ surface aliases y; z = -0x10 }\n P0@cta 0,gpu 0 ;\n sust.weak s, 1 ;\n forall (z == -16)",
    )
    .expect("parses");
    let a = &t.addresses;
    assert_eq!(a[1].kind, AddrKind::GenericAlias(AddrId(0)));
    assert_eq!((a[1].phys, a[1].vaddr), (PhysId(0), VAddrId(1)));
    assert_eq!(a[2].kind, AddrKind::ProxyAlias(Proxy::Surface, AddrId(1)));
    assert_eq!((a[2].phys, a[2].vaddr), (PhysId(0), VAddrId(1)));
    assert_eq!((a[3].phys, a[3].vaddr), (PhysId(1), VAddrId(2)));
    assert_eq!((t.n_phys, t.n_vaddr), (2, 3));
    assert_eq!(t.init_mem, [0, -16]);
}

#[test]
fn locations_are_created_on_first_use() {
    let t = one("st.weak fresh, 1");
    assert_eq!(t.symbols.addrs, ["x", "fresh"]);
    assert_eq!(t.init_mem, [0, 0]);
}

#[test]
fn clusters() {
    let t =
        parse("PTX c {}\n P0@cta 0,cluster 1,gpu 0 | P1@cta 1, cluster 1, gpu 0 ;\n exists 0==0")
            .expect("parses");
    assert!(t.threads[0].explicit_cluster);
    assert_eq!(
        t.threads[1].placement,
        Placement {
            cta: 1,
            cluster: 1,
            gpu: 0
        }
    );
    assert_eq!(
        err("PTX c {}\n P0@cta 0,cluster 1,gpu 0 | P1@cta 1,gpu 0 ;\n exists 0==0"),
        "2:29: thread P0 names its cluster but thread P1 does not: either every thread names its cluster or none does"
    );
    assert_eq!(
        err("PTX c {}\n P0@cta 0,cluster 1,gpu 0 | P1@cta 0,cluster 2,gpu 0 ;\n exists 0==0"),
        "2:29: CTA 0 of gpu 0 is in cluster 1 for P0 but in cluster 2 for P1"
    );
}

#[test]
fn dialect_instructions() {
    let i = instrs("ld r0, 1\nadd r2, r0, r1\natom.relaxed.gpu.cas r3, x, 0, 1\nred.acq_rel.sys.sub x, r3\nbar.cta.sync 1, r2, 3\nbar.cta.arrive 2\nfence.proxy.alias\ncold.weak r4, x");
    assert_eq!(
        i[0],
        Instr::Mov {
            dst: RegId(0),
            src: Operand::Imm(1)
        }
    );
    assert_eq!(
        i[1],
        Instr::Op {
            op: BinOp::Add,
            dst: RegId(1),
            a: Operand::Reg(RegId(0)),
            b: Operand::Reg(RegId(2))
        }
    );
    assert!(matches!(
        i[2],
        Instr::Rmw {
            op: RmwOp::Cas,
            dst: Some(RegId(3)),
            a: Operand::Imm(0),
            b: Some(Operand::Imm(1)),
            ..
        }
    ));
    assert!(matches!(
        i[3],
        Instr::Rmw {
            op: RmwOp::Sub,
            sem: Sem::AcqRel,
            scope: Scope::Sys,
            dst: None,
            ..
        }
    ));
    assert_eq!(
        i[4],
        Instr::Barrier {
            kind: BarrierKind::Sync,
            instance: 1,
            id: Operand::Reg(RegId(1)),
            count: Some(Operand::Imm(3))
        }
    );
    assert_eq!(
        i[5],
        Instr::Barrier {
            kind: BarrierKind::Arrive,
            instance: 2,
            id: Operand::Imm(0),
            count: None
        }
    );
    assert_eq!(
        i[6],
        Instr::Fence {
            kind: FenceKind::ProxyAlias,
            scope: None
        }
    );
    assert!(matches!(
        i[7],
        Instr::Load {
            proxy: Proxy::Constant,
            sem: Sem::Weak,
            scope: None,
            ..
        }
    ));
}

#[test]
fn ptx_instructions() {
    let t = one(
        "ld.global.relaxed.sys.u32 %r0, [x];\nst.release.gpu.b32 [flag], 1;\nst.global.u32 [y], %r0;\natom.sys.inc.u32 %r1, [x];\nred.sys.global.add.u32 [flag], 1;\nld.global.v2.u32 {%r2, r3}, [x];\nfence.sys;\nmembar.gl;\nbar.sync 1, 64;\nbarrier.cluster.arrive.release.aligned;\nmov.u32 %r4, 5;\nld.shared::cluster.acquire.cluster.u64 %r5, [x];",
    );
    let i: Vec<&Instr> = t.threads[0].code.iter().map(|s| &s.instr).collect();
    assert_eq!(t.symbols.regs[0], ["r0", "r1", "r2", "r3", "r4", "r5"]);
    assert!(matches!(
        i[0],
        Instr::Load {
            sem: Sem::Relaxed,
            scope: Some(Scope::Sys),
            access: Access {
                bytes: 4,
                vector: 1
            },
            ..
        }
    ));
    assert!(matches!(
        i[2],
        Instr::Store {
            sem: Sem::Weak,
            scope: None,
            ..
        }
    ));
    assert!(matches!(
        i[3],
        Instr::Rmw {
            op: RmwOp::Inc,
            sem: Sem::Relaxed,
            scope: Scope::Sys,
            a: Operand::Imm(4294967295),
            ..
        }
    ));
    assert!(matches!(
        i[4],
        Instr::Rmw {
            dst: None,
            scope: Scope::Sys,
            ..
        }
    ));
    let Instr::Load { dst, access, .. } = i[5] else {
        panic!("{:?}", i[5])
    };
    assert_eq!((dst.len(), access.vector), (2, 2));
    assert_eq!(
        *i[6],
        Instr::Fence {
            kind: FenceKind::AcqRel,
            scope: Some(Scope::Sys)
        }
    );
    assert_eq!(
        *i[7],
        Instr::Fence {
            kind: FenceKind::Sc,
            scope: Some(Scope::Gpu)
        }
    );
    assert_eq!(
        *i[8],
        Instr::Barrier {
            kind: BarrierKind::Sync,
            instance: 0,
            id: Operand::Imm(1),
            count: Some(Operand::Imm(64))
        }
    );
    assert!(matches!(
        i[9],
        Instr::Barrier {
            kind: BarrierKind::ClusterArrive,
            ..
        }
    ));
    assert_eq!(
        *i[10],
        Instr::Mov {
            dst: RegId(4),
            src: Operand::Imm(5)
        }
    );
    assert!(matches!(
        i[11],
        Instr::Load {
            space: StateSpace::SharedCluster,
            sem: Sem::Acquire,
            scope: Some(Scope::Cluster),
            ..
        }
    ));
}

#[test]
fn condition_finds_percent_registers() {
    let t = parse("PTX p {}\n P0@cta 0,gpu 0 ;\n ld.global.u32 %r0, [x]; ;\n exists (P0:r0 == 1 /\\ 0:%r0 = 1)")
        .expect("parses");
    assert_eq!(t.symbols.regs[0], ["r0"]);
    let Prop::And(a, b) = &t.condition.prop else {
        panic!()
    };
    assert_eq!(a, b);
}

#[test]
fn unsupported_constructs_are_listed() {
    let t = one("vote.sync.all.pred %p2, 1, %p1\n@%p1 st.weak x, 1\ncp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [x], [x, {%r1}], [x]");
    // The family's reasons follow its name after `: `.
    let names: Vec<(&str, u32)> = t
        .unsupported
        .iter()
        .map(|u| (u.construct.split(": ").next().unwrap_or(""), u.span.line))
        .collect();
    assert_eq!(names, [("vote", 4), ("cp.async.bulk.tensor", 6)]);
    assert_eq!(
        t.threads[0].code[0].instr,
        Instr::Unsupported("vote.sync.all.pred %p2, 1, %p1".into())
    );
    // A guarded store is a branch around the store.
    assert!(matches!(
        t.threads[0].code[1].instr,
        Instr::Branch {
            cmp: CmpOp::Eq,
            b: Operand::Imm(0),
            ..
        }
    ));
    assert!(matches!(t.threads[0].code[2].instr, Instr::Store { .. }));
    assert!(matches!(t.threads[0].code[3].instr, Instr::Label(_)));
    // Nothing of an unsupported instruction is interned.
    assert_eq!(t.symbols.addrs, ["x"]);
    assert_eq!(t.symbols.regs[0], ["p1"]);
}

/// Any offset a PTX address operand holds (a 32-bit signed immediate, PTX
/// ISA 6.4.1) is a byte of the location; one past it is an error at the
/// operand.
#[test]
fn large_address_offsets() {
    let t = one("st.weak [x+1048576], 1\nld.weak r0, [x+2147483647]\nst.weak.u8 [x+0x7ffffffe], 2");
    assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
    assert_eq!(
        t.symbols.addrs,
        ["x", "x+1048576", "x+2147483646", "x+2147483647"]
    );
    assert_eq!(t.addresses[1].kind, AddrKind::Offset(AddrId(0), 1 << 20));
    assert_eq!(
        t.addresses[3].kind,
        AddrKind::Offset(AddrId(0), i32::MAX as u32)
    );
    let printed = crate::print(&t);
    assert!(printed.contains("[x+2147483647]"), "{printed}");
    assert_eq!(parse(&printed).expect("reparses").addresses, t.addresses);
    let src = "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak [x+2147483648], 1 ;\nexists (0==0)";
    let e = parse(src).expect_err("out of range");
    assert_eq!((e.span.line, e.span.col), (4, 10), "{e}");
    assert!(
        e.to_string().contains("offset 2147483648")
            && e.to_string().contains("32-bit signed immediate"),
        "{e}"
    );
    // A register-held address takes the same range, both signs.
    let src = "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n mov.u64 %rd1, x ;\n ld.u32 %r0, [%rd1+4294967296] ;\nexists (0==0)";
    let e = parse(src).expect_err("out of range");
    assert_eq!(e.span.line, 5, "{e}");
    assert!(e.to_string().contains("offset 4294967296"), "{e}");
    let src = "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n mov.u64 %rd1, x ;\n ld.u32 %r0, [%rd1+1048576] ;\nexists (0==0)";
    let t = parse(src).expect("parses");
    assert_eq!(t.symbols.addrs, ["x", "x+1048576"]);
}

#[test]
fn byte_offsets_and_multimem_addresses() {
    let t = parse(
        "PTX o { x = 5; m @ multimem; }\n P0@cta 0,gpu 0 ;\n st.global.u8 [x+3], 1 ;\n ld.global.u16 %r0, [x+3] ;\n ld.global.u32 %r1, [m] ;\n exists (x == 5)",
    )
    .expect("parses");
    assert!(t.unsupported.is_empty());
    assert_eq!(t.symbols.addrs, ["x", "m", "x+3"]);
    assert_eq!(t.addresses[1].kind, AddrKind::Multimem);
    assert_eq!(t.addresses[2].kind, AddrKind::Offset(AddrId(0), 3));
    assert_eq!(t.addresses[2].phys, t.addresses[0].phys);
    assert_eq!(t.addresses[2].vaddr, t.addresses[0].vaddr);
    // Both instructions name the same interned `x+3`.
    let addrs: Vec<AddrId> = t.threads[0]
        .code
        .iter()
        .filter_map(|s| match s.instr {
            Instr::Store { addr, .. } | Instr::Load { addr, .. } => Some(addr),
            _ => None,
        })
        .collect();
    assert_eq!(addrs, [AddrId(2), AddrId(2), AddrId(1)]);
    // The printer writes `[x+3]` back and declares `m`.
    let printed = crate::print(&t);
    assert!(
        printed.contains("[x+3]") && printed.contains("m @ multimem;"),
        "{printed}"
    );
    assert_eq!(parse(&printed).expect("reparses").addresses, t.addresses);
}

#[test]
fn labels_and_branches() {
    let t = one("LC00:\nld.relaxed.gpu r0, x\nbne r0, 1, LC00\nLC01: goto LC01");
    let i: Vec<&Instr> = t.threads[0].code.iter().map(|s| &s.instr).collect();
    assert_eq!(*i[0], Instr::Label(LabelId(0)));
    assert!(matches!(
        i[2],
        Instr::Branch {
            cmp: CmpOp::Ne,
            target: LabelId(0),
            ..
        }
    ));
    assert_eq!(*i[3], Instr::Label(LabelId(1)));
    assert_eq!(*i[4], Instr::Goto(LabelId(1)));
    assert_eq!(t.symbols.labels[0], ["LC00", "LC01"]);
}

#[test]
fn missing_trailing_cells_are_empty() {
    let t = parse("PTX m {}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;\n st.weak x, 1 ;\n | ld.weak r0, x ;\n exists 0==0")
        .expect("parses");
    let lens: Vec<usize> = t.threads.iter().map(|t| t.code.len()).collect();
    assert_eq!(lens, [1, 1, 0]);
}

#[test]
fn props_precedence_and_tail() {
    let t = parse("PTX p {}\n P0@cta 0,gpu 0 ;\nlocations [x; P0:r0;]\nfilter ~x=1\nforall a = 1 \\/ b = 2 /\\ not c = 3")
        .expect("parses");
    assert_eq!(t.observed.len(), 2);
    assert!(matches!(t.filter, Some(Prop::Not(_))));
    let Prop::Or(_, r) = &t.condition.prop else {
        panic!("{:?}", t.condition.prop)
    };
    let Prop::And(_, n) = &**r else { panic!() };
    assert!(matches!(**n, Prop::Not(_)));
}

#[test]
fn error_messages() {
    let cases = [
        ("", "1:1: empty input: expected a test header `PTX <name>`"),
        ("X86 t {}", "1:1: expected `PTX` at the start of the test, found `X86`"),
        ("PTX t \"doc\"", "1:12: expected `{` to open the initial state, found end of file"),
        ("PTX t { x=0; y @ generic aliases z; }", "1:34: `y` aliases `z`, which is not declared before it in the initial state"),
        ("PTX t { x=0; x=1; }", "1:14: location `x` is declared twice in the initial state"),
        ("PTX t {}\n P0@cta 0,gpu 0 | P0@cta 0,gpu 0 ;", "2:19: duplicate thread header P0"),
        ("PTX t {}\n P1@cta 0,gpu 0 ;", "2:2: expected thread header P0, found P1"),
        ("PTX t {}\n P0 ;", "2:5: thread P0 needs a placement, as in `P0@cta 0,gpu 0`"),
        ("PTX t {}\n P0@cta 0 ;", "2:11: thread P0 has no `gpu` id in its placement"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n foo.bar r0 ;", "3:2: unknown instruction `foo.bar`"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n st.weak x, 1\n ld.weak r0, x ;\nexists 0==0", "3:14: expected `;` after instruction, found `ld.weak`"),
        ("PTX t {}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n | goto LC05 ;\nexists 0==0", "3:9: label `LC05` is not defined in thread P1"),
        ("PTX t {}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\nexists (P3:r9 == 1)", "3:9: register `r9` used in condition for thread P3 but there are only 2 threads"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n st.weak x, 1 | st.weak y, 1 ;\nexists 0==0", "3:17: instruction in column 1 but there is only 1 thread"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n", "3:1: expected the final condition (`exists`, `~exists`, `not exists` or `forall`), found end of file"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\nexists (x == 1", "3:15: expected `)` or a connective (`/\\`, `\\/`), found end of file"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\nexists x == 1 y", "3:15: unexpected `y` after the final condition"),
        ("PTX t { P2:r0=1; }\n P0@cta 0,gpu 0 ;\nexists 0==0", "1:9: register `r0` used in the initial state for thread P2 but there is only 1 thread"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n ld.weak r0, [%rd1] ;\nexists 0==0", "3:14: cannot resolve the address `[%rd1]` to a location: it is the number 0, not the address of a location (take one with `mov.u64 %rd1, x`, `x` declared in the initial state)"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n ld.weak r0, %rd1 ;\nexists 0==0", "3:14: `%rd1` is a register, not a memory location"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n mov.u32 %r1, %tid.x ;\nexists 0==0", "3:15: `%tid.x` is not defined by the placement of P0: add `tid N` to the placement"),
        ("PTX t { x=1; }\n P0@cta 0,gpu 0 ;\n ld r0, x ;\nexists 0==0", "3:9: `ld` without semantics is a register move (`ld R, V`), but `x` is a location: write `ld.weak R, x` to load it"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n atom.relaxed.gpu.cas r0, x, 1 ;\nexists 0==0", "3:2: `atom.relaxed.gpu.cas` takes 4 operands, found 3"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n LC00: | ;\n LC00: ;\nexists 0==0", "4:2: label `LC00` is defined twice in thread P0"),
        ("PTX t {}\n P0@cta 0,gpu 0 ;\n st.weak 1, x ;\nexists 0==0", "3:10: address of `st.weak` must be a location `x` or `[x]`, found `1`"),
    ];
    for (src, want) in cases {
        assert_eq!(err(src), want, "for {src:?}");
    }
}

#[test]
fn deep_conditions_are_rejected_not_overflowing() {
    let deep = format!(
        "PTX t {{}}\n P0@cta 0,gpu 0 ;\nexists {}x == 1{}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(err(&deep).contains("nested too deeply"));
    // A flat chain is one level, however long: groups of 16 terms as
    // written, joined as a balanced tree (256 terms were once refused).
    fn depth(p: &crate::ir::Prop) -> usize {
        use crate::ir::Prop;
        match p {
            Prop::And(a, b) | Prop::Or(a, b) => 1 + depth(a).max(depth(b)),
            Prop::Not(a) => 1 + depth(a),
            _ => 0,
        }
    }
    for n in [256, 100_000] {
        let long = format!(
            "PTX t {{ x=0; }}\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1{})",
            " /\\ x == 1".repeat(n - 1)
        );
        let t = crate::parse(&long).expect("a flat conjunction parses");
        let d = depth(&t.condition.prop);
        assert!((8..=80).contains(&d), "{n} terms nest {d} deep");
        let again = crate::parse(&crate::print(&t)).expect("prints back");
        assert_eq!(crate::strip_spans(&again), crate::strip_spans(&t));
    }
    // Up to 16 terms: folded to the left, as written.
    let t = crate::parse(
        "PTX t { x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1 /\\ x == 2 /\\ x == 3)",
    )
    .expect("parses");
    assert!(crate::print(&t).contains("exists (x == 1 /\\ x == 2 /\\ x == 3)"));
}

#[test]
fn proxy_instructions_and_fences() {
    let i = instrs(
        "suld.weak r0, x\nsust.weak x, 1\nsuatom.relaxed.gpu.add r1, x, 1\nsured.release.sys.max x, 2\ntld.weak r2, x\nld.proxy::readonly.u32 %r3, [x]\nfence.proxy.async::global\nfence.proxy.async.shared::cta\nfence.proxy.tensormap::generic.acquire.gpu [x], 128\nfence.proxy.tensormap::generic.release.sys",
    );
    assert!(matches!(
        i[0],
        Instr::Load {
            proxy: Proxy::Surface,
            ..
        }
    ));
    assert!(matches!(
        i[1],
        Instr::Store {
            proxy: Proxy::Surface,
            ..
        }
    ));
    assert!(matches!(
        i[2],
        Instr::Rmw {
            proxy: Proxy::Surface,
            dst: Some(_),
            op: RmwOp::Add,
            ..
        }
    ));
    assert!(matches!(
        i[3],
        Instr::Rmw {
            proxy: Proxy::Surface,
            dst: None,
            op: RmwOp::Max,
            sem: Sem::Release,
            ..
        }
    ));
    assert!(matches!(
        i[4],
        Instr::Load {
            proxy: Proxy::Texture,
            ..
        }
    ));
    assert!(matches!(
        i[5],
        Instr::Load {
            proxy: Proxy::Readonly,
            ..
        }
    ));
    assert_eq!(
        i[6],
        Instr::Fence {
            kind: FenceKind::ProxyAsync,
            scope: None
        }
    );
    assert_eq!(
        i[7],
        Instr::Fence {
            kind: FenceKind::ProxyAsync,
            scope: None
        }
    );
    assert_eq!(
        i[8],
        Instr::Fence {
            kind: FenceKind::ProxyTensormapAcquire,
            scope: Some(Scope::Gpu)
        }
    );
    assert_eq!(
        i[9],
        Instr::Fence {
            kind: FenceKind::ProxyTensormapRelease,
            scope: Some(Scope::Sys)
        }
    );
}

#[test]
fn a_cell_may_end_with_its_own_semicolon() {
    let t = parse("PTX s {}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.global.u32 [x], 1; | ld.global.u32 %r0, [x]; ;\n | fence.sc.gpu;\n exists 0==0")
        .expect("parses");
    let lens: Vec<usize> = t.threads.iter().map(|t| t.code.len()).collect();
    assert_eq!(lens, [1, 2]);
}

#[test]
fn asynchronous_operations_and_mbarriers() {
    use crate::ir::{AsyncInstr, MbarrierUpdate, Scope, StateSpace};
    let i = instrs(
        "cp.async.ca.shared.global [x], [x], 4\ncp.async.commit_group\ncp.async.wait_group 1\ncp.async.wait_all\ncp.async.mbarrier.arrive.noinc.shared::cta.b64 [x]\ncp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [x], [x], 16, [x]\ncp.async.bulk.global.shared::cta.bulk_group.relaxed.gpu [x], [x], 4\ncp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [x], [x], 4\ncp.async.bulk.wait_group.read 0\nst.async.release.cluster.shared::cluster.mbarrier::complete_tx::bytes.b32 [x], 1, [x]\nmbarrier.init.shared::cta.b64 [x], 2\nmbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 %s, [x], 8\nmbarrier.arrive.shared::cluster.b64 _, [x], 2\nmbarrier.try_wait.parity.shared::cta.b64 %p, [x], 1\nmbarrier.test_wait.relaxed.cta.shared::cta.b64 %p, [x], %s",
    );
    assert!(matches!(
        i[0],
        Instr::Async(AsyncInstr::Copy {
            bulk: false,
            mbar: None,
            reduce: None,
            dst_space: StateSpace::Shared,
            src_space: StateSpace::Global,
            ..
        })
    ));
    assert_eq!(i[1], Instr::Async(AsyncInstr::Commit { bulk: false }));
    assert!(matches!(
        i[2],
        Instr::Async(AsyncInstr::Wait {
            bulk: false,
            pending: 1,
            all: false,
            ..
        })
    ));
    assert!(matches!(
        i[3],
        Instr::Async(AsyncInstr::Wait { all: true, .. })
    ));
    assert!(matches!(
        i[4],
        Instr::Async(AsyncInstr::CpAsyncArrive { noinc: true, .. })
    ));
    assert!(matches!(
        i[5],
        Instr::Async(AsyncInstr::Copy {
            bulk: true,
            mbar: Some(_),
            size: 16,
            sem: Sem::Weak,
            ..
        })
    ));
    assert!(matches!(
        i[6],
        Instr::Async(AsyncInstr::Copy {
            sem: Sem::Relaxed,
            scope: Some(Scope::Gpu),
            ..
        })
    ));
    assert!(matches!(
        i[7],
        Instr::Async(AsyncInstr::Copy {
            reduce: Some(RmwOp::Elements(crate::ir::Elementwise::Int(
                crate::ir::IntRed::Add,
                crate::ir::IntTy::U32
            ))),
            ..
        })
    ));
    assert!(matches!(
        i[8],
        Instr::Async(AsyncInstr::Wait {
            bulk: true,
            read: true,
            ..
        })
    ));
    assert!(matches!(
        i[9],
        Instr::Async(AsyncInstr::StAsync {
            sem: Sem::Release,
            scope: Some(Scope::Cluster),
            ..
        })
    ));
    assert!(matches!(
        i[10],
        Instr::Async(AsyncInstr::MbarrierInit { count: 2, .. })
    ));
    assert!(matches!(
        i[11],
        Instr::Async(AsyncInstr::MbarrierUpdate {
            kind: MbarrierUpdate::ArriveExpectTx,
            sem: Sem::Relaxed,
            scope: Scope::Cluster,
            dst: Some(_),
            tx: 8,
            ..
        })
    ));
    assert!(matches!(
        i[12],
        Instr::Async(AsyncInstr::MbarrierUpdate {
            kind: MbarrierUpdate::Arrive,
            sem: Sem::Release,
            dst: None,
            count: 2,
            space: StateSpace::SharedCluster,
            ..
        })
    ));
    assert!(matches!(
        i[13],
        Instr::Async(AsyncInstr::MbarrierWait {
            try_wait: true,
            parity: true,
            sem: Sem::Acquire,
            ..
        })
    ));
    assert!(matches!(
        i[14],
        Instr::Async(AsyncInstr::MbarrierWait {
            try_wait: false,
            parity: false,
            sem: Sem::Relaxed,
            ..
        })
    ));
}

#[test]
fn predicated_branches_and_unsupported_async_forms() {
    let i = instrs("L:\n@%p bra L\n@!%p bra.uni L");
    assert!(matches!(i[1], Instr::Branch { cmp: CmpOp::Ne, .. }));
    assert!(matches!(i[2], Instr::Branch { cmp: CmpOp::Eq, .. }));
    let t = one("@%p st.global.u32 [x], 1\ncp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.tile::gather4 [x], [x, {0, 0, 0, 0, 0}], [x]\nld.global.nc.u32 %r0, [x]\ncp.async.bulk.prefetch.tensor.1d.L2.global [x, {%r1}]");
    let names: Vec<&str> = t.unsupported.iter().map(|u| u.construct.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(
        err("PTX t {}\n P0@cta 0,gpu 0 ;\n mbarrier.arrive.acquire.cta.shared::cta.b64 _, [x] ;\nexists 0==0"),
        "3:2: `mbarrier.arrive.acquire.cta.shared::cta.b64` cannot have `.acquire` semantics"
    );
}
