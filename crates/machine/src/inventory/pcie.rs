//! The PCIe links of the NICs (`/sys/class/net/*/device`), the NVMe
//! controllers (`/sys/class/nvme/*/device`) and the GPUs (PCI class
//! 0x0300xx or 0x0302xx in `/sys/bus/pci/devices/*/class`), each device's
//! `current_link_speed`/`current_link_width` and `max_link_speed`/
//! `max_link_width` (Documentation/ABI/testing/sysfs-bus-pci). Virtual
//! interfaces (no `device` link) are left out, and so is a device whose
//! link files are absent or say nothing (`Unknown`, width 0), as many
//! virtio devices do: no figure rather than a false one.

use std::path::{Path, PathBuf};

use super::sysfs::{dir_names, read_value};
use crate::sysroot::Roots;
use nodebench_core::inventory::{Gpus, PcieKind, PcieLink};

/// A link speed as sysfs writes it (`16.0 GT/s PCIe`; before Linux 5.3
/// `8 GT/s`) in GT/s; `Unknown`, `Unknown speed` or anything else: `None`.
pub(super) fn parse_speed(text: &str) -> Option<f64> {
    let t = text.trim();
    let t = t.strip_suffix("PCIe").unwrap_or(t).trim_end();
    let v: f64 = t.strip_suffix("GT/s")?.trim().parse().ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// A link width in lanes; 0 (no link) or beyond PCIe's 32 lanes: `None`.
pub(super) fn parse_width(text: &str) -> Option<u32> {
    let w: u32 = text.trim().parse().ok()?;
    (1..=32).contains(&w).then_some(w)
}

/// Whether `name` is a PCI address: `0000:3b:00.0`.
fn is_pci_address(name: &str) -> bool {
    let b = name.as_bytes();
    let hex = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_hexdigit);
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && hex(0..4)
        && hex(5..7)
        && hex(8..10)
        && hex(11..12)
}

fn file_name(p: &Path) -> Option<&str> {
    p.file_name()?.to_str()
}

/// The PCI device directory a class device's `device` link leads to: the
/// device itself, or the PCI device a virtio device sits on; `None` for
/// anything else (USB, platform and virtual devices).
fn pci_dir_of(device: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(device).ok()?;
    let name = file_name(&real)?;
    if is_pci_address(name) {
        return Some(real);
    }
    let parent = real.parent()?;
    (name.starts_with("virtio") && is_pci_address(file_name(parent)?)).then(|| parent.to_path_buf())
}

/// The link of the PCI device in `dir`; `None` when no reading says
/// anything.
fn read_link(kind: PcieKind, name: String, dir: &Path) -> Option<PcieLink> {
    let speed = |f: &str| read_value(dir.join(f)).and_then(|t| parse_speed(&t));
    let width = |f: &str| read_value(dir.join(f)).and_then(|t| parse_width(&t));
    let link = PcieLink {
        address: file_name(dir)?.to_string(),
        kind,
        name,
        current_speed_gts: speed("current_link_speed"),
        current_width: width("current_link_width"),
        max_speed_gts: speed("max_link_speed"),
        max_width: width("max_link_width"),
    };
    let known = link.current_speed_gts.is_some()
        || link.current_width.is_some()
        || link.max_speed_gts.is_some()
        || link.max_width.is_some();
    known.then_some(link)
}

/// A GPU's name: NVML's index where `gpus` lists its bus id, else its PCI
/// vendor and device ids.
fn gpu_name(dir: &Path, address: &str, gpus: Option<&Gpus>) -> String {
    let nvml = gpus.and_then(|g| {
        g.devices.iter().find(|d| {
            d.pci_bus_id
                .as_deref()
                .and_then(nodebench_nvidia::nvml::normalise_bus_id)
                .is_some_and(|b| b == address)
        })
    });
    if let Some(d) = nvml {
        return format!("GPU {}", d.index);
    }
    let id = |f: &str| read_value(dir.join(f)).map(|t| t.trim_start_matches("0x").to_string());
    match (id("vendor"), id("device")) {
        (Some(v), Some(d)) => format!("GPU {v}:{d}"),
        _ => "GPU".into(),
    }
}

/// Whether a PCI class (`0x030000`) is a display (VGA) or 3D controller.
fn is_gpu_class(text: &str) -> bool {
    u32::from_str_radix(text.trim().trim_start_matches("0x"), 16)
        .is_ok_and(|c| matches!(c >> 8, 0x0300 | 0x0302))
}

/// Every NIC's, NVMe controller's and GPU's link under `roots`, in PCI
/// address order; the names of class devices sharing one PCI function are
/// joined (`eth0/eth1`). `gpus` (NVML's) names the GPUs by index.
pub fn collect(roots: &Roots, gpus: Option<&Gpus>) -> Vec<PcieLink> {
    let mut found: Vec<(PcieKind, String, PathBuf)> = Vec::new();
    for (kind, class) in [(PcieKind::Nic, "class/net"), (PcieKind::Nvme, "class/nvme")] {
        let dir = roots.sys(class);
        for name in dir_names(&dir) {
            if let Some(pci) = pci_dir_of(&dir.join(&name).join("device")) {
                found.push((kind, name, pci));
            }
        }
    }
    let bus = roots.sys("bus/pci/devices");
    for address in dir_names(&bus) {
        let dir = bus.join(&address);
        if read_value(dir.join("class")).is_some_and(|c| is_gpu_class(&c)) {
            let name = gpu_name(&dir, &address, gpus);
            found.push((PcieKind::Gpu, name, dir));
        }
    }
    let mut links: Vec<PcieLink> = Vec::new();
    for (kind, name, dir) in found {
        let Some(address) = file_name(&dir) else {
            continue;
        };
        if let Some(l) = links.iter_mut().find(|l| l.address == address) {
            l.name = format!("{}/{name}", l.name);
            continue;
        }
        links.extend(read_link(kind, name, &dir));
    }
    links.sort_by(|a, b| a.address.cmp(&b.address));
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_as_sysfs_writes_them() {
        assert_eq!(parse_speed("16.0 GT/s PCIe\n"), Some(16.0));
        assert_eq!(parse_speed("2.5 GT/s PCIe"), Some(2.5));
        assert_eq!(parse_speed("8 GT/s\n"), Some(8.0));
        assert_eq!(parse_speed("Unknown\n"), None);
        assert_eq!(parse_speed("Unknown speed"), None);
        assert_eq!(parse_speed("0 GT/s"), None);
        assert_eq!(parse_speed(""), None);
    }

    #[test]
    fn widths_in_lanes() {
        assert_eq!(parse_width("16\n"), Some(16));
        assert_eq!(parse_width("1"), Some(1));
        assert_eq!(parse_width("0\n"), None);
        assert_eq!(parse_width("255"), None);
        assert_eq!(parse_width("x8"), None);
    }

    #[test]
    fn pci_addresses_and_gpu_classes() {
        assert!(is_pci_address("0000:3b:00.0"));
        assert!(!is_pci_address("pci0000:3a"));
        assert!(!is_pci_address("virtio2"));
        assert!(!is_pci_address("0000:3b:00.g"));
        assert!(is_gpu_class("0x030000\n"));
        assert!(is_gpu_class("0x030200"));
        assert!(!is_gpu_class("0x020000"));
        assert!(!is_gpu_class("0x010802"));
        assert!(!is_gpu_class("0x038000"));
    }

    fn links_of(tree: &str, gpus: Option<&Gpus>) -> Vec<PcieLink> {
        let root = tempfile::tempdir().unwrap();
        super::super::fixtures::trees::write(tree, root.path()).unwrap();
        collect(&Roots::under(root.path()), gpus)
    }

    use PcieLink as L;

    #[test]
    fn the_downtrained_server_reads_every_link_exactly() {
        let links = links_of("pcie-downtrained", None);
        assert_eq!(
            links,
            [
                L::known(
                    "0000:18:00.0",
                    PcieKind::Gpu,
                    "GPU 10de:2331",
                    (2.5, 16),
                    (32.0, 16)
                ),
                L::known("0000:3b:00.0", PcieKind::Nic, "eth0", (16.0, 8), (16.0, 16)),
                L::known("0000:5e:00.0", PcieKind::Nvme, "nvme0", (8.0, 4), (16.0, 4)),
            ]
        );
        let texts: Vec<(String, bool)> = links
            .iter()
            .flat_map(|l| l.findings())
            .map(|f| (f.text, f.fault))
            .collect();
        assert_eq!(
            texts,
            [
                ("PCIe link of GPU 10de:2331 (0000:18:00.0) at 2.5 GT/s, its maximum 32.0 GT/s: idle speed (a GPU lowers its link speed when idle; not a fault)".to_string(), false),
                ("PCIe link of eth0 (0000:3b:00.0) at x8, its maximum x16: downtrained".to_string(), true),
                ("PCIe link of nvme0 (0000:5e:00.0) at 8.0 GT/s, its maximum 16.0 GT/s: downtrained".to_string(), true),
            ]
        );
    }

    #[test]
    fn the_healthy_server_has_the_same_links_at_their_maximum() {
        let gpus = Gpus {
            devices: vec![nodebench_core::inventory::GpuInfo {
                index: 0,
                pci_bus_id: Some("00000000:18:00.0".into()),
                ..Default::default()
            }],
            ..Gpus::default()
        };
        let links = links_of("pcie-healthy", Some(&gpus));
        assert_eq!(
            links,
            [
                L::known(
                    "0000:18:00.0",
                    PcieKind::Gpu,
                    "GPU 0",
                    (32.0, 16),
                    (32.0, 16)
                ),
                L::known(
                    "0000:3b:00.0",
                    PcieKind::Nic,
                    "eth0",
                    (16.0, 16),
                    (16.0, 16)
                ),
                L::known(
                    "0000:5e:00.0",
                    PcieKind::Nvme,
                    "nvme0",
                    (16.0, 4),
                    (16.0, 4)
                ),
            ]
        );
        assert!(links.iter().all(|l| l.findings().is_empty()));
    }

    #[test]
    fn the_recorded_guest_has_no_link_and_no_false_figure() {
        let root = tempfile::tempdir().unwrap();
        super::super::fixtures::trees::write("pcie-kvm2", root.path()).unwrap();
        let roots = Roots::under(root.path());
        // The virtio NIC is found on its PCI device, which has no link.
        let net = roots.sys("class/net");
        let eth0 = pci_dir_of(&net.join("eth0/device")).unwrap();
        assert!(
            eth0.ends_with("devices/pci0000:00/0000:00:03.0"),
            "{eth0:?}"
        );
        assert_eq!(pci_dir_of(&net.join("lo/device")), None);
        assert_eq!(collect(&roots, None), []);
        // The trees without class or bus directories: none either.
        assert_eq!(links_of("kvm2", None), []);
    }
}
