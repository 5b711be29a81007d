//! Fan-out over hosts (up to `--parallel` at once) and `fleet run`: on each
//! host, connect, copy the binary when needed, run nodebench with `--json`
//! streaming its stderr back, and bring back its run. One host's failure
//! does not stop the others; a cancel stops every remote process and
//! removes what was copied.

use std::io::{BufRead, BufReader, Read};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use nodebench_core::bench::Cancel;
use nodebench_core::model::Run;

use crate::hosts::Host;
use crate::remote::{self, Binaries};
use crate::ssh::{HostError, Ssh, exit_text, tail};

/// How often a running remote command is checked for the end or a cancel.
const POLL: Duration = Duration::from_millis(50);

/// Calls `f` on every host, at most `parallel` at once; results in host order.
pub fn for_each_host<T: Send>(
    hosts: &[Host],
    parallel: usize,
    f: impl Fn(&Host) -> T + Sync,
) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<T>>> = Mutex::new(hosts.iter().map(|_| None).collect());
    thread::scope(|s| {
        for _ in 0..parallel.clamp(1, hosts.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(h) = hosts.get(i) else { break };
                    let r = f(h);
                    out.lock().unwrap()[i] = Some(r);
                }
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every host visited"))
        .collect()
}

/// What one host's `fleet run` came to.
#[derive(Debug, Clone)]
pub struct HostRun {
    /// The host.
    pub host: Host,
    /// Whether the binary was copied for this run.
    pub copied: bool,
    /// The run it printed (`--json`), if it printed one.
    pub run: Option<Run>,
    /// Why it failed (unreachable, refused, crashed, non-zero exit).
    pub error: Option<HostError>,
    /// Wall time on this host, connection included.
    pub elapsed: Duration,
}

/// A remote nodebench's end: its stdout, stderr and how it exited.
pub(crate) struct Finished {
    pub stdout: String,
    pub stderr: String,
    pub status: std::process::ExitStatus,
    pub cancelled: bool,
}

/// Runs the host's nodebench with `args` under `role`, passing each stderr
/// line to `progress`, until it exits or `cancel` is set (then it is stopped
/// remotely and waited for).
pub(crate) fn run_remote(
    ssh: &Ssh,
    host: &Host,
    role: &str,
    args: &[String],
    cancel: &Cancel,
    progress: &(dyn Fn(&Host, &str) + Sync),
) -> Result<Finished, HostError> {
    run_remote_at(ssh, host, role, args, None, cancel, progress)
}

/// [`run_remote`] starting at `at` (nanoseconds since the epoch on the
/// host's clock) when given.
pub(crate) fn run_remote_at(
    ssh: &Ssh,
    host: &Host,
    role: &str,
    args: &[String],
    at: Option<i64>,
    cancel: &Cancel,
    progress: &(dyn Fn(&Host, &str) + Sync),
) -> Result<Finished, HostError> {
    let mut child = remote::spawn(ssh, host, role, args, at)?;
    let mut stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    thread::scope(|s| {
        let out = s.spawn(move || {
            let mut text = String::new();
            let _ = stdout.read_to_string(&mut text);
            text
        });
        let err = s.spawn(move || {
            let mut text = String::new();
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                progress(host, &line);
                text.push_str(&line);
                text.push('\n');
            }
            text
        });
        let mut cancelled = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => break st,
                Ok(None) => {}
                Err(e) => return Err(HostError::new(format!("waiting for ssh: {e}"))),
            }
            if cancel.is_cancelled() && !cancelled {
                cancelled = true;
                // Stops the remote process; its ssh session then ends.
                if remote::stop(ssh, host, role).is_err() {
                    let _ = child.kill();
                }
            }
            thread::sleep(POLL);
        };
        Ok(Finished {
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
            status,
            cancelled,
        })
    })
}

/// A file `fleet run` puts in each host's directory for the run (a suite
/// file), removed afterwards.
#[derive(Debug, Clone)]
pub struct Upload {
    /// The local file.
    pub from: std::path::PathBuf,
    /// Its name in the host's directory (the run starts there, so `args`
    /// name it by this relative path).
    pub name: String,
    /// Its SHA-256, checked on the host.
    pub sha256: String,
}

/// `fleet run`: `args` (nodebench's arguments, `--json` and `--no-save`
/// added) on every host, at most `parallel` at once, with `uploads` in the
/// host's directory for the run.
#[allow(clippy::too_many_arguments)]
pub fn run_all(
    ssh: &Ssh,
    hosts: &[Host],
    local: &Binaries,
    args: &[String],
    uploads: &[Upload],
    parallel: usize,
    cancel: &Cancel,
    progress: &(dyn Fn(&Host, &str) + Sync),
) -> Vec<HostRun> {
    let mut full = vec![
        "--json".to_string(),
        "--no-save".to_string(),
        "--quiet".to_string(),
    ];
    full.extend(args.iter().cloned());
    for_each_host(hosts, parallel, |host| {
        let started = Instant::now();
        let mut report = HostRun {
            host: host.clone(),
            copied: false,
            run: None,
            error: None,
            elapsed: Duration::ZERO,
        };
        if cancel.is_cancelled() {
            report.error = Some(HostError::new("not started: interrupted"));
            return report;
        }
        let outcome = ssh.connect(host).and_then(|()| {
            report.copied = remote::deploy(ssh, host, local)?;
            for u in uploads {
                remote::put(ssh, host, &u.from, &u.name, &u.sha256)?;
            }
            let ran = run_remote(ssh, host, "run", &full, cancel, progress);
            let mut names: Vec<&str> = uploads.iter().map(|u| u.name.as_str()).collect();
            let pid = remote::pid_file_name("run");
            names.push(&pid);
            let _ = remote::remove(ssh, host, &names);
            ran
        });
        match outcome {
            Ok(f) => {
                report.run = serde_json::from_str::<Run>(f.stdout.trim()).ok();
                if f.cancelled {
                    report.error = Some(HostError {
                        message: "interrupted".into(),
                        stderr_tail: tail(&f.stderr),
                    });
                } else if !f.status.success() || report.run.is_none() {
                    let why = if f.status.success() {
                        "printed no run".to_string()
                    } else {
                        exit_text(&f.status)
                    };
                    report.error = Some(HostError {
                        message: format!("nodebench {why}"),
                        stderr_tail: tail(&f.stderr),
                    });
                }
            }
            Err(e) => report.error = Some(e),
        }
        if cancel.is_cancelled() && report.copied {
            // Interrupted: leave nothing behind.
            let _ = remote::remove(ssh, host, &["nodebench"]);
        }
        report.elapsed = started.elapsed();
        report
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visits_every_host_once_in_order() {
        let hosts: Vec<Host> = (0..7)
            .map(|i| Host {
                name: format!("h{i}"),
                destination: format!("h{i}"),
                labels: Default::default(),
                dir: "/d".into(),
                address: None,
                interface: None,
            })
            .collect();
        let seen = AtomicUsize::new(0);
        for parallel in [1, 3, 64] {
            let names = for_each_host(&hosts, parallel, |h| {
                seen.fetch_add(1, Ordering::Relaxed);
                h.name.clone()
            });
            let want: Vec<String> = hosts.iter().map(|h| h.name.clone()).collect();
            assert_eq!(names, want);
        }
        assert_eq!(seen.load(Ordering::Relaxed), 21);
        assert!(for_each_host(&[], 4, |h| h.name.clone()).is_empty());
    }
}
