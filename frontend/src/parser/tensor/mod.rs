//! The `cp.async.bulk.tensor` family and `.multicast::cluster` bulk copies,
//! lowered to what the model already has (`docs/model-notes.md`,
//! "cp.async.bulk.tensor and multicast").
//!
//! A litmus tensor map is a location `tmap` declared with the tensors its
//! values describe, `tmap @ tensormap g0, g1 box 8;`: the map holding value
//! `k` describes a one-dimensional tensor of bytes at `g_k` whose box (tile)
//! is `box` bytes (4 when omitted). 8.6 names "async-proxy and
//! tensormap-proxy accesses by .async.bulk operations", so an instruction
//! `cp.async.bulk.tensor ... [tmap, {c0}] ...` becomes
//!
//! 1. a weak 32-bit read of `tmap` through the tensormap proxy, into a
//!    temporary register;
//! 2. a dispatch on the value read (`bne` per value; none matching: no
//!    copy): for value `k`, the bulk copy (`AsyncInstr::Copy`, async proxy)
//!    of the `box` bytes at byte `c0` of `g_k`, with its mbarrier
//!    complete-tx or its bulk async-group as `cp.async.bulk` has.
//!
//! `.multicast::cluster` with a constant `ctaMask` writes each CTA of the
//! mask: one copy per set bit `i`, into the instance of the destination in
//! the CTA of `%cluster_ctarank` `i` and completing on that CTA's instance of
//! the mbarrier, as declared by `s @ cluster s0, s1;`. The prefetch is the
//! read of the map alone.
//!
//! Coordinates and masks are immediates or registers that the straight-line
//! code before sets from a constant; shared-memory and mbarrier operands may
//! be register-held (not under multicast). Forms outside this (other
//! registers, `.im2col`, modes such as `.tile::gather4`, a map without a
//! declaration) parse and are reported unsupported with the reason.

mod form;
#[cfg(test)]
mod tests;

use super::builder::TensorMapDecl;
use super::instr::{Check, MemAddr};
use super::operand::{OpKind, Operand};
use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{
    Access, AddrOperand, AsyncInstr, CmpOp, Instr, Operand as Val, Proxy, RmwOp, Sem, Span,
    StateSpace,
};
use crate::lexer::Tok;
use form::{Form, Kind, Mode};

/// The largest box ptxmc takes: a copy of more bytes is not cut into scalar
/// accesses (`MAX_COPY` of the checker's `sizes/async_access.rs`).
const MAX_BOX: i64 = 1 << 20;

/// A byte of memory an operand names.
#[derive(Clone, Debug)]
enum Place<'s> {
    /// A location and byte offset.
    At(String, u32),
    /// The tile at this byte of the tensor the map's value names.
    Tensor(u32),
    /// A register-held address `[%rd+N]` (the operand), resolved as for
    /// `cp.async.bulk` (`parser/addresses`).
    Reg(Operand<'s>, &'s str, i64),
}

/// One copy of a lowering.
#[derive(Clone, Debug)]
struct CopyPlan<'s> {
    dst: Place<'s>,
    dst_space: StateSpace,
    src: Place<'s>,
    src_space: StateSpace,
    size: i64,
    mbar: Option<Place<'s>>,
    reduce: Option<RmwOp>,
}

/// What an instruction of the family lowers to.
struct Plan<'s> {
    /// The map read first, with the tensors of its values (tensor forms).
    map: Option<(String, Vec<String>)>,
    copies: Vec<CopyPlan<'s>>,
}

/// `Err(reason)`: the form parses but ptxmc does not check it.
type Planned<'s> = Result<Plan<'s>, String>;

impl<'s> Parser<'s> {
    /// `tmap @ tensormap g0, g1 {box B}` (after `tensormap`).
    pub(super) fn tensormap_decl(&mut self, name: &str, span: Span) -> PResult<()> {
        let bad = |msg: String, span| ParseError::new(ParseErrorKind::BadDeclaration(msg), span);
        if !self.b.is_declared_location(name) {
            return Err(bad(
                format!("the tensor map `{name}` must be declared as a location (`{name}=0;`) before `{name} @ tensormap`"),
                span,
            ));
        }
        if self.b.tensormaps.iter().any(|m| m.name == name) {
            return Err(bad(format!("a second `{name} @ tensormap`"), span));
        }
        let tensors = self.declared_members(name, "tensormap")?;
        let mut box_bytes = 4;
        if self.at_word("box") {
            self.bump();
            let (b, bspan) = self.integer("the box size in bytes")?;
            if !(1..MAX_BOX).contains(&b) {
                return Err(bad(
                    format!("the box of `{name}` must be 1 to {} bytes", MAX_BOX - 1),
                    bspan,
                ));
            }
            box_bytes = b;
        }
        self.b.declarations.push(format!(
            "{name} @ tensormap {} box {box_bytes}",
            tensors.join(", ")
        ));
        self.b.tensormaps.push(TensorMapDecl {
            name: name.to_string(),
            tensors,
            box_bytes,
        });
        Ok(())
    }

    /// `s @ cluster s0, s1` (after `cluster`): the instance of `s` in the
    /// CTA of each `%cluster_ctarank`.
    pub(super) fn cluster_decl(&mut self, name: &str, span: Span) -> PResult<()> {
        if self.b.cluster_instances.iter().any(|(n, _)| n == name) {
            return Err(ParseError::new(
                ParseErrorKind::BadDeclaration(format!("a second `{name} @ cluster`")),
                span,
            ));
        }
        let members = self.declared_members(name, "cluster")?;
        self.b
            .declarations
            .push(format!("{name} @ cluster {}", members.join(", ")));
        self.b.cluster_instances.push((name.to_string(), members));
        Ok(())
    }

    /// `a, b, ...`: locations declared before `name @ what`.
    fn declared_members(&mut self, name: &str, what: &str) -> PResult<Vec<String>> {
        let mut members = Vec::new();
        loop {
            let t = self.peek();
            if t.tok != Tok::Ident {
                return Err(self.expected("a location name"));
            }
            let member = self.location_name()?;
            if !self.b.is_declared_location(member) {
                return Err(ParseError::new(
                    ParseErrorKind::BadDeclaration(format!(
                        "`{member}` must be declared before `{name} @ {what}` names it"
                    )),
                    t.span,
                ));
            }
            members.push(member.to_string());
            if !self.at(Tok::Comma) {
                return Ok(members);
            }
            self.bump();
        }
    }

    /// Parses an instruction of the family of thread `t` (mnemonic `text`
    /// already read, from token `start`); `false` (nothing read) when `text`
    /// is none of it.
    pub(super) fn tensor_instruction(
        &mut self,
        t: usize,
        text: &str,
        span: Span,
        start: usize,
    ) -> PResult<bool> {
        let Some(f) = form::form(text) else {
            return Ok(false);
        };
        let f = f.map_err(|reason| ParseError::bad_instruction(text, reason, span))?;
        let mut ops = self.operands(span.line)?;
        self.resolve_specials(t, &mut ops)?;
        let c = Check { instr: text, span };
        match self.tensor_plan(t, &c, &f, &ops)? {
            Ok(plan) => self.emit_tensor_plan(t, span, plan)?,
            Err(reason) => {
                let base = text.split('.').take(4).collect::<Vec<_>>().join(".");
                self.unsupported(t, start, format!("{base}: {reason}"), span);
            }
        }
        Ok(true)
    }

    /// Checks the operands of `f` and plans its lowering.
    fn tensor_plan(
        &self,
        t: usize,
        c: &Check<'_>,
        f: &Form,
        ops: &[Operand<'s>],
    ) -> PResult<Planned<'s>> {
        let modelled_mode = matches!(f.mode, Mode::Tile | Mode::Im2col);
        let (base, map_at) = match f.kind {
            Kind::Load { .. } => (3, Some(1)),
            Kind::Store | Kind::Reduce(_) => (2, Some(0)),
            Kind::Prefetch => (1, Some(0)),
            Kind::BulkMulticast => (5, None),
        };
        let im2col = usize::from(f.mode == Mode::Im2col && f.kind != Kind::BulkMulticast);
        let want = base
            + im2col
            + usize::from(f.multicast && f.kind != Kind::BulkMulticast)
            + usize::from(f.cache_hint);
        if modelled_mode && ops.len() != want {
            return Err(c.count(
                match want {
                    1 => "1 operand",
                    2 => "2 operands",
                    3 => "3 operands",
                    4 => "4 operands",
                    5 => "5 operands",
                    6 => "6 operands",
                    _ => "7 operands",
                },
                ops.len(),
            ));
        }
        // The tensor operand `[tmap, {c0, ...}]`, one coordinate per dimension.
        let mut map = None;
        if let Some(i) = map_at {
            let Some(op) = ops.get(i) else {
                return Err(c.count("a tensor operand `[tensorMap, {...}]`", ops.len()));
            };
            let OpKind::TensorAddr { name, coords } = &op.kind else {
                return Err(c.bad("tensor", "`[tensorMap, {c0, ...}]`", op));
            };
            if modelled_mode && coords.len() != usize::from(f.dims) {
                return Err(c.bad(
                    "tensor coordinates",
                    "one coordinate per dimension of `.Nd`",
                    op,
                ));
            }
            map = Some((*name, coords.as_slice()));
        }
        if let Some(q) = &f.unmodelled {
            return Ok(Err(format!("`.{q}` is not modelled")));
        }
        match &f.mode {
            Mode::Other(m) => {
                return Ok(Err(format!(
                    "the load mode `.{m}` is not modelled (only `.tile`)"
                )))
            }
            Mode::Im2col if f.kind != Kind::BulkMulticast => {
                return Ok(Err("`.im2col`: which elements the tile holds depends on the map's im2col geometry, which a litmus tensor map does not describe (only `.tile` is modelled)".into()));
            }
            _ => {}
        }
        // The tile: the map's declaration and the byte the coordinates name.
        let mut tensors = None;
        let mut tile_at = 0u32;
        let mut box_bytes = 0i64;
        if let Some((name, coords)) = map {
            let Some(decl) = self.b.tensormaps.iter().find(|m| m.name == name) else {
                return Ok(Err(format!(
                    "the tensor map `{name}` has no declaration `{name} @ tensormap TENSOR, ...` naming the tensors its values describe"
                )));
            };
            for (d, co) in coords.iter().enumerate() {
                let Some(v) = self.constant_operand(t, co) else {
                    return Ok(Err(format!(
                        "the coordinate `{}` is not a constant (ptxmc models constant coordinates, or registers set from one on the straight-line code before)",
                        co.text
                    )));
                };
                match (d, v) {
                    // The tile's byte, an address offset (`[g+N]`).
                    (0, v) if (0..crate::ir::MAX_ADDR_OFFSET - decl.box_bytes).contains(&v) => {
                        tile_at = v as u32
                    }
                    (0, _) => {
                        return Ok(Err(format!(
                            "the coordinate `{}` is outside the tensor",
                            co.text
                        )))
                    }
                    (_, 0) => {}
                    _ => {
                        return Ok(Err(format!(
                            "the coordinate `{}` of dimension {} is not 0: a litmus tensor map describes one row of bytes",
                            co.text,
                            d + 1
                        )))
                    }
                }
            }
            tensors = Some((name.to_string(), decl.tensors.clone()));
            box_bytes = decl.box_bytes;
        }
        let place = |op: &Operand<'s>| -> PResult<Place<'s>> {
            Ok(match c.mem_addr(op)? {
                MemAddr::Loc(n, o) => Place::At(n.to_string(), o),
                MemAddr::Reg(r, o) => Place::Reg(op.clone(), r, o),
            })
        };
        let copies = match f.kind {
            Kind::Prefetch => Vec::new(),
            Kind::Store | Kind::Reduce(_) => {
                let src = place(&ops[1])?;
                vec![CopyPlan {
                    dst: Place::Tensor(tile_at),
                    dst_space: StateSpace::Global,
                    src,
                    src_space: StateSpace::Shared,
                    size: box_bytes,
                    mbar: None,
                    reduce: match f.kind {
                        Kind::Reduce(op) => Some(op),
                        _ => None,
                    },
                }]
            }
            Kind::Load { .. } | Kind::BulkMulticast => {
                let (src, size, mbar_op) = if f.kind == Kind::BulkMulticast {
                    let size = match ops[2].kind {
                        OpKind::Int(i) if i > 0 => i,
                        _ => return Err(c.bad("size", "a positive integer", &ops[2])),
                    };
                    (place(&ops[1])?, size, &ops[3])
                } else {
                    (Place::Tensor(tile_at), box_bytes, &ops[2])
                };
                let dst_space = match f.kind {
                    Kind::Load { dst_space } => dst_space,
                    _ => StateSpace::SharedCluster,
                };
                let dst = place(&ops[0])?;
                let mbar = place(mbar_op)?;
                let targets = if f.multicast {
                    // After the mbarrier and any im2col offsets.
                    let mask_op = if f.kind == Kind::BulkMulticast {
                        &ops[4]
                    } else {
                        &ops[3 + im2col]
                    };
                    let (Place::At(d, dof), Place::At(m, mof)) = (dst, mbar) else {
                        return Ok(Err("`.multicast::cluster` with a register-held destination or mbarrier (the instances in each CTA are found by name: write locations)".into()));
                    };
                    match self.multicast_targets(t, c, mask_op, &(d, dof), &(m, mof))? {
                        Ok(v) => v
                            .into_iter()
                            .map(|((d, dof), (m, mof))| (Place::At(d, dof), Place::At(m, mof)))
                            .collect(),
                        Err(reason) => return Ok(Err(reason)),
                    }
                } else {
                    vec![(dst, mbar)]
                };
                targets
                    .into_iter()
                    .map(|(dst, m)| CopyPlan {
                        dst,
                        dst_space,
                        src: src.clone(),
                        src_space: StateSpace::Global,
                        size,
                        mbar: Some(m),
                        reduce: None,
                    })
                    .collect()
            }
        };
        Ok(Ok(Plan {
            map: tensors,
            copies,
        }))
    }

    /// The destination and mbarrier in each CTA of an immediate `ctaMask`
    /// (bit `i`: the CTA of `%cluster_ctarank` `i`), from the `@ cluster`
    /// declarations of both.
    #[allow(clippy::type_complexity)]
    fn multicast_targets(
        &self,
        t: usize,
        c: &Check<'_>,
        mask_op: &Operand<'_>,
        dst: &(String, u32),
        mbar: &(String, u32),
    ) -> PResult<Result<Vec<((String, u32), (String, u32))>, String>> {
        let mask = match self.constant_operand(t, mask_op) {
            Some(m) if (1..1 << 16).contains(&m) => m,
            Some(_) => {
                return Err(c.bad(
                    "ctaMask",
                    "a 16-bit mask with at least one bit set",
                    mask_op,
                ))
            }
            None => {
                return Ok(Err(format!(
                    "the ctaMask `{}` is not a constant (ptxmc models an immediate mask, or a register set from one on the straight-line code before)",
                    mask_op.text
                )))
            }
        };
        let instances = |name: &str| {
            self.b
                .cluster_instances
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, m)| m.clone())
        };
        let (Some(ds), Some(ms)) = (instances(&dst.0), instances(&mbar.0)) else {
            let missing = if instances(&dst.0).is_none() {
                &dst.0
            } else {
                &mbar.0
            };
            return Ok(Err(format!(
                "`.multicast::cluster` needs the instance of `{missing}` in each CTA of the cluster: declare `{missing} @ cluster {missing}0, {missing}1, ...`"
            )));
        };
        let mut out = Vec::new();
        for i in 0..16 {
            if mask & (1 << i) == 0 {
                continue;
            }
            match (ds.get(i), ms.get(i)) {
                (Some(d), Some(m)) => out.push(((d.clone(), dst.1), (m.clone(), mbar.1))),
                _ => {
                    return Err(ParseError::new(
                        ParseErrorKind::BadDeclaration(format!(
                            "bit {i} of the ctaMask names the CTA of rank {i}, but `{}` and `{}` have {} and {} `@ cluster` instances",
                            dst.0,
                            mbar.0,
                            ds.len(),
                            ms.len()
                        )),
                        mask_op.span,
                    ))
                }
            }
        }
        Ok(Ok(out))
    }

    /// The value of an integer operand of thread `t`: an immediate, or a
    /// register that the straight-line code before sets from a constant
    /// (as `bar.red`'s barrier id, `bar_red::constant_before`).
    fn constant_operand(&self, t: usize, op: &Operand<'_>) -> Option<i64> {
        match op.kind {
            OpKind::Int(v) => Some(v),
            OpKind::Name(n) => {
                let r = self.b.reg_lookup(t, n)?;
                super::bar_red::constant_before(&self.b.threads[t].code, r)
            }
            _ => None,
        }
    }

    /// Emits `plan` into thread `t`: the map read, then the copies under a
    /// dispatch on its value.
    fn emit_tensor_plan(&mut self, t: usize, span: Span, plan: Plan<'s>) -> PResult<()> {
        let Some((map, tensors)) = plan.map else {
            self.emit_copies(t, span, &plan.copies, None);
            return Ok(());
        };
        let reg = self.temp(t);
        let addr = self.b.addr_at(&map, 0);
        self.push(
            t,
            Instr::Load {
                sem: Sem::Weak,
                scope: None,
                proxy: Proxy::Tensormap,
                space: StateSpace::Global,
                access: Access {
                    bytes: 4,
                    vector: 1,
                },
                dst: vec![reg],
                addr,
            },
            span,
        );
        if plan.copies.is_empty() {
            return Ok(());
        }
        if let [tensor] = tensors.as_slice() {
            self.emit_copies(t, span, &plan.copies, Some(tensor));
            return Ok(());
        }
        // Labels are interned in the order the printed code names them
        // (`bne ..., next0`, `bra done`, `next0:`, `bne ..., next1`), so that
        // printing round-trips.
        let mut next = self.tensor_label(t, span)?;
        let done = self.tensor_label(t, span)?;
        for (k, tensor) in tensors.iter().enumerate() {
            if k > 0 {
                next = self.tensor_label(t, span)?;
            }
            self.push(
                t,
                Instr::Branch {
                    cmp: CmpOp::Ne,
                    a: Val::Reg(reg),
                    b: Val::Imm(k as i64),
                    target: next,
                },
                span,
            );
            self.emit_copies(t, span, &plan.copies, Some(tensor));
            self.push(t, Instr::Goto(done), span);
            self.push(t, Instr::Label(next), span);
        }
        self.push(t, Instr::Label(done), span);
        Ok(())
    }

    /// A fresh label of thread `t` for a dispatch.
    fn tensor_label(&mut self, t: usize, span: Span) -> PResult<crate::ir::LabelId> {
        let name = self.b.fresh(t, "$tm");
        let l = self.b.label_def(t, &name, span)?;
        self.b.label_use(t, &name, span);
        Ok(l)
    }

    /// The address of `p` for the copy about to be pushed (a register-held
    /// one leaves its `AddrReg` just before it, naming `which` operand).
    fn place_addr(
        &mut self,
        t: usize,
        p: &Place<'s>,
        which: AddrOperand,
        tensor: Option<&str>,
    ) -> crate::ir::AddrId {
        match p {
            Place::At(n, o) => self.b.addr_at(n, *o),
            // invariant: tensor places come with a map and its tensor.
            Place::Tensor(o) => self.b.addr_at(tensor.unwrap_or_default(), *o),
            Place::Reg(op, r, o) => self.intern_addr_as(t, MemAddr::Reg(r, *o), op, which, 1),
        }
    }

    /// The copies of a plan, the tile in `tensor`.
    fn emit_copies(&mut self, t: usize, span: Span, copies: &[CopyPlan<'s>], tensor: Option<&str>) {
        for cp in copies {
            // The operands in the order `cp.async.bulk` interns them.
            let dst = self.place_addr(t, &cp.dst, AddrOperand::Target, tensor);
            let src = self.place_addr(t, &cp.src, AddrOperand::Source, tensor);
            let mbar = cp
                .mbar
                .as_ref()
                .map(|m| self.place_addr(t, m, AddrOperand::Mbarrier, tensor));
            self.push(
                t,
                Instr::Async(AsyncInstr::Copy {
                    bulk: true,
                    sem: Sem::Weak,
                    scope: None,
                    dst,
                    dst_space: cp.dst_space,
                    src,
                    src_space: cp.src_space,
                    size: cp.size,
                    mbar,
                    reduce: cp.reduce,
                    continued: false,
                }),
                span,
            );
        }
    }
}
