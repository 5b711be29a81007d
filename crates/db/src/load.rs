//! The AS3AP tables created and filled: in one transaction on the run's
//! connection, or side by side on several, each table in its own
//! transaction (`Connector::load_connections`). The secondary indexes and
//! the checks after the load are `as3ap`'s.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use nodebench_core::bench::Cancel;

use crate::data::{Checksum, Generator, TABLES, Table};
use crate::engine::{Connector, DbError, Loaded, Session};

/// One table created and filled: what its load reports and the checksum
/// of the rows generated for it.
pub(crate) struct TableLoad {
    /// The table.
    pub table: Table,
    /// Its rows, or that it was cancelled.
    pub loaded: Loaded,
    /// From its CREATE to its last row (and clustered key).
    pub time: Duration,
    /// The checksum of the rows generated for it.
    pub sum: Checksum,
}

/// Creates `t` and fills it with its generated rows (the engine builds its
/// clustered key during or right after them); `tiny` gets its one row.
fn table(
    s: &mut dyn Session,
    t: Table,
    n: u64,
    seed: u64,
    cancel: &Cancel,
) -> Result<TableLoad, DbError> {
    let t0 = Instant::now();
    s.create_table(t)?;
    let mut sum = Checksum::default();
    let loaded = if t.distinct.is_some() {
        let mut rows = Generator::new(t, n, seed).inspect(|row| sum.add(row));
        s.load(t, &mut rows, cancel)?
    } else {
        sum.rows = 1;
        s.execute(&format!("INSERT INTO {} (col_key) VALUES (0)", t.name))?;
        Loaded {
            rows: 1,
            cancelled: false,
        }
    };
    Ok(TableLoad {
        table: t,
        loaded,
        time: t0.elapsed(),
        sum,
    })
}

/// Loads the tables in one transaction on `s`, handing each loaded table to
/// `done`. `Ok(false)` when cancelled (the transaction rolled back).
pub(crate) fn in_one_transaction(
    s: &mut dyn Session,
    n: u64,
    seed: u64,
    cancel: &Cancel,
    done: &mut dyn FnMut(TableLoad),
) -> Result<bool, DbError> {
    // The foreign key is checked from the end of the load on
    // (`add_foreign_key`): hundred is loaded before updates.
    s.drop_foreign_key()?;
    s.execute("BEGIN")?;
    for t in TABLES {
        let l = table(s, t, n, seed, cancel)?;
        if l.loaded.cancelled {
            s.execute("ROLLBACK")?;
            return Ok(false);
        }
        done(l);
    }
    s.execute("COMMIT")?;
    Ok(true)
}

/// How often the thread waiting for a side-by-side load looks at the
/// cancel flag.
const LOAD_POLL: Duration = Duration::from_millis(20);

/// Loads the tables on `connections` new connections side by side, each
/// table in its own transaction, handing each loaded table to `done` as it
/// commits. On the first failure the other connections roll back their
/// current table and stop. `Ok(false)` when cancelled (the unfinished
/// tables rolled back; the committed ones are the caller's to drop).
pub(crate) fn side_by_side(
    connector: &dyn Connector,
    connections: usize,
    n: u64,
    seed: u64,
    cancel: &Cancel,
    done: &mut dyn FnMut(TableLoad),
) -> Result<bool, DbError> {
    let next = AtomicUsize::new(0);
    // Set on the user's cancel or on a connection's failure.
    let stop = Cancel::new();
    let (tx, rx) = mpsc::channel::<Result<TableLoad, DbError>>();
    std::thread::scope(|scope| {
        for _ in 0..connections.min(TABLES.len()) {
            let (tx, next, stop) = (tx.clone(), &next, &stop);
            scope.spawn(move || {
                let worker = || -> Result<(), DbError> {
                    let mut s = connector.connect()?;
                    while let Some(&t) = TABLES.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if stop.is_cancelled() {
                            break;
                        }
                        s.execute("BEGIN")?;
                        let l = table(s.as_mut(), t, n, seed, stop)?;
                        s.execute(if l.loaded.cancelled {
                            "ROLLBACK"
                        } else {
                            "COMMIT"
                        })?;
                        let _ = tx.send(Ok(l));
                    }
                    Ok(())
                };
                if let Err(e) = worker() {
                    let _ = tx.send(Err(e));
                }
            });
        }
        drop(tx);
        let mut outcome = Ok(true);
        loop {
            match rx.recv_timeout(LOAD_POLL) {
                Ok(Ok(l)) if l.loaded.cancelled => {
                    if matches!(outcome, Ok(true)) {
                        outcome = Ok(false);
                    }
                }
                Ok(Ok(l)) => done(l),
                Ok(Err(e)) => {
                    stop.cancel();
                    if outcome.is_ok() {
                        outcome = Err(e);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    if cancel.is_cancelled() {
                        stop.cancel();
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        if cancel.is_cancelled() && matches!(outcome, Ok(true)) {
            outcome = Ok(false);
        }
        outcome
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Fetched, IrRow, Settings};
    use crate::schema::Index;
    use nodebench_core::names::db as names;
    use std::sync::{Arc, Mutex};

    /// How long the fake engine takes to load a table.
    const FAKE_LOAD: Duration = Duration::from_millis(200);

    /// An engine whose load of one table fails at once and of the others
    /// takes [`FAKE_LOAD`] (cancelled when the flag is set by then); it
    /// logs the statements it runs.
    struct Fake {
        fails: &'static str,
        log: Arc<Mutex<Vec<String>>>,
    }

    struct FakeSession {
        fails: &'static str,
        log: Arc<Mutex<Vec<String>>>,
    }

    impl Connector for Fake {
        fn connect(&self) -> Result<Box<dyn Session>, DbError> {
            Ok(Box::new(FakeSession {
                fails: self.fails,
                log: self.log.clone(),
            }))
        }
    }

    impl Session for FakeSession {
        fn execute(&mut self, sql: &str) -> Result<u64, DbError> {
            self.log.lock().unwrap().push(sql.to_string());
            Ok(0)
        }
        fn fetch(&mut self, _: &str) -> Result<Fetched, DbError> {
            Err(DbError::other("not in the load"))
        }
        fn ir_select(&mut self, _: i64) -> Result<Option<IrRow>, DbError> {
            Err(DbError::other("not in the load"))
        }
        fn oltp_update(&mut self, _: i64) -> Result<u64, DbError> {
            Err(DbError::other("not in the load"))
        }
        fn create_table(&mut self, table: Table) -> Result<(), DbError> {
            self.execute(&format!("CREATE TABLE {}", table.name))
                .map(|_| ())
        }
        fn load(
            &mut self,
            table: Table,
            rows: &mut dyn Iterator<Item = crate::data::Row>,
            cancel: &Cancel,
        ) -> Result<Loaded, DbError> {
            if table.name == self.fails {
                return Err(DbError::other(format!("{} failed", table.name)));
            }
            std::thread::sleep(FAKE_LOAD);
            Ok(Loaded {
                rows: rows.count() as u64,
                cancelled: cancel.is_cancelled(),
            })
        }
        fn create_index(&mut self, _: Index) -> Result<(), DbError> {
            Err(DbError::other("not in the load"))
        }
        fn set_isolation(
            &mut self,
            _: crate::engine::Isolation,
        ) -> Result<crate::engine::IsolationSet, DbError> {
            Err(DbError::other("not in the load"))
        }
        fn fetch_lines(&mut self, _: &str) -> Result<Vec<String>, DbError> {
            Err(DbError::other("not in the load"))
        }
        fn add_foreign_key(&mut self) -> Result<(), DbError> {
            Err(DbError::other("not in the load"))
        }
        fn drop_foreign_key(&mut self) -> Result<(), DbError> {
            Err(DbError::other("not in the load"))
        }
        fn table_exists(&mut self, _: &str) -> Result<bool, DbError> {
            Err(DbError::other("not in the load"))
        }
        fn preload(&mut self) -> Result<(), DbError> {
            Err(DbError::other("not in the load"))
        }
        fn settings(&mut self) -> Result<Settings, DbError> {
            Err(DbError::other("not in the load"))
        }
        fn bigint(&self) -> &'static str {
            "BIGINT"
        }
        fn sql(&mut self) -> &mut dyn crate::engine::sql::Sql {
            unreachable!("the AS3AP load uses no parameterised statements")
        }
    }

    /// Loads side by side on `fake`; the tables handed over as loaded.
    fn load_on(fake: &Fake, cancel: &Cancel) -> (Result<bool, DbError>, Vec<&'static str>) {
        let mut done = Vec::new();
        let r = side_by_side(fake, 2, 100, 1, cancel, &mut |l| {
            assert_eq!(l.loaded.rows, l.table.rows(100));
            assert_eq!(l.sum, Checksum::generated(l.table, 100, 1));
            done.push(l.table.name)
        });
        (r, done)
    }

    #[test]
    fn side_by_side_loads_every_table_once_each_in_its_transaction() {
        let fake = Fake {
            fails: "none",
            log: Arc::default(),
        };
        let (r, mut done) = load_on(&fake, &Cancel::new());
        assert!(r.unwrap());
        done.sort();
        let mut want: Vec<_> = TABLES.iter().map(|t| t.name).collect();
        want.sort();
        assert_eq!(done, want);
        let log = fake.log.lock().unwrap();
        assert_eq!(log.iter().filter(|s| *s == "BEGIN").count(), TABLES.len());
        assert_eq!(log.iter().filter(|s| *s == "COMMIT").count(), TABLES.len());
    }

    #[test]
    fn a_failed_table_stops_the_other_connection_and_is_the_error() {
        let fake = Fake {
            fails: names::table::HUNDRED,
            log: Arc::default(),
        };
        let (r, done) = load_on(&fake, &Cancel::new());
        assert_eq!(r.unwrap_err().message, "hundred failed");
        // The other connection gave up uniques and took nothing more.
        assert!(done.is_empty(), "{done:?}");
        let log = fake.log.lock().unwrap();
        assert!(!log.iter().any(|s| s == "COMMIT"), "{log:?}");
        assert_eq!(log.iter().filter(|s| *s == "ROLLBACK").count(), 1);
        assert_eq!(
            log.iter().filter(|s| s.starts_with("CREATE")).count(),
            2,
            "{log:?}"
        );
    }

    #[test]
    fn a_cancelled_side_by_side_load_rolls_back_and_says_so() {
        let fake = Fake {
            fails: "none",
            log: Arc::default(),
        };
        let cancel = Cancel::new();
        cancel.cancel();
        let (r, done) = load_on(&fake, &cancel);
        assert!(!r.unwrap());
        assert!(done.is_empty(), "{done:?}");
        let log = fake.log.lock().unwrap();
        assert!(!log.iter().any(|s| s == "COMMIT"), "{log:?}");
        assert_eq!(log.iter().filter(|s| *s == "ROLLBACK").count(), 2);
    }
}
