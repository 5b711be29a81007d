//! Names of the HPC Challenge figures: the modes its tests run in and the
//! metrics of the tests nodebench has no benchmark of its own for. HPCC's
//! HPL and STREAM figures are [`super::linpack::LINPACK`] and
//! [`super::memory::STREAM`] results; the other tests' ids are in the area
//! modules ([`super::cpu::HPCC_DGEMM`], [`super::cpu::HPCC_FFT`],
//! [`super::memory::HPCC_PTRANS`], [`super::memory::HPCC_RANDOM_ACCESS`],
//! [`super::net::HPCC_LATENCY_BANDWIDTH`]).

/// HPCC's threshold of a scaled residual (HPL's 16).
pub const THRESHOLD: f64 = 16.0;

/// How a test ran (the [`label::MODE`] label).
pub mod mode {
    /// One process ran it while the others idled (`Single`).
    pub const SINGLE: &str = "single";
    /// Every process ran its own copy at once (`Star`, embarrassingly
    /// parallel); the figure is one process's.
    pub const STAR: &str = "star";
    /// All processes ran one distributed test (`MPI`); nodebench's PTRANS,
    /// every thread on one matrix, is labelled so too.
    pub const MPI: &str = "mpi";
    /// Every core updated one table shared without locks (nodebench's
    /// `memory gups --mode shared`, the one-node form of MPIRandomAccess;
    /// HPCC's rule allows the lost updates up to 1 % of the table).
    pub const SHARED: &str = "shared";
}

/// Which latency/bandwidth figure (the [`label::KIND`] label).
pub mod kind {
    /// The shortest ping-pong latency, or the lowest ping-pong bandwidth,
    /// over the process pairs.
    pub const MIN_PING_PONG: &str = "min_ping_pong";
    /// The mean over the process pairs.
    pub const AVG_PING_PONG: &str = "avg_ping_pong";
    /// The longest latency, or the highest bandwidth, over the pairs.
    pub const MAX_PING_PONG: &str = "max_ping_pong";
    /// A ring of the processes in rank order.
    pub const NATURALLY_ORDERED_RING: &str = "naturally_ordered_ring";
    /// Rings of the processes in random orders.
    pub const RANDOMLY_ORDERED_RING: &str = "randomly_ordered_ring";
}

/// Label keys.
pub mod label {
    /// How a test ran (a [`mode`](super::mode) name).
    pub const MODE: &str = "mode";
    /// Which latency/bandwidth figure (a [`kind`](super::kind) name).
    pub const KIND: &str = "kind";
}

/// Metric names.
pub mod metric {
    /// Flop per second (DGEMM, FFT).
    pub const RATE: &str = "rate";
    /// RandomAccess: table updates per second (GUP/s times 10^9).
    pub const UPDATES: &str = "updates";
    /// Bytes per second (PTRANS; the ping-pong and ring bandwidths).
    pub const BANDWIDTH: &str = "bandwidth";
    /// Seconds: a ping-pong or ring latency.
    pub const LATENCY: &str = "latency";
    /// RandomAccess: table entries found wrong by the verification (count).
    pub const ERRORS: &str = "errors";
    /// FFT, PTRANS, DGEMM: HPCC's scaled residual of the check (a result
    /// fails above [`super::THRESHOLD`]).
    pub const RESIDUAL: &str = "residual";
}

/// Parameter names.
pub mod param {
    /// MPI processes (`CommWorldProcs`).
    pub const PROCESSES: &str = "processes";
    /// The problem size of a test (matrix order, vector length, table
    /// size), as HPCC names it (`DGEMM_N`, `FFT_N`, `PTRANS_n`...).
    pub const N: &str = "n";
    /// Bytes of one RandomAccess table.
    pub const TABLE_BYTES: &str = "table_bytes";
    /// Updates each RandomAccess table gets (4 x its entries).
    pub const UPDATES: &str = "updates";
    /// Threads of a star or shared run.
    pub const THREADS: &str = "threads";
    /// Where the problem size came from: `--memory-fraction F` (of the
    /// memory per core, HPCC's rule) or the size flag.
    pub const SIZED_BY: &str = "sized_by";
    /// Transparent huge pages for the table (a memory `hugepages` value).
    pub const HUGEPAGES: &str = "hugepages";
    /// Whose multiply a DGEMM run timed: `rust` (nodebench's packed GEMM)
    /// or the BLAS loaded (`openblas`, `mkl`, `flame`, `lapack`).
    pub const BACKEND: &str = "backend";
    /// What that backend is: the GEMM's instruction set, or the library's
    /// own version string.
    pub const BACKEND_VERSION: &str = "backend_version";
}
