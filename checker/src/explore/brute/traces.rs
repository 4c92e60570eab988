//! Every path of one thread, with symbolic values (herd-style): reads are
//! variables, branches the values do not decide fork with a constraint, and
//! a thread may stop forever at a barrier wait that has a thread count.

use super::sym::Sym;
use crate::event::{Event, EventId, EventKind};
use crate::interp::{BranchCond, Next, ThreadCode, ThreadState, Value};
use crate::report::BlockReason;
use ptxmc_frontend::ir::{BarrierKind, CmpOp, Span, Test};

/// A branch outcome a path assumes: `cmp(a, b) == holds`.
#[derive(Clone, Debug)]
pub(crate) struct Constraint {
    pub cmp: CmpOp,
    pub a: Sym,
    pub b: Sym,
    pub holds: bool,
}

/// How a path ends.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum TraceEnd {
    /// The thread ran to its end.
    Done,
    /// A spin loop took its back edge at `at`; `iteration` holds the
    /// program-order indices of the events of that iteration.
    Spin { iteration: Vec<u32>, at: Span },
    /// A loop exceeded the unroll bound at `at`.
    Bound { at: Span },
    /// The thread waits forever at its last event, a barrier with a count.
    BarrierStop,
}

/// One path of one thread. Event ids inside (dependencies) are program-order
/// indices of the thread; the explorer renumbers them.
#[derive(Clone, Debug)]
pub(crate) struct Trace {
    /// The events, in program order (read values 0; write values 0 unless constant).
    pub events: Vec<Event>,
    /// The value each write writes.
    pub write_values: Vec<Option<Sym>>,
    /// The runtime id and count of each barrier.
    pub barriers: Vec<Option<(Sym, Option<Sym>)>>,
    /// Branch outcomes the path assumes.
    pub constraints: Vec<Constraint>,
    /// How it ends.
    pub end: TraceEnd,
    /// Final register values.
    pub regs: Vec<Sym>,
}

/// Events one path may have (a safety net: every loop is bounded).
const MAX_EVENTS: usize = 100_000;

/// Too many paths in one thread, or a path too long.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct TooManyPaths;

/// Why [`enumerate`] stopped.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Stopped {
    /// Too many paths, or a path too long.
    TooMany(TooManyPaths),
    /// The deadline passed (a thread with hundreds of thousands of paths
    /// takes seconds to enumerate).
    Deadline,
}

impl From<TooManyPaths> for Stopped {
    fn from(t: TooManyPaths) -> Self {
        Stopped::TooMany(t)
    }
}

/// Paths finished between two looks at the clock (a power of two).
const CLOCK_EVERY: usize = 256;
const _: () = assert!(CLOCK_EVERY.is_power_of_two());

/// Every path of the thread of `code`, at most `max` of them (each of at most
/// `MAX_EVENTS` events), stopping once `deadline` has passed.
pub(crate) fn enumerate(
    code: &ThreadCode,
    test: &Test,
    unroll: u32,
    max: usize,
    deadline: Option<std::time::Instant>,
) -> Result<Vec<Trace>, Stopped> {
    let start = Trace {
        events: Vec::new(),
        write_values: Vec::new(),
        barriers: Vec::new(),
        constraints: Vec::new(),
        end: TraceEnd::Done,
        regs: Vec::new(),
    };
    let mut stack = vec![(ThreadState::<Sym>::new(code, test, unroll), start)];
    let mut out = Vec::new();
    while let Some((mut st, mut tr)) = stack.pop() {
        if out.len() & (CLOCK_EVERY - 1) == 0
            && deadline.is_some_and(|d| std::time::Instant::now() >= d)
        {
            return Err(Stopped::Deadline);
        }
        loop {
            match st.next(code) {
                Next::Event(ev) => {
                    let po = st.po_index();
                    let write = st.pending_write_value().cloned();
                    let barrier = st.pending_barrier().map(|(id, c)| (id.clone(), c.cloned()));
                    let can_stop = matches!(
                        ev.kind,
                        EventKind::Barrier {
                            kind: BarrierKind::Sync | BarrierKind::Red | BarrierKind::ClusterWait,
                            ..
                        }
                    ) && barrier.as_ref().is_some_and(|(_, c)| c.is_some());
                    let is_read = ev.is_read();
                    if tr.events.len() >= MAX_EVENTS {
                        return Err(TooManyPaths.into());
                    }
                    tr.events.push(ev);
                    tr.write_values.push(write);
                    tr.barriers.push(barrier);
                    if can_stop {
                        let mut stopped = tr.clone();
                        stopped.end = TraceEnd::BarrierStop;
                        stopped.regs = st.regs().to_vec();
                        push(&mut out, stopped, max)?;
                    }
                    let value = is_read.then(|| Sym::read(po));
                    st.commit(EventId::new(po as usize), value);
                }
                Next::Branch(c) => {
                    if let Some(taken) = implied(&tr.constraints, &c) {
                        // The path already decides it (a branch on the value a
                        // CAS compared): no fork into a path no values satisfy.
                        st.decide(code, taken);
                        continue;
                    }
                    let mut other = (st.clone(), tr.clone());
                    if st.deciding_cas() == Some(false) {
                        // The CAS fails and writes nothing: its read is a
                        // plain read (the `failed-cas-read` reading).
                        if let Some(EventKind::Read { rmw, .. }) =
                            other.1.events.last_mut().map(|e| &mut e.kind)
                        {
                            *rmw = false;
                        }
                    }
                    other.0.decide(code, false);
                    other.1.constraints.push(Constraint {
                        cmp: c.cmp,
                        a: c.a.clone(),
                        b: c.b.clone(),
                        holds: false,
                    });
                    stack.push(other);
                    st.decide(code, true);
                    tr.constraints.push(Constraint {
                        cmp: c.cmp,
                        a: c.a,
                        b: c.b,
                        holds: true,
                    });
                }
                Next::Done => {
                    tr.end = TraceEnd::Done;
                    break;
                }
                Next::Blocked(why) => {
                    let at = st.blocked_at(code).unwrap_or_default();
                    tr.end = match why {
                        BlockReason::Spin => TraceEnd::Spin {
                            iteration: st.spin_iteration().iter().map(|e| e.0).collect(),
                            at,
                        },
                        _ => TraceEnd::Bound { at },
                    };
                    break;
                }
            }
        }
        tr.regs = st.regs().to_vec();
        push(&mut out, tr, max)?;
    }
    Ok(out)
}

/// The outcome of `c` when a constraint of the path already decides it: an
/// equality or inequality of the same two values (in either order) that the
/// path assumes, or an equality of the value with another constant that
/// it assumes. Only `==`/`!=` against `==`/`!=`; anything else is left to
/// the values (`None`).
fn implied(constraints: &[Constraint], c: &BranchCond<Sym>) -> Option<bool> {
    let eq = |cmp: CmpOp, holds: bool| match cmp {
        CmpOp::Eq => Some(holds),
        CmpOp::Ne => Some(!holds),
        _ => None,
    };
    let want = eq(c.cmp, true)?;
    constraints.iter().rev().find_map(|k| {
        let same = (k.a == c.a && k.b == c.b) || (k.a == c.b && k.b == c.a);
        if let Some(equal) = eq(k.cmp, k.holds).filter(|_| same) {
            return Some(equal == want);
        }
        // `v == k1` assumed: `v == k2` for another constant `k2` fails (the
        // cases of a dispatch on a register, such as a `bar.red` whose
        // barrier id only the run tells).
        let (v, k1) = value_and_constant(&k.a, &k.b)?;
        let (w, k2) = value_and_constant(&c.a, &c.b)?;
        (eq(k.cmp, k.holds)? && v == w && k1 != k2).then_some(!want)
    })
}

/// The value and the constant of a comparison between a value that is not a
/// constant and one that is.
fn value_and_constant<'a>(a: &'a Sym, b: &'a Sym) -> Option<(&'a Sym, i64)> {
    match (a.as_constant(), b.as_constant()) {
        (None, Some(k)) => Some((a, k)),
        (Some(k), None) => Some((b, k)),
        _ => None,
    }
}

fn push(out: &mut Vec<Trace>, t: Trace, max: usize) -> Result<(), TooManyPaths> {
    if out.len() >= max {
        return Err(TooManyPaths);
    }
    out.push(t);
    Ok(())
}
