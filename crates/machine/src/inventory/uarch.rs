//! Microarchitecture tables: code names of x86 vendor/family/model/stepping
//! signatures and of Arm implementer/part pairs.

/// Microarchitecture or code name of an x86 processor from its vendor
/// string, family, model and stepping; `None` when not in the table.
pub(super) fn microarchitecture(
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

/// Corrects a client-core name that a hypervisor's CPU model contradicts:
/// some cloud VMs report family 6 model 0xA7 (Rocket Lake) on Sapphire
/// Rapids hosts. AMX tiles exist only on Xeon cores from Sapphire Rapids on,
/// so a client name with `amx_tile` among the flags becomes "Sapphire Rapids"
/// (the earliest such core, with the same two 512-bit FMA units as its
/// successors). Any other name is returned as it is.
pub(super) fn server_core_by_flags(name: &'static str, flags: &[String]) -> &'static str {
    let client = matches!(
        name,
        "Ice Lake" | "Tiger Lake" | "Rocket Lake" | "Alder Lake" | "Raptor Lake"
    );
    if client && flags.iter().any(|f| f == "amx_tile") {
        "Sapphire Rapids"
    } else {
        name
    }
}

/// Code names of Intel family 6 models; the stepping tells apart the
/// generations that share a model number.
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
pub(super) fn arm_vendor(implementer: u32) -> Option<&'static str> {
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
pub(super) fn arm_microarchitecture(implementer: u32, part: u32) -> Option<&'static str> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn amx_flags_override_a_client_model_number() {
        let flags = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let name = microarchitecture("GenuineIntel", 6, 0xA7, Some(1)).unwrap();
        assert_eq!(name, "Rocket Lake");
        assert_eq!(
            server_core_by_flags(name, &flags(&["avx512f", "amx_tile", "amx_bf16"])),
            "Sapphire Rapids"
        );
        assert_eq!(
            server_core_by_flags(name, &flags(&["avx512f"])),
            "Rocket Lake"
        );
        assert_eq!(
            server_core_by_flags("Zen 3", &flags(&["amx_tile"])),
            "Zen 3"
        );
    }
}
