use crate::ir::{AddrKind, AsyncInstr, Instr, Proxy, Test};

fn parse(init: &str, code: &str) -> Test {
    let src = format!("PTX p {{ {init} }}\n P0@cta 0,cluster 0,gpu 0 ;\n{code}exists (g == 0)");
    crate::parser::parse_round_trip(&src)
}

/// The name and byte offset an address of `t` denotes.
fn at(t: &Test, a: crate::ir::AddrId) -> (String, u32) {
    let (base, off) = match t.addresses[a.index()].kind {
        AddrKind::Offset(b, o) => (b, o),
        _ => (a, 0),
    };
    (t.addr_name(base).to_string(), off)
}

fn n(s: &str, o: u32) -> (String, u32) {
    (s.to_string(), o)
}

/// `(dst, src, mbar, size)` of each copy of thread 0.
#[allow(clippy::type_complexity)]
fn copies(t: &Test) -> Vec<((String, u32), (String, u32), Option<(String, u32)>, i64)> {
    t.threads[0]
        .code
        .iter()
        .filter_map(|s| match &s.instr {
            Instr::Async(AsyncInstr::Copy {
                dst,
                src,
                mbar,
                size,
                bulk: true,
                ..
            }) => Some((at(t, *dst), at(t, *src), mbar.map(|m| at(t, m)), *size)),
            _ => None,
        })
        .collect()
}

/// The locations thread 0 reads through the tensormap proxy.
fn map_reads(t: &Test) -> Vec<(String, u32)> {
    t.threads[0]
        .code
        .iter()
        .filter_map(|s| match &s.instr {
            Instr::Load {
                proxy: Proxy::Tensormap,
                addr,
                ..
            } => Some(at(t, *addr)),
            _ => None,
        })
        .collect()
}

/// The manual's examples (instruction descriptions "cp.async.bulk.tensor"
/// and "cp.async.bulk.prefetch.tensor") parse; with their coordinates in
/// registers each is reported unsupported, naming the coordinate.
#[test]
fn the_manual_examples_parse() {
    let t = parse(
        "g=0;",
        concat!(
            " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.tile  [sMem0], [tensorMap0, {tc0}], [mbar0];\n",
            " @p cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes.im2col.multicast::cluster [sMem2], [tensorMap2, {tc0, tc1, tc2, tc3, tc4}], [mbar2], {im2colOff0, im2colOff1, im2colOff2}, ctaMask;\n",
            " cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tensorMap3, {tc0}], [sMem3];\n",
            " cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [tensorMap4, {tc0, tc1}], [sMem4], policy;\n",
            " cp.async.bulk.prefetch.tensor.1d.L2.global.tile  [tensorMap0, {tc0}];\n",
            " cp.async.bulk.prefetch.tensor.5d.L2.global.im2col.L2::cache_hint [tensorMap2, {tc0, tc1, tc2, tc3, tc4}], {im2colOff0, im2colOff1, im2colOff2}, policy;\n",
        ),
    );
    let reasons: Vec<&str> = t.unsupported.iter().map(|u| u.construct.as_str()).collect();
    assert_eq!(reasons.len(), 6, "{reasons:?}");
    // Without a declaration of the map, that is the reason; `.im2col` comes first.
    assert!(
        reasons[0].contains("`tensorMap0` has no declaration"),
        "{}",
        reasons[0]
    );
    assert!(reasons[1].contains("`.im2col`"), "{}", reasons[1]);
    assert!(reasons[5].contains("`.im2col`"), "{}", reasons[5]);
    // Declared maps: the register coordinate is the reason.
    let t = parse(
        "g=0; tensorMap0=0; tensorMap3=0; tensorMap4=0; tensorMap0 @ tensormap g; tensorMap3 @ tensormap g; tensorMap4 @ tensormap g;",
        concat!(
            " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.tile  [sMem0], [tensorMap0, {tc0}], [mbar0];\n",
            " cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tensorMap3, {tc0}], [sMem3];\n",
            " cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [tensorMap4, {tc0, tc1}], [sMem4], policy;\n",
            " cp.async.bulk.prefetch.tensor.1d.L2.global.tile  [tensorMap0, {tc0}];\n",
        ),
    );
    assert_eq!(t.unsupported.len(), 4);
    for u in &t.unsupported {
        assert!(
            u.construct.contains("coordinate `tc0` is not a constant"),
            "{}",
            u.construct
        );
    }
}

/// Constant coordinates: the map read through the tensormap proxy, then the
/// bulk copy of the box at the coordinate, one per tensor of the map under a
/// dispatch on the value read.
#[test]
fn constant_coordinates_lower_to_a_map_read_and_bulk_copies() {
    let t = parse(
        "g=0; h=0; tm=0; tm @ tensormap g, h box 8; s=0; bar=0;",
        concat!(
            " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.tile [s], [tm, {16}], [bar] ;\n",
            " cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tm, {4, 0}], [s+8] ;\n",
            " cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [tm, {0}], [s] ;\n",
            " cp.async.bulk.prefetch.tensor.1d.L2.global [tm, {0}] ;\n",
        ),
    );
    assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
    assert_eq!(map_reads(&t), vec![n("tm", 0); 4]);
    assert_eq!(
        copies(&t),
        [
            (n("s", 0), n("g", 16), Some(n("bar", 0)), 8),
            (n("s", 0), n("h", 16), Some(n("bar", 0)), 8),
            (n("g", 4), n("s", 8), None, 8),
            (n("h", 4), n("s", 8), None, 8),
            (n("g", 0), n("s", 0), None, 8),
            (n("h", 0), n("s", 0), None, 8),
        ]
    );
    let reduces = t.threads[0]
        .code
        .iter()
        .filter(|s| {
            matches!(
                s.instr,
                Instr::Async(AsyncInstr::Copy {
                    reduce: Some(crate::ir::RmwOp::Add),
                    ..
                })
            )
        })
        .count();
    assert_eq!(reduces, 2);
    // One tensor: no dispatch.
    let one = parse(
        "g=0; tm=0; tm @ tensormap g; s=0; bar=0;",
        " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [s], [tm, {0}], [bar] ;\n",
    );
    assert_eq!(copies(&one), [(n("s", 0), n("g", 0), Some(n("bar", 0)), 4)]);
    // A coordinate is a byte offset of the tensor, as far as `[g+N]` goes.
    let far = parse(
        "g=0; tm=0; tm @ tensormap g; s=0; bar=0;",
        " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [s], [tm, {1048576}], [bar] ;\n",
    );
    assert!(far.unsupported.is_empty(), "{:?}", far.unsupported);
    assert_eq!(
        copies(&far),
        [(n("s", 0), n("g", 1 << 20), Some(n("bar", 0)), 4)]
    );
    let past = parse(
        "g=0; tm=0; tm @ tensormap g; s=0; bar=0;",
        " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [s], [tm, {2147483645}], [bar] ;\n",
    );
    assert!(
        past.unsupported
            .iter()
            .any(|u| u.construct.contains("outside the tensor")),
        "{:?}",
        past.unsupported
    );
    assert!(!one.threads[0]
        .code
        .iter()
        .any(|s| matches!(s.instr, Instr::Branch { .. })));
}

/// `.multicast::cluster` with an immediate mask: one copy per set bit, into
/// that CTA's instances of the destination and the mbarrier; the
/// non-tensor `cp.async.bulk` form likewise.
#[test]
fn multicast_writes_each_cta_of_the_mask() {
    let t = parse(
        "g=0; tm=0; tm @ tensormap g; s0=0; s1=0; s2=0; b0=0; b1=0; b2=0; s @ cluster s0, s1, s2; bar @ cluster b0, b1, b2;",
        concat!(
            " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [s+4], [tm, {0}], [bar], 5 ;\n",
            " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [s], [g+8], 4, [bar+8], 3, %rd1 ;\n",
        ),
    );
    assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
    assert_eq!(map_reads(&t), [n("tm", 0)]);
    assert_eq!(
        copies(&t),
        [
            (n("s0", 4), n("g", 0), Some(n("b0", 0)), 4),
            (n("s2", 4), n("g", 0), Some(n("b2", 0)), 4),
            (n("s0", 0), n("g", 8), Some(n("b0", 8)), 4),
            (n("s1", 0), n("g", 8), Some(n("b1", 8)), 4),
        ]
    );
    // A register mask, or no instances: unsupported with the reason.
    let t = parse(
        "g=0; s=0; bar=0;",
        concat!(
            " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [s], [g], 4, [bar], %rs1 ;\n",
            " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [s], [g], 4, [bar], 1 ;\n",
        ),
    );
    let reasons: Vec<&str> = t.unsupported.iter().map(|u| u.construct.as_str()).collect();
    assert!(reasons[0].contains("ctaMask `%rs1`"), "{reasons:?}");
    assert!(reasons[1].contains("declare `s @ cluster"), "{reasons:?}");
}

/// Malformed instructions and declarations are errors at their position.
#[test]
fn malformed_forms_and_declarations_are_positioned_errors() {
    let err = |init: &str, code: &str| {
        let src = format!("PTX p {{ {init} }}\n P0@cta 0,gpu 0 ;\n {code} ;\nexists (g == 0)");
        let e = crate::parse(&src).expect_err(code);
        (e.span.line, e.to_string())
    };
    let (line, e) = err(
        "g=0; tm=0; tm @ tensormap g;",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tm, {0}], [s]",
    );
    assert_eq!(line, 3);
    assert!(e.contains("one coordinate per dimension"), "{e}");
    let (_, e) = err(
        "g=0; tm=0; tm @ tensormap g;",
        "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tm], [s]",
    );
    assert!(e.contains("[tensorMap, {c0, ...}]"), "{e}");
    let (_, e) = err(
        "g=0; tm=0; tm @ tensormap g;",
        "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tm, {0}]",
    );
    assert!(e.contains("2 operands"), "{e}");
    let (line, e) = err("g=0; tm @ tensormap g;", "ld.u32 %r0, [g]");
    assert_eq!(line, 1);
    assert!(e.contains("must be declared as a location"), "{e}");
    let (_, e) = err("tm=0; tm @ tensormap g;", "ld.u32 %r0, [g]");
    assert!(e.contains("`g` must be declared before"), "{e}");
    let (_, e) = err("g=0; tm=0; tm @ tensormap g box 0;", "ld.u32 %r0, [g]");
    assert!(e.contains("box"), "{e}");
    let (_, e) = err(
        "g=0; s0=0; b0=0; s @ cluster s0; bar @ cluster b0;",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [s], [g], 4, [bar], 2",
    );
    assert!(e.contains("bit 1 of the ctaMask"), "{e}");
}

/// A coordinate or mask register that the straight-line code before sets
/// from a constant is that constant: the manual's examples check once
/// `tc0`/`tc1` are set; a register read from memory stays unsupported.
#[test]
fn registers_set_from_constants_are_constants() {
    let t = parse(
        "g=0; sMem0=0; sMem3=0; sMem4=0; mbar0=0; tensorMap0=0; tensorMap3=0; tensorMap4=0; tensorMap0 @ tensormap g; tensorMap3 @ tensormap g; tensorMap4 @ tensormap g; t0=0; t1=0; b0=0; b1=0; s @ cluster t0, t1; bar @ cluster b0, b1;",
        concat!(
            " mov.u32 tc0, 8 ;\n",
            " mov.u32 tc1, 0 ;\n",
            " mov.u16 %rs1, 2 ;\n",
            " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.tile  [sMem0], [tensorMap0, {tc0}], [mbar0];\n",
            " cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tensorMap3, {tc0}], [sMem3];\n",
            " cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [tensorMap4, {tc0, tc1}], [sMem4], policy;\n",
            " cp.async.bulk.prefetch.tensor.1d.L2.global.tile  [tensorMap0, {tc0}];\n",
            " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [s], [g], 4, [bar], %rs1 ;\n",
        ),
    );
    assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
    assert_eq!(
        copies(&t),
        [
            (n("sMem0", 0), n("g", 8), Some(n("mbar0", 0)), 4),
            (n("g", 8), n("sMem3", 0), None, 4),
            (n("g", 8), n("sMem4", 0), None, 4),
            (n("t1", 0), n("g", 0), Some(n("b1", 0)), 4),
        ]
    );
    let t = parse(
        "g=0; tm=0; tm @ tensormap g;",
        concat!(
            " ld.global.u32 %r1, [g] ;\n",
            " cp.async.bulk.prefetch.tensor.1d.L2.global [tm, {%r1}] ;\n",
            " mov.u32 %r2, 0 ;\n",
            " L: ;\n",
            " cp.async.bulk.prefetch.tensor.1d.L2.global [tm, {%r2}] ;\n",
        ),
    );
    assert_eq!(t.unsupported.len(), 2, "{:?}", t.unsupported);
    assert!(t.unsupported[0]
        .construct
        .contains("`%r1` is not a constant"));
    // A label: another path may join with another value.
    assert!(t.unsupported[1]
        .construct
        .contains("`%r2` is not a constant"));
}

/// Register-held shared-memory and mbarrier operands resolve as on
/// `cp.async.bulk`: the copies are those of the named form, each after its
/// own `AddrReg`s; `.multicast::cluster` needs names.
#[test]
fn register_held_operands_resolve_as_on_bulk_copies() {
    let init = "g=0; h=0; tm=0; tm @ tensormap g, h; s=0; bar=0;";
    let named = parse(
        init,
        concat!(
            " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [s+8], [tm, {4}], [bar+8] ;\n",
            " cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tm, {0}], [s+4] ;\n",
        ),
    );
    let regs = parse(
        init,
        concat!(
            " mov.u64 %rd1, s ;\n",
            " mov.u64 %rd2, bar ;\n",
            " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1+8], [tm, {4}], [%rd2+8] ;\n",
            " cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tm, {0}], [%rd1+4] ;\n",
        ),
    );
    assert!(regs.unsupported.is_empty(), "{:?}", regs.unsupported);
    assert_eq!(copies(&regs), copies(&named));
    assert_eq!(copies(&regs).len(), 4);
    // Two `AddrReg`s before each load copy, one before each store copy.
    let code = &regs.threads[0].code;
    let before: Vec<usize> = code
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.instr, Instr::Async(AsyncInstr::Copy { .. })))
        .map(|(i, _)| {
            code[..i]
                .iter()
                .rev()
                .take_while(|s| matches!(s.instr, Instr::AddrReg { .. }))
                .count()
        })
        .collect();
    assert_eq!(before, [2, 2, 1, 1]);
    let t = parse(
        "g=0; tm=0; tm @ tensormap g; t0=0; b0=0; s @ cluster t0; bar @ cluster b0;",
        concat!(
            " mov.u64 %rd1, t0 ;\n",
            " cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%rd1], [tm, {0}], [bar], 1 ;\n",
        ),
    );
    assert_eq!(t.unsupported.len(), 1);
    assert!(
        t.unsupported[0]
            .construct
            .contains("register-held destination"),
        "{:?}",
        t.unsupported
    );
}
