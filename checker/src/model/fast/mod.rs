//! A fast decision procedure for [`super::check`] on executions of at most
//! [`MAX_WIDE_EVENTS`] events: every relation of 8.9 as one row of
//! `ceil(n / 64)` words per event (rounded up to a power of two: `W` = 1, 2,
//! 4, ..., 32 words), computed with word operations and no allocation once
//! the rows have grown, and the axioms of 8.10 checked on those rows.
//!
//! The code is generic over the width `W` ([`set::Set`]); [`Statics`] and
//! [`Derived`] hold the rows at the width the events need and dispatch each
//! operation to the code of that width, so that the cost of an operation
//! grows with the graph a word at a time, and one-word rows (at most 64
//! events) compile to the `u64` operations. The width grows as events are
//! pushed (rows copied into the wider sets) and stays when events are
//! dropped again, until the statics are rebuilt for another execution.
//!
//! It computes exactly the relations of the modules next to it (one per
//! concept of chapter 8; their doc comments cite the spec) and decides the
//! same axioms; it does not build witnesses. [`super::check`] uses it first
//! and falls back to the full computation when the execution is inconsistent
//! (to build the witness) or when the fast path cannot decide (a cyclic
//! `po-loc ∪ (ms ∩ com)`, which needs the clique analysis of 8.10.5). In
//! debug builds every fast answer is compared with the full computation.
//!
//! The relations split in two:
//!
//! - [`Statics`]: what depends only on the events (program order, RMW pairs,
//!   morally strong, dependencies, patterns, proxy conversions, locations).
//!   It is built event by event ([`Statics::push`]), so an explorer that adds
//!   events at the end of their thread can keep one up to date and drop the
//!   last events again ([`Statics::truncate`]).
//! - [`Derived`]: what depends on reads-from, coherence, the Fence-SC order
//!   and barrier synchronization, recomputed by [`decide`], or extended by
//!   [`add_read`] when the execution only gained a read at its end.
//!
//! Each thread keeps the statics of the last execution checked
//! ([`with_statics`]): explorers check many candidates with the same events
//! (the reference enumerator) and an explorer can hand over the statics, or
//! the relations of an execution it already found consistent ([`offer`]), so
//! that the check of the shared completion step does not redo them. What is
//! reused is always validated against the execution at hand (same events up
//! to their values, same threads; for relations also the same reads-from,
//! coherence edges, Fence-SC order and barrier synchronization).

mod cache;
mod column;
mod decide;
mod fence;
mod served;
mod set;
mod statics;
#[cfg(test)]
pub(super) mod tests;

pub(crate) use cache::{offer, offer_statics, with_statics, with_statics_mut};

use crate::event::EventId;
use crate::execution::Execution;
use crate::model::Relations;
use crate::relation::BitMatrix;
use decide::{add_read_w, add_write_w, decide_w, decide_with_order_w, preceding_w, DerivedW};
use ptxmc_frontend::ir::PhysId;
use set::Set;
use smallvec::SmallVec;
use statics::StaticsW;

/// The most events of one-word rows ([`Rows`], the explorer's `u64` masks).
pub(crate) const MAX_EVENTS: usize = 64;

/// The most events the fast path handles (rows of 32 words).
pub(crate) const MAX_WIDE_EVENTS: usize = 2048;

/// One-word rows: bit `j` of row `i` is the pair `i -> j`.
pub(crate) type Rows = [u64; MAX_EVENTS];

/// A set of events handed to the explorer: the words of a row (bit `j % 64`
/// of word `j / 64` is event `j`), inline up to 256 events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mask(SmallVec<[u64; 4]>);

impl Mask {
    fn of<const W: usize>(s: Set<W>) -> Self {
        Self(SmallVec::from_slice(&s.0))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The elements, smallest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    64 * k + b
                })
            })
        })
    }
}

/// The level of `W` words (`W = 1 << level`) whose sets hold `n` events.
fn level_for(n: usize) -> usize {
    n.div_ceil(64).max(1).next_power_of_two().trailing_zeros() as usize
}

/// Runs `$body` with `$v` bound to the value inside `$e`, a `$ty::Wk(..)`
/// of each width.
macro_rules! each_width {
    ($ty:ident, $e:expr, $v:ident => $body:expr) => {
        match $e {
            $ty::W1($v) => $body,
            $ty::W2($v) => $body,
            $ty::W4($v) => $body,
            $ty::W8($v) => $body,
            $ty::W16($v) => $body,
            $ty::W32($v) => $body,
        }
    };
}

/// Statics at each width.
#[derive(Clone)]
enum AnyStatics {
    W1(Box<StaticsW<1>>),
    W2(Box<StaticsW<2>>),
    W4(Box<StaticsW<4>>),
    W8(Box<StaticsW<8>>),
    W16(Box<StaticsW<16>>),
    W32(Box<StaticsW<32>>),
}

impl AnyStatics {
    /// Empty statics at `level`.
    fn at(level: usize) -> Self {
        match level {
            0 => Self::W1(Box::new(StaticsW::empty())),
            1 => Self::W2(Box::new(StaticsW::empty())),
            2 => Self::W4(Box::new(StaticsW::empty())),
            3 => Self::W8(Box::new(StaticsW::empty())),
            4 => Self::W16(Box::new(StaticsW::empty())),
            _ => Self::W32(Box::new(StaticsW::empty())),
        }
    }

    fn level(&self) -> usize {
        match self {
            Self::W1(_) => 0,
            Self::W2(_) => 1,
            Self::W4(_) => 2,
            Self::W8(_) => 3,
            Self::W16(_) => 4,
            Self::W32(_) => 5,
        }
    }

    /// A copy of `self` at `level` (which must hold its events).
    fn at_level(&self, level: usize) -> Self {
        let mut out = Self::at(level);
        each_width!(Self, &mut out, o => each_width!(Self, self, s => o.copy_from(&**s)));
        out
    }
}

/// What depends only on the events of an execution: [`statics::StaticsW`]
/// at the width its events need.
#[derive(Clone)]
pub(crate) struct Statics {
    s: AnyStatics,
}

impl Statics {
    /// Nothing pushed yet.
    pub(crate) fn empty() -> Self {
        Self {
            s: AnyStatics::at(0),
        }
    }

    /// The statics of every event of `exec`, or `None` when the fast path
    /// does not apply ([`Self::rebuild`]).
    pub(crate) fn new(exec: &Execution) -> Option<Self> {
        let mut s = Self::empty();
        s.rebuild(exec).then_some(s)
    }

    /// Makes these the statics of every event of `exec`. Returns false when
    /// the fast path does not apply (too many events, a thread whose events
    /// are not in increasing id order, a dependency on a later event).
    pub(crate) fn rebuild(&mut self, exec: &Execution) -> bool {
        self.truncate(0);
        let n = exec.len();
        if n > MAX_WIDE_EVENTS {
            return false;
        }
        let level = level_for(n);
        if self.s.level() != level {
            self.s = AnyStatics::at(level);
        }
        each_width!(AnyStatics, &mut self.s, s => s.threads.resize(exec.threads().len(), Vec::new()));
        // Each event's program-order predecessors.
        let words = 1 << level;
        let mut preds = vec![0u64; n * words];
        for th in exec.threads() {
            let mut before = vec![0u64; words];
            let mut last = None;
            for &e in th {
                let i = e.index();
                if i >= n || last.is_some_and(|l| l >= i) {
                    return false;
                }
                last = Some(i);
                preds[i * words..(i + 1) * words].copy_from_slice(&before);
                before[i / 64] |= 1u64 << (i % 64);
            }
        }
        for i in 0..n {
            let p = &preds[i * words..(i + 1) * words];
            let ok = each_width!(AnyStatics, &mut self.s, s => s.push(exec, EventId::new(i), p));
            if !ok {
                self.truncate(0);
                return false;
            }
        }
        // `push` records thread membership as events come; order it as `exec`.
        debug_assert!(each_width!(AnyStatics, &self.s, s => s.threads == exec.threads()));
        true
    }

    /// Whether these are the statics of `exec`'s events: same events (up to
    /// the values they read or write), same threads, same placements.
    pub(crate) fn matches(&self, exec: &Execution) -> bool {
        each_width!(AnyStatics, &self.s, s => {
            s.n == exec.len()
                && s.threads == exec.threads()
                && (0..s.n).all(|i| s.attrs[i] == statics::Attr::of(exec, EventId::new(i)))
        })
    }

    /// The number of events pushed.
    pub(crate) fn len(&self) -> usize {
        each_width!(AnyStatics, &self.s, s => s.n)
    }

    /// The width level of the rows.
    fn level(&self) -> usize {
        self.s.level()
    }

    /// Adds event `e` (which must be event number `self.len()` of `exec`,
    /// and the last of its thread so far) whose program-order predecessors
    /// are the events of `preds` (words of a set; bits past `e` ignored),
    /// widening the rows when `e` does not fit. Returns false when the fast
    /// path cannot represent it (the statics are then unchanged).
    pub(crate) fn push(&mut self, exec: &Execution, e: EventId, preds: &[u64]) -> bool {
        let i = e.index();
        if i != self.len() || i >= MAX_WIDE_EVENTS {
            return false;
        }
        let level = level_for(i + 1);
        if level > self.level() {
            self.s = self.s.at_level(level);
        }
        each_width!(AnyStatics, &mut self.s, s => s.push(exec, e, preds))
    }

    /// Drops every event from number `n` on (the rows keep their width).
    pub(crate) fn truncate(&mut self, n: usize) {
        each_width!(AnyStatics, &mut self.s, s => s.truncate(n))
    }

    /// Copies `other` into `self` (only the rows in use).
    pub(crate) fn copy_from(&mut self, other: &Statics) {
        if self.level() != other.level() {
            self.s = AnyStatics::at(other.level());
        }
        each_width!(AnyStatics, &mut self.s, s => {
            each_width!(AnyStatics, &other.s, o => s.copy_from(&**o))
        })
    }

    /// The writes (initial write included) to the physical location of
    /// event `e` (empty when `e` is not a memory event), as words.
    fn writes_to_loc_of_words(&self, e: usize) -> SmallVec<[u64; 4]> {
        each_width!(AnyStatics, &self.s, s => SmallVec::from_slice(&s.writes_to_loc_of(e).0))
    }

    /// The writes (initial write included) to the physical location
    /// `phys`.
    fn writes_to_phys_words(&self, phys: PhysId) -> Mask {
        each_width!(AnyStatics, &self.s, s => Mask::of(s.writes_to_phys(phys)))
    }

    /// The writes to the physical location of event `e` morally strong
    /// with it (8.7), initial writes included, `e` excluded.
    pub(crate) fn ms_writes_to_loc_of(&self, e: usize) -> Mask {
        each_width!(AnyStatics, &self.s, s => {
            if e < s.n {
                let mut m = s.ms[e] & s.writes_to_loc_of(e);
                m &= !Set::bit(e);
                Mask::of(m)
            } else {
                Mask::default()
            }
        })
    }
}

/// Relations at each width.
#[derive(Clone)]
enum AnyDerived {
    W1(Box<DerivedW<1>>),
    W2(Box<DerivedW<2>>),
    W4(Box<DerivedW<4>>),
    W8(Box<DerivedW<8>>),
    W16(Box<DerivedW<16>>),
    W32(Box<DerivedW<32>>),
}

impl AnyDerived {
    /// The relations at width `W`, if they are at that width.
    fn at_width<const W: usize>(&self) -> Option<&DerivedW<W>> {
        each_width!(AnyDerived, self, d => (&**d as &dyn std::any::Any).downcast_ref())
    }

    fn at(level: usize) -> Self {
        match level {
            0 => Self::W1(Box::new(DerivedW::new())),
            1 => Self::W2(Box::new(DerivedW::new())),
            2 => Self::W4(Box::new(DerivedW::new())),
            3 => Self::W8(Box::new(DerivedW::new())),
            4 => Self::W16(Box::new(DerivedW::new())),
            _ => Self::W32(Box::new(DerivedW::new())),
        }
    }
}

/// The relations that depend on reads-from, coherence, Fence-SC order and
/// barrier synchronization ([`decide::DerivedW`] at the width of the
/// statics they were computed with), and scratch rows. Only the first `n`
/// rows mean anything: [`decide`] writes each row it reads, so one
/// `Derived` is reused from check to check without clearing it.
#[derive(Clone)]
pub(crate) struct Derived {
    d: AnyDerived,
    /// The width level of `d`.
    // invariant: level == the level of the variant of `d`.
    level: usize,
}

impl Derived {
    pub(crate) fn new() -> Self {
        Self {
            d: AnyDerived::at(0),
            level: 0,
        }
    }

    /// Puts the relations at `level`, keeping the first `n` rows.
    #[inline(always)]
    fn set_level(&mut self, level: usize, n: usize) {
        if self.level != level {
            self.widen(level, n);
        }
    }

    /// [`Self::set_level`] when the level changes.
    #[cold]
    #[inline(never)]
    fn widen(&mut self, level: usize, n: usize) {
        let mut out = AnyDerived::at(level);
        each_width!(AnyDerived, &mut out, o => {
            each_width!(AnyDerived, &self.d, d => o.copy_from(&**d, n.min(d.rf.len())))
        });
        self.d = out;
        self.level = level;
    }

    /// Copies the first `n` rows of the relations of `other`.
    pub(crate) fn copy_from(&mut self, other: &Derived, n: usize) {
        if self.level != other.level {
            self.d = AnyDerived::at(other.level);
            self.level = other.level;
        }
        match (&mut self.d, &other.d) {
            (AnyDerived::W1(d), AnyDerived::W1(o)) => d.copy_same(o, n),
            (AnyDerived::W2(d), AnyDerived::W2(o)) => d.copy_same(o, n),
            (AnyDerived::W4(d), AnyDerived::W4(o)) => d.copy_same(o, n),
            (AnyDerived::W8(d), AnyDerived::W8(o)) => d.copy_same(o, n),
            (AnyDerived::W16(d), AnyDerived::W16(o)) => d.copy_same(o, n),
            (AnyDerived::W32(d), AnyDerived::W32(o)) => d.copy_same(o, n),
            _ => unreachable!("same level"),
        }
    }

    /// Whether `x` precedes `y` in base causality order (8.9.5).
    pub(crate) fn base_has(&self, x: usize, y: usize) -> bool {
        each_width!(AnyDerived, &self.d, d => d.base.get(x).is_some_and(|r| y < 64 * r.0.len() && r.has(y)))
    }

    /// The events `x` precedes in base causality order (8.9.5).
    pub(crate) fn base_row(&self, x: usize) -> &[u64] {
        each_width!(AnyDerived, &self.d, d => d.base.get(x).map_or(&[][..], |r| &r.0[..]))
    }

    /// The writes coherence-after the write `x` (8.9.6).
    #[inline]
    pub(crate) fn co_row(&self, x: usize) -> &[u64] {
        each_width!(AnyDerived, &self.d, d => d.co.get(x).map_or(&[][..], |r| &r.0[..]))
    }
}

/// Runs `$same` with `$s` and `$d` bound to the statics and relations when
/// they have the same width, `$other` otherwise.
macro_rules! same_width {
    ($st:expr, $dd:expr, $s:ident, $d:ident => $same:expr, _ => $other:expr) => {
        match (&$st.s, &$dd.d) {
            (AnyStatics::W1($s), AnyDerived::W1($d)) => $same,
            (AnyStatics::W2($s), AnyDerived::W2($d)) => $same,
            (AnyStatics::W4($s), AnyDerived::W4($d)) => $same,
            (AnyStatics::W8($s), AnyDerived::W8($d)) => $same,
            (AnyStatics::W16($s), AnyDerived::W16($d)) => $same,
            (AnyStatics::W32($s), AnyDerived::W32($d)) => $same,
            _ => $other,
        }
    };
}

/// Whether, in the relations `d`, some write to the location of the write
/// `w` that `among` holds is coherence-after `w` (8.9.6).
pub(crate) fn co_after_among(st: &Statics, d: &Derived, w: usize, among: &Mask) -> bool {
    same_width!(st, d, s, d => {
        let Some(co) = d.co.get(w) else { return false };
        let among = Set::from_words(&among.0);
        s.writes_to_loc_of(w).meets(&(among & *co))
    }, _ => {
        let co = d.co_row(w);
        let writes = Mask(st.writes_to_loc_of_words(w));
        writes.0.iter().zip(&among.0).zip(co).any(|((a, b), c)| a & b & c != 0)
    })
}

/// The events of `st` that are writes (initial writes included) to the
/// physical location `phys`.
pub(crate) fn writes_to_phys(st: &Statics, phys: PhysId) -> Mask {
    st.writes_to_phys_words(phys)
}

/// The coherence-last write to the physical location of event `p` in the
/// relations `d` (8.9.6): `Ok(None)` when there is no write, `Err(())` when
/// several writes are maximal.
pub(crate) fn co_last(st: &Statics, d: &Derived, p: usize) -> Result<Option<usize>, ()> {
    let maximal = |writes: &[u64], after: &dyn Fn(usize) -> bool| {
        let mut last = None;
        for x in Mask(SmallVec::from_slice(writes)).iter() {
            if !after(x) {
                if last.is_some() {
                    return Err(());
                }
                last = Some(x);
            }
        }
        Ok(last)
    };
    same_width!(st, d, s, d => {
        let writes = s.writes_to_loc_of(p);
        let mut last = None;
        for x in writes.iter() {
            if !d.co.get(x).is_some_and(|r| r.meets(&writes)) {
                if last.is_some() {
                    return Err(());
                }
                last = Some(x);
            }
        }
        Ok(last)
    }, _ => {
        let writes = st.writes_to_loc_of_words(p);
        maximal(&writes, &|x| {
            d.co_row(x).iter().zip(writes.iter()).any(|(a, b)| a & b != 0)
        })
    })
}

/// Whether putting the `fence.sc` `f` next in a Fence-SC order, before
/// every fence of `rest` but `f`, certainly makes inconsistent the
/// execution whose relations are in `d` (as [`decide`] found them
/// consistent with the order before `f`, [`Execution::fence_sc_prefix`]):
/// some write `W` precedes `f` in base causality, and some read `R` that a
/// fence `G` of `rest`, morally strong with `f`, precedes in base causality
/// from-reads `W` in a direct case of 8.9.5 (same address, generic proxy or
/// one CTA). Then `W -> f -> G -> R` in base causality (8.9.4 item 1,
/// 8.9.5), so `W` precedes `R` in causality, and `R` from-reads a write
/// that precedes it, which the Causality axiom forbids (8.10.6); ordering
/// more fences only adds edges (every relation used is monotone in the
/// Fence-SC pairs). False when it cannot tell (statics and relations of
/// different widths).
pub(crate) fn fence_sc_next_fails(st: &Statics, d: &Derived, f: EventId, rest: &[EventId]) -> bool {
    let f = f.index();
    same_width!(st, d, s, d => {
        let n = s.n;
        if f >= n || d.base.len() < n || d.fr.len() < n {
            return false;
        }
        let mut before = Set::EMPTY;
        for w in s.writes.iter() {
            if w < n && d.base[w].has(f) {
                before.insert(w);
            }
        }
        if before.is_empty() {
            return false;
        }
        let mut after = Set::EMPTY;
        for g in rest {
            let g = g.index();
            if g != f && g < n && s.ms[f].has(g) {
                after |= d.base[g];
            }
        }
        (after & s.reads).any(|r| r < n && d.fr[r].meets(&(before & s.direct[r])))
    }, _ => false)
}

/// Whether no Fence-SC order of `fences` can make `exec` consistent, read
/// off `d`, its relations with no Fence-SC pair ([`fence::no_fence_sc_order_w`]);
/// false when it cannot tell (statics and relations of different widths).
pub(crate) fn no_fence_sc_order(st: &Statics, d: &Derived, fences: &[EventId]) -> bool {
    same_width!(st, d, s, d => fence::no_fence_sc_order_w(s, d, fences), _ => false)
}

/// A total order of `fences` likely to be consistent, read off `d`, the
/// relations with no Fence-SC pair ([`fence::preferred_order_w`]); `None`
/// when they are not at hand at the statics' width.
pub(crate) fn preferred_fence_sc_order(
    st: &Statics,
    d: &Derived,
    fences: &[EventId],
) -> Option<Vec<EventId>> {
    same_width!(st, d, s, d => fence::preferred_order_w(s, d, fences), _ => None)
}

impl Default for Derived {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs `$body` with `$s` and `$d` bound to the statics and relations of
/// one width (the relations first put at the width of the statics, keeping
/// `$n` rows).
macro_rules! with_pair {
    ($st:expr, $dd:expr, $n:expr, $s:ident, $d:ident => $body:expr) => {{
        let st: &Statics = $st;
        let dd: &mut Derived = $dd;
        dd.set_level(st.level(), $n);
        match (&st.s, &mut dd.d) {
            (AnyStatics::W1($s), AnyDerived::W1($d)) => $body,
            (AnyStatics::W2($s), AnyDerived::W2($d)) => $body,
            (AnyStatics::W4($s), AnyDerived::W4($d)) => $body,
            (AnyStatics::W8($s), AnyDerived::W8($d)) => $body,
            (AnyStatics::W16($s), AnyDerived::W16($d)) => $body,
            (AnyStatics::W32($s), AnyDerived::W32($d)) => $body,
            _ => unreachable!("set_level puts the relations at the width of the statics"),
        }
    }};
}

/// What [`decide`] found.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Decision {
    /// Every axiom holds; the relations are in the [`Derived`].
    Consistent,
    /// Some axiom fails.
    Inconsistent,
    /// The fast path cannot tell (the full check must decide).
    Unknown,
}

/// Decides the axioms of 8.10 for `exec`, whose events are those of `st`,
/// leaving the relations in `d` ([`decide::decide_w`]).
pub(crate) fn decide(exec: &Execution, st: &Statics, d: &mut Derived) -> Decision {
    with_pair!(st, d, 0, s, d => decide_w(exec, s, d))
}

/// [`decide`] for `exec` under its Fence-SC order, from `no_pair`, the
/// relations of `exec` with no Fence-SC pair found consistent on `st`
/// ([`decide::decide_with_order_w`]); `Unknown` when `no_pair` is at
/// another width.
pub(crate) fn decide_with_order(
    exec: &Execution,
    st: &Statics,
    no_pair: &Derived,
    d: &mut Derived,
) -> Decision {
    with_pair!(st, d, 0, s, d => match no_pair.d.at_width() {
        Some(o) => decide_with_order_w(exec, s, o, d),
        None => Decision::Unknown,
    })
}

/// Extends `d`, the relations of a consistent execution, by the read `r`,
/// the last event of `exec` ([`decide::add_read_w`]).
pub(crate) fn add_read(exec: &Execution, st: &Statics, d: &mut Derived, r: usize) -> Decision {
    with_pair!(st, d, r, s, d => add_read_w(exec, s, d, r))
}

/// Extends `d`, the relations of a consistent execution, by the write `w`,
/// the last event of `exec`, read by nobody ([`decide::add_write_w`]).
pub(crate) fn add_write(exec: &Execution, st: &Statics, d: &mut Derived, w: usize) -> Decision {
    with_pair!(st, d, w, s, d => add_write_w(exec, s, d, w))
}

/// Extends `d`, the relations of a consistent execution under the Fence-SC
/// order `order`, by the fence `f`, the last event of `exec`, put last in
/// the order when `sc` ([`fence::add_fence_w`]).
pub(crate) fn add_fence(
    exec: &Execution,
    st: &Statics,
    d: &mut Derived,
    f: usize,
    sc: bool,
    order: &[EventId],
) -> Decision {
    with_pair!(st, d, f, s, d => fence::add_fence_w(exec, s, d, f, sc, order))
}

/// Extends `d`, the relations of a consistent execution in which the read
/// `r`, the last event of its thread, reads nothing, by `r` reading from
/// `exec.rf[r]` ([`served::add_served_w`]).
pub(crate) fn add_served(exec: &Execution, st: &Statics, d: &mut Derived, r: usize) -> Decision {
    with_pair!(st, d, st.len(), s, d => served::add_served_w(exec, s, d, r))
}

/// The events that precede event `r` in causality order (8.9.5), in the
/// relations `d` (as [`add_read`] leaves them for the read `r`).
pub(crate) fn preceding(d: &Derived, r: usize) -> Mask {
    each_width!(AnyDerived, &d.d, d => Mask::of(preceding_w(d, r)))
}

/// The first `n` rows as a [`BitMatrix`].
fn matrix<const W: usize>(n: usize, rows: &[Set<W>]) -> BitMatrix {
    BitMatrix::from_multiword_rows(n, |x| &rows[x].0[..])
}

/// The [`Relations`] of a consistent execution of `n` events decided by
/// the fast path.
pub(crate) fn relations(n: usize, st: &Statics, d: &Derived) -> Relations {
    let ms = |x: usize| -> &[u64] { each_width!(AnyStatics, &st.s, s => &s.ms[x].0[..]) };
    each_width!(AnyDerived, &d.d, d => {
        let m = |rows| matrix(n, rows);
        Relations {
            co: m(&d.co),
            rf: m(&d.rf),
            fr: m(&d.fr),
            morally_strong: BitMatrix::from_multiword_rows(n, ms),
            observation: m(&d.obs),
            sync: m(&d.sync),
            base_causality: m(&d.base),
            causality: m(&d.causality),
        }
    })
}

// After `each_width!`, which it uses.
#[cfg(test)]
mod snapshot;
