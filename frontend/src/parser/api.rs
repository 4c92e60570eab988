//! Kernels and streams in the initial state (8.9.4, API synchronization):
//!
//! ```text
//! kernel K0 = P0, P1;          (the threads of a kernel)
//! stream S0 = K0, record E, K1; (tasks in enqueue order: kernels, event records, event waits)
//! stream S1 = wait E, K2;
//! ```
//!
//! A kernel is declared before the streams that name it, belongs to at most
//! one stream, once; a thread belongs to at most one kernel.

use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{Kernel, Stream, Task, ThreadId};
use crate::lexer::Tok;

impl Parser<'_> {
    /// `kernel NAME = P0, P1` or `stream NAME = task, task`.
    pub(super) fn api_entry(&mut self) -> PResult<()> {
        let (word, wspan) = self.ident("`kernel` or `stream`")?;
        let (name, nspan) = self.ident("a kernel or stream name")?;
        let name = name.to_string();
        let taken = self.b.api.kernels.iter().any(|k| k.name == name)
            || self.b.api.streams.iter().any(|s| s.name == name);
        if taken {
            return Err(ParseError::new(
                ParseErrorKind::BadApi(format!("`{name}` is declared twice")),
                nspan,
            ));
        }
        self.expect(Tok::Assign, "`=` after the name")?;
        if word == "kernel" {
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
            return Ok(());
        }
        let _ = wspan;
        let mut tasks = Vec::new();
        loop {
            let (item, ispan) = self.ident("a kernel, `record E` or `wait E`")?;
            let task = match item {
                "record" | "wait" if self.peek().tok == Tok::Ident => {
                    let (e, _) = self.ident("an event name")?;
                    if item == "record" {
                        Task::Record(e.to_string())
                    } else {
                        Task::Wait(e.to_string())
                    }
                }
                k => {
                    let Some(i) = self.b.api.kernels.iter().position(|x| x.name == k) else {
                        return Err(ParseError::new(
                            ParseErrorKind::BadApi(format!(
                                "`{k}` is not a kernel declared before this stream"
                            )),
                            ispan,
                        ));
                    };
                    let used = self
                        .b
                        .api
                        .streams
                        .iter()
                        .flat_map(|s| &s.tasks)
                        .chain(&tasks)
                        .any(|t| *t == Task::Kernel(i));
                    if used {
                        return Err(ParseError::new(
                            ParseErrorKind::BadApi(format!("kernel `{k}` is enqueued twice")),
                            ispan,
                        ));
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
        self.b.api.streams.push(Stream { name, tasks });
        Ok(())
    }

    /// Checks the threads that kernels name, once the thread header is known.
    pub(super) fn resolve_kernels(&mut self) -> PResult<()> {
        let pending = std::mem::take(&mut self.b.pending_kernel_threads);
        let n = self.b.threads.len();
        let mut owner: Vec<Option<usize>> = vec![None; n];
        for (k, threads) in pending.into_iter().enumerate() {
            for (t, span) in threads {
                let idx = usize::try_from(t).ok().filter(|&i| i < n);
                let Some(i) = idx else {
                    return Err(ParseError::new(
                        ParseErrorKind::BadApi(format!(
                            "kernel thread P{t} does not exist (the test has {n} threads)"
                        )),
                        span,
                    ));
                };
                if owner[i].is_some() {
                    return Err(ParseError::new(
                        ParseErrorKind::BadApi(format!("thread P{t} is in two kernels")),
                        span,
                    ));
                }
                owner[i] = Some(k);
                if let Some(kernel) = self.b.api.kernels.get_mut(k) {
                    kernel.threads.push(ThreadId::new(i));
                }
            }
        }
        Ok(())
    }
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
