//! The memory event of a thread's next instruction: loads, stores, RMWs,
//! fences and barriers as [`Event`]s with their locations, semantics, scopes
//! and dependencies.

use super::*;

impl<V: Value> ThreadState<V> {
    /// The event of element `self.sub` of the memory, fence or barrier
    /// instruction at `pc`; `None` when the access has no such element.
    pub(super) fn memory_event(&self, code: &ThreadCode) -> Option<Pending<V>> {
        let instr = &code.stmts().get(self.pc)?.instr;
        match instr {
            Instr::Load {
                sem,
                scope,
                proxy,
                space,
                dst,
                addr,
                ..
            } => {
                let &r = dst.get(self.sub)?;
                let kind = EventKind::Read {
                    loc: Self::location(code, *addr),
                    value: 0,
                    rmw: false,
                    red: false,
                };
                let mut e = self.base_event(code, kind);
                (e.sem, e.scope, e.proxy) = (*sem, shared_scope(*space, *scope), *proxy);
                Some(Pending {
                    event: e,
                    effect: Effect::Read {
                        dst: Some(r),
                        rmw: None,
                    },
                    last: self.sub + 1 >= dst.len(),
                })
            }
            Instr::Store {
                sem,
                scope,
                proxy,
                space,
                addr,
                src,
                ..
            } => {
                let &o = src.get(self.sub)?;
                let (value, deps) = self.operand(o);
                let kind = EventKind::Write {
                    loc: Self::location(code, *addr),
                    value: value.as_constant().unwrap_or(0),
                    rmw: false,
                    init: false,
                };
                let mut e = self.base_event(code, kind);
                (e.sem, e.scope, e.proxy) = (*sem, shared_scope(*space, *scope), *proxy);
                e.data_deps = deps;
                Some(Pending {
                    event: e,
                    effect: Effect::Write { value },
                    last: self.sub + 1 >= src.len(),
                })
            }
            Instr::Rmw {
                sem,
                scope,
                proxy,
                space,
                op,
                dst,
                addr,
                a,
                b,
                ..
            } => {
                let (va, mut deps) = self.operand(*a);
                let (vb, db) = match b {
                    Some(b) => self.operand(*b),
                    None => (V::constant(0), Deps::new()),
                };
                union_into(&mut deps, &db);
                let kind = EventKind::Read {
                    loc: Self::location(code, *addr),
                    value: 0,
                    rmw: true,
                    red: dst.is_none() && code.reading().red_never_acquires,
                };
                let mut e = self.base_event(code, kind);
                (e.sem, e.scope, e.proxy) = (*sem, shared_scope(*space, Some(*scope)), *proxy);
                Some(Pending {
                    event: e,
                    effect: Effect::Read {
                        dst: *dst,
                        rmw: Some(RmwPlan {
                            op: *op,
                            a: va,
                            b: vb,
                            deps,
                            on_read: *op != RmwOp::Exch
                                || code.reading().exch_write_depends_on_read,
                            only_if_equal: *op == RmwOp::Cas && !code.reading().failed_cas_writes,
                            write_back_unseen: *op == RmwOp::Cas
                                && code.reading().failed_cas_writes
                                && code.strong_location(*addr),
                        }),
                    },
                    last: false,
                })
            }
            Instr::Fence { kind, scope } => {
                let mut e = self.base_event(code, EventKind::Fence(*kind));
                e.scope = *scope;
                e.sem = match kind {
                    // A reading where fence.sc is no acq_rel fence marks it relaxed.
                    FenceKind::Sc if !code.reading().fence_sc_acq_rel => Sem::Relaxed,
                    FenceKind::Sc | FenceKind::AcqRel => Sem::AcqRel,
                    FenceKind::Acquire | FenceKind::ProxyTensormapAcquire => Sem::Acquire,
                    FenceKind::Release | FenceKind::ProxyTensormapRelease => Sem::Release,
                    _ => Sem::Weak,
                };
                Some(Pending {
                    event: e,
                    effect: Effect::Fence,
                    last: true,
                })
            }
            Instr::Async(a) => self.async_event(code, a),
            Instr::Barrier {
                kind,
                instance,
                id,
                count,
            } => {
                let (vid, _) = self.operand(*id);
                let vcount = count.map(|c| self.operand(c).0);
                let ev = EventKind::Barrier {
                    kind: *kind,
                    instance: *instance,
                    id: vid.as_constant().unwrap_or(0),
                    count: vcount.as_ref().map(|c| c.as_constant().unwrap_or(0)),
                };
                let mut e = self.base_event(code, ev);
                e.scope = Some(match kind {
                    BarrierKind::ClusterArrive
                    | BarrierKind::ClusterArriveRelaxed
                    | BarrierKind::ClusterWait => Scope::Cluster,
                    _ => Scope::Cta,
                });
                Some(Pending {
                    event: e,
                    effect: Effect::Barrier {
                        id: vid,
                        count: vcount,
                    },
                    last: true,
                })
            }
            _ => None,
        }
    }
}
