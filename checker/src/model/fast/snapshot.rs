//! What the tests of the word-level model read off statics: their content,
//! width-free, and the cover of release patterns.

use super::set::Set;
use super::{statics, AnyStatics, Statics};
use crate::event::EventId;

/// What statics hold, width-free (each set as `ceil(n / 64)` words), to
/// compare statics of any widths.
pub(in crate::model) type Snapshot = (
    usize,
    Vec<Option<statics::Attr>>,
    Vec<Vec<EventId>>,
    Vec<Vec<Vec<u64>>>,
    Vec<Vec<u64>>,
);

impl Statics {
    /// Whether every event with a release pattern is in `rel_firsts`.
    pub(in crate::model) fn rel_firsts_cover(&self) -> bool {
        each_width!(AnyStatics, &self.s, s => {
            (0..s.n).all(|a| s.rel_writes[a].is_empty() || s.rel_firsts.has(a))
        })
    }

    pub(in crate::model) fn snapshot(&self) -> Snapshot {
        each_width!(AnyStatics, &self.s, s => {
            let words = s.n.div_ceil(64);
            let cut = |x: &Set<_>| x.0[..words].to_vec();
            (
                s.n,
                s.attrs.clone(),
                s.threads.clone(),
                s.relations().iter().map(|r| r[..s.n].iter().map(cut).collect()).collect(),
                s.masks().iter().map(cut).collect(),
            )
        })
    }
}
