//! The quick suite's HTTP part: starts the built-in server on an ephemeral
//! loopback port inside this process, runs a short closed-model load (ab -k
//! style) and a short open-model load (wrk2 style) against its 3985-byte
//! page, and stops it. Each load's result is checked against the server's
//! own count: the responses the server wrote must equal the replies the
//! client completed, or the result is marked failed.

use std::time::Duration;

use chrono::Utc;
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::Config;

use crate::config::InProcessServer;
use crate::in_process::Running;
use crate::load::{LoadConfig, Model, load_result, run_load};
use crate::url::Target;

/// Short closed- and open-model loads against an in-process server.
#[derive(Debug, Clone)]
pub struct HttpLoopback {
    /// Length of the closed-model run.
    pub closed_time: Duration,
    /// Connections of the closed-model run.
    pub closed_concurrency: u32,
    /// Length of the open-model run.
    pub open_time: Duration,
    /// Requests per second of the open-model run.
    pub open_rate: f64,
    /// Connections of the open-model run.
    pub open_connections: u32,
}

impl Default for HttpLoopback {
    /// 2 s closed at c=10, 2 s open at 2000 requests/s over 10 connections.
    fn default() -> Self {
        HttpLoopback {
            closed_time: Duration::from_secs(2),
            closed_concurrency: 10,
            open_time: Duration::from_secs(2),
            open_rate: 2000.0,
            open_connections: 10,
        }
    }
}

/// The page the loads fetch: a 3985-byte static page, the size of a small
/// HTML page in a web-server comparison.
const PAGE: &str = "/3985";

impl HttpLoopback {
    /// The closed-model and the open-model load against `target`.
    fn loads(&self, target: Target) -> [LoadConfig; 2] {
        let closed = LoadConfig {
            timeout: Duration::from_secs(5),
            ..LoadConfig::new(
                target,
                Model::Closed {
                    requests: None,
                    concurrency: self.closed_concurrency,
                    time_limit: Some(self.closed_time),
                },
            )
        };
        let open = LoadConfig {
            model: Model::Open {
                rate: self.open_rate,
                connections: self.open_connections,
                requests: None,
                duration: Some(self.open_time),
            },
            ..closed.clone()
        };
        [closed, open]
    }
}

impl Benchmark for HttpLoopback {
    fn id(&self) -> &'static str {
        nodebench_core::names::http::LOOPBACK
    }

    /// Both loads' checks, against a placeholder target (the server's
    /// address is known only once it runs).
    fn validate(&self) -> Result<(), BenchError> {
        self.loads(Target::default())
            .iter()
            .try_for_each(|load| load.validate())
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let mut server = Running::start(&InProcessServer {
            enabled: true,
            threads: None,
        })?
        .ok_or_else(|| BenchError::System("the built-in server did not start".into()))?;
        let target = server.target(&Target {
            path_and_query: PAGE.into(),
            ..Target::default()
        });
        ctx.progress.start("http loopback", 2);
        for cfg in self.loads(target) {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let started_at = Utc::now();
            let outcome = run_load(&cfg, &ctx.cancel)?;
            let mut result = load_result(&cfg, &outcome);
            server.check(&mut result, outcome.stats.completed);
            result.started_at = started_at;
            result.ended_at = Utc::now();
            ctx.sink.record(result)?;
            ctx.progress.advance(1);
        }
        ctx.progress.finish();
        server.stop();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    #[test]
    fn validate_checks_both_loads() {
        assert!(HttpLoopback::default().validate().is_ok());
        let slow = HttpLoopback {
            open_rate: 0.0,
            ..HttpLoopback::default()
        };
        assert_eq!(
            slow.validate().unwrap_err().to_string(),
            "--rate: expected a positive rate per second, got 0"
        );
    }

    #[test]
    fn closed_and_open_loads_match_the_server_count() {
        let out = collect(
            &HttpLoopback {
                closed_time: Duration::from_millis(300),
                open_time: Duration::from_millis(300),
                ..HttpLoopback::default()
            },
            &Inventory::default(),
            Cancel::new(),
        )
        .unwrap();
        assert_eq!(out.len(), 2);
        for (r, model) in out.iter().zip(["closed", "open"]) {
            assert_eq!(r.benchmark, "http.load");
            assert_eq!(r.parameters["model"], model);
            assert_eq!(r.status, ResultStatus::Passed, "{model}: {:?}", r.error);
            let completed = r
                .metrics
                .iter()
                .find(|m| m.name == "requests_completed")
                .unwrap()
                .value;
            assert!(completed > 0.0, "{model}");
            assert_eq!(
                r.parameters["server_requests_served"],
                serde_json::json!(completed as u64),
                "{model}: server count = client count"
            );
        }
    }
}
