//! `nodebench memory ...`: the flags of `memory stream`, `memory blocks`,
//! `memory latency`, `memory gups` and the others, and the one conversion of each into its
//! benchmark's config.

use std::time::Duration;

use crate::blocks::{BlockOp, BlocksConfig};
use crate::gups::{GupsConfig, GupsMode};
use crate::latency::LatencyConfig;
use crate::loaded::LoadedConfig;
use crate::numa::NumaConfig;
use crate::ptrans::PtransConfig;
use crate::stream::StreamConfig;
use crate::stream_numa::StreamNuma;
use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::names::memory;

use nodebench_core::cli::parse::{
    ThreadList, duration_text, or_default, parse_count, parse_duration, parse_size, parse_threads,
    size_text,
};

/// HPC Challenge's PTRANS on one node: A = A^T + B for square matrices
/// of doubles, blocked, on every thread, in GB/s as HPCC counts them
/// (8 n^2 bytes per pass), checked against the exact result (fails
/// above HPCC's scaled residual of 16).
#[derive(Debug, Args)]
pub struct PtransArgs {
    /// The share of the machine's memory the two matrices (16 n^2 bytes)
    /// may take; the order is the largest that fits.
    #[arg(long, value_name = "F", default_value_t = PtransConfig::default().memory_fraction)]
    pub memory_fraction: f64,
    /// The matrix order instead (HPCC's PTRANS_n).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub order: Option<u64>,
    /// Threads. Default: every allowed CPU.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Timed passes; the best counts.
    #[arg(long, value_name = "N", default_value_t = PtransConfig::default().ntimes as u64, value_parser = parse_count)]
    pub ntimes: u64,
}

impl From<&PtransArgs> for PtransConfig {
    fn from(a: &PtransArgs) -> PtransConfig {
        PtransConfig {
            memory_fraction: a.memory_fraction,
            order: a.order.map(|n| n as usize),
            threads: a.threads,
            ntimes: a.ntimes as usize,
        }
    }
}

/// HPC Challenge's RandomAccess (GUPS): 4 x table-size XOR updates at
/// random entries of a table of 2^n 64-bit words, with HPCC's generator
/// and its verification (fails at 1 % wrong entries); single (one
/// core), star (every core its own table) and shared (one table,
/// lock-free) modes, in GUP/s.
#[derive(Debug, Args)]
pub struct GupsArgs {
    /// The share of each core's memory (MemTotal over the cores) one table
    /// may take; the table is the largest power of two of words within it
    /// (HPCC's rule; the shared table takes the share of all memory).
    #[arg(long, value_name = "F", default_value_t = GupsConfig::default().memory_fraction)]
    pub memory_fraction: f64,
    /// Entries (64-bit words) of each table instead, a power of two, as
    /// HPCC prints RandomAccess_N (4194304 = 2^22).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub table_size: Option<u64>,
    /// Modes, in order: single, star, shared.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = GupsConfig::default().modes)]
    pub modes: Vec<GupsMode>,
    /// Threads of star and shared. Default: every allowed CPU.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Do not ask for transparent huge pages (each update then misses the
    /// TLB, as an HPCC binary's malloc'ed table does when THP is `madvise`).
    #[arg(long)]
    pub no_hugepages: bool,
}

impl From<&GupsArgs> for GupsConfig {
    fn from(a: &GupsArgs) -> GupsConfig {
        GupsConfig {
            memory_fraction: a.memory_fraction,
            table_size: a.table_size,
            modes: a.modes.clone(),
            threads: a.threads,
            hugepages: !a.no_hugepages,
        }
    }
}

/// Intel MLC's latency and bandwidth matrices: for each NUMA node's CPUs
/// (rows) and each node's memory (columns, bound with mbind), the idle
/// latency of a pointer chase on one CPU and the read bandwidth of all
/// the node's CPUs, with far cells as % of local. One node: a 1x1 matrix.
#[derive(Debug, Args)]
pub struct NumaArgs {
    /// Bytes of each latency cell's chase buffer.
    #[arg(long, value_name = "SIZE", default_value = size_text(NumaConfig::default().latency_bytes), value_parser = parse_size)]
    pub latency_size: u64,
    /// Bytes of each bandwidth cell's buffer. Default: 4x the last-level
    /// cache, at least 256 MiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub bandwidth_size: Option<u64>,
    /// Time per cell.
    #[arg(long, value_name = "DURATION", default_value = duration_text(NumaConfig::default().duration), value_parser = parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Do not ask for transparent huge pages.
    #[arg(long)]
    pub no_hugepages: bool,
}

impl From<&NumaArgs> for NumaConfig {
    fn from(a: &NumaArgs) -> NumaConfig {
        NumaConfig {
            latency_bytes: a.latency_size,
            bandwidth_bytes: a.bandwidth_size,
            duration: a.duration,
            hugepages: !a.no_hugepages,
        }
    }
}

/// Intel MLC's loaded latency: a pointer chase on the first CPU while
/// every other CPU injects traffic (all reads, 3:1, 2:1 or 1:1
/// reads:writes, or non-temporal writes) at a sweep of delays, giving
/// latency against bandwidth and its knee; first the peak injection
/// bandwidth of each mix on every CPU.
#[derive(Debug, Args)]
pub struct LoadedArgs {
    /// Traffic of the sweep: reads, 3:1, 2:1, 1:1 (reads:writes) or
    /// nt_writes (non-temporal stores, x86-64).
    #[arg(long, value_name = "MIX", default_value = LoadedConfig::default().mix, value_parser = parse_mix)]
    pub mix: &'static str,
    /// Injection delays (spin iterations after each group of lines),
    /// longest first.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = LoadedConfig::default().delays)]
    pub delays: Vec<u64>,
    /// Time per point.
    #[arg(long, value_name = "DURATION", default_value = duration_text(LoadedConfig::default().duration), value_parser = parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Bytes of the chase buffer.
    #[arg(long, value_name = "SIZE", default_value = size_text(LoadedConfig::default().chase_bytes), value_parser = parse_size)]
    pub chase_size: u64,
    /// Bytes all traffic threads walk. Default: 4x the last-level cache, at
    /// least 256 MiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub traffic_size: Option<u64>,
    /// Skip the peak injection bandwidth of each mix.
    #[arg(long)]
    pub no_peak: bool,
    /// Do not ask for transparent huge pages.
    #[arg(long)]
    pub no_hugepages: bool,
}

/// A `--mix` name.
fn parse_mix(s: &str) -> Result<&'static str, String> {
    use nodebench_core::names::memory::mix;
    mix::ALL
        .iter()
        .copied()
        .find(|m| *m == s)
        .ok_or_else(|| format!("expected one of {}", mix::ALL.join(", ")))
}

impl From<&LoadedArgs> for LoadedConfig {
    fn from(a: &LoadedArgs) -> LoadedConfig {
        LoadedConfig {
            mix: a.mix,
            delays: a.delays.clone(),
            duration: a.duration,
            chase_bytes: a.chase_size,
            traffic_bytes: a.traffic_size,
            peak: !a.no_peak,
            hugepages: !a.no_hugepages,
        }
    }
}

/// STREAM Copy/Scale/Add/Triad under STREAM's run rules: arrays of at
/// least 4x the last-level caches, first iteration dropped, best rate,
/// validated. MB/s = 10^6 B/s; bytes counted as STREAM does (16, 16, 24,
/// 24 per element). Ordinary stores make the CPU read each destination
/// line before writing it (write-allocate), so the real traffic exceeds
/// STREAM's count; the stores=nontemporal figures use streaming stores,
/// which skip that read.
#[derive(Debug, Args)]
pub struct StreamArgs {
    /// Thread counts, one result each (1,2,4 or 1..8 or all). Default: every
    /// CPU of the placement (all, or node N's with --numa node:N).
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
    /// NUMA placement: local (each thread's part on its own node, first
    /// touch; with two or more nodes, each node is then also run alone),
    /// interleave (pages over every node, as numactl --interleave=all) or
    /// node:N (node N's CPUs and memory, as numactl -N N -m N).
    #[arg(long, value_name = "PLACE", default_value = "local", value_parser = StreamNuma::parse)]
    pub numa: StreamNuma,
}

impl From<&StreamArgs> for StreamConfig {
    fn from(a: &StreamArgs) -> StreamConfig {
        StreamConfig {
            // No list: every CPU of the team (all, or node N's).
            threads: a.threads.as_ref().map_or(Vec::new(), |t| t.0.clone()),
            array_size: a.array_size.map(|n| n as usize),
            ntimes: a.ntimes as usize,
            nontemporal: !a.no_nontemporal,
            pin: !a.no_pin,
            hugepages: !a.no_hugepages,
            numa: a.numa.clone(),
        }
    }
}

/// The block-size x thread matrix: sequential write (memset),
/// random write and read+write (memcpy) per block size and thread count,
/// over a fixed total split across the threads; throughput and mean
/// latency of one block operation.
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

/// Load-to-use latency by working-set size: dependent loads over a random
/// cyclic permutation of cache lines, in ns and cycles, each point
/// labelled L1/L2/L3/DRAM from the cache sizes.
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

impl BenchArgs for StreamArgs {
    const ID: &'static str = memory::STREAM;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::stream::Stream::new(self.into())))
    }
}

impl BenchArgs for BlocksArgs {
    const ID: &'static str = memory::BLOCKS;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::blocks::Blocks {
            config: self.into(),
        }))
    }
}

impl BenchArgs for LatencyArgs {
    const ID: &'static str = memory::LATENCY;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::latency::Latency {
            config: self.into(),
        }))
    }
}

impl BenchArgs for NumaArgs {
    const ID: &'static str = memory::NUMA;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::numa::Numa {
            config: self.into(),
        }))
    }
}

impl BenchArgs for LoadedArgs {
    const ID: &'static str = memory::LOADED_LATENCY;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::loaded::LoadedLatency {
            config: self.into(),
        }))
    }
}

impl BenchArgs for GupsArgs {
    const ID: &'static str = memory::HPCC_RANDOM_ACCESS;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::gups::Gups {
            config: self.into(),
        }))
    }
}

impl BenchArgs for PtransArgs {
    const ID: &'static str = memory::HPCC_PTRANS;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::ptrans::Ptrans {
            config: self.into(),
        }))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[
    Runnable::of::<StreamArgs>(),
    Runnable::of::<BlocksArgs>(),
    Runnable::of::<LatencyArgs>(),
    Runnable::of::<NumaArgs>(),
    Runnable::of::<LoadedArgs>(),
    Runnable::of::<GupsArgs>(),
    Runnable::of::<PtransArgs>(),
];
