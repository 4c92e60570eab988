//! Printing the API declarations (graphs, streams, the host thread) and the
//! host thread's CUDA calls (8.9.4, API synchronization).

use crate::ir::{ApiCall, StreamKind, Task, Test};
use std::fmt::Write;

fn kernel(t: &Test, k: usize) -> String {
    t.api
        .kernels
        .get(k)
        .map_or_else(|| "?".to_string(), |k| k.name.clone())
}

fn stream(t: &Test, s: usize) -> String {
    t.api
        .streams
        .get(s)
        .map_or_else(|| "?".to_string(), |s| s.name.clone())
}

/// `graph ...;`, `stream ...;` and `host P<n>;` lines (kernels are printed
/// before them: graphs name kernels, streams name kernels and graphs).
/// The legacy stream is printed only when it has declared tasks (a host
/// call names it otherwise).
pub(super) fn declarations(t: &Test, out: &mut String) {
    for g in &t.api.graphs {
        let mut items: Vec<String> = g
            .deps
            .iter()
            .map(|&(a, b)| format!("{} -> {}", kernel(t, a), kernel(t, b)))
            .collect();
        for &n in &g.nodes {
            if !g.deps.iter().any(|&(a, b)| a == n || b == n) {
                items.push(kernel(t, n));
            }
        }
        let _ = writeln!(out, "graph {} = {};", g.name, items.join(", "));
    }
    for s in &t.api.streams {
        if s.kind == StreamKind::Legacy && s.tasks.is_empty() {
            continue;
        }
        let tasks: Vec<String> = s
            .tasks
            .iter()
            .map(|task| match task {
                Task::Kernel(k) => kernel(t, *k),
                Task::Graph(g) => t
                    .api
                    .graphs
                    .get(*g)
                    .map_or_else(|| "?".to_string(), |g| g.name.clone()),
                Task::Record(e) => format!("record {e}"),
                Task::Wait(e) => format!("wait {e}"),
            })
            .collect();
        let kind = if s.kind == StreamKind::NonBlocking {
            " nonblocking"
        } else {
            ""
        };
        if tasks.is_empty() {
            let _ = writeln!(out, "stream {}{kind};", s.name);
        } else {
            let _ = writeln!(out, "stream {}{kind} = {};", s.name, tasks.join(", "));
        }
    }
    if let Some(h) = t.api.host {
        let _ = writeln!(out, "host P{};", h.index());
    }
}

/// A host thread's CUDA call as written.
pub(super) fn call(t: &Test, th: usize, c: &ApiCall) -> String {
    let name = c.name();
    match c {
        ApiCall::Launch {
            kernel: k,
            stream: s,
        } => {
            format!("{name} {}, {}", kernel(t, *k), stream(t, *s))
        }
        ApiCall::GraphLaunch { graph, stream: s } => format!(
            "{name} {}, {}",
            t.api.graphs.get(*graph).map_or("?", |g| g.name.as_str()),
            stream(t, *s)
        ),
        ApiCall::EventRecord { event, stream: s } => format!("{name} {event}, {}", stream(t, *s)),
        ApiCall::StreamWaitEvent { stream: s, event } => {
            format!("{name} {}, {event}", stream(t, *s))
        }
        ApiCall::StreamSynchronize(s) | ApiCall::StreamDestroy(s) => {
            format!("{name} {}", stream(t, *s))
        }
        ApiCall::EventSynchronize(e) => format!("{name} {e}"),
        ApiCall::DeviceSynchronize => name.to_string(),
        ApiCall::StreamQuery { dst, stream: s } => format!(
            "{name} %{}, {}",
            super::words::reg_name(t, th, *dst).trim_start_matches('%'),
            stream(t, *s)
        ),
        ApiCall::EventQuery { dst, event } => format!(
            "{name} %{}, {event}",
            super::words::reg_name(t, th, *dst).trim_start_matches('%')
        ),
    }
}
