//! Tests of the results store against real databases: every test of the
//! [`Store`] contract runs on SQLite and on PostgreSQL
//! ([`on_both_backends!`]); the file-only ones on SQLite.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Duration, TimeZone, Utc};
use common::Backend;
use nodebench_core::build_info::BuildInfo;
use nodebench_core::inventory::Inventory;
use nodebench_core::stats::Stats;
use nodebench_core::{
    BenchResult, Better, Histogram, Metric, Printed, Reference, ResultStatus, Run, RunStatus,
    TimeSeries, Unit,
};
use nodebench_store::{SqliteStore, StoreError};

/// A timestamp with a nanosecond part, `secs` seconds after a fixed start.
fn at(secs: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 3, 14, 15, 9, 26).unwrap()
        + Duration::seconds(secs)
        + Duration::nanoseconds(535_897_932)
}

fn new_run(secs: i64, tags: &[(&str, &str)]) -> Run {
    let mut run = Run::start(
        vec!["nodebench".into(), "run".into(), "cpu".into()],
        tags.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    run.started_at = at(secs);
    run.inventory = Some(Inventory::default());
    // The build a run was made with is stored with it.
    run.build = Some(BuildInfo {
        version: "0.1.0".into(),
        commit: Some("0123456789ab-dirty".into()),
        build_date: Some("2026-11-27".into()),
        target: "aarch64-unknown-linux-gnu".into(),
        glibc_floor: Some("2.17".into()),
    });
    run
}

fn cpu_result(secs: i64) -> BenchResult {
    let mut r = BenchResult::new("cpu.ops");
    r.started_at = at(secs);
    r.ended_at = at(secs) + Duration::nanoseconds(1_000_000_007);
    r.set_param("threads", 4);
    r.set_param("kernel", "f64.vector");
    r.set_param("fraction", 0.1);
    r.set_param(
        "nested",
        serde_json::json!({"a": [1, 2.5, null], "b": true}),
    );
    r.warnings
        .push("rate: coefficient of variation 7.0 % is over 5 %".into());
    let stats = Stats::from_samples(&[0.1, 0.2, 0.3, 1e-17, 123_456_789.123_456_79]).unwrap();
    r.metrics.push(
        Metric::new(
            "rate",
            1.234_567_890_123e10,
            Unit::FlopsPerSecond,
            Better::Higher,
        )
        .label("threads", 4)
        .label("kernel", "f64.vector")
        .with_stats(stats)
        .with_reference(Some(Reference {
            name: "theoretical peak (2 cores x 2.45 GHz x 16 DP flop/cycle)".into(),
            value: 7.84e10,
        })),
    );
    r.metrics
        .push(Metric::new("latency_p99", 3.3e-7, Unit::Seconds, Better::Lower).label("threads", 1));
    r.metrics
        .push(Metric::new("accesses", 42.0, Unit::Count, Better::Higher));
    r.histograms.push(Histogram {
        name: "latency".into(),
        unit: Unit::Seconds,
        scale: 1e9,
        labels: BTreeMap::from([("threads".to_string(), "4".to_string())]),
        count: 1234,
        hdr_base64: "HISTFAAAABx4nJNpmSzMwMDAxAABzFAaAQBHFQLn".into(),
    });
    r.series.push(TimeSeries {
        name: "requests_per_second".into(),
        unit: Unit::OpsPerSecond,
        labels: BTreeMap::new(),
        points: vec![(0.0, 1.0), (1.000_000_001, 0.1 + 0.2), (2.5, 1e300)],
    });
    r
}

fn failed_result(secs: i64) -> BenchResult {
    let mut r = BenchResult::new("memory.stream");
    r.started_at = at(secs);
    r.ended_at = at(secs + 3);
    r.status = ResultStatus::Failed;
    r.error = Some("validation failed: checksum mismatch".into());
    r.error_phase = Some(nodebench_core::PHASE_MEASURE.into());
    r.metrics.push(
        Metric::new("triad", 1.5e10, Unit::BytesPerSecond, Better::Higher).label("size", "1GiB"),
    );
    r
}

fn run_round_trips_exactly(b: &Backend) {
    let mut store = b.open();

    let mut run = new_run(0, &[("config", "2cpu-4gb"), ("site", "lab")]);
    let id = store.begin_run(&run).unwrap();
    let results = vec![cpu_result(1), failed_result(5)];
    for r in &results {
        store.add_result(id, r).unwrap();
    }
    let end = at(10);
    store.finish_run(id, RunStatus::Complete, end).unwrap();

    run.id = Some(id);
    run.status = RunStatus::Complete;
    run.ended_at = Some(end);
    run.results = results;
    run.error = run.first_failure();
    let loaded = store.load_run(id).unwrap();
    assert_eq!(loaded, run);
    assert_eq!(
        loaded
            .error
            .as_ref()
            .map(|e| (e.benchmark.as_str(), e.phase.as_deref())),
        Some(("memory.stream", Some("measure")))
    );
    // Exact float and time round trips, not just PartialEq on a lucky value.
    assert_eq!(
        loaded.results[0].series[0].points[1].1.to_bits(),
        (0.1f64 + 0.2).to_bits()
    );
    assert_eq!(loaded.started_at.timestamp_subsec_nanos(), 535_897_932);
    assert_eq!(
        loaded.results[0]
            .metrics
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>(),
        ["rate", "latency_p99", "accesses"]
    );
}

fn run_with_results_given_to_begin_run_keeps_them(b: &Backend) {
    let mut store = b.open();
    let mut run = new_run(0, &[]);
    run.results = vec![cpu_result(1), failed_result(2)];
    run.status = RunStatus::Failed;
    run.ended_at = Some(at(3));
    let id = store.begin_run(&run).unwrap();
    store.add_result(id, &cpu_result(4)).unwrap();
    run.id = Some(id);
    run.results.push(cpu_result(4));
    run.error = run.first_failure();
    assert_eq!(store.load_run(id).unwrap(), run);
}

/// A failed result, and what the recorder makes of the run holding it.
fn a_failed_result_fails_the_run_and_names_its_benchmark(b: &Backend) {
    use nodebench_core::bench::ResultSink;
    let store = b.open();
    let run = nodebench_core::Run::start(vec!["nodebench".into()], Default::default());
    let mut rec = nodebench_store::Recorder::begin(Some(store), run).unwrap();
    let id = rec.run().id.unwrap();
    rec.record(cpu_result(1)).unwrap();
    let mut refused = BenchResult::new("net.tcp");
    refused.mark_failed("cannot connect to 127.0.0.1:1: connection refused");
    rec.record(refused).unwrap();
    rec.record(BenchResult::failure(
        "db.as3ap",
        nodebench_core::PHASE_RUN,
        "cannot connect",
    ))
    .unwrap();
    // Every benchmark finished: the run would be complete but holds failures.
    let done = rec.finish(RunStatus::Complete).unwrap();
    assert_eq!(done.status, RunStatus::Failed);
    let want = nodebench_core::RunError {
        benchmark: "net.tcp".into(),
        message: "cannot connect to 127.0.0.1:1: connection refused".into(),
        phase: Some("measure".into()),
    };
    assert_eq!(done.error.as_ref(), Some(&want));
    let loaded = b.open().load_run(id).unwrap();
    assert_eq!(loaded.status, RunStatus::Failed);
    assert_eq!(loaded.error, Some(want));
    assert_eq!(loaded.results[2].error_phase.as_deref(), Some("run"));
    assert!(loaded.results[2].never_produced() && !loaded.results[1].never_produced());
}

/// A version 7 store (no error phases) reads: its failed result has no
/// phase and the run's error is settled from it.
fn a_version_7_store_reads_its_failures_without_a_phase(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    store.add_result(id, &failed_result(1)).unwrap();
    drop(store);
    b.execute(
        "ALTER TABLE results DROP COLUMN error_phase; ALTER TABLE metrics DROP COLUMN printed;
         UPDATE schema_version SET version = 7",
    );
    let store = b.open();
    assert_eq!(b.schema_version(), 9);
    let run = store.load_run(id).unwrap();
    assert_eq!(run.results[0].error_phase, None);
    let error = run.error.unwrap();
    assert_eq!(error.benchmark, "memory.stream");
    assert_eq!(error.message, "validation failed: checksum mismatch");
    assert_eq!(error.phase, None);
}

fn nan_values_read_back_as_nan(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    let mut r = BenchResult::new("cpu.ops");
    r.metrics.push(Metric::new(
        "rate",
        f64::NAN,
        Unit::OpsPerSecond,
        Better::Higher,
    ));
    r.metrics.push(Metric::new(
        "huge",
        f64::INFINITY,
        Unit::OpsPerSecond,
        Better::Higher,
    ));
    store.add_result(id, &r).unwrap();
    let loaded = store.load_run(id).unwrap();
    assert!(loaded.results[0].metrics[0].value.is_nan());
    assert_eq!(loaded.results[0].metrics[1].value, f64::INFINITY);
}

fn list_runs_is_newest_first_with_counts(b: &Backend) {
    let mut store = b.open();
    assert!(store.list_runs().unwrap().is_empty());

    let old = store.begin_run(&new_run(0, &[("n", "old")])).unwrap();
    store.add_result(old, &cpu_result(1)).unwrap();
    store.add_result(old, &failed_result(2)).unwrap();
    store.add_result(old, &cpu_result(3)).unwrap();
    store.finish_run(old, RunStatus::Complete, at(4)).unwrap();
    // Inserted later but started earlier: order is by start time.
    let oldest = store.begin_run(&new_run(-100, &[])).unwrap();
    let new = store.begin_run(&new_run(100, &[("n", "new")])).unwrap();
    store.finish_run(new, RunStatus::Failed, at(101)).unwrap();

    let list = store.list_runs().unwrap();
    assert_eq!(
        list.iter().map(|s| s.id).collect::<Vec<_>>(),
        [new, old, oldest]
    );

    let s = &list[1];
    assert_eq!(s.started_at, at(0));
    assert_eq!(s.ended_at, Some(at(4)));
    assert_eq!(s.status, RunStatus::Complete);
    assert_eq!(s.command_line, ["nodebench", "run", "cpu"]);
    assert_eq!(s.tags.get("n").map(String::as_str), Some("old"));
    assert_eq!(s.benchmarks, ["cpu.ops", "memory.stream"]);
    assert_eq!(s.result_count, 3);
    assert_eq!(s.metric_count, 3 + 1 + 3);
    assert_eq!(s.hostname, None);

    assert_eq!(
        (list[0].status, list[0].result_count, list[0].metric_count),
        (RunStatus::Failed, 0, 0)
    );
    assert!(list[0].benchmarks.is_empty());
    assert_eq!(
        (list[2].status, list[2].ended_at),
        (RunStatus::Incomplete, None)
    );
}

fn list_runs_reads_hostname_from_inventory(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    b.execute(&format!(
        r#"UPDATE runs SET inventory = '{{"hostname":"node-17","cpu":{{"cores":2}}}}' WHERE id = {id}"#
    ));
    assert_eq!(
        store.list_runs().unwrap()[0].hostname.as_deref(),
        Some("node-17")
    );
}

fn host_state_round_trips_and_a_run_stored_before_it_still_reads(b: &Backend) {
    use nodebench_core::inventory::host::{
        CState, CgroupCpu, FreqPolicy, HostState, IdleState, TuneChange, Tuning,
    };
    let mut store = b.open();
    let mut run = new_run(0, &[]);
    run.inventory.as_mut().unwrap().host = Some(HostState {
        online_cpus: Some(16),
        policies: vec![FreqPolicy {
            name: "policy0".into(),
            cpus: "0-15".into(),
            driver: Some("intel_pstate".into()),
            governor: Some("performance".into()),
            epp: Some("performance".into()),
            min_khz: Some(800_000),
            max_khz: Some(3_400_000),
            hw_min_khz: Some(800_000),
            hw_max_khz: Some(3_400_000),
        }],
        idle: Some(IdleState {
            driver: Some("intel_idle".into()),
            governor: Some("menu".into()),
            deepest: Some(CState {
                name: "C6".into(),
                exit_latency_us: 170,
                cpus: "0-15".into(),
            }),
            states: 4,
        }),
        cgroup: Some(CgroupCpu {
            version: 2,
            path: "/".into(),
            quota_cpus: Some(1.5),
            quota: Some("150000 100000".into()),
            cpuset: Some("0-3".into()),
            cpuset_cpus: Some(4),
        }),
        tuning: Some(Tuning {
            changes: vec![TuneChange {
                file: "devices/system/cpu/cpufreq/policy0/scaling_governor".into(),
                from: "powersave".into(),
                to: "performance".into(),
            }],
            notes: vec!["no /dev/cpu_dma_latency: idle states left as they are".into()],
        }),
        ..Default::default()
    });
    let id = store.begin_run(&run).unwrap();
    run.id = Some(id);
    assert_eq!(store.load_run(id).unwrap(), run);
    // An inventory written before the host state existed reads as none.
    b.execute(&format!(
        r#"UPDATE runs SET inventory = '{{"hostname":"node-17","cpu":{{"logical_cpus":2,"governor":"powersave"}}}}' WHERE id = {id}"#
    ));
    let old = store.load_run(id).unwrap();
    let inv = old.inventory.unwrap();
    assert_eq!(inv.host, None);
    assert_eq!(inv.cpu.governor.as_deref(), Some("powersave"));
}

fn delete_run_removes_everything_under_it(b: &Backend) {
    let mut store = b.open();
    let keep = store.begin_run(&new_run(0, &[])).unwrap();
    store.add_result(keep, &failed_result(1)).unwrap();
    let gone = store.begin_run(&new_run(10, &[])).unwrap();
    store.add_result(gone, &cpu_result(11)).unwrap();
    store.add_result(gone, &cpu_result(12)).unwrap();

    store.delete_run(gone).unwrap();
    assert!(matches!(store.load_run(gone), Err(StoreError::NotFound(id)) if id == gone));
    let err = store.delete_run(gone).unwrap_err();
    assert!(matches!(err, StoreError::NotFound(id) if id == gone));
    assert_eq!(err.to_string(), format!("no run with id {gone}"));

    assert_eq!(
        store
            .list_runs()
            .unwrap()
            .iter()
            .map(|s| s.id)
            .collect::<Vec<_>>(),
        [keep]
    );
    assert_eq!(store.load_run(keep).unwrap().results.len(), 1);
    assert_eq!(b.count("results"), 1);
    assert_eq!(b.count("metrics"), 1);
    assert_eq!(b.count("histograms"), 0);
    assert_eq!(b.count("series"), 0);
}

/// An imported figure keeps the source's form ([`Printed`]) through the
/// store; a version 8 store (no such column) reads its metrics without one
/// and stores new ones with it.
fn a_version_8_store_reads_its_metrics_and_keeps_printed_forms(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    store.add_result(id, &cpu_result(1)).unwrap();
    drop(store);
    b.execute("ALTER TABLE metrics DROP COLUMN printed; UPDATE schema_version SET version = 8");
    let mut store = b.open();
    assert_eq!(b.schema_version(), 9);
    assert_eq!(store.load_run(id).unwrap().results, vec![cpu_result(1)]);
    let mut imported = BenchResult::new("http.load");
    imported
        .metrics
        .push(Metric::new("time_taken", 3.05, Unit::Seconds, Better::Lower).printed("3.05", "s"));
    imported.metrics.push(
        Metric::new("requests_completed", 4420.0, Unit::Count, Better::Higher).printed("4420", ""),
    );
    store.add_result(id, &imported).unwrap();
    let run = store.load_run(id).unwrap();
    assert_eq!(run.results[1].metrics, imported.metrics);
    assert_eq!(
        run.results[1].metrics[0].printed,
        Some(Printed::new("3.05", "s"))
    );
}

/// The bulk read of a fleet's runs: the runs asked for, in that order,
/// with results and metrics as `load_run` gives them, histograms and
/// series left out; an id the store lacks is not found.
fn load_runs_metrics_reads_many_runs_in_order(b: &Backend) {
    let mut store = b.open();
    let a = store.begin_run(&new_run(0, &[("host", "a")])).unwrap();
    store.add_result(a, &cpu_result(1)).unwrap();
    store.add_result(a, &failed_result(2)).unwrap();
    let other = store.begin_run(&new_run(5, &[("host", "x")])).unwrap();
    store.add_result(other, &cpu_result(6)).unwrap();
    let c = store.begin_run(&new_run(10, &[("host", "c")])).unwrap();
    store.add_result(c, &cpu_result(11)).unwrap();

    let runs = store.load_runs_metrics(&[c, a]).unwrap();
    assert_eq!(
        runs.iter().map(|r| r.id).collect::<Vec<_>>(),
        [Some(c), Some(a)]
    );
    for (got, id) in runs.iter().zip([c, a]) {
        let mut full = store.load_run(id).unwrap();
        for r in &mut full.results {
            r.histograms.clear();
            r.series.clear();
        }
        assert_eq!(got, &full);
    }
    assert_eq!(runs[1].results.len(), 2);
    assert_eq!(runs[1].results[0].metrics.len(), 3);
    assert!(runs[1].error.is_some());
    assert!(store.load_runs_metrics(&[]).unwrap().is_empty());
    assert!(matches!(
        store.load_runs_metrics(&[a, 999]),
        Err(StoreError::NotFound(999))
    ));
}

fn missing_run_is_not_found_everywhere(b: &Backend) {
    let mut store = b.open();
    assert!(matches!(store.load_run(7), Err(StoreError::NotFound(7))));
    assert!(matches!(
        store.add_result(7, &cpu_result(0)),
        Err(StoreError::NotFound(7))
    ));
    assert!(matches!(
        store.finish_run(7, RunStatus::Complete, at(0)),
        Err(StoreError::NotFound(7))
    ));
    assert!(matches!(store.delete_run(7), Err(StoreError::NotFound(7))));
}

fn unfinished_run_lists_as_incomplete_after_reopen(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    store.add_result(id, &cpu_result(1)).unwrap();
    drop(store);

    // A second process-like writer that never closes its connection, as
    // when killed with SIGKILL: what it committed must still be readable.
    let mut killed = b.open();
    let id2 = killed.begin_run(&new_run(5, &[])).unwrap();
    killed.add_result(id2, &failed_result(6)).unwrap();
    std::mem::forget(killed);

    let store = b.open();
    let list = store.list_runs().unwrap();
    assert_eq!(list.len(), 2);
    for (s, want_id, bench) in [(&list[0], id2, "memory.stream"), (&list[1], id, "cpu.ops")] {
        assert_eq!(s.id, want_id);
        assert_eq!(s.status, RunStatus::Incomplete);
        assert_eq!(s.ended_at, None);
        assert_eq!(
            (s.result_count, s.benchmarks.as_slice()),
            (1, [bench.to_string()].as_slice())
        );
    }
    let run = store.load_run(id).unwrap();
    assert_eq!((run.status, run.ended_at), (RunStatus::Incomplete, None));
    assert_eq!(run.results, vec![cpu_result(1)]);
}

fn reopening_does_not_rerun_migrations(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    drop(store);
    assert_eq!(b.schema_version(), 9);

    let store = b.open();
    assert_eq!(b.schema_version(), 9);
    assert_eq!(b.count("schema_version"), 1);
    assert_eq!(store.list_runs().unwrap()[0].id, id);
    drop(store);
    let store = b.open();
    assert_eq!(store.list_runs().unwrap().len(), 1);
    assert_eq!(b.schema_version(), 9);
}

/// SQL turning a store holding only [`cpu_result`]s back into a version 5
/// one: its series' points as JSON text, no packed column.
fn json_series_rows() -> String {
    let points = serde_json::to_string(&cpu_result(1).series[0].points).unwrap();
    format!(
        "UPDATE series SET points = '{points}', points_packed = NULL;
         ALTER TABLE series DROP COLUMN points_packed; ALTER TABLE results DROP COLUMN disturbance;
         ALTER TABLE results DROP COLUMN error_phase; ALTER TABLE metrics DROP COLUMN printed;"
    )
}

fn a_version_5_store_reads_its_json_series_and_packs_new_ones(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    store.add_result(id, &cpu_result(1)).unwrap();
    drop(store);
    b.execute(&format!(
        "{} UPDATE schema_version SET version = 5",
        json_series_rows()
    ));

    let mut store = b.open();
    assert_eq!(b.schema_version(), 9);
    assert_eq!(
        b.query_i64("SELECT COUNT(*) FROM series WHERE points_packed IS NULL"),
        1
    );
    store.add_result(id, &cpu_result(2)).unwrap();
    assert_eq!(
        b.query_i64("SELECT COUNT(*) FROM series WHERE points_packed IS NULL AND points = ''"),
        0
    );
    let run = store.load_run(id).unwrap();
    assert_eq!(run.results, vec![cpu_result(1), cpu_result(2)]);
}

fn series_sharing_times_read_back_exactly(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    let mut r = cpu_result(1);
    let times = [0.25, 1.000_123, 2.0, 2.999_999];
    for (i, name) in ["cpu_user", "cpu_system", "cpu_irq"].iter().enumerate() {
        r.series.push(TimeSeries {
            name: name.to_string(),
            unit: Unit::Percent,
            labels: BTreeMap::from([("cpu".to_string(), i.to_string())]),
            points: times
                .iter()
                .map(|&t| (t, i as f64 * 100.0 / 3.0 + t))
                .collect(),
        });
    }
    // Two results: the first series of the second shares no times with
    // the last of the first.
    store.add_result(id, &r).unwrap();
    store.add_result(id, &r).unwrap();
    let run = store.load_run(id).unwrap();
    assert_eq!(run.results, vec![r.clone(), r]);
    let corrupt = match b {
        Backend::Sqlite { .. } => "X'0907'",
        Backend::Postgres { .. } => "'\\x0907'::bytea",
    };
    b.execute(&format!(
        "UPDATE series SET points_packed = {corrupt} WHERE name = 'cpu_irq'"
    ));
    let err = store.load_run(id).unwrap_err();
    assert!(matches!(err, StoreError::Invalid { .. }), "{err:?}");
    assert!(
        err.to_string().contains("points of series \"cpu_irq\""),
        "{err}"
    );
}

fn a_version_1_store_gains_verdicts_and_keeps_its_runs(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    store.add_result(id, &cpu_result(1)).unwrap();
    drop(store);
    // Back to the first schema, as a store written before thresholds.
    b.execute(&format!(
        "{} ALTER TABLE runs DROP COLUMN build; ALTER TABLE runs DROP COLUMN verdicts; ALTER TABLE results DROP COLUMN bottleneck;
         ALTER TABLE results DROP COLUMN phases; UPDATE schema_version SET version = 1",
        json_series_rows()
    ));

    let store = b.open();
    assert_eq!(b.schema_version(), 9);
    let run = store.load_run(id).unwrap();
    assert_eq!(run.results, vec![cpu_result(1)]);
    assert!(run.verdicts.is_empty());
}

fn a_version_2_store_gains_bottleneck_lines_and_keeps_its_runs(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    store.add_result(id, &cpu_result(1)).unwrap();
    drop(store);
    // Back to the second schema, as a store written before bottleneck lines
    // and phases.
    b.execute(&format!(
        "{} ALTER TABLE runs DROP COLUMN build; ALTER TABLE results DROP COLUMN phases; ALTER TABLE results DROP COLUMN bottleneck; UPDATE schema_version SET version = 2",
        json_series_rows()
    ));

    let mut store = b.open();
    assert_eq!(b.schema_version(), 9);
    let mut with_line = cpu_result(2);
    with_line.bottleneck = Some("CPU: all 2 cores saturated".into());
    let mut with_phases = cpu_result(3);
    with_phases.phases = vec![nodebench_core::model::Phase {
        labels: [("threads".to_string(), "2".to_string())].into(),
        start_s: 0.25,
        end_s: 1.5,
        bottleneck: Some("compute-bound: FMA units at 97 % of peak on 2 cores".into()),
        disturbance: None,
    }];
    store.add_result(id, &with_line).unwrap();
    store.add_result(id, &with_phases).unwrap();
    let run = store.load_run(id).unwrap();
    assert_eq!(run.results, vec![cpu_result(1), with_line, with_phases]);
    assert_eq!(run.results[0].bottleneck, None);
    assert!(run.results[0].phases.is_empty());
}

#[test]
fn store_is_in_wal_mode() {
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("results.db");
    let _store = SqliteStore::open(&path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn uncreatable_parent_is_an_open_error_naming_the_path() {
    let path = Path::new("/proc/nodebench-test/results.db");
    let err = SqliteStore::open(path).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.starts_with("cannot open results store at /proc/nodebench-test/results.db: "),
        "{msg}"
    );
}

#[test]
fn file_that_is_not_a_database_is_an_open_error() {
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("results.db");
    std::fs::write(&path, vec![b'x'; 4096]).unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}

fn newer_schema_is_refused(b: &Backend) {
    drop(b.open());
    b.execute("UPDATE schema_version SET version = 99");

    let err = b.try_open().unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::Newer {
                found: 99,
                supported: 9
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "store schema version 99 is newer than this nodebench supports (9)"
    );
    assert_eq!(b.schema_version(), 99);
}

fn unreadable_stored_values_are_errors_not_panics(b: &Backend) {
    let mut store = b.open();
    let id = store.begin_run(&new_run(0, &[])).unwrap();
    store.add_result(id, &cpu_result(1)).unwrap();

    b.execute("UPDATE metrics SET unit = 'furlong/fortnight' WHERE name = 'rate'");
    let err = store.load_run(id).unwrap_err();
    assert!(matches!(err, StoreError::Invalid { .. }), "{err:?}");
    assert!(err.to_string().contains("furlong/fortnight"), "{err}");

    b.execute("UPDATE runs SET status = 'exploded'");
    assert!(matches!(store.list_runs(), Err(StoreError::Invalid { .. })));
    assert!(matches!(
        store.load_run(id),
        Err(StoreError::Invalid { .. })
    ));

    b.execute("UPDATE runs SET status = 'complete', started_at = 'yesterday'");
    assert!(matches!(store.list_runs(), Err(StoreError::Invalid { .. })));
}

fn recorder_commits_each_result_and_the_ending(b: &Backend) {
    use nodebench_core::bench::ResultSink;
    let store = b.open();
    let run = nodebench_core::Run::start(vec!["nodebench".into()], Default::default());
    let mut rec = nodebench_store::Recorder::begin(Some(store), run).unwrap();
    let id = rec.run().id.unwrap();
    rec.record(nodebench_core::BenchResult::new("cpu.ops"))
        .unwrap();
    // Committed already: a second connection sees it before the run ends.
    let other = b.open();
    let seen = other.load_run(id).unwrap();
    assert_eq!(seen.results.len(), 1);
    assert_eq!(seen.status, nodebench_core::RunStatus::Incomplete);
    let done = rec.finish(nodebench_core::RunStatus::Complete).unwrap();
    assert_eq!(done.results.len(), 1);
    assert_eq!(
        other.load_run(id).unwrap().status,
        nodebench_core::RunStatus::Complete
    );

    let unsaved = nodebench_store::Recorder::begin(
        None,
        nodebench_core::Run::start(vec![], Default::default()),
    )
    .unwrap();
    assert!(unsaved.run().id.is_none());
}

fn recorder_judges_thresholds_and_the_store_keeps_the_verdicts(b: &Backend) {
    use nodebench_core::bench::ResultSink;
    use nodebench_core::threshold::Threshold;
    let store = b.open();
    let mut rec = nodebench_store::Recorder::begin(Some(store), new_run(0, &[])).unwrap();
    let id = rec.run().id.unwrap();
    rec.record(cpu_result(1)).unwrap();
    let rate = cpu_result(1).metrics[0].clone();
    let thresholds: Vec<Threshold> = [
        format!("cpu.ops {} >= 0", rate.name),
        "memory.stream bandwidth >= 1 GB/s".to_string(),
    ]
    .iter()
    .map(|t| t.parse().unwrap())
    .collect();
    let verdicts = rec.judge(&thresholds).unwrap().to_vec();
    assert_eq!(
        verdicts.iter().map(|v| v.passed).collect::<Vec<_>>(),
        vec![true, false]
    );
    let done = rec.finish(RunStatus::Complete).unwrap();
    assert_eq!(done.verdicts, verdicts);
    let stored = b.open().load_run(id).unwrap();
    assert_eq!(stored.verdicts, verdicts);
    assert_eq!(
        stored.verdicts[1].detail.as_deref(),
        Some("no memory.stream result in this run")
    );
}

fn a_forgetful_recorder_saves_results_without_keeping_them_and_sets_verdicts(b: &Backend) {
    use nodebench_core::bench::ResultSink;
    let store = b.open();
    let mut rec = nodebench_store::Recorder::begin(Some(store), new_run(0, &[]))
        .unwrap()
        .forget_saved_results();
    let id = rec.run().id.unwrap();
    for i in 1..=3 {
        rec.record(cpu_result(i)).unwrap();
    }
    assert!(rec.run().results.is_empty(), "saved results are not kept");
    let verdict = nodebench_core::ThresholdVerdict {
        threshold: "burnin cpu: no errors".into(),
        passed: false,
        measured: Some(2.0),
        unit: Some(nodebench_core::Unit::Count),
        matched: 1,
        detail: Some("first at 05:51:02 UTC".into()),
    };
    rec.set_verdicts(vec![verdict.clone()]).unwrap();
    let done = rec.finish(RunStatus::Complete).unwrap();
    assert_eq!(done.verdicts, vec![verdict.clone()]);
    let stored = b.open().load_run(id).unwrap();
    assert_eq!(stored.results.len(), 3);
    assert_eq!(stored.verdicts, vec![verdict]);

    // Without a store the results are the only copy: kept.
    let mut unsaved = nodebench_store::Recorder::begin(None, new_run(0, &[]))
        .unwrap()
        .forget_saved_results();
    unsaved.record(cpu_result(1)).unwrap();
    assert_eq!(unsaved.run().results.len(), 1);
}

on_both_backends!(
    run_round_trips_exactly,
    run_with_results_given_to_begin_run_keeps_them,
    nan_values_read_back_as_nan,
    list_runs_is_newest_first_with_counts,
    list_runs_reads_hostname_from_inventory,
    host_state_round_trips_and_a_run_stored_before_it_still_reads,
    delete_run_removes_everything_under_it,
    missing_run_is_not_found_everywhere,
    load_runs_metrics_reads_many_runs_in_order,
    unfinished_run_lists_as_incomplete_after_reopen,
    reopening_does_not_rerun_migrations,
    a_version_1_store_gains_verdicts_and_keeps_its_runs,
    a_version_5_store_reads_its_json_series_and_packs_new_ones,
    series_sharing_times_read_back_exactly,
    a_version_2_store_gains_bottleneck_lines_and_keeps_its_runs,
    newer_schema_is_refused,
    unreadable_stored_values_are_errors_not_panics,
    recorder_commits_each_result_and_the_ending,
    a_failed_result_fails_the_run_and_names_its_benchmark,
    a_version_7_store_reads_its_failures_without_a_phase,
    a_version_8_store_reads_its_metrics_and_keeps_printed_forms,
    recorder_judges_thresholds_and_the_store_keeps_the_verdicts,
    a_forgetful_recorder_saves_results_without_keeping_them_and_sets_verdicts,
);

#[test]
fn an_unreachable_postgres_server_is_one_line_without_the_password() {
    let location = nodebench_store::Location::Postgres(
        "postgres://bench:s3cret@127.0.0.1:1/nodebench_store?connect_timeout=5".into(),
    );
    assert_eq!(
        location.to_string(),
        "postgres://bench@127.0.0.1:1/nodebench_store?connect_timeout=5"
    );
    let err = location.open().unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.starts_with(
            "cannot open results store at postgres://bench@127.0.0.1:1/nodebench_store?connect_timeout=5: error connecting to server: "
        ),
        "{msg}"
    );
    assert_eq!(msg.lines().count(), 1, "{msg}");
    assert!(!msg.contains("s3cret"), "{msg}");
}

#[test]
fn a_refused_postgres_login_is_one_line_without_the_password() {
    let Some(url) = common::postgres_url() else {
        return;
    };
    let (scheme, rest) = url.split_once("://").unwrap();
    let (user, host) = rest.split_once('@').unwrap();
    let user = user.split(':').next().unwrap();
    let wrong = format!("{scheme}://{user}:not-the-s3cret@{host}");
    let err = nodebench_store::Location::Postgres(wrong)
        .open()
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!(
            "cannot open results store at {scheme}://{user}@{host}: "
        )),
        "{msg}"
    );
    assert!(msg.contains("password authentication failed"), "{msg}");
    assert_eq!(msg.lines().count(), 1, "{msg}");
    assert!(!msg.contains("not-the-s3cret"), "{msg}");
}
