//! Coherence order (8.9.6), with axiom Coherence (8.10.1) as its forcing rule.

use crate::event::EventId;
use crate::execution::Execution;
use crate::relation::BitMatrix;

/// Where an edge of the coherence generator comes from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum CoSource {
    /// The initial write W0 precedes every write of its location (8.2.6).
    Initial,
    /// The explorer's orientation of a pair (morally strong writes, 8.9.6).
    Chosen,
    /// W precedes an overlapping W' in causality order (8.10.1).
    Causality,
}

/// The least coherence order the model requires.
#[derive(Clone, Debug)]
pub(crate) struct Coherence {
    /// Coherence order: the transitive closure of `generator`.
    pub order: BitMatrix,
}

impl Coherence {
    /// The least coherence order (docs/model-notes.md): the transitive
    /// closure of the initial write before every write of its location, the
    /// explorer's edges `exec.co`, and every pair of overlapping writes W, W'
    /// with W before W' in causality order (8.10.1).
    ///
    /// `Err` carries a cycle of the generator: no coherence order satisfies
    /// axiom Coherence.
    pub fn new(exec: &Execution, causality: &BitMatrix) -> Result<Self, Vec<EventId>> {
        let n = exec.len();
        let mut generator = exec.co.clone();
        debug_assert_eq!(generator.len(), n);
        let writes: Vec<EventId> = exec.ids().filter(|&w| exec.event(w).is_write()).collect();
        // The other writes of each location, so that a graph of thousands
        // of locations costs its writes, not their square.
        let mut by_loc: std::collections::HashMap<_, Vec<EventId>> =
            std::collections::HashMap::new();
        for &w in &writes {
            let e = exec.event(w);
            if !e.is_init() {
                by_loc.entry(e.loc().map(|l| l.phys)).or_default().push(w);
            }
        }
        for (k, &i) in writes.iter().enumerate() {
            crate::interrupt::poll(k);
            let ei = exec.event(i);
            if !ei.is_init() {
                continue;
            }
            for &w in by_loc.get(&ei.loc().map(|l| l.phys)).into_iter().flatten() {
                generator.insert(i, w);
            }
        }
        for (k, &w) in writes.iter().enumerate() {
            crate::interrupt::poll(k);
            let phys = exec.event(w).loc().map(|l| l.phys);
            // A causality cycle through W alone (W before itself) is left to
            // the axioms about what closes the cycle (Fence-SC, Causality).
            for w2 in causality.successors(w).filter(|&w2| w2 != w) {
                let e2 = exec.event(w2);
                if e2.is_write() && e2.loc().map(|l| l.phys) == phys {
                    generator.insert(w, w2);
                }
            }
        }
        if let Some(cycle) = generator.find_cycle() {
            return Err(cycle);
        }
        let order = generator.transitive_closure();
        Ok(Self { order })
    }
}

/// Why `a -> b` is an edge of the coherence generator (the first reason, in
/// the order initial, chosen, causality).
pub(crate) fn co_source(exec: &Execution, a: EventId, b: EventId) -> CoSource {
    if exec.event(a).is_init() {
        CoSource::Initial
    } else if exec.co.contains(a, b) {
        CoSource::Chosen
    } else {
        CoSource::Causality
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::*;

    #[test]
    fn initial_writes_first_chosen_edges_and_causality_closed() {
        let mut b = ExecBuilder::new(2);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(1));
        let t2 = b.thread(cta(2));
        let w1 = b.st(t0, b.loc(0), 1, WEAK);
        let w2 = b.st(t1, b.loc(0), 2, WEAK);
        let w3 = b.st(t2, b.loc(0), 3, WEAK);
        let wy = b.st(t2, b.loc(1), 3, WEAK);
        let (i0, i1) = (b.init(0), b.init(1));
        b.co(w1, w2);
        let exec = b.build();
        let mut cause = BitMatrix::new(exec.len());
        cause.insert(w2, w3);
        cause.insert(w2, wy); // different location: no coherence edge
        let co = Coherence::new(&exec, &cause).unwrap();
        assert!(co.order.contains(i0, w1) && co.order.contains(i0, w3));
        assert!(!co.order.contains(i0, wy) && co.order.contains(i1, wy));
        assert!(
            co.order.contains(w1, w3),
            "transitive through the forced edge"
        );
        assert!(!co.order.contains(w2, wy));
        assert!(!co.order.contains(w3, w1));
        assert_eq!(co_source(&exec, i0, w1), CoSource::Initial);
        assert_eq!(co_source(&exec, w1, w2), CoSource::Chosen);
        assert_eq!(co_source(&exec, w2, w3), CoSource::Causality);
    }

    #[test]
    fn a_chosen_edge_against_causality_is_a_cycle() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let w1 = b.st(t0, b.loc(0), 1, RLX_GPU);
        let w2 = b.st(t0, b.loc(0), 2, RLX_GPU);
        b.co(w2, w1);
        let exec = b.build();
        let mut cause = BitMatrix::new(exec.len());
        cause.insert(w1, w2);
        let cycle = Coherence::new(&exec, &cause).unwrap_err();
        assert_eq!(cycle.len(), 2);
        assert!(cycle.contains(&w1) && cycle.contains(&w2));
    }
}
