//! `nodebench net ...`: its server, and its benchmark subcommands, made
//! from the registry and the area crate's runnables ([`super::bench`]).

use clap::Subcommand;
use nodebench_net::cli::ServeArgs;

/// `nodebench net ...`
#[derive(Debug, Subcommand)]
pub enum NetCommand {
    /// Serve iperf3-compatible tests (a stock `iperf3 -c` works against it)
    /// on --port, and the ping-pong echo on --port + 1, until Ctrl-C.
    Serve(ServeArgs),
    /// The benchmark subcommands, from the registry.
    #[command(flatten)]
    Bench(super::bench::Leaf<super::bench::Net>),
}
