//! The AS3AP queries: the single-user set (selections, joins, projections,
//! aggregates, reports, bulk and single-row updates, index maintenance) and
//! the cross-section of seeds/003's multi-user tests, each with the rows
//! the spec's data gives it where that is exact. Every update is undone by a
//! later query of the same list, so the data's checksum survives them.

use crate::data::{BENCHMARKS, COLUMNS};
use crate::schema::{SAVED, SEL100RAND, SEL100SEQ};

/// One timed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// Its AS3AP name.
    pub name: &'static str,
    /// The SQL.
    pub sql: String,
    /// Whether it returns rows (else it changes them).
    pub reads: bool,
    /// The rows it returns or changes on the spec's data, where exact.
    pub expect_rows: Option<u64>,
    /// The first column of its first row, where the spec's data fixes it.
    pub expect_first: Option<i64>,
}

fn read(name: &'static str, sql: String, rows: Option<u64>) -> Query {
    Query {
        name,
        sql,
        reads: true,
        expect_rows: rows,
        expect_first: None,
    }
}

fn change(name: &'static str, sql: String, rows: Option<u64>) -> Query {
    Query {
        name,
        sql,
        reads: false,
        expect_rows: rows,
        expect_first: None,
    }
}

/// The columns most selections return.
const SEL: &str = "col_key, col_int, col_signed, col_code, col_double, col_name";

/// The single-user query set for tables of `n` rows, in the order it runs.
/// `drop_index` is the engine's statement dropping `updates`' int index.
pub fn single_user(n: u64, drop_index: String) -> Vec<Query> {
    let tenth = n / 10;
    let end = n + 1;
    let upd = "updates";
    let cols = COLUMNS.join(", ");
    vec![
        read("sel_1_cl", format!("SELECT {SEL} FROM updates WHERE col_key = 1000"), Some(1)),
        read("sel_1_ncl", format!("SELECT {SEL} FROM updates WHERE col_code = '{BENCHMARKS}'"), Some(1)),
        read("sel_100_cl", format!("SELECT {SEL} FROM updates WHERE col_key BETWEEN 1001 AND 1100"), Some(100)),
        read("sel_100_ncl", format!("SELECT {SEL} FROM updates WHERE col_int BETWEEN 1001 AND 1100"), Some(100)),
        read("sel_10pct_cl", format!("SELECT {SEL} FROM uniques WHERE col_key <= {tenth}"), Some(tenth)),
        read("sel_10pct_ncl", format!("SELECT {SEL} FROM tenpct WHERE col_signed < {}", (n / 100) as i64 - (n / 20) as i64), None),
        read("join_2_cl", "SELECT uniques.col_signed, uniques.col_name, hundred.col_signed, hundred.col_name FROM uniques, hundred WHERE uniques.col_key = hundred.col_key AND uniques.col_key <= 1000".into(), Some(1000)),
        read("join_2_ncl", "SELECT uniques.col_signed, uniques.col_name, updates.col_signed, updates.col_name FROM uniques, updates WHERE updates.col_int = uniques.col_int AND updates.col_int <= 1000".into(), Some(1000)),
        read("join_3_cl", "SELECT uniques.col_signed, uniques.col_date, hundred.col_signed, hundred.col_date, tenpct.col_signed, tenpct.col_date FROM uniques, hundred, tenpct WHERE uniques.col_key = hundred.col_key AND uniques.col_key = tenpct.col_key AND uniques.col_key <= 1000".into(), Some(1000)),
        read("join_4_cl", "SELECT uniques.col_date, hundred.col_date, tenpct.col_date, updates.col_date FROM uniques, hundred, tenpct, updates WHERE uniques.col_key = hundred.col_key AND uniques.col_key = tenpct.col_key AND uniques.col_key = updates.col_key AND uniques.col_key <= 1000".into(), Some(1000)),
        read("proj_100", "SELECT DISTINCT col_address, col_signed FROM hundred".into(), Some(100)),
        read("proj_10pct", "SELECT DISTINCT col_signed FROM tenpct".into(), Some(tenth)),
        Query { expect_first: Some(1), ..read("scal_agg", "SELECT MIN(col_key) FROM uniques".into(), Some(1)) },
        read("func_agg", "SELECT MIN(col_key) FROM hundred GROUP BY col_name".into(), Some(100)),
        read("simple_report", "SELECT COUNT(*), AVG(updates.col_decim) FROM updates, hundred WHERE updates.col_key = hundred.col_key AND hundred.col_signed = 150".into(), Some(1)),
        read("subtotal_report", "SELECT col_signed, COUNT(*), MIN(col_double), MAX(col_double) FROM hundred GROUP BY col_signed".into(), Some(100)),
        change("bulk_save", format!("CREATE TABLE {SAVED} AS SELECT * FROM {upd} WHERE col_key BETWEEN 5001 AND 6000"), None),
        change("bulk_delete", format!("DELETE FROM {upd} WHERE col_key BETWEEN 5001 AND 6000"), Some(1000)),
        change("bulk_append", format!("INSERT INTO {upd} SELECT * FROM {SAVED}"), Some(1000)),
        change("bulk_modify", format!("UPDATE {upd} SET col_double = col_double + 100000000 WHERE col_key BETWEEN 5001 AND 6000"), Some(1000)),
        change("bulk_unmodify", format!("UPDATE {upd} SET col_double = col_double - 100000000 WHERE col_key BETWEEN 5001 AND 6000"), Some(1000)),
        change("upd_append_t_end", format!("INSERT INTO {upd} ({cols}) VALUES ({end}, {end}, 0, 0, 0, 0, '2000-01-01 00:00:00', 'xend', 'xend', 'xend')"), Some(1)),
        change("upd_mod_t_end", format!("UPDATE {upd} SET col_name = 'xmodified' WHERE col_key = {end}"), Some(1)),
        change("upd_del_t_end", format!("DELETE FROM {upd} WHERE col_key = {end}"), Some(1)),
        change("drop_idx_upd_int", drop_index, None),
        change("create_idx_upd_int_bt", "CREATE INDEX as3ap_updates_int ON updates (col_int)".into(), None),
    ]
}

/// What the single-user set leaves behind to drop afterwards.
pub const SINGLE_USER_SCRATCH: &[&str] = &[SAVED];

/// Creates the cross-section's scratch tables (empty copies of `updates`).
pub fn cross_section_setup() -> Vec<String> {
    [SEL100SEQ, SEL100RAND]
        .iter()
        .map(|t| format!("CREATE TABLE {t} AS SELECT * FROM updates WHERE col_key < 0"))
        .collect()
}

/// The cross-section of seeds/003, in its order: `checkmod_*` must find 0
/// rows the `unmod_*` queries failed to restore.
pub fn cross_section() -> Vec<Query> {
    let checkmod = |name, col, t| Query {
        expect_first: Some(0),
        ..read(
            name,
            format!(
                "SELECT COUNT(*) FROM updates, {t} WHERE updates.{col} = {t}.{col} AND ABS(updates.col_double - {t}.col_double) > 0.000001"
            ),
            Some(1),
        )
    };
    vec![
        read("o_mode_tiny", "SELECT * FROM tiny".into(), Some(1)),
        read("o_mode_100k", "SELECT * FROM hundred WHERE col_key <= 1000".into(), Some(1000)),
        read("sel_1_ncl", format!("SELECT {SEL} FROM updates WHERE col_code = '{BENCHMARKS}'"), Some(1)),
        read("simple_report", "SELECT COUNT(*), AVG(updates.col_decim) FROM updates, hundred WHERE updates.col_key = hundred.col_key AND hundred.col_signed = 150".into(), Some(1)),
        change("sel_100_seq", format!("INSERT INTO {SEL100SEQ} SELECT * FROM updates WHERE updates.col_key BETWEEN 1001 AND 1100"), Some(100)),
        change("sel_100_rand", format!("INSERT INTO {SEL100RAND} SELECT * FROM updates WHERE updates.col_int BETWEEN 1001 AND 1100"), Some(100)),
        change("mod_100_seq", "UPDATE updates SET col_double = col_double + 100000000 WHERE col_key BETWEEN 1001 AND 1100".into(), Some(100)),
        change("mod_100_rand", "UPDATE updates SET col_double = col_double + 100000000 WHERE col_int BETWEEN 1001 AND 1100".into(), Some(100)),
        change("unmod_100_seq", "UPDATE updates SET col_double = col_double - 100000000 WHERE col_key BETWEEN 1001 AND 1100".into(), Some(100)),
        change("unmod_100_rand", "UPDATE updates SET col_double = col_double - 100000000 WHERE col_int BETWEEN 1001 AND 1100".into(), Some(100)),
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
    /// What differed from the spec's data, if anything.
    pub mismatch: Option<String>,
}

/// Runs `q` once, timed, and checks its rows against the spec's data.
pub fn run(
    session: &mut dyn crate::engine::Session,
    q: &Query,
) -> Result<Timed, crate::engine::DbError> {
    let start = std::time::Instant::now();
    let (rows, first) = if q.reads {
        let f = session.fetch(&q.sql)?;
        (f.rows, f.first.first().copied().flatten())
    } else {
        (session.execute(&q.sql)?, None)
    };
    let seconds = start.elapsed().as_secs_f64();
    let mut mismatch = None;
    if let Some(want) = q.expect_rows.filter(|&w| w != rows) {
        mismatch = Some(format!(
            "{} gave {rows} rows, the spec's data has {want}",
            q.name
        ));
    } else if let Some(want) = q.expect_first.filter(|&w| Some(w) != first) {
        mismatch = Some(format!("{} returned {first:?}, expected {want}", q.name));
    }
    Ok(Timed {
        name: q.name,
        seconds,
        rows,
        mismatch,
    })
}
