//! `nodebench http sweep URL`: a JMeter user sweep (one Thread Group per
//! user count, each user looping over the request). For each
//! user count N (default 1, 2, 4, ..., 128) N users each fetch the URL K
//! times (the closed model with N connections and N x K requests); each
//! step reports the average, minimum and maximum latency in ms, the rate per
//! second (JMeter's Summary Report figures) and the rate as a % of the
//! first step's.
//!
//! Then it finds where the rate stops growing (the saturation point: the
//! first step after which doubling the users adds less than 10 % to the
//! rate, or the rate falls) and says what saturated, judged on the step
//! after it:
//!
//! * the client's CPU: its user+sys time is 90 % or more of its threads'
//!   time (the process's rusage, which includes an in-process server);
//! * the server's CPU, when the server is on this machine (a loopback or
//!   own address): the whole machine (/proc/stat) was 90 % or more busy;
//! * the link, when the server is remote: bytes/s reached 90 % of the
//!   egress interface's line rate (`/sys/class/net/IF/speed`);
//! * otherwise none of these: the server's own limit (a worker pool, a
//!   lock, a fixed time per request), which cannot be seen from here.

use std::time::Duration;

use chrono::Utc;
use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context};
use nodebench_core::config::Config;
use nodebench_core::names::http as names;
use nodebench_core::{BenchResult, Better, Metric, Reference, Unit};

use crate::in_process::Running;
use crate::link::{self, Link};
use crate::load::{LoadConfig, Model, error_rate_failure, run_load};

/// The default user counts.
pub const DEFAULT_USERS: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
/// The default iterations per user.
pub const DEFAULT_ITERATIONS: u64 = 100;
/// Most users in one step.
pub const MAX_USERS: u32 = 10_000;
/// Rate growth per doubling of the users below which a step counts as saturated.
const GROWTH_PER_DOUBLING: f64 = 0.10;
/// Steps shorter than this are too short for steady rates and CPU shares.
const SHORT_STEP: Duration = Duration::from_secs(1);
/// Share of a CPU budget (client threads, the whole machine) or of the line
/// rate that counts as saturated.
const SATURATED: f64 = 0.90;

/// What `http sweep` runs with.
#[derive(Debug, Clone)]
pub struct SweepConfig {
    /// The target, request, keep-alive, client threads, timeout and pinning
    /// of every step; its model is replaced by each step's closed model.
    pub load: LoadConfig,
    /// User counts, one step each, in the order given.
    pub users: Vec<u32>,
    /// Requests per user in each step.
    pub iterations: u64,
    /// A step stops starting requests after this long.
    pub step_time_limit: Duration,
}

impl Default for SweepConfig {
    /// JMeter-style defaults: 1 to 128 users, 100 requests each, at most 5 min a step.
    fn default() -> Self {
        SweepConfig {
            load: LoadConfig::default(),
            users: DEFAULT_USERS.to_vec(),
            iterations: 100,
            step_time_limit: Duration::from_secs(300),
        }
    }
}

impl Config for SweepConfig {
    fn validate(&self) -> Result<(), BenchError> {
        let invalid = |m: String| Err(BenchError::Invalid(m));
        if self.users.is_empty() || self.users.iter().any(|&u| u == 0 || u > MAX_USERS) {
            return invalid(format!(
                "--users: expected a list of user counts from 1 to {MAX_USERS} like 1,2,4,8"
            ));
        }
        if self.iterations == 0 {
            return invalid("--iterations: expected a positive count like 100".into());
        }
        if self.step_time_limit.is_zero() {
            return invalid("--step-time: expected a positive duration like 5m".into());
        }
        // The request, threads and timeout every step loads with, under the
        // first step's model (each step replaces the base config's).
        let mut first = self.load.clone();
        first.model = Model::Closed {
            requests: Some(u64::from(self.users[0]) * self.iterations),
            concurrency: self.users[0],
            time_limit: Some(self.step_time_limit),
        };
        first.validate()
    }
}

/// What one step measured.
#[derive(Debug, Clone)]
pub struct Step {
    /// Users (connections) in the step.
    pub users: u32,
    /// Client threads that drove them.
    pub client_threads: usize,
    /// Replies completed.
    pub completed: u64,
    /// Requests that failed (connect, timeout, reset, bad reply).
    pub errors: u64,
    /// From the step's start to its last reply.
    pub elapsed: Duration,
    /// Mean, fastest and slowest request.
    pub latency_avg: Duration,
    /// Fastest request.
    pub latency_min: Duration,
    /// Slowest request.
    pub latency_max: Duration,
    /// Bytes received (heads and bodies).
    pub bytes_in: u64,
    /// Client CPU time (user + sys) over the step.
    pub client_cpu: Duration,
    /// Busy share (0..1) of all the machine's CPUs over the step, from /proc/stat.
    pub machine_busy: Option<f64>,
    /// Client CPU time as a share (0..1) of all the machine's CPUs.
    pub client_share: Option<f64>,
    /// Warnings of the load run.
    pub warnings: Vec<String>,
    /// Why the step crossed `--max-error-rate`, if it did.
    pub error_rate: Option<String>,
}

impl Step {
    /// Completed replies per second.
    pub fn rate(&self) -> f64 {
        self.completed as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Bytes received per second.
    pub fn bytes_per_second(&self) -> f64 {
        self.bytes_in as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// What limited the rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bottleneck {
    /// The client's threads were busy.
    ClientCpu,
    /// The machine was busy and the server is on it.
    ServerCpu,
    /// The link to a remote server was full.
    Link,
    /// None of the above: the server's own limit.
    Server,
}

impl Bottleneck {
    /// Name stored with the result.
    pub fn name(self) -> &'static str {
        match self {
            Bottleneck::ClientCpu => "client_cpu",
            Bottleneck::ServerCpu => "server_cpu",
            Bottleneck::Link => "link",
            Bottleneck::Server => "server",
        }
    }
}

/// Where and why the rate stopped growing.
#[derive(Debug, Clone, PartialEq)]
pub struct Saturation {
    /// Users at the saturation point (the last step that still grew).
    pub users: u32,
    /// Its rate.
    pub rate: f64,
    /// What limited it.
    pub bottleneck: Bottleneck,
    /// One line with the figures behind the verdict.
    pub detail: String,
}

/// Finds the saturation point of `steps` (in the order run) and what
/// saturated; None while the rate kept growing. `link` is the path to the
/// server (local, or a line rate).
pub fn saturation(steps: &[Step], link: Option<&Link>) -> Option<Saturation> {
    let i = steps.windows(2).position(|w| {
        let (a, b) = (&w[0], &w[1]);
        let doublings = (f64::from(b.users) / f64::from(a.users)).log2();
        doublings > 0.0 && b.rate() < a.rate() * (1.0 + GROWTH_PER_DOUBLING * doublings)
    })?;
    let (point, next) = (&steps[i], &steps[i + 1]);
    let threads = next.client_threads.max(1) as f64;
    let client_cores = next.client_cpu.as_secs_f64() / next.elapsed.as_secs_f64().max(1e-9);
    let local = link.is_none_or(|l| l.local);
    let (bottleneck, detail) = if client_cores >= SATURATED * threads {
        (
            Bottleneck::ClientCpu,
            format!(
                "client CPU: {client_cores:.2} cores busy for {threads} client thread(s) (add --threads, or run the client elsewhere)"
            ),
        )
    } else if let (true, Some(busy)) = (local, next.machine_busy.filter(|&b| b >= SATURATED)) {
        (
            Bottleneck::ServerCpu,
            format!(
                "server CPU: the machine was {:.0} % busy, {:.0} % of it the client's",
                100.0 * busy,
                100.0 * next.client_share.unwrap_or(0.0)
            ),
        )
    } else if let Some(line) = link
        .and_then(|l| l.line_rate)
        .filter(|&r| next.bytes_per_second() >= SATURATED * r)
    {
        (
            Bottleneck::Link,
            format!(
                "link: {:.0} % of the line rate ({:.1} of {:.1} MB/s)",
                100.0 * next.bytes_per_second() / line,
                next.bytes_per_second() / 1e6,
                line / 1e6
            ),
        )
    } else {
        (
            Bottleneck::Server,
            format!(
                "neither CPU{} was saturated: the server's own limit (worker pool, locks, time per request)",
                if local { "" } else { " nor the link" }
            ),
        )
    };
    Some(Saturation {
        users: point.users,
        rate: point.rate(),
        bottleneck,
        detail,
    })
}

/// Busy and total jiffies of all CPUs, from the first line of /proc/stat.
fn cpu_jiffies() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let total: u64 = fields.iter().sum();
    let idle = fields.get(3)? + fields.get(4)?;
    Some((total - idle, total))
}

fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no pointer arguments.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 { t as f64 } else { 100.0 }
}

/// Runs one step: `users` connections, `users x iterations` requests.
pub fn run_step(cfg: &SweepConfig, users: u32, cancel: &Cancel) -> Result<Step, BenchError> {
    let mut load = cfg.load.clone();
    load.model = Model::Closed {
        requests: Some(u64::from(users) * cfg.iterations),
        concurrency: users,
        time_limit: Some(cfg.step_time_limit),
    };
    let before = cpu_jiffies();
    let o = run_load(&load, cancel)?;
    let after = cpu_jiffies();
    let client_cpu = o.client_user + o.client_sys;
    let (machine_busy, client_share) = match (before, after) {
        (Some((b0, t0)), Some((b1, t1))) if t1 > t0 => {
            let total = (t1 - t0) as f64;
            let client = client_cpu.as_secs_f64() * clock_ticks() / total;
            (
                Some(((b1 - b0) as f64 / total).min(1.0)),
                Some(client.min(1.0)),
            )
        }
        _ => (None, None),
    };
    let s = &o.stats;
    let ns = |v: u64| Duration::from_nanos(v);
    let empty = s.total.is_empty();
    Ok(Step {
        users,
        client_threads: load.threads.max(1).min(users as usize),
        completed: s.completed,
        errors: s.error_total(),
        elapsed: o.elapsed,
        latency_avg: Duration::from_secs_f64(if empty { 0.0 } else { s.total.mean() / 1e9 }),
        latency_min: ns(if empty { 0 } else { s.total.min() }),
        latency_max: ns(if empty { 0 } else { s.total.max() }),
        bytes_in: s.bytes_in,
        client_cpu,
        machine_busy,
        client_share,
        error_rate: error_rate_failure(s, load.expect_status, load.max_error_rate),
        warnings: o.warnings,
    })
}

/// The `http.sweep` benchmark: one result holding every step.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Its configuration.
    pub config: SweepConfig,
}

impl Benchmark for Sweep {
    fn id(&self) -> &'static str {
        names::SWEEP
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        let mut server = Running::start(&self.config.load.server)?;
        let mut config = self.config.clone();
        if let Some(s) = &server {
            config.load.target = s.target(&config.load.target);
        }
        let cfg = &config;
        let addr = cfg.load.target.resolve()?;
        let link = link::link_to(addr);
        let started_at = Utc::now();
        // A local web server's CPU time is the workload's.
        let _serving = nodebench_machine::disturb::workload::serve_tcp(
            &cfg.load.target.host,
            cfg.load.target.port,
        );
        ctx.progress.start("http sweep", cfg.users.len() as u64);
        let mut steps = Vec::new();
        let mut failure = None;
        for &users in &cfg.users {
            if ctx.cancel.is_cancelled() {
                break;
            }
            match run_step(cfg, users, &ctx.cancel) {
                Ok(step) if !ctx.cancel.is_cancelled() => steps.push(step),
                Ok(_) => {}
                Err(e) if steps.is_empty() => {
                    ctx.progress.finish();
                    return Err(e);
                }
                Err(e) => {
                    failure = Some(format!("step with {users} users: {e}"));
                    break;
                }
            }
            ctx.progress.advance(1);
        }
        ctx.progress.finish();
        let mut result = sweep_result(cfg, &steps, link.as_ref());
        let crossed = steps.iter().find_map(|s| {
            let e = s.error_rate.as_ref()?;
            Some(format!("step with {} users: {e}", s.users))
        });
        if let Some(f) = failure.or(crossed) {
            result.mark_failed(f);
        } else if ctx.cancel.is_cancelled() {
            result.mark_cancelled();
        }
        if let Some(s) = &mut server {
            s.check(&mut result, steps.iter().map(|s| s.completed).sum());
        }
        result.started_at = started_at;
        result.ended_at = Utc::now();
        ctx.sink.record(result)?;
        if let Some(s) = server {
            s.stop();
        }
        Ok(())
    }
}

/// The `http.sweep` result: per step (label `users=N`) the rate, % of the
/// first step's rate, average/min/max latency, completed requests, errors,
/// bytes/s (against the line rate for a remote server) and CPU shares; the
/// saturation point and its cause as parameters.
pub fn sweep_result(cfg: &SweepConfig, steps: &[Step], link: Option<&Link>) -> BenchResult {
    let mut r = BenchResult::new(names::SWEEP);
    r.set_param(names::sweep::param::URL, cfg.load.target.url());
    r.set_param(names::sweep::param::METHOD, &cfg.load.request.method);
    r.set_param(names::sweep::param::ITERATIONS, cfg.iterations);
    r.set_param(names::sweep::param::USERS, &cfg.users);
    r.set_param(names::sweep::param::KEEPALIVE, cfg.load.keepalive);
    r.set_param(names::sweep::param::THREADS, cfg.load.threads);
    r.set_param(
        names::sweep::param::STEP_TIME_LIMIT_S,
        cfg.step_time_limit.as_secs_f64(),
    );
    if let Some(l) = link {
        r.set_param(names::sweep::param::LINK, l.describe());
    }
    let reference = link.and_then(|l| l.line_rate).map(|v| Reference {
        name: "line rate of the egress interface".into(),
        value: v,
    });
    let first = steps.first().map(Step::rate).unwrap_or(0.0);
    for s in steps {
        let m = |name: &str, value: f64, unit: Unit, better: Better| {
            Metric::new(name, value, unit, better).label(names::sweep::USERS, s.users)
        };
        let percent = if first > 0.0 {
            100.0 * (s.rate() / first)
        } else {
            0.0
        };
        r.metrics.extend([
            m(
                names::sweep::RATE,
                s.rate(),
                Unit::OpsPerSecond,
                Better::Higher,
            ),
            m(
                names::sweep::PERCENT_OF_FIRST,
                percent,
                Unit::Percent,
                Better::Higher,
            ),
            m(
                names::sweep::LATENCY_AVG,
                s.latency_avg.as_secs_f64(),
                Unit::Seconds,
                Better::Lower,
            ),
            m(
                names::sweep::LATENCY_MIN,
                s.latency_min.as_secs_f64(),
                Unit::Seconds,
                Better::Lower,
            ),
            m(
                names::sweep::LATENCY_MAX,
                s.latency_max.as_secs_f64(),
                Unit::Seconds,
                Better::Lower,
            ),
            m(
                names::sweep::REQUESTS,
                s.completed as f64,
                Unit::Count,
                Better::Higher,
            ),
            m(
                names::sweep::ERRORS,
                s.errors as f64,
                Unit::Count,
                Better::Lower,
            ),
            m(
                names::sweep::THROUGHPUT,
                s.bytes_per_second(),
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .with_reference(reference.clone()),
        ]);
        if let (Some(busy), Some(client)) = (s.machine_busy, s.client_share) {
            r.metrics.extend([
                m(
                    names::sweep::MACHINE_CPU,
                    100.0 * busy,
                    Unit::Percent,
                    Better::Lower,
                ),
                m(
                    names::sweep::CLIENT_CPU,
                    100.0 * client,
                    Unit::Percent,
                    Better::Lower,
                ),
            ]);
        }
        for w in &s.warnings {
            r.warnings.push(format!("{} users: {w}", s.users));
        }
        let expected = u64::from(s.users) * cfg.iterations;
        if s.completed + s.errors < expected {
            r.warnings.push(format!(
                "{} users: --step-time ended the step after {} of {expected} requests",
                s.users,
                s.completed + s.errors
            ));
        }
    }
    let short: Vec<String> = steps
        .iter()
        .filter(|s| s.elapsed < SHORT_STEP)
        .map(|s| s.users.to_string())
        .collect();
    if !short.is_empty() {
        r.warnings.push(format!(
            "the steps with {} users took under {} s: their rates and CPU shares are noisy (raise --iterations)",
            short.join(", "),
            SHORT_STEP.as_secs()
        ));
    }
    match saturation(steps, link) {
        Some(sat) => {
            r.set_param(names::sweep::SATURATION_USERS, sat.users);
            r.set_param(names::sweep::param::BOTTLENECK, sat.bottleneck.name());
            r.set_param(names::sweep::param::SATURATION, &sat.detail);
            r.metrics.push(Metric::new(
                names::sweep::SATURATION_RATE,
                sat.rate,
                Unit::OpsPerSecond,
                Better::Higher,
            ));
        }
        None if steps.len() > 1 => {
            r.set_param(
                "saturation",
                "none: the rate kept growing with the users (add larger user counts)",
            );
        }
        None => {}
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Server, ServerConfig};
    use crate::url::Target;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::collect;
    use nodebench_core::inventory::Inventory;
    use std::time::Instant;

    fn step(users: u32, rate: f64, client_cpu: f64, busy: f64) -> Step {
        Step {
            users,
            client_threads: 1,
            completed: rate as u64,
            errors: 0,
            elapsed: Duration::from_secs(1),
            latency_avg: Duration::from_millis(1),
            latency_min: Duration::from_millis(1),
            latency_max: Duration::from_millis(1),
            bytes_in: rate as u64 * 1000,
            client_cpu: Duration::from_secs_f64(client_cpu),
            machine_busy: Some(busy),
            client_share: Some(client_cpu / 2.0),
            warnings: Vec::new(),
            error_rate: None,
        }
    }

    #[test]
    fn saturation_is_the_last_step_that_still_grew() {
        let local = Link {
            interface: "lo".into(),
            local: true,
            line_rate: None,
        };
        let steps = [
            step(1, 1000.0, 0.3, 0.4),
            step(2, 1900.0, 0.5, 0.6),
            step(4, 2000.0, 0.6, 0.97),
        ];
        let s = saturation(&steps, Some(&local)).unwrap();
        assert_eq!((s.users, s.bottleneck), (2, Bottleneck::ServerCpu));
        let steps = [step(1, 1000.0, 0.95, 0.5), step(2, 1050.0, 0.97, 0.5)];
        let s = saturation(&steps, Some(&local)).unwrap();
        assert_eq!((s.users, s.bottleneck), (1, Bottleneck::ClientCpu));
        let remote = Link {
            interface: "eth0".into(),
            local: false,
            line_rate: Some(1.1e6),
        };
        let steps = [step(1, 1000.0, 0.1, 0.1), step(2, 1050.0, 0.1, 0.1)];
        let s = saturation(&steps, Some(&remote)).unwrap();
        assert_eq!(s.bottleneck, Bottleneck::Link, "{}", s.detail);
        let steps = [step(1, 100.0, 0.1, 0.1), step(2, 90.0, 0.1, 0.1)];
        assert_eq!(
            saturation(&steps, Some(&local)).unwrap().bottleneck,
            Bottleneck::Server
        );
        let growing = [step(1, 100.0, 0.1, 0.1), step(2, 190.0, 0.1, 0.1)];
        assert_eq!(saturation(&growing, Some(&local)), None);
    }

    /// The model a sweep's base config carries (each step replaces it).
    fn one_request() -> Model {
        Model::Closed {
            requests: Some(1),
            concurrency: 1,
            time_limit: None,
        }
    }

    #[test]
    fn a_sweep_has_one_step_per_user_count_and_exact_request_counts() {
        let server = Server::bind(ServerConfig::default()).unwrap().spawn();
        let target = Target::parse(&format!("http://{}/1150", server.local_addr())).unwrap();
        let users = vec![1, 2, 4];
        let iterations = 25;
        let sweep = Sweep {
            config: SweepConfig {
                load: LoadConfig {
                    threads: 2,
                    timeout: Duration::from_secs(10),
                    ..LoadConfig::new(target, one_request())
                },
                users: users.clone(),
                iterations,
                step_time_limit: Duration::from_secs(60),
            },
        };
        let t = Instant::now();
        let out = collect(&sweep, &Inventory::default(), Cancel::new()).unwrap();
        assert!(t.elapsed() < Duration::from_secs(60));
        assert_eq!(out.len(), 1);
        let r = &out[0];
        assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
        let get = |name: &str, u: u32| {
            r.metrics
                .iter()
                .find(|m| m.name == name && m.labels.get("users") == Some(&u.to_string()))
                .unwrap_or_else(|| panic!("{name} users={u}"))
                .value
        };
        let mut total = 0;
        for &u in &users {
            assert_eq!(get("requests", u), f64::from(u) * iterations as f64);
            assert_eq!(get("errors", u), 0.0);
            assert!(get("latency_min", u) <= get("latency_avg", u));
            assert!(get("latency_avg", u) <= get("latency_max", u));
            total += u64::from(u) * iterations;
        }
        assert_eq!(get("percent_of_first", 1), 100.0);
        assert_eq!(
            r.metrics.iter().filter(|m| m.name == "rate").count(),
            users.len()
        );
        // Every counted request was served, and nothing more.
        let end = Instant::now() + Duration::from_secs(5);
        while server.requests_served() < total && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(server.requests_served(), total);
    }

    #[test]
    fn bad_user_lists_name_the_flag() {
        let cfg = |users: Vec<u32>, iterations| SweepConfig {
            load: LoadConfig {
                timeout: Duration::from_secs(1),
                ..LoadConfig::new(Target::parse("http://127.0.0.1:1/").unwrap(), one_request())
            },
            users,
            iterations,
            step_time_limit: Duration::from_secs(1),
        };
        assert!(
            cfg(vec![], 1)
                .validate()
                .unwrap_err()
                .to_string()
                .contains("--users")
        );
        assert!(
            cfg(vec![0], 1)
                .validate()
                .unwrap_err()
                .to_string()
                .contains("--users")
        );
        assert!(
            cfg(vec![1], 0)
                .validate()
                .unwrap_err()
                .to_string()
                .contains("--iterations")
        );
        assert!(cfg(vec![1, 2], 1).validate().is_ok());
        let mut bad_method = cfg(vec![1, 2], 1);
        bad_method.load.request.method = "G T".into();
        assert_eq!(
            bad_method.validate().unwrap_err().to_string(),
            "-m/--method: invalid method 'G T': expected a token such as GET, POST, PUT, HEAD"
        );
    }
}
