//! Each reading against what a benchmark wants (data only, so the
//! reporters judge a stored run as `check` judges the live host): the lines of `nodebench
//! check` ([`judge`]) and the settings `compare` sets side by side
//! ([`settings`]).

use super::{CheckLine, FreqPolicy, HostSample, HostState, Verdict};
use crate::units::format_bytes;

/// The deepest idle state's exit latency a benchmark accepts, µs (C1 and
/// C1E wake in 1-10 µs; C6 in 100 µs and more).
pub const MAX_EXIT_LATENCY_US: u64 = 20;
/// The steal time a benchmark accepts, percent of the CPUs' time.
pub const MAX_STEAL_PCT: f64 = 1.0;
/// The other processes' CPU use a benchmark accepts, percent of all CPUs.
pub const MAX_OTHERS_PCT: f64 = 2.0;
/// A timer read costs this many ns or more: the clocksource is slow.
pub const SLOW_TIMER_NS: f64 = 100.0;
/// Clocksources read in user space through the vDSO (tens of ns).
const VDSO_CLOCKSOURCES: [&str; 4] = [
    "tsc",
    "arch_sys_counter",
    "kvm-clock",
    "hyperv_clocksource_tsc_page",
];

/// Setting names, shared by `check`, `runs show` and `compare`.
pub mod setting {
    pub const DRIVER: &str = "cpufreq driver";
    pub const GOVERNOR: &str = "governor";
    pub const EPP: &str = "EPP";
    pub const TURBO: &str = "turbo";
    pub const FREQ_RANGE: &str = "frequency range";
    pub const CSTATE: &str = "deepest C-state";
    pub const SMT: &str = "SMT";
    pub const THP: &str = "THP";
    pub const SWAP: &str = "swap";
    pub const SWAPPINESS: &str = "swappiness";
    pub const NUMA_BALANCING: &str = "NUMA balancing";
    pub const IRQBALANCE: &str = "irqbalance";
    pub const CLOCKSOURCE: &str = "clocksource";
    pub const HYPERVISOR: &str = "hypervisor";
    pub const STEAL: &str = "steal time";
    pub const CPU_LIMIT: &str = "CPU limit";
    pub const MEMORY: &str = "memory";
    pub const THERMAL: &str = "thermal";
    pub const OTHERS: &str = "other processes";
    pub const TUNED: &str = "tuned";
}

fn line(setting: &str, value: String, want: &str, why: &str, fix: &str, warn: bool) -> CheckLine {
    CheckLine {
        setting: setting.into(),
        value,
        want: want.into(),
        why: why.into(),
        fix: fix.into(),
        verdict: if warn { Verdict::Warn } else { Verdict::Ok },
    }
}

/// The policies' values of one field, grouped: "powersave" when all agree,
/// else "powersave (CPUs 0-3), performance (CPUs 4-7)"; `None` when no
/// policy has it.
fn grouped(
    policies: &[FreqPolicy],
    field: impl Fn(&FreqPolicy) -> Option<String>,
) -> Option<String> {
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for p in policies {
        let Some(v) = field(p) else { continue };
        let cpus = crate::cpulist::parse(&p.cpus).unwrap_or_default();
        match groups.iter_mut().find(|g| g.0 == v) {
            Some(g) => g.1.extend(cpus),
            None => groups.push((v, cpus)),
        }
    }
    match groups.len() {
        0 => None,
        1 => Some(groups.remove(0).0),
        _ => Some(
            groups
                .iter()
                .map(|(v, c)| format!("{v} (CPUs {})", crate::cpulist::format(c)))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    }
}

fn mhz(khz: Option<u64>) -> String {
    khz.map_or_else(|| "?".into(), |k| format!("{}", k / 1000))
}

fn freq_range(p: &FreqPolicy) -> String {
    format!(
        "{}-{} MHz of the hardware's {}-{} MHz",
        mhz(p.min_khz),
        mhz(p.max_khz),
        mhz(p.hw_min_khz),
        mhz(p.hw_max_khz)
    )
}

fn capped(p: &FreqPolicy) -> bool {
    matches!((p.max_khz, p.hw_max_khz), (Some(m), Some(h)) if m < h)
}

fn cstate(s: &HostState) -> String {
    match &s.idle {
        None => "no cpuidle (the CPUs never leave C0)".into(),
        Some(i) => match &i.deepest {
            None => "no idle state enabled".into(),
            Some(c) => format!("{} ({} µs exit latency)", c.name, c.exit_latency_us),
        },
    }
}

fn thp(s: &HostState) -> String {
    let v = |o: &Option<String>| o.clone().unwrap_or_else(|| "unknown".into());
    format!("enabled {}, defrag {}", v(&s.thp_enabled), v(&s.thp_defrag))
}

fn numa_balancing(s: &HostState) -> String {
    match s.numa_balancing {
        None => "not in this kernel".into(),
        Some(0) => "off".into(),
        Some(1) => "on".into(),
        Some(n) => format!("on (mode {n})"),
    }
}

fn irqbalance(s: &HostState, with_pids: bool) -> String {
    match &s.irqbalance_pids {
        None => "unknown".into(),
        Some(p) if p.is_empty() => "not running".into(),
        Some(p) if with_pids => format!(
            "running (pid {})",
            p.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ),
        Some(_) => "running".into(),
    }
}

fn cpu_limit(s: &HostState) -> String {
    let Some(c) = &s.cgroup else {
        return "no cgroup".into();
    };
    let quota = match (c.quota_cpus, &c.quota) {
        (Some(q), Some(text)) => format!("quota {q:.2} CPUs ({text})"),
        _ => "no quota".into(),
    };
    let cpuset = match (&c.cpuset, c.cpuset_cpus) {
        (Some(list), Some(n)) => format!("cpuset {list} ({n} CPUs)"),
        _ => "no cpuset".into(),
    };
    format!("cgroup v{} {}: {quota}, {cpuset}", c.version, c.path)
}

fn tuned(s: &HostState) -> Option<String> {
    let t = s.tuning.as_ref()?;
    let mut parts: Vec<String> = t
        .changes
        .iter()
        .map(|c| format!("{}: {} -> {}", c.file, c.from, c.to))
        .collect();
    parts.extend(t.notes.iter().cloned());
    Some(if parts.is_empty() {
        "nothing to change".into()
    } else {
        parts.join("; ")
    })
}

/// The settings `compare` sets side by side: what is configured, not what
/// varies from second to second (free memory, temperatures, swap in use,
/// a timer read's measured cost are left out).
pub fn settings(s: &HostState) -> Vec<(&'static str, String)> {
    let none = || "none".to_string();
    let mut out = vec![
        (
            setting::DRIVER,
            grouped(&s.policies, |p| p.driver.clone()).unwrap_or_else(none),
        ),
        (
            setting::GOVERNOR,
            grouped(&s.policies, |p| p.governor.clone()).unwrap_or_else(none),
        ),
        (
            setting::EPP,
            grouped(&s.policies, |p| p.epp.clone()).unwrap_or_else(none),
        ),
        (
            setting::TURBO,
            s.boost
                .as_ref()
                .map_or_else(|| "no control".into(), |b| on_off(b.enabled).into()),
        ),
        (
            setting::FREQ_RANGE,
            grouped(&s.policies, |p| Some(freq_range(p))).unwrap_or_else(none),
        ),
        (setting::CSTATE, cstate(s)),
        (
            setting::SMT,
            s.smt_control.clone().unwrap_or_else(|| "unknown".into()),
        ),
        (setting::THP, thp(s)),
        (
            setting::SWAPPINESS,
            s.swappiness
                .map_or_else(|| "unknown".into(), |v| v.to_string()),
        ),
        (setting::NUMA_BALANCING, numa_balancing(s)),
        (setting::IRQBALANCE, irqbalance(s, false)),
        (
            setting::CLOCKSOURCE,
            s.clocksource
                .as_ref()
                .map_or_else(|| "unknown".into(), |c| c.current.clone()),
        ),
        (
            setting::HYPERVISOR,
            s.hypervisor.clone().unwrap_or_else(|| "unknown".into()),
        ),
        (setting::CPU_LIMIT, cpu_limit(s)),
    ];
    out.push((setting::TUNED, tuned(s).unwrap_or_else(|| "no".into())));
    out
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

/// Every line of `nodebench check`: the static readings, the sampled ones
/// where `sample` is given, the memory against `memory_need` (bytes the
/// quick suite needs) where given, and what `--tune` changed where it did.
pub fn judge(
    s: &HostState,
    sample: Option<&HostSample>,
    memory_need: Option<u64>,
) -> Vec<CheckLine> {
    let tune = "nodebench --tune (for the run), or: ";
    let mut out = Vec::new();
    let no_cpufreq = s.policies.is_empty();
    out.push(line(
        setting::DRIVER,
        grouped(&s.policies, |p| p.driver.clone())
            .unwrap_or_else(|| "none (no cpufreq: the hypervisor or the firmware sets the clock)".into()),
        "any: it decides which of the settings below exist",
        "intel_pstate and amd-pstate pick the clock with the hardware (EPP); acpi-cpufreq follows the governor alone",
        "",
        false,
    ));
    let governor = grouped(&s.policies, |p| p.governor.clone());
    out.push(line(
        setting::GOVERNOR,
        governor.clone().unwrap_or_else(|| "none (no cpufreq driver)".into()),
        "performance",
        "other governors lower the clock between and during runs, so a figure depends on what ran before it",
        &format!("{tune}sudo cpupower frequency-set -g performance"),
        !no_cpufreq && s.policies.iter().any(|p| p.governor.as_deref() != Some("performance")),
    ));
    let epp = grouped(&s.policies, |p| p.epp.clone());
    out.push(line(
        setting::EPP,
        epp.clone().unwrap_or_else(|| "not offered by the driver".into()),
        "performance",
        "the hardware trades clock for power below `performance`: lower, load-dependent clocks",
        &format!("{tune}echo performance | sudo tee /sys/devices/system/cpu/cpufreq/policy*/energy_performance_preference"),
        s.policies.iter().any(|p| p.epp.as_deref().is_some_and(|e| e != "performance")),
    ));
    out.push(line(
        setting::TURBO,
        match &s.boost {
            Some(b) => format!("{} (/sys/{})", on_off(b.enabled), b.file),
            None => "no control (no intel_pstate/no_turbo or cpufreq/boost)".into(),
        },
        "the same in every run you compare (on: the rated boost clock; off: steadier figures)",
        "turbo clocks depend on temperature and on how many cores are busy",
        match &s.boost {
            Some(b) if b.file.ends_with("no_turbo") => {
                "echo 0 (on) or 1 (off) | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"
            }
            Some(_) => "echo 1 (on) or 0 (off) | sudo tee /sys/devices/system/cpu/cpufreq/boost",
            None => "",
        },
        false,
    ));
    let hw_max = s.policies.iter().filter_map(|p| p.hw_max_khz).max();
    out.push(line(
        setting::FREQ_RANGE,
        grouped(&s.policies, |p| Some(freq_range(p)))
            .unwrap_or_else(|| "not exposed (no cpufreq driver)".into()),
        "the maximum at the hardware's maximum",
        "a lowered scaling_max_freq caps every result below what the part does",
        &hw_max.map_or_else(String::new, |h| {
            format!("sudo cpupower frequency-set -u {}MHz", h / 1000)
        }),
        s.policies.iter().any(capped),
    ));
    let deep = s
        .idle
        .as_ref()
        .and_then(|i| i.deepest.as_ref())
        .is_some_and(|c| c.exit_latency_us > MAX_EXIT_LATENCY_US);
    let idle_value = match s.idle.as_ref() {
        Some(i) => format!(
            "{}{}; driver {}, governor {}",
            cstate(s),
            i.deepest
                .as_ref()
                .map(|c| format!(" on CPUs {}", c.cpus))
                .unwrap_or_default(),
            i.driver.as_deref().unwrap_or("unknown"),
            i.governor.as_deref().unwrap_or("unknown")
        ),
        None => cstate(s),
    };
    out.push(line(
        setting::CSTATE,
        idle_value,
        &format!("an exit latency of at most {MAX_EXIT_LATENCY_US} µs (C1/C1E)"),
        "a CPU waking from a deep C-state adds its exit latency to every wake-up: latency figures and short phases suffer",
        &format!("{tune}sudo cpupower idle-set -D {MAX_EXIT_LATENCY_US}"),
        deep,
    ));
    out.push(line(
        setting::SMT,
        s.smt_control
            .clone()
            .unwrap_or_else(|| "unknown (no cpu/smt/control)".into()),
        "the same in every run you compare",
        "with SMT on, threads past the core count share a core's execution units",
        "echo on|off | sudo tee /sys/devices/system/cpu/smt/control",
        false,
    ));
    out.push(line(
        setting::THP,
        thp(s),
        "enabled always or madvise, defrag not always",
        "without huge pages large buffers miss the TLB; defrag=always stalls allocations in compaction",
        "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag",
        s.thp_enabled.as_deref() == Some("never") || s.thp_defrag.as_deref() == Some("always"),
    ));
    let swap_used = s.swap_used_bytes.unwrap_or(0);
    out.push(line(
        setting::SWAP,
        format!(
            "{} in use of {}, swappiness {}",
            s.swap_used_bytes
                .map_or_else(|| "unknown".into(), format_bytes),
            s.swap_total_bytes
                .map_or_else(|| "unknown".into(), format_bytes),
            s.swappiness
                .map_or_else(|| "unknown".into(), |v| v.to_string())
        ),
        "none in use",
        "a benchmark touching swapped-out pages waits for the disk",
        "sudo swapoff -a && sudo swapon -a (reads the pages back), sudo sysctl vm.swappiness=1",
        swap_used > 0,
    ));
    let nodes = s.numa_nodes.unwrap_or(1);
    out.push(line(
        setting::NUMA_BALANCING,
        format!("{} ({nodes} NUMA node{})", numa_balancing(s), if nodes == 1 { "" } else { "s" }),
        "off where there is more than one node",
        "the kernel moves pages and tasks between nodes during a run: placement a benchmark chose changes under it",
        "sudo sysctl kernel.numa_balancing=0",
        nodes > 1 && s.numa_balancing.is_some_and(|v| v != 0),
    ));
    out.push(line(
        setting::IRQBALANCE,
        irqbalance(s, true),
        "not running",
        "it moves interrupts between CPUs during a run: a pinned thread's CPU starts taking a NIC's or disk's interrupts",
        "sudo systemctl stop irqbalance",
        s.irqbalance_pids.as_ref().is_some_and(|p| !p.is_empty()),
    ));
    let (clock_value, clock_warn, clock_fix) = match &s.clocksource {
        None => ("unknown".to_string(), false, String::new()),
        Some(c) => {
            let cost = c
                .read_ns
                .map(|ns| format!(" ({ns:.0} ns per clock_gettime)"))
                .unwrap_or_default();
            let slow = match c.read_ns {
                Some(ns) => ns >= SLOW_TIMER_NS,
                None => !VDSO_CLOCKSOURCES.contains(&c.current.as_str()),
            };
            let fix = if c.current != "tsc" && c.available.iter().any(|a| a == "tsc") {
                "echo tsc | sudo tee /sys/devices/system/clocksource/clocksource0/current_clocksource".into()
            } else {
                String::new()
            };
            (
                format!("{}{cost}; available {}", c.current, c.available.join(" ")),
                slow,
                fix,
            )
        }
    };
    out.push(line(
        setting::CLOCKSOURCE,
        clock_value,
        &format!("tsc (or another read in user space: under {SLOW_TIMER_NS:.0} ns a read)"),
        "every timed phase reads the clock; hpet and acpi_pm cost a system call and a device read (about 1 µs) each",
        &clock_fix,
        clock_warn,
    ));
    out.push(line(
        setting::HYPERVISOR,
        s.hypervisor.clone().unwrap_or_else(|| "unknown".into()),
        "none, or vCPUs the host does not share",
        "a guest's vCPUs run on host CPUs other guests may use: see steal time",
        "",
        false,
    ));
    if let Some(sample) = sample {
        out.push(line(
            setting::STEAL,
            sample.steal_pct.map_or_else(
                || "unknown (no /proc/stat)".into(),
                |p| format!("{p:.1} % over {:.1} s", sample.window_s),
            ),
            &format!("under {MAX_STEAL_PCT} %"),
            "time the hypervisor gave this guest's vCPUs to others: a benchmark's phases stretch by it",
            "ask for dedicated (pinned) vCPUs, or run when the host is quiet",
            sample.steal_pct.is_some_and(|p| p >= MAX_STEAL_PCT),
        ));
    }
    let online = s.online_cpus.unwrap_or(0);
    let limited = s.cgroup.as_ref().is_some_and(|c| {
        online > 0
            && (c.quota_cpus.is_some_and(|q| q < f64::from(online))
                || c.cpuset_cpus.is_some_and(|n| n < online))
    });
    out.push(line(
        setting::CPU_LIMIT,
        format!("{} of {online} online", cpu_limit(s)),
        "no quota and a cpuset of every online CPU",
        "threads past the limit wait for quota or share CPUs: an `all CPUs` run oversubscribes",
        "run outside the limit (docker --cpus/--cpuset-cpus, systemd CPUQuota=/AllowedCPUs=)",
        limited,
    ));
    let available = s.memory_available_bytes;
    out.push(line(
        setting::MEMORY,
        format!(
            "{} available of {}{}",
            available.map_or_else(|| "unknown".into(), format_bytes),
            s.memory_total_bytes
                .map_or_else(|| "unknown".into(), format_bytes),
            memory_need
                .map(|n| format!("; the quick suite needs {}", format_bytes(n)))
                .unwrap_or_default()
        ),
        "more available than the benchmark's buffers",
        "buffers that do not fit push pages out: the benchmark measures reclaim and swap",
        "stop what holds the memory, or give the benchmark smaller sizes",
        matches!((available, memory_need), (Some(a), Some(n)) if a < n),
    ));
    let hottest = s
        .thermal_zones
        .iter()
        .filter_map(|z| Some((z.temp_c?, z)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let throttled = s
        .throttle
        .as_ref()
        .map_or(0, |t| t.core_events + t.package_events);
    let zones = match hottest {
        Some((t, z)) => format!(
            "{} zone(s), hottest {t:.1} °C ({})",
            s.thermal_zones.len(),
            z.kind
        ),
        None => "no thermal zones".into(),
    };
    let counts = match &s.throttle {
        Some(t) => format!(
            "throttled {} times since boot (core {}, package {}, over {} CPUs)",
            throttled, t.core_events, t.package_events, t.cpus
        ),
        None => "no throttle counts".into(),
    };
    out.push(line(
        setting::THERMAL,
        format!("{zones}; {counts}"),
        "no throttling",
        "a throttled CPU runs below its clock: figures drop while it is hot",
        "check the cooling (fans, airflow, heat sink) before benchmarking",
        throttled > 0,
    ));
    if let Some(sample) = sample {
        let top = sample
            .top
            .iter()
            .map(|p| format!("{} {} {:.1} %", p.pid, p.name, p.cpu_pct))
            .collect::<Vec<_>>()
            .join(", ");
        out.push(line(
            setting::OTHERS,
            match sample.others_cpu_pct.map(|p| p.max(0.0) + 0.0) {
                Some(p) => format!(
                    "{p:.1} % of {online} CPUs over {:.1} s{}",
                    sample.window_s,
                    if top.is_empty() {
                        String::new()
                    } else {
                        format!(": {top}")
                    }
                ),
                None => "unknown (no /proc)".into(),
            },
            &format!("under {MAX_OTHERS_PCT} % of the CPUs"),
            "their CPU time is taken from the benchmark's threads",
            "stop them, or benchmark where nothing else runs",
            sample.others_cpu_pct.is_some_and(|p| p >= MAX_OTHERS_PCT),
        ));
    }
    if let Some(t) = tuned(s) {
        out.push(line(
            setting::TUNED,
            t,
            "what --tune changed, put back at the end of the run",
            "the run's settings are not the host's own",
            "",
            false,
        ));
    }
    out
}
