//! The inventory differences that change results: each field's values per
//! side, and a warning where more than one value is seen over all runs;
//! the host state's settings (EPP, C-states, SMT, ...) among them.

use std::path::Path;

use nodebench_core::Run;
use nodebench_core::inventory::host::{setting, settings};
use nodebench_core::inventory::{HostState, Inventory};
use nodebench_core::names::{disk, net};

use super::{InventoryWarning, Side, SideValues};

/// Field: the CPU's marketing name.
pub const CPU_MODEL: &str = "CPU model";
/// Field: physical cores and logical CPUs.
pub const CORE_COUNT: &str = "core count";
/// Field: usable RAM.
pub const MEMORY_SIZE: &str = "memory size";
/// Field: kernel release.
pub const KERNEL: &str = "kernel";
/// Field: transparent huge page mode.
pub const THP_MODE: &str = "THP mode";
/// Field: cpufreq governor (every policy's where the run recorded them);
/// the host state's setting of the same name.
pub const GOVERNOR: &str = setting::GOVERNOR;
/// Field: the file system holding the disk benchmarks' directory.
pub const FILE_SYSTEM: &str = "file system of the tested dir";
/// Field: the network results' egress interface MTU.
pub const MTU: &str = "MTU";
/// Field: the nodebench version that made the run.
pub const VERSION: &str = "nodebench version";

/// What a run's field is read from (`None` when the run says nothing).
type Reader = fn(&Run) -> Vec<String>;

/// The compared fields and their readers.
const FIELDS: [(&str, Reader); 9] = [
    (CPU_MODEL, |r| inv(r, |i| opt(&i.cpu.model_name))),
    (CORE_COUNT, |r| inv(r, cores)),
    (MEMORY_SIZE, |r| {
        inv(r, |i| {
            i.memory.total_bytes.map_or_else(unknown, |b| {
                format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
            })
        })
    }),
    (KERNEL, |r| inv(r, |i| opt(&i.os.kernel))),
    (THP_MODE, |r| {
        inv(r, |i| opt(&i.memory.transparent_hugepages))
    }),
    (GOVERNOR, governor),
    (FILE_SYSTEM, file_systems),
    (MTU, mtus),
    (VERSION, |r| vec![r.nodebench_version.clone()]),
];

/// A warning for each field with more than one value over every run: the
/// inventory's fields, then every host-state setting
/// (`nodebench_machine::host::settings`: EPP, deepest C-state, ...) of the
/// runs that recorded one (a run stored before is left out of those).
pub(super) fn inventory_warnings(sides: &[Side]) -> Vec<InventoryWarning> {
    let mut out = Vec::new();
    for (field, read) in FIELDS {
        push_if_differs(&mut out, sides, field, read);
    }
    let names: Vec<&str> = sides
        .iter()
        .flat_map(|s| &s.runs)
        .filter_map(host_of)
        .flat_map(|h| settings(h).into_iter().map(|(n, _)| n))
        .fold(Vec::new(), |mut v, n| {
            if !v.contains(&n) && n != GOVERNOR {
                v.push(n);
            }
            v
        });
    for name in names {
        push_if_differs(&mut out, sides, name, |r: &Run| {
            host_of(r)
                .and_then(|h| settings(h).into_iter().find(|(n, _)| *n == name))
                .map(|(_, v)| v)
                .into_iter()
                .collect()
        });
    }
    out
}

/// A warning for `field` where its values over every run differ.
fn push_if_differs(
    out: &mut Vec<InventoryWarning>,
    sides: &[Side],
    field: &str,
    read: impl Fn(&Run) -> Vec<String>,
) {
    let per_side: Vec<SideValues> = sides
        .iter()
        .map(|s| {
            let mut values: Vec<String> = Vec::new();
            for v in s.runs.iter().flat_map(&read) {
                if !values.contains(&v) {
                    values.push(v);
                }
            }
            SideValues {
                side: s.label.clone(),
                values,
            }
        })
        .collect();
    let mut all: Vec<&String> = per_side.iter().flat_map(|s| &s.values).collect();
    all.sort();
    all.dedup();
    if all.len() > 1 {
        out.push(InventoryWarning {
            field: field.to_string(),
            sides: per_side,
        });
    }
}

fn host_of(run: &Run) -> Option<&HostState> {
    run.inventory.as_ref()?.host.as_ref()
}

/// The governor: every policy's where the run recorded the host state
/// ("performance", or "powersave (CPUs 0-3), performance (CPUs 4-7)"), else
/// CPU 0's from the inventory.
fn governor(run: &Run) -> Vec<String> {
    let every_policy = host_of(run).and_then(|h| {
        settings(h)
            .into_iter()
            .find(|(n, _)| *n == setting::GOVERNOR)
            .map(|(_, v)| v)
            .filter(|_| !h.policies.is_empty())
    });
    match every_policy {
        Some(v) => vec![v],
        None => inv(run, |i| opt(&i.cpu.governor)),
    }
}

fn unknown() -> String {
    "unknown".to_string()
}

fn opt(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(unknown)
}

/// The run's inventory field, `unknown` without an inventory.
fn inv(run: &Run, f: impl Fn(&Inventory) -> String) -> Vec<String> {
    vec![run.inventory.as_ref().map_or_else(unknown, f)]
}

fn cores(i: &Inventory) -> String {
    let physical = i.cpu.physical_cores.map_or_else(unknown, |c| c.to_string());
    format!("{physical} cores / {} CPUs", i.cpu.logical_cpus)
}

/// The file system of each disk result's directory: the mount with the
/// longest mount point holding it.
fn file_systems(run: &Run) -> Vec<String> {
    run.results
        .iter()
        .filter_map(|r| r.param(disk::param::DIR)?.as_str())
        .map(|dir| {
            let mount = run.inventory.as_ref().and_then(|i| {
                i.filesystems
                    .iter()
                    .filter(|f| Path::new(dir).starts_with(&f.mount_point))
                    .max_by_key(|f| f.mount_point.len())
            });
            match mount {
                Some(f) => format!("{} on {}", f.fs_type, f.mount_point),
                None => format!("unknown ({dir})"),
            }
        })
        .collect()
}

/// The MTU each network result recorded for its egress interface.
fn mtus(run: &Run) -> Vec<String> {
    run.results
        .iter()
        .filter_map(|r| r.param(net::param::MTU))
        .map(|v| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}
