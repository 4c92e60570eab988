//! The DPOR explorer: builds execution graphs one event at a time, each
//! consistent graph exactly once, with no set of visited graphs.
//!
//! Design (after GenMC's TruSt, POPL 2022, and HMC, ASPLOS 2020, adapted to
//! PTX; see `../shared/design/dpor-for-ptx.md` and `ARCHITECTURE.md`):
//!
//! - Events are added in a fixed order: the first thread that can go on,
//!   to its end or until it stops at a read (below), each thread in program
//!   order. Every event is added to a graph whose prefix is consistent; a
//!   graph is pruned as soon as it is inconsistent, which is sound because
//!   every axiom of 8.10 is monotone in the events and edges present
//!   (relations only grow).
//! - A **read** branches over the writes already in the graph (forward
//!   revisits), and over one more choice: reading from a write not yet
//!   added. Its thread then *waits*: it stops at the read, uncommitted, and
//!   the other threads go on ([`Run::Waiting`]).
//! - A **write** branches over its coherence position with respect to the
//!   morally strong writes of its location already added (8.9.6: only those
//!   pairs are ordered; racing writes cost no branching), and over which of
//!   the waiting reads of its location read from it (backward revisits):
//!   each such read gets the write's value and its thread goes on. Nothing
//!   has to be deleted and re-run, as TruSt does, because nothing the
//!   waiting thread would do after the read was added.
//! - Load buffering (8.10.4) needs more: a read may read from a write that
//!   comes after it in program order and reads-from (`ld x; st y` against
//!   `ld y; st x`), so the write cannot be added while its read waits. When
//!   every running thread waits, the first waiting read whose thread has a
//!   write that does not depend on it *commits* to each value a later write
//!   may give it and its thread goes on ([`Dpor::unblock`]); the write that
//!   gives that value is chosen when it is added, as for waiting reads. If
//!   every later write of each waiting thread depends on its read
//!   ([`crate::interp::later_writes_depend`]), the graph is discarded: the
//!   writes the reads wait for would form a cycle of `rf ∪ dep`, which
//!   No-Thin-Air forbids. (Threads with asynchronous operations, whose events
//!   are not in program order, commit at once instead of waiting.) This is
//!   HMC's dependency-closed prefix, reached without re-running threads.
//! - A waiting or committed read that no write can serve discards its graph
//!   as soon as that is certain ([`Dpor::satisfiable`]): it needs a write
//!   from a thread that may still run and write its location (for committed
//!   reads, that value, [`super::domain`]), and not one that it already
//!   precedes in causality order ([`Dpor::causally_after`], 8.10.6); two
//!   RMWs morally strong with each other and with every write that could
//!   serve them need two writes (8.10.3, [`Dpor::must_not_share`]), and a
//!   new write is never given to two such RMWs.
//! - Each complete graph is produced from exactly one path of choices (a
//!   read's writer is chosen either when the read is added, if the writer
//!   already exists, or when the writer is added; a commitment is forced,
//!   not chosen, and its children differ in the value), so no graph is
//!   visited twice: the one-parent property that TruSt gets from its
//!   maximality check holds here by construction. Memory is linear in the
//!   depth of the search.
//! - Fence-SC order and barrier arrival order are existential, as in the
//!   reference enumerator; the completion step ([`super::candidate`]) is
//!   shared with it, so both count and judge executions identically.
//!
//! Making each step cheap:
//!
//! - One graph is kept and changed in place: a child is an event pushed (or
//!   edges added) and popped again when its subtree is done, never a copy of
//!   the graph. Only the thread state of the stepping thread is copied per
//!   child (the interpreter has no undo), into buffers reused from node to
//!   node (`State::save`, `ThreadState::clone_from`): once the search is as
//!   deep as it gets, a node allocates nothing.
//! - What depends only on the events (program order, morally strong,
//!   patterns, ...) is kept up to date event by event
//!   ([`crate::model::fast::Statics`]); a consistency check recomputes only
//!   what depends on reads-from and coherence, on one machine word per event
//!   ([`crate::model::fast::decide`]).
//! - A graph is checked lazily, right before it is extended, and only when
//!   the last change can have broken it: an added fence cannot (see
//!   [`Dpor::visit`]); an added read is checked incrementally from the
//!   relations of the graph it extends, which only gain a column
//!   ([`crate::model::fast::add_read`]); writes (new coherence and reads-from
//!   edges anywhere) get a full check. The relations a read node extends are
//!   saved once per node into a frame of a per-worker stack of frames
//!   (`State::save_derived`), reused on backtrack.
//! - A complete graph is folded in without copying it in the common case
//!   ([`Dpor::finish_fast`]: every thread done, no barrier, at most one
//!   `fence.sc`, relations found consistent, one coherence-last write per
//!   observed location): its one final state is read off the registers and
//!   the coherence rows and counted in [`Outcomes`] by its values alone
//!   ([`Outcomes::add_final`], no allocation for a state seen before).
//!   Otherwise it hands its relations to the check [`candidate::finish`]
//!   makes ([`crate::model::fast::offer`]).
//! - Children that cannot be consistent are not generated when a cheap
//!   argument shows it (each is a case of an axiom the full check would
//!   find violated, so counts do not change): a read does not read a write
//!   coherence-before a write that precedes it in causality order (8.10.6;
//!   found once per read node from its relations, [`fast::preceding`]); an
//!   RMW read does not read a write that a morally strong RMW already reads; an RMW write comes right
//!   after the write its read reads ([`coherence_positions`]); a write gives
//!   its value to a waiting RMW read only at a coherence position right
//!   before that RMW's write half ([`Dpor::rmw_half`]); and sets of waiting
//!   reads are enumerated only among those a position allows.
//!
//! Parallel exploration: the subtrees of branching nodes near the root are
//! handed to the rayon pool the caller runs in ([`rayon::join`]), the later
//! half of the children to another worker, until the search is cut into
//! about [`PARTS_PER_THREAD`] parts per pool thread; each worker keeps its own
//! graph and [`Outcomes`], and the parts are merged in the order of the
//! sequential search ([`Outcomes::merge`]), so results are the same for every
//! number of threads. Time and execution limits are shared: the first worker
//! to reach one stops the others.

mod coherence;
mod fairness;
mod satisfy;

use super::barrier;
use super::candidate::{self, Ending, Finish};
use super::domain::{self as domain_mod, Domain};
use super::outcome::{self, Outcomes};
use super::Budget;
use crate::event::{Event, EventId, EventKind, Location};
use crate::execution::Execution;
use crate::interp::{Next, ThreadCode, ThreadState};
use crate::model::{self, fast};
use crate::report::{BlockReason, Status};
use coherence::{coherence_positions, rmw_guards, Reach};
use ptxmc_frontend::ir::{BarrierKind, Proxy, Span, Test, ThreadId, VAddrId};
use smallvec::SmallVec;
use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// How a thread stands in a partial graph.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Run {
    /// Still has instructions to execute.
    Running,
    /// Ended: done, blocked, or stopped at a barrier forever.
    Ended(Ending),
    /// Stopped at this read, which waits for a write not yet added (the
    /// thread's state holds the read uncommitted).
    Waiting(EventId),
}

impl Run {
    /// Whether the thread may still add events (and so writes).
    fn live(&self) -> bool {
        matches!(self, Run::Running | Run::Waiting(_))
    }
}

/// Where a new read takes its value from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// A write already in the graph, and its value.
    Write(EventId, i64),
    /// A write not yet added, of this value: the thread goes on with it.
    Value(i64),
    /// A write not yet added, whichever it is: the thread stops until that
    /// write is added, or until no thread can go on ([`Dpor::unblock`]).
    Later,
}

/// The graph being built and the thread states: changed in place, each
/// change undone when its subtree is explored.
#[derive(Clone)]
struct State {
    exec: Execution,
    /// What depends only on the events, kept in step with `exec` while it has
    /// at most [`fast::MAX_WIDE_EVENTS`] events (`statics.len() == exec.len()`).
    statics: fast::Statics,
    states: Vec<ThreadState<i64>>,
    runs: Vec<Run>,
    /// Reads committed to reading a value from a write not yet added.
    pending: Vec<EventId>,
    /// Reads waiting for a write not yet added, each stopping its thread
    /// ([`Run::Waiting`]).
    waiting: Vec<EventId>,
    /// Barrier events in the graph.
    barriers: usize,
    /// `fence.sc` events in the graph.
    fences_sc: usize,
    /// Threads ended in a spin loop ([`Ending::Spin`]).
    spinning: usize,
    /// The Fence-SC order last found for a partial graph, tried first for
    /// the next ([`candidate::exists_fence_sc_order_hinted`]).
    fence_hint: Vec<EventId>,
    /// Scratch space of consistency checks; when `derived_valid`, the
    /// relations of this graph, found consistent by the fast path (with no
    /// Fence-SC pair and no barrier synchronization).
    derived: Box<fast::Derived>,
    derived_valid: bool,
    /// Spare thread states and relations, reused for what a node saves for
    /// its children (no allocation per node once the search is deep enough).
    spare_states: Vec<ThreadState<i64>>,
    // (`fast::Derived` boxes its rows by width; the box is kept as is.)
    #[allow(clippy::vec_box)]
    spare_derived: Vec<Box<fast::Derived>>,
}

impl State {
    /// A copy of thread `t`'s state, in a spare buffer when there is one.
    fn save(&mut self, t: usize) -> ThreadState<i64> {
        match self.spare_states.pop() {
            Some(mut x) => {
                x.clone_from(&self.states[t]);
                x
            }
            None => self.states[t].clone(),
        }
    }

    /// Gives back a buffer of [`Self::save`].
    fn recycle(&mut self, x: ThreadState<i64>) {
        self.spare_states.push(x);
    }

    /// A copy of the first `n` rows of the relations at hand.
    fn save_derived(&mut self, n: usize) -> Box<fast::Derived> {
        let mut d = self
            .spare_derived
            .pop()
            .unwrap_or_else(|| Box::new(fast::Derived::new()));
        d.copy_from(&self.derived, n);
        d
    }
}

/// Why an exploration stops early.
enum Halt {
    /// With this status, whatever the number of workers (an unsupported
    /// construct, a limit of the test itself): the sequential search stops
    /// there too.
    Stop(Status),
    /// A worker reached the time or execution limit (`Dpor::stop_status`
    /// says which); every worker stops.
    Limit,
}

type Res = Result<(), Halt>;

/// Parts the search is split into, per worker thread of the pool: enough
/// for work stealing to balance uneven subtrees, few enough that copying
/// the graph for each part costs nothing.
const PARTS_PER_THREAD: usize = 32;

/// What one worker owns: its outcomes and its copy of the limits.
struct Worker {
    out: Outcomes,
    budget: Budget,
    ticks: u32,
    // invariant: at most `STACK_CHECK_EVERY` levels of [`Dpor::visit`] run
    // on this worker's stack since the last [`crate::stack::deep`] check.
    unchecked: u32,
}

/// How many levels of the search run between two checks of the stack left
/// ([`crate::stack::deep`]): the check reads a thread-local, which cost 5-7%
/// on writers-8 when made at every level; [`crate::stack::RED_ZONE`] covers
/// this many levels with room to spare.
const STACK_CHECK_EVERY: u32 = 8;

impl Worker {
    /// A worker for a part of the search that `self` hands over.
    fn fork(&self) -> Self {
        Self {
            out: self.out.fork(),
            budget: self.budget.clone(),
            ticks: self.ticks,
            // The part may run on another thread's stack: check at once.
            unchecked: STACK_CHECK_EVERY,
        }
    }
}

/// The explorer's fixed inputs.
pub(crate) struct Dpor<'a> {
    test: &'a Test,
    codes: &'a [ThreadCode],
    unroll: u32,
    /// `domain.values[t][p]`: values a write of thread `t` may write to `p`;
    /// `domain.max_writes[t][p]`: how many writes to `p` it makes at most.
    domain: &'a Domain,
    /// `accesses[t][p]`: the (virtual address, proxy) pairs through which
    /// thread `t` writes `p`.
    accesses: Vec<Vec<BTreeSet<(VAddrId, Proxy)>>>,
    /// `issues_async[t]`: thread `t` issues asynchronous operations, whose
    /// events are not in its program order (8.9.1.1), so they may read from,
    /// or be read by, later events of the thread.
    issues_async: Vec<bool>,
    /// `dependent[t][pc]`: every write thread `t` makes after a read of the
    /// instruction at `pc` depends on it
    /// ([`crate::interp::later_writes_depend`]), so such a read, when it
    /// waits, is never given a value in advance ([`Self::unblock`]).
    dependent: Vec<Vec<bool>>,
    /// `writers[t][p]`: the writes thread `t` can make to `p`, one per kind
    /// of write instruction (semantics, scope, proxy, address), as events
    /// without a value: what moral strength (8.7) reads of a future write.
    writers: Vec<Vec<Vec<Event>>>,
    /// `private[t][p]`: the address through which thread `t` alone writes
    /// `p` ([`domain_mod::private_locations`]): a read of `p` by `t` through
    /// it reads `t`'s last write to `p` or the initial write.
    private: domain_mod::Private,
    /// Hashes of the complete graphs seen, with `--check-duplicates`.
    seen: Option<Mutex<HashSet<u64>>>,
    /// Terminating executions found by every worker (`--max-executions`).
    executions: AtomicU64,
    /// Set when a worker reached a time or execution limit: the others stop.
    stop: AtomicBool,
    /// The limit that `stop` stands for.
    stop_status: Mutex<Option<Status>>,
    /// Into how many parts the search may be split (1: sequential).
    parts: usize,
    /// The initial value of each physical location.
    init_mem: Vec<i64>,
    /// The physical locations whose final value a term reads
    /// ([`outcome::relevant_locations`]).
    relevant: Vec<usize>,
    // --- hook of `--strategy estimate` (`explore/estimate.rs`) ---
    /// With `Some`, [`Self::branch`] visits one child at random and scales
    /// what it finds (a random walk); `None`: every child (the search).
    walk: Option<super::estimate::Walk>,
    /// No thread has a loop that the unroll bound may cut (every loop is a
    /// side-effect-free spin loop), so no graph records a bound hit and a
    /// blocked graph that can no longer be fair is pruned at once
    /// ([`Self::spins_may_be_fair`]).
    prune_unfair: bool,
    // --- hook of `--split` (`explore/split.rs`) ---
    /// With `Some`, [`Self::branch`] explores only this part's subtrees.
    split: Option<super::split::Split>,
}

impl<'a> Dpor<'a> {
    /// The explorer for `test`, given each thread's possible written values.
    pub(crate) fn new(
        test: &'a Test,
        codes: &'a [ThreadCode],
        unroll: u32,
        domain: &'a Domain,
        check_duplicates: bool,
    ) -> Self {
        let n_phys = test.n_phys as usize;
        let mut accesses = vec![vec![BTreeSet::new(); n_phys]; test.threads.len()];
        let mut writers: Vec<Vec<Vec<Event>>> = vec![vec![Vec::new(); n_phys]; test.threads.len()];
        for (t, th) in test.threads.iter().enumerate() {
            // The write events of each instruction, as the interpreter builds
            // them (`interp::write_shapes`).
            for (addr, proxy, sem, scope, rmw) in th
                .code
                .iter()
                .flat_map(|stmt| crate::interp::write_shapes(&stmt.instr))
            {
                let Some(a) = test.addresses.get(addr.index()) else {
                    continue;
                };
                let Some(slot) = accesses[t].get_mut(a.phys.index()) else {
                    continue;
                };
                slot.insert((a.vaddr, proxy));
                let ev = Event {
                    thread: Some(ThreadId::new(t)),
                    po_index: 0,
                    kind: EventKind::Write {
                        loc: Location {
                            phys: a.phys,
                            vaddr: a.vaddr,
                            addr,
                        },
                        value: 0,
                        rmw,
                        init: false,
                    },
                    sem,
                    scope,
                    proxy,
                    span: Span::default(),
                    instr: 0,
                    addr_deps: SmallVec::new(),
                    data_deps: SmallVec::new(),
                    ctrl_deps: SmallVec::new(),
                    async_order: Default::default(),
                };
                let same = |e: &Event| {
                    (e.sem, e.scope, e.proxy, e.loc().map(|l| l.vaddr))
                        == (ev.sem, ev.scope, ev.proxy, ev.loc().map(|l| l.vaddr))
                };
                let list = &mut writers[t][a.phys.index()];
                if !list.iter().any(same) {
                    list.push(ev);
                }
            }
        }
        let issues_async: Vec<bool> = test
            .threads
            .iter()
            .map(|th| crate::interp::issues_async(&th.code))
            .collect();
        let dependent = codes
            .iter()
            .map(|code| {
                (0..code.stmts().len())
                    .map(|pc| crate::interp::later_writes_depend(code, pc))
                    .collect()
            })
            .collect();
        Self {
            test,
            codes,
            unroll,
            domain,
            accesses,
            issues_async,
            dependent,
            writers,
            private: domain_mod::private_locations(test),
            seen: check_duplicates.then(|| Mutex::new(HashSet::new())),
            executions: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            stop_status: Mutex::new(None),
            parts: match rayon::current_num_threads() {
                1 => 1,
                n => n * PARTS_PER_THREAD,
            },
            init_mem: (0..n_phys)
                .map(|p| test.init_mem.get(p).copied().unwrap_or(0))
                .collect(),
            relevant: outcome::relevant_locations(test)
                .iter()
                .map(|p| p.index())
                .collect(),
            walk: None,
            prune_unfair: codes.iter().all(|c| c.loops().iter().all(|l| l.spin)),
            split: None,
        }
    }

    // --- hook of `--split` (`explore/split.rs`) ---
    /// Makes this explorer explore one part of the tree (or size it), or
    /// all of it (`None`); gives back the hook it had.
    pub(crate) fn set_split(
        &mut self,
        split: Option<super::split::Split>,
    ) -> Option<super::split::Split> {
        std::mem::replace(&mut self.split, split)
    }

    /// The hook of [`Self::set_split`].
    pub(crate) fn split(&self) -> Option<&super::split::Split> {
        self.split.as_ref()
    }

    // --- hook of `--strategy estimate` (`explore/estimate.rs`) ---
    /// This explorer, making random walks instead of searching (sequentially).
    pub(crate) fn with_walk(mut self, walk: super::estimate::Walk) -> Self {
        self.walk = Some(walk);
        self.parts = 1;
        self
    }

    /// The hook of [`Self::with_walk`].
    pub(crate) fn walk(&self) -> Option<&super::estimate::Walk> {
        self.walk.as_ref()
    }

    /// Whether thread `t` alone writes `loc`'s location, through `loc`'s
    /// address ([`domain_mod::private_locations`]).
    fn is_private(&self, t: usize, loc: Location) -> bool {
        self.private[t].get(loc.phys.index()).copied().flatten() == Some(loc.vaddr)
    }

    /// Whether a read of thread `t` through `(vaddr, proxy)` may read from a
    /// write of its own thread that comes later in program order. Program order
    /// is in base causality, so through the same address and proxy it is also
    /// causality order (8.9.5 cases 1 and 2), and the Causality axiom (8.10.6
    /// item 1) forbids reading from it; through an alias or another proxy it
    /// is not forbidden; nor for a thread with asynchronous operations.
    fn may_read_own_later_write(
        &self,
        t: usize,
        phys: usize,
        vaddr: VAddrId,
        proxy: Proxy,
    ) -> bool {
        self.issues_async[t] || self.accesses[t][phys].iter().any(|&a| a != (vaddr, proxy))
    }

    /// Whether thread `t` (still running) may later write to the location of
    /// the read `ev` of thread `rt`, as far as the own-thread rule goes.
    fn future_writer(&self, t: usize, rt: usize, ev: &Event, phys: usize) -> bool {
        t != rt || {
            let vaddr = ev.loc().map_or(VAddrId::new(0), |l| l.vaddr);
            self.may_read_own_later_write(t, phys, vaddr, ev.proxy)
        }
    }

    /// The thread to extend next: the first running one. (Any deterministic
    /// choice keeps each graph produced once; running threads to their end in
    /// order lets every read of a thread find the writes of earlier threads
    /// already in the graph.)
    fn schedule(s: &State) -> Option<usize> {
        s.runs.iter().position(|r| *r == Run::Running)
    }

    /// Explores every execution, folding complete ones into `out`.
    pub(crate) fn run(&self, out: &mut Outcomes, budget: &mut Budget) -> Status {
        let exec = candidate::empty_execution(self.test);
        let statics = fast::Statics::new(&exec).unwrap_or_else(fast::Statics::empty);
        let states = self
            .codes
            .iter()
            .map(|c| ThreadState::new(c, self.test, self.unroll))
            .collect();
        let mut root = State {
            exec,
            statics,
            states,
            runs: vec![Run::Running; self.codes.len()],
            pending: Vec::new(),
            waiting: Vec::new(),
            barriers: 0,
            fences_sc: 0,
            spinning: 0,
            fence_hint: Vec::new(),
            derived: Box::new(fast::Derived::new()),
            derived_valid: false,
            spare_states: Vec::new(),
            spare_derived: Vec::new(),
        };
        let mut w = Worker {
            out: out.fork(),
            budget: budget.clone(),
            ticks: 0,
            unchecked: STACK_CHECK_EVERY,
        };
        let res = self.visit(&mut root, &mut w, true, self.parts);
        out.merge(w.out);
        match res {
            Ok(()) => Status::Ok,
            Err(Halt::Stop(s)) => s,
            Err(Halt::Limit) => self
                .stop_status
                .lock()
                .map(|s| s.clone())
                .ok()
                .flatten()
                .unwrap_or_else(|| Status::Limit("stopped".into())),
        }
    }

    /// Stops every worker with a time or execution limit.
    fn limit(&self, status: Status) -> Halt {
        if let Ok(mut slot) = self.stop_status.lock() {
            slot.get_or_insert(status);
        }
        self.stop.store(true, Ordering::Relaxed);
        Halt::Limit
    }

    /// The time limit, looked at every [`Budget::every`] nodes, and the other
    /// workers' limits.
    fn tick(&self, w: &mut Worker) -> Res {
        w.ticks += 1;
        if w.ticks >= w.budget.every() {
            w.ticks = 0;
            if self.stop.load(Ordering::Relaxed) {
                return Err(Halt::Limit);
            }
            if let Err(s) = w.budget.tick(&w.out) {
                return Err(self.limit(s));
            }
        }
        Ok(())
    }

    /// Explores the graph `s`. `check`: whether `s` still has to be checked
    /// (it is checked only when it is about to be extended, see the module
    /// documentation). `parts`: into how many parts the exploration of `s`
    /// may still be split (1: explored by this worker alone). Leaves `s` as it found it, except the thread state of
    /// the thread it steps and of the threads after it (each caller restores
    /// those).
    ///
    /// The search recurses once per event added, so its depth grows with the
    /// graph: every [`STACK_CHECK_EVERY`] levels go through
    /// [`crate::stack::deep`], which moves the rest of the recursion to a heap
    /// segment before the stack runs out.
    fn visit(&self, s: &mut State, w: &mut Worker, check: bool, parts: usize) -> Res {
        if w.unchecked < STACK_CHECK_EVERY {
            w.unchecked += 1;
            let r = self.visit_here(s, w, check, parts);
            w.unchecked -= 1;
            return r;
        }
        let saved = std::mem::replace(&mut w.unchecked, 0);
        let r = crate::stack::deep(|| self.visit_here(s, w, check, parts));
        w.unchecked = saved;
        r
    }

    /// [`Self::visit`] on the current stack segment.
    fn visit_here(&self, s: &mut State, w: &mut Worker, check: bool, parts: usize) -> Res {
        self.tick(w)?;
        let Some(t) = Self::schedule(s) else {
            if !s.waiting.is_empty() {
                return self.unblock(s, w, check, parts);
            }
            return self.complete(s, w, check);
        };
        let code = &self.codes[t];
        match s.states[t].next(code) {
            Next::Done => self.end_thread(s, w, t, Ending::Done, check, parts),
            Next::Blocked(reason) => {
                let at = s.states[t].blocked_at(code).unwrap_or_default();
                let ending = match reason {
                    BlockReason::Spin => Ending::Spin {
                        iteration: s.states[t].spin_iteration().to_vec(),
                        at,
                    },
                    _ => Ending::Bound { at },
                };
                self.end_thread(s, w, t, ending, check, parts)
            }
            Next::Branch(_) => Err(Halt::Stop(Status::Unsupported(
                "a branch on an undetermined value (internal: concrete values always decide)"
                    .into(),
            ))),
            Next::Event(ev) => {
                // With the relations of the graph at hand, the writes that
                // waiting reads may still read from are known better
                // ([`Self::causally_after`]).
                if check
                    && (!self.consistent(s)
                        || (s.derived_valid
                            && !(s.pending.is_empty() && s.waiting.is_empty())
                            && !self.satisfiable(s)))
                {
                    w.out.stats.pruned += 1;
                    return Ok(());
                }
                match ev.kind {
                    EventKind::Read { .. } => self.read(s, w, t, ev, parts),
                    EventKind::Write { .. } => self.write(s, w, t, ev, parts),
                    EventKind::Fence(_) => {
                        // A fence added at the end of its thread, with no
                        // event after it anywhere, has no outgoing edge of po,
                        // sync (its patterns need later events), base
                        // causality, observation or coherence, and is not a
                        // memory operation: it closes no cycle of any axiom
                        // of 8.10 and does not change the relations between
                        // other events (proxy fences convert only along base
                        // causality paths through them). A fence.sc can be
                        // put last in Fence-SC order (existential, 8.9.3),
                        // which gives it only incoming synchronization. So the
                        // graph stays consistent: no check.
                        let id = push_event(s, t, ev, None);
                        s.states[t].commit(id, None);
                        let r = self.visit(s, w, false, parts);
                        pop_event(s, t);
                        r
                    }
                    EventKind::Barrier { kind, count, .. } => {
                        let id = push_event(s, t, ev, None);
                        s.states[t].commit(id, None);
                        let waits = matches!(
                            kind,
                            BarrierKind::Sync | BarrierKind::Red | BarrierKind::ClusterWait
                        );
                        let r = if !(waits && count.is_some()) {
                            self.visit(s, w, true, parts)
                        } else if !self.consistent(s) {
                            // Both children (the thread stops at the
                            // barrier forever, or goes on) have this graph.
                            w.out.stats.pruned += 2;
                            Ok(())
                        } else {
                            s.runs[t] = Run::Ended(Ending::BarrierStop(id));
                            let r = self.next_thread(s, w, false, parts);
                            s.runs[t] = Run::Running;
                            r.and_then(|()| self.visit(s, w, false, parts))
                        };
                        pop_event(s, t);
                        r
                    }
                }
            }
        }
    }

    /// A new read: reads an existing write (a forward revisit), or one not
    /// yet added: its thread stops until a later write gives it its value
    /// (a backward revisit, [`Self::write`]), or, in a thread with
    /// asynchronous operations (whose events are not in program order), it
    /// commits at once to a value that a later write will provide.
    fn read(&self, s: &mut State, w: &mut Worker, t: usize, ev: Event, parts: usize) -> Res {
        let EventKind::Read { loc, .. } = ev.kind else {
            return Ok(());
        };
        let phys = loc.phys;
        let mut choices: SmallVec<[Source; 16]> = s
            .exec
            .ids()
            .filter_map(|w| {
                let e = s.exec.event(w);
                match e.kind {
                    EventKind::Write { loc: l, value, .. } if l.phys == phys => {
                        Some(Source::Write(w, value))
                    }
                    _ => None,
                }
            })
            .collect();
        let private = self.is_private(t, loc) && ev.proxy == Proxy::Generic;
        if private {
            // A private location (only thread `t` writes it, through this
            // address and the generic proxy): the read reads the thread's
            // last write to it, or the initial write. Any earlier write is
            // coherence-before that one, which precedes the read in
            // causality order (program order, one address, generic proxy,
            // 8.9.5), so reading it breaks Causality (8.10.6).
            let own = s.exec.threads[t].iter().rev().copied().find(|&x| {
                s.exec.event(x).is_write() && s.exec.event(x).loc().is_some_and(|l| l.phys == phys)
            });
            let exec = &s.exec;
            choices.retain(|c| match *c {
                Source::Write(w, _) => match own {
                    Some(o) => w == o,
                    None => exec.event(w).is_init(),
                },
                Source::Value(_) | Source::Later => true,
            });
        }
        if !self.issues_async[t] {
            if (0..s.runs.len()).any(|u| self.later_writer(s, u, t, &ev, phys.index())) {
                choices.push(Source::Later);
            }
        } else {
            choices.extend(self.future_values(s, &ev, 0).into_iter().map(Source::Value));
        }
        let node_state = s.save(t);
        // When the graph is known consistent with its relations at hand, each
        // child is checked by extending them ([`fast::add_read`]) instead of
        // a check from scratch before it is extended.
        let n = s.exec.len();
        let parent: Option<Box<fast::Derived>> =
            (s.derived_valid && s.barriers == 0 && s.fences_sc < 2).then(|| s.save_derived(n));
        // The event and what depends only on it are the same in every child:
        // pushed once, each child sets the value read and where it comes from.
        let id = push_event(s, t, ev, Some(0));
        if s.exec.event(id).is_rmw() {
            // Two RMWs morally strong with each other and with the write
            // they read cannot both read it (see [`Self::must_not_share`]):
            // a write already read by such an RMW is no choice.
            let exec = &s.exec;
            choices.retain(|c| {
                let Source::Write(src, v) = *c else {
                    return true;
                };
                // (A CAS that only reads when it fails is no RMW for a
                // value that makes it fail, `ThreadState::pending_rmw_writes`.)
                !node_state.pending_rmw_writes(Some(&v))
                    || !exec.rf.iter().enumerate().any(|(r2, &from)| {
                        let r2 = EventId::new(r2);
                        from == Some(src)
                            && exec.event(r2).is_rmw()
                            && model::morally_strong(exec, id, r2)
                            && model::morally_strong(exec, src, id)
                            && model::morally_strong(exec, src, r2)
                    })
            });
        }
        let incremental = parent.is_some() && s.statics.len() == s.exec.len();
        let this_rmw = s.exec.event(id).is_rmw();
        let was_rmw = this_rmw;
        if let (Some(parent), true) = (&parent, incremental) {
            // The writes that precede the read in causality order whatever it
            // reads (reading adds predecessors, never removes any): reading a
            // write coherence-before one of them from-reads a write that
            // precedes the read, which the Causality axiom (8.10.6) forbids.
            s.derived.copy_from(parent, n);
            let d = fast::add_read(&s.exec, &s.statics, &mut s.derived, id.index());
            let preceding = match d {
                fast::Decision::Consistent => fast::preceding(&s.derived, id.index()),
                _ => fast::Mask::default(),
            };
            if !preceding.is_empty() {
                let st = &s.statics;
                choices.retain(|c| match *c {
                    Source::Write(w, _) => !fast::co_after_among(st, parent, w.index(), &preceding),
                    Source::Value(_) | Source::Later => true,
                });
            }
        }
        let r = self.branch(s, w, parts, &choices, &|this, s, w, &src, parts| {
            let value = match src {
                Source::Write(_, v) | Source::Value(v) => v,
                // Set when a write gives the read its value.
                Source::Later => 0,
            };
            let rmw = match src {
                Source::Later => was_rmw,
                _ => node_state.pending_rmw_writes(Some(&value)),
            };
            set_read_value(s, id, value, rmw);
            match src {
                Source::Write(src, _) => s.exec.rf[id.index()] = Some(src),
                Source::Value(_) => s.pending.push(id),
                Source::Later => s.waiting.push(id),
            }
            let decision = match &parent {
                Some(parent) if incremental => {
                    s.derived.copy_from(parent, n);
                    let d = fast::add_read(&s.exec, &s.statics, &mut s.derived, id.index());
                    debug_assert!(
                        d == fast::Decision::Unknown
                            || (d == fast::Decision::Consistent)
                                == model::check_full(&s.exec).is_ok(),
                        "incremental check disagrees"
                    );
                    s.derived_valid = d == fast::Decision::Consistent;
                    d
                }
                _ => fast::Decision::Unknown,
            };
            // Past the one-word rows, a plain read of a private location
            // from the thread's last write (or the initial one) keeps the
            // graph consistent: it is the last event of its thread and
            // from-reads no write (every write of the location is its
            // thread's, coherence-before that one), so it has no outgoing
            // edge of any relation of 8.9 and closes no cycle; no check.
            let settled = private && !incremental && !this_rmw && matches!(src, Source::Write(..));
            let check = decision != fast::Decision::Consistent && !settled;
            let r = if decision == fast::Decision::Inconsistent
                || (matches!(src, Source::Value(_)) && !this.satisfiable(s))
            {
                w.out.stats.pruned += 1;
                Ok(())
            } else if let Source::Later = src {
                // The thread stops at the read, uncommitted, until a write
                // gives it a value ([`Self::write`]); the others go on.
                s.states[t].clone_from(&node_state);
                s.runs[t] = Run::Waiting(id);
                let r = this.next_thread(s, w, check, parts);
                s.runs[t] = Run::Running;
                r
            } else {
                s.states[t].clone_from(&node_state);
                s.states[t].commit(id, Some(value));
                this.visit(s, w, check, parts)
            };
            s.derived_valid = false;
            match src {
                Source::Write(..) => s.exec.rf[id.index()] = None,
                Source::Value(_) => {
                    s.pending.pop();
                }
                Source::Later => {
                    s.waiting.pop();
                }
            }
            r
        });
        pop_event(s, t);
        s.recycle(node_state);
        if let Some(p) = parent {
            s.spare_derived.push(p);
        }
        r
    }

    /// A new write: its coherence position among the morally strong writes of
    /// its location, and which committed reads read from it.
    fn write(&self, s: &mut State, w: &mut Worker, t: usize, ev: Event, parts: usize) -> Res {
        let EventKind::Write { loc, value, .. } = ev.kind else {
            return Ok(());
        };
        let forced = self.causal_writes_before(s, t, &ev);
        let id = push_event(s, t, ev, None);
        s.states[t].commit(id, None);
        let in_sync = s.statics.len() == s.exec.len();
        let ms: Vec<EventId> = if in_sync {
            // From the rows of the statics: the same writes, in id order.
            let i = id.index();
            let row = s.statics.ms_writes_to_loc_of(i);
            s.exec
                .ids()
                .filter(|&w| row.has(w.index()) && !s.exec.event(w).is_init())
                .collect()
        } else {
            s.exec
                .ids()
                .filter(|&w| {
                    w != id && {
                        let e = s.exec.event(w);
                        e.is_write()
                            && !e.is_init()
                            && e.loc().is_some_and(|l| l.phys == loc.phys)
                            && model::morally_strong(&s.exec, w, id)
                    }
                })
                .collect()
        };
        let readers: Vec<EventId> = s
            .pending
            .iter()
            .copied()
            .filter(|&r| {
                let e = s.exec.event(r);
                let own_later = e.thread == Some(ThreadId::new(t))
                    && !self.may_read_own_later_write(
                        t,
                        loc.phys.index(),
                        e.loc().map_or(loc.vaddr, |l| l.vaddr),
                        e.proxy,
                    );
                !own_later
                    && e.loc().is_some_and(|l| l.phys == loc.phys)
                    && e.value() == Some(value)
            })
            .chain(s.waiting.iter().copied().filter(|&r| {
                // A waiting read takes any value (its thread is stopped, so it
                // is never thread `t`'s).
                s.exec.event(r).loc().is_some_and(|l| l.phys == loc.phys)
            }))
            .collect();
        // The write half of an RMW follows its read in program order.
        let rmw_source = match s.exec.threads[t].iter().rev().nth(1) {
            Some(&r) if s.exec.event(id).is_rmw() && s.exec.event(r).is_rmw() => s
                .exec
                .event(r)
                .is_read()
                .then(|| s.exec.rf[r.index()].map(|src| (src, r)))
                .flatten(),
            _ => None,
        };
        // Past 63 morally strong writes (positions are bit masks), or past
        // the events for which `forced` is found from the relations, the
        // writes that must come before the new one whatever the position
        // leave the list: the thread's own earlier writes to the location
        // through the same address and the generic proxy precede it in
        // causality order (8.9.5), so in coherence (8.10.1). They get their
        // edge here, and positions range over the others. (Below both bounds
        // the search is left exactly as it was.)
        let mut before_all: Vec<EventId> = Vec::new();
        let mut ms = ms;
        if (ms.len() > 63 || s.exec.len() > fast::MAX_EVENTS)
            && !self.issues_async[t]
            && s.exec.event(id).proxy == Proxy::Generic
        {
            let exec = &s.exec;
            let own_before = |m: EventId| {
                let e = exec.event(m);
                e.thread == Some(ThreadId::new(t))
                    && e.proxy == Proxy::Generic
                    && e.loc()
                        .is_some_and(|l| l.vaddr == loc.vaddr && l.phys == loc.phys)
            };
            before_all = ms.iter().copied().filter(|&m| own_before(m)).collect();
            ms.retain(|&m| !own_before(m));
        }
        if ms.len() > 63 {
            let msg = format!(
                "{} morally strong writes before the write at {}",
                ms.len(),
                s.exec.event(id).span
            );
            pop_event(s, t);
            return Err(Halt::Stop(Status::Limit(msg)));
        }
        if readers.len() > 20 {
            let msg = format!(
                "{} reads wait for one write at {}",
                readers.len(),
                s.exec.event(id).span
            );
            pop_event(s, t);
            return Err(Halt::Stop(Status::Limit(msg)));
        }
        // Children: each coherence position (split between workers), and
        // for each, every set of the waiting reads that read from the write.
        let reach = Reach::of(&s.exec.co);
        let mut positions = coherence_positions(&s.exec, &reach, &ms, rmw_source, forced);
        // RMW atomicity (8.10.3) for the RMWs already in the graph: the new
        // write, morally strong with both halves of one, cannot come after
        // the write that RMW reads from and before its write half.
        let guards = rmw_guards(&s.exec, id, &ms, &reach);
        positions.retain(|&before| {
            guards.iter().all(|&(first, source, half)| {
                !(first || before & source != 0) || before >> half & 1 == 1
            })
        });
        // The waiting reads that are the read half of an RMW whose write half
        // W' is in the graph, morally strong with the new write W: if W gives
        // the read its value, W' comes right after W among the writes
        // morally strong with the RMW (else `W' -co-> W -rf-> R -po-> W'`
        // breaks 8.10.5, or a write lies between W and W', which 8.10.3
        // forbids). Each as W''s index in `ms` and the writes of `ms` that
        // must then be before W.
        let halves: Vec<Option<(usize, u64)>> = readers
            .iter()
            .map(|&r| self.rmw_half(s, id, r, &ms, &reach))
            .collect();
        // Pairs of waiting reads that cannot both read from this write: RMWs
        // morally strong with each other and with it ([`Self::must_not_share`]).
        let apart: Vec<u64> = readers
            .iter()
            .map(|&r1| {
                readers.iter().enumerate().fold(0u64, |m, (j, &r2)| {
                    let both = r1 != r2
                        && model::morally_strong(&s.exec, id, r1)
                        && model::morally_strong(&s.exec, id, r2)
                        && self.must_not_share(s, r1, r2, 0, Some(value));
                    m | u64::from(both) << j
                })
            })
            .collect();
        let node_state = s.save(t);
        let pending = s.pending.clone();
        let waiting = s.waiting.clone();
        for &m in &before_all {
            s.exec.co.insert(m, id);
        }
        // A plain write to a private location placed after the thread's own
        // earlier writes (the only other writes of the location but the
        // initial one), read by no waiting read: the last event of its
        // thread, coherence-last, read by nothing, so it has no outgoing
        // edge of any relation of 8.9 and the graph stays consistent
        // (8.10.1: every write that precedes it in causality is before it in
        // coherence; 8.10.3: no RMW has it between its halves).
        let settled_write = !before_all.is_empty()
            && ms.is_empty()
            && !s.exec.event(id).is_rmw()
            && self.is_private(t, loc);
        let r = self.branch(s, w, parts, &positions, &|this, s, w, &before, parts| {
            for (k, &m) in ms.iter().enumerate() {
                if before >> k & 1 == 1 {
                    s.exec.co.insert(m, id);
                } else {
                    s.exec.co.insert(id, m);
                }
            }
            let mut res: Res;
            // The waiting reads this position lets read from the write.
            let allowed = halves.iter().enumerate().fold(0u64, |m, (k, h)| match *h {
                Some((half, need)) if before >> half & 1 == 1 || before & need != need => m,
                _ => m | 1 << k,
            });
            // Every set of them, in increasing order of masks, but those
            // with two RMWs that cannot share this write (8.10.3).
            let mut mask = 0u64;
            // --- hook of `--strategy estimate` (`explore/estimate.rs`) ---
            let sampled = this
                .walk
                .as_ref()
                .and_then(|walk| walk.sample_set(readers.len(), allowed, &apart, &w.out.stats));
            loop {
                res = this.tick(w);
                if res.is_err() {
                    break;
                }
                // (Not a graph: such a set of readers is only skipped.)
                let fine = (0..readers.len()).all(|k| mask >> k & 1 == 0 || apart[k] & mask == 0)
                    && sampled.as_ref().is_none_or(|(m, _)| *m == mask);
                if !fine {
                    if mask == allowed {
                        break;
                    }
                    mask = ((mask | !allowed).wrapping_add(1)) & allowed;
                    continue;
                }
                // Waiting reads given the write: their threads go on, from
                // the state saved here.
                // (thread, read, its state before, its RMW mark before)
                type Resumed = (usize, EventId, ThreadState<i64>, bool);
                let mut resumed: SmallVec<[Resumed; 2]> = SmallVec::new();
                for (k, &r) in readers.iter().enumerate() {
                    if mask >> k & 1 == 1 {
                        s.exec.rf[r.index()] = Some(id);
                        s.pending.retain(|&p| p != r);
                        if let Some(at) = s.waiting.iter().position(|&x| x == r) {
                            s.waiting.remove(at);
                            let rt = s.exec.event(r).thread.map_or(0, |x| x.index());
                            let was = s.exec.event(r).is_rmw();
                            let rmw = s.states[rt].pending_rmw_writes(Some(&value));
                            set_read_value(s, r, value, rmw);
                            let saved = s.save(rt);
                            s.states[rt].commit(r, Some(value));
                            s.runs[rt] = Run::Running;
                            resumed.push((rt, r, saved, was));
                        }
                    }
                }
                s.derived_valid = false;
                res = if this.satisfiable(s) && this.fair_so_far(s, w) {
                    s.states[t].clone_from(&node_state);
                    this.visit(s, w, !(settled_write && mask == 0), parts)
                } else {
                    w.out.stats.pruned += 1;
                    Ok(())
                };
                for (rt, r, saved, was) in resumed {
                    s.states[rt].clone_from(&saved);
                    s.recycle(saved);
                    s.runs[rt] = Run::Waiting(r);
                    set_read_value(s, r, 0, was);
                }
                for (k, &r) in readers.iter().enumerate() {
                    if mask >> k & 1 == 1 {
                        s.exec.rf[r.index()] = None;
                    }
                }
                s.pending.clone_from(&pending);
                s.waiting.clone_from(&waiting);
                s.derived_valid = false;
                if res.is_err() || mask == allowed {
                    break;
                }
                mask = ((mask | !allowed).wrapping_add(1)) & allowed;
            }
            if let (Some(walk), Some((_, mark))) = (&this.walk, sampled) {
                walk.leave(mark, &mut w.out.stats);
            }
            for &m in &ms {
                s.exec.co.remove(m, id);
                s.exec.co.remove(id, m);
            }
            res
        });
        for &m in &before_all {
            s.exec.co.remove(m, id);
        }
        pop_event(s, t);
        s.recycle(node_state);
        r
    }

    /// Explores the children `choices` of a node, in order: each is applied
    /// to `s`, explored and undone by `child`. While the node may be split
    /// (`parts > 1`), the later half of the children goes to another worker
    /// with its own copy of the graph and its own outcomes, merged after the
    /// earlier half's (so the result is the sequential one); each half gets
    /// half of the parts.
    fn branch<C: Sync>(
        &self,
        s: &mut State,
        w: &mut Worker,
        parts: usize,
        choices: &[C],
        child: &(dyn Fn(&Self, &mut State, &mut Worker, &C, usize) -> Res + Sync),
    ) -> Res {
        // --- hook of `--strategy estimate` (`explore/estimate.rs`) ---
        if let (Some(walk), true) = (&self.walk, choices.len() > 1) {
            self.tick(w)?;
            let (i, mark) = walk.enter(choices.len(), &w.out.stats);
            let r = child(self, s, w, &choices[i], 1);
            walk.leave(mark, &mut w.out.stats);
            return r;
        }
        // --- hook of `--split` (`explore/split.rs`) ---
        if let Some(split) = self.split.as_ref().filter(|_| choices.len() > 1) {
            let hooks = super::split::Hooks {
                out: |w: &mut Worker| &mut w.out,
                tick: &|w: &mut Worker| self.tick(w),
                is_limit: |h: &Halt| matches!(h, Halt::Limit),
                whole: self.parts,
            };
            let child = |s: &mut State, w: &mut Worker, c: &C, p: usize| child(self, s, w, c, p);
            if let Some(r) = split.branch(s, w, choices, &hooks, &child) {
                return r;
            }
        }
        match choices {
            [c] => {
                self.tick(w)?;
                child(self, s, w, c, parts)
            }
            _ if parts <= 1 => {
                for c in choices {
                    self.tick(w)?;
                    child(self, s, w, c, 1)?;
                }
                Ok(())
            }
            _ => {
                let (left, right) = choices.split_at(choices.len() / 2);
                let mut s2 = s.clone();
                let mut w2 = w.fork();
                let (rl, rr) = rayon::join(
                    || self.branch(s, w, parts / 2, left, child),
                    || self.branch(&mut s2, &mut w2, parts - parts / 2, right, child),
                );
                match rl {
                    // The sequential search would have stopped in the left half.
                    Err(Halt::Stop(st)) => Err(Halt::Stop(st)),
                    // Everything found before the limit counts.
                    Err(Halt::Limit) => {
                        w.out.merge(w2.out);
                        Err(Halt::Limit)
                    }
                    Ok(()) => {
                        w.out.merge(w2.out);
                        rr
                    }
                }
            }
        }
    }

    /// Whether the waiting read `r` is never given a value in advance: every
    /// later write of its thread depends on it.
    fn never_unblocked(&self, s: &State, r: EventId) -> bool {
        let ev = s.exec.event(r);
        ev.thread.is_some_and(|t| {
            self.dependent
                .get(t.index())
                .and_then(|d| d.get(ev.instr as usize))
                .copied()
                .unwrap_or(false)
        })
    }

    /// Every running thread stopped at a read that waits for a write not yet
    /// added. Since a thread goes on only when such a write arrives, the
    /// graphs in which those reads read from later writes need some thread
    /// to go on first: the first waiting read (in thread order) whose thread
    /// makes a write that does not depend on it commits to each value a
    /// later write may give it, and its thread goes on with that value
    /// (as reads did before waiting existed). When every waiting read has
    /// only dependent writes after it, no such graph exists: each write the
    /// reads wait for depends on another waiting read, a cycle of
    /// `rf ∪ dep` that No-Thin-Air (8.10.4) forbids.
    ///
    /// This is a step every path to such a graph takes, not a choice, so
    /// each graph is still produced once: the children differ in the value
    /// the read commits to.
    fn unblock(&self, s: &mut State, w: &mut Worker, check: bool, parts: usize) -> Res {
        if check && !self.consistent(s) {
            w.out.stats.pruned += 1;
            return Ok(());
        }
        let first = s
            .waiting
            .iter()
            .copied()
            .filter(|&r| !self.never_unblocked(s, r))
            .min_by_key(|&r| s.exec.event(r).thread.map_or(usize::MAX, |t| t.index()));
        let Some(r) = first else {
            w.out.stats.pruned += 1;
            return Ok(());
        };
        let Some(rt) = s.exec.event(r).thread.map(|t| t.index()) else {
            return Ok(());
        };
        let excluded = self.causally_after(s, r);
        let values: SmallVec<[i64; 8]> = self
            .future_values(s, s.exec.event(r), excluded)
            .into_iter()
            .collect();
        if values.is_empty() {
            w.out.stats.pruned += 1;
            return Ok(());
        }
        let waiting = s.waiting.clone();
        s.waiting.retain(|&x| x != r);
        s.pending.push(r);
        s.runs[rt] = Run::Running;
        let saved = s.save(rt);
        // A read's value changes no relation: the relations of the graph, if
        // at hand, hold for every child (restored for each, since deeper
        // nodes reuse the space).
        let n = s.exec.len();
        let relations = s.derived_valid.then(|| s.save_derived(n));
        let was = s.exec.event(r).is_rmw();
        let res = self.branch(s, w, parts, &values, &|this, s, w, &value, parts| {
            let rmw = saved.pending_rmw_writes(Some(&value));
            set_read_value(s, r, value, rmw);
            match &relations {
                Some(d) => {
                    s.derived.copy_from(d, n);
                    s.derived_valid = true;
                }
                None => s.derived_valid = false,
            }
            if !this.satisfiable(s) {
                w.out.stats.pruned += 1;
                return Ok(());
            }
            s.states[rt].clone_from(&saved);
            s.states[rt].commit(r, Some(value));
            this.visit(s, w, false, parts)
        });
        s.states[rt].clone_from(&saved);
        s.recycle(saved);
        if let Some(d) = relations {
            s.spare_derived.push(d);
        }
        s.derived_valid = false;
        s.runs[rt] = Run::Waiting(r);
        s.pending.pop();
        s.waiting = waiting;
        set_read_value(s, r, 0, was);
        res
    }

    /// Thread `t` ended with `ending`: go on with the next thread.
    fn end_thread(
        &self,
        s: &mut State,
        w: &mut Worker,
        t: usize,
        ending: Ending,
        check: bool,
        parts: usize,
    ) -> Res {
        let spin = matches!(ending, Ending::Spin { .. });
        s.runs[t] = Run::Ended(ending);
        s.spinning += usize::from(spin);
        let r = if spin && !self.fair_so_far(s, w) {
            w.out.stats.pruned += 1;
            Ok(())
        } else {
            self.next_thread(s, w, check, parts)
        };
        s.spinning -= usize::from(spin);
        s.runs[t] = Run::Running;
        r
    }

    /// Whether the graph may still be kept: no thread ended in a spin loop,
    /// or each such thread can still be fair ([`Self::spins_may_be_fair`]).
    /// Without pruning when a loop may be cut by the bound (the completion
    /// records the bound hit) or when undefined behaviour is looked for in
    /// every graph (split locations, [`Outcomes::checks_sizes`]): then the
    /// completion discards the unfair graph ([`candidate::finish`]).
    fn fair_so_far(&self, s: &State, w: &Worker) -> bool {
        s.spinning == 0 || !self.prune_unfair || w.out.checks_sizes() || self.spins_may_be_fair(s)
    }

    /// After a thread ended: prune committed reads that no later thread can
    /// satisfy, then extend the next thread (its state is restored after).
    fn next_thread(&self, s: &mut State, w: &mut Worker, check: bool, parts: usize) -> Res {
        if !self.satisfiable(s) {
            w.out.stats.pruned += 1;
            return Ok(());
        }
        let Some(t) = Self::schedule(s) else {
            return self.visit(s, w, check, parts);
        };
        let saved = s.save(t);
        let r = self.visit(s, w, check, parts);
        s.states[t].clone_from(&saved);
        s.recycle(saved);
        r
    }

    /// Whether the partial graph can still be part of a consistent execution:
    /// some Fence-SC order satisfies every axiom with the barrier
    /// synchronization that every completion will have (barriers without a
    /// thread count; counted barriers add edges only at completion).
    fn consistent(&self, s: &mut State) -> bool {
        s.derived_valid = false;
        let fast = s.statics.len() == s.exec.len();
        if fast && s.barriers == 0 && s.fences_sc < 2 {
            let ok = match fast::decide(&s.exec, &s.statics, &mut s.derived) {
                fast::Decision::Consistent => {
                    s.derived_valid = true;
                    true
                }
                fast::Decision::Inconsistent => false,
                fast::Decision::Unknown => model::consistent(&s.exec),
            };
            debug_assert_eq!(
                ok,
                model::check_full(&s.exec).is_ok(),
                "fast path disagrees"
            );
            return ok;
        }
        if s.barriers > 0 {
            s.exec.barrier_sync = barrier::certain_sync(&s.exec);
        }
        let ok = if s.fences_sc < 2 {
            model::consistent(&s.exec)
        } else {
            let (st, d) = (&s.statics, &mut *s.derived);
            candidate::exists_fence_sc_order_hinted(&mut s.exec, &mut s.fence_hint, &mut |e| {
                if fast {
                    model::consistent_with(e, st, d)
                } else {
                    model::consistent(e)
                }
            })
        };
        s.exec.barrier_sync.clear();
        s.exec.fence_sc.clear();
        ok
    }

    /// A graph in which every thread ended.
    fn complete(&self, s: &mut State, w: &mut Worker, check: bool) -> Res {
        if !s.pending.is_empty() || !s.waiting.is_empty() {
            w.out.stats.pruned += 1;
            return Ok(());
        }
        // `finish` decides consistency again, over every Fence-SC order and
        // barrier synchronization, but through `model::check`, which builds
        // the witness of a violation; this check needs none, and it prunes
        // exactly the graphs an explorer that checks every graph it extends
        // prunes (for those, `finish` never reports a limit either).
        let in_sync = s.statics.len() == s.exec.len();
        let simple = in_sync && s.barriers == 0 && s.fences_sc < 2;
        // Whether `s.derived` holds the relations of this graph, found
        // consistent by the fast path with no barrier synchronization and the
        // Fence-SC order of its one fence.sc if any: the choices `finish`
        // tries first.
        let relations = if check && simple {
            match fast::decide(&s.exec, &s.statics, &mut s.derived) {
                fast::Decision::Consistent => true,
                fast::Decision::Inconsistent => {
                    w.out.stats.pruned += 1;
                    return Ok(());
                }
                fast::Decision::Unknown => {
                    if !model::consistent(&s.exec) {
                        w.out.stats.pruned += 1;
                        return Ok(());
                    }
                    false
                }
            }
        } else if check {
            if !self.consistent(s) {
                w.out.stats.pruned += 1;
                return Ok(());
            }
            false
        } else {
            // Found consistent incrementally ([`fast::add_read`]).
            simple && s.derived_valid
        };
        if relations {
            if let Some(r) = self.finish_fast(s, w) {
                return r;
            }
            // Hand the relations to the check `finish` makes.
            if s.fences_sc == 1 {
                s.exec.fence_sc = s
                    .exec
                    .ids()
                    .filter(|&e| s.exec.event(e).is_fence_sc())
                    .collect();
            }
            fast::offer(&s.exec, &s.statics, &s.derived);
            s.exec.fence_sc.clear();
        } else if in_sync {
            fast::offer_statics(&s.statics);
        }
        let exec = s.exec.clone();
        let endings: Vec<Ending> = s
            .runs
            .iter()
            .map(|r| match r {
                Run::Ended(e) => e.clone(),
                // A waiting thread never reaches a complete graph (pruned above).
                Run::Running | Run::Waiting(_) => Ending::Done,
            })
            .collect();
        let regs: Vec<Vec<i64>> = s.states.iter().map(|st| st.regs().to_vec()).collect();
        let hash = self
            .seen
            .as_ref()
            .map(|_| candidate::canonical_hash(&exec, &exec.co));
        let before = w.out.stats.executions;
        match candidate::finish(self.test, exec, &endings, regs, &mut w.out) {
            Finish::Consistent => self.found(w, before, hash),
            Finish::Inconsistent => Ok(()),
            Finish::Stop(status) => Err(Halt::Stop(status)),
        }
    }

    /// [`candidate::finish`] for the common case, without copying the graph:
    /// every thread ran to its end, no barrier, at most one `fence.sc`, the
    /// relations of the graph found consistent in `s.derived`, no witness
    /// wanted, no check for undefined behaviour (split locations, multimem
    /// addresses), and one coherence-last write for each location whose final
    /// value is observed. Then the graph has exactly one final valuation,
    /// read off the registers of the threads and the coherence rows, and
    /// `finish` would fold in exactly that ([`outcome::final_memories`]).
    /// `None` when the case is not that one.
    fn finish_fast(&self, s: &State, w: &mut Worker) -> Option<Res> {
        if s.barriers > 0
            || s.fences_sc > 1
            || w.out.wants_witness()
            || w.out.checks_sizes()
            || !s
                .runs
                .iter()
                .all(|r| matches!(r, Run::Ended(Ending::Done) | Run::Running))
        {
            return None;
        }
        let mut mem: SmallVec<[i64; 8]> = SmallVec::from_slice(&self.init_mem);
        for &p in &self.relevant {
            // Initial writes are the first events, one per location in order.
            // Several maximal writes: `finish` tries each.
            let last = fast::co_last(&s.statics, &s.derived, p).ok()?;
            if let Some(x) = last {
                let v = s.exec.events.get(x)?.value()?;
                *mem.get_mut(p)? = v;
            }
        }
        let hash = self
            .seen
            .as_ref()
            .map(|_| candidate::canonical_hash(&s.exec, &s.exec.co));
        let before = w.out.stats.executions;
        let test = self.test;
        let states = &s.states;
        w.out.add_final(test, &|t| {
            let reg = |th: usize, r: usize| states.get(th).and_then(|st| st.regs().get(r)).copied();
            outcome::term_value(test, t, reg, &mem)
        });
        Some(self.found(w, before, hash))
    }

    /// Counts the executions a complete graph gave (`w.out` had `before`),
    /// and its hash with `--check-duplicates`; stops at `--max-executions`.
    fn found(&self, w: &mut Worker, before: u64, hash: Option<u64>) -> Res {
        if let (Some(seen), Some(h)) = (&self.seen, hash) {
            let fresh = seen.lock().map(|mut set| set.insert(h)).unwrap_or(true);
            if !fresh {
                w.out.stats.duplicates += 1;
            }
        }
        let Some(m) = w.budget.max_executions() else {
            return Ok(());
        };
        let found = w.out.stats.executions - before;
        let total = self.executions.fetch_add(found, Ordering::Relaxed) + found;
        if total > m {
            Err(self.limit(super::executions_limit(m)))
        } else {
            Ok(())
        }
    }
}

/// Appends `ev` (with its read value, if a read) as the next event of thread
/// `t`; returns its id.
fn push_event(s: &mut State, t: usize, mut ev: Event, read_value: Option<i64>) -> EventId {
    if let (EventKind::Read { value, .. }, Some(v)) = (&mut ev.kind, read_value) {
        *value = v;
    }
    match ev.kind {
        EventKind::Barrier { .. } => s.barriers += 1,
        _ if ev.is_fence_sc() => s.fences_sc += 1,
        _ => {}
    }
    s.derived_valid = false;
    let id = EventId::new(s.exec.events.len());
    s.exec.events.push(ev);
    s.exec.rf.push(None);
    s.exec.co.resize(id.index() + 1);
    if s.statics.len() == id.index() && id.index() < fast::MAX_WIDE_EVENTS {
        let mut preds: SmallVec<[u64; 4]> = smallvec::smallvec![0; id.index() / 64 + 1];
        for e in &s.exec.threads[t] {
            preds[e.index() / 64] |= 1u64 << (e.index() % 64);
        }
        s.exec.threads[t].push(id);
        if !s.statics.push(&s.exec, id, &preds) {
            s.statics.truncate(id.index());
        }
    } else {
        s.exec.threads[t].push(id);
    }
    id
}

/// Sets the value the read `r` returns (0 while it waits for its writer),
/// and whether it is the read half of an RMW: a CAS that only reads when it
/// fails is not once its value makes it fail
/// (`ThreadState::pending_rmw_writes`); a waiting read keeps the mark it was
/// built with.
fn set_read_value(s: &mut State, r: EventId, value: i64, rmw_read: bool) {
    if let EventKind::Read { value: v, rmw, .. } = &mut s.exec.events[r.index()].kind {
        *v = value;
        *rmw = rmw_read;
    }
}

/// Removes the last event, which is thread `t`'s last.
fn pop_event(s: &mut State, t: usize) {
    s.derived_valid = false;
    let Some(ev) = s.exec.events.pop() else {
        return;
    };
    match ev.kind {
        EventKind::Barrier { .. } => s.barriers -= 1,
        _ if ev.is_fence_sc() => s.fences_sc -= 1,
        _ => {}
    }
    let n = s.exec.events.len();
    s.exec.rf.pop();
    s.exec.threads[t].pop();
    s.exec.co.resize(n);
    s.statics.truncate(n);
}

#[cfg(test)]
mod tests {
    //! Parallel exploration gives the sequential result.

    use crate::report::{Options, Report, Strategy};
    use std::time::Duration;

    fn check_with(threads: usize, test: &ptxmc_frontend::ir::Test, opts: &Options) -> Report {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        let mut r = pool.install(|| crate::explore::check(test, opts));
        r.time = Duration::ZERO;
        r
    }

    fn corpus(rel: &str) -> String {
        let path = format!("{}/../corpus/{rel}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn every_number_of_threads_gives_the_sequential_report() {
        let mut sources: Vec<String> = [
            ("writers", 3),
            ("sb-fence-sc", 3),
            ("counter", 4),
            ("ticket-lock", 2),
            ("mp-chain", 4),
            ("weak-writers", 3),
        ]
        .iter()
        .map(|&(f, n)| ptxmc_frontend::families::generate(f, n, "gpu").expect("a family"))
        .collect();
        sources.push(corpus("liveness/spin-weak-flag-race.litmus"));
        sources.push(corpus("liveness/spin-bar-deadlock.litmus"));
        for src in &sources {
            let test = ptxmc_frontend::parse(src).expect("parses");
            for witness in [false, true] {
                let opts = Options {
                    strategy: Strategy::Dpor,
                    check_duplicates: true,
                    witness,
                    ..Options::default()
                };
                let one = check_with(1, &test, &opts);
                assert_eq!(one.stats.duplicates, 0);
                for threads in [2, 3, 4] {
                    let many = check_with(threads, &test, &opts);
                    assert_eq!(one, many, "{} with {threads} threads", test.name);
                }
            }
        }
    }

    fn regression(name: &str) -> ptxmc_frontend::ir::Test {
        let path = format!(
            "{}/tests/regressions/perf/{name}.litmus",
            env!("CARGO_MANIFEST_DIR")
        );
        let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        ptxmc_frontend::parse(&src).expect("parses")
    }

    /// RMW chains and lock idioms waste a bounded amount: reads wait for
    /// their writer instead of guessing its value, so the partial graphs
    /// pruned stay a small multiple of the executions (the explorer that
    /// guessed values pruned 138,312 and 86,863 on the two regressions,
    /// 273 per execution on `counter-7`, 1.5 million on `cas-lock-3` and
    /// 15,625 on `ticket-lock-3`), with the reference enumerator's counts.
    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "debug builds check every graph in full: run with --release"
    )]
    fn rmw_chains_and_locks_prune_little() {
        let mut cases: Vec<(String, ptxmc_frontend::ir::Test, u64, u64, u64)> = vec![
            (
                "dpor-rmw-value-chain".into(),
                regression("dpor-rmw-value-chain"),
                1024,
                0,
                5_000,
            ),
            (
                "dpor-exch-loops".into(),
                regression("dpor-exch-loops"),
                62,
                70,
                1_000,
            ),
        ];
        let family = |name: &str, n: usize| {
            let src = ptxmc_frontend::families::generate(name, n, "gpu").expect("a family");
            ptxmc_frontend::parse(&src).expect("parses")
        };
        // counter-N: N! executions, at most 3 pruned graphs per execution.
        let mut fact = 1;
        for n in 2..=7 {
            fact *= n as u64;
            cases.push((
                format!("counter-{n}"),
                family("counter", n),
                fact,
                0,
                3 * fact,
            ));
        }
        // The CAS retry loop blocks like a spin loop (docs/model-notes.md
        // "Waits"): 3! executions, no blocked one.
        cases.push(("cas-lock-3".into(), family("cas-lock", 3), 6, 0, 1_000));
        // Waiters stopped behind a committed read cannot serve it
        // (`Dpor::gated_behind`): 504 and 12,056 pruned graphs before.
        cases.push(("ticket-lock-3".into(), family("ticket-lock", 3), 6, 0, 200));
        cases.push((
            "ticket-lock-4".into(),
            family("ticket-lock", 4),
            24,
            0,
            2_000,
        ));
        for (name, test, executions, blocked, bound) in cases {
            let opts = Options {
                strategy: Strategy::Dpor,
                check_duplicates: true,
                // Far above what it takes (under a second), so that a
                // regression fails instead of running for hours.
                timeout: Some(Duration::from_secs(60)),
                ..Options::default()
            };
            let r = check_with(1, &test, &opts);
            assert_eq!(r.status.name(), "ok", "{name}");
            assert_eq!(r.stats.executions, executions, "{name}");
            assert_eq!(r.stats.blocked, blocked, "{name}");
            assert_eq!(r.stats.duplicates, 0, "{name}");
            assert!(r.stats.pruned <= bound, "{name}: {} pruned", r.stats.pruned);
        }
    }

    /// Spin-assume without waste (`dpor/fairness.rs`): a ticket lock has
    /// N! executions and no blocked one (every blocked graph of a waiter is
    /// unfair once the release it waits for is added, 8.6.1), as the
    /// reference enumerator finds when it discards them at completion.
    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "debug builds check every graph in full: run with --release"
    )]
    fn ticket_locks_block_nowhere() {
        let mut fact = 1;
        for n in 2..=5u64 {
            fact *= n;
            let src = ptxmc_frontend::families::generate("ticket-lock", n as usize, "gpu")
                .expect("a family");
            let test = ptxmc_frontend::parse(&src).expect("parses");
            let opts = Options {
                strategy: Strategy::Dpor,
                check_duplicates: true,
                timeout: Some(Duration::from_secs(60)),
                ..Options::default()
            };
            let r = check_with(1, &test, &opts);
            assert_eq!(r.status.name(), "ok", "ticket-lock-{n}");
            assert_eq!(
                (r.stats.executions, r.stats.blocked),
                (fact, 0),
                "ticket-lock-{n}"
            );
            assert!(r.liveness_holds, "ticket-lock-{n}");
            if n <= 3 {
                let brute = check_with(
                    1,
                    &test,
                    &Options {
                        strategy: Strategy::Brute,
                        ..opts.clone()
                    },
                );
                assert_eq!(
                    (brute.stats.executions, brute.stats.blocked, &brute.states),
                    (fact, 0, &r.states)
                );
            }
        }
    }

    #[test]
    fn limits_stop_parallel_workers() {
        let src = ptxmc_frontend::families::generate("writers", 5, "gpu").expect("a family");
        let test = ptxmc_frontend::parse(&src).expect("parses");
        let opts = Options {
            strategy: Strategy::Dpor,
            max_executions: Some(100),
            ..Options::default()
        };
        for threads in [1, 2] {
            let r = check_with(threads, &test, &opts);
            assert_eq!(r.status.name(), "limit", "{threads} threads");
            assert!(r.stats.executions >= 100 && r.stats.executions < 5040);
        }
    }
}
