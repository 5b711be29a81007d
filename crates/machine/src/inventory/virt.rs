//! Virtualisation and container detection: CPUID hypervisor signatures,
//! `/sys/hypervisor`, DMI vendor strings and container markers.

use std::path::Path;

use super::sysfs::read_value;

/// Hypervisor name from the 12-byte CPUID 0x40000000 vendor signature; an
/// unknown but printable signature is returned as is.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // used by the x86_64 CPUID probe and tests
pub(super) fn hypervisor_from_signature(sig: &[u8]) -> Option<String> {
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
pub(crate) fn hypervisor_from_dmi(
    sys_vendor: Option<&str>,
    product: Option<&str>,
) -> Option<&'static str> {
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

/// The hypervisor from the evidence, in order of trust: CPUID, then
/// `/sys/hypervisor`, then DMI, then the bare "hypervisor" flag.
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

/// The hypervisor this machine runs under (see [`CpuInfo::virtualization`]),
/// from the CPU flags of `/proc/cpuinfo`, the hypervisor CPUID named (if
/// any), `/sys/hypervisor/type` and the DMI vendor and product names.
///
/// [`CpuInfo::virtualization`]: nodebench_core::inventory::CpuInfo::virtualization
pub(super) fn read_virtualization(
    flags: &[String],
    cpuid_hypervisor: Option<&str>,
) -> Option<String> {
    let is_x86 = cfg!(any(target_arch = "x86_64", target_arch = "x86"));
    let sys_hypervisor_type = read_value("/sys/hypervisor/type");
    let dmi_vendor = read_value("/sys/class/dmi/id/sys_vendor");
    let dmi_product = read_value("/sys/class/dmi/id/product_name");
    detect_virtualization(&VirtEvidence {
        x86_flags_known: is_x86 && !flags.is_empty(),
        hypervisor_flag: flags.iter().any(|f| f == "hypervisor"),
        cpuid_hypervisor,
        sys_hypervisor_type: sys_hypervisor_type.as_deref(),
        dmi_vendor: dmi_vendor.as_deref(),
        dmi_product: dmi_product.as_deref(),
    })
}

/// The container runtime this process runs in (see
/// [`CpuInfo::container`]), from systemd's, podman's, docker's and
/// Kubernetes' markers.
///
/// [`CpuInfo::container`]: nodebench_core::inventory::CpuInfo::container
pub(super) fn read_container() -> Option<String> {
    detect_container(
        read_value("/run/systemd/container").as_deref(),
        Path::new("/run/.containerenv").exists(),
        Path::new("/.dockerenv").exists(),
        std::env::var_os("KUBERNETES_SERVICE_HOST").is_some(),
    )
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
