//! System inventory: what the node is (CPU, memory, OS, disks, filesystems,
//! network), read from `/proc`, `/sys` and, on x86_64, CPUID.
//!
//! `nodebench inventory` prints it and every stored run carries it as JSON.
//! Anything that cannot be read is recorded as unknown (`None`, JSON `null`),
//! never guessed, and collecting never panics: every read of `/proc`, `/sys`
//! or CPUID is fallible and degrades to `None` (or an empty list).
//!
//! The parsing is done by small pure functions that take the file text, so it
//! is unit-tested with sample text from real machines; [`collect`] only reads
//! the files and wires the pieces together.

use crate::units::format_bytes;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{CStr, CString};
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::mpsc;
use std::time::Duration;

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

/// Reads the live system. Never panics; what cannot be read is `None`.
pub fn collect() -> Inventory {
    let (uname_host, uname_release) = uname_fields();
    Inventory {
        hostname: uname_host.or_else(|| read_value("/proc/sys/kernel/hostname")),
        cpu: collect_cpu(),
        memory: collect_memory(),
        os: OsInfo {
            kernel: uname_release.or_else(|| read_value("/proc/sys/kernel/osrelease")),
            distribution: read_text("/etc/os-release")
                .or_else(|| read_text("/usr/lib/os-release"))
                .and_then(|t| parse_os_release(&t)),
            architecture: std::env::consts::ARCH.to_string(),
        },
        block_devices: collect_block_devices(),
        filesystems: collect_filesystems(),
        network_interfaces: collect_network_interfaces(),
    }
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

    /// Rows `(section, key, value)` for a human-readable table. Sections are
    /// "cpu", "memory", "os", "disk", "filesystem" and "network"; unknown
    /// values read "unknown", sizes use binary units ("32 MiB") and
    /// frequencies read like "2.45 GHz". Disks, filesystems and interfaces get
    /// one row each with a compact description.
    pub fn summary_rows(&self) -> Vec<(String, String, String)> {
        let mut rows = Vec::new();
        let mut push = |section: &str, key: &str, value: String| {
            rows.push((section.to_string(), key.to_string(), value));
        };
        let c = &self.cpu;
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
        push("cpu", "numa nodes", opt_num(c.numa_nodes));
        push("cpu", "virtualization", opt_str(&c.virtualization));
        push("cpu", "container", opt_str(&c.container));

        let m = &self.memory;
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

        push("os", "hostname", opt_str(&self.hostname));
        push("os", "kernel", opt_str(&self.os.kernel));
        push("os", "distribution", opt_str(&self.os.distribution));
        push("os", "architecture", self.os.architecture.clone());

        if self.block_devices.is_empty() {
            push("disk", "devices", "none found".to_string());
        }
        for d in &self.block_devices {
            push("disk", &d.name, describe_block_device(d));
        }
        if self.filesystems.is_empty() {
            push("filesystem", "mounts", "none found".to_string());
        }
        for f in &self.filesystems {
            let value = format!(
                "{} on {}, size {}, available {}",
                f.fs_type,
                f.device,
                opt_with(f.size_bytes, format_bytes),
                opt_with(f.available_bytes, format_bytes)
            );
            push("filesystem", &f.mount_point, value);
        }
        if self.network_interfaces.is_empty() {
            push("network", "interfaces", "none found".to_string());
        }
        for n in &self.network_interfaces {
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
        rows
    }
}

// ---------------------------------------------------------------------------
// Formatting helpers for the summary table.

fn is_data_cache(c: &CacheInfo) -> bool {
    c.kind == "Data" || c.kind == "Unified"
}

fn opt_str(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "unknown".to_string())
}

fn opt_num<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "unknown".to_string(), |n| n.to_string())
}

fn opt_hex(v: Option<u32>) -> String {
    v.map_or_else(|| "unknown".to_string(), |n| format!("{n} (0x{n:02x})"))
}

fn opt_with<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map_or_else(|| "unknown".to_string(), f)
}

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

// ---------------------------------------------------------------------------
// File reading helpers: every failure is `None`.

const SYS_CPU: &str = "/sys/devices/system/cpu";

fn read_text(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path).ok()
}

/// The trimmed content of a small file; `None` if unreadable or empty.
fn read_value(path: impl AsRef<Path>) -> Option<String> {
    let text = read_text(path)?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn read_number<T: FromStr>(path: impl AsRef<Path>) -> Option<T> {
    read_value(path)?.parse().ok()
}

/// A frequency file in kHz (cpufreq) as Hz; 0 is unknown.
fn read_khz_as_hz(path: impl AsRef<Path>) -> Option<f64> {
    let khz: u64 = read_number(path)?;
    (khz > 0).then_some(khz as f64 * 1e3)
}

/// Entries of `dir` named `prefix` followed by a decimal number, sorted by it.
fn numbered_entries(dir: &Path, prefix: &str) -> Vec<(u32, PathBuf)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(u32, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name();
            let n = parse_numbered_name(name.to_str()?, prefix)?;
            Some((n, e.path()))
        })
        .collect();
    out.sort_by_key(|(n, _)| *n);
    out
}

/// `parse_numbered_name("cpu12", "cpu") == Some(12)`; "cpufreq" is `None`.
fn parse_numbered_name(name: &str, prefix: &str) -> Option<u32> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Sorted names of the entries of a directory.
fn dir_names(dir: &str) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

fn uname_fields() -> (Option<String>, Option<String>) {
    // SAFETY: utsname is plain old data; all zeroes is a valid value.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable utsname.
    if unsafe { libc::uname(&mut u) } != 0 {
        return (None, None);
    }
    let field = |chars: &[libc::c_char]| -> Option<String> {
        // The kernel NUL-terminates the fields; make sure of it anyway.
        if !chars.contains(&0) {
            return None;
        }
        // SAFETY: the slice holds a NUL within its bounds (checked above).
        let s = unsafe { CStr::from_ptr(chars.as_ptr()) };
        let s = s.to_string_lossy().trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    (field(&u.nodename), field(&u.release))
}

// ---------------------------------------------------------------------------
// CPU

/// What `/proc/cpuinfo` says, summarized.
#[derive(Debug, Clone, PartialEq, Default)]
struct CpuinfoSummary {
    vendor: Option<String>,
    model_name: Option<String>,
    family: Option<u32>,
    model: Option<u32>,
    stepping: Option<u32>,
    /// "cpu MHz" of the first processor.
    mhz: Option<f64>,
    /// Flags of the first processor.
    flags: Vec<String>,
    /// Number of "processor" entries.
    processors: u32,
    /// (physical id, core id) of every processor; empty unless all have both.
    core_pairs: Vec<(u32, u32)>,
    /// Arm "CPU implementer".
    arm_implementer: Option<u32>,
    /// Arm "CPU part".
    arm_part: Option<u32>,
}

fn parse_u32_auto(text: &str) -> Option<u32> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

/// Parses `/proc/cpuinfo` (x86 or Arm layout).
fn parse_cpuinfo(text: &str) -> CpuinfoSummary {
    let mut out = CpuinfoSummary::default();
    let mut pairs = Vec::new();
    let mut all_have_pairs = true;
    let mut first = true;
    for block in text.split("\n\n") {
        let mut fields: BTreeMap<&str, &str> = BTreeMap::new();
        for line in block.lines() {
            if let Some((k, v)) = line.split_once(':') {
                fields.entry(k.trim()).or_insert(v.trim());
            }
        }
        if !fields.contains_key("processor") {
            continue;
        }
        out.processors += 1;
        match (
            fields
                .get("physical id")
                .and_then(|v| v.parse::<u32>().ok()),
            fields.get("core id").and_then(|v| v.parse::<u32>().ok()),
        ) {
            (Some(p), Some(c)) => pairs.push((p, c)),
            _ => all_have_pairs = false,
        }
        if !first {
            continue;
        }
        first = false;
        let text_field = |k: &str| {
            fields
                .get(k)
                .filter(|v| !v.is_empty())
                .map(|v| v.to_string())
        };
        out.vendor = text_field("vendor_id");
        out.model_name = text_field("model name");
        out.family = fields.get("cpu family").and_then(|v| v.parse().ok());
        out.model = fields.get("model").and_then(|v| v.parse().ok());
        out.stepping = fields.get("stepping").and_then(|v| v.parse().ok());
        out.mhz = fields
            .get("cpu MHz")
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|m| *m > 0.0 && m.is_finite());
        out.flags = fields
            .get("flags")
            .or_else(|| fields.get("Features"))
            .map(|v| v.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        out.arm_implementer = fields
            .get("CPU implementer")
            .and_then(|v| parse_u32_auto(v));
        out.arm_part = fields.get("CPU part").and_then(|v| parse_u32_auto(v));
    }
    if all_have_pairs {
        out.core_pairs = pairs;
    }
    out
}

/// (sockets, physical cores, threads per core) from the (package, core) pair
/// of every online CPU; all `None` for an empty list.
fn topology_from_pairs(pairs: &[(u32, u32)]) -> (Option<u32>, Option<u32>, Option<u32>) {
    if pairs.is_empty() {
        return (None, None, None);
    }
    let mut per_core: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for &p in pairs {
        *per_core.entry(p).or_default() += 1;
    }
    let sockets: BTreeSet<u32> = pairs.iter().map(|(s, _)| *s).collect();
    (
        u32::try_from(sockets.len()).ok(),
        u32::try_from(per_core.len()).ok(),
        per_core.values().copied().max(),
    )
}

/// Expands a kernel CPU list ("0-3,8,10-11") into CPU numbers; `None` if it
/// is malformed. An empty list is `Some(vec![])`.
fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in text.trim().split(',').map(str::trim) {
        if part.is_empty() {
            continue;
        }
        match part.split_once('-') {
            Some((lo, hi)) => {
                let lo: u32 = lo.trim().parse().ok()?;
                let hi: u32 = hi.trim().parse().ok()?;
                if hi < lo || hi - lo > 1 << 20 {
                    return None;
                }
                out.extend(lo..=hi);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

/// The SIMD features (see [`CpuInfo::simd`]) present in `flags`, in the
/// fixed order. Linux spells SSE3 "pni".
fn simd_subset(flags: &[String]) -> Vec<String> {
    const ORDER: [&str; 21] = [
        "sse",
        "sse2",
        "sse3",
        "ssse3",
        "sse4_1",
        "sse4_2",
        "avx",
        "avx2",
        "fma",
        "avx512f",
        "avx512dq",
        "avx512bw",
        "avx512vl",
        "avx512_fp16",
        "avx512_bf16",
        "amx_tile",
        "amx_bf16",
        "amx_int8",
        "asimd",
        "sve",
        "sve2",
    ];
    let have: BTreeSet<&str> = flags.iter().map(String::as_str).collect();
    ORDER
        .iter()
        .filter(|f| have.contains(**f) || (**f == "sse3" && have.contains("pni")))
        .map(|f| f.to_string())
        .collect()
}

/// Microarchitecture or code name of an x86 processor from its vendor
/// string, family, model and stepping; `None` when not in the table.
fn microarchitecture(
    vendor: &str,
    family: u32,
    model: u32,
    stepping: Option<u32>,
) -> Option<&'static str> {
    match (vendor, family) {
        ("GenuineIntel", 6) => intel_family6(model, stepping),
        ("GenuineIntel", 19) => match model {
            0x01 => Some("Diamond Rapids"),
            _ => None,
        },
        ("AuthenticAMD", f) => amd(f, model),
        ("HygonGenuine", 0x18) => Some("Zen (Hygon Dhyana)"),
        _ => None,
    }
}

fn intel_family6(model: u32, stepping: Option<u32>) -> Option<&'static str> {
    Some(match model {
        0x0F | 0x16 => "Core (Merom)",
        0x17 | 0x1D => "Penryn",
        0x1A | 0x1E | 0x1F | 0x2E => "Nehalem",
        0x25 | 0x2C | 0x2F => "Westmere",
        0x2A | 0x2D => "Sandy Bridge",
        0x3A | 0x3E => "Ivy Bridge",
        0x3C | 0x3F | 0x45 | 0x46 => "Haswell",
        0x3D | 0x47 | 0x4F | 0x56 => "Broadwell",
        0x4E | 0x5E => "Skylake",
        0x8E => match stepping {
            Some(11) => "Whiskey Lake",
            Some(s) if s >= 12 => "Comet Lake",
            _ => "Kaby Lake",
        },
        0x9E => match stepping {
            Some(s) if s >= 10 => "Coffee Lake",
            _ => "Kaby Lake",
        },
        0xA5 | 0xA6 => "Comet Lake",
        0x66 => "Cannon Lake",
        0x7D | 0x7E => "Ice Lake",
        0x8C | 0x8D => "Tiger Lake",
        0xA7 => "Rocket Lake",
        0x8A => "Lakefield",
        0x97 | 0x9A => "Alder Lake",
        0xBE => "Alder Lake-N",
        0xB7 | 0xBA | 0xBF => "Raptor Lake",
        0xAA | 0xAC => "Meteor Lake",
        0xBD => "Lunar Lake",
        0xC5 | 0xC6 => "Arrow Lake",
        0xCC => "Panther Lake",
        // Server.
        0x55 => match stepping {
            Some(0..=4) => "Skylake-SP",
            Some(5..=7) => "Cascade Lake",
            Some(10 | 11) => "Cooper Lake",
            _ => "Skylake-SP/Cascade Lake",
        },
        0x6A => "Ice Lake-SP",
        0x6C => "Ice Lake-D",
        0x8F => "Sapphire Rapids",
        0xCF => "Emerald Rapids",
        0xAD => "Granite Rapids",
        0xAE => "Granite Rapids-D",
        0xAF => "Sierra Forest",
        0xB6 => "Grand Ridge",
        0xDD => "Clearwater Forest",
        // Xeon Phi.
        0x57 => "Knights Landing",
        0x85 => "Knights Mill",
        // Atom.
        0x37 | 0x4A | 0x4D | 0x5A | 0x5D => "Silvermont",
        0x4C => "Airmont",
        0x5C | 0x5F => "Goldmont",
        0x7A => "Goldmont Plus",
        0x86 | 0x96 | 0x9C => "Tremont",
        _ => return None,
    })
}

/// AMD families 0x10 to 0x1A; Zen model ranges as in Linux's
/// `arch/x86/kernel/cpu/amd.c`.
fn amd(family: u32, model: u32) -> Option<&'static str> {
    Some(match (family, model) {
        (0x10, _) => "K10",
        (0x12, _) => "K10 (Llano)",
        (0x14, _) => "Bobcat",
        (0x15, 0x00..=0x01) => "Bulldozer",
        (0x15, 0x02..=0x1F) => "Piledriver",
        (0x15, 0x30..=0x3F) => "Steamroller",
        (0x15, 0x60..=0x7F) => "Excavator",
        (0x16, 0x00..=0x0F) => "Jaguar",
        (0x16, 0x30..=0x3F) => "Puma",
        (0x17, 0x08 | 0x18) => "Zen+",
        (0x17, 0x00..=0x2F | 0x50..=0x5F) => "Zen",
        (0x17, 0x30..=0x4F | 0x60..=0x7F | 0x90..=0x91 | 0xA0..=0xAF) => "Zen 2",
        (0x19, 0x40..=0x4F) => "Zen 3+",
        (0x19, 0x00..=0x0F | 0x20..=0x5F) => "Zen 3",
        (0x19, 0x10..=0x1F | 0x60..=0xAF) => "Zen 4",
        (0x1A, 0x00..=0x2F | 0x40..=0x4F | 0x60..=0x7F) => "Zen 5",
        (0x1A, 0x50..=0x5F | 0x80..=0xAF | 0xC0..=0xCF) => "Zen 6",
        _ => return None,
    })
}

/// Name of an Arm "CPU implementer" code.
fn arm_vendor(implementer: u32) -> Option<&'static str> {
    Some(match implementer {
        0x41 => "ARM",
        0x42 => "Broadcom",
        0x43 => "Cavium",
        0x46 => "Fujitsu",
        0x48 => "HiSilicon",
        0x4E => "NVIDIA",
        0x50 => "APM",
        0x51 => "Qualcomm",
        0x61 => "Apple",
        0x6D => "Microsoft",
        0xC0 => "Ampere",
        _ => return None,
    })
}

/// Core name of an Arm implementer/part pair.
fn arm_microarchitecture(implementer: u32, part: u32) -> Option<&'static str> {
    Some(match (implementer, part) {
        (0x41, 0xD03) => "Cortex-A53",
        (0x41, 0xD07) => "Cortex-A57",
        (0x41, 0xD08) => "Cortex-A72",
        (0x41, 0xD0B) => "Cortex-A76",
        (0x41, 0xD0C) => "Neoverse N1",
        (0x41, 0xD0D) => "Cortex-A77",
        (0x41, 0xD40) => "Neoverse V1",
        (0x41, 0xD41) => "Cortex-A78",
        (0x41, 0xD49) => "Neoverse N2",
        (0x41, 0xD4F) => "Neoverse V2",
        (0x41, 0xD84) => "Neoverse V3",
        (0x41, 0xD8E) => "Neoverse N3",
        (0x43, 0x0AF) => "ThunderX2",
        (0x46, 0x001) => "A64FX",
        (0x48, 0xD01) => "TaiShan v110",
        (0x4E, 0x004) => "Carmel",
        (0xC0, 0xAC3) => "AmpereOne",
        _ => return None,
    })
}

/// Hypervisor name from the 12-byte CPUID 0x40000000 vendor signature; an
/// unknown but printable signature is returned as is.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // used by the x86_64 CPUID probe and tests
fn hypervisor_from_signature(sig: &[u8]) -> Option<String> {
    let known = match sig {
        b"KVMKVMKVM\0\0\0" | b"Linux KVM Hv" => Some("KVM"),
        b"Microsoft Hv" => Some("Microsoft"),
        b"VMwareVMware" => Some("VMware"),
        b"XenVMMXenVMM" => Some("Xen"),
        b"TCGTCGTCGTCG" => Some("QEMU"),
        b"bhyve bhyve " => Some("bhyve"),
        b"ACRNACRNACRN" => Some("ACRN"),
        b"VBoxVBoxVBox" => Some("VirtualBox"),
        b" lrpepyh  vr" => Some("Parallels"),
        b"QNXQVMBSQG\0\0" => Some("QNX"),
        b"Jailhouse\0\0\0" => Some("Jailhouse"),
        _ => None,
    };
    if let Some(name) = known {
        return Some(name.to_string());
    }
    let text = std::str::from_utf8(sig).ok()?.trim_matches(['\0', ' ']);
    (!text.is_empty() && text.chars().all(|c| c.is_ascii_graphic() || c == ' '))
        .then(|| text.to_string())
}

/// Hypervisor from the DMI system vendor and product name; only known
/// virtual-machine vendors, so bare-metal vendors give `None`.
fn hypervisor_from_dmi(sys_vendor: Option<&str>, product: Option<&str>) -> Option<&'static str> {
    let vendor = sys_vendor.unwrap_or("");
    let product = product.unwrap_or("");
    if product.starts_with("KVM") || vendor.starts_with("KVM") {
        Some("KVM")
    } else if vendor.starts_with("QEMU") {
        Some("QEMU")
    } else if vendor.starts_with("VMware") {
        Some("VMware")
    } else if vendor.starts_with("Xen") {
        Some("Xen")
    } else if vendor.starts_with("Microsoft") && product == "Virtual Machine" {
        Some("Microsoft")
    } else if vendor.starts_with("innotek") || product == "VirtualBox" {
        Some("VirtualBox")
    } else if vendor.starts_with("Parallels") {
        Some("Parallels")
    } else {
        None
    }
}

/// Inputs of [`detect_virtualization`], read from the system.
#[derive(Debug, Default)]
struct VirtEvidence<'a> {
    /// Whether this is an x86 CPU whose flags were read.
    x86_flags_known: bool,
    /// The "hypervisor" flag.
    hypervisor_flag: bool,
    /// Hypervisor named by CPUID 0x40000000.
    cpuid_hypervisor: Option<&'a str>,
    /// `/sys/hypervisor/type`.
    sys_hypervisor_type: Option<&'a str>,
    /// `/sys/class/dmi/id/sys_vendor`.
    dmi_vendor: Option<&'a str>,
    /// `/sys/class/dmi/id/product_name`.
    dmi_product: Option<&'a str>,
}

fn detect_virtualization(e: &VirtEvidence) -> Option<String> {
    if let Some(name) = e.cpuid_hypervisor {
        return Some(name.to_string());
    }
    if let Some(t) = e.sys_hypervisor_type {
        return Some(match t {
            "xen" => "Xen".to_string(),
            other => other.to_string(),
        });
    }
    if let Some(name) = hypervisor_from_dmi(e.dmi_vendor, e.dmi_product) {
        return Some(name.to_string());
    }
    if e.hypervisor_flag {
        return Some("unknown hypervisor".to_string());
    }
    e.x86_flags_known.then(|| "none".to_string())
}

/// Container runtime from its markers; `None` when there is none.
fn detect_container(
    systemd_container: Option<&str>,
    containerenv: bool,
    dockerenv: bool,
    kubernetes: bool,
) -> Option<String> {
    if let Some(name) = systemd_container.map(str::trim).filter(|s| !s.is_empty()) {
        return Some(name.to_string());
    }
    if containerenv {
        Some("podman".to_string())
    } else if dockerenv {
        Some("docker".to_string())
    } else if kubernetes {
        Some("kubernetes".to_string())
    } else {
        None
    }
}

/// What CPUID says (x86_64 only; everything `None` elsewhere).
#[derive(Debug, Clone, Default)]
struct CpuidProbe {
    vendor: Option<String>,
    family: Option<u32>,
    model: Option<u32>,
    stepping: Option<u32>,
    brand: Option<String>,
    base_mhz: Option<u32>,
    hypervisor: Option<String>,
}

/// Text of CPUID register bytes, NULs and padding spaces removed.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // used by the x86_64 CPUID probe and tests
fn cpuid_text(bytes: &[u8]) -> Option<String> {
    let s = String::from_utf8_lossy(bytes);
    let s = s.trim_matches(['\0', ' ']).trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// (family, model, stepping) from CPUID leaf 1 EAX.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // used by the x86_64 CPUID probe and tests
fn decode_signature(eax: u32) -> (u32, u32, u32) {
    let stepping = eax & 0xF;
    let base_model = (eax >> 4) & 0xF;
    let base_family = (eax >> 8) & 0xF;
    let ext_model = (eax >> 16) & 0xF;
    let ext_family = (eax >> 20) & 0xFF;
    let family = if base_family == 0xF {
        base_family + ext_family
    } else {
        base_family
    };
    let model = if base_family == 0x6 || base_family == 0xF {
        (ext_model << 4) | base_model
    } else {
        base_model
    };
    (family, model, stepping)
}

#[cfg(target_arch = "x86_64")]
fn cpuid_probe() -> CpuidProbe {
    use std::arch::x86_64::{__cpuid_count, CpuidResult};

    #[allow(unused_unsafe)]
    fn cpuid(leaf: u32, sub_leaf: u32) -> CpuidResult {
        // SAFETY: the CPUID instruction exists on every x86_64 processor.
        unsafe { __cpuid_count(leaf, sub_leaf) }
    }
    fn regs_bytes(regs: &[u32]) -> Vec<u8> {
        regs.iter().flat_map(|r| r.to_le_bytes()).collect()
    }

    let mut probe = CpuidProbe::default();
    let leaf0 = cpuid(0, 0);
    let max_leaf = leaf0.eax;
    probe.vendor = cpuid_text(&regs_bytes(&[leaf0.ebx, leaf0.edx, leaf0.ecx]));
    let mut hypervisor_bit = false;
    if max_leaf >= 1 {
        let leaf1 = cpuid(1, 0);
        let (family, model, stepping) = decode_signature(leaf1.eax);
        probe.family = Some(family);
        probe.model = Some(model);
        probe.stepping = Some(stepping);
        hypervisor_bit = leaf1.ecx & (1 << 31) != 0;
    }
    if max_leaf >= 0x16 {
        let mhz = cpuid(0x16, 0).eax & 0xFFFF;
        probe.base_mhz = (mhz > 0).then_some(mhz);
    }
    let max_ext = cpuid(0x8000_0000, 0).eax;
    if max_ext >= 0x8000_0004 {
        let mut bytes = Vec::with_capacity(48);
        for leaf in 0x8000_0002..=0x8000_0004 {
            let r = cpuid(leaf, 0);
            bytes.extend(regs_bytes(&[r.eax, r.ebx, r.ecx, r.edx]));
        }
        probe.brand = cpuid_text(&bytes);
    }
    if hypervisor_bit {
        let h = cpuid(0x4000_0000, 0);
        let mut name = hypervisor_from_signature(&regs_bytes(&[h.ebx, h.ecx, h.edx]));
        if name.as_deref() == Some("Microsoft") {
            // KVM with Hyper-V enlightenments shows Hyper-V first and its own
            // signature at 0x40000100.
            let k = cpuid(0x4000_0100, 0);
            if hypervisor_from_signature(&regs_bytes(&[k.ebx, k.ecx, k.edx])).as_deref()
                == Some("KVM")
            {
                name = Some("KVM".to_string());
            }
        }
        probe.hypervisor = name;
    }
    probe
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_probe() -> CpuidProbe {
    CpuidProbe::default()
}

/// Parses a sysfs cache size ("32K", "1M", "512") into bytes.
fn parse_cache_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, mult) = match t.chars().last()? {
        'K' | 'k' => (&t[..t.len() - 1], 1u64 << 10),
        'M' | 'm' => (&t[..t.len() - 1], 1u64 << 20),
        'G' | 'g' => (&t[..t.len() - 1], 1u64 << 30),
        _ => (t, 1),
    };
    let n: u64 = digits.trim().parse().ok()?;
    n.checked_mul(mult).filter(|b| *b > 0)
}

/// Number of distinct sharing groups among `shared_cpu_list` texts (one per
/// CPU that has the cache); malformed lists are ignored.
fn count_cache_instances<'a>(lists: impl IntoIterator<Item = &'a str>) -> Option<u32> {
    let groups: BTreeSet<Vec<u32>> = lists
        .into_iter()
        .filter_map(parse_cpu_list)
        .filter(|g| !g.is_empty())
        .collect();
    u32::try_from(groups.len()).ok().filter(|n| *n > 0)
}

/// Sort order of cache kinds within a level: data, instruction, unified.
fn cache_kind_rank(kind: &str) -> u8 {
    match kind {
        "Data" => 0,
        "Instruction" => 1,
        "Unified" => 2,
        _ => 3,
    }
}

fn collect_caches(cpu_dirs: &[PathBuf]) -> Vec<CacheInfo> {
    // Per (level, kind): the shared_cpu_list of every CPU.
    let mut lists: BTreeMap<(u32, String), Vec<String>> = BTreeMap::new();
    let mut caches: Vec<CacheInfo> = Vec::new();
    for (i, cpu) in cpu_dirs.iter().enumerate() {
        for (_, index) in numbered_entries(&cpu.join("cache"), "index") {
            let Some(level) = read_number::<u32>(index.join("level")) else {
                continue;
            };
            let Some(kind) = read_value(index.join("type")) else {
                continue;
            };
            if let Some(list) = read_value(index.join("shared_cpu_list")) {
                lists.entry((level, kind.clone())).or_default().push(list);
            }
            // Sizes as the first CPU sees them.
            if i == 0 {
                let Some(size_bytes) =
                    read_value(index.join("size")).and_then(|s| parse_cache_size(&s))
                else {
                    continue;
                };
                caches.push(CacheInfo {
                    level,
                    kind,
                    size_bytes,
                    instances: None,
                    line_size_bytes: read_number::<u32>(index.join("coherency_line_size"))
                        .filter(|n| *n > 0),
                });
            }
        }
    }
    for cache in &mut caches {
        cache.instances = lists
            .get(&(cache.level, cache.kind.clone()))
            .and_then(|l| count_cache_instances(l.iter().map(String::as_str)));
    }
    caches.sort_by(|a, b| {
        (a.level, cache_kind_rank(&a.kind)).cmp(&(b.level, cache_kind_rank(&b.kind)))
    });
    caches
}

fn collect_cpu() -> CpuInfo {
    let info = read_text("/proc/cpuinfo")
        .map(|t| parse_cpuinfo(&t))
        .unwrap_or_default();
    let probe = cpuid_probe();
    let sys_cpu = Path::new(SYS_CPU);

    let online = read_value(sys_cpu.join("online")).and_then(|t| parse_cpu_list(&t));
    let available_parallelism = std::thread::available_parallelism()
        .ok()
        .and_then(|n| u32::try_from(n.get()).ok());
    let logical_cpus = online
        .as_ref()
        .and_then(|l| u32::try_from(l.len()).ok())
        .filter(|n| *n > 0)
        .or((info.processors > 0).then_some(info.processors))
        .or(available_parallelism)
        .unwrap_or(1);

    // Directories of the online CPUs (all cpuN when the online list is unknown).
    let cpu_dirs: Vec<PathBuf> = numbered_entries(sys_cpu, "cpu")
        .into_iter()
        .filter(|(n, _)| online.as_ref().is_none_or(|l| l.contains(n)))
        .map(|(_, p)| p)
        .collect();

    // Topology: /proc/cpuinfo, else sysfs.
    let mut pairs = info.core_pairs.clone();
    if pairs.is_empty() {
        pairs = cpu_dirs
            .iter()
            .map(|d| {
                let package: i64 = read_number(d.join("topology/physical_package_id"))?;
                let core: i64 = read_number(d.join("topology/core_id"))?;
                Some((u32::try_from(package).ok()?, u32::try_from(core).ok()?))
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default();
    }
    let (sockets, physical_cores, threads_per_core) = topology_from_pairs(&pairs);

    let vendor = info
        .vendor
        .clone()
        .or_else(|| probe.vendor.clone())
        .or_else(|| {
            info.arm_implementer
                .and_then(arm_vendor)
                .map(str::to_string)
        });
    let family = info.family.or(probe.family);
    let model = info.model.or(probe.model);
    let stepping = info.stepping.or(probe.stepping);
    let microarchitecture = match (&vendor, family, model) {
        (Some(v), Some(f), Some(m)) => microarchitecture(v, f, m, stepping),
        _ => None,
    }
    .or_else(|| arm_microarchitecture(info.arm_implementer?, info.arm_part?))
    .map(str::to_string);

    let cpufreq = sys_cpu.join("cpu0/cpufreq");
    let has_cpufreq = cpufreq.is_dir();
    let mhz_hz = info.mhz.map(|m| m * 1e6);
    let base_frequency_hz = read_khz_as_hz(cpufreq.join("base_frequency"))
        .or_else(|| {
            let mhz: u64 = read_number(sys_cpu.join("cpu0/acpi_cppc/nominal_freq"))?;
            (mhz > 0).then_some(mhz as f64 * 1e6)
        })
        .or(if has_cpufreq { None } else { mhz_hz })
        .or(probe.base_mhz.map(|m| f64::from(m) * 1e6));
    let max_frequency_hz = read_khz_as_hz(cpufreq.join("cpuinfo_max_freq"));
    let current_frequency_hz = read_khz_as_hz(cpufreq.join("scaling_cur_freq")).or(mhz_hz);

    let numa = numbered_entries(Path::new("/sys/devices/system/node"), "node").len();
    let numa_nodes = u32::try_from(numa).ok().filter(|n| *n > 0);

    let is_x86 = cfg!(any(target_arch = "x86_64", target_arch = "x86"));
    let sys_hypervisor_type = read_value("/sys/hypervisor/type");
    let dmi_vendor = read_value("/sys/class/dmi/id/sys_vendor");
    let dmi_product = read_value("/sys/class/dmi/id/product_name");
    let virtualization = detect_virtualization(&VirtEvidence {
        x86_flags_known: is_x86 && !info.flags.is_empty(),
        hypervisor_flag: info.flags.iter().any(|f| f == "hypervisor"),
        cpuid_hypervisor: probe.hypervisor.as_deref(),
        sys_hypervisor_type: sys_hypervisor_type.as_deref(),
        dmi_vendor: dmi_vendor.as_deref(),
        dmi_product: dmi_product.as_deref(),
    });
    let container = detect_container(
        read_value("/run/systemd/container").as_deref(),
        Path::new("/run/.containerenv").exists(),
        Path::new("/.dockerenv").exists(),
        std::env::var_os("KUBERNETES_SERVICE_HOST").is_some(),
    );

    CpuInfo {
        vendor,
        model_name: info.model_name.clone().or(probe.brand),
        family,
        model,
        stepping,
        microarchitecture,
        sockets,
        physical_cores,
        logical_cpus,
        available_parallelism,
        threads_per_core,
        base_frequency_hz,
        max_frequency_hz,
        current_frequency_hz,
        caches: collect_caches(&cpu_dirs),
        simd: simd_subset(&info.flags),
        flags: info.flags,
        governor: read_value(cpufreq.join("scaling_governor")),
        numa_nodes,
        virtualization,
        container,
    }
}

// ---------------------------------------------------------------------------
// Memory and OS

/// The bracketed choice of a sysfs selector ("always [madvise] never" gives
/// "madvise"); a file holding a single bare word gives that word.
fn parse_bracketed(text: &str) -> Option<String> {
    let t = text.trim();
    if let Some(start) = t.find('[') {
        let rest = &t[start + 1..];
        let end = rest.find(']')?;
        let inner = rest[..end].trim();
        return (!inner.is_empty()).then(|| inner.to_string());
    }
    let mut words = t.split_whitespace();
    match (words.next(), words.next()) {
        (Some(w), None) => Some(w.to_string()),
        _ => None,
    }
}

/// The fields of `/proc/meminfo` nodebench keeps, in bytes.
#[derive(Debug, Clone, PartialEq, Default)]
struct MeminfoSummary {
    total: Option<u64>,
    available: Option<u64>,
    swap_total: Option<u64>,
    hugepage_size: Option<u64>,
}

/// Parses `/proc/meminfo` ("MemTotal:  16384 kB" lines).
fn parse_meminfo(text: &str) -> MeminfoSummary {
    let mut out = MeminfoSummary::default();
    for line in text.lines() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let Some(n) = parts.next().and_then(|n| n.parse::<u64>().ok()) else {
            continue;
        };
        let bytes = match parts.next() {
            Some("kB") => n.checked_mul(1024),
            Some("mB") => n.checked_mul(1 << 20),
            None => Some(n),
            Some(_) => None,
        };
        match key.trim() {
            "MemTotal" => out.total = bytes,
            "MemAvailable" => out.available = bytes,
            "SwapTotal" => out.swap_total = bytes,
            "Hugepagesize" => out.hugepage_size = bytes,
            _ => {}
        }
    }
    out
}

/// Memory available to a new allocation now (`MemAvailable`), read fresh;
/// benchmarks check it before allocating large buffers.
pub fn available_memory_bytes() -> Option<u64> {
    read_text("/proc/meminfo").and_then(|t| parse_meminfo(&t).available)
}

fn collect_memory() -> MemoryInfo {
    let m = read_text("/proc/meminfo")
        .map(|t| parse_meminfo(&t))
        .unwrap_or_default();
    MemoryInfo {
        total_bytes: m.total,
        available_bytes: m.available,
        swap_total_bytes: m.swap_total,
        transparent_hugepages: read_text("/sys/kernel/mm/transparent_hugepage/enabled")
            .and_then(|t| parse_bracketed(&t)),
        hugepage_size_bytes: m.hugepage_size.filter(|n| *n > 0),
    }
}

/// `PRETTY_NAME` of an os-release file (else `NAME` + `VERSION`), unquoted.
fn parse_os_release(text: &str) -> Option<String> {
    let mut fields: BTreeMap<&str, String> = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            fields.insert(k.trim(), unquote_shell(v.trim()));
        }
    }
    let non_empty = |k: &str| fields.get(k).filter(|v| !v.is_empty()).cloned();
    non_empty("PRETTY_NAME").or_else(|| {
        let name = non_empty("NAME")?;
        Some(match non_empty("VERSION") {
            Some(v) => format!("{name} {v}"),
            None => name,
        })
    })
}

/// Removes shell-style quotes and backslash escapes from an os-release value.
fn unquote_shell(v: &str) -> String {
    let inner = if v.len() >= 2
        && ((v.starts_with('"') && v.ends_with('"')) || (v.starts_with('\'') && v.ends_with('\'')))
    {
        &v[1..v.len() - 1]
    } else {
        v
    };
    if v.starts_with('\'') {
        return inner.to_string();
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Block devices, filesystems, network

fn collect_block_devices() -> Vec<BlockDevice> {
    let mut out = Vec::new();
    for name in dir_names("/sys/block") {
        let dir = Path::new("/sys/block").join(&name);
        let size_bytes = read_number::<u64>(dir.join("size")).and_then(|s| s.checked_mul(512));
        let virtual_kind = ["loop", "ram", "zram"].iter().any(|p| name.starts_with(p));
        if virtual_kind && size_bytes == Some(0) {
            continue;
        }
        let queue = dir.join("queue");
        out.push(BlockDevice {
            model: read_value(dir.join("device/model")),
            size_bytes,
            rotational: match read_value(queue.join("rotational")).as_deref() {
                Some("1") => Some(true),
                Some("0") => Some(false),
                _ => None,
            },
            scheduler: read_text(queue.join("scheduler")).and_then(|t| parse_bracketed(&t)),
            write_cache: read_value(queue.join("write_cache")),
            logical_block_size: read_number(queue.join("logical_block_size")),
            physical_block_size: read_number(queue.join("physical_block_size")),
            name,
        });
    }
    out
}

/// Filesystem types that hold no files of their own (kernel interfaces).
const PSEUDO_FILESYSTEMS: &[&str] = &[
    "proc",
    "sysfs",
    "devtmpfs",
    "devpts",
    "mqueue",
    "securityfs",
    "debugfs",
    "tracefs",
    "pstore",
    "bpf",
    "configfs",
    "fusectl",
    "hugetlbfs",
    "autofs",
    "binfmt_misc",
    "nsfs",
    "efivarfs",
    "selinuxfs",
    "smackfs",
    "rpc_pipefs",
    "nfsd",
    "rootfs",
    "resctrl",
    "cpuset",
    "xenfs",
    "fuse.lxcfs",
    "functionfs",
    "gadgetfs",
];

/// Network filesystem types whose statvfs may hang on a dead server.
const NETWORK_FILESYSTEMS: &[&str] = &[
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "ceph",
    "glusterfs",
    "fuse.sshfs",
    "fuse.glusterfs",
    "9p",
    "lustre",
    "gpfs",
    "beegfs",
    "afs",
];

fn is_pseudo_filesystem(fs_type: &str) -> bool {
    PSEUDO_FILESYSTEMS.contains(&fs_type) || fs_type.starts_with("cgroup")
}

/// Decodes the octal escapes of `/proc/self/mounts` ("\040" is a space).
fn unescape_mount_field(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let v = u32::from(bytes[i + 1] - b'0') * 64
                + u32::from(bytes[i + 2] - b'0') * 8
                + u32::from(bytes[i + 3] - b'0');
            if let Ok(b) = u8::try_from(v) {
                out.push(b);
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `(device, mount point, type)` of the real filesystems in a mounts table,
/// one per mount point (the last mount on a point is the visible one).
fn parse_mounts(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let (Some(device), Some(mount_point), Some(fs_type)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if is_pseudo_filesystem(fs_type) {
            continue;
        }
        let entry = (
            unescape_mount_field(device),
            unescape_mount_field(mount_point),
            fs_type.to_string(),
        );
        out.retain(|(_, m, _)| *m != entry.1);
        out.push(entry);
    }
    out
}

/// Total and available bytes of the filesystem holding `path`.
#[allow(clippy::unnecessary_cast)] // statvfs field widths differ between targets
fn statvfs_sizes(path: &str) -> (Option<u64>, Option<u64>) {
    let Ok(c_path) = CString::new(path) else {
        return (None, None);
    };
    // SAFETY: statvfs is plain old data; all zeroes is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c_path` is NUL-terminated and `st` is a valid, writable statvfs.
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut st) } != 0 {
        return (None, None);
    }
    let frsize = if st.f_frsize > 0 {
        st.f_frsize as u64
    } else {
        st.f_bsize as u64
    };
    if frsize == 0 {
        return (None, None);
    }
    (
        (st.f_blocks as u64).checked_mul(frsize),
        (st.f_bavail as u64).checked_mul(frsize),
    )
}

/// [`statvfs_sizes`] on a helper thread, given up after `timeout` (for
/// network filesystems, whose server may not answer).
fn statvfs_sizes_with_timeout(path: &str, timeout: Duration) -> (Option<u64>, Option<u64>) {
    let (tx, rx) = mpsc::channel();
    let owned = path.to_string();
    let spawned = std::thread::Builder::new()
        .name("inventory-statvfs".to_string())
        .spawn(move || {
            let _ = tx.send(statvfs_sizes(&owned));
        });
    if spawned.is_err() {
        return (None, None);
    }
    rx.recv_timeout(timeout).unwrap_or((None, None))
}

fn collect_filesystems() -> Vec<Filesystem> {
    let Some(text) = read_text("/proc/self/mounts").or_else(|| read_text("/proc/mounts")) else {
        return Vec::new();
    };
    parse_mounts(&text)
        .into_iter()
        .map(|(device, mount_point, fs_type)| {
            let (size_bytes, available_bytes) = if NETWORK_FILESYSTEMS.contains(&fs_type.as_str()) {
                statvfs_sizes_with_timeout(&mount_point, Duration::from_secs(2))
            } else {
                statvfs_sizes(&mount_point)
            };
            Filesystem {
                device,
                mount_point,
                fs_type,
                size_bytes,
                available_bytes,
            }
        })
        .collect()
}

/// A link speed from `/sys/class/net/X/speed`; negative (-1 = unknown) or
/// malformed gives `None`.
fn parse_speed(text: &str) -> Option<u64> {
    let v: i64 = text.trim().parse().ok()?;
    u64::try_from(v).ok()
}

fn collect_network_interfaces() -> Vec<NetworkInterface> {
    dir_names("/sys/class/net")
        .into_iter()
        .filter_map(|name| {
            let dir = Path::new("/sys/class/net").join(&name);
            // Skip stray files (e.g. bonding_masters).
            if !dir.join("operstate").exists() && !dir.join("mtu").exists() {
                return None;
            }
            Some(NetworkInterface {
                mtu: read_number(dir.join("mtu")),
                speed_mbps: read_text(dir.join("speed")).and_then(|t| parse_speed(&t)),
                driver: fs::read_link(dir.join("device/driver"))
                    .ok()
                    .and_then(|p| p.file_name()?.to_str().map(str::to_string)),
                operstate: read_value(dir.join("operstate")),
                mac: read_value(dir.join("address")),
                name,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two-socket Intel Xeon Platinum 8380 (Ice Lake-SP), excerpt: two cores
    /// per socket with two threads each.
    fn intel_cpuinfo() -> String {
        let flags = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 \
            clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm \
            constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid \
            aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 \
            xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave \
            avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb cat_l3 invpcid_single \
            ssbd mba ibrs ibpb stibp ibrs_enhanced tpr_shadow vnmi flexpriority ept vpid \
            ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid cqm rdt_a avx512f \
            avx512dq rdseed adx smap avx512ifma clflushopt clwb intel_pt avx512cd sha_ni \
            avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc \
            cqm_mbm_total cqm_mbm_local split_lock_detect wbnoinvd dtherm ida arat pln pts \
            avx512vbmi umip pku ospke avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni \
            avx512_bitalg tme avx512_vpopcntdq la57 rdpid fsrm md_clear pconfig flush_l1d \
            arch_capabilities";
        let mut text = String::new();
        // (physical id, core id) of processors 0..4; 4..8 are their
        // hyper-thread siblings.
        let topology = [(0, 0), (0, 1), (1, 0), (1, 1)];
        for proc_id in 0..8 {
            let (socket, core) = topology[proc_id % 4];
            text.push_str(&format!(
                "processor\t: {proc_id}\n\
                 vendor_id\t: GenuineIntel\n\
                 cpu family\t: 6\n\
                 model\t\t: 106\n\
                 model name\t: Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz\n\
                 stepping\t: 6\n\
                 microcode\t: 0xd0003a5\n\
                 cpu MHz\t\t: 2300.000\n\
                 cache size\t: 61440 KB\n\
                 physical id\t: {socket}\n\
                 siblings\t: 4\n\
                 core id\t\t: {core}\n\
                 cpu cores\t: 2\n\
                 apicid\t\t: {proc_id}\n\
                 fpu\t\t: yes\n\
                 fpu_exception\t: yes\n\
                 cpuid level\t: 27\n\
                 wp\t\t: yes\n\
                 flags\t\t: {flags}\n\
                 bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs\n\
                 bogomips\t: 4600.00\n\
                 clflush size\t: 64\n\
                 cache_alignment\t: 64\n\
                 address sizes\t: 46 bits physical, 57 bits virtual\n\
                 power management:\n\n"
            ));
        }
        text
    }

    /// AMD EPYC 7763 (Milan) excerpt: one socket, two cores, two threads each.
    const AMD_CPUINFO: &str = "processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC 7763 64-Core Processor
stepping\t: 1
microcode\t: 0xa0011d1
cpu MHz\t\t: 2445.428
cache size\t: 512 KB
physical id\t: 0
siblings\t: 4
core id\t\t: 0
cpu cores\t: 2
apicid\t\t: 0
initial apicid\t: 0
fpu\t\t: yes
fpu_exception\t: yes
cpuid level\t: 16
wp\t\t: yes
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl nonstop_tsc cpuid extd_apicid aperfmperf rapl pni pclmulqdq monitor ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy svm extapic cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw ibs skinit wdt tce topoext perfctr_core perfctr_nb bpext perfctr_llc mwaitx cpb cat_l3 cdp_l3 invpcid_single hw_pstate ssbd mba ibrs ibpb stibp vmmcall fsgsbase bmi1 avx2 smep bmi2 erms invpcid cqm rdt_a rdseed adx smap clflushopt clwb sha_ni xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local clzero irperf xsaveerptr rdpru wbnoinvd amd_ppin arat npt lbrv svm_lock nrip_save tsc_scale vmcb_clean flushbyasid decodeassists pausefilter pfthreshold v_vmsave_vmload vgif v_spec_ctrl umip pku ospke vaes vpclmulqdq rdpid overflow_recov succor smca fsrm
bugs\t\t: sysret_ss_attrs spectre_v1 spectre_v2 spec_store_bypass srso
bogomips\t: 4890.85
TLB size\t: 2560 4K pages
clflush size\t: 64
cache_alignment\t: 64
address sizes\t: 48 bits physical, 48 bits virtual
power management: ts ttp tm hwpstate cpb eff_freq_ro [13] [14]

processor\t: 1
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC 7763 64-Core Processor
stepping\t: 1
cpu MHz\t\t: 1500.000
physical id\t: 0
core id\t\t: 1
flags\t\t: fpu sse sse2

processor\t: 2
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
physical id\t: 0
core id\t\t: 0
flags\t\t: fpu sse sse2

processor\t: 3
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
physical id\t: 0
core id\t\t: 1
flags\t\t: fpu sse sse2
";

    /// AWS Graviton3 (Neoverse V1) excerpt.
    const ARM_CPUINFO: &str = "processor\t: 0
BogoMIPS\t: 2100.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 i8mm bf16 dgh rng
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x1
CPU part\t: 0xd40
CPU revision\t: 1

processor\t: 1
BogoMIPS\t: 2100.00
Features\t: fp asimd sve
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x1
CPU part\t: 0xd40
CPU revision\t: 1
";

    #[test]
    fn parses_intel_xeon_cpuinfo() {
        let info = parse_cpuinfo(&intel_cpuinfo());
        assert_eq!(info.vendor.as_deref(), Some("GenuineIntel"));
        assert_eq!(
            info.model_name.as_deref(),
            Some("Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz")
        );
        assert_eq!(
            (info.family, info.model, info.stepping),
            (Some(6), Some(106), Some(6))
        );
        assert_eq!(info.mhz, Some(2300.0));
        assert_eq!(info.processors, 8);
        assert_eq!(
            topology_from_pairs(&info.core_pairs),
            (Some(2), Some(4), Some(2))
        );
        assert_eq!(
            microarchitecture("GenuineIntel", 6, 106, Some(6)),
            Some("Ice Lake-SP")
        );
        assert_eq!(
            simd_subset(&info.flags),
            [
                "sse", "sse2", "sse3", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "fma",
                "avx512f", "avx512dq", "avx512bw", "avx512vl"
            ]
        );
        assert!(info.flags.iter().any(|f| f == "avx512_vnni"));
    }

    #[test]
    fn parses_amd_epyc_cpuinfo() {
        let info = parse_cpuinfo(AMD_CPUINFO);
        assert_eq!(info.vendor.as_deref(), Some("AuthenticAMD"));
        assert_eq!(
            info.model_name.as_deref(),
            Some("AMD EPYC 7763 64-Core Processor")
        );
        assert_eq!(
            (info.family, info.model, info.stepping),
            (Some(25), Some(1), Some(1))
        );
        // The first processor's values are kept.
        assert_eq!(info.mhz, Some(2445.428));
        assert_eq!(info.processors, 4);
        assert_eq!(
            topology_from_pairs(&info.core_pairs),
            (Some(1), Some(2), Some(2))
        );
        assert!(info.flags.contains(&"sha_ni".to_string()));
        assert_eq!(
            simd_subset(&info.flags),
            [
                "sse", "sse2", "sse3", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "fma"
            ]
        );
        assert_eq!(
            microarchitecture("AuthenticAMD", 25, 1, Some(1)),
            Some("Zen 3")
        );
        assert_eq!(info.arm_implementer, None);
    }

    #[test]
    fn parses_arm_cpuinfo() {
        let info = parse_cpuinfo(ARM_CPUINFO);
        assert_eq!(info.vendor, None);
        assert_eq!(info.family, None);
        assert_eq!(info.processors, 2);
        assert!(info.core_pairs.is_empty());
        assert_eq!(info.arm_implementer, Some(0x41));
        assert_eq!(info.arm_part, Some(0xd40));
        assert_eq!(arm_vendor(0x41), Some("ARM"));
        assert_eq!(arm_microarchitecture(0x41, 0xd40), Some("Neoverse V1"));
        assert_eq!(simd_subset(&info.flags), ["asimd", "sve"]);
    }

    #[test]
    fn empty_cpuinfo_is_all_unknown() {
        let info = parse_cpuinfo("");
        assert_eq!(info, CpuinfoSummary::default());
        assert_eq!(topology_from_pairs(&[]), (None, None, None));
    }

    #[test]
    fn microarchitecture_table() {
        let intel = |m, s| microarchitecture("GenuineIntel", 6, m, s);
        assert_eq!(intel(0x55, Some(4)), Some("Skylake-SP"));
        assert_eq!(intel(0x55, Some(7)), Some("Cascade Lake"));
        assert_eq!(intel(0x55, Some(11)), Some("Cooper Lake"));
        assert_eq!(intel(0x55, None), Some("Skylake-SP/Cascade Lake"));
        assert_eq!(intel(0x8F, Some(8)), Some("Sapphire Rapids"));
        assert_eq!(intel(0xCF, Some(2)), Some("Emerald Rapids"));
        assert_eq!(intel(0xAD, Some(1)), Some("Granite Rapids"));
        assert_eq!(intel(0x9E, Some(9)), Some("Kaby Lake"));
        assert_eq!(intel(0x9E, Some(13)), Some("Coffee Lake"));
        assert_eq!(intel(0x97, Some(2)), Some("Alder Lake"));
        assert_eq!(intel(0xB7, Some(1)), Some("Raptor Lake"));
        assert_eq!(intel(0x3F, Some(2)), Some("Haswell"));
        assert_eq!(intel(0x4F, Some(1)), Some("Broadwell"));
        assert_eq!(intel(0x01, None), None);
        let amd = |f, m| microarchitecture("AuthenticAMD", f, m, None);
        assert_eq!(amd(0x17, 0x01), Some("Zen"));
        assert_eq!(amd(0x17, 0x08), Some("Zen+"));
        assert_eq!(amd(0x17, 0x31), Some("Zen 2"));
        assert_eq!(amd(0x17, 0x71), Some("Zen 2"));
        assert_eq!(amd(0x19, 0x01), Some("Zen 3"));
        assert_eq!(amd(0x19, 0x21), Some("Zen 3"));
        assert_eq!(amd(0x19, 0x44), Some("Zen 3+"));
        assert_eq!(amd(0x19, 0x11), Some("Zen 4"));
        assert_eq!(amd(0x19, 0x61), Some("Zen 4"));
        assert_eq!(amd(0x19, 0xA0), Some("Zen 4"));
        assert_eq!(amd(0x1A, 0x02), Some("Zen 5"));
        assert_eq!(amd(0x1A, 0x11), Some("Zen 5"));
        assert_eq!(amd(0x19, 0xF0), None);
        assert_eq!(microarchitecture("CentaurHauls", 6, 0x0F, None), None);
    }

    #[test]
    fn decodes_cpuid_signature() {
        // AMD EPYC 7763: family 0x19 model 0x01 stepping 1.
        assert_eq!(decode_signature(0x00A0_0F11), (0x19, 0x01, 1));
        // Intel Sapphire Rapids: family 6 model 0x8F stepping 8.
        assert_eq!(decode_signature(0x0008_06F8), (6, 0x8F, 8));
        assert_eq!(
            cpuid_text(b"AMD EPYC 7763\0\0\0"),
            Some("AMD EPYC 7763".into())
        );
        assert_eq!(cpuid_text(b"\0\0\0\0"), None);
    }

    #[test]
    fn parses_cpu_lists() {
        assert_eq!(parse_cpu_list("0-3,8\n"), Some(vec![0, 1, 2, 3, 8]));
        assert_eq!(parse_cpu_list("5"), Some(vec![5]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("0-1,64-65"), Some(vec![0, 1, 64, 65]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("a-b"), None);
        assert_eq!(parse_cpu_list("0-4294967295"), None);
    }

    #[test]
    fn counts_cache_instances() {
        // Per-core L2 on four CPUs with SMT pairs (0,2) and (1,3).
        assert_eq!(count_cache_instances(["0,2", "1,3", "0,2", "1,3"]), Some(2));
        // One L3 shared by all.
        assert_eq!(count_cache_instances(["0-3", "0-3", "0-3", "0-3"]), Some(1));
        assert_eq!(count_cache_instances(["0-7", "8-15"]), Some(2));
        assert_eq!(count_cache_instances(["garbage"]), None);
        assert_eq!(count_cache_instances([]), None);
    }

    #[test]
    fn parses_cache_sizes() {
        assert_eq!(parse_cache_size("32K\n"), Some(32 * 1024));
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("1M"), Some(1 << 20));
        assert_eq!(parse_cache_size("4096"), Some(4096));
        assert_eq!(parse_cache_size("0K"), None);
        assert_eq!(parse_cache_size(""), None);
        assert_eq!(parse_cache_size("K"), None);
    }

    #[test]
    fn parses_bracketed_choices() {
        assert_eq!(
            parse_bracketed("always [madvise] never\n"),
            Some("madvise".into())
        );
        assert_eq!(
            parse_bracketed("none [mq-deadline] kyber bfq\n"),
            Some("mq-deadline".into())
        );
        assert_eq!(parse_bracketed("[none] mq-deadline"), Some("none".into()));
        assert_eq!(parse_bracketed("none\n"), Some("none".into()));
        assert_eq!(parse_bracketed("a b c"), None);
        assert_eq!(parse_bracketed("[unterminated"), None);
        assert_eq!(parse_bracketed(""), None);
    }

    #[test]
    fn parses_meminfo() {
        let text = "MemTotal:       24684092 kB
MemFree:         1234567 kB
MemAvailable:   20000000 kB
Buffers:          123456 kB
SwapTotal:             0 kB
SwapFree:              0 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
";
        let m = parse_meminfo(text);
        assert_eq!(m.total, Some(24_684_092 * 1024));
        assert_eq!(m.available, Some(20_000_000 * 1024));
        assert_eq!(m.swap_total, Some(0));
        assert_eq!(m.hugepage_size, Some(2 << 20));
        assert_eq!(parse_meminfo(""), MeminfoSummary::default());
    }

    #[test]
    fn parses_os_release() {
        let debian = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"
NAME=\"Debian GNU/Linux\"
VERSION_ID=\"12\"
VERSION=\"12 (bookworm)\"
ID=debian
";
        assert_eq!(
            parse_os_release(debian),
            Some("Debian GNU/Linux 12 (bookworm)".into())
        );
        assert_eq!(
            parse_os_release("NAME=Fedora\nVERSION='40 (Server Edition)'\n"),
            Some("Fedora 40 (Server Edition)".into())
        );
        assert_eq!(
            parse_os_release("PRETTY_NAME=\"Say \\\"hi\\\"\""),
            Some("Say \"hi\"".into())
        );
        assert_eq!(parse_os_release("# nothing\n"), None);
    }

    #[test]
    fn parses_mounts() {
        let text = "proc /proc proc rw,relatime 0 0
sysfs /sys sysfs rw,relatime 0 0
devtmpfs /dev devtmpfs rw,relatime,size=12334492k 0 0
tmpfs /dev/shm tmpfs rw,relatime 0 0
devpts /dev/pts devpts rw,relatime,mode=600 0 0
/dev/vda / ext4 rw,relatime,discard 0 0
/dev/nvme0n1p1 /mnt/my\\040data xfs rw 0 0
tmpfs /dev/shm tmpfs rw,relatime,size=1k 0 0
cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
overlay /var/lib/docker/overlay2/x/merged overlay rw 0 0
";
        let mounts = parse_mounts(text);
        let points: Vec<&str> = mounts.iter().map(|m| m.1.as_str()).collect();
        assert_eq!(
            points,
            [
                "/",
                "/mnt/my data",
                "/dev/shm",
                "/var/lib/docker/overlay2/x/merged"
            ]
        );
        assert_eq!(mounts[0], ("/dev/vda".into(), "/".into(), "ext4".into()));
        assert_eq!(unescape_mount_field("a\\011b\\134c"), "a\tb\\c");
        assert_eq!(unescape_mount_field("trailing\\04"), "trailing\\04");
    }

    #[test]
    fn parses_link_speed() {
        assert_eq!(parse_speed("25000\n"), Some(25000));
        assert_eq!(parse_speed("-1\n"), None);
        assert_eq!(parse_speed(""), None);
    }

    #[test]
    fn names_hypervisors() {
        assert_eq!(
            hypervisor_from_signature(b"KVMKVMKVM\0\0\0"),
            Some("KVM".into())
        );
        assert_eq!(
            hypervisor_from_signature(b"Microsoft Hv"),
            Some("Microsoft".into())
        );
        assert_eq!(
            hypervisor_from_signature(b"VMwareVMware"),
            Some("VMware".into())
        );
        assert_eq!(
            hypervisor_from_signature(b"NewHyperXYZ\0"),
            Some("NewHyperXYZ".into())
        );
        assert_eq!(hypervisor_from_signature(b"\0\0\0\0\0\0\0\0\0\0\0\0"), None);
        assert_eq!(
            hypervisor_from_dmi(Some("QEMU"), Some("Standard PC (Q35 + ICH9, 2009)")),
            Some("QEMU")
        );
        assert_eq!(
            hypervisor_from_dmi(Some("Microsoft Corporation"), Some("Surface Pro")),
            None
        );
        assert_eq!(
            hypervisor_from_dmi(Some("Microsoft Corporation"), Some("Virtual Machine")),
            Some("Microsoft")
        );
        assert_eq!(
            hypervisor_from_dmi(Some("Dell Inc."), Some("PowerEdge R750")),
            None
        );

        let bare_x86 = VirtEvidence {
            x86_flags_known: true,
            ..Default::default()
        };
        assert_eq!(detect_virtualization(&bare_x86).as_deref(), Some("none"));
        assert_eq!(detect_virtualization(&VirtEvidence::default()), None);
        let kvm = VirtEvidence {
            x86_flags_known: true,
            hypervisor_flag: true,
            cpuid_hypervisor: Some("KVM"),
            ..Default::default()
        };
        assert_eq!(detect_virtualization(&kvm).as_deref(), Some("KVM"));
        let xen_pv = VirtEvidence {
            sys_hypervisor_type: Some("xen"),
            ..Default::default()
        };
        assert_eq!(detect_virtualization(&xen_pv).as_deref(), Some("Xen"));
        let unnamed = VirtEvidence {
            x86_flags_known: true,
            hypervisor_flag: true,
            ..Default::default()
        };
        assert_eq!(
            detect_virtualization(&unnamed).as_deref(),
            Some("unknown hypervisor")
        );
        assert_eq!(
            detect_container(None, false, true, false).as_deref(),
            Some("docker")
        );
        assert_eq!(
            detect_container(Some("lxc\n"), false, true, false).as_deref(),
            Some("lxc")
        );
        assert_eq!(detect_container(None, false, false, false), None);
    }

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

    fn sample_inventory() -> Inventory {
        let cache = |level, kind: &str, size_bytes, instances| CacheInfo {
            level,
            kind: kind.to_string(),
            size_bytes,
            instances,
            line_size_bytes: Some(64),
        };
        Inventory {
            hostname: Some("node1".into()),
            cpu: CpuInfo {
                vendor: Some("AuthenticAMD".into()),
                logical_cpus: 16,
                physical_cores: Some(8),
                base_frequency_hz: Some(2.45e9),
                caches: vec![
                    cache(1, "Data", 32 << 10, Some(8)),
                    cache(1, "Instruction", 32 << 10, Some(8)),
                    cache(2, "Unified", 512 << 10, Some(8)),
                    cache(3, "Unified", 32 << 20, Some(2)),
                ],
                ..Default::default()
            },
            block_devices: vec![BlockDevice {
                name: "nvme0n1".into(),
                size_bytes: Some(1 << 40),
                rotational: Some(false),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn cache_queries() {
        let inv = sample_inventory();
        assert_eq!(inv.last_level_cache_bytes(), Some(64 << 20));
        assert_eq!(inv.cache_bytes(1), Some(32 << 10));
        assert_eq!(inv.cache_bytes(2), Some(512 << 10));
        assert_eq!(inv.cache_bytes(4), None);
        assert_eq!(inv.physical_cores_or_logical(), 8);

        let empty = Inventory::default();
        assert_eq!(empty.last_level_cache_bytes(), None);
        assert_eq!(empty.cache_bytes(1), None);
        assert_eq!(empty.physical_cores_or_logical(), 0);

        let mut unknown_instances = sample_inventory();
        unknown_instances.cpu.caches[3].instances = None;
        assert_eq!(unknown_instances.last_level_cache_bytes(), None);
    }

    #[test]
    fn summary_rows_use_units_and_unknown() {
        let rows = sample_inventory().summary_rows();
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

    #[test]
    fn inventory_json_round_trips() {
        let inv = sample_inventory();
        let json = serde_json::to_string(&inv).unwrap();
        assert!(json.contains("\"model_name\":null"));
        let back: Inventory = serde_json::from_str(&json).unwrap();
        assert_eq!(back, inv);
        // Older records without newer fields still load.
        let minimal: Inventory = serde_json::from_str("{\"cpu\":{\"logical_cpus\":2}}").unwrap();
        assert_eq!(minimal.cpu.logical_cpus, 2);
    }

    #[test]
    fn collect_reads_this_machine_without_panicking() {
        let inv = collect();
        assert!(inv.cpu.logical_cpus >= 1);
        assert_eq!(inv.os.architecture, std::env::consts::ARCH);
        if let Some(cores) = inv.cpu.physical_cores {
            assert!(cores >= 1 && cores <= inv.cpu.logical_cpus);
        }
        assert!(!inv.summary_rows().is_empty());
        serde_json::to_string(&inv).unwrap();
    }
}
