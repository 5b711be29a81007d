//! Names of the HTTP benchmarks' results.

/// Benchmark id of the load generator.
pub const LOAD: &str = "http.load";
/// Benchmark id of the JMeter-style user sweep.
pub const SWEEP: &str = "http.sweep";
/// Benchmark id of the single-stream download.
pub const DOWNLOAD: &str = "http.download";

/// Parameters of `http.load`, `http.sweep` and `http.download` results
/// whose target was the built-in server started in this process (a URL
/// that is only a path), and its figures.
pub mod in_process {
    /// Parameter naming where the target's server ran: [`BUILT_IN`] when
    /// the benchmark started it; absent for a full URL.
    pub const TARGET: &str = "target";
    /// [`TARGET`]'s value: the built-in server, in this process.
    pub const BUILT_IN: &str = "built-in, in-process";
    /// Parameter: the built-in server's worker threads.
    pub const SERVER_THREADS: &str = "server_threads";
    /// Parameter: responses the server wrote during the benchmark (must
    /// equal the replies the client completed).
    pub const SERVER_REQUESTS_SERVED: &str = "server_requests_served";
    /// Metric: CPU time of one built-in server worker thread over the
    /// benchmark, % of one core, labelled by [`THREAD`].
    pub const SERVER_THREAD_CPU: &str = "server_thread_cpu";
    /// Metric: time one built-in server worker thread was runnable but
    /// waiting for a CPU over the benchmark, %, labelled by [`THREAD`]; with
    /// [`SERVER_THREAD_CPU`] near 100 % the thread never idled.
    pub const SERVER_THREAD_WAIT: &str = "server_thread_wait";
    /// Metric: responses one built-in server worker thread wrote over the
    /// benchmark, labelled by [`THREAD`]; the threads' counts add up to
    /// [`SERVER_REQUESTS_SERVED`]. The server deals connections to its
    /// workers round-robin, so uneven counts come from uneven connections.
    pub const SERVER_THREAD_REQUESTS: &str = "server_thread_requests";
    /// Label key of the server thread metrics: the worker's index (0, 1, ...).
    pub const THREAD: &str = "thread";
    /// Parameter: the built-in server's dynamic endpoints and what they
    /// answer from, `PATH=TARGET` joined by `, ` (`/db/ir=sqlite:/tmp/a.db`;
    /// `--db`); absent when there is none.
    pub const SERVER_ENDPOINTS: &str = "server_endpoints";
}

// http.load
/// Names in `http.load` results: metrics as ab, httperf and wrk2 print
/// them, their label keys and values, and the run's parameters.
pub mod load {
    /// Seconds from the run's start to its last reply (ab "Time taken for tests").
    pub const TIME_TAKEN: &str = "time_taken";
    /// Replies completed, any status (ab "Complete requests").
    pub const REQUESTS_COMPLETED: &str = "requests_completed";
    /// Requests that failed, every error kind (ab "Failed requests").
    pub const REQUESTS_FAILED: &str = "requests_failed";
    /// Replies whose status was not 2xx (ab "Non-2xx responses").
    pub const NON_2XX: &str = "non_2xx";
    /// Connections opened successfully.
    pub const CONNECTIONS_OPENED: &str = "connections_opened";
    /// Requests written.
    pub const REQUESTS_SENT: &str = "requests_sent";
    /// Open model: requests sent late because the client was busy.
    pub const SENT_LATE: &str = "sent_late";
    /// Completed replies per second: a metric (ab "Requests per second")
    /// and a per-second series.
    pub const REQUESTS_PER_SECOND: &str = "requests_per_second";
    /// ab "Time per request", labelled by [`label::SCOPE`].
    pub const TIME_PER_REQUEST: &str = "time_per_request";
    /// Reply bytes received per second (ab "Transfer rate").
    pub const TRANSFER_RATE: &str = "transfer_rate";
    /// Reply bytes received, heads and bodies (ab "Total transferred").
    pub const TOTAL_TRANSFERRED: &str = "total_transferred";
    /// Reply body bytes received (ab "HTML transferred").
    pub const HTML_TRANSFERRED: &str = "html_transferred";
    /// ab's "Connection Times" table, labelled by [`label::PHASE`] and [`label::STAT`].
    pub const CONNECTION_TIME: &str = "connection_time";
    /// ab's "Percentage of the requests served within a certain time",
    /// labelled by [`label::PERCENT`].
    pub const SERVED_WITHIN: &str = "served_within";
    /// Latency percentiles (wrk2 `--latency`), labelled by [`label::LATENCY`]
    /// and the shared percentile key; also the name of the latency histograms.
    pub const LATENCY: &str = "latency";
    /// Replies by status class (httperf "Reply status"), labelled by [`label::CLASS`].
    pub const REPLIES: &str = "replies";
    /// ab's failed-request columns, labelled by [`label::KIND`] with [`FAILED_CLASSES`].
    pub const FAILED_REQUESTS: &str = "failed_requests";
    /// Errors by httperf's kinds, labelled by [`label::KIND`] with [`ERROR_KINDS`].
    pub const ERRORS: &str = "errors";
    /// httperf's reply-rate statistics, labelled by [`label::STAT`].
    pub const REPLY_RATE: &str = "reply_rate";
    /// The number of one-second reply-rate samples.
    pub const REPLY_RATE_SAMPLES: &str = "reply_rate_samples";
    /// Client CPU seconds, labelled by [`label::MODE`] (httperf "CPU time").
    pub const CLIENT_CPU_TIME: &str = "client_cpu_time";
    /// Client CPU time as a percentage of the elapsed time.
    pub const CLIENT_CPU_UTILIZATION: &str = "client_cpu_utilization";
    /// Client CPU seconds per completed reply.
    pub const CLIENT_CPU_PER_REQUEST: &str = "client_cpu_per_request";
    /// Socket bytes, labelled by [`label::DIRECTION`] (httperf "Net I/O").
    pub const NET_IO: &str = "net_io";
    /// Socket bytes per second, labelled by [`label::DIRECTION`].
    pub const NET_IO_RATE: &str = "net_io_rate";
    /// Histogram of the time to open each new connection.
    pub const CONNECT_TIME: &str = "connect_time";
    /// Per-second series of errors.
    pub const ERRORS_PER_SECOND: &str = "errors_per_second";
    /// Per-second series of reply bytes.
    pub const BYTES_PER_SECOND: &str = "bytes_per_second";
    /// Requests whose write failed (ab "Write errors"; imported).
    pub const WRITE_ERRORS: &str = "write_errors";
    /// Requests sent per second (httperf "Request rate"; imported).
    pub const REQUEST_RATE: &str = "request_rate";
    /// New connections per second (httperf "Connection rate"; imported).
    pub const CONNECTION_RATE: &str = "connection_rate";
    /// Replies with a 4xx or 5xx status (wrk "Non-2xx or 3xx responses"; imported).
    pub const ERROR_STATUS: &str = "error_status";
    /// Mean bytes per request (httperf "Request size [B]"; imported).
    pub const REQUEST_SIZE: &str = "request_size";
    /// Mean bytes per reply, labelled by [`label::PART`] (httperf "Reply size [B]"; imported).
    pub const REPLY_SIZE: &str = "reply_size";
    /// Mean seconds to a reply's first byte ([`REPLY_RESPONSE`]) and from it
    /// to the last ([`REPLY_TRANSFER`]), labelled by [`label::PHASE`]
    /// (httperf "Reply time [ms]"; imported).
    pub const REPLY_TIME: &str = "reply_time";
    /// Requests per second of one client thread, labelled by [`label::STAT`]
    /// with [`THREAD_RATE_STATS`] (wrk's "Thread Stats Req/Sec"; imported).
    pub const THREAD_REQUESTS_PER_SECOND: &str = "thread_requests_per_second";

    /// Label keys of `http.load` metrics (the percentile key is
    /// [`crate::names::labels::PERCENTILE`]).
    pub mod label {
        /// Which latency: [`super::CORRECTED`] or [`super::UNCORRECTED`].
        pub const LATENCY: &str = "latency";
        /// [`super::TIME_PER_REQUEST`]'s scope: [`super::SCOPE_MEAN`] or [`super::SCOPE_ACROSS_ALL`].
        pub const SCOPE: &str = "scope";
        /// ab's connection-time row: one of [`super::PHASES`].
        pub const PHASE: &str = "phase";
        /// A statistic: one of [`super::CONNECTION_STATS`] or [`super::REPLY_RATE_STATS`].
        pub const STAT: &str = "stat";
        /// ab's served-within percentage, one of [`super::SERVED_WITHIN_PERCENTS`].
        pub const PERCENT: &str = "percent";
        /// A reply status class, one of [`super::STATUS_CLASSES`].
        pub const CLASS: &str = "class";
        /// A failure class ([`super::FAILED_CLASSES`]) or error kind ([`super::ERROR_KINDS`]).
        pub const KIND: &str = "kind";
        /// CPU mode: [`super::MODE_USER`] or [`super::MODE_SYS`].
        pub const MODE: &str = "mode";
        /// Socket direction: [`super::DIRECTION_IN`] or [`super::DIRECTION_OUT`].
        pub const DIRECTION: &str = "direction";
        /// Part of a reply: one of [`super::REPLY_PARTS`].
        pub const PART: &str = "part";
    }

    /// httperf's reply parts: header, content, footer, and their total.
    pub const REPLY_PARTS: [&str; 4] = ["header", "content", "footer", "total"];
    /// [`REPLY_TIME`]'s phase up to the reply's first byte.
    pub const REPLY_RESPONSE: &str = "response";
    /// [`REPLY_TIME`]'s phase from the first byte to the last.
    pub const REPLY_TRANSFER: &str = "transfer";
    /// wrk's per-thread statistics: mean, standard deviation, highest, and
    /// the percentage of samples within one standard deviation of the mean.
    pub const THREAD_RATE_STATS: [&str; 4] = ["mean", "sd", "max", "within_sd"];

    /// Latency counted from each request's planned send time (open model,
    /// corrected for coordinated omission) or its start (closed model).
    pub const CORRECTED: &str = "corrected";
    /// Latency counted from each request's actual send (wrk's uncorrected figure).
    pub const UNCORRECTED: &str = "uncorrected";
    /// Latency percentiles reported for both latencies (wrk2 `--latency`);
    /// each is labelled with its decimal form (`99.9`).
    pub const LATENCY_PERCENTILES: [f64; 7] = [50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999];
    /// Percentile label of the highest latency.
    pub const PERCENTILE_MAX: &str = "max";
    /// Percentile label of the mean latency.
    pub const PERCENTILE_MEAN: &str = "mean";
    /// ab's served-within percentages.
    pub const SERVED_WITHIN_PERCENTS: [u32; 9] = [50, 66, 75, 80, 90, 95, 98, 99, 100];

    /// Time per request as ab's "(mean)": concurrency x elapsed / replies
    /// in the closed model, the mean latency otherwise.
    pub const SCOPE_MEAN: &str = "mean";
    /// Time per request as ab's "(mean, across all concurrent requests)".
    pub const SCOPE_ACROSS_ALL: &str = "across_all";

    /// ab's connection-time rows: connect, processing, waiting, total.
    pub const PHASES: [&str; 4] = ["connect", "processing", "waiting", "total"];
    /// ab's connection-time row of the total time.
    pub const PHASE_TOTAL: &str = "total";
    /// ab's connection-time columns: min, mean, sd, median, max.
    pub const CONNECTION_STATS: [&str; 5] = ["min", "mean", "sd", "median", "max"];
    /// httperf's reply-rate statistics: min, avg, max, stddev.
    pub const REPLY_RATE_STATS: [&str; 4] = ["min", "avg", "max", "stddev"];

    /// Reply status classes; `other` is a status outside 100..=599 and is
    /// recorded only when some reply had one.
    pub const STATUS_CLASSES: [&str; 6] = ["1xx", "2xx", "3xx", "4xx", "5xx", "other"];
    /// ab's failed-request columns: connect, receive, length, exceptions.
    pub const FAILED_CLASSES: [&str; 4] = ["connect", "receive", "length", "exceptions"];

    /// Error kind: the server refused the connection (httperf connrefused).
    pub const CONNREFUSED: &str = "connrefused";
    /// Error kind: the server reset the connection (httperf connreset).
    pub const CONNRESET: &str = "connreset";
    /// Error kind: any other connect failure.
    pub const CONNECT_OTHER: &str = "connect_other";
    /// Error kind: a reply did not complete within the timeout (httperf client-timo).
    pub const CLIENT_TIMEOUT: &str = "client_timeout";
    /// Error kind: the kernel timed the connection out (httperf socket-timo).
    pub const SOCKET_TIMEOUT: &str = "socket_timeout";
    /// Error kind: the connection broke while a reply was due.
    pub const RECEIVE: &str = "receive";
    /// Error kind: a body length differed from the first reply's (ab "Length").
    pub const LENGTH: &str = "length";
    /// Error kind: no file descriptors left (httperf fd-unavail).
    pub const FD_UNAVAIL: &str = "fd_unavail";
    /// Error kind: no local address or port left (httperf addrunavail).
    pub const ADDR_UNAVAIL: &str = "addr_unavail";
    /// Error kind: anything else, such as an unparsable reply.
    pub const EXCEPTION: &str = "exception";
    /// Every error kind, in the order results list them.
    pub const ERROR_KINDS: [&str; 10] = [
        CONNREFUSED,
        CONNRESET,
        CONNECT_OTHER,
        CLIENT_TIMEOUT,
        SOCKET_TIMEOUT,
        RECEIVE,
        LENGTH,
        FD_UNAVAIL,
        ADDR_UNAVAIL,
        EXCEPTION,
    ];

    /// User CPU time.
    pub const MODE_USER: &str = "user";
    /// System CPU time.
    pub const MODE_SYS: &str = "sys";
    /// Bytes read from sockets.
    pub const DIRECTION_IN: &str = "in";
    /// Bytes written to sockets.
    pub const DIRECTION_OUT: &str = "out";
    /// Socket bytes both ways together (httperf "Net I/O"; imported).
    pub const DIRECTION_BOTH: &str = "both";
    /// Error kind: httperf's file-descriptor table was full (ftab-full; imported).
    pub const FTAB_FULL: &str = "ftab_full";
    /// Error kind: a request could not be written (wrk "write" socket errors; imported).
    pub const SEND: &str = "send";

    /// Model: ab's closed model (`-n`, `-c`, `-t`).
    pub const MODEL_CLOSED: &str = "closed";
    /// Model: wrk2's open model at a request rate (`--rate`).
    pub const MODEL_OPEN: &str = "open";
    /// Model: httperf's connection rate (`--conn-rate`).
    pub const MODEL_CONN_RATE: &str = "conn_rate";

    /// Parameter names of `http.load` results.
    pub mod param {
        /// The target URL as written back (`http://host:port/path`).
        pub const URL: &str = "url";
        /// Target host.
        pub const HOST: &str = "host";
        /// Target port.
        pub const PORT: &str = "port";
        /// Path and query sent.
        pub const PATH: &str = "path";
        /// Request method.
        pub const METHOD: &str = "method";
        /// Load model: [`super::MODEL_CLOSED`], [`super::MODEL_OPEN`] or [`super::MODEL_CONN_RATE`].
        pub const MODEL: &str = "model";
        /// Keep-alive on (ab `-k`).
        pub const KEEPALIVE: &str = "keepalive";
        /// Client threads.
        pub const THREADS: &str = "threads";
        /// `1.1` or `2`.
        pub const HTTP_VERSION: &str = "http_version";
        /// HTTP/2 streams per connection (h2load `-m`).
        pub const STREAMS_PER_CONNECTION: &str = "streams_per_connection";
        /// Whether the target is https.
        pub const TLS: &str = "tls";
        /// Per-request timeout, seconds.
        pub const TIMEOUT_S: &str = "timeout_s";
        /// The status every reply should have (`--expect-status`), when given.
        pub const EXPECT_STATUS: &str = "expect_status";
        /// The largest share (0..1) of requests that may fail or get an
        /// error status before the result fails (`--max-error-rate`).
        pub const MAX_ERROR_RATE: &str = "max_error_rate";
        /// Connections (ab `-c`).
        pub const CONCURRENCY: &str = "concurrency";
        /// Requests in all (ab `-n`).
        pub const REQUESTS: &str = "requests";
        /// Closed model time limit, seconds (ab `-t`).
        pub const TIME_LIMIT_S: &str = "time_limit_s";
        /// Open model request rate per second.
        pub const RATE: &str = "rate";
        /// Open model duration, seconds.
        pub const DURATION_S: &str = "duration_s";
        /// New connections per second (httperf `--rate`).
        pub const CONN_RATE: &str = "conn_rate";
        /// Calls per connection (httperf `--num-calls`).
        pub const CALLS_PER_CONN: &str = "calls_per_conn";
        /// Connections in all (httperf `--num-conns`).
        pub const NUM_CONNS: &str = "num_conns";
        /// The first reply's `Server` header (ab "Server Software").
        pub const SERVER_SOFTWARE: &str = "server_software";
        /// The first 2xx reply's body length (ab "Document Length").
        pub const DOCUMENT_LENGTH: &str = "document_length";
        /// What the client CPU figures cover.
        pub const CLIENT_CPU_SCOPE: &str = "client_cpu_scope";
    }
}

/// Parameters that define an HTTP load workload (the server's address is
/// what a comparison compares; the request count or time limit is its length).
pub const LOAD_WORKLOAD_PARAMS: &[&str] = &[
    load::param::PATH,
    load::param::METHOD,
    load::param::MODEL,
    load::param::KEEPALIVE,
    load::param::THREADS,
    load::param::HTTP_VERSION,
    load::param::STREAMS_PER_CONNECTION,
    load::param::TLS,
    load::param::CONCURRENCY,
    load::param::RATE,
    load::param::CONN_RATE,
    load::param::CALLS_PER_CONN,
];
/// Parameters that define an HTTP sweep (the user count of a step is a label).
pub const SWEEP_WORKLOAD_PARAMS: &[&str] = &[load::param::KEEPALIVE, load::param::THREADS];

// http.sweep
/// Names in `http.sweep` results the reports read: the per-step rate, the
/// step's user count and the saturation point.
pub mod sweep {
    /// Completed requests per second of a step (JMeter's Summary Report
    /// "Throughput"), labelled by [`USERS`].
    pub const RATE: &str = "rate";
    /// Label key: the concurrent users of a step.
    pub const USERS: &str = "users";
    /// Parameter: the users of the last step whose rate still grew.
    pub const SATURATION_USERS: &str = "saturation_users";
    /// A step's rate as a percentage of the first step's.
    pub const PERCENT_OF_FIRST: &str = "percent_of_first";
    /// Mean seconds of a step's requests.
    pub const LATENCY_AVG: &str = "latency_avg";
    pub use crate::names::latency::{LATENCY_MAX, LATENCY_MIN};
    /// Requests a step completed.
    pub const REQUESTS: &str = "requests";
    /// Requests of a step that failed.
    pub const ERRORS: &str = "errors";
    /// Reply bytes (heads and bodies) per second of a step.
    pub const THROUGHPUT: &str = "throughput";
    /// Busy share of all the machine's CPUs over a step, %.
    pub const MACHINE_CPU: &str = "machine_cpu";
    /// The client's CPU time as a share of all the machine's CPUs over a step, %.
    pub const CLIENT_CPU: &str = "client_cpu";
    /// The rate of the saturation step ([`SATURATION_USERS`]).
    pub const SATURATION_RATE: &str = "saturation_rate";

    /// Parameter names of `http.sweep` results ([`super::SATURATION_USERS`]
    /// too).
    pub mod param {
        /// The target URL.
        pub const URL: &str = "url";
        /// Request method.
        pub const METHOD: &str = "method";
        /// Requests per user per step.
        pub const ITERATIONS: &str = "iterations";
        /// The user counts of the steps.
        pub const USERS: &str = "users";
        /// Whether connections were kept alive.
        pub const KEEPALIVE: &str = "keepalive";
        /// Client threads.
        pub const THREADS: &str = "threads";
        /// The longest a step may run, seconds.
        pub const STEP_TIME_LIMIT_S: &str = "step_time_limit_s";
        /// The egress link to a remote target, described.
        pub const LINK: &str = "link";
        /// What saturated: `client`, `server`, `link` or `none`.
        pub const BOTTLENECK: &str = "bottleneck";
        /// The saturation point explained in words.
        pub const SATURATION: &str = "saturation";
    }
}

// http.download
/// Metric names of `http.download` results.
pub mod download {
    /// Body bytes received.
    pub const BYTES: &str = "bytes";
    /// Body bytes over the time from the request to the last byte.
    pub const THROUGHPUT: &str = "throughput";
    /// The best full-interval rate of the body, bytes per second.
    pub const THROUGHPUT_MAX: &str = "throughput_max";
    /// Seconds from the request sent to the last byte received.
    pub const TIME: &str = "time";
    /// Seconds from the request sent to the first byte of the reply.
    pub const FIRST_BYTE: &str = "first_byte";
    /// Seconds the TCP (and TLS) connection set-up took.
    pub const CONNECT: &str = "connect";

    /// Parameter names of `http.download` results.
    pub mod param {
        /// The URL fetched.
        pub const URL: &str = "url";
        /// The reply's status code.
        pub const STATUS: &str = "status";
        /// Whether the whole body arrived.
        pub const COMPLETE: &str = "complete";
        /// The body length the server announced.
        pub const CONTENT_LENGTH: &str = "content_length";
        /// The server's `Server` header.
        pub const SERVER: &str = "server";
        /// `--max-time`, seconds.
        pub const MAX_TIME_S: &str = "max_time_s";
        /// The read buffer, bytes.
        pub const BUFFER: &str = "buffer";
        /// The egress link to a remote target, described.
        pub const LINK: &str = "link";
    }
}
