//! The initial database of clause 4.3.3.1, generated and loaded in
//! parallel: ITEM once, then per warehouse four units (WAREHOUSE and its
//! DISTRICTs; STOCK; CUSTOMER with HISTORY; ORDER with ORDER-LINE and
//! NEW-ORDER), each unit on one connection in one transaction, the units
//! shared out to `--loaders` connections. Each unit's generator is seeded
//! from the seed and the unit, so the data do not depend on the order the
//! units ran in.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use nodebench_core::bench::Cancel;
use nodebench_core::names::db::tpcc::table;

use super::config::{DISTRICTS, TpccConfig};
use super::random::{A_C_LAST, Rng, last_name};
use super::schema::{self, Dialect};
use crate::engine::sql::{Sql, V};
use crate::engine::{Connector, DbError};

/// Rows generated before they are handed to the engine.
const CHUNK: usize = 2000;

/// What the load generates from: the scale and the load's constant C.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Warehouses.
    pub warehouses: u64,
    /// Items (stock rows per warehouse).
    pub items: u64,
    /// Customers (and orders) per district.
    pub customers: u64,
    /// The first undelivered order of a district.
    pub first_new_order: u64,
    /// Seed of the generators.
    pub seed: u64,
    /// NURand's C for C_LAST at load.
    pub c_last: u64,
    /// `YYYY-MM-DD HH:MM:SS`: the load's "current date and time".
    pub now: String,
}

impl Plan {
    /// The plan of `c` with the load constant `c_last`.
    pub fn of(c: &TpccConfig, c_last: u64) -> Plan {
        let now = chrono::Utc::now().format("%Y-%m-%d %H:%M:%S").to_string();
        Plan {
            warehouses: c.warehouses,
            items: c.items(),
            customers: c.customers(),
            first_new_order: c.first_new_order(),
            seed: c.seed,
            c_last,
            now,
        }
    }

    /// Customers per district with the sequential last names 0, 1, 2...
    /// (clause 4.3.3.1: the first 1,000 of 3,000), the range of the last
    /// names drawn at load and run.
    pub fn named(&self) -> u64 {
        (self.customers / 3).max(1)
    }

    /// A customer's last-name number: sequential for the first third,
    /// NURand(255, C, 0, 999) for the rest.
    pub fn last_number(&self, c_id: u64, rng: &mut Rng) -> u64 {
        if c_id <= self.named() {
            c_id - 1
        } else {
            rng.nurand(A_C_LAST, self.c_last, 0, self.named() - 1)
        }
    }

    /// The rows each table holds after the load.
    pub fn rows(&self) -> BTreeMap<&'static str, u64> {
        let w = self.warehouses;
        let per_district = self.customers;
        BTreeMap::from([
            (table::ITEM, self.items),
            (table::WAREHOUSE, w),
            (table::DISTRICT, w * DISTRICTS),
            (table::STOCK, w * self.items),
            (table::CUSTOMER, w * DISTRICTS * per_district),
            (table::HISTORY, w * DISTRICTS * per_district),
            (table::ORDERS, w * DISTRICTS * per_district),
            (
                table::NEW_ORDER,
                w * DISTRICTS * (per_district - self.first_new_order + 1),
            ),
        ])
    }
}

/// One unit of the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Items,
    Warehouse(u64),
    Stock(u64),
    Customers(u64),
    Orders(u64),
}

impl Unit {
    /// Seed of the unit's generator.
    fn seed(self, seed: u64) -> u64 {
        let (kind, w) = match self {
            Unit::Items => (0, 0),
            Unit::Warehouse(w) => (1, w),
            Unit::Stock(w) => (2, w),
            Unit::Customers(w) => (3, w),
            Unit::Orders(w) => (4, w),
        };
        seed ^ (kind << 56) ^ w.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// Buffers rows per table and hands them to the engine a chunk at a time.
struct Sink<'a> {
    sql: &'a mut dyn Sql,
    pending: BTreeMap<&'static str, Vec<Vec<V>>>,
    rows: BTreeMap<&'static str, u64>,
}

impl Sink<'_> {
    fn push(&mut self, t: &'static str, row: Vec<V>) -> Result<(), DbError> {
        let buf = self.pending.entry(t).or_default();
        buf.push(row);
        if buf.len() >= CHUNK {
            self.flush(t)?;
        }
        Ok(())
    }

    fn flush(&mut self, t: &'static str) -> Result<(), DbError> {
        let Some(buf) = self.pending.get_mut(t) else {
            return Ok(());
        };
        if buf.is_empty() {
            return Ok(());
        }
        self.sql.append(t, &schema::table(t).names(), buf)?;
        *self.rows.entry(t).or_default() += buf.len() as u64;
        buf.clear();
        Ok(())
    }

    fn finish(&mut self) -> Result<(), DbError> {
        let tables: Vec<_> = self.pending.keys().copied().collect();
        for t in tables {
            self.flush(t)?;
        }
        Ok(())
    }
}

/// A street, a city, a state and a zip (clause 4.3.3.1's address).
fn address(r: &mut Rng) -> [V; 5] {
    [
        r.astring(10, 20).into(),
        r.astring(10, 20).into(),
        r.astring(10, 20).into(),
        r.astring(2, 2).to_uppercase().into(),
        r.zip().into(),
    ]
}

/// Generates `unit`'s rows into `sink`.
fn generate(p: &Plan, unit: Unit, sink: &mut Sink<'_>, cancel: &Cancel) -> Result<bool, DbError> {
    let mut r = Rng::new(unit.seed(p.seed));
    let now = || V::S(p.now.clone());
    match unit {
        Unit::Items => {
            for i in 1..=p.items {
                let row = vec![
                    V::I(i as i64),
                    V::I(r.int(1, 10_000) as i64),
                    r.astring(14, 24).into(),
                    V::F(r.decimal(1.0, 100.0, 2)),
                    r.data().into(),
                ];
                sink.push(table::ITEM, row)?;
                if i % CHUNK as u64 == 0 && cancel.is_cancelled() {
                    return Ok(false);
                }
            }
        }
        Unit::Warehouse(w) => {
            let mut row = vec![V::I(w as i64), r.astring(6, 10).into()];
            row.extend(address(&mut r));
            // 300,000.00 and 30,000.00 at the spec's scale: the sum of the
            // loaded HISTORY's 10.00 payments.
            let d_ytd = 10.0 * p.customers as f64;
            row.extend([V::F(r.decimal(0.0, 0.2, 4)), V::F(d_ytd * DISTRICTS as f64)]);
            sink.push(table::WAREHOUSE, row)?;
            for d in 1..=DISTRICTS {
                let mut row = vec![V::I(d as i64), V::I(w as i64), r.astring(6, 10).into()];
                row.extend(address(&mut r));
                row.extend([
                    V::F(r.decimal(0.0, 0.2, 4)),
                    V::F(d_ytd),
                    V::I(p.customers as i64 + 1),
                ]);
                sink.push(table::DISTRICT, row)?;
            }
        }
        Unit::Stock(w) => {
            for i in 1..=p.items {
                let mut row = vec![V::I(i as i64), V::I(w as i64), V::I(r.int(10, 100) as i64)];
                for _ in 0..10 {
                    row.push(r.astring(24, 24).into());
                }
                row.extend([V::I(0), V::I(0), V::I(0), r.data().into()]);
                sink.push(table::STOCK, row)?;
                if i % CHUNK as u64 == 0 && cancel.is_cancelled() {
                    return Ok(false);
                }
            }
        }
        Unit::Customers(w) => {
            for d in 1..=DISTRICTS {
                for c in 1..=p.customers {
                    let last = last_name(p.last_number(c, &mut r));
                    let mut row = vec![
                        V::I(c as i64),
                        V::I(d as i64),
                        V::I(w as i64),
                        r.astring(8, 16).into(),
                        "OE".into(),
                        last.into(),
                    ];
                    row.extend(address(&mut r));
                    row.extend([
                        r.nstring(16, 16).into(),
                        now(),
                        (if r.int(1, 10) == 1 { "BC" } else { "GC" }).into(),
                        V::F(50_000.0),
                        V::F(r.decimal(0.0, 0.5, 4)),
                        V::F(-10.0),
                        V::F(10.0),
                        V::I(1),
                        V::I(0),
                        r.astring(300, 500).into(),
                    ]);
                    sink.push(table::CUSTOMER, row)?;
                    let (c, d, w) = (V::I(c as i64), V::I(d as i64), V::I(w as i64));
                    let history = vec![
                        c,
                        d.clone(),
                        w.clone(),
                        d,
                        w,
                        now(),
                        V::F(10.0),
                        r.astring(12, 24).into(),
                    ];
                    sink.push(table::HISTORY, history)?;
                }
                if cancel.is_cancelled() {
                    return Ok(false);
                }
            }
        }
        Unit::Orders(w) => {
            for d in 1..=DISTRICTS {
                let mut customers: Vec<u64> = (1..=p.customers).collect();
                r.shuffle(&mut customers);
                for (o, c) in (1..=p.customers).zip(customers) {
                    let delivered = o < p.first_new_order;
                    let ol_cnt = r.int(5, 15);
                    let key = [V::I(o as i64), V::I(d as i64), V::I(w as i64)];
                    let mut row = key.to_vec();
                    row.extend([
                        V::I(c as i64),
                        now(),
                        if delivered {
                            V::I(r.int(1, 10) as i64)
                        } else {
                            V::Null
                        },
                        V::I(ol_cnt as i64),
                        V::I(1),
                    ]);
                    sink.push(table::ORDERS, row)?;
                    for n in 1..=ol_cnt {
                        let mut line = key.to_vec();
                        line.extend([
                            V::I(n as i64),
                            V::I(r.int(1, p.items) as i64),
                            V::I(w as i64),
                            if delivered { now() } else { V::Null },
                            V::I(5),
                            V::F(if delivered {
                                0.0
                            } else {
                                r.decimal(0.01, 9_999.99, 2)
                            }),
                            r.astring(24, 24).into(),
                        ]);
                        sink.push(table::ORDER_LINE, line)?;
                    }
                    if !delivered {
                        sink.push(table::NEW_ORDER, key.to_vec())?;
                    }
                }
                if cancel.is_cancelled() {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// What the load did.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// Rows written per table.
    pub rows: BTreeMap<&'static str, u64>,
    /// Wall time of the rows' generation and load (all loaders).
    pub seconds: Duration,
    /// Seconds each index took (PostgreSQL's primary keys included).
    pub indexes: Vec<(String, Duration)>,
    /// Stopped by the cancel flag.
    pub cancelled: bool,
}

/// Creates the tables, loads them on `loaders` connections side by side,
/// then builds the keys (PostgreSQL) and the secondary indexes, each timed.
pub fn run(
    connector: &dyn Connector,
    s: &mut dyn Sql,
    d: Dialect,
    p: &Plan,
    loaders: usize,
    cancel: &Cancel,
) -> Result<Loaded, DbError> {
    for t in &schema::TABLES {
        s.batch(&schema::create_table(t, d))?;
    }
    let mut units = vec![Unit::Items];
    for w in 1..=p.warehouses {
        units.extend([
            Unit::Stock(w),
            Unit::Customers(w),
            Unit::Orders(w),
            Unit::Warehouse(w),
        ]);
    }
    let next = AtomicUsize::new(0);
    let rows = Mutex::new(BTreeMap::new());
    let failed: Mutex<Option<DbError>> = Mutex::new(None);
    let start = Instant::now();
    let loaders = loaders.clamp(1, units.len());
    std::thread::scope(|scope| {
        for _ in 0..loaders {
            scope.spawn(|| {
                let work = || -> Result<(), DbError> {
                    let mut session = connector.connect()?;
                    let sql = session.sql();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&unit) = units.get(i) else {
                            return Ok(());
                        };
                        if cancel.is_cancelled() || failed.lock().unwrap().is_some() {
                            return Ok(());
                        }
                        sql.begin(true)?;
                        let mut sink = Sink {
                            sql: &mut *sql,
                            pending: BTreeMap::new(),
                            rows: BTreeMap::new(),
                        };
                        let done = generate(p, unit, &mut sink, cancel)?;
                        sink.finish()?;
                        let written = std::mem::take(&mut sink.rows);
                        if !done {
                            sql.rollback()?;
                            return Ok(());
                        }
                        sql.commit()?;
                        let mut all = rows.lock().unwrap();
                        for (t, n) in written {
                            *all.entry(t).or_insert(0) += n;
                        }
                    }
                };
                if let Err(e) = work() {
                    failed.lock().unwrap().get_or_insert(e);
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap() {
        return Err(e);
    }
    let mut out = Loaded {
        rows: rows.into_inner().unwrap(),
        seconds: start.elapsed(),
        indexes: Vec::new(),
        cancelled: cancel.is_cancelled(),
    };
    if out.cancelled {
        return Ok(out);
    }
    for t in &schema::TABLES {
        if let Some(sql) = schema::add_key(t, d) {
            let start = Instant::now();
            s.batch(&sql)?;
            out.indexes
                .push((format!("{}_pkey", t.name), start.elapsed()));
        }
    }
    for i in &schema::INDEXES {
        let start = Instant::now();
        s.batch(&schema::create_index(i))?;
        out.indexes.push((i.name.to_string(), start.elapsed()));
    }
    Ok(out)
}
