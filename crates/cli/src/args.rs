//! Command-line definitions. Values are parsed and validated here, once, into
//! typed structs; the error for a bad value names the flag and the accepted form.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use nodebench_core::{affinity, units};

/// nodebench: benchmark a compute node and the server stack on it.
#[derive(Debug, Parser)]
#[command(name = "nodebench", version, about, long_about = None)]
pub struct Cli {
    /// Results store (SQLite file). Default: $NODEBENCH_STORE, else
    /// $XDG_DATA_HOME/nodebench/results.db, else ~/.local/share/nodebench/results.db.
    #[arg(long, global = true, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Do not save this run to the store.
    #[arg(long, global = true)]
    pub no_save: bool,
    /// Print the result model as JSON (schema: `nodebench schema`) instead of tables.
    #[arg(long, global = true)]
    pub json: bool,
    /// No progress bar.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Tag the run, e.g. --tag config=2cpu-4gb (repeatable).
    #[arg(long = "tag", global = true, value_name = "KEY=VALUE", value_parser = parse_tag)]
    pub tags: Vec<(String, String)>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the quick suite (inventory + short CPU runs), save it and print the tables.
    Run,
    /// Show what this machine is: CPU, caches, ISA, memory, disks, file systems, NICs.
    Inventory,
    /// CPU benchmarks.
    #[command(subcommand)]
    Cpu(CpuCommand),
    /// Memory benchmarks.
    #[command(subcommand)]
    Memory(MemoryCommand),
    /// Stored runs: list, show, export, delete.
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Print the JSON schema of the `--json` output.
    Schema,
}

/// `nodebench cpu ...`
#[derive(Debug, Subcommand)]
pub enum CpuCommand {
    /// Integer and floating-point operation rates (GIOPS, GFLOPS single and
    /// double precision) per thread count, scalar and vectorised FMA kernels,
    /// strong and weak scaling, as % of the theoretical peak
    /// (cores x clock x FLOP/cycle of the ISA).
    Ops(OpsArgs),
}

/// Options of `cpu ops`.
#[derive(Debug, Args)]
pub struct OpsArgs {
    /// Thread counts: 1,2,4,8 or 1..8 or 1..16:x2 or all. Default: 1,2,4,8 and the CPU count.
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Target time of one single-thread measurement (500ms, 2s).
    #[arg(long, value_name = "DURATION", default_value = "200ms", value_parser = parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Reported repeats per cell; the figure is their median.
    #[arg(long, value_name = "N", default_value = "3", value_parser = parse_positive)]
    pub repeats: u64,
    /// Unreported warm-up runs per cell.
    #[arg(long, value_name = "N", default_value = "1", value_parser = clap::value_parser!(u64).range(0..=100))]
    pub warmup: u64,
    /// Kernels to run, comma-separated: int.scalar,int.vector,f32.scalar,f32.vector,f64.scalar,f64.vector (default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_kernel)]
    pub kernels: Vec<nodebench_cpu::kernels::Kernel>,
    /// Strong (fixed total work), weak (fixed work per thread) or both.
    #[arg(long, value_enum, default_value = "both")]
    pub scaling: ScalingArg,
    /// Do not pin threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
}

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
    /// The block-size x thread matrix (seeds/002): sequential write (memset),
    /// random write and read+write (memcpy) per block size and thread count,
    /// over a fixed total split across the threads; throughput and mean
    /// latency of one block operation.
    Blocks(BlocksArgs),
    /// Load-to-use latency by working-set size: dependent loads over a random
    /// cyclic permutation of cache lines, in ns and cycles, each point
    /// labelled L1/L2/L3/DRAM from the cache sizes.
    Latency(LatencyArgs),
}

/// Options of `memory blocks`.
#[derive(Debug, Args)]
pub struct BlocksArgs {
    /// Block sizes, comma-separated (8,8KiB,8MiB,80MiB).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_block_size)]
    pub block_sizes: Vec<u64>,
    /// Thread counts (1,2,4,8 or 1..8 or all). Default: 1,2,4,8.
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Bytes moved per cell, split across the threads (1.28GB = 1.28 x 10^9).
    #[arg(long, value_name = "SIZE", default_value = "1.28GB", value_parser = parse_block_size)]
    pub total: u64,
    /// Operations: seq_write,rand_write,read_write (default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_block_op)]
    pub ops: Vec<nodebench_memory::blocks::BlockOp>,
    /// Do not pin threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
    /// Do not ask for transparent huge pages.
    #[arg(long)]
    pub no_hugepages: bool,
}

/// Options of `memory latency`.
#[derive(Debug, Args)]
pub struct LatencyArgs {
    /// Smallest working set.
    #[arg(long, value_name = "SIZE", default_value = "4KiB", value_parser = parse_block_size)]
    pub min_size: u64,
    /// Largest working set. Default: 4x the last-level cache, at least 64 MiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_block_size)]
    pub max_size: Option<u64>,
    /// Time spent chasing per working set.
    #[arg(long, value_name = "DURATION", default_value = "100ms", value_parser = parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Do not ask for transparent huge pages (the DRAM points then include TLB misses).
    #[arg(long)]
    pub no_hugepages: bool,
}

/// Options of `memory stream`.
#[derive(Debug, Args)]
pub struct StreamArgs {
    /// Thread counts, one result each (1,2,4 or 1..8 or all). Default: all CPUs.
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Elements (doubles) per array, like STREAM_ARRAY_SIZE: 20m = 20 million.
    /// Default: 4x the total last-level cache, at least 10 million.
    #[arg(long, value_name = "N", value_parser = parse_positive)]
    pub array_size: Option<u64>,
    /// Iterations; the first is dropped.
    #[arg(long, value_name = "N", default_value = "10", value_parser = parse_ntimes)]
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

/// `--scaling` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScalingArg {
    /// Fixed total work split across threads.
    Strong,
    /// Fixed work per thread.
    Weak,
    /// Both, strong first.
    Both,
}

/// `nodebench runs ...`
#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// List stored runs, newest first.
    List,
    /// Show one run's tables (or its JSON with --json).
    Show {
        /// Run id, as `runs list` shows it.
        id: i64,
    },
    /// Export one run with every metric.
    Export {
        /// Run id.
        id: i64,
        /// json, csv or md.
        #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
        format: nodebench_report::export::Format,
        /// Write to this file instead of stdout.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Delete one run and all its results.
    Delete {
        /// Run id.
        id: i64,
    },
}

/// A parsed `--threads` list (a newtype so clap takes it as one value).
#[derive(Debug, Clone)]
pub struct ThreadList(pub Vec<usize>);

fn parse_threads(s: &str) -> Result<ThreadList, String> {
    units::parse_thread_list(s, affinity::allowed_cpus().len())
        .map(ThreadList)
        .map_err(|e| e.to_string())
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    units::parse_duration(s).map_err(|e| e.to_string())
}

fn parse_positive(s: &str) -> Result<u64, String> {
    units::parse_count(s).map_err(|e| e.to_string())
}

fn parse_block_size(s: &str) -> Result<u64, String> {
    match units::parse_size(s) {
        Ok(0) => Err(format!(
            "invalid size '{s}': expected a positive size like 8, 8KiB, 8MiB, 1.28GB"
        )),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_block_op(s: &str) -> Result<nodebench_memory::blocks::BlockOp, String> {
    nodebench_memory::blocks::BlockOp::parse(s).ok_or_else(|| {
        format!("unknown operation '{s}': expected seq_write, rand_write or read_write")
    })
}

fn parse_ntimes(s: &str) -> Result<u64, String> {
    match units::parse_count(s) {
        Ok(n) if n >= 2 => Ok(n),
        _ => Err(format!(
            "invalid iteration count '{s}': expected a whole number of at least 2 (the first is dropped)"
        )),
    }
}

fn parse_kernel(s: &str) -> Result<nodebench_cpu::kernels::Kernel, String> {
    nodebench_cpu::kernels::Kernel::parse(s).ok_or_else(|| {
        format!("unknown kernel '{s}': expected int.scalar, int.vector, f32.scalar, f32.vector, f64.scalar or f64.vector")
    })
}

fn parse_format(s: &str) -> Result<nodebench_report::export::Format, String> {
    nodebench_report::export::Format::parse(s)
        .ok_or_else(|| format!("unknown format '{s}': expected json, csv or md"))
}

fn parse_tag(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!(
            "invalid tag '{s}': expected KEY=VALUE, e.g. config=2cpu-4gb"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn tags_need_a_key() {
        assert_eq!(
            parse_tag("config=2cpu").unwrap(),
            ("config".into(), "2cpu".into())
        );
        assert!(parse_tag("=x").is_err());
        assert!(parse_tag("novalue").unwrap_err().contains("KEY=VALUE"));
    }
}
