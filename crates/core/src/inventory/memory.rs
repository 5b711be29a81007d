//! Main memory, swap and huge pages, from `/proc/meminfo` and sysfs.

use super::sysfs::{parse_bracketed, read_text};
use super::types::MemoryInfo;
use crate::sysroot::Roots;

/// The fields of `/proc/meminfo` nodebench keeps, in bytes.
#[derive(Debug, Clone, PartialEq, Default)]
struct MeminfoSummary {
    total: Option<u64>,
    available: Option<u64>,
    swap_total: Option<u64>,
    hugepage_size: Option<u64>,
}

/// Parses `/proc/meminfo` ("MemTotal:  16384 kB" lines).
fn parse_meminfo(text: &str) -> MeminfoSummary {
    let mut out = MeminfoSummary::default();
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
            "Hugepagesize" => out.hugepage_size = bytes,
            _ => {}
        }
    }
    out
}

/// Memory available to a new allocation now (`MemAvailable`), read fresh;
/// benchmarks check it before allocating large buffers.
pub fn available_memory_bytes() -> Option<u64> {
    read_text(Roots::from_env().proc("meminfo")).and_then(|t| parse_meminfo(&t).available)
}

/// Reads memory, swap and huge page settings.
pub(super) fn collect_memory(roots: &Roots) -> MemoryInfo {
    let m = read_text(roots.proc("meminfo"))
        .map(|t| parse_meminfo(&t))
        .unwrap_or_default();
    MemoryInfo {
        total_bytes: m.total,
        available_bytes: m.available,
        swap_total_bytes: m.swap_total,
        transparent_hugepages: read_text(roots.sys("kernel/mm/transparent_hugepage/enabled"))
            .and_then(|t| parse_bracketed(&t)),
        hugepage_size_bytes: m.hugepage_size.filter(|n| *n > 0),
    }
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
        assert_eq!(parse_meminfo(""), MeminfoSummary::default());
    }
}
