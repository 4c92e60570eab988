//! The memory limit (`ptxmc run --max-memory`): the process's resident
//! memory, looked at on the [`super::Budget`] clock cadence, ends a check
//! with status `limit` and the reason `memory` before the operating system
//! or the allocator ends the process.
//!
//! The limit is process-wide, as resident memory is: with several tests
//! checked at once (`-j`), every test being explored when the process is
//! over the limit stops. It is off unless [`set_limit`] is called, and then
//! costs one read of `/proc/self/statm` per [`LOOK_EVERY`] of exploration.

use crate::report::Status;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The limit in bytes; 0: none.
static LIMIT: AtomicU64 = AtomicU64::new(0);

/// Time between two looks at the resident memory while a limit is set.
pub const LOOK_EVERY: Duration = Duration::from_millis(5);

/// Sets (or, with `None`, clears) the process-wide memory limit in bytes.
pub fn set_limit(bytes: Option<u64>) {
    LIMIT.store(bytes.map_or(0, |b| b.max(1)), Ordering::Relaxed);
}

/// The limit set by [`set_limit`], in bytes.
pub fn limit() -> Option<u64> {
    match LIMIT.load(Ordering::Relaxed) {
        0 => None,
        b => Some(b),
    }
}

/// The resident memory of this process in bytes (Linux: `/proc/self/statm`,
/// resident pages times the page size), or `None` where the OS does not
/// say.
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

/// The page size `/proc/self/statm` counts in (`KernelPageSize` of the
/// process's first mapping; 4 KiB when it cannot be read).
fn page_size() -> u64 {
    static PAGE: AtomicU64 = AtomicU64::new(0);
    let p = PAGE.load(Ordering::Relaxed);
    if p != 0 {
        return p;
    }
    let p = std::fs::read_to_string("/proc/self/smaps")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("KernelPageSize:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(4096, |kib| kib * 1024);
    PAGE.store(p, Ordering::Relaxed);
    p
}

/// `bytes` in MiB or GiB, as the limit message prints it.
pub fn human(bytes: u64) -> String {
    let mib = bytes as f64 / (1024.0 * 1024.0);
    if mib >= 1024.0 {
        format!("{:.2} GiB", mib / 1024.0)
    } else {
        format!("{mib:.1} MiB")
    }
}

/// The status of a check stopped because the process's resident memory
/// (`used` bytes) passed the limit (`limit` bytes).
pub fn memory_limit(used: u64, limit: u64) -> Status {
    Status::Limit(format!(
        "memory: {} resident, over --max-memory {}",
        human(used),
        human(limit)
    ))
}

/// Whether a `limit` message is the memory limit's.
pub fn is_memory_limit(message: &str) -> bool {
    message.starts_with("memory:")
}

/// Fails when the process is over `limit` bytes now.
pub fn check(limit: u64) -> Result<(), Status> {
    match resident_bytes() {
        Some(used) if used > limit => Err(memory_limit(used, limit)),
        _ => Ok(()),
    }
}
