//! Running a load: one pinned client thread per plan, each with its engine,
//! then the threads' stats merged and the client-is-the-bottleneck checks.

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use nodebench_core::bench::{BenchError, Cancel};
use nodebench_core::config::Config;

use crate::client;
use crate::config::{LoadConfig, Model};
use crate::stats::ThreadStats;

/// Share of open-model requests sent late above which the client is
/// reported as the bottleneck.
const LATE_WARN_FRACTION: f64 = 0.01;

/// Client CPU use, as a share of threads x elapsed, above which the client
/// is reported as the bottleneck.
const CPU_WARN_FRACTION: f64 = 0.9;

/// What a load run produced.
#[derive(Debug, Clone)]
pub struct LoadOutcome {
    /// All threads' stats, merged.
    pub stats: ThreadStats,
    /// From the run's start to its last reply (or give-up).
    pub elapsed: Duration,
    /// User CPU time of the client threads over the run.
    pub client_user: Duration,
    /// System CPU time of the client threads over the run.
    pub client_sys: Duration,
    /// Client-is-the-bottleneck and similar warnings.
    pub warnings: Vec<String>,
    /// The run was stopped by cancellation.
    pub cancelled: bool,
}

/// Runs the load described by `cfg` until its count or time is reached or
/// `cancel` is set. Fails (without a result) when the configuration is
/// invalid or no connection could be made at all.
pub fn run_load(cfg: &LoadConfig, cancel: &Cancel) -> Result<LoadOutcome, BenchError> {
    cfg.validate()?;
    cfg.target.resolve()?;
    // The open-model schedule starts a moment after the threads are
    // spawned, so the first requests are not late by the spawn time.
    let lead = match cfg.model {
        Model::Closed { .. } => Duration::ZERO,
        _ => Duration::from_millis(5),
    };
    let start = Instant::now() + lead;
    let plans = client::plans(cfg, start);
    // Each thread's stats and the CPU time (user, sys) it used; thread `i`
    // runs plan `i`, pinned to a CPU of its own when `cfg.pin`.
    let per_thread = nodebench_core::team::run(plans.len(), cfg.pin, |i| {
        let (user0, sys0) = nodebench_core::cputime::thread();
        let ran = std::panic::catch_unwind(AssertUnwindSafe(|| {
            client::run_thread(&plans[i], cfg, cancel)
        }));
        let stats = ran.unwrap_or_else(|_| {
            let mut s = ThreadStats::new(start);
            s.fatal = Some("a client thread panicked".into());
            s
        });
        let (user1, sys1) = nodebench_core::cputime::thread();
        (
            stats,
            user1.saturating_sub(user0),
            sys1.saturating_sub(sys0),
        )
    });
    let elapsed = Instant::now().saturating_duration_since(start);
    let mut stats = ThreadStats::new(start);
    let (mut client_user, mut client_sys) = (Duration::ZERO, Duration::ZERO);
    for (t, user, sys) in &per_thread {
        stats.merge(t);
        client_user += *user;
        client_sys += *sys;
    }
    if let Some(f) = &stats.fatal
        && stats.completed == 0
    {
        return Err(BenchError::System(f.clone()));
    }
    let warnings = warnings(cfg, &stats, plans.len(), elapsed, client_user + client_sys);
    Ok(LoadOutcome {
        stats,
        elapsed,
        client_user,
        client_sys,
        warnings,
        cancelled: cancel.is_cancelled(),
    })
}

/// The run's warnings: a thread that stopped early, client CPU saturated
/// (`cpu` of `threads` x `elapsed`), or an open-model client that fell
/// behind its schedule.
fn warnings(
    cfg: &LoadConfig,
    stats: &ThreadStats,
    threads: usize,
    elapsed: Duration,
    cpu: Duration,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(f) = &stats.fatal {
        warnings.push(format!("a client thread stopped early: {f}"));
    }
    let cpu = cpu.as_secs_f64();
    let available = threads as f64 * elapsed.as_secs_f64();
    if available > 0.0 && cpu >= CPU_WARN_FRACTION * available {
        warnings.push(format!(
            "client CPU saturated: {cpu:.2} s of {available:.2} s available ({:.0} %); the figures may measure the client rather than the server (add --threads or pin the server elsewhere)",
            100.0 * cpu / available
        ));
    }
    if !matches!(cfg.model, Model::Closed { .. }) && stats.requests_sent > 0 {
        let late = stats.sent_late as f64 / stats.requests_sent as f64;
        if late > LATE_WARN_FRACTION {
            warnings.push(format!(
                "client fell behind its schedule: {} of {} requests ({:.1} %) were sent late while their connection was free; the client, not the server, limited the rate (add --threads or lower --rate)",
                stats.sent_late,
                stats.requests_sent,
                100.0 * late
            ));
        }
    }
    warnings
}
