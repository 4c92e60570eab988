//! Morally strong operations (8.7).

use crate::event::{Event, EventId, EventKind};
use crate::execution::Execution;
use crate::relation::BitMatrix;
use ptxmc_frontend::ir::{Placement, Scope, Sem};

/// The scope a strong operation specifies: its own, or `.sys` for
/// `.volatile` and `.mmio` operations built without one (8.4.1, 8.4.2).
pub(crate) fn effective_scope(e: &Event) -> Option<Scope> {
    match (e.scope, e.sem) {
        (Some(s), _) => Some(s),
        (None, Sem::Volatile | Sem::Mmio) if e.is_memory() => Some(Scope::Sys),
        _ => None,
    }
}

/// Whether `a` and `b` are morally strong relative to each other (8.7):
///
/// 1. they are related in program order (executed by the same thread), or each
///    is strong and specifies a scope that includes the other's thread;
/// 2. both are performed via the same proxy. Two memory operations through
///    distinct virtual addresses count as distinct proxies (8.6: "accesses to
///    the same location via the same proxy using distinct virtual memory
///    addresses" use a method of access distinct from the generic one), so
///    virtual aliases are never morally strong;
/// 3. if both are memory operations, they overlap completely (same physical
///    location).
///
/// An operation is not morally strong with itself, and initial writes (which
/// no thread executes) are morally strong with nothing.
pub fn morally_strong(exec: &Execution, a: EventId, b: EventId) -> bool {
    a != b && morally_strong_events(exec.event(a), exec.event(b), exec.placements())
}

/// [`morally_strong`] for two distinct events, given the placement of each
/// thread (an explorer may ask about an event it has not added yet).
pub(crate) fn morally_strong_events(ea: &Event, eb: &Event, placements: &[Placement]) -> bool {
    let (Some(ta), Some(tb)) = (ea.thread, eb.thread) else {
        return false;
    };
    // Condition 2 (proxies, and aliases as distinct proxies) and 3.
    let same_access = ea.proxy == eb.proxy
        && match (ea.loc(), eb.loc()) {
            (Some(la), Some(lb)) => la.phys == lb.phys && la.vaddr == lb.vaddr,
            _ => true,
        };
    // Condition 1.
    same_access
        && (ta == tb || {
            let (Some(pa), Some(pb)) = (placements.get(ta.index()), placements.get(tb.index()))
            else {
                return false;
            };
            match (strong_scope(ea), strong_scope(eb)) {
                (Some(sa), Some(sb)) => pa.scope_includes(sa, pb) && pb.scope_includes(sb, pa),
                _ => false,
            }
        })
}

/// The scope of a strong operation that specifies one (8.5, 8.7 condition 1).
pub(crate) fn strong_scope(e: &Event) -> Option<Scope> {
    let strong = match e.kind {
        EventKind::Barrier { .. } => false,
        _ => e.is_strong(),
    };
    if strong {
        effective_scope(e)
    } else {
        None
    }
}

/// The morally strong relation (8.7) over every pair of events; symmetric
/// and irreflexive.
pub(crate) fn morally_strong_matrix(exec: &Execution) -> BitMatrix {
    let mut ms = BitMatrix::new(exec.len());
    for a in exec.ids() {
        crate::interrupt::poll(a.index());
        for b in exec.ids().skip(a.index() + 1) {
            if morally_strong(exec, a, b) {
                ms.insert(a, b);
                ms.insert(b, a);
            }
        }
    }
    ms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::*;
    use ptxmc_frontend::ir::{FenceKind, Proxy};

    #[test]
    fn relaxed_cta_is_morally_strong_inside_one_cta_only() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        let t2 = b.thread(cta(1));
        let w = b.st(t0, b.loc(0), 1, RLX_CTA);
        let r1 = b.ld(t1, b.loc(0), RLX_CTA);
        let r2 = b.ld(t2, b.loc(0), RLX_CTA);
        let exec = b.build();
        assert!(morally_strong(&exec, w, r1));
        assert!(morally_strong(&exec, r1, w));
        assert!(!morally_strong(&exec, w, r2));
    }

    #[test]
    fn both_scopes_must_include_the_other_thread() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(1));
        let w = b.st(t0, b.loc(0), 1, RLX_GPU);
        let r_gpu = b.ld(t1, b.loc(0), RLX_GPU);
        let r_cta = b.ld(t1, b.loc(0), RLX_CTA);
        let r_sys = b.ld(t1, b.loc(0), ACQ_SYS);
        let exec = b.build();
        assert!(morally_strong(&exec, w, r_gpu));
        assert!(morally_strong(&exec, w, r_sys));
        assert!(!morally_strong(&exec, w, r_cta));
    }

    #[test]
    fn weak_operations_are_morally_strong_only_within_a_thread() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        let w = b.st(t0, b.loc(0), 1, WEAK);
        let r_same = b.ld(t0, b.loc(0), WEAK);
        let r_other = b.ld(t1, b.loc(0), RLX_SYS);
        let r_other_weak = b.ld(t1, b.loc(0), WEAK);
        let exec = b.build();
        assert!(
            morally_strong(&exec, w, r_same),
            "same thread: program order"
        );
        assert!(!morally_strong(&exec, w, r_other));
        assert!(!morally_strong(&exec, w, r_other_weak));
    }

    #[test]
    fn same_thread_is_morally_strong_whatever_the_scope() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let w = b.st(t0, b.loc(0), 1, RLX_CTA);
        let r = b.ld(t0, b.loc(0), RLX_SYS);
        let f = b.fence(t0, FenceKind::Sc, Some(Scope::Cta));
        let exec = b.build();
        assert!(morally_strong(&exec, w, r));
        assert!(
            morally_strong(&exec, w, f),
            "a fence and a memory op: no overlap needed"
        );
        assert!(!morally_strong(&exec, w, w), "irreflexive");
    }

    #[test]
    fn different_proxies_and_aliases_are_never_morally_strong() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        let w = b.st(t0, b.loc(0), 1, RLX_SYS);
        let r_surface = b.ld(t1, b.loc(0).via(Proxy::Surface), RLX_SYS);
        let alias = b.alias(0);
        let r_alias = b.ld(t1, alias, RLX_SYS);
        let w_alias_same_thread = b.st(t0, alias, 2, RLX_SYS);
        let exec = b.build();
        assert!(!morally_strong(&exec, w, r_surface));
        assert!(!morally_strong(&exec, w, r_alias));
        assert!(!morally_strong(&exec, w, w_alias_same_thread));
    }

    #[test]
    fn different_locations_and_initial_writes_are_not_morally_strong() {
        let mut b = ExecBuilder::new(2);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        let w = b.st(t0, b.loc(0), 1, RLX_SYS);
        let r = b.ld(t1, b.loc(1), RLX_SYS);
        let r0 = b.ld(t1, b.loc(0), RLX_SYS);
        let init = b.init(0);
        let exec = b.build();
        assert!(!morally_strong(&exec, w, r));
        assert!(!morally_strong(&exec, init, r0));
        let ms = morally_strong_matrix(&exec);
        assert!(ms.contains(w, r0) && ms.contains(r0, w));
        assert!(!ms.contains(w, r));
    }

    #[test]
    fn volatile_is_relaxed_at_system_scope() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(gpu(1));
        let w = b.st(t0, b.loc(0), 1, (Sem::Volatile, None));
        let r = b.ld(t1, b.loc(0), RLX_SYS);
        let exec = b.build();
        assert!(morally_strong(&exec, w, r));
    }
}
