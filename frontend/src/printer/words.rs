//! The words statements are spelled with: register and label names, the
//! modifiers of an access (semantics, scope, state space, proxy, type and
//! vector width), and [`Ctx`], the spelling context of one statement. Every
//! statement printer (`instr.rs`, `async_instr.rs`, `host.rs`) uses them.

use crate::ir::{
    Access, AddrOperand, LabelId, Operand, Proxy, RegId, Scope, Sem, StateSpace, Test,
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

pub(super) fn label_name(t: &Test, th: usize, l: LabelId) -> String {
    t.symbols
        .labels
        .get(th)
        .and_then(|ls| ls.get(l.index()))
        .cloned()
        .unwrap_or_else(|| format!("label{}", l.index()))
}

/// `.weak`, `.relaxed.gpu`, `.volatile`, `.mmio.relaxed.sys`, ...
pub(super) fn sem_mods(sem: Sem, scope: Option<Scope>) -> String {
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
pub(super) fn proxy_mod(p: Proxy) -> String {
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
    pub(super) fn list<T>(&self, items: &[T], vector: u8, f: impl Fn(&T) -> String) -> String {
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
