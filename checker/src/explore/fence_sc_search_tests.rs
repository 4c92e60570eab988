//! The Fence-SC order search ([`exists_fence_sc_order`]) against the
//! enumeration it replaced ([`fence_sc_orders`], every distinct orientation
//! of the morally strong `fence.sc` pairs, up to 8 fences) on random
//! candidate executions full of `fence.sc` (8.9.3, 8.10.2).

use super::candidate::{exists_fence_sc_order, fence_sc_orders};
use crate::event::EventId;
use crate::execution::Execution;
use crate::model::testutil::*;
use crate::model::{self, Chapter8, Model};
use ptxmc_frontend::ir::{FenceKind, Scope};

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// A random candidate: 2-5 threads in one or two CTAs or GPUs, stores, loads
/// and RMWs of two locations at several strengths, and `fence.sc` of CTA or
/// GPU scope in about a third of the slots; any reads-from, any coherence
/// orientation.
fn random_execution(rng: &mut Rng) -> Execution {
    let mut b = ExecBuilder::new(2);
    let addrs = [b.loc(0), b.loc(1)];
    let strengths = [WEAK, RLX_CTA, RLX_GPU, REL_GPU, ACQ_GPU, ACQ_SYS];
    let placements = [cta(0), cta(0), cta(1), gpu(1)];
    let mut reads = Vec::new();
    let mut writes: Vec<EventId> = (0..2).map(|i| b.init(i)).collect();
    for _ in 0..2 + rng.below(4) {
        let t = b.thread(rng.pick(&placements));
        for _ in 0..1 + rng.below(4) {
            let a = rng.pick(&addrs);
            let s = rng.pick(&strengths);
            match rng.below(9) {
                0 | 1 => writes.push(b.st(t, a, 1 + rng.below(2) as i64, s)),
                2 | 3 => reads.push(b.ld(t, a, s)),
                4 => {
                    let (r, w) = b.rmw(t, a, s);
                    reads.push(r);
                    writes.push(w);
                }
                _ => {
                    let scope = rng.pick(&[Scope::Gpu, Scope::Gpu, Scope::Cta]);
                    b.fence(t, FenceKind::Sc, Some(scope));
                }
            }
        }
    }
    let mut exec = b.build();
    for &r in &reads {
        let phys = exec.event(r).loc().map(|l| l.phys);
        let same: Vec<EventId> = writes
            .iter()
            .copied()
            .filter(|&w| exec.event(w).loc().map(|l| l.phys) == phys)
            .collect();
        exec.set_rf(r, Some(rng.pick(&same)));
    }
    let pairs: Vec<(EventId, EventId)> = exec.co().pairs().collect();
    for (a, c) in pairs {
        if rng.below(2) == 0 {
            exec.unorder_co(a, c);
            exec.order_co(c, a);
        }
    }
    exec
}

#[test]
fn search_finds_the_first_consistent_order_the_enumeration_finds() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut consistent, mut inconsistent, mut ordered) = (0, 0, 0);
    for case in 0..6000 {
        let mut exec = random_execution(&mut rng);
        // Up to 7 fences: the enumeration grows as k!.
        if exec.ids().filter(|&e| exec.event(e).is_fence_sc()).count() > 7 {
            continue;
        }
        let Some(orders) = fence_sc_orders(&exec) else {
            continue;
        };
        if orders.len() < 2 {
            continue;
        }
        // The old decision: the first orientation the model accepts.
        let first = orders.iter().find(|f| {
            exec.copy_fence_sc_from(f);
            model::check(&exec).is_ok()
        });
        let first = first.cloned();
        let found = exists_fence_sc_order(&mut exec, &mut |e| model::check(e).is_ok());
        assert_eq!(found, first.is_some(), "case {case}: {exec:?}");
        assert_eq!(exec.fence_sc_prefix(), None, "case {case}");
        if let Some(f) = first {
            assert_eq!(exec.fence_sc(), f, "case {case}: another order found");
            assert!(model::check(&exec).is_ok());
            consistent += 1;
            if f.len() >= 4 {
                ordered += 1;
            }
        } else {
            inconsistent += 1;
        }
    }
    eprintln!("{consistent} consistent ({ordered} with 4+ fences), {inconsistent} inconsistent");
    // Not vacuous: both answers, and many fences, occur.
    assert!(consistent > 1000, "{consistent} consistent");
    assert!(inconsistent > 1000, "{inconsistent} inconsistent");
    assert!(ordered > 500, "{ordered} consistent with 4 or more fences");
}

#[test]
fn partial_order_relates_the_prefix_to_everything_after_it() {
    let mut b = ExecBuilder::new(1);
    let fences: Vec<EventId> = (0..4)
        .map(|_| {
            let t = b.thread(cta(0));
            b.fence(t, FenceKind::Sc, Some(Scope::Gpu))
        })
        .collect();
    let mut exec = b.build();
    exec.copy_fence_sc_from(&fences);
    let (a, c, d, e) = (fences[0], fences[1], fences[2], fences[3]);
    exec.set_fence_sc_prefix(Some(1));
    let pairs: Vec<_> = exec.fence_sc_pairs().collect();
    assert_eq!(pairs, vec![(a, c), (a, d), (a, e)]);
    exec.set_fence_sc_prefix(Some(0));
    assert_eq!(exec.fence_sc_pairs().count(), 0);
    exec.set_fence_sc_prefix(Some(3));
    assert_eq!(exec.fence_sc_pairs().count(), 6);
    exec.set_fence_sc_prefix(None);
    let all: Vec<_> = exec.fence_sc_pairs().collect();
    assert_eq!(all.len(), 6);
    assert!(all.contains(&(d, e)) && !all.contains(&(e, d)));
}

/// The hinted search an explorer asks at each node
/// ([`Model::exists_fence_sc_order`]: the hint, then the order read off the
/// relations with no Fence-SC pair, then the exact search) gives the
/// enumeration's answer whatever the hint (none, a random order of the
/// fences, a random order of some of them), and leaves a consistent total
/// order of every fence in the graph and in the hint.
#[test]
fn hinted_search_through_the_model_agrees_with_the_enumeration() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let (mut consistent, mut inconsistent, mut hint_rejected) = (0, 0, 0);
    for case in 0..4000 {
        let mut exec = random_execution(&mut rng);
        let fences: Vec<EventId> = exec
            .ids()
            .filter(|&e| exec.event(e).is_fence_sc())
            .collect();
        if fences.len() > 7 || fences.len() < 2 {
            continue;
        }
        let Some(orders) = fence_sc_orders(&exec) else {
            continue;
        };
        let any = orders.iter().any(|f| {
            exec.copy_fence_sc_from(f);
            model::check(&exec).is_ok()
        });
        let mut hint: Vec<EventId> = match rng.below(3) {
            0 => Vec::new(),
            _ => {
                let mut h = fences.clone();
                for i in (1..h.len()).rev() {
                    h.swap(i, rng.below(i + 1));
                }
                h.truncate(1 + rng.below(h.len()));
                h
            }
        };
        if any {
            let mut e = exec.clone();
            let mut order = hint.clone();
            order.extend(fences.iter().filter(|f| !hint.contains(f)));
            e.set_fence_sc(order);
            if model::check(&e).is_err() {
                hint_rejected += 1;
            }
        }
        let mut m = <Chapter8 as Model>::new(&exec);
        exec.clear_fence_sc();
        let found = m.exists_fence_sc_order(&mut exec, &mut hint);
        assert_eq!(found, any, "case {case}: {exec:?}");
        assert_eq!(exec.fence_sc_prefix(), None, "case {case}");
        if found {
            let mut order = exec.fence_sc().to_vec();
            order.sort_unstable();
            assert_eq!(
                order, fences,
                "case {case}: not a total order of the fences"
            );
            assert_eq!(hint, exec.fence_sc(), "case {case}: hint not updated");
            assert!(
                model::check(&exec).is_ok(),
                "case {case}: order found fails"
            );
            consistent += 1;
        } else {
            inconsistent += 1;
        }
    }
    eprintln!("{consistent} consistent ({hint_rejected} with the hint rejected), {inconsistent} inconsistent");
    assert!(consistent > 500, "{consistent} consistent");
    assert!(inconsistent > 500, "{inconsistent} inconsistent");
    assert!(
        hint_rejected > 200,
        "{hint_rejected} searched past the hint"
    );
}
