//! The one spelling of each spelled IR enum: [`fmt::Display`] writes it and
//! [`std::str::FromStr`] reads it back, and the parser, the printer, the
//! generators and the labels of `explain`, pictures and JSON all go through
//! them (no other string table). A spelling is the PTX modifier without its
//! dot (`relaxed`, `cta`, `shared::cluster`), or the whole instruction for
//! the kinds that name one (`bar.sync`, [`FenceKind`](super::FenceKind)'s
//! `fence.proxy.alias`). Variants the IR adds for its own lowering
//! (`RmwOp::Mbarrier`, ...) print a name but are not read back.

use super::{
    BarrierKind, BinOp, CmpOp, PrmtMode, Proxy, Quantifier, RmwOp, Scope, Sem, StateSpace,
};
use std::fmt;

/// A word that spells no variant of the enum read.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnknownSpelling {
    /// What was read (`scope`, `proxy`, ...).
    pub what: &'static str,
    /// The word.
    pub word: String,
}

impl fmt::Display for UnknownSpelling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`", self.what, self.word)
    }
}

impl std::error::Error for UnknownSpelling {}

/// `spelled!(Enum, "what", [Variant => "spelling", ...], also [ "alias" => Variant, ...],
/// unread [Enum::Variant(..) => "name", ...])`: `ALL` (the variants read back, in
/// order), `spelling`, `Display` and `FromStr`.
macro_rules! spelled {
    (
        $ty:ident, $what:literal,
        [$($v:ident => $s:literal),* $(,)?]
        $(, also [$($alias:literal => $av:ident),* $(,)?])?
        $(, unread [$($u:pat => $us:literal),* $(,)?])?
    ) => {
        impl $ty {
            /// Every variant with a spelling that reads back, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$v),*];

            /// The spelling ([`fmt::Display`] writes it, [`std::str::FromStr`] reads it).
            pub fn spelling(self) -> &'static str {
                match self {
                    $($ty::$v => $s,)*
                    $($($u => $us,)*)?
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.spelling())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = UnknownSpelling;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($s => Ok($ty::$v),)*
                    $($($alias => Ok($ty::$av),)*)?
                    _ => Err(UnknownSpelling { what: $what, word: s.to_string() }),
                }
            }
        }
    };
}

spelled!(Scope, "scope", [
    Cta => "cta",
    Cluster => "cluster",
    Gpu => "gpu",
    Sys => "sys",
]);

spelled!(Sem, "semantics", [
    Weak => "weak",
    Relaxed => "relaxed",
    Acquire => "acquire",
    Release => "release",
    AcqRel => "acq_rel",
    Volatile => "volatile",
    Mmio => "mmio",
]);

spelled!(Proxy, "proxy", [
    Generic => "generic",
    Surface => "surface",
    Texture => "texture",
    Constant => "constant",
    Async => "async",
    Tensormap => "tensormap",
    Readonly => "readonly",
]);

spelled!(StateSpace, "state space", [
    Global => "global",
    Shared => "shared",
    SharedCluster => "shared::cluster",
    Const => "const",
    Local => "local",
    Param => "param",
], also [
    "shared::cta" => Shared,
    "param::entry" => Param,
]);

spelled!(RmwOp, "atomic operation", [
    Add => "add",
    Sub => "sub",
    Mul => "mul",
    Div => "div",
    Inc => "inc",
    Dec => "dec",
    Min => "min",
    Max => "max",
    And => "and",
    Or => "or",
    Xor => "xor",
    Exch => "exch",
    Cas => "cas",
], unread [
    RmwOp::Mbarrier => "mbarrier",
    // Printed with its type (`printer::instr`): `.add.f32`, `.add.noftz.f16`.
    RmwOp::Float(_) => "add",
    // Printed with its type (`printer::async_instr`): `.add.u32`.
    RmwOp::Elements(_) => "elements",
]);

spelled!(BarrierKind, "barrier", [
    Sync => "bar.sync",
    Arrive => "bar.arrive",
    Red => "bar.red",
    ClusterArrive => "barrier.cluster.arrive",
    ClusterArriveRelaxed => "barrier.cluster.arrive.relaxed",
    ClusterWait => "barrier.cluster.wait",
]);

spelled!(CmpOp, "comparison", [
    Eq => "eq",
    Ne => "ne",
    Lt => "lt",
    Le => "le",
    Gt => "gt",
    Ge => "ge",
]);

impl CmpOp {
    /// The operator of conditions and of the dialect's branches (`==`, `!=`,
    /// `<`, `<=`, `>`, `>=`).
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

spelled!(PrmtMode, "prmt mode", [
    F4e => "f4e",
    B4e => "b4e",
    Rc8 => "rc8",
    Ecl => "ecl",
    Ecr => "ecr",
    Rc16 => "rc16",
], unread [
    PrmtMode::Generic => "",
]);

spelled!(Quantifier, "quantifier", [
    Exists => "exists",
    NotExists => "~exists",
    Forall => "forall",
]);

impl BinOp {
    /// The mnemonic ([`fmt::Display`] writes it); the plain operations
    /// (`add` ... `max`) read back ([`std::str::FromStr`]), the others are
    /// printed with their own operands or are the parser's lowering.
    pub fn spelling(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Rem => "rem",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::Shr => "shr",
            BinOp::Min => "min",
            BinOp::Max => "max",
            BinOp::MbarrierParityDone => "mbarrier.parity_done",
            BinOp::MbarrierStateDone => "mbarrier.state_done",
            // Printed by `stmt` with their own operands.
            BinOp::Setp { .. } => "setp",
            BinOp::Ext { .. } => "cvt",
            BinOp::Popc { .. } => "popc",
            BinOp::Abs => "abs",
            BinOp::Float(f) => f.spelling(),
            BinOp::Clz { .. } => "clz",
            BinOp::Brev { .. } => "brev",
            // The packed forms of `parser/ptx_bits.rs`.
            BinOp::MulHi { signed, bits } => match (signed, bits) {
                (true, 16) => "mul.hi.s16",
                (true, 32) => "mul.hi.s32",
                (true, _) => "mul.hi.s64",
                (false, 16) => "mul.hi.u16",
                (false, 32) => "mul.hi.u32",
                (false, _) => "mul.hi.u64",
            },
            BinOp::Bfe { signed, bits } => match (signed, bits) {
                (true, 32) => "bfe.s32",
                (true, _) => "bfe.s64",
                (false, 32) => "bfe.u32",
                (false, _) => "bfe.u64",
            },
            BinOp::Shf { left, clamp } => match (left, clamp) {
                (true, false) => "shf.l.wrap.b64",
                (true, true) => "shf.l.clamp.b64",
                (false, false) => "shf.r.wrap.b64",
                (false, true) => "shf.r.clamp.b64",
            },
            BinOp::Prmt { mode } => match mode {
                PrmtMode::Generic => "prmt.b64",
                PrmtMode::F4e => "prmt.b64.f4e",
                PrmtMode::B4e => "prmt.b64.b4e",
                PrmtMode::Rc8 => "prmt.b64.rc8",
                PrmtMode::Ecl => "prmt.b64.ecl",
                PrmtMode::Ecr => "prmt.b64.ecr",
                PrmtMode::Rc16 => "prmt.b64.rc16",
            },
        }
    }
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}

impl std::str::FromStr for BinOp {
    type Err = UnknownSpelling;
    /// The plain register operations `add` ... `max`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "add" => BinOp::Add,
            "sub" => BinOp::Sub,
            "mul" => BinOp::Mul,
            "div" => BinOp::Div,
            "rem" => BinOp::Rem,
            "and" => BinOp::And,
            "or" => BinOp::Or,
            "xor" => BinOp::Xor,
            "shl" => BinOp::Shl,
            "shr" => BinOp::Shr,
            "min" => BinOp::Min,
            "max" => BinOp::Max,
            _ => {
                return Err(UnknownSpelling {
                    what: "operation",
                    word: s.to_string(),
                })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::FenceKind;

    /// Every spelling reads back as its variant, and no two variants share one.
    fn round_trip<T>(all: &[T])
    where
        T: Copy + PartialEq + fmt::Debug + fmt::Display + std::str::FromStr,
        <T as std::str::FromStr>::Err: fmt::Debug,
    {
        for &v in all {
            assert_eq!(v.to_string().parse::<T>().ok(), Some(v), "{v:?}");
        }
        let mut seen: Vec<String> = all.iter().map(|v| v.to_string()).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), all.len());
    }

    #[test]
    fn every_spelling_reads_back() {
        round_trip(Scope::ALL);
        round_trip(Sem::ALL);
        round_trip(Proxy::ALL);
        round_trip(StateSpace::ALL);
        round_trip(RmwOp::ALL);
        round_trip(BarrierKind::ALL);
        round_trip(CmpOp::ALL);
        round_trip(PrmtMode::ALL);
        round_trip(Quantifier::ALL);
        round_trip(&FenceKind::ALL);
    }

    #[test]
    fn aliases_and_unread_variants() {
        assert_eq!("shared::cta".parse::<StateSpace>(), Ok(StateSpace::Shared));
        assert_eq!(StateSpace::Shared.to_string(), "shared");
        assert!("mbarrier".parse::<RmwOp>().is_err());
        assert!("".parse::<PrmtMode>().is_err());
        let e = "gl".parse::<Scope>().unwrap_err();
        assert_eq!(e.to_string(), "unknown scope `gl`");
        assert_eq!(
            BarrierKind::ClusterArriveRelaxed.to_string(),
            "barrier.cluster.arrive.relaxed"
        );
        assert_eq!(FenceKind::ProxyAlias.to_string(), "fence.proxy.alias");
    }
}
