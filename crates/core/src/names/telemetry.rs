//! Names of the telemetry series the sampler records while a benchmark runs
//! (`nodebench_machine::telemetry`): series names, their label keys, and the label that
//! marks a series as telemetry rather than the benchmark's own.

/// Label key marking where a series comes from.
pub const SOURCE: &str = "source";
/// Value of [`SOURCE`] on every telemetry series, so reporters and compare
/// tell them from a benchmark's own series.
pub const SOURCE_TELEMETRY: &str = "telemetry";

/// Label keys of the telemetry series.
pub mod label {
    /// CPU number (`cpu=3`), as in /proc/stat and /sys/devices/system/cpu.
    pub const CPU: &str = "cpu";
    /// Block device name (`device=vda`), as in /proc/diskstats.
    pub const DEVICE: &str = "device";
    /// Network interface name (`nic=eth0`), as in /proc/net/dev.
    pub const NIC: &str = "nic";
    /// hwmon sensor, `chip/tempN` (`sensor=coretemp/temp1`).
    pub const SENSOR: &str = "sensor";
    /// NVIDIA GPU, by NVML's index (`gpu=0`).
    pub const GPU: &str = "gpu";
}

/// Series names, one per quantity; the unit is on the series.
pub mod series {
    /// Share of a CPU's time in user mode (nice included), %.
    pub const CPU_USER: &str = "cpu_user";
    /// Share of a CPU's time in kernel mode, %.
    pub const CPU_SYSTEM: &str = "cpu_system";
    /// Share of a CPU's time idle with I/O outstanding, %.
    pub const CPU_IOWAIT: &str = "cpu_iowait";
    /// Share of a CPU's time serving hardware interrupts, %.
    pub const CPU_IRQ: &str = "cpu_irq";
    /// Share of a CPU's time serving soft interrupts, %.
    pub const CPU_SOFTIRQ: &str = "cpu_softirq";
    /// Share of a CPU's time stolen by the hypervisor, %.
    pub const CPU_STEAL: &str = "cpu_steal";
    /// Context switches per second, whole machine.
    pub const CONTEXT_SWITCHES: &str = "context_switches_per_second";
    /// Interrupts per second, whole machine.
    pub const INTERRUPTS: &str = "interrupts_per_second";
    /// Runnable tasks (the run queue), whole machine.
    pub const PROCS_RUNNING: &str = "procs_running";
    /// Memory in use (total less free, buffers, page cache, reclaimable slab), bytes.
    pub const MEMORY_USED: &str = "memory_used_bytes";
    /// Page cache, bytes.
    pub const MEMORY_CACHED: &str = "memory_cached_bytes";
    /// Dirty pages waiting for write-back, bytes.
    pub const MEMORY_DIRTY: &str = "memory_dirty_bytes";
    /// Pages being written back, bytes.
    pub const MEMORY_WRITEBACK: &str = "memory_writeback_bytes";
    /// Pages swapped in per second.
    pub const SWAP_IN: &str = "swap_in_pages_per_second";
    /// Pages swapped out per second.
    pub const SWAP_OUT: &str = "swap_out_pages_per_second";
    /// Major page faults per second.
    pub const MAJOR_FAULTS: &str = "major_faults_per_second";
    /// Reads completed per second on a block device.
    pub const DISK_READ_IOPS: &str = "disk_read_iops";
    /// Writes completed per second on a block device.
    pub const DISK_WRITE_IOPS: &str = "disk_write_iops";
    /// Bytes read per second from a block device.
    pub const DISK_READ_BYTES: &str = "disk_read_bytes_per_second";
    /// Bytes written per second to a block device.
    pub const DISK_WRITE_BYTES: &str = "disk_write_bytes_per_second";
    /// Average size of the requests completed in the interval, bytes.
    pub const DISK_REQUEST_SIZE: &str = "disk_request_size_bytes";
    /// Average requests in flight (iostat's aqu-sz).
    pub const DISK_QUEUE_DEPTH: &str = "disk_queue_depth";
    /// Share of the interval the device had requests in flight, %.
    pub const DISK_UTILISATION: &str = "disk_utilisation";
    /// Bytes received per second on a NIC.
    pub const NET_RX_BYTES: &str = "net_rx_bytes_per_second";
    /// Bytes sent per second on a NIC.
    pub const NET_TX_BYTES: &str = "net_tx_bytes_per_second";
    /// Packets received per second on a NIC.
    pub const NET_RX_PACKETS: &str = "net_rx_packets_per_second";
    /// Packets sent per second on a NIC.
    pub const NET_TX_PACKETS: &str = "net_tx_packets_per_second";
    /// Received packets dropped per second on a NIC.
    pub const NET_RX_DROPS: &str = "net_rx_drops_per_second";
    /// Outgoing packets dropped per second on a NIC.
    pub const NET_TX_DROPS: &str = "net_tx_drops_per_second";
    /// Receive errors per second on a NIC.
    pub const NET_RX_ERRORS: &str = "net_rx_errors_per_second";
    /// Transmit errors per second on a NIC.
    pub const NET_TX_ERRORS: &str = "net_tx_errors_per_second";
    /// Current frequency of a CPU (cpufreq's scaling_cur_freq), Hz.
    pub const CPU_FREQUENCY: &str = "cpu_frequency";
    /// A hwmon temperature sensor, degrees Celsius.
    pub const TEMPERATURE: &str = "temperature_celsius";
    /// Share of the interval a GPU ran a kernel (NVML's utilisation), %.
    pub const GPU_UTILISATION: &str = "gpu_utilisation";
    /// Share of the interval a GPU's memory was read or written, %.
    pub const GPU_MEMORY_UTILISATION: &str = "gpu_memory_utilisation";
    /// A GPU's SM clock, Hz.
    pub const GPU_SM_CLOCK: &str = "gpu_sm_clock";
    /// A GPU's board power, watts.
    pub const GPU_POWER: &str = "gpu_power";
    /// A GPU's temperature, degrees Celsius.
    pub const GPU_TEMPERATURE: &str = "gpu_temperature_celsius";
    /// A GPU's memory in use, bytes.
    pub const GPU_MEMORY_USED: &str = "gpu_memory_used_bytes";
}
