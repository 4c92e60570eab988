//! Observation order (8.9.2).

use crate::event::EventId;
use crate::model::witness::shortest_path;
use crate::relation::BitMatrix;

/// Observation order and the edges its chains are made of.
#[derive(Clone, Debug)]
pub(crate) struct Observation {
    /// Observation order (8.9.2): `(ms ∩ rf) ; (rmw ; (ms ∩ rf))*`.
    pub order: BitMatrix,
    /// `(ms ∩ rf) ∪ rmw`: every observation chain is a path of these edges.
    steps: BitMatrix,
}

impl Observation {
    /// Observation order (8.9.2): a write W precedes a read R if R and W are
    /// morally strong and R reads from W (item 1), or W precedes an atomic
    /// operation Z and Z precedes R (item 2): through Z's read half, its
    /// write half, and onwards.
    pub fn new(ms: &BitMatrix, rf: &BitMatrix, rmw: &BitMatrix) -> Self {
        let mut ms_rf = ms.clone();
        ms_rf.intersect_with(rf);
        // Item 2, one more RMW at a time: `order ; rmw ; (ms ∩ rf)` until
        // nothing new (chains are as long as the RMWs of the execution).
        let step = rmw.compose(&ms_rf);
        let mut order = ms_rf.clone();
        let mut frontier = ms_rf.clone();
        loop {
            frontier = frontier.compose(&step);
            if !order.union_with(&frontier) {
                break;
            }
        }
        let mut steps = ms_rf;
        steps.union_with(rmw);
        Self { order, steps }
    }

    /// The chain `W, R1, W1, ..., R` that makes `w` precede `r` in observation
    /// order: alternating morally strong reads-from and RMW edges.
    pub fn chain(&self, w: EventId, r: EventId) -> Option<Vec<EventId>> {
        if !self.order.contains(w, r) {
            return None;
        }
        shortest_path(&self.steps, w, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::communication::reads_from;
    use crate::model::morally_strong::morally_strong_matrix;
    use crate::model::program_order::ProgramOrder;
    use crate::model::testutil::*;

    #[test]
    fn observation_goes_through_rmw_chains() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        let t2 = b.thread(cta(0));
        let w = b.st(t0, b.loc(0), 1, RLX_GPU);
        let (ar, aw) = b.rmw(t1, b.loc(0), RLX_GPU);
        let r = b.ld(t2, b.loc(0), RLX_GPU);
        b.rf(ar, w);
        b.rf(r, aw);
        b.co(w, aw);
        let exec = b.build();
        let po = ProgramOrder::new(&exec);
        let obs = Observation::new(&morally_strong_matrix(&exec), &reads_from(&exec), &po.rmw);
        assert!(obs.order.contains(w, ar));
        assert!(obs.order.contains(aw, r));
        assert!(obs.order.contains(w, r), "W -> atom -> R");
        assert!(
            !obs.order.contains(ar, aw),
            "the rmw edge alone is not observation"
        );
        assert_eq!(obs.chain(w, r), Some(vec![w, ar, aw, r]));
    }

    #[test]
    fn observation_needs_moral_strength_at_every_step() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(1));
        let t2 = b.thread(cta(1));
        let w = b.st(t0, b.loc(0), 1, RLX_GPU);
        // The RMW's cta scope does not include t0.
        let (ar, aw) = b.rmw(t1, b.loc(0), RLX_CTA);
        let r = b.ld(t2, b.loc(0), RLX_GPU);
        b.rf(ar, w);
        b.rf(r, aw);
        let exec = b.build();
        let po = ProgramOrder::new(&exec);
        let obs = Observation::new(&morally_strong_matrix(&exec), &reads_from(&exec), &po.rmw);
        assert!(!obs.order.contains(w, ar));
        assert!(obs.order.contains(aw, r));
        assert!(!obs.order.contains(w, r));
        assert_eq!(obs.chain(w, r), None);
    }
}
