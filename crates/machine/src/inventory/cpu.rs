//! The processor: `/proc/cpuinfo`, topology and SIMD features, joined with
//! CPUID, the caches, the microarchitecture tables and virtualisation
//! detection into a [`CpuInfo`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::cache::collect_caches;
use super::cpuid::{CpuidProbe, cpuid_probe};
use super::sysfs::{
    numbered_entries, parse_cpu_list, read_khz_as_hz, read_number, read_text, read_value,
};
use super::uarch::{arm_microarchitecture, arm_vendor, microarchitecture, server_core_by_flags};
use super::virt::{read_container, read_virtualization};
use crate::sysroot::Roots;
use nodebench_core::inventory::CpuInfo;

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
    /// x86 "microcode" of the first processor.
    microcode: Option<String>,
}

/// A decimal or `0x` hexadecimal number.
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
        out.microcode = text_field("microcode");
    }
    if all_have_pairs {
        out.core_pairs = pairs;
    }
    out
}

/// The architecture `/proc/cpuinfo` describes: x86 fields (`vendor_id`)
/// or Arm ones (`CPU implementer`); `None` when it shows neither.
fn cpuinfo_arch(info: &CpuinfoSummary) -> Option<&'static str> {
    if info.arm_implementer.is_some() {
        Some("aarch64")
    } else if info.vendor.is_some() {
        Some("x86_64")
    } else {
        None
    }
}

/// `Some("aarch64 binary on an x86_64 CPU")` when the binary's architecture
/// (`binary`, [`std::env::consts::ARCH`]) is not the one `/proc/cpuinfo`
/// describes: user-mode emulation (qemu-user) hands the host's file through.
fn emulation(binary: &str, info: &CpuinfoSummary) -> Option<String> {
    let host = cpuinfo_arch(info)?;
    (host != binary).then(|| format!("{binary} binary on an {host} CPU"))
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

/// Reads the processor from `/proc/cpuinfo`, sysfs and CPUID.
pub(super) fn collect_cpu(roots: &Roots) -> CpuInfo {
    let probe = cpuid_probe();
    let hypervisor = probe.hypervisor.clone();
    let mut cpu = collect_cpu_at(roots, probe, std::env::consts::ARCH);
    cpu.virtualization = read_virtualization(&cpu.flags, hypervisor.as_deref());
    cpu.container = read_container();
    cpu
}

/// Directories of the online CPUs under `sys_cpu` (every cpuN when the
/// online list is unknown), by number.
pub(crate) fn online_cpu_dirs(
    sys_cpu: &std::path::Path,
    online: Option<&[u32]>,
) -> Vec<(u32, PathBuf)> {
    numbered_entries(sys_cpu, "cpu")
        .into_iter()
        .filter(|(n, _)| online.is_none_or(|l| l.contains(n)))
        .collect()
}

/// The processor as `/proc/cpuinfo` and sysfs under `roots` describe it
/// (this machine, or a recorded tree), with what CPUID said
/// (`probe`) for a binary of architecture `arch`. Virtualisation and
/// container are left for [`collect_cpu`] to read from this machine.
pub(super) fn collect_cpu_at(roots: &Roots, probe: CpuidProbe, arch: &str) -> CpuInfo {
    let info = read_text(roots.proc("cpuinfo"))
        .map(|t| parse_cpuinfo(&t))
        .unwrap_or_default();
    let sys_cpu = roots.sys("devices/system/cpu");
    let sys_cpu = sys_cpu.as_path();

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

    let cpu_dirs: Vec<PathBuf> = online_cpu_dirs(sys_cpu, online.as_deref())
        .into_iter()
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
        (Some(v), Some(f), Some(m)) => {
            microarchitecture(v, f, m, stepping).map(|name| server_core_by_flags(name, &info.flags))
        }
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

    let numa = numbered_entries(&roots.sys("devices/system/node"), "node").len();
    let numa_nodes = u32::try_from(numa).ok().filter(|n| *n > 0);
    let emulation = emulation(arch, &info);
    // Arm's /proc/cpuinfo has no model name: the vendor and core name.
    let arm_name = match (&vendor, &microarchitecture, info.arm_implementer) {
        (Some(v), Some(u), Some(_)) => Some(format!("{v} {u}")),
        _ => None,
    };

    CpuInfo {
        vendor,
        model_name: info.model_name.clone().or(probe.brand).or(arm_name),
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
        virtualization: None,
        container: None,
        emulation,
        // Measured by a run that needs them (the probes take CPU time).
        effective_cores: None,
        peak_clock: None,
        microcode: info.microcode.clone(),
    }
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
        assert_eq!(info.microcode.as_deref(), Some("0xd0003a5"));
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
}
