//! `nodebench http ...`: the built-in target server, or the client
//! benchmark a subcommand names.

use anyhow::Result;
use nodebench_core::bench::BenchError;
use nodebench_core::bench::Benchmark;
use nodebench_http::server::{ENDPOINTS, Server, ServerConfig};

use super::runner::{install_signal_handlers, run_benchmarks};
use crate::args::Cli;
use crate::args::http::HttpCommand;
use nodebench_http::cli::HttpServeArgs;

/// Serves (`http serve`) or runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &HttpCommand) -> Result<()> {
    if let HttpCommand::Serve(a) = cmd {
        return serve(a);
    }
    let bench = benchmark(cmd)?;
    run_benchmarks(cli, vec![bench], false)
}

/// The benchmark `cmd` names, configured by its arguments. Fails when
/// `--body-file` cannot be read, and for `http serve`, which is no benchmark.
pub fn benchmark(cmd: &HttpCommand) -> Result<Box<dyn Benchmark>, BenchError> {
    Ok(match cmd {
        HttpCommand::Bench(leaf) => leaf.benchmark()?,
        HttpCommand::Serve(_) => {
            return Err(BenchError::System(
                "http serve is a server, not a benchmark".into(),
            ));
        }
    })
}

/// `http serve`: the built-in target server until Ctrl-C (exit 0), then
/// the request count.
fn serve(a: &HttpServeArgs) -> Result<()> {
    let cancel = install_signal_handlers()?;
    let config = ServerConfig::from(a);
    // --db is checked (its syntax, then one connection and its AS3AP
    // tables) before the port is taken: a refusal is a usage error.
    let checked = config.endpoints.validate().and_then(|()| {
        config
            .endpoints
            .0
            .iter()
            .try_for_each(|e| e.open().map(drop))
    });
    if let Err(e) = checked {
        return Err(crate::CliError::usage(e).into());
    }
    let threads = config.threads;
    let help: Vec<String> = config.endpoints.0.iter().map(|e| e.help()).collect();
    let server = Server::bind(config)?;
    outln!(
        "listening on http://{} ({threads} worker threads; keep-alive: {} requests per connection, {} s idle timeout)",
        server.local_addr(),
        match a.keepalive_requests {
            0 => "unlimited".to_string(),
            n => n.to_string(),
        },
        a.keepalive_timeout.as_secs_f64()
    );
    outln!("{ENDPOINTS}");
    for line in help {
        outln!("  {line}");
    }
    let counts = server.counts();
    server.serve(&cancel)?;
    let per_thread: Vec<String> = counts
        .requests_per_worker()
        .iter()
        .map(u64::to_string)
        .collect();
    outln!(
        "served {} requests on {} connections (per worker thread: {})",
        counts.requests_served(),
        counts.connections_accepted(),
        per_thread.join(", ")
    );
    Ok(())
}
