//! `nodebench fleet ...`: many hosts over the system ssh client.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use nodebench_fleet::analysis::ReportConfig;
use nodebench_fleet::pair::PairTest;

use super::runid::{RunSpec, SIDE_FORMS};
use nodebench_core::cli::parse::parse_duration;

/// Hosts worked on at once by default.
pub const DEFAULT_PARALLEL: usize = 16;

/// `nodebench fleet ...`
#[derive(Debug, Subcommand)]
pub enum FleetCommand {
    /// Connect to every host: reachability, architecture, OS, and whether
    /// this nodebench is in its directory (checksum compared).
    Check(HostsArgs),
    /// Run a suite (a name: `quick`) or a nodebench command (`cpu ops
    /// --threads 1`) on every host, store each host's run tagged host=NAME
    /// and fleet=ID, print a table per host and a comparison.
    Run(RunArgs),
    /// Network tests between hosts: `net serve` on the first host of each
    /// pair, the client on the second against its address, at each --mtu
    /// (set on both hosts' interface, put back afterwards). With --matrix,
    /// the links' bandwidth and latency as one stored matrix, the slow
    /// links flagged against the median link (exit 1) and the host common
    /// to them named.
    Pair(PairArgs),
    /// The same HTTP load from every host at once (a start time agreed
    /// through each host's measured clock offset); the generators' latency
    /// histograms merged exactly: the percentiles of all requests.
    Http(HttpArgs),
    /// Which hosts are not like the others: per performance figure of the
    /// selected runs the fleet's median, MAD, min and max, each host's
    /// deviation in % and robust z, a verdict per host (worst first); exit
    /// 1 when a host is an outlier.
    Report(ReportArgs),
}

/// `fleet report SELECTION... [--tolerance P] [--z Z] [--min-hosts N] [-o FILE.html]`
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The runs: a fleet id (as `fleet run` prints it), `tag:KEY=VALUE`
    /// (`tag:slurm_job=ID` for `slurm collect`'s), run ids or `latest`.
    #[arg(required = true, value_name = "SELECTION")]
    pub selection: Vec<FleetSelection>,
    /// Outlier only when worse than the fleet median by more than this, in %.
    #[arg(long, value_name = "PERCENT", default_value_t = ReportConfig::default().tolerance_percent)]
    pub tolerance: f64,
    /// ... and beyond this robust z (deviation / (1.4826 x MAD)).
    #[arg(long, value_name = "Z", default_value_t = ReportConfig::default().z)]
    pub z: f64,
    /// Below this many hosts the robust z is not used: the tolerance alone judges.
    #[arg(long, value_name = "N", default_value_t = ReportConfig::default().min_hosts)]
    pub min_hosts: usize,
    /// Also write the fleet page (self-contained HTML) to this file.
    #[arg(short, long, value_name = "FILE.html")]
    pub output: Option<PathBuf>,
}

impl From<&ReportArgs> for ReportConfig {
    fn from(a: &ReportArgs) -> ReportConfig {
        ReportConfig {
            tolerance_percent: a.tolerance,
            z: a.z,
            min_hosts: a.min_hosts,
        }
    }
}

/// What `fleet report` reads: runs as `compare` names them, or every run
/// of a fleet id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetSelection {
    /// Runs as a run id, `latest` or `tag:KEY=VALUE` names them.
    Runs(RunSpec),
    /// Every run tagged `fleet=ID`.
    Fleet(String),
}

impl std::str::FromStr for FleetSelection {
    type Err = String;

    fn from_str(s: &str) -> Result<FleetSelection, String> {
        if s.trim().is_empty() {
            return Err(format!("expected a fleet id or {SIDE_FORMS}"));
        }
        Ok(match s.parse::<RunSpec>() {
            Ok(spec) => FleetSelection::Runs(spec),
            Err(_) => FleetSelection::Fleet(s.to_string()),
        })
    }
}

impl FleetSelection {
    /// The runs it names, as a [`RunSpec`].
    pub fn spec(&self) -> RunSpec {
        match self {
            FleetSelection::Runs(s) => s.clone(),
            FleetSelection::Fleet(id) => RunSpec::Tag {
                key: nodebench_core::names::fleet::FLEET_TAG.to_string(),
                value: id.clone(),
            },
        }
    }
}

/// The hosts a fleet command works on, and how.
#[derive(Debug, Args)]
pub struct HostsArgs {
    /// The hosts file (TOML: [[host]] name, destination, labels, dir, address, interface).
    #[arg(value_name = "HOSTS")]
    pub hosts: PathBuf,
    /// Only these hosts of the file, by name (comma-separated).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Hosts worked on at once.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_PARALLEL, value_parser = parse_parallel)]
    pub parallel: usize,
    /// ssh's connect timeout per host.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub connect_timeout: Duration,
    /// Where the nodebench binaries of other architectures are: release
    /// archives (nodebench-VERSION-ARCH-linux-gnu.tar.gz), their unpacked
    /// folders or files named nodebench. Each host gets the one of its
    /// architecture (read from the ELF header); this binary serves its own
    /// architecture where the folder has none.
    #[arg(long, value_name = "DIR")]
    pub binary_dir: Option<PathBuf>,
}

/// `fleet run HOSTS SUITE|COMMAND...`
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The hosts and how to reach them.
    #[command(flatten)]
    pub hosts: HostsArgs,
    /// A suite name (`quick`), or a nodebench command with its flags after `--`.
    #[arg(
        value_name = "SUITE|COMMAND",
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub target: Vec<String>,
}

/// `--parallel`: a whole number from 1.
fn parse_parallel(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "'{s}' is not a host count (accepted: a whole number from 1, e.g. 16)"
        )),
    }
}

/// `fleet pair HOSTS --tests tcp,udp,pingpong [--mtu 1500,9000] [--pairs A:B,...]
/// [--matrix [--tolerance P]] [--max-pairs N [--seed S]]`
#[derive(Debug, Args)]
pub struct PairArgs {
    /// The hosts and how to reach them (each needs `address`; `interface` with --mtu).
    #[command(flatten)]
    pub hosts: HostsArgs,
    /// Tests run for every pair: tcp, udp, pingpong, download (default:
    /// tcp; with --matrix tcp,pingpong).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub tests: Vec<PairTest>,
    /// Turn the pairs' TCP bandwidth (what the server received) and
    /// ping-pong latency (median TCP round trip, one thread, 1-byte
    /// messages) into one link matrix, server x client, stored as a run of
    /// its own (tagged fleet_mode=matrix); flag the links worse than the
    /// median link by more than --tolerance and name the host common to
    /// them; exit 1 when a link is slow.
    #[arg(long)]
    pub matrix: bool,
    /// With --matrix: a link is slow when its bandwidth is below the
    /// median link's (its latency above it) by more than this, in %
    /// (default 5, as fleet report's).
    #[arg(long, value_name = "PERCENT")]
    pub tolerance: Option<f64>,
    /// Past this many pairs (of n(n-1)/2 for n hosts), run a plan that
    /// still covers every host: a ring (h1 serves h2, ..., hn serves h1)
    /// plus random pairs up to N, said and stored with its seed.
    #[arg(long, value_name = "N", value_parser = parse_max_pairs, conflicts_with = "pairs")]
    pub max_pairs: Option<usize>,
    /// With --max-pairs: the random pairs' seed (default: from the clock;
    /// printed and stored, to run the same plan again).
    #[arg(long, value_name = "N", value_parser = parse_seed)]
    pub seed: Option<u64>,
    /// MTUs set in turn on both hosts' interface (default: leave them).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_mtu)]
    pub mtu: Vec<u32>,
    /// Pairs to test, SERVER:CLIENT by host name (default: every two hosts).
    #[arg(long, value_name = "SERVER:CLIENT,...", value_delimiter = ',', value_parser = parse_pair)]
    pub pairs: Vec<(String, String)>,
    /// Length of each throughput test and download (and of each ping-pong size).
    #[arg(short = 't', long = "time", value_name = "DURATION", default_value = "2s", value_parser = parse_duration)]
    pub duration: Duration,
    /// The server's iperf3 port (the ping-pong echo uses the next one; the
    /// download's HTTP server this one).
    #[arg(short = 'p', long, value_name = "PORT", default_value_t = 5201)]
    pub port: u16,
}

/// `--max-pairs`: a whole number from 1.
fn parse_max_pairs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "'{s}' is not a pair count (accepted: a whole number from 1, e.g. 500)"
        )),
    }
}

/// `--seed`: a whole number from 0 to 2^53 - 1 (what `fleet pair` prints).
fn parse_seed(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n < 1 << 53 => Ok(n),
        _ => Err(format!(
            "'{s}' is not a seed (accepted: a whole number from 0 to 9007199254740991, as fleet pair printed it)"
        )),
    }
}

/// `--mtu`: an MTU from 68 (IPv4's least) to 65535.
fn parse_mtu(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(m) if (68..=65535).contains(&m) => Ok(m),
        _ => Err(format!(
            "'{s}' is not an MTU (accepted: 68 to 65535 bytes, e.g. 1500,9000)"
        )),
    }
}

/// `--pairs`: `SERVER:CLIENT`.
fn parse_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once(':') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() && a != b => Ok((a.into(), b.into())),
        _ => Err(format!(
            "'{s}' is not a pair (accepted: SERVER:CLIENT host names, e.g. h1:h2)"
        )),
    }
}

/// `fleet http HOSTS URL [--start-delay D] [-- LOAD FLAGS]`
#[derive(Debug, Args)]
pub struct HttpArgs {
    /// The generator hosts and how to reach them.
    #[command(flatten)]
    pub hosts: HostsArgs,
    /// The target every generator loads (http:// or https://, reachable from the hosts).
    #[arg(value_name = "URL")]
    pub url: String,
    /// How far ahead the common start is set (room for the ssh round trips).
    #[arg(long, value_name = "DURATION", default_value = "3s", value_parser = parse_duration)]
    pub start_delay: Duration,
    /// `http load` flags after `--`, e.g. -- -n 10000 -c 8 -k.
    #[arg(
        value_name = "LOAD FLAGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub load: Vec<String>,
}
