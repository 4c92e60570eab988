//! One statement as text: the dialect's spelling where the dialect can say it,
//! PTX spelling (`%r0`, `[x]`, `.b32`, `.v2`) for typed and vector accesses.

use super::words::{access_mods, label_name, proxy_mod, reg_name, sem_mods, space_mod, Ctx, Via};
use crate::ir::{
    Access, BarrierKind, BinOp, CmpOp, FenceKind, Instr, Operand, Proxy, RmwOp, Scope, StateSpace,
    Test,
};

/// One statement of thread `th`; a memory instruction with `via` prints its
/// addresses as those registers plus offsets (the [`Instr::AddrReg`]s before it).
pub(super) fn stmt_via(t: &Test, th: usize, i: &Instr, via: Via) -> String {
    let mut c = Ctx {
        t,
        th,
        ptx: false,
        via,
    };
    match i {
        Instr::Load {
            sem,
            scope,
            proxy,
            space,
            access,
            dst,
            addr,
        } => {
            c.ptx = access.bytes != 0 || access.vector != 1;
            let (base, pmod) = match proxy {
                Proxy::Texture => ("tld", String::new()),
                Proxy::Surface => ("suld", String::new()),
                Proxy::Constant if *space != StateSpace::Const => ("cold", String::new()),
                Proxy::Constant | Proxy::Generic => ("ld", String::new()),
                Proxy::Readonly => ("ld", ".nc".into()),
                p => ("ld", proxy_mod(*p)),
            };
            format!(
                "{base}{}{}{pmod}{} {}, {}",
                sem_mods(*sem, *scope),
                space_mod(*space, c.ptx),
                access_mods(*access, false),
                c.list(dst, access.vector, |r| c.reg(*r)),
                c.addr(*addr)
            )
        }
        Instr::Store {
            sem,
            scope,
            proxy,
            space,
            access,
            addr,
            src,
        } => {
            c.ptx = access.bytes != 0 || access.vector != 1;
            let (base, pmod) = match proxy {
                Proxy::Surface => ("sust", String::new()),
                p => ("st", proxy_mod(*p)),
            };
            format!(
                "{base}{}{}{pmod}{} {}, {}",
                sem_mods(*sem, *scope),
                space_mod(*space, c.ptx),
                access_mods(*access, false),
                c.addr(*addr),
                c.list(src, access.vector, |v| c.val(*v))
            )
        }
        Instr::Rmw {
            sem,
            scope,
            proxy,
            space,
            access,
            op,
            dst,
            addr,
            a,
            b,
        } => {
            c.ptx = access.bytes != 0 || access.vector != 1;
            let (base, pmod) = match (proxy, dst.is_some()) {
                (Proxy::Surface, true) => ("suatom", String::new()),
                (Proxy::Surface, false) => ("sured", String::new()),
                (p, true) => ("atom", proxy_mod(*p)),
                (p, false) => ("red", proxy_mod(*p)),
            };
            let (opw, arith) = (*op, is_arithmetic(*op));
            let mut ops = Vec::with_capacity(4);
            if let Some(d) = dst {
                ops.push(c.reg(*d));
            }
            ops.push(c.addr(*addr));
            ops.push(c.val(*a));
            if let Some(b) = b {
                ops.push(c.val(*b));
            }
            // A floating-point operation names its type: `.add.f32` flushes
            // subnormals (PTX), `.add.noftz.f32` (ptxmc's spelling of
            // multimem.red's element operation) keeps them.
            let (opw, ty) = match op {
                RmwOp::Float(f) => {
                    let vec = access_mods(
                        Access {
                            bytes: 0,
                            ..*access
                        },
                        false,
                    );
                    let words = f.rmw_words();
                    let (k, rest) = words.split_once('.').unwrap_or((&words, ""));
                    (k.to_string(), format!("{vec}.{rest}"))
                }
                _ => (opw.to_string(), access_mods(*access, arith)),
            };
            format!(
                "{base}{}{}{pmod}.{opw}{ty} {}",
                sem_mods(*sem, Some(*scope)),
                space_mod(*space, c.ptx),
                ops.join(", ")
            )
        }
        Instr::Fence { kind, scope } => fence(*kind, *scope),
        Instr::Barrier {
            kind,
            instance,
            id,
            count,
        } => {
            let word = match kind {
                BarrierKind::ClusterArrive
                | BarrierKind::ClusterArriveRelaxed
                | BarrierKind::ClusterWait => return kind.to_string(),
                // The dialect's `bar.cta.sync` for `bar.sync`.
                BarrierKind::Sync | BarrierKind::Arrive | BarrierKind::Red => {
                    kind.spelling().trim_start_matches("bar.")
                }
            };
            let mut s = format!("bar.cta.{word} {instance}");
            if *id != Operand::Imm(0) || count.is_some() {
                s += &format!(", {}", c.val(*id));
            }
            if let Some(n) = count {
                s += &format!(", {}", c.val(*n));
            }
            s
        }
        Instr::Op { op, dst, a, b } if op.is_unary() => {
            format!("{} {}, {}", unary_word(*op), c.reg(*dst), c.val(*a))
        }
        Instr::Op {
            op: BinOp::Setp { cmp, signed, bits },
            dst,
            a,
            b,
        } => {
            let sign = if *signed { 's' } else { 'u' };
            format!(
                "setp.{cmp}.{sign}{bits} {}, {}, {}",
                c.reg(*dst),
                c.val(*a),
                c.val(*b)
            )
        }
        Instr::Op {
            op: BinOp::Bfe { signed, bits },
            dst,
            a,
            b: Operand::Imm(p),
        } => format!(
            "bfe.{}{bits} {}, {}, {}, {}",
            if *signed { 's' } else { 'u' },
            c.reg(*dst),
            c.val(*a),
            p & 0xff,
            (p >> 8) & 0xff
        ),
        Instr::Op { op, dst, a, b } => {
            format!(
                "{} {}, {}, {}",
                BinOp::spelling(*op),
                c.reg(*dst),
                c.val(*a),
                c.val(*b)
            )
        }
        Instr::Mov { dst, src } => match src {
            Operand::Imm(v) => format!("ld {}, {v}", c.reg(*dst)),
            // `%` always: a bare name that is also a location is its address.
            Operand::Reg(r) => format!("mov {}, %{}", c.reg(*dst), reg_name(c.t, c.th, *r)),
        },
        Instr::Label(l) => format!("{}:", label_name(t, th, *l)),
        Instr::Goto(l) => format!("goto {}", label_name(t, th, *l)),
        Instr::Branch { cmp, a, b, target } => format!(
            "{} {}, {}, {}",
            branch_word(*cmp),
            c.val(*a),
            c.val(*b),
            label_name(t, th, *target)
        ),
        Instr::Unsupported(text) => text.clone(),
        Instr::Api(call) => super::host::call(t, th, call),
        // Printed with the memory instruction it precedes (`printer::table`);
        // alone (never made by the parser) it has no spelling.
        Instr::AddrReg { .. } => String::new(),
        Instr::Unordered(n) => format!("unordered {n}"),
        Instr::Async(a) => {
            c.ptx = true;
            super::async_instr::stmt(&c, a)
        }
    }
}

fn fence(kind: FenceKind, scope: Option<Scope>) -> String {
    let base = kind.spelling();
    match scope {
        Some(s) => format!("{base}.{s}"),
        None => base.to_string(),
    }
}

/// Whether the `.op` of `atom`/`red` is arithmetic (typed `.uN`).
fn is_arithmetic(op: RmwOp) -> bool {
    matches!(
        op,
        RmwOp::Add
            | RmwOp::Sub
            | RmwOp::Mul
            | RmwOp::Div
            | RmwOp::Inc
            | RmwOp::Dec
            | RmwOp::Min
            | RmwOp::Max
    )
}

/// The mnemonic of a one-operand operation (`cvt`, `popc`, `abs`).
fn unary_word(op: BinOp) -> String {
    match op {
        BinOp::Ext { signed, bits } => {
            let sign = if signed { 's' } else { 'u' };
            format!("cvt.{sign}64.{sign}{bits}")
        }
        BinOp::Popc { bits } => format!("popc.b{bits}"),
        BinOp::Abs => "abs.s64".into(),
        BinOp::Clz { bits } => format!("clz.b{bits}"),
        BinOp::Brev { bits } => format!("brev.b{bits}"),
        _ => op.spelling().to_string(),
    }
}

/// The dialect's `beq`, `bne`, ...: `b` and the comparison.
fn branch_word(cmp: CmpOp) -> String {
    format!("b{cmp}")
}
