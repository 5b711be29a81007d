//! [`Sql`] on MariaDB/MySQL: the binary protocol's prepared statements
//! (the driver keeps them per connection, [`super::STMT_CACHE`] of them);
//! the load's rows as multi-row INSERTs of literal values.

use std::fmt::Write as _;

use mysql::prelude::Queryable;
use mysql::{Params, Value};

use super::{MysqlSession, error};
use crate::engine::DbError;
use crate::engine::sql::{Rows, Sql, V};

/// Rows per INSERT statement of [`Sql::append`].
const APPEND_ROWS: usize = 500;

/// The driver's value of `v`.
fn param(v: &V) -> Value {
    match v {
        V::Null => Value::NULL,
        V::I(i) => Value::Int(*i),
        V::F(f) => Value::Double(*f),
        V::S(s) => Value::Bytes(s.as_bytes().to_vec()),
    }
}

/// A returned column as a [`V`] (DECIMALs come as text; a DATETIME as its
/// `YYYY-MM-DD HH:MM:SS` text).
fn value(v: Value) -> V {
    match v {
        Value::NULL => V::Null,
        Value::Int(i) => V::I(i),
        Value::UInt(u) => V::I(u as i64),
        Value::Float(f) => V::F(f as f64),
        Value::Double(f) => V::F(f),
        Value::Bytes(b) => V::S(String::from_utf8_lossy(&b).into_owned()),
        Value::Date(y, mo, d, h, mi, s, _) => {
            V::S(format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"))
        }
        Value::Time(neg, d, h, mi, s, _) => V::S(format!(
            "{}{}:{mi:02}:{s:02}",
            if neg { "-" } else { "" },
            d * 24 + u32::from(h)
        )),
    }
}

/// Positional parameters (none: the empty set the driver wants).
fn params(p: &[V]) -> Params {
    if p.is_empty() {
        Params::Empty
    } else {
        Params::Positional(p.iter().map(param).collect())
    }
}

/// Appends `v` as an SQL literal.
fn literal(out: &mut String, v: &V) {
    match v {
        V::Null => out.push_str("NULL"),
        V::I(i) => {
            let _ = write!(out, "{i}");
        }
        V::F(f) => {
            let _ = write!(out, "{f}");
        }
        V::S(s) => {
            out.push('\'');
            for c in s.chars() {
                if c == '\'' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('\'');
        }
    }
}

impl Sql for MysqlSession {
    fn begin(&mut self, _writes: bool) -> Result<(), DbError> {
        self.conn.query_drop("BEGIN").map_err(error)
    }

    fn commit(&mut self) -> Result<(), DbError> {
        self.conn.query_drop("COMMIT").map_err(error)
    }

    fn rollback(&mut self) -> Result<(), DbError> {
        self.conn.query_drop("ROLLBACK").map_err(error)
    }

    fn query(&mut self, sql: &str, p: &[V]) -> Result<Rows, DbError> {
        let rows: Vec<mysql::Row> = self.conn.exec(sql, params(p)).map_err(error)?;
        Ok(rows
            .into_iter()
            .map(|r| r.unwrap().into_iter().map(value).collect())
            .collect())
    }

    fn exec(&mut self, sql: &str, p: &[V]) -> Result<u64, DbError> {
        self.conn.exec_drop(sql, params(p)).map_err(error)?;
        Ok(self.conn.affected_rows())
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        self.conn.query_drop(sql).map_err(error)
    }

    fn append(&mut self, table: &str, columns: &[&str], rows: &[Vec<V>]) -> Result<(), DbError> {
        for chunk in rows.chunks(APPEND_ROWS) {
            let mut sql = format!("INSERT INTO {table} ({}) VALUES ", columns.join(", "));
            for (i, r) in chunk.iter().enumerate() {
                sql.push_str(if i == 0 { "(" } else { ",(" });
                for (j, v) in r.iter().enumerate() {
                    if j > 0 {
                        sql.push(',');
                    }
                    literal(&mut sql, v);
                }
                sql.push(')');
            }
            self.conn.query_drop(&sql).map_err(error)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_quoted_and_escaped() {
        let mut s = String::new();
        for v in [V::I(3), V::F(2.5), V::Null, V::S("it's \\".into())] {
            literal(&mut s, &v);
            s.push(' ');
        }
        assert_eq!(s, "3 2.5 NULL 'it\\'s \\\\' ");
    }
}
