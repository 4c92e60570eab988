//! The warpgroup matrix instructions `wgmma.fence`, `wgmma.mma_async`,
//! `wgmma.commit_group` and `wgmma.wait_group` (8.9.1.1; the instruction
//! descriptions, "Asynchronous Warpgroup Level Matrix Instructions").
//!
//! A matrix descriptor is a 64-bit register; a litmus test gives it the
//! address of the tile's location with `mov.b64 %rd1, tile` before the
//! `wgmma.mma_async` (the descriptor's start-address field, the rest of its
//! encoding has no meaning in the model). A descriptor set otherwise (as in
//! the manual's examples, where it comes from outside the snippet) leaves
//! the instruction `unsupported`: there is no location to read.
//! `docs/model-notes.md` ("wgmma") records the choices.

use super::operand::{OpKind, Operand as Op};
use super::{PResult, Parser};
use crate::error::ParseError;
use crate::ir::{self, AddrId, AsyncInstr, Instr, Operand, RegId, Span, WgmmaA, WgmmaSparse};

/// The forms of `wgmma`.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Form {
    Fence,
    Commit,
    Wait,
    /// The modifiers after `.sync.aligned` (shape, types), with their dots,
    /// and whether the form is the sparse one (`wgmma.mma_async.sp`).
    Mma(String, bool),
}

/// Reads a `wgmma.*` mnemonic; `None` when it is not one, `Some(Err)` when
/// it is malformed.
fn form(text: &str) -> Option<Result<Form, String>> {
    let rest = text.strip_prefix("wgmma.")?;
    let (word, mods) = rest.split_once('.').unwrap_or((rest, ""));
    let aligned = |m: &str| m == "sync.aligned";
    Some(match word {
        "fence" if aligned(mods) => Ok(Form::Fence),
        "commit_group" if aligned(mods) => Ok(Form::Commit),
        "wait_group" if aligned(mods) => Ok(Form::Wait),
        "mma_async" => {
            let (sparse, mods) = match mods.strip_prefix("sp.") {
                Some(rest) => (true, rest),
                None => (false, mods),
            };
            match mods.strip_prefix("sync.aligned") {
                Some(shape) if shape.starts_with(".m") => Ok(Form::Mma(shape.to_string(), sparse)),
                _ => Err(
                    "expected `wgmma.mma_async{.sp}.sync.aligned.SHAPE.DTYPE.ATYPE.BTYPE`".into(),
                ),
            }
        }
        _ => Err(format!(
            "expected `wgmma.{{fence,commit_group,wait_group}}.sync.aligned` or `wgmma.mma_async.sync.aligned...`, found `{text}`"
        )),
    })
}

impl<'s> Parser<'s> {
    /// Parses a `wgmma` instruction of thread `t` (mnemonic `text` already
    /// read); `false` (nothing read) when `text` is not one.
    pub(super) fn wgmma_instruction(
        &mut self,
        t: usize,
        text: &str,
        span: Span,
        start: usize,
    ) -> PResult<bool> {
        let Some(f) = form(text) else {
            return Ok(false);
        };
        let f = f.map_err(|reason| ParseError::bad_instruction(text, reason, span))?;
        let ops = self.operands(span.line)?;
        let c = super::instr::Check { instr: text, span };
        let instr = match f {
            Form::Fence | Form::Commit => {
                c.exactly::<0>(&ops, "no operands")?;
                if f == Form::Fence {
                    AsyncInstr::WgmmaFence
                } else {
                    AsyncInstr::WgmmaCommit
                }
            }
            Form::Wait => {
                let [n] = c.exactly::<1>(&ops, "1 operand (N)")?;
                match n.kind {
                    OpKind::Int(v) if (0..=i64::from(u32::MAX)).contains(&v) => {
                        AsyncInstr::WgmmaWait { pending: v as u32 }
                    }
                    _ => return Err(c.bad("N", "a non-negative integer", n)),
                }
            }
            Form::Mma(shape, sparse) => match self.mma(t, &c, shape, sparse, &ops)? {
                Some(i) => i,
                None => {
                    self.unsupported(
                        t,
                        start,
                        "wgmma.mma_async with a descriptor not set by `mov.b64 %rd, x` (x a declared location)".into(),
                        span,
                    );
                    return Ok(true);
                }
            },
        };
        self.push(t, Instr::Async(instr), span);
        Ok(true)
    }

    /// The operands `d, a, b-desc, scale-d{, imm...}` of `wgmma.mma_async`,
    /// `d, a, b-desc, sp-meta, sp-sel, scale-d{, imm...}` of the sparse form;
    /// `None` when a descriptor holds no known location.
    fn mma(
        &mut self,
        t: usize,
        c: &super::instr::Check<'_>,
        shape: String,
        sparse: bool,
        ops: &[Op<'s>],
    ) -> PResult<Option<AsyncInstr>> {
        let (d, a, b, meta, scale, imm_ops) = match (sparse, ops) {
            (false, [d, a, b, scale, imms @ ..]) => (d, a, b, None, scale, imms),
            (true, [d, a, b, meta, sel, scale, imms @ ..]) => {
                (d, a, b, Some((meta, sel)), scale, imms)
            }
            (false, _) => {
                return Err(c.count(
                    "at least 4 operands (d, a, b-desc, scale-d{, imm-scale-a, ...})",
                    ops.len(),
                ))
            }
            (true, _) => return Err(c.count(
                "at least 6 operands (d, a, b-desc, sp-meta, sp-sel, scale-d{, imm-scale-a, ...})",
                ops.len(),
            )),
        };
        let regs = |p: &mut Self, what: &'static str, o: &Op<'s>| -> PResult<Vec<RegId>> {
            let names: Vec<&str> = match &o.kind {
                OpKind::Vector(es) => es.iter().map(|e| c.reg(what, e)).collect::<PResult<_>>()?,
                _ => vec![c.reg(what, o)?],
            };
            Ok(names.into_iter().map(|n| p.b.reg(t, n)).collect())
        };
        let dst = regs(self, "accumulator", d)?;
        let a = match a.kind {
            OpKind::Vector(_) => WgmmaA::Regs(regs(self, "a fragments", a)?),
            _ => {
                let r = self.b.reg(t, c.reg("a descriptor", a)?);
                match self.descriptor(t, r) {
                    Some(loc) => WgmmaA::Desc(r, loc),
                    None => return Ok(None),
                }
            }
        };
        let br = self.b.reg(t, c.reg("b descriptor", b)?);
        let Some(bloc) = self.descriptor(t, br) else {
            return Ok(None);
        };
        let scale_d = self.val(t, c.value("scale-d", scale)?);
        let sparse = match meta {
            None => None,
            Some((meta, sel)) => {
                let meta = self.val(t, c.value("sp-meta", meta)?);
                let selector = match sel.kind {
                    OpKind::Int(v) if (0..=3).contains(&v) => v,
                    _ => return Err(c.bad("sp-sel", "an integer constant from 0 to 3", sel)),
                };
                Some(WgmmaSparse { meta, selector })
            }
        };
        let mut imms = Vec::with_capacity(imm_ops.len());
        for o in imm_ops {
            match o.kind {
                OpKind::Int(i) => imms.push(i),
                _ => return Err(c.bad("immediate", "an integer", o)),
            }
        }
        Ok(Some(AsyncInstr::WgmmaMma {
            shape,
            dst,
            a,
            b: (br, bloc),
            scale_d,
            imms,
            sparse,
        }))
    }

    /// The location a descriptor register holds: the last instruction of
    /// thread `t` so far that writes `r` is `mov r, x` with `x` a declared
    /// location.
    fn descriptor(&self, t: usize, r: RegId) -> Option<AddrId> {
        let code = &self.b.threads.get(t)?.code;
        let writer = code.iter().rev().find(|s| match &s.instr {
            Instr::Mov { dst, .. } | Instr::Op { dst, .. } => *dst == r,
            Instr::Load { dst, .. } => dst.contains(&r),
            Instr::Rmw { dst, .. } => *dst == Some(r),
            Instr::Async(AsyncInstr::WgmmaMma { dst, .. }) => dst.contains(&r),
            _ => false,
        })?;
        match writer.instr {
            Instr::Mov {
                src: Operand::Imm(v),
                ..
            } => match ir::address_of_value(v) {
                Some((a, 0)) => Some(a),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> (Vec<Instr>, usize) {
        let src = format!("PTX w {{ ta=1; tb=2; }}\n P0@cta 0,gpu 0 ;\n{body}\nexists (ta == 0)");
        let t = crate::parser::parse_round_trip(&src);
        let u = t.unsupported.len();
        (
            t.threads[0].code.iter().map(|s| s.instr.clone()).collect(),
            u,
        )
    }

    #[test]
    fn the_four_instructions_parse_and_print_back() {
        let (c, u) = code(
            " mov.b64 %rd1, ta ;\n mov.b64 %rd2, tb ;\n wgmma.fence.sync.aligned ;\n \
             wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1, %r2}, %rd1, %rd2, 1 ;\n \
             wgmma.commit_group.sync.aligned ;\n wgmma.wait_group.sync.aligned 0 ;",
        );
        assert_eq!(u, 0);
        assert!(matches!(c[2], Instr::Async(AsyncInstr::WgmmaFence)));
        let Instr::Async(AsyncInstr::WgmmaMma { dst, a, .. }) = &c[3] else {
            panic!("{c:?}");
        };
        assert_eq!(dst.len(), 2);
        assert!(matches!(a, WgmmaA::Desc(_, AddrId(0))));
        assert!(matches!(
            c[5],
            Instr::Async(AsyncInstr::WgmmaWait { pending: 0 })
        ));
    }

    #[test]
    fn register_fragments_and_immediates() {
        let (c, u) = code(
            " mov.b64 %rd2, tb ;\n \
             wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, {%h1, %h2, %h3, %h4}, %rd2, %p, 1, -1, 1 ;",
        );
        assert_eq!(u, 0);
        assert!(matches!(
            &c[1],
            Instr::Async(AsyncInstr::WgmmaMma { a: WgmmaA::Regs(r), imms, .. }) if r.len() == 4 && imms.len() == 3
        ));
    }

    #[test]
    fn the_sparse_form_parses_and_prints_back() {
        let (c, u) = code(
            " mov.b64 %rd1, ta ;\n mov.b64 %rd2, tb ;\n \
             wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2}, %rd1, %rd2, %r9, 1, %p, 1, -1, 0, 1 ;",
        );
        assert_eq!(u, 0);
        let Instr::Async(AsyncInstr::WgmmaMma { sparse, imms, .. }) = &c[2] else {
            panic!("{c:?}");
        };
        let sp = sparse.as_ref().expect("sparse operands");
        assert!(matches!(sp.meta, Operand::Reg(_)));
        assert_eq!(sp.selector, 1);
        assert_eq!(imms.len(), 4);
        let bad = |body: &str| {
            let src =
                format!("PTX w {{ ta=1; tb=2; }}\n P0@cta 0,gpu 0 ;\n{body}\nexists (ta == 0)");
            crate::parse(&src).unwrap_err().to_string()
        };
        let e = bad(" mov.b64 %rd1, ta ;\n mov.b64 %rd2, tb ;\n wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {%r1}, %rd1, %rd2, %r9, 4, 0 ;");
        assert!(e.contains("sp-sel"), "{e}");
        let e = bad(" mov.b64 %rd1, ta ;\n mov.b64 %rd2, tb ;\n wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {%r1}, %rd1, %rd2, 0 ;");
        assert!(e.contains("at least 6 operands"), "{e}");
    }

    #[test]
    fn unknown_descriptors_are_unsupported() {
        let (_, u) = code(
            " wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %descA, %descB, 1, -1, -1, 0, 1 ;",
        );
        assert_eq!(u, 1);
        let (_, u) = code(" ld.u64 %rd1, [ta] ;\n mov.b64 %rd2, tb ;\n wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1}, %rd1, %rd2, 0 ;");
        assert_eq!(u, 1, "a descriptor read from memory");
        assert!(form("wgmma.fence").unwrap().is_err());
        assert!(form("wgmma.wait_group.sync.aligned").unwrap().is_ok());
        assert_eq!(form("wgmmax.fence"), None);
    }
}
