//! `nodebench http ...`: the subcommands. Each wraps its benchmark's
//! arguments, defined with their conversion into its config in `nodebench_http::cli`.

use clap::Subcommand;
use nodebench_http::cli::*;
use nodebench_http::server::ENDPOINTS;

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
    #[command(after_help = ENDPOINTS)]
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
