//! Main memory, swap and huge pages, from `/proc/meminfo` and sysfs.

use nodebench_core::inventory::MemoryInfo;
use nodebench_core::inventory::meminfo::parse_meminfo;

use super::sysfs::{parse_bracketed, read_text};
use crate::sysroot::Roots;

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
