//! CUDA API synchronization (8.9.4, "API synchronization"): kernels,
//! streams, events, graphs and the host thread, declared in the initial
//! state (`kernel K = P0, P1;`, `stream S = K0, record E, K1;`,
//! `graph G = K0 -> K1;`, `host P2;`) and called from the host thread's code
//! (`cudaLaunchKernel K, S`, `cudaStreamSynchronize S`, ...).
//!
//! [`tasks`] builds the synchronizes relation of items 1-7 between points of
//! the threads' code: which kernel-thread ends and enqueueing host calls
//! (item 5) precede which kernel-thread starts and host synchronization
//! returns (item 6; a successful query, item 7). [`lower`] writes each such
//! pair with the model's own synchronization (`emit`): the producer point
//! stores 1 with `st.release.sys` to a hidden flag of its own, the consumer
//! point spins with `ld.acquire.sys` until the flag is 1 (a query reads it
//! once). Release pattern 1 synchronizes with acquire pattern 1 (8.8, 8.9.4
//! item 4), which gives the base causality order the API items give; the
//! program order inside each thread carries it on (8.9.5). A wait that can
//! never end is a liveness violation, as a kernel that never starts is.
//!
//! "The CUDA API synchronization mechanisms above also participate in
//! proxy-preserved base causality order except for the tensormap-proxy":
//! where the test uses surface, texture, constant or async-proxy accesses or
//! virtual aliases, each producer point also executes the proxy fences that
//! convert those proxies to the generic proxy and `fence.proxy.alias`, and
//! each kernel-thread start the same fences after its waits, so that the
//! API path is a proxy-preserved one (8.9.5 items 2 and 3). No tensormap
//! fence is added: "the tensormap-proxy ... is not acquired from
//! generic-proxy at CUDA Kernel start and must therefore be acquired
//! explicitly using fence.proxy.tensormap::generic.acquire".
//!
//! Threads of different kernels are in different CTAs and clusters whatever
//! their placements say (a CTA and a cluster belong to one grid); the host
//! thread is in no CTA, cluster or GPU of the device threads, so only
//! `.sys`-scoped operations are morally strong with its own (`placement`).

mod emit;
mod placement;
mod tasks;

use ptxmc_frontend::ir::{AddrKind, Instr, Proxy, Test};

/// The test with the API synchronization written out (`None`: the test
/// declares no kernel and no host thread), or what cannot be checked
/// (`"<what> at L:C"`).
pub(crate) fn lower(test: &Test) -> Result<Option<Test>, String> {
    if test.api.kernels.is_empty() && test.api.host.is_none() {
        return Ok(None);
    }
    let mut proxies = Vec::new();
    let mut aliases = false;
    for th in &test.threads {
        for s in &th.code {
            let (proxy, addr) = match &s.instr {
                Instr::Load { proxy, addr, .. }
                | Instr::Store { proxy, addr, .. }
                | Instr::Rmw { proxy, addr, .. } => (*proxy, *addr),
                Instr::Async(_) => {
                    return Err(format!(
                        "asynchronous operations in a test with kernels (whether a kernel's end waits for them, 8.9.4) at {}",
                        s.span
                    ))
                }
                _ => continue,
            };
            if proxy == Proxy::Readonly {
                return Err(format!(
                    "the readonly proxy in a test with kernels (no proxy fence carries it across API synchronization, 8.9.4) at {}",
                    s.span
                ));
            }
            if !matches!(proxy, Proxy::Generic | Proxy::Tensormap) && !proxies.contains(&proxy) {
                proxies.push(proxy);
            }
            aliases |= test.addresses.get(addr.index()).is_some_and(|a| {
                matches!(a.kind, AddrKind::GenericAlias(_) | AddrKind::ProxyAlias(..))
            });
        }
    }
    let tasks = tasks::Tasks::new(test);
    let mut out = test.clone();
    emit::write(&mut out, test, &tasks, &emit::Fences::new(&proxies, aliases));
    placement::separate(&mut out, test.threads.len());
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use crate::report::{Options, Status, Strategy};

    fn verdict(init: &str) -> (Status, bool, bool) {
        let src = format!(
            "PTX t\n{{ x=0; {init} }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.global.u32 [x], 1 | ld.global.u32 %r0, [x] ;\nexists (1:r0 == 0)"
        );
        let t = ptxmc_frontend::parse(&src).expect("parses");
        let mut out = Vec::new();
        for strategy in [Strategy::Brute, Strategy::Dpor] {
            let r = crate::check(
                &t,
                &Options {
                    strategy,
                    ..Options::default()
                },
            );
            out.push((r.status, r.condition_holds, r.liveness_holds));
        }
        assert_eq!(out[0], out[1]);
        out.remove(0)
    }

    #[test]
    fn stream_order_orders_kernels() {
        // Same stream: the consumer kernel cannot read the initial 0.
        let (s, holds, live) = verdict("kernel A = P0; kernel B = P1; stream S = A, B;");
        assert_eq!((s, holds, live), (Status::Ok, false, true));
        // Different streams, no event: it can.
        let (s, holds, _) = verdict("kernel A = P0; kernel B = P1; stream S = A; stream T = B;");
        assert_eq!((s, holds), (Status::Ok, true));
        // An event recorded after A and waited before B orders them.
        let (_, holds, _) =
            verdict("kernel A = P0; kernel B = P1; stream S = A, record E; stream T = wait E, B;");
        assert!(!holds);
        // Reversed order in the stream: B runs first and reads 0.
        let (_, holds, _) = verdict("kernel A = P0; kernel B = P1; stream S = B, A;");
        assert!(holds);
    }

    #[test]
    fn kernels_with_aliases_are_unsupported() {
        let src = "PTX t\n{ x=0; y @ generic aliases x; kernel A = P0; kernel B = P1; stream S = A, B; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.global.u32 [x], 1 | ld.global.u32 %r0, [y] ;\nexists (1:r0 == 0)";
        let t = ptxmc_frontend::parse(src).expect("parses");
        let m = super::lower(&t).err().unwrap_or_default();
        assert!(m.contains("virtual alias") && m.ends_with("at 4:25"), "{m}");
    }
}
