//! The existential Fence-SC order (8.9.3): whether some total order of the
//! `fence.sc` events of a graph makes it consistent, and which.
//!
//! The order is no part of an execution's identity (executions are counted
//! by reads-from and coherence), so no explorer branches on it: the model
//! answers "is there one" ([`exists_order`], [`exists_order_hinted`],
//! [`first_order_with`]) and leaves the order it found in
//! [`Execution::fence_sc`].
//!
//! Every search here relies on one fact: consistency is anti-monotone in
//! the Fence-SC pairs. A pair `F1 -> F2` of the order only adds
//! synchronization (8.9.4 item 1), hence base causality and causality
//! (8.9.5) and the coherence edges causality forces (8.10.1); every axiom
//! of 8.10 only forbids, and Fence-SC's own (8.10.2) only for ordered pairs.
//! So a graph inconsistent with some pairs is inconsistent with every order
//! containing them, in particular with none ordered, and a partial order
//! rejected prunes every total order extending it.
//!
//! The hinted search ([`exists_order_hinted`], what an explorer asks at
//! each node) tries, in turn: the order found for an earlier graph (the
//! hint); then, with the relations of the graph with no Fence-SC pair
//! (inconsistent there: no order can help), an order read off those
//! relations ([`fast::preferred_fence_sc_order`]); and only when both fail the exact
//! search over prefixes. Each candidate is decided by the full check, so
//! the first two steps only choose which orders are tried first: the answer
//! is the exact search's (`docs/model-notes.md`, "Fence-SC order").

use super::{check_full, fast};
use crate::event::EventId;
use crate::execution::Execution;
use smallvec::SmallVec;

/// The `fence.sc` events of `exec`, in id order.
fn fences(exec: &Execution) -> Vec<EventId> {
    exec.ids()
        .filter(|&e| exec.event(e).is_fence_sc())
        .collect()
}

/// Whether `ok` accepts `exec` with some Fence-SC order (8.9.3), a total
/// order of its `fence.sc` events; the first such order in lexicographic
/// order of event ids is left in `exec.fence_sc()` when it does.
///
/// No enumeration of the k! orders: a depth-first search over the prefixes of
/// the order, each tried as a partial order ([`Execution::fence_sc_prefix`]:
/// the prefix ordered, every prefix fence before the rest, the rest
/// unordered). `ok` must be anti-monotone in the Fence-SC pairs, as
/// consistency is (module documentation), so a prefix rejected as a partial
/// order has no total order extending it accepted, and its subtree is
/// pruned.
pub(crate) fn exists_order(exec: &mut Execution, ok: &mut dyn FnMut(&Execution) -> bool) -> bool {
    exec.set_fence_sc(fences(exec));
    let found = extend_order(exec, 0, ok);
    exec.set_fence_sc_prefix(None);
    found
}

/// The search of [`exists_order`] below the prefix `exec.fence_sc()[..p]`; the
/// fences after it are in id order on entry, and again on return when no
/// order is found.
fn extend_order(exec: &mut Execution, p: usize, ok: &mut dyn FnMut(&Execution) -> bool) -> bool {
    let n = exec.fence_sc().len();
    let total = n <= p + 1;
    exec.set_fence_sc_prefix(if total { None } else { Some(p) });
    if !ok(exec) {
        return false;
    }
    if total {
        return true;
    }
    for i in p..n {
        // Fence `i` next, the others after it still in id order.
        exec.move_fence_sc(i, p);
        if extend_order(exec, p + 1, ok) {
            return true;
        }
        exec.move_fence_sc(p, i);
    }
    false
}

/// The fences of `exec` in the order of `hint` (those it names), then the
/// others in id order.
fn hinted(exec: &Execution, hint: &[EventId]) -> Vec<EventId> {
    // The fences not yet placed, as a set of event ids.
    let mut left: SmallVec<[u64; 4]> = smallvec::smallvec![0; exec.len().div_ceil(64)];
    let mut count = 0;
    for (e, ev) in exec.events().iter().enumerate() {
        if ev.is_fence_sc() {
            left[e / 64] |= 1u64 << (e % 64);
            count += 1;
        }
    }
    let mut order: Vec<EventId> = Vec::with_capacity(count);
    for &f in hint {
        let (word, bit) = (f.index() / 64, 1u64 << (f.index() % 64));
        if left.get(word).is_some_and(|w| w & bit != 0) {
            left[word] &= !bit;
            order.push(f);
        }
    }
    for (i, &word) in left.iter().enumerate() {
        let mut m = word;
        while m != 0 {
            order.push(EventId::new(i * 64 + m.trailing_zeros() as usize));
            m &= m - 1;
        }
    }
    order
}

/// [`exists_order`] for a caller that needs only the answer, not the first
/// order, with `ok` deciding a candidate: `hint` (an order found for an
/// earlier graph, say) is tried first, as a total order of the fences of
/// `exec` that it names, then the others in id order; the search runs only
/// when `ok` rejects it. `hint` gets the order found.
pub(crate) fn exists_order_hinted_with(
    exec: &mut Execution,
    hint: &mut Vec<EventId>,
    ok: &mut dyn FnMut(&Execution) -> bool,
) -> bool {
    exec.set_fence_sc(hinted(exec, hint));
    exec.set_fence_sc_prefix(None);
    let found = ok(exec) || exists_order(exec, ok);
    if found {
        hint.clear();
        hint.extend_from_slice(exec.fence_sc());
    }
    found
}

/// [`exists_order_hinted_with`] on the statics `st` of `exec`'s events (the
/// chapter-8 model's, kept up to date by an explorer), `d` scratch: the
/// hint (unless `hint_fails`: the caller found it inconsistent), then
/// [`fast::preferred_fence_sc_order`], read off `no_pair` when given (the relations of
/// `exec` with no Fence-SC pair, found consistent) or decided here, then the
/// exact search ([`first_order_with`]), each decided by
/// [`super::consistent_with`]. `None` when no order makes `exec` consistent;
/// otherwise whether `d` holds the relations of `exec` under the order found
/// (the fast path decided it).
pub(crate) fn exists_order_hinted(
    exec: &mut Execution,
    hint: &mut Vec<EventId>,
    hint_fails: bool,
    st: &fast::Statics,
    d: &mut fast::Derived,
    no_pair: Option<&fast::Derived>,
) -> Option<bool> {
    exec.set_fence_sc(hinted(exec, hint));
    exec.set_fence_sc_prefix(None);
    let mut found = if hint_fails {
        None
    } else {
        decided(exec, st, d)
    };
    if found.is_none() {
        let tried = exec.take_fence_sc();
        // No Fence-SC pair: the least synchronization any order gives.
        let relations = match no_pair {
            Some(relations) => Some(relations),
            None => match fast::decide(exec, st, d) {
                fast::Decision::Inconsistent => {
                    debug_assert!(check_full(exec).is_err(), "fast path disagrees");
                    return None;
                }
                fast::Decision::Consistent => Some(&*d),
                fast::Decision::Unknown => None,
            },
        };
        // Whether no order can serve ([`fast::no_fence_sc_order`]): asked
        // only once the preferred order failed, unless `d` holds the
        // relations (the check of that order overwrites them).
        let refute = |r: &fast::Derived| fast::no_fence_sc_order(st, r, &tried);
        let (mut refuted, preferred) = match relations {
            Some(r) => (
                no_pair.is_none() && refute(r),
                fast::preferred_fence_sc_order(st, r, &tried),
            ),
            None => (false, None),
        };
        if !refuted {
            if let Some(order) = preferred {
                if order != tried {
                    exec.set_fence_sc(order);
                    found = decided_from(exec, st, no_pair, d);
                }
            }
            refuted = found.is_none() && no_pair.is_some_and(refute);
        }
        if refuted {
            debug_assert!(
                !first_order_with(&mut exec.clone(), st, &mut fast::Derived::new()),
                "a Fence-SC order was refuted, yet one is consistent"
            );
            return None;
        }
        if found.is_none() {
            found = first_order_with(exec, st, d).then_some(false);
        }
    }
    if found.is_some() {
        hint.clear();
        hint.extend_from_slice(exec.fence_sc());
    }
    found
}

/// [`super::consistent_with`] as [`exists_order_hinted`] answers: `None` when
/// inconsistent, else whether the fast path decided (the relations are in
/// `d`).
fn decided(exec: &Execution, st: &fast::Statics, d: &mut fast::Derived) -> Option<bool> {
    decided_from(exec, st, None, d)
}

/// [`decided`], from `no_pair` when given: the relations of `exec` with no
/// Fence-SC pair, found consistent ([`fast::decide_with_order`]: only what
/// the order changes is decided again).
fn decided_from(
    exec: &Execution,
    st: &fast::Statics,
    no_pair: Option<&fast::Derived>,
    d: &mut fast::Derived,
) -> Option<bool> {
    let decision = match no_pair.map(|r| fast::decide_with_order(exec, st, r, d)) {
        Some(fast::Decision::Unknown) | None => fast::decide(exec, st, d),
        Some(decision) => decision,
    };
    let ok = match decision {
        fast::Decision::Consistent => true,
        fast::Decision::Inconsistent => false,
        fast::Decision::Unknown => return check_full(exec).is_ok().then_some(false),
    };
    debug_assert_eq!(ok, check_full(exec).is_ok(), "fast path disagrees");
    ok.then_some(decision == fast::Decision::Consistent)
}

/// [`exists_order`] with [`super::consistent_with`] on the statics `st` of `exec`'s
/// events, `d` scratch: the same search, in the same order, so the same
/// first order is found, but a fence whose place next is certainly
/// inconsistent ([`fast::fence_sc_next_fails`], read off the relations of
/// the prefix) is not tried.
pub(crate) fn first_order_with(
    exec: &mut Execution,
    st: &fast::Statics,
    d: &mut fast::Derived,
) -> bool {
    exec.set_fence_sc(fences(exec));
    let found = extend_order_fast(exec, 0, st, d);
    exec.set_fence_sc_prefix(None);
    found
}

/// The search of [`first_order_with`] below the prefix `exec.fence_sc()[..p]`.
fn extend_order_fast(
    exec: &mut Execution,
    p: usize,
    st: &fast::Statics,
    d: &mut fast::Derived,
) -> bool {
    let n = exec.fence_sc().len();
    let total = n <= p + 1;
    exec.set_fence_sc_prefix(if total { None } else { Some(p) });
    let decision = fast::decide(exec, st, d);
    let ok = match decision {
        fast::Decision::Consistent => true,
        fast::Decision::Inconsistent => false,
        fast::Decision::Unknown => check_full(exec).is_ok(),
    };
    debug_assert_eq!(ok, check_full(exec).is_ok(), "fast path disagrees");
    if !ok {
        return false;
    }
    if total {
        return true;
    }
    // Decided before the search below overwrites `d`.
    let fails: SmallVec<[bool; 16]> = (p..n)
        .map(|i| {
            decision == fast::Decision::Consistent
                && fast::fence_sc_next_fails(st, d, exec.fence_sc()[i], &exec.fence_sc()[p..])
        })
        .collect();
    for i in p..n {
        if fails[i - p] {
            continue;
        }
        exec.move_fence_sc(i, p);
        if extend_order_fast(exec, p + 1, st, d) {
            return true;
        }
        exec.move_fence_sc(p, i);
    }
    false
}

/// [`exists_order`] with [`super::consistent`], the first order left in
/// `exec.fence_sc()`: with two `fence.sc` or more, every order tried is
/// decided on the statics of `exec`'s events matched once for the whole
/// search (the statics the explorer handed over, or built once), not once
/// per order.
pub(crate) fn first_consistent_order(exec: &mut Execution) -> bool {
    let count = exec.events().iter().filter(|e| e.is_fence_sc()).count();
    if count >= 2 {
        if let Some(found) = fast::with_statics_mut(exec, first_order_with) {
            return found;
        }
    }
    exists_order(exec, &mut super::consistent)
}
