//! Paths through relations, for the witnesses of violations that `ptxmc
//! explain` prints.

use crate::event::EventId;
use crate::model::Orders;
use crate::relation::BitMatrix;
use std::collections::VecDeque;

/// A shortest path `a, ..., b` of at least one edge of `rel`, if any
/// (breadth-first; ties go to the smaller event id, so it is deterministic).
pub(crate) fn shortest_path(rel: &BitMatrix, a: EventId, b: EventId) -> Option<Vec<EventId>> {
    let n = rel.len();
    let mut parent = vec![usize::MAX; n];
    let mut seen = vec![false; n];
    let mut queue = VecDeque::new();
    // Start from a's successors so that a path from a to itself is a cycle.
    for s in rel.successors(a) {
        if !seen[s.index()] {
            seen[s.index()] = true;
            parent[s.index()] = a.index();
            queue.push_back(s);
        }
    }
    while let Some(v) = queue.pop_front() {
        if v == b {
            let mut path = vec![b];
            let mut x = b.index();
            loop {
                x = parent[x];
                path.push(EventId::new(x));
                if x == a.index() {
                    break;
                }
            }
            path.reverse();
            return Some(path);
        }
        for s in rel.successors(v) {
            if !seen[s.index()] {
                seen[s.index()] = true;
                parent[s.index()] = v.index();
                queue.push_back(s);
            }
        }
    }
    None
}

/// Appends `path` to `out`, dropping its first event when it repeats the last of `out`.
pub(crate) fn extend_path(out: &mut Vec<EventId>, path: &[EventId]) {
    match (out.last(), path.first()) {
        (Some(x), Some(y)) if x == y => out.extend_from_slice(&path[1..]),
        _ => out.extend_from_slice(path),
    }
}

impl Orders<'_> {
    /// A base causality path from `x` to `y` (8.9.5), through program order
    /// and synchronization; each synchronization by patterns is spelled out
    /// as first operation, write, observation chain, read, last operation.
    pub(crate) fn base_path(&self, x: EventId, y: EventId) -> Vec<EventId> {
        let path = shortest_path(&self.causality.generator, x, y).unwrap_or(vec![x, y]);
        let mut out = vec![x];
        for step in path.windows(2) {
            let (u, v) = (step[0], step[1]);
            if !self.po.po.contains(u, v) && self.sync.order.contains(u, v) {
                extend_path(&mut out, &self.sync.explain(&self.obs, u, v));
            } else {
                extend_path(&mut out, &[u, v]);
            }
        }
        out
    }

    /// A path for `x` preceding `y` in proxy-preserved base causality (memory
    /// operations: through the proxy and alias fences that make it hold) or
    /// in base causality (other pairs).
    fn preserved_path(&self, x: EventId, y: EventId) -> Option<Vec<EventId>> {
        let (ex, ey) = (self.exec.event(x), self.exec.event(y));
        let stops = if ex.is_memory() && ey.is_memory() {
            self.causality.waypoints(self.exec, x, y)?
        } else if self.causality.base.contains(x, y) {
            vec![x, y]
        } else {
            return None;
        };
        let mut out = vec![x];
        for leg in stops.windows(2) {
            extend_path(&mut out, &self.base_path(leg[0], leg[1]));
        }
        Some(out)
    }

    /// A path for `x` preceding `y` in causality order (8.9.5): an optional
    /// observation chain, then a proxy-preserved base causality path.
    pub(crate) fn causality_path(&self, x: EventId, y: EventId) -> Vec<EventId> {
        if let Some(p) = self.preserved_path(x, y) {
            return p;
        }
        for z in self.obs.order.successors(x) {
            if let Some(p) = self.preserved_path(z, y) {
                let mut out = self.obs.chain(x, z).unwrap_or(vec![x, z]);
                extend_path(&mut out, &p);
                return out;
            }
        }
        vec![x, y]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(i: usize) -> EventId {
        EventId::new(i)
    }

    #[test]
    fn shortest_path_and_cycles() {
        let mut m = BitMatrix::new(5);
        m.insert(e(0), e(1));
        m.insert(e(1), e(2));
        m.insert(e(0), e(2));
        m.insert(e(2), e(0));
        assert_eq!(shortest_path(&m, e(0), e(2)), Some(vec![e(0), e(2)]));
        assert_eq!(shortest_path(&m, e(1), e(0)), Some(vec![e(1), e(2), e(0)]));
        assert_eq!(shortest_path(&m, e(0), e(0)), Some(vec![e(0), e(2), e(0)]));
        assert_eq!(shortest_path(&m, e(3), e(4)), None);
        assert_eq!(shortest_path(&m, e(3), e(3)), None);
        let mut out = vec![e(3), e(0)];
        extend_path(&mut out, &[e(0), e(2)]);
        assert_eq!(out, vec![e(3), e(0), e(2)]);
    }
}
