//! Which values each thread can write to each location: a fixed point over
//! concrete runs of the interpreter, where every read may return any value
//! some write (or the initial state) can produce. The DPOR explorer uses it to
//! know which values a read may commit to before their writer exists.

use super::dpor::WriteDomain;
use crate::event::{EventId, EventKind};
use crate::interp::{Next, ThreadCode, ThreadState};
use ptxmc_frontend::ir::Test;
use std::collections::BTreeSet;

/// Interpreter steps allowed for the whole fixed point.
const MAX_STEPS: usize = 2_000_000;

/// Why the domain could not be computed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct DomainTooLarge;

/// `[thread][phys]`: the values each thread can write to each location.
///
/// Round r finds every value produced by a chain of at most r writes, each
/// reading (directly or through registers) a value of the one before. No-Thin-
/// Air (8.10.4) makes such chains acyclic in any consistent execution, so a
/// chain is never longer than the number of write events one execution can
/// have: after that many rounds the domain is complete even if it has not
/// reached a fixed point (counters such as repeated `atom.add` never do).
pub(crate) fn write_domain(
    test: &Test,
    codes: &[ThreadCode],
    unroll: u32,
) -> Result<WriteDomain, DomainTooLarge> {
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
        // The most write events one execution can have (sum over threads of
        // their longest path's writes).
        let mut max_writes = 0usize;
        for (t, code) in codes.iter().enumerate() {
            let mut thread_max = 0usize;
            let mut stack = vec![(ThreadState::<i64>::new(code, test, unroll), 0usize)];
            while let Some((mut st, mut n_writes)) = stack.pop() {
                loop {
                    steps += 1;
                    if steps > MAX_STEPS {
                        return Err(DomainTooLarge);
                    }
                    match st.next(code) {
                        Next::Event(ev) => {
                            let id = EventId::new(st.po_index() as usize);
                            match ev.kind {
                                EventKind::Read { loc, .. } => {
                                    let vals = &values[loc.phys.index()];
                                    let mut it = vals.iter();
                                    let first = it.next().copied().unwrap_or(0);
                                    for &v in it {
                                        let mut other = st.clone();
                                        other.commit(id, Some(v));
                                        stack.push((other, n_writes));
                                    }
                                    st.commit(id, Some(first));
                                }
                                EventKind::Write { loc, value, .. } => {
                                    writes[t][loc.phys.index()].insert(value);
                                    n_writes += 1;
                                    st.commit(id, None);
                                }
                                _ => st.commit(id, None),
                            }
                        }
                        Next::Branch(_) | Next::Done | Next::Blocked(_) => break,
                    }
                }
                thread_max = thread_max.max(n_writes);
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
            return Ok(writes);
        }
        values = next;
    }
}
