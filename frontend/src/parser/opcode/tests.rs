//! Unit tests of mnemonic classification.

use super::*;
use crate::ir::{Elementwise, IntRed, IntTy};

#[test]
fn dialect_and_ptx_loads_agree() {
    let a = classify("ld.relaxed.sys").expect("ok");
    let b = classify("ld.global.relaxed.sys.u32").expect("ok");
    let Shape::Load {
        sem, scope, access, ..
    } = b
    else {
        panic!("{b:?}")
    };
    assert_eq!(
        (sem, scope, access.bytes),
        (Sem::Relaxed, Some(Scope::Sys), 4)
    );
    assert!(matches!(
        a,
        Shape::Load {
            sem: Sem::Relaxed,
            scope: Some(Scope::Sys),
            ..
        }
    ));
}

#[test]
fn defaults_of_atom_and_fence() {
    assert!(matches!(
        classify("atom.sys.inc.u32"),
        Ok(Shape::Rmw {
            sem: Sem::Relaxed,
            scope: Scope::Sys,
            op: RmwOp::Inc,
            red: false,
            ..
        })
    ));
    assert!(matches!(
        classify("atom.global.add.u32"),
        Ok(Shape::Rmw {
            scope: Scope::Gpu,
            ..
        })
    ));
    assert!(matches!(
        classify("fence.sys"),
        Ok(Shape::Fence {
            kind: FenceKind::AcqRel,
            scope: Some(Scope::Sys),
            ..
        })
    ));
    assert!(matches!(
        classify("membar.gl"),
        Ok(Shape::Fence {
            kind: FenceKind::Sc,
            scope: Some(Scope::Gpu),
            ..
        })
    ));
}

#[test]
fn proxies() {
    assert!(matches!(
        classify("ld.global.nc.u32"),
        Ok(Shape::Load {
            proxy: Proxy::Readonly,
            ..
        })
    ));
    assert!(matches!(
        classify("ld.global.proxy::readonly.u32"),
        Ok(Shape::Load {
            proxy: Proxy::Readonly,
            ..
        })
    ));
    assert!(matches!(
        classify("cold.weak"),
        Ok(Shape::Load {
            proxy: Proxy::Constant,
            space: StateSpace::Global,
            ..
        })
    ));
    assert!(matches!(
        classify("ld.const.u32"),
        Ok(Shape::Load {
            proxy: Proxy::Constant,
            space: StateSpace::Const,
            ..
        })
    ));
    assert!(matches!(
        classify("sust.weak"),
        Ok(Shape::Store {
            proxy: Proxy::Surface,
            ..
        })
    ));
    assert!(matches!(
        classify("tld.nc"),
        Err(ParseErrorKind::BadInstruction { .. })
    ));
}

#[test]
fn volatile_and_mmio() {
    assert!(matches!(
        classify("ld.volatile.u32"),
        Ok(Shape::Load {
            sem: Sem::Volatile,
            scope: Some(Scope::Sys),
            ..
        })
    ));
    assert!(matches!(
        classify("st.mmio.relaxed.sys.u32"),
        Ok(Shape::Store {
            sem: Sem::Mmio,
            scope: Some(Scope::Sys),
            ..
        })
    ));
    assert!(classify("st.mmio.relaxed.gpu").is_err());
}

#[test]
fn errors_name_the_problem() {
    let msg = |t: &str| classify(t).expect_err(t).to_string();
    assert_eq!(msg("foo.bar"), "unknown instruction `foo.bar`");
    assert_eq!(
        msg("ld.weak.gpu"),
        "invalid `ld.weak.gpu`: a weak access takes no scope, found `.gpu`"
    );
    assert_eq!(
        msg("ld.relaxed"),
        "`ld.relaxed` needs a scope (`.cta`, `.cluster`, `.gpu` or `.sys`)"
    );
    assert_eq!(
        msg("ld.release.gpu"),
        "`ld.release.gpu` cannot have `.release` semantics"
    );
    assert_eq!(
        msg("st.cta.gpu.relaxed"),
        "conflicting modifiers `.cta` and `.gpu` in `st.cta.gpu.relaxed`"
    );
    assert_eq!(
        msg("atom.relaxed.gpu"),
        "`atom.relaxed.gpu` needs an operation such as `.add`, `.exch` or `.cas`"
    );
    assert_eq!(
        msg("ld.weak.foo"),
        "unknown modifier `.foo` in `ld.weak.foo`"
    );
    assert_eq!(
        msg("fence.sc"),
        "`fence.sc` needs a scope (`.cta`, `.cluster`, `.gpu` or `.sys`)"
    );
}

/// `.v8` (256-bit `ld`/`st`, instruction descriptions): a vector of eight
/// 32-bit elements on global memory; other element types and state spaces
/// are errors.
#[test]
fn v8_vectors() {
    let Ok(Shape::Load { access, space, .. }) = classify("ld.global.v8.f32") else {
        panic!("{:?}", classify("ld.global.v8.f32"))
    };
    assert_eq!(
        (access.bytes, access.vector, space),
        (4, 8, StateSpace::Global)
    );
    assert!(matches!(
        classify("st.release.gpu.v8.b32"),
        Ok(Shape::Store {
            access: Access { vector: 8, .. },
            ..
        })
    ));
    assert!(classify("ld.global.v8.u64").is_err());
    assert!(classify("ld.global.v8.u16").is_err());
    assert!(classify("ld.shared.v8.u32").is_err());
    assert!(classify("st.v8").is_err(), "no element type");
}

#[test]
fn unsupported_constructs() {
    let u = |t: &str| match classify(t) {
        Ok(Shape::Unsupported(c)) => c,
        other => panic!("{t}: {other:?}"),
    };
    assert_eq!(u("bar.red.popc.u32"), "bar.red");
    assert_eq!(u("barrier.red.and.pred"), "bar.red");
    assert_eq!(
        u("cp.async.bulk.prefetch.tensor.1d.L2.global"),
        "cp.async.bulk.prefetch"
    );
    assert_eq!(
        u("cp.async.bulk.tensor.2d.shared::cluster.global"),
        "cp.async.bulk.tensor"
    );
    assert_eq!(u("st.async.shared::cluster.v4.b32"), "st.async");
    assert_eq!(u("setp.eq.f32"), "setp.f32");
    assert_eq!(u("setp.equ.s32"), "setp.equ");
    assert_eq!(
        classify("barrier.cluster.arrive.relaxed.aligned"),
        Ok(Shape::Barrier {
            kind: BarrierKind::ClusterArriveRelaxed,
            form: BarForm::Cluster
        })
    );
}

#[test]
fn barriers() {
    assert_eq!(
        classify("bar.cta.sync"),
        Ok(Shape::Barrier {
            kind: BarrierKind::Sync,
            form: BarForm::Dialect
        })
    );
    assert_eq!(
        classify("barrier.sync.aligned"),
        Ok(Shape::Barrier {
            kind: BarrierKind::Sync,
            form: BarForm::Ptx
        })
    );
    assert_eq!(
        classify("barrier.cluster.wait.acquire.aligned"),
        Ok(Shape::Barrier {
            kind: BarrierKind::ClusterWait,
            form: BarForm::Cluster
        })
    );
}

/// Floating-point `atom`/`red`/`cp.reduce.async.bulk` operations and
/// register arithmetic compute on values (`FloatOp`), not on bit patterns;
/// forms without a floating-point meaning are `unsupported` or errors.
#[test]
fn floating_point_operations() {
    let op = |kind, ty, ftz| FloatOp { kind, ty, ftz };
    let rmw = |text: &str| match classify(text) {
        Ok(Shape::Rmw { op, .. }) => Some(op),
        Ok(Shape::Unsupported(_)) => None,
        other => panic!("{text}: {other:?}"),
    };
    use FloatKind::*;
    use FloatTy::*;
    assert_eq!(
        rmw("red.global.add.f32"),
        Some(RmwOp::Float(op(Add, F32, true)))
    );
    assert_eq!(
        rmw("atom.global.add.noftz.f32"),
        Some(RmwOp::Float(op(Add, F32, false)))
    );
    assert_eq!(
        rmw("atom.global.add.noftz.bf16"),
        Some(RmwOp::Float(op(Add, Bf16, false)))
    );
    assert_eq!(
        rmw("atom.global.add.f64"),
        Some(RmwOp::Float(op(Add, F64, false)))
    );
    assert_eq!(rmw("atom.global.exch.b32"), Some(RmwOp::Exch));
    assert_eq!(rmw("atom.global.min.f32"), None);
    assert_eq!(rmw("atom.global.add.noftz.f16x2"), None);
    for bad in [
        "atom.global.add.f16",
        "atom.global.add.noftz.f64",
        "atom.global.and.noftz.b32",
        "ld.global.noftz.f32",
    ] {
        assert!(classify(bad).is_err(), "{bad}");
    }
    for (text, want) in [
        ("add.f32", op(Add, F32, false)),
        ("add.rn.ftz.f32", op(Add, F32, true)),
        ("min.ftz.f16", op(Min, F16, true)),
        ("max.bf16", op(Max, Bf16, false)),
        ("add.f64", op(Add, F64, false)),
    ] {
        assert_eq!(
            classify(text).ok(),
            Some(Shape::Op(BinOp::Float(want))),
            "{text}"
        );
    }
    for text in [
        "add.sat.f32",
        "min.NaN.f32",
        "add.rz.f32",
        "add.ftz.f64",
        "mul.f32",
        "add.f16x2",
    ] {
        assert!(
            matches!(classify(text), Ok(Shape::Unsupported(_))),
            "{text}"
        );
    }
    let reduce = |text: &str| match classify(text) {
        Ok(Shape::Async(AsyncShape::Copy { reduce, .. })) => reduce,
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(
        reduce("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16"),
        Some(RmwOp::Elements(Elementwise::Float(op(Add, F16, false))))
    );
    assert_eq!(
        reduce("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.bf16"),
        Some(RmwOp::Elements(Elementwise::Float(op(Max, Bf16, false))))
    );
    // Integer types reduce each element of the type (`ir::Elementwise`).
    assert_eq!(
        reduce("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32"),
        Some(RmwOp::Elements(Elementwise::Int(IntRed::Add, IntTy::U32)))
    );
    assert_eq!(
        reduce("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s64"),
        Some(RmwOp::Elements(Elementwise::Int(IntRed::Min, IntTy::S64)))
    );
    // The dialect's untyped form reduces the whole value.
    assert_eq!(
        reduce("cp.reduce.async.bulk.global.shared::cta.bulk_group.add"),
        Some(RmwOp::Add)
    );
    assert!(classify("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16").is_err());
}
