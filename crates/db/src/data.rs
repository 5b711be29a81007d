//! The AS3AP data: the five tables' columns and value distributions,
//! generated row by row and deterministically from the seed, and the
//! checksum every engine computes the same way from what it stored.
//!
//! The scaled tables (uniques, hundred, tenpct, updates) have N rows of
//! about 100 bytes (N = size / 400). `col_key` is dense, 1..N, in load
//! order (the clustered index), so the seed's key ranges (`col_key between
//! 1001 and 1100`) hit 100 rows. Every other column takes a value `v` from
//! its own seeded permutation of 0..N in uniques and updates (unique
//! values); in hundred every column follows one permuted `v mod 100` (100
//! distinct, correlated values, the signed ones 100..199), in tenpct `v mod
//! N/10` (10 % distinct). `col_int` is unique in every table (the
//! non-clustered `col_int between 1001 and 1100` also hits 100 rows). One row
//! of each scaled table (key N/2) has `col_code` = 'BENCHMARKS', the target
//! of `sel_1_ncl`. `tiny` has one row, `col_key` 0.

use chrono::{NaiveDate, NaiveDateTime, TimeDelta};
use nodebench_core::names::db::table as names;
use nodebench_core::rng::splitmix64;

/// The code of the one row `sel_1_ncl` looks for.
pub const BENCHMARKS: &str = "BENCHMARKS";

/// How a scaled table's columns repeat their values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distinct {
    /// Every value once.
    Unique,
    /// 100 distinct values.
    Hundred,
    /// A tenth of the rows distinct.
    TenPercent,
}

/// One AS3AP table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    /// Its name.
    pub name: &'static str,
    /// How its columns repeat; `None` for tiny.
    pub distinct: Option<Distinct>,
}

/// The five tables, in load order.
pub const TABLES: [Table; 5] = [
    Table {
        name: names::UNIQUES,
        distinct: Some(Distinct::Unique),
    },
    Table {
        name: names::HUNDRED,
        distinct: Some(Distinct::Hundred),
    },
    Table {
        name: names::TENPCT,
        distinct: Some(Distinct::TenPercent),
    },
    Table {
        name: names::UPDATES,
        distinct: Some(Distinct::Unique),
    },
    Table {
        name: names::TINY,
        distinct: None,
    },
];

/// The table named `name`.
pub fn table(name: &str) -> Table {
    TABLES
        .into_iter()
        .find(|t| t.name == name)
        .expect("an AS3AP table name")
}

impl Table {
    /// Rows this table has when the scaled tables have `n`.
    pub fn rows(self, n: u64) -> u64 {
        if self.distinct.is_some() { n } else { 1 }
    }
}

/// The columns of the scaled tables, in order.
pub const COLUMNS: [&str; 10] = [
    "col_key",
    "col_int",
    "col_signed",
    "col_float",
    "col_double",
    "col_decim",
    "col_date",
    "col_code",
    "col_name",
    "col_address",
];

/// One row of a scaled table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Dense key 1..N.
    pub key: i64,
    /// Unique integer 1..N, in random order.
    pub int: i64,
    /// Signed integer.
    pub signed: i64,
    /// Single-precision float.
    pub float: f32,
    /// Double.
    pub double: f64,
    /// Decimal with two places (its value is exact in binary: x.25).
    pub decim: f64,
    /// Date and time, whole minutes (text engines store
    /// [`Row::date_text`]).
    pub date: NaiveDateTime,
    /// 10 characters.
    pub code: String,
    /// 20 characters.
    pub name: String,
    /// 8 to 32 characters, 20 on average.
    pub address: String,
}

impl Row {
    /// `col_decim` as the text a NUMERIC(18,2) column takes.
    pub fn decim_text(&self) -> String {
        format!("{:.2}", self.decim)
    }

    /// `col_decim` in hundredths (exact: the value has two places).
    pub fn decim_cents(&self) -> i64 {
        (self.decim * 100.0).round() as i64
    }

    /// `col_date` as `YYYY-MM-DD HH:MM:SS`, the text every engine takes.
    pub fn date_text(&self) -> String {
        use chrono::{Datelike, Timelike};
        let d = self.date;
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            d.year(),
            d.month(),
            d.day(),
            d.hour(),
            d.minute(),
            d.second()
        )
    }
}

/// A bijection of 0..n: `(a*i + b) mod n` with `a` coprime to `n`, drawn
/// from the seed and a per-column salt.
#[derive(Debug, Clone, Copy)]
struct Permutation {
    n: u64,
    a: u64,
    b: u64,
}

impl Permutation {
    fn new(n: u64, seed: u64, salt: u64) -> Permutation {
        let h = splitmix64(seed ^ splitmix64(salt));
        let mut a = (h % n).max(1) | 1;
        while gcd(a, n) != 1 {
            a = a % n + 2;
        }
        Permutation {
            n,
            a,
            b: splitmix64(h) % n,
        }
    }

    fn at(&self, i: u64) -> u64 {
        ((self.a as u128 * i as u128 + self.b as u128) % self.n as u128) as u64
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

const BASE36: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// `v` in base 36, `width` digits (wrapping above 36^width).
fn base36(mut v: u64, width: usize) -> String {
    let mut out = vec![b'0'; width];
    for c in out.iter_mut().rev() {
        *c = BASE36[(v % 36) as usize];
        v /= 36;
    }
    String::from_utf8(out).expect("ASCII")
}

/// `len` letters drawn from `h`.
fn letters(mut h: u64, len: usize) -> String {
    (0..len)
        .map(|i| {
            if i % 12 == 11 {
                h = splitmix64(h);
            }
            let c = b'a' + (h % 26) as u8;
            h /= 26;
            c as char
        })
        .collect()
}

/// Generates the rows of one scaled table, in key order.
#[derive(Debug, Clone)]
pub struct Generator {
    n: u64,
    distinct: Distinct,
    seed: u64,
    next: u64,
    perms: [Permutation; 9],
}

impl Generator {
    /// The rows of `table` (a scaled one) with `n` rows, from `seed`.
    pub fn new(table: Table, n: u64, seed: u64) -> Generator {
        let distinct = table.distinct.expect("a scaled table");
        let salt = splitmix64(table.name.bytes().fold(0u64, |h, b| h * 131 + b as u64));
        let perms = std::array::from_fn(|c| Permutation::new(n, seed ^ salt, c as u64 + 1));
        Generator {
            n,
            distinct,
            seed,
            next: 0,
            perms,
        }
    }

    /// The value of column `c` (1..=9) of row `i`, repeated as the table's
    /// distribution says.
    fn value(&self, c: usize, i: u64) -> u64 {
        match self.distinct {
            Distinct::Unique => self.perms[c - 1].at(i),
            // Correlated, as the spec has them: a row's columns all follow
            // one value, so `distinct col_address, col_signed` is 100 rows.
            Distinct::Hundred => self.perms[1].at(i) % 100,
            Distinct::TenPercent => self.perms[1].at(i) % (self.n / 10).max(1),
        }
    }

    /// Row `i` (0-based; its key is `i + 1`).
    pub fn row(&self, i: u64) -> Row {
        let n = self.n as i64;
        let signed = self.value(2, i) as i64;
        let signed = match self.distinct {
            Distinct::Unique => signed - n / 2,
            Distinct::Hundred => signed + 100,
            Distinct::TenPercent => signed - n / 20,
        };
        let fv = self.value(3, i) as f64;
        let dv = self.value(4, i) as f64;
        let mv = self.value(5, i) as f64;
        let date = epoch() + TimeDelta::minutes(7 * self.value(6, i) as i64);
        let cv = self.value(7, i);
        let code = if i == self.n / 2 {
            BENCHMARKS.to_string()
        } else {
            format!("c{}", base36(cv, 9))
        };
        let nv = self.value(8, i);
        let name = format!(
            "{}{}",
            base36(nv, 8),
            letters(splitmix64(nv ^ self.seed), 12)
        );
        let av = self.value(9, i);
        let h = splitmix64(av.wrapping_add(0x9e37) ^ self.seed);
        let address = format!(
            "{}{}",
            base36(av, 6),
            letters(splitmix64(h), 2 + (h % 25) as usize)
        );
        Row {
            key: i as i64 + 1,
            // Always unique: the non-clustered 100-row ranges need it.
            int: self.perms[0].at(i) as i64 + 1,
            signed,
            float: (fv * 0.5 - n as f64 / 4.0) as f32,
            double: dv * 1.25 - n as f64 / 2.0,
            decim: mv + 0.25 - (n / 2) as f64,
            date,
            code,
            name,
            address,
        }
    }
}

impl Iterator for Generator {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        if self.next >= self.n {
            return None;
        }
        let r = self.row(self.next);
        self.next += 1;
        Some(r)
    }
}

/// 1900-01-01 00:00:00, where the dates start (the spec's range begins in
/// 1900).
fn epoch() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(1900, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .expect("a valid date")
}

/// The modulus of the checksum's weighted sums (a prime): keeps each
/// term small, so no engine's sum overflows.
pub const CHECKSUM_MODULUS: i64 = 1_000_003;

/// What every engine computes over a table to check its contents: the row
/// count, the sums of `col_key` and `col_signed`, the weighted sums
/// `(col_key * col_int) mod p` and `(col_key * col_signed) mod p` (which
/// tell one permutation from another, where plain sums cannot) and the sum
/// of the address lengths; tiny: count and `col_key`. Integers only, so
/// every engine computes the same figures exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Checksum {
    /// Rows.
    pub rows: i64,
    /// Sum of `col_key`.
    pub keys: i64,
    /// Sum of `col_signed`.
    pub signed: i64,
    /// Sum of `(col_key * col_int) mod p`.
    pub key_int: i64,
    /// Sum of `(col_key * col_signed) mod p` (the sign of the product kept,
    /// as SQL's `%` keeps it).
    pub key_signed: i64,
    /// Sum of the addresses' lengths.
    pub address_len: i64,
}

impl Checksum {
    /// Adds one generated row.
    pub fn add(&mut self, r: &Row) {
        self.rows += 1;
        self.keys += r.key;
        self.signed += r.signed;
        self.key_int += (r.key * r.int) % CHECKSUM_MODULUS;
        self.key_signed += (r.key * r.signed) % CHECKSUM_MODULUS;
        self.address_len += r.address.len() as i64;
    }

    /// The checksum of the whole of `table` as generated.
    pub fn generated(table: Table, n: u64, seed: u64) -> Checksum {
        if table.distinct.is_none() {
            return Checksum {
                rows: 1,
                ..Checksum::default()
            };
        }
        let mut c = Checksum::default();
        for r in Generator::new(table, n, seed) {
            c.add(&r);
        }
        c
    }

    /// The query that computes it from the stored table (its one row has
    /// the six figures in this struct's order); `bigint` is the engine's
    /// name of a 64-bit integer in a CAST.
    pub fn query(table: Table, bigint: &str) -> String {
        if table.distinct.is_some() {
            format!(
                "SELECT COUNT(*), CAST(SUM(col_key) AS {bigint}), CAST(SUM(col_signed) AS {bigint}), \
                 CAST(SUM((CAST(col_key AS {bigint}) * col_int) % {CHECKSUM_MODULUS}) AS {bigint}), \
                 CAST(SUM((CAST(col_key AS {bigint}) * col_signed) % {CHECKSUM_MODULUS}) AS {bigint}), \
                 CAST(SUM(LENGTH(col_address)) AS {bigint}) FROM {}",
                table.name
            )
        } else {
            format!(
                "SELECT COUNT(*), SUM(col_key), 0, 0, 0, 0 FROM {}",
                table.name
            )
        }
    }

    /// From the query's six figures (a NULL sum is 0).
    pub fn from_figures(f: &[Option<i64>]) -> Checksum {
        let at = |i: usize| f.get(i).copied().flatten().unwrap_or(0);
        Checksum {
            rows: at(0),
            keys: at(1),
            signed: at(2),
            key_int: at(3),
            key_signed: at(4),
            address_len: at(5),
        }
    }

    /// The six figures, in the query's order.
    pub fn figures(&self) -> [i64; 6] {
        [
            self.rows,
            self.keys,
            self.signed,
            self.key_int,
            self.key_signed,
            self.address_len,
        ]
    }

    /// As one text, for messages.
    pub fn text(&self) -> String {
        self.figures().map(|f| f.to_string()).join(":")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn permutations_are_bijections() {
        for n in [10_000u64, 10_007, 104_857] {
            let p = Permutation::new(n, 7, 3);
            let seen: HashSet<u64> = (0..n).map(|i| p.at(i)).collect();
            assert_eq!(seen.len() as u64, n);
        }
    }

    #[test]
    fn distributions_follow_the_spec() {
        let n = 10_000;
        let rows = |t: &str| Generator::new(table(t), n, 1).collect::<Vec<_>>();
        let distinct =
            |rs: &[Row], f: &dyn Fn(&Row) -> String| rs.iter().map(f).collect::<HashSet<_>>().len();
        let u = rows(names::UNIQUES);
        assert_eq!(u.len(), 10_000);
        assert_eq!(u.first().unwrap().key, 1);
        assert_eq!(u.last().unwrap().key, 10_000);
        for f in [
            &(|r: &Row| r.int.to_string()) as &dyn Fn(&Row) -> String,
            &|r| r.signed.to_string(),
            &|r| r.double.to_string(),
            &|r| r.date_text(),
            &|r| r.code.clone(),
            &|r| r.name.clone(),
        ] {
            assert_eq!(distinct(&u, f), 10_000);
        }
        assert_eq!(u.iter().filter(|r| r.code == BENCHMARKS).count(), 1);
        assert!(u.iter().all(|r| r.code.len() == 10 && r.name.len() == 20));
        let mean_address = u.iter().map(|r| r.address.len()).sum::<usize>() as f64 / u.len() as f64;
        assert!((18.0..22.0).contains(&mean_address), "{mean_address}");
        let h = rows(names::HUNDRED);
        assert_eq!(distinct(&h, &|r| r.signed.to_string()), 100);
        assert!(h.iter().all(|r| (100..200).contains(&r.signed)));
        assert_eq!(distinct(&h, &|r| r.name.clone()), 100);
        assert_eq!(distinct(&h, &|r| r.int.to_string()), 10_000);
        let t = rows(names::TENPCT);
        assert_eq!(distinct(&t, &|r| r.signed.to_string()), 1_000);
        assert_eq!(distinct(&t, &|r| r.address.clone()), 1_000);
        let ranged = h.iter().filter(|r| (1001..=1100).contains(&r.int)).count();
        assert_eq!(ranged, 100);
    }

    #[test]
    fn the_seed_decides_the_data() {
        let a = Checksum::generated(table(names::UPDATES), 10_000, 1);
        assert_eq!(a, Checksum::generated(table(names::UPDATES), 10_000, 1));
        let b = Checksum::generated(table(names::UPDATES), 10_000, 2);
        assert_ne!(a.key_int, b.key_int);
        assert_ne!(a.key_signed, b.key_signed);
        assert_eq!(a.keys, 10_000 * 10_001 / 2);
        assert_eq!(a.keys, b.keys);
    }
}
