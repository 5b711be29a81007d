//! The system OpenSSH client, nothing else: one multiplexing master per host
//! (ControlMaster, its socket in a private directory), every call in batch
//! mode (no password prompt) with a connect timeout. `~/.ssh/config`, jump
//! hosts and agents work as they do for `ssh` itself.

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crate::hosts::{Host, Hosts};

/// The `ssh` program run (the system client, found on PATH).
const SSH: &str = "ssh";

/// Lines of a failing command's stderr kept for its report.
pub const STDERR_TAIL_LINES: usize = 5;

/// The connection to a set of hosts: their masters and the options every
/// call gets. Dropping it closes the masters and removes their sockets.
#[derive(Debug)]
pub struct Ssh {
    config: Option<PathBuf>,
    control_dir: PathBuf,
    connect_timeout: Duration,
    opened: Mutex<BTreeSet<String>>,
}

/// A refusal or failure of one host, with the tail of what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    /// What went wrong, one line.
    pub message: String,
    /// The last lines of the stderr of the command that failed.
    pub stderr_tail: Vec<String>,
}

impl HostError {
    /// An error without stderr.
    pub fn new(message: impl Into<String>) -> HostError {
        HostError {
            message: message.into(),
            stderr_tail: Vec::new(),
        }
    }
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if let Some(last) = self.stderr_tail.last() {
            write!(f, ": {last}")?;
        }
        Ok(())
    }
}

/// The last [`STDERR_TAIL_LINES`] non-empty lines of `text`.
pub fn tail(text: &str) -> Vec<String> {
    let lines: Vec<String> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..].to_vec()
}

/// `s` as one word for the remote POSIX shell.
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

impl Ssh {
    /// Options for `hosts` (its ssh config file), a private directory for
    /// the masters' sockets, and `connect_timeout` for every connection.
    pub fn new(hosts: &Hosts, connect_timeout: Duration) -> Result<Ssh, crate::Error> {
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let control_dir = std::env::temp_dir().join(format!(
            "nodebench-ssh-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&control_dir).map_err(|e| {
            crate::Error::Local(format!("cannot create {}: {e}", control_dir.display()))
        })?;
        Ok(Ssh {
            config: hosts.ssh_config.clone(),
            control_dir,
            connect_timeout,
            opened: Mutex::new(BTreeSet::new()),
        })
    }

    fn base(&self, control_master: &str) -> Command {
        let mut c = Command::new(SSH);
        if let Some(cfg) = &self.config {
            c.arg("-F").arg(cfg);
        }
        c.args(["-o", "BatchMode=yes"])
            .arg("-o")
            .arg(format!(
                "ConnectTimeout={}",
                self.connect_timeout.as_secs().max(1)
            ))
            .arg("-o")
            .arg(format!("ControlMaster={control_master}"))
            .arg("-o")
            .arg(format!(
                "ControlPath={}",
                self.control_dir.join("%C").display()
            ));
        // Its own process group: a Ctrl-C at the terminal reaches nodebench
        // only, which then stops the remote processes itself.
        c.process_group(0);
        c
    }

    /// Opens the master connection to `host` (authenticating once); the
    /// error is ssh's own last line (refused, timed out, denied).
    pub fn connect(&self, host: &Host) -> Result<(), HostError> {
        let log = self.control_dir.join(format!("{}.log", host.name));
        let file = fs::File::create(&log).map_err(|e| HostError::new(e.to_string()))?;
        let status = self
            .base("yes")
            // Closed by Drop; the bound only matters if nodebench is killed.
            .args(["-o", "ControlPersist=10m", "-N", "-f", "--"])
            .arg(&host.destination)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .status()
            .map_err(|e| HostError::new(format!("cannot run {SSH}: {e}")))?;
        if status.success() {
            self.opened.lock().unwrap().insert(host.destination.clone());
            return Ok(());
        }
        let text = fs::read_to_string(&log).unwrap_or_default();
        Err(HostError {
            message: "unreachable".into(),
            stderr_tail: tail(&text),
        })
    }

    /// `remote` (a POSIX shell command line) on `host`, not yet started.
    pub fn command(&self, host: &Host, remote: &str) -> Command {
        let mut c = self.base("no");
        c.arg("--").arg(&host.destination).arg(remote);
        c
    }

    /// Runs `remote` on `host` with `stdin` (when given) fed from a file,
    /// and waits for it.
    pub fn run(
        &self,
        host: &Host,
        remote: &str,
        stdin: Option<&Path>,
    ) -> Result<Output, HostError> {
        let mut c = self.command(host, remote);
        match stdin {
            Some(p) => {
                let f = fs::File::open(p)
                    .map_err(|e| HostError::new(format!("cannot read {}: {e}", p.display())))?;
                c.stdin(f);
            }
            None => {
                c.stdin(Stdio::null());
            }
        }
        c.output()
            .map_err(|e| HostError::new(format!("cannot run {SSH}: {e}")))
    }

    /// Runs `remote` on `host` and returns its stdout; a non-zero exit is an
    /// error carrying `what` and the stderr tail.
    pub fn run_ok(&self, host: &Host, remote: &str, what: &str) -> Result<String, HostError> {
        let out = self.run(host, remote, None)?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
        }
        Err(HostError {
            message: format!("{what} failed ({})", exit_text(&out.status)),
            stderr_tail: tail(&String::from_utf8_lossy(&out.stderr)),
        })
    }
}

/// `exit N` or `killed by signal N`.
pub fn exit_text(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(255), _) => "ssh exit 255: connection lost or refused".into(),
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        (None, None) => "no exit status".into(),
    }
}

impl Drop for Ssh {
    fn drop(&mut self) {
        let opened = std::mem::take(&mut *self.opened.lock().unwrap());
        for dest in opened {
            let _ = self
                .base("no")
                .args(["-O", "exit", "--"])
                .arg(&dest)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = fs::remove_dir_all(&self.control_dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_for_the_remote_shell() {
        assert_eq!(quote("net"), "net");
        assert_eq!(quote("--threads=1,2"), "--threads=1,2");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("$(x)"), "'$(x)'");
    }

    #[test]
    fn keeps_the_last_lines() {
        let text = "1\n2\n\n3\n4\n5\n6\n7\n";
        assert_eq!(tail(text), vec!["3", "4", "5", "6", "7"]);
        assert!(tail("").is_empty());
    }
}
