//! Mnemonics: `ld.global.relaxed.sys.u32`, `atom.acq_rel.gpu.add`, `fence.proxy.alias`, ...
//! split at dots and classified into the [`Shape`] of an instruction, before its operands.
//!
//! Modifiers may come in any order; each category (semantics, scope, state space,
//! type, vector width, operation, proxy) at most once. Known PTX instructions that
//! the checker does not model yet classify as [`Shape::Unsupported`].

mod async_ops;
mod memory;
mod ptx_alu;

pub(super) use async_ops::AsyncShape;
use memory::rmw_op as memory_rmw_op;
pub(super) use ptx_alu::{IntType, PtxShape};

use crate::error::ParseErrorKind;
use crate::ir::{
    Access, BarrierKind, BinOp, CmpOp, FenceKind, FloatKind, FloatOp, FloatTy, Proxy, RmwOp, Scope,
    Sem, StateSpace,
};

/// How barrier operands are read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum BarForm {
    /// Corpus dialect `bar.cta.{sync,arrive} N[, ID[, COUNT]]`: `N` is the static instance.
    Dialect,
    /// PTX `bar.sync a{, b}` / `barrier.sync a{, b}`: instance 0, id `a`, count `b`.
    Ptx,
    /// `barrier.cluster.{arrive,wait}`: no operands.
    Cluster,
}

/// What an instruction is, as far as its mnemonic tells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// A load; `bare` for a dialect `ld` without any modifier (maybe a move `ld R, V`).
    Load {
        sem: Sem,
        scope: Option<Scope>,
        proxy: Proxy,
        space: StateSpace,
        access: Access,
        bare: bool,
    },
    /// A store.
    Store {
        sem: Sem,
        scope: Option<Scope>,
        proxy: Proxy,
        space: StateSpace,
        access: Access,
    },
    /// `atom` (`red == false`) or `red`.
    Rmw {
        red: bool,
        sem: Sem,
        scope: Scope,
        proxy: Proxy,
        space: StateSpace,
        access: Access,
        op: RmwOp,
    },
    /// A fence; `operands_ok` for `fence.proxy.tensormap::generic.acquire` (`[a], size`).
    Fence {
        kind: FenceKind,
        scope: Option<Scope>,
        operands_ok: bool,
    },
    /// A barrier.
    Barrier { kind: BarrierKind, form: BarForm },
    /// Register arithmetic.
    Op(BinOp),
    /// Register move (`mov`).
    Mov,
    /// `goto L` / `bra L`.
    Goto,
    /// `beq a, b, L` and friends.
    Branch(CmpOp),
    /// An asynchronous operation or an `mbarrier` instruction (8.9.1.1).
    Async(AsyncShape),
    /// A register instruction of compiler output (`setp`, `selp`, `cvt`, ...).
    Ptx(PtxShape),
    /// A PTX construct the checker does not support; the string names it.
    Unsupported(String),
}

/// PTX instructions that parse but are not modelled (their operands are not read).
const UNSUPPORTED: &[&str] = &[
    "activemask",
    "addc",
    "alloca",
    "applypriority",
    "bfi",
    "bfind",
    "bmsk",
    "brkpt",
    "call",
    "clusterlaunchcontrol",
    "cnot",
    "copysign",
    "cos",
    "cp",
    "createpolicy",
    "discard",
    "dp2a",
    "dp4a",
    "elect",
    "ex2",
    "fma",
    "fns",
    "getctarank",
    "griddepcontrol",
    "isspacep",
    "istypep",
    "ldmatrix",
    "ldu",
    "lg2",
    "lop3",
    "mad24",
    "madc",
    "mapa",
    "match",
    "mbarrier",
    "mma",
    "movmatrix",
    "mul24",
    "multimem",
    "pmevent",
    "prefetch",
    "prefetchu",
    "rcp",
    "redux",
    "rsqrt",
    "sad",
    "set",
    "setmaxnreg",
    "shfl",
    "sin",
    "slct",
    "sqrt",
    "stackrestore",
    "stacksave",
    "stmatrix",
    "subc",
    "suq",
    "szext",
    "tanh",
    "tcgen05",
    "tensormap",
    "testp",
    "tex",
    "tld4",
    "trap",
    "txq",
    "vote",
    "wgmma",
    "wmma",
];

/// Families whose first modifier is part of the construct's name (`mbarrier.arrive`).
const FAMILIES: &[&str] = &[
    "cp",
    "mbarrier",
    "multimem",
    "wgmma",
    "tcgen05",
    "tensormap",
    "griddepcontrol",
    "clusterlaunchcontrol",
    "wmma",
];

/// The mnemonic split into its base and modifiers, with its text for messages.
struct Mnemonic<'a> {
    text: &'a str,
    base: &'a str,
    mods: Vec<&'a str>,
}

impl Mnemonic<'_> {
    fn unknown(&self, m: &str) -> ParseErrorKind {
        ParseErrorKind::UnknownModifier {
            instr: self.text.into(),
            modifier: m.into(),
        }
    }
    fn conflict(&self, a: &str, b: &str) -> ParseErrorKind {
        ParseErrorKind::ConflictingModifiers {
            instr: self.text.into(),
            first: a.into(),
            second: b.into(),
        }
    }
    fn bad(&self, reason: impl Into<String>) -> ParseErrorKind {
        ParseErrorKind::BadInstruction {
            instr: self.text.into(),
            reason: reason.into(),
        }
    }
    fn bad_sem(&self, sem: &str) -> ParseErrorKind {
        ParseErrorKind::BadSemantics {
            instr: self.text.into(),
            sem: sem.into(),
        }
    }
    fn missing_scope(&self) -> ParseErrorKind {
        ParseErrorKind::MissingScope {
            instr: self.text.into(),
        }
    }
}

/// Sets a category slot once; a second modifier of the category conflicts.
fn set<'a, T>(
    m: &Mnemonic<'_>,
    slot: &mut Option<(&'a str, T)>,
    word: &'a str,
    value: T,
) -> Result<(), ParseErrorKind> {
    if let Some((first, _)) = slot {
        return Err(m.conflict(first, word));
    }
    *slot = Some((word, value));
    Ok(())
}

/// Classifies a mnemonic.
pub(super) fn classify(text: &str) -> Result<Shape, ParseErrorKind> {
    let mut parts = text.split('.');
    let base = parts.next().unwrap_or("");
    let m = Mnemonic {
        text,
        base,
        mods: parts.collect(),
    };
    match base {
        "cp" => async_ops::cp(&m),
        "mbarrier" => async_ops::mbarrier(&m),
        "st" if m.mods.first() == Some(&"async") => async_ops::st_async(&m),
        "ld" | "tld" | "suld" | "cold" | "st" | "sust" | "atom" | "suatom" | "red" | "sured" => {
            memory::memory(&m)
        }
        "fence" => fence(&m),
        "membar" => membar(&m),
        "bar" | "barrier" => barrier(&m),
        "setp" | "selp" | "not" | "neg" | "abs" | "cvt" | "cvta" | "popc" | "mad" | "nanosleep"
        | "ret" | "exit" | "bfe" | "shf" | "prmt" | "clz" | "brev" => ptx_alu::classify(&m),
        "mul" if m.mods.first() == Some(&"wide") => ptx_alu::mul_wide(&m),
        "mul" if m.mods.first() == Some(&"hi") => ptx_alu::mul_hi(&m),
        "add" | "sub" | "mul" | "div" | "rem" | "and" | "or" | "xor" | "shl" | "shr" | "min"
        | "max" => arith(&m),
        "mov" => mov(&m),
        "goto" if m.mods.is_empty() => Ok(Shape::Goto),
        "bra" => match m.mods.as_slice() {
            [] | ["uni"] => Ok(Shape::Goto),
            [x, ..] => Err(m.unknown(x)),
        },
        "beq" | "bne" | "blt" | "bgt" | "ble" | "bge" => {
            if let Some(x) = m.mods.first() {
                return Err(m.unknown(x));
            }
            Ok(Shape::Branch(match base {
                "beq" => CmpOp::Eq,
                "bne" => CmpOp::Ne,
                "blt" => CmpOp::Lt,
                "bgt" => CmpOp::Gt,
                "ble" => CmpOp::Le,
                _ => CmpOp::Ge,
            }))
        }
        b if UNSUPPORTED.contains(&b) => Ok(Shape::Unsupported(construct(&m))),
        _ => Err(ParseErrorKind::UnknownInstruction(text.into())),
    }
}

/// The name of an unsupported construct (`mbarrier.arrive`, `setp`, `bar.red`).
fn construct(m: &Mnemonic<'_>) -> String {
    match m.mods.first() {
        Some(first) if FAMILIES.contains(&m.base) => format!("{}.{first}", m.base),
        _ => m.base.to_string(),
    }
}

/// Bytes of a type modifier.
fn type_bytes(t: &str) -> Option<u8> {
    Some(match t {
        "b8" | "u8" | "s8" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        "b128" => 16,
        _ => return None,
    })
}

/// Scope modifiers.
fn scope_of(s: &str) -> Option<Scope> {
    s.parse().ok()
}
/// `fence{.sem}.scope`, `fence.proxy.*`.
fn fence(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let proxy = |kind| {
        Ok(Shape::Fence {
            kind,
            scope: None,
            operands_ok: false,
        })
    };
    match m.mods.as_slice() {
        ["proxy", "alias"] => proxy(FenceKind::ProxyAlias),
        ["proxy", "generic"] => proxy(FenceKind::ProxyGeneric),
        ["proxy", "constant"] => proxy(FenceKind::ProxyConstant),
        ["proxy", "texture"] => proxy(FenceKind::ProxyTexture),
        ["proxy", "surface"] => proxy(FenceKind::ProxySurface),
        ["proxy", "async"]
        | ["proxy", "async", "global" | "shared" | "shared::cta" | "shared::cluster"]
        | ["proxy", "async::global" | "async::shared::cta" | "async::shared::cluster"] => {
            proxy(FenceKind::ProxyAsync)
        }
        ["proxy", "tensormap::generic", rest @ ..] => {
            let (kind, scope) = match rest {
                ["release", s] => (FenceKind::ProxyTensormapRelease, *s),
                ["acquire", s] => (FenceKind::ProxyTensormapAcquire, *s),
                [] | ["release" | "acquire"] => return Err(m.missing_scope()),
                [x, ..] => return Err(m.unknown(x)),
            };
            let scope = scope_of(scope).ok_or_else(|| m.unknown(scope))?;
            Ok(Shape::Fence {
                kind,
                scope: Some(scope),
                operands_ok: kind == FenceKind::ProxyTensormapAcquire,
            })
        }
        ["proxy", x, ..] => Err(m.unknown(x)),
        [first, ..]
            if first.starts_with("mbarrier_init")
                || first.starts_with("op_restrict")
                || first.starts_with("sync_restrict") =>
        {
            Ok(Shape::Unsupported(format!("fence.{first}")))
        }
        mods => {
            let mut sem: Option<(&str, FenceKind)> = None;
            let mut scope: Option<(&str, Scope)> = None;
            for &w in mods {
                match w {
                    "sc" => set(m, &mut sem, w, FenceKind::Sc)?,
                    "acq_rel" => set(m, &mut sem, w, FenceKind::AcqRel)?,
                    "acquire" => set(m, &mut sem, w, FenceKind::Acquire)?,
                    "release" => set(m, &mut sem, w, FenceKind::Release)?,
                    _ => match scope_of(w) {
                        Some(s) => set(m, &mut scope, w, s)?,
                        None => return Err(m.unknown(w)),
                    },
                }
            }
            let scope = scope.ok_or_else(|| m.missing_scope())?.1;
            Ok(Shape::Fence {
                kind: sem.map_or(FenceKind::AcqRel, |(_, k)| k),
                scope: Some(scope),
                operands_ok: false,
            })
        }
    }
}

/// `membar.{cta,gl,sys}` = `fence.sc.{cta,gpu,sys}`.
fn membar(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let scope = match m.mods.as_slice() {
        ["cta"] => Scope::Cta,
        ["gl"] => Scope::Gpu,
        ["sys"] => Scope::Sys,
        [] => return Err(m.missing_scope()),
        [x, ..] => return Err(m.unknown(x)),
    };
    Ok(Shape::Fence {
        kind: FenceKind::Sc,
        scope: Some(scope),
        operands_ok: false,
    })
}

/// `bar.cta.*` (dialect), `bar.*` / `barrier{.cta}.*` (PTX), `barrier.cluster.*`.
fn barrier(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let b = |kind, form| Ok(Shape::Barrier { kind, form });
    let mods = m.mods.as_slice();
    if m.base == "bar" {
        return match mods {
            ["cta", "sync"] => b(BarrierKind::Sync, BarForm::Dialect),
            ["cta", "arrive"] => b(BarrierKind::Arrive, BarForm::Dialect),
            ["cta", "red"] => b(BarrierKind::Red, BarForm::Dialect),
            ["sync"] => b(BarrierKind::Sync, BarForm::Ptx),
            ["arrive"] => b(BarrierKind::Arrive, BarForm::Ptx),
            ["red", ..] | ["cta", "red", ..] => Ok(Shape::Unsupported("bar.red".into())),
            ["warp", "sync"] => Ok(Shape::Unsupported("bar.warp.sync".into())),
            [] => Err(m.bad("expected `.sync`, `.arrive` or `.red`")),
            ["cta", x, ..] | [x, ..] => Err(m.unknown(x)),
        };
    }
    let (cluster, rest) = match mods {
        ["cta", rest @ ..] => (false, rest),
        ["cluster", rest @ ..] => (true, rest),
        rest => (false, rest),
    };
    let Some((&op, flags)) = rest.split_first() else {
        return Err(m.bad("expected `.sync`, `.arrive` or `.red`"));
    };
    if op == "red" && !cluster {
        return Ok(Shape::Unsupported("bar.red".into()));
    }
    let mut aligned = false;
    let mut sem: Option<&str> = None;
    for &f in flags {
        match f {
            "aligned" if !aligned => aligned = true,
            "release" | "relaxed" if cluster && op == "arrive" && sem.is_none() => sem = Some(f),
            "acquire" if cluster && op == "wait" && sem.is_none() => sem = Some(f),
            _ => return Err(m.unknown(f)),
        }
    }
    match (cluster, op) {
        (false, "sync") => b(BarrierKind::Sync, BarForm::Ptx),
        (false, "arrive") => b(BarrierKind::Arrive, BarForm::Ptx),
        (true, "arrive") if sem == Some("relaxed") => {
            b(BarrierKind::ClusterArriveRelaxed, BarForm::Cluster)
        }
        (true, "arrive") => b(BarrierKind::ClusterArrive, BarForm::Cluster),
        (true, "wait") => b(BarrierKind::ClusterWait, BarForm::Cluster),
        _ => Err(m.unknown(op)),
    }
}

/// Integer register arithmetic: `add`, `add.u32`, `mul.lo.s32`, ...
fn arith(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    // `classify` sends only the twelve plain operations here.
    let op = m.base.parse::<BinOp>().unwrap_or(BinOp::Max);
    if let Some(shape) = float_arith(m, op) {
        return Ok(shape);
    }
    let mut ty: Option<(&str, ())> = None;
    let mut lo: Option<(&str, ())> = None;
    for &w in &m.mods {
        match w {
            "u16" | "u32" | "u64" | "s16" | "s32" | "s64" | "b16" | "b32" | "b64" => {
                set(m, &mut ty, w, ())?
            }
            "lo" if op == BinOp::Mul => set(m, &mut lo, w, ())?,
            "pred" if matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) => set(m, &mut ty, w, ())?,
            "f16" | "f32" | "f64" | "bf16" | "f16x2" | "bf16x2" | "hi" | "wide" | "sat" | "cc"
            | "ftz" | "rn" | "rz" | "rm" | "rp" | "approx" | "full" | "relu" | "pred" | "NaN"
            | "xorsign" | "abs" => {
                return Ok(Shape::Unsupported(format!("{}.{w}", m.base)));
            }
            _ => return Err(m.unknown(w)),
        }
    }
    Ok(Shape::Op(op))
}

/// `add{.rn}{.ftz}.T`, `min{.ftz}.T`, `max{.ftz}.T` with `T` one of `.f16`,
/// `.bf16`, `.f32`, `.f64` (`.ftz` with `.f16`/`.f32` only): register
/// arithmetic on bit patterns (`ir::FloatOp`; the floating-point reductions
/// of `multimem.ld_reduce` print as these). `None` when the mnemonic names
/// no such type or has another modifier (`.sat`, `.rz`, `.NaN`, packed
/// `.f16x2`, ...): [`arith`] reports it.
fn float_arith(m: &Mnemonic<'_>, op: BinOp) -> Option<Shape> {
    let kind = match op {
        BinOp::Add => FloatKind::Add,
        BinOp::Min => FloatKind::Min,
        BinOp::Max => FloatKind::Max,
        _ => return None,
    };
    let (ty, mods) = m.mods.split_last()?;
    let ty = FloatTy::of_word(ty)?;
    let add = kind == FloatKind::Add;
    let ftz_ok = matches!(ty, FloatTy::F16 | FloatTy::F32);
    let ftz = match mods {
        [] => false,
        ["rn"] if add => false,
        ["ftz"] if ftz_ok => true,
        ["rn", "ftz"] if ftz_ok && add => true,
        _ => return None,
    };
    Some(Shape::Op(BinOp::Float(FloatOp { kind, ty, ftz })))
}

/// `mov{.type}`.
fn mov(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    match m.mods.as_slice() {
        [] => Ok(Shape::Mov),
        [t] if type_bytes(t).is_some_and(|b| b <= 8) => Ok(Shape::Mov),
        ["pred"] => Ok(Shape::Mov),
        [t] if matches!(*t, "v2" | "v4") => Ok(Shape::Unsupported(format!("mov.{t}"))),
        [t, ..] if matches!(*t, "v2" | "v4") => Ok(Shape::Unsupported(format!("mov.{t}"))),
        [x, ..] => Err(m.unknown(x)),
    }
}

#[cfg(test)]
mod tests;
