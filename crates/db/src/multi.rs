//! The multi-user tests: one connection and thread per user, a warm-up,
//! then a measured window. User 0 is the measured user: `ir_select` in the
//! IR tests, the cross-section once in the cross-section tests; the others
//! are the background (`ir_select`, or `oltp_update` with an OLTP
//! background). Every connection is set to the paper's isolation level
//! before it starts: `ir_select` level 0 (READ UNCOMMITTED), `oltp_update`
//! level 3 (SERIALIZABLE), each cross-section query its Table 8.1 level;
//! what the engine reports for each is kept. Latencies go into one
//! HdrHistogram per user.

use std::sync::Barrier;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use nodebench_core::bench::Cancel;
use nodebench_core::latency;
use nodebench_core::rng::XorShift64;

use crate::config::Test;
use crate::engine::{Connector, DbError, ErrorKind, Isolation, IsolationSet, Session};
use crate::queries::{self, Timed};

const WARMUP: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;

/// Tries of a cross-section query that fails on a lock wait, deadlock or
/// serialization failure.
const CROSS_TRIES: usize = 20;

/// How often the coordinator looks at the cancel flag while it waits.
const POLL: Duration = Duration::from_millis(20);

/// What one user did.
#[derive(Debug, Clone)]
pub struct UserTally {
    /// Statements completed in the measured window.
    pub queries: u64,
    /// Their latencies, ns.
    pub latency: Histogram<u64>,
    /// Failed statements (whole test), by kind: busy, deadlock, other.
    pub errors: [u64; 3],
    /// The first message of an error other than a lock wait, deadlock or
    /// serialization failure (those are counted: at SERIALIZABLE they are
    /// the engine doing its job), for the result's warnings.
    pub first_error: Option<String>,
}

impl UserTally {
    fn new() -> UserTally {
        UserTally {
            queries: 0,
            latency: latency::histogram(),
            errors: [0; 3],
            first_error: None,
        }
    }

    fn failed(&mut self, e: &DbError) {
        let i = match e.kind {
            // AS3AP counts a serialization failure as a lock conflict.
            ErrorKind::Busy | ErrorKind::Serialization => 0,
            ErrorKind::Deadlock => 1,
            ErrorKind::Other => 2,
        };
        self.errors[i] += 1;
        if e.kind == ErrorKind::Other {
            self.first_error.get_or_insert_with(|| e.message.clone());
        }
    }
}

/// What a multi-user test measured.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Per user, user 0 first (the measured one).
    pub users: Vec<UserTally>,
    /// The measured window.
    pub window: Duration,
    /// Rows `oltp_update` statements changed (warm-up included): one per
    /// completed statement.
    pub oltp_updates: u64,
    /// The cross-section's queries (cross-section tests).
    pub cross: Vec<Timed>,
    /// Stopped by the cancel flag.
    pub cancelled: bool,
    /// Per role ([`IR_SELECT`], [`OLTP_UPDATE`]): the level asked for and
    /// what the engine reported for it (on the role's first connection;
    /// every connection of a role is set alike).
    pub isolation: Vec<(&'static str, Isolation, IsolationSet)>,
}

/// The role of the users running `ir_select`.
pub const IR_SELECT: &str = "ir_select";
/// The role of the users running `oltp_update`.
pub const OLTP_UPDATE: &str = "oltp_update";

/// The role and isolation level of `user` in `test`; `None` for the
/// cross-section user (its queries set their own levels).
pub fn role(test: Test, user: usize) -> Option<(&'static str, Isolation)> {
    if user == 0 && test.cross_section() {
        None
    } else if user > 0 && test.oltp_background() {
        Some((OLTP_UPDATE, Isolation::Serializable))
    } else {
        Some((IR_SELECT, Isolation::ReadUncommitted))
    }
}

/// What a test runs on.
pub struct Plan<'a> {
    /// Opens the users' connections.
    pub connector: &'a dyn Connector,
    /// Which test.
    pub test: Test,
    /// Users, measured one included.
    pub users: usize,
    /// Rows of `updates` (keys 0, 2..=rows).
    pub rows: u64,
    /// Warm-up.
    pub warmup: Duration,
    /// Measurement of the IR tests.
    pub measure: Duration,
    /// Seeds the users' key streams.
    pub seed: u64,
}

/// Runs one multi-user test.
pub fn run(plan: &Plan<'_>, cancel: &Cancel) -> Result<Outcome, DbError> {
    let mut sessions = Vec::with_capacity(plan.users);
    let mut isolation: Vec<(&'static str, Isolation, IsolationSet)> = Vec::new();
    for user in 0..plan.users {
        let mut s = plan.connector.connect()?;
        if let Some((name, level)) = role(plan.test, user) {
            let set = s.set_isolation(level)?;
            if !isolation.iter().any(|(n, ..)| *n == name) {
                isolation.push((name, level, set));
            }
        }
        sessions.push(s);
    }
    if plan.test.cross_section() {
        for sql in queries::cross_section_setup() {
            sessions[0].execute(&sql)?;
        }
    }
    let phase = AtomicU8::new(WARMUP);
    let oltp = AtomicU64::new(0);
    let start = Barrier::new(plan.users + 1);
    let mut window = (Instant::now(), Instant::now());
    let results: Vec<(UserTally, Vec<Timed>, Box<dyn Session>)> = thread::scope(|s| {
        let handles: Vec<_> = sessions
            .into_iter()
            .enumerate()
            .map(|(user, session)| {
                let (phase, oltp, start) = (&phase, &oltp, &start);
                s.spawn(move || user_loop(plan, user, session, phase, oltp, start, cancel))
            })
            .collect();
        start.wait();
        wait(plan.warmup, cancel, &phase);
        let _ = phase.compare_exchange(WARMUP, MEASURE, Ordering::SeqCst, Ordering::SeqCst);
        window.0 = Instant::now();
        if plan.test.cross_section() {
            // The measured user ends the window when its cross-section is done.
            while phase.load(Ordering::SeqCst) != STOP && !cancel.is_cancelled() {
                thread::sleep(POLL);
            }
        } else {
            wait(plan.measure, cancel, &phase);
        }
        phase.store(STOP, Ordering::SeqCst);
        window.1 = Instant::now();
        handles
            .into_iter()
            .map(|h| h.join().expect("a user thread panicked"))
            .collect()
    });
    let mut users = Vec::with_capacity(results.len());
    let mut cross = Vec::new();
    let mut first = None;
    for (tally, timed, session) in results {
        if first.is_none() {
            first = Some(session);
            cross = timed;
        }
        users.push(tally);
    }
    if let Some(mut s) = first.filter(|_| plan.test.cross_section()) {
        for t in queries::CROSS_SECTION_SCRATCH {
            s.execute(&format!("DROP TABLE {t}"))?;
        }
    }
    Ok(Outcome {
        users,
        window: window.1 - window.0,
        oltp_updates: oltp.load(Ordering::SeqCst),
        cross,
        cancelled: cancel.is_cancelled(),
        isolation,
    })
}

/// Sleeps `d` unless cancelled or stopped first.
fn wait(d: Duration, cancel: &Cancel, phase: &AtomicU8) {
    let end = Instant::now() + d;
    while Instant::now() < end && !cancel.is_cancelled() && phase.load(Ordering::SeqCst) != STOP {
        thread::sleep(POLL.min(end.saturating_duration_since(Instant::now())));
    }
}

/// One user's loop until the phase is STOP.
fn user_loop(
    plan: &Plan<'_>,
    user: usize,
    mut session: Box<dyn Session>,
    phase: &AtomicU8,
    oltp: &AtomicU64,
    start: &Barrier,
    cancel: &Cancel,
) -> (UserTally, Vec<Timed>, Box<dyn Session>) {
    let mut tally = UserTally::new();
    let mut cross = Vec::new();
    let mut rng =
        XorShift64::new(plan.seed ^ (user as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let updates = user > 0 && plan.test.oltp_background();
    start.wait();
    if user == 0 && plan.test.cross_section() {
        while phase.load(Ordering::SeqCst) == WARMUP && !cancel.is_cancelled() {
            thread::sleep(Duration::from_millis(1));
        }
        for q in queries::cross_section() {
            if cancel.is_cancelled() || phase.load(Ordering::SeqCst) == STOP {
                break;
            }
            // A lock wait, deadlock or serialization failure is retried,
            // as a client of a SERIALIZABLE engine must.
            for _ in 0..CROSS_TRIES {
                match queries::run(session.as_mut(), &q) {
                    Ok(t) => {
                        cross.push(t);
                        break;
                    }
                    Err(e) => {
                        tally.failed(&e);
                        if e.kind == ErrorKind::Other {
                            break;
                        }
                    }
                }
            }
        }
        tally.queries = cross.len() as u64;
        phase.store(STOP, Ordering::SeqCst);
        return (tally, cross, session);
    }
    loop {
        let p = phase.load(Ordering::Relaxed);
        if p == STOP || cancel.is_cancelled() {
            break;
        }
        let key = crate::data::dense_key(rng.below(plan.rows));
        let t0 = Instant::now();
        let r = if updates {
            session.oltp_update(key)
        } else {
            session.ir_select(key).map(|row| u64::from(row.is_some()))
        };
        let took = t0.elapsed();
        match r {
            Ok(changed) => {
                if updates {
                    oltp.fetch_add(changed, Ordering::Relaxed);
                }
                if p == MEASURE {
                    tally.queries += 1;
                    latency::record(&mut tally.latency, took);
                }
            }
            Err(e) => tally.failed(&e),
        }
    }
    (tally, cross, session)
}
