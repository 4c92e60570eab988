//! Memory synchronization (8.9.4): the synchronizes-with relation.

use crate::event::EventId;
use crate::execution::Execution;
use crate::model::observation::Observation;
use crate::model::patterns::{AcquirePattern, ReleasePattern};
use crate::model::witness::extend_path;
use crate::relation::BitMatrix;
use fxhash::FxHashMap;

/// Why X synchronizes with Y.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum SyncReason {
    /// 8.9.4 item 1: X precedes Y in Fence-SC order.
    FenceSc,
    /// 8.9.4 items 2 and 3: barrier operations on the same barrier (computed by the explorer).
    Barrier,
    /// 8.9.4 item 4: the release pattern starting at X has `write`, which
    /// precedes `read` of the acquire pattern ending at Y in observation order.
    Pattern {
        /// The write of the release pattern.
        write: EventId,
        /// The read of the acquire pattern.
        read: EventId,
    },
}

/// The synchronizes-with relation and the reason of each edge.
#[derive(Clone, Debug)]
pub(crate) struct Synchronization {
    /// X -> Y when X synchronizes with Y.
    pub order: BitMatrix,
    // invariant: `reasons` has one entry for each pair of `order` (the first reason found).
    reasons: FxHashMap<(EventId, EventId), SyncReason>,
}

impl Synchronization {
    /// Computes 8.9.4 items 1-4:
    ///
    /// 1. a `fence.sc` X synchronizes with a `fence.sc` Y if X precedes Y in
    ///    Fence-SC order (8.9.3): `exec.fence_sc` restricted to morally strong pairs;
    /// 2. and 3. barrier operations: the pairs of `exec.barrier_sync`;
    /// 4. a release pattern X synchronizes with an acquire pattern Y if a write
    ///    of X precedes a read of Y in observation order and the first
    ///    operation of X and the last one of Y are morally strong. The edge goes
    ///    from the first operation of X to the last one of Y; base causality
    ///    adds program order on both sides (8.8).
    pub fn new(
        exec: &Execution,
        ms: &BitMatrix,
        obs: &Observation,
        releases: &[ReleasePattern],
        acquires: &[AcquirePattern],
    ) -> Self {
        let mut sync = Self {
            order: BitMatrix::new(exec.len()),
            reasons: FxHashMap::default(),
        };
        for (x, y) in exec.fence_sc_pairs() {
            if ms.contains(x, y) {
                sync.add(x, y, SyncReason::FenceSc);
            }
        }
        for &(x, y) in exec.barrier_sync() {
            sync.add(x, y, SyncReason::Barrier);
        }
        let mut acquires_by_read: Vec<Vec<&AcquirePattern>> = vec![Vec::new(); exec.len()];
        for q in acquires {
            acquires_by_read[q.read.index()].push(q);
        }
        for p in releases {
            for read in obs.order.successors(p.write) {
                for q in &acquires_by_read[read.index()] {
                    if ms.contains(p.first, q.last) {
                        let reason = SyncReason::Pattern {
                            write: p.write,
                            read,
                        };
                        sync.add(p.first, q.last, reason);
                    }
                }
            }
        }
        sync
    }

    fn add(&mut self, x: EventId, y: EventId, reason: SyncReason) {
        if self.order.insert(x, y) {
            self.reasons.insert((x, y), reason);
        }
    }

    /// Why `x` synchronizes with `y`, if it does.
    pub fn reason(&self, x: EventId, y: EventId) -> Option<SyncReason> {
        self.reasons.get(&(x, y)).copied()
    }

    /// The events that explain the edge `x -> y`: for a pattern, the first
    /// operation, the write, the observation chain to the read, and the last
    /// operation; otherwise just `x, y`.
    pub fn explain(&self, obs: &Observation, x: EventId, y: EventId) -> Vec<EventId> {
        let mut out = vec![x];
        if let Some(SyncReason::Pattern { write, read }) = self.reason(x, y) {
            extend_path(&mut out, &[write]);
            extend_path(
                &mut out,
                &obs.chain(write, read).unwrap_or(vec![write, read]),
            );
        }
        extend_path(&mut out, &[y]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::communication::reads_from;
    use crate::model::morally_strong::morally_strong_matrix;
    use crate::model::patterns::{acquire_patterns, release_patterns};
    use crate::model::program_order::ProgramOrder;
    use crate::model::testutil::*;
    use ptxmc_frontend::ir::{FenceKind, Scope};

    fn sync_of(exec: &Execution) -> (Synchronization, Observation) {
        let po = ProgramOrder::new(exec);
        let ms = morally_strong_matrix(exec);
        let obs = Observation::new(&ms, &reads_from(exec), &po.rmw);
        let s = Synchronization::new(
            exec,
            &ms,
            &obs,
            &release_patterns(exec),
            &acquire_patterns(exec),
        );
        (s, obs)
    }

    #[test]
    fn fence_pattern_edge_goes_first_to_last() {
        let mut b = ExecBuilder::new(2);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(1));
        let f1 = b.fence(t0, FenceKind::AcqRel, Some(Scope::Gpu));
        let w = b.st(t0, b.loc(1), 1, RLX_GPU);
        let r = b.ld(t1, b.loc(1), RLX_GPU);
        let f2 = b.fence(t1, FenceKind::AcqRel, Some(Scope::Gpu));
        b.rf(r, w);
        let exec = b.build();
        let (s, obs) = sync_of(&exec);
        assert!(s.order.contains(f1, f2));
        assert_eq!(s.order.pairs().count(), 1);
        assert_eq!(
            s.reason(f1, f2),
            Some(SyncReason::Pattern { write: w, read: r })
        );
        assert_eq!(s.explain(&obs, f1, f2), vec![f1, w, r, f2]);
    }

    #[test]
    fn cta_fences_in_different_ctas_do_not_synchronize() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(1));
        b.fence(t0, FenceKind::AcqRel, Some(Scope::Cta));
        let w = b.st(t0, b.loc(0), 1, RLX_GPU);
        let r = b.ld(t1, b.loc(0), RLX_GPU);
        b.fence(t1, FenceKind::AcqRel, Some(Scope::Cta));
        b.rf(r, w);
        let exec = b.build();
        let (s, _) = sync_of(&exec);
        assert_eq!(s.order.pairs().count(), 0);
    }

    #[test]
    fn fence_sc_order_restricted_to_morally_strong_pairs() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        let t2 = b.thread(cta(1));
        let f0 = b.fence(t0, FenceKind::Sc, Some(Scope::Cta));
        let f1 = b.fence(t1, FenceKind::Sc, Some(Scope::Cta));
        let f2 = b.fence(t2, FenceKind::Sc, Some(Scope::Gpu));
        b.fence_order(&[f1, f2, f0]);
        let exec = b.build();
        let (s, _) = sync_of(&exec);
        assert!(s.order.contains(f1, f0));
        assert!(!s.order.contains(f0, f1));
        assert!(!s.order.contains(f1, f2), "f1's cta scope excludes t2");
        assert_eq!(s.reason(f1, f0), Some(SyncReason::FenceSc));
    }

    #[test]
    fn barrier_pairs_are_taken_as_given() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        let b0 = b.barrier(t0);
        let b1 = b.barrier(t1);
        b.barrier_sync(b0, b1);
        let exec = b.build();
        let (s, _) = sync_of(&exec);
        assert!(s.order.contains(b0, b1) && !s.order.contains(b1, b0));
        assert_eq!(s.reason(b0, b1), Some(SyncReason::Barrier));
    }
}
