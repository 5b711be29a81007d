//! `nodebench memory ...`: the flags of `memory stream`, `memory blocks`
//! and `memory latency`, and the one conversion of each into its
//! benchmark's config.

use std::time::Duration;

use clap::{Args, Subcommand};
use nodebench_memory::blocks::{BlockOp, BlocksConfig};
use nodebench_memory::latency::LatencyConfig;
use nodebench_memory::stream::StreamConfig;

use super::parse::{
    ThreadList, duration_text, or_default, parse_count, parse_duration, parse_size, parse_threads,
    size_text,
};

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
}

/// Options of `memory stream`.
#[derive(Debug, Args)]
pub struct StreamArgs {
    /// Thread counts, one result each (1,2,4 or 1..8 or all). Default: all CPUs.
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Elements (doubles) per array, like STREAM_ARRAY_SIZE: 20m = 20 million.
    /// Default: 4x the total last-level cache, at least 10 million.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub array_size: Option<u64>,
    /// Iterations; the first is dropped.
    #[arg(long, value_name = "N", default_value_t = StreamConfig::default().ntimes as u64, value_parser = parse_count)]
    pub ntimes: u64,
    /// Skip the non-temporal-store pass.
    #[arg(long)]
    pub no_nontemporal: bool,
    /// Do not ask for transparent huge pages (plain 4 KiB pages, as a
    /// STREAM binary gets when THP is in `madvise` mode).
    #[arg(long)]
    pub no_hugepages: bool,
    /// Do not pin threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
}

impl From<&StreamArgs> for StreamConfig {
    fn from(a: &StreamArgs) -> StreamConfig {
        let d = StreamConfig::default();
        StreamConfig {
            threads: a.threads.as_ref().map_or(d.threads, |t| t.0.clone()),
            array_size: a.array_size.map(|n| n as usize),
            ntimes: a.ntimes as usize,
            nontemporal: !a.no_nontemporal,
            pin: !a.no_pin,
            hugepages: !a.no_hugepages,
        }
    }
}

/// Options of `memory blocks`.
#[derive(Debug, Args)]
pub struct BlocksArgs {
    /// Block sizes, comma-separated (8,8KiB,8MiB,80MiB).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_size)]
    pub block_sizes: Vec<u64>,
    /// Thread counts (1,2,4,8 or 1..8 or all). Default: 1,2,4,8.
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Bytes moved per cell, split across the threads (1.28GB = 1.28 x 10^9).
    #[arg(long, value_name = "SIZE", default_value = size_text(BlocksConfig::default().total), value_parser = parse_size)]
    pub total: u64,
    /// Operations: seq_write,rand_write,read_write (default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub ops: Vec<BlockOp>,
    /// Do not pin threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
    /// Do not ask for transparent huge pages.
    #[arg(long)]
    pub no_hugepages: bool,
}

impl From<&BlocksArgs> for BlocksConfig {
    fn from(a: &BlocksArgs) -> BlocksConfig {
        let d = BlocksConfig::default();
        BlocksConfig {
            block_sizes: or_default(&a.block_sizes, d.block_sizes),
            threads: a.threads.as_ref().map_or(d.threads, |t| t.0.clone()),
            total: a.total,
            ops: or_default(&a.ops, d.ops),
            pin: !a.no_pin,
            hugepages: !a.no_hugepages,
        }
    }
}

/// Options of `memory latency`.
#[derive(Debug, Args)]
pub struct LatencyArgs {
    /// Smallest working set.
    #[arg(long, value_name = "SIZE", default_value = size_text(LatencyConfig::default().min_size), value_parser = parse_size)]
    pub min_size: u64,
    /// Largest working set. Default: 4x the last-level cache, at least 64 MiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_size: Option<u64>,
    /// Time spent chasing per working set.
    #[arg(long, value_name = "DURATION", default_value = duration_text(LatencyConfig::default().duration), value_parser = parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Do not ask for transparent huge pages (the DRAM points then include TLB misses).
    #[arg(long)]
    pub no_hugepages: bool,
}

impl From<&LatencyArgs> for LatencyConfig {
    fn from(a: &LatencyArgs) -> LatencyConfig {
        LatencyConfig {
            min_size: a.min_size,
            max_size: a.max_size,
            duration: a.duration,
            hugepages: !a.no_hugepages,
            ..LatencyConfig::default()
        }
    }
}
