//! The server under test. A database or web server on this machine that a
//! benchmark loads (`db as3ap --db mysql://…@127.0.0.1`, `http load` of a
//! local nginx) does the benchmark's work in its own processes: their CPU
//! time is the workload, not a disturbance. A benchmark that targets such a
//! server holds a [`Serving`] while it runs; every span that overlaps it
//! counts that server's process and its descendants (PostgreSQL's
//! per-connection backends) apart, as `under_test`, and leaves them out of
//! the other processes' share and of the top list.
//!
//! The server is found by its listening socket: the TCP port on a loopback
//! address (`<procfs>/net/tcp`, `tcp6`) or the unix socket's path
//! (`<procfs>/net/unix`), then the process holding that socket's inode
//! among its file descriptors. Another user's descriptors are readable by
//! root only: a run that cannot see them finds no server and counts it
//! with the other processes, as before.

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use crate::sysroot::Roots;

/// One registration: the server's pids (the processes that hold its
/// listening socket), from when to when (open while running).
#[derive(Debug, Clone)]
struct Entry {
    id: u64,
    pids: Vec<u32>,
    from: Instant,
    until: Option<Instant>,
}

static REGISTRY: Mutex<(u64, Vec<Entry>)> = Mutex::new((0, Vec::new()));

/// A server under test, held while a benchmark loads it; dropping it ends
/// the registration (spans after that count the server as another process
/// again).
#[derive(Debug)]
pub struct Serving {
    id: u64,
    /// The pids found.
    pub pids: Vec<u32>,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let mut r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        for e in r.1.iter_mut().filter(|e| e.id == self.id) {
            e.until = Some(now);
        }
    }
}

/// The server listening on TCP `port` of `host`, when `host` is this
/// machine's loopback (`localhost`, 127.0.0.0/8, ::1): `None` for another
/// host or where no process's socket could be read.
pub fn serve_tcp(host: &str, port: u16) -> Option<Serving> {
    serve_tcp_at(&Roots::from_env(), host, port)
}

/// [`serve_tcp`] under `roots`.
pub fn serve_tcp_at(roots: &Roots, host: &str, port: u16) -> Option<Serving> {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    let loopback =
        h.eq_ignore_ascii_case("localhost") || h.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        return None;
    }
    let mut inodes = BTreeSet::new();
    for table in ["net/tcp", "net/tcp6"] {
        if let Ok(text) = std::fs::read_to_string(roots.proc(table)) {
            inodes.extend(tcp_listeners(&text, port));
        }
    }
    register(roots, &inodes)
}

/// The server listening on the unix socket at `path`.
pub fn serve_unix(path: &Path) -> Option<Serving> {
    serve_unix_at(&Roots::from_env(), path)
}

/// [`serve_unix`] under `roots`.
pub fn serve_unix_at(roots: &Roots, path: &Path) -> Option<Serving> {
    let text = std::fs::read_to_string(roots.proc("net/unix")).ok()?;
    let inodes: BTreeSet<u64> = unix_listeners(&text, path).into_iter().collect();
    register(roots, &inodes)
}

/// The inodes of the listening sockets on `port` in a `/proc/net/tcp` or
/// `tcp6` table (`sl local_address rem_address st … inode`, the address
/// `HEX:PORT`, LISTEN being state `0A`).
pub fn tcp_listeners(table: &str, port: u16) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let local_port = f.get(1)?.rsplit(':').next()?;
            let listening = *f.get(3)? == "0A";
            (listening && u16::from_str_radix(local_port, 16).ok()? == port)
                .then(|| f.get(9)?.parse().ok())
                .flatten()
        })
        .collect()
}

/// The inodes of the listening sockets bound to `path` in `/proc/net/unix`
/// (`Num RefCount Protocol Flags Type St Inode Path`; a listener has the
/// `__SO_ACCEPTCON` flag, 0x10000).
pub fn unix_listeners(table: &str, path: &Path) -> Vec<u64> {
    let want = path.to_string_lossy();
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let flags = u32::from_str_radix(f.get(3)?, 16).ok()?;
            let listening = flags & 0x10000 != 0;
            (listening && *f.get(7)? == want)
                .then(|| f.get(6)?.parse().ok())
                .flatten()
        })
        .collect()
}

/// The pids holding any of `inodes` among their descriptors
/// (`<procfs>/[pid]/fd/*` linking to `socket:[INODE]`).
pub fn holders(roots: &Roots, inodes: &BTreeSet<u64>) -> Vec<u32> {
    if inodes.is_empty() {
        return Vec::new();
    }
    let Ok(dir) = std::fs::read_dir(roots.proc("")) else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = dir
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let fds = std::fs::read_dir(e.path().join("fd")).ok()?;
            fds.flatten()
                .any(|fd| {
                    std::fs::read_link(fd.path()).is_ok_and(|l| {
                        l.to_str()
                            .and_then(|s| s.strip_prefix("socket:["))
                            .and_then(|s| s.strip_suffix(']'))
                            .and_then(|n| n.parse().ok())
                            .is_some_and(|n: u64| inodes.contains(&n))
                    })
                })
                .then_some(pid)
        })
        .collect();
    pids.sort_unstable();
    pids
}

fn register(roots: &Roots, inodes: &BTreeSet<u64>) -> Option<Serving> {
    let pids: Vec<u32> = holders(roots, inodes)
        .into_iter()
        .filter(|p| *p != crate::procs::own_pid())
        .collect();
    if pids.is_empty() {
        return None;
    }
    let mut r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    r.0 += 1;
    let id = r.0;
    r.1.push(Entry {
        id,
        pids: pids.clone(),
        from: Instant::now(),
        until: None,
    });
    Some(Serving { id, pids })
}

/// The pids of the servers under test during any part of `from..to`.
pub fn during(from: Instant, to: Instant) -> Vec<u32> {
    let r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let mut pids: Vec<u32> =
        r.1.iter()
            .filter(|e| e.from < to && e.until.is_none_or(|u| u > from))
            .flat_map(|e| e.pids.iter().copied())
            .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/proc/net/tcp` of a machine where MariaDB listens on 127.0.0.1:13306
    /// (0x33FA) and a client is connected to it.
    const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:33FA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   106        0 48213 1 0000000000000000 100 0 0 10 0
   1: 0100007F:9C41 0100007F:33FA 01 00000000:00000000 00:00000000 00000000     0        0 51877 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:33FA 0100007F:9C41 01 00000000:00000000 00:00000000 00000000   106        0 51878 1 0000000000000000 20 4 31 10 -1
";
    /// `/proc/net/unix` with PostgreSQL's socket listening and one
    /// connected client.
    const UNIX: &str = "Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 39021 /tmp/pg/.s.PGSQL.15432
0000000000000000: 00000003 00000000 00000000 0001 03 39100 /tmp/pg/.s.PGSQL.15432
0000000000000000: 00000002 00000000 00010000 0001 01 30001 /run/other.sock
";

    #[test]
    fn finds_the_listener_of_a_port_and_not_its_connections() {
        assert_eq!(tcp_listeners(TCP, 13306), vec![48213]);
        assert!(tcp_listeners(TCP, 40001).is_empty());
        assert_eq!(
            unix_listeners(UNIX, Path::new("/tmp/pg/.s.PGSQL.15432")),
            vec![39021]
        );
    }

    #[test]
    fn another_host_is_never_the_server_under_test() {
        let roots = Roots::under(Path::new("/nonexistent-nb"));
        assert!(serve_tcp_at(&roots, "db.example.com", 3306).is_none());
        assert!(serve_tcp_at(&roots, "10.0.0.5", 3306).is_none());
    }

    #[test]
    fn this_process_listening_is_found_registered_and_released() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        // This process is left out: its own time is counted as its own.
        assert!(serve_tcp("127.0.0.1", port).is_none());
        let roots = Roots::from_env();
        let mut inodes = BTreeSet::new();
        for t in ["net/tcp", "net/tcp6"] {
            let text = std::fs::read_to_string(roots.proc(t)).unwrap_or_default();
            inodes.extend(tcp_listeners(&text, port));
        }
        assert_eq!(inodes.len(), 1, "the listener of port {port}");
        assert_eq!(holders(&roots, &inodes), vec![std::process::id()]);
    }

    #[test]
    fn a_registration_covers_the_spans_it_overlaps() {
        let before = Instant::now();
        let s = {
            let mut r = REGISTRY.lock().unwrap();
            r.0 += 1;
            let id = r.0;
            r.1.push(Entry {
                id,
                pids: vec![4_000_001],
                from: Instant::now(),
                until: None,
            });
            Serving {
                id,
                pids: vec![4_000_001],
            }
        };
        let during_it = Instant::now();
        assert!(during(before, during_it).contains(&4_000_001));
        drop(s);
        let after = Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(during(before, after).contains(&4_000_001));
        assert!(!during(Instant::now(), Instant::now()).contains(&4_000_001));
    }
}
