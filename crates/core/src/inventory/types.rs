//! The inventory's data types, as every stored run carries them in JSON, and
//! the questions benchmarks ask of them (cache sizes, core count).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Everything nodebench knows about the machine it runs on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Inventory {
    /// Host name (uname nodename); inside a container this is the container's.
    pub hostname: Option<String>,
    /// Processor: identity, topology, frequencies, caches and ISA features.
    pub cpu: CpuInfo,
    /// Main memory, swap and huge page settings.
    pub memory: MemoryInfo,
    /// Kernel, distribution and architecture.
    pub os: OsInfo,
    /// Block devices from `/sys/block` (empty loop/ram/zram devices left out).
    pub block_devices: Vec<BlockDevice>,
    /// Mounted real filesystems (pseudo filesystems such as proc or cgroup
    /// left out), one per mount point.
    pub filesystems: Vec<Filesystem>,
    /// Network interfaces from `/sys/class/net`, loopback included.
    pub network_interfaces: Vec<NetworkInterface>,
    /// The BIOS (DMI); `None` where DMI is absent (most Arm boards, some
    /// guests) and in runs stored before it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bios: Option<Bios>,
    /// Packages, NUMA nodes (CPUs, memory, SLIT distances), cores and SMT
    /// siblings, every cache with the CPUs sharing it, and EDAC's DIMMs;
    /// `None` where sysfs does not describe the CPUs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology: Option<super::Topology>,
    /// NVIDIA GPUs through NVML, or why none are known ("no NVIDIA
    /// driver"); `None` in runs stored before GPUs were read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus: Option<super::Gpus>,
    /// The host's state for benchmarking (frequency policy, idle states,
    /// THP, swap, NUMA balancing, clocksource, cgroup limits, ...) and
    /// what `--tune` changed; `None` in runs stored before it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<super::HostState>,
    /// The power sources (RAPL, hwmon, IPMI, NVML) with their scopes, or
    /// why none is readable; `None` in runs stored before they were read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power: Option<super::PowerSources>,
    /// The PCIe links of the NICs, NVMe drives and GPUs, in PCI address
    /// order (empty where none reports a link: virtual devices); `None` in
    /// runs stored before they were read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcie_links: Option<Vec<super::PcieLink>>,
}

/// The processor(s) of the machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct CpuInfo {
    /// Vendor identification string: "GenuineIntel", "AuthenticAMD",
    /// "HygonGenuine"; on Arm the implementer's name ("ARM", "Ampere", ...).
    pub vendor: Option<String>,
    /// Marketing name ("model name" of `/proc/cpuinfo`, else the CPUID brand
    /// string). Hypervisors often shorten it (e.g. "AMD EPYC").
    pub model_name: Option<String>,
    /// x86 family (CPUID, extended family folded in), e.g. 25 for AMD Zen 3.
    pub family: Option<u32>,
    /// x86 model (CPUID, extended model folded in), e.g. 0x8F for Sapphire Rapids.
    pub model: Option<u32>,
    /// x86 stepping.
    pub stepping: Option<u32>,
    /// Microarchitecture or code name from a vendor/family/model table, e.g.
    /// "Zen 3", "Sapphire Rapids", "Skylake-SP", "Neoverse V1"; `None` when the
    /// processor is not in the table.
    pub microarchitecture: Option<String>,
    /// Number of processor packages (sockets) with online CPUs.
    pub sockets: Option<u32>,
    /// Physical cores over all sockets (unique package/core pairs of the
    /// online CPUs).
    pub physical_cores: Option<u32>,
    /// Online logical CPUs (`/sys/devices/system/cpu/online`, else the
    /// processors of `/proc/cpuinfo`, else `available_parallelism`, else 1).
    pub logical_cpus: u32,
    /// CPUs this process may actually use (`std::thread::available_parallelism`:
    /// affinity mask and cgroup CPU quota); can be less than `logical_cpus`
    /// in containers or under `taskset`.
    pub available_parallelism: Option<u32>,
    /// Hardware threads per physical core (largest sibling group seen).
    pub threads_per_core: Option<u32>,
    /// Cores' worth of floating-point throughput the usable CPUs hold,
    /// measured (`nodebench_machine::cores::probe`) for a run of a benchmark with a
    /// theoretical peak (`cpu ops`, `cpu linpack`); the peak counts these.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_cores: Option<EffectiveCores>,
    /// The all-core clock under the theoretical peak's own instructions,
    /// measured for a run of a benchmark with a peak; the peak uses it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_clock: Option<PeakClock>,
    /// Base (nominal) frequency in Hz. Sources in order: cpufreq
    /// `base_frequency`, ACPI CPPC `nominal_freq`, the "cpu MHz" of
    /// `/proc/cpuinfo` when there is no cpufreq driver (in a virtual machine
    /// this is the host's TSC rate, not a measured clock), CPUID leaf 0x16.
    pub base_frequency_hz: Option<f64>,
    /// Highest frequency the cpufreq driver allows (`cpuinfo_max_freq`), in Hz
    /// (usually the single-core turbo frequency).
    pub max_frequency_hz: Option<f64>,
    /// Frequency of CPU 0 when collected (cpufreq `scaling_cur_freq`, else the
    /// "cpu MHz" of `/proc/cpuinfo`), in Hz.
    pub current_frequency_hz: Option<f64>,
    /// Caches as seen by CPU 0, with how many such caches the system has.
    pub caches: Vec<CacheInfo>,
    /// Every feature flag of `/proc/cpuinfo` ("flags" on x86, "Features" on Arm).
    pub flags: Vec<String>,
    /// The SIMD/matrix features that set peak rates, in a fixed order: sse,
    /// sse2, sse3, ssse3, sse4_1, sse4_2, avx, avx2, fma, avx512f, avx512dq,
    /// avx512bw, avx512vl, avx512_fp16, avx512_bf16, amx_tile, amx_bf16,
    /// amx_int8, asimd, sve, sve2 (those present).
    pub simd: Vec<String>,
    /// cpufreq scaling governor of CPU 0 ("performance", "powersave", ...).
    pub governor: Option<String>,
    /// NUMA nodes (`/sys/devices/system/node/node*`).
    pub numa_nodes: Option<u32>,
    /// Hypervisor the machine runs under ("KVM", "VMware", "Xen", "Microsoft",
    /// "QEMU", ...; "unknown hypervisor" when one is present but cannot be
    /// named); "none" on x86 when the CPU reports no hypervisor; `None` when
    /// it cannot be told.
    pub virtualization: Option<String>,
    /// Container runtime this process runs in ("docker", "podman",
    /// "kubernetes", or the content of `/run/systemd/container`); `None` when
    /// no container marker was found.
    pub container: Option<String>,
    /// Set when this binary runs under user-mode emulation (qemu-user): its
    /// architecture is not the one `/proc/cpuinfo` describes, e.g.
    /// `aarch64 binary on an x86_64 CPU`. Every timing of such a run is the
    /// emulator's, not the machine's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulation: Option<String>,
    /// The microcode revision of CPU 0 (`/proc/cpuinfo` `microcode`, as
    /// the kernel prints it: `0x2b000590`); `None` where the kernel does
    /// not say (Arm, most guests) and in runs stored before it was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microcode: Option<String>,
}

/// The system firmware as DMI describes it (`/sys/class/dmi/id/bios_*`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Bios {
    /// `bios_vendor`.
    pub vendor: Option<String>,
    /// `bios_version`.
    pub version: Option<String>,
    /// `bios_date`, as the firmware gives it (`03/14/2024`).
    pub date: Option<String>,
}

/// Effective cores as `nodebench_machine::cores` measures them: what the probe found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct EffectiveCores {
    /// Cores' worth of floating-point throughput of the usable CPUs.
    pub count: u32,
    /// The usable CPUs probed.
    pub cpus: u32,
    /// Fixed sets of CPUs that share one core's execution units, when the
    /// probe found them (SMT siblings, shown by the topology or not).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub siblings: Vec<Vec<u32>>,
    /// How the count was found, in words, with the measured ratios.
    pub method: String,
    /// Why the count is uncertain: the probe's threads waited for their
    /// CPUs (another process held them) in every try, so the count rests
    /// on their own CPU time and may be too high, never too low.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncertain: Option<String>,
}

/// The clock behind the theoretical peak, measured under the peak's load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct PeakClock {
    /// The clock, Hz.
    pub hz: f64,
    /// The instructions it was measured under (`512-bit FMA`, `256-bit
    /// FMA`, `scalar adds`).
    pub load: String,
    /// How it was measured.
    pub method: String,
    /// Why the clock is uncertain: the probe's threads were off their CPUs
    /// (another process, steal) in every round, so it is their adds over
    /// their own CPU time, never lowered by the time others took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncertain: Option<String>,
}

/// One cache level/kind, as CPU 0 sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct CacheInfo {
    /// Cache level: 1, 2, 3, ...
    pub level: u32,
    /// "Data", "Instruction" or "Unified" (as sysfs spells it).
    pub kind: String,
    /// Size of one instance of this cache, in bytes.
    pub size_bytes: u64,
    /// How many such caches the system has (distinct sharing groups over all
    /// online CPUs); `size_bytes * instances` is the system total.
    pub instances: Option<u32>,
    /// Cache line size in bytes.
    pub line_size_bytes: Option<u32>,
}

/// Main memory, swap and huge pages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct MemoryInfo {
    /// Usable RAM (`MemTotal`), in bytes.
    pub total_bytes: Option<u64>,
    /// RAM available to new work without swapping (`MemAvailable`), in bytes.
    pub available_bytes: Option<u64>,
    /// Configured swap (`SwapTotal`), in bytes.
    pub swap_total_bytes: Option<u64>,
    /// Transparent huge page mode: "always", "madvise" or "never".
    pub transparent_hugepages: Option<String>,
    /// Default huge page size (`Hugepagesize`), in bytes.
    pub hugepage_size_bytes: Option<u64>,
}

/// The operating system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct OsInfo {
    /// Kernel release (uname release), e.g. "6.1.0-18-amd64".
    pub kernel: Option<String>,
    /// Distribution (`PRETTY_NAME` of `/etc/os-release`).
    pub distribution: Option<String>,
    /// Architecture nodebench was built for (`std::env::consts::ARCH`).
    pub architecture: String,
}

/// A block device from `/sys/block`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct BlockDevice {
    /// Kernel name, e.g. "nvme0n1", "sda", "vda".
    pub name: String,
    /// Device model as the device reports it.
    pub model: Option<String>,
    /// Capacity in bytes.
    pub size_bytes: Option<u64>,
    /// Whether the kernel treats it as a rotating disk.
    pub rotational: Option<bool>,
    /// Active I/O scheduler ("none", "mq-deadline", ...).
    pub scheduler: Option<String>,
    /// Write cache mode ("write back" or "write through").
    pub write_cache: Option<String>,
    /// Logical block size in bytes.
    pub logical_block_size: Option<u32>,
    /// Physical block size in bytes.
    pub physical_block_size: Option<u32>,
}

/// A mounted filesystem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Filesystem {
    /// Mount source, e.g. "/dev/nvme0n1p2" or "tmpfs".
    pub device: String,
    /// Where it is mounted.
    pub mount_point: String,
    /// Filesystem type, e.g. "ext4", "xfs", "tmpfs", "overlay".
    pub fs_type: String,
    /// Total size in bytes (statvfs).
    pub size_bytes: Option<u64>,
    /// Bytes available to unprivileged users (statvfs).
    pub available_bytes: Option<u64>,
}

/// A network interface from `/sys/class/net`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct NetworkInterface {
    /// Interface name, e.g. "eth0", "lo".
    pub name: String,
    /// MTU in bytes.
    pub mtu: Option<u32>,
    /// Link speed in Mbit/s (unknown for virtual interfaces and down links).
    pub speed_mbps: Option<u64>,
    /// Kernel driver bound to the device, e.g. "mlx5_core", "virtio_net".
    pub driver: Option<String>,
    /// Operational state: "up", "down", "unknown", ...
    pub operstate: Option<String>,
    /// Hardware (MAC) address.
    pub mac: Option<String>,
}

impl Inventory {
    /// Total bytes of the highest-level data/unified cache over the whole
    /// system (`size_bytes * instances`); `None` when the caches or their
    /// instance count are unknown.
    pub fn last_level_cache_bytes(&self) -> Option<u64> {
        let llc = self
            .cpu
            .caches
            .iter()
            .filter(|c| is_data_cache(c))
            .max_by_key(|c| c.level)?;
        llc.size_bytes.checked_mul(u64::from(llc.instances?))
    }

    /// Size of one instance of the data/unified cache of `level`, i.e. what
    /// one core sees (e.g. 32 KiB for level 1); `None` when unknown.
    pub fn cache_bytes(&self, level: u32) -> Option<u64> {
        self.cpu
            .caches
            .iter()
            .find(|c| c.level == level && is_data_cache(c))
            .map(|c| c.size_bytes)
    }

    /// Physical core count, else the logical CPU count when the topology is
    /// unknown.
    pub fn physical_cores_or_logical(&self) -> u32 {
        self.cpu.physical_cores.unwrap_or(self.cpu.logical_cpus)
    }
}

/// Whether a cache holds data (a data or unified cache).
fn is_data_cache(c: &CacheInfo) -> bool {
    c.kind == "Data" || c.kind == "Unified"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_queries() {
        let inv = crate::inventory::fixtures::sample();
        assert_eq!(inv.last_level_cache_bytes(), Some(64 << 20));
        assert_eq!(inv.cache_bytes(1), Some(32 << 10));
        assert_eq!(inv.cache_bytes(2), Some(512 << 10));
        assert_eq!(inv.cache_bytes(4), None);
        assert_eq!(inv.physical_cores_or_logical(), 8);

        let empty = Inventory::default();
        assert_eq!(empty.last_level_cache_bytes(), None);
        assert_eq!(empty.cache_bytes(1), None);
        assert_eq!(empty.physical_cores_or_logical(), 0);

        let mut unknown_instances = crate::inventory::fixtures::sample();
        unknown_instances.cpu.caches[3].instances = None;
        assert_eq!(unknown_instances.last_level_cache_bytes(), None);
    }

    #[test]
    fn inventory_json_round_trips() {
        let inv = crate::inventory::fixtures::sample();
        let json = serde_json::to_string(&inv).unwrap();
        assert!(json.contains("\"model_name\":null"));
        let back: Inventory = serde_json::from_str(&json).unwrap();
        assert_eq!(back, inv);
        // Older records without newer fields still load.
        let minimal: Inventory = serde_json::from_str("{\"cpu\":{\"logical_cpus\":2}}").unwrap();
        assert_eq!(minimal.cpu.logical_cpus, 2);
        assert_eq!(minimal.pcie_links, None);
    }
}
