//! Where a new write may go in coherence order (8.9.6): its positions among
//! the morally strong writes of its location, without the ones an axiom
//! rules out at once (Coherence against causality, 8.10.1; RMW atomicity,
//! 8.10.3; SC per location, 8.10.5). Asked by an explorer through
//! [`super::Model::coherence_positions`]; each rule here is a case of an
//! axiom that the full check ([`super::check`]) would find violated, so
//! leaving the positions out changes no count.

use super::morally_strong;
use crate::event::EventId;
use crate::execution::Execution;
use crate::model::fast;
use crate::relation::BitMatrix;
use ptxmc_frontend::ir::{Proxy, ThreadId};
use smallvec::SmallVec;

/// A few writes, as a new write's rivals in coherence (8.9.6): inline, so
/// that a write node of a search allocates nothing for them.
pub(crate) type Writes = SmallVec<[EventId; 8]>;

/// The coherence positions a new write may take: each as the set of the
/// writes of its rivals ([`super::Model::rivals`], bit `k`: `rivals[k]`)
/// that come before it.
pub(crate) struct Positions {
    /// The positions, in the order the explorer visits them.
    pub(crate) list: SmallVec<[u64; 8]>,
    /// The transitive closure of the coherence edges chosen before the
    /// write was added.
    reach: Reach,
}

impl Positions {
    /// The positions of the write `id`, the last event of `g`, among its
    /// rivals `ms` (at most 63). `forced`: writes (a bit per event) that
    /// precede it in causality order, so come before it in coherence
    /// (8.10.1).
    pub(crate) fn of(g: &Execution, id: EventId, ms: &[EventId], forced: u64) -> Self {
        if ms.is_empty() {
            // One position, before no rival, and no RMW guard (each names a
            // rival): the closure is not needed (a private write's case).
            return Self {
                list: smallvec::smallvec![0],
                reach: Reach::Empty,
            };
        }
        let loc = g.events()[id.index()]
            .loc()
            .expect("a write has a location");
        let reach = Reach::of(g.co(), &super::coherence::writes_at(g, loc.phys));
        let mut list = coherence_positions(g, &reach, ms, rmw_source(g, id), forced);
        // RMW atomicity (8.10.3) for the RMWs already in the graph: the new
        // write, morally strong with both halves of one, cannot come after
        // the write that RMW reads from and before its write half.
        let guards = rmw_guards(g, id, ms, &reach);
        list.retain(|before| {
            let before = *before;
            guards.iter().all(|&(first, source, half)| {
                !(first || before & source != 0) || before >> half & 1 == 1
            })
        });
        Self { list, reach }
    }

    /// For the read `r` waiting for a write, when it is the read half of an
    /// RMW whose write half `W'` is in the graph and among the rivals `ms` of
    /// the new write `id`, `id` being morally strong with `r`: if `id` gives
    /// `r` its value, `W'` comes right after `id` among the writes morally
    /// strong with the RMW (else `W' -co-> W -rf-> R -po-> W'` breaks
    /// 8.10.5, or a write lies between `id` and `W'`, which 8.10.3 forbids).
    /// Returns `W'`'s index in `ms`, and the writes of `ms` that must then
    /// come before `id` in coherence (those before `W'` and morally strong
    /// with both halves of the RMW, 8.10.3).
    pub(crate) fn rmw_half(
        &self,
        g: &Execution,
        id: EventId,
        r: EventId,
        ms: &[EventId],
    ) -> Option<(usize, u64)> {
        let e = g.event(r);
        if !e.is_rmw() || !morally_strong(g, id, r) {
            return None;
        }
        let list = g.threads().get(e.thread?.index())?;
        let pos = list.iter().position(|&x| x == r)?;
        let half = *list.get(pos + 1)?;
        let he = g.event(half);
        if !(he.is_write() && he.is_rmw()) {
            return None;
        }
        let k = ms.iter().position(|&x| x == half)?;
        let need = ms.iter().enumerate().fold(0u64, |m, (j, &x)| {
            let before = x != half
                && self.reach.contains(x, half)
                && morally_strong(g, x, r)
                && morally_strong(g, x, half);
            m | u64::from(before) << j
        });
        Some((k, need))
    }
}

/// When `id`, the last event of `g`, is the write half of an RMW (8.9.1),
/// the write its read half reads from, and that read.
fn rmw_source(g: &Execution, id: EventId) -> Option<(EventId, EventId)> {
    let t = g.event(id).thread?;
    match g.threads()[t.index()].iter().rev().nth(1) {
        Some(&r) if g.event(id).is_rmw() && g.event(r).is_rmw() => g
            .event(r)
            .is_read()
            .then(|| g.rf()[r.index()].map(|src| (src, r)))
            .flatten(),
        _ => None,
    }
}

/// The rivals of the new write `id` of thread `t` (its last event) that
/// precede it whatever its position, taken out of `ms` once there are more
/// than 63 of them (positions are bit masks) or more events than `forced`
/// is found for ([`fast::MAX_EVENTS`]): the thread's own earlier writes to
/// the location through the same address and the generic proxy precede it
/// in causality order (program order, 8.9.5), so in coherence (8.10.1).
/// Below both bounds nothing is taken out. `unordered_thread`: the thread
/// has asynchronous operations (8.9.1.1), whose events are not in program
/// order (then nothing is taken out either).
pub(crate) fn own_earlier_writes(
    g: &Execution,
    t: usize,
    id: EventId,
    ms: &mut Writes,
    unordered_thread: bool,
) -> Writes {
    let ev = g.event(id);
    let Some(loc) = ev.loc() else {
        return Writes::new();
    };
    if !((ms.len() > 63 || g.len() > fast::MAX_EVENTS)
        && !unordered_thread
        && ev.proxy == Proxy::Generic)
    {
        return Writes::new();
    }
    let own_before = |m: EventId| {
        let e = g.event(m);
        e.thread == Some(ThreadId::new(t))
            && e.proxy == Proxy::Generic
            && e.loc()
                .is_some_and(|l| l.vaddr == loc.vaddr && l.phys == loc.phys)
    };
    let before_all = ms.iter().copied().filter(|&m| own_before(m)).collect();
    ms.retain(|m| !own_before(*m));
    before_all
}

/// The RMWs of `exec` whose write half is in `ms` (the writes morally strong
/// with the new write `id`, the last event) and whose read half reads from
/// a write and is morally strong with `id`: each as whether the source is
/// an initial write (which precedes every write in coherence), the writes of
/// `ms` (bits) that, placed before `id`, put the source before it (the
/// source and the writes it reaches in coherence), and the index of the
/// write half in `ms` (8.10.3).
fn rmw_guards(
    exec: &Execution,
    id: EventId,
    ms: &[EventId],
    reach: &Reach,
) -> SmallVec<[(bool, u64, usize); 4]> {
    let mut out = SmallVec::new();
    for list in exec.threads() {
        for pair in list.windows(2) {
            let (r, h) = (pair[0], pair[1]);
            let (re, he) = (exec.event(r), exec.event(h));
            if !(re.is_read() && re.is_rmw() && he.is_write() && he.is_rmw()) {
                continue;
            }
            let (Some(src), Some(k)) = (exec.rf()[r.index()], ms.iter().position(|&x| x == h))
            else {
                continue;
            };
            if !morally_strong(exec, id, r) {
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
/// event while there are at most 64 of them, over the location's writes
/// alone beyond ([`super::coherence::ClosureAmong`]).
enum Reach {
    Rows(Box<fast::Rows>),
    Among(Box<super::coherence::ClosureAmong>),
    /// No pair (no query is made).
    Empty,
}

impl Reach {
    /// Among the writes of `among` (those of one location,
    /// [`super::coherence::writes_at`]), which the queries are about.
    pub(super) fn of(co: &BitMatrix, among: &[u64]) -> Self {
        if co.len() > fast::MAX_EVENTS {
            return Self::Among(Box::new(super::coherence::ClosureAmong::of(co, among)));
        }
        let mut rows: Box<fast::Rows> = Box::new([0; fast::MAX_EVENTS]);
        let among = among.first().copied().unwrap_or(0);
        let mut m = among;
        while m != 0 {
            let a = m.trailing_zeros() as usize;
            m &= m - 1;
            rows[a] = co.row_word(EventId::new(a), 0);
        }
        super::coherence::close_word_rows_among(&mut rows[..], among);
        Self::Rows(rows)
    }

    /// Whether `a` reaches `b`.
    fn contains(&self, a: EventId, b: EventId) -> bool {
        match self {
            Self::Rows(rows) => {
                b.index() < fast::MAX_EVENTS
                    && rows.get(a.index()).is_some_and(|r| r >> b.index() & 1 == 1)
            }
            Self::Among(m) => m.contains(a, b),
            Self::Empty => false,
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
fn coherence_positions(
    exec: &Execution,
    reach: &Reach,
    ms: &[EventId],
    rmw_source: Option<(EventId, EventId)>,
    forced: u64,
) -> SmallVec<[u64; 8]> {
    // Topological order of `ms` under `reach`: fewer ancestors first.
    let mut order: SmallVec<[usize; 16]> = (0..ms.len()).collect();
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
        Some((src, r)) if ms.contains(&src) && morally_strong(exec, src, r) => Some(src),
        _ => None,
    };
    let required = |x: EventId| {
        src_first.is_some_and(|src| x == src || reach.contains(x, src))
            || (x.index() < 64 && forced >> x.index() & 1 == 1)
    };
    let mut out = SmallVec::new();
    down_sets(ms, &order, 0, reach, &forbidden, &required, 0, &mut out);
    out
}

/// The down-closed sets of [`coherence_positions`] that decide `order[i..]`,
/// given the choices `chosen` for `order[..i]`.
#[allow(clippy::too_many_arguments)]
fn down_sets(
    ms: &[EventId],
    order: &[usize],
    i: usize,
    reach: &Reach,
    forbidden: &dyn Fn(EventId) -> bool,
    required: &dyn Fn(EventId) -> bool,
    chosen: u64,
    out: &mut SmallVec<[u64; 8]>,
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
