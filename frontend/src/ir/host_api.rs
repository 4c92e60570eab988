//! The host side of CUDA API synchronization (8.9.4, "API synchronization")
//! in the IR: the kinds of streams, CUDA graphs, and the API calls a host
//! thread makes. Re-exported by [`crate::ir`].
//!
//! The litmus syntax is described in `docs/model-notes.md` ("API
//! synchronization"); the checker's `api` module lowers all of it to
//! release/acquire flags.

use super::RegId;

/// How a stream takes part in the cross-stream barriers of the legacy
/// default stream `cudaStreamLegacy` (8.9.4 API item 2).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum StreamKind {
    /// A stream created with `cudaStreamCreate` (`cudaStreamDefault`): work
    /// enqueued in it waits for the legacy stream's earlier work, and the
    /// legacy stream's later work waits for it.
    #[default]
    Blocking,
    /// `cudaStreamNonBlocking` (`stream S nonblocking`): no barrier with the
    /// legacy stream.
    NonBlocking,
    /// `cudaStreamLegacy` itself.
    Legacy,
}

/// The name of the legacy default stream in litmus tests.
pub const LEGACY_STREAM: &str = "cudaStreamLegacy";

/// A CUDA graph: `graph G = K0 -> K1, K0 -> K2, K3;` in the initial state.
/// Its nodes are kernel nodes (indices into [`crate::ir::Api::kernels`]).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Graph {
    /// Its name.
    pub name: String,
    /// Its kernel nodes, in order of first mention.
    pub nodes: Vec<usize>,
    /// Direct dependencies `(a, b)`: node `b` depends on node `a` (kernel
    /// indices, both in `nodes`).
    pub deps: Vec<(usize, usize)>,
}

impl Graph {
    /// Nodes without a dependency (started by the graph's start, item 4).
    pub fn sources(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes
            .iter()
            .copied()
            .filter(|&n| !self.deps.iter().any(|&(_, b)| b == n))
    }

    /// Nodes no node depends on (their completion completes the graph).
    pub fn sinks(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes
            .iter()
            .copied()
            .filter(|&n| !self.deps.iter().any(|&(a, _)| a == n))
    }
}

/// A CUDA runtime call in the code of the host thread. Streams are indices
/// into [`crate::ir::Api::streams`], kernels into `kernels`, graphs into
/// `graphs`; events are names.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ApiCall {
    /// `cudaLaunchKernel K, S`: enqueues kernel `K` in stream `S`.
    Launch {
        /// The kernel.
        kernel: usize,
        /// The stream.
        stream: usize,
    },
    /// `cudaGraphLaunch G, S`: enqueues graph `G` in stream `S`.
    GraphLaunch {
        /// The graph.
        graph: usize,
        /// The stream.
        stream: usize,
    },
    /// `cudaEventRecord E, S`: enqueues a record task of `E` in `S`.
    EventRecord {
        /// The event.
        event: String,
        /// The stream.
        stream: usize,
    },
    /// `cudaStreamWaitEvent S, E`: enqueues a wait task of `E` in `S`.
    StreamWaitEvent {
        /// The stream.
        stream: usize,
        /// The event.
        event: String,
    },
    /// `cudaStreamSynchronize S`.
    StreamSynchronize(usize),
    /// `cudaEventSynchronize E`.
    EventSynchronize(String),
    /// `cudaDeviceSynchronize` (also `cudaCtxSynchronize`: one context).
    DeviceSynchronize,
    /// `cudaStreamQuery %r, S`: `%r` is 1 when the call returns
    /// `cudaSuccess`, 0 for `cudaErrorNotReady`.
    StreamQuery {
        /// The result register.
        dst: RegId,
        /// The stream.
        stream: usize,
    },
    /// `cudaEventQuery %r, E`: as [`ApiCall::StreamQuery`] for an event.
    EventQuery {
        /// The result register.
        dst: RegId,
        /// The event.
        event: String,
    },
    /// `cudaStreamDestroy S`: no task may be enqueued in `S` afterwards.
    StreamDestroy(usize),
}

impl ApiCall {
    /// The CUDA function's name.
    pub fn name(&self) -> &'static str {
        match self {
            ApiCall::Launch { .. } => "cudaLaunchKernel",
            ApiCall::GraphLaunch { .. } => "cudaGraphLaunch",
            ApiCall::EventRecord { .. } => "cudaEventRecord",
            ApiCall::StreamWaitEvent { .. } => "cudaStreamWaitEvent",
            ApiCall::StreamSynchronize(_) => "cudaStreamSynchronize",
            ApiCall::EventSynchronize(_) => "cudaEventSynchronize",
            ApiCall::DeviceSynchronize => "cudaDeviceSynchronize",
            ApiCall::StreamQuery { .. } => "cudaStreamQuery",
            ApiCall::EventQuery { .. } => "cudaEventQuery",
            ApiCall::StreamDestroy(_) => "cudaStreamDestroy",
        }
    }

    /// Whether the call enqueues a task (item 5: its start synchronizes
    /// with the start of the task).
    pub fn enqueues(&self) -> bool {
        matches!(
            self,
            ApiCall::Launch { .. }
                | ApiCall::GraphLaunch { .. }
                | ApiCall::EventRecord { .. }
                | ApiCall::StreamWaitEvent { .. }
        )
    }

    /// The register the call writes, if any.
    pub fn dst(&self) -> Option<RegId> {
        match self {
            ApiCall::StreamQuery { dst, .. } | ApiCall::EventQuery { dst, .. } => Some(*dst),
            _ => None,
        }
    }
}
