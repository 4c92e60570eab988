//! Strong proxy accesses (8.6.1): which strong modifications eventually
//! become observable by strong accesses through a different proxy.

use crate::event::EventId;
use crate::execution::Execution;
use ptxmc_frontend::ir::{Proxy, Scope};

/// 8.6.1: "Strong modifications through generic-proxy, async-proxy,
/// tensormap-proxy, fabric-proxy, eventually become observable by strong
/// accesses to the same location performed via a different proxy in that
/// list, if modification and access are: system-scope - even if these used
/// distinct memory addresses - or gpu-scope if the different proxies involved
/// are in the following list: async-proxy, generic-proxy."
///
/// `w` is the modification, `r` the access; both must be strong, through
/// distinct proxies of the list, on one location, and each one's scope must
/// include the other's thread (as in 8.7 condition 1). ptxmc has no fabric
/// proxy. Same-proxy pairs are the morally strong case (8.7), not this one.
pub fn eventually_observable_across_proxies(exec: &Execution, w: EventId, r: EventId) -> bool {
    let (ew, er) = (exec.event(w), exec.event(r));
    let listed = |p| matches!(p, Proxy::Generic | Proxy::Async | Proxy::Tensormap);
    if ew.proxy == er.proxy || !listed(ew.proxy) || !listed(er.proxy) {
        return false;
    }
    if !(ew.is_strong() && er.is_strong() && ew.is_memory() && er.is_memory()) {
        return false;
    }
    if ew.loc().map(|l| l.phys) != er.loc().map(|l| l.phys) {
        return false;
    }
    let (Some(sw), Some(sr), Some(pw), Some(pr)) =
        (ew.scope, er.scope, exec.placement(w), exec.placement(r))
    else {
        return false;
    };
    let includes = pw.scope_includes(sw, pr) && pr.scope_includes(sr, pw);
    let async_generic = matches!(
        (ew.proxy, er.proxy),
        (Proxy::Async, Proxy::Generic) | (Proxy::Generic, Proxy::Async)
    );
    let same_vaddr = ew.loc().map(|l| l.vaddr) == er.loc().map(|l| l.vaddr);
    let sys = sw == Scope::Sys && sr == Scope::Sys;
    let gpu = sw >= Scope::Gpu && sr >= Scope::Gpu && async_generic && same_vaddr;
    includes && (sys || gpu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::*;

    #[test]
    fn async_to_generic_at_gpu_scope_only() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(1));
        let w = b.st(t0, b.loc(0), 1, RLX_GPU);
        let r = b.ld(t1, b.loc(0), RLX_GPU);
        let r_cta = b.ld(t1, b.loc(0), RLX_CTA);
        let mut exec = b.build();
        exec.event_mut(w).proxy = Proxy::Async;
        assert!(eventually_observable_across_proxies(&exec, w, r));
        assert!(!eventually_observable_across_proxies(&exec, w, r_cta));
        exec.event_mut(w).proxy = Proxy::Tensormap;
        assert!(
            !eventually_observable_across_proxies(&exec, w, r),
            "tensormap needs .sys"
        );
        exec.event_mut(w).proxy = Proxy::Generic;
        assert!(
            !eventually_observable_across_proxies(&exec, w, r),
            "same proxy: the morally strong case"
        );
    }
}
