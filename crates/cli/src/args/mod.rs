//! Command-line definitions: the subcommand tree, one module per area
//! (each benchmark's arguments and their one conversion into its config
//! are its area crate's, `cli.rs`), and the flags of the CLI's own
//! commands. Values are parsed into typed values (the error names the flag
//! and the accepted form, `nodebench_core::cli::parse`); whether a
//! configuration is usable is its `validate`'s check, which the runner
//! makes before anything runs.

pub mod bench;
pub mod burnin;
pub mod compare;
pub mod fleet;
pub mod http;
pub mod import;
pub mod net;
pub mod repeat;
pub mod report;
pub mod runid;
pub mod runs;
pub mod slurm;
pub mod suite;

use std::ffi::OsString;
use std::time::Duration;

use clap::{Parser, Subcommand};
use nodebench_core::threshold::Threshold;
use nodebench_machine::telemetry;

use burnin::BurninArgs;
use compare::CompareArgs;
use fleet::FleetCommand;
use http::HttpCommand;
use import::ImportArgs;
use net::NetCommand;
use nodebench_core::cli::parse;
use nodebench_scan::cli::ScanArgs;
use report::ReportArgs;
use runs::RunsCommand;
use slurm::SlurmCommand;
use suite::SuiteCommand;

/// nodebench: benchmark a compute node and the server stack on it.
#[derive(Debug, Parser)]
#[command(name = "nodebench", version, about, long_about = None)]
pub struct Cli {
    /// Results store: a SQLite file (PATH or sqlite://PATH) or a PostgreSQL
    /// database (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE). Default:
    /// $NODEBENCH_STORE, else $XDG_DATA_HOME/nodebench/results.db, else
    /// ~/.local/share/nodebench/results.db. A file named here must be in a
    /// directory that exists. Leave the password out and set PGPASSWORD
    /// (or put the whole URL in NODEBENCH_STORE) to keep it off the
    /// command line.
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub store: Option<OsString>,
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
    /// Acceptance threshold judged when the benchmarks have run, e.g.
    /// --assert 'memory.stream bandwidth{kernel=triad} >= 20 GB/s' (repeatable):
    /// a verdict table follows the results, a failed threshold exits 1.
    #[arg(long = "assert", global = true, value_name = "EXPR", value_parser = clap::value_parser!(Threshold))]
    pub asserts: Vec<Threshold>,
    /// Fail (exit 1) when a result was disturbed: other processes took over
    /// 2 % of the CPU time of its CPUs, steal over 2 %, a thermal throttle
    /// event or a swap-in during it (the "disturbed" warning).
    #[arg(long, global = true)]
    pub strict_host: bool,
    /// Record no telemetry (CPU, memory, disk, NIC counters sampled while
    /// each benchmark runs).
    #[arg(long, global = true)]
    pub no_telemetry: bool,
    /// Root only, for run, suite run, burnin and each benchmark: for the
    /// run's duration hold /dev/cpu_dma_latency at 0 and set every cpufreq
    /// policy's governor (and EPP, where present) to performance; what was
    /// changed is stored with the run, and every value is put back at exit,
    /// on error and on Ctrl-C.
    #[arg(long, global = true)]
    pub tune: bool,
    /// How often telemetry is sampled while benchmarks run.
    #[arg(long, global = true, value_name = "DURATION", default_value = parse::duration_text(telemetry::DEFAULT_INTERVAL), value_parser = parse::parse_duration)]
    pub telemetry_interval: Duration,
    /// Whole repeats of each benchmark (`--repeat N|auto` and its limits).
    #[command(flatten)]
    pub repeat: repeat::RepeatArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the quick suite (`suite run quick`: inventory, then short runs of
    /// every area), save it and print the tables.
    Run,
    /// Suites: TOML files of benchmark steps run as one run (list, show, run).
    #[command(subcommand)]
    Suite(SuiteCommand),
    /// The host's state for benchmarking, one line per setting: its value,
    /// what a benchmark wants and why, the command that changes it, ok or
    /// warn. Exit 0; 1 with --strict where a setting warns; 2 on bad input.
    ///
    /// Reads under NODEBENCH_SYSFS_ROOT and NODEBENCH_PROCFS_ROOT where set;
    /// steal time and the other processes are sampled over one second.
    Check(CheckArgs),
    /// Show what this machine is: CPU, caches, ISA, memory, disks, file systems, NICs.
    ///
    /// Files are read under NODEBENCH_SYSFS_ROOT (for /sys) and
    /// NODEBENCH_PROCFS_ROOT (for /proc) where set, so a recorded tree can be
    /// shown; CPUID is always this machine's.
    Inventory {
        /// Print the topology as a tree instead (packages, NUMA nodes with
        /// memory, shared caches, cores with their private caches and
        /// hardware threads), then the NUMA distances and EDAC's DIMMs.
        #[arg(long)]
        topology: bool,
    },
    /// CPU benchmarks.
    #[command(subcommand)]
    Cpu(bench::Leaf<bench::Cpu>),
    /// Memory benchmarks.
    #[command(subcommand)]
    Memory(bench::Leaf<bench::Memory>),
    /// NVIDIA GPU benchmarks (CUDA, NVRTC and cuBLAS opened at run time):
    /// HBM bandwidth, GEMM at % of peak, host-device copies. Exit code 3
    /// where the machine has no NVIDIA GPU.
    #[command(subcommand)]
    Gpu(bench::Leaf<bench::Gpu>),
    /// Disk benchmarks (files only under --dir, removed afterwards).
    #[command(subcommand)]
    Disk(bench::Leaf<bench::Disk>),
    /// Network benchmarks: iperf3-compatible TCP/UDP throughput and ping-pong.
    #[command(subcommand)]
    Net(NetCommand),
    /// HTTP load: ab/httperf/wrk2-style closed and open model load.
    #[command(subcommand)]
    Http(HttpCommand),
    /// Burn-in: a mixed load (CPU, memory, disk, TCP, HTTP) at once for
    /// hours, checkpointed to the store, with errors, degradation and a
    /// PASS/FAIL verdict.
    Burnin(BurninArgs),
    /// Power: the host's idle draw, which every later result's energy
    /// figures are also given above.
    #[command(subcommand)]
    Power(bench::Leaf<bench::Power>),
    /// Database benchmarks: AS3AP (load, single-user queries, multi-user tests).
    #[command(subcommand)]
    Db(bench::Leaf<bench::Db>),
    /// Many hosts over ssh: check them, run a suite or command on each.
    #[command(subcommand)]
    Fleet(FleetCommand),
    /// Slurm: submit a suite to N nodes of a cluster (sbatch), collect
    /// each node's run into the store.
    #[command(subcommand)]
    Slurm(SlurmCommand),
    /// Web server hardening scan: default content, version disclosure,
    /// methods, security headers, TLS and (--local) the server's processes
    /// and files, from nodebench's own check files; findings by severity.
    Scan(ScanArgs),
    /// Import the classic tools' outputs (ab, httperf, wrk, STREAM, IOzone, dd...) as runs.
    Import(ImportArgs),
    /// Stored runs: list, show, export, delete.
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Compare runs against the first: % of baseline, confidence intervals,
    /// verdicts, geometric means, inventory differences.
    Compare(CompareArgs),
    /// Write one self-contained HTML report (tables and charts) of stored runs.
    Report(ReportArgs),
    /// Print the JSON schema of the `--json` output (of runs, or of `compare`).
    Schema {
        /// run or compare.
        #[arg(value_name = "MODEL", default_value_t = SchemaModel::Run)]
        model: SchemaModel,
    },
    /// Print the shell completion script for bash, zsh or fish
    /// (`nodebench completions bash > /etc/bash_completion.d/nodebench`).
    Completions {
        /// bash, zsh or fish.
        #[arg(value_name = "SHELL")]
        shell: CompletionShell,
    },
    /// Write the man pages (nodebench.1 and one per subcommand, such as
    /// nodebench-cpu-ops.1) into DIR, which must exist.
    Manpages {
        /// Directory to write the pages into.
        #[arg(value_name = "DIR")]
        dir: std::path::PathBuf,
    },
}

nodebench_core::choice! {
    /// A shell `nodebench completions` writes for.
    pub enum CompletionShell {
        /// GNU bash.
        Bash => "bash",
        /// Z shell.
        Zsh => "zsh",
        /// fish.
        Fish => "fish",
    }
}

nodebench_core::choice! {
    /// Which model `nodebench schema` prints the JSON schema of.
    pub enum SchemaModel {
        /// A run (`--json` of the benchmarks, `runs show`).
        Run => "run",
        /// A comparison (`compare --json`).
        Compare => "compare",
        /// A fleet's analysis (`fleet report --json`).
        Fleet => "fleet",
    }
}

impl Cli {
    /// The first global flag given that this command does not honour
    /// ([`IDLE_GLOBALS`]), with the command's name: refused, never ignored.
    pub fn idle_global(&self) -> Option<(&'static str, &'static str)> {
        let path = match &self.command {
            Command::Compare(_) => "compare",
            Command::Report(_) => "report",
            Command::Runs(_) => "runs",
            Command::Import(_) => "import",
            Command::Inventory { .. } => "inventory",
            Command::Schema { .. } => "schema",
            Command::Fleet(FleetCommand::Report(_)) => "fleet report",
            Command::Http(HttpCommand::Serve(_)) => "http serve",
            Command::Net(NetCommand::Serve(_)) => "net serve",
            _ => return None,
        };
        let (_, ids) = IDLE_GLOBALS.iter().find(|(p, _)| *p == path)?;
        let given = |id: &str| match id {
            "asserts" => !self.asserts.is_empty(),
            "tags" => !self.tags.is_empty(),
            "json" => self.json,
            // Harmless where idle (scripts pass them to every command):
            // left out of the help, not refused.
            _ => false,
        };
        ids.iter()
            .find(|id| given(id))
            .map(|id| (global_flag(id), path))
    }
}

/// `nodebench check`'s flags.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Exit 1 when any setting warns.
    #[arg(long)]
    pub strict: bool,
}

impl Command {
    /// Whether `--tune` applies: the command runs benchmarks or the
    /// burn-in.
    pub fn tunes(&self) -> bool {
        self.runs_benchmarks() || matches!(self, Command::Burnin(_))
    }

    /// Whether the command runs benchmarks, so that `--assert` applies.
    pub fn runs_benchmarks(&self) -> bool {
        match self {
            Command::Run
            | Command::Cpu(_)
            | Command::Memory(_)
            | Command::Gpu(_)
            | Command::Disk(_)
            | Command::Db(_)
            | Command::Power(_)
            | Command::Scan(_) => true,
            Command::Suite(c) => matches!(c, SuiteCommand::Run(_)),
            Command::Net(c) => !matches!(c, NetCommand::Serve(_)),
            Command::Http(c) => !matches!(c, HttpCommand::Serve(_)),
            Command::Inventory { .. }
            | Command::Check(_)
            | Command::Burnin(_)
            | Command::Runs(_)
            | Command::Compare(_)
            | Command::Import(_)
            | Command::Fleet(_)
            | Command::Report(_)
            | Command::Slurm(_)
            | Command::Schema { .. }
            | Command::Completions { .. }
            | Command::Manpages { .. } => false,
        }
    }
}

/// The command-line definition, its version line naming this build
/// (commit, build date, target, glibc floor).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let version = nodebench_core::build_info::current()
        .map(|b| b.line())
        .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_string());
    let cmd = with_negative_values(Cli::command().version(version));
    without_idle_globals(cmd)
}

/// Every option's value may start with `-`, so `--threads -1` reaches the
/// flag's own check and is refused naming it, instead of clap's "unexpected
/// argument '-1'".
fn with_negative_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        if a.get_action().takes_values() && !a.is_positional() {
            a.allow_negative_numbers(true)
        } else {
            a
        }
    })
    .mut_subcommands(with_negative_values)
}

/// The global flags (id) each command that reads or prints stored runs
/// does not honour: left out of its `--help`; `--assert`, `--tag` and
/// `--json` refused when given ([`Cli::idle_global`]).
pub const IDLE_GLOBALS: &[(&str, &[&str])] = &[
    (
        "fleet report",
        &[
            "asserts",
            "tags",
            "no_save",
            "no_telemetry",
            "telemetry_interval",
        ],
    ),
    (
        "compare",
        &[
            "asserts",
            "tags",
            "no_save",
            "no_telemetry",
            "telemetry_interval",
        ],
    ),
    (
        "report",
        &[
            "asserts",
            "tags",
            "json",
            "no_save",
            "no_telemetry",
            "telemetry_interval",
        ],
    ),
    (
        "runs",
        &[
            "asserts",
            "tags",
            "no_save",
            "no_telemetry",
            "telemetry_interval",
        ],
    ),
    ("import", &["asserts", "no_telemetry", "telemetry_interval"]),
    (
        "inventory",
        &[
            "asserts",
            "tags",
            "no_save",
            "no_telemetry",
            "telemetry_interval",
        ],
    ),
    (
        "schema",
        &[
            "asserts",
            "tags",
            "json",
            "no_save",
            "no_telemetry",
            "telemetry_interval",
        ],
    ),
    (
        "http serve",
        &[
            "asserts",
            "tags",
            "json",
            "no_save",
            "no_telemetry",
            "telemetry_interval",
        ],
    ),
    (
        "net serve",
        &[
            "asserts",
            "tags",
            "json",
            "no_save",
            "no_telemetry",
            "telemetry_interval",
        ],
    ),
];

/// The flag a global argument's id stands for.
pub fn global_flag(id: &str) -> &'static str {
    match id {
        "asserts" => "--assert",
        "tags" => "--tag",
        "json" => "--json",
        "no_save" => "--no-save",
        "no_telemetry" => "--no-telemetry",
        _ => "--?",
    }
}

/// [`IDLE_GLOBALS`] hidden from those commands' help (their subcommands'
/// too): clap propagates global flags when the command is built, so the
/// command is built first.
fn without_idle_globals(mut cmd: clap::Command) -> clap::Command {
    /// The flags of a run of benchmarks: idle wherever the others are.
    const RUN_FLAGS: &[&str] = &[
        "strict_host",
        "tune",
        "repeat",
        "target_ci",
        "min_repeats",
        "max_repeats",
        "max_time",
    ];
    fn hide(c: clap::Command, ids: &[&str]) -> clap::Command {
        // In place (mut_arg would move the argument to the end, out of the
        // built command's index).
        let c = c.mut_args(|a| {
            let id = a.get_id().as_str();
            if ids.contains(&id) || RUN_FLAGS.contains(&id) {
                a.hide(true)
            } else {
                a
            }
        });
        c.mut_subcommands(|s| hide(s, ids))
    }
    fn descend(c: &mut clap::Command, words: &[&str], ids: &[&str]) {
        match words.split_first() {
            None => *c = hide(std::mem::take(c), ids),
            Some((w, rest)) => {
                if let Some(s) = c.find_subcommand_mut(w) {
                    descend(s, rest, ids);
                }
            }
        }
    }
    cmd.build();
    for (path, ids) in IDLE_GLOBALS {
        let words: Vec<&str> = path.split(' ').collect();
        descend(&mut cmd, &words, ids);
    }
    cmd
}

/// A clap error as one line: its message up to the usage hint (the flag
/// and, from our parsers, the accepted forms), without the `error: ` prefix.
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty())
        .collect();
    let line = lines.join(" ");
    line.strip_prefix("error: ").unwrap_or(&line).to_string()
}

/// A `--tag` as its key and value.
fn parse_tag(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        // A secret's value is never kept, printed or sent to a remote
        // host: masked as the store would keep it.
        Some((k, v)) if !k.trim().is_empty() => Ok((
            k.trim().to_string(),
            nodebench_core::credentials::redact_tag(k.trim(), v),
        )),
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
