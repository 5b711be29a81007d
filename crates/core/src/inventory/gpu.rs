//! The NVIDIA GPUs of the machine, as NVML and the CUDA driver describe
//! them (read by `nodebench_machine::gpu`). Where no driver is installed the
//! section holds why, and no GPU.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The GPUs, the driver's versions, or why they are unknown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Gpus {
    /// Why no GPU is listed ("no NVIDIA driver: libnvidia-ml.so.1 not
    /// found"); `None` when NVML answered.
    pub unavailable: Option<String>,
    /// The kernel driver's version ("580.159.04").
    pub driver_version: Option<String>,
    /// The CUDA version the driver supports ("13.0").
    pub cuda_version: Option<String>,
    /// Every GPU NVML lists, in its order.
    pub devices: Vec<GpuInfo>,
}

/// One GPU. A figure the driver did not give is `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct GpuInfo {
    /// NVML's index.
    pub index: u32,
    /// Product name ("NVIDIA H200").
    pub name: Option<String>,
    /// "GPU-9d59fafc-...".
    pub uuid: Option<String>,
    /// Architecture by NVML ("Hopper").
    pub architecture: Option<String>,
    /// CUDA compute capability ("9.0").
    pub compute_capability: Option<String>,
    /// Streaming multiprocessors (the CUDA driver's count).
    pub sms: Option<u32>,
    /// Device memory in bytes.
    pub memory_bytes: Option<u64>,
    /// L2 cache in bytes.
    pub l2_bytes: Option<u64>,
    /// Maximum SM clock, MHz.
    pub max_sm_clock_mhz: Option<u32>,
    /// Maximum memory clock, MHz (data moves twice a clock).
    pub max_memory_clock_mhz: Option<u32>,
    /// Memory bus width in bits.
    pub memory_bus_bits: Option<u32>,
    /// Power limit in watts.
    pub power_limit_w: Option<f64>,
    /// PCIe bus id ("00000000:00:06.0").
    pub pci_bus_id: Option<String>,
    /// Maximum PCIe generation of the link.
    pub pcie_generation: Option<u32>,
    /// Maximum PCIe link width (lanes).
    pub pcie_width: Option<u32>,
    /// Active NVLink links.
    pub nvlinks: Option<u32>,
    /// PCI bus ids at the other end of the active NVLinks.
    pub nvlink_peers: Vec<String>,
    /// ECC mode now.
    pub ecc_enabled: Option<bool>,
    /// MIG mode now.
    pub mig_enabled: Option<bool>,
    /// The NUMA node closest to the GPU (sysfs; none in many guests).
    pub numa_node: Option<u32>,
    /// The CPUs closest to it, in the kernel's list form.
    pub local_cpus: Option<String>,
}

impl GpuInfo {
    /// The memory's theoretical bandwidth in bytes/s: memory clock x 2
    /// (double data rate) x bus width; `None` where either is unknown.
    pub fn memory_peak_bytes_per_s(&self) -> Option<f64> {
        let clock = f64::from(self.max_memory_clock_mhz?) * 1e6;
        let bus = f64::from(self.memory_bus_bits?) / 8.0;
        Some(clock * 2.0 * bus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hbm_peak_is_clock_times_two_times_bus_bytes() {
        // H200: 3201 MHz, 6144 bits -> 4.917 TB/s (NVIDIA gives 4.8).
        let g = GpuInfo {
            max_memory_clock_mhz: Some(3201),
            memory_bus_bits: Some(6144),
            ..GpuInfo::default()
        };
        let p = g.memory_peak_bytes_per_s().unwrap();
        assert!((p - 4.917e12).abs() < 1e9, "{p}");
        // H100 SXM: 2619 MHz, 5120 bits -> 3.35 TB/s.
        let h100 = GpuInfo {
            max_memory_clock_mhz: Some(2619),
            memory_bus_bits: Some(5120),
            ..GpuInfo::default()
        };
        assert!((h100.memory_peak_bytes_per_s().unwrap() - 3.352e12).abs() < 1e9);
        assert_eq!(GpuInfo::default().memory_peak_bytes_per_s(), None);
    }
}
