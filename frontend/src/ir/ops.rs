//! Register operands and arithmetic: what `add`, `setp`, `selp` and the
//! other ALU instructions compute (no memory event).

use super::*;

/// A value operand: a constant or a register.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Operand {
    /// An immediate.
    Imm(i64),
    /// A register of the executing thread.
    Reg(RegId),
}

/// Register arithmetic (no memory event).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BinOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `div` (division by zero yields 0, as in integer SMT encodings of the corpus' verifier)
    Div,
    /// `rem`
    Rem,
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
    /// `shl`
    Shl,
    /// `shr`
    Shr,
    /// `min`
    Min,
    /// `max`
    Max,
    /// `mbarrier.test_wait.parity`'s result ([`mbarrier::parity_done`]; no PTX spelling).
    MbarrierParityDone,
    /// `mbarrier.test_wait`'s result with a state ([`mbarrier::state_done`]; no PTX spelling).
    MbarrierStateDone,
    /// `setp.CMP.TYPE`: 1 when `a cmp b` holds, 0 otherwise, both operands read
    /// as `bits`-bit integers, signed or unsigned (`lo ls hi hs` are the unsigned
    /// `lt le gt ge`; `.b` types compare unsigned).
    Setp {
        /// The comparison.
        cmp: CmpOp,
        /// Whether the operands are read as signed integers.
        signed: bool,
        /// Width of the operands: 16, 32 or 64.
        bits: u8,
    },
    /// `cvt` between integer types: `a` truncated to `bits` bits, then sign-
    /// or zero-extended to 64 (`b` is ignored).
    Ext {
        /// Sign extension (else zero extension).
        signed: bool,
        /// Width: 8, 16, 32 or 64.
        bits: u8,
    },
    /// `popc.bN`: the number of one bits among the low `bits` bits of `a` (`b` is ignored).
    Popc {
        /// Width: 32 or 64.
        bits: u8,
    },
    /// `abs`: `|a|`, wrapping (`b` is ignored).
    Abs,
    /// `add`/`min`/`max` `{.ftz}.{f16,bf16,f32,f64}` on bit patterns
    /// ([`FloatOp`]: round to nearest even, canonical NaN).
    Float(FloatOp),
    /// `mul.hi.TYPE`: the high `bits` bits of the `2 * bits`-bit product of
    /// `a` and `b` read as `bits`-bit integers, extended to 64 bits.
    MulHi {
        /// Signed operands (else unsigned).
        signed: bool,
        /// Width: 16, 32 or 64.
        bits: u8,
    },
    /// `bfe.TYPE d, a, pos, len`: the field of `len` bits of `a` starting at
    /// bit `pos`, zero- or sign-extended; `b` packs `pos & 0xff | (len & 0xff) << 8`.
    Bfe {
        /// `.sN`: the field's top bit is replicated (else zeros).
        signed: bool,
        /// Width of `a`: 32 or 64.
        bits: u8,
    },
    /// `shf.{l,r}.{wrap,clamp}.b32 d, lo, hi, n` on `a = hi << 32 | lo`
    /// (a 64-bit value) and `b = n`: the upper 32 bits of `a << n` (`left`)
    /// or the lower 32 bits of `a >> n`; `n` is `n & 31` (`wrap`) or
    /// `min(n, 32)` (`clamp`, unsigned).
    Shf {
        /// `shf.l` (else `shf.r`).
        left: bool,
        /// `.clamp` (else `.wrap`).
        clamp: bool,
    },
    /// `prmt.b32{.mode} d, x, y, s` on `a = y << 32 | x` (bytes 0-3 from
    /// `x`, 4-7 from `y`) and `b = s`: each result byte chosen by `s`.
    Prmt {
        /// The mode.
        mode: PrmtMode,
    },
    /// `clz.bN`: leading zeros among the low `bits` bits of `a` (`b` is ignored).
    Clz {
        /// Width: 32 or 64.
        bits: u8,
    },
    /// `brev.bN`: the low `bits` bits of `a` reversed (`b` is ignored).
    Brev {
        /// Width: 32 or 64.
        bits: u8,
    },
}

/// The byte selection of `prmt` (`prmt.b32` and its modes).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum PrmtMode {
    /// No mode: each nibble of the selector picks a byte; its bit 3
    /// replicates that byte's sign bit.
    Generic,
    /// `.f4e` (forward 4 extract).
    F4e,
    /// `.b4e` (backward 4 extract).
    B4e,
    /// `.rc8` (replicate 8).
    Rc8,
    /// `.ecl` (edge clamp left).
    Ecl,
    /// `.ecr` (edge clamp right).
    Ecr,
    /// `.rc16` (replicate 16).
    Rc16,
}

impl BinOp {
    /// Whether the operation reads only its first operand (`cvt`, `popc`, `abs`).
    pub fn is_unary(self) -> bool {
        matches!(
            self,
            BinOp::Ext { .. }
                | BinOp::Popc { .. }
                | BinOp::Abs
                | BinOp::Clz { .. }
                | BinOp::Brev { .. }
        )
    }

    /// Evaluates the operation on 64-bit integers. Wraps on overflow; division
    /// and remainder by zero give 0 (as the corpus' verifier does); shifts by a
    /// negative amount or by 64 or more give 0 (`shl`) or the sign (`shr`,
    /// arithmetic).
    pub fn eval(self, a: i64, b: i64) -> i64 {
        match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => {
                if b == 0 {
                    0
                } else {
                    a.wrapping_div(b)
                }
            }
            BinOp::Rem => {
                if b == 0 {
                    0
                } else {
                    a.wrapping_rem(b)
                }
            }
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Shl => {
                if (0..64).contains(&b) {
                    a << b
                } else {
                    0
                }
            }
            BinOp::Shr => {
                if (0..64).contains(&b) {
                    a >> b
                } else if a < 0 {
                    -1
                } else {
                    0
                }
            }
            BinOp::Min => a.min(b),
            BinOp::Max => a.max(b),
            BinOp::MbarrierParityDone => mbarrier::parity_done(a, b),
            BinOp::MbarrierStateDone => mbarrier::state_done(a, b),
            BinOp::Setp { cmp, signed, bits } => {
                let (x, y) = (extend(a, signed, bits), extend(b, signed, bits));
                let holds = if signed {
                    cmp.eval(x, y)
                } else {
                    cmp.eval_unsigned(x as u64, y as u64)
                };
                i64::from(holds)
            }
            BinOp::Ext { signed, bits } => extend(a, signed, bits),
            BinOp::Popc { bits } => i64::from(extend(a, false, bits).count_ones() as u8),
            BinOp::Abs => a.wrapping_abs(),
            BinOp::Float(f) => f.eval(a, b),
            BinOp::MulHi { signed, bits } => mul_hi(a, b, signed, bits),
            BinOp::Bfe { signed, bits } => bfe(a, b & 0xff, (b >> 8) & 0xff, signed, bits),
            BinOp::Shf { left, clamp } => {
                let n = if clamp {
                    (b as u64).min(32) as u32
                } else {
                    (b & 31) as u32
                };
                let v = a as u64;
                let r = if left { (v << n) >> 32 } else { v >> n };
                i64::from(r as u32)
            }
            BinOp::Prmt { mode } => prmt(a as u64, b as u64, mode),
            BinOp::Clz { bits } => {
                let v = extend(a, false, bits) as u64;
                i64::from(v.leading_zeros()) - (64 - i64::from(bits))
            }
            BinOp::Brev { bits } => {
                let v = extend(a, false, bits) as u64;
                (v.reverse_bits() >> (64 - u32::from(bits))) as i64
            }
        }
    }
}

/// `mul.hi`: the high half of the double-width product (PTX ISA 9.7.1.6).
fn mul_hi(a: i64, b: i64, signed: bool, bits: u8) -> i64 {
    let (x, y) = (extend(a, signed, bits), extend(b, signed, bits));
    let hi = if signed {
        (i128::from(x) * i128::from(y)) >> bits
    } else {
        ((u128::from(x as u64 & mask(bits)) * u128::from(y as u64 & mask(bits))) >> bits) as i128
    };
    extend(hi as i64, signed, bits)
}

fn mask(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `bfe` (PTX ISA 9.7.1.21): bits `pos..pos+len` of `a` (read as `bits`
/// bits); above the field, zeros or the field's top bit (`signed`, the
/// input's top bit where the field runs past it); a length of 0 gives 0.
fn bfe(a: i64, pos: i64, len: i64, signed: bool, bits: u8) -> i64 {
    if len == 0 {
        return 0;
    }
    let msb = i64::from(bits) - 1;
    let v = a as u64 & mask(bits);
    let bit = |i: i64| (v >> i) & 1;
    let sbit = if signed {
        bit((pos + len - 1).min(msb))
    } else {
        0
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let b = if i < len && pos + i <= msb {
            bit(pos + i)
        } else {
            sbit
        };
        d |= b << i;
    }
    extend(d as i64, signed, bits)
}

/// `prmt` (PTX ISA 9.7.8.7): bytes 0-7 of `v` (`b << 32 | a`) chosen by the selector `s`.
fn prmt(v: u64, s: u64, mode: PrmtMode) -> i64 {
    let byte = |i: u64| (v >> (8 * (i & 7))) & 0xff;
    let sel: [u64; 4] = match mode {
        PrmtMode::Generic => {
            let mut out = 0u64;
            for k in 0..4 {
                let n = (s >> (4 * k)) & 0xf;
                let b = byte(n & 7);
                let b = if n & 8 != 0 {
                    if b & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    b
                };
                out |= b << (8 * k);
            }
            return out as i64;
        }
        _ => {
            let s = s & 3;
            match mode {
                PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
                PrmtMode::B4e => [s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7],
                PrmtMode::Rc8 => [s; 4],
                PrmtMode::Ecl => [s, s.max(1), s.max(2), 3],
                PrmtMode::Ecr => [0, s.min(1), s.min(2), s],
                _ => {
                    let lo = (s & 1) * 2;
                    [lo, lo + 1, lo, lo + 1]
                }
            }
        }
    };
    let mut out = 0u64;
    for (k, &i) in sel.iter().enumerate() {
        out |= byte(i) << (8 * k);
    }
    out as i64
}

/// `v` truncated to its low `bits` bits, then sign- or zero-extended to 64 bits.
pub fn extend(v: i64, signed: bool, bits: u8) -> i64 {
    if bits == 0 || bits >= 64 {
        return v;
    }
    let shift = 64 - u32::from(bits);
    if signed {
        (v << shift) >> shift
    } else {
        ((v as u64) << shift >> shift) as i64
    }
}

/// Comparison of a conditional branch or of a `setp`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// Evaluates the comparison.
    pub fn eval(self, a: i64, b: i64) -> bool {
        self.eval_ord(a, b)
    }

    /// Evaluates the comparison on unsigned integers.
    pub fn eval_unsigned(self, a: u64, b: u64) -> bool {
        self.eval_ord(a, b)
    }

    fn eval_ord<T: Ord>(self, a: T, b: T) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}
