//! Process statistics for the run summary (peak memory).

/// Peak resident set size of this process in KiB, if the OS reports it
/// (Linux: `VmHWM` in `/proc/self/status`).
pub fn peak_rss_kib() -> Option<u64> {
    vm_hwm("/proc/self/status")
}

/// Peak resident set size of the running process `pid` in KiB (Linux:
/// `VmHWM` in `/proc/PID/status`), read before `ptxmc bench` kills a child.
pub fn peak_rss_kib_of(pid: u32) -> Option<u64> {
    vm_hwm(&format!("/proc/{pid}/status"))
}

fn vm_hwm(path: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Formats KiB as a human-readable size.
pub fn human_kib(kib: u64) -> String {
    if kib >= 1024 * 1024 {
        format!("{:.1} GiB", kib as f64 / (1024.0 * 1024.0))
    } else if kib >= 1024 {
        format!("{:.1} MiB", kib as f64 / 1024.0)
    } else {
        format!("{kib} KiB")
    }
}
