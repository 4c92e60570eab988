//! The task graph of CUDA API synchronization (8.9.4, "API
//! synchronization"): which ends of kernel threads and which host API calls
//! synchronize, through streams, events, graphs and the legacy stream's
//! barriers, with which starts of kernel threads and returns of host
//! synchronization calls.
//!
//! Nodes are the start and end of tasks and kernels, the start and end of
//! each kernel thread, and each host API call. Edges are the synchronizes
//! relation of items 1-6 (plus a kernel's start to its threads' starts and
//! their ends to its end, item 3). A *producer* is a point in a thread's code
//! whose program-order predecessors the relation orders before something (a
//! kernel thread's end, an enqueueing host call's start, item 5); a
//! *consumer* a point whose program-order successors it orders after
//! something (a kernel thread's start, the return of a host
//! synchronization or a successful query, items 6 and 7).

use ptxmc_frontend::ir::{ApiCall, Instr, StreamKind, Task, Test};

/// A point in a thread's code that API synchronization starts or ends at.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Point {
    /// The start of kernel thread `t`.
    ThreadStart(usize),
    /// The end of kernel thread `t`.
    ThreadEnd(usize),
    /// The host API call at statement `i` of the host thread.
    Host(usize),
}

/// The graph and, for each consumer point, the producer points it waits for.
pub(crate) struct Tasks {
    /// The node of each point, if the point has one.
    points: Vec<(Point, usize)>,
    /// API edges (synchronizes with).
    succ: Vec<Vec<usize>>,
    /// API edges plus program order inside each thread (start -> end, host
    /// call -> next host call).
    full: Vec<Vec<usize>>,
}

impl Tasks {
    fn node(&mut self) -> usize {
        self.succ.push(Vec::new());
        self.full.push(Vec::new());
        self.succ.len() - 1
    }

    fn edge(&mut self, a: usize, b: usize) {
        if !self.succ[a].contains(&b) {
            self.succ[a].push(b);
            self.full[a].push(b);
        }
    }

    fn point(&self, p: Point) -> Option<usize> {
        self.points.iter().find(|x| x.0 == p).map(|x| x.1)
    }

    /// The task graph of `test` (its declared streams first, in declaration
    /// order, then the host thread's calls in program order).
    pub(crate) fn new(test: &Test) -> Tasks {
        let api = &test.api;
        let mut g = Tasks {
            points: Vec::new(),
            succ: Vec::new(),
            full: Vec::new(),
        };
        // Item 3: kernel start -> thread starts, thread ends -> kernel end.
        let mut kernel = Vec::new();
        for k in &api.kernels {
            let (ks, ke) = (g.node(), g.node());
            for t in &k.threads {
                let (ts, te) = (g.node(), g.node());
                g.edge(ks, ts);
                g.edge(te, ke);
                g.full[ts].push(te);
                g.points.push((Point::ThreadStart(t.index()), ts));
                g.points.push((Point::ThreadEnd(t.index()), te));
            }
            kernel.push((ks, ke));
        }
        // Item 4: graph start -> source nodes, node -> dependent nodes,
        // sink nodes -> graph completion.
        let mut graph = Vec::new();
        for gr in &api.graphs {
            let (gs, ge) = (g.node(), g.node());
            for s in gr.sources() {
                g.edge(gs, kernel[s].0);
            }
            for &(a, b) in &gr.deps {
                g.edge(kernel[a].1, kernel[b].0);
            }
            for s in gr.sinks() {
                g.edge(kernel[s].1, ge);
            }
            graph.push((gs, ge));
        }
        let mut q = Queue {
            last: vec![None; api.streams.len()],
            record: Vec::new(),
            kinds: api.streams.iter().map(|s| s.kind).collect(),
        };
        for (s, st) in api.streams.iter().enumerate() {
            for task in &st.tasks {
                let (a, b) = match task {
                    Task::Kernel(k) => kernel[*k],
                    Task::Graph(gr) => graph[*gr],
                    Task::Record(e) => {
                        let r = g.node();
                        q.record(e, r);
                        (r, r)
                    }
                    Task::Wait(e) => {
                        let w = g.node();
                        q.wait(&mut g, e, w);
                        (w, w)
                    }
                };
                q.enqueue(&mut g, s, a, b, None);
            }
        }
        let Some(h) = api.host else {
            return g;
        };
        let mut prev: Option<usize> = None;
        for (i, stmt) in test.threads[h.index()].code.iter().enumerate() {
            let Instr::Api(call) = &stmt.instr else {
                continue;
            };
            let c = g.node();
            g.points.push((Point::Host(i), c));
            if let Some(p) = prev {
                g.full[p].push(c);
            }
            prev = Some(c);
            match call {
                ApiCall::Launch { kernel: k, stream } => {
                    let (a, b) = kernel[*k];
                    q.enqueue(&mut g, *stream, a, b, Some(c));
                }
                ApiCall::GraphLaunch { graph: gr, stream } => {
                    let (a, b) = graph[*gr];
                    q.enqueue(&mut g, *stream, a, b, Some(c));
                }
                ApiCall::EventRecord { event, stream } => {
                    let r = g.node();
                    q.record(event, r);
                    q.enqueue(&mut g, *stream, r, r, Some(c));
                }
                ApiCall::StreamWaitEvent { stream, event } => {
                    let w = g.node();
                    q.wait(&mut g, event, w);
                    q.enqueue(&mut g, *stream, w, w, Some(c));
                }
                // Item 6: the last task queued to the stream, the most
                // recent matching record, every stream (destroyed ones too).
                ApiCall::StreamSynchronize(s) | ApiCall::StreamQuery { stream: s, .. } => {
                    if let Some(l) = q.last[*s] {
                        g.edge(l, c);
                    }
                }
                ApiCall::EventSynchronize(e) | ApiCall::EventQuery { event: e, .. } => {
                    if let Some(r) = q.last_record(e) {
                        g.edge(r, c);
                    }
                }
                ApiCall::DeviceSynchronize => {
                    for l in q.last.clone().into_iter().flatten() {
                        g.edge(l, c);
                    }
                }
                ApiCall::StreamDestroy(_) => {}
            }
        }
        g
    }

    /// The producers that consumer `c` waits for: those with an API path to
    /// it, less those that precede another of them anyway (the redundant
    /// waits add events but no order).
    pub(crate) fn waits(&self, c: Point) -> Vec<Point> {
        let Some(cn) = self.point(c) else {
            return Vec::new();
        };
        let producers: Vec<(Point, usize)> = self
            .points
            .iter()
            .copied()
            .filter(|&(p, n)| {
                // A host call already precedes a later one in program order.
                let host_po = matches!((p, c), (Point::Host(_), Point::Host(_)));
                p != c
                    && !host_po
                    && matches!(p, Point::ThreadEnd(_) | Point::Host(_))
                    && reach(&self.succ, n, cn)
            })
            .collect();
        producers
            .iter()
            .filter(|&&(_, n)| {
                !producers
                    .iter()
                    .any(|&(_, m)| m != n && reach(&self.full, n, m))
            })
            .map(|&(p, _)| p)
            .collect()
    }

    /// Whether some consumer waits for producer `p`.
    pub(crate) fn is_waited_for(&self, p: Point, consumers: &[Point]) -> bool {
        consumers.iter().any(|&c| self.waits(c).contains(&p))
    }
}

/// The streams' state while tasks are enqueued.
struct Queue {
    /// The end node of the last task queued to each stream.
    last: Vec<Option<usize>>,
    /// The most recent record node of each event.
    record: Vec<(String, usize)>,
    kinds: Vec<StreamKind>,
}

impl Queue {
    fn record(&mut self, e: &str, r: usize) {
        self.record.retain(|x| x.0 != e);
        self.record.push((e.to_string(), r));
    }

    fn last_record(&self, e: &str) -> Option<usize> {
        self.record.iter().find(|x| x.0 == e).map(|x| x.1)
    }

    /// Item 2: a wait task synchronizes with the matching (most recent)
    /// record task, if any.
    fn wait(&self, g: &mut Tasks, e: &str, w: usize) {
        if let Some(r) = self.last_record(e) {
            g.edge(r, w);
        }
    }

    /// Enqueues the task `start..end` in stream `s`: item 1 (after the
    /// stream's last task), item 2 (the legacy stream's barriers: a task of
    /// `cudaStreamLegacy` waits for the last task of every blocking stream,
    /// a task of a blocking stream for the legacy stream's last task), item
    /// 5 (after the start of the enqueueing call `origin`).
    fn enqueue(
        &mut self,
        g: &mut Tasks,
        s: usize,
        start: usize,
        end: usize,
        origin: Option<usize>,
    ) {
        let kind = self.kinds[s];
        for (b, &k) in self.kinds.iter().enumerate() {
            let barrier = match kind {
                StreamKind::Legacy => k == StreamKind::Blocking,
                StreamKind::Blocking => k == StreamKind::Legacy,
                StreamKind::NonBlocking => false,
            };
            if let (true, Some(l)) = (barrier && b != s, self.last[b]) {
                g.edge(l, start);
            }
        }
        if let Some(l) = self.last[s] {
            g.edge(l, start);
        }
        if let Some(o) = origin {
            g.edge(o, start);
        }
        self.last[s] = Some(end);
    }
}

/// Whether `to` is reachable from `from` (a path of at least one edge, or
/// `from == to`).
fn reach(succ: &[Vec<usize>], from: usize, to: usize) -> bool {
    let mut seen = vec![false; succ.len()];
    let mut stack = vec![from];
    while let Some(x) = stack.pop() {
        if x == to {
            return true;
        }
        if std::mem::replace(&mut seen[x], true) {
            continue;
        }
        stack.extend(succ[x].iter().copied());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{Point, Tasks};

    /// The waits of each thread's start in a test of `n` one-store threads.
    fn waits(init: &str, n: usize) -> Vec<Vec<Point>> {
        let header: Vec<String> = (0..n).map(|i| format!("P{i}@cta 0,gpu 0")).collect();
        let row: Vec<&str> = (0..n).map(|_| "st.global.u32 [x], 1").collect();
        let src = format!(
            "PTX t\n{{ x=0; {init} }}\n {} ;\n {} ;\nexists (x == 1)",
            header.join(" | "),
            row.join(" | ")
        );
        let t = ptxmc_frontend::parse(&src).expect("parses");
        let g = Tasks::new(&t);
        (0..n).map(|i| g.waits(Point::ThreadStart(i))).collect()
    }

    #[test]
    fn a_chain_waits_for_its_last_link_only() {
        // K2 follows K1 follows K0: K2 waits for K1 alone (K0 precedes K1).
        let w = waits(
            "kernel A = P0; kernel B = P1; kernel C = P2; stream S = A, B, C;",
            3,
        );
        assert_eq!(w[2], [Point::ThreadEnd(1)]);
        assert_eq!(w[1], [Point::ThreadEnd(0)]);
        assert!(w[0].is_empty());
    }

    #[test]
    fn graph_sources_sinks_and_dependencies() {
        let w = waits(
            "kernel A = P0; kernel B = P1; kernel C = P2; kernel D = P3; graph G = B -> C, D; stream S = A, G;",
            4,
        );
        assert_eq!(
            w[1],
            [Point::ThreadEnd(0)],
            "a source waits for the task before the graph"
        );
        assert_eq!(w[3], [Point::ThreadEnd(0)]);
        assert_eq!(
            w[2],
            [Point::ThreadEnd(1)],
            "a dependent node waits for its dependency only"
        );
    }

    #[test]
    fn legacy_barriers_skip_non_blocking_streams() {
        let w = waits(
            "kernel A = P0; kernel B = P1; kernel C = P2; stream S = A; stream N nonblocking = B; stream cudaStreamLegacy = C;",
            3,
        );
        assert_eq!(w[2], [Point::ThreadEnd(0)]);
    }

    #[test]
    fn host_launch_and_sync_points() {
        let src = "PTX t\n{ x=0; kernel A = P0; kernel B = P1; stream S; host P2; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;\n | | cudaLaunchKernel A, S ;\n | | cudaStreamSynchronize S ;\n | | cudaLaunchKernel B, S ;\nexists (x == 1)";
        let t = ptxmc_frontend::parse(src).expect("parses");
        let g = Tasks::new(&t);
        assert_eq!(g.waits(Point::ThreadStart(0)), [Point::Host(0)]);
        assert_eq!(g.waits(Point::Host(1)), [Point::ThreadEnd(0)]);
        // B follows A in S, but the host's sync already waited for A, and the
        // launch of B follows the sync in the host's program order.
        assert_eq!(g.waits(Point::ThreadStart(1)), [Point::Host(2)]);
    }
}
