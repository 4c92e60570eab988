//! `explain --outcome`: the proposition given on the command line, parsed by
//! the frontend's condition parser ([`ptxmc_frontend::parse_prop`]) against
//! the test's names. This module only turns its error into one line that
//! names the column.

use ptxmc_frontend::ir::{Prop, Test};

/// Parses `s` as a proposition over `test`'s final values; the error is
/// `column N: message`.
pub fn parse(s: &str, test: &Test) -> Result<Prop, String> {
    ptxmc_frontend::parse_prop(s, test).map_err(|e| format!("column {}: {}", e.span.col, e.kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP: &str = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.weak %r1, x ;\n~exists (1:r0 == 1 /\\ 1:r1 == 0)\n";

    #[test]
    fn parses_what_conditions_say() {
        let t = ptxmc_frontend::parse(MP).expect("parses");
        let p = parse("P1:r0 == 1 /\\ 1:%r1 = 0", &t).expect("parses");
        assert_eq!(p, t.condition.prop);
        assert!(parse("~(x == 1) \\/ [y] != -2 /\\ true", &t).is_ok());
        for bad in [
            "P2:r0 == 1",
            "P1:r9 == 1",
            "z == 1",
            "1:r0 ==",
            "(1:r0 == 1",
            "1:r0 == 1 )",
            "1:r0 == 1 #",
            "",
        ] {
            assert!(parse(bad, &t).is_err(), "{bad}");
        }
        let e = parse("1:r0 == 1 /\\ P1:r9 == 1", &t).expect_err("no r9");
        assert!(e.starts_with("column 17:") && e.contains("`r9`"), "{e}");
        let e = parse("zz == 1", &t).expect_err("no zz");
        assert!(e.starts_with("column 1:") && e.contains("`zz`"), "{e}");
        let deep = format!("{}x == 1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse(&deep, &t).is_err());
    }
}
