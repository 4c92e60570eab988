//! The graph's events pushed and popped by the explorer, with the counts it
//! keeps beside them (barriers, `fence.sc`, writes per thread and location).

use super::State;
use crate::event::{Event, EventId, EventKind};
use crate::model::Model;

/// Appends `ev` (with its read value, if a read) as the next event of thread
/// `t`; returns its id.
pub(super) fn push_event(
    s: &mut State,
    t: usize,
    mut ev: Event,
    read_value: Option<i64>,
) -> EventId {
    if let (EventKind::Read { value, .. }, Some(v)) = (&mut ev.kind, read_value) {
        *value = v;
    }
    match ev.kind {
        EventKind::Barrier { .. } => s.barriers += 1,
        EventKind::Write { loc, .. } => {
            if let Some(n) = s
                .writes_made
                .get_mut(t)
                .and_then(|w| w.get_mut(loc.phys.index()))
            {
                *n += 1;
            }
        }
        _ if ev.is_fence_sc() => s.fences_sc += 1,
        _ => {}
    }
    let id = s.exec.push_event(t, ev);
    s.model.push(&s.exec, t, id);
    id
}

/// Sets the value the read `r` returns (0 while it waits for its writer),
/// and whether it is the read half of an RMW: a CAS that only reads when it
/// fails is not once its value makes it fail
/// (`ThreadState::pending_rmw_writes`); a waiting read keeps the mark it was
/// built with.
pub(super) fn set_read_value(s: &mut State, r: EventId, value: i64, rmw_read: bool) {
    s.exec.set_read_value(r, value, rmw_read);
}

/// Removes the last event, which is thread `t`'s last.
pub(super) fn pop_event(s: &mut State, t: usize) {
    s.model.forget();
    let Some(ev) = s.exec.pop_event(t) else {
        return;
    };
    match ev.kind {
        EventKind::Barrier { .. } => s.barriers -= 1,
        EventKind::Write { loc, .. } => {
            if let Some(n) = s
                .writes_made
                .get_mut(t)
                .and_then(|w| w.get_mut(loc.phys.index()))
            {
                *n -= 1;
            }
        }
        _ if ev.is_fence_sc() => s.fences_sc -= 1,
        _ => {}
    }
    s.model.pop(s.exec.len());
}
