//! Writing API synchronization into the threads' code (8.9.4): hidden flags
//! `__api_*` (initial value 0), `st.release.sys` of 1 at each producer point
//! that some consumer waits for, `ld.acquire.sys` spin loops at consumer
//! points, and one acquire read per flag for a query (its register is 1
//! when every flag read 1: the query returned `cudaSuccess`, item 7).
//! Hidden statements have position 0:0.

use super::tasks::{Point, Tasks};
use ptxmc_frontend::ir::{
    Access, AddrId, AddrKind, Address, ApiCall, CmpOp, FenceKind, Instr, LabelId, Operand, PhysId,
    Placement, Proxy, RegId, Scope, Sem, Span, StateSpace, Stmt, Test, Thread, ThreadId, VAddrId,
};

/// The proxy fences at the two ends of an API synchronization path
/// (8.9.5: a conversion fence after the producer's accesses, an alias fence
/// on the path, a conversion fence before the consumer's accesses).
pub(super) struct Fences {
    producer: Vec<FenceKind>,
    consumer: Vec<FenceKind>,
}

impl Fences {
    /// The fences for the non-generic proxies `proxies` (tensormap excluded
    /// by the caller) and, if `aliases`, `fence.proxy.alias`.
    pub(super) fn new(proxies: &[Proxy], aliases: bool) -> Fences {
        let conv: Vec<FenceKind> = proxies
            .iter()
            .filter_map(|p| match p {
                Proxy::Surface => Some(FenceKind::ProxySurface),
                Proxy::Texture => Some(FenceKind::ProxyTexture),
                Proxy::Constant => Some(FenceKind::ProxyConstant),
                Proxy::Async => Some(FenceKind::ProxyAsync),
                _ => None,
            })
            .collect();
        let mut producer = conv.clone();
        let mut consumer = Vec::new();
        if aliases {
            producer.push(FenceKind::ProxyAlias);
            consumer.push(FenceKind::ProxyAlias);
        }
        consumer.extend(conv);
        Fences { producer, consumer }
    }
}

fn stmt(instr: Instr) -> Stmt {
    Stmt {
        instr,
        span: Span::default(),
    }
}

fn fence(kind: FenceKind) -> Stmt {
    stmt(Instr::Fence { kind, scope: None })
}

/// The hidden flag of each producer point, made on first use.
struct Flags {
    flags: Vec<(Point, AddrId)>,
    /// The join flag of each set of producers a query waits for.
    joins: Vec<(Vec<Point>, AddrId)>,
}

impl Flags {
    fn get(&mut self, out: &mut Test, p: Point) -> AddrId {
        if let Some(&(_, a)) = self.flags.iter().find(|x| x.0 == p) {
            return a;
        }
        let name = match p {
            Point::ThreadEnd(t) | Point::ThreadStart(t) => format!("__api_done_P{t}"),
            Point::Host(i) => format!("__api_call{i}"),
        };
        let a = new_flag(out, name);
        self.flags.push((p, a));
        a
    }
}

/// Writes the synchronization of `tasks` into `out` (a copy of `test`).
pub(super) fn write(out: &mut Test, test: &Test, tasks: &Tasks, fences: &Fences) {
    let mut consumers: Vec<Point> = Vec::new();
    for k in &test.api.kernels {
        consumers.extend(k.threads.iter().map(|t| Point::ThreadStart(t.index())));
    }
    let host = test.api.host.map(ThreadId::index);
    if let Some(h) = host {
        for (i, s) in test.threads[h].code.iter().enumerate() {
            if matches!(&s.instr, Instr::Api(c) if !c.enqueues()) {
                consumers.push(Point::Host(i));
            }
        }
    }
    let mut flags = Flags {
        flags: Vec::new(),
        joins: Vec::new(),
    };
    for t in 0..test.threads.len() {
        let mut reg = None;
        let mut code = Vec::new();
        let is_kernel = test
            .api
            .kernels
            .iter()
            .any(|k| k.threads.iter().any(|x| x.index() == t));
        if is_kernel {
            let waits = tasks.waits(Point::ThreadStart(t));
            for &p in &waits {
                let f = flags.get(out, p);
                spin(out, test, t, &mut reg, f, &mut code);
            }
            if !waits.is_empty() {
                code.extend(fences.consumer.iter().map(|&k| fence(k)));
            }
        }
        let original = std::mem::take(&mut out.threads[t].code);
        for (i, s) in original.into_iter().enumerate() {
            let Instr::Api(call) = &s.instr else {
                code.push(s);
                continue;
            };
            let p = Point::Host(i);
            if call.enqueues() {
                if tasks.is_waited_for(p, &consumers) {
                    let f = flags.get(out, p);
                    code.push(release(f));
                }
                continue;
            }
            let waits = tasks.waits(p);
            match call {
                ApiCall::StreamQuery { dst, .. } | ApiCall::EventQuery { dst, .. } => {
                    query(out, test, *dst, &waits, &mut flags, &mut code);
                }
                ApiCall::StreamDestroy(_) => {}
                _ => {
                    for &w in &waits {
                        let f = flags.get(out, w);
                        spin(out, test, t, &mut reg, f, &mut code);
                    }
                }
            }
        }
        if is_kernel && tasks.is_waited_for(Point::ThreadEnd(t), &consumers) {
            code.extend(fences.producer.iter().map(|&k| fence(k)));
            let f = flags.get(out, Point::ThreadEnd(t));
            code.push(release(f));
        }
        out.threads[t].code = code;
    }
}

fn release(f: AddrId) -> Stmt {
    stmt(Instr::Store {
        sem: Sem::Release,
        scope: Some(Scope::Sys),
        proxy: Proxy::Generic,
        space: StateSpace::Global,
        access: Access::UNTYPED,
        addr: f,
        src: vec![Operand::Imm(1)],
    })
}

fn acquire(dst: RegId, f: AddrId) -> Stmt {
    stmt(Instr::Load {
        sem: Sem::Acquire,
        scope: Some(Scope::Sys),
        proxy: Proxy::Generic,
        space: StateSpace::Global,
        access: Access::UNTYPED,
        dst: vec![dst],
        addr: f,
    })
}

/// `L: ld.acquire.sys %api, [f]; bne %api, 1, L`.
fn spin(
    out: &mut Test,
    test: &Test,
    t: usize,
    reg: &mut Option<RegId>,
    f: AddrId,
    code: &mut Vec<Stmt>,
) {
    let r = *reg.get_or_insert_with(|| fresh_reg(&mut out.symbols.regs, test, t));
    let label = fresh_label(&mut out.symbols.labels, t);
    code.push(stmt(Instr::Label(label)));
    code.push(acquire(r, f));
    code.push(stmt(Instr::Branch {
        cmp: CmpOp::Ne,
        a: Operand::Reg(r),
        b: Operand::Imm(1),
        target: label,
    }));
}

/// `ld.acquire.sys dst, [f]` of the one flag that says every producer in
/// `waits` is done, or `mov dst, 1` when nothing is pending (a query with
/// nothing to wait for returns `cudaSuccess`). With several producers the
/// flag is a *join*: a hidden thread that spins on each producer's flag and
/// then sets its own, so that the query has two outcomes (all done, or not)
/// and not one execution per subset of finished producers (hidden reads
/// that add no choice do not change the execution count).
fn query(
    out: &mut Test,
    test: &Test,
    dst: RegId,
    waits: &[Point],
    flags: &mut Flags,
    code: &mut Vec<Stmt>,
) {
    let f = match waits {
        [] => {
            code.push(stmt(Instr::Mov {
                dst,
                src: Operand::Imm(1),
            }));
            return;
        }
        [w] => flags.get(out, *w),
        _ => {
            if let Some((_, f)) = flags.joins.iter().find(|j| j.0 == waits) {
                *f
            } else {
                let j = out.threads.len();
                let mut jcode = Vec::new();
                let mut reg = None;
                for &w in waits {
                    let f = flags.get(out, w);
                    spin(out, test, j, &mut reg, f, &mut jcode);
                }
                let f = new_flag(out, format!("__api_join{j}"));
                jcode.push(release(f));
                out.threads.push(Thread {
                    placement: Placement::default(),
                    explicit_cluster: false,
                    code: jcode,
                });
                flags.joins.push((waits.to_vec(), f));
                f
            }
        }
    };
    code.push(acquire(dst, f));
}

/// A new location `name` (initial value 0).
fn new_flag(out: &mut Test, name: String) -> AddrId {
    let phys = PhysId::new(out.n_phys as usize);
    let vaddr = VAddrId::new(out.n_vaddr as usize);
    out.n_phys += 1;
    out.n_vaddr += 1;
    out.init_mem.push(0);
    out.addresses.push(Address {
        kind: AddrKind::Root,
        phys,
        vaddr,
    });
    out.symbols.addrs.push(name);
    AddrId::new(out.addresses.len() - 1)
}

fn fresh_label(labels: &mut Vec<Vec<String>>, t: usize) -> LabelId {
    if labels.len() <= t {
        labels.resize(t + 1, Vec::new());
    }
    let n = labels[t].len();
    labels[t].push(format!("__api_wait{n}"));
    LabelId::new(n)
}

fn fresh_reg(regs: &mut Vec<Vec<String>>, test: &Test, t: usize) -> RegId {
    if regs.len() <= t {
        regs.resize(t + 1, Vec::new());
    }
    let n = regs[t].len().max(test.n_regs(ThreadId::new(t)));
    regs[t].resize(n, String::new());
    regs[t].push(format!("%api{n}"));
    RegId::new(n)
}
