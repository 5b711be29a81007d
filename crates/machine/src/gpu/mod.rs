//! NVIDIA GPUs as the machine sees them: the inventory's GPU section
//! ([`collect`]) and the health the telemetry samples ([`health`]), read
//! through the bindings of `nodebench-nvidia` (NVML, the CUDA driver API).
//! Nothing CUDA is linked at build time: a machine without a driver gets
//! "no NVIDIA driver" and nothing fails.

pub mod health;

use std::ffi::{c_char, c_int, c_uint};

use nodebench_core::inventory::{GpuInfo, Gpus};

use crate::sysroot::Roots;
use nodebench_nvidia::cuda;
use nodebench_nvidia::nvml::{self, Memory, PciInfo, ask};

/// The most NVLink links NVML numbers (`NVML_NVLINK_MAX_LINKS`).
const NVLINK_MAX_LINKS: u32 = 18;

/// The GPUs as NVML and the CUDA driver tell them.
pub fn collect(roots: &Roots) -> Gpus {
    let nvml = match nvml::nvml() {
        Ok(n) => n,
        Err(e) => {
            return Gpus {
                unavailable: Some(e.to_string()),
                ..Gpus::default()
            };
        }
    };
    let mut out = Gpus::default();
    let mut buf = [0 as c_char; 96];
    if ask!(nvml, driver_version, buf.as_mut_ptr(), buf.len() as c_uint).is_some() {
        out.driver_version = nvml::cstr(&buf);
    }
    let mut v: c_int = 0;
    if ask!(nvml, cuda_version, &mut v).is_some() {
        out.cuda_version = Some(format!("{}.{}", v / 1000, (v % 1000) / 10));
    }
    // The CUDA driver's view, by bus id: SMs and L2.
    let cuda: Vec<(String, Option<u32>, Option<u64>)> = cuda::driver()
        .ok()
        .and_then(|d| {
            let n = d.device_count().ok()?;
            Some(
                (0..n)
                    .filter_map(|i| {
                        let dev = d.device(i).ok()?;
                        let bus = nvml::normalise_bus_id(&d.pci_bus_id(dev)?)?;
                        let sms = d
                            .attribute(dev, cuda::attr::MULTIPROCESSOR_COUNT)
                            .map(|v| v as u32);
                        let l2 = d
                            .attribute(dev, cuda::attr::L2_CACHE_SIZE)
                            .map(|v| v as u64);
                        Some((bus, sms, l2))
                    })
                    .collect(),
            )
        })
        .unwrap_or_default();
    for (i, d) in nvml.devices().into_iter().enumerate() {
        // SAFETY (text, uint below): `d` is a handle NVML gave.
        let mut g = GpuInfo {
            index: i as u32,
            // SAFETY: `d` is a handle NVML gave.
            name: unsafe { nvml.text(nvml.api.name, d) },
            // SAFETY: `d` is a handle NVML gave.
            uuid: unsafe { nvml.text(nvml.api.uuid, d) },
            // SAFETY: `d` is a handle NVML gave.
            architecture: unsafe { nvml.uint(nvml.api.architecture, d) }
                .and_then(nvml::architecture_name)
                .map(String::from),
            // SAFETY: `d` is a handle NVML gave.
            memory_bus_bits: unsafe { nvml.uint(nvml.api.bus_width, d) },
            // SAFETY: `d` is a handle NVML gave.
            power_limit_w: unsafe { nvml.uint(nvml.api.power_limit, d) }
                .map(|mw| f64::from(mw) / 1e3),
            // SAFETY: `d` is a handle NVML gave.
            pcie_generation: unsafe { nvml.uint(nvml.api.pcie_generation, d) },
            // SAFETY: `d` is a handle NVML gave.
            pcie_width: unsafe { nvml.uint(nvml.api.pcie_width, d) },
            ..GpuInfo::default()
        };
        let (mut major, mut minor): (c_int, c_int) = (0, 0);
        if ask!(nvml, compute_capability, d, &mut major, &mut minor).is_some() {
            g.compute_capability = Some(format!("{major}.{minor}"));
        }
        let mut mem = Memory::default();
        if ask!(nvml, memory, d, &mut mem).is_some() {
            g.memory_bytes = Some(mem.total);
        }
        let mut clock: c_uint = 0;
        if ask!(nvml, max_clock, d, nvml::CLOCK_SM, &mut clock).is_some() {
            g.max_sm_clock_mhz = Some(clock);
        }
        if ask!(nvml, max_clock, d, nvml::CLOCK_MEM, &mut clock).is_some() {
            g.max_memory_clock_mhz = Some(clock);
        }
        let (mut cur, mut pending): (c_int, c_int) = (0, 0);
        if ask!(nvml, ecc_mode, d, &mut cur, &mut pending).is_some() {
            g.ecc_enabled = Some(cur == 1);
        }
        let (mut mig, mut mig_pending): (c_uint, c_uint) = (0, 0);
        if ask!(nvml, mig_mode, d, &mut mig, &mut mig_pending).is_some() {
            g.mig_enabled = Some(mig == 1);
        }
        let mut pci = zero_pci();
        if ask!(nvml, pci_info, d, &mut pci).is_some() {
            g.pci_bus_id = nvml::cstr(&pci.bus_id);
        }
        if nvml.api.nvlink_state.is_some() {
            let mut active = 0;
            for link in 0..NVLINK_MAX_LINKS {
                let mut state: c_int = 0;
                if ask!(nvml, nvlink_state, d, link, &mut state).is_some() && state == 1 {
                    active += 1;
                    let mut remote = zero_pci();
                    if ask!(nvml, nvlink_remote, d, link, &mut remote).is_some()
                        && let Some(id) = nvml::cstr(&remote.bus_id)
                        && !g.nvlink_peers.contains(&id)
                    {
                        g.nvlink_peers.push(id);
                    }
                }
            }
            g.nvlinks = Some(active);
        }
        if let Some(bus) = g.pci_bus_id.as_deref().and_then(nvml::normalise_bus_id) {
            if let Some((_, sms, l2)) = cuda.iter().find(|(b, _, _)| *b == bus) {
                g.sms = *sms;
                g.l2_bytes = *l2;
            }
            let dev = roots.sys(&format!("bus/pci/devices/{bus}"));
            g.numa_node = std::fs::read_to_string(dev.join("numa_node"))
                .ok()
                .and_then(|t| t.trim().parse::<i64>().ok())
                .filter(|n| *n >= 0)
                .map(|n| n as u32);
            g.local_cpus = std::fs::read_to_string(dev.join("local_cpulist"))
                .ok()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty());
        }
        out.devices.push(g);
    }
    out
}

/// An empty `nvmlPciInfo_t`.
pub(crate) fn zero_pci() -> PciInfo {
    PciInfo {
        bus_id_legacy: [0; 16],
        domain: 0,
        bus: 0,
        device: 0,
        pci_device_id: 0,
        pci_sub_system_id: 0,
        bus_id: [0; 32],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_driver_the_section_says_why_and_lists_nothing() {
        // This machine has no NVIDIA driver; where one is, NVML answers.
        let g = collect(&Roots::from_env());
        if nvml::nvml().is_err() {
            assert!(g.devices.is_empty());
            let why = g.unavailable.unwrap();
            assert!(
                why.starts_with("no NVIDIA driver: libnvidia-ml.so.1"),
                "{why}"
            );
        } else {
            assert!(g.unavailable.is_none());
        }
    }
}
