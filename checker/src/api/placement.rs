//! Placements under API synchronization: a CTA and a cluster belong to one
//! kernel's grid, so threads of different kernels never share one, whatever
//! numbers the test gives them; the host thread is in no CTA, cluster or
//! GPU of the device (only `.sys` includes it, per the scopes of 8.5 and the
//! PTX manual's `.sys`: "all threads ... on all devices and the host").

use ptxmc_frontend::ir::{Placement, Test};

/// Renumbers CTAs and clusters per (kernel, GPU, original id), threads in
/// no kernel forming one more group, and moves the host thread to a GPU of
/// its own; the hidden threads the lowering added (from `n_user` on) go
/// there too.
pub(super) fn separate(test: &mut Test, n_user: usize) {
    let group = |t: usize| {
        test.api
            .kernels
            .iter()
            .position(|k| k.threads.iter().any(|x| x.index() == t))
    };
    let groups: Vec<Option<usize>> = (0..test.threads.len()).map(group).collect();
    let host = test.api.host.map(|h| h.index());
    let host_gpu = test
        .threads
        .iter()
        .map(|th| th.placement.gpu)
        .max()
        .unwrap_or(0)
        .saturating_add(1);
    let mut ctas: Vec<(Option<usize>, u32, u32)> = Vec::new();
    let mut clusters: Vec<(Option<usize>, u32, u32)> = Vec::new();
    let id = |v: &mut Vec<(Option<usize>, u32, u32)>, key| {
        let i = v.iter().position(|&k| k == key).unwrap_or_else(|| {
            v.push(key);
            v.len() - 1
        });
        u32::try_from(i).unwrap_or(u32::MAX)
    };
    for (t, th) in test.threads.iter_mut().enumerate() {
        let p = th.placement;
        th.placement = if Some(t) == host || t >= n_user {
            Placement {
                cta: 0,
                cluster: 0,
                gpu: host_gpu,
            }
        } else {
            Placement {
                cta: id(&mut ctas, (groups[t], p.gpu, p.cta)),
                cluster: id(&mut clusters, (groups[t], p.gpu, p.cluster)),
                gpu: p.gpu,
            }
        };
    }
}
