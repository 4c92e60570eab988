//! Copying a thread's state: `clone_from` reuses the buffers of the state it
//! overwrites, field by field.

use super::{Deps, Fields};
use crate::event::{copy_ids, set_ids};

/// Written out so that `clone_from` reuses the buffers of the state it
/// overwrites: explorers restore a thread's state once per child of a node.
impl<V: Clone> Clone for Fields<V> {
    fn clone(&self) -> Self {
        Self {
            thread: self.thread,
            unroll: self.unroll,
            pc: self.pc,
            came_from: self.came_from,
            sub: self.sub,
            regs: self.regs.clone(),
            deps: self.deps.clone(),
            ctrl: self.ctrl.clone(),
            loops: self.loops.clone(),
            writes: self.writes,
            events: self.events.clone(),
            pending: self.pending.clone(),
            rmw_write: self.rmw_write.clone(),
            undecided: self.undecided.clone(),
            run: self.run.clone(),
            blocked_at: self.blocked_at,
            spin_loop: self.spin_loop,
            issued: self.issued,
            committed: self.committed.clone(),
            awaited: self.awaited,
            copy_value: self.copy_value.clone(),
            addr_deps: self.addr_deps.clone(),
            mark: self.mark,
            elements: self.elements,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        if self.mark != 0 && self.mark == source.mark {
            // Equal already (the invariant of `mark`).
            return;
        }
        // Destructured so that a new field cannot be forgotten here.
        let Self {
            thread,
            unroll,
            pc,
            came_from,
            sub,
            regs,
            deps,
            ctrl,
            loops,
            writes,
            events,
            pending,
            rmw_write,
            undecided,
            run,
            blocked_at,
            spin_loop,
            issued,
            committed,
            awaited,
            copy_value,
            addr_deps,
            mark,
            elements,
        } = self;
        *thread = source.thread;
        *unroll = source.unroll;
        *pc = source.pc;
        *came_from = source.came_from;
        *sub = source.sub;
        regs.clone_from(&source.regs);
        copy_deps(deps, &source.deps);
        set_ids(ctrl, &source.ctrl);
        loops.clone_from(&source.loops);
        *writes = source.writes;
        events.clone_from(&source.events);
        match (pending.as_mut(), &source.pending) {
            // In place: the event's dependency sets are copied inline.
            (Some(p), Some(q)) => {
                p.event.clone_from(&q.event);
                p.effect.clone_from(&q.effect);
                p.last = q.last;
            }
            _ => pending.clone_from(&source.pending),
        }
        rmw_write.clone_from(&source.rmw_write);
        undecided.clone_from(&source.undecided);
        run.clone_from(&source.run);
        *blocked_at = source.blocked_at;
        *spin_loop = source.spin_loop;
        *issued = source.issued;
        committed.clone_from(&source.committed);
        *awaited = source.awaited;
        copy_value.clone_from(&source.copy_value);
        for (d, s) in addr_deps.iter_mut().zip(&source.addr_deps) {
            set_ids(d, s);
        }
        *mark = source.mark;
        *elements = source.elements;
    }
}

/// Makes `into` a copy of `from`, element by element with [`set_ids`].
fn copy_deps(into: &mut Vec<Deps>, from: &[Deps]) {
    into.truncate(from.len());
    for (d, s) in into.iter_mut().zip(from) {
        set_ids(d, s);
    }
    let have = into.len();
    into.extend(from[have..].iter().map(copy_ids));
}
