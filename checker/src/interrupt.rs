//! Stopping a long consistency check at the check's deadline.
//!
//! One check of a graph of thousands of events ([`crate::model::check_full`]: the
//! orders of 8.9 as `n x n` relations, then the axioms of 8.10) takes a
//! noticeable time: about a second for 20,000 events. An explorer looks at
//! the clock between checks ([`crate::explore::Budget::tick`]), so such a
//! check would run past `--timeout` by its whole length. Here the check
//! looks at the deadline itself, every [`POLL_EVERY`] rows of its largest
//! loops, and gives up once it has passed.
//!
//! - The deadline is the one of the last `Budget` that looked at the clock
//!   on this thread ([`set_deadline`]); a `Budget` handed to another worker
//!   looks at the clock on its first step there, before any check.
//! - Only checks of at least [`ARM_MIN`] events look ([`Armed`]): a smaller
//!   one ends within a few milliseconds, and the explorers' hot paths stay
//!   as they were.
//! - Giving up unwinds to [`crate::model::check_full`] (no panic hook runs, no
//!   message is printed), which reports the graph as inconsistent and counts
//!   the interruption ([`interruptions`]). Such an answer is not a verdict:
//!   a check whose deadline has passed and during which an interruption
//!   happened ends with status `limit` (`explore::check_pruning`).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Events from which a check looks at the deadline.
pub(crate) const ARM_MIN: usize = 512;

/// Rows of a loop between two looks at the clock (a power of two).
pub(crate) const POLL_EVERY: usize = 64;
const _: () = assert!(POLL_EVERY.is_power_of_two());

thread_local! {
    /// The deadline of the check running on this thread, if any.
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Whether a check of at least [`ARM_MIN`] events runs on this thread.
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

/// Interruptions in this process so far.
static INTERRUPTIONS: AtomicU64 = AtomicU64::new(0);

/// The unwinding payload of an interrupted check.
#[derive(Debug)]
pub(crate) struct Interrupted;

/// Sets the deadline of the checks that run on this thread from now on.
#[inline]
pub(crate) fn set_deadline(d: Option<Instant>) {
    DEADLINE.with(|c| c.set(d));
}

/// How many checks were interrupted in this process so far.
pub(crate) fn interruptions() -> u64 {
    INTERRUPTIONS.load(Ordering::Relaxed)
}

/// While alive, [`poll`] looks at the deadline on this thread.
#[derive(Debug)]
pub(crate) struct Armed {
    was: bool,
}

impl Armed {
    /// Arms the polls for a check of `n` events, when it is large enough
    /// and this thread has a deadline.
    pub(crate) fn new(n: usize) -> Self {
        let on = n >= ARM_MIN && DEADLINE.with(Cell::get).is_some();
        let was = ARMED.with(|a| a.replace(on));
        Self { was }
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        ARMED.with(|a| a.set(self.was));
    }
}

/// Called by the long loops of a check once per row `i`: every
/// [`POLL_EVERY`] rows of an armed check, gives up (unwinds with
/// [`Interrupted`]) once the deadline has passed.
#[inline]
pub(crate) fn poll(i: usize) {
    if i & (POLL_EVERY - 1) == 0 && ARMED.with(Cell::get) {
        poll_now();
    }
}

#[cold]
fn poll_now() {
    if let Some(d) = DEADLINE.with(Cell::get) {
        if Instant::now() >= d {
            INTERRUPTIONS.fetch_add(1, Ordering::Relaxed);
            std::panic::resume_unwind(Box::new(Interrupted));
        }
    }
}

/// Runs `f` (a check of `n` events) with the polls armed; `None` when it
/// was interrupted.
pub(crate) fn run<R>(n: usize, f: impl FnOnce() -> R) -> Option<R> {
    let armed = Armed::new(n);
    if !ARMED.with(Cell::get) {
        drop(armed);
        return Some(f());
    }
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    drop(armed);
    match r {
        Ok(r) => Some(r),
        Err(payload) if payload.is::<Interrupted>() => None,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn only_an_armed_check_past_its_deadline_is_interrupted() {
        set_deadline(Some(Instant::now()));
        // Too small: runs to the end.
        assert_eq!(run(ARM_MIN - 1, || (0..1000).for_each(poll)), Some(()));
        let before = interruptions();
        assert_eq!(run(ARM_MIN, || (0..1000).for_each(poll)), None);
        assert_eq!(interruptions(), before + 1);
        // Polls outside a check never stop anything.
        (0..1000).for_each(poll);
        set_deadline(Instant::now().checked_add(Duration::from_secs(3600)));
        assert_eq!(run(ARM_MIN, || 7), Some(7));
        set_deadline(None);
        assert_eq!(run(ARM_MIN, || (0..1000).for_each(poll)), Some(()));
    }
}
