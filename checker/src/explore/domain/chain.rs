//! The chains of the precise fixed point ([`super::precise`]) as bit sets:
//! each write event a chain may use gets a number the first time it is met
//! ([`Interner`]), and a chain is the set of the numbers of its events. A
//! subset test, a union and the test whether a chain uses a write that
//! conflicts with a new one (the same event, or another run of an
//! instruction that runs once) are then a few word operations, where sorted
//! lists of events cost a merge and an allocation each.

use fxhash::FxHashMap;
use smallvec::SmallVec;

/// A write event of a chain: (thread, program-order index, position of its
/// instruction in the thread's code).
pub(super) type WriteEvent = (u32, u32, u32);

/// Most write events the precise fixed point numbers before it gives up
/// (the coarse one takes over): bounds a chain to 64 words.
pub(super) const MAX_EVENTS: usize = 4096;

/// A set of numbered write events.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(super) struct Chain {
    // invariant: no trailing zero word (so equal sets are equal values and
    // the empty chain is the smallest).
    words: SmallVec<[u64; 2]>,
}

impl Chain {
    /// The chain of the one event numbered `i`.
    pub(super) fn single(i: u32) -> Chain {
        let mut c = Chain::default();
        c.insert(i);
        c
    }

    fn insert(&mut self, i: u32) {
        let (w, b) = (i as usize / 64, i % 64);
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << b;
    }

    /// Whether every event of `self` is in `other`.
    pub(super) fn is_subset(&self, other: &Chain) -> bool {
        self.words.len() <= other.words.len()
            && self
                .words
                .iter()
                .zip(&other.words)
                .all(|(a, b)| a & !b == 0)
    }

    /// Adds the events of `other`.
    pub(super) fn union_with(&mut self, other: &Chain) {
        if self.words.len() < other.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    /// Whether `self` and `other` share an event.
    pub(super) fn meets(&self, other: &Chain) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }
}

/// The numbers of the write events met so far, and per event the events it
/// conflicts with in a chain.
#[derive(Default)]
pub(super) struct Interner {
    ids: FxHashMap<WriteEvent, u32>,
    /// Per (thread, program-order index): the events numbered with it.
    by_index: FxHashMap<(u32, u32), Chain>,
    /// Per (thread, instruction): the events numbered with it.
    by_instr: FxHashMap<(u32, u32), Chain>,
}

impl Interner {
    /// The number of `e`, given on first use; `None` past [`MAX_EVENTS`].
    pub(super) fn id(&mut self, e: WriteEvent) -> Option<u32> {
        if let Some(&i) = self.ids.get(&e) {
            return Some(i);
        }
        if self.ids.len() >= MAX_EVENTS {
            return None;
        }
        let i = self.ids.len() as u32;
        self.ids.insert(e, i);
        self.by_index.entry((e.0, e.1)).or_default().insert(i);
        self.by_instr.entry((e.0, e.2)).or_default().insert(i);
        Some(i)
    }

    /// The numbered events a chain extended by `e` must not hold: those at
    /// `e`'s thread and program-order index, and with `once` those of `e`'s
    /// instruction in its thread.
    pub(super) fn conflicts(&self, e: WriteEvent, once: bool) -> Chain {
        let mut c = self.by_index.get(&(e.0, e.1)).cloned().unwrap_or_default();
        if once {
            if let Some(m) = self.by_instr.get(&(e.0, e.2)) {
                c.union_with(m);
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(ids: &[u32]) -> Chain {
        let mut c = Chain::default();
        for &i in ids {
            c.insert(i);
        }
        c
    }

    #[test]
    fn subsets_unions_and_meets() {
        assert!(chain(&[]).is_subset(&chain(&[3])));
        assert!(chain(&[1, 70]).is_subset(&chain(&[1, 5, 70])));
        assert!(!chain(&[1, 71]).is_subset(&chain(&[1, 5, 70])));
        assert!(!chain(&[130]).is_subset(&chain(&[1])));
        let mut u = chain(&[1]);
        u.union_with(&chain(&[100]));
        assert_eq!(u, chain(&[1, 100]));
        assert!(u.meets(&chain(&[100, 2])));
        assert!(!u.meets(&chain(&[2, 65])));
        // The empty chain is the smallest: a value's chains start after it.
        assert!(chain(&[]) < chain(&[0]));
    }

    #[test]
    fn conflicts_are_the_same_index_or_the_same_once_instruction() {
        let mut n = Interner::default();
        let a = n.id((0, 4, 7)).unwrap();
        let b = n.id((0, 9, 7)).unwrap();
        let c = n.id((0, 4, 8)).unwrap();
        let d = n.id((1, 4, 7)).unwrap();
        assert_eq!(n.id((0, 4, 7)), Some(a));
        assert_eq!(n.conflicts((0, 4, 7), false), chain(&[a, c]));
        assert_eq!(n.conflicts((0, 4, 7), true), chain(&[a, b, c]));
        assert!(!n.conflicts((0, 4, 7), true).meets(&chain(&[d])));
    }
}
