//! [`Sql`] on PostgreSQL: each statement prepared once per connection
//! (`?` numbered `$1`, `$2`...), values bound in the binary format of the
//! parameter's type as the server infers it (a NUMERIC from a number, an
//! INTEGER from an integer); the load's rows by `COPY ... FROM STDIN` in
//! the text format.

use std::error::Error;
use std::io::Write as _;

use postgres::types::private::BytesMut;
use postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

use super::{POSTGRES_EPOCH_MICROS, PostgresSession, error, numeric_2dp};
use crate::engine::DbError;
use crate::engine::sql::{Rows, Sql, V, dollar_params};

/// A value the server's type cannot take.
fn mismatch(v: &V, ty: &Type) -> Box<dyn Error + Sync + Send> {
    format!("cannot bind {v:?} as {ty}").into()
}

impl ToSql for V {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        let number = |v: &V| v.num().ok_or_else(|| mismatch(v, ty));
        match (self, ty) {
            (V::Null, _) => return Ok(IsNull::Yes),
            (_, &Type::INT2) => out.extend_from_slice(&(number(self)? as i16).to_be_bytes()),
            (_, &Type::INT4) => out.extend_from_slice(&(number(self)? as i32).to_be_bytes()),
            (_, &Type::INT8) => out.extend_from_slice(&(number(self)? as i64).to_be_bytes()),
            (_, &Type::FLOAT4) => out.extend_from_slice(&(number(self)? as f32).to_be_bytes()),
            (_, &Type::FLOAT8) => out.extend_from_slice(&number(self)?.to_be_bytes()),
            (_, &Type::NUMERIC) => {
                let mut b = Vec::new();
                numeric_2dp(&mut b, (number(self)? * 100.0).round() as i64);
                // numeric_2dp writes the field's length first.
                out.extend_from_slice(&b[4..]);
            }
            (V::I(micros), &Type::TIMESTAMP | &Type::TIMESTAMPTZ) => {
                out.extend_from_slice(&(micros - POSTGRES_EPOCH_MICROS).to_be_bytes())
            }
            (v, _) => match v.text() {
                Some(t) => out.extend_from_slice(t.as_bytes()),
                None => return Err(mismatch(v, ty)),
            },
        }
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// A NUMERIC's binary form as a float: digit count, weight (of the first
/// base-10000 digit), sign, display scale, then the digits.
fn numeric(raw: &[u8]) -> Result<f64, Box<dyn Error + Sync + Send>> {
    let word = |i: usize| -> Result<u16, Box<dyn Error + Sync + Send>> {
        raw.get(2 * i..2 * i + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| "short NUMERIC".into())
    };
    let (n, weight, sign) = (word(0)? as usize, word(1)? as i16, word(2)?);
    if sign == 0xC000 {
        return Ok(f64::NAN);
    }
    // The digits as one whole number, scaled once: exact to 2^53.
    let mut whole = 0.0;
    for i in 0..n {
        whole = whole * 10_000.0 + f64::from(word(4 + i)?);
    }
    let exp = i32::from(weight) - (n as i32 - 1);
    let v = if exp >= 0 {
        whole * 10_000f64.powi(exp)
    } else {
        whole / 10_000f64.powi(-exp)
    };
    Ok(if sign == super::NUMERIC_NEG { -v } else { v })
}

impl<'a> FromSql<'a> for V {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<V, Box<dyn Error + Sync + Send>> {
        Ok(match *ty {
            Type::INT2 => V::I(i16::from_sql(ty, raw)?.into()),
            Type::INT4 => V::I(i32::from_sql(ty, raw)?.into()),
            Type::INT8 => V::I(i64::from_sql(ty, raw)?),
            Type::FLOAT4 => V::F(f32::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => V::F(f64::from_sql(ty, raw)?),
            Type::NUMERIC => V::F(numeric(raw)?),
            Type::TIMESTAMP | Type::TIMESTAMPTZ => {
                V::I(i64::from_sql(&Type::INT8, raw)? + POSTGRES_EPOCH_MICROS)
            }
            _ => V::S(String::from_utf8_lossy(raw).into_owned()),
        })
    }

    fn from_sql_null(_: &Type) -> Result<V, Box<dyn Error + Sync + Send>> {
        Ok(V::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

impl PostgresSession {
    /// The prepared statement of `sql` (`?` placeholders), prepared once.
    fn statement(&mut self, sql: &str) -> Result<postgres::Statement, DbError> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(&dollar_params(sql)).map_err(error)?;
        self.prepared.insert(sql.to_string(), s.clone());
        Ok(s)
    }
}

/// Parameters as the client's trait objects.
fn refs(p: &[V]) -> Vec<&(dyn ToSql + Sync)> {
    p.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

/// Appends `v` in COPY's text format.
fn copy_text(out: &mut Vec<u8>, v: &V) {
    match v.text() {
        None => out.extend_from_slice(b"\\N"),
        Some(t) => {
            for b in t.bytes() {
                match b {
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    _ => out.push(b),
                }
            }
        }
    }
}

impl Sql for PostgresSession {
    fn begin(&mut self, _writes: bool) -> Result<(), DbError> {
        self.client.batch_execute("BEGIN").map_err(error)
    }

    fn commit(&mut self) -> Result<(), DbError> {
        self.client.batch_execute("COMMIT").map_err(error)
    }

    fn rollback(&mut self) -> Result<(), DbError> {
        self.client.batch_execute("ROLLBACK").map_err(error)
    }

    fn query(&mut self, sql: &str, p: &[V]) -> Result<Rows, DbError> {
        let stmt = self.statement(sql)?;
        let rows = self.client.query(&stmt, &refs(p)).map_err(error)?;
        rows.iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| r.try_get::<_, V>(i).map_err(error))
                    .collect()
            })
            .collect()
    }

    fn exec(&mut self, sql: &str, p: &[V]) -> Result<u64, DbError> {
        let stmt = self.statement(sql)?;
        self.client.execute(&stmt, &refs(p)).map_err(error)
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        self.client.batch_execute(sql).map_err(error)
    }

    fn append(&mut self, table: &str, columns: &[&str], rows: &[Vec<V>]) -> Result<(), DbError> {
        let sql = format!("COPY {table} ({}) FROM STDIN", columns.join(", "));
        let mut buf = Vec::with_capacity(rows.len() * 64);
        for r in rows {
            for (i, v) in r.iter().enumerate() {
                if i > 0 {
                    buf.push(b'\t');
                }
                copy_text(&mut buf, v);
            }
            buf.push(b'\n');
        }
        let mut writer = self.client.copy_in(&sql).map_err(error)?;
        writer
            .write_all(&buf)
            .map_err(|e| DbError::other(format!("COPY {table}: {e}")))?;
        writer.finish().map_err(error).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerics_decode_from_base_10000_digits() {
        let mut b = Vec::new();
        numeric_2dp(&mut b, -1_234_525);
        assert_eq!(numeric(&b[4..]).unwrap(), -12345.25);
        b.clear();
        numeric_2dp(&mut b, 7);
        assert_eq!(numeric(&b[4..]).unwrap(), 0.07);
    }
}
