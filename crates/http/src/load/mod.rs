//! `nodebench http load URL`: the closed model as ab (`-n` requests over
//! `-c` connections, `-t` time limit, `-k` keep-alive) and the open model as
//! httperf and wrk2 (`--rate` requests/s over a fixed set of connections, or
//! `--conn-rate` new connections/s each making `--calls-per-conn` calls).
//!
//! In the open model each request has a planned send time on an even
//! schedule; its latency counts from that time, so a server stall that
//! holds the connections up shows in the figures instead of being hidden
//! by the client waiting (coordinated omission). The uncorrected latency,
//! from the actual send, is kept alongside. Client CPU is the user+sys time
//! of the client threads (getrusage RUSAGE_THREAD in each), so a server in
//! the same process (the quick suite, the tests) does not count in it.
//!
//! The benchmark sits on top of the crate: [`run`] drives the engines of
//! [`crate::client`] with a [`LoadConfig`], and [`result`] maps what they
//! measured to the `http.load` result.

pub mod result;
pub mod run;

use chrono::Utc;
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::Config;
use nodebench_core::names::http as ids;

pub use self::result::{error_rate_failure, error_summary, load_result};
pub use self::run::{LoadOutcome, run_load};
pub use crate::config::{InProcessServer, LoadConfig, Model, RequestSpec};
use crate::in_process::Running;

/// The `http.load` benchmark: one result per run.
#[derive(Debug, Clone)]
pub struct HttpLoad {
    /// Its configuration.
    pub config: LoadConfig,
}

impl Benchmark for HttpLoad {
    fn id(&self) -> &'static str {
        ids::LOAD
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    /// Runs the load; for a path URL against the built-in server started
    /// for it, whose response count must match the client's.
    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        let started_at = Utc::now();
        let mut server = Running::start(&self.config.server)?;
        let mut config = self.config.clone();
        if let Some(s) = &server {
            config.target = s.target(&config.target);
        }
        // A local web server's CPU time is the workload's, not a
        // disturbance (the built-in one runs in this process).
        let _serving = nodebench_machine::disturb::workload::serve_tcp(
            &config.target.host,
            config.target.port,
        );
        ctx.progress.start("http load", 1);
        let outcome = run_load(&config, &ctx.cancel);
        ctx.progress.finish();
        let outcome = outcome?;
        let mut result = load_result(&config, &outcome);
        if let Some(s) = &mut server {
            s.check(&mut result, outcome.stats.completed);
        }
        result.started_at = started_at;
        ctx.record(result)?;
        if let Some(s) = server {
            s.stop();
        }
        Ok(())
    }
}
