//! The pure accounting of one span: two [`Counters`] readings and the CPUs
//! the span's work ran on turned into a [`Disturbance`], judged against the
//! thresholds.

use nodebench_core::cpulist;
use nodebench_core::disturbance::{Disturbance, OtherProcess};

use crate::procs;
use crate::telemetry::proc::CpuTimes;

/// Other processes' CPU time on the span's CPUs above this share (%) of the
/// CPU time those CPUs had (their count x the wall time), beyond the
/// counters' resolution: disturbed. 2 %: a quiet machine's daemons take
/// well under 1 %, and a figure 2 % off is the noise `compare` can still
/// tell apart.
pub const OTHERS_SHARE: f64 = 2.0;
/// Steal above this share (%) of the span's CPU time: disturbed.
pub const STEAL_SHARE: f64 = 2.0;
/// Other processes named in a span's record.
pub const TOP: usize = 5;
/// Other processes named in the warning (those over [`NAMED_PERCENT`]).
pub const NAMED: usize = 3;
/// An other process is named in the warning from this CPU % on.
pub const NAMED_PERCENT: f64 = 1.0;

/// The counters read at one end of a span.
#[derive(Debug, Clone)]
pub struct Counters {
    /// /proc/stat's per-CPU times, jiffies (ticks).
    pub cpus: Vec<(u32, CpuTimes)>,
    /// This process's CPU time so far (user + system, all threads), s.
    pub own_cpu_s: f64,
    /// /proc/vmstat `pswpin`.
    pub pswpin: u64,
    /// Per CPU, the sum of its `thermal_throttle/*_throttle_count` files;
    /// empty where /sys has none.
    pub throttle: Vec<(u32, u64)>,
    /// Every process's CPU time, where /proc could be listed.
    pub procs: Option<procs::Snapshot>,
}

/// Busy ticks of `t`: everything but idle, iowait and steal.
fn busy(t: &CpuTimes) -> u64 {
    t.user + t.system + t.irq + t.softirq
}

/// The sum over `cpus` of `f`'s growth from `a` to `b` (a CPU missing at
/// either end counts nothing; a counter going back counts 0).
fn grown(a: &Counters, b: &Counters, cpus: &[u32], f: impl Fn(&CpuTimes) -> u64) -> u64 {
    cpus.iter()
        .filter_map(|c| {
            let at = |x: &Counters| x.cpus.iter().find(|(n, _)| n == c).map(|(_, t)| f(t));
            Some(at(b)?.saturating_sub(at(a)?))
        })
        .sum()
}

/// The span from `a` to `b`, `wall_s` long, on `cpus` (those that appear in
/// /proc/stat), with `tick_s` seconds a tick and this process (`own_pid`)
/// left out of the processes named. The servers under test (`under_test`,
/// see [`super::workload`]) and their descendants are the workload: their
/// CPU time is counted apart, not as other processes'.
pub fn account(
    a: &Counters,
    b: &Counters,
    cpus: &[u32],
    wall_s: f64,
    tick_s: f64,
    own_pid: u32,
    under_test: &[u32],
) -> Disturbance {
    let cpus: Vec<u32> = cpus
        .iter()
        .copied()
        .filter(|c| b.cpus.iter().any(|(n, _)| n == c))
        .collect();
    let n = cpus.len() as f64;
    let wall_s = wall_s.max(0.0);
    let available = n * wall_s;
    let busy_s = grown(a, b, &cpus, busy) as f64 * tick_s;
    let own_s = (b.own_cpu_s - a.own_cpu_s).max(0.0);
    let usage = match (&a.procs, &b.procs) {
        (Some(pa), Some(pb)) => Some((pb, pb.cpu_since(pa).without(own_pid))),
        _ => None,
    };
    let (served, usage): (Vec<procs::ProcCpu>, Option<procs::Usage>) = match usage {
        Some((pb, mut u)) if !under_test.is_empty() => {
            let (s, rest) = u
                .procs
                .into_iter()
                .partition(|p| descends_from(pb, p.pid, under_test));
            u.procs = rest;
            (s, Some(u))
        }
        Some((_, u)) => (Vec::new(), Some(u)),
        None => (Vec::new(), None),
    };
    let served_s: f64 = served.iter().map(|p| p.cpu_s).sum();
    let others = (busy_s - own_s - served_s).clamp(0.0, available);
    let steal = (grown(a, b, &cpus, |t| t.steal) as f64 * tick_s).min(available);
    let throttle = (!b.throttle.is_empty()).then(|| {
        cpus.iter()
            .filter_map(|c| {
                let at = |x: &Counters| x.throttle.iter().find(|(n, _)| n == c).map(|t| t.1);
                Some(at(b)?.saturating_sub(at(a)?))
            })
            .sum()
    });
    let named = |p: procs::ProcCpu| OtherProcess {
        pid: p.pid,
        cpu_percent: p.percent(wall_s).unwrap_or(0.0),
        name: p.comm,
    };
    let top: Vec<OtherProcess> = usage
        .map(|u| u.top(TOP).into_iter().map(named).collect())
        .unwrap_or_default();
    let under_test_cpu_s = (!under_test.is_empty() && b.procs.is_some()).then_some(served_s);
    let mut served = served;
    served.sort_by(|x, y| y.cpu_s.total_cmp(&x.cpu_s).then(x.pid.cmp(&y.pid)));
    served.truncate(TOP);
    let mut d = Disturbance {
        cpus: cpulist::format(&cpus),
        wall_s,
        available_cpu_s: available,
        others_cpu_s: others,
        steal_s: steal,
        resolution_s: n * tick_s,
        throttle_events: throttle,
        swap_ins: b.pswpin.saturating_sub(a.pswpin),
        top,
        under_test_cpu_s,
        under_test: served.into_iter().map(named).collect(),
        disturbed: false,
        reason: None,
    };
    judge(&mut d);
    d
}

/// Whether `pid` or one of its ancestors (in `snap`) is in `roots`.
fn descends_from(snap: &procs::Snapshot, pid: u32, roots: &[u32]) -> bool {
    let mut p = pid;
    // A parent chain is short; the bound only guards a malformed tree.
    for _ in 0..64 {
        if roots.contains(&p) {
            return true;
        }
        match snap.get(p) {
            Some(s) if s.ppid != 0 && s.ppid != p => p = s.ppid,
            _ => return false,
        }
    }
    false
}

/// Sets `disturbed` and `reason` from the figures: other processes' CPU
/// time or steal over their share of the available CPU time by more than
/// the counters' resolution, any throttle event, any swap-in.
pub fn judge(d: &mut Disturbance) {
    let over = |part: f64, share: f64| {
        d.available_cpu_s > 0.0 && part - d.resolution_s > share / 100.0 * d.available_cpu_s
    };
    let others = over(d.others_cpu_s, OTHERS_SHARE);
    let steal = over(d.steal_s, STEAL_SHARE);
    let throttled = d.throttle_events.unwrap_or(0) > 0;
    let swapped = d.swap_ins > 0;
    d.disturbed = others || steal || throttled || swapped;
    d.reason = d.disturbed.then(|| reason(d));
}

/// `other processes took 48.9 % of the CPU time of CPUs 0-1 (0.98 of 2.00
/// CPU-s), steal 0.0 %; top: stress-ng-cpu (pid 4242) 97.8 %`, and the
/// throttle events and swap-ins where there were any.
fn reason(d: &Disturbance) -> String {
    let cpus = if d.cpus.contains([',', '-']) {
        format!("CPUs {}", d.cpus)
    } else {
        format!("CPU {}", d.cpus)
    };
    let mut s = format!(
        "other processes took {:.1} % of the CPU time of {cpus} ({:.2} of {:.2} CPU-s), steal {:.1} %",
        d.others_percent(),
        d.others_cpu_s,
        d.available_cpu_s,
        d.steal_percent()
    );
    if let Some(t) = d.throttle_events.filter(|t| *t > 0) {
        s.push_str(&format!(", {t} thermal throttle event(s)"));
    }
    if d.swap_ins > 0 {
        s.push_str(&format!(", {} page(s) swapped in", d.swap_ins));
    }
    let named: Vec<String> = d
        .top
        .iter()
        .filter(|p| p.cpu_percent >= NAMED_PERCENT)
        .take(NAMED)
        .map(|p| format!("{} (pid {}) {:.1} %", p.name, p.pid, p.cpu_percent))
        .collect();
    if !named.is_empty() {
        s.push_str(&format!("; top: {}", named.join(", ")));
    }
    s
}
