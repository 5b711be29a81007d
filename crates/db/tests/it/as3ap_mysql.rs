//! AS3AP on MariaDB/MySQL (the server `scripts/db-servers start` runs; its
//! URL in NODEBENCH_TEST_MYSQL): the load by LOAD DATA LOCAL INFILE with the
//! spec's row counts, the same checksums as the generator (so as SQLite's
//! and PostgreSQL's) for the seed, every multi-user test, the IR-with-OLTP
//! semantics and restore, the refusal of an existing schema without
//! --reuse or --recreate, an unreachable server, wrong credentials and a
//! missing database in one line without the password, and no password in
//! the stored results. Without the variable the test says it skipped, and
//! fails under CI (CI=true), where scripts/test sets it.

use nodebench_core::ResultStatus;
use nodebench_core::Run;
use nodebench_core::names::db::{label, metric, param, table, test};
use nodebench_db::config::{As3apConfig, Test};
use nodebench_db::data::{Checksum, TABLES};
use nodebench_db::engine::Connector;
use nodebench_db::engine::mysql::MysqlConnector;

use crate::common;
use common::{of, run, value};

/// The shared small config, reloading the tables every time.
fn server_config(url: &str, tests: Vec<Test>) -> As3apConfig {
    As3apConfig {
        recreate: true,
        ..common::config(url, tests)
    }
}

/// The password of `url` (`scheme://user:password@...`).
fn password(url: &str) -> &str {
    let user_info = url.split_once("://").unwrap().1.split('@').next().unwrap();
    user_info.split_once(':').unwrap().1
}

/// Every test that touches the tables runs here, in sequence: the tests of
/// one file run in parallel on the one `as3ap` database.
#[test]
fn loads_runs_every_test_and_restores_updates_on_mysql() {
    let Some(url) = common::server("NODEBENCH_TEST_MYSQL", "as3ap_mysql") else {
        return;
    };
    let rs = run(server_config(&url, Test::ALL_TESTS.to_vec())).unwrap();
    assert_eq!(rs.len(), 6);
    for r in &rs {
        assert_eq!(
            r.status,
            ResultStatus::Passed,
            "{:?}: {:?}",
            r.param(param::TEST),
            r.error
        );
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert_eq!(r.param(param::ENGINE), Some(&serde_json::json!("mysql")));
    }

    // The settings come from the server.
    let load = of(&rs, test::LOAD);
    let text = |key: &str| {
        load.param(key)
            .and_then(|v| v.as_str())
            .unwrap()
            .to_string()
    };
    assert!(text(param::SERVER_VERSION).contains("ENGINE=InnoDB"));
    assert!(text(param::CACHE).starts_with("innodb_buffer_pool_size="));
    assert!(
        text(param::DURABILITY).starts_with("innodb_flush_log_at_trx_commit="),
        "{}",
        text(param::DURABILITY)
    );
    assert!(text(param::ISOLATION).contains("READ"));

    // The spec's row counts, and the generator's checksums as stored.
    let mut s = MysqlConnector::new(&url).unwrap().connect().unwrap();
    for t in TABLES {
        let want = if t.name == table::TINY { 1.0 } else { 10_000.0 };
        assert_eq!(value(load, metric::ROWS, &[(label::TABLE, t.name)]), want);
        let stored = s.fetch(&Checksum::query(t, s.bigint())).unwrap();
        assert_eq!(
            Checksum::from_figures(&stored.first),
            Checksum::generated(t, 10_000, 1),
            "{}",
            t.name
        );
    }
    assert!(
        value(
            load,
            metric::LOAD_ROWS_PER_SECOND,
            &[(label::TABLE, label::ALL)]
        ) > 0.0
    );

    common::check_single(of(&rs, test::SINGLE), "mysql");

    let ir = of(&rs, test::IR);
    let all = value(ir, metric::QUERIES, &[(label::USER, label::ALL)]);
    let measured = value(ir, metric::QUERIES, &[(label::USER, label::MEASURED)]);
    assert!(measured > 0.0 && all > measured, "{all} {measured}");
    assert!(value(ir, metric::LATENCY_P99, &[(label::USER, label::MEASURED)]) > 0.0);

    // IR with OLTP background: col_signed (not indexed) grew by one per
    // completed oltp_update; the restore brought back the loaded data.
    let oltp = of(&rs, test::IR_OLTP);
    // InnoDB gives each level as asked.
    assert_eq!(
        common::isolation(oltp, "ir_select"),
        (
            "READ UNCOMMITTED".into(),
            "READ-UNCOMMITTED".into(),
            "READ-UNCOMMITTED".into()
        )
    );
    assert_eq!(
        common::isolation(oltp, "oltp_update"),
        (
            "SERIALIZABLE".into(),
            "SERIALIZABLE".into(),
            "SERIALIZABLE".into()
        )
    );
    let updates = value(oltp, metric::OLTP_UPDATES, &[]);
    assert!(updates > 0.0);
    assert_eq!(value(oltp, metric::SIGNED_DELTA, &[]), updates);
    assert!(value(oltp, metric::RESTORE_SECONDS, &[]) > 0.0);
    for t in [test::CROSS_IR, test::CROSS_OLTP] {
        let r = of(&rs, t);
        assert_eq!(
            value(r, metric::QUERY_ROWS, &[(label::QUERY, "sel_100_rand")]),
            100.0
        );
    }
    let updates_table = nodebench_db::data::table(table::UPDATES);
    let stored = s
        .fetch(&Checksum::query(updates_table, s.bigint()))
        .unwrap();
    assert_eq!(
        Checksum::from_figures(&stored.first),
        Checksum::generated(updates_table, 10_000, 1)
    );

    // The password is in no stored parameter, table or JSON.
    let json = serde_json::to_string(&Run {
        results: rs,
        ..Run::start(vec![], Default::default())
    })
    .unwrap();
    assert!(!json.contains(&format!(":{}@", password(&url))), "{json}");
    assert!(json.contains("mysql://bench@"));

    // The tables stay; a second run needs --reuse (checked) or --recreate.
    let e = run(As3apConfig {
        recreate: false,
        ..server_config(&url, vec![Test::Ir])
    })
    .unwrap_err();
    assert!(
        e.contains("AS3AP tables already exist")
            && e.contains("--reuse")
            && e.contains("--recreate")
            && !e.contains('\n'),
        "{e}"
    );
    let reused = run(As3apConfig {
        recreate: false,
        reuse: true,
        ..server_config(&url, vec![Test::Ir])
    })
    .unwrap();
    assert_eq!(reused.len(), 1);
    assert_eq!(reused[0].status, ResultStatus::Passed);
    assert_eq!(
        reused[0].param(param::REUSED),
        Some(&serde_json::json!(true))
    );
}

#[test]
fn unreachable_wrong_credentials_and_a_missing_database_are_one_line() {
    let Some(url) = common::server("NODEBENCH_TEST_MYSQL", "as3ap_mysql") else {
        return;
    };
    let (scheme_user, rest) = url.split_once('@').unwrap();
    let user = scheme_user.rsplit_once(':').unwrap().0;
    let wrong = format!("{user}:not-the-password@{rest}");
    let e = run(server_config(&wrong, vec![Test::Ir])).unwrap_err();
    assert!(e.contains("Access denied for user 'bench'"), "{e}");
    assert!(!e.contains("not-the-password") && !e.contains('\n'), "{e}");

    let (base, _) = url.rsplit_once('/').unwrap();
    // The server says "access denied" to a user without rights on it, and
    // "unknown database" to one with them.
    let e = run(server_config(&format!("{base}/no_such_db"), vec![Test::Ir])).unwrap_err();
    assert!(
        e.contains("database 'no_such_db'")
            && !e.contains('\n')
            && !e.contains(&format!(":{}@", password(&url))),
        "{e}"
    );

    // A port nothing listens on (bound, then released).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = run(server_config(
        &format!("mysql://bench:secret@127.0.0.1:{port}/as3ap"),
        vec![Test::Ir],
    ))
    .unwrap_err();
    assert!(
        e.starts_with(&format!("--db mysql://bench@127.0.0.1:{port}/as3ap: "))
            && !e.contains("secret")
            && !e.contains('\n'),
        "{e}"
    );
}
