//! What each client thread runs: its share of the connections, the
//! request budget it claims from, and the open model's schedule (every
//! request's planned send time) or httperf's connection schedule.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::config::{LoadConfig, Model};

/// An open-model request whose connection was free at its planned time but
/// that went out more than this late counts as sent late: the client itself
/// fell behind. Both engines use it.
pub const LATE_SLACK: Duration = Duration::from_millis(2);

/// What one worker thread does.
#[derive(Debug, Clone)]
pub struct ThreadPlan {
    /// Thread index, 0-based.
    pub index: usize,
    /// Worker threads in the run.
    pub threads: usize,
    /// Connections this thread keeps open (closed and open model); with
    /// `ConnRate`, how many connections this thread opens in all.
    pub connections: u32,
    /// Global index of this thread's first connection (its connections are
    /// `first_connection .. first_connection + connections`).
    pub first_connection: u64,
    /// Connections across all threads.
    pub total_connections: u64,
    /// Requests each connection carries at once (HTTP/2 `--streams`, else
    /// 1). The closed and open models run `connections` x `streams` request
    /// slots; slot `s` rides on connection `s / streams`.
    pub streams: u32,
    /// Open model: the run's total request rate (requests/s); `ConnRate`:
    /// the run's total connection rate (connections/s); 0 in the closed model.
    pub rate: f64,
    /// Requests (closed and open model) or connections (`ConnRate`) left to
    /// claim, one at a time with [`ThreadPlan::claim`]; `u64::MAX` when
    /// unbounded. Shared by all threads except with `ConnRate`, where each
    /// thread has its own share.
    pub budget: Arc<AtomicU64>,
    /// Open model: requests in all (`-n`), when bounded by count. Request
    /// `i` of request slot `j` is place `j + i*C` of the schedule and
    /// exists only below this count (see [`ThreadPlan::slot_exists`]), so a
    /// slot knows when it is done without waiting for its next turn.
    pub open_requests: Option<u64>,
    /// When the run started (the open-model schedule counts from here).
    pub start: Instant,
    /// No new request starts at or after this instant (`-t`, `--duration`).
    pub deadline: Option<Instant>,
}

impl ThreadPlan {
    /// Claims one unit of the budget; false when it is spent.
    pub fn claim(&self) -> bool {
        self.budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                if n == 0 {
                    None
                } else if n == u64::MAX {
                    Some(n)
                } else {
                    Some(n - 1)
                }
            })
            .is_ok()
    }

    /// Request slots this thread runs: `connections` x `streams`.
    pub fn slots(&self) -> usize {
        self.connections as usize * self.streams as usize
    }

    /// Open model: when request `i` (0-based) of this thread's request slot
    /// `local` is due. Slot `j` of `C` (one per connection, or `--streams`
    /// per HTTP/2 connection) at total rate `R` sends at
    /// `start + (j + i*C) / R`, so the run's sends are evenly spaced at `R`.
    pub fn planned(&self, local: usize, i: u64) -> Instant {
        let (j, c) = self.global_slot(local);
        let slot = j as f64 + i as f64 * c as f64;
        self.start + Duration::from_secs_f64(slot / self.rate)
    }

    /// Open model: whether request `i` of this thread's request slot `local`
    /// is part of the run (always, when the run is bounded by time only).
    pub fn slot_exists(&self, local: usize, i: u64) -> bool {
        let (j, c) = self.global_slot(local);
        self.open_requests.is_none_or(|n| {
            i.checked_mul(c)
                .and_then(|x| x.checked_add(j))
                .is_some_and(|slot| slot < n)
        })
    }

    /// The run-wide index of this thread's slot `local`, and the run's
    /// slot count.
    fn global_slot(&self, local: usize) -> (u64, u64) {
        let streams = u64::from(self.streams.max(1));
        (
            self.first_connection * streams + local as u64,
            self.total_connections * streams,
        )
    }

    /// `ConnRate`: when this thread's `k`-th connection (0-based) is due to
    /// open. Connections are dealt to threads in turn, so the run opens them
    /// evenly spaced at the total rate.
    pub fn conn_planned(&self, k: u64) -> Instant {
        let slot = (k * self.threads as u64 + self.index as u64) as f64;
        self.start + Duration::from_secs_f64(slot / self.rate)
    }

    /// True once `now` is at or past the deadline.
    pub fn past_deadline(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|d| now >= d)
    }
}

/// Builds one plan per client thread for `cfg`, starting at `start`:
/// `cfg.threads`, or fewer when there are fewer connections.
pub fn plans(cfg: &LoadConfig, start: Instant) -> Vec<ThreadPlan> {
    let threads = cfg.threads.max(1);
    let (total_connections, rate, deadline, budget) = match cfg.model {
        Model::Closed {
            requests,
            concurrency,
            time_limit,
        } => (
            concurrency as u64,
            0.0,
            time_limit.map(|t| start + t),
            requests.unwrap_or(u64::MAX),
        ),
        Model::Open {
            rate,
            connections,
            requests,
            duration,
        } => (
            connections as u64,
            rate,
            duration.map(|t| start + t),
            requests.unwrap_or(u64::MAX),
        ),
        Model::ConnRate {
            conn_rate,
            connections,
            ..
        } => (connections, conn_rate, None, connections),
    };
    let conn_rate = matches!(cfg.model, Model::ConnRate { .. });
    // A thread without a connection would have nothing to do.
    let threads = threads.min(total_connections.max(1) as usize);
    let shared = Arc::new(AtomicU64::new(budget));
    let mut first = 0u64;
    (0..threads)
        .map(|i| {
            let share = |n: u64| n / threads as u64 + u64::from((i as u64) < n % threads as u64);
            let (connections, budget) = if conn_rate {
                // Each thread opens its own share of the connections.
                let mine = share(total_connections);
                (
                    mine.min(u64::from(u32::MAX)) as u32,
                    Arc::new(AtomicU64::new(mine)),
                )
            } else {
                (share(total_connections) as u32, shared.clone())
            };
            let plan = ThreadPlan {
                index: i,
                threads,
                connections,
                first_connection: first,
                total_connections,
                streams: if conn_rate { 1 } else { cfg.streams.max(1) },
                rate,
                budget,
                open_requests: match cfg.model {
                    Model::Open { requests, .. } => requests,
                    _ => None,
                },
                start,
                deadline,
            };
            first += u64::from(connections);
            plan
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::Target;

    fn cfg(model: Model, threads: usize) -> LoadConfig {
        LoadConfig {
            threads,
            ..LoadConfig::new(Target::parse("http://127.0.0.1:8080/x?y").unwrap(), model)
        }
    }

    #[test]
    fn plans_split_connections_and_share_the_budget() {
        let c = cfg(
            Model::Closed {
                requests: Some(10),
                concurrency: 5,
                time_limit: None,
            },
            2,
        );
        let p = plans(&c, Instant::now());
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].connections + p[1].connections, 5);
        assert_eq!(p[1].first_connection, u64::from(p[0].connections));
        let mut claimed = 0;
        while p[claimed % 2].claim() {
            claimed += 1;
        }
        assert_eq!(claimed, 10);
        assert!(!p[1].claim());
    }

    #[test]
    fn open_model_schedule_is_evenly_spaced() {
        let c = cfg(
            Model::Open {
                rate: 100.0,
                connections: 4,
                requests: None,
                duration: Some(Duration::from_secs(1)),
            },
            2,
        );
        let t0 = Instant::now();
        let p = plans(&c, t0);
        let mut times: Vec<Duration> = Vec::new();
        for plan in &p {
            for local in 0..plan.connections as usize {
                for i in 0..25 {
                    times.push(plan.planned(local, i) - t0);
                }
            }
        }
        times.sort();
        for (k, t) in times.iter().enumerate() {
            let want = k as f64 / 100.0;
            assert!((t.as_secs_f64() - want).abs() < 1e-6, "{k}: {t:?}");
        }
        assert_eq!(p[0].budget.load(Ordering::Relaxed), u64::MAX);
        assert!(p[0].claim());
        assert!(p[1].slot_exists(1, 1_000_000));

        // Bounded by count: 10 requests over 4 connections are slots 0..9,
        // so connections 0 and 1 send 3 and connections 2 and 3 send 2.
        let mut c = c;
        c.model = Model::Open {
            rate: 100.0,
            connections: 4,
            requests: Some(10),
            duration: None,
        };
        let p = plans(&c, t0);
        let sends: Vec<u64> = p
            .iter()
            .flat_map(|plan| {
                (0..plan.connections as usize)
                    .map(move |l| (0..10).take_while(|&i| plan.slot_exists(l, i)).count() as u64)
            })
            .collect();
        assert_eq!(sends, vec![3, 3, 2, 2]);
    }

    #[test]
    fn http2_streams_multiply_the_slots_and_keep_them_evenly_spaced() {
        let mut c = cfg(
            Model::Open {
                rate: 60.0,
                connections: 3,
                requests: None,
                duration: Some(Duration::from_secs(1)),
            },
            2,
        );
        c.streams = 4;
        let t0 = Instant::now();
        let p = plans(&c, t0);
        // Whole connections go to threads: 2 and 1, with 4 slots each.
        assert_eq!(p.iter().map(|p| p.slots()).collect::<Vec<_>>(), vec![8, 4]);
        let mut times: Vec<Duration> = p
            .iter()
            .flat_map(|plan| {
                (0..plan.slots()).flat_map(move |l| (0..5).map(move |i| plan.planned(l, i) - t0))
            })
            .collect();
        times.sort();
        assert_eq!(times.len(), 60);
        for (k, t) in times.iter().enumerate() {
            let want = k as f64 / 60.0;
            assert!((t.as_secs_f64() - want).abs() < 1e-6, "{k}: {t:?}");
        }
        // --conn-rate connections carry one call at a time.
        c.model = Model::ConnRate {
            conn_rate: 10.0,
            calls_per_conn: 2,
            connections: 4,
        };
        assert!(plans(&c, t0).iter().all(|p| p.streams == 1));
    }
}
