//! The printer's round trip on tests whose addresses are interned out of
//! declaration order: locations the initial state does not declare (made on
//! first use), offsets `[x+N]`, threads' copies of `.local` locations.

use crate::ir::{AddrKind, Test};
use crate::{parse, print, strip_spans};

/// Parses `src`, prints it, parses the print: the two tests must be equal
/// (spans aside), and printing again must give the same text.
fn round_trip(src: &str) -> Test {
    let t = parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let printed = print(&t);
    let t2 = parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(t2.symbols, t.symbols, "{printed}");
    assert_eq!(t2.addresses, t.addresses, "{printed}");
    assert_eq!(t2.init_mem, t.init_mem, "{printed}");
    assert_eq!(strip_spans(&t2), strip_spans(&t), "{printed}");
    assert_eq!(print(&t2), printed);
    t
}

/// The name of the base location and the offset of the address named `name`.
fn offset_of(t: &Test, name: &str) -> (String, u32) {
    let a = t.symbols.addrs.iter().position(|n| n == name);
    let a = a.unwrap_or_else(|| panic!("no address `{name}` in {:?}", t.symbols.addrs));
    match t.addresses[a].kind {
        AddrKind::Offset(base, off) => (t.addr_name(base).to_string(), off),
        k => panic!("`{name}` is {k:?}"),
    }
}

#[test]
fn offset_before_an_undeclared_location_keeps_its_ids() {
    let t = round_trip(
        "PTX t\n{ x=0; }\n P0@cta 0,gpu 0   | P1@cta 0,gpu 0 ;\n st.weak [g+8], 1 | ld.weak r1, x  ;\n ld.weak r0, h    | st.weak x, 1   ;\nexists (P0:r0 == 0)",
    );
    // The plain locations first (as the printer declares them), offsets after.
    assert_eq!(t.symbols.addrs, ["x", "g", "h", "g+8"]);
    assert_eq!(offset_of(&t, "g+8"), ("g".to_string(), 8));
    // The store is to `g+8`, the load from `h`.
    let names: Vec<&str> = t.threads[0]
        .code
        .iter()
        .filter_map(|s| s.instr.address(crate::ir::AddrOperand::Target))
        .map(|a| t.addr_name(a))
        .collect();
    assert_eq!(names, ["g+8", "h"]);
}

#[test]
fn offsets_in_rows_that_the_print_moves_keep_their_ids() {
    // `nanosleep` leaves no statement, so P1's later rows move up one in
    // the print: `[b+4]` is then met before `[a+4]`, where it was after.
    let t = round_trip(
        "PTX t\n{ a=0; b=0; }\n P0@cta 0,gpu 0   | P1@cta 0,gpu 0   ;\n st.weak a, 1     | nanosleep.u32 0  ;\n st.weak [a+4], 1 | st.weak [b+4], 1 ;\nexists (a == 0)",
    );
    assert_eq!(t.symbols.addrs, ["a", "b", "a+4", "b+4"]);
}

#[test]
fn register_held_offsets_and_condition_locations_keep_their_ids() {
    // `x+4` is made when the register-held address is resolved, after the
    // thread table, and `z` by the condition, after that.
    let t = round_trip(
        "PTX t\n{ x=0; }\n P0@cta 0,gpu 0     ;\n mov.u64 %rd1, x    ;\n st.u32 [%rd1+4], 1 ;\n st.weak [y+2], 1   ;\n st.weak w, 1       ;\nexists (z == 0)",
    );
    assert_eq!(offset_of(&t, "x+4"), ("x".to_string(), 4));
    assert_eq!(offset_of(&t, "y+2"), ("y".to_string(), 2));
}

#[test]
fn local_copies_before_an_undeclared_location_keep_their_ids() {
    let t = round_trip(
        "PTX t\n{ l @ local = 3; }\n P0@cta 0,gpu 0         | P1@cta 0,gpu 0     ;\n st.local.u32 [l+4], 1  | ld.local.u32 %r0, [l] ;\n st.weak h, 1           | st.weak k, 2       ;\nexists (h == 1)",
    );
    let copies: Vec<(usize, u32)> = t
        .addresses
        .iter()
        .filter_map(|a| match a.kind {
            AddrKind::LocalCopy(l, th) => Some((l.index(), th.0)),
            _ => None,
        })
        .collect();
    assert_eq!(copies, [(0, 0), (0, 1)]);
    // Each copy has a location of its own, with `l`'s initial value.
    let copy = t.symbols.addrs.iter().position(|n| n == "l@P1");
    let phys = t.addresses[copy.expect("P1's copy")].phys;
    assert_eq!(t.init_mem[phys.index()], 3);
}

#[test]
fn multimem_declarations_keep_their_locations() {
    // The instructions on `mc` are lowered when parsed; one left
    // unsupported is printed as written, and reads back the same only when
    // `mc`'s locations are printed with it (8.2.3).
    let src = "PTX t\n{ x=1; y=2; z=3; mc @ multimem x, y, z; nm @ multimem; }\n P0@cta 0,gpu 0 ;\n multimem.st.relaxed.sys.global.u32 [mc], 3 ;\n multimem.ld_reduce.relaxed.sys.global.add.u32 %r0, [mc] ;\n multimem.cp.async.bulk.global.shared::cta [mc], [x], 4 ;\nexists (P0:r0 == 9)";
    let t = round_trip(src);
    let printed = print(&t);
    assert!(printed.contains("mc @ multimem x, y, z;\n"), "{printed}");
    assert!(printed.contains("nm @ multimem;\n"), "{printed}");
    let names: Vec<(&str, Vec<&str>)> = t
        .multimem
        .iter()
        .map(|(mc, ms)| {
            (
                t.addr_name(*mc),
                ms.iter().map(|&m| t.addr_name(m)).collect(),
            )
        })
        .collect();
    assert_eq!(names, [("mc", vec!["x", "y", "z"]), ("nm", vec![])]);
    assert_eq!(t.unsupported.len(), 1, "{:?}", t.unsupported);
}
