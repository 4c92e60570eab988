//! The floating-point forms of `multimem.st`, `multimem.red` and
//! `multimem.ld_reduce` (8.2.3 multimem addresses; 8.2.4 vectors; 8.2.5
//! packed data).
//!
//! A value is the bit pattern of its type held in an integer (as for
//! `ld`/`st.f32`). Each location of the multimem address gets the scalar
//! operations of the value: one per vector element (8.2.4: "a set of
//! equivalent memory operations with a scalar data type"), two 16-bit ones
//! per `.f16x2`/`.bf16x2` element (8.2.5: "a pair of equivalent memory
//! operations on the scalar data type"), element k at its byte offset.
//! `multimem.st` stores the bits; `multimem.red` is one floating-point
//! reduction (`RmwOp::Float`, an atomic RMW) per part and location;
//! `multimem.ld_reduce` loads every part of every location and combines the
//! loads of each part with the floating-point operation (`BinOp::Float`:
//! round to nearest even, subnormals kept, canonical NaN;
//! `docs/model-notes.md` "Floating-point multimem reductions"). With
//! `.release` (`.acquire`) all the accesses follow one `unordered N`: the
//! order of the elements and of the locations is not specified.

use super::instr::{Check, Value};
use super::operand::Operand;
use super::{PResult, Parser};
use crate::ir::{
    Access, AddrId, BinOp, FloatKind, FloatOp, FloatTy, Instr, Operand as Val, Proxy, RegId, RmwOp,
    Scope, Sem, Span, StateSpace,
};

/// The floating-point type of a `multimem{.vec}.type`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct FloatForm {
    /// The scalar format (of each half, for a packed type).
    pub ty: FloatTy,
    /// `.f16x2` / `.bf16x2`: each element is two 16-bit values (8.2.5).
    pub packed: bool,
    /// `.v2`, `.v4`, `.v8` (1 without).
    pub vec: u8,
}

impl FloatForm {
    /// Bytes of one vector element (`.f16x2`: 4).
    pub fn elem(self) -> u8 {
        self.ty.bytes() * if self.packed { 2 } else { 1 }
    }

    /// The scalar parts of one location: (byte offset, element, half).
    fn parts(self) -> Vec<(u32, usize, usize)> {
        let mut out = Vec::new();
        for k in 0..usize::from(self.vec) {
            let at = u32::from(self.elem()) * k as u32;
            out.push((at, k, 0));
            if self.packed {
                out.push((at + 2, k, 1));
            }
        }
        out
    }
}

/// The scalar format and packing of a floating-point type word.
pub(super) fn float_type(w: &str) -> Option<(FloatTy, bool)> {
    match w {
        "f16x2" => Some((FloatTy::F16, true)),
        "bf16x2" => Some((FloatTy::Bf16, true)),
        _ => FloatTy::of_word(w).map(|t| (t, false)),
    }
}

/// What the multimem instruction does, as `multimem.rs` read it.
pub(super) struct FloatInstr<'a> {
    pub kind: &'a str,
    pub sem: Sem,
    pub scope: Option<Scope>,
    /// `red` / `ld_reduce`: the operation.
    pub op: Option<FloatKind>,
    pub form: FloatForm,
    pub text: &'a str,
    pub span: Span,
}

impl Parser<'_> {
    /// Lowers a floating-point `multimem.*` of thread `t` on the locations
    /// `members`; `value` is the stored or reduced operand (`st`, `red`) or
    /// the destination (`ld_reduce`). `Ok(Some(reason))` when the form is not
    /// checkable (nothing emitted).
    pub(super) fn multimem_float(
        &mut self,
        t: usize,
        f: &FloatInstr<'_>,
        members: &[AddrId],
        value: &Operand<'_>,
    ) -> PResult<Option<String>> {
        let c = Check {
            instr: f.text,
            span: f.span,
        };
        if f.kind == "ld_reduce" {
            let kind = f.op.unwrap_or(FloatKind::Add);
            // A sum of three or more values depends on the order in which
            // they are added, which the instruction leaves open.
            if kind == FloatKind::Add && members.len() > 2 {
                return Ok(Some(format!(
                    "{} on {} locations (the order of a floating-point sum of more than two values is not specified)",
                    f.text,
                    members.len()
                )));
            }
            let dst = c.regs("destination", value, f.form.vec)?;
            self.multimem_ld_reduce_float(t, f, kind, members, &dst);
            return Ok(None);
        }
        let values = c.values("source", value, f.form.vec)?;
        let operands = self.float_parts(t, f.form, &values, f.span);
        let parts = f.form.parts();
        let total = members.len() * parts.len();
        if f.sem.is_release() && total > 1 {
            self.push(t, Instr::Unordered(total as u32), f.span);
        }
        let op = FloatOp {
            kind: FloatKind::Add,
            ty: f.form.ty,
            ftz: false,
        };
        let bytes = f.form.ty.bytes();
        for &m in members {
            let name = self.b.addr_name(m).unwrap_or_default();
            for (&(at, _, _), &v) in parts.iter().zip(&operands) {
                let addr = self.b.addr_at(&name, at);
                let access = Access { bytes, vector: 1 };
                let instr = match f.kind {
                    "st" => Instr::Store {
                        sem: f.sem,
                        scope: f.scope,
                        proxy: Proxy::Generic,
                        space: StateSpace::Global,
                        access,
                        addr,
                        src: vec![v],
                    },
                    _ => Instr::Rmw {
                        sem: f.sem,
                        scope: f.scope.unwrap_or(Scope::Gpu),
                        proxy: Proxy::Generic,
                        space: StateSpace::Global,
                        access,
                        op: RmwOp::Float(op),
                        dst: None,
                        addr,
                        a: v,
                        b: None,
                    },
                };
                self.push(t, instr, f.span);
            }
        }
        Ok(None)
    }

    /// The operand of each scalar part (in [`FloatForm::parts`] order): the
    /// value itself, or the halves of a packed value (`lo = r & 0xffff`,
    /// `hi = (r >> 16) & 0xffff`, computed into `%__mmN_i` temporaries).
    fn float_parts(
        &mut self,
        t: usize,
        form: FloatForm,
        values: &[Value<'_>],
        span: Span,
    ) -> Vec<Val> {
        let n = self.b.threads[t].code.len();
        let mut out = Vec::new();
        for (k, &v) in values.iter().enumerate() {
            if !form.packed {
                out.push(self.val(t, v));
                continue;
            }
            match v {
                Value::Imm(x) => {
                    out.push(Val::Imm(x & 0xffff));
                    out.push(Val::Imm((x >> 16) & 0xffff));
                }
                Value::Reg(r) => {
                    // Interned in the order the printed arithmetic names them.
                    let lo = self.b.reg(t, &format!("__mm{n}_{}", 2 * k));
                    let r = self.b.reg(t, r);
                    let hi = self.b.reg(t, &format!("__mm{n}_{}", 2 * k + 1));
                    for (dst, op, a, b) in [
                        (lo, BinOp::And, r, 0xffff),
                        (hi, BinOp::Shr, r, 16),
                        (hi, BinOp::And, hi, 0xffff),
                    ] {
                        let (a, b) = (Val::Reg(a), Val::Imm(b));
                        self.push(t, Instr::Op { op, dst, a, b }, span);
                    }
                    out.push(Val::Reg(lo));
                    out.push(Val::Reg(hi));
                }
            }
        }
        out
    }

    /// `multimem.ld_reduce` of a floating-point type: every part of every
    /// location loaded into a temporary, then each part's loads combined
    /// with `kind` into the destination register of its element (a packed
    /// element: `lo | hi << 16` of its two halves' results).
    fn multimem_ld_reduce_float(
        &mut self,
        t: usize,
        f: &FloatInstr<'_>,
        kind: FloatKind,
        members: &[AddrId],
        dst: &[&str],
    ) {
        let span = f.span;
        let n = self.b.threads[t].code.len();
        let parts = f.form.parts();
        let total = members.len() * parts.len();
        if f.sem.is_acquire() && total > 1 {
            self.push(t, Instr::Unordered(total as u32), span);
        }
        let load = MemberLoad {
            sem: f.sem,
            scope: f.scope,
            bytes: f.form.ty.bytes(),
        };
        // temps[part][member]
        let mut temps: Vec<Vec<RegId>> = vec![Vec::new(); parts.len()];
        let mut i = 0;
        for &m in members {
            let name = self.b.addr_name(m).unwrap_or_default();
            for (p, &(at, _, _)) in parts.iter().enumerate() {
                let addr = self.b.addr_at(&name, at);
                temps[p].push(self.member_load(t, load, (n, i), addr, span));
                i += 1;
            }
        }
        let op = BinOp::Float(FloatOp {
            kind,
            ty: f.form.ty,
            ftz: false,
        });
        for (p, &(_, k, half)) in parts.iter().enumerate() {
            if !f.form.packed {
                let d = self.b.reg(t, dst[k]);
                self.fold_regs(t, d, op, &temps[p], span);
                continue;
            }
            // The half's result in a temporary; the high half then joins
            // the low one in the element's register.
            let r = self.b.reg(t, &format!("__mm{n}_{i}"));
            i += 1;
            self.fold_regs(t, r, op, &temps[p], span);
            if half == 1 {
                let lo = self.b.reg(t, &format!("__mm{n}_{}", i - 2));
                let d = self.b.reg(t, dst[k]);
                let (a, b) = (Val::Reg(r), Val::Imm(16));
                self.push(
                    t,
                    Instr::Op {
                        op: BinOp::Shl,
                        dst: r,
                        a,
                        b,
                    },
                    span,
                );
                let (a, b) = (Val::Reg(lo), Val::Reg(r));
                self.push(
                    t,
                    Instr::Op {
                        op: BinOp::Or,
                        dst: d,
                        a,
                        b,
                    },
                    span,
                );
            }
        }
    }
}

/// The form of each load of a `multimem.ld_reduce` ([`Parser::member_load`]).
#[derive(Copy, Clone)]
pub(super) struct MemberLoad {
    pub sem: Sem,
    pub scope: Option<Scope>,
    /// Bytes of one load: the integer type's, or one scalar part's.
    pub bytes: u8,
}

impl Parser<'_> {
    /// One load of `multimem.ld_reduce` (of a location of the multimem
    /// address, `multimem.rs`, or of one scalar part of it) into the
    /// temporary `%__mm{n}_{i}` of `(n, i)` (`n` the thread's statement
    /// count when the instruction began), which it returns.
    pub(super) fn member_load(
        &mut self,
        t: usize,
        f: MemberLoad,
        (n, i): (usize, usize),
        addr: AddrId,
        span: Span,
    ) -> RegId {
        let r = self.b.reg(t, &format!("__mm{n}_{i}"));
        self.push(
            t,
            Instr::Load {
                sem: f.sem,
                scope: f.scope,
                proxy: Proxy::Generic,
                space: StateSpace::Global,
                access: Access {
                    bytes: f.bytes,
                    vector: 1,
                },
                dst: vec![r],
                addr,
            },
            span,
        );
        r
    }
}
