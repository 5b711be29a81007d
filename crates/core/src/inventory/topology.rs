//! The machine's layout, as the kernel describes it in sysfs
//! (Documentation/ABI/stable/sysfs-devices-system-cpu,
//! Documentation/ABI/stable/sysfs-devices-node,
//! Documentation/ABI/testing/sysfs-devices-edac): processor packages, NUMA
//! nodes with their CPUs, memory and SLIT distances, cores with their SMT
//! siblings, every cache with the CPUs sharing it, and the DIMMs of each
//! memory controller where EDAC lists them. CPU sets are kept in the
//! kernel's list form ("0-15,128-143"), so a 512-CPU node stays small.
//!
//! A part the files do not tell is unknown (`None`), never guessed. The
//! reader is `nodebench_machine::inventory::topology`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cpulist;

/// Packages, NUMA nodes, cores, caches and DIMMs of the machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Topology {
    /// The online CPUs, as a kernel CPU list ("0-255").
    pub cpus: String,
    /// Processor packages (sockets) with online CPUs, by physical package id.
    pub packages: Vec<Package>,
    /// Cores: the online CPUs grouped by the SMT siblings sysfs lists (a core
    /// of one CPU where SMT is off or hidden by a hypervisor).
    pub cores: Vec<Core>,
    /// Every cache instance: level, type, size and the CPUs sharing it.
    pub caches: Vec<CacheGroup>,
    /// NUMA nodes (`/sys/devices/system/node/node*`); `None` where the
    /// kernel does not list them (no NUMA support, some sandboxes).
    pub numa_nodes: Option<Vec<NumaNode>>,
    /// DIMMs per memory controller (EDAC, `/sys/devices/system/edac/mc`);
    /// `None` where no EDAC driver is loaded (most virtual machines).
    pub dimms: Option<Vec<Dimm>>,
}

/// One processor package.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Package {
    /// `topology/physical_package_id`.
    pub id: u32,
    /// Its online CPUs, as a CPU list.
    pub cpus: String,
}

/// One core and its hardware threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Core {
    /// The package holding it.
    pub package: u32,
    /// `topology/core_id` of its first CPU (unique within a package on most
    /// machines, not across packages).
    pub id: u32,
    /// Its hardware threads (SMT siblings), as a CPU list.
    pub cpus: String,
}

/// One cache instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct CacheGroup {
    /// 1, 2, 3, ...
    pub level: u32,
    /// "Data", "Instruction" or "Unified".
    pub kind: String,
    /// Size in bytes; `None` where sysfs does not say.
    pub size_bytes: Option<u64>,
    /// The CPUs sharing it (`shared_cpu_list`), as a CPU list.
    pub cpus: String,
}

/// One NUMA node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct NumaNode {
    /// The node number.
    pub id: u32,
    /// Its CPUs (`cpulist`), as a CPU list; "" for a memory-only node (a
    /// GPU's memory, CXL memory).
    pub cpus: String,
    /// Its memory (`meminfo` MemTotal), in bytes.
    pub memory_bytes: Option<u64>,
    /// SLIT distances from this node to each node, in the order of
    /// `numa_nodes` (`distance`; 10 is local).
    pub distances: Vec<u32>,
}

/// One DIMM as EDAC lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct Dimm {
    /// The memory controller (`mcN`).
    pub controller: u32,
    /// The entry under it (`dimmN`).
    pub slot: u32,
    /// Size in bytes (`size`, in MiB there).
    pub size_bytes: Option<u64>,
    /// The board's name for the slot (`dimm_label`).
    pub label: Option<String>,
    /// Channel and slot as the driver numbers them (`dimm_location`).
    pub location: Option<String>,
    /// Memory type (`dimm_mem_type`, e.g. "Registered-DDR5").
    pub memory_type: Option<String>,
}

impl Topology {
    /// The online CPUs.
    pub fn cpu_list(&self) -> Vec<u32> {
        cpulist::parse(&self.cpus).unwrap_or_default()
    }

    /// The NUMA nodes that have CPUs.
    pub fn cpu_nodes(&self) -> Vec<&NumaNode> {
        self.numa_nodes
            .iter()
            .flatten()
            .filter(|n| !n.cpus.is_empty())
            .collect()
    }

    /// Memory of all nodes, where every node says.
    pub fn memory_bytes(&self) -> Option<u64> {
        let nodes = self.numa_nodes.as_ref()?;
        nodes.iter().map(|n| n.memory_bytes).sum()
    }
}
