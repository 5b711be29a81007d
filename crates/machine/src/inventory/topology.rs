//! Reads the machine's layout ([`Topology`]) from sysfs under [`Roots`]:
//! `cpu/online`, `cpuN/topology/*`, `cpuN/cache/indexK/*`, `node/online`,
//! `nodeN/{cpulist,meminfo,distance}` and EDAC's
//! `edac/mc/mcN/dimmM/*`. A part the files do not tell is unknown
//! (`None`), never guessed.

use std::collections::{BTreeMap, BTreeSet};

use nodebench_core::cpulist;
use nodebench_core::inventory::topology::{CacheGroup, Core, Dimm, NumaNode, Package, Topology};

use super::cache::parse_cache_size;
use super::sysfs::{numbered_entries, parse_cpu_list, read_number, read_text, read_value};
use crate::sysroot::Roots;

/// A cache instance while collecting: level, type rank, type, CPUs, size.
type CacheKey = (u32, u32, String, Vec<u32>, Option<u64>);

/// Reads the topology under `roots`; `None` where sysfs lists no online CPU
/// with a topology directory.
pub fn collect_topology(roots: &Roots) -> Option<Topology> {
    let sys_cpu = roots.sys("devices/system/cpu");
    let online = read_value(sys_cpu.join("online")).and_then(|t| parse_cpu_list(&t))?;
    let mut packages: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut cores: BTreeMap<Vec<u32>, (u32, u32)> = BTreeMap::new();
    let mut caches: BTreeSet<CacheKey> = BTreeSet::new();
    for &cpu in &online {
        let dir = sys_cpu.join(format!("cpu{cpu}"));
        let topo = dir.join("topology");
        let package: i64 = read_number(topo.join("physical_package_id"))?;
        // Arm without package information says -1: one package.
        let package = u32::try_from(package).unwrap_or(0);
        packages.entry(package).or_default().push(cpu);
        let core_id: i64 = read_number(topo.join("core_id"))?;
        let siblings = read_value(topo.join("core_cpus_list"))
            .or_else(|| read_value(topo.join("thread_siblings_list")))
            .and_then(|t| parse_cpu_list(&t))
            .filter(|s| s.contains(&cpu))
            .unwrap_or_else(|| vec![cpu]);
        let siblings: Vec<u32> = siblings
            .into_iter()
            .filter(|c| online.contains(c))
            .collect();
        cores
            .entry(siblings)
            .or_insert((package, u32::try_from(core_id).unwrap_or(0)));
        for (_, index) in numbered_entries(&dir.join("cache"), "index") {
            let (Some(level), Some(kind)) = (
                read_number::<u32>(index.join("level")),
                read_value(index.join("type")),
            ) else {
                continue;
            };
            let Some(shared) = read_value(index.join("shared_cpu_list"))
                .and_then(|t| parse_cpu_list(&t))
                .filter(|s| !s.is_empty())
            else {
                continue;
            };
            let shared: Vec<u32> = shared.into_iter().filter(|c| online.contains(c)).collect();
            let size = read_value(index.join("size")).and_then(|s| parse_cache_size(&s));
            let rank = kind_rank(&kind);
            caches.insert((level, rank, kind, shared, size));
        }
    }
    let mut cores: Vec<Core> = cores
        .into_iter()
        .map(|(cpus, (package, id))| Core {
            package,
            id,
            cpus: cpulist::format(&cpus),
        })
        .collect();
    cores.sort_by_key(|c| first_cpu(&c.cpus));
    let mut caches: Vec<CacheGroup> = caches
        .into_iter()
        .map(|(level, _, kind, cpus, size_bytes)| CacheGroup {
            level,
            kind,
            size_bytes,
            cpus: cpulist::format(&cpus),
        })
        .collect();
    caches.sort_by_key(|c| (c.level, kind_rank(&c.kind), first_cpu(&c.cpus)));
    Some(Topology {
        cpus: cpulist::format(&online),
        packages: packages
            .into_iter()
            .map(|(id, cpus)| Package {
                id,
                cpus: cpulist::format(&cpus),
            })
            .collect(),
        cores,
        caches,
        numa_nodes: collect_nodes(roots),
        dimms: collect_dimms(roots),
    })
}

fn kind_rank(kind: &str) -> u32 {
    match kind {
        "Data" => 0,
        "Instruction" => 1,
        "Unified" => 2,
        _ => 3,
    }
}

fn first_cpu(list: &str) -> u32 {
    cpulist::parse(list)
        .and_then(|l| l.first().copied())
        .unwrap_or(u32::MAX)
}

/// The NUMA nodes: from `node/online` (else every `nodeN` directory).
fn collect_nodes(roots: &Roots) -> Option<Vec<NumaNode>> {
    let dir = roots.sys("devices/system/node");
    let ids: Vec<u32> = match read_value(dir.join("online")).and_then(|t| parse_cpu_list(&t)) {
        Some(ids) if !ids.is_empty() => ids,
        _ => numbered_entries(&dir, "node")
            .into_iter()
            .map(|(n, _)| n)
            .collect(),
    };
    if ids.is_empty() {
        return None;
    }
    let nodes = ids
        .iter()
        .map(|&id| {
            let node = dir.join(format!("node{id}"));
            NumaNode {
                id,
                cpus: read_value(node.join("cpulist"))
                    .and_then(|t| parse_cpu_list(&t))
                    .map(|l| cpulist::format(&l))
                    .unwrap_or_default(),
                memory_bytes: read_text(node.join("meminfo")).and_then(|t| parse_node_memtotal(&t)),
                distances: read_value(node.join("distance"))
                    .map(|t| {
                        t.split_whitespace()
                            .filter_map(|d| d.parse().ok())
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect();
    Some(nodes)
}

/// `Node 0 MemTotal:  65536000 kB` in a node's meminfo, in bytes.
fn parse_node_memtotal(text: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        if !key.trim_end().ends_with("MemTotal") {
            return None;
        }
        let kb: u64 = value.split_whitespace().next()?.parse().ok()?;
        kb.checked_mul(1024)
    })
}

/// EDAC's DIMMs: `mc/mcN/dimmM/{size,dimm_label,dimm_location,dimm_mem_type}`.
fn collect_dimms(roots: &Roots) -> Option<Vec<Dimm>> {
    let mc = roots.sys("devices/system/edac/mc");
    if !mc.is_dir() {
        return None;
    }
    let mut out = Vec::new();
    for (controller, dir) in numbered_entries(&mc, "mc") {
        for (slot, dimm) in numbered_entries(&dir, "dimm") {
            out.push(Dimm {
                controller,
                slot,
                size_bytes: read_number::<u64>(dimm.join("size"))
                    .filter(|mib| *mib > 0)
                    .and_then(|mib| mib.checked_mul(1 << 20)),
                label: read_value(dimm.join("dimm_label")),
                location: read_value(dimm.join("dimm_location")),
                memory_type: read_value(dimm.join("dimm_mem_type")),
            });
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_node_meminfo() {
        let text = "Node 3 MemTotal:       131596288 kB\nNode 3 MemFree:        1 kB\n";
        assert_eq!(parse_node_memtotal(text), Some(131_596_288 * 1024));
        assert_eq!(parse_node_memtotal("Node 0 MemFree: 5 kB\n"), None);
        assert_eq!(parse_node_memtotal(""), None);
    }

    #[test]
    fn an_empty_root_is_unknown() {
        let root = std::env::temp_dir().join(format!("nb-topo-empty-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        assert_eq!(collect_topology(&Roots::under(&root)), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
