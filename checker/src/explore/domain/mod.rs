//! Which values each thread can write to each location: a fixed point over
//! concrete runs of the interpreter, where every read may return any value
//! some write (or the initial state) can produce. The DPOR explorer uses it to
//! know which values a read may commit to before their writer exists.
//!
//! Each value is produced by a chain of writes, each reading (through data
//! dependencies) a value of the ones before. No-Thin-Air (8.10.4) makes such
//! chains acyclic in any consistent execution: a chain never uses one write
//! event twice. The fixed point keeps, with each value, the write events its
//! chain used (a *provenance*), and never extends a chain with an event it
//! already used, nor two writes of one instruction that lies outside every
//! loop (it runs at most once per execution, whatever iteration count put
//! it at different program-order indices on different paths). That bounds
//! counters (two `atom.add`s give 1 and 2, not every integer; a store after
//! a lock's retry loop counts once) and the fixed point terminates. If provenances grow past a
//! budget, a coarser fixed point over plain values takes over, bounded by the
//! number of write events one execution can have.
//!
//! Two things keep the precise fixed point small: a read takes one path per
//! *value* (the value alone decides the path), carrying every provenance of
//! that value until a write depends on it; and only the minimal chains of
//! each value are kept ([`insert_minimal`]: a chain that contains another of
//! the same value extends to nothing more). RMW loops (`atom.exch` spin
//! locks) otherwise make one element per chain of RMWs.
//!
//! A read of a *private* location (one that only its own thread writes,
//! always through one address and the generic proxy, in a thread without
//! asynchronous operations) returns exactly the value of the thread's last
//! write to it before the read, or the initial value: the own thread's later
//! writes and earlier overwritten ones are ruled out by Causality (program
//! order through one address and the generic proxy is causality order,
//! 8.9.5; a read from an overwritten write from-reads a write that precedes
//! it, 8.10.6), and no other thread writes there. So such a read takes one
//! path, not one per value of the location: a thread alternating stores and
//! loads of a private location has one path instead of exponentially many.
//!
//! The same runs also bound how many writes each thread can still make to
//! each location ([`Domain::max_writes`]): the interpreter runs of the last
//! round cover every path a thread can take in any execution (each read
//! returns a value of the domain), so the most writes to a location on one
//! of them bounds the writes of that thread in every execution.

use crate::event::{EventId, EventKind};
use crate::interp::{Next, ThreadCode, ThreadState};
use crate::model::reading::Reading;
use ptxmc_frontend::ir::{Proxy, Test, VAddrId};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Instant;

/// Values each thread may write to each physical location: `[thread][phys]`.
pub(crate) type WriteDomain = Vec<Vec<BTreeSet<i64>>>;

/// Interpreter steps allowed for the precise fixed point (provenances make
/// paths multiply; past this the coarse one is cheaper).
const MAX_PRECISE_STEPS: usize = 50_000;
/// Interpreter steps allowed for the coarse fixed point.
const MAX_STEPS: usize = 2_000_000;
/// Values-with-provenance allowed in the precise fixed point.
const MAX_ELEMENTS: usize = 20_000;

/// Why the domain could not be computed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum DomainError {
    /// Too many paths.
    TooLarge,
    /// The check's time limit passed.
    Timeout,
}

/// Interpreter steps between two looks at the clock (a power of two).
const CLOCK_EVERY: usize = 4096;

/// Whether `deadline` has passed (looked at every [`CLOCK_EVERY`] steps).
fn past(deadline: Option<Instant>, steps: usize) -> bool {
    steps & (CLOCK_EVERY - 1) == 0 && deadline.is_some_and(|d| Instant::now() >= d)
}

/// Counts one interpreter step of a fixed point allowed `max`: too many, or
/// past `deadline`, ends it.
fn step(steps: &mut usize, max: usize, deadline: Option<Instant>) -> Result<(), DomainError> {
    *steps += 1;
    if *steps > max {
        return Err(DomainError::TooLarge);
    }
    if past(deadline, *steps) {
        return Err(DomainError::Timeout);
    }
    Ok(())
}

mod chain;

use chain::{Chain, Interner};

/// A value with the write events of the chain that produced it.
type Element = (i64, Chain);

/// A path of the precise fixed point: the thread state, per read (by
/// program-order index) the provenances the value it took can have, the
/// write counts and the last values written ([`Written`]).
type Path = (ThreadState<i64>, Provenances, Counts, Written);

/// Per read of a path (by program-order index), the provenances its value
/// can have: shared between the paths that branch after the read (a path
/// copies the list, not the chains).
type Provenances = Vec<(EventId, Shared)>;

/// The provenances of one value, shared between paths.
type Shared = Rc<Vec<Chain>>;

/// Per path and physical location: the value of the path's last write to it.
type Written = Vec<Option<i64>>;

/// `[thread][phys]`: the address through which the thread alone writes a
/// private location (see the module documentation), `None` elsewhere.
pub(crate) type Private = Vec<Vec<Option<VAddrId>>>;

/// The private locations of each thread: those only it writes, through one
/// address and the generic proxy, in a thread without asynchronous
/// operations.
pub(crate) fn private_locations(test: &Test) -> Private {
    let n_phys = test.n_phys as usize;
    // Per location: the one (thread, address) writing it, or `Err` when
    // several threads, addresses or a non-generic proxy do.
    let mut writer: Vec<Option<Result<(usize, VAddrId), ()>>> = vec![None; n_phys];
    for (t, th) in test.threads.iter().enumerate() {
        let asynchronous = crate::interp::issues_async(&th.code);
        for (addr, proxy, ..) in th
            .code
            .iter()
            .flat_map(|stmt| crate::interp::write_shapes(&stmt.instr))
        {
            let Some(a) = test.addresses.get(addr.index()) else {
                continue;
            };
            let Some(slot) = writer.get_mut(a.phys.index()) else {
                continue;
            };
            let me = (t, a.vaddr);
            *slot = match *slot {
                _ if asynchronous || proxy != Proxy::Generic => Some(Err(())),
                None => Some(Ok(me)),
                Some(Ok(w)) if w == me => Some(Ok(me)),
                _ => Some(Err(())),
            };
        }
    }
    let mut private = vec![vec![None; n_phys]; test.threads.len()];
    for (p, w) in writer.iter().enumerate() {
        if let Some(Ok((t, vaddr))) = *w {
            private[t][p] = Some(vaddr);
        }
    }
    // A thread with asynchronous operations may read its own later writes.
    for (t, th) in test.threads.iter().enumerate() {
        if crate::interp::issues_async(&th.code) {
            private[t].iter_mut().for_each(|x| *x = None);
        }
    }
    private
}

/// The one value the read `ev` of thread `t` can return when its location
/// is private to `t` and read through the address it is written through
/// with the generic proxy: the path's last write to it, or the initial value.
fn forced_value(
    test: &Test,
    private: &Private,
    written: &Written,
    t: usize,
    ev: &crate::event::Event,
) -> Option<i64> {
    let loc = ev.loc()?;
    let p = loc.phys.index();
    let mine = private.get(t)?.get(p).copied().flatten() == Some(loc.vaddr);
    (mine && ev.proxy == Proxy::Generic)
        .then(|| written.get(p).copied().flatten())
        .map(|v| v.unwrap_or_else(|| test.init_mem.get(p).copied().unwrap_or(0)))
}

/// Provenance combinations a data-dependent write may look at before the
/// precise fixed point gives up (the coarse one takes over).
const MAX_COMBINATIONS: usize = 1024;

/// What each thread can write.
#[derive(Clone, Debug)]
pub(crate) struct Domain {
    /// `[thread][phys]`: the values each thread can write to each location.
    pub values: WriteDomain,
    /// `[thread][phys]`: the most writes to each location one run of the
    /// thread makes.
    pub max_writes: Vec<Vec<u32>>,
}

/// Per path: how many writes to each location it made so far.
type Counts = Vec<u32>;

/// Folds one path's write counts into the thread's maxima.
fn fold_max(max: &mut [u32], counts: &[u32]) {
    for (m, &c) in max.iter_mut().zip(counts) {
        *m = (*m).max(c);
    }
}

/// The values and write counts each thread can produce.
/// Gives up with [`DomainError::Timeout`] once `deadline` passes.
pub(crate) fn write_domain(
    test: &Test,
    codes: &[ThreadCode],
    unroll: u32,
    deadline: Option<Instant>,
) -> Result<Domain, DomainError> {
    match precise(test, codes, unroll, deadline) {
        Err(DomainError::TooLarge) => coarse(test, codes, unroll, deadline),
        other => other,
    }
}

thread_local! {
    /// The domain a caller asked to keep ([`write_domain_kept`]), with what it
    /// was computed from: the long-run warning's probe, then the run of the
    /// same test on the same thread.
    static KEPT: RefCell<Option<(Test, u32, Reading, Domain)>> = const { RefCell::new(None) };
}

/// [`write_domain`] for the threads of `test` built under `reading`, taken
/// from the one kept by the previous call when it was for an equal test,
/// `unroll` and `reading` (the domain depends on nothing else; a deadline
/// only stops its computation), and kept for the next call when `keep`.
pub(crate) fn write_domain_kept(
    test: &Test,
    codes: &[ThreadCode],
    unroll: u32,
    reading: Reading,
    deadline: Option<Instant>,
    keep: bool,
) -> Result<Domain, DomainError> {
    let kept = KEPT.with(|k| {
        let mut k = k.borrow_mut();
        match k.take() {
            Some((t, u, r, d)) if u == unroll && r == reading && t == *test => Some(d),
            other => {
                *k = other;
                None
            }
        }
    });
    let d = match kept {
        Some(d) => d,
        None => write_domain(test, codes, unroll, deadline)?,
    };
    if keep {
        KEPT.with(|k| *k.borrow_mut() = Some((test.clone(), unroll, reading, d.clone())));
    }
    Ok(d)
}

/// Adds `(value, chain)` to `set` unless a chain of the same value that is a
/// subset of `chain` is there, dropping the chains of the value that
/// `chain` is a subset of. A chain only limits what extends it (no write
/// twice), so a smaller chain of the same value extends to every value a
/// larger one does: keeping the minimal chains of each value gives the same
/// values, with far fewer elements when chains go through RMWs.
fn insert_minimal(set: &mut BTreeSet<Element>, value: i64, chain: Chain) {
    let same_value = set
        .range((value, Chain::default())..)
        .take_while(|(v, _)| *v == value);
    let mut larger = Vec::new();
    for (_, c) in same_value {
        if c.is_subset(&chain) {
            return;
        }
        if chain.is_subset(c) {
            larger.push(c.clone());
        }
    }
    for c in larger {
        set.remove(&(value, c));
    }
    set.insert((value, chain));
}

/// The fixed point over values with provenance.
fn precise(
    test: &Test,
    codes: &[ThreadCode],
    unroll: u32,
    deadline: Option<Instant>,
) -> Result<Domain, DomainError> {
    let n_phys = test.n_phys as usize;
    let mut dom: Vec<BTreeSet<Element>> = (0..n_phys)
        .map(|p| BTreeSet::from([(test.init_mem.get(p).copied().unwrap_or(0), Chain::default())]))
        .collect();
    let mut numbers = Interner::default();
    // Every element offered to `found` so far, in any round: the sets only
    // gain elements or lose them to subsets of the same value, so offering
    // one again is a no-op.
    let mut inserted: fxhash::FxHashSet<(usize, i64, Chain)> = Default::default();
    let private = private_locations(test);
    let mut steps = 0usize;
    loop {
        let mut writes: WriteDomain = vec![vec![BTreeSet::new(); n_phys]; codes.len()];
        let mut max_writes = vec![vec![0u32; n_phys]; codes.len()];
        let mut found: Vec<BTreeSet<Element>> = dom.clone();
        // Per location, the provenances of each value (`dom` stays as it is
        // for the round): what a read's paths share.
        let grouped: Vec<Vec<(i64, Shared)>> = dom
            .iter()
            .map(|set| {
                let mut groups: Vec<(i64, Vec<Chain>)> = Vec::new();
                for (v, p) in set {
                    match groups.last_mut() {
                        Some((last, ps)) if last == v => ps.push(p.clone()),
                        _ => groups.push((*v, vec![p.clone()])),
                    }
                }
                groups.into_iter().map(|(v, ps)| (v, Rc::new(ps))).collect()
            })
            .collect();
        for (t, code) in codes.iter().enumerate() {
            let start = (
                ThreadState::<i64>::new(code, test, unroll),
                Vec::new(),
                vec![0u32; n_phys],
                vec![None; n_phys],
            );
            let mut stack: Vec<Path> = vec![start];
            'paths: while let Some((mut st, mut prov, mut counts, mut written)) = stack.pop() {
                loop {
                    step(&mut steps, MAX_PRECISE_STEPS, deadline)?;
                    let Next::Event(ev) = st.next(code) else {
                        fold_max(&mut max_writes[t], &counts);
                        break;
                    };
                    let po = st.po_index();
                    let id = EventId::new(po as usize);
                    match ev.kind {
                        EventKind::Read { loc, .. } => {
                            // One path per value (the value decides the
                            // path); the provenances of the value stay
                            // together until a write depends on them. A
                            // read of a private location takes one value.
                            let forced = forced_value(test, &private, &written, t, &ev);
                            let mut groups = grouped[loc.phys.index()]
                                .iter()
                                .filter(|(v, _)| forced.is_none_or(|f| f == *v));
                            let Some((v0, p0)) = groups.next() else {
                                break;
                            };
                            for (v, p) in groups {
                                let mut other =
                                    (st.clone(), prov.clone(), counts.clone(), written.clone());
                                other.0.commit(id, Some(*v));
                                other.1.push((id, Rc::clone(p)));
                                stack.push(other);
                            }
                            st.commit(id, Some(*v0));
                            prov.push((id, Rc::clone(p0)));
                        }
                        EventKind::Write { loc, value, .. } => {
                            let me = (t as u32, po, ev.instr);
                            // An instruction outside every loop runs at most
                            // once per execution (a second run needs a
                            // backward jump over it): a chain holds at most
                            // one of its writes, whatever their indices.
                            let once = !code.loops().iter().any(|l| l.contains(ev.instr as usize));
                            let Some(me_id) = numbers.id(me) else {
                                return Err(DomainError::TooLarge);
                            };
                            let same = numbers.conflicts(me, once);
                            // The write happens on this path whatever the
                            // chains: count it before the path may be dropped.
                            counts[loc.phys.index()] += 1;
                            fold_max(&mut max_writes[t], &counts);
                            // Every chain: one provenance of each read the
                            // value depends on, with this write.
                            let deps: Vec<&Vec<Chain>> = ev
                                .data_deps
                                .iter()
                                .filter_map(|d| prov.iter().find(|e| e.0 == *d).map(|e| &*e.1))
                                .collect();
                            let combinations = deps
                                .iter()
                                .try_fold(1usize, |n, ps| n.checked_mul(ps.len().max(1)));
                            if combinations.is_none_or(|n| n > MAX_COMBINATIONS) {
                                return Err(DomainError::TooLarge);
                            }
                            let mut pick = vec![0usize; deps.len()];
                            let mut any = false;
                            loop {
                                let reused = deps
                                    .iter()
                                    .zip(&pick)
                                    .any(|(ps, &i)| ps.get(i).is_some_and(|p| p.meets(&same)));
                                // A chain that uses this write twice is no chain.
                                if !reused {
                                    let mut chain = Chain::single(me_id);
                                    for (ps, &i) in deps.iter().zip(&pick) {
                                        if let Some(p) = ps.get(i) {
                                            chain.union_with(p);
                                        }
                                    }
                                    // (An element met before changes nothing: it
                                    // is in the set, or a subset of its chain is.)
                                    let phys = loc.phys.index();
                                    if !inserted.contains(&(phys, value, chain.clone())) {
                                        inserted.insert((phys, value, chain.clone()));
                                        insert_minimal(&mut found[phys], value, chain);
                                    }
                                    any = true;
                                }
                                // Next combination.
                                let mut k = 0;
                                while k < deps.len() {
                                    pick[k] += 1;
                                    if pick[k] < deps[k].len() {
                                        break;
                                    }
                                    pick[k] = 0;
                                    k += 1;
                                }
                                if k == deps.len() {
                                    break;
                                }
                            }
                            if !any {
                                // This path needs a chain that uses this write twice.
                                continue 'paths;
                            }
                            writes[t][loc.phys.index()].insert(value);
                            written[loc.phys.index()] = Some(value);
                            st.commit(id, None);
                        }
                        _ => st.commit(id, None),
                    }
                }
            }
        }
        if found.iter().map(BTreeSet::len).sum::<usize>() > MAX_ELEMENTS {
            return Err(DomainError::TooLarge);
        }
        if found == dom {
            return Ok(Domain {
                values: writes,
                max_writes,
            });
        }
        dom = found;
    }
}

/// The fixed point over plain values: round r finds every value produced by a
/// chain of at most r writes, so after as many rounds as one execution can
/// have write events the domain is complete.
fn coarse(
    test: &Test,
    codes: &[ThreadCode],
    unroll: u32,
    deadline: Option<Instant>,
) -> Result<Domain, DomainError> {
    let n_phys = test.n_phys as usize;
    let init: Vec<BTreeSet<i64>> = (0..n_phys)
        .map(|p| BTreeSet::from([test.init_mem.get(p).copied().unwrap_or(0)]))
        .collect();
    let mut values = init.clone();
    let private = private_locations(test);
    let mut steps = 0usize;
    let mut round = 0usize;
    loop {
        round += 1;
        let mut writes: WriteDomain = vec![vec![BTreeSet::new(); n_phys]; codes.len()];
        let mut per_location = vec![vec![0u32; n_phys]; codes.len()];
        let mut max_writes = 0usize;
        for (t, code) in codes.iter().enumerate() {
            let mut thread_max = 0usize;
            let start = (
                ThreadState::<i64>::new(code, test, unroll),
                0usize,
                vec![0u32; n_phys],
                vec![None; n_phys],
            );
            let mut stack = vec![start];
            while let Some((mut st, mut n_writes, mut counts, mut written)) = stack.pop() {
                loop {
                    step(&mut steps, MAX_STEPS, deadline)?;
                    let Next::Event(ev) = st.next(code) else {
                        break;
                    };
                    let id = EventId::new(st.po_index() as usize);
                    match ev.kind {
                        EventKind::Read { loc, .. } => {
                            // A read of a private location takes the value
                            // this path wrote last (in `values` or not yet).
                            let forced = forced_value(test, &private, &written, t, &ev);
                            let mut it = match forced {
                                Some(f) => vec![f].into_iter(),
                                None => values[loc.phys.index()]
                                    .iter()
                                    .copied()
                                    .collect::<Vec<i64>>()
                                    .into_iter(),
                            };
                            let first = it.next().unwrap_or(0);
                            for v in it {
                                let mut other = st.clone();
                                other.commit(id, Some(v));
                                let more = (other, n_writes, counts.clone(), written.clone());
                                stack.push(more);
                            }
                            st.commit(id, Some(first));
                        }
                        EventKind::Write { loc, value, .. } => {
                            writes[t][loc.phys.index()].insert(value);
                            written[loc.phys.index()] = Some(value);
                            n_writes += 1;
                            counts[loc.phys.index()] += 1;
                            st.commit(id, None);
                        }
                        _ => st.commit(id, None),
                    }
                }
                thread_max = thread_max.max(n_writes);
                fold_max(&mut per_location[t], &counts);
            }
            max_writes += thread_max;
        }
        let mut next = init.clone();
        for w in &writes {
            for (p, s) in w.iter().enumerate() {
                next[p].extend(s.iter().copied());
            }
        }
        if next == values || round > max_writes {
            return Ok(Domain {
                values: writes,
                max_writes: per_location,
            });
        }
        values = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A domain kept by one call serves the next call for an equal test,
    /// unroll and reading (and only once); another test computes its own.
    #[test]
    fn a_kept_domain_serves_the_same_test_once() {
        let of = |family: &str| {
            let src = ptxmc_frontend::families::generate(family, 2, "gpu").expect("a family");
            let test = ptxmc_frontend::parse(&src).expect("parses");
            let codes: Vec<ThreadCode> = (0..test.threads.len())
                .map(|t| {
                    ThreadCode::new(&test, ptxmc_frontend::ir::ThreadId::new(t)).expect("code")
                })
                .collect();
            (test, codes)
        };
        let (lock, lock_codes) = of("ticket-lock");
        let (sb, sb_codes) = of("sb");
        let spec = Reading::SPEC;
        let kept = || KEPT.with(|k| k.borrow().as_ref().map(|e| e.0.name.clone()));
        let first = write_domain_kept(&lock, &lock_codes, 2, spec, None, true).expect("domain");
        assert_eq!(kept(), Some(lock.name.clone()));
        // Another test: computed, and the kept one stays for its own test.
        let other = write_domain_kept(&sb, &sb_codes, 2, spec, None, false).expect("domain");
        assert_eq!(
            other.values,
            write_domain(&sb, &sb_codes, 2, None)
                .expect("domain")
                .values
        );
        assert_eq!(kept(), Some(lock.name.clone()));
        // Another unroll bound: not the kept one either.
        write_domain_kept(&lock, &lock_codes, 3, spec, None, false).expect("domain");
        assert_eq!(kept(), Some(lock.name.clone()));
        // The same test: taken, once.
        let again = write_domain_kept(&lock, &lock_codes, 2, spec, None, false).expect("domain");
        assert_eq!(
            (again.values, again.max_writes),
            (first.values, first.max_writes)
        );
        assert_eq!(kept(), None);
    }

    /// Only the minimal chains of each value stay, whatever the order they
    /// come in; other values are left alone.
    #[test]
    fn minimal_chains_per_value() {
        let c = |ids: &[u32]| {
            let mut c = Chain::default();
            for &i in ids {
                c.union_with(&Chain::single(i));
            }
            c
        };
        let mut set = BTreeSet::new();
        insert_minimal(&mut set, 1, c(&[0, 1]));
        insert_minimal(&mut set, 2, c(&[0, 1]));
        insert_minimal(&mut set, 1, c(&[1]));
        insert_minimal(&mut set, 1, c(&[1, 2]));
        insert_minimal(&mut set, 1, c(&[2]));
        let mut got: Vec<Element> = set.into_iter().collect();
        got.sort_by_key(|(v, c)| (*v, c.clone()));
        let mut want = vec![(1, c(&[1])), (1, c(&[2])), (2, c(&[0, 1]))];
        want.sort_by_key(|(v, c)| (*v, c.clone()));
        assert_eq!(got, want);
    }
}
