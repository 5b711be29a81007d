//! One module per area: each maps its subcommand to the benchmark (or the
//! server) it names, with the config its arguments convert to, and runs it
//! through [`runner`].

#[cfg(test)]
mod architecture;
mod burnin;
mod check;
mod compare;
mod dist;
mod fleet;
mod fleet_pair;
mod fleet_report;
mod fleet_session;
mod gpu;
mod http;
mod import;
mod net;
mod report;
pub mod runner;
mod runs;
mod scan;
mod slurm;
mod suite;
mod suites;

use anyhow::Result;
#[cfg(test)]
use nodebench_core::bench::{BenchError, Benchmark};

use crate::args::bench::Leaf;
use crate::args::{Cli, Command};

/// Runs the benchmark subcommand `leaf` names.
fn run_leaf<G>(cli: &Cli, leaf: &Leaf<G>) -> Result<()> {
    runner::run_benchmarks(cli, vec![leaf.benchmark()?], false)
}

/// Runs the parsed command.
pub fn dispatch(cli: Cli) -> Result<()> {
    if !cli.asserts.is_empty() && !cli.command.runs_benchmarks() {
        return Err(crate::CliError::usage(
            "--assert applies to commands that run benchmarks (run, suite run, cpu, memory, disk, net tcp|udp|pingpong, http load|sweep|download, db, power idle, scan)",
        )
        .into());
    }
    if let Some((flag, command)) = cli.idle_global() {
        return Err(crate::CliError::usage(format!(
            "{flag} does not apply to {command} (see nodebench {command} --help)"
        ))
        .into());
    }
    if cli.tune && !cli.command.tunes() {
        return Err(crate::CliError::usage(
            "--tune applies to commands that run benchmarks (run, suite run, burnin, cpu, memory, gpu, disk, net tcp|udp|pingpong, http load|sweep|download, db, power idle, scan)",
        )
        .into());
    }
    match &cli.command {
        Command::Run => suite::run_suite(&cli, suites::QUICK, &[]),
        Command::Suite(cmd) => suite::run(&cli, cmd),
        Command::Inventory { topology } => runs::inventory(&cli, *topology),
        Command::Check(args) => check::run(&cli, args),
        Command::Cpu(leaf) => run_leaf(&cli, leaf),
        Command::Memory(leaf) => run_leaf(&cli, leaf),
        Command::Gpu(cmd) => gpu::run(&cli, cmd),
        Command::Disk(leaf) => run_leaf(&cli, leaf),
        Command::Net(cmd) => net::run(&cli, cmd),
        Command::Http(cmd) => http::run(&cli, cmd),
        Command::Burnin(args) => burnin::run(&cli, args),
        Command::Db(leaf) => run_leaf(&cli, leaf),
        Command::Power(leaf) => run_leaf(&cli, leaf),
        Command::Scan(args) => scan::run(&cli, args),
        Command::Import(args) => import::run(&cli, args),
        Command::Fleet(cmd) => fleet::run(&cli, cmd),
        Command::Runs(cmd) => runs::run(&cli, cmd),
        Command::Compare(args) => compare::run(&cli, args),
        Command::Schema { model } => runs::schema(*model),
        Command::Report(args) => report::run(&cli, args),
        Command::Slurm(cmd) => slurm::run(&cli, cmd),
        Command::Completions { shell } => dist::completions(*shell),
        Command::Manpages { dir } => dist::manpages(dir),
    }
}

/// The benchmark a benchmark subcommand (`cpu ops ...`) names, configured by
/// its arguments (the architecture test's: each subcommand builds its
/// descriptor's benchmark). Fails for a command that is no benchmark, and
/// where the arguments need the machine (a host to resolve, a body file).
#[cfg(test)]
fn benchmark(cmd: &Command) -> Result<Box<dyn Benchmark>, BenchError> {
    match cmd {
        Command::Cpu(c) => c.benchmark(),
        Command::Memory(c) => c.benchmark(),
        Command::Gpu(c) => c.benchmark(),
        Command::Disk(c) => c.benchmark(),
        Command::Net(c) => net::benchmark(c),
        Command::Http(c) => http::benchmark(c),
        Command::Db(c) => c.benchmark(),
        Command::Power(c) => c.benchmark(),
        Command::Scan(a) => nodebench_core::cli::BenchArgs::benchmark(a),
        _ => Err(BenchError::System("not a benchmark command".into())),
    }
}
