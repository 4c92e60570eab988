//! Where a new write may go in coherence order (8.9.6): its positions among
//! the morally strong writes of its location, without the ones an axiom
//! rules out at once (Coherence against causality, 8.10.1; RMW atomicity,
//! 8.10.3).

use super::{Dpor, State};
use crate::event::{Event, EventId};
use crate::execution::Execution;
use crate::model::{self, fast};
use crate::relation::BitMatrix;
use ptxmc_frontend::ir::Proxy;

impl Dpor<'_> {
    /// The writes to the location of `ev`, the next event of thread `t` (a
    /// write, not yet added), that precede it in causality order as far as
    /// the relations of the graph show (`s.derived_valid`; none otherwise):
    /// those that precede the thread's last event in base causality order,
    /// or are that event (then they precede `ev`, 8.9.5), when they and `ev`
    /// use the same address and the generic proxy (proxy-preserved). Each
    /// must come before `ev` in coherence (8.10.1); as one bit per event.
    pub(super) fn causal_writes_before(&self, s: &State, t: usize, ev: &Event) -> u64 {
        let n = s.exec.len();
        let (Some(loc), Proxy::Generic) = (ev.loc(), ev.proxy) else {
            return 0;
        };
        if !s.derived_valid || n >= fast::MAX_EVENTS || self.issues_async[t] {
            return 0;
        }
        let Some(&last) = s.exec.threads[t].last() else {
            return 0;
        };
        let l = last.index();
        (0..n).fold(0u64, |m, x| {
            let before = x == l || s.derived.base_has(x, l);
            let e = s.exec.event(EventId::new(x));
            let same = e.is_write()
                && e.proxy == Proxy::Generic
                && e.loc()
                    .is_some_and(|el| el.vaddr == loc.vaddr && el.phys == loc.phys);
            m | u64::from(before && same) << x
        })
    }

    /// For the waiting read `r`, when it is the read half of an RMW whose
    /// write half `W'` is in the graph and in `ms` (the writes morally
    /// strong with the new write `id`), `id` being morally strong with `r`:
    /// `W'`'s index in `ms`, and the writes of `ms` that must come before
    /// `id` in coherence if `r` reads from `id` (those before `W'` and
    /// morally strong with both halves of the RMW, 8.10.3). `reach`: the
    /// transitive closure of the coherence edges chosen so far.
    pub(super) fn rmw_half(
        &self,
        s: &State,
        id: EventId,
        r: EventId,
        ms: &[EventId],
        reach: &Reach,
    ) -> Option<(usize, u64)> {
        let e = s.exec.event(r);
        if !e.is_rmw() || !model::morally_strong(&s.exec, id, r) {
            return None;
        }
        let list = s.exec.threads.get(e.thread?.index())?;
        let pos = list.iter().position(|&x| x == r)?;
        let half = *list.get(pos + 1)?;
        let he = s.exec.event(half);
        if !(he.is_write() && he.is_rmw()) {
            return None;
        }
        let k = ms.iter().position(|&x| x == half)?;
        let need = ms.iter().enumerate().fold(0u64, |m, (j, &x)| {
            let before = x != half
                && reach.contains(x, half)
                && model::morally_strong(&s.exec, x, r)
                && model::morally_strong(&s.exec, x, half);
            m | u64::from(before) << j
        });
        Some((k, need))
    }
}

/// The RMWs of `exec` whose write half is in `ms` (the writes morally strong
/// with the new write `id`, the last event) and whose read half reads from
/// a write and is morally strong with `id`: each as whether the source is
/// an initial write (which precedes every write in coherence), the writes of
/// `ms` (bits) that, placed before `id`, put the source before it (the
/// source and the writes it reaches in coherence), and the index of the
/// write half in `ms`.
pub(super) fn rmw_guards(
    exec: &Execution,
    id: EventId,
    ms: &[EventId],
    reach: &Reach,
) -> Vec<(bool, u64, usize)> {
    let mut out = Vec::new();
    for list in &exec.threads {
        for pair in list.windows(2) {
            let (r, h) = (pair[0], pair[1]);
            let (re, he) = (exec.event(r), exec.event(h));
            if !(re.is_read() && re.is_rmw() && he.is_write() && he.is_rmw()) {
                continue;
            }
            let (Some(src), Some(k)) = (exec.rf[r.index()], ms.iter().position(|&x| x == h)) else {
                continue;
            };
            if !model::morally_strong(exec, id, r) {
                continue;
            }
            let first = exec.event(src).is_init();
            let source = ms.iter().enumerate().fold(0u64, |m, (j, &x)| {
                m | u64::from(x == src || reach.contains(src, x)) << j
            });
            if first || source != 0 {
                out.push((first, source, k));
            }
        }
    }
    out
}

/// The transitive closure of the coherence edges chosen so far: one word per
/// event while there are at most 64 of them, a [`BitMatrix`] beyond.
pub(super) enum Reach {
    Rows(Box<fast::Rows>),
    Matrix(BitMatrix),
}

impl Reach {
    /// Among the writes of `among` (those of one location,
    /// [`model::coherence::writes_at`]), which the queries are about.
    pub(super) fn of(co: &BitMatrix, among: &[u64]) -> Self {
        if co.len() > fast::MAX_EVENTS {
            return Self::Matrix(model::coherence::closure_among(co, among));
        }
        let mut rows: Box<fast::Rows> = Box::new([0; fast::MAX_EVENTS]);
        let among = among.first().copied().unwrap_or(0);
        let mut m = among;
        while m != 0 {
            let a = m.trailing_zeros() as usize;
            m &= m - 1;
            rows[a] = co.row_word(EventId::new(a), 0);
        }
        model::coherence::close_word_rows_among(&mut rows[..], among);
        Self::Rows(rows)
    }

    /// Whether `a` reaches `b`.
    pub(super) fn contains(&self, a: EventId, b: EventId) -> bool {
        match self {
            Self::Rows(rows) => {
                b.index() < fast::MAX_EVENTS
                    && rows.get(a.index()).is_some_and(|r| r >> b.index() & 1 == 1)
            }
            Self::Matrix(m) => m.contains(a, b),
        }
    }
}

/// Every way to place a new write among the morally strong writes `ms` of its
/// location: the sets of those that come before it (bit `k`: `ms[k]`), such
/// that no write after it already precedes (transitively) a write before it;
/// that is, the sets that are down-closed under the coherence edges chosen so
/// far.
///
/// `rmw_source` is the write the new write's RMW read reads from, when known:
/// RMW atomicity (8.10.3) then forbids placing any morally strong write that
/// is coherence-after that source before the new write (so with the initial
/// write as source, the new write comes first).
///
/// `forced`: writes (bit per event) that precede the new write in causality
/// order, so come before it in coherence (8.10.1).
pub(super) fn coherence_positions(
    exec: &Execution,
    reach: &Reach,
    ms: &[EventId],
    rmw_source: Option<(EventId, EventId)>,
    forced: u64,
) -> Vec<u64> {
    // Topological order of `ms` under `reach`: fewer ancestors first.
    let mut order: Vec<usize> = (0..ms.len()).collect();
    order.sort_by_key(|&i| ms.iter().filter(|&&y| reach.contains(y, ms[i])).count());
    let forbidden = |x: EventId| match rmw_source {
        Some((src, _)) if exec.event(src).is_init() => true,
        Some((src, _)) => reach.contains(src, x),
        None => false,
    };
    // The source itself comes before the new write when it is morally strong
    // with both halves of the RMW: else `W -co-> src -rf-> R -po-> W` is a
    // cycle of morally strong operations on one location (8.10.5).
    let src_first = match rmw_source {
        Some((src, r)) if ms.contains(&src) && model::morally_strong(exec, src, r) => Some(src),
        _ => None,
    };
    let required = |x: EventId| {
        src_first.is_some_and(|src| x == src || reach.contains(x, src))
            || (x.index() < 64 && forced >> x.index() & 1 == 1)
    };
    let mut out = Vec::new();
    down_sets(ms, &order, 0, reach, &forbidden, &required, 0, &mut out);
    out
}

#[allow(clippy::too_many_arguments)]
pub(super) fn down_sets(
    ms: &[EventId],
    order: &[usize],
    i: usize,
    reach: &Reach,
    forbidden: &dyn Fn(EventId) -> bool,
    required: &dyn Fn(EventId) -> bool,
    chosen: u64,
    out: &mut Vec<u64>,
) {
    let Some(&k) = order.get(i) else {
        out.push(chosen);
        return;
    };
    let x = ms[k];
    // Leave x after the new write.
    if !required(x) {
        down_sets(ms, order, i + 1, reach, forbidden, required, chosen, out);
    }
    // Put x before it: every morally strong write that precedes x must be before too.
    let preds_in = order[..i]
        .iter()
        .filter(|&&j| reach.contains(ms[j], x))
        .all(|&j| chosen >> j & 1 == 1);
    if preds_in && !forbidden(x) {
        down_sets(
            ms,
            order,
            i + 1,
            reach,
            forbidden,
            required,
            chosen | 1 << k,
            out,
        );
    }
}
