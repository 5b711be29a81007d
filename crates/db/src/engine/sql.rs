//! Parameterised statements on any engine, for workloads whose statements
//! take values (TPC-C): [`Sql`], implemented by each engine's session,
//! and the [`V`] values it binds and returns. Statements are written with
//! `?` placeholders; each engine prepares a statement once per connection
//! and keeps it (PostgreSQL's `$n` numbering and SQLite's missing
//! `FOR UPDATE` are the engine's to translate).

use super::DbError;

/// One bound parameter or returned column.
#[derive(Debug, Clone, PartialEq)]
pub enum V {
    /// SQL NULL.
    Null,
    /// An integer (a timestamp is microseconds since the Unix epoch).
    I(i64),
    /// A floating-point or decimal number (money in units, 2 places).
    F(f64),
    /// Text (a DECIMAL a server sends as text stays text until read).
    S(String),
}

impl V {
    /// The value as an integer: a whole number, or text holding one.
    pub fn int(&self) -> Option<i64> {
        match self {
            V::I(i) => Some(*i),
            V::F(f) if f.fract() == 0.0 => Some(*f as i64),
            V::S(s) => s.trim().parse().ok().or_else(|| {
                s.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.fract() == 0.0)
                    .map(|f| f as i64)
            }),
            _ => None,
        }
    }

    /// The value as a number: an integer, a float, or text holding one.
    pub fn num(&self) -> Option<f64> {
        match self {
            V::I(i) => Some(*i as f64),
            V::F(f) => Some(*f),
            V::S(s) => s.trim().parse().ok(),
            V::Null => None,
        }
    }

    /// The value as text (numbers written out); `None` for NULL.
    pub fn text(&self) -> Option<String> {
        match self {
            V::S(s) => Some(s.clone()),
            V::I(i) => Some(i.to_string()),
            V::F(f) => Some(f.to_string()),
            V::Null => None,
        }
    }

    /// Whether the value is NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, V::Null)
    }
}

impl From<i64> for V {
    fn from(i: i64) -> V {
        V::I(i)
    }
}

impl From<f64> for V {
    fn from(f: f64) -> V {
        V::F(f)
    }
}

impl From<&str> for V {
    fn from(s: &str) -> V {
        V::S(s.to_string())
    }
}

impl From<String> for V {
    fn from(s: String) -> V {
        V::S(s)
    }
}

/// Rows a query returned, each a vector of columns.
pub type Rows = Vec<Vec<V>>;

/// Parameterised statements and explicit transactions on one connection.
pub trait Sql {
    /// Starts a transaction; `writes`: it will write (SQLite takes the
    /// write lock at once, so two writers never deadlock on the upgrade).
    fn begin(&mut self, writes: bool) -> Result<(), DbError>;
    /// Commits the open transaction.
    fn commit(&mut self) -> Result<(), DbError>;
    /// Rolls the open transaction back.
    fn rollback(&mut self) -> Result<(), DbError>;
    /// Runs a query with `?` placeholders bound to `params` (prepared once
    /// per connection); returns every row.
    fn query(&mut self, sql: &str, params: &[V]) -> Result<Rows, DbError>;
    /// Runs a statement with `?` placeholders; returns the rows it changed
    /// (matched, on MariaDB/MySQL).
    fn exec(&mut self, sql: &str, params: &[V]) -> Result<u64, DbError>;
    /// Runs statements without parameters (DDL, settings).
    fn batch(&mut self, sql: &str) -> Result<(), DbError>;
    /// Appends `rows` to `table` by the engine's fast path (COPY,
    /// multi-row INSERT, prepared inserts), inside the caller's
    /// transaction where the engine has one open.
    fn append(&mut self, table: &str, columns: &[&str], rows: &[Vec<V>]) -> Result<(), DbError>;
}

/// `sql` with each `?` outside quotes numbered `$1`, `$2`, ... (PostgreSQL).
pub fn dollar_params(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let (mut n, mut quoted) = (0, false);
    for c in sql.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_outside_quotes() {
        assert_eq!(
            dollar_params("SELECT a FROM t WHERE b = ? AND c = '?' AND d IN (?, ?)"),
            "SELECT a FROM t WHERE b = $1 AND c = '?' AND d IN ($2, $3)"
        );
    }

    #[test]
    fn values_read_as_numbers_and_text() {
        assert_eq!(V::S("12.50".into()).num(), Some(12.5));
        assert_eq!(V::S("3001".into()).int(), Some(3001));
        assert_eq!(V::S("7.00".into()).int(), Some(7));
        assert_eq!(V::F(2.5).int(), None);
        assert_eq!(V::I(4).num(), Some(4.0));
        assert!(V::Null.is_null() && V::Null.num().is_none());
    }
}
