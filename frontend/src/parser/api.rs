//! Kernels, streams, graphs and the host thread in the initial state (8.9.4,
//! API synchronization):
//!
//! ```text
//! kernel K0 = P0, P1;          (the threads of a kernel)
//! stream S0 = K0, record E, K1; (tasks in enqueue order: kernels, graphs, event records, event waits)
//! stream S1 = wait E, K2;
//! stream S2 nonblocking;        (no tasks yet; no barrier with cudaStreamLegacy)
//! graph G = K3 -> K4, K3 -> K5; (kernel nodes and their direct dependencies)
//! host P6;                      (the host thread: its code calls the CUDA API, parser/host.rs)
//! ```
//!
//! A kernel is declared before the streams and graphs that name it and is
//! enqueued at most once (in one stream, one graph, or by one host call); a
//! thread belongs to at most one kernel; the host thread to none.

use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::Span;
use crate::ir::{Graph, Kernel, Stream, StreamKind, Task, ThreadId, LEGACY_STREAM};
use crate::lexer::Tok;

fn bad(msg: String, span: Span) -> ParseError {
    ParseError::new(ParseErrorKind::BadApi(msg), span)
}

impl Parser<'_> {
    /// `kernel NAME = P0, P1`, `stream NAME [nonblocking] [= task, task]`,
    /// `graph NAME = K0 -> K1, K2` or `host P2`.
    pub(super) fn api_entry(&mut self) -> PResult<()> {
        let (word, wspan) = self.ident("`kernel`, `stream`, `graph` or `host`")?;
        if word == "host" {
            let t = self.peek();
            let Some(n) = self.thread_number(t) else {
                return Err(self.expected("a thread such as `P2`"));
            };
            if self.b.pending_host.is_some() {
                return Err(bad(
                    "one host thread per test (the enqueue order of two would not be static)"
                        .into(),
                    wspan,
                ));
            }
            self.bump();
            self.b.pending_host = Some((n, t.span));
            return Ok(());
        }
        let (name, nspan) = self.ident("a kernel, stream or graph name")?;
        let name = name.to_string();
        let taken = self.b.api.kernels.iter().any(|k| k.name == name)
            || self.b.api.streams.iter().any(|s| s.name == name)
            || self.b.api.graphs.iter().any(|g| g.name == name);
        if taken {
            return Err(bad(format!("`{name}` is declared twice"), nspan));
        }
        match word {
            "kernel" => self.kernel_entry(name),
            "graph" => self.graph_entry(name),
            _ => self.stream_entry(name, nspan),
        }
    }

    fn kernel_entry(&mut self, name: String) -> PResult<()> {
        self.expect(Tok::Assign, "`=` after the name")?;
        let mut threads = Vec::new();
        loop {
            let t = self.peek();
            let Some(n) = self.thread_number(t) else {
                return Err(self.expected("a thread such as `P0`"));
            };
            self.bump();
            threads.push((n, t.span));
            if !self.at(Tok::Comma) {
                break;
            }
            self.bump();
        }
        self.b.api.kernels.push(Kernel {
            name,
            threads: Vec::new(),
        });
        self.b.pending_kernel_threads.push(threads);
        Ok(())
    }

    /// Whether kernel `k` is already enqueued (stream, graph) or in `extra`.
    fn kernel_used(&self, k: usize, extra: &[Task]) -> bool {
        self.b
            .api
            .streams
            .iter()
            .flat_map(|s| &s.tasks)
            .chain(extra)
            .any(|t| *t == Task::Kernel(k))
            || self.b.api.graphs.iter().any(|g| g.nodes.contains(&k))
    }

    /// A kernel declared before, by name.
    fn declared_kernel(&self, k: &str, span: Span, what: &str) -> PResult<usize> {
        self.b
            .api
            .kernels
            .iter()
            .position(|x| x.name == k)
            .ok_or_else(|| {
                bad(
                    format!("`{k}` is not a kernel declared before this {what}"),
                    span,
                )
            })
    }

    fn stream_entry(&mut self, name: String, nspan: Span) -> PResult<()> {
        let mut kind = if name == LEGACY_STREAM {
            StreamKind::Legacy
        } else {
            StreamKind::Blocking
        };
        if self.at_word("nonblocking") {
            if kind == StreamKind::Legacy {
                return Err(bad(
                    format!("`{LEGACY_STREAM}` cannot be non-blocking"),
                    nspan,
                ));
            }
            self.bump();
            kind = StreamKind::NonBlocking;
        }
        let mut tasks = Vec::new();
        if !self.at(Tok::Assign) {
            self.b.api.streams.push(Stream { name, tasks, kind });
            return Ok(());
        }
        self.bump();
        loop {
            let (item, ispan) = self.ident("a kernel, a graph, `record E` or `wait E`")?;
            let task = match item {
                "record" | "wait" if self.peek().tok == Tok::Ident => {
                    let (e, _) = self.ident("an event name")?;
                    if item == "record" {
                        Task::Record(e.to_string())
                    } else {
                        Task::Wait(e.to_string())
                    }
                }
                g if self.b.api.graphs.iter().any(|x| x.name == g) => {
                    let i = self
                        .b
                        .api
                        .graphs
                        .iter()
                        .position(|x| x.name == g)
                        .unwrap_or(0);
                    let used = self
                        .b
                        .api
                        .streams
                        .iter()
                        .flat_map(|s| &s.tasks)
                        .chain(&tasks)
                        .any(|t| *t == Task::Graph(i));
                    if used {
                        return Err(bad(format!("graph `{g}` is launched twice"), ispan));
                    }
                    Task::Graph(i)
                }
                k => {
                    let i = self.declared_kernel(k, ispan, "stream")?;
                    if self.kernel_used(i, &tasks) {
                        return Err(bad(format!("kernel `{k}` is enqueued twice"), ispan));
                    }
                    Task::Kernel(i)
                }
            };
            tasks.push(task);
            if !self.at(Tok::Comma) {
                break;
            }
            self.bump();
        }
        self.b.api.streams.push(Stream { name, tasks, kind });
        Ok(())
    }

    /// `graph G = K0 -> K1 -> K2, K0 -> K3, K4`: chains of direct dependencies.
    fn graph_entry(&mut self, name: String) -> PResult<()> {
        self.expect(Tok::Assign, "`=` after the name")?;
        let mut g = Graph {
            name,
            nodes: Vec::new(),
            deps: Vec::new(),
        };
        loop {
            let mut prev: Option<usize> = None;
            loop {
                let (k, kspan) = self.ident("a kernel")?;
                let i = self.declared_kernel(k, kspan, "graph")?;
                if !g.nodes.contains(&i) {
                    if self.kernel_used(i, &[]) {
                        return Err(bad(format!("kernel `{k}` is enqueued twice"), kspan));
                    }
                    g.nodes.push(i);
                }
                if let Some(p) = prev {
                    if p == i || reaches(&g.deps, i, p) {
                        return Err(bad(format!("graph `{}` has a cycle", g.name), kspan));
                    }
                    if !g.deps.contains(&(p, i)) {
                        g.deps.push((p, i));
                    }
                }
                prev = Some(i);
                if !(self.at(Tok::Minus) && self.peek_at(1).tok == Tok::Gt) {
                    break;
                }
                self.bump();
                self.bump();
            }
            if !self.at(Tok::Comma) {
                break;
            }
            self.bump();
        }
        self.b.api.graphs.push(g);
        Ok(())
    }

    /// Checks the threads that kernels and `host` name, once the thread
    /// header is known.
    pub(super) fn resolve_kernels(&mut self) -> PResult<()> {
        let pending = std::mem::take(&mut self.b.pending_kernel_threads);
        let n = self.b.threads.len();
        let missing = |t: u64, span| {
            bad(
                format!("thread P{t} does not exist (the test has {n} threads)"),
                span,
            )
        };
        let mut owner: Vec<Option<usize>> = vec![None; n];
        for (k, threads) in pending.into_iter().enumerate() {
            for (t, span) in threads {
                let idx = usize::try_from(t).ok().filter(|&i| i < n);
                let Some(i) = idx else {
                    return Err(bad(
                        format!("kernel thread P{t} does not exist (the test has {n} threads)"),
                        span,
                    ));
                };
                if owner[i].is_some() {
                    return Err(bad(format!("thread P{t} is in two kernels"), span));
                }
                owner[i] = Some(k);
                if let Some(kernel) = self.b.api.kernels.get_mut(k) {
                    kernel.threads.push(ThreadId::new(i));
                }
            }
        }
        if let Some((t, span)) = self.b.pending_host {
            let Some(i) = usize::try_from(t).ok().filter(|&i| i < n) else {
                return Err(missing(t, span));
            };
            if owner[i].is_some() {
                return Err(bad(
                    format!("thread P{t} is the host thread and in a kernel"),
                    span,
                ));
            }
            self.b.api.host = Some(ThreadId::new(i));
        }
        Ok(())
    }
}

/// Whether `to` is reachable from `from` along `deps`.
fn reaches(deps: &[(usize, usize)], from: usize, to: usize) -> bool {
    let mut stack = vec![from];
    let mut seen = Vec::new();
    while let Some(x) = stack.pop() {
        if x == to {
            return true;
        }
        if seen.contains(&x) {
            continue;
        }
        seen.push(x);
        stack.extend(deps.iter().filter(|d| d.0 == x).map(|d| d.1));
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::ir::{Task, ThreadId};
    use crate::parser::parse;

    const TABLE: &str = " P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;\n st.global.u32 [x], 1 | ld.global.u32 %r0, [x] | ld.global.u32 %r1, [x] ;\nexists (1:r0 == 1)";

    fn with(init: &str) -> Result<crate::ir::Test, String> {
        parse(&format!("PTX k {{ x=0; {init} }}\n{TABLE}")).map_err(|e| e.to_string())
    }

    #[test]
    fn kernels_streams_and_events() {
        let t = with(
            "kernel K0 = P0; kernel K1 = P1, P2; stream S0 = K0, record E; stream S1 = wait E, K1;",
        )
        .expect("parses");
        assert_eq!(t.api.kernels[1].threads, [ThreadId(1), ThreadId(2)]);
        assert_eq!(
            t.api.streams[1].tasks,
            [Task::Wait("E".into()), Task::Kernel(1)]
        );
        assert_eq!(t.api.kernel_order(), [(0, 1)]);
        let printed = crate::print(&t);
        assert!(printed.contains("stream S0 = K0, record E;"), "{printed}");
        assert_eq!(parse(&printed).expect("reparses").api, t.api);
    }

    #[test]
    fn order_needs_the_same_stream_or_a_matching_event() {
        let t = with("kernel A = P0; kernel B = P1; kernel C = P2; stream S = A, B; stream T = C;")
            .expect("parses");
        assert_eq!(t.api.kernel_order(), [(0, 1)]);
        // A wait enqueued before its record orders nothing.
        let t = with("kernel A = P0; kernel B = P1; stream T = wait E, B; stream S = A, record E;")
            .expect("parses");
        assert!(t.api.kernel_order().is_empty());
        // Transitive: A -> B (stream) -> C (event).
        let t = with(
            "kernel A = P0; kernel B = P1; kernel C = P2; stream S = A, B, record E; stream T = wait E, C;",
        )
        .expect("parses");
        assert_eq!(t.api.kernel_order(), [(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn bad_declarations_are_positioned_errors() {
        let e = with("kernel A = P0; kernel B = P0;").expect_err("two kernels");
        assert!(e.contains("thread P0 is in two kernels"), "{e}");
        let e = with("kernel A = P7;").expect_err("no thread");
        assert!(e.contains("P7 does not exist"), "{e}");
        let e = with("stream S = A;").expect_err("undeclared kernel");
        assert!(e.contains("`A` is not a kernel declared before"), "{e}");
        let e = with("kernel A = P0; stream S = A, A;").expect_err("enqueued twice");
        assert!(e.contains("enqueued twice"), "{e}");
        // `kernel` stays usable as a location name.
        assert!(with("kernel = 3;").is_ok());
    }
}
