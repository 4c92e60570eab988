//! Readings of the model: the points where chapter 8 and the models written
//! from it (`ptx-v7.5.cat` of Dat3M, NVlabs' Alloy models) decide
//! differently, as named choices over the one base model.
//!
//! A [`Reading`] is not a copy of the model: each choice is consulted where
//! the events are built (`crate::interp`), so that the per-concept model,
//! its word-level copy (`model/fast.rs`) and every explorer see the same
//! events and need no reading of their own:
//! - [`Reading::fence_sc_acq_rel`]: a `fence.sc` event carries `.acq_rel`
//!   semantics (`Event::sem`), or `.relaxed` when it does not act as a release
//!   and acquire fence (`model/patterns.rs` reads it);
//! - [`Reading::red_never_acquires`]: the read half of a `red` is marked `red`
//!   (never in an acquire pattern), or is an ordinary RMW read;
//! - [`Reading::exch_write_depends_on_read`]: the write half of an
//!   `atom.exch` has its read among its data dependencies, or only the reads
//!   its operand depends on;
//! - [`Reading::failed_cas_writes`]: a failed `atom.cas` is an RMW whose
//!   write half writes the old value back, or only a read (no write event:
//!   the interpreter decides from the value read, `interp::ThreadState`).
//!
//! Every reading, with its argument, is in `docs/model-notes.md`
//! ("Readings"); `ptxmc models` lists them.

use std::fmt;

/// One reading of the model: the named choices, each `true` for the spec
/// reading ptxmc has by default ([`Reading::SPEC`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Reading {
    /// The name users type (`--model NAME`) and results show.
    pub name: &'static str,
    /// One line for `ptxmc models`.
    pub about: &'static str,
    /// The sections of chapter 8 its choices concern.
    pub sections: &'static str,
    /// `fence.sc` is also a release and an acquire fence in release and
    /// acquire patterns (8.8 form 3; the `fence` instruction text makes
    /// `fence.sc` a stronger `fence.acq_rel`, and so does NVIDIA's Alloy
    /// model); `false`: only Fence-SC order (8.9.3) relates it (the cat's
    /// patterns take `F & ACQ_REL` only).
    pub fence_sc_acq_rel: bool,
    /// The read half of a `red` never begins or ends an acquire pattern
    /// (8.11.1: a reduction has no destination register, nothing to
    /// acquire); `false`: it is an ordinary strong read (the cat's
    /// `strong-read = R & (RLX | ACQ)` includes it).
    pub red_never_acquires: bool,
    /// The write half of an `atom.exch` depends on its read (8.10.4
    /// dependencies; NVlabs' Alloy models give every RMW write a
    /// dependency on its read); `false`: only the reads its operand depends
    /// on (the cat's `data` follows values, and `exch` writes its operand).
    pub exch_write_depends_on_read: bool,
    /// A failed `atom.cas` (the value read differs from the compare
    /// operand) writes the old value back: an RMW whose write half takes a
    /// place in coherence (the ISA's instruction text, and the verifier of
    /// the shared corpus); `false`: it only reads, with no write event (the
    /// C11 view of a failed compare-exchange, what GenMC does).
    pub failed_cas_writes: bool,
    /// A `.sys` `atom`/`red` is atomic (8.10.3) also on memory the host
    /// thread accesses; `false`: 8.1.1, "certain strong operations with
    /// system scope may not be performed atomically" when communicating with
    /// the host CPU: its read and write are separate strong operations
    /// (`host_rmw.rs`).
    pub sys_rmw_atomic_on_host: bool,
}

impl Reading {
    /// The spec reading (default): chapter 8 as `docs/model-notes.md` reads it.
    pub const SPEC: Reading = Reading {
        name: "spec",
        about: "PTX ISA 9.4 chapter 8 as ptxmc reads it (default)",
        sections: "8.8, 8.9.3, 8.10.3, 8.10.4, 8.11.1",
        fence_sc_acq_rel: true,
        red_never_acquires: true,
        exch_write_depends_on_read: true,
        failed_cas_writes: true,
        sys_rmw_atomic_on_host: true,
    };

    /// `fence.sc` is not an acq_rel fence in patterns (`ptx-v7.5.cat`).
    pub const FENCE_SC_PLAIN: Reading = Reading {
        name: "fence-sc-plain",
        about:
            "fence.sc orders only through Fence-SC order, not as an acq_rel fence (ptx-v7.5.cat)",
        sections: "8.8, 8.9.3",
        fence_sc_acq_rel: false,
        ..Reading::SPEC
    };

    /// The read half of `red` is an ordinary strong read (`ptx-v7.5.cat`).
    pub const RED_READS: Reading = Reading {
        name: "red-acquires",
        about: "a red's read half may take part in acquire patterns like any strong read (ptx-v7.5.cat)",
        sections: "8.8, 8.11.1",
        red_never_acquires: false,
        ..Reading::SPEC
    };

    /// `exch` writes do not depend on their read (`ptx-v7.5.cat`).
    pub const EXCH_INDEPENDENT: Reading = Reading {
        name: "exch-independent",
        about: "an atom.exch write does not depend on its read (ptx-v7.5.cat); No-Thin-Air sees fewer cycles",
        sections: "8.10.4",
        exch_write_depends_on_read: false,
        ..Reading::SPEC
    };

    /// A failed `atom.cas` only reads (the C11 view; GenMC).
    pub const FAILED_CAS_READ: Reading = Reading {
        name: "failed-cas-read",
        about: "a failed atom.cas only reads, it writes nothing back (C11, GenMC); CAS retry loops then block like spin loops",
        sections: "8.9.2, 8.10.3",
        failed_cas_writes: false,
        ..Reading::SPEC
    };

    /// Every choice as Dat3M's `ptx-v7.5.cat` makes it (a failed `cas`
    /// writes the old value back there, as in the verifier of the corpus).
    pub const DAT3M: Reading = Reading {
        name: "dat3m",
        about: "Dat3M's ptx-v7.5.cat: fence-sc-plain, red-acquires and exch-independent together",
        sections: "8.8, 8.9.3, 8.10.4, 8.11.1",
        fence_sc_acq_rel: false,
        red_never_acquires: false,
        exch_write_depends_on_read: false,
        failed_cas_writes: true,
        sys_rmw_atomic_on_host: true,
    };

    /// 8.1.1: `.sys` RMWs on host memory are not atomic.
    pub const HOST_SYS_NONATOMIC: Reading = Reading {
        name: "host-sys-nonatomic",
        about: "a .sys atom/red on memory the host thread accesses is a separate read and write (8.1.1: not atomic on some systems)",
        sections: "8.1.1, 8.10.3",
        sys_rmw_atomic_on_host: false,
        ..Reading::SPEC
    };

    /// Every reading, the default first (the order of `ptxmc models`).
    pub const ALL: &'static [Reading] = &[
        Reading::SPEC,
        Reading::FENCE_SC_PLAIN,
        Reading::RED_READS,
        Reading::EXCH_INDEPENDENT,
        Reading::FAILED_CAS_READ,
        Reading::DAT3M,
        Reading::HOST_SYS_NONATOMIC,
    ];

    /// Whether this is the default reading.
    pub fn is_default(&self) -> bool {
        *self == Reading::SPEC
    }
}

impl Default for Reading {
    fn default() -> Self {
        Reading::SPEC
    }
}

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// An unknown reading name, with the known ones.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("unknown model `{0}` (known: {known})", known = Reading::ALL.iter().map(|r| r.name).collect::<Vec<_>>().join(", "))]
pub struct UnknownReading(pub String);

impl std::str::FromStr for Reading {
    type Err = UnknownReading;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Reading::ALL
            .iter()
            .copied()
            .find(|r| r.name == s)
            .ok_or_else(|| UnknownReading(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_parse_back() {
        let mut names: Vec<&str> = Reading::ALL.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Reading::ALL.len());
        for r in Reading::ALL {
            assert_eq!(r.name.parse::<Reading>(), Ok(*r));
        }
        let e = "herd".parse::<Reading>().unwrap_err().to_string();
        assert!(
            e.contains("herd") && e.contains("spec, fence-sc-plain"),
            "{e}"
        );
    }

    #[test]
    fn each_variant_changes_one_choice_and_dat3m_all() {
        let choices = |r: &Reading| {
            [
                r.fence_sc_acq_rel,
                r.red_never_acquires,
                r.exch_write_depends_on_read,
                r.failed_cas_writes,
            ]
        };
        assert!(Reading::default().is_default());
        assert_eq!(choices(&Reading::SPEC), [true; 4]);
        for r in &Reading::ALL[1..5] {
            let off = choices(r).iter().filter(|c| !**c).count();
            assert_eq!(off, 1, "{} differs from spec in one choice", r.name);
        }
        // Dat3M's cat makes the first three choices the other way; its
        // verifier writes a failed cas's old value back, as the spec does.
        assert_eq!(choices(&Reading::DAT3M), [false, false, false, true]);
    }
}
