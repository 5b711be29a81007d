//! Every reader on the recorded and built host trees, value by value.

use std::time::Duration;

use nodebench_core::inventory::host::*;

use super::*;

fn tree(name: &str) -> (tempfile::TempDir, Roots) {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write(name, dir.path()).unwrap();
    let roots = Roots::under(dir.path());
    (dir, roots)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

fn verdicts(lines: &[CheckLine]) -> Vec<(&str, Verdict)> {
    lines
        .iter()
        .map(|l| (l.setting.as_str(), l.verdict))
        .collect()
}

fn warned(lines: &[CheckLine]) -> Vec<&str> {
    lines
        .iter()
        .filter(|l| l.verdict == Verdict::Warn)
        .map(|l| l.setting.as_str())
        .collect()
}

#[test]
fn the_healthy_host_reads_exactly() {
    let (_d, roots) = tree("healthy");
    let s = read(&roots);
    assert_eq!(s.online_cpus, Some(16));
    assert_eq!(s.numa_nodes, Some(2));
    assert_eq!(s.policies.len(), 16);
    assert_eq!(
        s.policies[3],
        FreqPolicy {
            name: "policy3".into(),
            cpus: "3".into(),
            driver: Some("intel_pstate".into()),
            governor: Some("performance".into()),
            epp: Some("performance".into()),
            min_khz: Some(800_000),
            max_khz: Some(3_400_000),
            hw_min_khz: Some(800_000),
            hw_max_khz: Some(3_400_000),
        }
    );
    assert_eq!(
        s.boost,
        Some(Boost {
            enabled: true,
            file: "devices/system/cpu/intel_pstate/no_turbo".into()
        })
    );
    assert_eq!(
        s.idle,
        Some(IdleState {
            driver: Some("intel_idle".into()),
            governor: Some("menu".into()),
            deepest: Some(CState {
                name: "C1E".into(),
                exit_latency_us: 10,
                cpus: "0-15".into()
            }),
            states: 4,
        })
    );
    assert_eq!(s.smt_control.as_deref(), Some("on"));
    assert_eq!(s.thp_enabled.as_deref(), Some("madvise"));
    assert_eq!(s.thp_defrag.as_deref(), Some("madvise"));
    assert_eq!(s.swap_total_bytes, Some(8_388_604 * 1024));
    assert_eq!(s.swap_used_bytes, Some(0));
    assert_eq!((s.swappiness, s.numa_balancing), (Some(10), Some(0)));
    assert_eq!(s.irqbalance_pids, Some(vec![]));
    assert_eq!(
        s.clocksource,
        Some(Clocksource {
            current: "tsc".into(),
            available: vec!["tsc".into(), "hpet".into(), "acpi_pm".into()],
            read_ns: None,
        })
    );
    assert_eq!(s.hypervisor.as_deref(), Some("none"));
    assert_eq!(
        s.cgroup,
        Some(CgroupCpu {
            version: 2,
            path: "/system.slice/bench.service".into(),
            quota_cpus: None,
            quota: None,
            cpuset: Some("0-15".into()),
            cpuset_cpus: Some(16),
        })
    );
    assert_eq!(s.memory_total_bytes, Some(263_846_912 * 1024));
    assert_eq!(s.memory_available_bytes, Some(250_000_000 * 1024));
    assert_eq!(s.thermal_zones.len(), 2);
    assert_eq!(s.thermal_zones[1].kind, "x86_pkg_temp");
    assert_eq!(s.thermal_zones[1].temp_c, Some(43.0));
    assert_eq!(
        s.throttle,
        Some(Throttle {
            core_events: 0,
            package_events: 0,
            cpus: 16
        })
    );
    let sample = sample(&roots, Duration::from_secs(1));
    assert!(close(sample.window_s, 1.0));
    assert_eq!(sample.steal_pct, Some(0.0));
    assert_eq!(sample.others_cpu_pct, Some(0.0));
    assert!(sample.top.is_empty());
    let lines = judge(&s, Some(&sample), Some(2 << 30));
    assert_eq!(lines.len(), 18);
    assert_eq!(warned(&lines), Vec::<&str>::new(), "{lines:#?}");
}

#[test]
fn the_powersave_host_warns_where_it_differs() {
    let (_d, roots) = tree("powersave");
    let s = read(&roots);
    assert_eq!(s.policies[0].governor.as_deref(), Some("powersave"));
    assert_eq!(s.policies[15].epp.as_deref(), Some("balance_power"));
    assert_eq!(s.policies[15].max_khz, Some(2_600_000));
    let deepest = s.idle.as_ref().unwrap().deepest.clone().unwrap();
    assert_eq!(
        (deepest.name.as_str(), deepest.exit_latency_us),
        ("C6", 170)
    );
    assert_eq!(s.thp_defrag.as_deref(), Some("always"));
    assert_eq!((s.swappiness, s.numa_balancing), (Some(60), Some(1)));
    assert_eq!(s.irqbalance_pids, Some(vec![911]));
    assert_eq!(s.throttle.as_ref().unwrap().core_events, 3);
    let lines = judge(&s, None, None);
    assert_eq!(
        warned(&lines),
        vec![
            setting::GOVERNOR,
            setting::EPP,
            setting::FREQ_RANGE,
            setting::CSTATE,
            setting::THP,
            setting::NUMA_BALANCING,
            setting::IRQBALANCE,
            setting::THERMAL,
        ]
    );
    let by = |name: &str| lines.iter().find(|l| l.setting == name).unwrap();
    assert_eq!(by(setting::GOVERNOR).value, "powersave");
    assert_eq!(by(setting::EPP).value, "balance_power");
    assert_eq!(
        by(setting::FREQ_RANGE).value,
        "800-2600 MHz of the hardware's 800-3400 MHz"
    );
    assert_eq!(
        by(setting::CSTATE).value,
        "C6 (170 µs exit latency) on CPUs 0-15; driver intel_idle, governor menu"
    );
    assert_eq!(by(setting::IRQBALANCE).value, "running (pid 911)");
    assert_eq!(
        by(setting::THERMAL).value,
        "2 zone(s), hottest 55.0 °C (x86_pkg_temp); throttled 3 times since boot (core 3, package 0, over 16 CPUs)"
    );
    assert!(by(setting::GOVERNOR).fix.contains("--tune"));
}

#[test]
fn policies_that_disagree_are_grouped_by_cpus() {
    let (_d, roots) = tree("healthy");
    let mut s = read(&roots);
    for p in &mut s.policies[4..8] {
        p.governor = Some("powersave".into());
    }
    let lines = judge(&s, None, None);
    let gov = lines
        .iter()
        .find(|l| l.setting == setting::GOVERNOR)
        .unwrap();
    assert_eq!(
        gov.value,
        "performance (CPUs 0-3,8-15), powersave (CPUs 4-7)"
    );
    assert_eq!(gov.verdict, Verdict::Warn);
}

#[test]
fn the_cgroup_v2_container_is_limited_to_two_cpus() {
    let (_d, roots) = tree("container-v2");
    let s = read(&roots);
    assert_eq!(
        s.cgroup,
        Some(CgroupCpu {
            version: 2,
            path: "/".into(),
            quota_cpus: Some(2.0),
            quota: Some("200000 100000".into()),
            cpuset: Some("4-5".into()),
            cpuset_cpus: Some(2),
        })
    );
    assert_eq!(s.online_cpus, Some(16));
    assert!(s.policies.is_empty());
    assert_eq!(s.idle, None);
    assert_eq!(s.hypervisor.as_deref(), Some("unknown hypervisor"));
    assert_eq!(s.clocksource.as_ref().unwrap().current, "kvm-clock");
    let sample = sample(&roots, Duration::from_secs(1));
    assert_eq!(sample.steal_pct, Some(5.0));
    let lines = judge(&s, Some(&sample), None);
    assert_eq!(warned(&lines), vec![setting::STEAL, setting::CPU_LIMIT]);
    let limit = lines
        .iter()
        .find(|l| l.setting == setting::CPU_LIMIT)
        .unwrap();
    assert_eq!(
        limit.value,
        "cgroup v2 /: quota 2.00 CPUs (200000 100000), cpuset 4-5 (2 CPUs) of 16 online"
    );
    // No cpufreq: nothing to warn about, and said so.
    let gov = lines
        .iter()
        .find(|l| l.setting == setting::GOVERNOR)
        .unwrap();
    assert_eq!(
        (gov.value.as_str(), gov.verdict),
        ("none (no cpufreq driver)", Verdict::Ok)
    );
}

#[test]
fn the_cgroup_v1_container_is_limited_to_one_and_a_half_cpus() {
    let (_d, roots) = tree("container-v1");
    let s = read(&roots);
    assert_eq!(
        s.cgroup,
        Some(CgroupCpu {
            version: 1,
            path: "/docker/4f2a".into(),
            quota_cpus: Some(1.5),
            quota: Some("150000/100000".into()),
            cpuset: Some("0-3".into()),
            cpuset_cpus: Some(4),
        })
    );
    let lines = judge(&s, None, None);
    assert_eq!(warned(&lines), vec![setting::CPU_LIMIT]);
}

#[test]
fn the_busy_recorded_guest_shows_its_other_processes() {
    let (_d, roots) = tree("busy-kvm2");
    let s = read(&roots);
    assert_eq!(s.online_cpus, Some(2));
    assert_eq!(s.numa_nodes, Some(1));
    assert!(s.policies.is_empty());
    assert_eq!(s.boost, None);
    assert_eq!(
        s.idle,
        Some(IdleState {
            driver: Some("haltpoll".into()),
            governor: Some("haltpoll".into()),
            deepest: Some(CState {
                name: "haltpoll idle".into(),
                exit_latency_us: 1,
                cpus: "0-1".into()
            }),
            states: 2,
        })
    );
    assert_eq!(s.smt_control.as_deref(), Some("notsupported"));
    assert_eq!((s.swap_total_bytes, s.swap_used_bytes), (Some(0), Some(0)));
    assert_eq!(s.memory_available_bytes, Some(21_132_044 * 1024));
    assert_eq!(
        s.cgroup,
        Some(CgroupCpu {
            version: 1,
            path: "/".into(),
            quota_cpus: None,
            quota: None,
            cpuset: Some("0-1".into()),
            cpuset_cpus: Some(2),
        })
    );
    assert_eq!(s.hypervisor.as_deref(), Some("unknown hypervisor"));
    assert_eq!(s.thermal_zones, vec![]);
    assert_eq!(s.throttle, None);
    let sample = sample(&roots, Duration::from_secs(1));
    // /proc/uptime 7708.46 -> 7709.52; /proc/stat: 212 jiffies, 1 of them
    // steal; 201 ticks of other processes.
    assert!(close(sample.window_s, 1.06), "{}", sample.window_s);
    assert!(close(sample.steal_pct.unwrap(), 100.0 / 212.0));
    assert!(close(sample.others_cpu_pct.unwrap(), 201.0 / 2.12));
    let top: Vec<(u32, &str)> = sample
        .top
        .iter()
        .map(|p| (p.pid, p.name.as_str()))
        .collect();
    assert_eq!(
        top,
        vec![
            (29427, "rustc"),
            (29564, "hog"),
            (25356, "rustc"),
            (26675, "rustc"),
            (28597, "rustc")
        ]
    );
    assert!(close(sample.top[1].cpu_pct, 28.0 / 1.06));
    let lines = judge(&s, Some(&sample), None);
    assert_eq!(warned(&lines), vec![setting::OTHERS]);
    let others = lines.iter().find(|l| l.setting == setting::OTHERS).unwrap();
    assert!(
        others
            .value
            .starts_with("94.8 % of 2 CPUs over 1.1 s: 29427 rustc 27.4 %, 29564 hog 26.4 %"),
        "{}",
        others.value
    );
    assert_eq!(verdicts(&lines).len(), 18);
}

#[test]
fn compare_settings_leave_out_what_varies() {
    let (_d, roots) = tree("powersave");
    let s = read(&roots);
    let names: Vec<&str> = settings(&s).iter().map(|(n, _)| *n).collect();
    assert!(!names.contains(&setting::MEMORY) && !names.contains(&setting::THERMAL));
    let value = |n: &str| settings(&s).into_iter().find(|(k, _)| *k == n).unwrap().1;
    assert_eq!(value(setting::CSTATE), "C6 (170 µs exit latency)");
    assert_eq!(value(setting::EPP), "balance_power");
    assert_eq!(value(setting::IRQBALANCE), "running");
    assert_eq!(value(setting::TUNED), "no");
}

#[test]
fn the_live_machine_reads_within_milliseconds() {
    let roots = Roots::default();
    read(&roots);
    let start = std::time::Instant::now();
    let s = read(&roots);
    let took = start.elapsed();
    assert!(s.online_cpus.is_some());
    assert!(s.clocksource.as_ref().is_none_or(|c| c.read_ns.is_some()));
    // Under qemu-user (the CI's aarch64 check: an x86 host's cpuinfo under
    // an aarch64 binary) every instruction is emulated, and the time says
    // nothing of the code.
    let emulated = std::fs::read_to_string("/proc/cpuinfo")
        .is_ok_and(|c| (std::env::consts::ARCH == "aarch64") == c.contains("vendor_id"));
    if !emulated {
        assert!(took < Duration::from_millis(50), "{took:?}");
    }
}

/// `--tune` on the powersave tree: every policy's EPP and governor set to
/// performance and recorded, every file holding its exact old text after
/// restore (and after drop).
#[test]
fn tune_sets_and_puts_back_every_file() {
    let (dir, roots) = tree("powersave");
    let before = snapshot(dir.path());
    let dma = tune::dma_latency_path(&roots);
    assert_eq!(dma, dir.path().join("dev/cpu_dma_latency"));
    let mut t = tune::Tuned::apply(&roots, &dma).unwrap();
    let rec = t.record().clone();
    assert_eq!(rec.changes.len(), 32);
    assert_eq!(
        rec.changes[0],
        TuneChange {
            file: "devices/system/cpu/cpufreq/policy0/energy_performance_preference".into(),
            from: "balance_power".into(),
            to: "performance".into(),
        }
    );
    assert_eq!(
        rec.changes[1].file,
        "devices/system/cpu/cpufreq/policy0/scaling_governor"
    );
    assert_eq!(
        rec.notes,
        vec![format!(
            "no {}: idle states left as they are",
            dma.display()
        )]
    );
    let tuned = read(&roots);
    assert!(
        tuned
            .policies
            .iter()
            .all(|p| p.governor.as_deref() == Some("performance")
                && p.epp.as_deref() == Some("performance"))
    );
    assert_eq!(t.restore(), Vec::<String>::new());
    assert_eq!(snapshot(dir.path()), before);
    // Drop after restore writes nothing more; a second tune on the
    // restored tree, dropped, puts back the same.
    drop(t);
    let t = tune::Tuned::apply(&roots, &dma).unwrap();
    assert_ne!(snapshot(dir.path()), before);
    drop(t);
    assert_eq!(snapshot(dir.path()), before);
    // The signal handler's restore does the same with open/write/close.
    let t = tune::Tuned::apply(&roots, &dma).unwrap();
    t.signal_restore().run();
    assert_eq!(snapshot(dir.path()), before);
    drop(t);
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn tune_changes_nothing_on_a_tuned_host_and_holds_the_dma_latency_file() {
    let (dir, roots) = tree("healthy");
    let dma = dir.path().join("dev/cpu_dma_latency");
    std::fs::create_dir_all(dma.parent().unwrap()).unwrap();
    std::fs::write(&dma, b"").unwrap();
    let t = tune::Tuned::apply(&roots, &dma).unwrap();
    assert!(t.record().changes.is_empty());
    assert_eq!(
        t.record().notes,
        vec![format!(
            "{} held at 0 µs for the run (released at its end)",
            dma.display()
        )]
    );
    assert_eq!(std::fs::read(&dma).unwrap(), 0i32.to_ne_bytes());
}

/// Every file under `root` with its bytes.
fn snapshot(root: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}
