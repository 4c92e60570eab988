//! The instruction examples printed in chapter 8 (8.8), from
//! `tests/data/ch8-examples.txt`: every completed form parses with nothing
//! unsupported and is checked to the end (status `ok`), and every form as
//! printed either parses or is refused with an error positioned at the
//! instruction (the chapter writes them schematically, without scopes or
//! operands that PTX requires). The PTX ISA's instruction descriptions, with
//! their own examples, are not in `../shared/spec`.

use ptxmc_checker::{check, Options, Status};

/// The litmus test with `instr` as the one instruction of one thread, on
/// line 9.
fn litmus(instr: &str) -> String {
    format!(
        "PTX example\n{{\nM=0;\ndst=0;\nsrc=0;\nbarrier=0;\n}}\n P0@cta 0,cluster 0,gpu 0 ;\n {instr} ;\nexists (M == 0)\n"
    )
}

/// (section, as printed, completed) for each example of the fixture.
fn examples() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ch8-examples.txt"),
    )
    .expect("tests/data/ch8-examples.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (section, rest) = l
                .split_once(" | ")
                .expect("`section | printed => completed`");
            let (printed, completed) = rest.split_once(" => ").expect("`printed => completed`");
            (section.into(), printed.into(), completed.into())
        })
        .collect()
}

#[test]
fn completed_chapter_8_examples_parse_and_check() {
    let ex = examples();
    assert!(ex.len() >= 17, "{} examples", ex.len());
    for (section, _, completed) in &ex {
        let t = ptxmc_frontend::parse(&litmus(completed))
            .unwrap_or_else(|e| panic!("{section}: `{completed}`: {e}"));
        assert!(
            t.unsupported.is_empty(),
            "{section}: `{completed}`: {:?}",
            t.unsupported
        );
        let r = check(&t, &Options::default());
        assert_eq!(r.status, Status::Ok, "{section}: `{completed}`");
    }
}

#[test]
fn printed_chapter_8_examples_parse_or_get_a_positioned_error() {
    let mut refused = 0;
    for (section, printed, _) in examples() {
        match ptxmc_frontend::parse(&litmus(&printed)) {
            Ok(t) => assert!(t.unsupported.is_empty(), "{section}: `{printed}`"),
            Err(e) => {
                refused += 1;
                assert_eq!(e.span.line, 9, "{section}: `{printed}`: {e}");
                assert!(e.span.col >= 2, "{section}: `{printed}`: {e}");
            }
        }
    }
    // Only `red.add [M], 1` is complete as printed (red's defaults: .relaxed, .gpu).
    assert_eq!(refused, 16);
}
