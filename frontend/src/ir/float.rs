//! Floating-point arithmetic on bit patterns.
//!
//! ptxmc's values are 64-bit integers; a floating-point value is the bit
//! pattern of its format held in the low bits (as `ld`/`st.f32` move it).
//! Chapter 8 says nothing of arithmetic: it models memory operations, and
//! a reduction's value is whatever the operation computes. The operations
//! here are the ones the memory instructions of chapter 8 perform on
//! floating-point data (`multimem.red` and `multimem.ld_reduce`, 8.2.3's
//! multimem addresses; `atom`/`red` `.add` on floats), computed exactly:
//! IEEE 754 round-to-nearest-even, subnormals kept unless `ftz` (flushed to
//! a zero of the same sign, inputs and result), and a NaN result written as
//! the format's canonical NaN (sign 0, all payload bits set). `min`/`max`
//! return the other operand when one is NaN, the canonical NaN when both
//! are, and order -0 below +0 (IEEE 754-2019 `minimumNumber`/
//! `maximumNumber`), so that they are commutative and associative.
//! `docs/model-notes.md`, "Floating-point multimem reductions".

/// A floating-point format (its bits held in an integer value).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FloatTy {
    /// IEEE binary16 (`.f16`).
    F16,
    /// bfloat16 (`.bf16`): binary32's exponent, 8 significand bits.
    Bf16,
    /// IEEE binary32 (`.f32`).
    F32,
    /// IEEE binary64 (`.f64`).
    F64,
}

/// The floating-point operation of an [`FloatOp`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FloatKind {
    /// `add`
    Add,
    /// `min`
    Min,
    /// `max`
    Max,
}

/// A floating-point operation on bit patterns: the register instructions
/// `add`/`min`/`max` `{.ftz}.TYPE` and the `.add` of `atom`/`red`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct FloatOp {
    /// The operation.
    pub kind: FloatKind,
    /// The format of both operands and the result.
    pub ty: FloatTy,
    /// Subnormal inputs and results are flushed to zero (`.ftz`).
    pub ftz: bool,
}

impl FloatKind {
    /// The operation word (`add`, `min`, `max`).
    pub fn word(self) -> &'static str {
        match self {
            FloatKind::Add => "add",
            FloatKind::Min => "min",
            FloatKind::Max => "max",
        }
    }
}

impl FloatOp {
    /// The operation modifiers of `atom`/`red`/`cp.reduce.async.bulk`
    /// (`add.f32`, `add.noftz.f16`, `min.bf16`): an `.add` of `.f16`,
    /// `.bf16` or (ptxmc's spelling) `.f32` that keeps subnormals says
    /// `.noftz`; `.add.f32` flushes them.
    pub fn rmw_words(self) -> String {
        let noftz = self.kind == FloatKind::Add && !self.ftz && self.ty != FloatTy::F64;
        let mid = if noftz { ".noftz" } else { "" };
        format!("{}{mid}.{}", self.kind.word(), self.ty.word())
    }
}

impl FloatTy {
    /// The type word (`f16`, `bf16`, `f32`, `f64`).
    pub fn word(self) -> &'static str {
        match self {
            FloatTy::F16 => "f16",
            FloatTy::Bf16 => "bf16",
            FloatTy::F32 => "f32",
            FloatTy::F64 => "f64",
        }
    }

    /// The type of a scalar type word.
    pub fn of_word(w: &str) -> Option<FloatTy> {
        Some(match w {
            "f16" => FloatTy::F16,
            "bf16" => FloatTy::Bf16,
            "f32" => FloatTy::F32,
            "f64" => FloatTy::F64,
            _ => return None,
        })
    }

    /// Bytes of a value.
    pub fn bytes(self) -> u8 {
        match self {
            FloatTy::F16 | FloatTy::Bf16 => 2,
            FloatTy::F32 => 4,
            FloatTy::F64 => 8,
        }
    }

    /// Significand bits (with the implicit one) and the largest exponent
    /// (also the exponent bias).
    fn shape(self) -> (u32, i32) {
        match self {
            FloatTy::F16 => (11, 15),
            FloatTy::Bf16 => (8, 127),
            FloatTy::F32 => (24, 127),
            FloatTy::F64 => (53, 1023),
        }
    }

    fn bits(self) -> u32 {
        u32::from(self.bytes()) * 8
    }

    fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1 << self.bits()) - 1
        }
    }

    /// The canonical NaN: sign 0, exponent and payload all ones.
    pub fn canonical_nan(self) -> u64 {
        self.mask() >> 1
    }

    fn sign_bit(self) -> u64 {
        1 << (self.bits() - 1)
    }

    /// Whether `bits` (of this format) is a NaN.
    fn is_nan(self, bits: u64) -> bool {
        let (p, _) = self.shape();
        let exp = (bits & self.mask() & !self.sign_bit()) >> (p - 1);
        let exp_max = (1u64 << (self.bits() - p)) - 1;
        exp == exp_max && bits & ((1 << (p - 1)) - 1) != 0
    }

    /// Whether `bits` is a subnormal (nonzero with a zero exponent field).
    fn is_subnormal(self, bits: u64) -> bool {
        let (p, _) = self.shape();
        let mag = bits & self.mask() & !self.sign_bit();
        mag != 0 && mag >> (p - 1) == 0
    }

    /// The value of `bits` as an `f64` (exact: every format here fits).
    pub fn to_f64(self, bits: u64) -> f64 {
        let bits = bits & self.mask();
        match self {
            FloatTy::F64 => f64::from_bits(bits),
            FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
            FloatTy::Bf16 => f64::from(f32::from_bits((bits as u32) << 16)),
            FloatTy::F16 => {
                let neg = bits & 0x8000 != 0;
                let exp = ((bits >> 10) & 0x1f) as i32;
                let frac = (bits & 0x3ff) as f64;
                let mag = match exp {
                    0 => frac * 2f64.powi(-24),
                    0x1f if frac == 0.0 => f64::INFINITY,
                    0x1f => f64::NAN,
                    e => (1024.0 + frac) * 2f64.powi(e - 25),
                };
                if neg {
                    -mag
                } else {
                    mag
                }
            }
        }
    }

    /// `x` rounded to this format (round to nearest, ties to even), as bits;
    /// a NaN is the canonical NaN.
    pub fn from_f64(self, x: f64) -> u64 {
        if x.is_nan() {
            return self.canonical_nan();
        }
        match self {
            FloatTy::F64 => return x.to_bits(),
            FloatTy::F32 => return u64::from((x as f32).to_bits()),
            _ => {}
        }
        let sign = if x.is_sign_negative() {
            self.sign_bit()
        } else {
            0
        };
        let (p, emax) = self.shape();
        let inf = ((1u64 << (self.bits() - p)) - 1) << (p - 1);
        if x.is_infinite() {
            return sign | inf;
        }
        // |x| = m * 2^q exactly.
        let raw = x.abs().to_bits();
        let (mut m, mut q) = ((raw & ((1 << 52) - 1)), ((raw >> 52) as i32));
        if m == 0 && q == 0 {
            return sign;
        }
        if q == 0 {
            q = -1074;
        } else {
            m |= 1 << 52;
            q -= 1075;
        }
        // Exponent of the leading bit, and of the result's last bit.
        let lead = 63 - m.leading_zeros() as i32 + q;
        let emin = 1 - emax;
        let mut ulp = lead.max(emin) - (p as i32 - 1);
        let shift = ulp - q;
        let mut r = if shift <= 0 {
            m << (-shift) as u32
        } else if shift >= 64 {
            0
        } else {
            let (kept, rest) = (m >> shift, m & ((1u64 << shift) - 1));
            let half = 1u64 << (shift - 1);
            if rest > half || (rest == half && kept & 1 == 1) {
                kept + 1
            } else {
                kept
            }
        };
        if r >> (p - 1) == 0 {
            return sign | r; // subnormal (or zero)
        }
        if r >> p != 0 {
            r >>= 1;
            ulp += 1;
        }
        let e = ulp + p as i32 - 1;
        if e > emax {
            return sign | inf;
        }
        sign | ((e + emax) as u64) << (p - 1) | (r & ((1 << (p - 1)) - 1))
    }

    /// `bits` with a subnormal replaced by the zero of its sign.
    fn flush(self, bits: u64) -> u64 {
        if self.is_subnormal(bits) {
            bits & self.sign_bit()
        } else {
            bits
        }
    }
}

impl FloatOp {
    /// The result's bits (zero-extended) from the operands' bits (their low
    /// bits; higher bits are ignored).
    pub fn eval(self, a: i64, b: i64) -> i64 {
        let ty = self.ty;
        let (mut a, mut b) = (a as u64 & ty.mask(), b as u64 & ty.mask());
        if self.ftz {
            a = ty.flush(a);
            b = ty.flush(b);
        }
        let r = match self.kind {
            FloatKind::Add => {
                // binary16 and bfloat16 sums are computed in binary64 and
                // rounded once more: 53 >= 2 * 11 + 2 bits, so the double
                // rounding gives the correctly rounded sum.
                let s = match ty {
                    FloatTy::F32 => {
                        let s = f32::from_bits(a as u32) + f32::from_bits(b as u32);
                        f64::from(s)
                    }
                    _ => ty.to_f64(a) + ty.to_f64(b),
                };
                ty.from_f64(s)
            }
            FloatKind::Min | FloatKind::Max => match (ty.is_nan(a), ty.is_nan(b)) {
                (true, true) => ty.canonical_nan(),
                (true, false) => b,
                (false, true) => a,
                (false, false) => {
                    let (x, y) = (ty.to_f64(a), ty.to_f64(b));
                    // -0 below +0: compare the signs when equal.
                    let a_below = x < y || (x == y && a & ty.sign_bit() != 0);
                    if a_below == (self.kind == FloatKind::Min) {
                        a
                    } else {
                        b
                    }
                }
            },
        };
        let r = if self.ftz { ty.flush(r) } else { r };
        r as i64
    }

    /// The register mnemonic (`add.f32`, `min.ftz.f16`, ...).
    pub fn spelling(self) -> &'static str {
        use FloatKind::*;
        use FloatTy::*;
        match (self.kind, self.ftz, self.ty) {
            (Add, false, F16) => "add.f16",
            (Add, false, Bf16) => "add.bf16",
            (Add, false, F32) => "add.f32",
            (Add, false, F64) => "add.f64",
            (Add, true, F16) => "add.ftz.f16",
            (Add, true, Bf16) => "add.ftz.bf16",
            (Add, true, F32) => "add.ftz.f32",
            (Add, true, F64) => "add.ftz.f64",
            (Min, false, F16) => "min.f16",
            (Min, false, Bf16) => "min.bf16",
            (Min, false, F32) => "min.f32",
            (Min, false, F64) => "min.f64",
            (Min, true, F16) => "min.ftz.f16",
            (Min, true, Bf16) => "min.ftz.bf16",
            (Min, true, F32) => "min.ftz.f32",
            (Min, true, F64) => "min.ftz.f64",
            (Max, false, F16) => "max.f16",
            (Max, false, Bf16) => "max.bf16",
            (Max, false, F32) => "max.f32",
            (Max, false, F64) => "max.f64",
            (Max, true, F16) => "max.ftz.f16",
            (Max, true, Bf16) => "max.ftz.bf16",
            (Max, true, F32) => "max.ftz.f32",
            (Max, true, F64) => "max.ftz.f64",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: FloatKind, ty: FloatTy) -> FloatOp {
        FloatOp {
            kind,
            ty,
            ftz: false,
        }
    }

    #[test]
    fn f32_add_is_ieee() {
        let add = op(FloatKind::Add, FloatTy::F32);
        let one = 1f32.to_bits() as i64;
        assert_eq!(add.eval(one, one), 2f32.to_bits() as i64);
        // The smallest subnormals add; with ftz they are zeros.
        assert_eq!(add.eval(0, 1), 1);
        let ftz = FloatOp { ftz: true, ..add };
        assert_eq!(ftz.eval(0, 1), 0);
        assert_eq!(ftz.eval(0x8000_0001, 0x8000_0000), 0x8000_0000);
        // inf + -inf is the canonical NaN.
        let (pinf, ninf) = (0x7f80_0000i64, 0xff80_0000u32 as i64);
        assert_eq!(add.eval(pinf, ninf), 0x7fff_ffff);
    }

    #[test]
    fn f16_round_trip_and_rounding() {
        let t = FloatTy::F16;
        for bits in 0..=0xffffu64 {
            if !t.is_nan(bits) {
                assert_eq!(t.from_f64(t.to_f64(bits)), bits, "{bits:#x}");
            }
        }
        let add = op(FloatKind::Add, t);
        // 1.0 + 1.0 = 2.0; 1.0 + 2^-11 (half an ulp) ties to even (1.0),
        // 1.0 + 0.75 ulp rounds up, 1.0 + 1.5 ulp ties to even (1.0 + 2 ulp).
        assert_eq!(add.eval(0x3c00, 0x3c00), 0x4000);
        assert_eq!(add.eval(0x3c00, 0x1000), 0x3c00);
        assert_eq!(add.eval(0x3c00, 0x1200), 0x3c01);
        assert_eq!(add.eval(0x3c00, 0x1600), 0x3c02);
        // 65504 + 65504 overflows to inf; the smallest subnormals add.
        assert_eq!(add.eval(0x7bff, 0x7bff), 0x7c00);
        assert_eq!(add.eval(1, 1), 2);
        assert_eq!(add.eval(0x8001, 1), 0);
    }

    #[test]
    fn bf16_rounding() {
        let t = FloatTy::Bf16;
        for bits in 0..=0xffffu64 {
            if !t.is_nan(bits) {
                assert_eq!(t.from_f64(t.to_f64(bits)), bits, "{bits:#x}");
            }
        }
        let add = op(FloatKind::Add, t);
        assert_eq!(add.eval(0x3f80, 0x3f80), 0x4000);
        // 1 + 2^-8 ties to even: 1; 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
        assert_eq!(add.eval(0x3f80, 0x3b80), 0x3f80);
        assert_eq!(add.eval(0x3f80, 0x3c40), 0x3f82);
    }

    #[test]
    fn min_max_nan_and_zeros() {
        for ty in [FloatTy::F16, FloatTy::Bf16, FloatTy::F32, FloatTy::F64] {
            let (min, max) = (op(FloatKind::Min, ty), op(FloatKind::Max, ty));
            let nz = ty.sign_bit() as i64;
            let nan = ty.canonical_nan() as i64;
            assert_eq!(min.eval(0, nz), nz, "{ty:?}");
            assert_eq!(min.eval(nz, 0), nz, "{ty:?}");
            assert_eq!(max.eval(nz, 0), 0, "{ty:?}");
            let one = ty.from_f64(1.0) as i64;
            assert_eq!(min.eval(nan, one), one);
            assert_eq!(max.eval(one, nan), one);
            assert_eq!(max.eval(nan, nan | 1), nan);
            let two = ty.from_f64(2.0) as i64;
            let neg = ty.from_f64(-3.0) as i64;
            assert_eq!(min.eval(two, neg), neg);
            assert_eq!(max.eval(two, neg), two);
        }
    }
}
