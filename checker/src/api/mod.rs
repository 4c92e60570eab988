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
    emit::write(
        &mut out,
        test,
        &tasks,
        &emit::Fences::new(&proxies, aliases),
    );
    placement::separate(&mut out, test.threads.len());
    // invariant: the lowered test has no API left (lowering it again is a no-op).
    out.api = ptxmc_frontend::ir::Api::default();
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

    fn run(src: &str) -> Vec<crate::report::Report> {
        let t = ptxmc_frontend::parse(src).expect("parses");
        [Strategy::Brute, Strategy::Dpor]
            .into_iter()
            .map(|strategy| {
                crate::check(
                    &t,
                    &Options {
                        strategy,
                        ..Options::default()
                    },
                )
            })
            .collect()
    }

    #[test]
    fn aliases_cross_kernels_through_proxy_fences() {
        // Once unsupported: the kernel boundary takes part in proxy-preserved
        // base causality (8.9.4), so the load through the other address reads 1.
        let src = "PTX t\n{ x=0; y @ generic aliases x; kernel A = P0; kernel B = P1; stream S = A, B; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.global.u32 [x], 1 | ld.global.u32 %r0, [y] ;\nexists (1:r0 == 0)";
        for r in run(src) {
            assert_eq!((r.status, r.condition_holds), (Status::Ok, false));
        }
        let t = ptxmc_frontend::parse(src).expect("parses");
        let low = super::lower(&t).expect("lowers").expect("rewritten");
        let alias_fences = |th: usize| {
            low.threads[th]
                .code
                .iter()
                .filter(|s| {
                    matches!(
                        s.instr,
                        ptxmc_frontend::ir::Instr::Fence {
                            kind: ptxmc_frontend::ir::FenceKind::ProxyAlias,
                            ..
                        }
                    )
                })
                .count()
        };
        assert_eq!((alias_fences(0), alias_fences(1)), (1, 1));
    }

    #[test]
    fn async_operations_with_kernels_are_unsupported() {
        let src = "PTX t\n{ x=0; one=1; kernel A = P0; stream S = A; }\n P0@cta 0,gpu 0 ;\n cp.async.bulk.global.shared::cta.bulk_group.relaxed.gpu [x], [one], 4 ;\nexists (x == 0)";
        let t = ptxmc_frontend::parse(src).expect("parses");
        assert!(t.unsupported.is_empty());
        let m = super::lower(&t).err().unwrap_or_default();
        assert!(
            m.contains("asynchronous operations") && m.ends_with("at 4:2"),
            "{m}"
        );
    }

    #[test]
    fn kernels_never_share_a_cta_and_the_host_is_on_no_gpu() {
        let src = "PTX t\n{ x=0; kernel A = P0, P1; kernel B = P2; stream S = A; stream T = B; host P3; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 | P3@cta 0,gpu 0 ;\n st.global.u32 [x], 1 | | | ;\nexists (x == 1)";
        let t = ptxmc_frontend::parse(src).expect("parses");
        let low = super::lower(&t).expect("lowers").expect("rewritten");
        let p: Vec<_> = low.threads.iter().map(|th| th.placement).collect();
        assert_eq!(p[0], p[1], "one kernel, one CTA");
        assert_ne!((p[0].cta, p[0].cluster), (p[2].cta, p[2].cluster));
        assert_eq!(p[0].gpu, p[2].gpu);
        assert!(p[3].gpu > p[0].gpu, "the host has a GPU of its own");
    }

    #[test]
    fn a_query_of_a_two_thread_kernel_has_two_outcomes_not_three() {
        // Reading each thread's flag in turn would make "thread 0 done,
        // thread 1 not" and "thread 0 not done" two executions of one
        // user-visible outcome; the join flag leaves the two real ones.
        let src = "PTX t\n{ x=0; kernel K = P0, P1; stream S; host P2; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 0,gpu 0 ;\n | | cudaLaunchKernel K, S ;\n | | cudaStreamQuery %r0, S ;\nexists (2:r0 == 0)";
        for r in run(src) {
            assert_eq!(r.status, Status::Ok);
            assert_eq!(r.stats.executions, 2, "{:?}", r.stats);
            assert!(r.condition_holds);
        }
    }

    #[test]
    fn host_sync_and_query_verdicts() {
        let host = |calls: &str| {
            format!("PTX t\n{{ out=0; kernel K = P0; stream S; host P1; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.global.u32 [out], 1 | cudaLaunchKernel K, S ;\n{calls} | ld.global.u32 %r1, [out] ;\nexists (1:r1 == 0)")
        };
        let holds = |src: String| {
            let r = run(&src);
            assert_eq!(r[0].condition_holds, r[1].condition_holds);
            assert_eq!(r[0].stats.executions, r[1].stats.executions);
            r[0].condition_holds
        };
        assert!(holds(host("")), "no sync: stale read allowed");
        assert!(!holds(host(" | cudaStreamSynchronize S ;\n")));
        assert!(!holds(host(" | cudaDeviceSynchronize ;\n")));
        assert!(!holds(host(
            " | cudaEventRecord E, S ;\n | cudaEventSynchronize E ;\n"
        )));
        assert!(!holds(host(
            " | LQ: ;\n | cudaStreamQuery %r2, S ;\n | beq %r2, 0, LQ ;\n"
        )));
    }
}
