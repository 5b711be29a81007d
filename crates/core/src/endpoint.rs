//! A page of the built-in HTTP server whose answer another area computes
//! (the database endpoint `/db/ir`, AS3AP's `ir_select` on a configured
//! database). Area crates never depend on each other: the http crate knows
//! only these traits, the db crate implements them and the CLI hands the
//! implementation to the server's config.
//!
//! The server opens one [`Handler`] per worker thread before it serves
//! (so a database endpoint holds one connection per server thread and a
//! bad target fails the start), and calls it on that worker for every
//! request of the endpoint's path.

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::bench::BenchError;

/// The answer of a [`Handler`]: a status and a text body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointReply {
    /// HTTP status code (200, 400 for a bad query, 404, 500 when the
    /// backend failed).
    pub status: u16,
    /// The body (sent as `text/plain`).
    pub body: String,
}

impl EndpointReply {
    /// A reply of `status` with `body`.
    pub fn new(status: u16, body: impl Into<String>) -> EndpointReply {
        EndpointReply {
            status,
            body: body.into(),
        }
    }
}

/// A dynamic endpoint of the built-in server: its path and a factory of
/// per-worker handlers.
pub trait Endpoint: Send + Sync {
    /// The path it answers (`/db/ir`), exactly, with or without a query.
    fn path(&self) -> &str;
    /// One line for the server's page list (`GET /`) and its banner: the
    /// path, its query parameters and what it answers from (never a
    /// password).
    fn help(&self) -> String;
    /// What it answers from, as results store it (`sqlite:/tmp/a.db`;
    /// never a password).
    fn target(&self) -> String;
    /// Checks what needs no I/O (the target's syntax): `Err` is one line
    /// naming the flag and the accepted form.
    fn validate(&self) -> Result<(), BenchError>;
    /// A handler for one server worker thread (for a database: its own
    /// connection, checked); `Err` is one line naming the flag.
    fn open(&self) -> Result<Box<dyn Handler>, BenchError>;
}

/// What one server worker calls for each request of the endpoint's path.
pub trait Handler: Send {
    /// The reply to a request with `query` (the text after `?`, if any).
    fn handle(&mut self, query: Option<&str>) -> EndpointReply;
}

/// The dynamic endpoints a server is configured with, shared by every
/// config that clones it. Equal when they answer the same paths from the
/// same targets.
#[derive(Clone, Default)]
pub struct Endpoints(pub Vec<Arc<dyn Endpoint>>);

impl Endpoints {
    /// No dynamic endpoint.
    pub fn none() -> Endpoints {
        Endpoints(Vec::new())
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Checks every endpoint ([`Endpoint::validate`]).
    pub fn validate(&self) -> Result<(), BenchError> {
        self.0.iter().try_for_each(|e| e.validate())
    }

    /// The endpoints' targets, `path=target` joined by `, ` (the
    /// results' parameter).
    pub fn targets(&self) -> String {
        self.0
            .iter()
            .map(|e| format!("{}={}", e.path(), e.target()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Debug for Endpoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|e| (e.path().to_string(), e.target())))
            .finish()
    }
}

impl PartialEq for Endpoints {
    fn eq(&self, other: &Endpoints) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(&other.0)
                .all(|(a, b)| a.path() == b.path() && a.target() == b.target())
    }
}

impl Eq for Endpoints {}

/// Makes the endpoint a `--db URL` asks for (the db crate's `/db/ir`).
pub type DbEndpoint = fn(String) -> Arc<dyn Endpoint>;

/// The [`DbEndpoint`] the binary provided.
static DB_ENDPOINT: OnceLock<DbEndpoint> = OnceLock::new();

/// Provides the endpoint of `--db`: the CLI, the one layer that links both
/// the http crate (which serves endpoints) and the db crate (which
/// answers `/db/ir`), calls it once at start.
pub fn provide_db(make: DbEndpoint) {
    let _ = DB_ENDPOINT.set(make);
}

/// The endpoint of `--db URL`: the provided one, else one whose check
/// says this build has none.
pub fn db(url: String) -> Arc<dyn Endpoint> {
    match DB_ENDPOINT.get() {
        Some(make) => make(url),
        None => Arc::new(NoDb),
    }
}

/// The `--db` endpoint of a build without the db crate.
struct NoDb;

impl Endpoint for NoDb {
    fn path(&self) -> &str {
        "/db/ir"
    }

    fn help(&self) -> String {
        "/db/ir (not in this build)".into()
    }

    fn target(&self) -> String {
        String::new()
    }

    fn validate(&self) -> Result<(), BenchError> {
        Err(BenchError::Invalid(
            "--db: this build has no database endpoint (the db crate is not linked)".into(),
        ))
    }

    fn open(&self) -> Result<Box<dyn Handler>, BenchError> {
        Err(self.validate().unwrap_err())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo(&'static str);

    impl Endpoint for Echo {
        fn path(&self) -> &str {
            "/echo"
        }
        fn help(&self) -> String {
            "/echo  the query".into()
        }
        fn target(&self) -> String {
            self.0.into()
        }
        fn validate(&self) -> Result<(), BenchError> {
            Ok(())
        }
        fn open(&self) -> Result<Box<dyn Handler>, BenchError> {
            Ok(Box::new(EchoHandler))
        }
    }

    struct EchoHandler;

    impl Handler for EchoHandler {
        fn handle(&mut self, query: Option<&str>) -> EndpointReply {
            EndpointReply::new(200, query.unwrap_or(""))
        }
    }

    #[test]
    fn endpoints_compare_by_path_and_target() {
        let a = Endpoints(vec![Arc::new(Echo("x"))]);
        assert_eq!(a, a.clone());
        assert_ne!(a, Endpoints(vec![Arc::new(Echo("y"))]));
        assert_ne!(a, Endpoints::none());
        assert_eq!(a.targets(), "/echo=x");
        assert_eq!(format!("{a:?}"), r#"[("/echo", "x")]"#);
        let mut h = a.0[0].open().unwrap();
        assert_eq!(h.handle(Some("k=1")), EndpointReply::new(200, "k=1"));
    }
}
