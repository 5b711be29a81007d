//! `nodebench disk ...`: the flags of `disk iozone`, `disk dd`, `disk
//! fsync` and `disk blocks`, and the one conversion of each into its benchmark's config.

use std::path::PathBuf;
use std::time::Duration;

use crate::blocks::{DiskBlocksConfig, DiskOp};
use crate::dd::DdConfig;
use crate::fsync::{FsyncConfig, SyncCall};
use crate::iozone::{IozoneConfig, Test};
use crate::job::Engine;
use crate::steady;
use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::config::UnknownChoice;
use nodebench_core::names::disk;

use nodebench_core::cli::parse::{
    ThreadList, duration_text, or_default, parse_count, parse_duration, parse_size, parse_threads,
    size_text,
};

/// The largest file of IOzone's auto mode when `-g` is not given (IOzone's
/// own default).
const AUTO_MAX_FILE_SIZE: u64 = 512 << 20;

/// The IOzone test set: write, rewrite, read, reread, random read/write,
/// backward read, record rewrite, stride read, fwrite/frewrite,
/// fread/freread, pwrite/pread, mixed; IOzone's flags; throughput mode
/// (-t) and auto mode (-a); IOPS and latency percentiles per test.
#[derive(Debug, Args)]
pub struct IozoneArgs {
    /// Directory for the test files (nodebench-*.tmp, removed afterwards).
    #[arg(long, value_name = "PATH")]
    pub dir: PathBuf,
    /// File size per worker (IOzone -s): 512m, 2g.
    #[arg(short = 's', long, value_name = "SIZE", default_value = size_text(IozoneConfig::default().file_size), value_parser = parse_size)]
    pub file_size: u64,
    /// Record size (IOzone -r): 4k, 1m.
    #[arg(short = 'r', long, value_name = "SIZE", default_value = size_text(IozoneConfig::default().record_size), value_parser = parse_size)]
    pub record_size: u64,
    /// Tests to run, comma-separated (default all): write, rewrite, read,
    /// reread, random_read, random_write, backward_read, record_rewrite,
    /// stride_read, fwrite, frewrite, fread, freread, pwrite, pread, mixed.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub tests: Vec<Test>,
    /// Throughput mode with N workers, each on its own file (IOzone -t).
    #[arg(short = 't', long, value_name = "N", default_value_t = IozoneConfig::default().workers as u64, value_parser = parse_count)]
    pub workers: u64,
    /// Auto mode (IOzone -a): file sizes 64 KiB to --max-file-size x records 4 KiB to 16 MiB.
    #[arg(short = 'a', long)]
    pub auto: bool,
    /// Largest file size in auto mode (IOzone -g).
    #[arg(short = 'g', long, value_name = "SIZE", default_value = size_text(AUTO_MAX_FILE_SIZE), value_parser = parse_size)]
    pub max_file_size: u64,
    /// Include fsync in the write timing (IOzone -e).
    #[arg(short = 'e', long)]
    pub fsync: bool,
    /// O_SYNC writes (IOzone -o).
    #[arg(short = 'o', long = "sync")]
    pub o_sync: bool,
    /// O_DIRECT, with aligned buffers (IOzone -I).
    #[arg(short = 'I', long)]
    pub direct: bool,
    /// Drop the file's pages from the page cache before each test (IOzone -p).
    #[arg(short = 'p', long)]
    pub purge: bool,
    /// Also drop the whole page cache before each test (root only).
    #[arg(long)]
    pub drop_caches: bool,
    /// I/O engine: psync or io_uring.
    #[arg(long, value_name = "ENGINE", default_value_t = IozoneConfig::default().engine, value_parser = parse_engine)]
    pub engine: Engine,
    /// Operations in flight with io_uring.
    #[arg(long, value_name = "N", default_value_t = IozoneConfig::default().iodepth.into(), value_parser = parse_count)]
    pub iodepth: u64,
    /// Read back what the write tests wrote and compare.
    #[arg(long)]
    pub verify: bool,
    #[command(flatten)]
    pub steady: SteadyArgs,
}

/// `--steady-state` and `--max-rounds`, shared by `disk iozone` and `disk
/// blocks`.
#[derive(Debug, Args)]
pub struct SteadyArgs {
    /// SNIA PTS steady state: precondition the test files (sequential
    /// writes of twice their size, then random writes at the block size),
    /// then run rounds until, over the last 5, each figure's IOPS range is
    /// within 20 % of its mean and its fitted line's excursion within 10 %.
    #[arg(long)]
    pub steady_state: bool,
    /// The most steady-state rounds (at least 5).
    #[arg(long, value_name = "N", default_value_t = steady::DEFAULT_MAX_ROUNDS as u64, value_parser = parse_count, requires = "steady_state")]
    pub max_rounds: u64,
}

impl SteadyArgs {
    /// The rounds as a config holds them.
    fn max_rounds(&self) -> usize {
        usize::try_from(self.max_rounds).unwrap_or(usize::MAX)
    }
}

/// An engine by name; `io-uring` is taken for `io_uring`. An unknown name
/// is answered with the engines `--engine` takes (stdio is a test's own).
fn parse_engine(s: &str) -> Result<Engine, UnknownChoice> {
    s.replace('-', "_")
        .parse()
        .map_err(|e: UnknownChoice| UnknownChoice {
            accepted: format!("{}, {}", Engine::Psync, Engine::IoUring),
            ..e
        })
}

impl From<&IozoneArgs> for IozoneConfig {
    fn from(a: &IozoneArgs) -> IozoneConfig {
        let d = IozoneConfig::default();
        IozoneConfig {
            dir: a.dir.clone(),
            file_size: a.file_size,
            record_size: a.record_size,
            tests: or_default(&a.tests, d.tests),
            workers: a.workers as usize,
            auto_max_file_size: a.auto.then_some(a.max_file_size),
            fsync_in_timing: a.fsync,
            o_sync: a.o_sync,
            direct: a.direct,
            purge: a.purge,
            drop_caches: a.drop_caches,
            engine: a.engine,
            iodepth: a.iodepth.try_into().unwrap_or(u32::MAX),
            verify: a.verify,
            steady_state: a.steady.steady_state,
            max_rounds: a.steady.max_rounds(),
        }
    }
}

/// dd-style sequential write of --count x --block-size, without and with
/// a final fdatasync; bytes, seconds and MB/s (10^6 B/s) as dd prints.
#[derive(Debug, Args)]
pub struct DdArgs {
    /// Directory for the file (removed afterwards).
    #[arg(long, value_name = "PATH")]
    pub dir: PathBuf,
    /// Bytes per write (dd bs=): 100M.
    #[arg(long, value_name = "SIZE", default_value = size_text(DdConfig::default().block_size), value_parser = parse_size)]
    pub block_size: u64,
    /// Number of writes (dd count=).
    #[arg(long, value_name = "N", default_value_t = DdConfig::default().count, value_parser = parse_count)]
    pub count: u64,
    /// O_DIRECT (dd oflag=direct).
    #[arg(long)]
    pub direct: bool,
}

impl From<&DdArgs> for DdConfig {
    fn from(a: &DdArgs) -> DdConfig {
        DdConfig {
            dir: a.dir.clone(),
            block_size: a.block_size,
            count: a.count,
            direct: a.direct,
        }
    }
}

/// Synced small writes, a database log's commit path: --count writes
/// of --block-size, each followed by fdatasync (or fsync) before the
/// next, as fio --fdatasync=1 and pg_test_fsync time them; operations
/// per second and the latency of one write and its sync (mean,
/// percentiles, longest).
#[derive(Debug, Args)]
pub struct FsyncArgs {
    /// Directory for the file (removed afterwards): one on the device
    /// under test.
    #[arg(long, value_name = "PATH")]
    pub dir: PathBuf,
    /// Bytes per write (8k: a PostgreSQL WAL page, pg_test_fsync's size).
    #[arg(long, value_name = "SIZE", default_value = size_text(FsyncConfig::default().block_size), value_parser = parse_size)]
    pub block_size: u64,
    /// Number of writes, each synced.
    #[arg(long, value_name = "N", default_value_t = FsyncConfig::default().count, value_parser = parse_count)]
    pub count: u64,
    /// The sync call after each write: fdatasync or fsync.
    #[arg(long = "sync", value_name = "CALL", default_value_t = FsyncConfig::default().call)]
    pub call: SyncCall,
    /// O_DIRECT: the writes bypass the page cache too.
    #[arg(long)]
    pub direct: bool,
}

impl From<&FsyncArgs> for FsyncConfig {
    fn from(a: &FsyncArgs) -> FsyncConfig {
        FsyncConfig {
            dir: a.dir.clone(),
            block_size: a.block_size,
            count: a.count,
            call: a.call,
            direct: a.direct,
        }
    }
}

/// The block-size x thread matrix: sequential read, random read and
/// read+write per block size and thread count; throughput and latency.
#[derive(Debug, Args)]
pub struct DiskBlocksArgs {
    /// Directory for the files (removed afterwards).
    #[arg(long, value_name = "PATH")]
    pub dir: PathBuf,
    /// Block sizes, comma-separated (8,8KiB,8MiB,80MiB).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_size)]
    pub block_sizes: Vec<u64>,
    /// Thread counts (default 1,2,4,8).
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Bytes per cell, split across the threads.
    #[arg(long, value_name = "SIZE", default_value = size_text(DiskBlocksConfig::default().total), value_parser = parse_size)]
    pub total: u64,
    /// Operations: seq_read,rand_read,read_write (default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub ops: Vec<DiskOp>,
    /// O_DIRECT.
    #[arg(long)]
    pub direct: bool,
    /// Longest one cell may run.
    #[arg(long, value_name = "DURATION", default_value = duration_text(DiskBlocksConfig::default().cell_time_limit), value_parser = parse_duration, allow_hyphen_values = true)]
    pub cell_time: Duration,
    #[command(flatten)]
    pub steady: SteadyArgs,
}

impl From<&DiskBlocksArgs> for DiskBlocksConfig {
    fn from(a: &DiskBlocksArgs) -> DiskBlocksConfig {
        let d = DiskBlocksConfig::default();
        DiskBlocksConfig {
            dir: a.dir.clone(),
            block_sizes: or_default(&a.block_sizes, d.block_sizes),
            threads: a.threads.as_ref().map_or(d.threads, |t| t.0.clone()),
            total: a.total,
            ops: or_default(&a.ops, d.ops),
            direct: a.direct,
            cell_time_limit: a.cell_time,
            steady_state: a.steady.steady_state,
            max_rounds: a.steady.max_rounds(),
        }
    }
}

impl BenchArgs for IozoneArgs {
    const ID: &'static str = disk::IOZONE;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::iozone::Iozone {
            config: self.into(),
        }))
    }
}

impl BenchArgs for DdArgs {
    const ID: &'static str = disk::DD;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::dd::Dd {
            config: self.into(),
        }))
    }
}

impl BenchArgs for FsyncArgs {
    const ID: &'static str = disk::FSYNC;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::fsync::Fsync {
            config: self.into(),
        }))
    }
}

impl BenchArgs for DiskBlocksArgs {
    const ID: &'static str = disk::BLOCKS;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::blocks::DiskBlocks {
            config: self.into(),
        }))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[
    Runnable::of::<IozoneArgs>(),
    Runnable::of::<DdArgs>(),
    Runnable::of::<FsyncArgs>(),
    Runnable::of::<DiskBlocksArgs>(),
];
