//! The asynchronous operations of 8.9.1.1 and the `mbarrier` instructions
//! that complete them.

use super::*;

/// The asynchronous operations of 8.9.1.1 and the `mbarrier` instructions
/// that complete them (8.8, 8.9.4). Each variant is one PTX instruction.
///
/// An `mbarrier` object is modelled as one memory location whose value packs
/// the barrier's state ([`mbarrier`] says how): `mbarrier.init` writes it,
/// arrive-on and the transaction-count updates are atomic read-modify-writes
/// of it, and `test_wait` / `try_wait` read it.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AsyncInstr {
    /// `cp.async` (`bulk == false`, generic proxy) or `cp.async.bulk` /
    /// `cp.reduce.async.bulk` (`bulk == true`, async proxy, 8.6): reads `src`
    /// and writes (or, with `reduce`, reduces into) `dst`, then, with `mbar`,
    /// performs the implicit complete-tx of `tx` bytes on that mbarrier.
    Copy {
        /// A `.async.bulk` operation (async proxy).
        bulk: bool,
        /// `.relaxed` (strong) or weak (no qualifier).
        sem: Sem,
        /// Scope of a strong copy.
        scope: Option<Scope>,
        /// Destination.
        dst: AddrId,
        /// Destination state space.
        dst_space: StateSpace,
        /// Source.
        src: AddrId,
        /// Source state space.
        src_space: StateSpace,
        /// The size operand (bytes); the transaction count of the complete-tx.
        size: i64,
        /// The mbarrier of `.mbarrier::complete_tx::bytes`.
        mbar: Option<AddrId>,
        /// `cp.reduce.async.bulk.OP`: the reduction into `dst`.
        reduce: Option<RmwOp>,
        /// A part of a copy that goes on with the next instruction of the
        /// thread: the two are one asynchronous operation (8.9.1.1), the
        /// next part ordered after this one and a later complete-tx after
        /// both. Never written by the parser: the checker's sizes lowering
        /// cuts a copy into one part per byte granule it moves, and every
        /// part but the last has `continued` (and no `mbar`); each part keeps
        /// the copy's `size`, the transaction count of its complete-tx.
        continued: bool,
    },
    /// `st.async{.release.scope}.shared::cluster.mbarrier::complete_tx::bytes [a], v, [mbar]`.
    StAsync {
        /// `.release` or weak.
        sem: Sem,
        /// Scope of `.release`.
        scope: Option<Scope>,
        /// Access size.
        access: Access,
        /// The address.
        addr: AddrId,
        /// The value.
        src: Operand,
        /// The mbarrier signalled with complete-tx.
        mbar: AddrId,
    },
    /// `cp.async.commit_group` / `cp.async.bulk.commit_group`.
    Commit {
        /// The bulk-group variant.
        bulk: bool,
    },
    /// `cp.async.wait_group N` / `cp.async.wait_all` / `cp.async.bulk.wait_group{.read} N`:
    /// waits until at most `pending` of the most recent groups are pending.
    Wait {
        /// The bulk-group variant.
        bulk: bool,
        /// `N`.
        pending: u32,
        /// `cp.async.wait_all`: commits first.
        all: bool,
        /// `.read`: only the reads of the groups are waited for (bulk).
        read: bool,
    },
    /// `cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar]`.
    CpAsyncArrive {
        /// The mbarrier.
        mbar: AddrId,
        /// `.noinc`.
        noinc: bool,
    },
    /// `mbarrier.init.shared{::cta}.b64 [mbar], count`.
    MbarrierInit {
        /// The mbarrier.
        mbar: AddrId,
        /// Expected arrival count.
        count: i64,
    },
    /// `mbarrier.arrive{.expect_tx}`, `mbarrier.expect_tx`, `mbarrier.complete_tx`.
    MbarrierUpdate {
        /// Which update.
        kind: MbarrierUpdate,
        /// `.release` (the default) or `.relaxed`.
        sem: Sem,
        /// Scope (`.cta` by default).
        scope: Scope,
        /// `.shared::cta` or `.shared::cluster`.
        space: StateSpace,
        /// The state destination of `arrive` (`None` for `_` or no destination).
        dst: Option<RegId>,
        /// The mbarrier.
        mbar: AddrId,
        /// Arrival count (`arrive`), 0 otherwise.
        count: i64,
        /// Transaction bytes (`expect_tx`, `complete_tx`), 0 otherwise.
        tx: i64,
        /// `.noComplete` (`arrive` and `arrive_drop` only): the arrive-on
        /// must not complete the current phase, or the behaviour is
        /// undefined (instruction description); an execution in which it
        /// does is reported `undefined` (`docs/model-notes.md`, "Hopper forms").
        no_complete: bool,
    },
    /// `mbarrier.test_wait` / `mbarrier.try_wait` `{.parity}{.sem.scope}.shared{::cta}.b64 p, [mbar], x`.
    MbarrierWait {
        /// `try_wait` (else `test_wait`).
        try_wait: bool,
        /// `.acquire` (the default) or `.relaxed`.
        sem: Sem,
        /// Scope (`.cta` by default).
        scope: Scope,
        /// The predicate written: 1 when the phase completed.
        dst: RegId,
        /// The mbarrier.
        mbar: AddrId,
        /// `.parity`: `x` is a phase parity; else `x` is a state from `arrive`.
        parity: bool,
        /// The parity or state operand.
        x: Operand,
    },
    /// `wgmma.fence.sync.aligned`: orders register accesses before later
    /// `wgmma.mma_async` (instruction description); no memory event.
    WgmmaFence,
    /// `wgmma.mma_async.sync.aligned.SHAPE.DTYPE.ATYPE.BTYPE d, a, b-desc, scale-d{, ...}`:
    /// reads the `a` tile (a descriptor) and the `b` tile through the async
    /// proxy (instruction description, "Async Proxy"), ordered after prior
    /// `fence.proxy.async` only (8.9.1.1: not ordered after prior
    /// instructions); then `d[k] = a * b + scale_d * d[k]` (ptxmc reads one
    /// value per tile location, see `docs/model-notes.md`).
    WgmmaMma {
        /// The modifiers after `wgmma.mma_async.sync.aligned` (shape and types), as written.
        shape: String,
        /// The accumulator registers.
        dst: Vec<RegId>,
        /// The `a` operand.
        a: WgmmaA,
        /// The `b` descriptor register and the tile location it holds.
        b: (RegId, AddrId),
        /// `scale-d`: 0 (`D = A * B`) or not (`D = A * B + D`).
        scale_d: Operand,
        /// The immediates after `scale-d`, as written (`imm-scale-a`, ...).
        imms: Vec<i64>,
        /// `wgmma.mma_async.sp`: the sparse form's metadata operands.
        sparse: Option<WgmmaSparse>,
    },
    /// `wgmma.commit_group.sync.aligned`.
    WgmmaCommit,
    /// `wgmma.wait_group.sync.aligned N`: every committed wgmma-group but the
    /// `N` most recent is complete.
    WgmmaWait {
        /// `N`.
        pending: u32,
    },
}

/// The operands `sp-meta, sp-sel` of `wgmma.mma_async.sp` (a sparse `a`:
/// the metadata selects which of its elements take part). The tiles are
/// read as in the dense form; `d` depends on the metadata too
/// (`docs/model-notes.md`, "wgmma").
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct WgmmaSparse {
    /// `sp-meta`: the 32-bit metadata register (or a constant).
    pub meta: Operand,
    /// `sp-sel`: the sparsity selector, an integer constant (0 to 3).
    pub selector: i64,
}

/// The `a` operand of `wgmma.mma_async`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum WgmmaA {
    /// A matrix descriptor: the register and the tile location it holds.
    Desc(RegId, AddrId),
    /// Fragments of `a` in registers (`{a0, a1, ...}`).
    Regs(Vec<RegId>),
}

/// The updates of an mbarrier object.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum MbarrierUpdate {
    /// `mbarrier.arrive`.
    Arrive,
    /// `mbarrier.arrive.expect_tx`.
    ArriveExpectTx,
    /// `mbarrier.expect_tx`.
    ExpectTx,
    /// `mbarrier.complete_tx`.
    CompleteTx,
    /// `mbarrier.arrive_drop`: arrive-on, and the expected count of the
    /// following phases lowered by the same count ([`mbarrier::drop_arrivals`]).
    ArriveDrop,
    /// `mbarrier.arrive_drop.expect_tx`: expect-tx, then `arrive_drop` with
    /// count 1.
    ArriveDropExpectTx,
}

/// The state of an mbarrier object packed into one 64-bit value (the model of
/// `mbarrier` as a memory location, see `docs/model-notes.md`): bits 48..64
/// count completed phases, 32..48 hold the expected arrival count, 16..32 the
/// pending arrivals of the current phase, and 0..16 the pending transaction
/// count plus 2^15 (it may go below zero when complete-tx comes first).
pub mod mbarrier {
    const TX_BIAS: i64 = 1 << 15;
    const FIELD: i64 = 0xffff;

    /// The value `mbarrier.init` writes: phase 0, `count` expected and pending.
    pub fn init(count: i64) -> i64 {
        let c = count.clamp(0, FIELD);
        (c << 32) | (c << 16) | TX_BIAS
    }

    /// Completed phases of a state.
    pub fn phase(v: i64) -> i64 {
        (v >> 48) & FIELD
    }

    /// The state after `arrivals` arrive-on operations and a transaction-count
    /// change of `tx` (positive: expect-tx; negative: complete-tx). The
    /// current phase completes when no arrival and no transaction is pending;
    /// the next phase then expects the init count again. A value that was
    /// never initialized (expected count 0) is left as it is.
    pub fn update(v: i64, arrivals: i64, tx: i64) -> i64 {
        let expected = (v >> 32) & FIELD;
        if expected == 0 {
            return v;
        }
        // `mbarrier.arrive_drop` ([`drop_arrivals`]): the high half drops.
        let (dropped, arrivals) = (arrivals >> 32, arrivals & 0xffff_ffff);
        let expected = (expected - dropped).max(0);
        let mut phase = phase(v);
        let mut pending = ((v >> 16) & FIELD) - arrivals;
        let mut txc = (v & FIELD) - TX_BIAS + tx;
        if pending <= 0 && txc == 0 {
            phase = (phase + 1) & FIELD;
            pending = expected;
            txc = 0;
        }
        let pending = pending.clamp(0, FIELD);
        let txc = (txc + TX_BIAS).clamp(0, FIELD);
        (phase << 48) | (expected << 32) | (pending << 16) | txc
    }

    /// The `arrivals` operand of [`update`] for `mbarrier.arrive_drop` with
    /// `count`: `count` arrivals, and the expected count of the following
    /// phases lowered by `count` (an expected count that reaches 0 leaves a
    /// barrier that completes no further phase).
    pub fn drop_arrivals(count: i64) -> i64 {
        let c = count.clamp(0, FIELD);
        (c << 32) | c
    }

    /// `test_wait.parity`: 1 when the phase of parity `parity` has completed,
    /// i.e. the current phase has the other parity.
    pub fn parity_done(v: i64, parity: i64) -> i64 {
        i64::from(phase(v) % 2 != parity & 1)
    }

    /// `test_wait` with a state from `arrive`: 1 when the phase that state
    /// was in has completed.
    pub fn state_done(v: i64, state: i64) -> i64 {
        i64::from(phase(v) > phase(state))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_phase_completes_with_its_arrivals_and_transactions() {
            let v = init(2);
            assert_eq!(phase(v), 0);
            let v = update(v, 1, 8);
            assert_eq!(phase(v), 0, "one arrival of two, 8 bytes pending");
            let v = update(v, 1, 0);
            assert_eq!(phase(v), 0, "bytes still pending");
            let v = update(v, 0, -8);
            assert_eq!(phase(v), 1, "complete");
            assert_eq!(parity_done(v, 0), 1);
            assert_eq!(parity_done(v, 1), 0);
            assert_eq!(state_done(v, init(2)), 1);
            let w = update(update(v, 1, 0), 1, 0);
            assert_eq!(phase(w), 2, "the next phase expects the init count again");
        }

        #[test]
        fn arrive_drop_lowers_the_next_phases_count() {
            let v = update(init(2), drop_arrivals(1), 0);
            assert_eq!(phase(v), 0, "one of two arrived");
            let v = update(v, 1, 0);
            assert_eq!(phase(v), 1);
            let w = update(v, 1, 0);
            assert_eq!(phase(w), 2, "the next phase expects one arrival");
        }

        #[test]
        fn complete_tx_may_come_before_expect_tx() {
            let v = update(init(1), 0, -16);
            assert_eq!(phase(v), 0);
            assert_eq!(phase(update(v, 1, 16)), 1);
        }

        #[test]
        fn an_uninitialized_barrier_never_completes() {
            assert_eq!(update(0, 1, 0), 0);
            assert_eq!(parity_done(0, 0), 0);
        }
    }
}
