//! System inventory, the readers: what the node is (CPU, memory, OS, disks,
//! filesystems, network, topology), read from `/proc`, `/sys` and, on
//! x86_64, CPUID, into `nodebench_core::inventory`'s types.
//!
//! `nodebench inventory` prints it (the text is `nodebench_report::inventory`)
//! and every stored run carries it as JSON. Anything that cannot be read is
//! recorded as unknown (`None`, JSON `null`), never guessed, and collecting
//! never panics: every read of `/proc`, `/sys` or CPUID is fallible and
//! degrades to `None` (or an empty list).
//!
//! The parsing is done by small pure functions that take the file text, so it
//! is unit-tested with sample text from real machines; [`collect`] only reads
//! the files and wires the pieces together.
//!
//! Layout, bottom to top; a module imports only from modules listed before
//! it: `sysfs` (file readers and
//! the kernel's small text formats); the tables and parsers `uarch`, [`dmi`]
//! (SMBIOS, for the memory benchmarks), `os`, `virt`; `cpuid` (uses `virt`'s
//! hypervisor names); the readers `cache`, `memory`, `storage`, `network`,
//! `pcie` (the links of NICs, NVMe drives and GPUs);
//! `cpu` (joins cpuinfo, CPUID, caches, `uarch` and `virt`); [`topology`];
//! and [`collect`] here on top.

pub mod dmi;

mod cache;
mod cpu;
mod cpuid;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod host;
mod memory;
mod network;
mod os;
mod pcie;
mod storage;
pub(crate) mod sysfs;
pub mod topology;
mod uarch;
mod virt;

use nodebench_core::inventory::{Inventory, OsInfo};

use crate::sysroot::Roots;
use cpu::collect_cpu;
pub(crate) use cpu::online_cpu_dirs;
use memory::collect_memory;
use network::collect_network_interfaces;
use os::{parse_os_release, uname_fields};
use storage::{collect_block_devices, collect_filesystems};
use sysfs::{read_text, read_value};
pub(crate) use virt::hypervisor_from_dmi;

/// Reads the live system. Never panics; what cannot be read is `None`.
pub fn collect() -> Inventory {
    let roots = Roots::from_env();
    let (uname_host, uname_release) = uname_fields();
    let gpus = crate::gpu::collect(&roots);
    let pcie_links = pcie::collect(&roots, Some(&gpus));
    Inventory {
        hostname: uname_host.or_else(|| read_value(roots.proc("sys/kernel/hostname"))),
        cpu: collect_cpu(&roots),
        memory: collect_memory(&roots),
        os: OsInfo {
            kernel: uname_release.or_else(|| read_value(roots.proc("sys/kernel/osrelease"))),
            distribution: read_text("/etc/os-release")
                .or_else(|| read_text("/usr/lib/os-release"))
                .and_then(|t| parse_os_release(&t)),
            architecture: std::env::consts::ARCH.to_string(),
        },
        block_devices: collect_block_devices(&roots),
        filesystems: collect_filesystems(),
        network_interfaces: collect_network_interfaces(&roots),
        bios: read_bios(&roots),
        topology: topology::collect_topology(&roots),
        gpus: Some(gpus),
        host: Some(host::read(&roots)),
        power: Some(crate::energy::discover_at(&roots).describe()),
        pcie_links: Some(pcie_links),
    }
}

/// The PCIe links of the NICs, NVMe drives and GPUs under `roots`, as
/// [`collect`] reads them but without NVML (a GPU is named by its PCI
/// ids): for `nodebench check`.
pub fn pcie_links(roots: &Roots) -> Vec<nodebench_core::inventory::PcieLink> {
    pcie::collect(roots, None)
}

/// The BIOS as DMI describes it under `roots`; `None` without DMI.
pub(crate) fn read_bios(roots: &Roots) -> Option<nodebench_core::inventory::Bios> {
    let dmi = roots.sys("class/dmi/id");
    let bios = nodebench_core::inventory::Bios {
        vendor: read_value(dmi.join("bios_vendor")),
        version: read_value(dmi.join("bios_version")),
        date: read_value(dmi.join("bios_date")),
    };
    (bios != nodebench_core::inventory::Bios::default()).then_some(bios)
}

/// The hypervisor CPUID names (x86), `None` elsewhere or without one.
pub(crate) fn cpuid_hypervisor() -> Option<String> {
    cpuid::cpuid_probe().hypervisor
}

/// The caches as [`collect`] reads them, without the rest of the
/// inventory: for a caller that needs their sizes alone (`nodebench
/// check`'s memory need).
pub fn caches(roots: &Roots) -> Vec<nodebench_core::inventory::CacheInfo> {
    let sys_cpu = roots.sys("devices/system/cpu");
    let online = read_value(sys_cpu.join("online")).and_then(|t| sysfs::parse_cpu_list(&t));
    let dirs: Vec<std::path::PathBuf> = cpu::online_cpu_dirs(&sys_cpu, online.as_deref())
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    cache::collect_caches(&dirs)
}

#[cfg(test)]
mod arm_tests;
#[cfg(test)]
mod topology_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collect_reads_this_machine_without_panicking() {
        let inv = collect();
        assert!(inv.cpu.logical_cpus >= 1);
        assert_eq!(inv.os.architecture, std::env::consts::ARCH);
        if let Some(cores) = inv.cpu.physical_cores {
            assert!(cores >= 1 && cores <= inv.cpu.logical_cpus);
        }
        serde_json::to_string(&inv).unwrap();
    }
}
