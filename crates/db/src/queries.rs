//! The cross-section of the multi-user tests (the paper's Table 8.1 and
//! Appendix 4): ten queries, each at the isolation level Table 8.1 gives
//! it (`sel_1_ncl` at levels 0, 1 and 3), with the rows the data gives it,
//! then the two correctness checks. `mod_100_seq_abort` rolls its update
//! back and checks (untimed) that no row kept it; `unmod_100_seq` and
//! `unmod_100_rand` restore the rows from the copies `sel_100_seq` and
//! `sel_100_rand` made (the paper's subtractions would take 10^8 off rows
//! the abort left alone, and off the rows both ranges share twice), and
//! `checkmod_*` count the rows that differ from the copies: 0.

use crate::data::BENCHMARKS;
use crate::engine::{Isolation, Session};
use crate::schema::{SEL100RAND, SEL100SEQ};

/// One timed query of the cross-section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// Its AS3AP name.
    pub name: &'static str,
    /// The SQL.
    pub sql: String,
    /// Whether it returns rows (else it changes them).
    pub reads: bool,
    /// Run in a transaction that is rolled back (`mod_100_seq_abort`),
    /// then this count of the rows that kept the change run: it must be 0.
    pub abort: Option<String>,
    /// The isolation level Table 8.1 gives it.
    pub isolation: Isolation,
    /// The rows it returns or changes on the data, where exact.
    pub expect_rows: Option<u64>,
    /// The first column of its first row, where the data fixes it.
    pub expect_first: Option<i64>,
}

fn read(name: &'static str, sql: String, isolation: Isolation, rows: u64) -> Query {
    Query {
        name,
        sql,
        reads: true,
        abort: None,
        isolation,
        expect_rows: Some(rows),
        expect_first: None,
    }
}

fn change(name: &'static str, sql: String, rows: u64) -> Query {
    Query {
        reads: false,
        ..read(name, sql, Isolation::Serializable, rows)
    }
}

/// The columns most selections return.
const SEL: &str = "col_key, col_int, col_signed, col_code, col_double, col_name";

/// Creates the cross-section's scratch tables (empty copies of `updates`).
pub fn cross_section_setup() -> Vec<String> {
    [SEL100SEQ, SEL100RAND]
        .iter()
        .map(|t| format!("CREATE TABLE {t} AS SELECT * FROM updates WHERE 1 = 0"))
        .collect()
}

/// The cross-section in Table 8.1's order, then the checks.
pub fn cross_section() -> Vec<Query> {
    use Isolation::*;
    let differ = |col: &str, t: &str| {
        format!(
            "SELECT COUNT(*) FROM updates, {t} WHERE updates.{col} = {t}.{col} AND NOT updates.col_double = {t}.col_double"
        )
    };
    let checkmod = |name, col, t| Query {
        expect_first: Some(0),
        ..read(name, differ(col, t), Serializable, 1)
    };
    let restore = |col: &str, t: &str| {
        format!(
            "UPDATE updates SET col_double = (SELECT {t}.col_double FROM {t} WHERE {t}.{col} = updates.{col}) WHERE {col} BETWEEN 1001 AND 1100"
        )
    };
    let sel_1_ncl = format!("SELECT {SEL} FROM updates WHERE col_code = '{BENCHMARKS}'");
    vec![
        read("o_mode_tiny", "SELECT * FROM tiny".into(), Serializable, 1),
        read("o_mode_100k", "SELECT * FROM hundred WHERE col_key <= 1000".into(), RepeatableRead, 1000),
        read("sel_1_ncl_level_0", sel_1_ncl.clone(), ReadUncommitted, 1),
        read("sel_1_ncl_level_1", sel_1_ncl.clone(), ReadCommitted, 1),
        read("sel_1_ncl_level_3", sel_1_ncl, Serializable, 1),
        read("simple_report", "SELECT AVG(updates.col_decim) FROM updates WHERE updates.col_key IN (SELECT updates.col_key FROM updates, hundred WHERE hundred.col_key = updates.col_key AND updates.col_decim > 980000000)".into(), RepeatableRead, 1),
        change("sel_100_seq", format!("INSERT INTO {SEL100SEQ} SELECT * FROM updates WHERE updates.col_key BETWEEN 1001 AND 1100"), 100),
        change("sel_100_rand", format!("INSERT INTO {SEL100RAND} SELECT * FROM updates WHERE updates.col_int BETWEEN 1001 AND 1100"), 100),
        Query {
            abort: Some(differ("col_key", SEL100SEQ)),
            ..change("mod_100_seq_abort", "UPDATE updates SET col_double = col_double + 100000000 WHERE col_key BETWEEN 1001 AND 1100".into(), 100)
        },
        change("mod_100_rand", "UPDATE updates SET col_double = col_double + 100000000 WHERE col_int BETWEEN 1001 AND 1100".into(), 100),
        change("unmod_100_seq", restore("col_key", SEL100SEQ), 100),
        change("unmod_100_rand", restore("col_int", SEL100RAND), 100),
        checkmod("checkmod_100_seq", "col_key", SEL100SEQ),
        checkmod("checkmod_100_rand", "col_int", SEL100RAND),
    ]
}

/// The cross-section's scratch tables, dropped afterwards.
pub const CROSS_SECTION_SCRATCH: &[&str] = &[SEL100SEQ, SEL100RAND];

/// How one query went.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    /// The query's name.
    pub name: &'static str,
    /// Seconds it took.
    pub seconds: f64,
    /// Rows returned or changed.
    pub rows: u64,
    /// The isolation level the engine reported for it, and gives.
    pub isolation: crate::engine::IsolationSet,
    /// What differed from the data, if anything.
    pub mismatch: Option<String>,
}

/// Runs `q` once at its isolation level, timed (the level set before the
/// clock starts), and checks its rows against the data.
pub fn run(session: &mut dyn Session, q: &Query) -> Result<Timed, crate::engine::DbError> {
    let isolation = session.set_isolation(q.isolation)?;
    let start = std::time::Instant::now();
    let (rows, first) = if q.reads {
        let f = session.fetch(&q.sql)?;
        (f.rows, f.first.first().copied().flatten())
    } else if q.abort.is_some() {
        session.execute("BEGIN")?;
        let changed = session.execute(&q.sql);
        session.execute("ROLLBACK")?;
        (changed?, None)
    } else {
        (session.execute(&q.sql)?, None)
    };
    let seconds = start.elapsed().as_secs_f64();
    let mut mismatch = None;
    if let Some(check) = &q.abort {
        let kept = session.fetch(check)?.first.first().copied().flatten();
        if kept != Some(0) {
            mismatch = Some(format!(
                "{}: {kept:?} rows kept the update after ROLLBACK",
                q.name
            ));
        }
    }
    if let Some(want) = q.expect_rows.filter(|&w| w != rows) {
        mismatch.get_or_insert(format!("{} gave {rows} rows, the data has {want}", q.name));
    } else if let Some(want) = q.expect_first.filter(|&w| Some(w) != first) {
        mismatch.get_or_insert(format!("{} returned {first:?}, expected {want}", q.name));
    }
    Ok(Timed {
        name: q.name,
        seconds,
        rows,
        isolation,
        mismatch,
    })
}
