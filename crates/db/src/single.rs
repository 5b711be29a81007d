//! The single-user module of AS3AP: the paper's tests (Section 7) under
//! its names, each made of the statements Appendix 2 gives it, run in the
//! order of Appendix 3, each statement timed and its rows checked against
//! what the generated data implies ([`crate::expect`]). The index builds of
//! Appendix 3 steps 10-29 are the load's; the index maintenance of steps
//! 59, 70 and 74 is here. The update tests leave the tables as loaded.
//! docs/as3ap.md lists each test's SQL and every deviation from the paper.

use crate::data::{ASAP_NAME, BENCHMARKS, JOIN_1_10_KEYS, SILICON_VALLEY};
use crate::expect::{Facts, REPORT_DECIM, VARIABLE_HIGH, VARIABLE_LOW};
use crate::schema::{
    BACKUP, INTEGRITY_TEMP, Index, O_MODE_OUT, REPORTVIEW, SAVED, secondary, secondary_on,
};
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use nodebench_core::bench::Context;
use nodebench_core::names::db::table::UPDATES;
use nodebench_core::names::db::{label, metric};
use nodebench_core::{BenchResult, Better, Metric, Unit};

use crate::engine::{DbError, Session};

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A query: its rows are read and counted.
    Read(String),
    /// A statement that changes rows: the rows it changed are counted.
    Change(String),
    /// A statement the engine must refuse; the error must contain one of
    /// the words (lowercase) that say it was refused for the right reason.
    Refused(String, &'static [&'static str]),
    /// A query whose rows are written, as text, to a file.
    ToFile(String),
    /// A query whose rows are rendered as text for a screen (and dropped:
    /// the JSON output owns stdout).
    ToScreen(String),
    /// An index built.
    CreateIndex(Index),
    /// An index dropped.
    DropIndex(Index),
    /// Preparation the paper does not time (a scratch table created).
    Setup(String),
}

/// One timed statement of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The test (Section 7's name) it belongs to.
    pub test: &'static str,
    /// The statement's name (Appendix 2's, with the output mode or run).
    pub name: &'static str,
    /// What it does.
    pub action: Action,
    /// The rows it must return or change, where the data fixes them.
    pub rows: Option<u64>,
    /// The first column of its first row, where the data fixes it.
    pub first: Option<i64>,
}

impl Step {
    /// Whether its time counts into its test's (index maintenance and
    /// setup are reported apart).
    pub fn in_test_time(&self) -> bool {
        !matches!(
            self.action,
            Action::CreateIndex(_) | Action::DropIndex(_) | Action::Setup(_)
        )
    }
}

/// The 37 tests the single-user result reports, in the paper's listing
/// order (Section 7 and Table 7.6); with `load` and the index builds of
/// the load result, the 39 of the AS3AP single-user module.
pub const TESTS: [&str; 37] = [
    "backup",
    "table_scan",
    "o_mode_tiny",
    "o_mode_1k",
    "o_mode_10k",
    "o_mode_100k",
    "sel_1_cl",
    "sel_1_ncl",
    "sel_100_cl",
    "sel_100_ncl",
    "sel_10pct_cl",
    "sel_10pct_ncl",
    "variable_select",
    "join_2",
    "join_2_cl",
    "join_2_ncl",
    "join_3_cl",
    "join_3_ncl",
    "join_4_cl",
    "join_4_ncl",
    "join_1_10",
    "proj_100",
    "proj_10pct",
    "scal_agg",
    "func_agg",
    "info_retrieval",
    "simple_report",
    "subtotal_report",
    "total_report",
    "append_duplicate",
    "refer_integrity",
    "update_key",
    "update_btree",
    "update_alpha",
    "bulk_append",
    "bulk_modify",
    "bulk_delete",
];

/// The scratch tables (and view) the steps make, dropped afterwards.
pub const SCRATCH: &[&str] = &[BACKUP, SAVED, INTEGRITY_TEMP, O_MODE_OUT, O_MODE_TINY_OUT];

/// The "into a relation" target of `o_mode_tiny`.
pub const O_MODE_TINY_OUT: &str = "as3ap_o_mode_tiny_out";

/// The columns most selections return: the paper's 50-byte result.
const SEL: &str = "col_key, col_int, col_signed, col_code, col_double, col_name";

/// The error words of a refused duplicate key.
const DUPLICATE: &[&str] = &["duplicate", "unique"];
/// The error words of a refused foreign key.
const FOREIGN: &[&str] = &["foreign key"];

/// The columns of an insert's VALUES, in the paper's order.
const INSERT_COLUMNS: &str = "col_key, col_int, col_signed, col_float, col_double, col_decim, col_date, col_code, col_name, col_address";

fn step(test: &'static str, name: &'static str, action: Action, rows: Option<u64>) -> Step {
    Step {
        test,
        name,
        action,
        rows,
        first: None,
    }
}

fn read(test: &'static str, name: &'static str, sql: String, rows: u64) -> Step {
    step(test, name, Action::Read(sql), Some(rows))
}

fn change(test: &'static str, name: &'static str, sql: String, rows: u64) -> Step {
    step(test, name, Action::Change(sql), Some(rows))
}

fn setup(test: &'static str, sql: String) -> Step {
    step(test, "setup", Action::Setup(sql), None)
}

/// An empty copy of `source`'s columns named `name`.
fn empty_copy(name: &str, source: &str) -> String {
    format!("CREATE TABLE {name} AS SELECT * FROM {source} WHERE 1 = 0")
}

/// The paper's one-row insert into updates (`app_t_mid`, `app_t_end`,
/// `append_duplicate`).
fn insert_updates(key: i64, int: i64, signed: i64, float: &str, date: &str) -> String {
    format!(
        "INSERT INTO updates ({INSERT_COLUMNS}) VALUES ({key}, {int}, {signed}, {float}, 50005.00, 50005.00, '{date}', 'CONTROLLER', 'ALICE IN WONDERLAND', 'UNIVERSITY OF ILLINOIS AT CHICAGO ')"
    )
}

/// The output-mode test `test` of `sql`'s `rows` rows in mode `mode`
/// (relation, file, screen) into `into` for the relation.
fn o_mode(test: &'static str, mode: &str, sql: &str, into: &str, rows: u64) -> Step {
    let (name, action) = match mode {
        "relation" => (
            leak(format!("{test}_relation")),
            Action::Change(format!("INSERT INTO {into} {sql}")),
        ),
        "file" => (
            leak(format!("{test}_file")),
            Action::ToFile(sql.to_string()),
        ),
        _ => (
            leak(format!("{test}_screen")),
            Action::ToScreen(sql.to_string()),
        ),
    };
    step(test, name, action, Some(rows))
}

/// A step name made at run time, kept for the run (a few dozen bytes).
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The single-user steps in the order of Appendix 3, on the data `facts`
/// describes.
pub fn steps(facts: &Facts) -> Vec<Step> {
    let tiny = "SELECT * FROM tiny";
    let k1 = "SELECT * FROM updates WHERE col_key <= 10";
    let k10 = "SELECT * FROM hundred WHERE col_key <= 100";
    let k100 = "SELECT * FROM hundred WHERE col_key <= 1000";
    let join_3 = |on: &str, value: &str| {
        format!(
            "SELECT uniques.col_signed, uniques.col_date, hundred.col_signed, hundred.col_date, tenpct.col_signed, tenpct.col_date FROM uniques, hundred, tenpct WHERE uniques.{on} = hundred.{on} AND uniques.{on} = tenpct.{on} AND uniques.{on} = {value}"
        )
    };
    let join_4 = |on: &str, value: &str| {
        format!(
            "SELECT uniques.col_date, hundred.col_date, tenpct.col_date, updates.col_date FROM uniques, hundred, tenpct, updates WHERE uniques.{on} = hundred.{on} AND uniques.{on} = tenpct.{on} AND uniques.{on} = updates.{on} AND uniques.{on} = {value}"
        )
    };
    let join_2 = |on: &str, value: &str| {
        format!(
            "SELECT uniques.col_signed, uniques.col_name, hundred.col_signed, hundred.col_name FROM uniques, hundred WHERE uniques.{on} = hundred.{on} AND uniques.{on} = {value}"
        )
    };
    let report = |last: &str, tail: &str| {
        format!(
            "SELECT AVG(col_signed), MIN(col_signed), MAX(col_signed), MAX(col_date), MIN(col_date), COUNT(DISTINCT col_name), COUNT(col_name), {last} FROM {REPORTVIEW} WHERE col_decim > {REPORT_DECIM}{tail}"
        )
    };
    let bench = format!("'{BENCHMARKS}'");
    let keys = JOIN_1_10_KEYS.map(|k| k.to_string()).join(", ");
    let app_t_mid = insert_updates(5005, 5005, 50005, "50005.00", "1988-01-01 00:00:00");
    let updates_index = |column| secondary_on(UPDATES, column);
    let mut s = vec![
        // Appendix 3 step 2, right after the load.
        setup("backup", empty_copy(BACKUP, "updates")),
        change(
            "backup",
            "backup",
            format!("INSERT INTO {BACKUP} SELECT * FROM updates"),
            facts.rows,
        ),
        setup("o_mode_tiny", empty_copy(O_MODE_TINY_OUT, "tiny")),
        setup("o_mode_1k", empty_copy(O_MODE_OUT, "updates")),
        o_mode("o_mode_tiny", "relation", tiny, O_MODE_TINY_OUT, 1),
        o_mode("o_mode_tiny", "file", tiny, "", 1),
        read(
            "sel_1_cl",
            "sel_1_cl",
            format!("SELECT {SEL} FROM updates WHERE col_key = 1000"),
            1,
        ),
        o_mode("o_mode_tiny", "screen", tiny, "", 1),
        o_mode("o_mode_100k", "file", k100, "", 1000),
        o_mode("o_mode_1k", "relation", k1, O_MODE_OUT, 10),
        o_mode("o_mode_1k", "file", k1, "", 10),
        o_mode("o_mode_10k", "file", k10, "", 100),
        o_mode("o_mode_10k", "relation", k10, O_MODE_OUT, 100),
        o_mode("o_mode_100k", "relation", k100, O_MODE_OUT, 1000),
        o_mode("o_mode_1k", "screen", k1, "", 10),
        o_mode("o_mode_10k", "screen", k10, "", 100),
        o_mode("o_mode_100k", "screen", k100, "", 1000),
        read("join_3_cl", "join_3_cl", join_3("col_key", "1000"), 1),
        read(
            "sel_100_ncl",
            "sel_100_ncl",
            format!("SELECT {SEL} FROM updates WHERE col_int <= 100"),
            100,
        ),
        read(
            "table_scan",
            "table_scan",
            "SELECT * FROM uniques WHERE col_int = 1".into(),
            0,
        ),
        read(
            "func_agg",
            "func_agg",
            "SELECT MIN(col_key) FROM hundred GROUP BY col_name".into(),
            100,
        ),
        Step {
            first: Some(facts.uniques_min_key),
            ..read(
                "scal_agg",
                "scal_agg",
                "SELECT MIN(col_key) FROM uniques".into(),
                1,
            )
        },
        read(
            "sel_100_cl",
            "sel_100_cl",
            format!("SELECT {SEL} FROM updates WHERE col_key <= 100"),
            100,
        ),
        read("join_3_ncl", "join_3_ncl", join_3("col_code", &bench), 1),
        read(
            "sel_10pct_ncl",
            "sel_10pct_ncl",
            format!("SELECT {SEL} FROM tenpct WHERE col_name = '{ASAP_NAME}'"),
            facts.tenpct_asap,
        ),
        read(
            "simple_report",
            "simple_report",
            format!(
                "SELECT AVG(updates.col_decim) FROM updates WHERE updates.col_key IN (SELECT updates.col_key FROM updates, hundred WHERE hundred.col_key = updates.col_key AND updates.col_decim > {REPORT_DECIM})"
            ),
            1,
        ),
        Step {
            first: Some(facts.info_retrieval),
            ..read(
                "info_retrieval",
                "info_retrieval",
                format!(
                    "SELECT COUNT(col_key) FROM tenpct WHERE col_name = '{ASAP_NAME}' AND col_int <= 100000000 AND col_signed BETWEEN 1 AND 99999999 AND NOT (col_float BETWEEN -450000000 AND 450000000) AND col_double > 600000000 AND col_decim < -600000000"
                ),
                1,
            )
        },
        step(
            "subtotal_report",
            "create_view",
            Action::Change(format!(
                "CREATE VIEW {REPORTVIEW} (col_key, col_signed, col_date, col_decim, col_name, col_code, col_int) AS SELECT updates.col_key, updates.col_signed, updates.col_date, updates.col_decim, hundred.col_name, hundred.col_code, hundred.col_int FROM updates, hundred WHERE updates.col_key = hundred.col_key"
            )),
            None,
        ),
        read(
            "subtotal_report",
            "subtotal_report",
            report("col_code, col_int", " GROUP BY col_code, col_int"),
            facts.report_rows,
        ),
        read(
            "total_report",
            "total_report",
            report("COUNT(col_code), COUNT(col_int)", ""),
            1,
        ),
        read("join_2_cl", "join_2_cl", join_2("col_key", "1000"), 1),
        read(
            "join_2",
            "join_2",
            join_2("col_address", &format!("'{SILICON_VALLEY}'")),
            1,
        ),
        read(
            "variable_select",
            "variable_select_low",
            format!("SELECT {SEL} FROM tenpct WHERE col_signed < {VARIABLE_LOW}"),
            facts.variable_low,
        ),
        read(
            "variable_select",
            "variable_select_high",
            format!("SELECT {SEL} FROM tenpct WHERE col_signed < {VARIABLE_HIGH}"),
            facts.variable_high,
        ),
        read("join_4_cl", "join_4_cl", join_4("col_key", "1000"), 1),
        read(
            "proj_100",
            "proj_100",
            "SELECT DISTINCT col_address, col_signed FROM hundred".into(),
            100,
        ),
        read("join_4_ncl", "join_4_ncl", join_4("col_code", &bench), 1),
        read(
            "proj_10pct",
            "proj_10pct",
            "SELECT DISTINCT col_signed FROM tenpct".into(),
            facts.tenpct_signed_values,
        ),
        read(
            "sel_1_ncl",
            "sel_1_ncl",
            format!("SELECT {SEL} FROM updates WHERE col_code = {bench}"),
            1,
        ),
        read("join_2_ncl", "join_2_ncl", join_2("col_code", &bench), 1),
        // Defined in Appendix 2, absent from Appendix 3's sequence: run here.
        read(
            "sel_10pct_cl",
            "sel_10pct_cl",
            format!("SELECT {SEL} FROM uniques WHERE col_key <= 100000000"),
            facts.uniques_key_tenth,
        ),
        read(
            "join_1_10",
            "join_1_10",
            format!(
                "SELECT uniques.col_key, uniques.col_name, tenpct.col_name, tenpct.col_signed FROM uniques, tenpct WHERE uniques.col_key = tenpct.col_signed AND uniques.col_key IN ({keys})"
            ),
            facts.join_1_10,
        ),
        setup("refer_integrity", empty_copy(INTEGRITY_TEMP, "hundred")),
        change(
            "refer_integrity",
            "integrity_temp",
            format!("INSERT INTO {INTEGRITY_TEMP} SELECT * FROM hundred WHERE col_int = 0"),
            1,
        ),
        step(
            "refer_integrity",
            "integrity_test",
            Action::Refused(
                "UPDATE hundred SET col_signed = -500000000 WHERE col_int = 0".into(),
                FOREIGN,
            ),
            Some(0),
        ),
        change(
            "refer_integrity",
            "integrity_restore_delete",
            "DELETE FROM hundred WHERE col_int = 0".into(),
            1,
        ),
        change(
            "refer_integrity",
            "integrity_restore_insert",
            format!("INSERT INTO hundred SELECT * FROM {INTEGRITY_TEMP}"),
            1,
        ),
    ];
    // Step 59: every secondary index of updates dropped; the key updates
    // run with the clustered key alone.
    for i in secondary(UPDATES) {
        s.push(step(
            "update_key",
            leak(format!("drop_{}", i.name())),
            Action::DropIndex(i),
            None,
        ));
    }
    s.extend([
        setup("bulk_append", empty_copy(SAVED, "updates")),
        change(
            "bulk_append",
            "bulk_save",
            format!(
                "INSERT INTO {SAVED} SELECT * FROM updates WHERE col_key BETWEEN 5000 AND 5999"
            ),
            1000,
        ),
        change(
            "bulk_modify",
            "bulk_modify",
            "UPDATE updates SET col_key = col_key - 100000 WHERE col_key BETWEEN 5000 AND 5999"
                .into(),
            1000,
        ),
        step(
            "append_duplicate",
            "append_duplicate",
            Action::Refused(
                insert_updates(6000, 0, 60000, "39997.90", "1985-11-10 00:00:00"),
                DUPLICATE,
            ),
            Some(0),
        ),
        change(
            "append_duplicate",
            "remove_duplicate",
            "DELETE FROM updates WHERE col_key = 6000 AND col_int = 0".into(),
            0,
        ),
        change("update_key", "app_t_mid", app_t_mid.clone(), 1),
        change(
            "update_key",
            "mod_t_mid",
            "UPDATE updates SET col_key = -5000 WHERE col_key = 5005".into(),
            1,
        ),
        change(
            "update_key",
            "del_t_mid",
            "DELETE FROM updates WHERE col_key = -5000".into(),
            1,
        ),
        change(
            "update_key",
            "app_t_end",
            insert_updates(
                1_000_000_001,
                50005,
                50005,
                "50005.00",
                "1988-01-01 00:00:00",
            ),
            1,
        ),
        change(
            "update_key",
            "mod_t_end",
            "UPDATE updates SET col_key = -1000 WHERE col_key = 1000000001".into(),
            1,
        ),
        change(
            "update_key",
            "del_t_end",
            "DELETE FROM updates WHERE col_key = -1000".into(),
            1,
        ),
        // Step 70, then update_alpha.
        step(
            "update_alpha",
            "create_idx_updates_code_h",
            Action::CreateIndex(updates_index("col_code")),
            None,
        ),
        change("update_alpha", "app_t_mid", app_t_mid.clone(), 1),
        change(
            "update_alpha",
            "mod_t_cod",
            "UPDATE updates SET col_code = 'SQL+GROUPS' WHERE col_key = 5005".into(),
            1,
        ),
        // The paper's del_t_mid (key -5000) would find nothing: the row is
        // still at 5005.
        change(
            "update_alpha",
            "del_t_mid",
            "DELETE FROM updates WHERE col_key = 5005".into(),
            1,
        ),
        // Step 74, then update_btree.
        step(
            "update_btree",
            "create_idx_updates_int_bt",
            Action::CreateIndex(updates_index("col_int")),
            None,
        ),
        change("update_btree", "app_t_mid", app_t_mid, 1),
        change(
            "update_btree",
            "mod_t_int",
            "UPDATE updates SET col_int = 50015 WHERE col_key = 5005".into(),
            1,
        ),
        change(
            "update_btree",
            "del_t_mid",
            "DELETE FROM updates WHERE col_key = 5005".into(),
            1,
        ),
        change(
            "bulk_append",
            "bulk_append",
            format!("INSERT INTO updates SELECT * FROM {SAVED}"),
            1000,
        ),
        change(
            "bulk_delete",
            "bulk_delete",
            "DELETE FROM updates WHERE col_key < 0".into(),
            1000,
        ),
        // Not in the paper: the two indexes it never rebuilds, so the
        // multi-user tests and later runs find the tables as loaded.
        step(
            "bulk_delete",
            "create_idx_updates_decim_bt",
            Action::CreateIndex(updates_index("col_decim")),
            None,
        ),
        step(
            "bulk_delete",
            "create_idx_updates_double_bt",
            Action::CreateIndex(updates_index("col_double")),
            None,
        ),
    ]);
    s
}

/// How one step went.
#[derive(Debug, Clone, PartialEq)]
pub struct StepRun {
    /// Seconds it took.
    pub seconds: f64,
    /// Rows returned or changed (0 for a refused statement).
    pub rows: u64,
    /// Whether the engine refused it as it must.
    pub refused: bool,
    /// What differed from the paper's data or rules, if anything.
    pub mismatch: Option<String>,
}

/// Runs one step, timed, and checks it: its rows against the data's, a
/// statement that must be refused for being refused for its reason.
/// `file` is the output-mode tests' file.
pub fn run_step(s: &mut dyn Session, step: &Step, file: &Path) -> Result<StepRun, DbError> {
    let start = Instant::now();
    let mut refused = false;
    let mut mismatch = None;
    let (rows, first) = match &step.action {
        Action::Read(sql) => {
            let f = s.fetch(sql)?;
            (f.rows, f.first.first().copied().flatten())
        }
        // DDL (no rows to check): SQLite's count would be the last
        // DML's.
        Action::Change(sql) | Action::Setup(sql) if step.rows.is_none() => {
            s.execute(sql)?;
            (0, None)
        }
        Action::Change(sql) | Action::Setup(sql) => (s.execute(sql)?, None),
        Action::Refused(sql, words) => match s.execute(sql) {
            Ok(n) => {
                mismatch = Some(format!(
                    "{}: the engine accepted it ({n} rows); the paper requires a refusal",
                    step.name
                ));
                (n, None)
            }
            Err(e) => {
                let text = e.message.to_lowercase();
                if words.iter().any(|w| text.contains(w)) {
                    refused = true;
                } else {
                    mismatch = Some(format!(
                        "{}: refused, but not for a constraint: {e}",
                        step.name
                    ));
                }
                (0, None)
            }
        },
        Action::ToFile(sql) => {
            let lines = s.fetch_lines(sql)?;
            let io = |e: std::io::Error| {
                DbError::other(format!("{}: {}: {e}", step.name, file.display()))
            };
            let mut f = std::io::BufWriter::new(std::fs::File::create(file).map_err(io)?);
            for l in &lines {
                writeln!(f, "{l}").map_err(io)?;
            }
            f.flush().map_err(io)?;
            (lines.len() as u64, None)
        }
        Action::ToScreen(sql) => {
            let lines = s.fetch_lines(sql)?;
            let mut screen = std::io::sink();
            for l in &lines {
                let _ = writeln!(screen, "{l}");
            }
            (lines.len() as u64, None)
        }
        Action::CreateIndex(i) => {
            s.create_index(*i)?;
            (0, None)
        }
        Action::DropIndex(i) => {
            let sql = s.drop_index(&i.name(), i.table);
            s.execute(&sql)?;
            (0, None)
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    if mismatch.is_none() {
        if let Some(want) = step.rows.filter(|&w| w != rows) {
            mismatch = Some(format!(
                "{}: {rows} rows, the data implies {want}",
                step.name
            ));
        } else if let Some(want) = step.first.filter(|&w| Some(w) != first) {
            mismatch = Some(format!(
                "{}: returned {first:?}, the data implies {want}",
                step.name
            ));
        }
    }
    Ok(StepRun {
        seconds,
        rows,
        refused,
        mismatch,
    })
}

/// One test's totals.
#[derive(Debug, Clone, Default)]
struct Totals {
    seconds: f64,
    rows: u64,
    expected: u64,
}

fn labelled(name: &str, v: f64, unit: Unit, better: Better, test: &str) -> Metric {
    Metric::new(name, v, unit, better).label(label::QUERY, test)
}

/// Runs the single-user module on the data `facts` describes into `r`:
/// per step its seconds and rows, per test the sum of its statements'
/// seconds (index maintenance apart), its rows and the rows the data
/// implies. A statement that fails, or rows that differ from the data's,
/// fail the result (after the remaining steps ran, so the tables are left
/// as loaded where possible).
pub fn run(
    s: &mut dyn Session,
    facts: &Facts,
    scratch_dir: &Path,
    ctx: &mut Context<'_>,
    r: &mut BenchResult,
) {
    let all = steps(facts);
    let file = scratch_dir.join(format!("nodebench-as3ap-{}.out", std::process::id()));
    ctx.progress.start("db as3ap single", all.len() as u64);
    let start = Instant::now();
    let mut totals: std::collections::HashMap<&str, Totals> = Default::default();
    let mut problems = Vec::new();
    for step in &all {
        if ctx.cancel.is_cancelled() {
            r.mark_cancelled();
            break;
        }
        let t = totals.entry(step.test).or_default();
        match run_step(s, step, &file) {
            Ok(run) => {
                if !matches!(step.action, Action::Setup(_)) {
                    let at = |m: Metric| m.label(label::STEP, step.name);
                    r.metrics.push(at(labelled(
                        metric::STEP_SECONDS,
                        run.seconds,
                        Unit::Seconds,
                        Better::Lower,
                        step.test,
                    )));
                    r.metrics.push(at(labelled(
                        metric::STEP_ROWS,
                        run.rows as f64,
                        Unit::Count,
                        Better::Higher,
                        step.test,
                    )));
                    if run.refused {
                        r.metrics.push(at(labelled(
                            metric::REFUSED,
                            1.0,
                            Unit::Count,
                            Better::Higher,
                            step.test,
                        )));
                    }
                }
                if let Action::CreateIndex(i) = step.action {
                    r.metrics.push(
                        Metric::new(
                            metric::INDEX_SECONDS,
                            run.seconds,
                            Unit::Seconds,
                            Better::Lower,
                        )
                        .label(label::INDEX, i.name()),
                    );
                }
                if step.in_test_time() {
                    t.seconds += run.seconds;
                    t.rows += run.rows;
                    t.expected += step.rows.unwrap_or(run.rows);
                }
                if let Some(m) = run.mismatch {
                    problems.push(format!("{}: {m}", step.test));
                }
            }
            Err(e) => problems.push(format!("{}: {}: {e}", step.test, step.name)),
        }
        ctx.progress.advance(1);
    }
    for test in TESTS {
        let Some(t) = totals.get(test) else { continue };
        r.metrics.push(labelled(
            metric::QUERY_SECONDS,
            t.seconds,
            Unit::Seconds,
            Better::Lower,
            test,
        ));
        r.metrics.push(labelled(
            metric::QUERY_ROWS,
            t.rows as f64,
            Unit::Count,
            Better::Higher,
            test,
        ));
        r.metrics.push(labelled(
            metric::QUERY_ROWS_EXPECTED,
            t.expected as f64,
            Unit::Count,
            Better::Higher,
            test,
        ));
    }
    r.metrics.push(Metric::new(
        metric::SECONDS,
        start.elapsed().as_secs_f64(),
        Unit::Seconds,
        Better::Lower,
    ));
    let _ = std::fs::remove_file(&file);
    for sql in cleanup() {
        if let Err(e) = s.execute(&sql) {
            r.warnings.push(format!("{sql}: {e}"));
        }
    }
    if let Some(first) = problems.first() {
        r.warnings.extend(problems.iter().cloned());
        r.mark_failed(if problems.len() == 1 {
            first.clone()
        } else {
            format!(
                "{first} (and {} more: see the warnings)",
                problems.len() - 1
            )
        });
    }
    ctx.progress.finish();
}

/// Drops what the steps made (the view, then the scratch tables).
pub fn cleanup() -> Vec<String> {
    std::iter::once(format!("DROP VIEW IF EXISTS {REPORTVIEW}"))
        .chain(SCRATCH.iter().map(|t| format!("DROP TABLE IF EXISTS {t}")))
        .collect()
}

/// The SQL of a step (the generic form: index builds and drops are
/// each engine's, see docs/as3ap.md).
pub fn sql(step: &Step) -> String {
    match &step.action {
        Action::Read(s)
        | Action::Change(s)
        | Action::Setup(s)
        | Action::Refused(s, _)
        | Action::ToFile(s)
        | Action::ToScreen(s) => s.clone(),
        Action::CreateIndex(i) => {
            format!("CREATE INDEX {} ON {} ({})", i.name(), i.table, i.column)
        }
        Action::DropIndex(i) => format!("DROP INDEX {}", i.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/as3ap.md lists every statement as it runs.
    #[test]
    fn the_document_has_every_statement() {
        let doc = include_str!("../../../docs/as3ap.md");
        for s in steps(&Facts::of(10_000, 1)) {
            let sql = sql(&s);
            assert!(doc.contains(&sql), "docs/as3ap.md lacks {}: {sql}", s.name);
        }
    }

    #[test]
    fn every_test_has_steps_in_the_run_order() {
        let facts = Facts::of(10_000, 1);
        let all = steps(&facts);
        for t in TESTS {
            assert!(all.iter().any(|s| s.test == t && s.in_test_time()), "{t}");
        }
        assert!(all.iter().all(|s| TESTS.contains(&s.test)));
        // Two statements must be refused: a duplicate key, a foreign key.
        let refused: Vec<&str> = all
            .iter()
            .filter(|s| matches!(s.action, Action::Refused(..)))
            .map(|s| s.name)
            .collect();
        assert_eq!(refused, ["integrity_test", "append_duplicate"]);
        // Each output mode of each o_mode test once.
        for t in ["o_mode_tiny", "o_mode_1k", "o_mode_10k", "o_mode_100k"] {
            let names: Vec<&str> = all
                .iter()
                .filter(|s| s.test == t && s.in_test_time())
                .map(|s| s.name)
                .collect();
            assert_eq!(names.len(), 3, "{t}: {names:?}");
        }
    }
}
