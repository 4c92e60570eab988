//! Program order (8.9.1) and the read-to-write edge of atomic read-modify-writes.

use crate::event::EventKind;
use crate::execution::Execution;
use crate::relation::BitMatrix;

/// Program order and what is read off it.
#[derive(Clone, Debug)]
pub(crate) struct ProgramOrder {
    /// Program order (8.9.1): a total order over each thread's events, transitive.
    pub po: BitMatrix,
    /// The atomicity edge of an RMW: its read half to its write half (8.9.2).
    pub rmw: BitMatrix,
}

impl ProgramOrder {
    /// Reads program order off `exec.threads` (8.9.1): the order of each
    /// thread's list. An RMW is a read with `rmw: true` immediately followed in
    /// its thread by a write with `rmw: true`.
    pub fn new(exec: &Execution) -> Self {
        let n = exec.len();
        let mut po = BitMatrix::new(n);
        let mut rmw = BitMatrix::new(n);
        let mut has_async = false;
        for thread in exec.threads() {
            for (i, &a) in thread.iter().enumerate() {
                let ea = exec.event(a);
                has_async |= ea.is_async();
                for &b in &thread[i + 1..] {
                    // 8.9.1.1: asynchronous operations are ordered only as
                    // `Event::po_before` says.
                    if ea.po_before(exec.event(b)) {
                        po.insert(a, b);
                    }
                }
                if let Some(&b) = thread.get(i + 1) {
                    let is_rmw_read =
                        matches!(exec.event(a).kind, EventKind::Read { rmw: true, .. });
                    let is_rmw_write =
                        matches!(exec.event(b).kind, EventKind::Write { rmw: true, .. });
                    if is_rmw_read && is_rmw_write {
                        rmw.insert(a, b);
                    }
                }
            }
        }
        if has_async {
            // 8.9.1: program order "is a transitive relation".
            po.close_transitively();
        }
        Self { po, rmw }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::*;

    #[test]
    fn program_order_is_per_thread_and_transitive() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        let a = b.st(t0, b.loc(0), 1, WEAK);
        let (r, w) = b.rmw(t0, b.loc(0), RLX_GPU);
        let c = b.ld(t1, b.loc(0), WEAK);
        let exec = b.build();
        let po = ProgramOrder::new(&exec);
        assert!(po.po.contains(a, r) && po.po.contains(a, w) && po.po.contains(r, w));
        assert!(!po.po.contains(w, a));
        assert!(!po.po.contains(a, c) && !po.po.contains(c, a));
        assert!(po.rmw.contains(r, w));
        assert!(!po.rmw.contains(a, r));
        assert_eq!(po.rmw.pairs().count(), 1);
    }

    #[test]
    fn asynchronous_events_are_ordered_as_8_9_1_1_says() {
        use crate::event::{AsyncAfter, AsyncGroup, AsyncOp, AsyncOrder};
        let mut b = ExecBuilder::new(2);
        let t0 = b.thread(cta(0));
        let before = b.st(t0, b.loc(0), 1, WEAK);
        let copy_r = b.ld(t0, b.loc(0), WEAK);
        let copy_w = b.st(t0, b.loc(1), 1, WEAK);
        let (ct_r, ct_w) = b.rmw(t0, b.loc(1), RLX_GPU);
        let after = b.ld(t0, b.loc(1), WEAK);
        let waited = b.ld(t0, b.loc(1), WEAK);
        let mut exec = b.build();
        let op = |after, complete_tx| AsyncOrder {
            op: Some(AsyncOp {
                group: AsyncGroup::CpAsync,
                id: 0,
                after,
                complete_tx,
                continued: false,
            }),
            awaited: [0, 0, 0],
            unordered: None,
        };
        for e in [copy_r, copy_w] {
            exec.event_mut(e).async_order = op(AsyncAfter::All, false);
        }
        for e in [ct_r, ct_w] {
            exec.event_mut(e).async_order = op(AsyncAfter::Nothing, true);
        }
        exec.event_mut(waited).async_order.awaited = [1, 0, 0];
        let po = ProgramOrder::new(&exec).po;
        assert!(
            po.contains(before, copy_r),
            "ordered after prior instructions"
        );
        assert!(
            po.contains(copy_r, copy_w) && po.contains(copy_w, ct_w),
            "own events"
        );
        assert!(po.contains(before, ct_r), "transitively, through the copy");
        assert!(
            !po.contains(copy_w, after),
            "not ordered with later instructions"
        );
        assert!(
            po.contains(copy_w, waited) && po.contains(ct_w, waited),
            "waited for"
        );
        assert!(po.contains(after, waited));
    }
}
