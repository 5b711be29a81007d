//! What the TPC-C engine tests share: a small (scaled-down, NOT
//! spec-compliant) load and short run through the benchmark, then each
//! transaction against known results, and the consistency checks passing
//! and failing on planted corruption.

use std::time::Duration;

use nodebench_core::bench::{Cancel, collect};
use nodebench_core::inventory::Inventory;
use nodebench_core::names::db::tpcc::{label as tlabel, metric as tmetric, table, test};
use nodebench_core::names::db::{label, metric, param};
use nodebench_core::{BenchResult, ResultStatus};
use nodebench_db::engine::Connector;
use nodebench_db::engine::sql::{Sql, V};
use nodebench_db::tpcc::random::{Constants, Rng};
use nodebench_db::tpcc::txn::{self, Done, Input, Line, Scale, Texts, Who};
use nodebench_db::tpcc::{Tpcc, TpccConfig, check};

/// A 1-warehouse database scaled down 10x (10,000 items, 300 customers
/// per district: a test setting), 2 terminals for 1 s.
pub fn small(db: &str) -> TpccConfig {
    TpccConfig {
        db: Some(db.to_string()),
        warehouses: 1,
        users: 2,
        warmup: Duration::from_millis(200),
        duration: Duration::from_secs(1),
        recreate: true,
        test_scale_down: 10,
        ..TpccConfig::default()
    }
}

/// Runs the benchmark with `c`; its results, or the error's text.
pub fn run(c: TpccConfig) -> Result<Vec<BenchResult>, String> {
    collect(&Tpcc { config: c }, &Inventory::default(), Cancel::new()).map_err(|e| e.to_string())
}

/// The result of phase `t`.
pub fn of<'a>(rs: &'a [BenchResult], t: &str) -> &'a BenchResult {
    rs.iter()
        .find(|r| r.param(param::TEST).and_then(|v| v.as_str()) == Some(t))
        .unwrap_or_else(|| panic!("no {t} result"))
}

/// The value of `name` with `labels`.
pub fn value(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> f64 {
    r.metric(name, labels)
        .unwrap_or_else(|| panic!("no {name}{labels:?}"))
        .value
}

/// An integer from a one-row, one-column query.
fn one(s: &mut dyn Sql, sql: &str, p: &[V]) -> i64 {
    s.query(sql, p).unwrap()[0][0].int().unwrap()
}

/// A number from a one-row, one-column query.
fn num(s: &mut dyn Sql, sql: &str, p: &[V]) -> f64 {
    s.query(sql, p).unwrap()[0][0].num().unwrap()
}

/// The small load and run pass with every consistency condition held,
/// New-Orders counted; the load has the scaled row counts.
pub fn load_and_run(db: &str, engine: &str) {
    let rs = run(small(db)).unwrap();
    assert_eq!(rs.len(), 2);
    let load = of(&rs, test::LOAD);
    assert_eq!(load.status, ResultStatus::Passed, "{:?}", load.error);
    for (t, n) in [
        (table::ITEM, 10_000.0),
        (table::STOCK, 10_000.0),
        (table::WAREHOUSE, 1.0),
        (table::DISTRICT, 10.0),
        (table::CUSTOMER, 3_000.0),
        (table::HISTORY, 3_000.0),
        (table::ORDERS, 3_000.0),
        (table::NEW_ORDER, 900.0),
    ] {
        assert_eq!(value(load, metric::ROWS, &[(label::TABLE, t)]), n, "{t}");
    }
    let lines = value(load, metric::ROWS, &[(label::TABLE, table::ORDER_LINE)]);
    assert!((15_000.0..=45_000.0).contains(&lines), "{lines}");
    let r = of(&rs, test::RUN);
    assert_eq!(
        r.status,
        ResultStatus::Passed,
        "{:?} {:?}",
        r.error,
        r.warnings
    );
    assert_eq!(r.param(param::ENGINE), Some(&serde_json::json!(engine)));
    assert!(value(r, tmetric::NOPM, &[]) > 0.0);
    assert!(value(r, tmetric::TPM, &[]) >= value(r, tmetric::NOPM, &[]));
    for clause in [
        "3.3.2.1", "3.3.2.2", "3.3.2.3", "3.3.2.4", "3.3.2.8", "3.3.2.9",
    ] {
        assert_eq!(
            value(r, tmetric::CHECK_PASSED, &[(tlabel::CHECK, clause)]),
            1.0
        );
    }
    let p50 = value(r, metric::LATENCY_P50, &[(tlabel::TXN, "new_order")]);
    let p999 = value(r, metric::LATENCY_P999, &[(tlabel::TXN, "new_order")]);
    assert!(p50 > 0.0 && p999 >= p50, "{p50} {p999}");
    assert!(
        r.series
            .iter()
            .any(|s| s.name == nodebench_core::names::db::tpcc::series::PER_SECOND)
    );
    eprintln!(
        "{engine}: NOPM {:.0}, TPM {:.0}",
        value(r, tmetric::NOPM, &[]),
        value(r, tmetric::TPM, &[])
    );
}

/// The scale the small database was loaded at.
fn scale() -> Scale {
    Scale {
        warehouses: 1,
        items: 10_000,
        customers: 300,
        named: 100,
        c: Constants::draw(&mut Rng::new(1)),
    }
}

/// Each transaction against what the tables say it must do, on the small
/// database [`load_and_run`] left.
pub fn transactions(connector: &dyn Connector) {
    let mut session = connector.connect().unwrap();
    let s = session.sql();
    let mut texts = Texts::default();
    let next = "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?";
    // New-Order with an unused item: rolled back, nothing left behind.
    let before = one(s, next, &[V::I(3)]);
    let orders = one(s, "SELECT COUNT(*) FROM orders", &[]);
    let line = |item| Line {
        item,
        supply_w: 1,
        quantity: 3,
    };
    let rollback = Input::NewOrder {
        w: 1,
        d: 3,
        c: 7,
        lines: vec![line(5), line(6), line(10_001)],
    };
    assert_eq!(
        txn::run(s, &mut texts, &rollback).unwrap(),
        Done::RolledBack
    );
    assert_eq!(one(s, next, &[V::I(3)]), before);
    assert_eq!(one(s, "SELECT COUNT(*) FROM orders", &[]), orders);
    // A New-Order that commits: the district's next id, its lines, stock.
    let q = "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = ?";
    let (q5, q6) = (one(s, q, &[V::I(5)]), one(s, q, &[V::I(6)]));
    let order = Input::NewOrder {
        w: 1,
        d: 3,
        c: 7,
        lines: vec![line(5), line(6), line(5)],
    };
    let Done::Committed(out) = txn::run(s, &mut texts, &order).unwrap() else {
        panic!("new-order rolled back")
    };
    assert_eq!(out.order, Some(before));
    assert_eq!(one(s, next, &[V::I(3)]), before + 1);
    let n = one(
        s,
        "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = ?",
        &[V::I(before)],
    );
    assert_eq!(n, 3);
    let after = |q0: i64, times: i64| {
        (0..times).fold(q0, |q, _| if q - 3 >= 10 { q - 3 } else { q - 3 + 91 })
    };
    assert_eq!(one(s, q, &[V::I(5)]), after(q5, 2));
    assert_eq!(one(s, q, &[V::I(6)]), after(q6, 1));
    // Payment by last name: the middle customer (ceil(n/2)) by C_FIRST.
    let names = s
        .query(
            "SELECT c_last, COUNT(*) FROM customer WHERE c_w_id = 1 AND c_d_id = 2 GROUP BY c_last HAVING COUNT(*) >= 2 ORDER BY c_last",
            &[],
        )
        .unwrap();
    let last = names[0][0].text().unwrap();
    let ids: Vec<i64> = s
        .query(
            "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = 2 AND c_last = ? ORDER BY c_first",
            &[V::S(last.clone())],
        )
        .unwrap()
        .iter()
        .map(|r| r[0].int().unwrap())
        .collect();
    let middle = ids[(ids.len() - 1) / 2];
    let balance = "SELECT c_balance FROM customer WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = ?";
    let b0 = num(s, balance, &[V::I(middle)]);
    let ytd = "SELECT w_ytd FROM warehouse WHERE w_id = 1";
    let w0 = num(s, ytd, &[]);
    let pay = Input::Payment {
        w: 1,
        d: 2,
        c_w: 1,
        c_d: 2,
        who: Who::Last(last),
        amount: 123.45,
    };
    let Done::Committed(out) = txn::run(s, &mut texts, &pay).unwrap() else {
        panic!("payment rolled back")
    };
    assert_eq!(out.customer, Some(middle), "{ids:?}");
    assert!((num(s, balance, &[V::I(middle)]) - (b0 - 123.45)).abs() < 0.005);
    assert!((num(s, ytd, &[]) - (w0 + 123.45)).abs() < 0.005);
    // Order-Status by id: the customer's latest order, with its lines.
    let status = Input::OrderStatus {
        w: 1,
        d: 3,
        who: Who::Id(7),
    };
    let Done::Committed(out) = txn::run(s, &mut texts, &status).unwrap() else {
        panic!()
    };
    assert_eq!(out.order, Some(before));
    assert_eq!(out.count, 3);
    // Delivery: the oldest undelivered order of every district.
    let oldest: Vec<Option<i64>> = (1..=10)
        .map(|d| {
            s.query(
                "SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = 1 AND no_d_id = ?",
                &[V::I(d)],
            )
            .unwrap()[0][0]
                .int()
        })
        .collect();
    let delivery = Input::Delivery { w: 1, carrier: 4 };
    let Done::Committed(out) = txn::run(s, &mut texts, &delivery).unwrap() else {
        panic!()
    };
    assert_eq!(out.delivered, oldest);
    let o = oldest[0].unwrap();
    assert_eq!(
        one(
            s,
            "SELECT o_carrier_id FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = ?",
            &[V::I(o)]
        ),
        4
    );
    assert_eq!(
        one(
            s,
            "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = ?",
            &[V::I(o)]
        ),
        0
    );
    // Stock-Level: the same count by a plain query.
    let d_next = one(s, next, &[V::I(3)]);
    let want = one(
        s,
        "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id >= ? AND ol_o_id < ? AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < 15",
        &[V::I(d_next - 20), V::I(d_next)],
    );
    let level = Input::StockLevel {
        w: 1,
        d: 3,
        threshold: 15,
    };
    let Done::Committed(out) = txn::run(s, &mut texts, &level).unwrap() else {
        panic!()
    };
    assert_eq!(out.count, want);
    // The drawn inputs stay in range.
    let mut r = Rng::new(5);
    for _ in 0..1000 {
        if let Input::NewOrder { lines, .. } = txn::new_order(&mut r, &scale(), 1) {
            assert!((5..=15).contains(&lines.len()));
            assert!(lines.iter().all(|l| (1..=10_001).contains(&l.item)));
        }
    }
    // Every condition still holds.
    let verdicts = check::run(s).unwrap();
    assert!(
        verdicts.iter().all(|v| v.violation.is_none()),
        "{verdicts:?}"
    );
}

/// Planted corruption fails the conditions it breaks; `--reuse` refuses
/// the tables then.
pub fn corruption(connector: &dyn Connector, db: &str) {
    let mut session = connector.connect().unwrap();
    let s = session.sql();
    let failing = |s: &mut dyn Sql| -> Vec<&'static str> {
        check::run(s)
            .unwrap()
            .into_iter()
            .filter(|v| v.violation.is_some())
            .map(|v| v.clause)
            .collect()
    };
    assert!(failing(s).is_empty());
    s.batch("UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1")
        .unwrap();
    assert_eq!(failing(s), ["3.3.2.1", "3.3.2.8"]);
    let e = run(TpccConfig {
        reuse: true,
        recreate: false,
        ..small(db)
    })
    .unwrap_err();
    assert!(
        e.contains("--reuse: consistency condition 3.3.2.1 fails"),
        "{e}"
    );
    s.batch("UPDATE warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 1")
        .unwrap();
    let mid = one(
        s,
        "SELECT MIN(no_o_id) + 5 FROM new_order WHERE no_w_id = 1 AND no_d_id = 4",
        &[],
    );
    s.exec(
        "DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 4 AND no_o_id = ?",
        &[V::I(mid)],
    )
    .unwrap();
    assert_eq!(failing(s), ["3.3.2.3"]);
    s.batch("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 5")
        .unwrap();
    s.batch("DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 6 AND ol_o_id = 1 AND ol_number = 1")
        .unwrap();
    assert_eq!(failing(s), ["3.3.2.2", "3.3.2.3", "3.3.2.4"]);
}
