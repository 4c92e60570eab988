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
}

impl BinOp {
    /// Whether the operation reads only its first operand (`cvt`, `popc`, `abs`).
    pub fn is_unary(self) -> bool {
        matches!(self, BinOp::Ext { .. } | BinOp::Popc { .. } | BinOp::Abs)
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
        }
    }
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
