//! The host thread's code (8.9.4, API synchronization): CUDA runtime calls
//! written as instructions of the thread declared with `host P2;`, and the
//! checks that make its enqueue order static.
//!
//! ```text
//! cudaLaunchKernel K0, S0       cudaGraphLaunch G, S0
//! cudaEventRecord E, S0         cudaStreamWaitEvent S1, E
//! cudaStreamSynchronize S0      cudaEventSynchronize E
//! cudaDeviceSynchronize         cudaStreamDestroy S0
//! cudaStreamQuery %r0, S0       cudaEventQuery %r0, E   (%r0 = 1: cudaSuccess, 0: not ready)
//! ```
//!
//! Host memory accesses are the litmus instructions (`st.u32 [x], 1`, weak;
//! `ld.relaxed.sys`, strong): the host is in no CTA, cluster or GPU, so a
//! strong host access or fence takes `.sys` scope, and the host has no
//! shared memory, barriers or asynchronous operations.

use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{
    ApiCall, Instr, Proxy, Scope, Span, StateSpace, Stmt, StreamKind, Task, LEGACY_STREAM,
};
use crate::lexer::Tok;

fn bad(msg: String, span: Span) -> ParseError {
    ParseError::new(ParseErrorKind::BadApi(msg), span)
}

impl<'s> Parser<'s> {
    /// Parses a `cuda*` call of thread `t` (the name already consumed) and
    /// appends it; `false` when `name` is no CUDA call.
    pub(super) fn host_instruction(&mut self, t: usize, name: &str, span: Span) -> PResult<bool> {
        if !name.starts_with("cuda") {
            return Ok(false);
        }
        if self.b.api.host.map(|h| h.index()) != Some(t) {
            return Err(bad(
                format!("`{name}` outside the host thread (declare it: `host P{t};`)"),
                span,
            ));
        }
        let mut args: Vec<(&'s str, Span)> = Vec::new();
        let line = span.line;
        while self.peek().tok == Tok::Ident && self.peek().span.line == line {
            args.push(self.ident("an argument")?);
            if !self.at(Tok::Comma) {
                break;
            }
            self.bump();
        }
        let want = |n: usize, form: &str| -> PResult<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(bad(format!("`{name}` takes `{form}`"), span))
            }
        };
        let call = match name {
            "cudaLaunchKernel" => {
                want(2, "KERNEL, STREAM")?;
                let kernel = self.api_kernel(args[0])?;
                ApiCall::Launch {
                    kernel,
                    stream: self.api_stream(args[1])?,
                }
            }
            "cudaGraphLaunch" => {
                want(2, "GRAPH, STREAM")?;
                let (g, gspan) = args[0];
                let graph = self
                    .b
                    .api
                    .graphs
                    .iter()
                    .position(|x| x.name == g)
                    .ok_or_else(|| bad(format!("`{g}` is not a declared graph"), gspan))?;
                ApiCall::GraphLaunch {
                    graph,
                    stream: self.api_stream(args[1])?,
                }
            }
            "cudaEventRecord" => {
                want(2, "EVENT, STREAM")?;
                ApiCall::EventRecord {
                    event: event(args[0])?,
                    stream: self.api_stream(args[1])?,
                }
            }
            "cudaStreamWaitEvent" => {
                want(2, "STREAM, EVENT")?;
                ApiCall::StreamWaitEvent {
                    stream: self.api_stream(args[0])?,
                    event: event(args[1])?,
                }
            }
            "cudaStreamSynchronize" => {
                want(1, "STREAM")?;
                ApiCall::StreamSynchronize(self.api_stream(args[0])?)
            }
            "cudaStreamDestroy" => {
                want(1, "STREAM")?;
                ApiCall::StreamDestroy(self.api_stream(args[0])?)
            }
            "cudaEventSynchronize" => {
                want(1, "EVENT")?;
                ApiCall::EventSynchronize(event(args[0])?)
            }
            "cudaDeviceSynchronize" | "cudaCtxSynchronize" => {
                want(0, "no argument")?;
                ApiCall::DeviceSynchronize
            }
            "cudaStreamQuery" | "cudaEventQuery" => {
                want(2, "%REG, HANDLE")?;
                let (r, rspan) = args[0];
                if !r.starts_with('%') {
                    return Err(bad(format!("`{name}` writes a `%register` first"), rspan));
                }
                let dst = self.b.reg(t, r);
                if name == "cudaStreamQuery" {
                    ApiCall::StreamQuery {
                        dst,
                        stream: self.api_stream(args[1])?,
                    }
                } else {
                    ApiCall::EventQuery {
                        dst,
                        event: event(args[1])?,
                    }
                }
            }
            _ => {
                return Err(bad(
                    format!("`{name}` is not a CUDA call ptxmc models (docs/model-notes.md, API synchronization)"),
                    span,
                ))
            }
        };
        self.push(t, Instr::Api(call), span);
        Ok(true)
    }

    fn api_kernel(&self, (k, span): (&str, Span)) -> PResult<usize> {
        self.b
            .api
            .kernels
            .iter()
            .position(|x| x.name == k)
            .ok_or_else(|| bad(format!("`{k}` is not a declared kernel"), span))
    }

    /// A declared stream, or `cudaStreamLegacy` (declared on first use).
    fn api_stream(&mut self, (s, span): (&str, Span)) -> PResult<usize> {
        if let Some(i) = self.b.api.streams.iter().position(|x| x.name == s) {
            return Ok(i);
        }
        if s == LEGACY_STREAM {
            self.b.api.streams.push(crate::ir::Stream {
                name: s.to_string(),
                tasks: Vec::new(),
                kind: StreamKind::Legacy,
            });
            return Ok(self.b.api.streams.len() - 1);
        }
        Err(bad(
            format!("`{s}` is not a declared stream (`stream {s};`)"),
            span,
        ))
    }

    /// The checks on the host thread once its code is known: host accesses
    /// (`.sys` scope, global memory, generic proxy), and enqueue calls in
    /// straight-line code, each kernel and graph enqueued once, no enqueue
    /// into a destroyed stream.
    pub(super) fn check_host_thread(&self) -> PResult<()> {
        let Some(h) = self.b.api.host else {
            return Ok(());
        };
        let Some(th) = self.b.threads.get(h.index()) else {
            return Ok(());
        };
        let code = &th.code;
        for s in code {
            host_access(s)?;
        }
        // Enqueue calls run exactly once: no jump crosses them.
        let label_at = |l| {
            code.iter()
                .position(|s| matches!(s.instr, Instr::Label(x) if x == l))
        };
        for (p, s) in code.iter().enumerate() {
            let target = match s.instr {
                Instr::Goto(l) | Instr::Branch { target: l, .. } => l,
                _ => continue,
            };
            let Some(q) = label_at(target) else { continue };
            let (lo, hi) = (p.min(q), p.max(q));
            if let Some(e) = code[lo..=hi]
                .iter()
                .find(|e| matches!(&e.instr, Instr::Api(c) if c.enqueues()))
            {
                return Err(bad(
                    "an enqueueing call inside a loop or a branch (the host's enqueue order must be static)".into(),
                    e.span,
                ));
            }
        }
        let api = &self.b.api;
        let mut kernels: Vec<bool> = (0..api.kernels.len())
            .map(|k| {
                api.streams
                    .iter()
                    .flat_map(|s| &s.tasks)
                    .any(|t| *t == Task::Kernel(k))
                    || api.graphs.iter().any(|g| g.nodes.contains(&k))
            })
            .collect();
        let mut graphs: Vec<bool> = (0..api.graphs.len())
            .map(|g| {
                api.streams
                    .iter()
                    .flat_map(|s| &s.tasks)
                    .any(|t| *t == Task::Graph(g))
            })
            .collect();
        let mut destroyed = vec![false; api.streams.len()];
        for s in code {
            let Instr::Api(c) = &s.instr else { continue };
            let stream = match c {
                ApiCall::Launch { kernel, stream } => {
                    if std::mem::replace(&mut kernels[*kernel], true) {
                        return Err(bad("the kernel is enqueued twice".into(), s.span));
                    }
                    Some(*stream)
                }
                ApiCall::GraphLaunch { graph, stream } => {
                    if std::mem::replace(&mut graphs[*graph], true) {
                        return Err(bad("the graph is launched twice".into(), s.span));
                    }
                    Some(*stream)
                }
                ApiCall::EventRecord { stream, .. } | ApiCall::StreamWaitEvent { stream, .. } => {
                    Some(*stream)
                }
                ApiCall::StreamDestroy(st) => {
                    if api.streams[*st].kind == StreamKind::Legacy {
                        return Err(bad(
                            format!("`{LEGACY_STREAM}` cannot be destroyed"),
                            s.span,
                        ));
                    }
                    if std::mem::replace(&mut destroyed[*st], true) {
                        return Err(bad("the stream is destroyed twice".into(), s.span));
                    }
                    None
                }
                ApiCall::StreamSynchronize(st) | ApiCall::StreamQuery { stream: st, .. } => {
                    if destroyed[*st] {
                        return Err(bad("the stream is destroyed".into(), s.span));
                    }
                    None
                }
                _ => None,
            };
            if let Some(st) = stream {
                if destroyed[st] {
                    return Err(bad("enqueue into a destroyed stream".into(), s.span));
                }
            }
        }
        Ok(())
    }
}

fn event((e, span): (&str, Span)) -> PResult<String> {
    if e.starts_with('%') {
        return Err(bad("an event name, not a register".into(), span));
    }
    Ok(e.to_string())
}

/// A host access or fence: `.sys` scope when strong, global memory, the
/// generic proxy; no barrier or asynchronous operation.
fn host_access(s: &Stmt) -> PResult<()> {
    let why = match &s.instr {
        Instr::Load {
            scope,
            proxy,
            space,
            ..
        }
        | Instr::Store {
            scope,
            proxy,
            space,
            ..
        } => check_access(*scope, *proxy, *space),
        Instr::Rmw {
            scope,
            proxy,
            space,
            ..
        } => check_access(Some(*scope), *proxy, *space),
        Instr::Fence { kind, scope } if kind.is_memory_fence() => {
            (*scope != Some(Scope::Sys)).then_some("a host fence takes `.sys` scope")
        }
        Instr::Fence { .. } => Some("no proxy fence on the host (its accesses are generic)"),
        Instr::Barrier { .. } => Some("no barrier on the host (it is in no CTA)"),
        Instr::Async(_) => Some("no asynchronous operation on the host"),
        _ => None,
    };
    match why {
        Some(w) => Err(bad(
            format!("{w} (the host thread is in no CTA, cluster or GPU; 8.9.4)"),
            s.span,
        )),
        None => Ok(()),
    }
}

fn check_access(scope: Option<Scope>, proxy: Proxy, space: StateSpace) -> Option<&'static str> {
    if scope.is_some_and(|s| s != Scope::Sys) {
        Some("a strong host access takes `.sys` scope")
    } else if proxy != Proxy::Generic {
        Some("host accesses use the generic proxy")
    } else if space != StateSpace::Global {
        Some("host accesses are to global (host or pinned) memory")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{ApiCall, Instr, StreamKind, Task, ThreadId};
    use crate::parser::parse;

    fn with(init: &str, host: &[&str]) -> Result<crate::ir::Test, String> {
        let rows: String = host
            .iter()
            .map(|h| format!(" st.global.u32 [x], 1 | {h} ;\n"))
            .take(1)
            .chain(host.iter().skip(1).map(|h| format!(" | {h} ;\n")))
            .collect();
        parse(&format!(
            "PTX h {{ x=0; {init} }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n{rows}exists (x == 1)"
        ))
        .map_err(|e| e.to_string())
    }

    const INIT: &str = "kernel K0 = P0; stream S0; stream S1 nonblocking; host P1;";

    #[test]
    fn host_calls_parse_and_print_back() {
        let t = with(
            "kernel K0 = P0; graph G = K0; stream S0; stream S1 nonblocking; host P1;",
            &[
                "cudaGraphLaunch G, S0",
                "cudaEventRecord E, S0",
                "cudaStreamWaitEvent S1, E",
                "cudaStreamSynchronize S0",
                "cudaEventSynchronize E",
                "LQ:",
                "cudaEventQuery %r0, E",
                "beq %r0, 0, LQ",
                "cudaStreamQuery %r1, cudaStreamLegacy",
                "cudaStreamDestroy S1",
                "cudaDeviceSynchronize",
            ],
        )
        .expect("parses");
        assert_eq!(t.api.host, Some(ThreadId(1)));
        assert_eq!(t.api.streams[1].kind, StreamKind::NonBlocking);
        assert_eq!(t.api.streams[2].kind, StreamKind::Legacy);
        let calls: Vec<&ApiCall> = t.threads[1]
            .code
            .iter()
            .filter_map(|s| match &s.instr {
                Instr::Api(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 9);
        assert_eq!(
            calls[0],
            &ApiCall::GraphLaunch {
                graph: 0,
                stream: 0
            }
        );
        let printed = crate::print(&t);
        for line in [
            "graph G = K0;",
            "stream S1 nonblocking;",
            "host P1;",
            "cudaStreamWaitEvent S1, E",
            "cudaEventQuery %r0, E",
            "cudaStreamQuery %r1, cudaStreamLegacy",
        ] {
            assert!(printed.contains(line), "{line} in {printed}");
        }
        let again = parse(&printed).expect("reparses");
        assert_eq!(again.api, t.api);
        assert_eq!(crate::print(&again), printed);
    }

    #[test]
    fn graphs_and_graph_tasks() {
        let t = with(
            "kernel A = P0; kernel B = P1; graph G = A -> B; stream S = G;",
            &["ld.global.u32 %r0, [x]"],
        )
        .expect("parses");
        assert_eq!(t.api.graphs[0].deps, [(0, 1)]);
        assert_eq!(t.api.graphs[0].sources().collect::<Vec<_>>(), [0]);
        assert_eq!(t.api.graphs[0].sinks().collect::<Vec<_>>(), [1]);
        assert_eq!(t.api.streams[0].tasks, [Task::Graph(0)]);
        let e = with(
            "kernel A = P0; kernel B = P1; graph G = A -> B -> A;",
            &["ld.global.u32 %r0, [x]"],
        )
        .expect_err("cycle");
        assert!(e.contains("has a cycle"), "{e}");
        let e = with(
            "kernel A = P0; graph G = A; stream S = G, G;",
            &["ld.global.u32 %r0, [x]"],
        )
        .expect_err("twice");
        assert!(e.contains("launched twice"), "{e}");
        let e = with(
            "kernel A = P0; stream S = A; graph G = A;",
            &["ld.global.u32 %r0, [x]"],
        )
        .expect_err("kernel in a stream and a graph");
        assert!(e.contains("enqueued twice"), "{e}");
    }

    #[test]
    fn bad_host_code_is_a_positioned_error() {
        let cases: [(&str, &[&str], &str); 9] = [
            (
                "kernel K0 = P0; stream S0;",
                &["cudaLaunchKernel K0, S0"],
                "outside the host thread",
            ),
            (
                INIT,
                &["cudaLaunchKernel K9, S0"],
                "`K9` is not a declared kernel",
            ),
            (
                INIT,
                &["cudaLaunchKernel K0, S7"],
                "`S7` is not a declared stream",
            ),
            (INIT, &["cudaLaunchKernel K0"], "takes `KERNEL, STREAM`"),
            (INIT, &["cudaMemcpy x, y"], "not a CUDA call ptxmc models"),
            (
                INIT,
                &["L:", "cudaLaunchKernel K0, S0", "bra L"],
                "inside a loop or a branch",
            ),
            (
                INIT,
                &["cudaStreamDestroy S0", "cudaLaunchKernel K0, S0"],
                "destroyed stream",
            ),
            (
                INIT,
                &["ld.global.relaxed.gpu.u32 %r0, [x]"],
                "`.sys` scope",
            ),
            (INIT, &["bar.sync 0"], "no barrier on the host"),
        ];
        for (init, host, want) in cases {
            let e = with(init, host).expect_err(want);
            assert!(e.contains(want), "{want}: {e}");
            // `LINE:COL: message`.
            let pos: Vec<&str> = e.splitn(3, ':').collect();
            assert!(
                pos.len() == 3 && pos[..2].iter().all(|p| p.parse::<u32>().is_ok()),
                "{e}"
            );
        }
        let e = with(
            "kernel K0 = P0; stream S0; host P0;",
            &["st.global.u32 [x], 1"],
        )
        .expect_err("host in a kernel");
        assert!(e.contains("host thread and in a kernel"), "{e}");
        let e = with("host P1; host P0;", &["st.global.u32 [x], 1"]).expect_err("two hosts");
        assert!(e.contains("one host thread"), "{e}");
        let e = with(
            INIT,
            &["cudaLaunchKernel K0, S0", "cudaLaunchKernel K0, S1"],
        )
        .expect_err("twice");
        assert!(e.contains("enqueued twice"), "{e}");
    }
}
