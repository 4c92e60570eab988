//! Interning of names into dense typed ids (addresses, registers, labels).

use crate::ir::{AddrId, LabelId, RegId};
use fxhash::FxHashMap;
use std::marker::PhantomData;

/// A dense typed id that an [`Interner`] hands out.
pub(crate) trait Id: Copy {
    /// The id of the `i`-th interned name.
    fn from_index(i: usize) -> Self;
    /// The dense index of the id.
    fn to_index(self) -> usize;
}

impl Id for AddrId {
    fn from_index(i: usize) -> Self {
        AddrId::new(i)
    }
    fn to_index(self) -> usize {
        self.index()
    }
}

impl Id for RegId {
    fn from_index(i: usize) -> Self {
        RegId::new(i)
    }
    fn to_index(self) -> usize {
        self.index()
    }
}

impl Id for LabelId {
    fn from_index(i: usize) -> Self {
        LabelId::new(i)
    }
    fn to_index(self) -> usize {
        self.index()
    }
}

/// Maps names to ids in order of first appearance.
// invariant: `map[names[i]] == I::from_index(i)` for every `i`.
#[derive(Debug)]
pub(crate) struct Interner<I> {
    map: FxHashMap<String, I>,
    names: Vec<String>,
    _id: PhantomData<I>,
}

impl<I: Id> Default for Interner<I> {
    fn default() -> Self {
        Interner {
            map: FxHashMap::default(),
            names: Vec::new(),
            _id: PhantomData,
        }
    }
}

impl<I: Id> Interner<I> {
    /// The id of `name`, if it was interned.
    pub fn get(&self, name: &str) -> Option<I> {
        self.map.get(name).copied()
    }

    /// The id of `name`, interning it if new.
    pub fn intern(&mut self, name: &str) -> I {
        if let Some(&id) = self.map.get(name) {
            return id;
        }
        let id = I::from_index(self.names.len());
        self.names.push(name.to_string());
        self.map.insert(name.to_string(), id);
        id
    }

    /// The name of an interned id.
    pub fn name(&self, id: I) -> &str {
        // invariant: ids come from this interner, so the index is in range.
        &self.names[id.to_index()]
    }

    /// How many names were interned.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The names, indexed by id.
    pub fn into_names(self) -> Vec<String> {
        self.names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_first_appearance() {
        let mut i: Interner<RegId> = Interner::default();
        assert_eq!(i.intern("r1"), RegId(0));
        assert_eq!(i.intern("r0"), RegId(1));
        assert_eq!(i.intern("r1"), RegId(0));
        assert_eq!(i.get("r0"), Some(RegId(1)));
        assert_eq!(i.get("r2"), None);
        assert_eq!(i.len(), 2);
        assert_eq!(i.into_names(), ["r1", "r0"]);
    }
}
