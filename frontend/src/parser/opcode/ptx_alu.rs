//! The register instructions compilers emit around memory operations:
//! `setp`, `selp`, `not`, `neg`, `abs`, `cvt`, `cvta`, `popc`, `mad`,
//! `mul.wide`, `mul.hi`/`mad.hi`, `bfe`, `shf`, `prmt`, `clz`, `brev`,
//! `nanosleep`, `ret`/`exit` (integer and predicate forms only;
//! floating-point forms are unsupported constructs).

use super::{Mnemonic, Shape};
use crate::error::ParseErrorKind;
use crate::ir::{BinOp, CmpOp, PrmtMode};

/// An integer type `.sN` / `.uN` / `.bN`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::parser) struct IntType {
    pub signed: bool,
    pub bits: u8,
    /// A `.bN` (bit) type.
    pub untyped: bool,
}

/// What a compiler-style register instruction is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::parser) enum PtxShape {
    /// `setp.CMP{.BOOLOP}.TYPE p, a, b{, {!}c}`.
    Setp {
        cmp: CmpOp,
        signed: bool,
        bits: u8,
        combine: Option<BinOp>,
    },
    /// `selp.TYPE d, a, b, p`.
    Selp,
    /// `not.pred` (`bits == None`) or `not.bN`.
    Not { bits: Option<u8> },
    /// `neg.sN`.
    Neg,
    /// `abs.sN`.
    Abs,
    /// `cvt.DST.SRC` between integer types.
    Cvt { dst: IntType, src: IntType },
    /// `cvta{.to}.SPACE.uN` (addresses are the same in every state space here).
    Cvta,
    /// `popc.bN`.
    Popc { bits: u8 },
    /// `mad.lo.T` (`wide == None`) or `mad.wide.T`.
    Mad { wide: Option<IntType> },
    /// `mul.wide.T`.
    MulWide { ty: IntType },
    /// `mul.hi.T` (`mad: false`) or `mad.hi.T`.
    Hi { ty: IntType, mad: bool },
    /// `bfe.{s,u}{32,64} d, a, pos, len` (or the printer's `d, a, packed`).
    Bfe { ty: IntType },
    /// `shf.{l,r}.{wrap,clamp}.b32 d, lo, hi, n` (or the printer's
    /// `.b64 d, joined, n`).
    Shf {
        left: bool,
        clamp: bool,
        joined: bool,
    },
    /// `prmt.b32{.mode} d, a, b, sel` (or the printer's `.b64 d, joined, sel`).
    Prmt { mode: PrmtMode, joined: bool },
    /// A one-operand operation: `clz.bN`, `brev.bN`.
    Unary(BinOp),
    /// `nanosleep.u32 t`: no memory effect.
    Nanosleep,
    /// `ret` / `exit`: the thread ends.
    Exit,
}

/// An integer type modifier.
pub(in crate::parser) fn int_type(w: &str) -> Option<IntType> {
    let (signed, untyped) = match w.as_bytes().first() {
        Some(b's') => (true, false),
        Some(b'u') => (false, false),
        Some(b'b') => (false, true),
        _ => return None,
    };
    let bits = match &w[1..] {
        "8" => 8,
        "16" => 16,
        "32" => 32,
        "64" => 64,
        _ => return None,
    };
    Some(IntType {
        signed,
        bits,
        untyped,
    })
}

fn is_float(w: &str) -> bool {
    matches!(
        w,
        "f16"
            | "f16x2"
            | "bf16"
            | "bf16x2"
            | "f32"
            | "f64"
            | "ftz"
            | "rn"
            | "rz"
            | "rm"
            | "rp"
            | "rni"
            | "rzi"
            | "rmi"
            | "rpi"
            | "sat"
            | "approx"
            | "full"
            | "relu"
    )
}

/// The single integer type of `mods`, or the shape for an unsupported (float) form.
fn one_type(m: &Mnemonic<'_>, mods: &[&str], min_bits: u8) -> Result<IntType, Shape> {
    match mods {
        [t] => match int_type(t) {
            Some(ty) if ty.bits >= min_bits => Ok(ty),
            _ => Err(Shape::Unsupported(format!("{}.{t}", m.base))),
        },
        [x, ..] if is_float(x) => Err(Shape::Unsupported(format!("{}.{x}", m.base))),
        _ => Err(Shape::Unsupported(m.text.to_string())),
    }
}

fn ok(s: PtxShape) -> Result<Shape, ParseErrorKind> {
    Ok(Shape::Ptx(s))
}

/// Classifies `setp`, `selp`, `not`, `neg`, `abs`, `cvt`, `cvta`, `popc`, `mad`,
/// `nanosleep`, `ret`, `exit`.
pub(super) fn classify(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let mods = m.mods.as_slice();
    let typed = |min: u8, f: fn(IntType) -> PtxShape| match one_type(m, mods, min) {
        Ok(t) => ok(f(t)),
        Err(_) if mods.is_empty() => Err(m.bad("expected a type such as `.s32`")),
        Err(s) => Ok(s),
    };
    match m.base {
        "setp" => setp(m),
        "selp" => typed(16, |_| PtxShape::Selp),
        "not" => match mods {
            ["pred"] => ok(PtxShape::Not { bits: None }),
            _ => typed(16, |t| PtxShape::Not { bits: Some(t.bits) }),
        },
        "neg" => typed(16, |_| PtxShape::Neg),
        "abs" => typed(16, |_| PtxShape::Abs),
        "popc" => match mods {
            ["b32"] => ok(PtxShape::Popc { bits: 32 }),
            ["b64"] => ok(PtxShape::Popc { bits: 64 }),
            [x, ..] => Err(m.unknown(x)),
            [] => Err(m.bad("expected `.b32` or `.b64`")),
        },
        "cvt" => {
            let ints: Vec<IntType> = mods.iter().filter_map(|w| int_type(w)).collect();
            match (mods, ints.as_slice()) {
                ([_, _], [dst, src]) => ok(PtxShape::Cvt {
                    dst: *dst,
                    src: *src,
                }),
                ([], _) => Err(m.bad("expected a destination and a source type")),
                _ => Ok(Shape::Unsupported(format!(
                    "cvt.{}",
                    mods.iter()
                        .find(|w| int_type(w).is_none())
                        .unwrap_or(&mods[0])
                ))),
            }
        }
        "cvta" => {
            let rest = match mods {
                ["to", rest @ ..] => rest,
                rest => rest,
            };
            match rest {
                [space, ty]
                    if matches!(
                        *space,
                        "global"
                            | "shared"
                            | "shared::cta"
                            | "shared::cluster"
                            | "local"
                            | "const"
                            | "param"
                    ) && matches!(*ty, "u32" | "u64") =>
                {
                    // `cvta.local` / `cvta.param` keep the address: the
                    // location itself says whose copy a thread reaches
                    // (`parser/spaces.rs`).
                    if *space == "const" {
                        return Ok(Shape::Unsupported(format!("cvta.{space}")));
                    }
                    ok(PtxShape::Cvta)
                }
                [x, ..] => Err(m.unknown(x)),
                [] => Err(m.bad("expected a state space and `.u64`")),
            }
        }
        "mad" if mods.first() == Some(&"hi") => match mods {
            ["hi", t] => match int_type(t) {
                Some(ty) if ty.bits >= 16 && !ty.untyped => ok(PtxShape::Hi { ty, mad: true }),
                _ => Err(m.unknown(t)),
            },
            _ => Ok(Shape::Unsupported(m.text.to_string())),
        },
        "mad" => match mods {
            ["lo", t] => match int_type(t) {
                Some(ty) if ty.bits >= 16 => ok(PtxShape::Mad { wide: None }),
                _ => Ok(Shape::Unsupported(format!("mad.{t}"))),
            },
            ["wide", t] => match int_type(t) {
                Some(ty) if ty.bits <= 32 && ty.bits >= 16 && !ty.untyped => {
                    ok(PtxShape::Mad { wide: Some(ty) })
                }
                _ => Err(m.unknown(t)),
            },
            [x, ..] => Ok(Shape::Unsupported(format!("mad.{x}"))),
            [] => Err(m.bad("expected `.lo` or `.wide` and a type")),
        },
        "bfe" => match mods {
            [t] => match int_type(t) {
                Some(ty) if ty.bits >= 32 && !ty.untyped => ok(PtxShape::Bfe { ty }),
                _ => Err(m.unknown(t)),
            },
            [] => Err(m.bad("expected a type such as `.u32`")),
            _ => Err(m.unknown(mods[1])),
        },
        "shf" => {
            let (left, clamp, ty) = match mods {
                [d, c, t] => (*d, *c, *t),
                _ => return Err(m.bad("expected `shf.{l,r}.{wrap,clamp}.b32`")),
            };
            let left = match left {
                "l" => true,
                "r" => false,
                x => return Err(m.unknown(x)),
            };
            let clamp = match clamp {
                "clamp" => true,
                "wrap" => false,
                x => return Err(m.unknown(x)),
            };
            match ty {
                "b32" => ok(PtxShape::Shf {
                    left,
                    clamp,
                    joined: false,
                }),
                "b64" => ok(PtxShape::Shf {
                    left,
                    clamp,
                    joined: true,
                }),
                x => Err(m.unknown(x)),
            }
        }
        "prmt" => {
            let (ty, mode) = match mods {
                [t] => (*t, PrmtMode::Generic),
                [t, md] => (*t, md.parse::<PrmtMode>().map_err(|_| m.unknown(md))?),
                _ => return Err(m.bad("expected `prmt.b32{.mode}`")),
            };
            match ty {
                "b32" => ok(PtxShape::Prmt {
                    mode,
                    joined: false,
                }),
                "b64" => ok(PtxShape::Prmt { mode, joined: true }),
                x => Err(m.unknown(x)),
            }
        }
        "clz" | "brev" => match mods {
            [t @ ("b32" | "b64")] => {
                let bits = if *t == "b32" { 32 } else { 64 };
                ok(PtxShape::Unary(if m.base == "clz" {
                    BinOp::Clz { bits }
                } else {
                    BinOp::Brev { bits }
                }))
            }
            [x, ..] => Err(m.unknown(x)),
            [] => Err(m.bad("expected `.b32` or `.b64`")),
        },
        "nanosleep" => match mods {
            [] | ["u32"] => ok(PtxShape::Nanosleep),
            [x, ..] => Err(m.unknown(x)),
        },
        "ret" | "exit" => match mods {
            [] | ["uni"] => ok(PtxShape::Exit),
            [x, ..] => Err(m.unknown(x)),
        },
        _ => Err(ParseErrorKind::UnknownInstruction(m.text.into())),
    }
}

/// `mul.hi.{s,u}{16,32,64}`.
pub(super) fn mul_hi(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    match m.mods.as_slice() {
        ["hi", t] => match int_type(t) {
            Some(ty) if ty.bits >= 16 && !ty.untyped => ok(PtxShape::Hi { ty, mad: false }),
            _ => Err(m.unknown(t)),
        },
        _ => Err(m.bad("expected `mul.hi.s32` or `mul.hi.u32`")),
    }
}

/// `mul.wide.{s,u}{16,32}`.
pub(super) fn mul_wide(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    match m.mods.as_slice() {
        ["wide", t] => match int_type(t) {
            Some(ty) if (16..=32).contains(&ty.bits) && !ty.untyped => ok(PtxShape::MulWide { ty }),
            _ => Err(m.unknown(t)),
        },
        _ => Err(m.bad("expected `mul.wide.s32` or `mul.wide.u32`")),
    }
}

/// `setp.CMP{.BOOLOP}.TYPE`.
fn setp(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let mods = m.mods.as_slice();
    let (cmp_word, combine, ty) = match mods {
        [c, t] => (*c, None, *t),
        [c, b, t] => (*c, Some(*b), *t),
        [] => return Err(m.bad("expected a comparison and a type (`setp.eq.s32`)")),
        _ => return Ok(Shape::Unsupported("setp".into())),
    };
    if is_float(ty) || mods.contains(&"ftz") {
        return Ok(Shape::Unsupported(format!("setp.{ty}")));
    }
    let Some(t) = int_type(ty) else {
        return Err(m.unknown(ty));
    };
    if t.bits < 16 {
        return Err(m.unknown(ty));
    }
    let (cmp, unsigned) = match cmp_word {
        w if w.parse::<CmpOp>().is_ok() => (w.parse::<CmpOp>().unwrap_or(CmpOp::Eq), false),
        "lo" => (CmpOp::Lt, true),
        "ls" => (CmpOp::Le, true),
        "hi" => (CmpOp::Gt, true),
        "hs" => (CmpOp::Ge, true),
        "equ" | "neu" | "ltu" | "leu" | "gtu" | "geu" | "num" | "nan" => {
            return Ok(Shape::Unsupported(format!("setp.{cmp_word}")))
        }
        x => return Err(m.unknown(x)),
    };
    if t.untyped && !matches!(cmp, CmpOp::Eq | CmpOp::Ne) {
        return Err(m.bad(format!(
            "`.{cmp_word}` needs a signed or unsigned type, not `.{ty}`"
        )));
    }
    let combine = match combine {
        None => None,
        Some("and") => Some(BinOp::And),
        Some("or") => Some(BinOp::Or),
        Some("xor") => Some(BinOp::Xor),
        Some(x) => return Err(m.unknown(x)),
    };
    ok(PtxShape::Setp {
        cmp,
        signed: t.signed && !unsigned,
        bits: t.bits,
        combine,
    })
}
