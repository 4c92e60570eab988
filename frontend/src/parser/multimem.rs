//! Multimem addresses and instructions (8.2.3).
//!
//! `mc @ multimem x, y;` in the initial state declares the multimem address
//! `mc` pointing to the locations `x` and `y` (one per device). The integer
//! forms of `multimem.st`, `multimem.red` and `multimem.ld_reduce` on such an
//! address parse into one ordinary store, reduction or load per location
//! (PTX ISA: `multimem.st` "performs a store operation of the input operand b
//! to all the memory locations pointed to by the multimem address",
//! `multimem.red` "performs a reduction operation on all the memory locations",
//! `multimem.ld_reduce` "performs reduction on the values loaded from all the
//! memory locations"), in declaration order, with the instruction's
//! semantics and scope; `ld_reduce` combines the loaded values with register
//! arithmetic. The order of those operations is not specified: for the
//! `.release` forms of `st`/`red` and the `.acquire` form of `ld_reduce`,
//! which a fixed order would strengthen, the accesses follow an
//! `Instr::Unordered` (no program order between them). `multimem.st` of a
//! floating-point type (`.f16`, `.bf16`, `.f16x2`, `.bf16x2`, `.f32`, `.f64`,
//! with `.v2`/`.v4`/`.v8`) stores the bits, one scalar store per element
//! (per half of a packed element, 8.2.5) per location. The floating-point
//! reductions (`red`, `ld_reduce`) stay unsupported: they compute in floating
//! point, and ptxmc's values are integers. So do addresses without declared
//! locations. The integer forms take no `.vec` (an error).

use super::multimem_float::{float_type, FloatForm, FloatInstr, MemberLoad};
use super::operand::OpKind;
use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{
    Access, AddrKind, BinOp, FloatKind, FloatTy, Instr, Operand, Proxy, RegId, RmwOp, Scope, Sem,
    Span, StateSpace,
};
use crate::lexer::Tok;

/// What a `multimem` mnemonic asks for.
struct Form {
    kind: &'static str,
    sem: Sem,
    scope: Option<Scope>,
    op: Option<RmwOp>,
    /// Bytes of the integer type, or of the whole value of a float type.
    bytes: u8,
    /// A floating-point type (`multimem_float.rs`).
    float: Option<FloatForm>,
}

/// Why a `multimem` mnemonic is not lowered.
enum Refusal {
    /// Not a form this lowering knows: the opcode tables report it.
    Unknown,
    /// Not a PTX form.
    Error(String),
}

/// Reads `multimem.{st,red,ld_reduce}...` modifiers (PTX ISA, `multimem`:
/// the integer forms take no `.vec`; the floating-point ones `.vec` with a
/// size of 32, 64 or 128 bits, never with `.f64`).
fn form(text: &str) -> Result<Form, Refusal> {
    let mut parts = text.split('.');
    parts.next();
    let kind = match parts.next() {
        Some("st") => "st",
        Some("red") => "red",
        Some("ld_reduce") => "ld_reduce",
        _ => return Err(Refusal::Unknown),
    };
    let name = format!("multimem.{kind}");
    let unknown = || Refusal::Unknown;
    let (mut sem, mut scope, mut op, mut bytes) = (None, None, None, None);
    let (mut vec, mut float) = (None, None);
    for m in parts {
        match m {
            "weak" | "relaxed" | "acquire" | "release" if sem.is_none() => sem = Some(m),
            "cta" | "cluster" | "gpu" | "sys" if scope.is_none() => {
                scope = Some(match m {
                    "cta" => Scope::Cta,
                    "cluster" => Scope::Cluster,
                    "gpu" => Scope::Gpu,
                    _ => Scope::Sys,
                })
            }
            "global" => {}
            "add" | "min" | "max" | "and" | "or" | "xor" if op.is_none() => {
                op = Some(match m {
                    "add" => RmwOp::Add,
                    "min" => RmwOp::Min,
                    "max" => RmwOp::Max,
                    "and" => RmwOp::And,
                    "or" => RmwOp::Or,
                    _ => RmwOp::Xor,
                })
            }
            "v2" | "v4" | "v8" if vec.is_none() => vec = Some(m[1..].parse::<u8>().unwrap_or(1)),
            // `ld_reduce`'s accumulation precision.
            "acc::f32" | "acc::f16" if kind == "ld_reduce" => {}
            "b32" | "u32" | "s32" if bytes.is_none() => bytes = Some(4),
            "b64" | "u64" | "s64" if bytes.is_none() => bytes = Some(8),
            w if bytes.is_none() && float_type(w).is_some() => {
                bytes = float_type(w).map(|(t, p)| t.bytes() * if p { 2 } else { 1 });
                float = Some(w);
            }
            _ => return Err(unknown()),
        }
    }
    let bytes = bytes.ok_or_else(unknown)?;
    if (kind == "st") == op.is_some() {
        return Err(unknown());
    }
    let float = match (float, vec) {
        (None, None) => None,
        (None, Some(v)) => {
            return Err(Refusal::Error(format!(
                "`.v{v}` takes a floating-point type (`.f16`, `.f16x2`, `.bf16`, `.bf16x2`, `.f32`): the integer forms of `{name}` are scalar"
            )))
        }
        (Some(w), v) => {
            let (ty, packed) = float_type(w).unwrap_or((FloatTy::F32, false));
            let form = FloatForm {
                ty,
                packed,
                vec: v.unwrap_or(1),
            };
            let (v, elem) = (form.vec, form.elem());
            let total = u32::from(elem) * u32::from(v);
            if v > 1 && (elem == 8 || ![4, 8, 16].contains(&total)) {
                return Err(Refusal::Error(format!(
                    "`.v{v}.{w}` is {} bits: a floating-point `.vec` form has 32, 64 or 128 bits, and `.f64` takes no `.vec`",
                    total * 8
                )));
            }
            // The floating-point reductions: `red` adds (the PTX syntax's
            // `.redop` of a float type is `.add`), `ld_reduce` adds or takes
            // the minimum or maximum.
            match (kind, op) {
                ("red", Some(RmwOp::Add)) | ("ld_reduce", Some(RmwOp::Add | RmwOp::Min | RmwOp::Max)) => {}
                ("st", _) => {}
                (_, o) => {
                    let o = o.map_or(String::new(), |o| o.to_string());
                    let allowed = if kind == "red" { "`.add`" } else { "`.add`, `.min` or `.max`" };
                    return Err(Refusal::Error(format!(
                        "`{name}` on the floating-point type `.{w}` takes {allowed}, not `.{o}`"
                    )));
                }
            }
            Some(form)
        }
    };
    let sem = match (sem, scope) {
        (None | Some("weak"), None) if kind != "red" => Sem::Weak,
        (None | Some("relaxed"), _) if kind == "red" => Sem::Relaxed,
        (Some("relaxed"), Some(_)) => Sem::Relaxed,
        // `.release` on the writing forms, `.acquire` on `ld_reduce`: one
        // release (acquire) access per location, in no order with each other
        // (`Instr::Unordered`, docs/model-notes.md "Unspecified order").
        (Some("release"), Some(_)) if kind != "ld_reduce" => Sem::Release,
        (Some("release"), None) if kind == "red" => Sem::Release,
        (Some("acquire"), Some(_)) if kind == "ld_reduce" => Sem::Acquire,
        _ => return Err(Refusal::Unknown),
    };
    let scope = match (sem, scope) {
        (Sem::Weak, _) => None,
        (_, s) => Some(s.unwrap_or(Scope::Gpu)),
    };
    Ok(Form {
        kind,
        sem,
        scope,
        op,
        bytes,
        float,
    })
}

impl Parser<'_> {
    /// After `mc @ multimem`: the optional list of locations `x, y`.
    pub(super) fn multimem_members(&mut self, name: &str) -> PResult<()> {
        let mut members = Vec::new();
        while self.peek().tok == Tok::Ident {
            let t = self.peek();
            let member = self.location_name()?;
            if !self.b.is_declared_location(member) {
                return Err(ParseError::new(
                    ParseErrorKind::BadApi(format!(
                        "`{member}` must be declared before the multimem address `{name}` that points to it"
                    )),
                    t.span,
                ));
            }
            let a = self.b.addr(member);
            if let Some(k @ (AddrKind::Local | AddrKind::Param)) = self.b.address_kind(a) {
                return Err(ParseError::new(
                    ParseErrorKind::BadSpaceUse(format!(
                        "the multimem address `{name}` cannot point to `{member}`, which is {}",
                        super::builder::space_words(k)
                    )),
                    t.span,
                ));
            }
            members.push(a);
            if !self.at(Tok::Comma) {
                break;
            }
            self.bump();
        }
        let mc = self.b.addr(name);
        self.b.multimem_members.push((mc, members));
        Ok(())
    }

    /// Parses a `multimem.*` instruction of thread `t` (mnemonic `text`
    /// already read) into ordinary instructions when ptxmc models its form;
    /// `false` (nothing read) otherwise, for the caller to report it.
    pub(super) fn multimem_instruction(
        &mut self,
        t: usize,
        text: &str,
        span: Span,
    ) -> PResult<bool> {
        if !text.starts_with("multimem.") {
            return Ok(false);
        }
        let f = match form(text) {
            Ok(f) => f,
            Err(Refusal::Unknown) => return Ok(false),
            Err(Refusal::Error(reason)) => {
                return Err(ParseError::new(
                    ParseErrorKind::BadInstruction {
                        instr: text.into(),
                        reason,
                    },
                    span,
                ))
            }
        };
        // Look ahead without consuming: the operands must name a multimem
        // address with declared locations.
        let save = self.pos;
        let ops = self.operands(span.line)?;
        let (addr_op, other) = match (f.kind, ops.as_slice()) {
            ("ld_reduce", [d, a]) => (a, d),
            (_, [a, b]) if f.kind != "ld_reduce" => (a, b),
            _ => {
                self.pos = save;
                return Ok(false);
            }
        };
        let members = match addr_op.kind {
            OpKind::Addr { name, offset: 0 } => self.b.addr_lookup(name).and_then(|a| {
                let multimem = self.b.address_kind(a) == Some(AddrKind::Multimem);
                let m = self
                    .b
                    .multimem_members
                    .iter()
                    .find(|(x, _)| *x == a)
                    .map(|(_, m)| m.clone());
                m.filter(|m| multimem && !m.is_empty())
            }),
            _ => None,
        };
        let Some(members) = members else {
            self.pos = save;
            return Ok(false);
        };
        if let Some(form) = f.float {
            let fi = FloatInstr {
                kind: f.kind,
                sem: f.sem,
                scope: f.scope,
                op: f.op.map(|o| match o {
                    RmwOp::Min => FloatKind::Min,
                    RmwOp::Max => FloatKind::Max,
                    _ => FloatKind::Add,
                }),
                form,
                text,
                span,
            };
            if let Some(reason) = self.multimem_float(t, &fi, &members, other)? {
                self.pos = save;
                let start = self.pos - 1;
                self.skip_raw()?;
                self.unsupported(t, start, reason, span);
            }
            return Ok(true);
        }
        let access = Access {
            bytes: f.bytes,
            vector: 1,
        };
        // The operations on the locations are in an unspecified order: a
        // fixed one would let the release (acquire) of one location cover the
        // access of another.
        if (f.sem.is_release() || f.sem.is_acquire()) && members.len() > 1 {
            self.push(t, Instr::Unordered(members.len() as u32), span);
        }
        let value = |p: &mut Self, o: &super::operand::Operand<'_>| -> PResult<Operand> {
            match o.kind {
                OpKind::Int(i) => Ok(Operand::Imm(i)),
                OpKind::Name(n) if n.starts_with('%') || !p.b.is_declared_location(n) => {
                    Ok(Operand::Reg(p.b.reg(t, n)))
                }
                _ => Err(ParseError::new(
                    ParseErrorKind::BadOperand {
                        instr: text.into(),
                        what: "value",
                        expected: "a register or an integer",
                        found: o.text.into(),
                    },
                    o.span,
                )),
            }
        };
        match f.kind {
            "st" => {
                let src = value(self, other)?;
                for m in members {
                    self.push(
                        t,
                        Instr::Store {
                            sem: f.sem,
                            scope: f.scope,
                            proxy: Proxy::Generic,
                            space: StateSpace::Global,
                            access,
                            addr: m,
                            src: vec![src],
                        },
                        span,
                    );
                }
            }
            "red" => {
                let a = value(self, other)?;
                for m in members {
                    self.push(
                        t,
                        Instr::Rmw {
                            sem: f.sem,
                            scope: f.scope.unwrap_or(Scope::Gpu),
                            proxy: Proxy::Generic,
                            space: StateSpace::Global,
                            access,
                            op: f.op.unwrap_or(RmwOp::Add),
                            dst: None,
                            addr: m,
                            a,
                            b: None,
                        },
                        span,
                    );
                }
            }
            _ => {
                let OpKind::Name(d) = other.kind else {
                    self.pos = save;
                    return Ok(false);
                };
                let n = self.b.threads[t].code.len();
                let binop = match f.op {
                    Some(RmwOp::Min) => BinOp::Min,
                    Some(RmwOp::Max) => BinOp::Max,
                    Some(RmwOp::And) => BinOp::And,
                    Some(RmwOp::Or) => BinOp::Or,
                    Some(RmwOp::Xor) => BinOp::Xor,
                    _ => BinOp::Add,
                };
                let load = MemberLoad {
                    sem: f.sem,
                    scope: f.scope,
                    bytes: f.bytes,
                };
                let temps: Vec<RegId> = (members.into_iter().enumerate())
                    .map(|(i, m)| self.member_load(t, load, (n, i), m, span))
                    .collect();
                // Interned after the temporaries: ids follow first appearance,
                // as when the printed form is parsed back.
                let dst = self.b.reg(t, d);
                self.fold_regs(t, dst, binop, &temps, span);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Instr, RmwOp, Sem};
    use crate::parser::parse;

    fn code(instr: &str) -> Vec<Instr> {
        let src = format!(
            "PTX m {{ x=0; y=0; mc @ multimem x, y; nm @ multimem; }}\n P0@cta 0,gpu 0 ;\n {instr} ;\nexists (x == 0)"
        );
        let t = crate::parser::parse_round_trip(&src);
        t.threads[0].code.iter().map(|s| s.instr.clone()).collect()
    }

    #[test]
    fn one_operation_per_location() {
        let c = code("multimem.st.relaxed.sys.global.u32 [mc], 5");
        assert_eq!(c.len(), 2);
        assert!(c.iter().all(|i| matches!(
            i,
            Instr::Store {
                sem: Sem::Relaxed,
                ..
            }
        )));
        let c = code("multimem.red.release.gpu.global.add.u32 [mc], 1");
        assert!(
            matches!(
                &c[..],
                [
                    Instr::Unordered(2),
                    Instr::Rmw {
                        sem: Sem::Release,
                        ..
                    },
                    Instr::Rmw { .. }
                ]
            ),
            "{c:?}"
        );
        let c = code("multimem.ld_reduce.acquire.gpu.global.add.u32 %r0, [mc]");
        assert!(matches!(c[0], Instr::Unordered(2)), "{c:?}");
        assert!(
            matches!(
                c[1],
                Instr::Load {
                    sem: Sem::Acquire,
                    ..
                }
            ),
            "{c:?}"
        );
        let c = code("multimem.st.acquire.gpu.global.u32 [mc], 1");
        assert!(matches!(&c[..], [Instr::Unsupported(_)]), "{c:?}");
        let c = code("multimem.red.global.xor.b64 [mc], 1");
        assert!(c.iter().all(|i| matches!(
            i,
            Instr::Rmw {
                op: RmwOp::Xor,
                dst: None,
                ..
            }
        )));
        let c = code("multimem.ld_reduce.global.max.s32 %r0, [mc]");
        assert_eq!(c.len(), 4, "{c:?}");
        assert!(matches!(c[0], Instr::Load { sem: Sem::Weak, .. }));
        // An address without locations, or a plain location: unsupported as before.
        for i in [
            "multimem.st.relaxed.sys.global.u32 [nm], 1",
            "multimem.st.relaxed.sys.global.u32 [x], 1",
        ] {
            assert!(matches!(&code(i)[..], [Instr::Unsupported(_)]), "{i}");
        }
    }

    /// The stored parts: (location name, bytes, semantics).
    fn stores(src_instr: &str) -> (Vec<(String, u8, Sem)>, Vec<Instr>) {
        let src = format!(
            "PTX m {{ x=0; y=0; mc @ multimem x, y; }}\n P0@cta 0,gpu 0 ;\n {src_instr} ;\nexists (x == 0)"
        );
        let t = crate::parser::parse_round_trip(&src);
        assert!(t.unsupported.is_empty(), "{src_instr}: {:?}", t.unsupported);
        let code: Vec<Instr> = t.threads[0].code.iter().map(|s| s.instr.clone()).collect();
        let parts = code
            .iter()
            .filter_map(|i| match i {
                Instr::Store {
                    addr, access, sem, ..
                } => Some((t.addr_name(*addr).to_string(), access.bytes, *sem)),
                _ => None,
            })
            .collect();
        (parts, code)
    }

    /// `multimem.st` of a floating-point type stores its bits: one scalar
    /// store per element (per half of a packed element) per location.
    #[test]
    fn float_stores_move_bits() {
        let p = |n: &str, b: u8, s: Sem| (n.to_string(), b, s);
        let (parts, _) = stores("multimem.st.relaxed.sys.global.f32 [mc], %r1");
        assert_eq!(parts, [p("x", 4, Sem::Relaxed), p("y", 4, Sem::Relaxed)]);
        let (parts, code) = stores("multimem.st.release.gpu.global.v2.f32 [mc], {1, %r2}");
        assert!(matches!(code[0], Instr::Unordered(4)), "{code:?}");
        assert_eq!(
            parts,
            [
                p("x", 4, Sem::Release),
                p("x+4", 4, Sem::Release),
                p("y", 4, Sem::Release),
                p("y+4", 4, Sem::Release)
            ]
        );
        let (parts, code) = stores("multimem.st.global.f16x2 [mc], %r1");
        assert_eq!(
            parts,
            [
                p("x", 2, Sem::Weak),
                p("x+2", 2, Sem::Weak),
                p("y", 2, Sem::Weak),
                p("y+2", 2, Sem::Weak)
            ]
        );
        assert!(!code.iter().any(|i| matches!(i, Instr::Unordered(_))));
        let (parts, _) =
            stores("multimem.st.relaxed.cta.global.v4.bf16x2 [mc], {1, 2, 3, 0x00050004}");
        assert_eq!(parts.len(), 16);
        let (parts, _) = stores("multimem.st.weak.global.v8.f16 [mc], {1, 2, 3, 4, 5, 6, 7, 8}");
        assert_eq!(parts.len(), 16);
        assert_eq!(parts[15], p("y+14", 2, Sem::Weak));
        let (parts, _) = stores("multimem.st.relaxed.gpu.global.f64 [mc], 7");
        assert_eq!(parts, [p("x", 8, Sem::Relaxed), p("y", 8, Sem::Relaxed)]);
    }

    /// Floating-point reductions: `red` one floating-point RMW per part and
    /// location, `ld_reduce` loads combined by floating-point arithmetic;
    /// vector integer forms, float vectors of a wrong size and float
    /// operations the syntax does not give are errors.
    #[test]
    fn float_reductions_and_bad_vectors() {
        use crate::ir::{BinOp, FloatKind, FloatOp, FloatTy};
        let c = code("multimem.red.relaxed.gpu.global.add.v2.f32 [mc], {1, %r1}");
        let f32add = FloatOp {
            kind: FloatKind::Add,
            ty: FloatTy::F32,
            ftz: false,
        };
        assert_eq!(c.len(), 4, "{c:?}");
        assert!(c.iter().all(
            |i| matches!(i, Instr::Rmw { op, sem: Sem::Relaxed, .. } if *op == RmwOp::Float(f32add))
        ));
        let c = code("multimem.red.release.sys.global.add.bf16x2 [mc], %r1");
        // and/shr/and for the halves, then 4 unordered RMWs.
        assert!(matches!(c[3], Instr::Unordered(4)), "{c:?}");
        let c = code("multimem.ld_reduce.relaxed.sys.global.max.v2.f16x2 {%r0, %r1}, [mc]");
        let loads = c.iter().filter(|i| matches!(i, Instr::Load { .. })).count();
        assert_eq!(loads, 8, "{c:?}");
        assert!(c.iter().any(|i| matches!(
            i,
            Instr::Op {
                op: BinOp::Float(FloatOp {
                    kind: FloatKind::Max,
                    ty: FloatTy::F16,
                    ftz: false
                }),
                ..
            }
        )));
        let c = code("multimem.ld_reduce.acquire.gpu.global.min.f64 %rd0, [mc]");
        assert!(matches!(c[0], Instr::Unordered(2)), "{c:?}");
        // Three locations: the order of a sum is open, min is not.
        let src = "PTX m { x=0; y=0; z=0; mc @ multimem x, y, z; }\n P0@cta 0,gpu 0 ;\n multimem.ld_reduce.weak.global.add.f32 %r0, [mc] ;\n multimem.ld_reduce.weak.global.min.f32 %r1, [mc] ;\nexists (x == 0)";
        // (`parse`: the printer writes no locations of a multimem address.)
        let t = parse(src).expect("parses");
        assert_eq!(t.unsupported.len(), 1, "{:?}", t.unsupported);
        assert!(t.unsupported[0]
            .construct
            .contains("order of a floating-point sum"));
        for (i, want) in [
            (
                "multimem.st.relaxed.sys.global.v2.u32 [mc], {1, 2}",
                "integer forms",
            ),
            (
                "multimem.red.relaxed.sys.global.add.v4.u32 [mc], {1, 2, 3, 4}",
                "integer forms",
            ),
            (
                "multimem.st.global.v2.f64 [mc], {1, 2}",
                "`.f64` takes no `.vec`",
            ),
            (
                "multimem.st.global.v8.f32 [mc], {1, 2, 3, 4, 5, 6, 7, 8}",
                "256 bits",
            ),
            (
                "multimem.st.global.v4.f32 [mc], {1, 2}",
                "a vector of 4 values",
            ),
            (
                "multimem.red.relaxed.gpu.global.min.f32 [mc], 1",
                "takes `.add`, not `.min`",
            ),
            (
                "multimem.ld_reduce.weak.global.xor.f32 %r0, [mc]",
                "takes `.add`, `.min` or `.max`, not `.xor`",
            ),
        ] {
            let src = format!(
                "PTX m {{ x=0; y=0; mc @ multimem x, y; }}\n P0@cta 0,gpu 0 ;\n {i} ;\nexists (x == 0)"
            );
            let e = parse(&src).expect_err(i);
            assert_eq!(e.span.line, 3, "{i}: {e}");
            assert!(e.to_string().contains(want), "{i}: {e}");
        }
    }

    #[test]
    fn members_must_be_declared_first() {
        let e = parse("PTX m { mc @ multimem x; x=0; }\n P0@cta 0,gpu 0 ;\n ld.global.u32 %r0, [x] ;\nexists (x == 0)")
            .expect_err("x after mc");
        assert!(e.to_string().contains("must be declared before"), "{e}");
    }
}
