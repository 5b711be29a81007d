//! A headless Chromium driven through the DevTools protocol over
//! `--remote-debugging-pipe` (JSON messages ended by NUL on fds 3 and 4):
//! loads a page and reports what it logged, what it fetched and the value
//! of an expression evaluated in it. The pipe needs no WebSocket, so no
//! client crate; the protocol is Chromium's own.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one protocol answer or the page's load may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The Chromium binary: `$NODEBENCH_CHROMIUM`, else `chromium`,
/// `chromium-browser` or `google-chrome` on the PATH.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NODEBENCH_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| {
            ["chromium", "chromium-browser", "google-chrome"].map(|name| dir.join(name))
        })
        .find(|p| p.is_file())
}

/// What a page did while it loaded.
pub struct PageLoad {
    /// Console errors and warnings, uncaught exceptions and log entries of
    /// level error or warning, as text.
    pub console: Vec<String>,
    /// Every URL requested other than the page itself.
    pub requests: Vec<String>,
    /// The value `expression` evaluated to after the load.
    pub value: Value,
}

/// A running headless Chromium with one page attached.
pub struct Browser {
    child: Child,
    to_chrome: File,
    events: Receiver<Value>,
    session: String,
    next_id: u64,
    _profile: tempfile::TempDir,
}

/// A pipe as (read end, write end).
fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array on success.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "pipe2: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors are new and owned by nobody else.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

impl Browser {
    /// Starts `chromium` headless (without its sandbox, which root cannot
    /// use) on a blank page and attaches to it.
    pub fn start(chromium: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let (chrome_reads, we_write) = pipe();
        let (we_read, chrome_writes) = pipe();
        let (r, w) = (chrome_reads.as_raw_fd(), chrome_writes.as_raw_fd());
        let mut cmd = Command::new(chromium);
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--remote-debugging-pipe",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls (dup2, fcntl) between fork
        // and exec; they put the pipe ends on fds 3 and 4 without CLOEXEC.
        unsafe {
            cmd.pre_exec(move || {
                for (from, to) in [(r, 3), (w, 4)] {
                    if libc::dup2(from, to) < 0 || libc::fcntl(to, libc::F_SETFD, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("chromium starts");
        drop((chrome_reads, chrome_writes));
        let (tx, events) = channel();
        let reader = File::from(we_read);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            let mut buf = Vec::new();
            while reader.read_until(0, &mut buf).unwrap_or(0) > 0 {
                buf.pop_if(|b| *b == 0);
                if let Ok(v) = serde_json::from_slice::<Value>(&buf)
                    && tx.send(v).is_err()
                {
                    return;
                }
                buf.clear();
            }
        });
        let mut b = Browser {
            child,
            to_chrome: File::from(we_write),
            events,
            session: String::new(),
            next_id: 0,
            _profile: profile,
        };
        let target = b.call(None, "Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"].as_str().unwrap().to_string();
        let attached = b.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        b.session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in [
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
            "Page.enable",
        ] {
            let session = b.session.clone();
            b.call(Some(&session), domain, json!({}));
        }
        b
    }

    /// Sends `method` (to the page when `session` is given) and waits for
    /// its result; events that arrive meanwhile are kept in `seen`.
    fn call_keeping(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        seen: &mut Vec<Value>,
    ) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.to_chrome.write_all(&bytes).unwrap();
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self
                .events
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("{method}: no answer from chromium: {e}"));
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {}", v["error"]);
                return v["result"].clone();
            }
            seen.push(v);
        }
    }

    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        let mut ignored = Vec::new();
        self.call_keeping(session, method, params, &mut ignored)
    }

    /// Loads `file`, waits for its load event, then evaluates `expression`
    /// (by value) in it.
    pub fn load(&mut self, file: &Path, expression: &str) -> PageLoad {
        let url = format!("file://{}", file.canonicalize().unwrap().display());
        let session = self.session.clone();
        let mut seen = Vec::new();
        self.call_keeping(
            Some(&session),
            "Page.navigate",
            json!({"url": url}),
            &mut seen,
        );
        let deadline = Instant::now() + TIMEOUT;
        while !seen.iter().any(|e| e["method"] == "Page.loadEventFired") {
            let left = deadline.saturating_duration_since(Instant::now());
            let e = self
                .events
                .recv_timeout(left)
                .expect("the page's load event");
            seen.push(e);
        }
        let value = self.call_keeping(
            Some(&session),
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
            &mut seen,
        );
        let mut load = PageLoad {
            console: Vec::new(),
            requests: Vec::new(),
            value: value["result"]["value"].clone(),
        };
        for e in &seen {
            let p = &e["params"];
            match e["method"].as_str() {
                Some("Runtime.consoleAPICalled")
                    if matches!(p["type"].as_str(), Some("error" | "warning" | "assert")) =>
                {
                    load.console.push(p["args"].to_string())
                }
                Some("Runtime.exceptionThrown") => load.console.push(p.to_string()),
                Some("Log.entryAdded")
                    if matches!(p["entry"]["level"].as_str(), Some("error" | "warning")) =>
                {
                    load.console.push(p["entry"]["text"].to_string())
                }
                Some("Network.requestWillBeSent") => {
                    let requested = p["request"]["url"].as_str().unwrap_or_default();
                    if requested != url {
                        load.requests.push(requested.to_string());
                    }
                }
                _ => {}
            }
        }
        load
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.next_id += 1;
        let close = json!({"id": self.next_id, "method": "Browser.close", "params": {}});
        let mut bytes = serde_json::to_vec(&close).unwrap();
        bytes.push(0);
        if self.to_chrome.write_all(&bytes).is_ok() {
            let _ = self.events.recv_timeout(Duration::from_secs(5));
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
