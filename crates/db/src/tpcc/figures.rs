//! `db.tpcc`'s figures: the load's rows, seconds and index times; the
//! run's NOPM, TPM, per-transaction throughput and latency, rollbacks,
//! retries and failures, the per-second series, the isolation levels, the
//! consistency verdicts (a failed condition fails the result).

use std::collections::BTreeMap;

use nodebench_core::names::db::tpcc::{label as tlabel, metric as tmetric, param as tparam};
use nodebench_core::names::db::{label, metric, param};
use nodebench_core::{BenchResult, Better, Metric, TimeSeries, Unit};

use super::check::Verdict;
use super::config::TpccConfig;
use super::driver::{KINDS, MIX, Outcome, RETRY_KINDS, Tally};
use super::load::Loaded;
use crate::as3ap::{count, latency_figures, seconds};
use crate::engine::Settings;

/// The load's figures.
pub fn load(l: &Loaded, r: &mut BenchResult) {
    let total: u64 = l.rows.values().sum();
    for (t, n) in &l.rows {
        r.metrics
            .push(count(metric::ROWS, *n as f64).label(label::TABLE, *t));
    }
    r.metrics
        .push(count(metric::ROWS, total as f64).label(label::TABLE, label::ALL));
    r.metrics
        .push(seconds(metric::LOAD_SECONDS, l.seconds).label(label::TABLE, label::ALL));
    r.metrics.push(
        Metric::new(
            metric::LOAD_ROWS_PER_SECOND,
            total as f64 / l.seconds.as_secs_f64().max(1e-9),
            Unit::OpsPerSecond,
            Better::Higher,
        )
        .label(label::TABLE, label::ALL),
    );
    let mut all = std::time::Duration::ZERO;
    for (name, d) in &l.indexes {
        all += *d;
        r.metrics
            .push(seconds(metric::INDEX_SECONDS, *d).label(label::INDEX, name.as_str()));
    }
    r.metrics
        .push(seconds(metric::INDEX_SECONDS, all).label(label::INDEX, label::ALL));
}

/// A per-minute rate.
fn per_minute(name: &str, n: u64, window: f64) -> Metric {
    Metric::new(name, n as f64 * 60.0 / window, Unit::Count, Better::Higher)
}

/// The run's figures.
pub fn run(c: &TpccConfig, o: &Outcome, settings: &Settings, r: &mut BenchResult) {
    let window = o.window.as_secs_f64().max(1e-9);
    r.metrics.push(seconds(metric::SECONDS, o.window));
    let new_order = &o.tallies[0];
    // NOPM: committed New-Orders (the intended rollbacks are not orders).
    r.metrics.push(per_minute(
        tmetric::NOPM,
        new_order.done - new_order.rollbacks,
        window,
    ));
    let done: u64 = o.tallies.iter().map(|t| t.done).sum();
    r.metrics.push(per_minute(tmetric::TPM, done, window));
    let mut all = o.tallies[0].clone();
    all.per_second.iter_mut().for_each(|n| *n = 0);
    for (kind, t) in KINDS.iter().zip(&o.tallies) {
        per_kind(kind, t, window, c.warmup.as_secs_f64(), r);
        for (a, b) in all.per_second.iter_mut().zip(&t.per_second) {
            *a += b;
        }
    }
    series(label::ALL, &all, c.warmup.as_secs_f64(), r);
    r.metrics
        .push(count(tmetric::ROLLBACKS, new_order.rollbacks as f64));
    for (i, kind) in RETRY_KINDS.iter().enumerate() {
        let n: u64 = o.tallies.iter().map(|t| t.retries[i]).sum();
        r.metrics.push(
            Metric::new(tmetric::RETRIES, n as f64, Unit::Count, Better::Lower)
                .label(label::KIND, kind.as_str()),
        );
    }
    let mix: BTreeMap<&str, u64> = KINDS.iter().copied().zip(MIX).collect();
    r.set_param(tparam::MIX, &mix);
    let requested = c
        .isolation
        .map_or_else(|| "engine default".to_string(), |l| l.sql().to_string());
    r.set_param(param::ISOLATION_REQUESTED, &requested);
    let reported = o
        .isolation
        .as_ref()
        .map_or_else(|| settings.isolation.clone(), |s| s.reported.clone());
    r.set_param(param::ISOLATION_REPORTED, &reported);
    if let Some(s) = &o.isolation {
        r.set_param(param::ISOLATION_EFFECTIVE, &s.effective);
    }
    if let Some(e) = &o.first_error {
        r.warnings
            .push(format!("a transaction failed for good: {e}"));
    }
    if o.cancelled {
        r.mark_cancelled();
    }
}

/// One transaction kind's throughput, latency, failures and series.
fn per_kind(kind: &str, t: &Tally, window: f64, offset: f64, r: &mut BenchResult) {
    r.metrics
        .push(count(tmetric::TRANSACTIONS, t.done as f64).label(tlabel::TXN, kind));
    r.metrics.push(
        Metric::new(
            tmetric::TRANSACTIONS_PER_SECOND,
            t.done as f64 / window,
            Unit::OpsPerSecond,
            Better::Higher,
        )
        .label(tlabel::TXN, kind),
    );
    r.metrics.push(
        Metric::new(
            tmetric::FAILURES,
            t.failures as f64,
            Unit::Count,
            Better::Lower,
        )
        .label(tlabel::TXN, kind),
    );
    latency_figures(&t.latency, tlabel::TXN, kind, r);
    series(kind, t, offset, r);
}

/// The per-second completions of `t` as a series labelled `txn=kind`,
/// each point at the end of its second counted from the result's start
/// (the window starts `offset` seconds in, after the warm-up).
fn series(kind: &str, t: &Tally, offset: f64, r: &mut BenchResult) {
    let mut labels = BTreeMap::new();
    labels.insert(tlabel::TXN.to_string(), kind.to_string());
    r.series.push(TimeSeries {
        name: nodebench_core::names::db::tpcc::series::PER_SECOND.into(),
        unit: Unit::OpsPerSecond,
        labels,
        points: t
            .per_second
            .iter()
            .enumerate()
            .map(|(s, n)| (offset + s as f64 + 1.0, *n as f64))
            .collect(),
    });
}

/// The consistency verdicts; the first violation fails the result.
pub fn checks(verdicts: &[Verdict], r: &mut BenchResult) {
    for v in verdicts {
        r.metrics.push(
            Metric::new(
                tmetric::CHECK_PASSED,
                v.violation.is_none() as u8 as f64,
                Unit::Count,
                Better::Higher,
            )
            .label(tlabel::CHECK, v.clause),
        );
    }
    if let Some(v) = verdicts.iter().find(|v| v.violation.is_some()) {
        r.mark_failed(format!(
            "consistency condition {} fails: {}",
            v.clause,
            v.violation.as_deref().unwrap_or_default()
        ));
    }
}
