//! Hand-built executions for the model's tests.
//!
//! [`ExecBuilder::new`] creates one initial write per physical location (ids
//! `0..n`, virtual address = location); every later event gets the next id,
//! so the ids a test holds stay valid. Reads read from the initial write of
//! their location unless [`ExecBuilder::rf`] says otherwise; morally strong
//! write pairs that the test leaves unoriented get the orientation of their
//! ids (the explorer's contract: every such pair is oriented).

use crate::event::{Event, EventId, EventKind, Location};
use crate::execution::Execution;
use crate::model::morally_strong::morally_strong;
use ptxmc_frontend::ir::{
    AddrId, BarrierKind, FenceKind, PhysId, Placement, Proxy, Scope, Sem, Span, ThreadId, VAddrId,
};
use smallvec::SmallVec;

/// Semantics and scope of a memory operation.
pub(crate) type Strength = (Sem, Option<Scope>);

pub(crate) const WEAK: Strength = (Sem::Weak, None);
pub(crate) const RLX_CTA: Strength = (Sem::Relaxed, Some(Scope::Cta));
pub(crate) const RLX_GPU: Strength = (Sem::Relaxed, Some(Scope::Gpu));
pub(crate) const RLX_SYS: Strength = (Sem::Relaxed, Some(Scope::Sys));
pub(crate) const REL_GPU: Strength = (Sem::Release, Some(Scope::Gpu));
pub(crate) const ACQ_GPU: Strength = (Sem::Acquire, Some(Scope::Gpu));
pub(crate) const ACQ_SYS: Strength = (Sem::Acquire, Some(Scope::Sys));
pub(crate) const ACQ_REL_GPU: Strength = (Sem::AcqRel, Some(Scope::Gpu));

/// A thread in CTA `i` of GPU 0 (its own cluster).
pub(crate) fn cta(i: u32) -> Placement {
    Placement {
        cta: i,
        cluster: i,
        gpu: 0,
    }
}

/// A thread on GPU `i`.
pub(crate) fn gpu(i: u32) -> Placement {
    Placement {
        cta: 0,
        cluster: 0,
        gpu: i,
    }
}

/// Where an access goes: a location, through a virtual address and a proxy.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Addr {
    phys: u32,
    vaddr: u32,
    proxy: Proxy,
}

impl Addr {
    /// The same address through another proxy.
    pub(crate) fn via(self, proxy: Proxy) -> Addr {
        Addr { proxy, ..self }
    }
}

/// Which dependency list an edge goes into.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Dep {
    Addr,
    Data,
    Ctrl,
}

/// Builds an [`Execution`] event by event.
pub(crate) struct ExecBuilder {
    events: Vec<Event>,
    threads: Vec<Vec<EventId>>,
    placements: Vec<Placement>,
    n_phys: u32,
    n_vaddr: u32,
    rf: Vec<(EventId, EventId)>,
    co: Vec<(EventId, EventId)>,
    fence_sc: Option<Vec<EventId>>,
    barrier_sync: Vec<(EventId, EventId)>,
}

impl ExecBuilder {
    /// `n` locations, each with its initial write of 0.
    pub(crate) fn new(n: u32) -> Self {
        let mut b = Self {
            events: Vec::new(),
            threads: Vec::new(),
            placements: Vec::new(),
            n_phys: n,
            n_vaddr: n,
            rf: Vec::new(),
            co: Vec::new(),
            fence_sc: None,
            barrier_sync: Vec::new(),
        };
        for i in 0..n {
            b.events.push(Event {
                thread: None,
                po_index: 0,
                kind: EventKind::Write {
                    loc: location(b.loc(i)),
                    value: 0,
                    rmw: false,
                    init: true,
                },
                sem: Sem::Weak,
                scope: None,
                proxy: Proxy::Generic,
                span: Span::default(),
                instr: 0,
                addr_deps: SmallVec::new(),
                data_deps: SmallVec::new(),
                ctrl_deps: SmallVec::new(),
                async_order: Default::default(),
            });
        }
        b
    }

    /// The generic address of location `i`.
    pub(crate) fn loc(&self, i: u32) -> Addr {
        assert!(i < self.n_phys);
        Addr {
            phys: i,
            vaddr: i,
            proxy: Proxy::Generic,
        }
    }

    /// A new virtual address (a generic alias) of location `i`.
    pub(crate) fn alias(&mut self, i: u32) -> Addr {
        assert!(i < self.n_phys);
        self.n_vaddr += 1;
        Addr {
            phys: i,
            vaddr: self.n_vaddr - 1,
            proxy: Proxy::Generic,
        }
    }

    /// The initial write of location `i`.
    pub(crate) fn init(&self, i: u32) -> EventId {
        EventId::new(i as usize)
    }

    /// A new thread.
    pub(crate) fn thread(&mut self, placement: Placement) -> ThreadId {
        self.threads.push(Vec::new());
        self.placements.push(placement);
        ThreadId::new(self.threads.len() - 1)
    }

    fn push(&mut self, t: ThreadId, kind: EventKind, s: Strength, proxy: Proxy) -> EventId {
        let id = EventId::new(self.events.len());
        let po_index = self.threads[t.index()].len() as u32;
        self.events.push(Event {
            thread: Some(t),
            po_index,
            kind,
            sem: s.0,
            scope: s.1,
            proxy,
            span: Span::default(),
            instr: po_index,
            addr_deps: SmallVec::new(),
            data_deps: SmallVec::new(),
            ctrl_deps: SmallVec::new(),
            async_order: Default::default(),
        });
        self.threads[t.index()].push(id);
        id
    }

    /// A store.
    pub(crate) fn st(&mut self, t: ThreadId, a: Addr, value: i64, s: Strength) -> EventId {
        let kind = EventKind::Write {
            loc: location(a),
            value,
            rmw: false,
            init: false,
        };
        self.push(t, kind, s, a.proxy)
    }

    /// A load.
    pub(crate) fn ld(&mut self, t: ThreadId, a: Addr, s: Strength) -> EventId {
        let kind = EventKind::Read {
            loc: location(a),
            value: 0,
            rmw: false,
            red: false,
        };
        self.push(t, kind, s, a.proxy)
    }

    fn rmw_events(&mut self, t: ThreadId, a: Addr, s: Strength, red: bool) -> (EventId, EventId) {
        let loc = location(a);
        let r = EventKind::Read {
            loc,
            value: 0,
            rmw: true,
            red,
        };
        let r = self.push(t, r, s, a.proxy);
        let w = EventKind::Write {
            loc,
            value: 1,
            rmw: true,
            init: false,
        };
        (r, self.push(t, w, s, a.proxy))
    }

    /// An `atom`: (read half, write half).
    pub(crate) fn rmw(&mut self, t: ThreadId, a: Addr, s: Strength) -> (EventId, EventId) {
        self.rmw_events(t, a, s, false)
    }

    /// A `red`: (read half, write half).
    pub(crate) fn red(&mut self, t: ThreadId, a: Addr, s: Strength) -> (EventId, EventId) {
        self.rmw_events(t, a, s, true)
    }

    /// A fence (memory fences take a scope, proxy fences none).
    pub(crate) fn fence(&mut self, t: ThreadId, kind: FenceKind, scope: Option<Scope>) -> EventId {
        self.push(
            t,
            EventKind::Fence(kind),
            (Sem::Weak, scope),
            Proxy::Generic,
        )
    }

    /// A `bar.sync 0`.
    pub(crate) fn barrier(&mut self, t: ThreadId) -> EventId {
        let kind = EventKind::Barrier {
            kind: BarrierKind::Sync,
            instance: 0,
            id: 0,
            count: None,
        };
        self.push(t, kind, WEAK, Proxy::Generic)
    }

    /// `r` reads from `w`.
    pub(crate) fn rf(&mut self, r: EventId, w: EventId) {
        self.rf.push((r, w));
    }

    /// The explorer orients `a` before `b` in coherence.
    pub(crate) fn co(&mut self, a: EventId, b: EventId) {
        self.co.push((a, b));
    }

    /// The Fence-SC total order (default: the `fence.sc` events by id).
    pub(crate) fn fence_order(&mut self, order: &[EventId]) {
        self.fence_sc = Some(order.to_vec());
    }

    /// `x` synchronizes with `y` by a barrier.
    pub(crate) fn barrier_sync(&mut self, x: EventId, y: EventId) {
        self.barrier_sync.push((x, y));
    }

    /// `e` depends on the read `r`.
    pub(crate) fn dep(&mut self, r: EventId, e: EventId, kind: Dep) {
        let ev = &mut self.events[e.index()];
        match kind {
            Dep::Addr => ev.addr_deps.push(r),
            Dep::Data => ev.data_deps.push(r),
            Dep::Ctrl => ev.ctrl_deps.push(r),
        }
    }

    /// The execution.
    pub(crate) fn build(self) -> Execution {
        let n = self.events.len();
        let mut rf: Vec<Option<EventId>> = self
            .events
            .iter()
            .map(|e| match e.kind {
                EventKind::Read { loc, .. } => Some(EventId::new(loc.phys.index())),
                _ => None,
            })
            .collect();
        for &(r, w) in &self.rf {
            assert!(self.events[r.index()].is_read() && self.events[w.index()].is_write());
            rf[r.index()] = Some(w);
        }
        let fence_sc = self.fence_sc.unwrap_or_else(|| {
            (0..n)
                .map(EventId::new)
                .filter(|&e| self.events[e.index()].is_fence_sc())
                .collect()
        });
        let mut exec = Execution::new(self.events, self.threads, self.placements);
        for (r, w) in rf.into_iter().enumerate() {
            exec.set_rf(EventId::new(r), w);
        }
        exec.set_fence_sc(fence_sc);
        exec.set_barrier_sync(self.barrier_sync);
        for &(a, b) in &self.co {
            exec.order_co(a, b);
        }
        for a in exec.ids() {
            for b in exec.ids().skip(a.index() + 1) {
                let both_writes = exec.event(a).is_write() && exec.event(b).is_write();
                if both_writes
                    && !exec.co().contains(a, b)
                    && !exec.co().contains(b, a)
                    && morally_strong(&exec, a, b)
                {
                    exec.order_co(a, b);
                }
            }
        }
        exec
    }
}

fn location(a: Addr) -> Location {
    Location {
        phys: PhysId(a.phys),
        vaddr: VAddrId(a.vaddr),
        addr: AddrId(a.vaddr),
    }
}
