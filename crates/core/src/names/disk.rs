//! Names of the disk benchmarks' results: benchmark ids, IOzone's test
//! names, metric names, label keys and values, and parameter names.

/// Benchmark id of the IOzone test set.
pub const IOZONE: &str = "disk.iozone";
/// Benchmark id of the dd-style writes.
pub const DD: &str = "disk.dd";
/// Benchmark id of the block-size x thread matrix.
pub const BLOCKS: &str = "disk.blocks";
/// Benchmark id of synchronised small writes, each followed by fsync or
/// fdatasync (a database log's commit path; pg_test_fsync, fio
/// `--fdatasync=1`).
pub const FSYNC: &str = "disk.fsync";
/// Benchmark id of fio jobs, imported from fio's JSON output.
pub const FIO: &str = "disk.fio";
/// Benchmark id of sysbench's fileio test, imported.
pub const SYSBENCH_FILEIO: &str = "disk.sysbench_fileio";

/// fio's data directions (the [`label::DIRECTION`] label).
pub mod direction {
    /// Reads.
    pub const READ: &str = "read";
    /// Writes.
    pub const WRITE: &str = "write";
    /// Trims (discards).
    pub const TRIM: &str = "trim";
}

/// IOzone's tests, by the names `--tests` takes and the `test` label holds.
pub mod test {
    /// Initial sequential write of a new file.
    pub const WRITE: &str = "write";
    /// Sequential overwrite of the existing file.
    pub const REWRITE: &str = "rewrite";
    /// Sequential read.
    pub const READ: &str = "read";
    /// Sequential read again.
    pub const REREAD: &str = "reread";
    /// Random reads, each record once.
    pub const RANDOM_READ: &str = "random_read";
    /// Random writes, each record once.
    pub const RANDOM_WRITE: &str = "random_write";
    /// Sequential read from the end to the start.
    pub const BACKWARD_READ: &str = "backward_read";
    /// Writing the same record over and over.
    pub const RECORD_REWRITE: &str = "record_rewrite";
    /// Reading every stride-th record.
    pub const STRIDE_READ: &str = "stride_read";
    /// Buffered stream write of a new file.
    pub const FWRITE: &str = "fwrite";
    /// Buffered stream overwrite.
    pub const FREWRITE: &str = "frewrite";
    /// Buffered stream read.
    pub const FREAD: &str = "fread";
    /// Buffered stream read again.
    pub const FREREAD: &str = "freread";
    /// pwrite of a new file.
    pub const PWRITE: &str = "pwrite";
    /// pread.
    pub const PREAD: &str = "pread";
    /// Random mix of reads and writes.
    pub const MIXED: &str = "mixed";
}

/// Metric (and histogram) names.
pub mod metric {
    /// Bytes per second: a test's "children see" rate in IOzone, a cell's
    /// total over its wall time in `disk blocks`, dd's rate.
    pub const BANDWIDTH: &str = "bandwidth";
    /// Operations per second.
    pub const IOPS: &str = "iops";
    /// Latency: the per-operation histogram of an IOzone test, and the mean
    /// time of one operation of a `disk blocks` cell.
    pub const LATENCY: &str = "latency";
    pub use crate::names::latency::{
        LATENCY_MAX, LATENCY_P50, LATENCY_P90, LATENCY_P99, LATENCY_P999,
    };
    /// Bytes moved.
    pub const BYTES: &str = "bytes";
    /// Operations done.
    pub const OPERATIONS: &str = "operations";
    /// Seconds a dd write took.
    pub const SECONDS: &str = "seconds";
    /// IOzone's "Children see throughput": the sum of the workers' rates.
    pub const CHILDREN_SEE: &str = "children_see";
    /// IOzone's "Parent sees throughput": all bytes over the wall time.
    pub const PARENT_SEES: &str = "parent_sees";
    /// IOzone's "Min throughput per process".
    pub const MIN_PER_WORKER: &str = "min_per_worker";
    /// IOzone's "Max throughput per process".
    pub const MAX_PER_WORKER: &str = "max_per_worker";
    /// IOzone's "Avg throughput per process".
    pub const AVG_PER_WORKER: &str = "avg_per_worker";
    /// IOzone's "Min xfer": the fewest bytes a worker had moved when the
    /// first worker finished.
    pub const MIN_XFER: &str = "min_xfer";
    /// The six figures of an IOzone throughput-mode block, in its print order.
    pub const THROUGHPUT: [&str; 6] = [
        CHILDREN_SEE,
        PARENT_SEES,
        MIN_PER_WORKER,
        MAX_PER_WORKER,
        AVG_PER_WORKER,
        MIN_XFER,
    ];
    /// IOPS of one steady-state round (labelled with its
    /// [`round`](super::label::ROUND)): an IOzone test's or a `disk blocks`
    /// cell's, the figure the SNIA steady-state window judges.
    pub const ROUND_IOPS: &str = "round_iops";
}

/// Label keys (the thread count of a `disk blocks` cell is
/// [`labels::THREADS`](crate::names::labels::THREADS)).
pub mod label {
    /// The IOzone test of a metric (a [`test`](super::test) name).
    pub const TEST: &str = "test";
    /// File size of an IOzone cell, in bytes.
    pub const FILE_SIZE: &str = "file_size";
    /// Record size of an IOzone cell, in bytes.
    pub const RECORD: &str = "record";
    /// IOzone workers (throughput mode's processes).
    pub const WORKERS: &str = "workers";
    /// What dd flushed at the end (a [`sync`](super::sync) name).
    pub const SYNC: &str = "sync";
    /// The operation of a `disk blocks` cell (an [`op`](super::op) name).
    pub const OP: &str = "op";
    /// Block size of a `disk blocks` cell, in bytes.
    pub const BLOCK: &str = "block";
    /// fio's data direction of a figure (a [`direction`](super::direction) name).
    pub const DIRECTION: &str = "direction";
    /// The fio job a figure belongs to (its `jobname`).
    pub const JOB: &str = "job";
    /// The steady-state round (1, 2, ...) of a
    /// [`ROUND_IOPS`](super::metric::ROUND_IOPS) figure.
    pub const ROUND: &str = "round";
}

/// I/O engine names (`--engine`, the `engine` parameter).
pub mod engine {
    /// pread/pwrite, one at a time (fio's psync).
    pub const PSYNC: &str = "psync";
    /// io_uring with a queue depth (fio's io_uring).
    pub const IO_URING: &str = "io_uring";
    /// Buffered streams (IOzone's fread/fwrite tests).
    pub const STDIO: &str = "stdio";
}

/// Operations of the `disk blocks` matrix (`--ops`, the `op` label).
pub mod op {
    /// Sequential reads.
    pub const SEQ_READ: &str = "seq_read";
    /// Random reads.
    pub const RAND_READ: &str = "rand_read";
    /// Alternating reads and writes.
    pub const READ_WRITE: &str = "read_write";
}

/// What a job flushes after its last write (the `sync` label of dd).
pub mod sync {
    /// Nothing: the page cache's figure.
    pub const NONE: &str = "none";
    /// fsync(2).
    pub const FSYNC: &str = "fsync";
    /// fdatasync(2) (dd `conv=fdatasync`).
    pub const FDATASYNC: &str = "fdatasync";
}

/// Parameter names.
pub mod param {
    /// Directory the scratch files went in.
    pub const DIR: &str = "dir";
    /// IOzone file size per worker, bytes.
    pub const FILE_SIZE: &str = "file_size";
    /// IOzone record size of a single run, bytes.
    pub const RECORD_SIZE: &str = "record_size";
    /// IOzone record sizes of one auto-mode file size, bytes.
    pub const RECORD_SIZES: &str = "record_sizes";
    /// IOzone tests, in run order.
    pub const TESTS: &str = "tests";
    /// IOzone workers.
    pub const WORKERS: &str = "workers";
    /// IOzone throughput mode (`-t`, more than one worker).
    pub const THROUGHPUT_MODE: &str = "throughput_mode";
    /// IOzone auto mode (`-a`).
    pub const AUTO: &str = "auto";
    /// IOzone `-e`: fsync inside the write timing.
    pub const FSYNC_IN_TIMING: &str = "fsync_in_timing";
    /// IOzone `-o`: O_SYNC writes.
    pub const O_SYNC: &str = "o_sync";
    /// O_DIRECT (IOzone `-I`, dd `oflag=direct`).
    pub const DIRECT: &str = "direct";
    /// IOzone `-p`: the file's pages dropped before each test.
    pub const PURGE: &str = "purge";
    /// The whole page cache dropped before each test.
    pub const DROP_CACHES: &str = "drop_caches";
    /// The I/O engine (an [`engine`](super::engine) name).
    pub const ENGINE: &str = "engine";
    /// Operations in flight (1 but with io_uring).
    pub const IODEPTH: &str = "iodepth";
    /// IOzone's stride, in records.
    pub const STRIDE_RECORDS: &str = "stride_records";
    /// Written data read back and checked.
    pub const VERIFY: &str = "verify";
    /// What the written data is.
    pub const DATA: &str = "data";
    /// dd's bytes per write.
    pub const BLOCK_SIZE: &str = "block_size";
    /// dd's number of writes.
    pub const COUNT: &str = "count";
    /// dd's megabyte.
    pub const MB: &str = "mb";
    /// Threads of a `disk blocks` result.
    pub const THREADS: &str = "threads";
    /// Bytes per `disk blocks` cell, split across the threads.
    pub const TOTAL_BYTES: &str = "total_bytes";
    /// Longest a `disk blocks` cell may run, seconds.
    pub const CELL_TIME_LIMIT_S: &str = "cell_time_limit_s";
    /// fio's I/O pattern (`rw=`: read, randwrite, randrw...).
    pub const PATTERN: &str = "pattern";
    /// fio's processes or threads per job (`numjobs`).
    pub const JOBS: &str = "jobs";
    /// Time limit of a job, seconds (fio's `runtime`).
    pub const DURATION_S: &str = "duration_s";
    /// `--steady-state`: preconditioned, then run in rounds until steady.
    pub const STEADY_STATE: &str = "steady_state";
    /// `--max-rounds`: the most steady-state rounds.
    pub const MAX_ROUNDS: &str = "max_rounds";
    /// Steady-state rounds run.
    pub const ROUNDS: &str = "rounds";
    /// Whether the steady-state window's limits were met.
    pub const STEADY_STATE_REACHED: &str = "steady_state_reached";
    /// The round at which steady state was reached (absent if it was not).
    pub const STEADY_STATE_ROUND: &str = "steady_state_round";
}

/// Parameters that define an IOzone workload (test and record size of a
/// figure are labels; the directory is what a comparison compares).
pub const IOZONE_WORKLOAD_PARAMS: &[&str] = &[
    param::FILE_SIZE,
    param::RECORD_SIZE,
    param::WORKERS,
    param::FSYNC_IN_TIMING,
    param::O_SYNC,
    param::DIRECT,
];
/// Parameters that define a dd workload.
pub const DD_WORKLOAD_PARAMS: &[&str] = &[param::BLOCK_SIZE, param::COUNT, param::DIRECT];
/// Parameters that define a `disk fsync` workload (the sync call is the
/// figures' `sync` label).
pub const FSYNC_WORKLOAD_PARAMS: &[&str] = &[param::BLOCK_SIZE, param::COUNT, param::DIRECT];
/// Parameters that define a `disk blocks` workload.
pub const BLOCKS_WORKLOAD_PARAMS: &[&str] = &[param::THREADS, param::TOTAL_BYTES, param::DIRECT];
