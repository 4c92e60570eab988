//! Tests of the size analysis: granules, slices, races, refusals.

use super::*;
use crate::report::Report;
use crate::report::{Options, Status, Strategy};

/// The report of `src` under both explorers, which must agree (status,
/// states, executions).
pub(super) fn both(src: &str) -> Report {
    let t = ptxmc_frontend::parse(src).expect("parses");
    let b = crate::check(
        &t,
        &Options {
            strategy: Strategy::Brute,
            ..Options::default()
        },
    );
    let d = crate::check(&t, &Options::default());
    assert_eq!(b.status, d.status);
    assert_eq!(b.states, d.states);
    assert_eq!(b.stats.executions, d.stats.executions);
    d
}

const HEAD: &str = "PTX t\n{ x=0x04030201; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n";

#[test]
fn uniform_sizes_are_not_rewritten() {
    let t = ptxmc_frontend::parse(&format!(
        "{HEAD} st.global.u32 [x], 1 | ld.global.u32 %r0, [x] ;\nexists (1:r0 == 1)"
    ))
    .expect("parses");
    let p = prepare(&t).expect("supported");
    assert!(p.test.is_none() && p.info.is_none() && p.map.is_none());
}

#[test]
fn partial_overlap_race_is_undefined_and_names_both_lines() {
    let r = both(&format!(
        "{HEAD} st.global.u32 [x], 1 | ld.global.u8 %r0, [x+1] ;\nexists (1:r0 == 3)"
    ));
    assert_eq!(
        r.status,
        Status::Undefined(
            "mixed-size data race on x between 4:2 and 4:25 (8.7.2: partially overlapping, not ordered by causality)"
                .into()
        )
    );
}

#[test]
fn ordered_partial_overlap_reads_the_right_bytes() {
    let r = both(
        "PTX t\n{ x=0x04030201; }\n P0@cta 0,gpu 0 ;\n st.global.u16 [x+2], 0x0605 ;\n ld.global.u32 %r0, [x] ;\n ld.global.u8 %r1, [x+3] ;\nforall (0:r0 == 0x06050201 /\\ 0:r1 == 6 /\\ x == 0x06050201)",
    );
    assert_eq!(r.status, Status::Ok);
    assert!(r.condition_holds, "{:?}", r.states);
}

#[test]
fn reads_only_never_race() {
    let r = both(&format!(
        "{HEAD} ld.global.u32 %r1, [x] | ld.global.u16 %r0, [x+2] ;\nforall (1:r0 == 0x0403 /\\ 0:r1 == 0x04030201)"
    ));
    assert_eq!(r.status, Status::Ok);
    assert!(r.condition_holds);
}

#[test]
fn what_cannot_be_split_is_unsupported() {
    for (code, what) in [
        (
            "atom.global.add.u32 %r0, [x], 1 | ld.global.u16 %r1, [x]",
            "atomic `add`",
        ),
        (
            "st.mmio.relaxed.sys.global.u32 [x], 1 | ld.global.u16 %r1, [x]",
            "`.mmio`",
        ),
        (
            "st.global.u32 [x], 1 | ld.weak %r1, x",
            "mixed-size accesses to x",
        ),
    ] {
        let t =
            ptxmc_frontend::parse(&format!("{HEAD} {code} ;\nexists (1:r1 == 0)")).expect("parses");
        let m = prepare(&t).err().unwrap_or_default();
        assert!(m.contains(what), "{code}: {m}");
    }
}

#[test]
fn multimem_access_is_undefined() {
    let r = both(
        "PTX t\n{ mc @ multimem; }\n P0@cta 0,gpu 0 ;\n ld.global.u32 %r0, [mc] ;\nexists (0:r0 == 0)",
    );
    assert_eq!(
        r.status,
        Status::Undefined("non-multimem access to the multimem address mc at 4:2 (8.2.3)".into())
    );
}

#[test]
fn granules_cut_at_every_boundary() {
    assert_eq!(granules(&[(0, 4), (2, 4)]), vec![(0, 2), (2, 4)]);
    assert_eq!(granules(&[(0, 4), (4, 8)]), vec![(0, 4), (4, 8)]);
    assert_eq!(
        granules(&[(0, 8), (2, 6), (4, 8)]),
        vec![(0, 2), (2, 4), (4, 6), (6, 8)]
    );
    assert_eq!(granules(&[(0, 1), (4, 5)]), vec![(0, 1), (4, 5)]);
}

#[test]
fn slices_are_little_endian() {
    assert_eq!(slice(0x0102_0304, 0, 2), 0x0304);
    assert_eq!(slice(0x0102_0304, 2, 2), 0x0102);
    assert_eq!(slice(-1, 9, 1), 0xff);
    assert_eq!(slice(5, 4, 4), 0);
}
