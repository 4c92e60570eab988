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
//! already used. That bounds counters (two `atom.add`s give 1 and 2, not
//! every integer) and the fixed point terminates. If provenances grow past a
//! budget, a coarser fixed point over plain values takes over, bounded by the
//! number of write events one execution can have.
//!
//! The same runs also bound how many writes each thread can still make to
//! each location ([`Domain::max_writes`]): the interpreter runs of the last
//! round cover every path a thread can take in any execution (each read
//! returns a value of the domain), so the most writes to a location on one
//! of them bounds the writes of that thread in every execution.

use super::dpor::WriteDomain;
use crate::event::{EventId, EventKind};
use crate::interp::{Next, ThreadCode, ThreadState};
use ptxmc_frontend::ir::Test;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

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

/// A write event of a chain: (thread, program-order index).
type WriteEvent = (u32, u32);

/// A value with the write events of the chain that produced it (sorted).
type Element = (i64, Vec<WriteEvent>);

/// A path of the precise fixed point: the thread state and, per read (by
/// program-order index), the provenance of the value it took.
type Path = (ThreadState<i64>, BTreeMap<EventId, Vec<WriteEvent>>, Counts);

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

fn union(a: &[WriteEvent], b: &[WriteEvent]) -> Vec<WriteEvent> {
    let mut out: Vec<WriteEvent> = a.iter().chain(b).copied().collect();
    out.sort_unstable();
    out.dedup();
    out
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
        .map(|p| BTreeSet::from([(test.init_mem.get(p).copied().unwrap_or(0), Vec::new())]))
        .collect();
    let mut steps = 0usize;
    loop {
        let mut writes: WriteDomain = vec![vec![BTreeSet::new(); n_phys]; codes.len()];
        let mut max_writes = vec![vec![0u32; n_phys]; codes.len()];
        let mut found: Vec<BTreeSet<Element>> = dom.clone();
        for (t, code) in codes.iter().enumerate() {
            let start = (
                ThreadState::<i64>::new(code, test, unroll),
                BTreeMap::new(),
                vec![0u32; n_phys],
            );
            let mut stack: Vec<Path> = vec![start];
            'paths: while let Some((mut st, mut prov, mut counts)) = stack.pop() {
                loop {
                    steps += 1;
                    if steps > MAX_PRECISE_STEPS {
                        return Err(DomainError::TooLarge);
                    }
                    if past(deadline, steps) {
                        return Err(DomainError::Timeout);
                    }
                    let Next::Event(ev) = st.next(code) else {
                        fold_max(&mut max_writes[t], &counts);
                        break;
                    };
                    let po = st.po_index();
                    let id = EventId::new(po as usize);
                    match ev.kind {
                        EventKind::Read { loc, .. } => {
                            let mut options = dom[loc.phys.index()].iter();
                            let Some((v0, p0)) = options.next().cloned() else {
                                break;
                            };
                            for (v, p) in options {
                                let mut other = (st.clone(), prov.clone(), counts.clone());
                                other.0.commit(id, Some(*v));
                                other.1.insert(id, p.clone());
                                stack.push(other);
                            }
                            st.commit(id, Some(v0));
                            prov.insert(id, p0);
                        }
                        EventKind::Write { loc, value, .. } => {
                            let me = (t as u32, po);
                            let mut chain = vec![me];
                            for d in &ev.data_deps {
                                if let Some(p) = prov.get(d) {
                                    chain = union(&chain, p);
                                }
                            }
                            let reused = ev
                                .data_deps
                                .iter()
                                .any(|d| prov.get(d).is_some_and(|p| p.contains(&me)));
                            // The write happens on this path whatever the
                            // chains: count it before the path may be dropped.
                            counts[loc.phys.index()] += 1;
                            fold_max(&mut max_writes[t], &counts);
                            if reused {
                                // This path needs a chain that uses this write twice.
                                continue 'paths;
                            }
                            writes[t][loc.phys.index()].insert(value);
                            found[loc.phys.index()].insert((value, chain));
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
            );
            let mut stack = vec![start];
            while let Some((mut st, mut n_writes, mut counts)) = stack.pop() {
                loop {
                    steps += 1;
                    if steps > MAX_STEPS {
                        return Err(DomainError::TooLarge);
                    }
                    if past(deadline, steps) {
                        return Err(DomainError::Timeout);
                    }
                    let Next::Event(ev) = st.next(code) else {
                        break;
                    };
                    let id = EventId::new(st.po_index() as usize);
                    match ev.kind {
                        EventKind::Read { loc, .. } => {
                            let vals = &values[loc.phys.index()];
                            let mut it = vals.iter();
                            let first = it.next().copied().unwrap_or(0);
                            for &v in it {
                                let mut other = st.clone();
                                other.commit(id, Some(v));
                                stack.push((other, n_writes, counts.clone()));
                            }
                            st.commit(id, Some(first));
                        }
                        EventKind::Write { loc, value, .. } => {
                            writes[t][loc.phys.index()].insert(value);
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
