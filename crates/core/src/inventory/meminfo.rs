//! `/proc/meminfo`'s fields nodebench keeps, and the memory a new
//! allocation can have now ([`available_memory_bytes`]), which the buffer
//! helpers check before allocating. The inventory's memory section is read
//! by `nodebench_machine::inventory`.

/// The fields of `/proc/meminfo` nodebench keeps, in bytes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Meminfo {
    pub total: Option<u64>,
    pub available: Option<u64>,
    pub swap_total: Option<u64>,
    pub swap_free: Option<u64>,
    pub hugepage_size: Option<u64>,
}

/// Parses `/proc/meminfo` ("MemTotal:  16384 kB" lines).
pub fn parse_meminfo(text: &str) -> Meminfo {
    let mut out = Meminfo::default();
    for line in text.lines() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let Some(n) = parts.next().and_then(|n| n.parse::<u64>().ok()) else {
            continue;
        };
        let bytes = match parts.next() {
            Some("kB") => n.checked_mul(1024),
            Some("mB") => n.checked_mul(1 << 20),
            None => Some(n),
            Some(_) => None,
        };
        match key.trim() {
            "MemTotal" => out.total = bytes,
            "MemAvailable" => out.available = bytes,
            "SwapTotal" => out.swap_total = bytes,
            "SwapFree" => out.swap_free = bytes,
            "Hugepagesize" => out.hugepage_size = bytes,
            _ => {}
        }
    }
    out
}

/// Memory available to a new allocation now (`MemAvailable` of the live
/// `/proc/meminfo`, never a recorded tree's), read fresh; benchmarks check
/// it before allocating large buffers.
pub fn available_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text).available
}

/// The machine's memory (`MemTotal` of the live `/proc/meminfo`), which
/// HPCC's size rules take a share of (`--memory-fraction`).
pub fn total_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text).total
}

/// The largest power of two not above `x`, at least 1 (HPCC's table and
/// vector sizes).
pub fn pow2_floor(x: f64) -> u64 {
    if x < 2.0 {
        return 1;
    }
    1u64 << (x.log2().floor() as u32).min(62)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_meminfo() {
        let text = "MemTotal:       24684092 kB
MemFree:         1234567 kB
MemAvailable:   20000000 kB
Buffers:          123456 kB
SwapTotal:             0 kB
SwapFree:              0 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
";
        let m = parse_meminfo(text);
        assert_eq!(m.total, Some(24_684_092 * 1024));
        assert_eq!(m.available, Some(20_000_000 * 1024));
        assert_eq!(m.swap_total, Some(0));
        assert_eq!(m.hugepage_size, Some(2 << 20));
        assert_eq!(parse_meminfo(""), Meminfo::default());
    }
}
