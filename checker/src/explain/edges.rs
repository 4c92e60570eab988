//! Naming the edges of a witness cycle after the relations they are in
//! (program order, reads-from, coherence, from-reads, observation,
//! synchronizes-with with the pattern it goes through, causality, Fence-SC
//! order, dependencies; 8.9, 8.10), for the words and pictures of
//! `ptxmc explain`.

use crate::event::EventId;
use crate::execution::Execution;
use crate::model::{Axiom, Orders, Violation};
use crate::relation::BitMatrix;

/// A relation that one edge of a witness cycle is in.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Rel {
    /// Program order (8.9.1).
    Po,
    /// From the read half to the write half of an atomic RMW.
    Rmw,
    /// Reads-from (8.9.7).
    Rf,
    /// Coherence order (8.9.6).
    Co,
    /// From-reads (8.9.7).
    Fr,
    /// Observation order (8.9.2).
    Obs,
    /// Synchronizes-with (8.9.4).
    Sync,
    /// Causality order (8.9.5), when no more specific relation names the edge.
    Causality,
    /// Fence-SC order (8.9.3).
    FenceSc,
    /// Address dependency (8.10.4).
    Addr,
    /// Data dependency (8.10.4).
    Data,
    /// Control dependency (8.10.4).
    Ctrl,
    /// None of the above (should not happen; printed as `->`).
    Other,
}

impl Rel {
    /// The short name printed on an edge: `po`, `rf`, `sync`, ...
    pub fn name(self) -> &'static str {
        match self {
            Rel::Po => "po",
            Rel::Rmw => "rmw",
            Rel::Rf => "rf",
            Rel::Co => "co",
            Rel::Fr => "fr",
            Rel::Obs => "obs",
            Rel::Sync => "sync",
            Rel::Causality => "causality",
            Rel::FenceSc => "fence-sc",
            Rel::Addr => "addr",
            Rel::Data => "data",
            Rel::Ctrl => "ctrl",
            Rel::Other => "",
        }
    }
}

/// One edge of a witness cycle.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Step {
    /// Source event.
    pub from: EventId,
    /// Target event.
    pub to: EventId,
    /// The relation that names the edge.
    pub rel: Rel,
    /// For a [`Rel::Sync`] edge between a release and an acquire pattern:
    /// the events in between on the witness path (the pattern's write, the
    /// observation chain, the read), each reached by [`Step::via_rels`].
    pub via: Vec<EventId>,
    /// The relation of each edge of `from, via..., to`.
    pub via_rels: Vec<Rel>,
}

/// Coherence as far as a candidate fixes it: initial writes first, the
/// explorer's edges, transitively closed.
pub(crate) fn known_co(exec: &Execution) -> BitMatrix {
    let mut co = exec.co().clone();
    for w in exec.ids() {
        let ev = exec.event(w);
        let Some(loc) = ev.loc() else { continue };
        if !ev.is_init() {
            continue;
        }
        for w2 in exec.ids() {
            let e2 = exec.event(w2);
            if w2 != w && e2.is_write() && e2.loc().is_some_and(|l| l.phys == loc.phys) {
                co.insert(w, w2);
            }
        }
    }
    co.close_transitively();
    co
}

/// The relations an edge can be named by, for one candidate.
struct Rels<'e> {
    exec: &'e Execution,
    po: BitMatrix,
    rmw: BitMatrix,
    co: BitMatrix,
    /// Synchronizes-with, observation and causality (8.9), when derived.
    derived: Option<(BitMatrix, BitMatrix, BitMatrix)>,
}

impl<'e> Rels<'e> {
    fn new(exec: &'e Execution, derive: bool) -> Self {
        let n = exec.len();
        let mut po = BitMatrix::new(n);
        let mut rmw = BitMatrix::new(n);
        for th in exec.threads() {
            for (i, &a) in th.iter().enumerate() {
                for &b in &th[i + 1..] {
                    // Program order as the model reads it (8.9.1, 8.9.1.1).
                    if exec.event(a).po_before(exec.event(b)) {
                        po.insert(a, b);
                    }
                }
                if let Some(&b) = th.get(i + 1) {
                    let (ea, eb) = (exec.event(a), exec.event(b));
                    if ea.is_read() && ea.is_rmw() && eb.is_write() && eb.is_rmw() {
                        rmw.insert(a, b);
                    }
                }
            }
        }
        if exec.events().iter().any(|e| e.is_async()) {
            po.close_transitively();
        }
        let derived = derive.then(|| {
            let o = Orders::new(exec);
            (o.sync.order, o.obs.order, o.causality.order)
        });
        Self {
            exec,
            po,
            rmw,
            co: known_co(exec),
            derived,
        }
    }

    fn has(&self, rel: Rel, a: EventId, b: EventId) -> bool {
        let exec = self.exec;
        match rel {
            Rel::Po => self.po.contains(a, b),
            Rel::Rmw => self.rmw.contains(a, b),
            Rel::Rf => exec.rf().get(b.index()).copied().flatten() == Some(a),
            Rel::Co => self.co.contains(a, b),
            Rel::Fr => {
                exec.event(a).is_read()
                    && exec.event(b).is_write()
                    && exec
                        .rf()
                        .get(a.index())
                        .copied()
                        .flatten()
                        .is_some_and(|w| self.co.contains(w, b))
            }
            Rel::Sync => self.derived.as_ref().is_some_and(|d| d.0.contains(a, b)),
            Rel::Obs => self.derived.as_ref().is_some_and(|d| d.1.contains(a, b)),
            Rel::Causality => self.derived.as_ref().is_some_and(|d| d.2.contains(a, b)),
            Rel::FenceSc => exec.fence_sc_pairs().any(|p| p == (a, b)),
            Rel::Addr => exec.event(b).addr_deps.contains(&a),
            Rel::Data => exec.event(b).data_deps.contains(&a),
            Rel::Ctrl => exec.event(b).ctrl_deps.contains(&a),
            Rel::Other => true,
        }
    }

    fn name(&self, a: EventId, b: EventId, prefer: &[Rel]) -> Rel {
        prefer
            .iter()
            .copied()
            .find(|&r| self.has(r, a, b))
            .unwrap_or(Rel::Other)
    }
}

/// Edge names for the steps of a causality path.
const PATH: &[Rel] = &[
    Rel::Rmw,
    Rel::Po,
    Rel::Sync,
    Rel::Rf,
    Rel::Obs,
    Rel::Causality,
    Rel::Co,
    Rel::Fr,
];

/// The witness of `v` as named edges.
pub(crate) fn label_violation(exec: &Execution, v: &Violation) -> Vec<Step> {
    let ev = &v.events;
    let n = ev.len();
    if n == 0 {
        return Vec::new();
    }
    let rels = Rels::new(exec, true);
    // Edges whose name the axiom fixes: (index of the edge, its names).
    let (prefer, special): (&[Rel], Option<(usize, &[Rel])>) = match v.axiom {
        Axiom::Causality => {
            if n > 1 && rels.has(Rel::Fr, ev[0], ev[1]) {
                (PATH, Some((0, &[Rel::Fr])))
            } else {
                (PATH, Some((n - 1, &[Rel::Rf])))
            }
        }
        Axiom::FenceSc => (PATH, Some((n - 1, &[Rel::FenceSc]))),
        Axiom::Coherence => (
            &[
                Rel::Co,
                Rel::Rmw,
                Rel::Po,
                Rel::Sync,
                Rel::Rf,
                Rel::Obs,
                Rel::Causality,
            ],
            None,
        ),
        Axiom::NoThinAir => (&[Rel::Rf, Rel::Addr, Rel::Data, Rel::Ctrl], None),
        Axiom::ScPerLocation => (&[Rel::Rmw, Rel::Po, Rel::Rf, Rel::Co, Rel::Fr], None),
        Axiom::Atomicity => {
            let steps = ev
                .windows(2)
                .map(|w| {
                    step(
                        w[0],
                        w[1],
                        rels.name(w[0], w[1], &[Rel::Rf, Rel::Fr, Rel::Co, Rel::Rmw, Rel::Po]),
                    )
                })
                .collect();
            return steps;
        }
    };
    label_cycle_with(&rels, ev, prefer, special)
}

fn step(from: EventId, to: EventId, rel: Rel) -> Step {
    Step {
        from,
        to,
        rel,
        via: Vec::new(),
        via_rels: Vec::new(),
    }
}

pub(crate) fn label_cycle(
    exec: &Execution,
    cycle: &[EventId],
    prefer: &[Rel],
    special: Option<(usize, &[Rel])>,
) -> Vec<Step> {
    label_cycle_with(&Rels::new(exec, false), cycle, prefer, special)
}

/// Names each edge `cycle[k] -> cycle[k+1]` (the last one closing the
/// cycle), then folds spelled-out synchronizations (first operation of a
/// release pattern, ..., last operation of an acquire pattern) into one
/// `sync` step.
fn label_cycle_with(
    rels: &Rels<'_>,
    cycle: &[EventId],
    prefer: &[Rel],
    special: Option<(usize, &[Rel])>,
) -> Vec<Step> {
    let n = cycle.len();
    let edge = |k: usize| (cycle[k], cycle[(k + 1) % n]);
    let names: Vec<Rel> = (0..n)
        .map(|k| {
            let (a, b) = edge(k);
            match special {
                Some((i, p)) if i == k => rels.name(a, b, p),
                _ => rels.name(a, b, prefer),
            }
        })
        .collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < n {
        let fixed = |i: usize| special.is_some_and(|(s, _)| s == i);
        // The farthest j such that cycle[k] synchronizes with cycle[j] along
        // edges k..j that the axiom does not fix.
        let mut fold = None;
        if rels.derived.is_some() && !fixed(k) {
            let mut j = k + 2;
            while j < n && !fixed(j - 1) {
                if rels.has(Rel::Sync, cycle[k], cycle[j]) {
                    fold = Some(j);
                }
                j += 1;
            }
        }
        match fold {
            Some(j) => {
                out.push(Step {
                    from: cycle[k],
                    to: cycle[j],
                    rel: Rel::Sync,
                    via: cycle[k + 1..j].to_vec(),
                    via_rels: names[k..j].to_vec(),
                });
                k = j;
            }
            None => {
                let (a, b) = edge(k);
                out.push(step(a, b, names[k]));
                k += 1;
            }
        }
    }
    out
}
