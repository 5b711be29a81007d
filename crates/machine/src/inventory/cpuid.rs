//! CPUID on x86_64: vendor, signature, brand string, nominal clock and
//! hypervisor; everything unknown on other architectures.

/// What CPUID says (x86_64 only; everything `None` elsewhere).
#[derive(Debug, Clone, Default)]
pub(super) struct CpuidProbe {
    pub(super) vendor: Option<String>,
    pub(super) family: Option<u32>,
    pub(super) model: Option<u32>,
    pub(super) stepping: Option<u32>,
    pub(super) brand: Option<String>,
    pub(super) base_mhz: Option<u32>,
    pub(super) hypervisor: Option<String>,
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

/// Reads the CPUID leaves nodebench uses.
#[cfg(target_arch = "x86_64")]
pub(super) fn cpuid_probe() -> CpuidProbe {
    use std::arch::x86_64::{__cpuid_count, CpuidResult};

    use super::virt::hypervisor_from_signature;

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

/// No CPUID on this architecture: everything unknown.
#[cfg(not(target_arch = "x86_64"))]
pub(super) fn cpuid_probe() -> CpuidProbe {
    CpuidProbe::default()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
