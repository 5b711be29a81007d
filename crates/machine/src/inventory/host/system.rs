//! The kernel's other settings that move results: THP, swap and
//! swappiness, automatic NUMA balancing, the clocksource and what a timer
//! read costs, the hypervisor, irqbalance, thermal zones and throttle
//! counts.

use std::path::PathBuf;
use std::time::Instant;

use nodebench_core::inventory::host::{Clocksource, ThermalZone, Throttle};
use nodebench_core::inventory::meminfo::parse_meminfo;

use crate::inventory::sysfs::{numbered_entries, parse_bracketed, read_number, read_value};
use crate::sysroot::Roots;

/// The THP directory, relative to the sysfs root.
const THP: &str = "kernel/mm/transparent_hugepage";

/// THP's `enabled` and `defrag` choices.
pub fn thp(roots: &Roots) -> (Option<String>, Option<String>) {
    let read =
        |f: &str| read_value(roots.sys(&format!("{THP}/{f}"))).and_then(|t| parse_bracketed(&t));
    (read("enabled"), read("defrag"))
}

/// Memory and swap from `/proc/meminfo`: (total, available, swap total,
/// swap used), bytes.
pub fn memory(roots: &Roots) -> (Option<u64>, Option<u64>, Option<u64>, Option<u64>) {
    let Some(text) = crate::inventory::sysfs::read_text(roots.proc("meminfo")) else {
        return (None, None, None, None);
    };
    let m = parse_meminfo(&text);
    let used = m
        .swap_total
        .zip(m.swap_free)
        .map(|(t, f)| t.saturating_sub(f));
    (m.total, m.available, m.swap_total, used)
}

/// `vm.swappiness` and `kernel.numa_balancing`.
pub fn sysctls(roots: &Roots) -> (Option<u32>, Option<u32>) {
    (
        read_number(roots.proc("sys/vm/swappiness")),
        read_number(roots.proc("sys/kernel/numa_balancing")),
    )
}

/// The clocksource directory, relative to the sysfs root.
pub const CLOCKSOURCE: &str = "devices/system/clocksource/clocksource0";

/// The current and available clocksources, with a timer read's cost
/// measured when `measure` (the live machine).
pub fn clocksource(roots: &Roots, measure: bool) -> Option<Clocksource> {
    let current = read_value(roots.sys(&format!("{CLOCKSOURCE}/current_clocksource")))?;
    let available = read_value(roots.sys(&format!("{CLOCKSOURCE}/available_clocksource")))
        .map(|t| t.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    Some(Clocksource {
        current,
        available,
        read_ns: measure.then(timer_read_ns),
    })
}

/// Nanoseconds per `clock_gettime(CLOCK_MONOTONIC)` (what `Instant::now`
/// calls): the best of 5 batches of 200 reads, so a batch the scheduler
/// interrupted does not count. About 0.1 ms with the TSC, 2 ms with HPET.
pub fn timer_read_ns() -> f64 {
    const READS: u32 = 200;
    (0..5)
        .map(|_| {
            let start = Instant::now();
            let mut last = start;
            for _ in 0..READS {
                last = std::hint::black_box(Instant::now());
            }
            last.duration_since(start).as_nanos() as f64 / f64::from(READS)
        })
        .fold(f64::INFINITY, f64::min)
}

/// The hypervisor: on the live machine what CPUID names, else as the
/// files under the roots tell it: `/sys/hypervisor/type`,
/// then DMI's vendor, then the "hypervisor" CPU flag of `/proc/cpuinfo`
/// ("unknown hypervisor"); "none" for an x86 CPU without that flag; `None`
/// where nothing tells.
pub fn hypervisor(roots: &Roots) -> Option<String> {
    if roots.is_live()
        && let Some(name) = crate::inventory::cpuid_hypervisor()
    {
        return Some(name);
    }
    if let Some(t) = read_value(roots.sys("hypervisor/type")) {
        return Some(if t == "xen" { "Xen".into() } else { t });
    }
    let vendor = read_value(roots.sys("class/dmi/id/sys_vendor"));
    let product = read_value(roots.sys("class/dmi/id/product_name"));
    if let Some(name) = crate::inventory::hypervisor_from_dmi(vendor.as_deref(), product.as_deref())
    {
        return Some(name.to_string());
    }
    let cpuinfo = crate::inventory::sysfs::read_text(roots.proc("cpuinfo"))?;
    let flags = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))?
        .split_once(':')?
        .1;
    Some(if flags.split_whitespace().any(|f| f == "hypervisor") {
        "unknown hypervisor".into()
    } else {
        "none".into()
    })
}

/// The pids whose `comm` is `irqbalance`.
pub fn irqbalance_pids(roots: &Roots) -> Option<Vec<u32>> {
    let entries = std::fs::read_dir(roots.proc("")).ok()?;
    let mut pids: Vec<u32> = entries
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            (read_value(e.path().join("comm"))? == "irqbalance").then_some(pid)
        })
        .collect();
    pids.sort_unstable();
    Some(pids)
}

/// Every `class/thermal/thermal_zone*` with its type and temperature
/// (millidegrees in the file).
pub fn thermal_zones(roots: &Roots) -> Vec<ThermalZone> {
    numbered_entries(&roots.sys("class/thermal"), "thermal_zone")
        .into_iter()
        .map(|(n, dir)| ThermalZone {
            name: format!("thermal_zone{n}"),
            kind: read_value(dir.join("type")).unwrap_or_default(),
            temp_c: read_number::<i64>(dir.join("temp")).map(|m| m as f64 / 1000.0),
        })
        .collect()
}

/// The throttle counts summed over `cpu_dirs`; `None` where no CPU has a
/// `thermal_throttle` directory.
pub fn throttle(cpu_dirs: &[(u32, PathBuf)]) -> Option<Throttle> {
    let mut t = Throttle::default();
    for (_, dir) in cpu_dirs {
        let d = dir.join("thermal_throttle");
        let core = read_number::<u64>(d.join("core_throttle_count"));
        let package = read_number::<u64>(d.join("package_throttle_count"));
        if core.is_none() && package.is_none() {
            continue;
        }
        t.cpus += 1;
        t.core_events += core.unwrap_or(0);
        t.package_events += package.unwrap_or(0);
    }
    (t.cpus > 0).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timer_read_costs_something_and_under_a_microsecond_here() {
        let ns = timer_read_ns();
        assert!(ns > 0.0 && ns < 5_000.0, "{ns}");
    }
}
