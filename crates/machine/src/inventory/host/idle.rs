//! The cpuidle driver and the deepest idle state enabled on any online CPU
//! (`cpu*/cpuidle/state*/{name,latency,disable}`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use nodebench_core::inventory::host::{CState, IdleState};

use crate::inventory::sysfs::{numbered_entries, read_number, read_value};

/// `None` where the kernel has no cpuidle (no `cpuidle` directory).
pub fn idle(sys_cpu: &std::path::Path, cpu_dirs: &[(u32, PathBuf)]) -> Option<IdleState> {
    let dir = sys_cpu.join("cpuidle");
    if !dir.is_dir() {
        return None;
    }
    // Per state (index, name, exit latency): the CPUs it is enabled on.
    let mut enabled: BTreeMap<(u64, u32, String), Vec<u32>> = BTreeMap::new();
    let mut states = 0;
    for (cpu, path) in cpu_dirs {
        let list = numbered_entries(&path.join("cpuidle"), "state");
        states = states.max(list.len() as u32);
        for (index, state) in list {
            let Some(name) = read_value(state.join("name")) else {
                continue;
            };
            let Some(latency) = read_number::<u64>(state.join("latency")) else {
                continue;
            };
            if read_number::<u32>(state.join("disable")) == Some(0) {
                enabled
                    .entry((latency, index, name))
                    .or_default()
                    .push(*cpu);
            }
        }
    }
    let deepest = enabled
        .into_iter()
        .next_back()
        .map(|((latency, _, name), cpus)| CState {
            name,
            exit_latency_us: latency,
            cpus: nodebench_core::cpulist::format(&cpus),
        });
    Some(IdleState {
        driver: read_value(dir.join("current_driver")),
        governor: read_value(dir.join("current_governor"))
            .or_else(|| read_value(dir.join("current_governor_ro"))),
        deepest,
        states,
    })
}
