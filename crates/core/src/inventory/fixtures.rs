//! A small made-up inventory for tests that need one (a 16-thread AMD
//! host with four cache levels and one NVMe disk), shared by core's and
//! the report crate's tests through the `fixtures` feature.

use super::{BlockDevice, CacheInfo, CpuInfo, Inventory};

/// The sample inventory: hostname `node1`, `AuthenticAMD`, 16 logical CPUs
/// on 8 cores at 2.45 GHz, L1d/L1i 32 KiB x8, L2 512 KiB x8, L3 32 MiB x2,
/// and a 1 TiB non-rotational `nvme0n1`.
pub fn sample() -> Inventory {
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
