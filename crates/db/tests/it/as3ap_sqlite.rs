//! AS3AP on SQLite end to end: the load's row counts and checksum, every
//! multi-user test, the IR-with-OLTP semantics and the restore, `--reuse`,
//! the refusal of existing tables, and an interrupted load.

use nodebench_core::ResultStatus;
use nodebench_core::Run;
use nodebench_core::bench::{Cancel, collect};
use nodebench_core::inventory::Inventory;
use nodebench_core::names::db::{label, metric, param, table, test};
use nodebench_db::as3ap::{As3ap, LOAD_INTERRUPTED};
use nodebench_db::config::{As3apConfig, Test};
use nodebench_db::data::{Checksum, TABLES};
use nodebench_db::engine::Connector;

use crate::common;
use common::{of, run, value};

/// The shared small config on the SQLite file at `path`.
fn config(path: &std::path::Path, tests: Vec<Test>) -> As3apConfig {
    common::config(&format!("sqlite:{}", path.display()), tests)
}

/// The six checksum figures of `t` read straight from the file.
fn stored(path: &std::path::Path, t: &str) -> Checksum {
    let conn = rusqlite::Connection::open(path).unwrap();
    let sql = Checksum::query(nodebench_db::data::table(t), "INTEGER");
    let f: Vec<Option<i64>> = conn
        .query_row(&sql, [], |r| (0..6).map(|i| r.get(i)).collect())
        .unwrap();
    Checksum::from_figures(&f)
}

#[test]
fn loads_runs_every_test_and_restores_updates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("as3ap.db");
    let rs = run(config(&path, Test::ALL_TESTS.to_vec())).unwrap();
    assert_eq!(rs.len(), 6, "load, single and four multi-user results");
    for r in &rs {
        assert_eq!(
            r.status,
            ResultStatus::Passed,
            "{:?}: {:?}",
            r.param(param::TEST),
            r.error
        );
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    }
    let load = of(&rs, test::LOAD);
    for t in TABLES {
        let want = if t.name == table::TINY { 1.0 } else { 10_000.0 };
        assert_eq!(value(load, metric::ROWS, &[(label::TABLE, t.name)]), want);
        assert_eq!(
            stored(&path, t.name),
            Checksum::generated(t, 10_000, 1),
            "{}",
            t.name
        );
    }
    assert_eq!(
        value(load, metric::ROWS, &[(label::TABLE, label::ALL)]),
        40_001.0
    );
    assert!(
        value(
            load,
            metric::LOAD_ROWS_PER_SECOND,
            &[(label::TABLE, label::ALL)]
        ) > 0.0
    );

    common::check_single(of(&rs, test::SINGLE), "sqlite");

    let ir = of(&rs, test::IR);
    let all = value(ir, metric::QUERIES, &[(label::USER, label::ALL)]);
    let measured = value(ir, metric::QUERIES, &[(label::USER, label::MEASURED)]);
    assert!(measured > 0.0 && all > measured, "{all} {measured}");
    assert!(
        ir.histogram(metric::LATENCY, &[(label::USER, label::MEASURED)])
            .is_some()
    );
    assert!(value(ir, metric::LATENCY_P99, &[(label::USER, label::MEASURED)]) > 0.0);

    // IR with OLTP background: col_signed (not indexed) grew by exactly
    // one per completed oltp_update, and the restore brought back the
    // loaded data.
    let oltp = of(&rs, test::IR_OLTP);
    // SQLite: every transaction serializable; read_uncommitted set, but it
    // acts only in shared-cache mode, and these are WAL connections.
    let (asked, reported, effective) = common::isolation(oltp, "ir_select");
    assert_eq!(
        (asked.as_str(), reported.as_str()),
        ("READ UNCOMMITTED", "SERIALIZABLE, read_uncommitted=1")
    );
    assert!(
        effective.starts_with("SERIALIZABLE (read_uncommitted acts only in shared-cache mode"),
        "{effective}"
    );
    assert_eq!(
        common::isolation(oltp, "oltp_update"),
        (
            "SERIALIZABLE".into(),
            "SERIALIZABLE, read_uncommitted=0".into(),
            "SERIALIZABLE".into()
        )
    );
    assert_eq!(
        value(oltp, metric::QUERIES, &[(label::USER, label::BACKGROUND)]),
        value(oltp, metric::QUERIES, &[(label::USER, label::BACKGROUND)])
    );
    assert!(
        oltp.metric(metric::QUERIES, &[(label::USER, label::ALL)])
            .is_none(),
        "ir-oltp has no all-users figure"
    );
    let updates = value(oltp, metric::OLTP_UPDATES, &[]);
    assert!(updates > 0.0);
    assert_eq!(value(oltp, metric::SIGNED_DELTA, &[]), updates);
    assert!(value(oltp, metric::RESTORE_SECONDS, &[]) > 0.0);
    assert!(value(oltp, metric::QUERIES, &[(label::USER, label::MEASURED)]) > 0.0);

    for t in [test::CROSS_IR, test::CROSS_OLTP] {
        let r = of(&rs, t);
        assert_eq!(
            value(r, metric::QUERY_ROWS, &[(label::QUERY, "sel_100_rand")]),
            100.0
        );
        assert!(
            value(
                r,
                metric::QUERY_SECONDS,
                &[(label::QUERY, "checkmod_100_seq")]
            ) > 0.0
        );
    }
    let updates_table = nodebench_db::data::table(table::UPDATES);
    assert_eq!(
        stored(&path, table::UPDATES),
        Checksum::generated(updates_table, 10_000, 1)
    );

    // The tables stay; a second run needs --reuse (checked) or --recreate.
    let e = run(config(&path, vec![Test::Ir])).unwrap_err();
    assert!(
        e.contains("AS3AP tables already exist") && e.contains("--reuse"),
        "{e}"
    );
    let reused = run(As3apConfig {
        reuse: true,
        ..config(&path, vec![Test::Ir])
    })
    .unwrap();
    assert_eq!(reused.len(), 1);
    assert_eq!(
        reused[0].param(param::REUSED),
        Some(&serde_json::json!(true))
    );
    // A wrong row count fails the step with the counts in its message.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute(
            "UPDATE hundred SET col_address = 'ELSEWHERE' WHERE col_address = 'SILICON VALLEY'",
            [],
        )
        .unwrap();
        let mut s = nodebench_db::engine::sqlite::SqliteConnector { path: path.clone() }
            .connect()
            .unwrap();
        let facts = nodebench_db::expect::Facts::of(10_000, 1);
        let steps = nodebench_db::single::steps(&facts);
        let join_2 = steps.iter().find(|s| s.name == "join_2").unwrap();
        let r =
            nodebench_db::single::run_step(s.as_mut(), join_2, &dir.path().join("out")).unwrap();
        assert_eq!(
            r.mismatch.as_deref(),
            Some("join_2: 0 rows, the data implies 1")
        );
        conn.execute(
            "UPDATE hundred SET col_address = 'SILICON VALLEY' WHERE col_address = 'ELSEWHERE'",
            [],
        )
        .unwrap();
        // A statement that must be refused and is not fails its step too:
        // without the row of key 6000, the duplicate is no duplicate.
        conn.execute("DELETE FROM updates WHERE col_key = 6000", [])
            .unwrap();
        let dup = steps.iter().find(|s| s.name == "append_duplicate").unwrap();
        let r = nodebench_db::single::run_step(s.as_mut(), dup, &dir.path().join("out")).unwrap();
        assert_eq!(
            r.mismatch.as_deref(),
            Some("append_duplicate: the engine accepted it (1 rows); the paper requires a refusal")
        );
        assert!(!r.refused);
    }
    let e = run(As3apConfig {
        reuse: true,
        seed: 2,
        ..config(&path, vec![Test::Ir])
    })
    .unwrap_err();
    assert!(
        e.starts_with("--reuse: the existing uniques table was not loaded"),
        "{e}"
    );
    let recreated = run(As3apConfig {
        recreate: true,
        seed: 2,
        ..config(&path, vec![])
    });
    assert!(recreated.is_err(), "an empty --tests is refused");
    let recreated = run(As3apConfig {
        recreate: true,
        seed: 2,
        ..config(&path, vec![Test::Single])
    })
    .unwrap();
    assert_eq!(recreated.len(), 2);
    assert_eq!(
        stored(&path, table::UPDATES),
        Checksum::generated(updates_table, 10_000, 2)
    );
}

#[test]
fn an_interrupted_load_drops_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("as3ap.db");
    let cancel = Cancel::new();
    cancel.cancel();
    let rs = collect(
        &As3ap {
            config: config(&path, Test::ALL_TESTS.to_vec()),
        },
        &Inventory::default(),
        cancel,
    )
    .unwrap();
    assert_eq!(rs.len(), 1);
    assert_eq!(rs[0].status, ResultStatus::Cancelled);
    assert_eq!(rs[0].error.as_deref(), Some(LOAD_INTERRUPTED));
    let conn = rusqlite::Connection::open(&path).unwrap();
    let tables: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0);
}

#[test]
fn the_scratch_file_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let c = As3apConfig {
        db: None,
        scratch_dir: dir.path().to_path_buf(),
        ..config(dir.path(), vec![Test::Ir])
    };
    let rs = run(c).unwrap();
    assert_eq!(rs.len(), 2);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let json = serde_json::to_string(&Run {
        results: rs,
        ..Run::start(vec![], Default::default())
    });
    assert!(json.unwrap().contains("sqlite:(scratch file)"));
}

#[test]
fn the_papers_users_and_tables_of_another_generator() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("as3ap.db");
    // --size 20MB and no --users: size / 4 MB = 5 users.
    let rs = run(As3apConfig {
        size: 20_000_000,
        users: None,
        ..config(&path, vec![Test::Ir, Test::CrossOltp])
    })
    .unwrap();
    for r in &rs {
        assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
        assert_eq!(r.param(param::USERS), Some(&serde_json::json!(5)));
    }
    let ir = of(&rs, test::IR);
    let all = value(ir, metric::QUERIES, &[(label::USER, label::ALL)]);
    let measured = value(ir, metric::QUERIES, &[(label::USER, label::MEASURED)]);
    let background = value(ir, metric::QUERIES, &[(label::USER, label::BACKGROUND)]);
    assert_eq!(all, measured + background);
    assert!(
        measured > 0.0 && background > measured,
        "{measured} {background}"
    );
    let cross = of(&rs, test::CROSS_OLTP);
    assert!(value(cross, metric::QUERIES, &[(label::USER, label::BACKGROUND)]) > 0.0);
    assert_eq!(
        value(
            cross,
            metric::QUERY_ROWS,
            &[(label::QUERY, "mod_100_seq_abort")]
        ),
        100.0
    );
    let (asked, ..) = common::isolation(cross, "sel_1_ncl_level_0");
    assert_eq!(asked, "READ UNCOMMITTED");
    assert_eq!(common::isolation(cross, "oltp_update").0, "SERIALIZABLE");

    // Tables whose checksum table records no data format 2 (the old
    // generator's) are refused by --reuse in one line.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "DELETE FROM as3ap_checksum WHERE table_name = 'data_format'",
            [],
        )
        .unwrap();
    let e = run(As3apConfig {
        size: 20_000_000,
        reuse: true,
        ..config(&path, vec![Test::Ir])
    })
    .unwrap_err();
    assert_eq!(
        e,
        "--reuse: the existing AS3AP tables were loaded by another data generator (data format 1, this one writes 2); give --recreate to load anew"
    );
}
