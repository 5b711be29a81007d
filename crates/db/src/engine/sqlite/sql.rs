//! [`Sql`] on SQLite: cached prepared statements; `FOR UPDATE` left out
//! (SQLite has none: a write transaction, begun IMMEDIATE, holds the
//! database's write lock); the load's rows inserted one prepared
//! statement each inside the caller's transaction.

use rusqlite::types::{ToSqlOutput, Value, ValueRef};

use super::{SqliteSession, error};
use crate::engine::DbError;
use crate::engine::sql::{Rows, Sql, V};

impl rusqlite::ToSql for V {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            V::Null => ToSqlOutput::Owned(Value::Null),
            V::I(i) => ToSqlOutput::Owned(Value::Integer(*i)),
            V::F(f) => ToSqlOutput::Owned(Value::Real(*f)),
            V::S(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        })
    }
}

/// A column as a [`V`].
fn value(v: ValueRef<'_>) -> V {
    match v {
        ValueRef::Null => V::Null,
        ValueRef::Integer(i) => V::I(i),
        ValueRef::Real(f) => V::F(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => V::S(String::from_utf8_lossy(t).into_owned()),
    }
}

impl SqliteSession {
    /// `sql` without `FOR UPDATE`, translated once.
    fn translate(&mut self, sql: &str) -> &str {
        if !self.translated.contains_key(sql) {
            let t = sql.replace(" FOR UPDATE", "");
            self.translated.insert(sql.to_string(), t);
        }
        &self.translated[sql]
    }
}

impl Sql for SqliteSession {
    fn begin(&mut self, writes: bool) -> Result<(), DbError> {
        let sql = if writes { "BEGIN IMMEDIATE" } else { "BEGIN" };
        self.conn.execute_batch(sql).map_err(error)
    }

    fn commit(&mut self) -> Result<(), DbError> {
        self.conn.execute_batch("COMMIT").map_err(error)
    }

    fn rollback(&mut self) -> Result<(), DbError> {
        if self.conn.is_autocommit() {
            return Ok(());
        }
        self.conn.execute_batch("ROLLBACK").map_err(error)
    }

    fn query(&mut self, sql: &str, params: &[V]) -> Result<Rows, DbError> {
        let sql = self.translate(sql).to_string();
        let mut stmt = self.conn.prepare_cached(&sql).map_err(error)?;
        let columns = stmt.column_count();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params.iter()))
            .map_err(error)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(error)? {
            let mut r = Vec::with_capacity(columns);
            for i in 0..columns {
                r.push(value(row.get_ref(i).map_err(error)?));
            }
            out.push(r);
        }
        Ok(out)
    }

    fn exec(&mut self, sql: &str, params: &[V]) -> Result<u64, DbError> {
        let sql = self.translate(sql).to_string();
        let mut stmt = self.conn.prepare_cached(&sql).map_err(error)?;
        stmt.execute(rusqlite::params_from_iter(params.iter()))
            .map(|n| n as u64)
            .map_err(error)
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        self.conn.execute_batch(sql).map_err(error)
    }

    fn append(&mut self, table: &str, columns: &[&str], rows: &[Vec<V>]) -> Result<(), DbError> {
        let marks = vec!["?"; columns.len()].join(", ");
        let sql = format!(
            "INSERT INTO {table} ({}) VALUES ({marks})",
            columns.join(", ")
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(error)?;
        for r in rows {
            stmt.execute(rusqlite::params_from_iter(r.iter()))
                .map_err(error)?;
        }
        Ok(())
    }
}
