//! System inventory, the data: what the node is (CPU, memory, OS, disks,
//! filesystems, network, topology), as every stored run carries it as JSON.
//! Anything that could not be read is unknown (`None`, JSON `null`), never
//! guessed.
//!
//! The readers (of `/proc`, `/sys` and CPUID) are in
//! `nodebench_machine::inventory`; `nodebench inventory` prints the result
//! (`nodebench_report::inventory`). Here: `types` (re-exported), the
//! [`topology`] types, the [`host`] state for benchmarking, the [`pcie`]
//! links and what they say on their own, [`meminfo`] (the memory a new
//! allocation can have now, for the buffer helpers) and, for tests, [`fixtures`].

#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod gpu;
pub mod host;
pub mod meminfo;
pub mod pcie;
pub mod power;
pub mod topology;
mod types;

pub use gpu::{GpuInfo, Gpus};
pub use host::HostState;
pub use meminfo::available_memory_bytes;
pub use pcie::{PcieKind, PcieLink};
pub use power::{PowerSource, PowerSources};
pub use topology::Topology;
pub use types::{
    Bios, BlockDevice, CacheInfo, CpuInfo, EffectiveCores, Filesystem, Inventory, MemoryInfo,
    NetworkInterface, OsInfo, PeakClock,
};
