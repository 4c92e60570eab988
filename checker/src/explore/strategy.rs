//! The explorer registry: every strategy is one [`Explorer`] behind one
//! line of [`REGISTRY`], and its name is spelled there only. The CLI
//! (parsing, help), `ptxmc bench` and the JSON output take names and
//! descriptions from [`Strategy::ALL`], [`Strategy::name`],
//! [`Strategy::about`] and `Strategy::from_str`.
//!
//! Adding a strategy: a module with a unit struct implementing [`Explorer`],
//! a variant of [`Strategy`], its line in [`Strategy::explorer`] and its place
//! in [`Strategy::ALL`] (see `docs/extending.md`).

pub(crate) use super::explorer::{Explorer, Job};
use super::outcome::Outcomes;
use super::Budget;
use crate::report::{Status, Strategy};

/// The reference enumerator, over [`super::brute::explore`].
struct Brute;

impl Explorer for Brute {
    fn name(&self) -> &'static str {
        "brute"
    }
    fn about(&self) -> &'static str {
        "The reference enumerator: every candidate execution, filtered by the model"
    }
    fn explore(&self, job: &Job<'_>, budget: &mut Budget, out: &mut Outcomes) -> Status {
        super::brute::explore(job.test, job.opts, budget, out, job.prune)
    }
}

/// The DPOR explorer, over [`super::explore_dpor`].
struct Dpor;

impl Explorer for Dpor {
    fn name(&self) -> &'static str {
        "dpor"
    }
    fn about(&self) -> &'static str {
        "Optimal dynamic partial-order reduction"
    }
    fn explore(&self, job: &Job<'_>, budget: &mut Budget, out: &mut Outcomes) -> Status {
        super::explore_dpor(job.test, job.opts, budget, out)
    }
}

impl Strategy {
    /// Every strategy that checks (explores every execution and gives a
    /// verdict), in the order of help and tables: what tests and `ptxmc
    /// bench` compare by default.
    pub const ALL: &'static [Strategy] = &[Strategy::Brute, Strategy::Dpor];

    /// Every strategy a user can name: [`Self::ALL`], then those that give
    /// no verdict (`estimate`).
    pub const NAMED: &'static [Strategy] = &[Strategy::Brute, Strategy::Dpor, Strategy::Estimate];

    /// Its explorer: the registry, one line per strategy.
    pub(crate) fn explorer(self) -> &'static dyn Explorer {
        match self {
            Strategy::Brute => &Brute,
            Strategy::Dpor => &Dpor,
            Strategy::Estimate => &super::estimate::Knuth,
        }
    }

    /// The name users type and output shows (`brute`, `dpor`).
    pub fn name(self) -> &'static str {
        self.explorer().name()
    }

    /// One line describing it.
    pub fn about(self) -> &'static str {
        self.explorer().about()
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown strategy name, with the known ones.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("unknown strategy `{0}` (known: {known})", known = Strategy::NAMED.iter().map(|s| s.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownStrategy(pub String);

impl std::str::FromStr for Strategy {
    type Err = UnknownStrategy;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strategy::NAMED
            .iter()
            .copied()
            .find(|st| st.name() == s)
            .ok_or_else(|| UnknownStrategy(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_strategy_is_listed_once_under_its_own_name() {
        let mut seen = Vec::new();
        assert_eq!(&Strategy::NAMED[..Strategy::ALL.len()], Strategy::ALL);
        for &s in Strategy::NAMED {
            assert!(!seen.contains(&s), "{s:?} listed twice");
            seen.push(s);
            // A new variant fails to compile here: list it in ALL as well.
            match s {
                Strategy::Brute | Strategy::Dpor | Strategy::Estimate => {}
            }
        }
        let names: std::collections::BTreeSet<&str> =
            Strategy::NAMED.iter().map(|s| s.name()).collect();
        assert_eq!(names.len(), Strategy::NAMED.len(), "names are distinct");
    }

    #[test]
    fn names_parse_back() {
        for &s in Strategy::NAMED {
            assert_eq!(s.name().parse::<Strategy>(), Ok(s));
            assert_eq!(s.to_string(), s.name());
        }
        let err = "bfs".parse::<Strategy>().unwrap_err().to_string();
        assert!(
            err.contains("bfs") && err.contains("brute, dpor, estimate"),
            "{err}"
        );
    }
}
