//! What disturbed a result or one of its phases: the CPU time other
//! processes took on the CPUs it used, steal, thermal throttle events and
//! swap-ins during it, read from counters at its start and end
//! (`machine::disturb` reads and judges them; this is the stored form).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Warnings of a disturbed result begin with this word: `disturbed: ...`
/// for the whole result, `disturbed [threads=2]: ...` for one phase.
pub const WARNING: &str = "disturbed";

/// Whether warning `w` is a disturbance warning.
pub fn is_warning(w: &str) -> bool {
    w.strip_prefix(WARNING)
        .is_some_and(|rest| rest.starts_with(':') || rest.starts_with(" ["))
}

/// Another process that took CPU time during a span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OtherProcess {
    /// Its process id.
    pub pid: u32,
    /// Its name (`comm`, as /proc/PID/stat gives it).
    pub name: String,
    /// CPU time it took over the span, % of one CPU (200 = two CPUs busy).
    pub cpu_percent: f64,
}

/// The counters of one span (a result, or one phase of it), as differences
/// between its start and its end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Disturbance {
    /// The CPUs the span's work ran on, in the kernel's list form (`0-3`):
    /// those its threads were pinned to, else every CPU the process may use.
    pub cpus: String,
    /// Wall time of the span, s.
    pub wall_s: f64,
    /// CPU time the span's CPUs had: their count x `wall_s`, s.
    pub available_cpu_s: f64,
    /// CPU time other processes took on those CPUs: their busy time
    /// (/proc/stat, user + system + irq + softirq) less this process's own
    /// CPU time, never below 0, s.
    pub others_cpu_s: f64,
    /// Time the hypervisor ran something else on those CPUs (steal), s.
    pub steal_s: f64,
    /// The counters' resolution: one tick (1/USER_HZ) per CPU at each end,
    /// s. A share is judged only above it.
    pub resolution_s: f64,
    /// New thermal throttle events on those CPUs (the sum of their
    /// `thermal_throttle/*_throttle_count`; absent where /sys has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle_events: Option<u64>,
    /// Pages swapped in machine-wide (/proc/vmstat `pswpin`).
    pub swap_ins: u64,
    /// The other processes that took the most CPU time, most first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top: Vec<OtherProcess>,
    /// CPU time of the server under test (a local database or web server
    /// the benchmark loaded) and its child processes: the workload's, left
    /// out of `others_cpu_s`, s; absent where the benchmark loads no local
    /// server (or its processes could not be seen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub under_test_cpu_s: Option<f64>,
    /// The processes of the server under test, most CPU time first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub under_test: Vec<OtherProcess>,
    /// Whether it is over the threshold (`machine::disturb`'s rule, stated
    /// with its figures in `reason`).
    pub disturbed: bool,
    /// Why it is disturbed: the share, the steal, the events and the top
    /// processes, one line; absent when not disturbed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Disturbance {
    /// Other processes' share of the span's CPU time, %.
    pub fn others_percent(&self) -> f64 {
        percent(self.others_cpu_s, self.available_cpu_s)
    }

    /// Steal's share of the span's CPU time, %.
    pub fn steal_percent(&self) -> f64 {
        percent(self.steal_s, self.available_cpu_s)
    }
}

fn percent(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        (100.0 * part / whole).max(0.0)
    } else {
        0.0
    }
}
