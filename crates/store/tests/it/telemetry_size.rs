//! What a result's telemetry takes in the store at 512 CPUs: a 10-minute
//! burn-in checkpoint of a synthetic 512-CPU machine (3628 series of 601
//! points) saved packed, as the store writes it, and again with its points
//! as the JSON text stores before migration 6 held; both read back to the
//! very same series, and packed takes under a fifth of the JSON's bytes.

use chrono::{DateTime, TimeZone, Utc};
use nodebench_core::{BenchResult, Run};
use nodebench_machine::telemetry::History;
use nodebench_machine::telemetry::synthetic::Machine;
use nodebench_store::{SqliteStore, Store};

const CPUS: u32 = 512;
const INTERVALS: i64 = 600;

fn at(s: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap() + chrono::Duration::seconds(s)
}

/// Bytes of the SQLite file at `path` once vacuumed, and of its series
/// table's columns.
fn sizes(path: &std::path::Path) -> (i64, i64) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;")
        .unwrap();
    let pages: i64 = conn
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .unwrap();
    let page: i64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    let columns: i64 = conn
        .query_row(
            "SELECT SUM(LENGTH(name) + LENGTH(unit) + LENGTH(labels) + LENGTH(points)
                        + COALESCE(LENGTH(points_packed), 0)) FROM series",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (pages * page, columns)
}

#[test]
fn a_512_cpu_checkpoint_packed_takes_a_fraction_of_its_json() {
    let mut machine = Machine::new(CPUS, 11);
    let mut history = History::new(INTERVALS as usize + 1);
    for s in 0..=INTERVALS {
        machine.step();
        let (prev, cur) = machine.pair();
        history.record(at(s), prev, cur, 1.0);
    }
    let mut result = BenchResult::new("burnin.checkpoint");
    result.started_at = at(0);
    result.ended_at = at(INTERVALS);
    result.series = history.window(at(0), at(INTERVALS));
    let points: usize = result.series.iter().map(|s| s.points.len()).sum();
    assert_eq!(result.series.len(), 7 * CPUS as usize + 44);

    let dir = tempfile::tempdir().unwrap();
    let mut saved = Vec::new();
    for name in ["packed.db", "json.db"] {
        let path = dir.path().join(name);
        let mut store = SqliteStore::open(&path).unwrap();
        let id = store
            .begin_run(&Run::start(vec![], Default::default()))
            .unwrap();
        store.add_result(id, &result).unwrap();
        if name == "json.db" {
            // The rows as a version 5 store wrote them.
            let conn = rusqlite::Connection::open(&path).unwrap();
            let tx = conn.unchecked_transaction().unwrap();
            let mut update = tx
                .prepare("UPDATE series SET points = ?1, points_packed = NULL WHERE id = ?2")
                .unwrap();
            let ids: Vec<i64> = tx
                .prepare("SELECT id FROM series ORDER BY id")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            for (row, s) in ids.iter().zip(&result.series) {
                update
                    .execute(rusqlite::params![
                        serde_json::to_string(&s.points).unwrap(),
                        row
                    ])
                    .unwrap();
            }
            drop(update);
            tx.commit().unwrap();
        }
        let loaded = store.load_run(id).unwrap();
        assert!(loaded.results[0].series == result.series, "{name}");
        drop(store);
        saved.push(sizes(&path));
    }
    let [(packed_file, packed), (json_file, json)] = saved[..] else {
        unreachable!()
    };
    let per = |bytes: i64| bytes as f64 / INTERVALS as f64;
    eprintln!(
        "{CPUS} CPUs, {} series, {points} points over {INTERVALS} intervals: \
         series columns {json} B as JSON, {packed} B packed ({:.0} and {:.0} B per interval, \
         {:.1} and {:.2} B per point); SQLite file {json_file} B and {packed_file} B \
         ({:.0} and {:.0} B per interval)",
        result.series.len(),
        per(json),
        per(packed),
        json as f64 / points as f64,
        packed as f64 / points as f64,
        per(json_file),
        per(packed_file),
    );
    assert!(packed * 5 < json, "{packed} B packed, {json} B as JSON");
    assert!(
        packed_file * 4 < json_file,
        "{packed_file} B, {json_file} B"
    );
}
