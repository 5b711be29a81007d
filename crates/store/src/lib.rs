//! nodebench results store: every run, with its results, metrics, histograms
//! and time series, is saved here as it happens, so that `nodebench runs`,
//! comparisons and exports can read it back later.
//!
//! [`Store`] is what every backend offers; [`SqliteStore`] is the SQLite
//! backend (the default), [`PostgresStore`] the PostgreSQL one (a store
//! shared by many nodes). [`Location`] says where the store lives and opens
//! it.

#![warn(missing_docs)]

mod codec;
mod error;
mod path;
mod points;
mod postgresql;
mod recorder;
mod schema;
mod sqlite;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use nodebench_core::{BenchResult, Run, RunStatus, ThresholdVerdict};
use serde::Serialize;

pub use error::StoreError;
pub use path::{Location, STORE_ENV, default_path};
pub use postgresql::PostgresStore;
pub use recorder::Recorder;
pub use sqlite::SqliteStore;

/// Summary row for `nodebench runs list`: a run without its figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// Store id of the run.
    pub id: i64,
    /// When it started.
    pub started_at: DateTime<Utc>,
    /// When it ended; absent while running or when killed.
    pub ended_at: Option<DateTime<Utc>>,
    /// Whether it finished.
    pub status: RunStatus,
    /// The command line, argument by argument.
    pub command_line: Vec<String>,
    /// User tags.
    pub tags: BTreeMap<String, String>,
    /// Distinct benchmark ids, in the order their first result was saved.
    pub benchmarks: Vec<String>,
    /// Number of results saved for the run.
    pub result_count: usize,
    /// Number of metrics saved for the run, over all its results.
    pub metric_count: usize,
    /// Host name, from the `hostname` key of the run's inventory if present.
    pub hostname: Option<String>,
}

/// What every results store backend offers (SQLite, PostgreSQL).
///
/// A run is saved piece by piece while it happens: [`Store::begin_run`] when
/// it starts, [`Store::add_result`] after each benchmark, and
/// [`Store::finish_run`] at the end. Each call is committed before it
/// returns, so a run killed part-way keeps what finished and lists as
/// [`RunStatus::Incomplete`].
pub trait Store: std::fmt::Debug {
    /// Inserts `run` (status as given, normally incomplete, with its
    /// inventory, tags, command line, `ended_at` and any results it already
    /// holds) and commits; returns its new id. `run.id` is ignored.
    fn begin_run(&mut self, run: &Run) -> Result<i64, StoreError>;

    /// Appends one result, with all its metrics, histograms and series, to
    /// run `run_id` in one transaction committed before returning.
    /// [`StoreError::NotFound`] if there is no such run.
    fn add_result(&mut self, run_id: i64, result: &BenchResult) -> Result<(), StoreError>;

    /// Records how run `run_id` ended. [`StoreError::NotFound`] if there is
    /// no such run.
    fn finish_run(
        &mut self,
        run_id: i64,
        status: RunStatus,
        ended_at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Replaces the threshold verdicts of run `run_id` and commits.
    /// [`StoreError::NotFound`] if there is no such run.
    fn set_verdicts(
        &mut self,
        run_id: i64,
        verdicts: &[ThresholdVerdict],
    ) -> Result<(), StoreError>;

    /// Summaries of all runs, newest first.
    fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError>;

    /// The full run `id` with its id set, results in the order they were
    /// added and metrics, histograms and series in their original order.
    /// [`StoreError::NotFound`] if there is no such run.
    fn load_run(&self, id: i64) -> Result<Run, StoreError>;

    /// The runs `ids` (in that order) with their results and metrics but
    /// without histograms or series: what a fleet's analysis reads, in one
    /// query per table however many runs (a thousand hosts' runs are three
    /// queries, not three thousand). [`StoreError::NotFound`] for an id
    /// the store does not hold.
    fn load_runs_metrics(&self, ids: &[i64]) -> Result<Vec<Run>, StoreError>;

    /// Removes run `id` and everything under it. [`StoreError::NotFound`] if
    /// there is no such run.
    fn delete_run(&mut self, id: i64) -> Result<(), StoreError>;
}

/// The newest complete run on `hostname` (the host name its inventory
/// holds, as [`RunSummary::hostname`]) that holds a result of
/// `benchmark`, read whole; `None` when the store has none.
pub fn latest_run_of(
    store: &dyn Store,
    benchmark: &str,
    hostname: Option<&str>,
) -> Result<Option<Run>, StoreError> {
    let found = store.list_runs()?.into_iter().find(|s| {
        s.status == RunStatus::Complete
            && s.hostname.as_deref() == hostname
            && s.benchmarks.iter().any(|b| b == benchmark)
    });
    found.map(|s| store.load_run(s.id)).transpose()
}
