//! The host's state for benchmarking (`nodebench check`, and stored with
//! every run): [`read`] the static settings under the sysfs/procfs roots
//! (a few milliseconds: what a run stores), [`sample`] steal time and the
//! other processes' CPU use over a window (`check` only), [`judge`] (core's)
//! each reading against what a benchmark wants, and [`tune`] (`--tune`): the
//! governors, EPP and `/dev/cpu_dma_latency` set for a run and put back.
//!
//! Layout: `cpufreq`, `idle`, `cgroup`, `system` the readers; `tune` the changes and their restore; [`fixtures`] (feature
//! `fixtures`) the recorded and built host trees.

mod cgroup;
mod cpufreq;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
mod idle;
mod system;
pub mod tune;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use nodebench_core::inventory::host::{HostSample, HostState, ProcessCpu};

use crate::inventory::sysfs::{numbered_entries, parse_cpu_list, read_value};
use crate::procs::{Snapshot, own_pid};
use crate::sysroot::Roots;

pub use nodebench_core::inventory::host::{
    MAX_EXIT_LATENCY_US, MAX_OTHERS_PCT, MAX_STEAL_PCT, judge, setting, settings,
};

/// The online CPUs' directories under `devices/system/cpu`, by number.
fn online_cpus(roots: &Roots) -> (Option<u32>, Vec<(u32, PathBuf)>) {
    let sys_cpu = roots.sys("devices/system/cpu");
    let online = read_value(sys_cpu.join("online")).and_then(|t| parse_cpu_list(&t));
    let dirs = crate::inventory::online_cpu_dirs(&sys_cpu, online.as_deref());
    (online.map(|l| l.len() as u32), dirs)
}

/// The static readings under `roots`; the timer read is measured only on
/// the live machine.
pub fn read(roots: &Roots) -> HostState {
    let (online, cpu_dirs) = online_cpus(roots);
    let (thp_enabled, thp_defrag) = system::thp(roots);
    let (total, available, swap_total, swap_used) = system::memory(roots);
    let (swappiness, numa_balancing) = system::sysctls(roots);
    let numa_nodes = numbered_entries(&roots.sys("devices/system/node"), "node").len() as u32;
    HostState {
        online_cpus: online,
        numa_nodes: (numa_nodes > 0).then_some(numa_nodes),
        policies: cpufreq::policies(roots),
        boost: cpufreq::boost(roots),
        idle: idle::idle(&roots.sys("devices/system/cpu"), &cpu_dirs),
        smt_control: read_value(roots.sys("devices/system/cpu/smt/control")),
        thp_enabled,
        thp_defrag,
        swap_total_bytes: swap_total,
        swap_used_bytes: swap_used,
        swappiness,
        numa_balancing,
        irqbalance_pids: system::irqbalance_pids(roots),
        clocksource: system::clocksource(roots, roots.is_live()),
        hypervisor: system::hypervisor(roots),
        cgroup: cgroup::cgroup(roots),
        memory_available_bytes: available,
        memory_total_bytes: total,
        thermal_zones: system::thermal_zones(roots),
        throttle: system::throttle(&cpu_dirs),
        tuning: None,
    }
}

/// Where a recorded tree keeps its second reading of `/proc`: `proc+1s`
/// beside `proc` (a recording cannot wait a second, so it holds both).
pub const SECOND_READING: &str = "proc+1s";

/// The `/proc/stat` totals: (steal, all) jiffies over every CPU.
fn steal_and_total(roots: &Roots) -> Option<(u64, u64)> {
    let text = crate::inventory::sysfs::read_text(roots.proc("stat"))?;
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|w| w.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal [guest guest_nice]:
    // guest time is already counted in user.
    let total: u64 = v.iter().take(8).sum();
    Some((*v.get(7)?, total))
}

/// Seconds since boot (`/proc/uptime`).
fn uptime(roots: &Roots) -> Option<f64> {
    read_value(roots.proc("uptime"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Steal time and the other processes' CPU use over `window`: read, wait,
/// read again. On a recorded tree the second reading is its
/// [`SECOND_READING`] (no wait); without one, the same files read twice
/// show nothing happening. The window is the uptime between the two
/// readings where `/proc/uptime` says, else the wall time.
pub fn sample(roots: &Roots, window: Duration) -> HostSample {
    let later = if roots.is_live() {
        None
    } else {
        let p = roots.proc("").with_file_name(SECOND_READING);
        p.is_dir().then(|| roots.with_proc(p))
    };
    let start = Instant::now();
    let before = (
        steal_and_total(roots),
        Snapshot::take(roots).ok(),
        uptime(roots),
    );
    let after_roots = match later {
        Some(r) => r,
        None => {
            std::thread::sleep(window);
            roots.clone()
        }
    };
    let after = (
        steal_and_total(&after_roots),
        Snapshot::take(&after_roots).ok(),
        uptime(&after_roots),
    );
    let window_s = match (before.2, after.2) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => start.elapsed().as_secs_f64(),
    };
    let steal_pct = match (before.0, after.0) {
        (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => {
            Some(100.0 * s1.saturating_sub(s0) as f64 / (t1 - t0) as f64)
        }
        _ => None,
    };
    let (online, _) = online_cpus(roots);
    let (others_cpu_pct, top) = match (before.1, after.1) {
        (Some(b), Some(a)) => {
            let mut usage = a.cpu_since(&b);
            // This process, on the live machine (a recorded pid is not it).
            if roots.is_live() {
                usage = usage.without(own_pid());
            }
            let cpus = f64::from(online.unwrap_or(1).max(1));
            // A sum of nothing is -0.0 (Rust's float sum): never printed so.
            let share = (window_s > 0.0)
                .then(|| (100.0 * usage.total_cpu_s() / (window_s * cpus)).max(0.0) + 0.0);
            let top = usage
                .top(5)
                .into_iter()
                .map(|p| ProcessCpu {
                    pid: p.pid,
                    name: p.comm,
                    cpu_pct: if window_s > 0.0 {
                        100.0 * p.cpu_s / window_s
                    } else {
                        0.0
                    },
                })
                .collect();
            (share, top)
        }
        _ => (None, Vec::new()),
    };
    HostSample {
        window_s,
        steal_pct,
        others_cpu_pct,
        top,
    }
}

/// `nodebench check`'s readings: the one-second sample runs in its own
/// thread while the static settings are read, so the whole takes the
/// window and little more.
pub fn check(roots: &Roots, window: Duration) -> (HostState, HostSample) {
    std::thread::scope(|s| {
        let sampler = s.spawn(|| sample(roots, window));
        let state = read(roots);
        let sample = sampler.join().unwrap_or_default();
        (state, sample)
    })
}

#[cfg(test)]
mod tests;
