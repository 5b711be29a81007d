//! The HTTP server's `/db/ir` page on SQLite (the handler core's
//! `Endpoint` trait hands the server): the row of a known key as the
//! generator made it, random keys within the table, 400 for a bad query,
//! 500 when the database fails, and one line naming `--db` when the
//! database is missing or not loaded.

use std::time::Duration;

use nodebench_core::bench::{Cancel, collect};
use nodebench_core::endpoint::Endpoint;
use nodebench_core::inventory::Inventory;
use nodebench_core::names::db::table;
use nodebench_db::as3ap::As3ap;
use nodebench_db::config::{As3apConfig, Test};
use nodebench_db::data::Generator;
use nodebench_db::endpoint::{IR_PATH, IrEndpoint};

/// Loads the smallest database (10,000 rows per table, seed 7) into `path`.
fn load(path: &std::path::Path) {
    let config = As3apConfig {
        db: Some(format!("sqlite:{}", path.display())),
        size: 4_000_000,
        seed: 7,
        tests: vec![Test::Ir],
        users: Some(1),
        warmup: Duration::ZERO,
        measure: Duration::from_millis(50),
        ..As3apConfig::default()
    };
    collect(&As3ap { config }, &Inventory::default(), Cancel::new()).unwrap();
}

#[test]
fn answers_the_row_of_a_key_and_500_when_the_database_fails() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("as3ap.db");
    load(&path);
    let endpoint = IrEndpoint::new(format!("sqlite:{}", path.display()));
    assert_eq!(endpoint.path(), IR_PATH);
    assert_eq!(endpoint.target(), format!("sqlite:{}", path.display()));
    let mut handler = endpoint.open().unwrap();

    let updates = nodebench_db::data::table(table::UPDATES);
    let row = Generator::new(updates, 10_000, 7).row(4_320);
    let reply = handler.handle(Some("key=4321"));
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.body,
        format!(
            "col_key=      4321\ncol_code={}\ncol_date={}\ncol_signed={:>11}\ncol_name={}\n",
            row.code, row.date, row.signed, row.name
        )
    );

    // Without a query: a random key of the loaded ones (0, 2..=10,000) each time.
    let keys: std::collections::BTreeSet<i64> = (0..50)
        .map(|_| {
            let r = handler.handle(None);
            assert_eq!(r.status, 200, "{}", r.body);
            let key = r.body.lines().next().unwrap();
            // Every body has the same length (ab counts others as failed).
            assert_eq!(r.body.len(), reply.body.len(), "{}", r.body);
            key.strip_prefix("col_key=")
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(keys.len() > 40, "{keys:?}");
    assert!(
        keys.iter().all(|k| *k == 0 || (2..=10_000).contains(k)),
        "{keys:?}"
    );

    for bad in ["key=1", "key=10001", "key=-5", "key=x", "id=5"] {
        let r = handler.handle(Some(bad));
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(
            r.body,
            "400 /db/ir: expected no query or ?key=N with N a loaded key: 0 or 2 to 10000\n"
        );
    }

    // The database fails under the open connection: 500 with its message.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("DROP TABLE hundred; DROP TABLE updates")
        .unwrap();
    let r = handler.handle(Some("key=2"));
    assert_eq!(r.status, 500, "{}", r.body);
    assert!(
        r.body.starts_with("500 /db/ir: ir_select: ") && r.body.contains("updates"),
        "{}",
        r.body
    );
}

#[test]
fn a_missing_or_unloaded_database_is_one_line_naming_db() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    let e = IrEndpoint::new(format!("sqlite:{}", missing.display()))
        .open()
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        e,
        format!(
            "--db sqlite:{0}: no such file; load it first with: nodebench db as3ap --db sqlite:{0} --tests single",
            missing.display()
        )
    );
    assert!(!missing.exists(), "opening must not create the file");

    let empty = dir.path().join("empty.db");
    rusqlite::Connection::open(&empty)
        .unwrap()
        .execute("CREATE TABLE t (x INTEGER)", [])
        .unwrap();
    let e = IrEndpoint::new(format!("sqlite:{}", empty.display()))
        .open()
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains(": no AS3AP database there; load it first"),
        "{e}"
    );

    let bad = IrEndpoint::new("oracle://u:secret@h/db");
    let e = bad.validate().unwrap_err();
    assert!(
        e.to_string().starts_with("--db: expected sqlite:PATH")
            && !e.to_string().contains("secret"),
        "{e}"
    );
    assert_eq!(bad.target(), "(invalid --db)");
    let pg = IrEndpoint::new("postgres://bench:secret@127.0.0.1:1/as3ap");
    assert_eq!(pg.target(), "postgres://bench@127.0.0.1:1/as3ap");
    assert!(!pg.help().contains("secret"));
    let e = pg.open().err().unwrap();
    assert!(
        e.to_string()
            .starts_with("--db postgres://bench@127.0.0.1:1/as3ap: ")
            && !e.to_string().contains("secret"),
        "{e}"
    );
}
