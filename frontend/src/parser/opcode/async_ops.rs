//! Mnemonics of the asynchronous operations of 8.9.1.1 (`cp.async`,
//! `cp.async.bulk`, `cp.reduce.async.bulk`, `st.async`) and of `mbarrier`.

use super::{memory_rmw_op, scope_of, set, type_bytes, Mnemonic, Shape};
use crate::error::ParseErrorKind;
use crate::ir::{
    Access, Elementwise, FloatKind, FloatOp, FloatTy, IntRed, IntTy, MbarrierUpdate, RmwOp, Scope,
    Sem, StateSpace,
};

/// What an asynchronous or `mbarrier` instruction is, before its operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AsyncShape {
    /// `cp.async`, `cp.async.bulk`, `cp.reduce.async.bulk`.
    Copy {
        bulk: bool,
        sem: Sem,
        scope: Option<Scope>,
        dst_space: StateSpace,
        src_space: StateSpace,
        mbar: bool,
        reduce: Option<RmwOp>,
    },
    /// `st.async`.
    StAsync {
        sem: Sem,
        scope: Option<Scope>,
        access: Access,
    },
    /// `cp.async{.bulk}.commit_group`.
    Commit { bulk: bool },
    /// `cp.async.wait_group`, `cp.async.wait_all`, `cp.async.bulk.wait_group{.read}`.
    Wait { bulk: bool, all: bool, read: bool },
    /// `cp.async.mbarrier.arrive{.noinc}`.
    CpAsyncArrive { noinc: bool },
    /// `mbarrier.init`.
    MbarrierInit,
    /// `mbarrier.arrive{.expect_tx}`, `mbarrier.arrive_drop{.expect_tx}`,
    /// either with `.noComplete`, `mbarrier.expect_tx`, `mbarrier.complete_tx`.
    MbarrierUpdate {
        kind: MbarrierUpdate,
        sem: Sem,
        scope: Scope,
        space: StateSpace,
        no_complete: bool,
    },
    /// `mbarrier.test_wait` / `mbarrier.try_wait`.
    MbarrierWait {
        try_wait: bool,
        parity: bool,
        sem: Sem,
        scope: Scope,
    },
}

fn space_of(w: &str) -> Option<StateSpace> {
    Some(match w {
        "global" => StateSpace::Global,
        "shared" | "shared::cta" => StateSpace::Shared,
        "shared::cluster" => StateSpace::SharedCluster,
        _ => return None,
    })
}

/// Cache and multicast hints: no effect on the memory model.
fn is_hint(w: &str) -> bool {
    w.starts_with("L2::") || w.starts_with("L1::") || w.starts_with("level::") || w == "ca"
}

/// An unsupported form, named by its base and first two modifiers
/// (`cp.async.bulk`, `mbarrier.arrive_drop`).
fn unsupported(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let mut name = m.base.to_string();
    for w in m.mods.iter().take(if m.base == "cp" { 3 } else { 1 }) {
        name.push('.');
        name.push_str(w);
    }
    Ok(Shape::Unsupported(name))
}

/// `cp.async...` and `cp.reduce.async.bulk...`.
pub(super) fn cp(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let mods = m.mods.as_slice();
    let (reduce, rest) = match mods {
        ["reduce", "async", "bulk", rest @ ..] => (true, rest),
        ["async", rest @ ..] => (false, rest),
        _ => return unsupported(m),
    };
    let a = |s| Ok(Shape::Async(s));
    if !reduce {
        match rest {
            ["commit_group"] => return a(AsyncShape::Commit { bulk: false }),
            ["bulk", "commit_group"] => return a(AsyncShape::Commit { bulk: true }),
            ["wait_all"] => {
                return a(AsyncShape::Wait {
                    bulk: false,
                    all: true,
                    read: false,
                })
            }
            ["wait_group"] => {
                return a(AsyncShape::Wait {
                    bulk: false,
                    all: false,
                    read: false,
                })
            }
            ["bulk", "wait_group"] | ["bulk", "wait_group", "read"] => {
                return a(AsyncShape::Wait {
                    bulk: true,
                    all: false,
                    read: rest.len() == 3,
                })
            }
            ["mbarrier", "arrive", more @ ..] => {
                let mut noinc = false;
                for &w in more {
                    match w {
                        "noinc" => noinc = true,
                        "b64" | "shared" | "shared::cta" => {}
                        _ => return Err(m.unknown(w)),
                    }
                }
                return a(AsyncShape::CpAsyncArrive { noinc });
            }
            // `parser/tensor` takes the tensor forms and `parser/hopper` the
            // prefetch before these tables; what reaches here is neither.
            ["bulk", "tensor", ..] | ["bulk", "prefetch", ..] => return unsupported(m),
            _ => {}
        }
    }
    let (bulk, rest) = match rest {
        ["bulk", rest @ ..] => (true, rest),
        rest if reduce => (true, rest),
        rest => (false, rest),
    };
    let mut spaces = Vec::new();
    let mut mbar = false;
    let mut sem = None;
    let mut scope = None;
    let mut op = None;
    let (mut ty, mut noftz) = (None, false);
    for &w in rest {
        if let Some(s) = space_of(w) {
            spaces.push(s);
        } else if let Some(s) = scope_of(w) {
            set(m, &mut scope, w, s)?;
        } else if w == "relaxed" {
            set(m, &mut sem, w, Sem::Relaxed)?;
        } else if w == "mbarrier::complete_tx::bytes" {
            mbar = true;
        } else if type_bytes(w).is_some() {
            set(m, &mut ty, w, ())?;
        } else if w == "noftz" && reduce {
            noftz = true;
        } else if w == "bulk_group" || w == "cg" || is_hint(w) {
        } else if w.starts_with("multicast::") || w.starts_with("cp_mask") {
            // `.multicast::cluster` copies are `parser/tensor`'s; other
            // multicast and `.cp_mask` forms are not modelled.
            return unsupported(m);
        } else if let Some(o) = memory_rmw_op(w) {
            if !reduce {
                return Err(m.unknown(w));
            }
            set(m, &mut op, w, o)?;
        } else {
            return Err(m.unknown(w));
        }
    }
    let [dst_space, src_space] = spaces[..] else {
        return Err(m.bad("expected a destination and a source state space"));
    };
    if reduce && op.is_none() {
        return Err(m.bad("expected a reduction operation"));
    }
    let op = match (op, ty.and_then(|(w, _)| FloatTy::of_word(w))) {
        (Some((w, o)), Some(t)) => Some((w, float_reduce(m, o, t, noftz)?)),
        (op, _) if noftz => {
            return Err(m.bad(format!(
                "`.noftz` takes a floating-point `.add`, not `{}`",
                op.map_or("", |(w, _)| w)
            )))
        }
        // An integer type: the operation on each element of that type
        // (`ir::Elementwise`); without a type (the dialect) on the value.
        (op, _) => op.map(|(w, o)| {
            let int = ty.and_then(|(t, _)| IntTy::of_word(t));
            (w, Some(int_reduce(o, int)))
        }),
    };
    let op = match op {
        Some((w, None)) => {
            return Ok(Shape::Unsupported(format!(
                "cp.reduce.async.bulk.{w}.{} (floating-point)",
                ty.map_or("", |(t, _)| t)
            )))
        }
        Some((w, Some(o))) => Some((w, o)),
        None => None,
    };
    let (sem, scope) = match (sem, scope) {
        (Some(_), None) => return Err(m.missing_scope()),
        (None, Some((w, _))) => return Err(m.unknown(w)),
        (Some(_), Some((_, s))) => (Sem::Relaxed, Some(s)),
        (None, None) => (Sem::Weak, None),
    };
    a(AsyncShape::Copy {
        bulk,
        sem,
        scope,
        dst_space,
        src_space,
        mbar,
        reduce: op.map(|(_, o)| o),
    })
}

/// `st.async{.release.scope}.shared::cluster.mbarrier::complete_tx::bytes{.vec}.type`.
pub(super) fn st_async(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let mut sem = None;
    let mut scope = None;
    let mut bytes = None;
    for &w in &m.mods {
        if let Some(s) = scope_of(w) {
            set(m, &mut scope, w, s)?;
        } else if let Some(b) = type_bytes(w) {
            set(m, &mut bytes, w, b)?;
        } else {
            match w {
                "async" | "shared::cluster" | "mbarrier::complete_tx::bytes" => {}
                "release" => set(m, &mut sem, w, Sem::Release)?,
                "weak" => set(m, &mut sem, w, Sem::Weak)?,
                "v2" | "v4" => return unsupported(m),
                w if is_hint(w) => {}
                _ => return Err(m.unknown(w)),
            }
        }
    }
    let (sem, scope) = match (sem, scope) {
        (Some((_, Sem::Release)), None) => return Err(m.missing_scope()),
        (Some((_, Sem::Release)), Some((_, s))) => (Sem::Release, Some(s)),
        (_, Some((w, _))) => return Err(m.unknown(w)),
        _ => (Sem::Weak, None),
    };
    Ok(Shape::Async(AsyncShape::StAsync {
        sem,
        scope,
        access: Access {
            bytes: bytes.map_or(0, |(_, b)| b),
            vector: 1,
        },
    }))
}

/// `mbarrier.*`.
pub(super) fn mbarrier(m: &Mnemonic<'_>) -> Result<Shape, ParseErrorKind> {
    let Some((&op, more)) = m.mods.split_first() else {
        return Err(m.bad("expected an mbarrier operation"));
    };
    let (more, expect_tx) = match (op, more) {
        ("arrive" | "arrive_drop", ["expect_tx", rest @ ..]) => (rest, true),
        _ => (more, false),
    };
    let (more, parity) = match (op, more) {
        ("test_wait" | "try_wait", ["parity", rest @ ..]) => (rest, true),
        _ => (more, false),
    };
    // `mbarrier.arrive{,_drop}.noComplete{.sem}{.cta}{.shared{::cta}}.b64
    // state, [addr], count`: no `.expect_tx`, no `.cluster`, no
    // `.shared::cluster` (instruction descriptions).
    let (more, no_complete) = match (op, more) {
        ("arrive" | "arrive_drop", ["noComplete", rest @ ..]) if !expect_tx => (rest, true),
        ("arrive" | "arrive_drop", ["noComplete", ..]) => {
            return Err(m.bad("`.noComplete` does not combine with `.expect_tx`"))
        }
        _ => (more, false),
    };
    let mut sem = None;
    let mut scope = None;
    let mut space = None;
    for &w in more {
        if let Some(s) = scope_of(w) {
            set(m, &mut scope, w, s)?;
        } else if let Some(s) = space_of(w) {
            set(m, &mut space, w, s)?;
        } else {
            match w {
                "release" | "relaxed" | "acquire" => set(m, &mut sem, w, w)?,
                "b64" => {}
                _ => return Err(m.unknown(w)),
            }
        }
    }
    let scope = match scope {
        Some((_, Scope::Gpu | Scope::Sys)) => return Err(m.bad("scope must be .cta or .cluster")),
        Some((_, s)) => s,
        None => Scope::Cta,
    };
    let space = space.map_or(StateSpace::Shared, |(_, s)| s);
    if no_complete && (scope != Scope::Cta || space != StateSpace::Shared) {
        return Err(m.bad("`.noComplete` takes scope `.cta` and state space `.shared::cta` only"));
    }
    let sem_of = |default: Sem, allowed: &str| -> Result<Sem, ParseErrorKind> {
        match sem {
            None => Ok(default),
            Some((w, _)) if w == allowed => Ok(default),
            Some(("relaxed", _)) => Ok(Sem::Relaxed),
            Some((w, _)) => Err(m.bad_sem(w)),
        }
    };
    let update = |kind, default| -> Result<Shape, ParseErrorKind> {
        Ok(Shape::Async(AsyncShape::MbarrierUpdate {
            kind,
            sem: sem_of(default, "release")?,
            scope,
            space,
            no_complete,
        }))
    };
    match op {
        "init" => Ok(Shape::Async(AsyncShape::MbarrierInit)),
        "arrive" if expect_tx => update(MbarrierUpdate::ArriveExpectTx, Sem::Release),
        "arrive" => update(MbarrierUpdate::Arrive, Sem::Release),
        "arrive_drop" if expect_tx => update(MbarrierUpdate::ArriveDropExpectTx, Sem::Release),
        "arrive_drop" => update(MbarrierUpdate::ArriveDrop, Sem::Release),
        // 8.9.1.1 and the instruction descriptions: expect-tx and complete-tx are relaxed.
        "expect_tx" => update(MbarrierUpdate::ExpectTx, Sem::Relaxed),
        "complete_tx" => update(MbarrierUpdate::CompleteTx, Sem::Relaxed),
        "test_wait" | "try_wait" => Ok(Shape::Async(AsyncShape::MbarrierWait {
            try_wait: op == "try_wait",
            parity,
            sem: sem_of(Sem::Acquire, "acquire")?,
            scope,
        })),
        _ => unsupported(m),
    }
}

/// The operation of `cp.reduce.async.bulk.OP.T` on a floating-point type `T`
/// (values are bit patterns, `ir::FloatOp`): `.add.noftz.f16`/`.bf16` and
/// `.add.f64` keep subnormals, `.add.f32` flushes them as `red.add.f32`
/// does (ptxmc's choice: the copy's reduction is read as a `red` of each
/// element), `.min`/`.max` compare values. `None` for an operation that does
/// not compute on floats (`.inc`, `.and`, ...): `unsupported`.
fn float_reduce(
    m: &Mnemonic<'_>,
    op: RmwOp,
    ty: FloatTy,
    noftz: bool,
) -> Result<Option<RmwOp>, ParseErrorKind> {
    let kind = match op {
        RmwOp::Add => FloatKind::Add,
        RmwOp::Min => FloatKind::Min,
        RmwOp::Max => FloatKind::Max,
        _ => return Ok(None),
    };
    let half = matches!(ty, FloatTy::F16 | FloatTy::Bf16);
    if kind == FloatKind::Add && half != noftz {
        return Err(m.bad(format!(
            "the floating-point `.add` is spelled `.add.noftz` on `.f16`/`.bf16` only, found `.add{}.{}`",
            if noftz { ".noftz" } else { "" },
            ty.word()
        )));
    }
    if kind != FloatKind::Add && noftz {
        return Err(m.bad("`.noftz` takes a floating-point `.add`"));
    }
    Ok(Some(RmwOp::Elements(Elementwise::Float(FloatOp {
        kind,
        ty,
        ftz: kind == FloatKind::Add && ty == FloatTy::F32,
    }))))
}

/// The operation of `cp.reduce.async.bulk.OP.T` on an integer type `T`: `OP`
/// on each element of `T` (`ir::Elementwise`). An operation without an
/// element form, or no type, stays `OP` on the whole value.
fn int_reduce(op: RmwOp, ty: Option<IntTy>) -> RmwOp {
    let red = match op {
        RmwOp::Add => IntRed::Add,
        RmwOp::Inc => IntRed::Inc,
        RmwOp::Dec => IntRed::Dec,
        RmwOp::Min => IntRed::Min,
        RmwOp::Max => IntRed::Max,
        RmwOp::And => IntRed::And,
        RmwOp::Or => IntRed::Or,
        RmwOp::Xor => IntRed::Xor,
        _ => return op,
    };
    ty.map_or(op, |t| RmwOp::Elements(Elementwise::Int(red, t)))
}
