//! Modifiers of the memory instructions `ld`, `st`, `atom`, `red` and their proxy
//! variants (`tld`, `suld`, `cold`, `sust`, `suatom`, `sured`): semantics, scope,
//! state space, proxy, type and vector width, checked against each other.

use super::{scope_of, set, type_bytes, Mnemonic, Shape};
use crate::error::ParseErrorKind;
use crate::ir::{Access, FloatKind, FloatOp, FloatTy, Proxy, RmwOp, Scope, Sem, StateSpace};

/// Operations of `atom` / `red`.
pub(super) fn rmw_op(s: &str) -> Option<RmwOp> {
    s.parse().ok()
}

/// `.proxy::NAME` modifiers (also what the printer writes for proxies without a mnemonic).
fn proxy_mod(s: &str) -> Option<Proxy> {
    s.strip_prefix("proxy::")?.parse().ok()
}

/// The semantics words of memory instructions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum SemWord {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Volatile,
}

/// Memory modifiers collected from a mnemonic.
#[derive(Default)]
struct MemMods<'a> {
    sem: Option<(&'a str, SemWord)>,
    mmio: Option<(&'a str, ())>,
    scope: Option<(&'a str, Scope)>,
    space: Option<(&'a str, StateSpace)>,
    proxy: Option<(&'a str, Proxy)>,
    bytes: Option<(&'a str, u8)>,
    vector: Option<(&'a str, u8)>,
    op: Option<(&'a str, RmwOp)>,
    noftz: Option<(&'a str, ())>,
}

/// `ld`, `st`, `atom`, `red` and their proxy variants.
pub(super) fn memory(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let mut mm = MemMods::default();
    let mut unsupported = None;
    for &w in &m.mods {
        if let Some(s) = scope_of(w) {
            set(m, &mut mm.scope, w, s)?;
        } else if let Some(b) = type_bytes(w) {
            set(m, &mut mm.bytes, w, b)?;
        } else if let Some(op) = rmw_op(w) {
            set(m, &mut mm.op, w, op)?;
        } else if let Some(p) = proxy_mod(w) {
            set(m, &mut mm.proxy, w, p)?;
        } else {
            match w {
                "weak" => set(m, &mut mm.sem, w, SemWord::Weak)?,
                "relaxed" => set(m, &mut mm.sem, w, SemWord::Relaxed)?,
                "acquire" => set(m, &mut mm.sem, w, SemWord::Acquire)?,
                "release" => set(m, &mut mm.sem, w, SemWord::Release)?,
                "acq_rel" => set(m, &mut mm.sem, w, SemWord::AcqRel)?,
                "volatile" => set(m, &mut mm.sem, w, SemWord::Volatile)?,
                "mmio" => set(m, &mut mm.mmio, w, ())?,
                "noftz" => set(m, &mut mm.noftz, w, ())?,
                "global" => set(m, &mut mm.space, w, StateSpace::Global)?,
                "shared" | "shared::cta" => set(m, &mut mm.space, w, StateSpace::Shared)?,
                "shared::cluster" => set(m, &mut mm.space, w, StateSpace::SharedCluster)?,
                "const" => set(m, &mut mm.space, w, StateSpace::Const)?,
                // 8.1 puts `ld.global.nc` outside the model with texture
                // accesses; ptxmc checks it as a load through the readonly
                // proxy (8.6), which no fence converts and 8.6.1 never makes
                // visible: the weakest guarantee (`docs/model-notes.md`).
                "nc" => set(m, &mut mm.proxy, w, Proxy::Readonly)?,
                "v2" => set(m, &mut mm.vector, w, 2)?,
                "v4" => set(m, &mut mm.vector, w, 4)?,
                "v8" => set(m, &mut mm.vector, w, 8)?,
                "local" => set(m, &mut mm.space, w, StateSpace::Local)?,
                "param" | "param::entry" => set(m, &mut mm.space, w, StateSpace::Param)?,
                // A device function's parameter lives only around a call,
                // and litmus threads make no calls (kernel mode inlines
                // `.func` calls, `kernel/inline.rs`).
                "param::func" => {
                    return Err(m.bad(
                        "`.param::func` names a device function's parameter, and litmus threads make no calls",
                    ))
                }
                "async" | "L2::cache_hint" => {
                    unsupported.get_or_insert_with(|| format!("{}.{w}", m.base));
                }
                w if w.starts_with("level::") => {
                    unsupported.get_or_insert_with(|| format!("{}.{w}", m.base));
                }
                // Cache eviction hints do not change the memory model.
                w if w.starts_with("L1::") || w.starts_with("L2::") => {}
                _ => return Err(m.unknown(w)),
            }
        }
    }
    if let Some(c) = unsupported {
        return Ok(Shape::Unsupported(c));
    }
    wide_vector(m, &mm)?;
    let space = mm.space.map_or(StateSpace::Global, |(_, s)| s);
    let access = Access {
        bytes: mm.bytes.map_or(0, |(_, b)| b),
        vector: mm.vector.map_or(1, |(_, v)| v),
    };
    match m.base {
        "ld" | "tld" | "suld" | "cold" => load(m, &mm, space, access),
        "st" | "sust" => store(m, &mm, space, access),
        _ => rmw(m, &mm, space, access),
    }
}

/// The 256-bit vectors of `ld`/`st` (instruction descriptions, sm_100):
/// `.v8` takes a 32-bit element type and, like `.v4` of a 64-bit type,
/// the `.global` state space (or none: generic addressing, which ptxmc
/// reads as global). Elements are scalar accesses as for `.v2`/`.v4`
/// (8.2.4).
fn wide_vector(m: &Mnemonic<'_>, mm: &MemMods<'_>) -> Result<(), ParseErrorKind> {
    // `atom`/`red` vectors (of 16-bit floating-point types) stay
    // `unsupported` in `rmw`.
    let (Some(("v8", _)), "ld" | "st") = (mm.vector, m.base) else {
        return Ok(());
    };
    if mm.bytes.map(|(_, b)| b) != Some(4) {
        return Err(m.bad("`.v8` takes a 32-bit element type (`.b32`, `.u32`, `.s32`, `.f32`)"));
    }
    match mm.space {
        None | Some((_, StateSpace::Global)) => Ok(()),
        Some((w, _)) => Err(m.bad(format!(
            "`.v8` accesses the `.global` state space only, found `.{w}`"
        ))),
    }
}

/// The proxy of a memory instruction: from its mnemonic, `.nc`/`.proxy::X`, or `.const`.
fn proxy_of(
    m: &Mnemonic<'_>,
    mm: &MemMods<'_>,
    space: StateSpace,
) -> Result<Proxy, ParseErrorKind> {
    let from_base = match m.base {
        "tld" => Some(Proxy::Texture),
        "suld" | "sust" | "suatom" | "sured" => Some(Proxy::Surface),
        "cold" => Some(Proxy::Constant),
        _ => None,
    };
    let from_space = (space == StateSpace::Const && from_base.is_none()).then_some(Proxy::Constant);
    match (from_base.or(from_space), mm.proxy) {
        (Some(_), Some((w, _))) => Err(m.bad(format!(
            "`.{w}` conflicts with the proxy `{}` already implies",
            m.base
        ))),
        (Some(p), None) => Ok(p),
        (None, Some((_, p))) => Ok(p),
        (None, None) => Ok(Proxy::Generic),
    }
}

/// Semantics and scope of a load or store.
fn plain_sem(
    m: &Mnemonic<'_>,
    mm: &MemMods<'_>,
    strong: SemWord,
) -> Result<(Sem, Option<Scope>), ParseErrorKind> {
    let scope = mm.scope.map(|(_, s)| s);
    let sem = mm.sem.map(|(_, s)| s);
    if mm.mmio.is_some() {
        return match (sem, scope) {
            (Some(SemWord::Relaxed), Some(Scope::Sys)) => Ok((Sem::Mmio, Some(Scope::Sys))),
            _ => Err(m.bad("`.mmio` is written `.mmio.relaxed.sys`")),
        };
    }
    match sem {
        None | Some(SemWord::Weak) => match mm.scope {
            None => Ok((Sem::Weak, None)),
            Some((w, _)) => Err(m.bad(format!("a weak access takes no scope, found `.{w}`"))),
        },
        Some(SemWord::Volatile) => match mm.scope {
            None => Ok((Sem::Volatile, Some(Scope::Sys))),
            Some((w, _)) => Err(m.bad(format!("`.volatile` takes no scope, found `.{w}`"))),
        },
        Some(s) if s == SemWord::Relaxed || s == strong => {
            let scope = scope.ok_or_else(|| m.missing_scope())?;
            let sem = if s == SemWord::Relaxed {
                Sem::Relaxed
            } else if s == SemWord::Acquire {
                Sem::Acquire
            } else {
                Sem::Release
            };
            Ok((sem, Some(scope)))
        }
        Some(_) => Err(m.bad_sem(mm.sem.map_or("", |(w, _)| w))),
    }
}

/// 8.4.1 and the `ld`/`st` syntax: an mmio access is written
/// `{ld,st}.mmio.relaxed.sys{.global}.type`, on global memory, scalar.
fn mmio_form(
    m: &Mnemonic<'_>,
    sem: Sem,
    space: StateSpace,
    access: Access,
) -> Result<(), ParseErrorKind> {
    if sem != Sem::Mmio {
        return Ok(());
    }
    if space != StateSpace::Global {
        return Err(m.bad("`.mmio` accesses the `.global` state space only"));
    }
    if access.vector != 1 {
        return Err(m.bad("`.mmio` takes no vector type (`.v2`, `.v4`, `.v8`)"));
    }
    Ok(())
}

fn no_op(m: &Mnemonic<'_>, mm: &MemMods<'_>) -> Result<(), ParseErrorKind> {
    if mm.noftz.is_some() {
        return Err(m.bad("`.noftz` takes a floating-point `.add`"));
    }
    match mm.op {
        Some((w, _)) => Err(m.bad(format!("`.{w}` is an operation of `atom` and `red`"))),
        None => Ok(()),
    }
}

fn load(
    m: &Mnemonic<'_>,
    mm: &MemMods<'_>,
    space: StateSpace,
    access: Access,
) -> Result<Shape, ParseErrorKind> {
    no_op(m, mm)?;
    let (sem, scope) = plain_sem(m, mm, SemWord::Acquire)?;
    mmio_form(m, sem, space, access)?;
    Ok(Shape::Load {
        sem,
        scope,
        proxy: proxy_of(m, mm, space)?,
        space,
        access,
        bare: m.base == "ld" && m.mods.is_empty(),
    })
}

fn store(
    m: &Mnemonic<'_>,
    mm: &MemMods<'_>,
    space: StateSpace,
    access: Access,
) -> Result<Shape, ParseErrorKind> {
    no_op(m, mm)?;
    if space == StateSpace::Const {
        return Err(m.bad("the `.const` state space is read-only"));
    }
    // PTX ISA 5.1.6.1: kernel parameters are read-only; `st.param` writes a
    // device function's parameters, which only exist around a call.
    if space == StateSpace::Param {
        return Err(m.bad(
            "kernel parameters are read-only (`st.param` writes a device function's parameter, and litmus threads make no calls)",
        ));
    }
    if let Some(("nc", _)) = mm.proxy {
        return Err(m.bad("`.nc` is for loads only"));
    }
    let (sem, scope) = plain_sem(m, mm, SemWord::Release)?;
    mmio_form(m, sem, space, access)?;
    Ok(Shape::Store {
        sem,
        scope,
        proxy: proxy_of(m, mm, space)?,
        space,
        access,
    })
}

fn rmw(
    m: &Mnemonic<'_>,
    mm: &MemMods<'_>,
    space: StateSpace,
    access: Access,
) -> Result<Shape, ParseErrorKind> {
    let red = matches!(m.base, "red" | "sured");
    let op = mm
        .op
        .map(|(_, o)| o)
        .ok_or_else(|| ParseErrorKind::MissingRmwOp {
            instr: m.text.into(),
        })?;
    if red && matches!(op, RmwOp::Cas | RmwOp::Exch) {
        return Err(m.bad("`red` cannot `.cas` or `.exch`: use `atom`"));
    }
    if let Some((w, _)) = mm.mmio {
        return Err(m.bad_sem(w));
    }
    let sem = match mm.sem {
        None | Some((_, SemWord::Relaxed)) => Sem::Relaxed,
        Some((_, SemWord::Acquire)) if !red => Sem::Acquire,
        Some((_, SemWord::Release)) => Sem::Release,
        Some((_, SemWord::AcqRel)) => Sem::AcqRel,
        Some((w, _)) => return Err(m.bad_sem(w)),
    };
    if space == StateSpace::Const {
        return Err(m.bad("the `.const` state space is read-only"));
    }
    // The state spaces of `atom` and `red` are `.global` and `.shared`.
    if let Some((w, StateSpace::Local | StateSpace::Param)) = mm.space {
        return Err(m.bad(format!(
            "`{}` takes the `.global` or `.shared` state space, not `.{w}`",
            m.base
        )));
    }
    if let Some(("nc", _)) = mm.proxy {
        return Err(m.bad("`.nc` is for loads only"));
    }
    if access.vector != 1 {
        return Ok(Shape::Unsupported(format!("{}.v{}", m.base, access.vector)));
    }
    let op = match float_rmw(m, mm, op)? {
        Ok(op) => op,
        Err(unsupported) => return Ok(Shape::Unsupported(unsupported)),
    };
    Ok(Shape::Rmw {
        red,
        sem,
        scope: mm.scope.map_or(Scope::Gpu, |(_, s)| s),
        proxy: proxy_of(m, mm, space)?,
        space,
        access,
        op,
    })
}

/// The operation of an `atom`/`red` on a floating-point type. `.add` adds
/// the values, not their bit patterns (`ir::FloatOp`): `.add.f32` "rounds to
/// nearest even and flushes subnormal inputs and results to sign-preserving
/// zero" (the instruction description), `.add.noftz.{f16,bf16}` and
/// `.add.f64` keep subnormals, and `.add.noftz.f32` is ptxmc's spelling of
/// the f32 add that keeps them (a `multimem.red.add.f32` element). The
/// bitwise operations, `.exch` and `.cas` move bits; the other arithmetic
/// on floats (`.min.f32`, packed `.f16x2`) is `Err(unsupported)`.
fn float_rmw(
    m: &Mnemonic<'_>,
    mm: &MemMods<'_>,
    op: RmwOp,
) -> Result<Result<RmwOp, String>, ParseErrorKind> {
    let word = mm.bytes.map_or("", |(w, _)| w);
    let float = FloatTy::of_word(word);
    let packed = matches!(word, "f16x2" | "bf16x2");
    let noftz = mm.noftz.is_some();
    if float.is_none() && !packed {
        return match noftz {
            true => Err(m.bad("`.noftz` takes a floating-point `.add`")),
            false => Ok(Ok(op)),
        };
    }
    let ty = float.unwrap_or(FloatTy::F16);
    match op {
        RmwOp::And | RmwOp::Or | RmwOp::Xor | RmwOp::Exch | RmwOp::Cas if !noftz => Ok(Ok(op)),
        RmwOp::Add if packed => Ok(Err(format!("{}.add.{word} (packed atomic)", m.base))),
        RmwOp::Add => match (ty, noftz) {
            (FloatTy::F16 | FloatTy::Bf16, false) => {
                Err(m.bad(format!("`.add.{word}` is spelled `.add.noftz.{word}`")))
            }
            (FloatTy::F64, true) => Err(m.bad("`.noftz` takes `.f16`, `.bf16` or `.f32`")),
            _ => Ok(Ok(RmwOp::Float(FloatOp {
                kind: FloatKind::Add,
                ty,
                ftz: ty == FloatTy::F32 && !noftz,
            }))),
        },
        _ if noftz => Err(m.bad("`.noftz` takes a floating-point `.add`")),
        _ => Ok(Err(format!("{}.{op}.{word} (floating-point)", m.base))),
    }
}
