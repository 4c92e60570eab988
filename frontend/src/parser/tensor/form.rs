//! The mnemonics of the `cp.async.bulk.tensor` family (instruction
//! descriptions "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor",
//! "cp.async.bulk.prefetch.tensor") and of the multicast
//! `cp.async.bulk.shared::cluster.global...multicast::cluster`.

use crate::ir::{RmwOp, StateSpace};

/// What a tensor instruction does with the tile.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes`:
    /// global tensor -> shared memory, completing on an mbarrier.
    Load { dst_space: StateSpace },
    /// `cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group`: shared
    /// memory -> global tensor, a bulk async-group.
    Store,
    /// `cp.reduce.async.bulk.tensor.Nd.global.shared::cta.OP.bulk_group`.
    Reduce(RmwOp),
    /// `cp.async.bulk.prefetch.tensor.Nd.L2.global`.
    Prefetch,
    /// The non-tensor `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster`.
    BulkMulticast,
}

/// The load mode (`.tile` when none is written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Tile,
    Im2col,
    /// A mode ptxmc does not model (`.im2col::w`, `.tile::gather4`, ...).
    Other(String),
}

/// A parsed mnemonic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Form {
    pub kind: Kind,
    /// `.1d` .. `.5d` (0 for [`Kind::BulkMulticast`]).
    pub dims: u8,
    pub mode: Mode,
    /// `.multicast::cluster` (a `ctaMask` operand).
    pub multicast: bool,
    /// `.L2::cache_hint` (a `policy` operand).
    pub cache_hint: bool,
    /// A qualifier that ptxmc parses but does not model (`.cta_group::2`).
    pub unmodelled: Option<String>,
}

/// How the state spaces and the reduction operation of a mnemonic make its kind.
type Base = fn(&[StateSpace], Option<RmwOp>) -> Result<Kind, String>;

fn space_of(w: &str) -> Option<StateSpace> {
    Some(match w {
        "global" => StateSpace::Global,
        "shared::cta" => StateSpace::Shared,
        "shared::cluster" => StateSpace::SharedCluster,
        _ => return None,
    })
}

/// Reads the mnemonic `text`; `None` when it is not of the family (nothing
/// to do here), `Some(Err(reason))` when it is malformed.
pub(super) fn form(text: &str) -> Option<Result<Form, String>> {
    let mut parts = text.split('.');
    if parts.next()? != "cp" {
        return None;
    }
    let mods: Vec<&str> = parts.collect();
    let (base, rest): (Base, &[&str]) = match mods.as_slice() {
        ["async", "bulk", "tensor", rest @ ..] => (load_or_store, rest),
        ["reduce", "async", "bulk", "tensor", rest @ ..] => (reduce, rest),
        ["async", "bulk", "prefetch", "tensor", rest @ ..] => (prefetch, rest),
        ["async", "bulk", rest @ ..] if rest.contains(&"multicast::cluster") => {
            (bulk_multicast, rest)
        }
        _ => return None,
    };
    Some(words(base, rest))
}

fn words(base: Base, rest: &[&str]) -> Result<Form, String> {
    let mut dims = 0u8;
    let mut spaces = Vec::new();
    let mut mode = None;
    let mut multicast = false;
    let mut cache_hint = false;
    let mut mbar = false;
    let mut bulk_group = false;
    let mut op = None;
    let mut l2 = false;
    let mut unmodelled = None;
    for &w in rest {
        match w {
            "1d" | "2d" | "3d" | "4d" | "5d" if dims == 0 => dims = w.as_bytes()[0] - b'0',
            "tile" | "im2col" if mode.is_none() => {
                mode = Some(if w == "tile" {
                    Mode::Tile
                } else {
                    Mode::Im2col
                })
            }
            "multicast::cluster" => multicast = true,
            "L2::cache_hint" => cache_hint = true,
            "mbarrier::complete_tx::bytes" => mbar = true,
            "bulk_group" => bulk_group = true,
            "L2" => l2 = true,
            w if w.starts_with("tile::") || w.starts_with("im2col::") => {
                if mode.is_some() {
                    return Err(format!("a second load mode `.{w}`"));
                }
                mode = Some(Mode::Other(w.to_string()));
            }
            w if w.starts_with("cta_group::") => unmodelled = Some(w.to_string()),
            w => {
                if let Some(s) = space_of(w) {
                    spaces.push(s);
                } else if let Some(o) = w.parse::<RmwOp>().ok().filter(|_| op.is_none()) {
                    op = Some(o);
                } else {
                    return Err(format!("unexpected `.{w}`"));
                }
            }
        }
    }
    let kind = base(&spaces, op)?;
    match kind {
        Kind::Load { .. } | Kind::BulkMulticast if !mbar => {
            return Err("expected `.mbarrier::complete_tx::bytes`".into())
        }
        Kind::Store | Kind::Reduce(_) if !bulk_group => return Err("expected `.bulk_group`".into()),
        Kind::Prefetch if !l2 => return Err("expected `.L2`".into()),
        _ => {}
    }
    if multicast && !matches!(kind, Kind::Load { .. } | Kind::BulkMulticast) {
        return Err("`.multicast::cluster` is for copies into shared memory".into());
    }
    if kind == Kind::BulkMulticast {
        if dims != 0 || mode.is_some() {
            return Err("unexpected tensor qualifier on `cp.async.bulk`".into());
        }
    } else if dims == 0 {
        return Err("expected a dimension `.1d` .. `.5d`".into());
    }
    Ok(Form {
        kind,
        dims,
        mode: mode.unwrap_or(Mode::Tile),
        multicast,
        cache_hint,
        unmodelled,
    })
}

fn load_or_store(spaces: &[StateSpace], op: Option<RmwOp>) -> Result<Kind, String> {
    if op.is_some() {
        return Err("a reduction is `cp.reduce.async.bulk.tensor`".into());
    }
    match spaces {
        [d @ (StateSpace::SharedCluster | StateSpace::Shared), StateSpace::Global] => {
            Ok(Kind::Load { dst_space: *d })
        }
        [StateSpace::Global, StateSpace::Shared] => Ok(Kind::Store),
        _ => Err("expected `.shared::cluster.global` or `.global.shared::cta`".into()),
    }
}

fn reduce(spaces: &[StateSpace], op: Option<RmwOp>) -> Result<Kind, String> {
    match (spaces, op) {
        ([StateSpace::Global, StateSpace::Shared], Some(o)) => Ok(Kind::Reduce(o)),
        (_, None) => Err("expected a reduction operation".into()),
        _ => Err("expected `.global.shared::cta`".into()),
    }
}

fn prefetch(spaces: &[StateSpace], op: Option<RmwOp>) -> Result<Kind, String> {
    match (spaces, op) {
        ([StateSpace::Global], None) => Ok(Kind::Prefetch),
        _ => Err("expected `.L2.global`".into()),
    }
}

fn bulk_multicast(spaces: &[StateSpace], op: Option<RmwOp>) -> Result<Kind, String> {
    match (spaces, op) {
        ([StateSpace::SharedCluster, StateSpace::Global], None) => Ok(Kind::BulkMulticast),
        _ => Err("`.multicast::cluster` takes `.shared::cluster.global`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manual_mnemonics_read() {
        let f = |s: &str| form(s).expect("of the family").expect("well formed");
        let l = f("cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes.im2col.multicast::cluster");
        assert_eq!(
            (l.kind, l.dims, l.mode, l.multicast),
            (
                Kind::Load {
                    dst_space: StateSpace::SharedCluster
                },
                5,
                Mode::Im2col,
                true
            )
        );
        let s = f("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint");
        assert_eq!((s.kind, s.dims, s.cache_hint), (Kind::Store, 2, true));
        let p = f("cp.async.bulk.prefetch.tensor.1d.L2.global.tile");
        assert_eq!((p.kind, p.mode), (Kind::Prefetch, Mode::Tile));
        let r = f("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group");
        assert_eq!(r.kind, Kind::Reduce(RmwOp::Add));
        let m = f(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster",
        );
        assert_eq!((m.kind, m.multicast), (Kind::BulkMulticast, true));
        let g = f("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.tile::gather4");
        assert_eq!(g.mode, Mode::Other("tile::gather4".into()));
    }

    #[test]
    fn other_mnemonics_are_not_of_the_family_and_malformed_ones_say_why() {
        assert_eq!(
            form("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"),
            None
        );
        assert_eq!(form("cp.async.bulk.prefetch.L2.global"), None);
        let e = |s: &str| form(s).expect("of the family").expect_err("malformed");
        assert!(
            e("cp.async.bulk.tensor.shared::cluster.global.mbarrier::complete_tx::bytes")
                .contains("dimension")
        );
        assert!(e("cp.async.bulk.tensor.1d.shared::cluster.global").contains("mbarrier"));
        assert!(e("cp.async.bulk.tensor.1d.global.shared::cta").contains("bulk_group"));
        assert!(
            e("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.multicast::cluster")
                .contains("multicast")
        );
        assert!(
            e("cp.reduce.async.bulk.tensor.1d.global.shared::cta.bulk_group").contains("reduction")
        );
        assert!(e("cp.async.bulk.tensor.1d.global.global.bulk_group").contains("expected"));
        assert!(e(
            "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.foo"
        )
        .contains("`.foo`"));
    }
}
