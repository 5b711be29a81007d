//! Hosts as `/sys` and `/proc` trees for the host-state tests (feature
//! `fixtures`): a map from each file's path to its text, written under a
//! root as `root/sys/...`, `root/proc/...` and `root/proc+1s/...` (the
//! second reading of `/proc` a second later: see [`super::SECOND_READING`]).
//!
//! - `busy-kvm2`: recorded on the 2-vCPU KVM guest nodebench is developed
//!   on, while a copy of `yes` named `hog` ran beside four engineers'
//!   builds: haltpoll cpuidle, no cpufreq, cgroup v1 without limits, the
//!   other processes at 94.8 % of both CPUs.
//! - `healthy`: a 16-CPU, 2-node Xeon host built in the kernel's documented
//!   layout (Documentation/ABI/testing/sysfs-devices-system-cpu,
//!   admin-guide/pm/intel_pstate.rst, admin-guide/cgroup-v2.rst) as a
//!   benchmark wants it: intel_pstate performance with EPP performance,
//!   C6 disabled (C1E deepest, 10 µs), THP madvise, swap unused,
//!   swappiness 10, NUMA balancing off, no irqbalance, tsc, a cgroup v2
//!   service without quota, no throttling, nothing else running.
//! - `powersave`: the same host left as it came: powersave, EPP
//!   balance_power, the maximum capped at 2600 of 3400 MHz, C6 (170 µs)
//!   enabled, THP defrag always, NUMA balancing on, irqbalance running, 3
//!   core throttle events.
//! - `container-v2`: a Kubernetes container on a 16-vCPU KVM guest
//!   (cgroup namespace, `cpu.max` 200000 100000, cpuset 4-5), kvm-clock,
//!   1 s of steal in the second.
//! - `container-v1`: a Docker container on cgroup v1 (`cpu,cpuacct`
//!   quota 150000/100000, cpuset 0-3) on the same guest.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The trees [`write`] knows.
pub const NAMES: [&str; 5] = [
    "busy-kvm2",
    "healthy",
    "powersave",
    "container-v2",
    "container-v1",
];

/// Writes the tree `name` (one of [`NAMES`]) under `root`.
pub fn write(name: &str, root: &Path) -> Result<(), crate::Error> {
    let json = match name {
        "busy-kvm2" => include_str!("fixtures/busy-kvm2.json"),
        "healthy" => include_str!("fixtures/healthy.json"),
        "powersave" => include_str!("fixtures/powersave.json"),
        "container-v2" => include_str!("fixtures/container-v2.json"),
        "container-v1" => include_str!("fixtures/container-v1.json"),
        _ => return Err(crate::Error::Io(format!("no host tree named {name}"))),
    };
    let files: BTreeMap<String, String> = serde_json::from_str(json)
        .map_err(|e| crate::Error::Io(format!("host tree {name}: {e}")))?;
    for (path, text) in files {
        let p = root.join(path.trim_start_matches('/'));
        fs::create_dir_all(p.parent().expect("a path under the root"))
            .map_err(|e| crate::Error::Io(format!("{}: {e}", p.display())))?;
        fs::write(&p, text).map_err(|e| crate::Error::Io(format!("{}: {e}", p.display())))?;
    }
    Ok(())
}
