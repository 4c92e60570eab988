//! Coherence order (8.9.6), with axiom Coherence (8.10.1) as its forcing rule.

use crate::event::EventId;
use crate::execution::Execution;
use crate::relation::BitMatrix;
use ptxmc_frontend::ir::PhysId;
use smallvec::SmallVec;

/// Where an edge of the coherence generator comes from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum CoSource {
    /// The initial write W0 precedes every write of its location (8.2.6).
    Initial,
    /// The explorer's orientation of a pair (morally strong writes, 8.9.6).
    Chosen,
    /// W precedes an overlapping W' in causality order (8.10.1).
    Causality,
}

/// The least coherence order the model requires.
#[derive(Clone, Debug)]
pub(crate) struct Coherence {
    /// Coherence order: the transitive closure of `generator`.
    pub order: BitMatrix,
}

impl Coherence {
    /// The least coherence order (docs/model-notes.md): the transitive
    /// closure of the initial write before every write of its location, the
    /// explorer's edges `exec.co`, and every pair of overlapping writes W, W'
    /// with W before W' in causality order (8.10.1).
    ///
    /// `Err` carries a cycle of the generator: no coherence order satisfies
    /// axiom Coherence.
    pub fn new(exec: &Execution, causality: &BitMatrix) -> Result<Self, Vec<EventId>> {
        let n = exec.len();
        let mut generator = exec.co().clone();
        debug_assert_eq!(generator.len(), n);
        let writes: Vec<EventId> = exec.ids().filter(|&w| exec.event(w).is_write()).collect();
        // The other writes of each location, so that a graph of thousands
        // of locations costs its writes, not their square.
        let mut by_loc: std::collections::HashMap<_, Vec<EventId>> =
            std::collections::HashMap::new();
        for &w in &writes {
            let e = exec.event(w);
            if !e.is_init() {
                by_loc.entry(e.loc().map(|l| l.phys)).or_default().push(w);
            }
        }
        for (k, &i) in writes.iter().enumerate() {
            crate::interrupt::poll(k);
            let ei = exec.event(i);
            if !ei.is_init() {
                continue;
            }
            for &w in by_loc.get(&ei.loc().map(|l| l.phys)).into_iter().flatten() {
                generator.insert(i, w);
            }
        }
        for (k, &w) in writes.iter().enumerate() {
            crate::interrupt::poll(k);
            let phys = exec.event(w).loc().map(|l| l.phys);
            // A causality cycle through W alone (W before itself) is left to
            // the axioms about what closes the cycle (Fence-SC, Causality).
            for w2 in causality.successors(w).filter(|&w2| w2 != w) {
                let e2 = exec.event(w2);
                if e2.is_write() && e2.loc().map(|l| l.phys) == phys {
                    generator.insert(w, w2);
                }
            }
        }
        if let Some(cycle) = generator.find_cycle() {
            return Err(cycle);
        }
        let order = generator.transitive_closure();
        Ok(Self { order })
    }
}

/// Why `a -> b` is an edge of the coherence generator (the first reason, in
/// the order initial, chosen, causality).
pub(crate) fn co_source(exec: &Execution, a: EventId, b: EventId) -> CoSource {
    if exec.event(a).is_init() {
        CoSource::Initial
    } else if exec.co().contains(a, b) {
        CoSource::Chosen
    } else {
        CoSource::Causality
    }
}

/// The writes of `exec` to the physical location `phys`, initial write
/// included, as a set of events: `co.words()` words of bits (bit `j % 64`
/// of word `j / 64` is event `j`).
pub(crate) fn writes_at(exec: &Execution, phys: PhysId) -> SmallVec<[u64; 2]> {
    let mut out: SmallVec<[u64; 2]> = smallvec::smallvec![0; exec.co().words()];
    for (i, e) in exec.events().iter().enumerate() {
        if e.is_write() && e.loc().is_some_and(|l| l.phys == phys) {
            out[i / 64] |= 1u64 << (i % 64);
        }
    }
    out
}

/// Closes the one-word rows `rows` of coherence edges (bit `j` of row `i`:
/// `i -> j`) transitively among the events of `among` (a set of at most 64
/// events): afterwards row `a` of each `a` of `among` holds every event of
/// `among` that `a` reaches through events of `among`.
///
/// Coherence relates writes of one location only (8.9.6), so for the writes
/// of one location this is the transitive closure of every chosen edge,
/// restricted to them, at the cost of those writes alone (not of the graph).
pub(crate) fn close_word_rows_among(rows: &mut [u64], among: u64) {
    let mut ks = among;
    while ks != 0 {
        let k = ks.trailing_zeros() as usize;
        ks &= ks - 1;
        let rk = rows[k] & among;
        if rk == 0 {
            continue;
        }
        let mut is = among;
        while is != 0 {
            let i = is.trailing_zeros() as usize;
            is &= is - 1;
            if rows[i] >> k & 1 == 1 {
                rows[i] |= rk;
            }
        }
    }
}

/// The transitive closure of the coherence edges `co` among the events of
/// `among` (as [`writes_at`] gives them, the writes of one location): every
/// chosen edge relates writes of one location (8.9.6), so a path between
/// writes of a location never leaves them, and the pairs between events of
/// `among` are those of the closure of the whole of `co`.
///
/// Kept over the members alone (row `i` of member `i`, a bit per member), so
/// that it costs the location's writes, `|among|^2 / 64` words, and not the
/// graph: building it reads one row of `co` per member.
pub(crate) struct ClosureAmong {
    /// The members as words of a set of events (bit `j % 64` of word
    /// `j / 64`: event `j`).
    among: SmallVec<[u64; 4]>,
    /// `rank[k]`: the members in the words before word `k`.
    rank: SmallVec<[u32; 4]>,
    /// Words per row (over member indices).
    words: usize,
    // invariant: rows.len() == members * words; row `i` holds the members
    // that member `i` reaches.
    rows: SmallVec<[u64; 16]>,
}

impl ClosureAmong {
    /// The closure of `co` among `among` (words past `co`'s events ignored).
    pub(crate) fn of(co: &BitMatrix, among: &[u64]) -> Self {
        let n = co.len();
        let cut = co.words().min(among.len());
        let mut set: SmallVec<[u64; 4]> = SmallVec::from_slice(&among[..cut]);
        if let Some(last) = set.get_mut(n / 64) {
            *last &= (1u64 << (n % 64)) - 1;
            let k = n / 64 + 1;
            set.truncate(k);
        }
        let mut rank: SmallVec<[u32; 4]> = SmallVec::with_capacity(set.len());
        let mut m = 0u32;
        for &w in &set {
            rank.push(m);
            m += w.count_ones();
        }
        let members = m as usize;
        let words = members.div_ceil(64).max(1);
        let mut out = Self {
            among: set,
            rank,
            words,
            rows: smallvec::smallvec![0; members * words],
        };
        // Each member's row of `co`, among the members, by member index.
        let mut i = 0;
        for k in 0..out.among.len() {
            let mut bits = out.among[k];
            while bits != 0 {
                let a = 64 * k + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let row = co.row_words(EventId::new(a));
                debug_assert!(
                    row.iter().zip(among).all(|(r, m)| r & !m == 0),
                    "a coherence edge between two locations"
                );
                for (kw, &r) in row.iter().enumerate().take(out.among.len()) {
                    let mut hit = r & out.among[kw];
                    while hit != 0 {
                        let b = 64 * kw + hit.trailing_zeros() as usize;
                        hit &= hit - 1;
                        let j = out.index(b).expect("a member");
                        out.rows[i * words + j / 64] |= 1u64 << (j % 64);
                    }
                }
                i += 1;
            }
        }
        // Warshall over the members.
        for k in 0..members {
            let (kw, kb) = (k / 64, k % 64);
            if out.rows[k * words..(k + 1) * words].iter().all(|&w| w == 0) {
                continue;
            }
            for i in 0..members {
                if i != k && out.rows[i * words + kw] >> kb & 1 == 1 {
                    for j in 0..words {
                        let v = out.rows[k * words + j];
                        out.rows[i * words + j] |= v;
                    }
                }
            }
        }
        out
    }

    /// The member index of event `e`, if it is a member.
    #[inline]
    fn index(&self, e: usize) -> Option<usize> {
        let (k, b) = (e / 64, e % 64);
        let w = *self.among.get(k)?;
        (w >> b & 1 == 1)
            .then(|| self.rank[k] as usize + (w & ((1u64 << b) - 1)).count_ones() as usize)
    }

    /// Whether `a` reaches `b` (false when either is no member).
    #[inline(never)]
    pub(crate) fn contains(&self, a: EventId, b: EventId) -> bool {
        match (self.index(a.index()), self.index(b.index())) {
            (Some(i), Some(j)) => self.rows[i * self.words + j / 64] >> (j % 64) & 1 == 1,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::*;

    #[test]
    fn initial_writes_first_chosen_edges_and_causality_closed() {
        let mut b = ExecBuilder::new(2);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(1));
        let t2 = b.thread(cta(2));
        let w1 = b.st(t0, b.loc(0), 1, WEAK);
        let w2 = b.st(t1, b.loc(0), 2, WEAK);
        let w3 = b.st(t2, b.loc(0), 3, WEAK);
        let wy = b.st(t2, b.loc(1), 3, WEAK);
        let (i0, i1) = (b.init(0), b.init(1));
        b.co(w1, w2);
        let exec = b.build();
        let mut cause = BitMatrix::new(exec.len());
        cause.insert(w2, w3);
        cause.insert(w2, wy); // different location: no coherence edge
        let co = Coherence::new(&exec, &cause).unwrap();
        assert!(co.order.contains(i0, w1) && co.order.contains(i0, w3));
        assert!(!co.order.contains(i0, wy) && co.order.contains(i1, wy));
        assert!(
            co.order.contains(w1, w3),
            "transitive through the forced edge"
        );
        assert!(!co.order.contains(w2, wy));
        assert!(!co.order.contains(w3, w1));
        assert_eq!(co_source(&exec, i0, w1), CoSource::Initial);
        assert_eq!(co_source(&exec, w1, w2), CoSource::Chosen);
        assert_eq!(co_source(&exec, w2, w3), CoSource::Causality);
    }

    /// Among a set of events closed under the edges, the closure over the
    /// members has exactly the pairs of the closure of the whole relation.
    #[test]
    fn closure_among_members_is_the_closure_restricted_to_them() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..200 {
            let n: usize = [5, 63, 64, 65, 130, 200][round % 6];
            let words = n.div_ceil(64);
            let mut among = vec![0u64; words];
            for i in 0..n {
                if next() % 3 == 0 {
                    among[i / 64] |= 1 << (i % 64);
                }
            }
            let member = |i: usize| among[i / 64] >> (i % 64) & 1 == 1;
            let mut co = BitMatrix::new(n);
            for _ in 0..(next() % 80) {
                let (a, b) = (next() as usize % n, next() as usize % n);
                if member(a) && member(b) && a != b {
                    co.insert(EventId::new(a), EventId::new(b));
                }
            }
            let whole = co.transitive_closure();
            let c = ClosureAmong::of(&co, &among);
            for a in 0..n {
                for b in 0..n {
                    let (x, y) = (EventId::new(a), EventId::new(b));
                    let want = member(a) && member(b) && whole.contains(x, y);
                    assert_eq!(c.contains(x, y), want, "n {n}, {a} -> {b}");
                }
            }
        }
    }

    #[test]
    fn a_chosen_edge_against_causality_is_a_cycle() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let w1 = b.st(t0, b.loc(0), 1, RLX_GPU);
        let w2 = b.st(t0, b.loc(0), 2, RLX_GPU);
        b.co(w2, w1);
        let exec = b.build();
        let mut cause = BitMatrix::new(exec.len());
        cause.insert(w1, w2);
        let cycle = Coherence::new(&exec, &cause).unwrap_err();
        assert_eq!(cycle.len(), 2);
        assert!(cycle.contains(&w1) && cycle.contains(&w2));
    }
}
