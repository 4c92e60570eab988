//! Dense bit relations over events: the representation of every relation of the model.
//!
//! A [`BitMatrix`] of `n x n` bits stores row `i` as `words` consecutive `u64`s.
//! Set operations report whether anything changed (rustc_index style), which
//! drives fixed points cheaply.

use crate::event::EventId;

/// A square relation over `n` events.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BitMatrix {
    n: usize,
    words: usize,
    // invariant: bits.len() == n * words, and bits past column n in a row are zero.
    bits: Vec<u64>,
}

impl BitMatrix {
    /// The empty relation over `n` events.
    pub fn new(n: usize) -> Self {
        let words = n.div_ceil(64).max(1);
        Self {
            n,
            words,
            bits: vec![0; n * words],
        }
    }

    /// The relation over `rows.len()` events (at most 64) whose row `i` is
    /// the bit set `rows[i]` (bit `j`: the pair `i -> j`).
    pub fn from_word_rows(rows: &[u64]) -> Self {
        let n = rows.len();
        debug_assert!(n <= 64);
        let keep = if n >= 64 { !0 } else { (1u64 << n) - 1 };
        let mut m = Self::new(n);
        for (i, &r) in rows.iter().enumerate() {
            m.bits[i] = r & keep;
        }
        m
    }

    /// The relation over `n` events whose row `i` is the bit set
    /// `rows(i)`, given as words (bit `j` of word `k`: the pair
    /// `i -> 64 k + j`; words past the matrix's width are ignored).
    pub fn from_multiword_rows<'a>(n: usize, rows: impl Fn(usize) -> &'a [u64]) -> Self {
        let mut m = Self::new(n);
        let words = m.words;
        for i in 0..n {
            let r = rows(i);
            let k = r.len().min(words);
            m.bits[i * words..i * words + k].copy_from_slice(&r[..k]);
            // invariant: no bit past column n.
            if !n.is_multiple_of(64) && k == words {
                m.bits[i * words + words - 1] &= (1u64 << (n % 64)) - 1;
            }
        }
        m
    }

    /// The words of row `a` (columns `64 k .. 64 k + 63` in word `k`).
    #[inline]
    pub fn row_words(&self, a: EventId) -> &[u64] {
        self.row(a.index())
    }

    /// Words per row.
    #[inline]
    pub fn words(&self) -> usize {
        self.words
    }

    /// Word `w` of row `a` (columns `64 w .. 64 w + 63`).
    #[inline]
    pub fn row_word(&self, a: EventId, w: usize) -> u64 {
        self.bits[a.index() * self.words + w]
    }

    /// Makes the relation one over `n` events: pairs between the first
    /// `min(n, len)` events are kept, pairs involving others dropped.
    pub fn resize(&mut self, n: usize) {
        let words = n.div_ceil(64).max(1);
        if words == self.words {
            self.bits.resize(n * words, 0);
            if n < self.n {
                // Clear the columns past n in the rows kept.
                let (lw, lb) = (n / 64, n % 64);
                for row in self.bits.chunks_mut(words) {
                    if lb != 0 {
                        row[lw] &= (1u64 << lb) - 1;
                    }
                    for w in row.iter_mut().skip(lw + usize::from(lb != 0)) {
                        *w = 0;
                    }
                }
            }
            self.n = n;
            return;
        }
        // Another width: each kept row's words copied (the words past the
        // new width dropped, the columns past `keep` cleared), a copy of
        // memory per row rather than an insert per pair (a graph growing
        // and shrinking across a multiple of 64 events does this at every
        // step).
        let mut m = Self::new(n);
        let keep = n.min(self.n);
        let k = words.min(self.words);
        for a in 0..keep {
            let src = &self.bits[a * self.words..a * self.words + k];
            let dst = &mut m.bits[a * words..a * words + k];
            dst.copy_from_slice(src);
            let (lw, lb) = (keep / 64, keep % 64);
            if lw < k {
                dst[lw] &= (1u64 << lb) - 1;
                dst[lw + 1..].iter_mut().for_each(|w| *w = 0);
            }
        }
        *self = m;
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the relation is over zero events.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether `a -> b` is in the relation.
    #[inline]
    pub fn contains(&self, a: EventId, b: EventId) -> bool {
        let (a, b) = (a.index(), b.index());
        self.bits[a * self.words + b / 64] >> (b % 64) & 1 == 1
    }

    /// Adds `a -> b`; returns whether it was new.
    #[inline]
    pub fn insert(&mut self, a: EventId, b: EventId) -> bool {
        let (a, b) = (a.index(), b.index());
        let w = &mut self.bits[a * self.words + b / 64];
        let old = *w;
        *w |= 1 << (b % 64);
        old != *w
    }

    /// Removes `a -> b`.
    #[inline]
    pub fn remove(&mut self, a: EventId, b: EventId) {
        let (a, b) = (a.index(), b.index());
        self.bits[a * self.words + b / 64] &= !(1 << (b % 64));
    }

    fn row(&self, a: usize) -> &[u64] {
        &self.bits[a * self.words..(a + 1) * self.words]
    }

    /// Successors of `a`, in increasing order.
    pub fn successors(&self, a: EventId) -> impl Iterator<Item = EventId> + '_ {
        let words = self.row(a.index());
        words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let t = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(EventId::new(wi * 64 + t))
            })
        })
    }

    /// Every pair of the relation, row by row.
    pub fn pairs(&self) -> impl Iterator<Item = (EventId, EventId)> + '_ {
        (0..self.n).flat_map(move |a| {
            crate::interrupt::poll(a);
            let a = EventId::new(a);
            self.successors(a).map(move |b| (a, b))
        })
    }

    /// `self := self ∪ other`; returns whether anything changed.
    pub fn union_with(&mut self, other: &BitMatrix) -> bool {
        debug_assert_eq!(self.n, other.n);
        let mut changed = false;
        for (x, y) in self.bits.iter_mut().zip(&other.bits) {
            let old = *x;
            *x |= *y;
            changed |= old != *x;
        }
        changed
    }

    /// `self := self ∩ other`.
    pub fn intersect_with(&mut self, other: &BitMatrix) {
        for (x, y) in self.bits.iter_mut().zip(&other.bits) {
            *x &= *y;
        }
    }

    /// Row `a` |= row `b`; returns whether row `a` changed.
    fn or_row_into(&mut self, a: usize, b: usize) -> bool {
        let mut changed = false;
        for k in 0..self.words {
            let v = self.bits[b * self.words + k];
            let w = &mut self.bits[a * self.words + k];
            let old = *w;
            *w |= v;
            changed |= old != *w;
        }
        changed
    }

    /// The relational composition `self ; other`.
    pub fn compose(&self, other: &BitMatrix) -> BitMatrix {
        let mut out = BitMatrix::new(self.n);
        for a in 0..self.n {
            crate::interrupt::poll(a);
            for b in self.successors(EventId::new(a)) {
                for k in 0..self.words {
                    out.bits[a * self.words + k] |= other.bits[b.index() * self.words + k];
                }
            }
        }
        out
    }

    /// The inverse relation.
    pub fn inverse(&self) -> BitMatrix {
        let mut out = BitMatrix::new(self.n);
        for (a, b) in self.pairs() {
            out.insert(b, a);
        }
        out
    }

    /// Transitive closure in place (Warshall, row-wise with word operations).
    pub fn close_transitively(&mut self) {
        for k in 0..self.n {
            crate::interrupt::poll(k);
            // Rows with no successor through k are left alone; an empty row k
            // adds nothing to anybody.
            if self.row(k).iter().all(|&w| w == 0) {
                continue;
            }
            let (kw, kb) = (k / 64, k % 64);
            for i in 0..self.n {
                if self.bits[i * self.words + kw] >> kb & 1 == 1 {
                    self.or_row_into(i, k);
                }
            }
        }
    }

    /// The transitive closure.
    pub fn transitive_closure(&self) -> BitMatrix {
        let mut m = self.clone();
        m.close_transitively();
        m
    }

    /// Whether some `a -> a` is in the relation.
    pub fn has_reflexive(&self) -> Option<EventId> {
        (0..self.n).map(EventId::new).find(|&a| self.contains(a, a))
    }

    /// Whether the relation is acyclic (its transitive closure is irreflexive).
    pub fn is_acyclic(&self) -> bool {
        self.find_cycle().is_none()
    }

    /// A cycle of the relation, as a list of events `e0 -> e1 -> ... -> e0`, if any.
    pub fn find_cycle(&self) -> Option<Vec<EventId>> {
        // Iterative DFS with colours: 0 white, 1 grey (on stack), 2 black.
        let mut colour = vec![0u8; self.n];
        let mut parent = vec![usize::MAX; self.n];
        for root in 0..self.n {
            crate::interrupt::poll(root);
            if colour[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, Vec<EventId>)> = Vec::new();
            colour[root] = 1;
            stack.push((root, self.successors(EventId::new(root)).collect()));
            while let Some((v, succ)) = stack.last_mut() {
                let v = *v;
                if let Some(w) = succ.pop() {
                    let w = w.index();
                    match colour[w] {
                        0 => {
                            colour[w] = 1;
                            parent[w] = v;
                            let s = self.successors(EventId::new(w)).collect();
                            stack.push((w, s));
                        }
                        1 => {
                            let mut cycle = vec![EventId::new(w)];
                            let mut x = v;
                            while x != w {
                                cycle.push(EventId::new(x));
                                x = parent[x];
                            }
                            cycle.reverse();
                            // cycle is w ... v in path order after reversing the tail
                            cycle.rotate_right(1);
                            return Some(cycle);
                        }
                        _ => {}
                    }
                } else {
                    colour[v] = 2;
                    stack.pop();
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(i: usize) -> EventId {
        EventId::new(i)
    }

    #[test]
    fn insert_contains_and_closure() {
        let mut m = BitMatrix::new(70);
        assert!(m.insert(e(0), e(65)));
        assert!(!m.insert(e(0), e(65)));
        m.insert(e(65), e(3));
        assert!(!m.contains(e(0), e(3)));
        m.close_transitively();
        assert!(m.contains(e(0), e(3)));
        assert!(m.is_acyclic());
        m.insert(e(3), e(0));
        assert!(!m.is_acyclic());
        let cycle = m.find_cycle().unwrap();
        assert!(!cycle.is_empty());
        for w in cycle.windows(2) {
            assert!(m.contains(w[0], w[1]));
        }
    }

    #[test]
    fn find_cycle_returns_a_real_cycle() {
        let mut m = BitMatrix::new(5);
        m.insert(e(0), e(1));
        m.insert(e(1), e(2));
        m.insert(e(2), e(3));
        m.insert(e(3), e(1));
        let c = m.find_cycle().unwrap();
        assert_eq!(c.len(), 3);
        for i in 0..c.len() {
            assert!(m.contains(c[i], c[(i + 1) % c.len()]), "{c:?}");
        }
    }

    #[test]
    fn resize_keeps_the_pairs_of_the_events_kept() {
        let mut m = BitMatrix::new(3);
        m.insert(e(0), e(2));
        m.insert(e(1), e(0));
        m.resize(4);
        m.insert(e(3), e(1));
        m.insert(e(2), e(3));
        m.resize(3);
        assert_eq!(m, {
            let mut x = BitMatrix::new(3);
            x.insert(e(0), e(2));
            x.insert(e(1), e(0));
            x
        });
        m.resize(70);
        m.insert(e(69), e(0));
        m.resize(65);
        assert_eq!(m.pairs().count(), 2);
        m.resize(2);
        assert_eq!(m.pairs().collect::<Vec<_>>(), vec![(e(1), e(0))]);
    }

    /// Across widths (1, 2, 3 words and back), the pairs kept are those
    /// between the events kept, as a rebuild pair by pair gives them.
    #[test]
    fn resize_across_widths_keeps_exactly_the_pairs_kept() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let sizes = [130, 129, 128, 127, 64, 65, 63, 200, 1, 190, 64, 0, 70];
        let mut m = BitMatrix::new(150);
        for _ in 0..600 {
            let (a, b) = (next() as usize % 150, next() as usize % 150);
            m.insert(e(a), e(b));
        }
        for &n in &sizes {
            let before: Vec<_> = m.pairs().collect();
            m.resize(n);
            let want: Vec<_> = before
                .into_iter()
                .filter(|(a, b)| a.index() < n && b.index() < n)
                .collect();
            assert_eq!(m.pairs().collect::<Vec<_>>(), want, "resize to {n}");
            assert_eq!(m, BitMatrix::from_multiword_rows(n, |x| m.row_words(e(x))));
            for _ in 0..50.min(n * n) {
                let (a, b) = (next() as usize % n, next() as usize % n);
                m.insert(e(a), e(b));
            }
        }
    }

    #[test]
    fn compose_and_inverse() {
        let mut a = BitMatrix::new(4);
        a.insert(e(0), e(1));
        let mut b = BitMatrix::new(4);
        b.insert(e(1), e(2));
        let c = a.compose(&b);
        assert!(c.contains(e(0), e(2)));
        assert_eq!(c.pairs().count(), 1);
        assert!(c.inverse().contains(e(2), e(0)));
    }
}
