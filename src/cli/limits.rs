//! `--max-memory SIZE`: the size argument and the process-wide memory limit
//! it sets (see `ptxmc_checker::explore::memory`).

/// Parses a size: bytes (`1048576`) or a number with a unit `K`, `M`, `G`,
/// `T` (powers of 1024; `KiB`/`MiB`/`GiB`/`TiB`, `KB`/`MB`/`GB`/`TB` and
/// lower case read the same), for example `512M` or `1.5G`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || {
        format!("--max-memory expects a size such as 512M, 2G or 1073741824 (bytes), found `{s}`")
    };
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| bad())?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(bad()),
    };
    let bytes = n * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// Sets the memory limit of this process's checks from `--max-memory`.
pub fn set_max_memory(arg: Option<&str>) -> Result<Option<u64>, String> {
    let bytes = arg.map(parse_size).transpose()?;
    ptxmc_checker::explore::memory::set_limit(bytes);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_and_without_units() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size(" 64 kb "), Ok(64 << 10));
        for bad in ["", "M", "-1G", "0", "1X", "1.2.3G", "99999999999T"] {
            let e = parse_size(bad).err().unwrap_or_default();
            assert!(e.contains("--max-memory expects a size"), "{bad}: {e}");
        }
    }
}
