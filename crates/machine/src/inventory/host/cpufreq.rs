//! The frequency settings: every cpufreq policy (driver, governor, EPP,
//! min/max against the hardware's) and turbo/boost.

use nodebench_core::inventory::host::{Boost, FreqPolicy};

use crate::inventory::sysfs::{numbered_entries, read_number, read_value};
use crate::sysroot::Roots;

/// The cpufreq directory, relative to the sysfs root.
pub const CPUFREQ: &str = "devices/system/cpu/cpufreq";

/// Every `cpufreq/policy*`, by number; empty without a cpufreq driver.
pub fn policies(roots: &Roots) -> Vec<FreqPolicy> {
    numbered_entries(&roots.sys(CPUFREQ), "policy")
        .into_iter()
        .map(|(n, dir)| FreqPolicy {
            name: format!("policy{n}"),
            cpus: read_value(dir.join("affected_cpus"))
                .or_else(|| read_value(dir.join("related_cpus")))
                .map(|t| list_form(&t))
                .unwrap_or_default(),
            driver: read_value(dir.join("scaling_driver")),
            governor: read_value(dir.join("scaling_governor")),
            epp: read_value(dir.join("energy_performance_preference")),
            min_khz: read_number(dir.join("scaling_min_freq")),
            max_khz: read_number(dir.join("scaling_max_freq")),
            hw_min_khz: read_number(dir.join("cpuinfo_min_freq")),
            hw_max_khz: read_number(dir.join("cpuinfo_max_freq")),
        })
        .collect()
}

/// `affected_cpus` is space-separated ("0 1 2 3"); the kernel's list form
/// ("0-3") reads better and is what the rest of nodebench prints.
fn list_form(text: &str) -> String {
    let cpus: Option<Vec<u32>> = text.split_whitespace().map(|w| w.parse().ok()).collect();
    match cpus {
        Some(c) if !c.is_empty() => nodebench_core::cpulist::format(&c),
        _ => text.trim().to_string(),
    }
}

/// Turbo/boost: intel_pstate's `no_turbo` (1 = off), else cpufreq's
/// `boost` (acpi-cpufreq, amd-pstate; 1 = on); `None` where neither exists.
pub fn boost(roots: &Roots) -> Option<Boost> {
    let no_turbo = "devices/system/cpu/intel_pstate/no_turbo";
    if let Some(v) = read_number::<u32>(roots.sys(no_turbo)) {
        return Some(Boost {
            enabled: v == 0,
            file: no_turbo.into(),
        });
    }
    let boost = "devices/system/cpu/cpufreq/boost";
    read_number::<u32>(roots.sys(boost)).map(|v| Boost {
        enabled: v == 1,
        file: boost.into(),
    })
}
