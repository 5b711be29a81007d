//! `nodebench burnin`: builds the mixed load's workloads from the area
//! crates (each a factory of one short run of an existing benchmark; the
//! TCP and HTTP ones start their in-process targets themselves) and hands
//! them to the burn-in engine; then stores the verdict and prints the
//! summary. Nothing is measured here.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Result, anyhow};
use nodebench_burnin::{Burnin, BurninConfig, MachineWatch, Throughput, Workload};
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::{Choice, Config};
use nodebench_core::names::gpu as gpu_names;
use nodebench_core::names::http as http_names;
use nodebench_core::names::labels;
use nodebench_core::names::{cpu as cpu_names, disk as disk_names};
use nodebench_core::names::{memory as memory_names, net as net_names};
use nodebench_core::registry;
use nodebench_core::{Run, RunStatus};
use nodebench_cpu::config::{Kernel, OpsConfig, Scaling};
use nodebench_cpu::ops::CpuOps;
use nodebench_disk::iozone::{Iozone, IozoneConfig, Test};
use nodebench_gpu::{BurnConfig, GpuBurn};
use nodebench_http::load::{HttpLoad, InProcessServer, LoadConfig, Model};
use nodebench_machine::inventory;
use nodebench_machine::telemetry::Sampler;
use nodebench_memory::stream::{Stream, StreamConfig, default_array_size};
use nodebench_net::iperf3::ClientConfig;
use nodebench_net::throughput::Throughput as TcpThroughput;
use nodebench_report::reporters;
use nodebench_store::{Recorder, Store};

use super::runner::{open_store, record_tuning, restore_tuning, start_tuned};
use super::suites;
use crate::CliError;
use crate::args::Cli;
use crate::args::burnin::{BurninArgs, BurninWorkload};
use crate::progress::Bar;

/// Length of one iteration of the TCP and HTTP workloads.
const NET_ITERATION: Duration = Duration::from_secs(2);
/// Length of one iteration of the GPU workload (its setup, about 2 s at
/// n = 8192, is not load).
const GPU_ITERATION: Duration = Duration::from_secs(20);
/// The disk workload's file: written, verified, read each iteration.
const DISK_FILE: u64 = 64 << 20;
/// Telemetry kept beyond one checkpoint interval (the sampler keeps the
/// last interval and this, not its default hour: each checkpoint takes
/// its own window, so memory does not grow with the interval count).
const TELEMETRY_SLACK: Duration = Duration::from_secs(30);

/// The most elements per array the memory workload's STREAM takes for each
/// allowed CPU (128 MiB of doubles): see [`BurninStream`].
const STREAM_ELEMENTS_PER_CPU: usize = 16 << 20;

/// One iteration of the memory workload: STREAM on every allowed CPU, one
/// timed pass after the dropped one, validated, its arrays STREAM's
/// run-rule size (4x the last-level caches) but at most
/// [`STREAM_ELEMENTS_PER_CPU`] per CPU.
///
/// Every iteration allocates, first-touches, runs and validates its arrays
/// anew, so its length is the arrays over the bandwidth its CPUs get. At
/// the run-rule size the arrays follow the LLC a guest reports, its
/// host's: a 2-vCPU CI guest of a host with 300 MiB of it got 3 x 1.2 GiB,
/// and under the mixed load finished one or two iterations in a 20 s
/// checkpoint (measured with those arrays on a 2-vCPU guest), sometimes
/// none (a checkpoint with no memory sample). Bounded per CPU, the arrays
/// stay 4x the LLC wherever there are CPUs enough to sweep them quickly
/// and no longer grow past that elsewhere: 3 x 256 MiB on 2 CPUs finished
/// 3 to 7 iterations an interval on the same load. A bounded array may be
/// under 4x a large LLC: the burn-in holds the bandwidth against its own
/// first window, not against a STREAM result.
struct BurninStream {
    cpus: usize,
}

impl BurninStream {
    fn stream(&self, llc_bytes: Option<u64>) -> Stream {
        let n = default_array_size(llc_bytes).min(STREAM_ELEMENTS_PER_CPU * self.cpus);
        Stream {
            config: StreamConfig {
                threads: vec![self.cpus],
                array_size: Some(n),
                ntimes: 2,
                nontemporal: false,
                ..StreamConfig::default()
            },
        }
    }
}

impl Benchmark for BurninStream {
    fn id(&self) -> &'static str {
        memory_names::STREAM
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.stream(None).validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.stream(ctx.inventory.last_level_cache_bytes()).run(ctx)
    }
}

/// The workload `w` of the mixed load, as a factory of its short run.
fn workload(w: BurninWorkload, a: &BurninArgs) -> Workload {
    let cpus = nodebench_core::affinity::allowed_cpus().len().max(1);
    let name = w.as_str().to_string();
    match w {
        BurninWorkload::Cpu => Workload {
            name,
            make: Box::new(move || {
                Box::new(CpuOps {
                    config: OpsConfig {
                        threads: vec![cpus],
                        duration: Duration::from_millis(500),
                        repeats: 2,
                        warmup: 0,
                        kernels: vec![Kernel::F64Vector],
                        scaling: vec![Scaling::Strong],
                        pin: false,
                    },
                })
            }),
            throughput: Throughput {
                benchmark: cpu_names::OPS,
                metric: cpu_names::RATE,
                labels: vec![(labels::KERNEL, Kernel::F64Vector.as_str())],
            },
            error_counts: vec![],
        },
        BurninWorkload::Memory => Workload {
            name,
            make: Box::new(move || Box::new(BurninStream { cpus })),
            throughput: Throughput {
                benchmark: memory_names::STREAM,
                metric: memory_names::metric::BANDWIDTH,
                labels: vec![(labels::KERNEL, memory_names::kernel::TRIAD)],
            },
            error_counts: vec![],
        },
        BurninWorkload::Disk => {
            let dir = a.dir.clone();
            Workload {
                name,
                make: Box::new(move || {
                    Box::new(Iozone {
                        config: IozoneConfig {
                            dir: dir.clone(),
                            file_size: DISK_FILE,
                            record_size: 1 << 20,
                            tests: vec![Test::Write, Test::Read],
                            fsync_in_timing: true,
                            verify: true,
                            ..IozoneConfig::default()
                        },
                    })
                }),
                throughput: Throughput {
                    benchmark: disk_names::IOZONE,
                    metric: disk_names::metric::BANDWIDTH,
                    labels: vec![(disk_names::label::TEST, disk_names::test::WRITE)],
                },
                error_counts: vec![],
            }
        }
        BurninWorkload::Tcp => Workload {
            name,
            make: Box::new(move || {
                let mut config = ClientConfig::new(Ipv4Addr::LOCALHOST.to_string());
                config.loopback = true;
                config.duration = NET_ITERATION;
                Box::new(TcpThroughput { config })
            }),
            throughput: Throughput {
                benchmark: net_names::TCP,
                metric: net_names::metric::THROUGHPUT,
                labels: vec![(net_names::label::SIDE, net_names::side::RECEIVER)],
            },
            error_counts: vec![],
        },
        BurninWorkload::Http => {
            let (target, enabled) = a.http_url.clone().into_target();
            Workload {
                name,
                make: Box::new(move || {
                    Box::new(HttpLoad {
                        config: LoadConfig {
                            timeout: Duration::from_secs(5),
                            // The burn-in counts every non-2xx reply and
                            // failure as an error of its own; the load's
                            // error-rate rule would fail it a second time.
                            max_error_rate: 1.0,
                            server: InProcessServer {
                                enabled,
                                ..InProcessServer::default()
                            },
                            ..LoadConfig::new(
                                target.clone(),
                                Model::Closed {
                                    requests: None,
                                    concurrency: 4,
                                    time_limit: Some(NET_ITERATION),
                                },
                            )
                        },
                    })
                }),
                throughput: Throughput {
                    benchmark: http_names::LOAD,
                    metric: http_names::load::REQUESTS_PER_SECOND,
                    labels: vec![],
                },
                error_counts: vec![http_names::load::REQUESTS_FAILED, http_names::load::NON_2XX],
            }
        }
        BurninWorkload::Gpu => Workload {
            name,
            make: Box::new(|| {
                Box::new(GpuBurn {
                    config: BurnConfig {
                        duration: GPU_ITERATION,
                        ..BurnConfig::default()
                    },
                })
            }),
            throughput: Throughput {
                benchmark: gpu_names::BURN,
                metric: gpu_names::metric::RATE,
                labels: vec![],
            },
            // A fault (XID, uncorrected ECC, a retired row) fails the
            // result, an error too.
            error_counts: vec![gpu_names::metric::MISMATCHES, gpu_names::metric::XID_ERRORS],
        },
    }
}

/// A step whose benchmark could not be built again (a body file removed
/// since the start): every iteration fails with why, an error the burn-in
/// records.
struct Unbuildable {
    id: &'static str,
    error: String,
}

impl Benchmark for Unbuildable {
    fn id(&self) -> &'static str {
        self.id
    }

    fn validate(&self) -> Result<(), BenchError> {
        Err(BenchError::System(self.error.clone()))
    }

    fn run(&self, _ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()
    }
}

/// The workloads of `--suite`: one per step, building the step's
/// benchmark afresh for every iteration from its parsed parameters.
fn suite_workloads(name_or_file: &str) -> Result<Vec<Workload>, String> {
    let (text, origin) = suites::source(name_or_file).map_err(|e| format!("--suite: {e}"))?;
    let suite = suites::parse(&text, &origin).map_err(|e| e.to_string())?;
    let commands = suites::step_args(&suite).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(commands.len());
    for (step, args) in suite.steps.iter().zip(commands) {
        // The rate each benchmark's descriptor says a burn-in watches.
        let watched = registry::get(step.bench).and_then(|d| d.watched.map(|w| (d.id, w)));
        let Some((bench, watched)) = watched else {
            let ids: Vec<&str> = registry::suite_steps()
                .filter(|d| d.watched.is_some())
                .map(|d| d.id)
                .collect();
            return Err(format!(
                "--suite {origin}: step '{}' ({}) has no rate for the burn-in to watch; accepted benchmarks: {}",
                step.name,
                step.bench,
                ids.join(", ")
            ));
        };
        let args = Arc::new(args);
        let id = step.bench;
        out.push(Workload {
            name: step.name.clone(),
            make: Box::new(move || {
                args.benchmark().unwrap_or_else(|e| {
                    Box::new(Unbuildable {
                        id,
                        error: e.to_string(),
                    })
                })
            }),
            throughput: Throughput {
                benchmark: bench,
                metric: watched.metric,
                labels: watched.labels.to_vec(),
            },
            error_counts: if bench == http_names::LOAD {
                vec![http_names::load::REQUESTS_FAILED, http_names::load::NON_2XX]
            } else {
                vec![]
            },
        });
    }
    Ok(out)
}

/// Runs `nodebench burnin`.
pub fn run(cli: &Cli, a: &BurninArgs) -> Result<()> {
    let config = BurninConfig::from(a);
    if let Err(e) = config.validate() {
        return Err(CliError::usage(e).into());
    }
    let workloads: Vec<Workload> = match &a.suite {
        Some(suite) => match suite_workloads(suite) {
            Ok(w) => w,
            Err(e) => {
                return Err(CliError::usage(e).into());
            }
        },
        None => {
            let gpu_missing = nodebench_gpu::unavailable();
            let chosen = a.workloads(gpu_missing.is_none());
            if let Some(why) = gpu_missing
                && chosen.contains(&BurninWorkload::Gpu)
            {
                return Err(CliError::unavailable(format!("--workloads gpu: {why}")).into());
            }
            chosen.into_iter().map(|w| workload(w, a)).collect()
        }
    };
    run_workloads(cli, config, &workloads)
}

/// Checks each workload's benchmark once, then runs the burn-in into the
/// store and prints its summary and verdict.
fn run_workloads(cli: &Cli, config: BurninConfig, workloads: &[Workload]) -> Result<()> {
    let retention = config.checkpoint + TELEMETRY_SLACK;
    for w in workloads {
        match (w.make)().validate() {
            Ok(()) => {}
            Err(e @ BenchError::Invalid(_)) => {
                return Err(CliError::usage(format!("burnin {}: {e}", w.name)).into());
            }
            Err(e) => return Err(anyhow!("burnin {}: {e}", w.name)),
        }
    }
    let (mut tuned, cancel) = start_tuned(cli)?;
    let store: Option<Box<dyn Store>> = if cli.no_save {
        None
    } else {
        Some(open_store(cli)?)
    };
    let mut inventory = inventory::collect();
    record_tuning(&mut inventory, tuned.as_ref());
    let tags: BTreeMap<String, String> = cli.tags.iter().cloned().collect();
    let mut run = Run::start(std::env::args().collect(), tags);
    run.inventory = Some(inventory.clone());
    let mut recorder = Recorder::begin(store, run)?.forget_saved_results();
    let sampler = if cli.no_telemetry {
        None
    } else {
        Some(
            Sampler::with_retention(cli.telemetry_interval, retention)
                .map_err(|e| anyhow!("cannot start the telemetry sampler: {e}"))?,
        )
    };
    let bar = Bar::new(cli.quiet);
    let engine = Burnin {
        config,
        inventory: &inventory,
        cancel,
        progress: &bar,
        telemetry: sampler.as_ref(),
        watch: MachineWatch::open(),
        power: nodebench_machine::energy::discover(),
    };
    let outcome = engine.run(workloads, &mut recorder);
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => {
            // The run names what failed, as every failed run does.
            let failure = nodebench_core::BenchResult::failure(
                nodebench_core::names::burnin::CHECKPOINT,
                nodebench_core::PHASE_RUN,
                e.to_string(),
            );
            nodebench_core::bench::ResultSink::record(&mut recorder, failure)
                .map_err(|e| anyhow!("burnin: {e}"))?;
            recorder.finish(RunStatus::Failed)?;
            return Err(anyhow!("burnin: {e}"));
        }
    };
    recorder.set_verdicts(outcome.verdict.threshold_verdicts())?;
    let status = if outcome.interrupted {
        RunStatus::Incomplete
    } else {
        RunStatus::Complete
    };
    let mut run = recorder.finish(status)?;
    restore_tuning(tuned.as_mut());
    if let Some(id) = run.id {
        run = open_store(cli)?.load_run(id)?;
    }
    if cli.json {
        outln!("{}", serde_json::to_string_pretty(&run)?);
    } else {
        out!("{}", reporters::run_report(&run));
    }
    let findings = outcome.verdict.findings();
    if outcome.verdict.passed() {
        outln!("burn-in PASS: no error, no degradation, no machine event");
    } else {
        outln!("burn-in FAIL: {} finding(s)", findings.len());
        for f in &findings {
            outln!("  {f}");
        }
    }
    // Power that rose is said, and is no failure.
    for w in outcome.verdict.warnings() {
        outln!("warning: {w}");
    }
    for u in &outcome.verdict.unwatched {
        eprintln!("note: not watched: {u}");
    }
    if outcome.interrupted {
        return Err(BenchError::Interrupted(format!(
            "kept {} checkpoint(s){}",
            outcome.checkpoints,
            run.id
                .map(|i| format!(" in run {i} (incomplete)"))
                .unwrap_or_default()
        ))
        .into());
    }
    match outcome.verdict.passed() {
        true => Ok(()),
        false => Err(CliError::silent(crate::error::EXIT_FAILED).into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_workload_bounds_its_arrays_per_cpu() {
        let size = |cpus, llc: u64| {
            BurninStream { cpus }
                .stream(Some(llc << 20))
                .config
                .array_size
                .unwrap()
        };
        // 4x a 35.8 MiB LLC on 2 CPUs: the run-rule size.
        assert_eq!(size(2, 36), default_array_size(Some(36 << 20)));
        // A 300 MiB LLC reported to 2 CPUs: 3 x 256 MiB, not 3 x 1.2 GiB.
        assert_eq!(size(2, 300), 2 * STREAM_ELEMENTS_PER_CPU);
        assert_eq!(8 * size(2, 300), 256 << 20);
        // The same LLC with 64 CPUs: the run-rule size again.
        assert_eq!(size(64, 300), default_array_size(Some(300 << 20)));
    }
}
