//! One function per command: build the typed config, run, print.

use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Result, anyhow};
use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context};
use nodebench_core::inventory;
use nodebench_core::{ResultStatus, Run, RunStatus};
use nodebench_cpu::config::{OpsConfig, Scaling};
use nodebench_cpu::ops::CpuOps;
use nodebench_disk::blocks::{DiskBlocks, DiskBlocksConfig};
use nodebench_disk::dd::{Dd, DdConfig};
use nodebench_disk::iozone::{Iozone, IozoneConfig};
use nodebench_disk::job::Engine;
use nodebench_http::download::{Download, DownloadConfig};
use nodebench_http::load::{HttpLoad, LoadConfig, Model, RequestSpec};
use nodebench_http::server::{ENDPOINTS, Server, ServerConfig as HttpServerConfig};
use nodebench_http::sweep::{DEFAULT_USERS, Sweep, SweepConfig};
use nodebench_linpack::Linpack;
use nodebench_linpack::config::{FULL_MEMORY_FRACTION, LinpackConfig, Sizes};
use nodebench_memory::blocks::{Blocks, BlocksConfig};
use nodebench_memory::latency::{Latency, LatencyConfig};
use nodebench_memory::stream::{Stream, StreamConfig};
use nodebench_net::iperf3::{self, ClientConfig, Protocol, ServerConfig};
use nodebench_net::pingpong::{EchoServer, Pingpong, PingpongConfig, Proto};
use nodebench_net::throughput::Throughput;
use nodebench_report::{export, reporters};
use nodebench_store::{Recorder, SqliteStore, Store};

use crate::args::{
    BlocksArgs, Cli, Command, CpuCommand, DiskBlocksArgs, DiskCommand, EngineArg, HttpCommand,
    IozoneArgs, LatencyArgs, LinpackArgs, LoadArgs, MemoryCommand, NetCommand, OpsArgs,
    PingpongArgs, RunsCommand, ScalingArg, ServeArgs, StreamArgs, ThroughputArgs,
};
use crate::args::{HttpServeArgs, SweepArgs};
use crate::progress::Bar;

/// Exit code of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

/// Runs the parsed command.
pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    match &cli.command {
        Command::Run => run_benchmarks(&cli, crate::suite::quick(), true),
        Command::Inventory => inventory_cmd(&cli),
        Command::Cpu(CpuCommand::Ops(a)) => run_benchmarks(&cli, vec![Box::new(cpu_ops(a))], false),
        Command::Cpu(CpuCommand::Linpack(a)) => {
            run_benchmarks(&cli, vec![Box::new(linpack(a))], false)
        }
        Command::Memory(MemoryCommand::Stream(a)) => {
            run_benchmarks(&cli, vec![Box::new(stream(a))], false)
        }
        Command::Memory(MemoryCommand::Blocks(a)) => {
            run_benchmarks(&cli, vec![Box::new(blocks(a))], false)
        }
        Command::Memory(MemoryCommand::Latency(a)) => {
            run_benchmarks(&cli, vec![Box::new(latency(a))], false)
        }
        Command::Disk(DiskCommand::Iozone(a)) => {
            run_benchmarks(&cli, vec![Box::new(iozone(a))], false)
        }
        Command::Disk(DiskCommand::Dd(a)) => run_benchmarks(
            &cli,
            vec![Box::new(Dd {
                config: DdConfig {
                    dir: a.dir.clone(),
                    block_size: a.block_size,
                    count: a.count,
                    direct: a.direct,
                },
            })],
            false,
        ),
        Command::Disk(DiskCommand::Blocks(a)) => {
            run_benchmarks(&cli, vec![Box::new(disk_blocks(a))], false)
        }
        Command::Net(NetCommand::Serve(a)) => net_serve(a),
        Command::Net(NetCommand::Tcp(a)) => {
            run_benchmarks(&cli, vec![Box::new(throughput(a, Protocol::Tcp))], false)
        }
        Command::Net(NetCommand::Udp(a)) => {
            run_benchmarks(&cli, vec![Box::new(throughput(a, Protocol::Udp))], false)
        }
        Command::Net(NetCommand::Pingpong(a)) => {
            run_benchmarks(&cli, vec![Box::new(pingpong(a)?)], false)
        }
        Command::Http(HttpCommand::Load(a)) => http_load(&cli, a),
        Command::Http(HttpCommand::Serve(a)) => http_serve(a),
        Command::Http(HttpCommand::Sweep(a)) => http_sweep(&cli, a),
        Command::Http(HttpCommand::Download(a)) => {
            let mut config = DownloadConfig::new(a.url.clone());
            config.max_time = a.max_time;
            config.timeout = a.timeout;
            config.interval = a.interval;
            config.insecure = a.insecure;
            run_benchmarks(&cli, vec![Box::new(Download { config })], false)
        }
        Command::Runs(cmd) => runs_cmd(&cli, cmd),
        Command::Schema => {
            let schema = schemars::schema_for!(Run);
            println!("{}", serde_json::to_string_pretty(&schema)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn cpu_ops(a: &OpsArgs) -> CpuOps {
    let defaults = OpsConfig::default();
    CpuOps {
        config: OpsConfig {
            threads: a.threads.clone().map(|t| t.0).unwrap_or(defaults.threads),
            duration: a.duration,
            repeats: a.repeats as usize,
            warmup: a.warmup as usize,
            kernels: if a.kernels.is_empty() {
                defaults.kernels
            } else {
                a.kernels.clone()
            },
            scaling: match a.scaling {
                ScalingArg::Strong => vec![Scaling::Strong],
                ScalingArg::Weak => vec![Scaling::Weak],
                ScalingArg::Both => vec![Scaling::Strong, Scaling::Weak],
            },
            pin: !a.no_pin,
        },
    }
}

fn linpack(a: &LinpackArgs) -> Linpack {
    let defaults = LinpackConfig::default();
    Linpack {
        config: LinpackConfig {
            sizes: if let Some(f) = a.memory_fraction {
                Sizes::MemoryFraction(f)
            } else if a.full {
                Sizes::MemoryFraction(FULL_MEMORY_FRACTION)
            } else if a.sizes.is_empty() {
                defaults.sizes
            } else {
                Sizes::List(a.sizes.clone())
            },
            trials: a.trials as usize,
            blas: a.blas.clone(),
            threads: a.threads.map(|t| t as usize),
            hugepages: !a.no_hugepages,
            seed: a.seed,
            matrix: defaults.matrix,
        },
    }
}

fn stream(a: &StreamArgs) -> Stream {
    let defaults = StreamConfig::default();
    Stream {
        config: StreamConfig {
            threads: a.threads.clone().map(|t| t.0).unwrap_or(defaults.threads),
            array_size: a.array_size.map(|n| n as usize),
            ntimes: a.ntimes as usize,
            nontemporal: !a.no_nontemporal,
            pin: !a.no_pin,
            hugepages: !a.no_hugepages,
        },
    }
}

fn blocks(a: &BlocksArgs) -> Blocks {
    let d = BlocksConfig::default();
    Blocks {
        config: BlocksConfig {
            block_sizes: if a.block_sizes.is_empty() {
                d.block_sizes
            } else {
                a.block_sizes.clone()
            },
            threads: a.threads.clone().map(|t| t.0).unwrap_or(d.threads),
            total: a.total,
            ops: if a.ops.is_empty() {
                d.ops
            } else {
                a.ops.clone()
            },
            pin: !a.no_pin,
            hugepages: !a.no_hugepages,
        },
    }
}

fn latency(a: &LatencyArgs) -> Latency {
    Latency {
        config: LatencyConfig {
            min_size: a.min_size,
            max_size: a.max_size,
            sizes: None,
            duration: a.duration,
            hugepages: !a.no_hugepages,
        },
    }
}

fn iozone(a: &IozoneArgs) -> Iozone {
    let defaults = IozoneConfig::default();
    Iozone {
        config: IozoneConfig {
            dir: a.dir.clone(),
            file_size: a.file_size,
            record_size: a.record_size,
            tests: if a.tests.is_empty() {
                defaults.tests
            } else {
                a.tests.clone()
            },
            workers: a.workers as usize,
            auto_max_file_size: a.auto.then_some(a.max_file_size),
            fsync_in_timing: a.fsync,
            o_sync: a.o_sync,
            direct: a.direct,
            purge: a.purge,
            drop_caches: a.drop_caches,
            engine: match a.engine {
                EngineArg::Psync => Engine::Psync,
                EngineArg::IoUring => Engine::IoUring,
            },
            iodepth: a.iodepth.try_into().unwrap_or(u32::MAX),
            verify: a.verify,
        },
    }
}

fn disk_blocks(a: &DiskBlocksArgs) -> DiskBlocks {
    let mut c = DiskBlocksConfig {
        dir: a.dir.clone(),
        ..DiskBlocksConfig::default()
    };
    if !a.block_sizes.is_empty() {
        c.block_sizes = a.block_sizes.clone();
    }
    if let Some(t) = &a.threads {
        c.threads = t.0.clone();
    }
    if !a.ops.is_empty() {
        c.ops = a.ops.clone();
    }
    c.total = a.total;
    c.direct = a.direct;
    c.cell_time_limit = a.cell_time;
    DiskBlocks { config: c }
}

fn throughput(a: &ThroughputArgs, protocol: Protocol) -> Throughput {
    let mut c = ClientConfig::new(a.host.clone());
    c.port = a.port;
    c.protocol = protocol;
    c.parallel = a.parallel;
    c.duration = a.time;
    c.interval = Some(a.interval);
    c.window = a.window.map(|w| w.min(u32::MAX as u64) as u32);
    c.length = a.length.map(|l| l as usize);
    c.reverse = a.reverse;
    c.bidir = a.bidir;
    c.zerocopy = a.zerocopy;
    c.bitrate = a.bitrate;
    c.connect_timeout = a.connect_timeout;
    c.token = a.token.clone();
    Throughput { config: c }
}

fn pingpong(a: &PingpongArgs) -> Result<Pingpong> {
    let echo_port = a.port.checked_add(1).ok_or_else(|| {
        anyhow!(
            "--port: {} leaves no room for the echo port (port + 1)",
            a.port
        )
    })?;
    let host = a.host.trim_matches(|c| c == '[' || c == ']');
    let server = (host, echo_port)
        .to_socket_addrs()
        .map_err(|e| anyhow!("cannot resolve {}: {e}", a.host))?
        .next()
        .ok_or_else(|| anyhow!("cannot resolve {}: no address", a.host))?;
    let protocols = if a.protocols.is_empty() {
        vec![Proto::Tcp, Proto::Udp]
    } else {
        a.protocols
            .iter()
            .map(|p| if p == "tcp" { Proto::Tcp } else { Proto::Udp })
            .collect()
    };
    Ok(Pingpong {
        config: PingpongConfig {
            server,
            protocols,
            sizes: if a.sizes.is_empty() {
                vec![1, 64, 1024, 16 << 10, 64 << 10]
            } else {
                a.sizes.iter().map(|&s| s as usize).collect()
            },
            threads: a
                .threads
                .clone()
                .map(|t| t.0)
                .unwrap_or_else(|| vec![1, 2, 4, 8]),
            duration: a.duration,
            timeout: Duration::from_secs(2),
        },
    })
}

/// `net serve`: the iperf3-compatible server and the ping-pong echo, until
/// Ctrl-C (exit 0) or --max-tests tests ran.
fn net_serve(a: &ServeArgs) -> Result<ExitCode> {
    let cancel = install_signal_handlers()?;
    let echo_port = a.port.checked_add(1).ok_or_else(|| {
        anyhow!(
            "--port: {} leaves no room for the echo port (port + 1)",
            a.port
        )
    })?;
    let echo = EchoServer::bind(SocketAddr::new(a.bind, echo_port)).map_err(anyhow::Error::msg)?;
    let cfg = ServerConfig {
        bind: a.bind,
        port: a.port,
        max_duration: a.max_duration,
        max_bitrate: a.max_bitrate,
        token: a.token.clone(),
        max_tests: a.max_tests,
    };
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
                println!(
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
    result.map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}

/// `http load`: the typed load configuration from the flags.
fn http_load(cli: &Cli, a: &LoadArgs) -> Result<ExitCode> {
    let model = if let Some(conn_rate) = a.conn_rate {
        Model::conn_rate(conn_rate, a.calls_per_conn, a.num_conns)
    } else if let Some(rate) = a.rate {
        Model::open(rate, a.concurrency, a.requests, a.duration)
    } else {
        Model::closed(a.requests, a.concurrency, a.time_limit)
    };
    let body = match (&a.body, &a.body_file) {
        (Some(b), _) => b.clone().into_bytes(),
        (None, Some(path)) => std::fs::read(path)
            .map_err(|e| anyhow!("--body-file {}: cannot read: {e}", path.display()))?,
        (None, None) => Vec::new(),
    };
    let config = LoadConfig {
        target: a.url.clone(),
        request: RequestSpec {
            method: a.method.clone(),
            headers: a.headers.clone(),
            body,
        },
        keepalive: a.keepalive
            || matches!(model, Model::ConnRate { calls_per_conn, .. } if calls_per_conn > 1),
        model,
        http2: a.http2,
        streams: a.streams,
        insecure: a.insecure,
        threads: a.threads as usize,
        timeout: a.timeout,
        pin: !a.no_pin,
    };
    let load = HttpLoad { config };
    load.validate()?;
    run_benchmarks(cli, vec![Box::new(load)], false)
}

/// `http serve`: the built-in target server until Ctrl-C (exit 0), then
/// the request count.
fn http_serve(a: &HttpServeArgs) -> Result<ExitCode> {
    let cancel = install_signal_handlers()?;
    let defaults = HttpServerConfig::default();
    let server = Server::bind(HttpServerConfig {
        bind: SocketAddr::new(a.bind, a.port),
        threads: a.threads.map_or(defaults.threads, |t| t as usize),
        keepalive_requests: a.keepalive_requests,
        keepalive_timeout: a.keepalive_timeout,
    })
    .map_err(anyhow::Error::msg)?;
    println!(
        "listening on http://{} ({} worker threads; keep-alive: {} requests per connection, {} s idle timeout)",
        server.local_addr(),
        a.threads.map_or(defaults.threads, |t| t as usize),
        match a.keepalive_requests {
            0 => "unlimited".to_string(),
            n => n.to_string(),
        },
        a.keepalive_timeout.as_secs_f64()
    );
    println!("{ENDPOINTS}");
    let counts = server.counts();
    server.serve(&cancel).map_err(anyhow::Error::msg)?;
    println!(
        "served {} requests on {} connections",
        counts.requests_served(),
        counts.connections_accepted()
    );
    Ok(ExitCode::SUCCESS)
}

/// `http sweep`: one closed-model step per user count.
fn http_sweep(cli: &Cli, a: &SweepArgs) -> Result<ExitCode> {
    let users = a
        .users
        .clone()
        .map_or_else(|| DEFAULT_USERS.to_vec(), |u| u.0);
    let threads = a.threads.map_or_else(
        || nodebench_core::affinity::allowed_cpus().len().max(1),
        |t| t as usize,
    );
    let config = SweepConfig {
        load: LoadConfig {
            target: a.url.clone(),
            request: RequestSpec {
                method: a.method.clone(),
                headers: a.headers.clone(),
                body: Vec::new(),
            },
            model: Model::Closed {
                requests: Some(a.iterations),
                concurrency: 1,
                time_limit: None,
            },
            keepalive: !a.no_keepalive,
            http2: false,
            streams: 1,
            insecure: a.insecure,
            threads,
            timeout: a.timeout,
            pin: !a.no_pin,
        },
        users,
        iterations: a.iterations,
        step_time_limit: a.step_time,
    };
    run_benchmarks(cli, vec![Box::new(Sweep { config })], false)
}

fn open_store(cli: &Cli) -> Result<SqliteStore> {
    let path = nodebench_store::resolve_path(cli.store.as_deref());
    Ok(SqliteStore::open(&path)?)
}

/// Ctrl-C and SIGTERM set the returned flag (benchmarks stop at the next
/// measurement and the run is saved as incomplete); a second one exits at once.
fn install_signal_handlers() -> Result<Cancel> {
    let flag = Arc::new(AtomicBool::new(false));
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

fn run_benchmarks(
    cli: &Cli,
    benches: Vec<Box<dyn Benchmark>>,
    show_inventory: bool,
) -> Result<ExitCode> {
    let cancel = install_signal_handlers()?;
    let store: Option<Box<dyn Store>> = if cli.no_save {
        None
    } else {
        Some(Box::new(open_store(cli)?))
    };
    let inventory = inventory::collect();
    let tags: BTreeMap<String, String> = cli.tags.iter().cloned().collect();
    let mut run = Run::start(std::env::args().collect(), tags);
    run.inventory = Some(inventory.clone());
    let mut recorder = Recorder::begin(store, run)?;
    let bar = Bar::new(cli.quiet);

    // A benchmark that cannot run (bad config, no room in the temp dir) does
    // not stop the ones after it; a store that cannot take results does.
    let mut errors: Vec<String> = Vec::new();
    for bench in &benches {
        if cancel.is_cancelled() {
            break;
        }
        let mut ctx = Context {
            cancel: cancel.clone(),
            progress: &bar,
            inventory: &inventory,
            sink: &mut recorder,
        };
        match bench.run(&mut ctx) {
            Ok(()) => {}
            Err(e @ BenchError::Sink(_)) => {
                errors.push(format!("{}: {e}", bench.id()));
                break;
            }
            Err(e) => errors.push(format!("{}: {e}", bench.id())),
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
    let run = recorder.finish(status)?;

    if cli.json {
        println!("{}", serde_json::to_string_pretty(&run)?);
    } else {
        if show_inventory {
            print!("{}", nodebench_report::inventory::report(&inventory));
            println!();
        }
        print!("{}", reporters::run_report(&run));
    }
    for e in &errors {
        eprintln!("error: {e}");
    }
    if !errors.is_empty() {
        return Ok(ExitCode::FAILURE);
    }
    if interrupted {
        eprintln!(
            "interrupted: kept {} finished result(s){}",
            run.results.len(),
            run.id
                .map(|i| format!(" in run {i} (incomplete)"))
                .unwrap_or_default()
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
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
            r.error.as_deref().unwrap_or("failed")
        );
    }
    if !failed.is_empty() {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn inventory_cmd(cli: &Cli) -> Result<ExitCode> {
    let inv = inventory::collect();
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&inv)?);
    } else {
        print!("{}", nodebench_report::inventory::report(&inv));
    }
    Ok(ExitCode::SUCCESS)
}

fn runs_cmd(cli: &Cli, cmd: &RunsCommand) -> Result<ExitCode> {
    let mut store = open_store(cli)?;
    match cmd {
        RunsCommand::List => {
            let runs = store.list_runs()?;
            if cli.json {
                let ids: Vec<serde_json::Value> = runs
                    .iter()
                    .map(|r| {
                        serde_json::json!({
                            "id": r.id, "started_at": r.started_at, "ended_at": r.ended_at,
                            "status": r.status.as_str(), "benchmarks": r.benchmarks,
                            "results": r.result_count, "metrics": r.metric_count, "tags": r.tags,
                        })
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&ids)?);
                return Ok(ExitCode::SUCCESS);
            }
            println!(
                "{:>5}  {:<19}  {:<10}  {:>7}  {:>7}  {:<24}  tags",
                "id", "started (UTC)", "status", "results", "metrics", "benchmarks"
            );
            for r in runs {
                let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
                println!(
                    "{:>5}  {:<19}  {:<10}  {:>7}  {:>7}  {:<24}  {}",
                    r.id,
                    r.started_at.format("%Y-%m-%d %H:%M:%S"),
                    r.status.as_str(),
                    r.result_count,
                    r.metric_count,
                    r.benchmarks.join(","),
                    tags.join(",")
                );
            }
        }
        RunsCommand::Show { id } => {
            let run = store.load_run(*id)?;
            if cli.json {
                println!("{}", serde_json::to_string_pretty(&run)?);
            } else {
                print!("{}", reporters::run_report(&run));
            }
        }
        RunsCommand::Export { id, format, output } => {
            let run = store.load_run(*id)?;
            let text = export::export(&run, *format).map_err(anyhow::Error::msg)?;
            match output {
                Some(path) => std::fs::write(path, text)
                    .map_err(|e| anyhow!("--output {}: cannot write: {e}", path.display()))?,
                None => print!("{text}"),
            }
        }
        RunsCommand::Delete { id } => {
            store.delete_run(*id)?;
            println!("deleted run {id}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
