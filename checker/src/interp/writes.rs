//! The writes an instruction can make, as the interpreter builds them: what
//! an explorer needs to know about writes before they exist.

use ptxmc_frontend::ir::{AddrId, AsyncInstr, Instr, Proxy, Scope, Sem, StateSpace};

/// One kind of write of an instruction: address, proxy, semantics, scope,
/// and whether it is the write half of an RMW.
pub type WriteShape = (AddrId, Proxy, Sem, Option<Scope>, bool);

/// The writes `i` can make (the write half of an RMW takes the semantics,
/// scope and proxy of the instruction; asynchronous operations as
/// `state/async_ops.rs` emits them).
pub fn write_shapes(i: &Instr) -> Vec<WriteShape> {
    match i {
        Instr::Store {
            addr,
            proxy,
            sem,
            scope,
            space,
            ..
        } => vec![(*addr, *proxy, *sem, shared_scope(*space, *scope), false)],
        Instr::Rmw {
            addr,
            proxy,
            sem,
            scope,
            space,
            ..
        } => vec![(
            *addr,
            *proxy,
            *sem,
            shared_scope(*space, Some(*scope)),
            true,
        )],
        Instr::Async(a) => async_write_shapes(a),
        _ => Vec::new(),
    }
}

/// 8.9.1.1 leaves the semantics of the implicit complete-tx to the
/// instruction descriptions, which give it `.release` at `.cluster` scope.
pub(super) const COMPLETE_TX_SEM: Sem = Sem::Release;
pub(super) const COMPLETE_TX_SCOPE: Scope = Scope::Cluster;

/// The proxy of a copy's own accesses: the async proxy for `.async.bulk`
/// copies, the generic proxy for `cp.async`.
pub(super) fn copy_proxy(bulk: bool) -> Proxy {
    if bulk {
        Proxy::Async
    } else {
        Proxy::Generic
    }
}

/// The complete-tx: `.release.cluster`, generic proxy (`state/async_ops.rs`).
fn complete_tx(mbar: AddrId) -> WriteShape {
    (
        mbar,
        Proxy::Generic,
        COMPLETE_TX_SEM,
        Some(COMPLETE_TX_SCOPE),
        true,
    )
}

fn async_write_shapes(a: &AsyncInstr) -> Vec<WriteShape> {
    match a {
        AsyncInstr::Copy {
            bulk,
            sem,
            scope,
            dst,
            mbar,
            reduce,
            ..
        } => {
            let mut v = vec![(*dst, copy_proxy(*bulk), *sem, *scope, reduce.is_some())];
            v.extend(mbar.map(complete_tx));
            v
        }
        AsyncInstr::StAsync {
            sem,
            scope,
            addr,
            mbar,
            ..
        } => vec![
            (*addr, Proxy::Generic, *sem, *scope, false),
            complete_tx(*mbar),
        ],
        AsyncInstr::CpAsyncArrive { mbar, .. } => {
            vec![(*mbar, Proxy::Generic, Sem::Release, Some(Scope::Cta), true)]
        }
        AsyncInstr::MbarrierInit { mbar, .. } => {
            vec![(*mbar, Proxy::Generic, Sem::Weak, None, false)]
        }
        AsyncInstr::MbarrierUpdate {
            sem, scope, mbar, ..
        } => vec![(*mbar, Proxy::Generic, *sem, Some(*scope), true)],
        AsyncInstr::Commit { .. }
        | AsyncInstr::Wait { .. }
        | AsyncInstr::MbarrierWait { .. }
        | AsyncInstr::WgmmaFence
        | AsyncInstr::WgmmaMma { .. }
        | AsyncInstr::WgmmaCommit
        | AsyncInstr::WgmmaWait { .. } => Vec::new(),
    }
}

/// Whether a thread's code issues asynchronous operations (8.9.1.1), whose
/// events may read from, or be read by, events of the same thread issued
/// later: an explorer must then let every read of the thread read from the
/// thread's own later writes.
pub fn issues_async(code: &[ptxmc_frontend::ir::Stmt]) -> bool {
    code.iter().any(|s| {
        matches!(
            s.instr,
            Instr::Async(
                AsyncInstr::Copy { .. }
                    | AsyncInstr::StAsync { .. }
                    | AsyncInstr::CpAsyncArrive { .. }
                    | AsyncInstr::WgmmaMma { .. }
            )
        )
    })
}

/// 8.3: "the synchronizing effect of the PTX instruction ld.relaxed.shared.sys
/// is identical to that of ld.relaxed.shared.cluster, since no thread outside
/// the same cluster can execute an operation that accesses the same memory
/// location": a strong access (`ld`, `st`, `atom`, `red`) to shared memory has at
/// most `.cluster` scope. (A `.local` location is one thread's copy and a
/// `.param` one is never written: no other thread's operation could be
/// morally strong with theirs whatever the scope, which stays as written.)
pub(crate) fn shared_scope(space: StateSpace, scope: Option<Scope>) -> Option<Scope> {
    match space {
        StateSpace::Shared | StateSpace::SharedCluster => scope.map(|s| s.min(Scope::Cluster)),
        StateSpace::Global | StateSpace::Const | StateSpace::Local | StateSpace::Param => scope,
    }
}
