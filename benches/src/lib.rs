//! Helpers shared by ptxmc's criterion benchmarks (`benches/benches/*.rs`):
//! a seeded generator of random relations, hand-built candidate executions
//! for [`ptxmc_checker::model::check`], the families of
//! [`ptxmc_frontend::families`] as parsed tests, and the location of the
//! shared conformance corpus. See `docs/performance.md` for the numbers.

use ptxmc_checker::event::{Event, EventId, EventKind, Location};
use ptxmc_checker::execution::Execution;
use ptxmc_checker::relation::BitMatrix;
use ptxmc_checker::{Options, Strategy};
use ptxmc_frontend::ir::{
    AddrId, PhysId, Placement, Proxy, Scope, Sem, Span, Test, ThreadId, VAddrId,
};
use std::path::{Path, PathBuf};

pub mod padded;
use std::time::Duration;

/// SplitMix64: a tiny deterministic generator, so that benchmark inputs are
/// the same on every run without a dependency.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the modulo bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A random sparse relation over `n` events: `degree * n` edges `a -> b`
/// with `a != b` drawn uniformly (it usually has cycles once `degree >= 1`).
pub fn random_relation(n: usize, degree: usize, seed: u64) -> BitMatrix {
    let mut rng = SplitMix64::new(seed);
    let mut m = BitMatrix::new(n);
    let mut added = 0;
    while added < degree * n {
        let (a, b) = (rng.below(n), rng.below(n));
        if a != b && m.insert(EventId::new(a), EventId::new(b)) {
            added += 1;
        }
    }
    m
}

/// A random sparse acyclic relation over `n` events: `degree * n` edges
/// `a -> b` with `a < b` (the worst case of an acyclicity check: no early exit).
pub fn random_dag(n: usize, degree: usize, seed: u64) -> BitMatrix {
    let mut rng = SplitMix64::new(seed);
    let mut m = BitMatrix::new(n);
    let mut added = 0;
    while added < degree * n {
        let (a, b) = (rng.below(n), rng.below(n));
        let (a, b) = (a.min(b), a.max(b));
        if a != b && m.insert(EventId::new(a), EventId::new(b)) {
            added += 1;
        }
    }
    m
}

/// Builds an [`Execution`] by hand, from outside the checker: one initial
/// write of 0 per location (ids `0..locations`), then each event as it is
/// added. Threads are each in their own CTA of GPU 0.
#[derive(Clone, Debug)]
pub struct ExecBuilder {
    events: Vec<Event>,
    threads: Vec<Vec<EventId>>,
    placements: Vec<Placement>,
    rf: Vec<(EventId, EventId)>,
    co: Vec<(EventId, EventId)>,
}

fn location(i: usize) -> Location {
    Location {
        phys: PhysId::new(i),
        vaddr: VAddrId::new(i),
        addr: AddrId::new(i),
    }
}

fn event(
    thread: Option<ThreadId>,
    po_index: u32,
    kind: EventKind,
    sem: Sem,
    scope: Option<Scope>,
) -> Event {
    Event {
        thread,
        po_index,
        kind,
        sem,
        scope,
        proxy: Proxy::Generic,
        span: Span::default(),
        instr: po_index,
        addr_deps: Default::default(),
        data_deps: Default::default(),
        ctrl_deps: Default::default(),
        async_order: Default::default(),
    }
}

impl ExecBuilder {
    /// `locations` locations, each with its initial write of 0.
    pub fn new(locations: usize) -> Self {
        let events = (0..locations)
            .map(|i| {
                let kind = EventKind::Write {
                    loc: location(i),
                    value: 0,
                    rmw: false,
                    init: true,
                };
                event(None, 0, kind, Sem::Weak, None)
            })
            .collect();
        Self {
            events,
            threads: Vec::new(),
            placements: Vec::new(),
            rf: Vec::new(),
            co: Vec::new(),
        }
    }

    /// The initial write of location `loc`.
    pub fn init(&self, loc: usize) -> EventId {
        EventId::new(loc)
    }

    /// A new thread in its own CTA (and cluster) of GPU 0.
    pub fn thread(&mut self) -> usize {
        let i = self.threads.len() as u32;
        self.threads.push(Vec::new());
        self.placements.push(Placement {
            cta: i,
            cluster: i,
            gpu: 0,
        });
        self.threads.len() - 1
    }

    fn push(&mut self, t: usize, kind: EventKind, sem: Sem, scope: Option<Scope>) -> EventId {
        let id = EventId::new(self.events.len());
        let po = self.threads[t].len() as u32;
        self.events
            .push(event(Some(ThreadId::new(t)), po, kind, sem, scope));
        self.threads[t].push(id);
        id
    }

    /// A store of `value` to `loc`.
    pub fn store(
        &mut self,
        t: usize,
        loc: usize,
        value: i64,
        sem: Sem,
        scope: Option<Scope>,
    ) -> EventId {
        let kind = EventKind::Write {
            loc: location(loc),
            value,
            rmw: false,
            init: false,
        };
        self.push(t, kind, sem, scope)
    }

    /// A load of `loc` that reads from `from` (whose value it takes).
    pub fn load(
        &mut self,
        t: usize,
        loc: usize,
        from: EventId,
        sem: Sem,
        scope: Option<Scope>,
    ) -> EventId {
        let value = self.events[from.index()]
            .value()
            .expect("reads from a write");
        let kind = EventKind::Read {
            loc: location(loc),
            value,
            rmw: false,
            red: false,
        };
        let r = self.push(t, kind, sem, scope);
        self.rf.push((r, from));
        r
    }

    /// Orients `a` before `b` in coherence (the explorer's choice).
    pub fn co(&mut self, a: EventId, b: EventId) {
        self.co.push((a, b));
    }

    /// The execution (no fences, no barriers).
    pub fn build(self) -> Execution {
        let mut exec = Execution::new(self.events, self.threads, self.placements);
        for (r, w) in self.rf {
            exec.set_rf(r, Some(w));
        }
        for (a, b) in self.co {
            exec.order_co(a, b);
        }
        exec
    }
}

const GPU: Option<Scope> = Some(Scope::Gpu);

/// Store buffering ring of `n` threads, relaxed at `.gpu`: thread `i` stores
/// 1 to `x_i` then loads `x_(i+1)`, and every load reads the initial 0.
/// Consistent (PTX allows SB without fences): `2n` events plus `n` initial writes.
pub fn sb_ring_execution(n: usize) -> Execution {
    let mut b = ExecBuilder::new(n);
    for i in 0..n {
        let t = b.thread();
        b.store(t, i, 1, Sem::Relaxed, GPU);
        let next = (i + 1) % n;
        let init = b.init(next);
        b.load(t, next, init, Sem::Relaxed, GPU);
    }
    b.build()
}

/// Message passing through a release/acquire flag where the data load still
/// reads the initial 0: violates the Causality axiom (8.10.6).
pub fn mp_violation_execution() -> Execution {
    let (data, flag) = (0, 1);
    let mut b = ExecBuilder::new(2);
    let t0 = b.thread();
    b.store(t0, data, 1, Sem::Weak, None);
    let w = b.store(t0, flag, 1, Sem::Release, GPU);
    let t1 = b.thread();
    b.load(t1, flag, w, Sem::Acquire, GPU);
    let init = b.init(data);
    b.load(t1, data, init, Sem::Weak, None);
    b.build()
}

/// `n` threads each storing `i + 1` to `x` (relaxed, `.gpu`), coherence in
/// thread order, and one reader that reads the last write: consistent.
pub fn writers_execution(n: usize) -> Execution {
    let mut b = ExecBuilder::new(1);
    let mut writes = Vec::new();
    for i in 0..n {
        let t = b.thread();
        writes.push(b.store(t, 0, i as i64 + 1, Sem::Relaxed, GPU));
    }
    for (i, &a) in writes.iter().enumerate() {
        for &c in &writes[i + 1..] {
            b.co(a, c);
        }
    }
    let t = b.thread();
    let last = *writes.last().expect("n > 0");
    b.load(t, 0, last, Sem::Relaxed, GPU);
    b.build()
}

/// The family test `name-n` (strong operations at `.gpu`), parsed.
pub fn family_test(name: &str, n: usize) -> Test {
    let text = ptxmc_frontend::families::generate(name, n, "gpu")
        .unwrap_or_else(|| panic!("unknown family {name}"));
    ptxmc_frontend::parse(&text).unwrap_or_else(|e| panic!("{name}-{n} does not parse: {e}"))
}

/// Checker options for a strategy, with an optional per-test timeout.
pub fn options(strategy: Strategy, timeout: Option<Duration>) -> Options {
    Options {
        strategy,
        timeout,
        ..Options::default()
    }
}

/// The shared conformance corpus (`../shared/conformance/dat3m-ptx/litmus`
/// from the repository root), or the folder `PTXMC_CONFORMANCE` names; `None`
/// when it is absent.
pub fn conformance_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("PTXMC_CONFORMANCE") {
        Some(d) => PathBuf::from(d),
        None => {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/dat3m-ptx/litmus")
        }
    };
    dir.is_dir().then_some(dir)
}

/// Every `*.litmus` file under `dir`, sorted.
pub fn litmus_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxmc_checker::model::{self, Axiom};
    use ptxmc_checker::Status;

    #[test]
    fn hand_built_executions_have_the_expected_verdicts() {
        for n in [2, 4, 8] {
            assert!(model::check(&sb_ring_execution(n)).is_ok(), "sb ring {n}");
        }
        assert!(model::check(&writers_execution(6)).is_ok());
        let v = model::check(&mp_violation_execution()).expect_err("MP violation");
        assert_eq!(v.axiom, Axiom::Causality);
    }

    #[test]
    fn random_relations_have_the_requested_shape() {
        let m = random_relation(64, 2, 1);
        assert_eq!(m.pairs().count(), 128);
        let d = random_dag(64, 2, 1);
        assert_eq!(d.pairs().count(), 128);
        assert!(d.is_acyclic());
        assert_eq!(random_relation(64, 2, 1), m, "seeded");
    }

    /// The closed forms of `FAMILIES`, for both strategies.
    #[test]
    fn family_counts_match_closed_forms() {
        for n in 1..=5 {
            let t = family_test("readers", n);
            for &s in Strategy::ALL {
                let r = ptxmc_checker::check(&t, &options(s, None));
                assert_eq!(r.status, Status::Ok);
                assert_eq!(r.stats.executions, 1 << n, "readers-{n} {s:?}");
            }
        }
        for n in 0..=3u64 {
            let t = family_test("writers", n as usize);
            let expected = (1..=n + 1).product::<u64>() * (n + 2);
            for &s in Strategy::ALL {
                let r = ptxmc_checker::check(&t, &options(s, None));
                assert_eq!(r.stats.executions, expected, "writers-{n} {s:?}");
            }
        }
    }
}
