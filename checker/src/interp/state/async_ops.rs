//! Events of the asynchronous operations and `mbarrier` instructions (8.9.1.1).
//!
//! An asynchronous instruction's events are emitted when the thread issues
//! it, in this order: the copy's source read, its destination write (or the
//! read and write halves of a reduction), then the read and write halves of
//! the implicit mbarrier complete-tx. They carry an [`AsyncOrder`] that says
//! which earlier events of the thread they are ordered after; the model reads
//! program order off it (`model/program_order.rs`).
//!
//! The mbarrier object is a memory location whose value packs its state
//! ([`mbarrier`]): `init` is a weak write, arrive-on and the transaction
//! updates are atomic read-modify-writes, `test_wait` / `try_wait` a read.

use super::{Deps, Effect, MmaEffect, Pending, RmwPlan, ThreadState};
use crate::event::{AsyncAfter, AsyncGroup, AsyncOp, AsyncOrder, Event, EventKind, Location};
use crate::interp::writes::{copy_proxy, COMPLETE_TX_SCOPE, COMPLETE_TX_SEM};
use crate::interp::{ThreadCode, Value};
use ptxmc_frontend::ir::{
    mbarrier, AddrOperand, AsyncInstr, BinOp, FenceKind, Instr, MbarrierUpdate, Proxy, RmwOp,
    Scope, Sem, WgmmaA,
};

/// The write half of an asynchronous read-modify-write: where and how.
pub(super) struct RmwTarget {
    pub loc: Location,
    pub sem: Sem,
    pub scope: Option<Scope>,
    pub proxy: Proxy,
    pub order: Option<AsyncOrder>,
    pub last: bool,
}

/// The operation kind of a copy: `.async.bulk` or `cp.async`.
fn copy_group(bulk: bool) -> AsyncGroup {
    if bulk {
        AsyncGroup::Bulk
    } else {
        AsyncGroup::CpAsync
    }
}

fn group_index(g: AsyncGroup) -> usize {
    match g {
        AsyncGroup::CpAsync => 0,
        AsyncGroup::Bulk => 1,
        AsyncGroup::Other => 2,
        AsyncGroup::Wgmma => 3,
    }
}

impl<V: Value> ThreadState<V> {
    /// The order tag of an event of the operation of kind `group` being issued.
    fn async_tag(&self, group: AsyncGroup, after: AsyncAfter, complete_tx: bool) -> AsyncOrder {
        self.async_tag_of(group, after, complete_tx, false)
    }

    /// [`Self::async_tag`] of an operation that goes on in the next
    /// instruction when `continued` (a part of a split copy).
    fn async_tag_of(
        &self,
        group: AsyncGroup,
        after: AsyncAfter,
        complete_tx: bool,
        continued: bool,
    ) -> AsyncOrder {
        let awaited = match (after, group) {
            (AsyncAfter::All, _) => self.awaited,
            // cp.async.mbarrier.arrive: after every prior cp.async operation.
            (AsyncAfter::Nothing, AsyncGroup::Other) if !complete_tx => [self.issued[0], 0, 0],
            _ => [0; 3],
        };
        AsyncOrder {
            op: Some(AsyncOp {
                group,
                id: self.issued[group_index(group)],
                after,
                complete_tx,
                continued,
            }),
            awaited,
            unordered: None,
        }
    }

    /// The address operand of the instruction at `pc` that its event number
    /// `self.sub` accesses, whose register's reads that event has an address
    /// dependency on (8.10.4): a copy's source read, its destination write
    /// (or reduction), then its complete-tx on the mbarrier; a `st.async`'s
    /// write, then its complete-tx; the mbarrier of the `mbarrier.*`
    /// instructions and `cp.async.mbarrier.arrive`; the address of any other.
    pub(super) fn addr_operand(&self, code: &ThreadCode) -> AddrOperand {
        let Some(Instr::Async(a)) = code.stmts().get(self.pc).map(|s| &s.instr) else {
            return AddrOperand::Target;
        };
        match a {
            AsyncInstr::Copy { reduce, .. } => {
                let ct_at = if reduce.is_some() { 3 } else { 2 };
                match self.sub {
                    0 => AddrOperand::Source,
                    s if s < ct_at => AddrOperand::Target,
                    _ => AddrOperand::Mbarrier,
                }
            }
            AsyncInstr::StAsync { .. } if self.sub == 0 => AddrOperand::Target,
            AsyncInstr::StAsync { .. }
            | AsyncInstr::CpAsyncArrive { .. }
            | AsyncInstr::MbarrierInit { .. }
            | AsyncInstr::MbarrierUpdate { .. }
            | AsyncInstr::MbarrierWait { .. } => AddrOperand::Mbarrier,
            _ => AddrOperand::Target,
        }
    }

    /// Counts the operation of the event just committed as issued when it
    /// was the operation's last event (the last of its instruction, unless
    /// the operation goes on in the next one).
    pub(super) fn finish_async(&mut self, order: &AsyncOrder) {
        if let Some(op) = order.op.filter(|op| !op.continued) {
            let g = group_index(op.group);
            self.issued[g] = self.issued[g].saturating_add(1);
        }
    }

    /// Where the complete-tx or reduction write half of the asynchronous
    /// instruction `a` goes, given the event index `self.sub`.
    pub(super) fn async_rmw_target(&self, code: &ThreadCode, a: &AsyncInstr) -> RmwTarget {
        let ct = |mbar, group| RmwTarget {
            loc: Self::location(code, mbar),
            sem: COMPLETE_TX_SEM,
            scope: Some(COMPLETE_TX_SCOPE),
            proxy: Proxy::Generic,
            order: Some(self.async_tag(group, AsyncAfter::Nothing, true)),
            last: true,
        };
        match a {
            AsyncInstr::Copy {
                bulk,
                sem,
                scope,
                dst,
                mbar,
                reduce: Some(_),
                continued,
                ..
            } if self.sub <= 2 => RmwTarget {
                loc: Self::location(code, *dst),
                sem: *sem,
                scope: *scope,
                proxy: copy_proxy(*bulk),
                order: Some(self.copy_tag(*bulk, *continued)),
                last: mbar.is_none(),
            },
            AsyncInstr::Copy {
                bulk,
                mbar: Some(m),
                ..
            } => ct(*m, copy_group(*bulk)),
            AsyncInstr::StAsync { mbar, .. } => ct(*mbar, AsyncGroup::Other),
            AsyncInstr::CpAsyncArrive { mbar, .. } => RmwTarget {
                loc: Self::location(code, *mbar),
                sem: Sem::Release,
                scope: Some(Scope::Cta),
                proxy: Proxy::Generic,
                order: Some(self.async_tag(AsyncGroup::Other, AsyncAfter::Nothing, false)),
                last: true,
            },
            AsyncInstr::MbarrierUpdate {
                sem, scope, mbar, ..
            } => RmwTarget {
                loc: Self::location(code, *mbar),
                sem: *sem,
                scope: Some(*scope),
                proxy: Proxy::Generic,
                order: None,
                last: true,
            },
            _ => RmwTarget {
                loc: Self::location(code, ptxmc_frontend::ir::AddrId(0)),
                sem: Sem::Weak,
                scope: None,
                proxy: Proxy::Generic,
                order: None,
                last: true,
            },
        }
    }

    /// The tag of a copy's own accesses: `cp.async` after every prior
    /// instruction; `.async.bulk` accesses (async proxy) after prior
    /// `fence.proxy.async` only (`docs/model-notes.md`).
    /// A part of a split copy (`continued`) is the same operation as the
    /// parts after it: their accesses are ordered after its own, and the
    /// last part's complete-tx after all of them (8.9.1.1).
    fn copy_tag(&self, bulk: bool, continued: bool) -> AsyncOrder {
        if bulk {
            self.async_tag_of(
                AsyncGroup::Bulk,
                AsyncAfter::ProxyAsyncFences,
                false,
                continued,
            )
        } else {
            self.async_tag_of(AsyncGroup::CpAsync, AsyncAfter::All, false, continued)
        }
    }

    /// An event of a copy's own accesses (not its complete-tx): the copy's
    /// semantics, scope and proxy, tagged by [`Self::copy_tag`].
    fn copy_event(
        &self,
        code: &ThreadCode,
        kind: EventKind,
        (sem, scope): (Sem, Option<Scope>),
        (bulk, continued): (bool, bool),
    ) -> Event {
        let mut e = self.base_event(code, kind);
        (e.sem, e.scope, e.proxy) = (sem, scope, copy_proxy(bulk));
        e.async_order = self.copy_tag(bulk, continued);
        e
    }

    /// The read half of an mbarrier update by `arrivals` and `tx`.
    fn mbarrier_rmw_read(
        &self,
        code: &ThreadCode,
        mbar: ptxmc_frontend::ir::AddrId,
        dst: Option<ptxmc_frontend::ir::RegId>,
        (arrivals, tx): (i64, i64),
        (sem, scope): (Sem, Scope),
        order: Option<AsyncOrder>,
    ) -> Pending<V> {
        let kind = EventKind::Read {
            loc: Self::location(code, mbar),
            value: 0,
            rmw: true,
            red: dst.is_none(),
        };
        let mut e = self.base_event(code, kind);
        (e.sem, e.scope, e.proxy) = (sem, Some(scope), Proxy::Generic);
        if let Some(o) = order {
            e.async_order = o;
        }
        Pending {
            event: e,
            effect: Effect::Read {
                dst,
                rmw: Some(RmwPlan {
                    op: RmwOp::Mbarrier,
                    a: V::constant(arrivals),
                    b: V::constant(tx),
                    deps: Deps::new(),
                    on_read: true,
                    only_if_equal: false,
                    write_back_unseen: false,
                }),
            },
            last: false,
        }
    }

    /// The implicit generic-async proxy fence that follows the completion of
    /// `wgmma.mma_async` operations (instruction description, "Async
    /// Proxy"), at the `wgmma.wait_group` that completes them: a
    /// `fence.proxy.async` event ordered after their reads.
    pub(super) fn wgmma_completion_fence(&self, code: &ThreadCode) -> Pending<V> {
        Pending {
            event: self.base_event(code, EventKind::Fence(FenceKind::ProxyAsync)),
            effect: Effect::Fence,
            last: true,
        }
    }

    /// The event number `self.sub` of the asynchronous or `mbarrier`
    /// instruction `a`; `None` for instructions without events.
    pub(super) fn async_event(&self, code: &ThreadCode, a: &AsyncInstr) -> Option<Pending<V>> {
        match a {
            AsyncInstr::Copy {
                bulk,
                sem,
                scope,
                dst,
                src,
                size,
                mbar,
                reduce,
                continued,
                ..
            } => {
                let kind_of = (*bulk, *continued);
                let ct_at = if reduce.is_some() { 3 } else { 2 };
                match self.sub {
                    0 => {
                        let kind = EventKind::Read {
                            loc: Self::location(code, *src),
                            value: 0,
                            rmw: false,
                            red: false,
                        };
                        let e = self.copy_event(code, kind, (*sem, *scope), kind_of);
                        Some(Pending {
                            event: e,
                            effect: Effect::CopyRead,
                            last: false,
                        })
                    }
                    1 => {
                        let (value, deps) = self
                            .copy_value
                            .as_deref()
                            .cloned()
                            .unwrap_or_else(|| (V::constant(0), Deps::new()));
                        if let Some(op) = reduce {
                            let kind = EventKind::Read {
                                loc: Self::location(code, *dst),
                                value: 0,
                                rmw: true,
                                red: true,
                            };
                            let e = self.copy_event(code, kind, (*sem, *scope), kind_of);
                            return Some(Pending {
                                event: e,
                                effect: Effect::Read {
                                    dst: None,
                                    rmw: Some(RmwPlan {
                                        op: *op,
                                        a: value,
                                        b: V::constant(0),
                                        deps,
                                        on_read: true,
                                        only_if_equal: false,
                                        write_back_unseen: false,
                                    }),
                                },
                                last: false,
                            });
                        }
                        let kind = EventKind::Write {
                            loc: Self::location(code, *dst),
                            value: value.as_constant().unwrap_or(0),
                            rmw: false,
                            init: false,
                        };
                        let mut e = self.copy_event(code, kind, (*sem, *scope), kind_of);
                        e.data_deps = deps;
                        Some(Pending {
                            event: e,
                            effect: Effect::Write { value },
                            last: mbar.is_none(),
                        })
                    }
                    s if s == ct_at => {
                        let m = (*mbar)?;
                        let group = copy_group(*bulk);
                        Some(self.mbarrier_rmw_read(
                            code,
                            m,
                            None,
                            (0, -size),
                            (COMPLETE_TX_SEM, COMPLETE_TX_SCOPE),
                            Some(self.async_tag(group, AsyncAfter::Nothing, true)),
                        ))
                    }
                    _ => None,
                }
            }
            AsyncInstr::StAsync {
                sem,
                scope,
                access,
                addr,
                src,
                mbar,
            } => match self.sub {
                0 => {
                    let (value, deps) = self.operand(*src);
                    let kind = EventKind::Write {
                        loc: Self::location(code, *addr),
                        value: value.as_constant().unwrap_or(0),
                        rmw: false,
                        init: false,
                    };
                    let mut e = self.base_event(code, kind);
                    (e.sem, e.scope) = (*sem, *scope);
                    e.async_order = self.async_tag(AsyncGroup::Other, AsyncAfter::All, false);
                    e.data_deps = deps;
                    Some(Pending {
                        event: e,
                        effect: Effect::Write { value },
                        last: false,
                    })
                }
                1 => {
                    let bytes = i64::from(access.bytes.max(1));
                    Some(self.mbarrier_rmw_read(
                        code,
                        *mbar,
                        None,
                        (0, -bytes),
                        (COMPLETE_TX_SEM, COMPLETE_TX_SCOPE),
                        Some(self.async_tag(AsyncGroup::Other, AsyncAfter::Nothing, true)),
                    ))
                }
                _ => None,
            },
            AsyncInstr::CpAsyncArrive { mbar, noinc } => {
                // Without `.noinc` the pending count is incremented before the
                // asynchronous arrive-on: no net arrival.
                let arrivals = i64::from(*noinc);
                (self.sub == 0).then(|| {
                    self.mbarrier_rmw_read(
                        code,
                        *mbar,
                        None,
                        (arrivals, 0),
                        (Sem::Release, Scope::Cta),
                        Some(self.async_tag(AsyncGroup::Other, AsyncAfter::Nothing, false)),
                    )
                })
            }
            AsyncInstr::MbarrierInit { mbar, count } => (self.sub == 0).then(|| {
                let value = mbarrier::init(*count);
                let kind = EventKind::Write {
                    loc: Self::location(code, *mbar),
                    value,
                    rmw: false,
                    init: false,
                };
                Pending {
                    event: self.base_event(code, kind),
                    effect: Effect::Write {
                        value: V::constant(value),
                    },
                    last: true,
                }
            }),
            AsyncInstr::MbarrierUpdate {
                kind,
                sem,
                scope,
                dst,
                mbar,
                count,
                tx,
                ..
            } => {
                let delta = match kind {
                    MbarrierUpdate::Arrive => (*count, 0),
                    MbarrierUpdate::ArriveExpectTx => (1, *tx),
                    MbarrierUpdate::ExpectTx => (0, *tx),
                    MbarrierUpdate::CompleteTx => (0, -tx),
                    MbarrierUpdate::ArriveDrop => (mbarrier::drop_arrivals(*count), 0),
                    MbarrierUpdate::ArriveDropExpectTx => (mbarrier::drop_arrivals(1), *tx),
                };
                (self.sub == 0)
                    .then(|| self.mbarrier_rmw_read(code, *mbar, *dst, delta, (*sem, *scope), None))
            }
            AsyncInstr::MbarrierWait {
                sem,
                scope,
                dst,
                mbar,
                parity,
                x,
                ..
            } => (self.sub == 0).then(|| {
                let kind = EventKind::Read {
                    loc: Self::location(code, *mbar),
                    value: 0,
                    rmw: false,
                    red: false,
                };
                let mut e = self.base_event(code, kind);
                (e.sem, e.scope) = (*sem, Some(*scope));
                let (x, _) = self.operand(*x);
                Pending {
                    event: e,
                    effect: Effect::Wait {
                        dst: *dst,
                        op: if *parity {
                            BinOp::MbarrierParityDone
                        } else {
                            BinOp::MbarrierStateDone
                        },
                        x,
                    },
                    last: true,
                }
            }),
            AsyncInstr::WgmmaMma {
                dst,
                a,
                b,
                scale_d,
                sparse,
                ..
            } => {
                let a_loc = match a {
                    WgmmaA::Desc(_, loc) => Some(*loc),
                    WgmmaA::Regs(_) => None,
                };
                let b_at = usize::from(a_loc.is_some());
                let loc = match self.sub {
                    0 if b_at == 1 => a_loc?,
                    s if s == b_at => b.1,
                    _ => return None,
                };
                let kind = EventKind::Read {
                    loc: Self::location(code, loc),
                    value: 0,
                    rmw: false,
                    red: false,
                };
                let mut e = self.base_event(code, kind);
                e.proxy = Proxy::Async;
                e.async_order =
                    self.async_tag(AsyncGroup::Wgmma, AsyncAfter::ProxyAsyncFences, false);
                let effect = if self.sub < b_at {
                    Effect::CopyRead
                } else {
                    let a = match a {
                        WgmmaA::Regs(rs) => Some(match rs.first() {
                            Some(r) => self.operand(ptxmc_frontend::ir::Operand::Reg(*r)),
                            None => (V::constant(0), Deps::new()),
                        }),
                        WgmmaA::Desc(..) => None,
                    };
                    Effect::Mma(Box::new(MmaEffect {
                        dst: dst.clone(),
                        a,
                        scale: self.operand(*scale_d),
                        meta: sparse
                            .as_ref()
                            .map_or_else(Deps::new, |sp| self.operand(sp.meta).1),
                    }))
                };
                Some(Pending {
                    event: e,
                    effect,
                    last: self.sub == b_at,
                })
            }
            AsyncInstr::Commit { .. }
            | AsyncInstr::Wait { .. }
            | AsyncInstr::WgmmaFence
            | AsyncInstr::WgmmaCommit
            | AsyncInstr::WgmmaWait { .. } => None,
        }
    }
}
