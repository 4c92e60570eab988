//! Tests of the resolution of register-held addresses.

use crate::ir::{Instr, Test};

fn parse(body: &str, init: &str) -> Result<Test, String> {
    let src = format!("PTX t\n{{ {init} }}\n P0@cta 0,gpu 0,tid 1 ;\n{body}\nexists (x == 0)\n");
    crate::parse(&src).map_err(|e| e.to_string())
}

fn addr_names(t: &Test) -> Vec<String> {
    t.threads[0]
        .code
        .iter()
        .filter_map(|s| match &s.instr {
            Instr::Load { addr, .. } | Instr::Store { addr, .. } | Instr::Rmw { addr, .. } => {
                Some(t.addr_name(*addr).to_string())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn constants_names_and_offsets_resolve() {
    let t = parse(
        " mov.u64 %rd1, x ;\n st.u32 [%rd1], 1 ;\n add.s64 %rd2, %rd1, 8 ;\n st.u32 [%rd2+4], 2 ;\n mov.u32 %r1, %tid.x ;\n mul.wide.u32 %rd3, %r1, 4 ;\n add.s64 %rd4, %rd1, %rd3 ;\n ld.u32 %r2, [%rd4] ;",
        "x=0;",
    )
    .unwrap();
    assert_eq!(addr_names(&t), ["x", "x+12", "x+4"]);
}

#[test]
fn a_fake_dependency_keeps_the_address() {
    let t = parse(
        " ld.u32 %r1, [y] ;\n xor.b32 %r2, %r1, %r1 ;\n cvt.u64.u32 %rd2, %r2 ;\n mov.u64 %rd1, x ;\n add.s64 %rd3, %rd1, %rd2 ;\n st.u32 [%rd3], 1 ;",
        "x=0; y=0;",
    )
    .unwrap();
    assert_eq!(addr_names(&t), ["y", "x"]);
    assert!(t.threads[0]
        .code
        .iter()
        .any(|s| matches!(s.instr, Instr::AddrReg { .. })));
}

#[test]
fn a_loop_keeps_a_constant_address() {
    let t = parse(
        " mov.u64 %rd1, x ;\n L: ;\n ld.u32 %r1, [%rd1] ;\n setp.eq.u32 %p1, %r1, 0 ;\n @%p1 bra L ;",
        "x=0;",
    )
    .unwrap();
    assert_eq!(addr_names(&t), ["x"]);
}

#[test]
fn unresolvable_addresses_are_errors() {
    let e = parse(" ld.u64 %rd1, [y] ;\n st.u32 [%rd1], 1 ;", "x=0; y=0;").unwrap_err();
    assert!(
        e.starts_with("5:9:") && e.contains("not one of at most 64 addresses"),
        "{e}"
    );
    let e = parse(" st.u32 [%rd1], 1 ;", "x=0;").unwrap_err();
    assert!(e.contains("the number 0"), "{e}");
    // A choice between a location and a number is no location.
    let e = parse(
        " ld.u32 %r1, [x] ;\n mov.u64 %rd1, x ;\n setp.eq.u32 %p1, %r1, 0 ;\n @%p1 mov.u64 %rd1, 8 ;\n st.u32 [%rd1], 1 ;",
        "x=0; y=0;",
    )
    .unwrap_err();
    assert!(e.starts_with("8:9:") && e.contains("the number 8"), "{e}");
}

const CHOICE: &str = " ld.u32 %r1, [x] ;\n mov.u64 %rd1, x ;\n setp.eq.u32 %p1, %r1, 0 ;\n @%p1 mov.u64 %rd1, y ;\n st.u32 [%rd1+4], 1 ;\n ld.u32 %r2, [%rd1+4] ;";

#[test]
fn an_address_chosen_between_locations_is_a_dispatch() {
    let t = parse(CHOICE, "x=0; y=0;").unwrap();
    // The store and the load each become one access per location.
    assert_eq!(addr_names(&t), ["x", "x+4", "y+4", "x+4", "y+4"]);
    let code = &t.threads[0].code;
    let bne = code
        .iter()
        .filter(|s| {
            matches!(
                s.instr,
                Instr::Branch {
                    cmp: crate::ir::CmpOp::Ne,
                    b: crate::ir::Operand::Imm(_),
                    ..
                }
            )
        })
        .count();
    assert!(bne >= 2, "{code:?}");
    // Every access through the register keeps its address dependency.
    let addr_regs = code
        .iter()
        .filter(|s| matches!(s.instr, Instr::AddrReg { .. }))
        .count();
    assert_eq!(addr_regs, 4);
}

#[test]
fn a_dispatch_reads_back_to_itself() {
    let t = parse(CHOICE, "x=0; y=0;").unwrap();
    let printed = crate::print(&t);
    let again = crate::parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(
        again.threads[0].code.len(),
        t.threads[0].code.len(),
        "{printed}"
    );
    assert_eq!(addr_names(&again), addr_names(&t));
}

#[test]
fn an_array_walk_resolves_per_path() {
    // Sum x[0..3] through a stepped register; the trip count is a constant.
    let walk = " mov.u64 %rd1, x ;\n mov.u32 %r1, 3 ;\n L: ;\n ld.u32 %r2, [%rd1] ;\n add.s64 %rd1, %rd1, 4 ;\n add.s32 %r1, %r1, -1 ;\n setp.ne.s32 %p1, %r1, 0 ;\n @%p1 bra L ;";
    let t = parse(walk, "x=0;").unwrap();
    assert_eq!(addr_names(&t), ["x", "x+4", "x+8"]);
    // Bounded by a value read from memory: no finite set of addresses.
    let unbounded = walk.replace("mov.u32 %r1, 3", "ld.u32 %r1, [y]");
    let e = parse(&unbounded, "x=0; y=0;").unwrap_err();
    assert!(e.contains("not one of at most 64 addresses"), "{e}");
}

#[test]
fn code_the_placement_never_runs_needs_no_address() {
    // tid is 1: the guarded-off path would compute `x - 4`, no location.
    let t = parse(
        " mov.u32 %r1, %tid.x ;\n setp.ne.u32 %p1, %r1, 0 ;\n mov.u64 %rd1, x ;\n @%p1 bra L ;\n add.s64 %rd1, %rd1, -4 ;\n st.u32 [%rd1], 1 ;\n L: ;\n st.u32 [%rd1], 2 ;",
        "x=0;",
    )
    .unwrap();
    assert_eq!(addr_names(&t), ["x"]);
}

/// An address computed past the 32-bit signed offset range (PTX ISA 6.4.1)
/// is an out-of-range error at the operand, naming the location and the
/// offset, whichever location follows it; the largest offset resolves, and
/// an address below a location is still bytes before it.
#[test]
fn a_computed_offset_past_the_range_is_out_of_range() {
    let body = |add: &str| {
        format!(" mov.u64 %rd1, x ;\n add.u64 %rd1, %rd1, {add} ;\n st.u32 [%rd1], 1 ;")
    };
    for init in ["x=0;", "x=0; y=0;"] {
        let e = parse(&body("2147483648"), init).unwrap_err();
        assert!(
            e.starts_with("6:9:")
                && e.contains("it is `x` + 2147483648, an offset out of range")
                && e.contains("2147483647")
                && !e.contains("before"),
            "{e}"
        );
    }
    // Through the written offset too, and far past the range.
    let src = " mov.u64 %rd1, x ;\n add.u64 %rd1, %rd1, 2147483644 ;\n st.u32 [%rd1+4], 1 ;";
    let e = parse(src, "x=0; y=0;").unwrap_err();
    assert!(
        e.contains("`[%rd1+4]`") && e.contains("`x` + 2147483648"),
        "{e}"
    );
    let e = parse(&body("4294967296"), "x=0; y=0;").unwrap_err();
    assert!(
        e.contains("`x` + 4294967296, an offset out of range"),
        "{e}"
    );
    let t = parse(&body("2147483647"), "x=0; y=0;").unwrap();
    assert_eq!(addr_names(&t), ["x+2147483647"]);
    let e = parse(&body("-8"), "y=0; x=0;").unwrap_err();
    assert!(e.contains("8 bytes before `x`"), "{e}");
}
