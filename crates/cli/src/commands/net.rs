//! `nodebench net ...`: the iperf3-compatible server with the ping-pong
//! echo, or the client benchmark a subcommand names.

use crate::CliError;
use nodebench_core::bench::BenchError;
use std::net::SocketAddr;

use anyhow::Result;
use nodebench_core::bench::Benchmark;
use nodebench_net::echo::EchoServer;
use nodebench_net::iperf3::{self, Protocol, ServerConfig};

use super::runner::{install_signal_handlers, run_benchmarks};
use crate::args::Cli;
use crate::args::net::NetCommand;
use nodebench_net::cli::{ServeArgs, echo_port};

/// Serves (`net serve`) or runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &NetCommand) -> Result<()> {
    if let NetCommand::Serve(a) = cmd {
        return serve(a);
    }
    let bench = benchmark(cmd)?;
    run_benchmarks(cli, vec![bench], false)
}

/// The benchmark `cmd` names, configured by its arguments. Fails when the
/// host does not resolve, and for `net serve`, which is no benchmark.
pub fn benchmark(cmd: &NetCommand) -> Result<Box<dyn Benchmark>, BenchError> {
    Ok(match cmd {
        NetCommand::Bench(leaf) => leaf.benchmark()?,
        NetCommand::Serve(_) => {
            return Err(BenchError::System(
                "net serve is a server, not a benchmark".into(),
            ));
        }
    })
}

/// `net serve`: the iperf3-compatible server and the ping-pong echo, until
/// Ctrl-C (exit 0) or --max-tests tests ran.
fn serve(a: &ServeArgs) -> Result<()> {
    let cancel = install_signal_handlers()?;
    // A --port without a next port for the echo has always exited 1 here
    // (the benchmarks' check refuses it as input, exit 2).
    let echo_port = echo_port(a.port).map_err(CliError::failed)?;
    let echo = EchoServer::bind(SocketAddr::new(a.bind, echo_port))?
        .pinned_to(a.cpus.as_ref().map(|c| c.0.clone()).unwrap_or_default());
    let cfg = ServerConfig::from(a);
    let result = std::thread::scope(|s| {
        let echo_cancel = cancel.clone();
        let echo_thread = s.spawn(move || echo.serve(&echo_cancel));
        let served = iperf3::serve(
            &cfg,
            &cancel,
            |addr| {
                eprintln!(
                    "listening on {addr} (iperf3 protocol), ping-pong echo on port {echo_port}"
                )
            },
            |o| {
                let received: u64 = iperf3::TestOutcome::sum_bytes(&o.local, false);
                let sent: u64 = iperf3::TestOutcome::sum_bytes(&o.local, true);
                outln!(
                    "test done: {} {} streams, {:.2} s, received {} B, sent {} B",
                    if o.protocol == Protocol::Tcp {
                        "TCP"
                    } else {
                        "UDP"
                    },
                    o.local.len(),
                    o.duration,
                    received,
                    sent
                );
            },
        );
        cancel.cancel();
        let _ = echo_thread.join();
        served
    });
    result?;
    Ok(())
}
