//! The inventory of Arm server nodes, read from trees built here in the
//! kernel's documented formats: `/proc/cpuinfo` as arm64's `c_show` writes
//! it (one block per CPU, recorded in `fixtures/*.cpuinfo`) and sysfs CPU
//! topology and cache directories (Documentation/ABI/testing/
//! sysfs-devices-system-cpu) with the parts' documented cache sizes.

use std::fs;
use std::path::Path;

use super::cpu::collect_cpu_at;
use super::cpuid::CpuidProbe;
use crate::peak::core_flops;
use crate::sysroot::Roots;

/// One machine to build: its cpuinfo block, sockets x cores per socket,
/// NUMA nodes and caches (level, type, size, CPUs sharing one).
struct Machine {
    cpuinfo: &'static str,
    sockets: u32,
    cores_per_socket: u32,
    numa_nodes: u32,
    caches: &'static [(u32, &'static str, &'static str, u32)],
}

/// Writes `m` as a tree under `root`: proc/cpuinfo, and for each CPU its
/// topology and cache directories; returns the root.
fn build(root: &Path, m: &Machine) {
    let cpus = m.sockets * m.cores_per_socket;
    let block = m.cpuinfo.trim_end();
    let cpuinfo: String = (0..cpus)
        .map(|i| block.replacen("processor\t: 0", &format!("processor\t: {i}"), 1) + "\n\n")
        .collect();
    let write = |rel: String, text: String| {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text + "\n").unwrap();
    };
    write("proc/cpuinfo".into(), cpuinfo);
    let sys = "sys/devices/system";
    write(format!("{sys}/cpu/online"), format!("0-{}", cpus - 1));
    for cpu in 0..cpus {
        let dir = format!("{sys}/cpu/cpu{cpu}");
        let socket = cpu / m.cores_per_socket;
        write(
            format!("{dir}/topology/physical_package_id"),
            socket.to_string(),
        );
        write(
            format!("{dir}/topology/core_id"),
            (cpu % m.cores_per_socket).to_string(),
        );
        for (i, (level, kind, size, shared)) in m.caches.iter().enumerate() {
            let first = cpu / shared * shared;
            let index = format!("{dir}/cache/index{i}");
            write(format!("{index}/level"), level.to_string());
            write(format!("{index}/type"), kind.to_string());
            write(format!("{index}/size"), size.to_string());
            write(format!("{index}/coherency_line_size"), "64".into());
            let list = if *shared == 1 {
                cpu.to_string()
            } else {
                format!("{first}-{}", first + shared - 1)
            };
            write(format!("{index}/shared_cpu_list"), list);
        }
    }
    for node in 0..m.numa_nodes {
        fs::create_dir_all(root.join(format!("{sys}/node/node{node}"))).unwrap();
    }
}

fn tree(name: &str, m: &Machine) -> std::path::PathBuf {
    let root = std::env::temp_dir().join(format!("nb-arm-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    build(&root, m);
    root
}

#[test]
fn neoverse_and_a64fx_nodes_are_named_counted_and_peaked() {
    // (name, machine, vendor, core, model name, DP FLOP/cycle, SVE)
    let cases: [(&str, Machine, &str, &str, u32, bool); 4] = [
        (
            // NVIDIA Grace: Neoverse V2, 64 KiB L1s, 1 MiB L2, 114 MiB L3.
            "grace",
            Machine {
                cpuinfo: include_str!("fixtures/neoverse-v2.cpuinfo"),
                sockets: 1,
                cores_per_socket: 72,
                numa_nodes: 1,
                caches: &[
                    (1, "Data", "64K", 1),
                    (1, "Instruction", "64K", 1),
                    (2, "Unified", "1024K", 1),
                    (3, "Unified", "116736K", 72),
                ],
            },
            "ARM",
            "Neoverse V2",
            16,
            true,
        ),
        (
            // AWS Graviton3: Neoverse V1, 64 KiB L1s, 1 MiB L2, 32 MiB L3.
            "graviton3",
            Machine {
                cpuinfo: include_str!("fixtures/neoverse-v1.cpuinfo"),
                sockets: 1,
                cores_per_socket: 64,
                numa_nodes: 1,
                caches: &[
                    (1, "Data", "64K", 1),
                    (1, "Instruction", "64K", 1),
                    (2, "Unified", "1024K", 1),
                    (3, "Unified", "32768K", 64),
                ],
            },
            "ARM",
            "Neoverse V1",
            16,
            true,
        ),
        (
            // Ampere Altra Max, two sockets: Neoverse N1, 64 KiB L1s, 1 MiB L2.
            "altra",
            Machine {
                cpuinfo: include_str!("fixtures/neoverse-n1.cpuinfo"),
                sockets: 2,
                cores_per_socket: 128,
                numa_nodes: 2,
                caches: &[
                    (1, "Data", "64K", 1),
                    (1, "Instruction", "64K", 1),
                    (2, "Unified", "1024K", 1),
                ],
            },
            "ARM",
            "Neoverse N1",
            8,
            false,
        ),
        (
            // Fujitsu A64FX: 48 cores in 4 CMGs (NUMA nodes), 64 KiB L1s,
            // 8 MiB L2 per CMG of 12 cores.
            "a64fx",
            Machine {
                cpuinfo: include_str!("fixtures/a64fx.cpuinfo"),
                sockets: 1,
                cores_per_socket: 48,
                numa_nodes: 4,
                caches: &[
                    (1, "Data", "64K", 1),
                    (1, "Instruction", "64K", 1),
                    (2, "Unified", "8192K", 12),
                ],
            },
            "Fujitsu",
            "A64FX",
            32,
            true,
        ),
    ];
    for (name, m, vendor, core, dp, sve) in cases {
        let root = tree(name, &m);
        let cpu = collect_cpu_at(&Roots::under(&root), CpuidProbe::default(), "aarch64");
        let cpus = m.sockets * m.cores_per_socket;
        assert_eq!(cpu.vendor.as_deref(), Some(vendor), "{name}");
        assert_eq!(cpu.microarchitecture.as_deref(), Some(core), "{name}");
        assert_eq!(
            cpu.model_name.as_deref(),
            Some(format!("{vendor} {core}").as_str()),
            "{name}"
        );
        assert_eq!(cpu.logical_cpus, cpus, "{name}");
        assert_eq!(cpu.physical_cores, Some(cpus), "{name}");
        assert_eq!(cpu.sockets, Some(m.sockets), "{name}");
        assert_eq!(cpu.threads_per_core, Some(1), "{name}");
        assert_eq!(cpu.numa_nodes, Some(m.numa_nodes), "{name}");
        assert_eq!(cpu.emulation, None, "{name}");
        assert_eq!(cpu.simd.contains(&"sve".to_string()), sve, "{name}");
        assert!(cpu.simd.contains(&"asimd".to_string()), "{name}");
        // Every cache with its size and how many there are.
        assert_eq!(cpu.caches.len(), m.caches.len(), "{name}");
        for (c, (level, kind, size, shared)) in cpu.caches.iter().zip(m.caches) {
            let kib: u64 = size.trim_end_matches('K').parse().unwrap();
            assert_eq!((c.level, c.kind.as_str()), (*level, *kind), "{name}");
            assert_eq!(c.size_bytes, kib << 10, "{name} L{level} {kind}");
            assert_eq!(c.instances, Some(cpus / shared), "{name} L{level} {kind}");
        }
        // The peak table knows the core.
        let inv = super::Inventory {
            cpu,
            ..Default::default()
        };
        assert_eq!(core_flops(&inv).unwrap().dp_per_cycle, dp, "{name}");
        // The same tree read by an x86-64 binary is emulation.
        let x86 = collect_cpu_at(&Roots::under(&root), CpuidProbe::default(), "x86_64");
        assert_eq!(
            x86.emulation.as_deref(),
            Some("x86_64 binary on an aarch64 CPU"),
            "{name}"
        );
        fs::remove_dir_all(&root).unwrap();
    }
}
