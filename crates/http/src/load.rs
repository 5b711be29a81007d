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

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use chrono::Utc;
use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context};
use nodebench_core::{BenchResult, Better, Histogram, Metric, TimeSeries, Unit};
use serde_json::json;

use crate::client;
use crate::stats::{ErrorKind, ThreadStats};
use crate::url::{Scheme, Target};

/// Share of open-model requests sent late above which the client is
/// reported as the bottleneck.
const LATE_WARN_FRACTION: f64 = 0.01;

/// Client CPU use, as a share of threads x elapsed, above which the client
/// is reported as the bottleneck.
const CPU_WARN_FRACTION: f64 = 0.9;

/// What each request carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestSpec {
    /// Method, e.g. `GET`.
    pub method: String,
    /// Extra headers; a header named here replaces the default of that name.
    pub headers: Vec<(String, String)>,
    /// Body (sent with a `Content-Length`).
    pub body: Vec<u8>,
}

impl RequestSpec {
    /// A plain GET: no extra headers, no body.
    pub fn get() -> RequestSpec {
        RequestSpec {
            method: "GET".into(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }
}

/// The load model.
#[derive(Debug, Clone, PartialEq)]
pub enum Model {
    /// ab: `concurrency` connections each send the next request when the
    /// previous reply completed, until `requests` were sent or `time_limit`
    /// passed (at least one of them is set).
    Closed {
        /// Requests in all (`-n`).
        requests: Option<u64>,
        /// Connections (`-c`).
        concurrency: u32,
        /// Stop starting requests after this long (`-t`).
        time_limit: Option<Duration>,
    },
    /// wrk2 / httperf `--rate`: `rate` requests/s in all, spread evenly
    /// over `connections`, each request due at its planned time whatever
    /// the replies do; until `requests` were sent or `duration` passed.
    Open {
        /// Requests per second in all.
        rate: f64,
        /// Connections the requests are spread over.
        connections: u32,
        /// Requests in all.
        requests: Option<u64>,
        /// How long to send.
        duration: Option<Duration>,
    },
    /// httperf `--rate` with `--num-conns`/`--num-calls`: `conn_rate` new
    /// connections per second, `connections` in all, each making
    /// `calls_per_conn` requests one after the other, then closing.
    ConnRate {
        /// New connections per second.
        conn_rate: f64,
        /// Requests per connection.
        calls_per_conn: u32,
        /// Connections in all.
        connections: u64,
    },
}

impl Model {
    /// `closed`, `open` or `conn_rate`.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Closed { .. } => "closed",
            Model::Open { .. } => "open",
            Model::ConnRate { .. } => "conn_rate",
        }
    }

    /// Connections kept at once (closed and open model) or opened in all (`ConnRate`).
    pub fn connections(&self) -> u64 {
        match *self {
            Model::Closed { concurrency, .. } => u64::from(concurrency),
            Model::Open { connections, .. } => u64::from(connections),
            Model::ConnRate { connections, .. } => connections,
        }
    }
}

/// Everything a load run needs.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// Where to send.
    pub target: Target,
    /// What to send.
    pub request: RequestSpec,
    /// How to pace it.
    pub model: Model,
    /// Reuse connections (ab `-k`); off: one connection per request and
    /// `Connection: close` (ab's default).
    pub keepalive: bool,
    /// HTTP/2 (ALPN h2 on https, prior knowledge h2c on http).
    pub http2: bool,
    /// HTTP/2: requests in flight at once on each connection, each on its
    /// own stream (h2load `-m`); 1 otherwise. The closed model then keeps
    /// `-c` x this many requests outstanding, and the open model spreads
    /// its rate over as many stream slots.
    pub streams: u32,
    /// Accept any TLS certificate.
    pub insecure: bool,
    /// Client threads.
    pub threads: usize,
    /// Per-request timeout: a reply not complete by then is a client timeout.
    pub timeout: Duration,
    /// Pin client threads to CPUs.
    pub pin: bool,
}

impl LoadConfig {
    /// A keep-alive HTTP/1.1 GET of `target` paced by `model`, on one
    /// unpinned client thread with ab's 30 s request timeout; callers
    /// change the fields they need.
    pub fn new(target: Target, model: Model) -> LoadConfig {
        LoadConfig {
            target,
            request: RequestSpec::get(),
            model,
            keepalive: true,
            http2: false,
            streams: 1,
            insecure: false,
            threads: 1,
            timeout: Duration::from_secs(30),
            pin: false,
        }
    }

    /// Checks the values a library caller could get wrong (the CLI checks
    /// them on parsing); the message names the flag and the accepted form.
    pub fn validate(&self) -> Result<(), String> {
        let positive_rate = |flag: &str, r: f64| {
            if r.is_finite() && r > 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "{flag}: expected a positive rate per second, got {r}"
                ))
            }
        };
        let positive = |flag: &str, n: u64| {
            if n > 0 {
                Ok(())
            } else {
                Err(format!("{flag}: expected a positive count, got 0"))
            }
        };
        match self.model {
            Model::Closed {
                requests,
                concurrency,
                time_limit,
            } => {
                if let Some(n) = requests {
                    positive("-n/--requests", n)?;
                }
                positive("-c/--concurrency", u64::from(concurrency))?;
                if requests.is_none() && time_limit.is_none() {
                    return Err("closed model: give -n/--requests or -t/--time-limit".into());
                }
            }
            Model::Open {
                rate,
                connections,
                requests,
                duration,
            } => {
                positive_rate("--rate", rate)?;
                positive("-c/--concurrency", u64::from(connections))?;
                if let Some(n) = requests {
                    positive("-n/--requests", n)?;
                }
                if requests.is_none() && duration.is_none() {
                    return Err("open model: give -n/--requests or --duration".into());
                }
            }
            Model::ConnRate {
                conn_rate,
                calls_per_conn,
                connections,
            } => {
                positive_rate("--conn-rate", conn_rate)?;
                positive("--calls-per-conn", u64::from(calls_per_conn))?;
                positive("--num-conns", connections)?;
            }
        }
        if self.timeout.is_zero() {
            return Err("--timeout: expected a positive duration like 30s".into());
        }
        if self.streams == 0 {
            return Err("--streams: expected a positive count of streams per connection".into());
        }
        if self.streams > 1 {
            if !self.http2 {
                return Err("--streams: needs --http2 (an HTTP/1.1 connection carries one request at a time)".into());
            }
            if !self.keepalive {
                return Err("--streams: needs -k (keep-alive); without it each request has its own connection".into());
            }
            if matches!(self.model, Model::ConnRate { .. }) {
                return Err("--streams: applies to the closed model and --rate, not --conn-rate, whose calls go one after another".into());
            }
        }
        Ok(())
    }
}

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
    cfg.validate().map_err(BenchError::Invalid)?;
    cfg.target.resolve().map_err(BenchError::System)?;
    let tls_or_h2 = cfg.target.scheme == Scheme::Https || cfg.http2;
    let cpus = nodebench_core::affinity::allowed_cpus();
    // The open-model schedule starts a moment after the threads are
    // spawned, so the first requests are not late by the spawn time.
    let lead = match cfg.model {
        Model::Closed { .. } => Duration::ZERO,
        _ => Duration::from_millis(5),
    };
    let start = Instant::now() + lead;
    let plans = client::plans(cfg, start, &cpus);
    // Each thread's stats and the CPU time (user, sys) it used.
    let per_thread: Vec<(ThreadStats, Duration, Duration)> = std::thread::scope(|s| {
        let handles: Vec<_> = plans
            .iter()
            .map(|plan| {
                s.spawn(move || {
                    if let Some(cpu) = plan.cpu {
                        nodebench_core::affinity::pin_current_thread(cpu);
                    }
                    let (user0, sys0) = nodebench_core::cputime::thread();
                    let stats = if tls_or_h2 {
                        client::tokio_engine::run_thread(plan, cfg, cancel)
                    } else {
                        client::epoll::run_thread(plan, cfg, cancel)
                    };
                    let (user1, sys1) = nodebench_core::cputime::thread();
                    (
                        stats,
                        user1.saturating_sub(user0),
                        sys1.saturating_sub(sys0),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    let mut s = ThreadStats::new(start);
                    s.fatal = Some("a client thread panicked".into());
                    (s, Duration::ZERO, Duration::ZERO)
                })
            })
            .collect()
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
    let mut warnings = Vec::new();
    if let Some(f) = &stats.fatal {
        warnings.push(format!("a client thread stopped early: {f}"));
    }
    let cpu = (client_user + client_sys).as_secs_f64();
    let available = plans.len() as f64 * elapsed.as_secs_f64();
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
    Ok(LoadOutcome {
        stats,
        elapsed,
        client_user,
        client_sys,
        warnings,
        cancelled: cancel.is_cancelled(),
    })
}

/// The `http.load` benchmark: one result per run.
#[derive(Debug, Clone)]
pub struct HttpLoad {
    /// Its configuration.
    pub config: LoadConfig,
}

impl Benchmark for HttpLoad {
    fn id(&self) -> &'static str {
        "http.load"
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let started_at = Utc::now();
        ctx.progress.start("http load", 1);
        let outcome = run_load(&self.config, &ctx.cancel);
        ctx.progress.finish();
        let outcome = outcome?;
        let mut result = load_result(&self.config, &outcome);
        result.started_at = started_at;
        result.ended_at = Utc::now();
        ctx.sink.record(result)
    }
}

/// Percentiles reported for the corrected and uncorrected latency (wrk2 --latency).
pub const LATENCY_PERCENTILES: [f64; 7] = [50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999];

/// ab's "Percentage of the requests served within a certain time".
pub const SERVED_WITHIN: [u32; 9] = [50, 66, 75, 80, 90, 95, 98, 99, 100];

fn secs(ns: f64) -> f64 {
    ns / 1e9
}

fn counted(name: &str, v: u64, better: Better) -> Metric {
    Metric::new(name, v as f64, Unit::Count, better)
}

/// Builds the `http.load` result from a run's outcome: the figures ab and
/// httperf print, the corrected and uncorrected latency percentiles, the
/// latency histograms and the per-second series.
pub fn load_result(cfg: &LoadConfig, o: &LoadOutcome) -> BenchResult {
    let s = &o.stats;
    let mut r = BenchResult::new("http.load");
    let elapsed = o.elapsed.as_secs_f64().max(1e-9);
    let p = &mut r.parameters;
    p.insert("url".into(), json!(cfg.target.url()));
    p.insert("host".into(), json!(cfg.target.host));
    p.insert("port".into(), json!(cfg.target.port));
    p.insert("path".into(), json!(cfg.target.path_and_query));
    p.insert("method".into(), json!(cfg.request.method));
    p.insert("model".into(), json!(cfg.model.name()));
    p.insert("keepalive".into(), json!(cfg.keepalive));
    p.insert("threads".into(), json!(cfg.threads));
    p.insert(
        "http_version".into(),
        json!(if cfg.http2 { "2" } else { "1.1" }),
    );
    p.insert("streams_per_connection".into(), json!(cfg.streams));
    p.insert("tls".into(), json!(cfg.target.scheme == Scheme::Https));
    p.insert("timeout_s".into(), json!(cfg.timeout.as_secs_f64()));
    match cfg.model {
        Model::Closed {
            requests,
            concurrency,
            time_limit,
        } => {
            p.insert("concurrency".into(), json!(concurrency));
            if let Some(n) = requests {
                p.insert("requests".into(), json!(n));
            }
            if let Some(t) = time_limit {
                p.insert("time_limit_s".into(), json!(t.as_secs_f64()));
            }
        }
        Model::Open {
            rate,
            connections,
            requests,
            duration,
        } => {
            p.insert("rate".into(), json!(rate));
            p.insert("concurrency".into(), json!(connections));
            if let Some(n) = requests {
                p.insert("requests".into(), json!(n));
            }
            if let Some(t) = duration {
                p.insert("duration_s".into(), json!(t.as_secs_f64()));
            }
        }
        Model::ConnRate {
            conn_rate,
            calls_per_conn,
            connections,
        } => {
            p.insert("conn_rate".into(), json!(conn_rate));
            p.insert("calls_per_conn".into(), json!(calls_per_conn));
            p.insert("num_conns".into(), json!(connections));
        }
    }
    if let Some(sv) = &s.server {
        p.insert("server_software".into(), json!(sv));
    }
    if let Some(d) = s.document_length {
        p.insert("document_length".into(), json!(d));
    }
    p.insert(
        "client_cpu_scope".into(),
        json!("client threads (getrusage RUSAGE_THREAD)"),
    );

    let m = &mut r.metrics;
    m.push(Metric::new(
        "time_taken",
        elapsed,
        Unit::Seconds,
        Better::Lower,
    ));
    m.push(counted("requests_completed", s.completed, Better::Higher));
    m.push(counted("requests_failed", s.failed(), Better::Lower));
    m.push(counted("non_2xx", s.non_2xx(), Better::Lower));
    m.push(counted("connections_opened", s.connections, Better::Lower));
    m.push(counted("requests_sent", s.requests_sent, Better::Higher));
    if !matches!(cfg.model, Model::Closed { .. }) {
        m.push(counted("sent_late", s.sent_late, Better::Lower));
    }
    m.push(Metric::new(
        "requests_per_second",
        s.completed as f64 / elapsed,
        Unit::OpsPerSecond,
        Better::Higher,
    ));
    if s.completed > 0 {
        let concurrency = cfg.model.connections().max(1) as f64;
        let per_request = match cfg.model {
            Model::Closed { .. } => concurrency * elapsed / s.completed as f64,
            _ => s.uncorrected.mean() / 1e9,
        };
        m.push(
            Metric::new(
                "time_per_request",
                per_request,
                Unit::Seconds,
                Better::Lower,
            )
            .label("scope", "mean"),
        );
        m.push(
            Metric::new(
                "time_per_request",
                elapsed / s.completed as f64,
                Unit::Seconds,
                Better::Lower,
            )
            .label("scope", "across_all"),
        );
    }
    m.push(Metric::new(
        "transfer_rate",
        s.bytes_in as f64 / elapsed,
        Unit::BytesPerSecond,
        Better::Higher,
    ));
    m.push(Metric::new(
        "total_transferred",
        s.bytes_in as f64,
        Unit::Bytes,
        Better::Higher,
    ));
    m.push(Metric::new(
        "html_transferred",
        s.body_bytes as f64,
        Unit::Bytes,
        Better::Higher,
    ));
    // ab's Connect row is per request: a request on a reused keep-alive
    // connection took 0 ms to connect.
    let mut connect = s.connect.clone();
    let _ = connect.record_n(0, s.completed.saturating_sub(s.connections));
    for (phase, h) in [
        ("connect", &connect),
        ("processing", &s.uncorrected),
        ("waiting", &s.waiting),
        ("total", &s.total),
    ] {
        if h.is_empty() {
            continue;
        }
        for (stat, v) in [
            ("min", h.min() as f64),
            ("mean", h.mean()),
            ("sd", h.stdev()),
            ("median", h.value_at_quantile(0.5) as f64),
            ("max", h.max() as f64),
        ] {
            m.push(
                Metric::new("connection_time", secs(v), Unit::Seconds, Better::Lower)
                    .label("phase", phase)
                    .label("stat", stat),
            );
        }
    }
    if !s.total.is_empty() {
        for pct in SERVED_WITHIN {
            m.push(
                Metric::new(
                    "served_within",
                    secs(s.total.value_at_percentile(f64::from(pct)) as f64),
                    Unit::Seconds,
                    Better::Lower,
                )
                .label("percent", pct),
            );
        }
    }
    for (which, h) in [("corrected", &s.total), ("uncorrected", &s.uncorrected)] {
        if h.is_empty() {
            continue;
        }
        for pct in LATENCY_PERCENTILES {
            m.push(
                Metric::new(
                    "latency",
                    secs(h.value_at_percentile(pct) as f64),
                    Unit::Seconds,
                    Better::Lower,
                )
                .label("latency", which)
                .label("percentile", pct),
            );
        }
        m.push(
            Metric::new(
                "latency",
                secs(h.max() as f64),
                Unit::Seconds,
                Better::Lower,
            )
            .label("latency", which)
            .label("percentile", "max"),
        );
        m.push(
            Metric::new("latency", secs(h.mean()), Unit::Seconds, Better::Lower)
                .label("latency", which)
                .label("percentile", "mean"),
        );
    }
    for (i, class) in ["1xx", "2xx", "3xx", "4xx", "5xx", "other"]
        .iter()
        .enumerate()
    {
        if i < 5 || s.status[i] > 0 {
            m.push(counted("replies", s.status[i], Better::Higher).label("class", class));
        }
    }
    for class in ["connect", "receive", "length", "exceptions"] {
        let n: u64 = ErrorKind::ALL
            .iter()
            .filter(|k| k.ab_class() == class)
            .map(|&k| s.error_count(k))
            .sum();
        m.push(counted("failed_requests", n, Better::Lower).label("kind", class));
    }
    for k in ErrorKind::ALL {
        m.push(counted("errors", s.error_count(k), Better::Lower).label("kind", k.name()));
    }
    // httperf's reply-rate samples, one per full second of the run.
    let full = (o.elapsed.as_secs() as usize).min(s.buckets.len());
    if full > 0 {
        let samples: Vec<f64> = (0..full)
            .map(|i| s.buckets.get(i).map_or(0.0, |b| b.completions as f64))
            .collect();
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let sd = if samples.len() > 1 {
            (samples.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
        let max = samples.iter().copied().fold(0.0, f64::max);
        for (stat, v) in [("min", min), ("avg", mean), ("max", max), ("stddev", sd)] {
            m.push(
                Metric::new("reply_rate", v, Unit::OpsPerSecond, Better::Higher)
                    .label("stat", stat),
            );
        }
        m.push(counted(
            "reply_rate_samples",
            samples.len() as u64,
            Better::Higher,
        ));
    }
    let user = o.client_user.as_secs_f64();
    let sys = o.client_sys.as_secs_f64();
    m.push(
        Metric::new("client_cpu_time", user, Unit::Seconds, Better::Lower).label("mode", "user"),
    );
    m.push(Metric::new("client_cpu_time", sys, Unit::Seconds, Better::Lower).label("mode", "sys"));
    m.push(Metric::new(
        "client_cpu_utilization",
        100.0 * (user + sys) / elapsed,
        Unit::Percent,
        Better::Lower,
    ));
    if s.completed > 0 {
        m.push(Metric::new(
            "client_cpu_per_request",
            (user + sys) / s.completed as f64,
            Unit::Seconds,
            Better::Lower,
        ));
    }
    for (dir, bytes) in [("in", s.bytes_in), ("out", s.bytes_out)] {
        m.push(
            Metric::new("net_io", bytes as f64, Unit::Bytes, Better::Higher)
                .label("direction", dir),
        );
        m.push(
            Metric::new(
                "net_io_rate",
                bytes as f64 / elapsed,
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label("direction", dir),
        );
    }

    for (which, h) in [("corrected", &s.total), ("uncorrected", &s.uncorrected)] {
        let labels = BTreeMap::from([("latency".to_string(), which.to_string())]);
        r.histograms.push(Histogram::from_hdr(
            "latency",
            Unit::Seconds,
            1e9,
            labels,
            h,
        ));
    }
    r.histograms.push(Histogram::from_hdr(
        "connect_time",
        Unit::Seconds,
        1e9,
        BTreeMap::new(),
        &s.connect,
    ));

    // Per-second series; the last, partial second is scaled by its length.
    let per_second = |f: &dyn Fn(&crate::stats::Bucket) -> u64| -> Vec<(f64, f64)> {
        s.buckets
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let covered = (elapsed - i as f64).clamp(1e-3, 1.0);
                (i as f64, f(b) as f64 / covered)
            })
            .collect()
    };
    for (name, unit, values) in [
        (
            "requests_per_second",
            Unit::OpsPerSecond,
            per_second(&|b| b.completions),
        ),
        (
            "errors_per_second",
            Unit::OpsPerSecond,
            per_second(&|b| b.errors),
        ),
        (
            "bytes_per_second",
            Unit::BytesPerSecond,
            per_second(&|b| b.bytes),
        ),
    ] {
        r.series.push(TimeSeries {
            name: name.into(),
            unit,
            labels: BTreeMap::new(),
            points: values,
        });
    }
    r.warnings = o.warnings.clone();
    if o.cancelled {
        r.mark_cancelled();
    } else if s.completed == 0 {
        r.status = nodebench_core::ResultStatus::Failed;
        r.error = Some(format!(
            "no request completed ({} errors: {})",
            s.error_total(),
            error_summary(s)
        ));
    }
    r
}

/// `connrefused=3, client_timeout=1`: the non-zero error counts.
pub fn error_summary(s: &ThreadStats) -> String {
    let parts: Vec<String> = ErrorKind::ALL
        .iter()
        .filter(|&&k| s.error_count(k) > 0)
        .map(|&k| format!("{}={}", k.name(), s.error_count(k)))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}
