//! Sets of events as `W` words (`64 W` events) and relations as one such set
//! per event, with the word-level closures and searches the fast path needs.
//!
//! Every operation is a loop over `W` words that the compiler unrolls: at
//! `W = 1` a [`Set`] compiles to the `u64` operations it replaces.

// Rows are indexed by event.
#![allow(clippy::needless_range_loop)]

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// A set of events `0 .. 64 W`: bit `j % 64` of word `j / 64` is event `j`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Set<const W: usize>(pub [u64; W]);

/// The word of event `i` (`i` below `64 W`; `W` a power of two, so that
/// the remainder is a mask and no bounds check is needed).
#[inline(always)]
fn word<const W: usize>(i: usize) -> usize {
    debug_assert!(i < 64 * W && W.is_power_of_two());
    (i / 64) % W
}

/// One row per event: row `i` holds the `j` of the pairs `i -> j`.
pub(crate) type Rows<const W: usize> = Vec<Set<W>>;

impl<const W: usize> Default for Set<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> Set<W> {
    pub const EMPTY: Self = Self([0; W]);
    /// The most events a set holds.
    pub const CAPACITY: usize = 64 * W;

    /// `{i}`.
    #[inline(always)]
    pub fn bit(i: usize) -> Self {
        let mut s = Self::EMPTY;
        s.0[word::<W>(i)] = 1u64 << (i % 64);
        s
    }

    /// `{0 .. n}` (`n` at most [`Self::CAPACITY`]).
    #[inline]
    pub fn below(n: usize) -> Self {
        let mut s = Self::EMPTY;
        for k in 0..W {
            let lo = 64 * k;
            s.0[k] = if n >= lo + 64 {
                !0
            } else if n > lo {
                (1u64 << (n - lo)) - 1
            } else {
                0
            };
        }
        s
    }

    /// The set whose words are `words` (missing words empty, extra dropped).
    #[inline]
    pub fn from_words(words: &[u64]) -> Self {
        let mut s = Self::EMPTY;
        let k = words.len().min(W);
        s.0[..k].copy_from_slice(&words[..k]);
        s
    }

    #[inline(always)]
    pub fn has(&self, i: usize) -> bool {
        self.0[word::<W>(i)] >> (i % 64) & 1 == 1
    }

    #[inline(always)]
    pub fn insert(&mut self, i: usize) {
        self.0[word::<W>(i)] |= 1u64 << (i % 64);
    }

    #[inline(always)]
    pub fn remove(&mut self, i: usize) {
        self.0[word::<W>(i)] &= !(1u64 << (i % 64));
    }

    // (Plain loops over the words, no iterator adapters and no early exit:
    // at `W = 1` each is the one `u64` operation.)
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        let mut any = 0;
        for k in 0..W {
            any |= self.0[k];
        }
        any == 0
    }

    /// Whether the sets meet.
    #[inline(always)]
    pub fn meets(&self, other: &Self) -> bool {
        let mut any = 0;
        for k in 0..W {
            any |= self.0[k] & other.0[k];
        }
        any != 0
    }

    /// The smallest element, as a set (empty for the empty set).
    #[inline(always)]
    pub fn lowest(&self) -> Self {
        let mut s = Self::EMPTY;
        for k in 0..W {
            if self.0[k] != 0 {
                s.0[k] = self.0[k] & self.0[k].wrapping_neg();
                break;
            }
        }
        s
    }

    /// The smallest element.
    #[inline(always)]
    pub fn first(&self) -> Option<usize> {
        for k in 0..W {
            if self.0[k] != 0 {
                return Some(64 * k + self.0[k].trailing_zeros() as usize);
            }
        }
        None
    }

    /// The largest element.
    #[inline(always)]
    pub fn last(&self) -> Option<usize> {
        for k in (0..W).rev() {
            if self.0[k] != 0 {
                return Some(64 * k + 63 - self.0[k].leading_zeros() as usize);
            }
        }
        None
    }

    /// Whether `f` holds for some element (smallest first; a loop over the
    /// words, inlined, where `iter().any` would call the iterator).
    #[inline(always)]
    pub fn any(self, f: impl FnMut(usize) -> bool) -> bool {
        self.find(f).is_some()
    }

    /// The smallest element for which `f` holds.
    #[inline(always)]
    pub fn find(self, mut f: impl FnMut(usize) -> bool) -> Option<usize> {
        for k in 0..W {
            let mut w = self.0[k];
            while w != 0 {
                let x = 64 * k + w.trailing_zeros() as usize;
                w &= w - 1;
                if f(x) {
                    return Some(x);
                }
            }
        }
        None
    }

    /// The elements, smallest first.
    #[inline(always)]
    pub fn iter(self) -> Bits<W> {
        Bits { set: self, k: 0 }
    }
}

/// The elements of a [`Set`], smallest first.
pub(crate) struct Bits<const W: usize> {
    set: Set<W>,
    /// Words before `k` are done.
    k: usize,
}

impl<const W: usize> Iterator for Bits<W> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        while self.k < W {
            let w = &mut self.set.0[self.k];
            if *w != 0 {
                let b = w.trailing_zeros() as usize;
                *w &= *w - 1;
                return Some(64 * self.k + b);
            }
            self.k += 1;
        }
        None
    }
}

impl<const W: usize> BitAnd for Set<W> {
    type Output = Self;
    #[inline(always)]
    fn bitand(mut self, o: Self) -> Self {
        self &= o;
        self
    }
}

impl<const W: usize> BitOr for Set<W> {
    type Output = Self;
    #[inline(always)]
    fn bitor(mut self, o: Self) -> Self {
        self |= o;
        self
    }
}

impl<const W: usize> BitAndAssign for Set<W> {
    #[inline(always)]
    fn bitand_assign(&mut self, o: Self) {
        for k in 0..W {
            self.0[k] &= o.0[k];
        }
    }
}

impl<const W: usize> BitOrAssign for Set<W> {
    #[inline(always)]
    fn bitor_assign(&mut self, o: Self) {
        for k in 0..W {
            self.0[k] |= o.0[k];
        }
    }
}

impl<const W: usize> Not for Set<W> {
    type Output = Self;
    #[inline(always)]
    fn not(mut self) -> Self {
        for k in 0..W {
            self.0[k] = !self.0[k];
        }
        self
    }
}

/// `(⋃ rows[i] for i in m)`.
#[inline(always)]
pub(crate) fn union_rows<const W: usize>(rows: &[Set<W>], m: Set<W>) -> Set<W> {
    let mut out = Set::EMPTY;
    for i in m.iter() {
        out |= rows[i];
    }
    out
}

/// Transitive closure of the first `n` rows in place (Warshall on words).
pub(crate) fn close<const W: usize>(rows: &mut [Set<W>], n: usize) {
    for k in 0..n {
        let rk = rows[k];
        if rk.is_empty() {
            continue;
        }
        for r in rows.iter_mut().take(n) {
            if r.has(k) {
                *r |= rk;
            }
        }
    }
}

/// Scratch space of [`post_order`], kept between searches (no allocation
/// once it has grown to the graph).
#[derive(Clone, Default)]
pub(crate) struct SearchSpace<const W: usize> {
    /// The events on the stack and the successors each has left to visit.
    stack: Vec<(u32, Set<W>)>,
}

/// A depth-first search (an explicit stack, no recursion) of the relation
/// `rows` over the first `n` rows that calls `closed(v)` when event `v` is
/// left (post-order: every successor of `v` has been left before). Returns
/// false as soon as it meets a cycle. The visit state of the events is two
/// sets (seen; on the stack), so the search allocates nothing once the
/// stack has grown to `n`.
#[inline(always)]
fn post_order<const W: usize>(
    rows: &[Set<W>],
    n: usize,
    space: &mut SearchSpace<W>,
    closed: impl FnMut(usize),
) -> bool {
    post_order_from(rows, n, Set::below(n), space, closed)
}

/// [`post_order`] from the events of `roots` only (all of them, and the
/// events they reach, are left).
#[inline(always)]
fn post_order_from<const W: usize>(
    rows: &[Set<W>],
    n: usize,
    roots: Set<W>,
    space: &mut SearchSpace<W>,
    mut closed: impl FnMut(usize),
) -> bool {
    let stack = &mut space.stack;
    if stack.len() < n {
        stack.resize(n, (0, Set::EMPTY));
    }
    // invariant: each event is on the stack at most once, so depth <= n.
    let stack = &mut stack[..n];
    let all = roots;
    let mut seen = Set::<W>::EMPTY;
    let mut open = Set::<W>::EMPTY;
    while let Some(root) = (all & !seen).first() {
        let mut depth = 1;
        stack[0] = (root as u32, rows[root]);
        seen.insert(root);
        open.insert(root);
        while depth > 0 {
            let top = &mut stack[depth - 1];
            let v = top.0 as usize;
            let Some(j) = top.1.first() else {
                closed(v);
                open.0[word::<W>(v)] &= !(1u64 << (v % 64));
                depth -= 1;
                continue;
            };
            top.1 .0[word::<W>(j)] &= !(1u64 << (j % 64));
            if !seen.has(j) {
                seen.insert(j);
                open.insert(j);
                stack[depth] = (j as u32, rows[j]);
                depth += 1;
            } else if open.has(j) {
                return false;
            }
        }
    }
    true
}

/// The transitive closure of the relation `gen` over the first `n` rows,
/// into `out`, by a depth-first search that unions the closures of each
/// event's successors after them (post-order): `O(W (n + edges))` word
/// operations. Returns false, leaving `out` unspecified, when the relation
/// has a cycle.
pub(crate) fn close_acyclic<const W: usize>(
    gen: &[Set<W>],
    out: &mut [Set<W>],
    n: usize,
    space: &mut SearchSpace<W>,
) -> bool {
    post_order(gen, n, space, |v| out[v] = gen[v] | union_rows(out, gen[v]))
}

/// Whether the relation over the first `n` rows, whose edges all lie
/// between events of `among`, is acyclic: a depth-first search from those
/// events only (the rows of the others are not read).
pub(crate) fn acyclic_among<const W: usize>(
    rows: &[Set<W>],
    n: usize,
    among: Set<W>,
    space: &mut SearchSpace<W>,
) -> bool {
    post_order_from(rows, n, among & Set::below(n), space, |_| {})
}

/// Whether the relation over the first `n` rows is acyclic (a depth-first
/// search).
pub(crate) fn acyclic<const W: usize>(
    rows: &[Set<W>],
    n: usize,
    space: &mut SearchSpace<W>,
) -> bool {
    post_order(rows, n, space, |_| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_of_two_words() {
        let mut s = Set::<2>::bit(3) | Set::bit(70);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![3, 70]);
        assert_eq!((s.first(), s.last()), (Some(3), Some(70)));
        assert_eq!(s.lowest(), Set::bit(3));
        assert!(s.has(70) && !s.has(6));
        s &= Set::below(70);
        assert_eq!(s, Set::bit(3));
        assert_eq!(Set::<2>::below(128), !Set::EMPTY);
        assert_eq!(Set::<2>::below(64), Set::from_words(&[!0]));
        assert!((!Set::<2>::bit(5)).meets(&Set::bit(100)));
    }

    #[test]
    fn closures_across_words() {
        // A chain 0 -> 65 -> 130 -> 2 over 131 events (three of four words).
        let n = 131;
        let mut gen = vec![Set::<4>::EMPTY; n];
        gen[0] = Set::bit(65);
        gen[65] = Set::bit(130);
        gen[130] = Set::bit(2);
        let mut out = vec![Set::EMPTY; n];
        let mut space = SearchSpace::default();
        assert!(close_acyclic(&gen, &mut out, n, &mut space));
        assert_eq!(out[0].iter().collect::<Vec<_>>(), vec![2, 65, 130]);
        let mut warshall = gen.clone();
        close(&mut warshall, n);
        assert_eq!(warshall, out);
        gen[2] = Set::bit(0);
        assert!(!acyclic(&gen, n, &mut space));
    }
}
