//! The IR under construction: interned addresses, registers and labels, and the threads' code.

use crate::error::{ParseError, ParseErrorKind};
use crate::intern::Interner;
use crate::ir::{
    AddrId, AddrKind, AddrOperand, Address, Condition, LabelId, PhysId, Placement, Prop, Proxy,
    RegId, Span, Stmt, Symbols, Term, Test, Thread, ThreadId, Unsupported, VAddrId,
};
use fxhash::FxHashSet;

/// The canonical name of a register: `%r0` and `r0` are one register, named `r0`.
pub(crate) fn reg_key(name: &str) -> &str {
    name.strip_prefix('%').unwrap_or(name)
}

/// One thread under construction.
#[derive(Debug, Default)]
pub(super) struct ThreadState {
    pub placement: Placement,
    pub explicit_cluster: bool,
    /// Where its header cell is.
    pub span: Span,
    regs: Interner<RegId>,
    labels: Interner<LabelId>,
    /// Where each label is defined, by [`LabelId`].
    label_defs: Vec<Option<Span>>,
    /// Every jump target, in program order.
    label_uses: Vec<(LabelId, Span)>,
    pub code: Vec<Stmt>,
    pub unsupported: Vec<Unsupported>,
    /// The placement fields of special registers (`tid 3`).
    pub special: super::special::SpecialFields,
    /// Fresh names made so far (guard labels `$gN`, temporaries `$tN`).
    pub fresh: u32,
    /// The label `ret`/`exit` jump to, defined after the last statement.
    pub exit_label: Option<LabelId>,
}

/// A memory instruction whose address is held in a register (`[%rd1+8]`),
/// resolved once the thread's code is known (`parser/addresses`).
#[derive(Debug)]
pub(super) struct PendingAddr {
    /// Thread index.
    pub thread: usize,
    /// Position of the memory instruction in the thread's code (after its
    /// [`crate::ir::Instr::AddrReg`]s, one per register-held operand).
    pub pos: usize,
    /// The register and offset.
    pub reg: RegId,
    pub offset: i64,
    /// Which address operand of the instruction it is.
    pub operand: AddrOperand,
    /// The resolved offset from the location's start must be a multiple of
    /// this (8 for `mbarrier.inval`'s object, lowered to a plain store; 1
    /// otherwise).
    pub align: u32,
    /// The address as written, and where.
    pub text: String,
    pub span: Span,
}

/// `tmap @ tensormap g0, g1 box B;`: the tensors a tensor map's values name
/// (declared in the header, read by `parser/tensor` when a tensor copy names
/// the map).
#[derive(Clone, Debug)]
pub(super) struct TensorMapDecl {
    pub(super) name: String,
    pub(super) tensors: Vec<String>,
    pub(super) box_bytes: i64,
}

/// The placeholder address of a memory instruction until its register-held
/// address is resolved.
pub(super) const UNRESOLVED: AddrId = AddrId(u32::MAX);

/// A `P0:r0=V` entry of the initial state, resolved once the threads are known.
#[derive(Debug)]
pub(super) struct PendingRegInit {
    pub thread: u64,
    pub reg: String,
    pub value: i64,
    pub span: Span,
}

/// Everything the parser has learnt so far.
#[derive(Debug, Default)]
pub(super) struct Builder {
    addrs: Interner<AddrId>,
    addresses: Vec<Address>,
    init_mem: Vec<i64>,
    n_vaddr: u32,
    /// Addresses declared in the initial state are `0..n_declared`.
    n_declared: usize,
    pub pending_regs: Vec<PendingRegInit>,
    pub init_regs: Vec<(ThreadId, RegId, i64)>,
    pub threads: Vec<ThreadState>,
    pub observed: Vec<Term>,
    pub filter: Option<Prop>,
    /// Kernels and streams of the initial state (8.9.4).
    pub api: crate::ir::Api,
    /// The thread numbers each kernel names, with where, checked once the
    /// thread header row is known.
    pub pending_kernel_threads: Vec<Vec<(u64, Span)>>,
    /// The thread `host P2;` names, with where, checked with the kernels.
    pub pending_host: Option<(u64, Span)>,
    /// The locations each multimem address points to (`mc @ multimem x, y;`).
    pub multimem_members: Vec<(AddrId, Vec<AddrId>)>,
    /// Register-held addresses still to resolve.
    pub pending_addrs: Vec<PendingAddr>,
    /// The tensor maps of the initial state (`tmap @ tensormap g0, g1 box 8;`).
    pub tensormaps: Vec<TensorMapDecl>,
    /// The instance of a shared location in each CTA of the cluster, by
    /// `%cluster_ctarank` (`s @ cluster s0, s1;`).
    pub cluster_instances: Vec<(String, Vec<String>)>,
    /// Both of the above as written back by the printer ([`Test::declarations`]).
    pub declarations: Vec<String>,
}

impl Builder {
    /// A new physical location with a fresh virtual address.
    fn root(&mut self, name: &str, value: i64) -> AddrId {
        let phys = PhysId::new(self.init_mem.len());
        let vaddr = VAddrId(self.n_vaddr);
        self.n_vaddr += 1;
        self.init_mem.push(value);
        self.addresses.push(Address {
            kind: AddrKind::Root,
            phys,
            vaddr,
        });
        self.addrs.intern(name)
    }

    /// `name = value` in the initial state.
    pub fn declare_location(
        &mut self,
        name: &str,
        value: i64,
        span: Span,
    ) -> Result<(), ParseError> {
        if self.addrs.get(name).is_some() {
            return Err(ParseError::new(
                ParseErrorKind::DuplicateLocation(name.into()),
                span,
            ));
        }
        self.root(name, value);
        self.n_declared = self.addrs.len();
        Ok(())
    }

    /// `name @ local = value` or `name @ param = value` in the initial
    /// state (`kind` [`AddrKind::Local`] or [`AddrKind::Param`]).
    pub fn declare_space(
        &mut self,
        name: &str,
        kind: AddrKind,
        value: i64,
        span: Span,
    ) -> Result<(), ParseError> {
        self.declare_location(name, value, span)?;
        // invariant: `declare_location` just pushed the address.
        if let Some(a) = self.addresses.last_mut() {
            a.kind = kind;
        }
        Ok(())
    }

    /// Thread `t`'s copy of the `.local` location `l` (named `l@P<t>`, a
    /// name no source can write), made on first use with `l`'s initial
    /// value (8.2.6).
    pub fn local_copy(&mut self, l: AddrId, t: usize) -> AddrId {
        let name = format!("{}@P{t}", self.addrs.name(l));
        if let Some(a) = self.addrs.get(&name) {
            return a;
        }
        let value = self
            .addresses
            .get(l.index())
            .and_then(|a| self.init_mem.get(a.phys.index()))
            .copied()
            .unwrap_or(0);
        let a = self.root(&name, value);
        // invariant: `root` just pushed the address `a`.
        self.addresses[a.index()].kind = AddrKind::LocalCopy(l, ThreadId::new(t));
        a
    }

    /// `name @ proxy aliases target` in the initial state.
    pub fn declare_alias(
        &mut self,
        name: &str,
        proxy: Proxy,
        target: &str,
        span: Span,
        target_span: Span,
    ) -> Result<(), ParseError> {
        if self.addrs.get(name).is_some() {
            return Err(ParseError::new(
                ParseErrorKind::DuplicateLocation(name.into()),
                span,
            ));
        }
        let Some(t) = self.addrs.get(target) else {
            return Err(ParseError::new(
                ParseErrorKind::UndeclaredAliasTarget {
                    alias: name.into(),
                    target: target.into(),
                },
                target_span,
            ));
        };
        // invariant: `addrs` and `addresses` grow together, so `t` indexes `addresses`.
        let of = self.addresses[t.index()];
        if matches!(of.kind, AddrKind::Local | AddrKind::Param) {
            return Err(ParseError::new(
                ParseErrorKind::BadSpaceUse(format!(
                    "`{name}` cannot alias `{target}`, which is {}",
                    space_words(of.kind)
                )),
                target_span,
            ));
        }
        let address = if proxy == Proxy::Generic {
            let vaddr = VAddrId(self.n_vaddr);
            self.n_vaddr += 1;
            Address {
                kind: AddrKind::GenericAlias(t),
                phys: of.phys,
                vaddr,
            }
        } else {
            Address {
                kind: AddrKind::ProxyAlias(proxy, t),
                phys: of.phys,
                vaddr: of.vaddr,
            }
        };
        self.addresses.push(address);
        self.addrs.intern(name);
        self.n_declared = self.addrs.len();
        Ok(())
    }

    /// The address named `name`, created (initial value 0) on first use.
    pub fn addr(&mut self, name: &str) -> AddrId {
        match self.addrs.get(name) {
            Some(a) => a,
            None => self.root(name, 0),
        }
    }

    /// The address `offset` bytes after the address named `name` (`[name+offset]`),
    /// interned as `name+offset`; `offset == 0` is `name` itself (8.2).
    pub fn addr_at(&mut self, name: &str, offset: u32) -> AddrId {
        let base = self.addr(name);
        if offset == 0 {
            return base;
        }
        let key = format!("{name}+{offset}");
        if let Some(a) = self.addrs.get(&key) {
            return a;
        }
        // invariant: `addrs` and `addresses` grow together, so `base` indexes `addresses`.
        let of = self.addresses[base.index()];
        self.addresses.push(Address {
            kind: AddrKind::Offset(base, offset),
            phys: of.phys,
            vaddr: of.vaddr,
        });
        self.addrs.intern(&key)
    }

    /// `name @ multimem` in the initial state: a multimem address (8.2.3),
    /// a location of its own (initial value 0).
    pub fn declare_multimem(&mut self, name: &str, span: Span) -> Result<(), ParseError> {
        if self.addrs.get(name).is_some() {
            return Err(ParseError::new(
                ParseErrorKind::DuplicateLocation(name.into()),
                span,
            ));
        }
        let a = self.root(name, 0);
        // invariant: `root` just pushed the address `a`.
        self.addresses[a.index()].kind = AddrKind::Multimem;
        self.n_declared = self.addrs.len();
        Ok(())
    }

    /// The name of address `a`.
    pub fn addr_name(&self, a: AddrId) -> Option<String> {
        (a.index() < self.addrs.len()).then(|| self.addrs.name(a).to_string())
    }

    /// A fresh name `{prefix}{n}` of thread `t` (guard labels, temporaries).
    pub fn fresh(&mut self, t: usize, prefix: &str) -> String {
        let th = &mut self.threads[t];
        th.fresh += 1;
        format!("{prefix}{}", th.fresh - 1)
    }

    /// The address named `name`, if it exists (nothing is created).
    pub fn addr_lookup(&self, name: &str) -> Option<AddrId> {
        self.addrs.get(name)
    }

    /// How the address `a` was declared.
    pub fn address_kind(&self, a: AddrId) -> Option<AddrKind> {
        self.addresses.get(a.index()).map(|ad| ad.kind)
    }

    /// Whether `name` was declared in the initial state.
    pub fn is_declared_location(&self, name: &str) -> bool {
        self.addrs
            .get(name)
            .is_some_and(|a| a.index() < self.n_declared)
    }

    /// The register `name` of thread `t` (`%` prefix ignored), if it is
    /// interned already (nothing is created).
    pub fn reg_lookup(&self, t: usize, name: &str) -> Option<RegId> {
        self.threads.get(t)?.regs.get(reg_key(name))
    }

    /// The register `name` of thread `t` (`%` prefix ignored), interned on first use.
    /// `t` is a checked thread index (a column of the table, or from [`Self::cond_reg`]).
    pub fn reg(&mut self, t: usize, name: &str) -> RegId {
        self.threads[t].regs.intern(reg_key(name))
    }

    /// The register `name` of the thread numbered `thread` in a condition, checking
    /// that the thread exists.
    pub fn cond_reg(
        &mut self,
        thread: u64,
        name: &str,
        span: Span,
        place: &'static str,
    ) -> Result<(ThreadId, RegId), ParseError> {
        let n = self.threads.len();
        match usize::try_from(thread) {
            Ok(t) if t < n => Ok((ThreadId::new(t), self.reg(t, name))),
            _ => Err(ParseError::new(
                ParseErrorKind::RegOfMissingThread {
                    reg: name.into(),
                    thread,
                    threads: n,
                    place,
                },
                span,
            )),
        }
    }

    /// Resolves the `P0:r0=V` entries once the thread header row is known.
    pub fn resolve_pending_regs(&mut self) -> Result<(), ParseError> {
        let pending = std::mem::take(&mut self.pending_regs);
        let mut seen = FxHashSet::default();
        for p in pending {
            let (t, r) = self.cond_reg(p.thread, &p.reg, p.span, "the initial state")?;
            if !seen.insert((t, r)) {
                return Err(ParseError::new(
                    ParseErrorKind::DuplicateRegInit {
                        reg: reg_key(&p.reg).into(),
                        thread: p.thread,
                    },
                    p.span,
                ));
            }
            self.init_regs.push((t, r, p.value));
        }
        Ok(())
    }

    /// A jump to label `name` of thread `t`.
    pub fn label_use(&mut self, t: usize, name: &str, span: Span) -> LabelId {
        let th = &mut self.threads[t];
        let l = th.labels.intern(name);
        th.label_defs.resize(th.labels.len(), None);
        th.label_uses.push((l, span));
        l
    }

    /// The definition `name:` of a label of thread `t`.
    pub fn label_def(&mut self, t: usize, name: &str, span: Span) -> Result<LabelId, ParseError> {
        let th = &mut self.threads[t];
        let l = th.labels.intern(name);
        // invariant: after the resize, every label id indexes `label_defs`.
        th.label_defs.resize(th.labels.len(), None);
        if th.label_defs[l.index()].is_some() {
            return Err(ParseError::new(
                ParseErrorKind::DuplicateLabel {
                    label: name.into(),
                    thread: t,
                },
                span,
            ));
        }
        th.label_defs[l.index()] = Some(span);
        Ok(l)
    }

    /// Fails on the first (in source order) jump to a label its thread does not define.
    pub fn check_labels(&self) -> Result<(), ParseError> {
        let mut first: Option<ParseError> = None;
        for (t, th) in self.threads.iter().enumerate() {
            for &(l, span) in &th.label_uses {
                if th.label_defs[l.index()].is_some() {
                    continue;
                }
                if first
                    .as_ref()
                    .is_some_and(|e| (e.span.line, e.span.col) <= (span.line, span.col))
                {
                    continue;
                }
                let label = th.labels_name(l);
                first = Some(ParseError::new(
                    ParseErrorKind::UndefinedLabel { label, thread: t },
                    span,
                ));
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// The finished test.
    pub fn finish(self, name: String, docs: Vec<String>, condition: Condition) -> Test {
        let mut regs = Vec::with_capacity(self.threads.len());
        let mut labels = Vec::with_capacity(self.threads.len());
        let mut threads = Vec::with_capacity(self.threads.len());
        let mut unsupported = Vec::new();
        for th in self.threads {
            regs.push(th.regs.into_names());
            labels.push(th.labels.into_names());
            unsupported.extend(th.unsupported);
            threads.push(Thread {
                placement: th.placement,
                explicit_cluster: th.explicit_cluster,
                code: th.code,
            });
        }
        Test {
            name,
            docs,
            n_phys: self.init_mem.len() as u32,
            n_vaddr: self.n_vaddr,
            addresses: self.addresses,
            init_mem: self.init_mem,
            init_regs: self.init_regs,
            threads,
            observed: self.observed,
            filter: self.filter,
            condition,
            unsupported,
            api: self.api,
            declarations: self.declarations,
            multimem: self.multimem_members,
            symbols: Symbols {
                addrs: self.addrs.into_names(),
                regs,
                labels,
            },
        }
    }
}

impl Builder {
    /// A builder that knows the names of `test` (its addresses and each
    /// thread's registers, with the same ids), for parsing text that refers
    /// to them (a standalone proposition, [`super::parse_prop`]). A name the
    /// test does not have gets an id past the test's.
    pub fn naming(test: &Test) -> Builder {
        let mut b = Builder::default();
        for name in &test.symbols.addrs {
            b.addrs.intern(name);
        }
        b.addresses.clone_from(&test.addresses);
        b.init_mem.clone_from(&test.init_mem);
        b.n_vaddr = test.n_vaddr;
        b.n_declared = b.addresses.len();
        for (t, th) in test.threads.iter().enumerate() {
            let mut ts = ThreadState::new(th.placement, th.explicit_cluster, Span::default());
            for r in test.symbols.regs.get(t).map_or(&[][..], Vec::as_slice) {
                ts.regs.intern(r);
            }
            b.threads.push(ts);
        }
        b
    }

    /// The name of register `r` of thread `t`.
    pub fn reg_name(&self, t: ThreadId, r: RegId) -> &str {
        self.threads
            .get(t.index())
            .map_or("?", |th| th.regs.name(r))
    }
}

impl ThreadState {
    /// A thread with no code yet.
    pub fn new(placement: Placement, explicit_cluster: bool, span: Span) -> Self {
        ThreadState {
            placement,
            explicit_cluster,
            span,
            ..ThreadState::default()
        }
    }

    /// The number of registers interned so far.
    pub fn n_regs(&self) -> usize {
        self.regs.len()
    }

    /// The canonical name of register `r`.
    pub fn reg_name(&self, r: RegId) -> &str {
        self.regs.name(r)
    }

    fn labels_name(&self, l: LabelId) -> String {
        self.labels.name(l).to_string()
    }
}

/// How messages describe the state space of a `.local` or `.param`
/// declaration.
pub(super) fn space_words(kind: AddrKind) -> &'static str {
    match kind {
        AddrKind::Local | AddrKind::LocalCopy(..) => {
            "`.local` memory, private to each thread (PTX ISA 5.1.5)"
        }
        _ => "a kernel parameter, read-only (PTX ISA 5.1.6.1)",
    }
}
