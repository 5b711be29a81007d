//! `nodebench http ...`: its server, and its benchmark subcommands, made
//! from the registry and the area crate's runnables ([`super::bench`]).

use clap::Subcommand;
use nodebench_http::cli::HttpServeArgs;
use nodebench_http::server::ENDPOINTS;

/// `nodebench http ...`
#[derive(Debug, Subcommand)]
pub enum HttpCommand {
    /// Run the built-in target server (pages of any size generated on the
    /// fly, a CPU-bound page, a delayed page) until Ctrl-C, then print how
    /// many requests it served.
    #[command(after_help = ENDPOINTS)]
    Serve(HttpServeArgs),
    /// The benchmark subcommands, from the registry.
    #[command(flatten)]
    Bench(super::bench::Leaf<super::bench::Http>),
}
