//! Why a thread can hang: the blocked execution behind a liveness violation
//! (a fair, consistent execution in which some thread never terminates).
//!
//! The reference enumerator's blocked candidates (with its pruning) are
//! decided by the shared completion step, the one every explorer uses
//! (`explore::candidate::finish`); the first that it calls a liveness
//! violation is the witness. A spinning thread keeps reading writes that
//! are coherence-last for it (no newer write is bound to become visible to
//! its reads, 8.6.1); a thread at a barrier waits for arrivals that never
//! come (8.9.4 barriers).

use crate::event::EventId;
use crate::execution::Execution;
use crate::explore::barrier::{self, BarrierSync};
use crate::explore::brute::{self, Visit};
use crate::explore::candidate::{self, exists_consistent, Ending};
use crate::explore::outcome::Outcomes;
use crate::explore::Budget;
use crate::model::Relations;
use crate::report::{Options, Status};
use ptxmc_frontend::ir::{Span, Test};
use std::time::Duration;

/// What one thread does at the end of the blocked execution.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum WaitKind {
    /// It ran to its end.
    Done,
    /// It spins forever in the loop whose back edge is at `at`: each read of
    /// the iteration keeps reading the write it is paired with.
    Spin {
        /// The back edge.
        at: Span,
        /// The reads of the iteration and the write each reads.
        reads: Vec<(EventId, Option<EventId>)>,
    },
    /// It waits forever at the barrier `event`: `arrivals` of `count` arrive.
    Barrier {
        /// The barrier wait.
        event: EventId,
        /// Operations that arrive.
        arrivals: usize,
        /// Operations it waits for.
        count: i64,
    },
    /// The loop bound cut it at `at` (not a hang of the program itself).
    Bound {
        /// Where.
        at: Span,
    },
}

/// One thread of the blocked execution.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Wait {
    /// The thread.
    pub thread: usize,
    /// What it does.
    pub kind: WaitKind,
}

/// The blocked execution of a liveness violation.
#[derive(Clone, Debug)]
pub struct Hang {
    /// The execution, with the existential choices that make it consistent.
    pub execution: Execution,
    /// Its relations.
    pub relations: Relations,
    /// The liveness violation in words, as the check says it.
    pub note: String,
    /// What each thread does.
    pub waits: Vec<Wait>,
}

/// The first blocked candidate the completion step calls a liveness
/// violation; `Ok(None)` if none (the check and this search disagree only
/// for a limit), `Err` when the budget ran out.
pub(super) fn find(
    test: &Test,
    opts: &Options,
    budget: &mut Budget,
) -> Result<Option<Hang>, String> {
    let mut found: Option<Hang> = None;
    let mut visit = |v: Visit<'_>| -> Result<bool, Status> {
        let Visit::Candidate {
            exec,
            endings,
            regs,
        } = v
        else {
            return Ok(true);
        };
        if endings.iter().all(|e| *e == Ending::Done) {
            return Ok(true);
        }
        let mut out = Outcomes::new(test);
        candidate::finish(test, exec.clone(), endings, regs.to_vec(), &mut out);
        let report = out.into_report(test, Status::Ok, Duration::ZERO);
        if report.liveness_holds {
            return Ok(true);
        }
        found = witness(exec, endings, report.liveness_note.unwrap_or_default());
        // Stop the enumeration: the witness is found.
        Err(Status::Ok)
    };
    let interrupted = crate::interrupt::interruptions();
    match brute::candidates(test, opts, budget, true, &mut visit) {
        // A check stopped at the deadline may have hidden the hang.
        Status::Ok if found.is_none() && crate::interrupt::interruptions() != interrupted => {
            Err(super::reasons::timeout_text(opts))
        }
        Status::Ok => Ok(found),
        Status::Limit(m) => Err(m),
        Status::Unsupported(m) | Status::Undefined(m) => Err(m),
        // The reference enumerator estimates nothing.
        other @ Status::Estimate(_) => Err(other.message().unwrap_or_default()),
    }
}

/// The witness for the blocked candidate `exec`: the existential choices
/// that make it consistent, and what each thread waits for.
fn witness(exec: &Execution, endings: &[Ending], note: String) -> Option<Hang> {
    let stopped = crate::explore::candidate::barrier_stops(endings);
    let BarrierSync::Valid { choices, stuck } = barrier::synchronization(exec, &stopped) else {
        return None;
    };
    let mut execution = exec.clone();
    let relations = exists_consistent(&mut execution, &choices)?;
    let waits = endings
        .iter()
        .enumerate()
        .map(|(thread, e)| {
            let kind = match e {
                Ending::Done => WaitKind::Done,
                Ending::Bound { at } => WaitKind::Bound { at: *at },
                Ending::Spin { iteration, at } => WaitKind::Spin {
                    at: *at,
                    reads: iteration
                        .iter()
                        .filter(|&&r| exec.event(r).is_read())
                        .map(|&r| (r, exec.rf().get(r.index()).copied().flatten()))
                        .collect(),
                },
                Ending::BarrierStop(b) => {
                    let s = stuck.iter().find(|s| s.event == *b);
                    WaitKind::Barrier {
                        event: *b,
                        arrivals: s.map_or(0, |s| s.arrivals),
                        count: s.map_or(0, |s| s.count),
                    }
                }
            };
            Wait { thread, kind }
        })
        .collect();
    Some(Hang {
        execution,
        relations,
        note,
        waits,
    })
}
