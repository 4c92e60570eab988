//! CUDA API synchronization (8.9.4): kernels, streams, graphs and the host
//! thread's calls, as the test declares them.

use super::*;

pub use super::host_api::{ApiCall, Graph, StreamKind, LEGACY_STREAM};

/// A task enqueued in a CUDA stream (8.9.4, API synchronization).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Task {
    /// A kernel launch: index into [`Api::kernels`].
    Kernel(usize),
    /// `record E`: recording the CUDA event `E` (by name).
    Record(String),
    /// `wait E`: waiting on the CUDA event `E` (by name).
    Wait(String),
    /// A CUDA graph launch: index into [`Api::graphs`] (8.9.4 API item 4).
    Graph(usize),
}

/// A kernel: `kernel K = P0, P1;` in the initial state.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Kernel {
    /// Its name.
    pub name: String,
    /// Its threads.
    pub threads: Vec<ThreadId>,
}

/// A stream: `stream S = K0, record E, K1;` in the initial state; tasks in
/// the order they are enqueued.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Stream {
    /// Its name.
    pub name: String,
    /// Its tasks, in order.
    pub tasks: Vec<Task>,
    /// Blocking, non-blocking or the legacy stream (cross-stream barriers, item 2).
    pub kind: StreamKind,
}

/// The CUDA API synchronization of a test (8.9.4): which threads form which
/// kernel and how kernels are enqueued in streams. Empty in a test that
/// declares no kernel: all threads then run in one kernel.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Api {
    /// The kernels.
    pub kernels: Vec<Kernel>,
    /// The streams.
    pub streams: Vec<Stream>,
    /// The CUDA graphs (`graph G = K0 -> K1;`).
    pub graphs: Vec<Graph>,
    /// The host thread (`host P2;`), if any: its code may call the CUDA API
    /// ([`Instr::Api`]).
    pub host: Option<ThreadId>,
}

impl Api {
    /// Pairs `(a, b)` of kernels such that the end of `a` precedes the start
    /// of `b` through API synchronization (8.9.4 API items 1 and 2): the next
    /// task of the same stream, and from a `record E` task to the `wait E`
    /// tasks of other streams enqueued after it (streams are enqueued in
    /// declaration order), transitively closed.
    pub fn kernel_order(&self) -> Vec<(usize, usize)> {
        // Nodes: (stream, task index); edges: stream order and record -> wait.
        let nodes: Vec<(usize, usize)> = self
            .streams
            .iter()
            .enumerate()
            .flat_map(|(s, st)| (0..st.tasks.len()).map(move |i| (s, i)))
            .collect();
        let id = |s: usize, i: usize| nodes.iter().position(|&n| n == (s, i));
        let n = nodes.len();
        let mut reach = vec![vec![false; n]; n];
        for (s, st) in self.streams.iter().enumerate() {
            for i in 1..st.tasks.len() {
                if let (Some(a), Some(b)) = (id(s, i - 1), id(s, i)) {
                    reach[a][b] = true;
                }
            }
            for (i, t) in st.tasks.iter().enumerate() {
                let Task::Wait(e) = t else { continue };
                // The most recent record of `e` enqueued before this wait.
                let mut rec = None;
                for (s2, st2) in self.streams.iter().enumerate() {
                    for (j, t2) in st2.tasks.iter().enumerate() {
                        let before = s2 < s || (s2 == s && j < i);
                        if before && *t2 == Task::Record(e.clone()) {
                            rec = Some((s2, j));
                        }
                    }
                }
                if let Some((s2, j)) = rec {
                    if let (Some(a), Some(b)) = (id(s2, j), id(s, i)) {
                        reach[a][b] = true;
                    }
                }
            }
        }
        for k in 0..n {
            let via = reach[k].clone();
            for row in reach.iter_mut() {
                if row[k] {
                    for (cell, &v) in row.iter_mut().zip(&via) {
                        *cell |= v;
                    }
                }
            }
        }
        let kernel_at = |a: usize| match self.streams[nodes[a].0].tasks[nodes[a].1] {
            Task::Kernel(k) => Some(k),
            _ => None,
        };
        let mut out = Vec::new();
        for (a, row) in reach.iter().enumerate() {
            for (b, &r) in row.iter().enumerate() {
                if let (true, Some(ka), Some(kb)) = (r, kernel_at(a), kernel_at(b)) {
                    if ka != kb && !out.contains(&(ka, kb)) {
                        out.push((ka, kb));
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }
}
