//! The server's dynamic endpoints (core's `Endpoint`, such as the db
//! crate's `/db/ir`): each worker's handlers, opened before serving, and
//! the routing of a request to them.

use nodebench_core::endpoint::Handler;

use super::ServerConfig;
use super::endpoints::{self, ENDPOINTS, Reply};

/// A dynamic endpoint's path and one worker's handler of it.
pub(super) struct Dynamic {
    path: String,
    /// Its line in the page list.
    help: String,
    handler: Box<dyn Handler>,
}

/// Each worker's handlers of `config`'s endpoints (a database endpoint:
/// one connection per worker); the first refusal, one line naming the flag.
pub(super) fn open(config: &ServerConfig) -> Result<Vec<Vec<Dynamic>>, String> {
    config.endpoints.validate().map_err(|e| e.to_string())?;
    (0..config.threads)
        .map(|_| {
            config
                .endpoints
                .0
                .iter()
                .map(|e| {
                    Ok(Dynamic {
                        path: e.path().to_string(),
                        help: e.help(),
                        handler: e.open().map_err(|e| e.to_string())?,
                    })
                })
                .collect()
        })
        .collect()
}

/// The reply of the dynamic endpoint whose path `path` is, given the
/// request's `query`, or the page list with the dynamic endpoints' lines
/// for `/`; `None` for the other paths and methods, which
/// [`endpoints::route`] answers.
pub(super) fn route(
    dynamic: &mut [Dynamic],
    method: &str,
    path: &str,
    query: Option<&str>,
) -> Option<Reply> {
    if dynamic.is_empty() || !matches!(method, "GET" | "HEAD" | "POST") {
        return None;
    }
    if path == "/" {
        let mut list = format!("nodebench http serve\n{ENDPOINTS}\nConfigured here:\n");
        for d in dynamic.iter() {
            list.push_str(&format!("  {}\n", d.help));
        }
        return Some(Reply::Now(endpoints::Response::text(200, list)));
    }
    let d = dynamic.iter_mut().find(|d| d.path == path)?;
    let reply = d.handler.handle(query);
    Some(Reply::Now(endpoints::Response::text(
        reply.status,
        reply.body,
    )))
}
