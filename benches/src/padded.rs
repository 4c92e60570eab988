//! Families padded with private operations: each thread of a family of
//! [`ptxmc_frontend::families`] first makes `pad` accesses to a location of
//! its own (`p<thread>`), then runs the family's code. The executions and
//! final states of the shared part are those of the family (private
//! accesses read the thread's own last store, 8.10.6), while the graphs grow
//! by `pad` events per thread: what the cost per execution across 64 events
//! (the one-word rows of `model::fast`) is measured on (issue 14).

use ptxmc_frontend::ir::Test;

/// What each padding access is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pad {
    /// `st.weak p, k`.
    Stores,
    /// `ld.weak r9, p`.
    Loads,
    /// Alternating stores and loads, starting with a store.
    Both,
}

impl Pad {
    /// The name used on command lines and in benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Pad::Stores => "stores",
            Pad::Loads => "loads",
            Pad::Both => "both",
        }
    }

    /// The padding named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        [Pad::Stores, Pad::Loads, Pad::Both]
            .into_iter()
            .find(|p| p.name() == name)
    }

    fn access(self, k: usize, loc: &str) -> String {
        match (self, k % 2) {
            (Pad::Stores, _) | (Pad::Both, 0) => format!("st.weak {loc}, {}", k % 5 + 1),
            _ => format!("ld.weak r9, {loc}"),
        }
    }
}

/// The litmus text of family `name` at size `n`, each thread padded with
/// `pad` private accesses; `None` for an unknown family.
pub fn padded_source(name: &str, n: usize, pad: usize, kind: Pad) -> Option<String> {
    let text = ptxmc_frontend::families::generate(name, n, "gpu")?;
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with("P0@"))?;
    let threads = lines[header].split('|').count();
    let close = lines[..header].iter().rposition(|l| l.trim() == "}")?;
    let mut out: Vec<String> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            out.push(format!("{l}-pad{pad}-{}", kind.name()));
            continue;
        }
        if i == close {
            out.extend((0..threads).map(|t| format!("p{t}=0;")));
        }
        out.push((*l).to_string());
        if i == header {
            for k in 0..pad {
                let row: Vec<String> = (0..threads)
                    .map(|t| kind.access(k, &format!("p{t}")))
                    .collect();
                out.push(format!(" {} ;", row.join(" | ")));
            }
        }
    }
    Some(out.join("\n") + "\n")
}

/// [`padded_source`], parsed.
pub fn padded_test(name: &str, n: usize, pad: usize, kind: Pad) -> Test {
    let text = padded_source(name, n, pad, kind).unwrap_or_else(|| panic!("unknown family {name}"));
    ptxmc_frontend::parse(&text).unwrap_or_else(|e| panic!("{name}-{n} padded does not parse: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxmc_checker::{check, Options};

    /// Across the widenings of the rows (61, 66 and 131 events for
    /// writers-3; 64, 72 and 136 for sb-8), padding changes neither the
    /// executions nor the graphs pruned (issue 14: pruning does not switch
    /// off past 64 events).
    #[test]
    fn pruned_counts_do_not_jump_past_64_events() {
        for (name, n, pads) in [("writers", 3, [10, 11, 24]), ("sb", 8, [4, 5, 13])] {
            let plain = check(&crate::family_test(name, n), &Options::default());
            for pad in pads {
                for kind in [Pad::Stores, Pad::Loads, Pad::Both] {
                    let r = check(&padded_test(name, n, pad, kind), &Options::default());
                    let case = format!("{name}-{n}-pad{pad}-{}", kind.name());
                    assert_eq!(r.stats.executions, plain.stats.executions, "{case}");
                    assert_eq!(r.stats.pruned, plain.stats.pruned, "{case}");
                    assert_eq!(r.states.len(), plain.states.len(), "{case}");
                }
            }
        }
    }

    /// Padding changes the graphs, not the executions or the states.
    #[test]
    fn padding_keeps_the_family_outcomes() {
        let plain = check(&crate::family_test("writers", 2), &Options::default());
        for kind in [Pad::Stores, Pad::Loads, Pad::Both] {
            let r = check(&padded_test("writers", 2, 3, kind), &Options::default());
            assert_eq!(r.status, plain.status, "{kind:?}");
            assert_eq!(r.stats.executions, plain.stats.executions, "{kind:?}");
            assert_eq!(r.states.len(), plain.states.len(), "{kind:?}");
        }
    }
}
