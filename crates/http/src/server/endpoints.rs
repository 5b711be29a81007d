//! What the built-in server answers: generated pages of any size, a
//! CPU-bound page and a delayed page (see [`ENDPOINTS`]).

use std::time::Duration;

use nodebench_core::units;

/// The endpoints, as `GET /` and `nodebench http serve --help` list them.
pub const ENDPOINTS: &str = "\
Endpoints (GET, HEAD and POST; request bodies are read and discarded):
  /                  this list
  /bytes/<size>      a body of exactly <size> bytes, generated on the fly from
                     a repeating 64-byte text line, never from disk: 1150,
                     3985, 100k (= 102400), 10GB (= 10^9), 10G (= 10 GiB)
  /<size>            the same: /1150, /3985, /100k, /10G
  /cpu/<n>           n rounds of a 64-bit mix function (splitmix64) done on
                     the worker thread before answering, like a CPU-bound PHP
                     page; /cpu alone does 1m (10^6) rounds; at most 1g
  /delay/<duration>  answers after the delay (500ms, 2s; at most 60s) without
                     holding up other connections
Anything else gets 404, a malformed request 400 and the connection closed.
Sizes: k/m/g/t and KiB/MiB/GiB = 1024^n, kB/MB/GB = 1000^n.";

/// One period of the generated bodies: a 64-byte text line.
pub const PATTERN: &[u8; 64] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-\n";

/// Rounds of `/cpu` when the path gives no count.
pub const DEFAULT_CPU_ROUNDS: u64 = 1_000_000;
/// Most rounds one `/cpu/<n>` request may ask for (a few seconds of one core).
pub const MAX_CPU_ROUNDS: u64 = 1_000_000_000;
/// Longest `/delay/<duration>`.
pub const MAX_DELAY: Duration = Duration::from_secs(60);

/// The work of `/cpu/<n>`: `rounds` dependent steps of splitmix64 from a
/// fixed seed; the result goes into the response so the work cannot be
/// optimised away, and is the same for every request with the same `rounds`.
pub fn cpu_work(rounds: u64) -> u64 {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut out: u64 = 0;
    for _ in 0..rounds {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state ^ out;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out = z ^ (z >> 31);
    }
    out
}

/// A response body.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Body {
    /// A short text.
    Text(String),
    /// This many bytes of [`PATTERN`], repeated.
    Pattern(u64),
}

impl Body {
    /// The body's length in bytes (its `Content-Length`).
    pub(super) fn len(&self) -> u64 {
        match self {
            Body::Text(t) => t.len() as u64,
            Body::Pattern(n) => *n,
        }
    }
}

/// A response, before its head is written.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Response {
    /// Status code.
    pub status: u16,
    /// Content.
    pub body: Body,
}

impl Response {
    /// A response of `status` with a text body.
    pub(super) fn text(status: u16, text: impl Into<String>) -> Response {
        Response {
            status,
            body: Body::Text(text.into()),
        }
    }
}

/// When to answer.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Reply {
    /// At once.
    Now(Response),
    /// After this long, without blocking the worker.
    After(Duration, Response),
}

/// The forms of path the built-in server serves (besides the dynamic
/// endpoints a run adds), as refusals list them.
pub const SERVED_FORMS: &str = "/, /bytes/<size>, /<size>, /cpu/<n>, /delay/<duration>";

/// The reply to `method path`, decided without doing the work.
enum Plan {
    /// Answer this at once.
    Now(Response),
    /// `/cpu/<n>`: this many rounds of work, then a 200.
    Cpu(u64),
    /// Answer this after the delay.
    After(Duration, Response),
}

/// The reply to `method path`.
pub(super) fn route(method: &str, path: &str) -> Reply {
    match plan(method, path) {
        Plan::Now(r) => Reply::Now(r),
        Plan::Cpu(n) => Reply::Now(cpu_page(n)),
        Plan::After(d, r) => Reply::After(d, r),
    }
}

/// The status the server answers `method path` with (the `/cpu` work is
/// not done): 200 for the pages it serves.
pub fn status(method: &str, path: &str) -> u16 {
    match plan(method, path) {
        Plan::Now(r) | Plan::After(_, r) => r.status,
        Plan::Cpu(_) => 200,
    }
}

/// What `route` answers, before any work.
fn plan(method: &str, path: &str) -> Plan {
    if !matches!(method, "GET" | "HEAD" | "POST") {
        return Plan::Now(Response::text(
            405,
            format!("405 method {method} not allowed: use GET, HEAD or POST\n"),
        ));
    }
    let pattern = |size: u64| {
        Plan::Now(Response {
            status: 200,
            body: Body::Pattern(size),
        })
    };
    if path == "/" {
        return Plan::Now(Response::text(
            200,
            format!("nodebench http serve\n{ENDPOINTS}\n"),
        ));
    }
    if let Some(size) = path.strip_prefix("/bytes/") {
        return match units::parse_size(size) {
            Ok(n) => pattern(n),
            Err(e) => Plan::Now(Response::text(400, format!("400 /bytes/<size>: {e}\n"))),
        };
    }
    if path == "/cpu" || path == "/cpu/" {
        return Plan::Cpu(DEFAULT_CPU_ROUNDS);
    }
    if let Some(n) = path.strip_prefix("/cpu/") {
        return match units::parse_count(n) {
            Ok(n) if n <= MAX_CPU_ROUNDS => Plan::Cpu(n),
            _ => Plan::Now(Response::text(
                400,
                format!(
                    "400 /cpu/<n>: invalid round count '{n}': expected 1 to {MAX_CPU_ROUNDS} like 1000, 10k, 1m\n"
                ),
            )),
        };
    }
    if let Some(d) = path.strip_prefix("/delay/") {
        return match units::parse_duration(d) {
            Ok(delay) if delay <= MAX_DELAY => {
                Plan::After(delay, Response::text(200, format!("delayed {d}\n")))
            }
            Ok(_) => Plan::Now(Response::text(
                400,
                format!("400 /delay/<duration>: '{d}' is longer than 60s\n"),
            )),
            Err(e) => Plan::Now(Response::text(400, format!("400 /delay/<duration>: {e}\n"))),
        };
    }
    match units::parse_size(&path[1..]) {
        Ok(n) => pattern(n),
        Err(_) => Plan::Now(Response::text(
            404,
            format!("404 no such page: {path} (GET / lists the endpoints)\n"),
        )),
    }
}

fn cpu_page(rounds: u64) -> Response {
    let result = cpu_work(std::hint::black_box(rounds));
    Response::text(200, format!("cpu rounds={rounds} result={result:016x}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(path: &str) -> u16 {
        let s = super::status("GET", path);
        match route("GET", path) {
            Reply::Now(r) | Reply::After(_, r) => assert_eq!(r.status, s, "{path}"),
        }
        s
    }

    #[test]
    fn sizes_use_the_command_line_size_parser() {
        assert_eq!(route("GET", "/1150"), route("GET", "/bytes/1150"));
        for (path, len) in [
            ("/bytes/3985", 3985),
            ("/100k", 102_400),
            ("/bytes/10GB", 10_000_000_000),
            ("/bytes/0", 0),
        ] {
            let Reply::Now(r) = route("GET", path) else {
                panic!("{path} is immediate")
            };
            assert_eq!((r.status, r.body.len()), (200, len), "{path}");
        }
        assert_eq!(status("/bytes/12x"), 400);
        assert_eq!(status("/nope"), 404);
        let Reply::Now(r) = route("DELETE", "/1150") else {
            panic!("immediate")
        };
        assert_eq!(r.status, 405);
    }

    #[test]
    fn cpu_work_is_deterministic_and_bounded() {
        assert_eq!(cpu_work(1000), cpu_work(1000));
        assert_ne!(cpu_work(1000), cpu_work(1001));
        assert_eq!(status("/cpu"), 200);
        assert_eq!(status("/cpu/10k"), 200);
        assert_eq!(status("/cpu/2g"), 400);
        assert_eq!(status("/cpu/x"), 400);
    }

    #[test]
    fn delays_are_deferred_and_capped() {
        let Reply::After(d, r) = route("GET", "/delay/250ms") else {
            panic!("delayed")
        };
        assert_eq!((d, r.status), (Duration::from_millis(250), 200));
        assert_eq!(status("/delay/61s"), 400);
        assert_eq!(status("/delay/soon"), 400);
    }
}
