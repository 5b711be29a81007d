//! What lies between this machine and a target: itself (loopback, or one of
//! its own addresses, so no wire at all) or a network interface with the line
//! rate the driver reports, which download and sweep results are set against.

use std::net::SocketAddr;

use nodebench_core::route;

/// The path to a target.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The egress interface (`lo` for loopback).
    pub interface: String,
    /// The target is this machine: the traffic never reaches a wire.
    pub local: bool,
    /// The interface's line rate in bytes/s (`/sys/class/net/IF/speed`), when
    /// the target is remote and the driver reports one.
    pub line_rate: Option<f64>,
}

impl Link {
    /// One line for reports: `loopback (no link limit)`, `eth0 at 10 Gbit/s`.
    pub fn describe(&self) -> String {
        match (self.local, self.line_rate) {
            (true, _) => format!("{} (this machine: no link limit)", self.interface),
            (false, Some(r)) => format!("{} at {} Mbit/s", self.interface, r * 8.0 / 1e6),
            (false, None) => format!("{} (line rate unknown)", self.interface),
        }
    }
}

/// The path to `peer`, or None when the route cannot be learnt.
pub fn link_to(peer: SocketAddr) -> Option<Link> {
    let egress = route::egress_to(peer)?;
    let local = peer.ip().is_loopback() || egress.local == peer.ip();
    let line_rate = if local {
        None
    } else {
        line_rate_of(&egress.interface)
    };
    Some(Link {
        interface: egress.interface,
        local,
        line_rate,
    })
}

/// The interface's speed in bytes/s from sysfs (Mbit/s there); None for
/// virtual interfaces, which report -1 or refuse the read.
fn line_rate_of(interface: &str) -> Option<f64> {
    let text = std::fs::read_to_string(format!("/sys/class/net/{interface}/speed")).ok()?;
    let mbit: i64 = text.trim().parse().ok()?;
    (mbit > 0).then(|| mbit as f64 * 1e6 / 8.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_local_without_a_line_rate() {
        let l = link_to("127.0.0.1:80".parse().unwrap()).unwrap();
        assert!(l.local);
        assert_eq!(l.line_rate, None);
        assert!(l.describe().contains("no link limit"), "{}", l.describe());
    }
}
