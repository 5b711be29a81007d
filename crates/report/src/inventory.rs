//! The human text of the inventory (`nodebench inventory`, and the head of
//! `nodebench run`): one `[section]` line per section, then one indented
//! `key  value` row per fact, keys padded to the longest.

use std::fmt::Write as _;

use nodebench_core::inventory::{BlockDevice, GpuInfo, Inventory, PcieLink};
use nodebench_core::units::format_bytes;

/// The inventory as text: a `[section]` heading (cpu, memory, os, disk,
/// filesystem, network), then its `key  value` rows, keys left-aligned to
/// the widest key of all sections.
pub fn report(inv: &Inventory) -> String {
    let rows = summary_rows(inv);
    let width = rows.iter().map(|(_, k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    let mut section = "";
    for (s, k, v) in &rows {
        if s != section {
            let _ = writeln!(out, "[{s}]");
            section = s;
        }
        let _ = writeln!(out, "  {k:<width$}  {v}");
    }
    out
}

/// Rows `(section, key, value)` for a human-readable table. Sections are
/// "cpu", "memory", "os", "disk", "filesystem", "network", "gpu", "pcie"
/// (each NIC's, NVMe drive's and GPU's link, flagged where downtrained),
/// "power" and "host" (the state for benchmarking, `crate::host::rows`); unknown
/// values read "unknown", sizes use binary units ("32 MiB") and
/// frequencies read like "2.45 GHz". Disks, filesystems and interfaces get
/// one row each with a compact description.
pub fn summary_rows(inv: &Inventory) -> Vec<(String, String, String)> {
    let mut rows = Vec::new();
    let mut push = |section: &str, key: &str, value: String| {
        rows.push((section.to_string(), key.to_string(), value));
    };
    let c = &inv.cpu;
    push("cpu", "vendor", opt_str(&c.vendor));
    push("cpu", "model", opt_str(&c.model_name));
    push("cpu", "family", opt_hex(c.family));
    push("cpu", "model number", opt_hex(c.model));
    push("cpu", "stepping", opt_num(c.stepping));
    push("cpu", "microarchitecture", opt_str(&c.microarchitecture));
    push("cpu", "sockets", opt_num(c.sockets));
    push("cpu", "physical cores", opt_num(c.physical_cores));
    push("cpu", "logical cpus", c.logical_cpus.to_string());
    push("cpu", "usable cpus", opt_num(c.available_parallelism));
    push("cpu", "threads per core", opt_num(c.threads_per_core));
    if let Some(k) = &c.peak_clock {
        push(
            "cpu",
            "peak clock",
            format!("{} under {} ({})", format_hz(k.hz), k.load, k.method),
        );
        if let Some(u) = &k.uncertain {
            push("cpu", "peak clock uncertain", u.clone());
        }
    }
    if let Some(e) = &c.effective_cores {
        push(
            "cpu",
            "effective cores",
            format!("{} of {} usable CPUs ({})", e.count, e.cpus, e.method),
        );
        if let Some(u) = &e.uncertain {
            push("cpu", "effective cores uncertain", u.clone());
        }
    }
    push(
        "cpu",
        "base frequency",
        opt_with(c.base_frequency_hz, format_hz),
    );
    push(
        "cpu",
        "max frequency",
        opt_with(c.max_frequency_hz, format_hz),
    );
    push(
        "cpu",
        "current frequency",
        opt_with(c.current_frequency_hz, format_hz),
    );
    if c.caches.is_empty() {
        push("cpu", "caches", "unknown".to_string());
    }
    for cache in &c.caches {
        let suffix = match cache.kind.as_str() {
            "Data" => "d",
            "Instruction" => "i",
            _ => "",
        };
        let instances = cache
            .instances
            .map_or("unknown".to_string(), |n| n.to_string());
        let mut value = format!("{} x {instances}", format_bytes(cache.size_bytes));
        if let Some(line) = cache.line_size_bytes {
            value.push_str(&format!(", {line} B lines"));
        }
        push("cpu", &format!("L{}{suffix} cache", cache.level), value);
    }
    let simd = if c.flags.is_empty() {
        "unknown".to_string()
    } else if c.simd.is_empty() {
        "none".to_string()
    } else {
        c.simd.join(" ")
    };
    push("cpu", "simd", simd);
    push("cpu", "governor", opt_str(&c.governor));
    if let Some(m) = &c.microcode {
        push("cpu", "microcode", m.clone());
    }
    push("cpu", "numa nodes", opt_num(c.numa_nodes));
    push("cpu", "virtualization", opt_str(&c.virtualization));
    push("cpu", "container", opt_str(&c.container));
    if let Some(e) = &c.emulation {
        push(
            "cpu",
            "emulation",
            format!("{e}: timings are the emulator's and mean nothing"),
        );
    }

    let m = &inv.memory;
    push("memory", "total", opt_with(m.total_bytes, format_bytes));
    push(
        "memory",
        "available",
        opt_with(m.available_bytes, format_bytes),
    );
    push("memory", "swap", opt_with(m.swap_total_bytes, format_bytes));
    push(
        "memory",
        "transparent hugepages",
        opt_str(&m.transparent_hugepages),
    );
    push(
        "memory",
        "hugepage size",
        opt_with(m.hugepage_size_bytes, format_bytes),
    );

    push("os", "hostname", opt_str(&inv.hostname));
    push("os", "kernel", opt_str(&inv.os.kernel));
    push("os", "distribution", opt_str(&inv.os.distribution));
    push("os", "architecture", inv.os.architecture.clone());
    if let Some(b) = &inv.bios {
        push(
            "os",
            "bios",
            format!(
                "{}, version {}, {}",
                opt_str(&b.vendor),
                opt_str(&b.version),
                opt_str(&b.date)
            ),
        );
    }

    if inv.block_devices.is_empty() {
        push("disk", "devices", "none found".to_string());
    }
    for d in &inv.block_devices {
        push("disk", &d.name, describe_block_device(d));
    }
    if inv.filesystems.is_empty() {
        push("filesystem", "mounts", "none found".to_string());
    }
    for f in &inv.filesystems {
        let value = format!(
            "{} on {}, size {}, available {}",
            f.fs_type,
            f.device,
            opt_with(f.size_bytes, format_bytes),
            opt_with(f.available_bytes, format_bytes)
        );
        push("filesystem", &f.mount_point, value);
    }
    if inv.network_interfaces.is_empty() {
        push("network", "interfaces", "none found".to_string());
    }
    for n in &inv.network_interfaces {
        let value = format!(
            "{}, mtu {}, speed {}, driver {}, mac {}",
            opt_str(&n.operstate),
            opt_num(n.mtu),
            opt_with(n.speed_mbps, |s| format!("{s} Mb/s")),
            opt_str(&n.driver),
            opt_str(&n.mac)
        );
        push("network", &n.name, value);
    }
    if let Some(g) = &inv.gpus {
        match &g.unavailable {
            Some(why) => push("gpu", "gpus", why.clone()),
            None => {
                push(
                    "gpu",
                    "driver",
                    format!(
                        "{}, CUDA {}",
                        opt_str(&g.driver_version),
                        opt_str(&g.cuda_version)
                    ),
                );
                if g.devices.is_empty() {
                    push("gpu", "gpus", "none found".to_string());
                }
                for d in &g.devices {
                    push("gpu", &format!("gpu {}", d.index), describe_gpu(d));
                }
            }
        }
    }
    if let Some(links) = &inv.pcie_links {
        if links.is_empty() {
            push(
                "pcie",
                "links",
                "none read (no NIC, NVMe drive or GPU with a PCIe link in sysfs)".to_string(),
            );
        }
        for l in links {
            push("pcie", &l.name, describe_pcie_link(l));
        }
    }
    if let Some(p) = &inv.power {
        if let Some(why) = &p.unavailable {
            push("power", "sources", why.clone());
        } else {
            for s in &p.sources {
                push(
                    "power",
                    &format!("{} {}", s.source, s.sensor),
                    format!("{}: {}", s.scope, s.how),
                );
            }
            for n in &p.notes {
                push("power", "not read", n.clone());
            }
        }
    }
    if let Some(h) = &inv.host {
        for (k, v) in crate::host::rows(h) {
            push("host", &k, v);
        }
    }
    rows
}

// ---------------------------------------------------------------------------
// Formatting helpers for the summary rows.

/// The value, or "unknown".
fn opt_str(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "unknown".to_string())
}

/// The number, or "unknown".
fn opt_num<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "unknown".to_string(), |n| n.to_string())
}

/// The number in decimal and hex ("6 (0x06)"), or "unknown".
fn opt_hex(v: Option<u32>) -> String {
    v.map_or_else(|| "unknown".to_string(), |n| format!("{n} (0x{n:02x})"))
}

/// The value formatted by `f`, or "unknown".
fn opt_with<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map_or_else(|| "unknown".to_string(), f)
}

/// One line for a disk: size, model, rotational, scheduler, write cache,
/// logical/physical block sizes.
fn describe_block_device(d: &BlockDevice) -> String {
    let mut parts = vec![opt_with(d.size_bytes, format_bytes)];
    if let Some(model) = &d.model {
        parts.push(model.clone());
    }
    parts.push(match d.rotational {
        Some(true) => "rotational".to_string(),
        Some(false) => "non-rotational".to_string(),
        None => "rotational unknown".to_string(),
    });
    parts.push(format!("scheduler {}", opt_str(&d.scheduler)));
    parts.push(format!("write cache {}", opt_str(&d.write_cache)));
    parts.push(format!(
        "blocks {}/{} B",
        opt_num(d.logical_block_size),
        opt_num(d.physical_block_size)
    ));
    parts.join(", ")
}

/// One line for a GPU: name, architecture, SMs, memory and its peak,
/// clocks, power, link, NVLink, ECC, MIG, closest NUMA node.
fn describe_gpu(d: &GpuInfo) -> String {
    let mut parts = vec![opt_str(&d.name)];
    if let Some(a) = &d.architecture {
        parts.push(a.clone());
    }
    parts.push(format!("compute {}", opt_str(&d.compute_capability)));
    parts.push(format!("{} SMs", opt_num(d.sms)));
    parts.push(opt_with(d.memory_bytes, format_bytes));
    parts.push(format!("SM clock {} MHz", opt_num(d.max_sm_clock_mhz)));
    parts.push(format!(
        "memory {} MHz x {}-bit{}",
        opt_num(d.max_memory_clock_mhz),
        opt_num(d.memory_bus_bits),
        d.memory_peak_bytes_per_s()
            .map(|p| format!(" ({:.0} GB/s)", p / 1e9))
            .unwrap_or_default()
    ));
    parts.push(opt_with(d.power_limit_w, |w| format!("{w:.0} W")));
    parts.push(format!(
        "PCIe gen {} x{}",
        opt_num(d.pcie_generation),
        opt_num(d.pcie_width)
    ));
    if let Some(n) = d.nvlinks {
        parts.push(format!("{n} NVLinks"));
    }
    let mode = |v: Option<bool>| opt_with(v, |on| if on { "on" } else { "off" }.to_string());
    parts.push(format!("ECC {}", mode(d.ecc_enabled)));
    parts.push(format!("MIG {}", mode(d.mig_enabled)));
    parts.push(format!(
        "NUMA node {}{}",
        opt_num(d.numa_node),
        d.local_cpus
            .as_ref()
            .map(|c| format!(" (CPUs {c})"))
            .unwrap_or_default()
    ));
    parts.join(", ")
}

/// One line for a PCIe link: kind, address, its width and speed against
/// its maximum, then each finding, `(warn: ...)` for a downtrained link and
/// `(note: ...)` for a GPU's idle speed.
fn describe_pcie_link(l: &PcieLink) -> String {
    let mut value = format!("{} {}: {}", l.kind.as_str(), l.address, l.describe());
    for f in l.findings() {
        let tag = if f.fault { "warn" } else { "note" };
        value.push_str(&format!(" ({tag}: {})", f.text));
    }
    value
}

/// Formats a frequency: "2.45 GHz", "800 MHz".
fn format_hz(hz: f64) -> String {
    if hz >= 1e9 {
        format!("{:.2} GHz", hz / 1e9)
    } else if hz >= 1e6 {
        format!("{:.0} MHz", hz / 1e6)
    } else if hz >= 1e3 {
        format!("{:.0} kHz", hz / 1e3)
    } else {
        format!("{hz:.0} Hz")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::inventory::{
        CacheInfo, CpuInfo, Filesystem, MemoryInfo, NetworkInterface, OsInfo,
    };
    use std::collections::BTreeSet;

    #[test]
    fn formats_sizes_and_frequencies() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(32 * 1024), "32 KiB");
        assert_eq!(format_bytes(32 << 20), "32 MiB");
        assert_eq!(format_bytes(3 << 29), "1.50 GiB");
        assert_eq!(format_bytes(24_684_092 * 1024), "23.5 GiB");
        assert_eq!(format_hz(2_445_428_000.0), "2.45 GHz");
        assert_eq!(format_hz(800e6), "800 MHz");
    }

    #[test]
    fn summary_rows_use_units_and_unknown() {
        let rows = summary_rows(&nodebench_core::inventory::fixtures::sample());
        let get = |section: &str, key: &str| {
            rows.iter()
                .find(|r| r.0 == section && r.1 == key)
                .map(|r| r.2.clone())
                .unwrap_or_else(|| panic!("no row {section}/{key}"))
        };
        assert_eq!(get("cpu", "base frequency"), "2.45 GHz");
        assert_eq!(get("cpu", "model"), "unknown");
        assert_eq!(get("cpu", "L3 cache"), "32 MiB x 2, 64 B lines");
        assert_eq!(get("cpu", "L1d cache"), "32 KiB x 8, 64 B lines");
        assert_eq!(get("memory", "total"), "unknown");
        assert!(get("disk", "nvme0n1").starts_with("1 TiB, non-rotational"));
        assert_eq!(get("network", "interfaces"), "none found");
        let sections: BTreeSet<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(
            sections,
            BTreeSet::from(["cpu", "memory", "os", "disk", "filesystem", "network"])
        );
    }

    /// A two-socket server with every field known, and a few odd values: an
    /// instruction cache of unknown count, an L2 without a line size, an L4
    /// of unknown kind, a disk with nothing known, an NFS mount with no sizes.
    fn full_inventory() -> Inventory {
        let cache = |level, kind: &str, size_bytes, instances, line| CacheInfo {
            level,
            kind: kind.to_string(),
            size_bytes,
            instances,
            line_size_bytes: line,
        };
        Inventory {
            hostname: Some("node7".into()),
            bios: Some(nodebench_core::inventory::Bios {
                vendor: Some("Dell Inc.".into()),
                version: Some("2.19.1".into()),
                date: None,
            }),
            cpu: CpuInfo {
                vendor: Some("GenuineIntel".into()),
                model_name: Some("Intel(R) Xeon(R) Platinum 8480+".into()),
                family: Some(6),
                model: Some(0x8F),
                stepping: Some(8),
                microarchitecture: Some("Sapphire Rapids".into()),
                sockets: Some(2),
                physical_cores: Some(112),
                logical_cpus: 224,
                available_parallelism: Some(200),
                threads_per_core: Some(2),
                base_frequency_hz: Some(2.0e9),
                max_frequency_hz: Some(3.8e9),
                current_frequency_hz: Some(800e6),
                caches: vec![
                    cache(1, "Data", 48 << 10, Some(112), Some(64)),
                    cache(1, "Instruction", 32 << 10, None, Some(64)),
                    cache(2, "Unified", 2 << 20, Some(112), None),
                    cache(3, "Unified", 105 << 20, Some(2), Some(64)),
                    cache(4, "Odd", 1536, Some(1), Some(128)),
                ],
                flags: vec!["fpu".into(), "sse".into(), "avx512f".into()],
                simd: vec!["sse".into(), "avx512f".into()],
                governor: Some("performance".into()),
                microcode: Some("0x2b000590".into()),
                numa_nodes: Some(2),
                virtualization: Some("none".into()),
                container: Some("podman".into()),
                emulation: None,
                effective_cores: Some(nodebench_core::inventory::EffectiveCores {
                    count: 100,
                    cpus: 200,
                    siblings: Vec::new(),
                    method: "measured".into(),
                    uncertain: None,
                }),
                peak_clock: Some(nodebench_core::inventory::PeakClock {
                    hz: 2.9e9,
                    load: "512-bit FMA".into(),
                    method: "5 rounds".into(),
                    uncertain: None,
                }),
            },
            memory: MemoryInfo {
                total_bytes: Some(512 << 30),
                available_bytes: Some(500_000_000_000),
                swap_total_bytes: Some(0),
                transparent_hugepages: Some("always".into()),
                hugepage_size_bytes: Some(2 << 20),
            },
            os: OsInfo {
                kernel: Some("6.1.0-18-amd64".into()),
                distribution: Some("Debian GNU/Linux 12 (bookworm)".into()),
                architecture: "x86_64".into(),
            },
            block_devices: vec![
                BlockDevice {
                    name: "nvme0n1".into(),
                    model: Some("Samsung SSD 990 PRO 2TB".into()),
                    size_bytes: Some(2_000_398_934_016),
                    rotational: Some(false),
                    scheduler: Some("none".into()),
                    write_cache: Some("write back".into()),
                    logical_block_size: Some(512),
                    physical_block_size: Some(4096),
                },
                BlockDevice {
                    name: "sda".into(),
                    model: None,
                    size_bytes: Some(4 << 40),
                    rotational: Some(true),
                    scheduler: Some("mq-deadline".into()),
                    write_cache: Some("write through".into()),
                    logical_block_size: Some(512),
                    physical_block_size: Some(512),
                },
                BlockDevice {
                    name: "vdb".into(),
                    ..Default::default()
                },
            ],
            filesystems: vec![
                Filesystem {
                    device: "/dev/nvme0n1p2".into(),
                    mount_point: "/".into(),
                    fs_type: "ext4".into(),
                    size_bytes: Some(1 << 40),
                    available_bytes: Some(300 << 30),
                },
                Filesystem {
                    device: "server:/export".into(),
                    mount_point: "/mnt/a very long mount point name for width".into(),
                    fs_type: "nfs4".into(),
                    size_bytes: None,
                    available_bytes: None,
                },
            ],
            network_interfaces: vec![
                NetworkInterface {
                    name: "eth0".into(),
                    mtu: Some(9000),
                    speed_mbps: Some(25000),
                    driver: Some("mlx5_core".into()),
                    operstate: Some("up".into()),
                    mac: Some("0c:42:a1:00:00:01".into()),
                },
                NetworkInterface {
                    name: "lo".into(),
                    mtu: Some(65536),
                    speed_mbps: None,
                    driver: None,
                    operstate: Some("unknown".into()),
                    mac: Some("00:00:00:00:00:00".into()),
                },
            ],
            topology: None,
            gpus: None,
            host: None,
            power: None,
            pcie_links: None,
        }
    }

    /// The text `nodebench inventory` printed for [`full_inventory`] before
    /// the display moved here from the CLI, byte for byte (with the peak
    /// clock and effective cores a run measures since).
    const FULL_TEXT: &str = r#"[cpu]
  vendor                                       GenuineIntel
  model                                        Intel(R) Xeon(R) Platinum 8480+
  family                                       6 (0x06)
  model number                                 143 (0x8f)
  stepping                                     8
  microarchitecture                            Sapphire Rapids
  sockets                                      2
  physical cores                               112
  logical cpus                                 224
  usable cpus                                  200
  threads per core                             2
  peak clock                                   2.90 GHz under 512-bit FMA (5 rounds)
  effective cores                              100 of 200 usable CPUs (measured)
  base frequency                               2.00 GHz
  max frequency                                3.80 GHz
  current frequency                            800 MHz
  L1d cache                                    48 KiB x 112, 64 B lines
  L1i cache                                    32 KiB x unknown, 64 B lines
  L2 cache                                     2 MiB x 112
  L3 cache                                     105 MiB x 2, 64 B lines
  L4 cache                                     1.50 KiB x 1, 128 B lines
  simd                                         sse avx512f
  governor                                     performance
  microcode                                    0x2b000590
  numa nodes                                   2
  virtualization                               none
  container                                    podman
[memory]
  total                                        512 GiB
  available                                    466 GiB
  swap                                         0 B
  transparent hugepages                        always
  hugepage size                                2 MiB
[os]
  hostname                                     node7
  kernel                                       6.1.0-18-amd64
  distribution                                 Debian GNU/Linux 12 (bookworm)
  architecture                                 x86_64
  bios                                         Dell Inc., version 2.19.1, unknown
[disk]
  nvme0n1                                      1.82 TiB, Samsung SSD 990 PRO 2TB, non-rotational, scheduler none, write cache write back, blocks 512/4096 B
  sda                                          4 TiB, rotational, scheduler mq-deadline, write cache write through, blocks 512/512 B
  vdb                                          unknown, rotational unknown, scheduler unknown, write cache unknown, blocks unknown/unknown B
[filesystem]
  /                                            ext4 on /dev/nvme0n1p2, size 1 TiB, available 300 GiB
  /mnt/a very long mount point name for width  nfs4 on server:/export, size unknown, available unknown
[network]
  eth0                                         up, mtu 9000, speed 25000 Mb/s, driver mlx5_core, mac 0c:42:a1:00:00:01
  lo                                           unknown, mtu 65536, speed unknown, driver unknown, mac 00:00:00:00:00:00
"#;

    /// The text for an inventory with flags but no SIMD feature, tiny
    /// frequencies and nothing else known.
    const BARE_TEXT: &str = r#"[cpu]
  vendor                 unknown
  model                  unknown
  family                 unknown
  model number           unknown
  stepping               unknown
  microarchitecture      unknown
  sockets                unknown
  physical cores         unknown
  logical cpus           0
  usable cpus            unknown
  threads per core       unknown
  base frequency         999 Hz
  max frequency          2 kHz
  current frequency      1000 kHz
  caches                 unknown
  simd                   none
  governor               unknown
  numa nodes             unknown
  virtualization         unknown
  container              unknown
[memory]
  total                  unknown
  available              unknown
  swap                   unknown
  transparent hugepages  unknown
  hugepage size          unknown
[os]
  hostname               unknown
  kernel                 unknown
  distribution           unknown
  architecture           aarch64
[disk]
  devices                none found
[filesystem]
  mounts                 none found
[network]
  interfaces             none found
"#;

    #[test]
    fn report_of_full_inventory_is_unchanged() {
        assert_eq!(report(&full_inventory()), FULL_TEXT);
    }

    #[test]
    fn report_of_bare_inventory_is_unchanged() {
        let mut inv = Inventory::default();
        inv.cpu.flags = vec!["fpu".into()];
        inv.cpu.base_frequency_hz = Some(999.4);
        inv.cpu.max_frequency_hz = Some(1500.0);
        inv.cpu.current_frequency_hz = Some(999_999.0);
        inv.os.architecture = "aarch64".into();
        assert_eq!(report(&inv), BARE_TEXT);
    }

    #[test]
    fn gpus_get_one_row_each() {
        let mut inv = Inventory {
            gpus: Some(nodebench_core::inventory::Gpus {
                driver_version: Some("580.159.04".into()),
                cuda_version: Some("13.0".into()),
                devices: vec![GpuInfo {
                    index: 0,
                    name: Some("NVIDIA H200".into()),
                    architecture: Some("Hopper".into()),
                    compute_capability: Some("9.0".into()),
                    sms: Some(132),
                    memory_bytes: Some(143_771 << 20),
                    max_sm_clock_mhz: Some(1980),
                    max_memory_clock_mhz: Some(3201),
                    memory_bus_bits: Some(6144),
                    power_limit_w: Some(700.0),
                    pcie_generation: Some(5),
                    pcie_width: Some(16),
                    nvlinks: Some(0),
                    ecc_enabled: Some(true),
                    mig_enabled: Some(false),
                    numa_node: Some(0),
                    local_cpus: Some("0-15".into()),
                    ..GpuInfo::default()
                }],
                unavailable: None,
            }),
            ..Inventory::default()
        };
        let text = report(&inv);
        assert!(text.ends_with("[gpu]\n  driver                 580.159.04, CUDA 13.0\n  gpu 0                  NVIDIA H200, Hopper, compute 9.0, 132 SMs, 140 GiB, SM clock 1980 MHz, memory 3201 MHz x 6144-bit (4917 GB/s), 700 W, PCIe gen 5 x16, 0 NVLinks, ECC on, MIG off, NUMA node 0 (CPUs 0-15)\n"), "{text}");
        inv.gpus = Some(nodebench_core::inventory::Gpus {
            unavailable: Some("no NVIDIA driver: libnvidia-ml.so.1 not found".into()),
            ..Default::default()
        });
        assert!(report(&inv).ends_with(
            "[gpu]\n  gpus                   no NVIDIA driver: libnvidia-ml.so.1 not found\n"
        ));
    }

    #[test]
    fn pcie_links_get_one_row_each_flagged_where_downtrained() {
        use nodebench_core::inventory::PcieKind;
        let link = PcieLink::known;
        let mut inv = Inventory {
            pcie_links: Some(vec![
                link(
                    "0000:18:00.0",
                    PcieKind::Gpu,
                    "GPU 0",
                    (2.5, 16),
                    (32.0, 16),
                ),
                link("0000:3b:00.0", PcieKind::Nic, "eth0", (16.0, 8), (16.0, 16)),
                link(
                    "0000:5e:00.0",
                    PcieKind::Nvme,
                    "nvme0",
                    (16.0, 4),
                    (16.0, 4),
                ),
            ]),
            ..Inventory::default()
        };
        let rows: Vec<(String, String)> = summary_rows(&inv)
            .into_iter()
            .filter(|r| r.0 == "pcie")
            .map(|r| (r.1, r.2))
            .collect();
        let row = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            rows,
            [
                row(
                    "GPU 0",
                    "gpu 0000:18:00.0: x16 at 2.5 GT/s (gen 1), its maximum x16 at 32.0 GT/s (gen 5) (note: PCIe link of GPU 0 (0000:18:00.0) at 2.5 GT/s, its maximum 32.0 GT/s: idle speed (a GPU lowers its link speed when idle; not a fault))"
                ),
                row(
                    "eth0",
                    "nic 0000:3b:00.0: x8 at 16.0 GT/s (gen 4), its maximum x16 at 16.0 GT/s (gen 4) (warn: PCIe link of eth0 (0000:3b:00.0) at x8, its maximum x16: downtrained)"
                ),
                row(
                    "nvme0",
                    "nvme 0000:5e:00.0: x4 at 16.0 GT/s (gen 4), its maximum x4 at 16.0 GT/s (gen 4)"
                ),
            ]
        );
        assert!(report(&inv).contains("\n[pcie]\n  GPU 0 "));
        inv.pcie_links = Some(Vec::new());
        assert!(report(&inv).ends_with(
            "[pcie]\n  links                  none read (no NIC, NVMe drive or GPU with a PCIe link in sysfs)\n"
        ));
        // A run stored before the links were read has no section.
        inv.pcie_links = None;
        assert!(!report(&inv).contains("[pcie]"));
    }

    #[test]
    fn report_of_empty_inventory_says_unknown_and_none_found() {
        let text = report(&Inventory::default());
        assert_eq!(text.lines().count(), 38);
        assert!(
            text.contains("\n  caches                 unknown\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  simd                   unknown\n"),
            "{text}"
        );
        // An empty architecture still gets its padded key.
        assert!(text.contains("\n  architecture           \n"), "{text}");
        assert!(
            text.ends_with("[network]\n  interfaces             none found\n"),
            "{text}"
        );
    }

    #[test]
    fn report_of_this_machine_has_every_section() {
        let text = report(&nodebench_machine::inventory::collect());
        let headings: Vec<&str> = text.lines().filter(|l| l.starts_with('[')).collect();
        assert_eq!(
            headings,
            [
                "[cpu]",
                "[memory]",
                "[os]",
                "[disk]",
                "[filesystem]",
                "[network]",
                "[gpu]",
                "[pcie]",
                "[power]",
                "[host]"
            ]
        );
        // No NVIDIA driver here: the section says so in one row.
        if !text.contains("  driver ") {
            assert!(
                text.contains("no NVIDIA driver: libnvidia-ml.so.1"),
                "{text}"
            );
        }
        // Where no power source is readable the section says so in one row,
        // never a figure.
        if let Some(row) = text
            .lines()
            .find(|l| l.trim_start().starts_with("sources "))
        {
            assert!(row.contains("no power sensor readable"), "{text}");
        }
        assert!(
            text.lines()
                .all(|l| l.starts_with('[') || l.starts_with("  ")),
            "{text}"
        );
    }
}
