//! The store's schema: one list of migrations for every backend, written
//! in SQLite's words; [`postgres_dialect`] turns a script into PostgreSQL's,
//! so both backends hold the same tables, columns and versions.

use crate::StoreError;

/// Schema migrations, oldest first: script `i` brings the schema from
/// version `i` to version `i + 1`. Never edit a released script; append a
/// new one instead.
///
/// Real columns that may hold NaN are nullable: SQLite stores NaN as NULL,
/// and NULL reads back as NaN.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    status TEXT NOT NULL,
    nodebench_version TEXT NOT NULL,
    command_line TEXT NOT NULL,
    tags TEXT NOT NULL,
    inventory TEXT,
    schema_version INTEGER NOT NULL
);
CREATE INDEX runs_started_at ON runs (started_at);

CREATE TABLE results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    benchmark TEXT NOT NULL,
    parameters TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    warnings TEXT NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT NOT NULL
);
CREATE INDEX results_run_id ON results (run_id, seq);

CREATE TABLE metrics (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value REAL,
    unit TEXT NOT NULL,
    better TEXT NOT NULL,
    labels TEXT NOT NULL,
    stats TEXT,
    reference_name TEXT,
    reference_value REAL,
    percent_of_reference REAL
);
CREATE INDEX metrics_result_id ON metrics (result_id);

CREATE TABLE histograms (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    unit TEXT NOT NULL,
    scale REAL,
    labels TEXT NOT NULL,
    count INTEGER NOT NULL,
    hdr_base64 TEXT NOT NULL
);
CREATE INDEX histograms_result_id ON histograms (result_id);

CREATE TABLE series (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    unit TEXT NOT NULL,
    labels TEXT NOT NULL,
    points TEXT NOT NULL
);
CREATE INDEX series_result_id ON series (result_id);
"#,
    r#"
ALTER TABLE runs ADD COLUMN verdicts TEXT NOT NULL DEFAULT '[]';
"#,
    r#"
ALTER TABLE results ADD COLUMN bottleneck TEXT;
"#,
    r#"
ALTER TABLE results ADD COLUMN phases TEXT NOT NULL DEFAULT '[]';
"#,
    r#"
ALTER TABLE runs ADD COLUMN build TEXT;
"#,
    r#"
ALTER TABLE series ADD COLUMN points_packed BLOB;
"#,
    r#"
ALTER TABLE results ADD COLUMN disturbance TEXT;
"#,
    r#"
ALTER TABLE results ADD COLUMN error_phase TEXT;
"#,
    r#"
ALTER TABLE metrics ADD COLUMN printed TEXT;
"#,
];

/// The schema version this build writes and understands.
pub(crate) fn supported_version() -> i64 {
    i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX)
}

/// The scripts that bring a schema at version `current` up to date;
/// [`StoreError::Newer`] for a schema from a newer nodebench.
pub(crate) fn pending(current: i64) -> Result<&'static [&'static str], StoreError> {
    let supported = supported_version();
    if current > supported {
        return Err(StoreError::Newer {
            found: current,
            supported,
        });
    }
    let start = usize::try_from(current).map_err(|_| StoreError::Invalid {
        what: "schema version".into(),
        reason: format!("{current} is negative"),
    })?;
    Ok(&MIGRATIONS[start..])
}

/// `script` in PostgreSQL's words: an `INTEGER PRIMARY KEY AUTOINCREMENT`
/// id becomes `BIGSERIAL PRIMARY KEY`, `INTEGER` becomes `BIGINT` (SQLite's
/// integers are 64-bit), `REAL` becomes `DOUBLE PRECISION` (PostgreSQL's
/// `REAL` is 32-bit) and `BLOB` becomes `BYTEA`. PostgreSQL keeps NaN as NaN where SQLite keeps NULL;
/// both read back as NaN.
pub(crate) fn postgres_dialect(script: &str) -> String {
    script
        .replace("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGSERIAL PRIMARY KEY")
        .replace(" INTEGER", " BIGINT")
        .replace(" REAL", " DOUBLE PRECISION")
        .replace(" BLOB", " BYTEA")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_dialect_widens_every_number_column() {
        let all = MIGRATIONS
            .iter()
            .map(|s| postgres_dialect(s))
            .collect::<String>();
        assert!(!all.contains("INTEGER"), "{all}");
        assert!(!all.contains(" REAL"), "{all}");
        assert!(!all.contains("BLOB"), "{all}");
        assert!(all.contains("points_packed BYTEA;"), "{all}");
        assert!(!all.contains("AUTOINCREMENT"), "{all}");
        assert_eq!(all.matches("BIGSERIAL PRIMARY KEY").count(), 5);
        assert!(all.contains("value DOUBLE PRECISION,"), "{all}");
        assert!(
            all.contains("run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE"),
            "{all}"
        );
    }
}
