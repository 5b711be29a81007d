//! The load loops of the tokio engine, one task per request slot: the
//! closed model (ab), the open model (wrk2) and the connection rate
//! (httperf), and the request each of them sends.

use std::rc::Rc;
use std::time::Instant;

use tokio::task::JoinHandle;

use super::engine::{Conn, Engine, Fail, Reply, drop_conn};
use super::http2::Shared;
use crate::client::plan::LATE_SLACK;
use crate::config::Model;
use crate::stats::{ErrorKind, Exchange};

/// How a request ended, for the task that sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    /// The reply completed.
    Replied,
    /// The request failed (counted).
    Failed,
    /// The run was cancelled or the thread gave up: abandoned, uncounted.
    Halted,
}

impl Engine {
    /// Runs the model to its end: one task per request slot (closed and
    /// open model) or the connection schedule (`ConnRate`).
    pub(super) async fn run(self: Rc<Self>, model: &Model) {
        // Ends with the run (the set is dropped when `run` returns).
        tokio::task::spawn_local(self.clone().watch_cancel());
        let tasks: Vec<JoinHandle<()>> = match model {
            Model::Closed { .. } => (0..self.plan.slots())
                .zip(self.shared_connections())
                .map(|(_, shared)| tokio::task::spawn_local(self.clone().closed_slot(shared)))
                .collect(),
            Model::Open { .. } => (0..self.plan.slots())
                .zip(self.shared_connections())
                .map(|(local, shared)| {
                    tokio::task::spawn_local(self.clone().open_slot(local, shared))
                })
                .collect(),
            Model::ConnRate { .. } => vec![tokio::task::spawn_local(self.clone().conn_rate())],
        };
        for t in tasks {
            let _ = t.await;
        }
    }

    /// For each request slot in turn, the [`Shared`] connection it rides
    /// on: `--streams` consecutive slots share one; none when each slot has
    /// its own connection.
    fn shared_connections(&self) -> impl Iterator<Item = Option<Rc<Shared>>> {
        let streams = self.plan.streams.max(1) as usize;
        (0..self.plan.connections).flat_map(move |_| {
            let shared = (streams > 1).then(|| Rc::new(Shared::default()));
            std::iter::repeat_n(shared, streams)
        })
    }

    /// Closed model: one request slot's requests (a connection's, or one
    /// stream's of a shared HTTP/2 connection), each claimed from the shared
    /// budget when the previous one completed, until `-n` or `-t`.
    async fn closed_slot(self: Rc<Self>, shared: Option<Rc<Shared>>) {
        let mut conn = None;
        let shared = shared.as_deref();
        // Bounded by the budget (-n) or the deadline (-t): one is always set.
        while !self.halted() && !self.plan.past_deadline(Instant::now()) && self.plan.claim() {
            if self.request(&mut conn, shared, None).await == Sent::Halted {
                break;
            }
        }
    }

    /// Open model: request slot `local`'s requests at their planned times.
    async fn open_slot(self: Rc<Self>, local: usize, shared: Option<Rc<Shared>>) {
        let mut conn = None;
        let shared = shared.as_deref();
        // When the connection last became free (its previous request ended).
        let mut free = Instant::now();
        // Bounded by the budget or the deadline (one is always set): `i`
        // moves the planned time past the deadline.
        for i in 0u64.. {
            let due = self.plan.planned(local, i);
            if self.plan.past_deadline(due) {
                break;
            }
            if !self.wait_and_claim(due).await {
                break;
            }
            if free <= due && Instant::now().saturating_duration_since(due) > LATE_SLACK {
                self.stats.borrow_mut().sent_late += 1;
            }
            if self.request(&mut conn, shared, Some(due)).await == Sent::Halted {
                break;
            }
            free = Instant::now();
        }
    }

    /// Connection rate: opens this thread's connections at their planned
    /// times, each making its calls in its own task.
    async fn conn_rate(self: Rc<Self>) {
        let mut live: Vec<JoinHandle<()>> = Vec::new();
        for k in 0..u64::from(self.plan.connections) {
            let due = self.plan.conn_planned(k);
            if !self.wait_and_claim(due).await {
                break;
            }
            if Instant::now().saturating_duration_since(due) > LATE_SLACK {
                self.stats.borrow_mut().sent_late += 1;
            }
            live.retain(|t| !t.is_finished());
            live.push(tokio::task::spawn_local(self.clone().calls(due)));
        }
        for t in live {
            let _ = t.await;
        }
    }

    /// Waits until `due` and claims one request (open model) or connection
    /// (`ConnRate`) from the budget; false when the run halted first or the
    /// budget is spent.
    async fn wait_and_claim(&self, due: Instant) -> bool {
        let slept = self.or_halt(tokio::time::sleep_until(due.into())).await;
        slept.is_some() && self.plan.claim()
    }

    /// Connection rate: one connection's calls, one after the other, the
    /// first planned at the connection's due time; a failed call ends it.
    async fn calls(self: Rc<Self>, due: Instant) {
        let mut conn = None;
        for call in 0..self.calls_per_conn {
            let planned = (call == 0).then_some(due);
            if self.request(&mut conn, None, planned).await != Sent::Replied {
                break;
            }
        }
    }

    /// Sends one request on `conn` (opening one, or joining `shared`'s,
    /// when there is none) and records its reply or error. The timeout
    /// counts from the start, connect included: expiring while connecting
    /// is a socket timeout, after that a client timeout.
    async fn request(
        &self,
        conn: &mut Option<Conn>,
        shared: Option<&Shared>,
        planned: Option<Instant>,
    ) -> Sent {
        let sent = Instant::now();
        let attempt = self.attempt(conn, shared, sent + self.timeout);
        let Some(outcome) = self.or_halt(attempt).await else {
            return Sent::Halted;
        };
        let result = match outcome {
            Ok(reply) => {
                if reply.close || self.close_each {
                    drop_conn(conn, shared);
                }
                let mut s = self.stats.borrow_mut();
                let length_mismatch = (200..300).contains(&reply.status)
                    && s.document_length.is_some_and(|d| d != reply.body_bytes);
                s.record_exchange(&Exchange {
                    planned,
                    sent,
                    first_byte: reply.first_byte,
                    done: Instant::now(),
                    status: reply.status,
                    header_bytes: reply.header_bytes,
                    body_bytes: reply.body_bytes,
                    length_mismatch,
                });
                Sent::Replied
            }
            Err(kind) => {
                drop_conn(conn, shared);
                self.stats.borrow_mut().record_error(kind);
                Sent::Failed
            }
        };
        if self.halted() { Sent::Halted } else { result }
    }

    /// Connects (or joins `shared`'s connection) if needed and exchanges
    /// one request and reply by `deadline`; a reused connection the server
    /// closed is replaced once.
    async fn attempt(
        &self,
        conn: &mut Option<Conn>,
        shared: Option<&Shared>,
        deadline: Instant,
    ) -> Result<Reply, ErrorKind> {
        let deadline = tokio::time::Instant::from(deadline);
        for _ in 0..2 {
            let c = match conn {
                Some(c) => c,
                None => {
                    let opening = async {
                        match shared {
                            Some(shared) => self.join(shared).await,
                            None => self.connect().await,
                        }
                    };
                    let opened = tokio::time::timeout_at(deadline, opening)
                        .await
                        .map_err(|_| ErrorKind::SocketTimeout)??;
                    conn.insert(opened)
                }
            };
            let reused = c.reused();
            let exchanged = tokio::time::timeout_at(deadline, self.exchange(c))
                .await
                .map_err(|_| ErrorKind::ClientTimeout)?;
            match exchanged {
                Ok(reply) => return Ok(reply),
                Err(Fail::Closed(_)) if reused => drop_conn(conn, shared),
                Err(Fail::Closed(kind) | Fail::Error(kind)) => return Err(kind),
            }
        }
        Err(ErrorKind::Receive)
    }
}
