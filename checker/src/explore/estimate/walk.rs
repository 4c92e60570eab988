//! The hook of one walk of `--strategy estimate`: the random choices, the weights, what the look-aheads found and what earlier walks learned.

use super::next;
use crate::report::Stats;
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::Mutex;

/// The share of the uniform choice in the probabilities of [`Walk::choose`].
const UNIFORM_SHARE: f64 = 0.15;
/// How many walks' worth of the mean size of its siblings a child's
/// learned size starts from ([`Walk::choose`]).
const PRIOR_WALKS: f64 = 1.0;

/// The hook of one walk, consulted by the DPOR explorer at each node with
/// more than one child ([`crate::explore::dpor::Dpor::with_walk`]).
#[derive(Debug)]
pub(crate) struct Walk {
    state: Mutex<WalkState>,
}

#[derive(Debug)]
struct WalkState {
    /// splitmix64 state.
    rng: u64,
    /// Branching nodes below the current node, weighted.
    nodes: u64,
    /// Steps (partial graphs extended) below the current node, weighted.
    steps: u64,
    /// Steps made, unweighted (look-aheads included, also those given up):
    /// the effort of the walk.
    effort: u64,
    /// A look-ahead runs ([`Walk::probe`]).
    probe: bool,
    /// Where the walk is: the key of the child it last went into (0 at the
    /// root), and how many nodes of the walk it met since. A node's key
    /// ([`Self::node`]) hashes both, so that it names one node of the tree
    /// (the same on every walk that gets there), also when a node follows
    /// another's subtree (the two fates of a counted barrier).
    context: (u64, u64),
    /// The key of the node the walk is at ([`Walk::step`]).
    node: u64,
    /// What earlier walks found below the children they chose, by child
    /// key ([`child_key`]): the sum of the (unbiased) sizes found, and how
    /// many.
    learned: HashMap<u64, (f64, u32)>,
    /// What the look-aheads found below each child of a node, by node key:
    /// the same on every walk, so found once.
    looked: HashMap<u64, Box<[Option<Found>]>>,
}

/// What a look-ahead found below a child that ended without branching:
/// counted exactly, once.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Found {
    executions: u64,
    blocked: u64,
    pruned: u64,
    bound_hits: u64,
    nodes: u64,
    steps: u64,
}

/// What [`Walk::enter`] or [`Walk::choose`] saw, for [`Walk::leave`].
pub(crate) struct Mark {
    /// What the chosen child's counts are multiplied by: one over the
    /// probability it was chosen with.
    factor: f64,
    stats: Stats,
    nodes: u64,
    steps: u64,
    /// Where the walk was, and the chosen child's key, when the child's
    /// size is learned ([`Walk::choose`]).
    keys: Option<((u64, u64), u64)>,
}

/// What a look-ahead started with ([`Walk::probe`]), to undo it when the
/// child branches ([`Walk::probed`]).
pub(crate) struct Probe {
    stats: Stats,
    nodes: u64,
    steps: u64,
}

/// What the explorer does at a node with more than one child during a walk
/// ([`Walk::step`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Step {
    /// On the walk's own path: look ahead into every child, then walk into
    /// one of those that branch.
    Walk,
    /// Inside a look-ahead: the child it looks into branches, give up.
    Over,
}

impl Walk {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            state: Mutex::new(WalkState::new(seed)),
        }
    }

    /// Starts a new walk with this seed (keeping what the walks learned and
    /// the look-aheads found).
    pub(super) fn reset(&self, seed: u64) {
        let mut st = self.lock();
        let learned = std::mem::take(&mut st.learned);
        let looked = std::mem::take(&mut st.looked);
        *st = WalkState::new(seed);
        st.learned = learned;
        st.looked = looked;
    }

    /// The last walk's weighted branching nodes and steps, and its effort
    /// (steps made).
    pub(super) fn counts(&self) -> (u64, u64, u64) {
        let st = self.lock();
        (st.nodes, st.steps, st.effort)
    }

    /// One step of the explorer (a partial graph about to be extended).
    pub(crate) fn tick(&self) {
        let mut st = self.lock();
        st.steps += 1;
        st.effort += 1;
    }

    /// At a node with more than one child: what to do there (and the node
    /// counted, unless a look-ahead gives up at it).
    pub(crate) fn step(&self) -> Step {
        let mut st = self.lock();
        if st.probe {
            return Step::Over;
        }
        st.nodes += 1;
        let (key, seen) = st.context;
        st.node = child_key(key, seen as usize);
        st.context.1 += 1;
        Step::Walk
    }

    /// At the node of the last [`Self::step`], looked into by an earlier
    /// walk: the children that ended count again (into `stats`), and the
    /// others are given; `None` if no walk looked yet.
    pub(crate) fn looked(&self, stats: &mut Stats) -> Option<SmallVec<[usize; 16]>> {
        let mut st = self.lock();
        let st = &mut *st;
        let found = st.looked.get(&st.node)?;
        let mut big = SmallVec::new();
        for (i, f) in found.iter().enumerate() {
            match f {
                Some(f) => {
                    stats.executions += f.executions;
                    stats.blocked += f.blocked;
                    stats.pruned += f.pruned;
                    stats.bound_hits += f.bound_hits;
                    st.nodes += f.nodes;
                    st.steps += f.steps;
                }
                None => big.push(i),
            }
        }
        Some(big)
    }

    /// Keeps what the look-aheads found below each child of the node of
    /// the last [`Self::step`] (`None`: the child branches).
    pub(crate) fn remember(&self, found: Box<[Option<Found>]>) {
        let mut st = self.lock();
        let node = st.node;
        st.looked.insert(node, found);
    }

    /// Starts a look-ahead into one child of the walk's node: the child is
    /// explored until it ends or branches ([`Step::Over`]).
    pub(crate) fn probe(&self, stats: &Stats) -> Probe {
        let mut st = self.lock();
        st.probe = true;
        Probe {
            stats: stats.clone(),
            nodes: st.nodes,
            steps: st.steps,
        }
    }

    /// Ends a look-ahead: a child that ended (`whole`) keeps what it found,
    /// counted once, and says what; one that branched leaves no count
    /// behind (its steps stay in the effort).
    pub(crate) fn probed(&self, p: Probe, whole: bool, stats: &mut Stats) -> Option<Found> {
        let mut st = self.lock();
        st.probe = false;
        if !whole {
            *stats = p.stats;
            st.nodes = p.nodes;
            st.steps = p.steps;
            return None;
        }
        Some(Found {
            executions: stats.executions - p.stats.executions,
            blocked: stats.blocked - p.stats.blocked,
            pruned: stats.pruned - p.stats.pruned,
            bound_hits: stats.bound_hits - p.stats.bound_hits,
            nodes: st.nodes - p.nodes,
            steps: st.steps - p.steps,
        })
    }

    /// At a node with `children` children (more than one): the child to
    /// visit, uniformly at random, and what to scale when it is done; the
    /// node is counted ([`crate::explore::split`] sizes its parts with this).
    pub(crate) fn enter(&self, children: usize, stats: &Stats) -> (usize, Mark) {
        let mut st = self.lock();
        st.nodes += 1;
        let pick = below(next(&mut st.rng), children);
        let mark = st.mark(children as f64, stats, None);
        (pick, mark)
    }

    /// At the node of the last [`Self::step`], whose children `big` (at
    /// least one) branch: the child to visit, and what to scale when it is
    /// done.
    ///
    /// Importance sampling (Knuth 1975, section 5): a child is chosen with
    /// probability `p` and its counts multiplied by `1 / p`, which keeps the
    /// estimate unbiased for any `p > 0`; the variance vanishes when `p` is
    /// proportional to the child's size. Here `p` follows the sizes earlier
    /// walks found below each child (mixed with the uniform choice, so
    /// that every child keeps a share): those walks are done, so the
    /// probabilities of a walk do not depend on its own choices, and each
    /// walk stays an unbiased estimate (adaptive importance sampling).
    pub(crate) fn choose(&self, big: &[usize], stats: &Stats) -> (usize, Mark) {
        let mut st = self.lock();
        let k = big.len();
        let keys: SmallVec<[u64; 16]> = big.iter().map(|&i| child_key(st.node, i)).collect();
        let sizes: SmallVec<[Option<(f64, u32)>; 16]> =
            keys.iter().map(|c| st.learned.get(c).copied()).collect();
        let known: SmallVec<[f64; 16]> = sizes
            .iter()
            .flatten()
            .map(|&(s, n)| s / f64::from(n))
            .collect();
        // A child not walked yet is taken to be of the known ones' mean
        // size, and one walked a few times only a little less so.
        let mean = known.iter().sum::<f64>() / known.len().max(1) as f64;
        let sizes: SmallVec<[f64; 16]> = sizes
            .iter()
            .map(|s| {
                s.map_or(mean, |(sum, n)| {
                    (sum + PRIOR_WALKS * mean) / (f64::from(n) + PRIOR_WALKS)
                })
            })
            .collect();
        let sum: f64 = sizes.iter().sum();
        let prob = |j: usize| {
            if sum > 0.0 && sum.is_finite() {
                (1.0 - UNIFORM_SHARE) * sizes[j] / sum + UNIFORM_SHARE / k as f64
            } else {
                1.0 / k as f64
            }
        };
        let r = unit(next(&mut st.rng));
        let mut j = 0;
        let mut acc = prob(0);
        while j + 1 < k && r >= acc {
            j += 1;
            acc += prob(j);
        }
        let context = st.context;
        st.context = (keys[j], 0);
        let mark = st.mark(1.0 / prob(j), stats, Some((context, keys[j])));
        (big[j], mark)
    }

    /// The chosen child is explored: what it found counts `factor` times
    /// (in whole numbers, rounded at random up or down so that the
    /// expectation is kept), and its size is learned.
    pub(crate) fn leave(&self, mark: Mark, stats: &mut Stats) {
        let mut st = self.lock();
        let st = &mut *st;
        if let Some((context, child)) = mark.keys {
            let found = (stats.executions + stats.blocked)
                .saturating_sub(mark.stats.executions + mark.stats.blocked);
            let slot = st.learned.entry(child).or_insert((0.0, 0));
            slot.0 += found as f64;
            slot.1 = slot.1.saturating_add(1);
            st.context = context;
        }
        let f = mark.factor;
        let rng = &mut st.rng;
        let mut scale = |now: &mut u64, before: u64| {
            *now = before.saturating_add(scaled(now.saturating_sub(before), f, rng));
        };
        scale(&mut stats.executions, mark.stats.executions);
        scale(&mut stats.blocked, mark.stats.blocked);
        scale(&mut stats.pruned, mark.stats.pruned);
        scale(&mut stats.bound_hits, mark.stats.bound_hits);
        scale(&mut st.nodes, mark.nodes);
        scale(&mut st.steps, mark.steps);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WalkState> {
        // A poisoned lock only means another walk panicked; the state is plain data.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl WalkState {
    fn new(seed: u64) -> Self {
        Self {
            rng: seed,
            nodes: 0,
            steps: 0,
            effort: 0,
            probe: false,
            context: (0, 0),
            node: 0,
            learned: HashMap::new(),
            looked: HashMap::new(),
        }
    }

    /// What [`Walk::leave`] needs to scale the chosen child's counts.
    fn mark(&self, factor: f64, stats: &Stats, keys: Option<((u64, u64), u64)>) -> Mark {
        Mark {
            factor,
            stats: stats.clone(),
            nodes: self.nodes,
            steps: self.steps,
            keys,
        }
    }
}

/// The key of child `i` of the node `key` (FNV-1a over the path).
fn child_key(key: u64, i: usize) -> u64 {
    let mut h = key ^ 0xcbf2_9ce4_8422_2325;
    for b in (i as u64).to_le_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A number in `[0, 1)` from the random `r`.
fn unit(r: u64) -> f64 {
    (r >> 11) as f64 / (1u64 << 53) as f64
}

/// `x * f` as a whole number: exact when `f` is one, rounded down or up at
/// random otherwise, with the expectation `x * f`.
pub(super) fn scaled(x: u64, f: f64, rng: &mut u64) -> u64 {
    if x == 0 {
        return 0;
    }
    // (A factor within rounding of a whole number is one: a uniform choice.)
    if (f - f.round()).abs() < 1e-9 && f < u64::MAX as f64 {
        return x.saturating_mul(f.round() as u64);
    }
    let y = x as f64 * f;
    if !y.is_finite() || y >= u64::MAX as f64 {
        return u64::MAX;
    }
    let low = y.floor();
    let up = unit(next(rng)) < y - low;
    low as u64 + u64::from(up)
}

/// A number below `n` (at least one) from the random `r`: multiply-shift,
/// uniform enough for any `n` below 2^32.
fn below(r: u64, n: usize) -> usize {
    (((u128::from(r) * n as u128) >> 64) as usize).min(n.max(1) - 1)
}
