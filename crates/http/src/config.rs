//! What an `http load` run is told to do: the target, the request, the load
//! model and the client's settings, with ab's, wrk2's and httperf's
//! defaults and the one check of every field. The engines (`client`) and
//! the benchmark (`load`) read it; it depends on nothing above it.

use std::time::Duration;

use nodebench_core::bench::BenchError;
use nodebench_core::config::Config;
use nodebench_core::endpoint::Endpoints;
use nodebench_core::names::http::load as names;

use crate::url::Target;

/// ab's default per-request timeout (`-s 30`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// wrk2's default connection count for the open model (`-c 10`).
pub const DEFAULT_OPEN_CONNECTIONS: u32 = 10;

/// How long the open model sends when no request count is given (wrk2's
/// default `-d 10s`); also how many seconds' worth of connections
/// `--conn-rate` opens when `--num-conns` is not given.
pub const DEFAULT_OPEN_DURATION: Duration = Duration::from_secs(10);

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

/// ab's request: a plain GET.
impl Default for RequestSpec {
    fn default() -> RequestSpec {
        RequestSpec::get()
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
    /// ab's closed model from its flags: `-n`, `-c` (default 1) and `-t`;
    /// with neither `-n` nor `-t`, one request, as ab sends.
    pub fn closed(
        requests: Option<u64>,
        concurrency: Option<u32>,
        time_limit: Option<Duration>,
    ) -> Model {
        Model::Closed {
            requests: match (requests, time_limit) {
                (None, None) => Some(1),
                (n, _) => n,
            },
            concurrency: concurrency.unwrap_or(1),
            time_limit,
        }
    }

    /// wrk2's open model from its flags: `--rate`, `-c` (default
    /// [`DEFAULT_OPEN_CONNECTIONS`]), `-n`, and `--duration` (default
    /// [`DEFAULT_OPEN_DURATION`] when no `-n` is given).
    pub fn open(
        rate: f64,
        connections: Option<u32>,
        requests: Option<u64>,
        duration: Option<Duration>,
    ) -> Model {
        Model::Open {
            rate,
            connections: connections.unwrap_or(DEFAULT_OPEN_CONNECTIONS),
            requests,
            duration: match (duration, requests) {
                (None, None) => Some(DEFAULT_OPEN_DURATION),
                (d, _) => d,
            },
        }
    }

    /// httperf's connection rate from its flags: `--conn-rate`,
    /// `--calls-per-conn` and `--num-conns` (default: [`DEFAULT_OPEN_DURATION`]'s
    /// worth of connections at the rate, at least one).
    pub fn conn_rate(conn_rate: f64, calls_per_conn: u32, connections: Option<u64>) -> Model {
        let worth = (conn_rate * DEFAULT_OPEN_DURATION.as_secs_f64()).ceil();
        Model::ConnRate {
            conn_rate,
            calls_per_conn,
            connections: connections.unwrap_or_else(|| worth.max(1.0) as u64),
        }
    }

    /// `closed`, `open` or `conn_rate`, as results name the model.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Closed { .. } => names::MODEL_CLOSED,
            Model::Open { .. } => names::MODEL_OPEN,
            Model::ConnRate { .. } => names::MODEL_CONN_RATE,
        }
    }

    /// Requests in all (`-n`), when the closed or open model is bounded by count.
    pub fn requests(&self) -> Option<u64> {
        match *self {
            Model::Closed { requests, .. } | Model::Open { requests, .. } => requests,
            Model::ConnRate { .. } => None,
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

/// ab's default: one request on one connection.
impl Default for Model {
    fn default() -> Model {
        Model::closed(None, None, None)
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
    /// The built-in server started in this process for a URL that is only
    /// a path (`/bytes/3985`); off for a full URL.
    pub server: InProcessServer,
    /// The status every reply should have (`--expect-status`); `None`:
    /// any 1xx, 2xx or 3xx.
    pub expect_status: Option<u16>,
    /// The largest share (0..1) of requests that may fail or get another
    /// status than expected before the result fails (`--max-error-rate`).
    pub max_error_rate: f64,
}

/// The share of requests that may fail or get an error status by default:
/// 1 %, the threshold k6 users write for `http_req_failed`.
pub const DEFAULT_MAX_ERROR_RATE: f64 = 0.01;

/// ab's defaults as `nodebench http load` applies them: one GET over one
/// connection without keep-alive, HTTP/1.1, a 30 s timeout, one client
/// thread pinned to a CPU. The target is a placeholder ([`Target::default`]).
impl Default for LoadConfig {
    fn default() -> LoadConfig {
        LoadConfig {
            target: Target::default(),
            request: RequestSpec::default(),
            model: Model::default(),
            keepalive: false,
            http2: false,
            streams: 1,
            insecure: false,
            threads: 1,
            timeout: DEFAULT_TIMEOUT,
            pin: true,
            server: InProcessServer::default(),
            expect_status: None,
            max_error_rate: DEFAULT_MAX_ERROR_RATE,
        }
    }
}

impl LoadConfig {
    /// A keep-alive HTTP/1.1 GET of `target` paced by `model`, on one
    /// unpinned client thread with ab's 30 s request timeout: the base of
    /// the sweep's steps and the quick suite's loads.
    pub fn new(target: Target, model: Model) -> LoadConfig {
        LoadConfig {
            target,
            model,
            keepalive: true,
            pin: false,
            ..LoadConfig::default()
        }
    }

    /// The connections speak TLS or HTTP/2 (the tokio engine), rather than
    /// plain HTTP/1.1 (the epoll engine).
    pub fn tls_or_http2(&self) -> bool {
        self.target.scheme == crate::url::Scheme::Https || self.http2
    }
}

/// The built-in server (`crate::server`) as a benchmark's target: started
/// in this process on an ephemeral 127.0.0.1 port for that benchmark only,
/// when the URL given was only a path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InProcessServer {
    /// Start it: the URL was only a path, the target's host and port are
    /// the server's once it listens.
    pub enabled: bool,
    /// Its worker threads (`--server-threads`); `None`: the server's own
    /// default, one per allowed CPU.
    pub threads: Option<usize>,
    /// Its dynamic endpoints (`--db`: `/db/ir`), answered by another
    /// area's code the CLI hands in.
    pub endpoints: Endpoints,
}

impl InProcessServer {
    /// `--server-threads` and `--db` need a path URL, the thread count
    /// one the server takes, the endpoints a well-formed target.
    pub fn check(&self) -> Result<(), BenchError> {
        if !self.enabled && !self.endpoints.is_empty() {
            return Err(BenchError::Invalid(
                "--db: applies only to a URL that is a path such as /db/ir (the built-in server, started in this process), not to a full URL".into(),
            ));
        }
        self.endpoints.validate()?;
        match self.threads {
            Some(_) if !self.enabled => Err(BenchError::Invalid(
                "--server-threads: applies only to a URL that is a path such as /bytes/3985 (the built-in server, started in this process), not to a full URL".into(),
            )),
            Some(n) if n == 0 || n > crate::server::MAX_THREADS => Err(BenchError::Invalid(format!(
                "--server-threads: expected 1 to {} worker threads, got {n}",
                crate::server::MAX_THREADS
            ))),
            _ => Ok(()),
        }
    }
}

impl InProcessServer {
    /// Refuses a path the built-in server would not answer with the
    /// status expected (`expect`, or a 200), before anything runs: the
    /// paths it serves are listed, and `--expect-status` named for loading
    /// an error page on purpose.
    pub fn check_path(
        &self,
        path_and_query: &str,
        method: &str,
        expect: Option<u16>,
    ) -> Result<(), BenchError> {
        if !self.enabled {
            return Ok(());
        }
        let path = path_and_query.split('?').next().unwrap_or(path_and_query);
        if self.endpoints.0.iter().any(|e| e.path() == path) {
            return Ok(());
        }
        let status = crate::server::status(method, path);
        let mut forms = crate::server::SERVED_FORMS.to_string();
        for e in &self.endpoints.0 {
            forms.push_str(", ");
            forms.push_str(e.path());
        }
        match expect {
            None if status == 200 => Ok(()),
            Some(want) if want == status => Ok(()),
            None => Err(BenchError::Invalid(format!(
                "URL {path}: the built-in server answers {method} {path} with {status}; it serves {forms} (--expect-status {status} loads the error page on purpose)"
            ))),
            Some(want) => Err(BenchError::Invalid(format!(
                "--expect-status {want}: the built-in server answers {method} {path} with {status}; it serves {forms}"
            ))),
        }
    }
}

/// True for an RFC 9110 token character (methods, header names).
fn token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn positive_rate(flag: &str, r: f64) -> Result<(), String> {
    if r.is_finite() && r > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{flag}: expected a positive rate per second, got {r}"
        ))
    }
}

fn positive(flag: &str, n: u64) -> Result<(), String> {
    if n > 0 {
        Ok(())
    } else {
        Err(format!("{flag}: expected a positive count, got 0"))
    }
}

impl LoadConfig {
    /// Every check of [`Config::validate`], with the message alone.
    fn check(&self) -> Result<(), String> {
        self.server.check().map_err(|e| e.to_string())?;
        if let Some(code) = self.expect_status
            && !(100..=599).contains(&code)
        {
            return Err(format!(
                "--expect-status: expected an HTTP status from 100 to 599 like 404, got {code}"
            ));
        }
        if !(self.max_error_rate.is_finite() && (0.0..=1.0).contains(&self.max_error_rate)) {
            return Err(format!(
                "--max-error-rate: expected a share from 0% to 100% like 1%, got {}",
                self.max_error_rate * 100.0
            ));
        }

        let m = &self.request.method;
        if m.is_empty() || !m.bytes().all(token) {
            return Err(format!(
                "-m/--method: invalid method '{m}': expected a token such as GET, POST, PUT, HEAD"
            ));
        }
        for (k, v) in &self.request.headers {
            if k.is_empty() || !k.bytes().all(token) || v.bytes().any(|b| b == b'\r' || b == b'\n')
            {
                return Err(format!(
                    "-H/--header: invalid header '{k}: {v}': expected \"Name: value\", e.g. \"Accept: text/html\""
                ));
            }
        }
        if let Some(n) = self.model.requests() {
            positive("-n/--requests", n)?;
        }
        match self.model {
            Model::Closed {
                requests,
                concurrency,
                time_limit,
            } => {
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
        if self.threads == 0 {
            return Err("--threads: expected a positive count of client threads, got 0".into());
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
        // Last: the flags above are named first when they are wrong too.
        self.server
            .check_path(
                &self.target.path_and_query,
                &self.request.method,
                self.expect_status,
            )
            .map_err(|e| e.to_string())
    }
}

impl Config for LoadConfig {
    /// Checks every field once; the message names the flag and the
    /// accepted form.
    fn validate(&self) -> Result<(), BenchError> {
        self.check().map_err(BenchError::Invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(cfg: &LoadConfig) -> String {
        match cfg.validate() {
            Err(BenchError::Invalid(e)) => e,
            other => panic!("expected an invalid configuration, got {other:?}"),
        }
    }

    #[test]
    fn defaults_are_abs_one_request() {
        let d = LoadConfig::default();
        assert_eq!(
            d.model,
            Model::Closed {
                requests: Some(1),
                concurrency: 1,
                time_limit: None
            }
        );
        assert_eq!(d.request, RequestSpec::get());
        assert!(!d.keepalive && !d.http2 && !d.insecure && d.pin);
        assert_eq!((d.streams, d.threads), (1, 1));
        assert_eq!(d.timeout, Duration::from_secs(30));
        assert_eq!(d.target.url(), "http://127.0.0.1:80/");
        assert!(d.validate().is_ok());
        let n = LoadConfig::new(Target::default(), Model::default());
        assert!(n.keepalive && !n.pin);
    }

    #[test]
    fn model_constructors_apply_the_tools_defaults() {
        let t = Some(Duration::from_secs(5));
        assert_eq!(
            Model::closed(None, Some(4), t),
            Model::Closed {
                requests: None,
                concurrency: 4,
                time_limit: t
            }
        );
        assert_eq!(
            Model::open(100.0, None, None, None),
            Model::Open {
                rate: 100.0,
                connections: 10,
                requests: None,
                duration: Some(Duration::from_secs(10))
            }
        );
        assert_eq!(
            Model::open(100.0, Some(2), Some(50), None),
            Model::Open {
                rate: 100.0,
                connections: 2,
                requests: Some(50),
                duration: None
            }
        );
        assert_eq!(Model::conn_rate(2.5, 3, None).connections(), 25);
        assert_eq!(Model::conn_rate(0.01, 1, None).connections(), 1);
        assert_eq!(Model::conn_rate(5.0, 1, Some(7)).connections(), 7);
        assert_eq!(Model::conn_rate(5.0, 1, None).name(), "conn_rate");
    }

    #[test]
    fn each_bad_field_names_its_flag() {
        let base = LoadConfig::default();
        let with = |f: &dyn Fn(&mut LoadConfig)| {
            let mut c = base.clone();
            f(&mut c);
            invalid(&c)
        };
        let cases: Vec<(String, &str)> = vec![
            (
                with(&|c| c.model = Model::closed(Some(0), None, None)),
                "-n/--requests: expected a positive count, got 0",
            ),
            (
                with(&|c| c.model = Model::closed(Some(1), Some(0), None)),
                "-c/--concurrency: expected a positive count, got 0",
            ),
            (
                with(&|c| {
                    c.model = Model::Closed {
                        requests: None,
                        concurrency: 1,
                        time_limit: None,
                    }
                }),
                "closed model: give -n/--requests or -t/--time-limit",
            ),
            (
                with(&|c| c.model = Model::open(f64::NAN, None, None, None)),
                "--rate: expected a positive rate per second, got NaN",
            ),
            (
                with(&|c| {
                    c.model = Model::Open {
                        rate: 1.0,
                        connections: 1,
                        requests: None,
                        duration: None,
                    }
                }),
                "open model: give -n/--requests or --duration",
            ),
            (
                with(&|c| c.model = Model::conn_rate(0.0, 1, None)),
                "--conn-rate: expected a positive rate per second, got 0",
            ),
            (
                with(&|c| c.model = Model::conn_rate(1.0, 0, None)),
                "--calls-per-conn: expected a positive count, got 0",
            ),
            (
                with(&|c| c.model = Model::conn_rate(1.0, 1, Some(0))),
                "--num-conns: expected a positive count, got 0",
            ),
            (
                with(&|c| c.threads = 0),
                "--threads: expected a positive count of client threads, got 0",
            ),
            (
                with(&|c| c.timeout = Duration::ZERO),
                "--timeout: expected a positive duration like 30s",
            ),
            (
                with(&|c| c.streams = 0),
                "--streams: expected a positive count of streams per connection",
            ),
            (
                with(&|c| c.request.method = "G T".into()),
                "-m/--method: invalid method 'G T': expected a token such as GET, POST, PUT, HEAD",
            ),
            (
                with(&|c| c.request.headers = vec![("X".into(), "a\r\nb".into())]),
                "-H/--header: invalid header 'X: a\r\nb': expected \"Name: value\", e.g. \"Accept: text/html\"",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
        let streams = |http2: bool, keepalive: bool, model: Model| {
            with(&|c| {
                c.streams = 4;
                c.http2 = http2;
                c.keepalive = keepalive;
                c.model = model.clone();
            })
        };
        assert!(streams(false, true, Model::default()).starts_with("--streams: needs --http2"));
        assert!(streams(true, false, Model::default()).starts_with("--streams: needs -k"));
        assert!(
            streams(true, true, Model::conn_rate(1.0, 1, None))
                .starts_with("--streams: applies to the closed model and --rate")
        );
        let mut ok = base.clone();
        (ok.streams, ok.http2, ok.keepalive) = (4, true, true);
        assert!(ok.validate().is_ok());
    }
}
