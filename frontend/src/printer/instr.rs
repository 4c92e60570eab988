//! One statement as text: the dialect's spelling where the dialect can say it,
//! PTX spelling (`%r0`, `[x]`, `.b32`, `.v2`) for typed and vector accesses.

use crate::ir::{
    Access, AddrOperand, BarrierKind, BinOp, CmpOp, FenceKind, Instr, LabelId, Operand, Proxy,
    RegId, RmwOp, Scope, Sem, StateSpace, Test,
};

/// The (canonical, `%`-less) name of a register of thread `th`.
pub(super) fn reg_name(t: &Test, th: usize, r: RegId) -> String {
    t.symbols
        .regs
        .get(th)
        .and_then(|regs| regs.get(r.index()))
        .cloned()
        .unwrap_or_else(|| format!("reg{}", r.index()))
}

fn label_name(t: &Test, th: usize, l: LabelId) -> String {
    t.symbols
        .labels
        .get(th)
        .and_then(|ls| ls.get(l.index()))
        .cloned()
        .unwrap_or_else(|| format!("label{}", l.index()))
}

/// `.weak`, `.relaxed.gpu`, `.volatile`, `.mmio.relaxed.sys`, ...
fn sem_mods(sem: Sem, scope: Option<Scope>) -> String {
    match (sem, scope) {
        (Sem::Volatile, _) => ".volatile".into(),
        (Sem::Mmio, _) => format!(".{}.{}.{}", Sem::Mmio, Sem::Relaxed, Scope::Sys),
        (_, Some(s)) => format!(".{sem}.{s}"),
        (_, None) => format!(".{sem}"),
    }
}

pub(super) fn space_mod(space: StateSpace, ptx: bool) -> String {
    match space {
        StateSpace::Global if !ptx => String::new(),
        s => format!(".{s}"),
    }
}

/// `.proxy::NAME` for a proxy that the mnemonic does not imply.
fn proxy_mod(p: Proxy) -> String {
    match p {
        Proxy::Generic => String::new(),
        p => format!(".proxy::{p}"),
    }
}

/// `.v2.b32` and friends; `arith` picks `.u32` over `.b32` (for `atom.add`).
pub(super) fn access_mods(a: Access, arith: bool) -> String {
    let vec = if a.vector == 1 {
        String::new()
    } else {
        format!(".v{}", a.vector)
    };
    let ty = match a.bytes {
        0 => String::new(),
        16 => ".b128".into(),
        b if arith => format!(".u{}", u32::from(b) * 8),
        b => format!(".b{}", u32::from(b) * 8),
    };
    vec + &ty
}

/// Spelling context of one statement.
pub(super) struct Ctx<'a> {
    pub(super) t: &'a Test,
    pub(super) th: usize,
    /// PTX spelling: `%r0`, `[x]`.
    pub(super) ptx: bool,
    /// The register-held addresses (`[%rd1+8]`) of a memory instruction that
    /// [`Instr::AddrReg`]s precede, by operand ([`AddrOperand::index`]);
    /// printed instead of the resolved locations.
    pub(super) via: Via,
}

impl Ctx<'_> {
    pub(super) fn reg(&self, r: RegId) -> String {
        let name = reg_name(self.t, self.th, r);
        if self.ptx {
            format!("%{name}")
        } else {
            name
        }
    }

    pub(super) fn val(&self, v: Operand) -> String {
        match v {
            Operand::Imm(i) => i.to_string(),
            Operand::Reg(r) => self.reg(r),
        }
    }

    /// The address operand `a` (a load's or store's address, a copy's
    /// destination).
    pub(super) fn addr(&self, a: crate::ir::AddrId) -> String {
        self.addr_of(AddrOperand::Target, a)
    }

    /// The address operand `which`, `a` when no register holds it.
    pub(super) fn addr_of(&self, which: AddrOperand, a: crate::ir::AddrId) -> String {
        if let Some((r, off)) = self.via[which.index()] {
            let name = format!("%{}", reg_name(self.t, self.th, r));
            return match off {
                0 => format!("[{name}]"),
                o if o < 0 => format!("[{name}-{}]", o.unsigned_abs()),
                o => format!("[{name}+{o}]"),
            };
        }
        let name = super::addr(self.t, a);
        let offset = self
            .t
            .addresses
            .get(a.index())
            .is_some_and(|ad| matches!(ad.kind, crate::ir::AddrKind::Offset(..)));
        // `[x+N]` needs its brackets in the dialect too.
        if self.ptx || offset {
            format!("[{name}]")
        } else {
            name
        }
    }

    /// One item, or a `{a, b}` vector when `vector > 1` (or the count is off).
    fn list<T>(&self, items: &[T], vector: u8, f: impl Fn(&T) -> String) -> String {
        if vector == 1 && items.len() == 1 {
            f(&items[0])
        } else {
            let parts: Vec<String> = items.iter().map(f).collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// The register and offset of each address operand ([`AddrOperand::index`])
/// that a register holds.
pub(super) type Via = [Option<(RegId, i64)>; 3];

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
