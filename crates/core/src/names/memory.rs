//! Names of the memory benchmarks' results: benchmark ids, metric names,
//! label keys and values, and parameter names.

/// Benchmark id of STREAM.
pub const STREAM: &str = "memory.stream";
/// Benchmark id of the block-size x thread matrix.
pub const BLOCKS: &str = "memory.blocks";
/// Benchmark id of the latency sweep by working-set size.
pub const LATENCY: &str = "memory.latency";
/// Benchmark id of the NUMA matrices: idle latency and read bandwidth from
/// the CPUs of each node to the memory of each node (Intel MLC's
/// `--latency_matrix` and `--bandwidth_matrix`).
pub const NUMA: &str = "memory.numa";
/// Benchmark id of the loaded latency: a dependent chase on one CPU while
/// the others inject traffic at a sweep of delays (MLC's `--loaded_latency`),
/// and the peak injection bandwidth of each traffic mix.
pub const LOADED_LATENCY: &str = "memory.loaded_latency";
/// Benchmark id of sysbench's memory test, imported.
pub const SYSBENCH: &str = "memory.sysbench";
/// Benchmark id of HPCC's PTRANS (parallel matrix transpose), imported.
pub const HPCC_PTRANS: &str = "memory.hpcc_ptrans";
/// Benchmark id of HPCC's RandomAccess (GUPS), imported.
pub const HPCC_RANDOM_ACCESS: &str = "memory.hpcc_random_access";

/// STREAM's kernels, by the names the
/// [`labels::KERNEL`](crate::names::labels::KERNEL) label holds.
pub mod kernel {
    /// `c = a`.
    pub const COPY: &str = "copy";
    /// `b = scalar * c`.
    pub const SCALE: &str = "scale";
    /// `c = a + b`.
    pub const ADD: &str = "add";
    /// `a = b + scalar * c`.
    pub const TRIAD: &str = "triad";
}

/// How a STREAM pass stores its results (the `stores` label).
pub mod stores {
    /// Ordinary stores: each destination line is read first (write-allocate).
    pub const NORMAL: &str = "normal";
    /// Non-temporal (streaming) stores, which skip that read.
    pub const NONTEMPORAL: &str = "nontemporal";
}

/// Operations of the `memory blocks` matrix (`--ops`, the `op` label).
pub mod op {
    /// memset of consecutive blocks.
    pub const SEQ_WRITE: &str = "seq_write";
    /// memset of blocks at random block-aligned offsets.
    pub const RAND_WRITE: &str = "rand_write";
    /// memcpy of consecutive blocks.
    pub const READ_WRITE: &str = "read_write";
}

/// Where a `memory latency` working set fits (the `level` label).
pub mod level {
    /// The first-level data cache.
    pub const L1: &str = "L1";
    /// The second-level cache.
    pub const L2: &str = "L2";
    /// The third-level cache.
    pub const L3: &str = "L3";
    /// Larger than every cache.
    pub const DRAM: &str = "DRAM";
    /// The cache sizes are not known.
    pub const UNKNOWN: &str = "unknown";
}

/// The traffic of `memory loaded-latency` (the `mix` label): reads and
/// writes of whole cache lines in a fixed ratio, as MLC's `-W` modes.
pub mod mix {
    /// Every line read.
    pub const READS: &str = "reads";
    /// Three lines read, one written (ordinary stores).
    pub const R3W1: &str = "3:1";
    /// Two lines read, one written.
    pub const R2W1: &str = "2:1";
    /// One line read, one written.
    pub const R1W1: &str = "1:1";
    /// Every line written with non-temporal stores (x86-64 only).
    pub const NT_WRITES: &str = "nt_writes";
    /// Every mix, in the order results list them.
    pub const ALL: [&str; 5] = [READS, R3W1, R2W1, R1W1, NT_WRITES];
}

/// The `delay` label of the loaded-latency point measured with no traffic.
pub const IDLE: &str = "idle";

/// Values of the [`param::HUGEPAGES`] parameter.
pub mod hugepages {
    /// Transparent huge pages asked for with `madvise(MADV_HUGEPAGE)`.
    pub const MADVISE: &str = "madvise";
    /// Plain pages.
    pub const OFF: &str = "off";
}

/// Metric names.
pub mod metric {
    /// Bytes per second: a STREAM kernel's best rate (bytes as STREAM counts
    /// them over the shortest time), a `memory blocks` cell's total over the
    /// team's wall time.
    pub const BANDWIDTH: &str = "bandwidth";
    /// A STREAM kernel's mean time, seconds (first iteration dropped).
    pub const TIME_AVG: &str = "time_avg";
    /// A STREAM kernel's shortest time, seconds.
    pub const TIME_MIN: &str = "time_min";
    /// A STREAM kernel's longest time, seconds.
    pub const TIME_MAX: &str = "time_max";
    /// Seconds: the mean time of one block operation of a `memory blocks`
    /// cell, and the load-to-use latency of a `memory latency` working set.
    pub const LATENCY: &str = "latency";
    /// The load-to-use latency in core clock cycles.
    pub const LATENCY_CYCLES: &str = "latency_cycles";
    /// Bytes per second all traffic threads moved at delay 0 (MLC's peak
    /// injection bandwidth), per mix.
    pub const INJECTION_BANDWIDTH: &str = "injection_bandwidth";
    /// The bandwidth of the loaded-latency curve's knee: the first point
    /// (by bandwidth) whose latency is at least twice the idle latency.
    pub const KNEE_BANDWIDTH: &str = "knee_bandwidth";
    /// The latency at the knee, seconds.
    pub const KNEE_LATENCY: &str = "knee_latency";
}

/// Label keys (the kernel is [`labels::KERNEL`](crate::names::labels::KERNEL)
/// and the thread count [`labels::THREADS`](crate::names::labels::THREADS)).
pub mod label {
    /// The stores of a STREAM pass (a [`stores`](super::stores) name).
    pub const STORES: &str = "stores";
    /// The operation of a `memory blocks` cell (an [`op`](super::op) name).
    pub const OP: &str = "op";
    /// Block size of a `memory blocks` cell, in bytes.
    pub const BLOCK: &str = "block";
    /// Working set of a `memory latency` point, in bytes.
    pub const WORKING_SET: &str = "working_set";
    /// The cache level a working set fits in (a [`level`](super::level) name).
    pub const LEVEL: &str = "level";
    /// The NUMA node whose CPUs ran a `memory numa` cell.
    pub const CPU_NODE: &str = "cpu_node";
    /// The NUMA node whose memory a `memory numa` cell used.
    pub const MEMORY_NODE: &str = "memory_node";
    /// The traffic mix of a loaded-latency point (a [`mix`](super::mix) name).
    pub const MIX: &str = "mix";
    /// The injection delay of a loaded-latency point: spin iterations
    /// between each traffic thread's groups of lines, or [`IDLE`](super::IDLE).
    pub const DELAY: &str = "delay";
}

/// Parameter names.
pub mod param {
    /// Threads of a STREAM or `memory blocks` result.
    pub const THREADS: &str = "threads";
    /// Transparent huge pages for the buffers (a [`hugepages`](super::hugepages) value).
    pub const HUGEPAGES: &str = "hugepages";
    /// STREAM's elements per array (`STREAM_ARRAY_SIZE`).
    pub const ARRAY_SIZE: &str = "array_size";
    /// Bytes per STREAM array.
    pub const ARRAY_BYTES: &str = "array_bytes";
    /// STREAM's iterations (`NTIMES`), the first dropped.
    pub const NTIMES: &str = "ntimes";
    /// How STREAM counts bytes per element.
    pub const BYTES_PER_ELEMENT: &str = "bytes_per_element";
    /// STREAM's megabyte.
    pub const MB: &str = "mb";
    /// The DRAM's theoretical peak bandwidth, from SMBIOS, or why unknown.
    pub const DRAM_PEAK: &str = "dram_peak";
    /// Bytes per `memory blocks` cell, split across the threads.
    pub const TOTAL_BYTES: &str = "total_bytes";
    /// Block sizes of `memory blocks`, bytes.
    pub const BLOCK_SIZES: &str = "block_sizes";
    /// Operations of `memory blocks` (names from [`op`](super::op)).
    pub const OPS: &str = "ops";
    /// How `memory blocks` scales with threads.
    pub const SCALING: &str = "scaling";
    /// Cache line size the latency chain links, bytes.
    pub const LINE_BYTES: &str = "line_bytes";
    /// Working sets of `memory latency`, bytes.
    pub const SIZES: &str = "sizes";
    /// Target time per `memory latency` point, seconds.
    pub const DURATION_S: &str = "duration_s";
    /// How `memory latency` measures.
    pub const METHOD: &str = "method";
    /// The core clock the cycle figures are based on.
    pub const CLOCK: &str = "clock";
    /// Where a STREAM team ran on a NUMA machine (`--numa`): "node 1",
    /// "node 0 alone" (a per-node figure of `local`), "interleave over nodes
    /// 0-7"; absent for the plain run on every CPU.
    pub const NUMA: &str = "numa";
    /// Where a buffer's pages were put and where the kernel says they are.
    pub const PLACEMENT: &str = "placement";
    /// The CPU each `memory numa` row ran its chase on, per node.
    pub const CHASE_CPUS: &str = "chase_cpus";
    /// The CPU of the loaded-latency chase.
    pub const CHASE_CPU: &str = "chase_cpu";
    /// The CPUs generating loaded-latency traffic.
    pub const TRAFFIC_CPUS: &str = "traffic_cpus";
    /// The loaded-latency injection delays, spin iterations.
    pub const DELAYS: &str = "delays";
    /// Bytes of the chase buffer.
    pub const CHASE_BYTES: &str = "chase_bytes";
    /// Bytes a bandwidth cell or the traffic threads read and write, in all.
    pub const TRAFFIC_BYTES: &str = "traffic_bytes";
    /// What the NUMA matrices found about the machine, in words (one node,
    /// nodes without CPUs).
    pub const NOTE: &str = "note";
}

/// Parameters that define a STREAM workload: results differing in one of
/// them are not compared.
pub const STREAM_WORKLOAD_PARAMS: &[&str] = &[param::THREADS, param::ARRAY_SIZE, param::NUMA];
/// Parameters that define a `memory blocks` workload (block size and
/// operation are labels).
pub const BLOCKS_WORKLOAD_PARAMS: &[&str] = &[param::THREADS, param::TOTAL_BYTES];
/// Parameters that define a latency sweep (the working set is a label).
pub const LATENCY_WORKLOAD_PARAMS: &[&str] = &[param::LINE_BYTES];
