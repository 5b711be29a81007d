//! The line of an HPCC RandomAccess result (`memory gups`), from its own
//! parameters and the inventory rather than telemetry: random 8-byte
//! updates keep no unit of the machine busy, so what limits them is where
//! the table lives and how its pages are mapped.
//!
//! * The tables fit in half the last-level cache: cache-bound (a table
//!   as large as the cache still misses it, shared as it is).
//! * Huge pages back the table (THP `always`, or `madvise` and the run
//!   asked): latency-bound, one DRAM line per update, each TLB entry
//!   covering 2 MiB.
//! * Otherwise (THP `never`, or `madvise` and not asked): TLB-bound, each
//!   update's 4 KiB page missing the TLB.

use nodebench_core::inventory::Inventory;
use nodebench_core::model::BenchResult;
use nodebench_core::names::hpcc::param;
use nodebench_core::names::memory::hugepages;
use nodebench_core::units::format_bytes;

/// The line, or None without the table's size.
pub fn line(result: &BenchResult, inventory: Option<&Inventory>) -> Option<String> {
    let table = result.param(param::TABLE_BYTES)?.as_u64()?;
    let threads = result
        .param(param::THREADS)
        .and_then(|v| v.as_u64())
        .unwrap_or(1);
    let asked = result.param(param::HUGEPAGES).and_then(|v| v.as_str()) == Some(hugepages::MADVISE);
    let thp = inventory.and_then(|i| i.memory.transparent_hugepages.as_deref());
    // Star: every core's table is in the caches at once; shared: one.
    let tables = if result.metrics.iter().any(|m| {
        m.label_value(nodebench_core::names::hpcc::label::MODE)
            == Some(nodebench_core::names::hpcc::mode::STAR)
    }) {
        table * threads
    } else {
        table
    };
    if let Some(llc) = inventory.and_then(|i| i.last_level_cache_bytes())
        && tables.saturating_mul(2) <= llc
    {
        return Some(format!(
            "cache-bound: the tables ({}) fit in half the last-level cache ({})",
            format_bytes(tables),
            format_bytes(llc)
        ));
    }
    let huge = match thp {
        Some("always") => Some(true),
        Some("madvise") => Some(asked),
        Some("never") => Some(false),
        _ => None,
    };
    let thp_text = thp.unwrap_or("unknown");
    Some(match huge {
        Some(true) => format!(
            "latency-bound: one DRAM line per random update over {}; huge pages on (THP {thp_text}{}), a TLB entry covers 2 MiB",
            format_bytes(tables),
            if asked { ", asked with madvise" } else { "" }
        ),
        Some(false) => format!(
            "TLB-bound: random updates over {} on 4 KiB pages (THP {thp_text}{}), nearly every update walks the page table",
            format_bytes(tables),
            if asked { "" } else { ", not asked" }
        ),
        None => format!(
            "latency-bound: one DRAM line per random update over {} (THP mode unknown)",
            format_bytes(tables)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::inventory::MemoryInfo;

    fn result(table: u64, asked: bool) -> BenchResult {
        let mut r = BenchResult::new(nodebench_core::names::memory::HPCC_RANDOM_ACCESS);
        r.set_param(param::TABLE_BYTES, table);
        r.set_param(param::THREADS, 1);
        r.set_param(
            param::HUGEPAGES,
            if asked {
                hugepages::MADVISE
            } else {
                hugepages::OFF
            },
        );
        r
    }

    fn inventory(thp: &str) -> Inventory {
        Inventory {
            memory: MemoryInfo {
                transparent_hugepages: Some(thp.into()),
                ..MemoryInfo::default()
            },
            ..Inventory::default()
        }
    }

    #[test]
    fn huge_pages_decide_between_latency_and_tlb() {
        let big = 4u64 << 30;
        let l = |asked, thp| line(&result(big, asked), Some(&inventory(thp))).unwrap();
        assert!(
            l(true, "madvise").starts_with("latency-bound"),
            "{}",
            l(true, "madvise")
        );
        assert!(l(false, "madvise").starts_with("TLB-bound"));
        assert!(l(false, "always").starts_with("latency-bound"));
        assert!(l(true, "never").starts_with("TLB-bound"));
        assert!(line(&BenchResult::new("x"), None).is_none());
    }
}
