//! The topology of every tree in `fixtures::trees`, exactly as the tree
//! says: packages, NUMA nodes with CPUs, memory and distances, cores and
//! SMT siblings, caches with their sharing CPUs, DIMMs.

use std::path::PathBuf;

use super::cpu::collect_cpu_at;
use super::cpuid::CpuidProbe;
use super::fixtures::trees;
use super::topology::collect_topology;
use crate::sysroot::Roots;
use nodebench_core::cpulist;
use nodebench_core::inventory::Topology;

struct Tree(PathBuf);

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Each call gets its own directory: two tests that write the same tree
/// run in parallel, and one's `Drop` must not remove the other's.
fn tree(name: &str) -> Tree {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let root = std::env::temp_dir().join(format!("nb-tree-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    trees::write(name, &root).unwrap();
    Tree(root)
}

fn topology(name: &str) -> (Topology, nodebench_core::inventory::CpuInfo) {
    let t = tree(name);
    let roots = Roots::under(&t.0);
    let topo = collect_topology(&roots).expect("a topology");
    let cpu = collect_cpu_at(&roots, CpuidProbe::default(), "x86_64");
    (topo, cpu)
}

/// (level, kind, size, number of instances, CPUs of the first).
fn caches_summary(t: &Topology) -> Vec<(u32, String, u64, usize, String)> {
    let mut out: Vec<(u32, String, u64, usize, String)> = Vec::new();
    for c in &t.caches {
        match out
            .iter_mut()
            .find(|o| o.0 == c.level && o.1 == c.kind && Some(o.2) == c.size_bytes)
        {
            Some(o) => o.3 += 1,
            None => out.push((
                c.level,
                c.kind.clone(),
                c.size_bytes.unwrap(),
                1,
                c.cpus.clone(),
            )),
        }
    }
    out
}

fn distances(t: &Topology) -> Vec<Vec<u32>> {
    t.numa_nodes
        .iter()
        .flatten()
        .map(|n| n.distances.clone())
        .collect()
}

#[test]
fn epyc_two_sockets_nps4_has_eight_nodes_of_sixteen_cores() {
    let (t, cpu) = topology("epyc-2x64-nps4");
    assert_eq!(t.cpus, "0-255");
    assert_eq!(t.packages.len(), 2);
    assert_eq!(t.packages[0].cpus, "0-63,128-191");
    assert_eq!(t.packages[1].cpus, "64-127,192-255");
    assert_eq!(t.cores.len(), 128);
    assert_eq!(t.cores[0].cpus, "0,128");
    assert_eq!(t.cores[127].cpus, "127,255");
    assert_eq!((t.cores[127].package, t.cores[127].id), (1, 63));
    let nodes = t.numa_nodes.as_ref().unwrap();
    assert_eq!(nodes.len(), 8);
    assert_eq!(nodes[0].cpus, "0-15,128-143");
    assert_eq!(nodes[5].cpus, "80-95,208-223");
    assert!(nodes.iter().all(|n| n.memory_bytes == Some(128 << 30)));
    assert_eq!(t.memory_bytes(), Some(1 << 40));
    let d = distances(&t);
    assert_eq!(d[0], vec![10, 12, 12, 12, 32, 32, 32, 32]);
    assert_eq!(d[6], vec![32, 32, 32, 32, 12, 12, 10, 12]);
    let caches = caches_summary(&t);
    let k = 1 << 10;
    assert_eq!(
        caches,
        vec![
            (1, "Data".into(), 32 * k, 128, "0,128".into()),
            (1, "Instruction".into(), 32 * k, 128, "0,128".into()),
            (2, "Unified".into(), 512 * k, 128, "0,128".into()),
            (3, "Unified".into(), 32 << 20, 16, "0-7,128-135".into()),
        ]
    );
    assert_eq!(t.dimms, None);
    // The inventory's counts agree with the topology.
    assert_eq!(cpu.logical_cpus, 256);
    assert_eq!(cpu.sockets, Some(2));
    assert_eq!(cpu.physical_cores, Some(128));
    assert_eq!(cpu.threads_per_core, Some(2));
    assert_eq!(cpu.numa_nodes, Some(8));
    assert_eq!(
        cpu.model_name.as_deref(),
        Some("AMD EPYC 7763 64-Core Processor")
    );
}

#[test]
fn sapphire_rapids_snc2_has_an_l3_spanning_two_nodes_and_a_missing_dimm() {
    let (t, cpu) = topology("spr-2x56-snc2");
    assert_eq!(t.cpus, "0-223");
    assert_eq!(t.packages.len(), 2);
    assert_eq!(t.packages[1].cpus, "56-111,168-223");
    assert_eq!(t.cores.len(), 112);
    assert_eq!(t.cores[1].cpus, "1,113");
    let nodes = t.numa_nodes.as_ref().unwrap();
    let cpus: Vec<&str> = nodes.iter().map(|n| n.cpus.as_str()).collect();
    assert_eq!(
        cpus,
        [
            "0-27,112-139",
            "28-55,140-167",
            "56-83,168-195",
            "84-111,196-223"
        ]
    );
    assert_eq!(
        distances(&t),
        vec![
            vec![10, 12, 21, 21],
            vec![12, 10, 21, 21],
            vec![21, 21, 10, 12],
            vec![21, 21, 12, 10],
        ]
    );
    let l3: Vec<&str> = t
        .caches
        .iter()
        .filter(|c| c.level == 3)
        .map(|c| c.cpus.as_str())
        .collect();
    assert_eq!(l3, ["0-55,112-167", "56-111,168-223"]);
    assert_eq!(
        t.caches.iter().find(|c| c.level == 3).unwrap().size_bytes,
        Some(105 << 20)
    );
    assert_eq!(t.caches.iter().filter(|c| c.level == 2).count(), 112);
    let dimms = t.dimms.as_ref().unwrap();
    assert_eq!(dimms.len(), 15);
    assert_eq!(
        dimms.iter().filter(|d| d.controller == 5).count(),
        1,
        "mc5 holds one DIMM"
    );
    assert!(dimms.iter().all(|d| d.size_bytes == Some(32 << 30)));
    assert_eq!(
        dimms[0].label.as_deref(),
        Some("CPU_SrcID#0_MC#0_Chan#0_DIMM#0")
    );
    assert_eq!(dimms[0].memory_type.as_deref(), Some("Registered-DDR5"));
    assert_eq!(cpu.sockets, Some(2));
    assert_eq!(cpu.physical_cores, Some(112));
    assert_eq!(cpu.numa_nodes, Some(4));
}

#[test]
fn grace_has_one_cpu_node_and_a_memory_only_node() {
    let (t, cpu) = topology("grace-72");
    assert_eq!(t.cpus, "0-71");
    assert_eq!(t.packages.len(), 1);
    assert_eq!(t.cores.len(), 72);
    assert!(
        t.cores
            .iter()
            .all(|c| cpulist::parse(&c.cpus).unwrap().len() == 1)
    );
    let nodes = t.numa_nodes.as_ref().unwrap();
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[0].cpus, "0-71");
    assert_eq!(nodes[1].cpus, "");
    assert_eq!(nodes[1].memory_bytes, Some(96 << 30));
    assert_eq!(t.cpu_nodes().len(), 1);
    assert_eq!(distances(&t), vec![vec![10, 80], vec![80, 10]]);
    let caches = caches_summary(&t);
    assert_eq!(
        caches[3],
        (3, "Unified".into(), 114 << 20, 1, "0-71".into())
    );
    assert_eq!(cpu.logical_cpus, 72);
    assert_eq!(cpu.numa_nodes, Some(2));
}

#[test]
fn recorded_emerald_rapids_guest_shows_sixteen_single_thread_cores() {
    let (t, cpu) = topology("emr16");
    assert_eq!(t.cpus, "0-15");
    assert_eq!(t.packages.len(), 1);
    assert_eq!(t.cores.len(), 16);
    assert!(t.cores.iter().all(|c| !c.cpus.contains(',')));
    let nodes = t.numa_nodes.as_ref().unwrap();
    assert_eq!(nodes.len(), 1);
    assert_eq!(nodes[0].cpus, "0-15");
    assert_eq!(nodes[0].memory_bytes, Some(4_550_128 * 1024));
    assert_eq!(nodes[0].distances, vec![10]);
    let caches = caches_summary(&t);
    assert_eq!(
        caches.last().unwrap(),
        &(3, "Unified".into(), 300 << 20, 1, "0-15".into())
    );
    assert_eq!(cpu.logical_cpus, 16);
    assert_eq!(cpu.physical_cores, Some(16));
}

#[test]
fn recorded_development_guest_shows_two_cpus() {
    let (t, _) = topology("kvm2");
    assert_eq!(t.cpus, "0-1");
    assert_eq!(t.cores.len(), 2);
    let nodes = t.numa_nodes.as_ref().unwrap();
    assert_eq!((nodes.len(), nodes[0].cpus.as_str()), (1, "0-1"));
    assert_eq!(nodes[0].memory_bytes, Some(19_883_804 * 1024));
    let caches = caches_summary(&t);
    assert_eq!(caches[2], (2, "Unified".into(), 1 << 20, 2, "0".into()));
    assert_eq!(
        caches[3],
        (3, "Unified".into(), 36608 << 10, 1, "0-1".into())
    );
}

#[test]
fn a_tree_without_nodes_or_edac_says_unknown() {
    let t = tree("emr16");
    std::fs::remove_dir_all(t.0.join("sys/devices/system/node")).unwrap();
    let topo = collect_topology(&Roots::under(&t.0)).unwrap();
    assert_eq!(topo.numa_nodes, None);
    assert_eq!(topo.dimms, None);
    assert_eq!(topo.memory_bytes(), None);
}

#[test]
fn microcode_and_bios_are_read_under_the_roots() {
    let t = tree("spr-2x56-snc2");
    let roots = Roots::under(&t.0);
    let cpu = collect_cpu_at(&roots, CpuidProbe::default(), "x86_64");
    assert_eq!(cpu.microcode.as_deref(), Some("0x2b000590"));
    let bios = super::read_bios(&roots).expect("DMI's BIOS");
    assert_eq!(bios.vendor.as_deref(), Some("Intel Corporation"));
    assert_eq!(
        bios.version.as_deref(),
        Some("SE5C7411.86B.9525.D13.2302071332")
    );
    assert_eq!(bios.date.as_deref(), Some("02/07/2023"));
    // A tree without DMI and an Arm cpuinfo: neither is invented.
    let t = tree("grace-72");
    let roots = Roots::under(&t.0);
    assert_eq!(super::read_bios(&roots), None);
    let cpu = collect_cpu_at(&roots, CpuidProbe::default(), "aarch64");
    assert_eq!(cpu.microcode, None);
}
