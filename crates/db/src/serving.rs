//! The database server a `--db` URL names, when it runs on this machine:
//! held as the server under test while a benchmark loads it, so that its
//! CPU time counts as the workload and not as a disturbance
//! ([`nodebench_machine::disturb::workload`]).

use std::path::PathBuf;

use nodebench_machine::disturb::workload::{self, Serving};

use crate::config::Target;

/// Where a server URL connects: a TCP host and port, or a unix socket.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Address {
    Tcp(String, u16),
    Unix(PathBuf),
}

/// The address of `url` (`SCHEME://[USER[:PASS]@]HOST[:PORT]/DB[?…]`):
/// MySQL's `?socket=PATH`, PostgreSQL's `?host=/DIR` (its socket
/// `DIR/.s.PGSQL.PORT`), else the host and port (3306 and 5432 by
/// default).
pub(crate) fn address(url: &str) -> Option<Address> {
    let (scheme, rest) = url.split_once("://")?;
    let (main, query) = rest.split_once('?').unwrap_or((rest, ""));
    let authority = main.split('/').next().unwrap_or("");
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let default_port = if scheme.starts_with("postgres") {
        5432
    } else {
        3306
    };
    let (host, port) = match hostport.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(':') && (!h.contains(':') || h.ends_with(']')) => {
            (h.to_string(), p.parse().ok()?)
        }
        _ => (hostport.to_string(), default_port),
    };
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("socket", p)) if scheme == "mysql" => return Some(Address::Unix(p.into())),
            Some(("host", d)) if scheme.starts_with("postgres") && d.starts_with('/') => {
                return Some(Address::Unix(
                    PathBuf::from(d).join(format!(".s.PGSQL.{port}")),
                ));
            }
            _ => {}
        }
    }
    Some(Address::Tcp(host, port))
}

/// The local server of `target`, held while the benchmark runs; `None`
/// for SQLite (in this process), another host, or a server whose
/// processes cannot be seen.
pub(crate) fn under_test(target: &Target) -> Option<Serving> {
    let url = match target {
        Target::Postgres(u) | Target::Mysql(u) => u,
        Target::Sqlite(_) => return None,
    };
    match address(url)? {
        Address::Tcp(host, port) => workload::serve_tcp(&host, port),
        Address::Unix(path) => workload::serve_unix(&path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_url_form_gives_its_address() {
        let tcp = |h: &str, p| Some(Address::Tcp(h.into(), p));
        assert_eq!(
            address("mysql://u:p@127.0.0.1:13306/db"),
            tcp("127.0.0.1", 13306)
        );
        assert_eq!(address("mysql://u@localhost/db"), tcp("localhost", 3306));
        assert_eq!(address("postgres://u:p@[::1]:15432/x"), tcp("[::1]", 15432));
        assert_eq!(
            address("postgresql://db.example.com/x"),
            tcp("db.example.com", 5432)
        );
        assert_eq!(
            address("mysql://u@localhost/db?socket=/run/mysqld/mysqld.sock"),
            Some(Address::Unix("/run/mysqld/mysqld.sock".into()))
        );
        assert_eq!(
            address("postgres://u@localhost:15432/db?host=/tmp/pg"),
            Some(Address::Unix("/tmp/pg/.s.PGSQL.15432".into()))
        );
        assert_eq!(address("not a url"), None);
    }
}
