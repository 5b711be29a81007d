//! Helpers shared by the CLI's integration tests: the `nodebench` command
//! with a clean environment, a temporary store, the text and JSON of an
//! output, the one-line error check, metric look-ups in `--json` output,
//! Ctrl-C for a child, and skipping tests that need root.

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// The `nodebench` binary under test, stdin closed, without the
/// environment variables that would point it at the user's store or
/// BLAS libraries.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_nodebench"));
    c.env_remove("NODEBENCH_STORE")
        .env_remove("NODEBENCH_BLAS_DIRS")
        .stdin(Stdio::null());
    c
}

/// A cpu ops run short enough for tests.
pub const QUICK_OPS: &[&str] = &[
    "cpu",
    "ops",
    "--threads",
    "1,2",
    "--duration",
    "20ms",
    "--repeats",
    "2",
    "--warmup",
    "0",
    "--kernels",
    "f64.vector,int.scalar",
    "--quiet",
];

/// `nodebench --no-save -q ARGS`, waited for.
pub fn run(args: &[&str]) -> Output {
    bin().args(["--no-save", "-q"]).args(args).output().unwrap()
}

/// A temporary directory holding a results store, removed when dropped.
pub struct TempStore {
    dir: tempfile::TempDir,
}

impl TempStore {
    /// A new, empty directory.
    pub fn new() -> TempStore {
        TempStore {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// The store's path (the file exists once a run saved to it).
    pub fn store(&self) -> PathBuf {
        self.dir.path().join("results.db")
    }

    /// `nodebench --store STORE ARGS`, waited for.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    /// `nodebench --store STORE`, to add arguments to and spawn.
    pub fn command(&self) -> Command {
        let mut c = bin();
        c.arg("--store").arg(self.store());
        c
    }
}

/// A store holding two real quick-suite runs, run 1 tagged `config=a` and
/// run 2 `config=b`, made once per test binary and shared, read only, by the
/// tests that need real quick-suite runs (compare, report_html): a quick
/// suite takes most of a minute here, and the CI's budget is 30 minutes
/// (issue 43). Removed when the test binary exits.
pub fn two_quick_runs() -> &'static TempStore {
    static STORE: OnceLock<TempStore> = OnceLock::new();
    extern "C" fn remove() {
        if let Some(t) = STORE.get() {
            let _ = std::fs::remove_dir_all(t.dir.path());
        }
    }
    STORE.get_or_init(|| {
        let t = TempStore::new();
        for tag in ["config=a", "config=b"] {
            // The quick suite with its longest steps shortened (the TCP
            // stream to 1 s, IOzone's file to 32 MiB, the latency sweep to
            // 64 MiB): every step, metric and chart of `nodebench run`, in
            // less time. The HTTP loads and ping-pong keep their lengths:
            // shortened to a second and 100 ms, one run's two suites held 5
            // figures that were not on both sides.
            let mut args = vec!["-q", "--tag", tag, "suite", "run", "quick"];
            for set in [
                "time=1s",
                "file-size=32MiB",
                "memory.latency.max-size=64MiB",
            ] {
                args.extend(["--set", set]);
            }
            let out = t.run(&args);
            assert!(out.status.success(), "{}", stderr(&out));
        }
        // SAFETY: `remove` takes no arguments and returns nothing, as
        // atexit(3) wants; the static it reads lives until the process ends.
        unsafe { libc::atexit(remove) };
        t
    })
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON on standard output of a run that succeeded.
pub fn json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("stdout is JSON")
}

/// Exit code `code`, no panic, and exactly one line on stderr containing
/// every `want`.
pub fn one_line_error(o: &Output, code: i32, want: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
    for w in want {
        assert!(err.contains(w), "{w:?} missing from {err:?}");
    }
}

/// The first metric of a `--json` result named `name` whose labels include
/// every `(key, value)` of `labels`.
pub fn find_metric<'a>(result: &'a Value, name: &str, labels: &[(&str, &str)]) -> &'a Value {
    result["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name && labels.iter().all(|(k, v)| m["labels"][*k] == *v))
        .unwrap_or_else(|| panic!("no metric {name} {labels:?}"))
}

/// The value of [`find_metric`].
pub fn metric(result: &Value, name: &str, labels: &[(&str, &str)]) -> f64 {
    find_metric(result, name, labels)["value"].as_f64().unwrap()
}

/// A loopback port nothing listens on (bound, then let go).
pub fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A closed loopback port P whose successor is free too, for TCP and UDP:
/// what `net serve --port P` binds (its ping-pong echo takes P + 1). A port
/// from bind(0) is odd and Linux gives outgoing connections even ports first,
/// so under a busy test run P + 1 is often some connection's.
pub fn closed_port_pair() -> u16 {
    for _ in 0..100 {
        let port = closed_port();
        if port == u16::MAX {
            continue;
        }
        let next = ("127.0.0.1", port + 1);
        if std::net::TcpListener::bind(next).is_ok() && std::net::UdpSocket::bind(next).is_ok() {
            return port;
        }
    }
    panic!("no loopback port P with P + 1 free in 100 tries");
}

/// Sends SIGINT (Ctrl-C) to process `pid`.
pub fn interrupt(pid: u32) {
    // SAFETY: kill has no memory effects; pid is a child of this test.
    let sent = unsafe { libc::kill(pid as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0, "kill -INT {pid}");
}

/// True, after saying so on stderr, when this process is not root: the
/// caller returns at once. `what` says what needs root.
pub fn skipped_without_root(test: &str, what: &str) -> bool {
    !nodebench_core::test_require::root(test, what)
}
