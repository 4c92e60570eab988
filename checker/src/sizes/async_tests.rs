//! Tests of offsets on the operands of copies and mbarriers: the bytes a copy
//! moves, the cuts it carries, mbarrier objects at offsets, refusals.

use super::*;
use crate::report::{Report, Status};
use ptxmc_frontend::ir::AddrOperand;

/// The report of `src` under both explorers, which must agree
/// ([`super::tests::both`]), for a test with nothing unsupported.
fn both(src: &str) -> Report {
    let t = ptxmc_frontend::parse(src).expect("parses");
    assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
    super::tests::both(src)
}

fn one_thread(init: &str, code: &str, cond: &str) -> String {
    format!("PTX t\n{{ {init} }}\n P0@cta 0,gpu 0 ;\n{code}{cond}")
}

/// The granules each original location is cut into.
fn granules_of(src: &str) -> Vec<(String, Vec<(u32, u32)>)> {
    let t = ptxmc_frontend::parse(src).expect("parses");
    let p = prepare(&t).expect("supported");
    let lowered = p.test.expect("rewritten");
    let mut out: Vec<(String, Vec<(u32, u32)>)> = Vec::new();
    for name in &lowered.symbols.addrs {
        let Some((base, range)) = name.split_once('[') else {
            continue;
        };
        let (s, e) = range
            .trim_end_matches(']')
            .split_once("..")
            .expect("a granule name");
        let g = (s.parse().expect("start"), e.parse().expect("end"));
        match out.iter_mut().find(|(n, _)| n == base) {
            Some((_, v)) => v.push(g),
            None => out.push((base.to_string(), vec![g])),
        }
    }
    out
}

#[test]
fn a_copy_moves_the_bytes_at_its_offsets() {
    let r = both(&one_thread(
        "g=0x0807060504030201; s=0;",
        " ld.global.u32 %r9, [g] ;\n cp.async.ca.shared.global [s+16], [g+2], 4 ;\n cp.async.wait_all ;\n ld.shared.u32 %r1, [s+16] ;\n ld.shared.u32 %r2, [s] ;\n ld.shared.u8 %r3, [s+19] ;\n",
        "forall (0:r1 == 0x06050403 /\\ 0:r2 == 0 /\\ 0:r3 == 6)",
    ));
    assert_eq!(r.status, Status::Ok);
    assert!(r.condition_holds, "{:?}", r.states);
}

/// A cut of the source inside the copied bytes is carried to the
/// destination and back, so that each part moves one granule.
#[test]
fn copies_carry_cuts_between_locations() {
    let src = one_thread(
        "g=0; s=0; t=0;",
        " ld.global.u16 %r0, [g+2] ;\n cp.async.ca.shared.global [s+8], [g], 4 ;\n cp.async.ca.shared.global [t], [s+8], 4 ;\n ld.shared.u32 %r1, [t] ;\n",
        "exists (0:r1 == 0)",
    );
    assert_eq!(
        granules_of(&src),
        [
            ("g".to_string(), vec![(0, 2), (2, 4)]),
            ("s".to_string(), vec![(8, 10), (10, 12)]),
            ("t".to_string(), vec![(0, 2), (2, 4)]),
        ]
    );
}

/// 8.2.4: copies of more than 8 bytes on a split location move parts of at
/// most 8 bytes (here bytes 4..16 of the source would otherwise be one part
/// of 12 bytes, wider than a value).
#[test]
fn long_copies_move_eight_byte_parts() {
    let src = one_thread(
        "g=0x0102030405060708; s=0;",
        " cp.async.ca.shared.global [s+8], [g], 16 ;\n cp.async.wait_all ;\n ld.shared.u32 %r1, [s+8] ;\n",
        "forall (0:r1 == 0x05060708)",
    );
    let r = both(&src);
    assert!(r.condition_holds, "{:?}", r.states);
    assert_eq!(
        granules_of(&src),
        [
            ("g".to_string(), vec![(0, 4), (4, 8), (8, 16)]),
            ("s".to_string(), vec![(8, 12), (12, 16), (16, 24)]),
        ]
    );
}

#[test]
fn mbarriers_at_two_offsets_are_two_objects() {
    let r = both(&one_thread(
        "bar=0;",
        " mbarrier.init.shared::cta.b64 [bar], 1 ;\n mbarrier.init.shared::cta.b64 [bar+8], 1 ;\n mbarrier.arrive.shared::cta.b64 _, [bar+8] ;\n mbarrier.test_wait.parity.shared::cta.b64 %p, [bar], 0 ;\n mbarrier.test_wait.parity.shared::cta.b64 %q, [bar+8], 0 ;\n",
        "forall (0:p == 0 /\\ 0:q == 1)",
    ));
    assert!(r.condition_holds, "{:?}", r.states);
}

#[test]
fn a_misaligned_mbarrier_is_undefined_when_it_runs() {
    let r = both(&one_thread(
        "bar=0; x=0;",
        " ld.global.u32 %r0, [x] ;\n bne %r0, 1, END ;\n mbarrier.init.shared::cta.b64 [bar+12], 1 ;\n END: ;\n",
        "exists (0:r0 == 0)",
    ));
    assert_eq!(r.status, Status::Ok, "not reached: defined");
    let r = both(&one_thread(
        "bar=0;",
        " mbarrier.init.shared::cta.b64 [bar+12], 1 ;\n",
        "exists (bar == 0)",
    ));
    assert_eq!(
        r.status,
        Status::Undefined(
            "misaligned mbarrier object [bar+12] at 4:2 (an mbarrier object is 8-byte aligned)"
                .into()
        )
    );
}

/// `.noComplete` (instruction descriptions): an execution whose
/// arrive-on completes the phase is undefined, one that leaves arrivals
/// pending is not; on a rewritten test (mbarriers at offsets of one array)
/// the hazard follows the instruction to its rewritten statement.
#[test]
fn a_no_complete_arrival_is_undefined_when_it_completes_the_phase() {
    let code = |n: u32| {
        format!(" mbarrier.init.shared::cta.b64 [bar], 2 ;\n mbarrier.init.shared::cta.b64 [bar+8], 2 ;\n mbarrier.arrive.noComplete.shared::cta.b64 _, [bar], 1 ;\n mbarrier.arrive_drop.noComplete.shared::cta.b64 _, [bar+8], {n} ;\n")
    };
    let r = both(&one_thread("bar=0;", &code(1), "exists (bar == 0)"));
    assert_eq!(r.status, Status::Ok);
    let r = both(&one_thread("bar=0;", &code(2), "exists (bar == 0)"));
    assert_eq!(
        r.status,
        Status::Undefined(
            "mbarrier.arrive_drop.noComplete at 7:2 completes the current phase (undefined: the instruction description)"
                .into()
        )
    );
    // Not rewritten: the same check on the original statements.
    let src = one_thread(
        "bar=0;",
        " mbarrier.init.shared::cta.b64 [bar], 1 ;\n mbarrier.arrive.noComplete.shared::cta.b64 _, [bar], 1 ;\n",
        "exists (bar == 0)",
    );
    let p = prepare(&ptxmc_frontend::parse(&src).expect("parses")).expect("supported");
    assert!(p.test.is_none() && p.info.is_some());
    assert!(matches!(both(&src).status, Status::Undefined(_)));
}

#[test]
fn what_cannot_be_cut_is_unsupported() {
    for (init, code, what) in [
        (
            "s=0; g=0;",
            " cp.async.ca.shared.global [s+2], [s], 4 ;\n",
            "source and destination overlap",
        ),
        (
            "s=0; g=0;",
            " cp.async.ca.shared.global [s+4], [g], 4 ;\n st.weak s, 1 ;\n",
            "address offset on s, a location accessed untyped",
        ),
        (
            "s=0; g=0;",
            " cp.async.ca.shared.global [s], [g], 4 ;\n st.weak g, 1 ;\n ld.shared.u16 %r1, [s+2] ;\n",
            "mixed-size accesses to g (a copy moves a part of it)",
        ),
        (
            "bar=0;",
            " mbarrier.init.shared::cta.b64 [bar], 1 ;\n ld.shared.u32 %r1, [bar+4] ;\n",
            "an mbarrier object cut into parts",
        ),
        (
            "s=0; g=0;",
            " cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [g], [s], 4 ;\n ld.global.u16 %r1, [g+2] ;\n",
            "split into 2 parts",
        ),
    ] {
        let t = ptxmc_frontend::parse(&one_thread(init, code, "exists (s == 0)")).expect("parses");
        let m = prepare(&t).err().unwrap_or_default();
        assert!(m.contains(what), "{code}: {m}");
    }
}

/// A reduction whose destination is cut between the elements of its type
/// reduces each part on its own, which is the element-wise reduction
/// (`ir::Elementwise`): lowered, and no carry crosses the cut. One cut
/// inside an element (a `.u64` element cut at byte 4) is still refused.
#[test]
fn a_reduction_cut_between_its_elements_is_lowered() {
    let code = |ty: &str| {
        format!(" cp.reduce.async.bulk.global.shared::cta.bulk_group.add.{ty} [g], [s], 8 ;\n cp.async.bulk.commit_group ;\n cp.async.bulk.wait_group 0 ;\n fence.proxy.async.global ;\n ld.global.u32 %r1, [g+4] ;\n")
    };
    let src = one_thread(
        "s=1; g=0xffffffff;",
        &code("u32"),
        "forall (0:r1 == 0 /\\ g == 0)",
    );
    // The copy carries the cut to its source too.
    let cut = vec![(0, 4), (4, 8)];
    assert_eq!(
        granules_of(&src),
        [("s".to_string(), cut.clone()), ("g".to_string(), cut)]
    );
    let r = both(&src);
    assert_eq!(r.status, Status::Ok);
    assert_eq!(r.verdict(), Some(true));
    let t = ptxmc_frontend::parse(&one_thread(
        "s=1; g=0xffffffff;",
        &code("u64"),
        "exists (g == 0)",
    ))
    .expect("parses");
    let m = prepare(&t).err().unwrap_or_default();
    assert!(m.contains("split into 2 parts"), "{m}");
}

/// Copies and mbarriers at offset 0 of locations accessed at one size are
/// not rewritten (as before offsets were read).
#[test]
fn uniform_async_tests_are_not_rewritten() {
    let t = ptxmc_frontend::parse(&one_thread(
        "g=42; s=0; bar=0;",
        " mbarrier.init.shared::cta.b64 [bar], 1 ;\n cp.async.ca.shared.global [s], [g], 4 ;\n cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar] ;\n ld.shared.u32 %r1, [s] ;\n st.weak g, 1 ;\n",
        "exists (s == 0)",
    ))
    .expect("parses");
    let p = prepare(&t).expect("supported");
    assert!(p.test.is_none() && p.info.is_none());
}

/// A copy through registers on a location cut into granules: every part
/// keeps the address dependencies of the copy (8.10.4), through copies of
/// the address registers (a part may not lose them, nor read a register a
/// part overwrote).
#[test]
fn every_part_of_a_split_copy_keeps_its_address_registers() {
    let src = one_thread(
        "g=0; s=0;",
        " ld.global.u16 %r0, [g+2] ;\n mov.u64 %rd1, s ;\n mov.u64 %rd2, g ;\n cp.async.ca.shared.global [%rd1], [%rd2], 4 ;\n cp.async.wait_all ;\n ld.shared.u32 %r1, [s] ;\n",
        "forall (0:r1 == 0)",
    );
    let t = ptxmc_frontend::parse(&src).expect("parses");
    let lowered = prepare(&t).expect("supported").test.expect("rewritten");
    let code = &lowered.threads[0].code;
    let parts: Vec<usize> = code
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.instr, Instr::Async(AsyncInstr::Copy { .. })))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(parts.len(), 2, "{code:?}");
    let mut from = 0;
    for &p in &parts {
        let regs: Vec<_> = code[from..p]
            .iter()
            .filter_map(|s| match s.instr {
                Instr::AddrReg { operand, reg, .. } => Some((operand, reg.index())),
                _ => None,
            })
            .collect();
        // Copies of the registers (`%rd1`, `%rd2` are 1 and 2), not the
        // registers themselves.
        assert_eq!(
            regs,
            [(AddrOperand::Target, 4), (AddrOperand::Source, 5)],
            "{code:?}"
        );
        from = p;
    }
    let r = both(&src);
    assert_eq!(r.status, Status::Ok);
    assert!(r.condition_holds, "{:?}", r.states);
}
