//! `fleet pair`: network tests between two hosts. For each pair (the first
//! host serves), nodebench's `net serve` (for `download`, the built-in HTTP
//! server) starts on the server host, the client test runs on the other
//! host against the server's `address`, and
//! the client's run comes back with both sides' interface, MTU and route.
//! With MTUs given, both hosts' `interface` is set to each MTU in turn and
//! put back afterwards.

use std::time::Duration;

use nodebench_core::bench::Cancel;
use nodebench_core::config::Choice;
use nodebench_core::model::Run;

use crate::hosts::Host;
use crate::remote::{self, Binaries};
use crate::run::{for_each_host, run_remote};
use crate::ssh::{HostError, Ssh, exit_text, quote, tail};

nodebench_core::choice! {
    /// A test `fleet pair` runs between two hosts.
    pub enum PairTest {
        /// TCP throughput (`net tcp`).
        Tcp => "tcp",
        /// UDP throughput (`net udp`).
        Udp => "udp",
        /// TCP and UDP round trips (`net pingpong`).
        Pingpong => "pingpong",
        /// One large HTTP download from the built-in server (`http
        /// download`, the E3-1220 node-pair report's 10 GB wget), for the test's duration.
        Download => "download",
    }
}

/// What the download test fetches: more than any link moves in a test's
/// duration (the client stops at `--max-time`, keeping what arrived).
pub const DOWNLOAD_PATH: &str = "/bytes/1T";

/// What `fleet pair` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PairConfig {
    /// The tests, in order, for each pair and MTU.
    pub tests: Vec<PairTest>,
    /// MTUs to set on both hosts' interfaces in turn (empty: leave as is).
    pub mtus: Vec<u32>,
    /// Length of each throughput test, and of each ping-pong size.
    pub duration: Duration,
    /// The server's iperf3 port (the echo uses the next one; the HTTP
    /// server of the download test listens on it too).
    pub port: u16,
    /// Ping-pong runs one cell, the link matrix's latency: TCP, 1-byte
    /// messages, one thread (`--matrix`); else every size, thread count
    /// and protocol.
    pub pingpong_one_cell: bool,
}

/// One side of a pair as it was during a test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideInfo {
    /// The host's interface (from the hosts file), if named.
    pub interface: Option<String>,
    /// That interface's MTU then.
    pub mtu: Option<u32>,
    /// `ip route get PEER` on the host: the path to the other side.
    pub route: String,
}

/// One test between two hosts.
#[derive(Debug, Clone)]
pub struct PairRun {
    /// The host that served.
    pub server: String,
    /// The host that ran the client (its run's `host`).
    pub client: String,
    /// The test.
    pub test: PairTest,
    /// The MTU set for it, if `--mtu` was given.
    pub mtu: Option<u32>,
    /// The client's run.
    pub run: Option<Run>,
    /// The server side's interface, MTU and route.
    pub server_side: Option<SideInfo>,
    /// The client side's interface, MTU and route.
    pub client_side: Option<SideInfo>,
    /// Why it failed.
    pub error: Option<HostError>,
}

/// Every unordered pair of `hosts` (by index), the first of each serving.
pub fn all_pairs(hosts: &[Host]) -> Vec<(usize, usize)> {
    every_pair(hosts.len()).collect()
}

/// Every unordered pair of `n` hosts, the lower index first.
fn every_pair(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(move |a| (a + 1..n).map(move |b| (a, b)))
}

/// How many pairs `n` hosts make: n(n-1)/2.
pub fn pair_count(n: usize) -> usize {
    n * n.saturating_sub(1) / 2
}

/// The pairs `fleet pair` runs past `--max-pairs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// (server, client) by host index, in the order they run.
    pub pairs: Vec<(usize, usize)>,
    /// How many of `pairs`, at their head, are the ring (0: every pair).
    pub ring: usize,
    /// The random pairs' seed, where the plan has a ring.
    pub seed: Option<u64>,
}

/// Every pair of `n` hosts when there are at most `max_pairs`; otherwise
/// a ring through every host (h1 serves h2, h2 serves h3, ..., hn serves
/// h1) and, up to `max_pairs`, pairs drawn at random (seeded by `seed`:
/// the same seed, the same plan) among those the ring does not hold, the
/// lower host serving. Refused when `max_pairs` is below the ring.
pub fn plan(n: usize, max_pairs: usize, seed: u64) -> Result<Plan, crate::Error> {
    let all = pair_count(n);
    if all <= max_pairs {
        return Ok(Plan {
            pairs: every_pair(n).collect(),
            ring: 0,
            seed: None,
        });
    }
    if max_pairs < n {
        return Err(crate::Error::Usage(format!(
            "--max-pairs: {max_pairs} cannot cover the {n} hosts, whose ring alone is {n} pairs (accepted: {n} to {all})"
        )));
    }
    let key = |a: usize, b: usize| (a.min(b), a.max(b));
    let mut pairs: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    let mut taken: std::collections::HashSet<(usize, usize)> =
        pairs.iter().map(|&(a, b)| key(a, b)).collect();
    let want = max_pairs - n;
    let left = all - n;
    let mut rng = nodebench_core::rng::XorShift64::new(nodebench_core::rng::splitmix64(seed));
    if want * 2 <= left {
        // Few of many: draw and redraw the pairs already taken.
        while pairs.len() < max_pairs {
            let a = rng.below(n as u64) as usize;
            let mut b = rng.below(n as u64 - 1) as usize;
            if b >= a {
                b += 1;
            }
            if taken.insert(key(a, b)) {
                pairs.push(key(a, b));
            }
        }
    } else {
        // Most of them: shuffle the rest and take the head.
        let mut rest: Vec<(usize, usize)> = every_pair(n).filter(|p| !taken.contains(p)).collect();
        for i in 0..want {
            let j = i + rng.below((rest.len() - i) as u64) as usize;
            rest.swap(i, j);
        }
        rest.truncate(want);
        pairs.extend(rest);
    }
    Ok(Plan {
        pairs,
        ring: n,
        seed: Some(seed),
    })
}

/// A seed for [`plan`] when none is given: the clock and this process.
pub fn new_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // Printed and typed back as --seed: kept to 53 bits.
    nodebench_core::rng::splitmix64(nanos ^ u64::from(std::process::id())) >> 11
}

/// Checks that the hosts have what the config needs (an `address` each; an
/// `interface` each with MTUs), one line naming the host and the key.
pub fn check_hosts(hosts: &[Host], cfg: &PairConfig) -> Result<(), crate::Error> {
    if hosts.len() < 2 {
        return Err(crate::Error::Usage("fleet pair needs at least two hosts (accepted: a hosts file or --only with two or more)".into()));
    }
    for h in hosts {
        if h.address.is_none() {
            return Err(crate::Error::Usage(format!(
                "host '{}' has no address (accepted: address = \"IP\" the other hosts reach it at)",
                h.name
            )));
        }
        if !cfg.mtus.is_empty() && h.interface.is_none() {
            return Err(crate::Error::Usage(format!(
                "host '{}' has no interface, needed by --mtu (accepted: interface = \"eth1\")",
                h.name
            )));
        }
    }
    Ok(())
}

/// The MTU of `host`'s interface.
fn read_mtu(ssh: &Ssh, host: &Host) -> Result<Option<u32>, HostError> {
    let Some(iface) = &host.interface else {
        return Ok(None);
    };
    let out = ssh.run_ok(
        host,
        &format!("cat /sys/class/net/{}/mtu", quote(iface)),
        "reading the MTU",
    )?;
    Ok(out.trim().parse().ok())
}

/// Sets `host`'s interface to `mtu`.
fn set_mtu(ssh: &Ssh, host: &Host, mtu: u32) -> Result<(), HostError> {
    let iface = host.interface.as_deref().unwrap_or_default();
    ssh.run_ok(
        host,
        &format!("ip link set dev {} mtu {mtu}", quote(iface)),
        &format!("setting the MTU of {iface} to {mtu}"),
    )
    .map(|_| ())
}

/// `host`'s interface, its MTU now and its route to `peer`.
fn side(ssh: &Ssh, host: &Host, peer: &Host) -> Result<SideInfo, HostError> {
    let addr = peer.address.as_deref().unwrap_or_default();
    let route = ssh.run_ok(
        host,
        &format!("ip route get {}", quote(addr)),
        "ip route get",
    )?;
    Ok(SideInfo {
        interface: host.interface.clone(),
        mtu: read_mtu(ssh, host)?,
        route: route.lines().next().unwrap_or_default().trim().to_string(),
    })
}

/// The client's nodebench arguments for `test` against `server`.
fn client_args(test: PairTest, server: &str, cfg: &PairConfig) -> Vec<String> {
    let mut a: Vec<String> = ["--json", "--no-save", "--quiet", "net"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let secs = format!("{}ms", cfg.duration.as_millis().max(1));
    match test {
        PairTest::Tcp | PairTest::Udp => {
            a.push(test.as_str().into());
            a.extend([
                server.to_string(),
                "-p".into(),
                cfg.port.to_string(),
                "-t".into(),
                secs,
            ]);
        }
        PairTest::Pingpong => {
            a.push("pingpong".into());
            a.extend([
                server.to_string(),
                "-p".into(),
                cfg.port.to_string(),
                "--duration".into(),
                secs,
            ]);
            if cfg.pingpong_one_cell {
                a.extend(
                    ["--protocols", "tcp", "--sizes", "1", "--threads", "1"].map(String::from),
                );
            }
        }
        PairTest::Download => {
            a[3] = "http".into();
            let host = if server.contains(':') {
                format!("[{server}]")
            } else {
                server.to_string()
            };
            a.extend([
                "download".into(),
                format!("http://{host}:{}{DOWNLOAD_PATH}", cfg.port),
                "--max-time".into(),
                secs,
            ]);
        }
    }
    a
}

/// The server's nodebench arguments for `test` on `addr`.
fn server_args(test: PairTest, addr: &str, cfg: &PairConfig) -> Vec<String> {
    let area = if test == PairTest::Download {
        "http"
    } else {
        "net"
    };
    [
        area,
        "serve",
        "--bind",
        addr,
        "--port",
        &cfg.port.to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Runs every test of `cfg` for every pair (one pair at a time, so tests
/// never share a link), at each MTU; restores the MTUs it changed.
pub fn run_pairs(
    ssh: &Ssh,
    hosts: &[Host],
    pairs: &[(usize, usize)],
    local: &Binaries,
    cfg: &PairConfig,
    cancel: &Cancel,
    progress: &(dyn Fn(&Host, &str) + Sync),
) -> Vec<PairRun> {
    // Connect, copy the binary and read the MTUs, every host at once.
    let ready: Vec<Result<Option<u32>, HostError>> = for_each_host(hosts, hosts.len(), |h| {
        ssh.connect(h)?;
        remote::deploy(ssh, h, local)?;
        read_mtu(ssh, h)
    });
    let mtus: Vec<Option<u32>> = if cfg.mtus.is_empty() {
        vec![None]
    } else {
        cfg.mtus.iter().map(|m| Some(*m)).collect()
    };
    let mut out = Vec::new();
    for mtu in mtus {
        let mut set_error: Option<HostError> = None;
        if let Some(m) = mtu {
            for (h, r) in hosts.iter().zip(&ready) {
                if r.is_ok()
                    && let Err(e) = set_mtu(ssh, h, m)
                {
                    set_error = Some(HostError {
                        message: format!("host '{}': {}", h.name, e.message),
                        stderr_tail: e.stderr_tail,
                    });
                }
            }
        }
        for &(s, c) in pairs {
            for &test in &cfg.tests {
                let (server, client) = (&hosts[s], &hosts[c]);
                let mut pr = PairRun {
                    server: server.name.clone(),
                    client: client.name.clone(),
                    test,
                    mtu,
                    run: None,
                    server_side: None,
                    client_side: None,
                    error: None,
                };
                pr.error = if cancel.is_cancelled() {
                    Some(HostError::new("not started: interrupted"))
                } else if let Some(e) = &set_error {
                    Some(e.clone())
                } else if let Err(e) = &ready[s] {
                    Some(HostError {
                        message: format!("server '{}': {}", server.name, e.message),
                        stderr_tail: e.stderr_tail.clone(),
                    })
                } else if let Err(e) = &ready[c] {
                    Some(HostError {
                        message: format!("client '{}': {}", client.name, e.message),
                        stderr_tail: e.stderr_tail.clone(),
                    })
                } else {
                    one_test(ssh, server, client, test, cfg, cancel, progress, &mut pr).err()
                };
                out.push(pr);
            }
        }
    }
    // Put the MTUs back.
    if !cfg.mtus.is_empty() {
        for (h, r) in hosts.iter().zip(&ready) {
            if let Ok(Some(m)) = r {
                let _ = set_mtu(ssh, h, *m);
            }
        }
    }
    out
}

/// How long the client retries while the server is not yet listening.
const SERVER_START: Duration = Duration::from_secs(10);

#[allow(clippy::too_many_arguments)]
fn one_test(
    ssh: &Ssh,
    server: &Host,
    client: &Host,
    test: PairTest,
    cfg: &PairConfig,
    cancel: &Cancel,
    progress: &(dyn Fn(&Host, &str) + Sync),
    pr: &mut PairRun,
) -> Result<(), HostError> {
    let addr = server.address.clone().unwrap_or_default();
    let serve = server_args(test, &addr, cfg);
    let mut served = remote::spawn(ssh, server, "serve", &serve, None)?;
    let result = (|| {
        pr.server_side = Some(side(ssh, server, client)?);
        pr.client_side = Some(side(ssh, client, server)?);
        let args = client_args(test, &addr, cfg);
        let started = std::time::Instant::now();
        loop {
            let f = run_remote(ssh, client, "pair", &args, cancel, progress)?;
            let run = serde_json::from_str::<Run>(f.stdout.trim()).ok();
            let refused = f.stderr.contains("refused");
            if f.status.success() && run.is_some() {
                pr.run = run;
                return Ok(());
            }
            if !(refused && started.elapsed() < SERVER_START) || f.cancelled {
                pr.run = run;
                return Err(HostError {
                    message: format!(
                        "client on '{}': nodebench {}",
                        client.name,
                        exit_text(&f.status)
                    ),
                    stderr_tail: tail(&f.stderr),
                });
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    })();
    let _ = remote::stop(ssh, server, "serve");
    let _ = served.kill();
    let _ = served.wait();
    let _ = remote::remove(ssh, server, &[&remote::pid_file_name("serve")]);
    let _ = remote::remove(ssh, client, &[&remote::pid_file_name("pair")]);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, address: Option<&str>, interface: Option<&str>) -> Host {
        Host {
            name: name.into(),
            destination: name.into(),
            labels: Default::default(),
            dir: "/d".into(),
            address: address.map(Into::into),
            interface: interface.map(Into::into),
        }
    }

    fn cfg(mtus: Vec<u32>) -> PairConfig {
        PairConfig {
            tests: vec![PairTest::Tcp],
            mtus,
            duration: Duration::from_secs(1),
            port: 5201,
            pingpong_one_cell: false,
        }
    }

    #[test]
    fn pairs_every_two_hosts_once() {
        let hs: Vec<Host> = ["a", "b", "c"]
            .iter()
            .map(|n| host(n, Some("x"), None))
            .collect();
        assert_eq!(all_pairs(&hs), vec![(0, 1), (0, 2), (1, 2)]);
        assert!(all_pairs(&hs[..1]).is_empty());
    }

    /// Every host is on a pair of `p`, no pair twice (either way round),
    /// none of a host with itself.
    fn check_plan(p: &Plan, n: usize) {
        let mut seen = std::collections::HashSet::new();
        for &(a, b) in &p.pairs {
            assert!(a < n && b < n && a != b, "{a},{b}");
            assert!(seen.insert((a.min(b), a.max(b))), "{a},{b} twice");
        }
        for h in 0..n {
            assert!(p.pairs.iter().any(|&(a, b)| a == h || b == h), "host {h}");
        }
    }

    #[test]
    fn past_max_pairs_a_ring_and_seeded_random_pairs_cover_every_host() {
        // At or under the limit: every pair, no seed.
        let p = plan(5, 10, 7).unwrap();
        assert_eq!((p.pairs.len(), p.ring, p.seed), (10, 0, None));
        check_plan(&p, 5);

        // 200 hosts, 19,900 pairs, 500 allowed: the ring, then 300 drawn.
        let p = plan(200, 500, 42).unwrap();
        assert_eq!(pair_count(200), 19_900);
        assert_eq!((p.pairs.len(), p.ring, p.seed), (500, 200, Some(42)));
        check_plan(&p, 200);
        for i in 0..200 {
            assert_eq!(p.pairs[i], (i, (i + 1) % 200));
        }
        // The same seed, the same plan; another seed, other random pairs.
        assert_eq!(plan(200, 500, 42).unwrap(), p);
        let q = plan(200, 500, 43).unwrap();
        assert_eq!(q.pairs[..200], p.pairs[..200]);
        assert_ne!(q.pairs[200..], p.pairs[200..]);
        check_plan(&q, 200);

        // Most of the pairs: the shuffled rest, still each once.
        let p = plan(30, 400, 9).unwrap();
        assert_eq!((p.pairs.len(), p.ring), (400, 30));
        check_plan(&p, 30);
        assert_eq!(plan(30, 400, 9).unwrap(), p);
        // One short of every pair.
        let p = plan(30, 434, 1).unwrap();
        assert_eq!(p.pairs.len(), 434);
        check_plan(&p, 30);

        // Below the ring: refused, naming the flag and the range.
        assert_eq!(
            plan(12, 11, 1).unwrap_err().to_string(),
            "--max-pairs: 11 cannot cover the 12 hosts, whose ring alone is 12 pairs (accepted: 12 to 66)"
        );
        assert_eq!(
            plan(3, 2, 1).unwrap_err().to_string().split(':').next(),
            Some("--max-pairs")
        );
        // Two hosts: their one pair.
        assert_eq!(plan(2, 1, 1).unwrap().pairs, vec![(0, 1)]);
        assert!(new_seed() < 1 << 53);
    }

    #[test]
    fn needs_addresses_and_interfaces_for_mtus() {
        let a = host("a", Some("10.0.0.1"), None);
        let b = host("b", None, None);
        assert!(
            check_hosts(std::slice::from_ref(&a), &cfg(vec![]))
                .unwrap_err()
                .to_string()
                .contains("at least two hosts")
        );
        assert_eq!(
            check_hosts(&[a.clone(), b], &cfg(vec![]))
                .unwrap_err()
                .to_string(),
            "host 'b' has no address (accepted: address = \"IP\" the other hosts reach it at)"
        );
        let c = host("c", Some("10.0.0.3"), Some("eth0"));
        assert!(check_hosts(&[a.clone(), c.clone()], &cfg(vec![])).is_ok());
        assert_eq!(
            check_hosts(&[c, a], &cfg(vec![9000]))
                .unwrap_err()
                .to_string(),
            "host 'a' has no interface, needed by --mtu (accepted: interface = \"eth1\")"
        );
    }

    #[test]
    fn client_commands() {
        let c = cfg(vec![]);
        assert_eq!(
            client_args(PairTest::Tcp, "10.0.0.1", &c).join(" "),
            "--json --no-save --quiet net tcp 10.0.0.1 -p 5201 -t 1000ms"
        );
        assert_eq!(
            client_args(PairTest::Pingpong, "10.0.0.1", &c).join(" "),
            "--json --no-save --quiet net pingpong 10.0.0.1 -p 5201 --duration 1000ms"
        );
        assert_eq!(
            client_args(PairTest::Download, "10.0.0.1", &c).join(" "),
            "--json --no-save --quiet http download http://10.0.0.1:5201/bytes/1T --max-time 1000ms"
        );
        assert_eq!(
            client_args(PairTest::Download, "fd00::1", &c)[5],
            "http://[fd00::1]:5201/bytes/1T"
        );
        assert_eq!(
            server_args(PairTest::Download, "10.0.0.1", &c).join(" "),
            "http serve --bind 10.0.0.1 --port 5201"
        );
        assert_eq!(
            server_args(PairTest::Tcp, "10.0.0.1", &c).join(" "),
            "net serve --bind 10.0.0.1 --port 5201"
        );
        let one = PairConfig {
            pingpong_one_cell: true,
            ..c.clone()
        };
        assert_eq!(
            client_args(PairTest::Pingpong, "10.0.0.1", &one).join(" "),
            "--json --no-save --quiet net pingpong 10.0.0.1 -p 5201 --duration 1000ms --protocols tcp --sizes 1 --threads 1"
        );
        assert_eq!("udp".parse::<PairTest>().unwrap(), PairTest::Udp);
        assert_eq!("download".parse::<PairTest>().unwrap(), PairTest::Download);
    }
}
