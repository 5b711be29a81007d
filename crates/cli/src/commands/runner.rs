//! Runs benchmarks: checks every configuration first, then opens the store,
//! runs them in order (each as many times as `--repeat` says, through
//! `nodebench_core::repeat`), saves and prints the run, and turns what
//! happened into the exit code.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Result, anyhow};
use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context, ResultSink};
use nodebench_core::config::Config;
use nodebench_core::credentials::redact;
use nodebench_core::inventory::Inventory;
use nodebench_core::names;
use nodebench_core::repeat::{self, RepeatConfig};
use nodebench_core::threshold::Threshold;
use nodebench_core::{BenchResult, PHASE_RUN, PHASE_SETUP, ResultStatus, Run, RunStatus};
use nodebench_machine::disturb::Watch;
use nodebench_machine::energy;
use nodebench_machine::host::tune::{self, Restore, Tuned};
use nodebench_machine::inventory;
use nodebench_machine::observe::Observer;
use nodebench_machine::sysroot::Roots;
use nodebench_machine::telemetry::Sampler;
use nodebench_report::reporters;
use nodebench_store::{Location, Recorder, Store};

use crate::CliError;
use crate::args::Cli;
use crate::progress::Bar;

pub use crate::error::EXIT_INTERRUPTED;

/// Where the results store `--store` (or `NODEBENCH_STORE`) names is; a
/// value nodebench cannot use is one line naming where it came from.
pub fn store_location(cli: &Cli) -> Result<Location> {
    Ok(Location::resolve(cli.store.as_deref())?)
}

/// The results store `--store` (or the environment) names: a SQLite file
/// or a PostgreSQL database.
pub fn open_store(cli: &Cli) -> Result<Box<dyn Store>> {
    Ok(store_location(cli)?.open()?)
}

/// Ctrl-C and SIGTERM set the returned flag (benchmarks stop at the next
/// measurement and the run is saved as incomplete); a second one exits at once.
pub fn install_signal_handlers() -> Result<Cancel> {
    install_signal_handlers_restoring(None)
}

/// [`install_signal_handlers`], and where `restore` is given (`--tune`),
/// the second signal first puts every tuned file back, then exits.
fn install_signal_handlers_restoring(restore: Option<Restore>) -> Result<Cancel> {
    let flag = Arc::new(AtomicBool::new(false));
    if let Some(restore) = restore {
        let restore = Arc::new(restore);
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            let (restore, flag) = (restore.clone(), flag.clone());
            // SAFETY: the action runs inside the signal handler and makes
            // async-signal-safe calls alone: an atomic load, then
            // Restore::run's open/write/close on buffers prepared
            // beforehand, then _exit. It allocates nothing and takes no
            // lock. Registered before the conditional shutdown below, it
            // runs first (signal-hook runs actions in registration order).
            unsafe {
                signal_hook::low_level::register(sig, move || {
                    if flag.load(Ordering::SeqCst) {
                        restore.run();
                        signal_hook::low_level::exit(EXIT_INTERRUPTED as i32);
                    }
                })
            }
            .map_err(|e| anyhow!("cannot install signal handler: {e}"))?;
        }
    }
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(
            sig,
            EXIT_INTERRUPTED as i32,
            flag.clone(),
        )
        .map_err(|e| anyhow!("cannot install signal handler: {e}"))?;
        signal_hook::flag::register(sig, flag.clone())
            .map_err(|e| anyhow!("cannot install signal handler: {e}"))?;
    }
    Ok(Cancel::from_flag(flag))
}

/// `--tune` and the signal handlers of a run: without `--tune`, none and
/// [`install_signal_handlers`]. With it, refused in one line unless root;
/// else every cpufreq policy's EPP and governor set to performance and
/// `/dev/cpu_dma_latency` held at 0 (under the sysfs root), put back when
/// the returned [`Tuned`] is restored or dropped (at the end, on an error)
/// and by the second Ctrl-C before it exits.
pub fn start_tuned(cli: &Cli) -> Result<(Option<Tuned>, Cancel)> {
    if !cli.tune {
        return Ok((None, install_signal_handlers()?));
    }
    if !tune::is_root() {
        return Err(CliError::usage(
            "--tune needs root (it writes cpufreq settings and opens /dev/cpu_dma_latency): run it with sudo, or leave --tune out",
        )
        .into());
    }
    let roots = Roots::from_env();
    let tuned = Tuned::apply(&roots, &tune::dma_latency_path(&roots))
        .map_err(|e| CliError::failed(format!("--tune: {e}")))?;
    let cancel = install_signal_handlers_restoring(Some(tuned.signal_restore()))?;
    Ok((Some(tuned), cancel))
}

/// Stores what `--tune` changed with the run's host state.
pub fn record_tuning(inventory: &mut Inventory, tuned: Option<&Tuned>) {
    if let (Some(t), Some(h)) = (tuned, inventory.host.as_mut()) {
        h.tuning = Some(t.record().clone());
    }
}

/// Puts back what `--tune` changed, saying which writes failed.
pub fn restore_tuning(tuned: Option<&mut Tuned>) {
    if let Some(t) = tuned {
        for e in t.restore() {
            eprintln!("warning: --tune: {e}");
        }
    }
}

/// Checks every benchmark's configuration before the store is opened or
/// anything runs. A configuration the flags make wrong stops everything:
/// a usage [`CliError`] naming it (a path that is not a directory, a NUMA
/// node or a size the machine does not have). One the machine
/// refuses (no room in a directory) comes back in that
/// benchmark's slot: it is reported failed and the others still run, as
/// when a benchmark fails while running.
fn validate_all(benches: &[Box<dyn Benchmark>]) -> Result<Vec<Option<BenchError>>, CliError> {
    let mut refused = Vec::with_capacity(benches.len());
    for bench in benches {
        match bench.validate() {
            Ok(()) => refused.push(None),
            Err(e @ BenchError::Invalid(_)) => {
                return Err(CliError::usage(format!("{}: {e}", bench.id())));
            }
            Err(e) => refused.push(Some(e)),
        }
    }
    Ok(refused)
}

/// The run's sink: each result is observed (its energy, what disturbed
/// it, its telemetry and bottleneck line), then stored.
struct Observed {
    observer: Observer,
    recorder: Recorder,
}

impl ResultSink for Observed {
    fn record(&mut self, mut result: BenchResult) -> Result<(), BenchError> {
        let run = self.recorder.run();
        self.observer
            .observe(&mut result, &run.results, run.inventory.as_ref());
        self.recorder.record(result)
    }

    fn boundary(&mut self) {
        self.observer.boundary();
        self.recorder.boundary();
    }
}

/// Records a failed result of `benchmark` holding `error` and `phase`: a
/// store that cannot take it stops the run.
fn record_failure(
    recorder: &mut Observed,
    benchmark: &str,
    phase: &str,
    error: &BenchError,
) -> Result<()> {
    recorder
        .record(BenchResult::failure(benchmark, phase, error.to_string()))
        .map_err(|e| CliError::failed(format!("{benchmark}: {e}")).into())
}

/// Runs `benches` in order into one run, saved unless `--no-save`, printed
/// as tables (after the inventory when `show_inventory`) or as JSON.
pub fn run_benchmarks(
    cli: &Cli,
    benches: Vec<Box<dyn Benchmark>>,
    show_inventory: bool,
) -> Result<()> {
    run_judged(cli, benches, show_inventory, &[], &[])
}

/// [`run_benchmarks`] with the run tagged `tags` too (`--tag` wins on the
/// same key) and `thresholds` judged with `--assert` when the benchmarks
/// have run: a suite's.
pub fn run_judged(
    cli: &Cli,
    benches: Vec<Box<dyn Benchmark>>,
    show_inventory: bool,
    tags: &[(String, String)],
    thresholds: &[Threshold],
) -> Result<()> {
    let repeats = RepeatConfig::from(&cli.repeat);
    repeats
        .validate()
        .map_err(|e| CliError::usage(e.to_string()))?;
    let refused = validate_all(&benches)?;
    // A threshold that can never match is refused now, not after the run.
    let ids: Vec<&str> = benches.iter().map(|b| b.id()).collect();
    for t in thresholds.iter().chain(&cli.asserts) {
        t.check(&ids).map_err(CliError::usage)?;
    }
    let (mut tuned, cancel) = start_tuned(cli)?;
    let store: Option<Box<dyn Store>> = if cli.no_save {
        None
    } else {
        Some(open_store(cli)?)
    };
    let mut inventory = inventory::collect();
    // A benchmark with a theoretical peak counts measured effective cores.
    if ids
        .iter()
        .any(|id| [names::cpu::OPS, names::linpack::LINPACK].contains(id))
    {
        inventory.cpu.effective_cores = Some(nodebench_machine::cores::effective());
        inventory.cpu.peak_clock = nodebench_machine::peak::peak_clock(&inventory);
    }
    record_tuning(&mut inventory, tuned.as_ref());
    let tags: BTreeMap<String, String> = tags.iter().chain(&cli.tags).cloned().collect();
    let mut run = Run::start(std::env::args().collect(), tags);
    run.inventory = Some(inventory.clone());
    // The host's stored idle draw: every energy figure above it too.
    let idle = match &store {
        Some(s) => nodebench_store::latest_run_of(
            s.as_ref(),
            names::energy::IDLE,
            inventory.hostname.as_deref(),
        )?
        .as_ref()
        .and_then(energy::Idle::from_run),
        None => None,
    };
    let mut observer = Observer::new()
        .with_watch(Watch::begin())
        .with_energy(energy::Watch::begin().with_idle(idle));
    if !cli.no_telemetry {
        let sampler = Sampler::start(cli.telemetry_interval)
            .map_err(|e| anyhow!("cannot start the telemetry sampler: {e}"))?;
        observer = observer.with_telemetry(sampler);
    }
    let mut recorder = Observed {
        observer,
        recorder: Recorder::begin(store, run)?,
    };
    let bar = Bar::new(cli.quiet);

    // A benchmark that cannot run (no room in the temp dir) does not stop
    // the ones after it; a store that cannot take results does.
    // Each such benchmark leaves one failed result naming it, with its
    // error and the phase it failed in, so the run says what failed.
    let mut errors: Vec<String> = Vec::new();
    for (bench, refusal) in benches.iter().zip(refused) {
        if cancel.is_cancelled() {
            break;
        }
        if let Some(e) = refusal {
            errors.push(format!("{}: {e}", bench.id()));
            record_failure(&mut recorder, bench.id(), PHASE_SETUP, &e)?;
            continue;
        }
        // The counters at the benchmark's start: its first result's span
        // begins here.
        recorder.boundary();
        let mut ctx = Context {
            cancel: cancel.clone(),
            progress: &bar,
            inventory: &inventory,
            sink: &mut recorder,
        };
        // Whole repeats as --repeat (or the suite step) says; once as it is
        // by default.
        let cfg = RepeatConfig {
            mode: bench.repeat().unwrap_or(repeats.mode),
            ..repeats.clone()
        };
        match repeat::run(bench.as_ref(), &cfg, &mut ctx) {
            Ok(()) => {}
            Err(e @ BenchError::Sink(_)) => {
                errors.push(format!("{}: {e}", bench.id()));
                break;
            }
            // Stopped by the signal: what it recorded is kept, and the run
            // ends below as interrupted.
            Err(BenchError::Interrupted(_)) => break,
            Err(e) => {
                errors.push(format!("{}: {e}", bench.id()));
                record_failure(&mut recorder, bench.id(), PHASE_RUN, &e)?;
            }
        }
    }
    let interrupted = cancel.is_cancelled();
    let status = if interrupted {
        RunStatus::Incomplete
    } else if !errors.is_empty() {
        RunStatus::Failed
    } else {
        RunStatus::Complete
    };
    let judged: Vec<Threshold> = thresholds.iter().chain(&cli.asserts).cloned().collect();
    if !judged.is_empty() {
        recorder.recorder.judge(&judged)?;
    }
    let run = recorder.recorder.finish(status)?;
    restore_tuning(tuned.as_mut());

    if cli.json {
        outln!("{}", serde_json::to_string_pretty(&run)?);
    } else {
        if show_inventory {
            out!("{}", nodebench_report::inventory::report(&inventory));
            outln!();
        }
        out!("{}", reporters::run_report(&run));
    }
    for e in &errors {
        eprintln!("error: {}", redact(e));
    }
    if !errors.is_empty() {
        return Err(CliError::silent(crate::error::EXIT_FAILED).into());
    }
    if interrupted {
        return Err(BenchError::Interrupted(format!(
            "kept {} finished result(s){}",
            run.results.len(),
            run.id
                .map(|i| format!(" in run {i} (incomplete)"))
                .unwrap_or_default()
        ))
        .into());
    }
    let failed: Vec<_> = run
        .results
        .iter()
        .filter(|r| r.status == ResultStatus::Failed)
        .collect();
    for r in &failed {
        eprintln!(
            "error: {}: {}",
            r.benchmark,
            redact(r.error.as_deref().unwrap_or("failed"))
        );
    }
    if !failed.is_empty() {
        return Err(CliError::silent(crate::error::EXIT_FAILED).into());
    }
    let disturbed: Vec<_> = run.results.iter().filter(|r| r.is_disturbed()).collect();
    if cli.strict_host && !disturbed.is_empty() {
        for r in &disturbed {
            eprintln!("error: {}: disturbed (--strict-host)", r.benchmark);
        }
        return Err(CliError::failed(format!(
            "--strict-host: {} of {} result(s) disturbed",
            disturbed.len(),
            run.results.len()
        ))
        .into());
    }
    let unmet = run.verdicts.iter().filter(|v| !v.passed).count();
    if unmet > 0 {
        return Err(CliError::failed(format!(
            "acceptance failed: {unmet} of {} threshold(s) not met",
            run.verdicts.len()
        ))
        .into());
    }
    Ok(())
}
