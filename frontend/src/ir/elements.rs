//! Reductions applied element by element: `cp.reduce.async.bulk.OP.TYPE`.
//!
//! The instruction description of `cp.reduce.async.bulk`: "Each data element
//! in the destination array is reduced inline with the corresponding data
//! element in the source array with the reduction operation specified by the
//! modifier .redOp. The type of each data element in the source and the
//! destination array is specified by the modifier .type." A location's value
//! is the bit pattern of its bytes (element `k` in bits `8 * size * k ..`),
//! so the reduction of a value of several elements is the operation on each
//! element's bits, wrapping at the element's width: no carry or borrow
//! crosses from one element into the next (`docs/model-notes.md`,
//! "Element-wise cp.reduce.async.bulk").

use super::FloatOp;

/// An integer element type of `cp.reduce.async.bulk` (`.b32`, `.u32`,
/// `.s32`, `.b64`, `.u64`, `.s64`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum IntTy {
    /// `.b32`
    B32,
    /// `.u32`
    U32,
    /// `.s32`
    S32,
    /// `.b64`
    B64,
    /// `.u64`
    U64,
    /// `.s64`
    S64,
}

impl IntTy {
    /// The type of a type word.
    pub fn of_word(w: &str) -> Option<IntTy> {
        Some(match w {
            "b32" => IntTy::B32,
            "u32" => IntTy::U32,
            "s32" => IntTy::S32,
            "b64" => IntTy::B64,
            "u64" => IntTy::U64,
            "s64" => IntTy::S64,
            _ => return None,
        })
    }

    /// The type word.
    pub fn word(self) -> &'static str {
        match self {
            IntTy::B32 => "b32",
            IntTy::U32 => "u32",
            IntTy::S32 => "s32",
            IntTy::B64 => "b64",
            IntTy::U64 => "u64",
            IntTy::S64 => "s64",
        }
    }

    /// Bytes of one element.
    pub fn bytes(self) -> u8 {
        match self {
            IntTy::B32 | IntTy::U32 | IntTy::S32 => 4,
            IntTy::B64 | IntTy::U64 | IntTy::S64 => 8,
        }
    }

    /// Whether `.min`/`.max` compare as signed integers.
    pub fn signed(self) -> bool {
        matches!(self, IntTy::S32 | IntTy::S64)
    }
}

/// The integer operations of `cp.reduce.async.bulk`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum IntRed {
    /// `.add`
    Add,
    /// `.inc`: `old >= a ? 0 : old + 1` (unsigned, as `atom.inc`).
    Inc,
    /// `.dec`: `old == 0 || old > a ? a : old - 1` (unsigned, as `atom.dec`).
    Dec,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

impl IntRed {
    /// The operation word.
    pub fn word(self) -> &'static str {
        match self {
            IntRed::Add => "add",
            IntRed::Inc => "inc",
            IntRed::Dec => "dec",
            IntRed::Min => "min",
            IntRed::Max => "max",
            IntRed::And => "and",
            IntRed::Or => "or",
            IntRed::Xor => "xor",
        }
    }
}

/// The reduction of a typed `cp.reduce.async.bulk`: an operation on each
/// element of the value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Elementwise {
    /// An integer operation on elements of a type.
    Int(IntRed, IntTy),
    /// A floating-point operation on elements of its type ([`FloatOp`]).
    Float(FloatOp),
}

impl Elementwise {
    /// Bytes of one element.
    pub fn bytes(self) -> u8 {
        match self {
            Elementwise::Int(_, t) => t.bytes(),
            Elementwise::Float(f) => f.ty.bytes(),
        }
    }

    /// The operation and type modifiers (`add.u32`, `add.noftz.f16`).
    pub fn words(self) -> String {
        match self {
            Elementwise::Int(op, t) => format!("{}.{}", op.word(), t.word()),
            Elementwise::Float(f) => f.rmw_words(),
        }
    }

    /// Whether each byte of the result depends on the same byte of the
    /// operands only (`.and`, `.or`, `.xor`): then the reduction may be cut
    /// at any byte.
    pub fn bytewise(self) -> bool {
        matches!(
            self,
            Elementwise::Int(IntRed::And | IntRed::Or | IntRed::Xor, _)
        )
    }

    /// The value the reduction writes, from the destination's value `old`
    /// and the source's value `a`: each element of the 64-bit values
    /// reduced on its own (the module comment).
    pub fn eval(self, old: i64, a: i64) -> i64 {
        let bits = 8 * u32::from(self.bytes());
        if bits >= 64 {
            return self.one(old, a);
        }
        let mask = (1i64 << bits) - 1;
        let mut out = 0i64;
        for k in 0..64 / bits {
            let at = k * bits;
            let (o, x) = ((old >> at) & mask, (a >> at) & mask);
            out |= (self.one(o, x) & mask) << at;
        }
        out
    }

    /// One element: `old` and `a` hold its bits in their low bits (zero
    /// above); the result's bits above the element are ignored.
    fn one(self, old: i64, a: i64) -> i64 {
        let (op, ty) = match self {
            Elementwise::Float(f) => return f.eval(old, a),
            Elementwise::Int(op, ty) => (op, ty),
        };
        let bits = 8 * u32::from(ty.bytes());
        // The element as a signed value (for `.s32`/`.s64` comparisons).
        let signed = |v: i64| {
            if bits >= 64 {
                v
            } else {
                (v << (64 - bits)) >> (64 - bits)
            }
        };
        // Unsigned comparisons: `old` and `a` are zero above the element,
        // except a 64-bit element, compared as `u64`.
        let (uo, ua) = (old as u64, a as u64);
        match op {
            IntRed::Add => old.wrapping_add(a),
            IntRed::Inc => {
                if uo >= ua {
                    0
                } else {
                    old.wrapping_add(1)
                }
            }
            IntRed::Dec => {
                if uo == 0 || uo > ua {
                    a
                } else {
                    old.wrapping_sub(1)
                }
            }
            IntRed::Min if ty.signed() => {
                if signed(old) <= signed(a) {
                    old
                } else {
                    a
                }
            }
            IntRed::Max if ty.signed() => {
                if signed(old) >= signed(a) {
                    old
                } else {
                    a
                }
            }
            IntRed::Min => uo.min(ua) as i64,
            IntRed::Max => uo.max(ua) as i64,
            IntRed::And => old & a,
            IntRed::Or => old | a,
            IntRed::Xor => old ^ a,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Elementwise, IntRed, IntTy};
    use crate::ir::{FloatKind, FloatOp, FloatTy};

    #[test]
    fn no_carry_crosses_an_element() {
        let add = Elementwise::Int(IntRed::Add, IntTy::U32);
        // Low element 0xffffffff + 1 wraps to 0; the high one stays 0.
        assert_eq!(add.eval(0xffff_ffff, 1), 0);
        assert_eq!(
            add.eval(0x0000_0002_ffff_ffff, 0x0000_0003_0000_0002),
            0x5_0000_0001
        );
        // A 64-bit element is the whole value.
        let add64 = Elementwise::Int(IntRed::Add, IntTy::U64);
        assert_eq!(add64.eval(0xffff_ffff, 1), 0x1_0000_0000);
    }

    #[test]
    fn min_max_compare_by_signedness() {
        // 0xffffffff is -1 as .s32, 4294967295 as .u32.
        let v = 0xffff_ffff;
        assert_eq!(Elementwise::Int(IntRed::Min, IntTy::S32).eval(v, 5), v);
        assert_eq!(Elementwise::Int(IntRed::Min, IntTy::U32).eval(v, 5), 5);
        assert_eq!(Elementwise::Int(IntRed::Max, IntTy::S32).eval(v, 5), 5);
        assert_eq!(Elementwise::Int(IntRed::Max, IntTy::S64).eval(-1, 5), 5);
        assert_eq!(Elementwise::Int(IntRed::Max, IntTy::U64).eval(-1, 5), -1);
        // Per element: high .s32 -1 vs 2, low 7 vs 3.
        let s = Elementwise::Int(IntRed::Max, IntTy::S32);
        assert_eq!(
            s.eval(0xffff_ffff_0000_0007u64 as i64, 0x2_0000_0003),
            0x2_0000_0007
        );
    }

    #[test]
    fn inc_dec_per_element() {
        let inc = Elementwise::Int(IntRed::Inc, IntTy::U32);
        // Low: 3 >= 3 gives 0; high: 1 < 3 gives 2.
        assert_eq!(inc.eval(0x1_0000_0003, 0x3_0000_0003), 0x2_0000_0000);
        let dec = Elementwise::Int(IntRed::Dec, IntTy::U32);
        // Low: 0 gives the operand 3; high: 2 gives 1.
        assert_eq!(dec.eval(0x2_0000_0000, 0x3_0000_0003), 0x1_0000_0003);
    }

    #[test]
    fn float_elements() {
        let f = |kind, ty| {
            Elementwise::Float(FloatOp {
                kind,
                ty,
                ftz: false,
            })
        };
        // Two f32: 1.0 + 2.0 = 3.0 in each element.
        let one_two = 0x4000_0000_3f80_0000;
        let two_one = 0x3f80_0000_4000_0000;
        let add = f(FloatKind::Add, FloatTy::F32);
        assert_eq!(add.eval(one_two, two_one), 0x4040_0000_4040_0000);
        // Four f16 (1.0 = 0x3c00, 2.0 = 0x4000): the larger of each pair.
        let max = f(FloatKind::Max, FloatTy::F16);
        assert_eq!(
            max.eval(0x3c00_4000_3c00_4000, 0x4000_3c00_4000_3c00),
            0x4000_4000_4000_4000
        );
    }
}
