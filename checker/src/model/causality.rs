//! Causality order (8.9.5): base causality, proxy-preserved base causality,
//! and causality order.

use crate::event::{Event, EventId, EventKind};
use crate::execution::Execution;
use crate::model::observation::Observation;
use crate::model::program_order::ProgramOrder;
use crate::model::synchronizes::Synchronization;
use crate::relation::BitMatrix;
use ptxmc_frontend::ir::{FenceKind, Proxy};

/// The three causality relations of 8.9.5.
#[derive(Clone, Debug)]
pub(crate) struct Causality {
    /// `po ∪ sync`: every base causality path is a path of these edges.
    pub generator: BitMatrix,
    /// Base causality order: `(po ∪ sync)+`.
    pub base: BitMatrix,
    /// Proxy-preserved base causality order, over memory operations.
    pub proxy_preserved: BitMatrix,
    /// Causality order: `P ∪ (observation ; P)` where P is proxy-preserved
    /// base causality between memory operations and base causality otherwise.
    pub order: BitMatrix,
    /// `F -> M` when the proxy fence F converts M's proxy to and from the
    /// generic proxy for M (same CTA, `fence.proxy.P` with P M's proxy).
    conversion: BitMatrix,
    /// Every `fence.proxy.alias`.
    alias_fences: Vec<EventId>,
}

/// A memory operation executed by a thread (not an initial write).
pub(crate) fn is_thread_memory(e: &Event) -> bool {
    e.is_memory() && e.thread.is_some()
}

/// Whether two events are executed by threads of one CTA (one thread block).
pub(crate) fn same_cta(exec: &Execution, a: &Event, b: &Event) -> bool {
    match (a.thread, b.thread) {
        (Some(ta), Some(tb)) => {
            let (pa, pb) = (
                &exec.placements()[ta.index()],
                &exec.placements()[tb.index()],
            );
            pa.gpu == pb.gpu && pa.cta == pb.cta
        }
        _ => false,
    }
}

/// Whether two memory events use the same virtual address.
pub(crate) fn same_address(a: &Event, b: &Event) -> bool {
    matches!((a.loc(), b.loc()), (Some(la), Some(lb)) if la.vaddr == lb.vaddr && la.phys == lb.phys)
}

/// Whether two memory events access the same physical location.
pub(crate) fn same_location(a: &Event, b: &Event) -> bool {
    matches!((a.loc(), b.loc()), (Some(la), Some(lb)) if la.phys == lb.phys)
}

/// Whether X precedes Y in proxy-preserved base causality by items 1 and 2
/// of 8.9.5 alone, given that X precedes Y in base causality.
pub(crate) fn direct_case(exec: &Execution, x: &Event, y: &Event) -> bool {
    same_address(x, y)
        && ((x.proxy == Proxy::Generic && y.proxy == Proxy::Generic)
            || (x.proxy == y.proxy && same_cta(exec, x, y)))
}

impl Causality {
    /// Computes base causality, proxy-preserved base causality and
    /// causality order (8.9.5).
    pub fn new(
        exec: &Execution,
        po: &ProgramOrder,
        sync: &Synchronization,
        obs: &Observation,
    ) -> Self {
        let n = exec.len();
        let mut generator = po.po.clone();
        generator.union_with(&sync.order);
        let base = base_causality(&generator);

        let mut conversion = BitMatrix::new(n);
        let mut alias_fences = Vec::new();
        let mut generic = BitMatrix::new(n);
        for f in exec.ids() {
            crate::interrupt::poll(f.index());
            let ef = exec.event(f);
            match ef.kind {
                EventKind::Fence(FenceKind::ProxyAlias) => alias_fences.push(f),
                EventKind::Fence(k) if !k.is_memory_fence() => {
                    let Some(p) = k.proxy() else { continue };
                    for m in exec.ids() {
                        let em = exec.event(m);
                        if is_thread_memory(em) && em.proxy == p && same_cta(exec, ef, em) {
                            conversion.insert(f, m);
                        }
                    }
                }
                _ if is_thread_memory(ef) && ef.proxy == Proxy::Generic => {
                    generic.insert(f, f);
                }
                _ => {}
            }
        }
        let proxy_preserved =
            proxy_preserved_base_causality(exec, &base, &conversion, &generic, &alias_fences);

        // P: proxy-preserved base causality between memory operations, base
        // causality for every other pair (fences: the Fence-SC axiom).
        let mut p = proxy_preserved.clone();
        for (a, b) in base.pairs() {
            if !(is_thread_memory(exec.event(a)) && is_thread_memory(exec.event(b))) {
                p.insert(a, b);
            }
        }
        let mut order = obs.order.compose(&p);
        order.union_with(&p);
        Self {
            generator,
            base,
            proxy_preserved,
            order,
            conversion,
            alias_fences,
        }
    }

    /// The events a proxy-preserved base causality edge `x -> y` goes
    /// through: `x`, the proxy fence that converts x to the generic proxy
    /// (if any), the alias fence (if any), the proxy fence that converts to
    /// y's proxy (if any), and `y`. Consecutive events are related in base
    /// causality.
    pub fn waypoints(&self, exec: &Execution, x: EventId, y: EventId) -> Option<Vec<EventId>> {
        if !self.proxy_preserved.contains(x, y) {
            return None;
        }
        let (ex, ey) = (exec.event(x), exec.event(y));
        if direct_case(exec, ex, ey) {
            return Some(vec![x, y]);
        }
        let sources: Vec<EventId> = (ex.proxy == Proxy::Generic)
            .then_some(x)
            .into_iter()
            .chain(
                exec.ids()
                    .filter(|&f| self.conversion.contains(f, x) && self.base.contains(x, f)),
            )
            .collect();
        let targets: Vec<EventId> = (ey.proxy == Proxy::Generic)
            .then_some(y)
            .into_iter()
            .chain(
                exec.ids()
                    .filter(|&f| self.conversion.contains(f, y) && self.base.contains(f, y)),
            )
            .collect();
        let dedup = |v: Vec<EventId>| {
            let mut v = v;
            v.dedup();
            v
        };
        for &s in &sources {
            for &t in &targets {
                if same_address(ex, ey) && self.base.contains(s, t) {
                    return Some(dedup(vec![x, s, t, y]));
                }
            }
        }
        for &s in &sources {
            for &fa in &self.alias_fences {
                for &t in &targets {
                    if self.base.contains(s, fa) && self.base.contains(fa, t) {
                        return Some(dedup(vec![x, s, fa, t, y]));
                    }
                }
            }
        }
        None
    }
}

/// Base causality order (8.9.5): X precedes Y if X precedes Y in program
/// order, or X synchronizes with Y, or through some Z by program order and
/// base causality on either side: the transitive closure of `po ∪ sync`.
pub(crate) fn base_causality(generator: &BitMatrix) -> BitMatrix {
    generator.transitive_closure()
}

/// Proxy-preserved base causality (8.9.5), between memory operations X and
/// Y with X before Y in base causality, when:
///
/// 1. X and Y use the same address and the generic proxy;
/// 2. X and Y use the same address, the same proxy, and one thread block;
/// 3. X and Y are aliases (same location) with an alias proxy fence on the
///    base causality path from X to Y.
///
/// Like `ptx-v7.5.cat` (`proxy-preserved-cause-base`, nine cases), a
/// `fence.proxy.P` executed in the CTA of an operation through proxy P
/// converts between P and the generic proxy on the path: the path starts at
/// X if X is generic, or at a conversion fence of X after X; it ends at Y if
/// Y is generic, or at a conversion fence of Y before Y. Between the two, for
/// the same address nothing more is needed; for aliases the path must go
/// through an alias fence, after the first conversion and before the last.
fn proxy_preserved_base_causality(
    exec: &Execution,
    base: &BitMatrix,
    conversion: &BitMatrix,
    generic: &BitMatrix,
    alias_fences: &[EventId],
) -> BitMatrix {
    let n = exec.len();
    // Items 1 and 2.
    let mut ppbc = BitMatrix::new(n);
    for (x, y) in base.pairs() {
        let (ex, ey) = (exec.event(x), exec.event(y));
        if is_thread_memory(ex) && is_thread_memory(ey) && direct_case(exec, ex, ey) {
            ppbc.insert(x, y);
        }
    }
    // Where X's value is in the generic proxy: X itself if generic, or a
    // conversion fence after X (`cause-base & proxy-fence-ops^-1`).
    let mut src = conversion.inverse();
    src.intersect_with(base);
    src.union_with(generic);
    // Where Y's value is taken from the generic proxy: Y itself if generic,
    // or a conversion fence before Y (`cause-base & proxy-fence-ops`).
    let mut dst = conversion.clone();
    dst.intersect_with(base);
    dst.union_with(generic);

    let src_base = src.compose(base);
    let same_address_paths = src_base.compose(&dst);
    let mut alias_id = BitMatrix::new(n);
    for &f in alias_fences {
        alias_id.insert(f, f);
    }
    let alias_paths = src_base.compose(&alias_id).compose(base).compose(&dst);
    for (x, y) in same_address_paths.pairs() {
        if same_address(exec.event(x), exec.event(y)) {
            ppbc.insert(x, y);
        }
    }
    for (x, y) in alias_paths.pairs() {
        if same_location(exec.event(x), exec.event(y)) {
            ppbc.insert(x, y);
        }
    }
    ppbc
}

#[cfg(test)]
mod tests {
    //! The proxy cases of 8.9.5, after the `Nvidia/proxy` tests of the
    //! conformance corpus (themselves after NVlabs/mixedproxy).

    use crate::model::testutil::*;
    use crate::model::{check, Axiom, Orders};
    use ptxmc_frontend::ir::{FenceKind, Proxy};

    /// One operation of a proxy litmus test. Data location `x` (0) has the
    /// generic alias `y`; `flag` is location 1.
    #[derive(Copy, Clone)]
    enum Op {
        /// `st.weak` (or `sust.weak`, ...) of 2 to the data.
        St(Name),
        /// A fence.
        F(FenceKind),
        /// `st.release.gpu flag, 1`.
        Rel,
        /// `ld.acquire.gpu r0, flag` reading 1.
        Acq,
        /// A weak load of the data that returns the initial value.
        Ld(Name),
    }

    /// How the data is named: address and proxy.
    #[derive(Copy, Clone)]
    enum Name {
        /// `x`, generic.
        X,
        /// `y @ generic aliases x`.
        Y,
        /// `s @ surface aliases x`.
        S,
        /// `s1 @ surface aliases y`.
        S1,
        /// `t @ texture aliases y`.
        T,
        /// `tx @ texture aliases x`.
        Tx,
    }

    use FenceKind::{ProxyAlias as Alias, ProxySurface as Sur, ProxyTexture as Tex};
    use Name::*;
    use Op::*;

    /// Runs `P0 | P1` (P1 in CTA `reader_cta`): which axiom the outcome
    /// "flag read 1, data read 0" violates, if any.
    fn run(p0: &[Op], p1: &[Op], reader_cta: u32) -> Option<Axiom> {
        let mut b = ExecBuilder::new(2);
        let x = b.loc(0);
        let y = b.alias(0);
        let flag = b.loc(1);
        let addr = |n: Name| match n {
            X => x,
            Y => y,
            S => x.via(Proxy::Surface),
            S1 => y.via(Proxy::Surface),
            T => y.via(Proxy::Texture),
            Tx => x.via(Proxy::Texture),
        };
        let threads = [b.thread(cta(0)), b.thread(cta(reader_cta))];
        let mut release = None;
        let mut acquires = Vec::new();
        for (t, ops) in threads.into_iter().zip([p0, p1]) {
            for &op in ops {
                match op {
                    St(n) => {
                        b.st(t, addr(n), 2, WEAK);
                    }
                    F(k) => {
                        b.fence(t, k, None);
                    }
                    Rel => release = Some(b.st(t, flag, 1, REL_GPU)),
                    Acq => acquires.push(b.ld(t, flag, ACQ_GPU)),
                    Ld(n) => {
                        b.ld(t, addr(n), WEAK);
                    }
                }
            }
        }
        for r in acquires {
            b.rf(r, release.expect("a release"));
        }
        check(&b.build()).err().map(|v| v.axiom)
    }

    const FORBIDDEN: Option<Axiom> = Some(Axiom::Causality);
    const ALLOWED: Option<Axiom> = None;

    #[test]
    fn generic_write_to_surface_read_needs_a_surface_fence_in_the_readers_cta() {
        // Proxy-MP-gen-sur-no-proxyFence: allowed.
        assert_eq!(run(&[St(X), Rel], &[Acq, Ld(S)], 0), ALLOWED);
        // Proxy-MP-gpu13: the fence in the reader's CTA orders them.
        assert_eq!(run(&[St(X), Rel], &[Acq, F(Sur), Ld(S)], 1), FORBIDDEN);
        // The fence may be in the writer's thread when it shares the CTA.
        assert_eq!(run(&[St(X), F(Sur), Rel], &[Acq, Ld(S)], 0), FORBIDDEN);
        // Proxy-MP-gpu5: in another CTA it converts nothing for the reader.
        assert_eq!(run(&[St(X), F(Sur), Rel], &[Acq, Ld(S)], 1), ALLOWED);
        // A fence of the wrong proxy does nothing.
        assert_eq!(run(&[St(X), Rel], &[Acq, F(Tex), Ld(S)], 0), ALLOWED);
    }

    #[test]
    fn surface_write_to_generic_read_needs_a_surface_fence_after_the_write() {
        assert_eq!(run(&[St(S), Rel], &[Acq, Ld(X)], 0), ALLOWED);
        // Proxy-MP-sur-gen-surfaceFence1: the fence may be in either thread.
        assert_eq!(run(&[St(S), Rel], &[Acq, F(Sur), Ld(X)], 0), FORBIDDEN);
        assert_eq!(run(&[St(S), F(Sur), Rel], &[Acq, Ld(X)], 1), FORBIDDEN);
        // Before the write it converts nothing.
        assert_eq!(run(&[F(Sur), St(S), Rel], &[Acq, Ld(X)], 0), ALLOWED);
    }

    #[test]
    fn same_proxy_same_address_is_ordered_only_inside_one_cta() {
        assert_eq!(run(&[St(S), Rel], &[Acq, Ld(S)], 0), FORBIDDEN);
        assert_eq!(run(&[St(S), Rel], &[Acq, Ld(S)], 1), ALLOWED);
        assert_eq!(run(&[St(X), Rel], &[Acq, Ld(X)], 1), FORBIDDEN, "generic");
        // Proxy-MP-Alias+sameProxy-noFence1: same proxy, different addresses.
        assert_eq!(run(&[St(S), Rel], &[Acq, Ld(S1)], 0), ALLOWED);
    }

    #[test]
    fn surface_to_texture_needs_both_conversions_in_path_order() {
        // Proxy-SingleThread-rf-surW-surxF-texF-texR: forced.
        assert_eq!(run(&[St(S), F(Sur), F(Tex), Ld(Tx)], &[], 0), FORBIDDEN);
        // Proxy-SingleThread-rf-surW-texF-surF-texR: wrong order.
        assert_eq!(run(&[St(S), F(Tex), F(Sur), Ld(Tx)], &[], 0), ALLOWED);
        assert_eq!(run(&[St(S), F(Sur), Ld(Tx)], &[], 0), ALLOWED);
        // Proxy-MP-gpu12 and gpu11.
        assert_eq!(
            run(&[St(S), F(Sur), Rel], &[Acq, F(Tex), Ld(Tx)], 1),
            FORBIDDEN
        );
        assert_eq!(
            run(&[St(S), F(Tex), Rel], &[Acq, F(Sur), Ld(Tx)], 1),
            ALLOWED
        );
    }

    #[test]
    fn aliases_need_an_alias_fence_on_the_path() {
        // Proxy-MP-Alias+sameProxy-aliasFence1 and its fenceless variant.
        assert_eq!(run(&[St(X), Rel], &[Acq, Ld(Y)], 0), ALLOWED);
        assert_eq!(run(&[St(X), Rel], &[Acq, F(Alias), Ld(Y)], 1), FORBIDDEN);
        assert_eq!(run(&[St(X), F(Alias), Rel], &[Acq, Ld(Y)], 1), FORBIDDEN);
        // CoWR (8.10.6), in one thread.
        assert_eq!(run(&[St(X), F(Alias), Ld(Y)], &[], 0), FORBIDDEN);
        assert_eq!(run(&[St(X), Ld(Y)], &[], 0), ALLOWED);
        // An alias fence before the write orders nothing.
        assert_eq!(run(&[F(Alias), St(X), Ld(Y)], &[], 0), ALLOWED);
    }

    #[test]
    fn alias_and_proxy_fences_combine_in_path_order() {
        // Proxy-MP-Alias+diffProxy-aliasFence+proxyFence-correctOrder1.
        let correct = run(&[St(S), F(Sur), F(Alias), Rel], &[Acq, F(Tex), Ld(T)], 0);
        assert_eq!(correct, FORBIDDEN);
        // ...-wrongOrder2: the texture conversion comes before the alias fence.
        let wrong = run(&[St(S), F(Sur), Rel], &[Acq, F(Tex), F(Alias), Ld(T)], 0);
        assert_eq!(wrong, ALLOWED);
        // Proxy-MP-cta-synonym28 (surface -> generic alias) and synonym41.
        assert_eq!(
            run(&[St(S), F(Sur), Rel], &[Acq, F(Alias), Ld(Y)], 0),
            FORBIDDEN
        );
        assert_eq!(
            run(&[St(S), Rel], &[Acq, F(Alias), F(Sur), Ld(Y)], 0),
            ALLOWED
        );
        // ...-correctThread1: generic -> alias -> surface of the alias.
        assert_eq!(
            run(&[St(X), F(Alias), Rel], &[Acq, F(Sur), Ld(S1)], 0),
            FORBIDDEN
        );
        assert_eq!(
            run(&[St(X), Rel], &[Acq, F(Sur), F(Alias), Ld(S1)], 0),
            ALLOWED
        );
    }

    #[test]
    fn the_witness_goes_through_the_alias_fence() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let w = b.st(t0, b.loc(0), 1, WEAK);
        let fa = b.fence(t0, FenceKind::ProxyAlias, None);
        let y = b.alias(0);
        let r = b.ld(t0, y, WEAK);
        let v = check(&b.build()).unwrap_err();
        assert_eq!(v.axiom, Axiom::Causality);
        // R from-reads W; W -po-> alias fence -po-> R.
        assert_eq!(v.events, vec![r, w, fa]);
    }

    #[test]
    fn base_causality_is_not_proxy_preserved_without_the_fence() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let w = b.st(t0, b.loc(0).via(Proxy::Surface), 1, WEAK);
        let f = b.fence(t0, FenceKind::ProxySurface, None);
        let r = b.ld(t0, b.loc(0), WEAK);
        let r2 = b.ld(t0, b.loc(0).via(Proxy::Texture), WEAK);
        let exec = b.build();
        let orders = Orders::new(&exec);
        let c = &orders.causality;
        assert!(c.base.contains(w, r) && c.base.contains(w, r2));
        assert!(c.proxy_preserved.contains(w, r));
        assert!(!c.proxy_preserved.contains(w, r2));
        assert!(!c.proxy_preserved.contains(w, f), "memory operations only");
        assert!(c.order.contains(w, f), "base causality for fences");
        assert_eq!(c.waypoints(&exec, w, r), Some(vec![w, f, r]));
        assert_eq!(c.waypoints(&exec, w, r2), None);
    }
}
