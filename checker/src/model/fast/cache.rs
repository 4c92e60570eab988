//! The statics and relations each thread keeps from its last execution
//! (the thread-local cache behind [`with_statics`]): explorers check many
//! candidates with the same events and different reads-from or coherence.

use super::{Derived, Statics, MAX_WIDE_EVENTS};
use crate::event::EventId;
use crate::execution::Execution;
use std::cell::RefCell;

/// What [`with_statics`] keeps on each thread.
struct Cache {
    /// The statics of the last execution seen.
    statics: Statics,
    /// Scratch space; when `decided` is set, the relations of a consistent
    /// execution with those events and this `key`.
    derived: Derived,
    /// Whether `derived` holds the relations of the consistent execution
    /// with the events of `statics` and the choices of `key`.
    decided: bool,
    key: Key,
}

/// The choices of an execution besides its events: reads-from, the
/// explorer's coherence edges, Fence-SC order, barrier synchronization.
#[derive(Default)]
struct Key {
    rf: Vec<Option<EventId>>,
    /// Coherence edges: the words of each row, `co_words` per row.
    co: Vec<u64>,
    co_words: usize,
    fence_sc: Vec<EventId>,
    fence_sc_prefix: Option<usize>,
    barrier_sync: Vec<(EventId, EventId)>,
}

impl Key {
    fn set(&mut self, exec: &Execution) {
        self.rf.clear();
        self.rf.extend_from_slice(exec.rf());
        self.co.clear();
        self.co_words = exec.co().words();
        for a in exec.ids() {
            self.co.extend_from_slice(exec.co().row_words(a));
        }
        self.fence_sc.clear();
        self.fence_sc.extend_from_slice(exec.fence_sc());
        self.fence_sc_prefix = exec.fence_sc_prefix();
        self.barrier_sync.clear();
        self.barrier_sync.extend_from_slice(exec.barrier_sync());
    }

    fn matches(&self, exec: &Execution) -> bool {
        self.rf == exec.rf()
            && self.co_words == exec.co().words()
            && self.co.len() == exec.len() * self.co_words
            && exec.ids().all(|a| {
                exec.co().row_words(a) == &self.co[a.index() * self.co_words..][..self.co_words]
            })
            && self.fence_sc == exec.fence_sc()
            && self.fence_sc_prefix == exec.fence_sc_prefix()
            && self.barrier_sync == exec.barrier_sync()
    }
}

impl Cache {
    fn new() -> Box<Self> {
        Box::new(Self {
            statics: Statics::empty(),
            derived: Derived::new(),
            decided: false,
            key: Key::default(),
        })
    }
}

thread_local! {
    /// The statics of the last execution [`with_statics`] saw on this
    /// thread (explorers check many candidates with the same events and
    /// different reads-from or coherence), and possibly its decision.
    static LAST: RefCell<Option<Box<Cache>>> = const { RefCell::new(None) };
}

/// Runs `f` with the statics of `exec` (reused when this thread's last
/// execution had the same events, see [`Statics::matches`]) and scratch
/// [`Derived`] relations, or returns `None` when the fast path does not
/// apply. The flag given to `f` says that the [`Derived`] already holds the
/// relations of `exec`, found consistent ([`offer`]): same events, same
/// reads-from, coherence edges, Fence-SC order and barrier synchronization.
pub(crate) fn with_statics<R>(
    exec: &Execution,
    f: impl FnOnce(&Statics, &mut Derived, bool) -> R,
) -> Option<R> {
    if exec.len() > MAX_WIDE_EVENTS {
        return None;
    }
    LAST.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            // Re-entered (never in practice): build a private copy.
            return Statics::new(exec).map(|st| f(&st, &mut Derived::new(), false));
        };
        let c = &mut **slot.get_or_insert_with(Cache::new);
        let decided = c.prepare(exec)?;
        // `f` may overwrite the relations.
        c.decided = false;
        let r = f(&c.statics, &mut c.derived, decided);
        c.decided = decided;
        Some(r)
    })
}

/// [`with_statics`] for a caller that changes `exec` between checks
/// without changing its events (a search over Fence-SC orders): `f` gets
/// `exec` back, the statics of its events and scratch relations, so that
/// the statics are matched once for the whole search instead of once per
/// check. `f` must not change the events or threads of `exec`.
pub(crate) fn with_statics_mut<R>(
    exec: &mut Execution,
    f: impl FnOnce(&mut Execution, &Statics, &mut Derived) -> R,
) -> Option<R> {
    if exec.len() > MAX_WIDE_EVENTS {
        return None;
    }
    LAST.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            return Statics::new(exec).map(|st| f(exec, &st, &mut Derived::new()));
        };
        let c = &mut **slot.get_or_insert_with(Cache::new);
        c.prepare(exec)?;
        c.decided = false;
        let r = f(exec, &c.statics, &mut c.derived);
        debug_assert!(c.statics.matches(exec), "the events changed");
        Some(r)
    })
}

impl Cache {
    /// Makes `statics` those of `exec`; whether `derived` holds its
    /// relations, found consistent ([`offer`]); `None` when the fast path
    /// does not apply.
    fn prepare(&mut self, exec: &Execution) -> Option<bool> {
        if self.statics.matches(exec) {
            Some(self.decided && self.key.matches(exec))
        } else if self.statics.rebuild(exec) {
            Some(false)
        } else {
            self.decided = false;
            None
        }
    }
}

/// Offers `st`, the statics of an execution about to be checked, to
/// [`with_statics`] on this thread (saves rebuilding them).
pub(crate) fn offer_statics(st: &Statics) {
    LAST.with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            let c = &mut **slot.get_or_insert_with(Cache::new);
            c.statics.copy_from(st);
            c.decided = false;
        }
    });
}

/// Offers `st`, the statics of `exec`, and `d`, its relations, found
/// consistent by [`decide`], to [`with_statics`] on this thread: a check of
/// the same execution then only reads them off.
pub(crate) fn offer(exec: &Execution, st: &Statics, d: &Derived) {
    LAST.with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            let c = &mut **slot.get_or_insert_with(Cache::new);
            c.statics.copy_from(st);
            c.derived.copy_from(d, st.len());
            c.derived.level = d.level;
            c.key.set(exec);
            c.decided = true;
        }
    });
}
