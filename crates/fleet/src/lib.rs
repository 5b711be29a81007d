//! Many nodes over the system OpenSSH client: a hosts file ([`hosts`]),
//! `fleet check` ([`check`]), `fleet run` ([`run`]): this nodebench copied
//! to each host when absent or different, run there with `--json`, its run
//! brought back for the caller to store; `fleet pair` ([`pair`]) and
//! `fleet http` ([`http`]). No agent, no protocol of our own:
//! `ssh` (BatchMode, ConnectTimeout, ControlMaster) and the hosts' POSIX
//! shell.

pub mod analysis;
pub mod error;
pub mod hosts;
pub mod http;
pub mod pair;
pub mod remote;
pub mod run;
pub mod ssh;

pub use error::Error;
use hosts::Host;
use remote::{Binaries, Probe};
use ssh::{HostError, Ssh};

/// What `fleet check` found on one host.
#[derive(Debug, Clone)]
pub struct Check {
    /// The host.
    pub host: Host,
    /// Its architecture, OS and copied binary, or why it could not be read.
    pub probe: Result<Probe, HostError>,
}

impl Check {
    /// Whether the host can run nodebench: reachable, and of an
    /// architecture there is a binary for.
    pub fn usable(&self, bins: &Binaries) -> bool {
        matches!(&self.probe, Ok(p) if bins.for_arch(&p.arch).is_some())
    }
}

/// Connects to every host (at most `parallel` at once) and reads what is
/// there; an unreachable host is reported, not fatal.
pub fn check(ssh: &Ssh, hosts: &[Host], parallel: usize) -> Vec<Check> {
    run::for_each_host(hosts, parallel, |host| Check {
        host: host.clone(),
        probe: ssh.connect(host).and_then(|()| remote::probe(ssh, host)),
    })
}

/// A new fleet run id: UTC time and this process, e.g. `20261125T091502Z-4711`.
pub fn fleet_id() -> String {
    format!(
        "{}-{}",
        chrono::Utc::now().format("%Y%m%dT%H%M%SZ"),
        std::process::id()
    )
}
