//! The host's state for benchmarking: the settings that change results
//! without changing the hardware (frequency policy, idle states, SMT, THP,
//! swap, NUMA balancing, irqbalance, the clocksource, the container's CPU
//! limit, thermal throttling), as `nodebench check` reads them and every
//! run stores them (`Inventory::host`), with what `--tune` changed for the
//! run. Read by `nodebench_machine::host`; unknown is `None`, never a
//! guess. [`judge`] turns the readings into `check`'s lines and
//! [`settings`] into what `compare` sets side by side.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod judge;

pub use judge::{
    MAX_EXIT_LATENCY_US, MAX_OTHERS_PCT, MAX_STEAL_PCT, SLOW_TIMER_NS, judge, setting, settings,
};

/// The static readings: what a run stores (no sampling).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct HostState {
    /// Online CPUs (`/sys/devices/system/cpu/online`), what `nproc` shows
    /// outside a cpuset.
    pub online_cpus: Option<u32>,
    /// NUMA nodes with CPUs or memory.
    pub numa_nodes: Option<u32>,
    /// The cpufreq policies (`cpufreq/policy*`); empty where the kernel
    /// has no cpufreq driver (most virtual machines: the hypervisor sets
    /// the clock).
    pub policies: Vec<FreqPolicy>,
    /// Turbo/boost: whether the CPUs may run above their base clock.
    pub boost: Option<Boost>,
    /// The cpuidle driver and the deepest idle state enabled.
    pub idle: Option<IdleState>,
    /// SMT control (`cpu/smt/control`): on, off, forceoff, notsupported,
    /// notimplemented.
    pub smt_control: Option<String>,
    /// Transparent huge pages: `enabled` (always, madvise, never).
    pub thp_enabled: Option<String>,
    /// Transparent huge pages: `defrag` (always, defer, defer+madvise,
    /// madvise, never).
    pub thp_defrag: Option<String>,
    /// Configured swap (`SwapTotal`), bytes.
    pub swap_total_bytes: Option<u64>,
    /// Swap in use (`SwapTotal - SwapFree`), bytes.
    pub swap_used_bytes: Option<u64>,
    /// `vm.swappiness`.
    pub swappiness: Option<u32>,
    /// `kernel.numa_balancing` (0 off, 1 on, 2 memory tiering).
    pub numa_balancing: Option<u32>,
    /// The pids of the irqbalance daemons running (empty: none).
    pub irqbalance_pids: Option<Vec<u32>>,
    /// The clocksource and, on the live machine, what a timer read costs.
    pub clocksource: Option<Clocksource>,
    /// The hypervisor ("KVM", "Xen", ...; "none" on bare metal), where the
    /// files tell.
    pub hypervisor: Option<String>,
    /// The cgroup's CPU limits (quota and cpuset), v1 or v2.
    pub cgroup: Option<CgroupCpu>,
    /// Memory available to new work (`MemAvailable`), bytes.
    pub memory_available_bytes: Option<u64>,
    /// Usable memory (`MemTotal`), bytes.
    pub memory_total_bytes: Option<u64>,
    /// Thermal zones with their temperatures.
    pub thermal_zones: Vec<ThermalZone>,
    /// Thermal throttle counts since boot, summed over the CPUs
    /// (`thermal_throttle/*_throttle_count`); `None` where the kernel does
    /// not count them (most VMs, non-Intel CPUs).
    pub throttle: Option<Throttle>,
    /// What `--tune` changed for this run, and what it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuning: Option<Tuning>,
}

/// One cpufreq policy: the CPUs that share one clock setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct FreqPolicy {
    /// Its directory name: `policy0`.
    pub name: String,
    /// The CPUs it sets (`affected_cpus`, the kernel's list form).
    pub cpus: String,
    /// `scaling_driver`: intel_pstate, amd-pstate-epp, acpi-cpufreq, cppc_cpufreq...
    pub driver: Option<String>,
    /// `scaling_governor`: performance, powersave, schedutil, ondemand...
    pub governor: Option<String>,
    /// `energy_performance_preference` where the driver has one:
    /// performance, balance_performance, balance_power, power.
    pub epp: Option<String>,
    /// `scaling_min_freq`, kHz.
    pub min_khz: Option<u64>,
    /// `scaling_max_freq`, kHz.
    pub max_khz: Option<u64>,
    /// `cpuinfo_min_freq`: the hardware's lowest, kHz.
    pub hw_min_khz: Option<u64>,
    /// `cpuinfo_max_freq`: the hardware's highest, kHz.
    pub hw_max_khz: Option<u64>,
}

/// Turbo/boost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Boost {
    /// Whether the CPUs may boost.
    pub enabled: bool,
    /// The file it was read from, relative to /sys
    /// (`devices/system/cpu/intel_pstate/no_turbo`,
    /// `devices/system/cpu/cpufreq/boost`).
    pub file: String,
}

/// The cpuidle driver and the deepest enabled idle state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct IdleState {
    /// `cpuidle/current_driver`: intel_idle, acpi_idle, haltpoll, psci_idle, none.
    pub driver: Option<String>,
    /// `cpuidle/current_governor`: menu, teo, ladder, haltpoll.
    pub governor: Option<String>,
    /// The deepest state enabled on any online CPU (`None`: no states).
    pub deepest: Option<CState>,
    /// How many states the CPUs have (POLL included).
    pub states: u32,
}

/// One idle state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct CState {
    /// Its name: POLL, C1, C1E, C6...
    pub name: String,
    /// Worst-case wake-up time (`latency`), microseconds.
    pub exit_latency_us: u64,
    /// The CPUs it is enabled on (the kernel's list form).
    pub cpus: String,
}

/// The clocksource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Clocksource {
    /// `current_clocksource`: tsc, kvm-clock, hpet, acpi_pm, arch_sys_counter...
    pub current: String,
    /// `available_clocksource`.
    pub available: Vec<String>,
    /// Nanoseconds one `clock_gettime(CLOCK_MONOTONIC)` took (best of
    /// several batches), measured on the live machine only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_ns: Option<f64>,
}

/// The cgroup's CPU limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct CgroupCpu {
    /// 1 or 2.
    pub version: u32,
    /// This process's cgroup (`/proc/self/cgroup`).
    pub path: String,
    /// The tightest CPU quota on the way to the root, in CPUs (quota /
    /// period); `None`: no quota.
    pub quota_cpus: Option<f64>,
    /// The quota as the file says it (`200000 100000`, `200000/100000`).
    pub quota: Option<String>,
    /// The CPUs the cpuset allows (`cpuset.cpus.effective`,
    /// `cpuset.effective_cpus`), the kernel's list form.
    pub cpuset: Option<String>,
    /// How many CPUs that is.
    pub cpuset_cpus: Option<u32>,
}

/// One thermal zone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct ThermalZone {
    /// `thermal_zone0`.
    pub name: String,
    /// Its `type`: x86_pkg_temp, acpitz, cpu-thermal...
    pub kind: String,
    /// Its temperature, degrees Celsius.
    pub temp_c: Option<f64>,
}

/// Thermal throttle counts since boot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Throttle {
    /// Sum of `core_throttle_count`.
    pub core_events: u64,
    /// Sum of `package_throttle_count`.
    pub package_events: u64,
    /// The CPUs counted.
    pub cpus: u32,
}

/// What `--tune` did for a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Tuning {
    /// Every file it wrote, with the value it found and the one it set
    /// (each put back at the end of the run).
    pub changes: Vec<TuneChange>,
    /// What it held or left alone and why ("/dev/cpu_dma_latency held at
    /// 0 us", "no /dev/cpu_dma_latency: skipped").
    pub notes: Vec<String>,
}

/// One file `--tune` wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct TuneChange {
    /// The file, relative to /sys.
    pub file: String,
    /// The value it held before.
    pub from: String,
    /// The value it was set to.
    pub to: String,
}

/// What `nodebench check` samples over one second beside the static
/// readings (never stored with a run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct HostSample {
    /// The sampled wall time, seconds.
    pub window_s: f64,
    /// Steal time over it, percent of all CPUs' time (`/proc/stat`).
    pub steal_pct: Option<f64>,
    /// The CPU time every other process took, percent of all online CPUs'
    /// time.
    pub others_cpu_pct: Option<f64>,
    /// The five other processes that took the most CPU time.
    pub top: Vec<ProcessCpu>,
}

/// One process's CPU use over the sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct ProcessCpu {
    pub pid: u32,
    pub name: String,
    /// Percent of one CPU (over 100 for a process on several CPUs).
    pub cpu_pct: f64,
}

/// One line of `nodebench check`: a setting, what it is, what a benchmark
/// wants and why, the command that changes it, and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckLine {
    /// The setting: `governor`, `EPP`, `deepest C-state`...
    pub setting: String,
    /// Its value here.
    pub value: String,
    /// What a benchmark wants.
    pub want: String,
    /// Why it matters.
    pub why: String,
    /// The command that changes it (empty where nothing here can).
    pub fix: String,
    /// ok or warn.
    pub verdict: Verdict,
}

/// A check line's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Ok,
    Warn,
}

impl Verdict {
    /// `ok` or `warn`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Warn => "warn",
        }
    }
}
