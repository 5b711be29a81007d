//! `nodebench burnin`: the flags of the burn-in and their conversion into
//! its config; which workloads of the mixed load run, where the disk one
//! writes and where the HTTP one sends its requests.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use nodebench_burnin::BurninConfig;
use nodebench_core::names::burnin::workload;
use nodebench_http::url::UrlArg;

use nodebench_core::cli::parse::{duration_text, parse_duration};

nodebench_core::choice! {
    /// One workload of the default mixed load.
    pub enum BurninWorkload {
        /// CPU FMA kernels (cpu ops, f64.vector, every CPU).
        Cpu => workload::CPU,
        /// STREAM with validation, every CPU.
        Memory => workload::MEMORY,
        /// IOzone write + read of a 64 MiB file in --dir, read back and verified.
        Disk => workload::DISK,
        /// Loopback TCP against an iperf3 server started in this process.
        Tcp => workload::TCP,
        /// HTTP load (closed model, 4 connections) against --http-url.
        Http => workload::HTTP,
        /// gpu burn (FP32, n = 8192, 10 s a run) on every NVIDIA GPU; in
        /// the default mix only where the machine has one.
        Gpu => workload::GPU,
    }
}

/// Options of `burnin`.
#[derive(Debug, Args)]
#[command(
    long_about = "Runs a mixed load for hours or days, every workload at once, each repeating \
short runs of an existing benchmark: CPU FMA kernels, STREAM with validation, disk writes read back \
and verified, loopback TCP and HTTP against the built-in server, and on a machine with NVIDIA GPUs \
gpu burn's compared multiplies. Every --checkpoint it commits a \
result per workload to the store (throughput mean/min/max, iterations, errors) and one for the \
machine (new machine-check, EDAC and thermal-throttle counts, kernel log lines about I/O errors, \
OOM kills and throttling, and the interval's telemetry), so a crash loses at most one interval. \
A throughput is degraded when an interval's median falls more than --degrade below the median of \
the first hour (for runs shorter than 2 h: of the first sixth of the run). Ends with a verdict, \
PASS (no error, no degradation, no machine event) or FAIL naming each finding and when it began \
(exit 1), and a summary table over time; `runs show` prints both again."
)]
pub struct BurninArgs {
    /// How long the mixed load runs: 30m, 72h.
    #[arg(long, value_name = "DURATION", default_value = duration_text(BurninConfig::default().duration), value_parser = parse_duration)]
    pub duration: Duration,
    /// How often a checkpoint per workload is committed to the store.
    #[arg(long, value_name = "DURATION", default_value = duration_text(BurninConfig::default().checkpoint), value_parser = parse_duration)]
    pub checkpoint: Duration,
    /// Allowed fall of a throughput's interval median below its first
    /// hour's median (first sixth of runs under 2 h): 10%.
    #[arg(long, value_name = "PERCENT", default_value = "10%", value_parser = parse_percent)]
    pub degrade: f64,
    /// Workloads to run, comma-separated (default all; gpu only where
    /// there is one): cpu, memory, disk, tcp, http, gpu.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub workloads: Vec<BurninWorkload>,
    /// Directory of the disk workload's file (nodebench-*.tmp, removed afterwards).
    #[arg(long, value_name = "PATH", default_value_os_t = std::env::temp_dir())]
    pub dir: PathBuf,
    /// The HTTP workload's target: a /PATH of the built-in server, started
    /// in this process for each iteration (its response count checked
    /// against the client's), or a full URL.
    #[arg(long, value_name = "URL", default_value = "/3985", value_parser = UrlArg::parse)]
    pub http_url: UrlArg,
    /// A suite (built-in name or TOML file) whose steps are the workloads
    /// instead of the default mix: each step runs again and again, all at
    /// once, watched by its headline rate (its repeats and thresholds do
    /// not apply).
    #[arg(long, value_name = "NAME|FILE", conflicts_with_all = ["workloads", "http_url"])]
    pub suite: Option<String>,
}

impl BurninArgs {
    /// The workloads to run: those given, else all (the GPU one only
    /// where `has_gpu`).
    pub fn workloads(&self, has_gpu: bool) -> Vec<BurninWorkload> {
        if self.workloads.is_empty() {
            <BurninWorkload as nodebench_core::config::Choice>::ALL
                .iter()
                .copied()
                .filter(|w| has_gpu || *w != BurninWorkload::Gpu)
                .collect()
        } else {
            let mut w: Vec<BurninWorkload> = Vec::new();
            for x in &self.workloads {
                if !w.contains(x) {
                    w.push(*x);
                }
            }
            w
        }
    }
}

/// A percentage: `10%` or `10`.
fn parse_percent(s: &str) -> Result<f64, String> {
    s.trim()
        .trim_end_matches('%')
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("invalid percentage '{s}': expected a number like 10%"))
}

impl From<&BurninArgs> for BurninConfig {
    fn from(a: &BurninArgs) -> Self {
        BurninConfig {
            duration: a.duration,
            checkpoint: a.checkpoint,
            degrade_percent: a.degrade,
            ..BurninConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_with_or_without_the_sign() {
        assert_eq!(parse_percent("10%"), Ok(10.0));
        assert_eq!(parse_percent("2.5"), Ok(2.5));
        assert!(parse_percent("ten").unwrap_err().contains("like 10%"));
    }
}
