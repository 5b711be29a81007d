//! Command-line definitions. Values are parsed and validated here, once, into
//! typed structs; the error for a bad value names the flag and the accepted form.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use nodebench_core::config::Choice;
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
    /// Disk benchmarks (files only under --dir, removed afterwards).
    #[command(subcommand)]
    Disk(DiskCommand),
    /// Network benchmarks: iperf3-compatible TCP/UDP throughput and ping-pong.
    #[command(subcommand)]
    Net(NetCommand),
    /// HTTP load: ab/httperf/wrk2-style closed and open model load.
    #[command(subcommand)]
    Http(HttpCommand),
    /// Stored runs: list, show, export, delete.
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Print the JSON schema of the `--json` output.
    Schema,
}

/// `nodebench http ...`
#[derive(Debug, Subcommand)]
pub enum HttpCommand {
    /// Load a URL: the closed model as ab (-n requests over -c connections,
    /// -t time limit) or the open model as httperf/wrk2 (--rate requests/s,
    /// or --conn-rate with --calls-per-conn), with latency measured from each
    /// request's planned send time (no coordinated omission) and ab's and
    /// httperf's figures.
    Load(LoadArgs),
    /// Run the built-in target server (pages of any size generated on the
    /// fly, a CPU-bound page, a delayed page) until Ctrl-C, then print how
    /// many requests it served.
    #[command(after_help = nodebench_http::server::ENDPOINTS)]
    Serve(HttpServeArgs),
    /// JMeter-style user sweep (one Thread Group per user count): for each
    /// user count N, N users each fetch the URL --iterations times; per step
    /// the figures of JMeter's Summary Report (average, minimum and maximum
    /// latency in ms, rate per second) and the rate's % of the first step;
    /// then where the rate stops growing and what saturated (client CPU,
    /// server CPU for a server on this machine, or the link).
    Sweep(SweepArgs),
    /// One large download over one connection, as wget: the body is read
    /// and discarded; byte count, time to first byte, average and best
    /// one-second rate, and the rate of every second.
    Download(DownloadArgs),
}

/// Options of `http serve`.
#[derive(Debug, Args)]
pub struct HttpServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Port to listen on (0: any free port, printed at start).
    #[arg(short = 'p', long, value_name = "PORT", default_value = "8080")]
    pub port: u16,
    /// Worker threads, each with its own event loop (default: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Requests per connection before the server closes it (Apache's
    /// MaxKeepAliveRequests); 0 = unlimited.
    #[arg(long, value_name = "N", default_value = "100", value_parser = parse_keepalive_requests)]
    pub keepalive_requests: u32,
    /// Idle time before a keep-alive connection is closed (Apache's KeepAliveTimeout).
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub keepalive_timeout: Duration,
}

/// Options of `http sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Target URL: http://HOST[:PORT]/PATH or https://HOST[:PORT]/PATH.
    #[arg(value_name = "URL", value_parser = parse_url)]
    pub url: nodebench_http::url::Target,
    /// User counts, one step each: 1,2,4,8, a range 1..8, a doubling range
    /// 1..128:x2 (default 1,2,4,...,128).
    #[arg(long, value_name = "LIST", value_parser = parse_users)]
    pub users: Option<UserList>,
    /// Requests per user in each step (JMeter's loop count).
    #[arg(short = 'n', long, value_name = "N", default_value = "100", value_parser = parse_positive)]
    pub iterations: u64,
    /// One connection per request instead of keep-alive connections.
    #[arg(long)]
    pub no_keepalive: bool,
    /// Client threads (default: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Request method.
    #[arg(short = 'm', long, value_name = "METHOD", default_value = "GET", value_parser = parse_method)]
    pub method: String,
    /// Extra request header "Name: value" (repeatable).
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// Per-request timeout.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub timeout: Duration,
    /// Longest one step may run; it stops starting requests then.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration, allow_hyphen_values = true)]
    pub step_time: Duration,
    /// Accept any TLS certificate.
    #[arg(long)]
    pub insecure: bool,
    /// Do not pin client threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
}

/// Options of `http download`.
#[derive(Debug, Args)]
pub struct DownloadArgs {
    /// URL to fetch: http://HOST[:PORT]/PATH or https://HOST[:PORT]/PATH.
    #[arg(value_name = "URL", value_parser = parse_url)]
    pub url: nodebench_http::url::Target,
    /// Stop after this long, keeping what arrived (default: the whole body).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub max_time: Option<Duration>,
    /// Give up when connecting, or when no data arrives, for this long.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub timeout: Duration,
    /// Length of one rate sample.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub interval: Duration,
    /// Accept any TLS certificate.
    #[arg(long)]
    pub insecure: bool,
}

/// A parsed `--users` list.
#[derive(Debug, Clone)]
pub struct UserList(pub Vec<u32>);

/// The accepted forms of `--users`.
const USERS_FORMS: &str = "a list of user counts from 1 to 10000 like 1,2,4,8, a range 1..8, or a doubling range 1..128:x2";

fn parse_keepalive_requests(s: &str) -> Result<u32, String> {
    s.trim().parse::<u32>().map_err(|_| {
        format!("invalid request count '{s}': expected a whole number like 100, or 0 for unlimited")
    })
}

fn parse_users(s: &str) -> Result<UserList, String> {
    let err = || format!("invalid user list '{s}': expected {USERS_FORMS}");
    let one = |p: &str| match p.trim().parse::<u32>() {
        Ok(n) if (1..=nodebench_http::sweep::MAX_USERS).contains(&n) => Ok(n),
        _ => Err(err()),
    };
    let mut users = Vec::new();
    for part in s.split(',') {
        match part.split_once("..") {
            Some((a, b)) => {
                let (b, doubling) = match b.split_once(':') {
                    Some((b, "x2")) => (b, true),
                    Some(_) => return Err(err()),
                    None => (b, false),
                };
                let (mut n, end) = (one(a)?, one(b)?);
                if n > end {
                    return Err(err());
                }
                while n <= end {
                    users.push(n);
                    n = if doubling { n * 2 } else { n + 1 };
                }
            }
            None => users.push(one(part)?),
        }
    }
    Ok(UserList(users))
}

/// Options of `http load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Target URL: http://HOST[:PORT]/PATH or https://HOST[:PORT]/PATH.
    #[arg(value_name = "URL", value_parser = parse_url)]
    pub url: nodebench_http::url::Target,
    /// Requests to send in all (closed model: stop after this many; open
    /// model: the count to send at --rate).
    #[arg(short = 'n', long, value_name = "N", value_parser = parse_requests)]
    pub requests: Option<u64>,
    /// Concurrent connections (closed model default 1 as ab; open model default 10).
    #[arg(short = 'c', long, value_name = "N", value_parser = parse_concurrency)]
    pub concurrency: Option<u32>,
    /// Closed model: start no request after this long (ab -t); with -n too,
    /// whichever comes first. With neither, one request (as ab).
    #[arg(short = 't', long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub time_limit: Option<Duration>,
    /// Keep connections alive between requests (ab -k); without it each
    /// request has its own connection and sends `Connection: close`.
    #[arg(short = 'k', long)]
    pub keepalive: bool,
    /// Open model: requests per second in all, spread over -c connections (wrk2 -R).
    #[arg(long, value_name = "R", value_parser = parse_rate, conflicts_with_all = ["conn_rate", "time_limit"])]
    pub rate: Option<f64>,
    /// Open model: new connections per second (httperf --rate with --num-conns).
    #[arg(long, value_name = "R", value_parser = parse_rate, conflicts_with_all = ["time_limit", "requests", "concurrency"])]
    pub conn_rate: Option<f64>,
    /// Requests per connection with --conn-rate (httperf --num-calls).
    #[arg(long, value_name = "N", default_value = "1", value_parser = parse_calls, requires = "conn_rate")]
    pub calls_per_conn: u32,
    /// Connections to open in all with --conn-rate (httperf --num-conns;
    /// default: 10 seconds' worth).
    #[arg(long, value_name = "N", value_parser = parse_requests, requires = "conn_rate")]
    pub num_conns: Option<u64>,
    /// Open model: how long to send at --rate (default 10s when no -n is given).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true, requires = "rate")]
    pub duration: Option<Duration>,
    /// Client threads, each with its own event loop and share of the connections.
    #[arg(long, value_name = "N", default_value = "1", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// Request method.
    #[arg(short = 'm', long, value_name = "METHOD", default_value = "GET", value_parser = parse_method)]
    pub method: String,
    /// Extra request header "Name: value" (repeatable).
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// Request body.
    #[arg(long, value_name = "TEXT", conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Request body read from a file.
    #[arg(long, value_name = "PATH")]
    pub body_file: Option<PathBuf>,
    /// HTTP/2 (ALPN h2 over TLS; prior knowledge h2c on http://).
    #[arg(long)]
    pub http2: bool,
    /// With --http2 and -k: requests in flight at once on each connection,
    /// each on its own stream (h2load -m). The closed model keeps -c x N
    /// requests outstanding; --rate spreads over -c x N stream slots.
    #[arg(long, value_name = "N", default_value = "1", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub streams: u32,
    /// Accept any TLS certificate (self-signed test servers).
    #[arg(long)]
    pub insecure: bool,
    /// Per-request timeout (ab -s): a reply not complete by then counts as a client timeout.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub timeout: Duration,
    /// Do not pin client threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
}

/// `nodebench cpu ...`
#[derive(Debug, Subcommand)]
pub enum CpuCommand {
    /// Integer and floating-point operation rates (GIOPS, GFLOPS single and
    /// double precision) per thread count, scalar and vectorised FMA kernels,
    /// strong and weak scaling, as % of the theoretical peak
    /// (cores x clock x FLOP/cycle of the ISA).
    Ops(OpsArgs),
    /// LINPACK as HPL runs it: solve Ax = b (A random, entries uniform in
    /// [-0.5, 0.5]) by LU with partial pivoting, per order and trial, with
    /// HPL's residual check (PASSED when the normalised residual
    /// ||Ax-b||/(eps (||A|| ||x|| + ||b||) n) is below 16). GFLOPS count
    /// 2/3 n^3 + 3/2 n^2 operations per solve, as HPL does, and are shown as
    /// % of the theoretical peak.
    Linpack(LinpackArgs),
}

/// Options of `cpu linpack`.
#[derive(Debug, Args)]
pub struct LinpackArgs {
    /// Orders of the systems (problem sizes), e.g. 1000,2000,5000,10000 (the default).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_order, conflicts_with_all = ["full", "memory_fraction"])]
    pub sizes: Vec<usize>,
    /// Trials per order.
    #[arg(long, value_name = "N", default_value = "4", value_parser = parse_positive)]
    pub trials: u64,
    /// Solver: auto (the fastest found, after a short calibration), rust
    /// (pure Rust, always there), openblas, mkl, flame (libFLAME), or the
    /// path of a library exporting LAPACK's dgesv_. Libraries are loaded at
    /// run time; $NODEBENCH_BLAS_DIRS (colon-separated) overrides where they
    /// are looked for.
    #[arg(long, value_name = "BACKEND", default_value = "auto", value_parser = parse_blas)]
    pub blas: nodebench_linpack::config::BlasChoice,
    /// Solver threads (default: every CPU this process may use).
    #[arg(long, value_name = "N", value_parser = parse_positive)]
    pub threads: Option<u64>,
    /// Solve the largest system that fits in this fraction of the memory
    /// available now (0 < F <= 1).
    #[arg(long, value_name = "F", value_parser = parse_fraction)]
    pub memory_fraction: Option<f64>,
    /// Solve the largest system that fits in 80 % of available memory (or --memory-fraction).
    #[arg(long)]
    pub full: bool,
    /// Do not ask for transparent huge pages for the matrix.
    #[arg(long)]
    pub no_hugepages: bool,
    /// Seed of the random matrix.
    #[arg(long, value_name = "N", default_value = "42")]
    pub seed: u64,
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
    pub kernels: Vec<nodebench_cpu::config::Kernel>,
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

/// `nodebench disk ...`
#[derive(Debug, Subcommand)]
pub enum DiskCommand {
    /// The IOzone test set: write, rewrite, read, reread, random read/write,
    /// backward read, record rewrite, stride read, fwrite/frewrite,
    /// fread/freread, pwrite/pread, mixed; IOzone's flags; throughput mode
    /// (-t) and auto mode (-a); IOPS and latency percentiles per test.
    Iozone(IozoneArgs),
    /// dd-style sequential write of --count x --block-size, without and with
    /// a final fdatasync; bytes, seconds and MB/s (10^6 B/s) as dd prints.
    Dd(DdArgs),
    /// The block-size x thread matrix: sequential read, random read and
    /// read+write per block size and thread count; throughput and latency.
    Blocks(DiskBlocksArgs),
}

/// Options of `disk iozone`.
#[derive(Debug, Args)]
pub struct IozoneArgs {
    /// Directory for the test files (nodebench-*.tmp, removed afterwards).
    #[arg(long, value_name = "PATH")]
    pub dir: PathBuf,
    /// File size per worker (IOzone -s): 512m, 2g.
    #[arg(short = 's', long, value_name = "SIZE", default_value = "512m", value_parser = parse_block_size)]
    pub file_size: u64,
    /// Record size (IOzone -r): 4k, 1m.
    #[arg(short = 'r', long, value_name = "SIZE", default_value = "4k", value_parser = parse_block_size)]
    pub record_size: u64,
    /// Tests to run, comma-separated (default all): write, rewrite, read,
    /// reread, random_read, random_write, backward_read, record_rewrite,
    /// stride_read, fwrite, frewrite, fread, freread, pwrite, pread, mixed.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_iozone_test)]
    pub tests: Vec<nodebench_disk::iozone::Test>,
    /// Throughput mode with N workers, each on its own file (IOzone -t).
    #[arg(short = 't', long, value_name = "N", default_value = "1", value_parser = parse_positive)]
    pub workers: u64,
    /// Auto mode (IOzone -a): file sizes 64 KiB to --max-file-size x records 4 KiB to 16 MiB.
    #[arg(short = 'a', long)]
    pub auto: bool,
    /// Largest file size in auto mode (IOzone -g).
    #[arg(short = 'g', long, value_name = "SIZE", default_value = "512m", value_parser = parse_block_size)]
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
    #[arg(long, value_enum, default_value = "psync")]
    pub engine: EngineArg,
    /// Operations in flight with io_uring.
    #[arg(long, value_name = "N", default_value = "1", value_parser = parse_positive)]
    pub iodepth: u64,
    /// Read back what the write tests wrote and compare.
    #[arg(long)]
    pub verify: bool,
}

/// `--engine` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EngineArg {
    /// pread/pwrite, one operation at a time.
    Psync,
    /// io_uring with --iodepth operations in flight.
    #[value(name = "io_uring", alias = "io-uring")]
    IoUring,
}

/// Options of `disk dd`.
#[derive(Debug, Args)]
pub struct DdArgs {
    /// Directory for the file (removed afterwards).
    #[arg(long, value_name = "PATH")]
    pub dir: PathBuf,
    /// Bytes per write (dd bs=): 100M.
    #[arg(long, value_name = "SIZE", default_value = "100M", value_parser = parse_block_size)]
    pub block_size: u64,
    /// Number of writes (dd count=).
    #[arg(long, value_name = "N", default_value = "100", value_parser = parse_positive)]
    pub count: u64,
    /// O_DIRECT (dd oflag=direct).
    #[arg(long)]
    pub direct: bool,
}

/// Options of `disk blocks`.
#[derive(Debug, Args)]
pub struct DiskBlocksArgs {
    /// Directory for the files (removed afterwards).
    #[arg(long, value_name = "PATH")]
    pub dir: PathBuf,
    /// Block sizes, comma-separated (8,8KiB,8MiB,80MiB).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_block_size)]
    pub block_sizes: Vec<u64>,
    /// Thread counts (default 1,2,4,8).
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Bytes per cell, split across the threads.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_block_size)]
    pub total: u64,
    /// Operations: seq_read,rand_read,read_write (default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_disk_op)]
    pub ops: Vec<nodebench_disk::blocks::DiskOp>,
    /// O_DIRECT.
    #[arg(long)]
    pub direct: bool,
    /// Longest one cell may run.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub cell_time: Duration,
}

/// `nodebench net ...`
#[derive(Debug, Subcommand)]
pub enum NetCommand {
    /// Serve iperf3-compatible tests (a stock `iperf3 -c` works against it)
    /// on --port, and the ping-pong echo on --port + 1, until Ctrl-C.
    Serve(ServeArgs),
    /// TCP throughput against `nodebench net serve` or a stock `iperf3 -s`.
    Tcp(ThroughputArgs),
    /// UDP throughput (paced at --bitrate) with jitter, loss and reordering.
    Udp(ThroughputArgs),
    /// TCP and UDP ping-pong: round trips per second and latency percentiles
    /// per message size and client thread count (needs `nodebench net serve`).
    Pingpong(PingpongArgs),
}

/// Options of `net serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// iperf3 port; the ping-pong echo uses the next one.
    #[arg(short = 'p', long, value_name = "PORT", default_value = "5201")]
    pub port: u16,
    /// Refuse tests longer than this.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub max_duration: Option<Duration>,
    /// Refuse UDP tests asking for more than this many bits/s in total.
    #[arg(long, value_name = "RATE", value_parser = parse_bitrate)]
    pub max_bitrate: Option<u64>,
    /// Refuse clients that do not send this shared secret (`--token` on the client).
    #[arg(long, value_name = "SECRET")]
    pub token: Option<String>,
    /// Exit after this many tests.
    #[arg(long, value_name = "N", value_parser = parse_positive)]
    pub max_tests: Option<u64>,
}

/// Options of `net tcp` and `net udp`.
#[derive(Debug, Args)]
pub struct ThroughputArgs {
    /// Server host (name, IPv4 or IPv6 address).
    pub host: String,
    /// Server port.
    #[arg(short = 'p', long, value_name = "PORT", default_value = "5201")]
    pub port: u16,
    /// Parallel streams.
    #[arg(short = 'P', long, value_name = "N", default_value = "1", value_parser = clap::value_parser!(u32).range(1..=128))]
    pub parallel: u32,
    /// How long to send.
    #[arg(short = 't', long = "time", value_name = "DURATION", default_value = "10s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub time: Duration,
    /// Interval between reports.
    #[arg(short = 'i', long, value_name = "DURATION", default_value = "1s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub interval: Duration,
    /// Socket buffer size (SO_SNDBUF/SO_RCVBUF), e.g. 4M.
    #[arg(short = 'w', long, value_name = "SIZE", value_parser = parse_block_size)]
    pub window: Option<u64>,
    /// Bytes per write/read (UDP: datagram payload). Default 128 KiB for TCP, the path MSS for UDP.
    #[arg(short = 'l', long, value_name = "SIZE", value_parser = parse_block_size)]
    pub length: Option<u64>,
    /// The server sends and the client receives.
    #[arg(short = 'R', long)]
    pub reverse: bool,
    /// Both directions at once.
    #[arg(long, conflicts_with = "reverse")]
    pub bidir: bool,
    /// Zero-copy sends (sendfile), as iperf3 -Z.
    #[arg(short = 'Z', long)]
    pub zerocopy: bool,
    /// Target bits/s per stream (UDP default 1M as iperf3; 0 = unlimited).
    #[arg(short = 'b', long, value_name = "RATE", value_parser = parse_bitrate)]
    pub bitrate: Option<u64>,
    /// Give up connecting after this long.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub connect_timeout: Duration,
    /// Shared secret for a server started with --token.
    #[arg(long, value_name = "SECRET")]
    pub token: Option<String>,
}

/// Options of `net pingpong`.
#[derive(Debug, Args)]
pub struct PingpongArgs {
    /// Server host running `nodebench net serve`.
    pub host: String,
    /// The server's iperf3 port (the echo is on the next port).
    #[arg(short = 'p', long, value_name = "PORT", default_value = "5201")]
    pub port: u16,
    /// Message sizes (1 B to 1 MiB; UDP is clamped to 65507).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_block_size)]
    pub sizes: Vec<u64>,
    /// Client thread counts (default 1,2,4,8).
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Protocols: tcp,udp (default both).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = ["tcp", "udp"])]
    pub protocols: Vec<String>,
    /// Time per cell.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
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

fn parse_order(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "expected positive orders (matrix sizes) such as 1000,2000,5000, got '{s}'"
        )),
    }
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(f) if f > 0.0 && f <= 1.0 => Ok(f),
        _ => Err(format!(
            "expected a fraction of available memory in (0, 1], such as 0.8, got '{s}'"
        )),
    }
}

fn parse_blas(s: &str) -> Result<nodebench_linpack::config::BlasChoice, String> {
    s.parse()
        .map_err(|e: nodebench_linpack::config::UnknownBackend| e.to_string())
}

fn parse_positive(s: &str) -> Result<u64, String> {
    units::parse_count(s).map_err(|e| e.to_string())
}

fn parse_url(s: &str) -> Result<nodebench_http::url::Target, String> {
    nodebench_http::url::Target::parse(s)
}

fn parse_requests(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("expected a positive count, got 0".into()),
        _ => units::parse_count(s).map_err(|e| e.to_string()),
    }
}

fn parse_concurrency(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (1..=100_000).contains(&n) => Ok(n as u32),
        _ => Err(format!(
            "invalid connection count '{s}': expected a whole number from 1 to 100000"
        )),
    }
}

fn parse_calls(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(n as u32),
        _ => Err(format!(
            "invalid call count '{s}': expected a whole number from 1 to 1000000"
        )),
    }
}

fn parse_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 && r <= 10_000_000.0 => Ok(r),
        Ok(0.0) => Err("expected a positive rate per second, got 0".into()),
        _ => Err(format!(
            "invalid rate '{s}': expected a positive number per second up to 10000000, e.g. 1000 or 2.5"
        )),
    }
}

fn parse_method(s: &str) -> Result<String, String> {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    {
        Ok(s.to_string())
    } else {
        Err(format!(
            "invalid method '{s}': expected a token such as GET, POST, PUT, HEAD"
        ))
    }
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    let bad =
        || format!("invalid header '{s}': expected \"Name: value\", e.g. \"Accept: text/html\"");
    let (k, v) = s.split_once(':').ok_or_else(bad)?;
    let k = k.trim();
    let v = v.trim();
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if k.is_empty() || !k.bytes().all(token) || v.bytes().any(|b| b == b'\r' || b == b'\n') {
        return Err(bad());
    }
    Ok((k.to_string(), v.to_string()))
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
    s.parse().map_err(|_| {
        format!("unknown operation '{s}': expected seq_write, rand_write or read_write")
    })
}

/// The names of `T`, as "a, b or c".
fn one_of<T: Choice>() -> String {
    let names: Vec<&str> = T::ALL.iter().map(|v| v.as_str()).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn parse_iozone_test(s: &str) -> Result<nodebench_disk::iozone::Test, String> {
    s.parse().map_err(|_| {
        format!(
            "unknown test '{s}': expected {}",
            one_of::<nodebench_disk::iozone::Test>()
        )
    })
}

fn parse_disk_op(s: &str) -> Result<nodebench_disk::blocks::DiskOp, String> {
    s.parse().map_err(|_| {
        format!(
            "unknown operation '{s}': expected {}",
            one_of::<nodebench_disk::blocks::DiskOp>()
        )
    })
}

fn parse_bitrate(s: &str) -> Result<u64, String> {
    units::parse_bitrate(s).map_err(|e| e.to_string())
}

fn parse_ntimes(s: &str) -> Result<u64, String> {
    match units::parse_count(s) {
        Ok(n) if n >= nodebench_memory::stream::MIN_NTIMES as u64 => Ok(n),
        _ => Err(format!(
            "invalid iteration count '{s}': expected a whole number of at least 2 (the first is dropped)"
        )),
    }
}

fn parse_kernel(s: &str) -> Result<nodebench_cpu::config::Kernel, String> {
    s.parse()
        .map_err(|e: nodebench_core::config::UnknownChoice| e.to_string())
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
    fn user_lists_expand_ranges_and_refuse_zero() {
        assert_eq!(parse_users("1..16:x2").unwrap().0, vec![1, 2, 4, 8, 16]);
        assert_eq!(parse_users("1,3..5,70").unwrap().0, vec![1, 3, 4, 5, 70]);
        for bad in ["0", "", "1..x", "4..2", "1,,2", "20000", "1..8:x3"] {
            assert!(parse_users(bad).unwrap_err().contains("1..128:x2"), "{bad}");
        }
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
