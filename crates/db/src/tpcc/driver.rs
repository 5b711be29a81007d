//! The terminals: one connection and thread each, terminal `i` bound to
//! warehouse `i % W + 1` (and, for Stock-Level, district `i / W % 10 +
//! 1`), drawing the transaction mix 45/43/4/4/4 (clause 5.2.3's minimums
//! for the four others, New-Order the rest) until the window ends; with
//! `--spec-timing`, the keying and think times of clause 5.2.5.7 around
//! each. A transaction the engine fails (deadlock, serialization failure,
//! lock wait timeout) is rolled back and run again with the same input,
//! counted by kind; any other error fails it for good, counted.

use std::time::{Duration, Instant};

use hdrhistogram::Histogram as Hdr;
use nodebench_core::bench::Cancel;
use nodebench_core::latency;
use nodebench_core::names::db::tpcc::txn;

use super::random::Rng;
use super::txn::{self as t, Done, Input, Scale, Texts};
use crate::engine::{Connector, DbError, ErrorKind, Isolation, IsolationSet};

/// The five transactions, in the order figures list them.
pub const KINDS: [&str; 5] = [
    txn::NEW_ORDER,
    txn::PAYMENT,
    txn::ORDER_STATUS,
    txn::DELIVERY,
    txn::STOCK_LEVEL,
];

/// The mix, percent, in [`KINDS`]' order.
pub const MIX: [u64; 5] = [45, 43, 4, 4, 4];

/// Keying and think times (mean), seconds (clause 5.2.5.7).
const TIMING: [(f64, f64); 5] = [
    (18.0, 12.0),
    (3.0, 12.0),
    (2.0, 10.0),
    (2.0, 5.0),
    (2.0, 5.0),
];

/// Retryable error kinds, in the order tallies count them.
pub const RETRY_KINDS: [ErrorKind; 3] = [
    ErrorKind::Deadlock,
    ErrorKind::Serialization,
    ErrorKind::Busy,
];

/// What drives the run.
pub struct Plan<'a> {
    /// Opens the terminals' connections.
    pub connector: &'a dyn Connector,
    /// Terminals.
    pub users: usize,
    /// What the inputs draw from.
    pub scale: Scale,
    /// Warm-up.
    pub warmup: Duration,
    /// Measured window.
    pub duration: Duration,
    /// Keying and think times.
    pub spec_timing: bool,
    /// Isolation to set (`None`: the engine's default).
    pub isolation: Option<Isolation>,
    /// Most retries of one transaction.
    pub max_retries: u32,
    /// Seed of the terminals' generators.
    pub seed: u64,
}

/// One transaction kind's tally (of the measured window).
#[derive(Debug, Clone)]
pub struct Tally {
    /// Completed (committed, or New-Order's intended rollback).
    pub done: u64,
    /// New-Order's intended rollbacks.
    pub rollbacks: u64,
    /// Retries by kind ([`RETRY_KINDS`]' order).
    pub retries: [u64; 3],
    /// Failed for good (retries exhausted, or another error).
    pub failures: u64,
    /// Response times, first try to commit.
    pub latency: Hdr<u64>,
    /// Completions in each second of the window.
    pub per_second: Vec<u64>,
}

impl Tally {
    fn new(seconds: usize) -> Tally {
        Tally {
            done: 0,
            rollbacks: 0,
            retries: [0; 3],
            failures: 0,
            latency: latency::histogram(),
            per_second: vec![0; seconds],
        }
    }

    fn add(&mut self, o: &Tally) {
        self.done += o.done;
        self.rollbacks += o.rollbacks;
        for (a, b) in self.retries.iter_mut().zip(o.retries) {
            *a += b;
        }
        self.failures += o.failures;
        let _ = self.latency.add(&o.latency);
        for (a, b) in self.per_second.iter_mut().zip(&o.per_second) {
            *a += b;
        }
    }
}

/// What the run measured.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Per transaction kind, in [`KINDS`]' order.
    pub tallies: Vec<Tally>,
    /// The measured window's length (shorter when cancelled).
    pub window: Duration,
    /// What the engine reported for the isolation level set, where one was.
    pub isolation: Option<IsolationSet>,
    /// The first error that failed a transaction for good.
    pub first_error: Option<String>,
    /// Cancelled before the window ended.
    pub cancelled: bool,
}

/// A negative-exponential think time of `mean` seconds, cut at 10 means
/// (clause 5.2.5.4).
fn think(r: &mut Rng, mean: f64) -> Duration {
    let u = (r.int(1, 1_000_000) as f64) / 1_000_000.0;
    Duration::from_secs_f64((-u.ln() * mean).min(10.0 * mean))
}

/// Sleeps `d` unless the run ends first; false when it did.
fn pause(d: Duration, end: Instant, cancel: &Cancel) -> bool {
    let until = Instant::now() + d;
    while Instant::now() < until {
        if cancel.is_cancelled() || Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50).min(until - Instant::now()));
    }
    true
}

/// What one terminal counted, the isolation it set, its first failure.
type Terminal = (Vec<Tally>, Option<IsolationSet>, Option<String>);

/// One terminal until the window ends.
fn terminal(p: &Plan<'_>, i: usize, start: Instant, cancel: &Cancel) -> Result<Terminal, DbError> {
    let mut session = p.connector.connect()?;
    let set = match p.isolation {
        Some(level) => Some(session.set_isolation(level)?),
        None => None,
    };
    let sql = session.sql();
    let seconds = p.duration.as_secs_f64().ceil() as usize;
    let mut tallies: Vec<Tally> = KINDS.iter().map(|_| Tally::new(seconds)).collect();
    let w = (i as u64 % p.scale.warehouses) as i64 + 1;
    let d = (i as u64 / p.scale.warehouses % 10) as i64 + 1;
    let mut r = Rng::new(p.seed ^ (0xA5A5 + i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut texts = Texts::default();
    let measured = start + p.warmup;
    let end = measured + p.duration;
    let mut first_error = None;
    while !cancel.is_cancelled() && Instant::now() < end {
        let pick = r.int(1, 100);
        let k = MIX
            .iter()
            .scan(0, |acc, m| {
                *acc += m;
                Some(*acc)
            })
            .position(|acc| pick <= acc)
            .unwrap_or(0);
        let input: Input = match k {
            0 => t::new_order(&mut r, &p.scale, w),
            1 => t::payment(&mut r, &p.scale, w),
            2 => t::order_status(&mut r, &p.scale, w),
            3 => t::delivery(&mut r, w),
            _ => t::stock_level(&mut r, w, d),
        };
        if p.spec_timing && !pause(Duration::from_secs_f64(TIMING[k].0), end, cancel) {
            break;
        }
        let began = Instant::now();
        let mut retries = [0u64; 3];
        let mut outcome = t::run(sql, &mut texts, &input);
        let mut tries = 0;
        while let Err(e) = &outcome {
            let Some(slot) = RETRY_KINDS.iter().position(|k| *k == e.kind) else {
                break;
            };
            if tries >= p.max_retries || cancel.is_cancelled() {
                break;
            }
            tries += 1;
            retries[slot] += 1;
            outcome = t::run(sql, &mut texts, &input);
        }
        let finished = Instant::now();
        if finished >= measured && finished < end {
            let tally = &mut tallies[k];
            for (a, b) in tally.retries.iter_mut().zip(retries) {
                *a += b;
            }
            match outcome {
                Ok(done) => {
                    tally.done += 1;
                    if done == Done::RolledBack {
                        tally.rollbacks += 1;
                    }
                    latency::record(&mut tally.latency, finished - began);
                    let second = (finished - measured).as_secs() as usize;
                    if let Some(n) = tally.per_second.get_mut(second) {
                        *n += 1;
                    }
                }
                Err(e) => {
                    tally.failures += 1;
                    first_error.get_or_insert(format!("{}: {e}", KINDS[k]));
                }
            }
        }
        if p.spec_timing && !pause(think(&mut r, TIMING[k].1), end, cancel) {
            break;
        }
    }
    Ok((tallies, set, first_error))
}

/// Runs the terminals through the warm-up and the window.
pub fn run(p: &Plan<'_>, cancel: &Cancel) -> Result<Outcome, DbError> {
    let start = Instant::now();
    let results: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..p.users)
            .map(|i| scope.spawn(move || terminal(p, i, start, cancel)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(DbError::other("a terminal panicked")))
            })
            .collect()
    });
    let ended = Instant::now();
    let seconds = p.duration.as_secs_f64().ceil() as usize;
    let mut out = Outcome {
        tallies: KINDS.iter().map(|_| Tally::new(seconds)).collect(),
        window: ended
            .saturating_duration_since(start + p.warmup)
            .min(p.duration),
        isolation: None,
        first_error: None,
        cancelled: cancel.is_cancelled(),
    };
    for r in results {
        let (tallies, set, first) = r?;
        for (a, b) in out.tallies.iter_mut().zip(&tallies) {
            a.add(b);
        }
        out.isolation = out.isolation.or(set);
        if out.first_error.is_none() {
            out.first_error = first;
        }
    }
    Ok(out)
}
