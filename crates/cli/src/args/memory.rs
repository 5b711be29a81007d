//! `nodebench memory ...`: the subcommands. Each wraps its benchmark's
//! arguments, defined with their conversion into its config in `nodebench_memory::cli`.

use clap::Subcommand;
use nodebench_memory::cli::*;

/// `nodebench memory ...`
#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// STREAM Copy/Scale/Add/Triad under STREAM's run rules: arrays of at
    /// least 4x the last-level caches, first iteration dropped, best rate,
    /// validated. MB/s = 10^6 B/s; bytes counted as STREAM does (16, 16, 24,
    /// 24 per element). Ordinary stores make the CPU read each destination
    /// line before writing it (write-allocate), so the real traffic exceeds
    /// STREAM's count; the stores=nontemporal figures use streaming stores,
    /// which skip that read.
    Stream(StreamArgs),
    /// The block-size x thread matrix: sequential write (memset),
    /// random write and read+write (memcpy) per block size and thread count,
    /// over a fixed total split across the threads; throughput and mean
    /// latency of one block operation.
    Blocks(BlocksArgs),
    /// Load-to-use latency by working-set size: dependent loads over a random
    /// cyclic permutation of cache lines, in ns and cycles, each point
    /// labelled L1/L2/L3/DRAM from the cache sizes.
    Latency(LatencyArgs),
    /// Intel MLC's latency and bandwidth matrices: for each NUMA node's CPUs
    /// (rows) and each node's memory (columns, bound with mbind), the idle
    /// latency of a pointer chase on one CPU and the read bandwidth of all
    /// the node's CPUs, with far cells as % of local. One node: a 1x1 matrix.
    Numa(NumaArgs),
    /// Intel MLC's loaded latency: a pointer chase on the first CPU while
    /// every other CPU injects traffic (all reads, 3:1, 2:1 or 1:1
    /// reads:writes, or non-temporal writes) at a sweep of delays, giving
    /// latency against bandwidth and its knee; first the peak injection
    /// bandwidth of each mix on every CPU.
    LoadedLatency(LoadedArgs),
    /// HPC Challenge's RandomAccess (GUPS): 4 x table-size XOR updates at
    /// random entries of a table of 2^n 64-bit words, with HPCC's generator
    /// and its verification (fails at 1 % wrong entries); single (one
    /// core), star (every core its own table) and shared (one table,
    /// lock-free) modes, in GUP/s.
    Gups(GupsArgs),
    /// HPC Challenge's PTRANS on one node: A = A^T + B for square matrices
    /// of doubles, blocked, on every thread, in GB/s as HPCC counts them
    /// (8 n^2 bytes per pass), checked against the exact result (fails
    /// above HPCC's scaled residual of 16).
    Ptrans(PtransArgs),
}
