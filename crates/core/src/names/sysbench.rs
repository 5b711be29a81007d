//! Names of the figures and settings sysbench prints, shared by its tests;
//! each test's benchmark id is in its area's module
//! ([`super::cpu::SYSBENCH`], [`super::memory::SYSBENCH`],
//! [`super::disk::SYSBENCH_FILEIO`], [`super::db::SYSBENCH_OLTP`]). The
//! latency figures are the shared [`super::latency`] names.

/// Metric names.
pub mod metric {
    /// Events per second (`events per second`, the cpu test's figure).
    pub const EVENTS_PER_SECOND: &str = "events_per_second";
    /// Events done (`total number of events`).
    pub const EVENTS: &str = "events";
    /// Seconds the test ran (`total time`).
    pub const TOTAL_TIME: &str = "total_time";
    /// Memory operations done (`Total operations`).
    pub const OPERATIONS: &str = "operations";
    /// Memory operations per second.
    pub const OPERATIONS_PER_SECOND: &str = "operations_per_second";
    /// Bytes the memory test moved (`MiB transferred`).
    pub const TRANSFERRED: &str = "transferred";
    /// Bytes per second the memory test moved (`MiB/sec`).
    pub const BANDWIDTH: &str = "bandwidth";
    /// fileio reads per second.
    pub const READS_PER_SECOND: &str = "reads_per_second";
    /// fileio writes per second.
    pub const WRITES_PER_SECOND: &str = "writes_per_second";
    /// fileio fsyncs per second.
    pub const FSYNCS_PER_SECOND: &str = "fsyncs_per_second";
    /// fileio bytes read per second (`read, MiB/s`).
    pub const READ_BANDWIDTH: &str = "read_bandwidth";
    /// fileio bytes written per second (`written, MiB/s`).
    pub const WRITE_BANDWIDTH: &str = "write_bandwidth";
    /// OLTP transactions done.
    pub const TRANSACTIONS: &str = "transactions";
    /// OLTP transactions per second.
    pub const TRANSACTIONS_PER_SECOND: &str = "transactions_per_second";
    /// OLTP queries done (`total`).
    pub const QUERIES: &str = "queries";
    /// OLTP queries per second.
    pub const QUERIES_PER_SECOND: &str = "queries_per_second";
    /// OLTP read queries done.
    pub const QUERIES_READ: &str = "queries_read";
    /// OLTP write queries done.
    pub const QUERIES_WRITE: &str = "queries_write";
    /// OLTP other queries done (BEGIN, COMMIT...).
    pub const QUERIES_OTHER: &str = "queries_other";
    /// OLTP errors sysbench ignored (deadlocks and the like).
    pub const IGNORED_ERRORS: &str = "ignored_errors";
    /// OLTP reconnects.
    pub const RECONNECTS: &str = "reconnects";
    /// Sum of all events' latencies, seconds (`sum`).
    pub const LATENCY_SUM: &str = "latency_sum";
}

/// Parameter names.
pub mod param {
    /// Worker threads (`--threads`).
    pub const THREADS: &str = "threads";
    /// The test or Lua script run (`cpu`, `fileio`, `oltp_read_write`).
    pub const TEST: &str = "test";
    /// cpu: primes are counted up to this (`--cpu-max-prime`).
    pub const CPU_MAX_PRIME: &str = "cpu_max_prime";
    /// memory and fileio: bytes per operation (`--memory-block-size`,
    /// `--file-block-size`).
    pub const BLOCK_SIZE: &str = "block_size";
    /// memory and fileio: total bytes (`--memory-total-size`,
    /// `--file-total-size`).
    pub const TOTAL_SIZE: &str = "total_size";
    /// memory: `read` or `write` (`--memory-oper`).
    pub const OPERATION: &str = "operation";
    /// memory: `global` or `local` (`--memory-scope`).
    pub const SCOPE: &str = "scope";
    /// fileio: number of files (`--file-num`).
    pub const FILES: &str = "files";
    /// fileio: the test mode as printed (`random r/w`, `sequential write
    /// (creation)`...).
    pub const MODE: &str = "mode";
    /// fileio: reads per write of the combined random test (`--file-rw-ratio`).
    pub const RW_RATIO: &str = "rw_ratio";
    /// fileio: requests between fsyncs, 0 for none (`--file-fsync-freq`).
    pub const FSYNC_FREQ: &str = "fsync_freq";
    /// The latency percentile sysbench reports (`--percentile`).
    pub const PERCENTILE: &str = "percentile";
}
