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
//! - The model follows the graph ([`Model`], the explorer's one seam to it,
//!   statically dispatched to [`Chapter8`]): what depends only on the events
//!   (program order, morally strong, patterns, ...) is kept up to date event
//!   by event ([`Model::push`], [`Model::pop`]); a consistency check
//!   recomputes only what depends on reads-from and coherence, on one machine
//!   word per event ([`Model::decide`]).
//! - A graph is checked lazily, right before it is extended, and only when
//!   the last change can have broken it: an added fence cannot (see
//!   [`Dpor::visit`]); an added read is checked incrementally from the
//!   relations of the graph it extends, which only gain a column
//!   ([`Model::decide_read`]); so is a write that no waiting read reads
//!   ([`Model::decide_write`]: it gains a column and its place in
//!   coherence); a write that waiting reads read (new reads-from edges
//!   anywhere) gets a full check. The relations a read or write node extends
//!   are saved once per node into a frame ([`Model::save`]), reused on
//!   backtrack ([`Model::recycle`]).
//! - A complete graph is folded in without copying it in the common case
//!   ([`Dpor::finish_fast`]: every thread done, no barrier, at most one
//!   `fence.sc`, relations found consistent, one coherence-last write per
//!   observed location): its one final state is read off the registers and
//!   the coherence rows and counted in [`Outcomes`] by its values alone
//!   ([`Outcomes::add_final`], no allocation for a state seen before).
//!   Otherwise it hands its relations to the check [`candidate::finish`]
//!   makes ([`Model::hand_over`]).
//! - Children that cannot be consistent are not generated when a cheap
//!   argument shows it; each is a case of an axiom the full check would find
//!   violated, so counts do not change, and each is the model's rule, not the
//!   explorer's: the writes a read may read ([`Model::readable`]), the
//!   coherence positions of a write ([`Model::coherence_positions`]), and the
//!   position a write must take to give its value to a waiting RMW read
//!   ([`crate::model::consistency::Positions::rmw_half`]); sets of waiting
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

mod ahead;
mod awaits;
mod complete;
mod events;
mod exits;
mod fairness;
mod memo;
mod read;
mod satisfy;
mod schedule;
mod walk;
mod write;

use super::barrier;
use super::candidate::{self, Ending, Finish};
use super::domain::{self as domain_mod, Domain};
use super::outcome::{self, Outcomes};
use super::Budget;
use crate::event::{Event, EventId, EventKind, Location};
use crate::execution::Execution;
use crate::interp::{Next, ThreadCode, ThreadState};
use crate::model::{self, Chapter8, Model};
use crate::report::{BlockReason, Status};
use events::{pop_event, push_event, set_read_value};
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
    /// The model, following `exec` ([`Model`]'s call protocol: told of
    /// every event pushed and popped, and of every other change).
    model: M,
    states: Vec<ThreadState<i64>>,
    runs: Vec<Run>,
    /// Reads committed to reading a value from a write not yet added.
    pending: Vec<EventId>,
    /// Reads waiting for a write not yet added, each stopping its thread
    /// ([`Run::Waiting`]).
    waiting: Vec<EventId>,
    /// The waiting reads that *await* (`fairness.rs`, [`Dpor::hang`]): reads
    /// of a spin loop whose failing values are not given by writes as they
    /// are added but read, as a hang, once no thread can go on.
    // invariant: a subset of `waiting`.
    awaiting: Vec<EventId>,
    /// Whether an awaiting read fails with a value, as found so far
    /// ([`Dpor::awaiting_fails`]): (read, value, fails).
    // invariant: only for reads in `awaiting` or whose thread is restored to
    // the state it awaits in; cleared when the read is popped.
    await_fails: std::cell::RefCell<SmallVec<[(EventId, i64, bool); 8]>>,
    /// A spare thread state for the probes of [`Dpor::awaiting_fails`]
    /// (which sees the state only through a shared borrow).
    probe: std::cell::RefCell<Option<ThreadState<i64>>>,
    /// The way to its gate of a thread waiting at the RMW read of a chain
    /// ([`Dpor::gate_ahead`]), per waiting read.
    // invariant: only for reads in `waiting`; cleared when the read is popped.
    ahead_memo: std::cell::RefCell<Vec<(EventId, Option<std::sync::Arc<ahead::Ahead>>)>>,
    /// `writes_made[t][p]`: the writes of thread `t` to `p` in the graph.
    // invariant: counts the write events of `exec`, by thread and location.
    writes_made: Vec<Vec<u32>>,
    /// Barrier events in the graph.
    barriers: usize,
    /// `fence.sc` events in the graph.
    fences_sc: usize,
    /// Threads ended in a spin loop ([`Ending::Spin`]).
    spinning: usize,
    /// The Fence-SC order last found for a partial graph, tried first for
    /// the next ([`Model::exists_fence_sc_order`]).
    fence_hint: Vec<EventId>,
    /// Spare thread states, reused for what a node saves for its children
    /// (no allocation per node once the search is deep enough).
    spare_states: Vec<ThreadState<i64>>,
    /// The last mark given to a saved thread state
    /// ([`ThreadState::save_into`]): a restore of a state not changed since
    /// it was saved copies nothing.
    saves: u64,
    /// The graph was just found satisfiable ([`Dpor::satisfiable`]) by the
    /// caller of [`Dpor::visit`], with the model's relations at hand (whose
    /// base causality the answer read): `visit` need not ask again before
    /// it extends the graph, if the relations are still at hand and its
    /// consistency check could not have changed them (no barrier, at most
    /// one `fence.sc`).
    // invariant: set only right before a call of `visit` on the graph the
    // answer is for; `visit` takes it at once.
    satisfied: bool,
}

/// The model the explorer runs with: one type, so that every call to it is
/// statically dispatched.
type M = Chapter8;

impl State {
    /// A copy of thread `t`'s state, in a spare buffer when there is one.
    fn save(&mut self, t: usize) -> ThreadState<i64> {
        self.saves += 1;
        match self.spare_states.pop() {
            Some(mut x) => {
                self.states[t].save_into(&mut x, self.saves);
                x
            }
            None => self.states[t].saved(self.saves),
        }
    }

    /// Gives back a buffer of [`Self::save`].
    fn recycle(&mut self, x: ThreadState<i64>) {
        self.spare_states.push(x);
    }

    /// The waiting and awaiting reads, saved, with `r` no longer among them
    /// (its thread is about to go on); [`Self::restore_waiting`] puts them back.
    fn stop_waiting(&mut self, r: EventId) -> (Vec<EventId>, Vec<EventId>) {
        let saved = (self.waiting.clone(), self.awaiting.clone());
        self.waiting.retain(|&x| x != r);
        self.awaiting.retain(|&x| x != r);
        saved
    }

    /// Undoes [`Self::stop_waiting`].
    fn restore_waiting(&mut self, (waiting, awaiting): (Vec<EventId>, Vec<EventId>)) {
        self.waiting = waiting;
        self.awaiting = awaiting;
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
    /// A look-ahead of a walk (`--strategy estimate`) went past its budget:
    /// the child it looked into is big ([`Dpor::walk_node`]).
    Probe,
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
    /// Per physical location: whether its writes form an RMW chain
    /// (`fairness.rs`, [`Self::rmw_chain`]), found on first use.
    rmw_chains: std::sync::OnceLock<Vec<bool>>,
    /// Each thread's way from its initial state to its gate (`ahead.rs`),
    /// found on first use.
    aheads: std::sync::OnceLock<Vec<Option<ahead::Ahead>>>,
    /// Per physical location: whether its writes form an RMW chain of
    /// positive additions (`ahead.rs`), found on first use.
    growing: std::sync::OnceLock<Vec<bool>>,
    /// The write instructions of each thread to each location (`exits.rs`).
    write_sites: std::sync::OnceLock<exits::WriteSites>,
    /// Facts of the code found once per instruction (`memo.rs`).
    memo: memo::Memo,
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
                let key = |e: &Event| {
                    (
                        e.sem,
                        e.scope,
                        e.proxy,
                        e.loc().map(|l| l.vaddr),
                        e.is_rmw(),
                    )
                };
                let same = |e: &Event| key(e) == key(&ev);
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
            rmw_chains: std::sync::OnceLock::new(),
            aheads: std::sync::OnceLock::new(),
            growing: std::sync::OnceLock::new(),
            write_sites: std::sync::OnceLock::new(),
            memo: memo::Memo::new(codes),
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
    /// write of its own thread that comes later in program order, given the
    /// ways the thread writes `phys` ([`model::may_read_own_later_write`]).
    fn may_read_own_later_write(
        &self,
        t: usize,
        phys: usize,
        vaddr: VAddrId,
        proxy: Proxy,
    ) -> bool {
        model::may_read_own_later_write(
            self.issues_async[t],
            self.accesses[t][phys].iter().copied(),
            (vaddr, proxy),
        )
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
        let model = M::new(&exec);
        let states = self
            .codes
            .iter()
            .map(|c| ThreadState::new(c, self.test, self.unroll))
            .collect();
        let mut root = State {
            exec,
            model,
            states,
            runs: vec![Run::Running; self.codes.len()],
            pending: Vec::new(),
            waiting: Vec::new(),
            awaiting: Vec::new(),
            await_fails: Default::default(),
            probe: Default::default(),
            ahead_memo: Default::default(),
            writes_made: vec![vec![0; self.init_mem.len()]; self.codes.len()],
            barriers: 0,
            fences_sc: 0,
            spinning: 0,
            fence_hint: Vec::new(),
            spare_states: Vec::new(),
            saves: 0,
            satisfied: false,
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
            Err(Halt::Probe) => Status::Unsupported("internal: a look-ahead out of a walk".into()),
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
        let satisfied = std::mem::take(&mut s.satisfied);
        self.tick(w)?;
        if let Some(walk) = &self.walk {
            walk.tick();
        }
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
                        || (s.model.known()
                            && !(s.pending.is_empty() && s.waiting.is_empty())
                            && !(satisfied && s.barriers == 0 && s.fences_sc < 2 && {
                                debug_assert!(self.satisfiable(s), "found satisfiable before");
                                true
                            })
                            && !self.satisfiable(s)))
                {
                    w.out.stats.pruned += 1;
                    return Ok(());
                }
                match ev.kind {
                    EventKind::Read { .. } => self.read(s, w, t, ev, parts),
                    EventKind::Write { .. } => self.write(s, w, t, ev, parts),
                    EventKind::Fence(_) => {
                        // A fence at the end of its thread keeps the graph
                        // consistent ([`Model::fence_keeps_consistent`]).
                        let id = push_event(s, t, ev, None);
                        s.states[t].commit(id, None);
                        let check = !s.model.fence_keeps_consistent(&s.exec, id);
                        let r = self.visit(s, w, check, parts);
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
}

#[cfg(test)]
mod tests;
