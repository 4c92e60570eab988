//! Release and acquire patterns (8.8).
//!
//! Forms 4 and 5 of the release pattern and form 4 of the acquire pattern
//! involve asynchronous operations (8.9.1.1), whose events are not in
//! program order with the rest of their thread (`Event::po_before`): a
//! release fence followed in issue order by an asynchronous strong write is
//! form 4; a release asynchronous write (`st.async.release`) is form 5, found
//! as form 1; an asynchronous strong read whose completion the thread
//! observes (a read that reads, through a chain of RMWs, a write ordered after
//! the asynchronous read) before an acquire fence is acquire form 4.
//!
//! A pattern is reduced to what synchronization (8.9.4 item 4) needs: the
//! operation that must be morally strong with the other side, and the write
//! (release) or read (acquire) that takes part in observation order. An RMW
//! instruction is represented by its write half where it starts a release
//! pattern and by its read half where it ends an acquire pattern: program
//! order on both sides then covers both halves of the instruction.

use crate::event::{Event, EventId, EventKind};
use crate::execution::Execution;
use ptxmc_frontend::ir::{FenceKind, Sem};

/// Which form of 8.8 a pattern has.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Form {
    /// Form 1: a release (acquire) operation on M alone.
    Operation,
    /// Form 2: a release operation then a strong write on M (a strong read on
    /// M then an acquire operation on M).
    OperationThenAccess,
    /// Form 3: a release fence then a strong write on M (a strong read on M
    /// then an acquire fence).
    Fence,
}

/// A release pattern (8.8): `first` is its first operation, `write` a write of it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct ReleasePattern {
    /// The first operation: a release write (or RMW write half) or a release fence.
    pub first: EventId,
    /// A strong write of the pattern on its location M.
    pub write: EventId,
    /// The form.
    pub form: Form,
}

/// An acquire pattern (8.8): `read` is a read of it, `last` its last operation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct AcquirePattern {
    /// A strong read of the pattern on its location M (never the read half of `red`).
    pub read: EventId,
    /// The last operation: an acquire read (or RMW read half) or an acquire fence.
    pub last: EventId,
    /// The form.
    pub form: Form,
}

/// A strong write (8.7), not an initial write.
pub(crate) fn is_strong_write(e: &Event) -> bool {
    matches!(e.kind, EventKind::Write { init: false, .. }) && e.is_strong()
}

/// A release operation (8.8 release form 1): a write, or RMW write half, with
/// `.release` or `.acq_rel` semantics.
pub(crate) fn is_release_write(e: &Event) -> bool {
    is_strong_write(e) && e.sem.is_release()
}

/// A strong read that may begin an acquire pattern: not the read half of a
/// reduction (8.8, 8.11.1), whatever its semantics.
pub(crate) fn is_strong_read(e: &Event) -> bool {
    matches!(e.kind, EventKind::Read { red: false, .. }) && e.is_strong()
}

/// An acquire operation (8.8 acquire form 1): a read, or RMW read half, with
/// `.acquire` or `.acq_rel` semantics; never the read half of `red`.
pub(crate) fn is_acquire_read(e: &Event) -> bool {
    is_strong_read(e) && e.sem.is_acquire()
}

/// A release or acquire-release memory fence; `fence.sc` is one (a stronger
/// `fence.acq_rel`, `docs/model-notes.md`) unless the reading marked it relaxed.
pub(crate) fn is_release_fence(e: &Event) -> bool {
    match e.kind {
        EventKind::Fence(FenceKind::Release | FenceKind::AcqRel) => true,
        EventKind::Fence(FenceKind::Sc) => fence_sc_acq_rel(e),
        _ => false,
    }
}

/// An acquire or acquire-release memory fence; `fence.sc` is one (a stronger
/// `fence.acq_rel`, `docs/model-notes.md`) unless the reading marked it relaxed.
pub(crate) fn is_acquire_fence(e: &Event) -> bool {
    match e.kind {
        EventKind::Fence(FenceKind::Acquire | FenceKind::AcqRel) => true,
        EventKind::Fence(FenceKind::Sc) => fence_sc_acq_rel(e),
        _ => false,
    }
}

/// Whether a `fence.sc` also acts as `fence.acq_rel`: a reading that says it
/// does not (`model::reading`, `fence_sc_acq_rel`) builds it with
/// `.relaxed` semantics.
fn fence_sc_acq_rel(e: &Event) -> bool {
    e.sem != Sem::Relaxed
}

/// Whether two memory events access the same location M through the same
/// address (`po-vloc` of `ptx-v7.5.cat`).
pub(crate) fn same_location(a: &Event, b: &Event) -> bool {
    match (a.loc(), b.loc()) {
        (Some(la), Some(lb)) => la.phys == lb.phys && la.vaddr == lb.vaddr,
        _ => false,
    }
}

/// Every release pattern of forms 1-3 (8.8), as (first operation, write) pairs.
pub(crate) fn release_patterns(exec: &Execution) -> Vec<ReleasePattern> {
    let mut out = Vec::new();
    for thread in exec.threads() {
        for (i, &a) in thread.iter().enumerate() {
            let ea = exec.event(a);
            if is_release_write(ea) {
                out.push(ReleasePattern {
                    first: a,
                    write: a,
                    form: Form::Operation,
                });
            }
            let fence = is_release_fence(ea);
            if !fence && !is_release_write(ea) {
                continue;
            }
            for &b in &thread[i + 1..] {
                let eb = exec.event(b);
                if !is_strong_write(eb) {
                    continue;
                }
                if fence {
                    out.push(ReleasePattern {
                        first: a,
                        write: b,
                        form: Form::Fence,
                    });
                } else if same_location(ea, eb) && ea.po_before(eb) {
                    out.push(ReleasePattern {
                        first: a,
                        write: b,
                        form: Form::OperationThenAccess,
                    });
                }
            }
        }
    }
    out
}

/// Every acquire pattern of forms 1-3 (8.8), as (read, last operation) pairs.
pub(crate) fn acquire_patterns(exec: &Execution) -> Vec<AcquirePattern> {
    let mut out = Vec::new();
    for thread in exec.threads() {
        for (i, &a) in thread.iter().enumerate() {
            let ea = exec.event(a);
            if !is_strong_read(ea) {
                continue;
            }
            if is_acquire_read(ea) {
                out.push(AcquirePattern {
                    read: a,
                    last: a,
                    form: Form::Operation,
                });
            }
            for (j, &b) in thread.iter().enumerate().skip(i + 1) {
                let eb = exec.event(b);
                if !ea.po_before(eb) {
                    // Acquire form 4: an asynchronous strong read, observed
                    // complete by a read W of the thread before the fence.
                    if is_acquire_fence(eb)
                        && ea.is_async()
                        && thread[i + 1..j].iter().any(|&w| {
                            exec.event(w).is_read()
                                && exec.event(w).po_before(eb)
                                && observes_completion(exec, a, w)
                        })
                    {
                        out.push(AcquirePattern {
                            read: a,
                            last: b,
                            form: Form::Fence,
                        });
                    }
                    continue;
                }
                if is_acquire_fence(eb) {
                    out.push(AcquirePattern {
                        read: a,
                        last: b,
                        form: Form::Fence,
                    });
                } else if is_acquire_read(eb) && same_location(ea, eb) {
                    out.push(AcquirePattern {
                        read: a,
                        last: b,
                        form: Form::OperationThenAccess,
                    });
                }
            }
        }
    }
    out
}

/// Whether the read `w` observes the completion of the asynchronous event
/// `a` of its thread (acquire form 4 of 8.8): `w` reads, directly or through a
/// chain of RMWs (8.9.2), a write of the thread ordered after `a` (the
/// operation's complete-tx, or the arrive-on of `cp.async.mbarrier.arrive`).
fn observes_completion(exec: &Execution, a: EventId, w: EventId) -> bool {
    let ea = exec.event(a);
    let mut cur = exec.rf().get(w.index()).copied().flatten();
    let mut steps = 0;
    while let Some(x) = cur {
        steps += 1;
        if steps > exec.len() {
            return false;
        }
        let ex = exec.event(x);
        if ex.thread == ea.thread && ea.po_before(ex) && exec_order(exec, a, x) {
            return true;
        }
        // Through an RMW: its read half is the event just before its write
        // half in the thread.
        if !matches!(ex.kind, EventKind::Write { rmw: true, .. }) {
            return false;
        }
        let read = ex
            .thread
            .and_then(|t| exec.threads().get(t.index()))
            .and_then(|th| {
                let p = th.iter().position(|&e| e == x)?;
                th.get(p.checked_sub(1)?).copied()
            });
        let Some(read) = read else {
            return false;
        };
        cur = exec.rf().get(read.index()).copied().flatten();
    }
    false
}

/// Whether `a` comes before `x` in their thread's event list.
fn exec_order(exec: &Execution, a: EventId, x: EventId) -> bool {
    exec.event(a)
        .thread
        .and_then(|t| exec.threads().get(t.index()))
        .is_some_and(|th| {
            let pa = th.iter().position(|&e| e == a);
            let px = th.iter().position(|&e| e == x);
            matches!((pa, px), (Some(pa), Some(px)) if pa < px)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::*;
    use ptxmc_frontend::ir::Scope;

    #[test]
    fn release_forms() {
        let mut b = ExecBuilder::new(2);
        let t0 = b.thread(cta(0));
        let w_rel = b.st(t0, b.loc(0), 1, REL_GPU);
        let w_rlx = b.st(t0, b.loc(0), 2, RLX_GPU);
        let w_other = b.st(t0, b.loc(1), 3, RLX_GPU);
        let f = b.fence(t0, FenceKind::AcqRel, Some(Scope::Gpu));
        let w_weak = b.st(t0, b.loc(1), 4, WEAK);
        let (_, w_atom) = b.rmw(t0, b.loc(1), RLX_GPU);
        let exec = b.build();
        let ps = release_patterns(&exec);
        let has = |first, write, form| ps.contains(&ReleasePattern { first, write, form });
        assert!(has(w_rel, w_rel, Form::Operation));
        assert!(has(w_rel, w_rlx, Form::OperationThenAccess));
        assert!(!ps.iter().any(|p| p.first == w_rel && p.write == w_other));
        assert!(has(f, w_atom, Form::Fence));
        assert!(!ps.iter().any(|p| p.write == w_weak), "weak writes never");
        assert!(
            !ps.iter().any(|p| p.first == w_rlx),
            "relaxed writes start nothing"
        );
    }

    #[test]
    fn acquire_forms_and_reductions() {
        let mut b = ExecBuilder::new(2);
        let t0 = b.thread(cta(0));
        let r_rlx = b.ld(t0, b.loc(0), RLX_GPU);
        let r_acq = b.ld(t0, b.loc(0), ACQ_GPU);
        let (red_r, _) = b.red(t0, b.loc(1), ACQ_REL_GPU);
        let (atom_r, _) = b.rmw(t0, b.loc(1), RLX_GPU);
        let f = b.fence(t0, FenceKind::Acquire, Some(Scope::Gpu));
        let exec = b.build();
        let ps = acquire_patterns(&exec);
        let has = |read, last, form| ps.contains(&AcquirePattern { read, last, form });
        assert!(has(r_acq, r_acq, Form::Operation));
        assert!(has(r_rlx, r_acq, Form::OperationThenAccess));
        assert!(has(r_rlx, f, Form::Fence));
        assert!(has(atom_r, f, Form::Fence));
        assert!(
            !ps.iter().any(|p| p.read == red_r || p.last == red_r),
            "8.11.1"
        );
        assert!(!ps.iter().any(|p| p.last == r_rlx));
    }

    #[test]
    fn fence_sc_forms_both_patterns_but_release_fence_no_acquire() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let r = b.ld(t0, b.loc(0), RLX_GPU);
        let f_rel = b.fence(t0, FenceKind::Release, Some(Scope::Gpu));
        let f_sc = b.fence(t0, FenceKind::Sc, Some(Scope::Gpu));
        let w = b.st(t0, b.loc(0), 1, RLX_GPU);
        let exec = b.build();
        let acq = acquire_patterns(&exec);
        assert!(acq.iter().any(|p| p.read == r && p.last == f_sc));
        assert!(!acq.iter().any(|p| p.last == f_rel));
        let rel = release_patterns(&exec);
        assert!(rel.iter().any(|p| p.first == f_sc && p.write == w));
        assert!(rel.iter().any(|p| p.first == f_rel && p.write == w));
    }
}
