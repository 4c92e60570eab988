//! A node of a walk of `--strategy estimate` (`explore/estimate.rs`): a look-ahead into each child, then one of those that branch, at random.

use super::*;
use crate::explore::estimate::{Step, Walk};

impl<'a> Dpor<'a> {
    /// A node with `n` children (more than one) during a walk: `child(i)`
    /// applies, explores and undoes child `i`.
    ///
    /// On the walk's path, each child is first explored until it ends or
    /// branches ([`Walk::probe`], the look-ahead of Purdom's partial
    /// backtracking, 1978): a child that ends without branching (most often
    /// in a pruned graph) counts exactly, once. The walk then goes on into
    /// one of the others, chosen by [`Walk::choose`] (Knuth's estimator,
    /// 1975, with importance sampling), whose counts are scaled by one over
    /// the probability of the choice. Whether a child branches depends on
    /// its subtree alone, so the estimate stays unbiased; the children that
    /// end at once are where most walks of a plain Knuth estimator die, so
    /// their weights no longer spread the estimate.
    ///
    /// Inside a look-ahead, a node with more than one child ends it
    /// ([`Halt::Probe`]): its child branches.
    pub(super) fn walk_node(
        &self,
        walk: &Walk,
        s: &mut State,
        w: &mut Worker,
        n: usize,
        child: &mut dyn FnMut(&Self, &mut State, &mut Worker, usize) -> Res,
    ) -> Res {
        if walk.step() == Step::Over {
            return Err(Halt::Probe);
        }
        // (What the look-aheads find at a node is the same on every walk:
        // an earlier walk's is used again.)
        let big = match walk.looked(&mut w.out.stats) {
            Some(big) => big,
            None => {
                let mut big: SmallVec<[usize; 16]> = SmallVec::new();
                let mut found = Vec::with_capacity(n);
                for i in 0..n {
                    self.tick(w)?;
                    let probe = walk.probe(&w.out.stats);
                    let r = child(self, s, w, i);
                    found.push(walk.probed(probe, r.is_ok(), &mut w.out.stats));
                    match r {
                        Ok(()) => {}
                        Err(Halt::Probe) => big.push(i),
                        Err(e) => return Err(e),
                    }
                }
                walk.remember(found.into_boxed_slice());
                big
            }
        };
        if big.is_empty() {
            return Ok(());
        }
        self.tick(w)?;
        let (pick, mark) = walk.choose(&big, &w.out.stats);
        let r = child(self, s, w, pick);
        walk.leave(mark, &mut w.out.stats);
        r
    }
}
