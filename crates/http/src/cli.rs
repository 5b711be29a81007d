//! `nodebench http ...`: the flags of `http load`, `http serve`, `http
//! sweep` and `http download`, and the one conversion of each into its
//! config.

use nodebench_core::units::ParseError;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use crate::download::DownloadConfig;
use crate::load::{InProcessServer, LoadConfig, Model, RequestSpec};
use crate::server::ServerConfig;
use crate::sweep::{MAX_USERS, SweepConfig};
use crate::url::{Target, UrlArg};
use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::endpoint::{self, Endpoints};
use nodebench_core::names::http;

use nodebench_core::cli::parse::{duration_text, parse_count, parse_duration};

/// The port `http serve` listens on when not told (the built-in server's
/// own default is any free port).
const SERVE_PORT: u16 = 8080;

/// httperf's requests per connection with `--conn-rate` (`--num-calls`).
const CALLS_PER_CONN: u32 = 1;

/// Load a URL: the closed model as ab (-n requests over -c connections,
/// -t time limit) or the open model as httperf/wrk2 (--rate requests/s,
/// or --conn-rate with --calls-per-conn), with latency measured from each
/// request's planned send time (no coordinated omission) and ab's and
/// httperf's figures.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Target URL: http://HOST[:PORT]/PATH, https://HOST[:PORT]/PATH, or
    /// /PATH alone (e.g. /bytes/3985, /cpu/20000): the built-in server,
    /// started in this process on an ephemeral 127.0.0.1 port for this run.
    #[arg(value_name = "URL", value_parser = UrlArg::parse)]
    pub url: UrlArg,
    /// Worker threads of the built-in server (URL given as /PATH only;
    /// default: one per CPU).
    #[arg(long, value_name = "N", value_parser = parse_server_threads)]
    pub server_threads: Option<usize>,
    /// The database of the built-in server's /db/ir page (AS3AP's
    /// ir_select of a random key, or ?key=N; one connection per server
    /// thread): sqlite:PATH, postgres:// or mysql://user:pass@host[:port]/db, loaded
    /// by `nodebench db as3ap --db URL`. URL given as /PATH only.
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
    /// Requests to send in all (closed model: stop after this many; open
    /// model: the count to send at --rate).
    #[arg(short = 'n', long, value_name = "N", value_parser = parse_requests)]
    pub requests: Option<u64>,
    /// Concurrent connections (closed model default 1 as ab; open model default 10).
    #[arg(short = 'c', long, value_name = "N", value_parser = parse_concurrency)]
    pub concurrency: Option<u32>,
    /// Closed model: start no request after this long (ab -t); with -n too,
    /// whichever comes first. With neither, one request (as ab).
    #[arg(short = 't', long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub time_limit: Option<Duration>,
    /// Keep connections alive between requests (ab -k); without it each
    /// request has its own connection and sends `Connection: close`.
    #[arg(short = 'k', long)]
    pub keepalive: bool,
    /// Open model: requests per second in all, spread over -c connections (wrk2 -R).
    #[arg(long, value_name = "R", value_parser = parse_rate, conflicts_with_all = ["conn_rate", "time_limit"])]
    pub rate: Option<f64>,
    /// Open model: new connections per second (httperf --rate with --num-conns).
    #[arg(long, value_name = "R", value_parser = parse_rate, conflicts_with_all = ["time_limit", "requests", "concurrency"])]
    pub conn_rate: Option<f64>,
    /// Requests per connection with --conn-rate (httperf --num-calls).
    #[arg(long, value_name = "N", default_value_t = CALLS_PER_CONN, value_parser = parse_calls, requires = "conn_rate")]
    pub calls_per_conn: u32,
    /// Connections to open in all with --conn-rate (httperf --num-conns;
    /// default: 10 seconds' worth).
    #[arg(long, value_name = "N", value_parser = parse_requests, requires = "conn_rate")]
    pub num_conns: Option<u64>,
    /// Open model: how long to send at --rate (default 10s when no -n is given).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true, requires = "rate")]
    pub duration: Option<Duration>,
    /// Client threads, each with its own event loop and share of the connections.
    #[arg(long, value_name = "N", default_value_t = LoadConfig::default().threads as u32, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// Request method.
    #[arg(short = 'm', long, value_name = "METHOD", default_value_t = LoadConfig::default().request.method)]
    pub method: String,
    /// Extra request header "Name: value" (repeatable).
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// Request body.
    #[arg(long, value_name = "TEXT", conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Request body read from a file.
    #[arg(long, value_name = "PATH")]
    pub body_file: Option<PathBuf>,
    /// HTTP/2 (ALPN h2 over TLS; prior knowledge h2c on http://).
    #[arg(long)]
    pub http2: bool,
    /// With --http2 and -k: requests in flight at once on each connection,
    /// each on its own stream (h2load -m). The closed model keeps -c x N
    /// requests outstanding; --rate spreads over -c x N stream slots.
    #[arg(long, value_name = "N", default_value_t = LoadConfig::default().streams, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub streams: u32,
    /// Accept any TLS certificate (self-signed test servers).
    #[arg(long)]
    pub insecure: bool,
    /// Per-request timeout (ab -s): a reply not complete by then counts as a client timeout.
    #[arg(long, value_name = "DURATION", default_value = duration_text(LoadConfig::default().timeout), value_parser = parse_duration, allow_hyphen_values = true)]
    pub timeout: Duration,
    /// Do not pin client threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
    #[command(flatten)]
    pub errors: ErrorArgs,
}

/// `--expect-status` and `--max-error-rate`, shared by `http load` and
/// `http sweep`.
#[derive(Debug, Args)]
pub struct ErrorArgs {
    /// Fail the result when more than this share of the requests failed or
    /// got an error status (4xx, 5xx; with --expect-status, any other
    /// status): 1%, 0.1%, 0 (any); `http sweep` applies it per step.
    #[arg(long, value_name = "PCT", default_value = "1%", value_parser = parse_percent)]
    pub max_error_rate: f64,
    /// The status every reply should have, to load an error page on
    /// purpose (404); the other statuses count as errors.
    #[arg(long, value_name = "CODE", value_parser = clap::value_parser!(u16).range(100..=599))]
    pub expect_status: Option<u16>,
}

/// A share written as a percentage, `1%`, `0.5%` or `1` (the `%` may be
/// left out), from 0 to 100, as a fraction.
fn parse_percent(s: &str) -> Result<f64, String> {
    let t = s.trim();
    match t.strip_suffix('%').unwrap_or(t).trim().parse::<f64>() {
        Ok(p) if p.is_finite() && (0.0..=100.0).contains(&p) => Ok(p / 100.0),
        _ => Err(format!(
            "invalid share '{s}': expected a percentage from 0% to 100% like 1%, 0.5%"
        )),
    }
}

impl TryFrom<&LoadArgs> for LoadConfig {
    type Error = String;

    /// Fails when `--body-file` cannot be read.
    fn try_from(a: &LoadArgs) -> Result<LoadConfig, String> {
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
                .map_err(|e| format!("--body-file {}: cannot read: {e}", path.display()))?,
            (None, None) => Vec::new(),
        };
        let (target, server) = target_and_server(&a.url, a.server_threads, &a.db);
        Ok(LoadConfig {
            target,
            server,
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
            expect_status: a.errors.expect_status,
            max_error_rate: a.errors.max_error_rate,
        })
    }
}

/// The target of a URL argument and the built-in server it calls for
/// (started only for a path); `--server-threads` with a full URL stays in
/// the config, whose check refuses it naming the flag.
fn target_and_server(
    url: &UrlArg,
    server_threads: Option<usize>,
    db: &Option<String>,
) -> (Target, InProcessServer) {
    let (target, enabled) = url.clone().into_target();
    (
        target,
        InProcessServer {
            enabled,
            threads: server_threads,
            endpoints: endpoints(db),
        },
    )
}

/// The built-in server's dynamic endpoints `--db` asks for: the db
/// crate's `/db/ir`, which the binary provides
/// ([`nodebench_core::endpoint::provide_db`]; the http crate knows only
/// core's `Endpoint` trait).
pub fn endpoints(db: &Option<String>) -> Endpoints {
    Endpoints(db.iter().map(|d| endpoint::db(d.clone())).collect())
}

/// A worker-thread count of the built-in server; 0 and too many pass, for
/// the config's check to refuse with the flag named.
fn parse_server_threads(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .map_err(|_| format!("invalid thread count '{s}': expected a whole number from 1 to 1024"))
}

/// A request or connection count (`100`, `10k`); 0 passes, for the load
/// config's check to refuse with the flag named.
fn parse_requests(s: &str) -> Result<u64, ParseError> {
    if s.trim() == "0" {
        return Ok(0);
    }
    parse_count(s)
}

fn parse_concurrency(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (1..=100_000).contains(&n) => Ok(n as u32),
        _ => Err(format!(
            "invalid connection count '{s}': expected a whole number from 1 to 100000"
        )),
    }
}

fn parse_calls(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(n as u32),
        _ => Err(format!(
            "invalid call count '{s}': expected a whole number from 1 to 1000000"
        )),
    }
}

fn parse_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 && r <= 10_000_000.0 => Ok(r),
        Ok(0.0) => Err("expected a positive rate per second, got 0".into()),
        _ => Err(format!(
            "invalid rate '{s}': expected a positive number per second up to 10000000, e.g. 1000 or 2.5"
        )),
    }
}

/// A header as "Name: value", split at the first colon; whether the name
/// and value are valid is the load config's check.
fn parse_header(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once(':').ok_or_else(|| {
        format!("invalid header '{s}': expected \"Name: value\", e.g. \"Accept: text/html\"")
    })?;
    Ok((k.trim().to_string(), v.trim().to_string()))
}

/// Options of `http serve`.
#[derive(Debug, Args)]
pub struct HttpServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, value_name = "IP", default_value_t = ServerConfig::default().bind.ip())]
    pub bind: IpAddr,
    /// Port to listen on (0: any free port, printed at start).
    #[arg(short = 'p', long, value_name = "PORT", default_value_t = SERVE_PORT)]
    pub port: u16,
    /// Worker threads, each with its own event loop (default: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Requests per connection before the server closes it (Apache's
    /// MaxKeepAliveRequests); 0 = unlimited.
    #[arg(long, value_name = "N", default_value_t = ServerConfig::default().keepalive_requests, value_parser = parse_keepalive_requests)]
    pub keepalive_requests: u32,
    /// Idle time before a keep-alive connection is closed (Apache's KeepAliveTimeout).
    #[arg(long, value_name = "DURATION", default_value = duration_text(ServerConfig::default().keepalive_timeout), value_parser = parse_duration, allow_hyphen_values = true)]
    pub keepalive_timeout: Duration,
    /// The database of the /db/ir page (AS3AP's ir_select of a random key,
    /// or ?key=N; one connection per worker thread): sqlite:PATH,
    /// postgres:// or mysql://user:pass@host[:port]/db, loaded by `nodebench db as3ap
    /// --db URL`.
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
}

fn parse_keepalive_requests(s: &str) -> Result<u32, String> {
    s.trim().parse::<u32>().map_err(|_| {
        format!("invalid request count '{s}': expected a whole number like 100, or 0 for unlimited")
    })
}

impl From<&HttpServeArgs> for ServerConfig {
    fn from(a: &HttpServeArgs) -> ServerConfig {
        let d = ServerConfig::default();
        ServerConfig {
            bind: SocketAddr::new(a.bind, a.port),
            threads: a.threads.map_or(d.threads, |t| t as usize),
            keepalive_requests: a.keepalive_requests,
            keepalive_timeout: a.keepalive_timeout,
            endpoints: endpoints(&a.db),
        }
    }
}

/// JMeter-style user sweep (one Thread Group per user count): for each
/// user count N, N users each fetch the URL --iterations times; per step
/// the figures of JMeter's Summary Report (average, minimum and maximum
/// latency in ms, rate per second) and the rate's % of the first step;
/// then where the rate stops growing and what saturated (client CPU,
/// server CPU for a server on this machine, or the link).
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Target URL: http://HOST[:PORT]/PATH, https://HOST[:PORT]/PATH, or
    /// /PATH alone (e.g. /bytes/3985, /cpu/20000): the built-in server,
    /// started in this process on an ephemeral 127.0.0.1 port for this run.
    #[arg(value_name = "URL", value_parser = UrlArg::parse)]
    pub url: UrlArg,
    /// Worker threads of the built-in server (URL given as /PATH only;
    /// default: one per CPU).
    #[arg(long, value_name = "N", value_parser = parse_server_threads)]
    pub server_threads: Option<usize>,
    /// The database of the built-in server's /db/ir page (AS3AP's
    /// ir_select of a random key, or ?key=N; one connection per server
    /// thread): sqlite:PATH, postgres:// or mysql://user:pass@host[:port]/db, loaded
    /// by `nodebench db as3ap --db URL`. URL given as /PATH only.
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
    /// User counts, one step each: 1,2,4,8, a range 1..8, a doubling range
    /// 1..128:x2 (default 1,2,4,...,128).
    #[arg(long, value_name = "LIST", value_parser = parse_users)]
    pub users: Option<UserList>,
    /// Requests per user in each step (JMeter's loop count).
    #[arg(short = 'n', long, value_name = "N", default_value_t = SweepConfig::default().iterations, value_parser = parse_count)]
    pub iterations: u64,
    /// One connection per request instead of keep-alive connections.
    #[arg(long)]
    pub no_keepalive: bool,
    /// Client threads (default: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Request method.
    #[arg(short = 'm', long, value_name = "METHOD", default_value_t = SweepConfig::default().load.request.method)]
    pub method: String,
    /// Extra request header "Name: value" (repeatable).
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// Per-request timeout.
    #[arg(long, value_name = "DURATION", default_value = duration_text(SweepConfig::default().load.timeout), value_parser = parse_duration, allow_hyphen_values = true)]
    pub timeout: Duration,
    /// Longest one step may run; it stops starting requests then.
    #[arg(long, value_name = "DURATION", default_value = duration_text(SweepConfig::default().step_time_limit), value_parser = parse_duration, allow_hyphen_values = true)]
    pub step_time: Duration,
    /// Accept any TLS certificate.
    #[arg(long)]
    pub insecure: bool,
    /// Do not pin client threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
    #[command(flatten)]
    pub errors: ErrorArgs,
}

/// A parsed `--users` list.
#[derive(Debug, Clone)]
pub struct UserList(pub Vec<u32>);

/// The accepted forms of `--users`.
const USERS_FORMS: &str = "a list of user counts from 1 to 10000 like 1,2,4,8, a range 1..8, or a doubling range 1..128:x2";

/// A `--users` list with its ranges expanded; each count is checked here,
/// before a range is expanded, so no range can grow past [`MAX_USERS`].
fn parse_users(s: &str) -> Result<UserList, String> {
    let err = || format!("invalid user list '{s}': expected {USERS_FORMS}");
    let one = |p: &str| match p.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_USERS).contains(&n) => Ok(n),
        _ => Err(err()),
    };
    let mut users = Vec::new();
    for part in s.split(',') {
        match part.split_once("..") {
            Some((a, b)) => {
                let (b, doubling) = match b.split_once(':') {
                    Some((b, "x2")) => (b, true),
                    Some(_) => return Err(err()),
                    None => (b, false),
                };
                let (mut n, end) = (one(a)?, one(b)?);
                if n > end {
                    return Err(err());
                }
                while n <= end {
                    users.push(n);
                    n = if doubling { n * 2 } else { n + 1 };
                }
            }
            None => users.push(one(part)?),
        }
    }
    Ok(UserList(users))
}

impl From<&SweepArgs> for SweepConfig {
    fn from(a: &SweepArgs) -> SweepConfig {
        let d = SweepConfig::default();
        let threads = a.threads.map_or_else(
            || nodebench_core::affinity::allowed_cpus().len().max(1),
            |t| t as usize,
        );
        let (target, server) = target_and_server(&a.url, a.server_threads, &a.db);
        SweepConfig {
            load: LoadConfig {
                target,
                server,
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
                insecure: a.insecure,
                threads,
                timeout: a.timeout,
                pin: !a.no_pin,
                expect_status: a.errors.expect_status,
                max_error_rate: a.errors.max_error_rate,
                ..d.load
            },
            users: a.users.as_ref().map_or(d.users, |u| u.0.clone()),
            iterations: a.iterations,
            step_time_limit: a.step_time,
        }
    }
}

/// One large download over one connection, as wget: the body is read
/// and discarded; byte count, time to first byte, average and best
/// one-second rate, and the rate of every second.
#[derive(Debug, Args)]
pub struct DownloadArgs {
    /// URL to fetch: http://HOST[:PORT]/PATH, https://HOST[:PORT]/PATH, or
    /// /PATH alone (e.g. /bytes/3985, /cpu/20000): the built-in server,
    /// started in this process on an ephemeral 127.0.0.1 port for this run.
    #[arg(value_name = "URL", value_parser = UrlArg::parse)]
    pub url: UrlArg,
    /// Worker threads of the built-in server (URL given as /PATH only;
    /// default: one per CPU).
    #[arg(long, value_name = "N", value_parser = parse_server_threads)]
    pub server_threads: Option<usize>,
    /// Stop after this long, keeping what arrived (default: the whole body).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub max_time: Option<Duration>,
    /// Give up when connecting, or when no data arrives, for this long.
    #[arg(long, value_name = "DURATION", default_value = duration_text(DownloadConfig::default().timeout), value_parser = parse_duration, allow_hyphen_values = true)]
    pub timeout: Duration,
    /// Length of one rate sample.
    #[arg(long, value_name = "DURATION", default_value = duration_text(DownloadConfig::default().interval), value_parser = parse_duration, allow_hyphen_values = true)]
    pub interval: Duration,
    /// Accept any TLS certificate.
    #[arg(long)]
    pub insecure: bool,
}

impl From<&DownloadArgs> for DownloadConfig {
    fn from(a: &DownloadArgs) -> DownloadConfig {
        let (target, server) = target_and_server(&a.url, a.server_threads, &None);
        DownloadConfig {
            target,
            server,
            max_time: a.max_time,
            timeout: a.timeout,
            insecure: a.insecure,
            interval: a.interval,
        }
    }
}

impl BenchArgs for LoadArgs {
    const ID: &'static str = http::LOAD;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::load::HttpLoad {
            config: self.try_into().map_err(BenchError::System)?,
        }))
    }
}

impl BenchArgs for SweepArgs {
    const ID: &'static str = http::SWEEP;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::sweep::Sweep {
            config: self.into(),
        }))
    }
}

impl BenchArgs for DownloadArgs {
    const ID: &'static str = http::DOWNLOAD;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::download::Download {
            config: self.into(),
        }))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[
    Runnable::of::<LoadArgs>(),
    Runnable::of::<SweepArgs>(),
    Runnable::of::<DownloadArgs>(),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_rates_are_percentages() {
        assert_eq!(parse_percent("1%").unwrap(), 0.01);
        assert_eq!(parse_percent("0.5 %").unwrap(), 0.005);
        assert_eq!(parse_percent("100").unwrap(), 1.0);
        for bad in ["-1%", "101%", "x", "", "nan"] {
            assert!(parse_percent(bad).unwrap_err().contains("like 1%"), "{bad}");
        }
    }

    #[test]
    fn user_lists_expand_ranges_and_refuse_zero() {
        assert_eq!(parse_users("1..16:x2").unwrap().0, vec![1, 2, 4, 8, 16]);
        assert_eq!(parse_users("1,3..5,70").unwrap().0, vec![1, 3, 4, 5, 70]);
        for bad in ["0", "", "1..x", "4..2", "1,,2", "20000", "1..8:x3"] {
            assert!(parse_users(bad).unwrap_err().contains("1..128:x2"), "{bad}");
        }
    }
}
