//! The AS3AP data of the paper's Table 6.3: the five tables' columns, each
//! with the range, distribution and number of distinct values the paper
//! gives it, generated row by row and deterministically from the seed, and
//! the checksum every engine computes the same way from what it stored.
//!
//! The scaled tables (uniques, hundred, tenpct, updates) have N rows of
//! about 100 bytes (N = size / 400), generated in key order (the clustered
//! key's). Keys and the other integer columns follow the paper's ranges:
//! *dense* ranges hold every value of {0, 2, ..., N} (the value 1 left out
//! for not-found scans), *sparse* ones N distinct values of 0..=10^9 (or
//! ±5·10^8, ±10^9), one drawn at random in each of N equal strata of the
//! range (stratified uniform sampling: unique, uniform, and the same
//! values on every engine). Every non-key column takes its row's value
//! through its own seeded permutation of 0..N, so no column follows the
//! key. The values are integers, also in the float, double and decimal
//! columns (the paper's rule, so predicates select the same rows whatever
//! the type); floats are multiples of 64, which a 4-byte float holds
//! exactly.
//!
//! The marker values the queries' stated counts need are planted: one
//! row of each scaled table has code 'BENCHMARKS'; one row of uniques and
//! one of hundred address 'SILICON VALLEY'; 'THE+ASAP+BENCHMARKS+' is one
//! of tenpct's 10 names; uniques holds the keys 1000 and 5..9·10^8, tenpct
//! the key 1000 and the signed value 5·10^8; one hundred row has int 0.
//! Where the paper's constraints collide, docs/as3ap.md says what was
//! chosen (hundred's 'SILICON VALLEY' group has one row, so `join_2` finds
//! one tuple while `proj_100` still finds 100). `tiny` has one row, key 0.

use chrono::{NaiveDate, NaiveDateTime, TimeDelta};
use nodebench_core::names::db::table as names;
use nodebench_core::rng::splitmix64;

/// The version of the data this generator writes, recorded with the
/// checksums: `--reuse` refuses tables another version loaded. Version 1
/// was the generator with dense keys 1..N in every table.
pub const DATA_FORMAT: i64 = 2;

/// The code of the one row of each scaled table `sel_1_ncl` and the
/// `*_ncl` joins look for.
pub const BENCHMARKS: &str = "BENCHMARKS";

/// The address of the one row of uniques and of hundred `join_2` joins.
pub const SILICON_VALLEY: &str = "SILICON VALLEY";

/// The name of a tenth of tenpct's rows (`sel_10pct_ncl`,
/// `info_retrieval`).
pub const ASAP_NAME: &str = "THE+ASAP+BENCHMARKS+";

/// The keys uniques holds for `join_1_10`.
pub const JOIN_1_10_KEYS: [i64; 5] = [
    500_000_000,
    600_000_000,
    700_000_000,
    800_000_000,
    900_000_000,
];

/// The top of the sparse ranges: 0..=10^9.
pub const SPARSE_TOP: i64 = 1_000_000_000;

/// Distinct values of uniques' Zipf-distributed float (the paper gives
/// the distribution, not the count: all values of uniques cannot be both
/// unique and Zipf).
pub const UNIQUES_FLOAT_VALUES: u64 = 1000;

/// Distinct values of updates' Zipf-distributed float (Table 6.3: 10).
pub const UPDATES_FLOAT_VALUES: u64 = 10;

/// Standard deviation of the normally distributed doubles: a quarter of
/// the ±10^9 range, so the range holds 4 standard deviations either side.
pub const NORMAL_SIGMA: f64 = 2.5e8;

/// How a scaled table's columns repeat their values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distinct {
    /// Every value once (uniques, updates).
    Unique,
    /// 100 distinct, correlated values (hundred).
    Hundred,
    /// A tenth of the rows distinct (tenpct).
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

/// The five tables, in load order (hundred, whose `col_signed` refers to
/// updates' key, is dropped before updates).
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

    /// The columns of its primary (clustered) key: tenpct's is the paper's
    /// composite (key, code).
    pub fn primary_key(self) -> &'static str {
        if self.name == names::TENPCT {
            "col_key, col_code"
        } else {
            "col_key"
        }
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
    /// Key: dense {0, 2..N} (hundred, updates) or sparse in 0..=10^9.
    pub key: i64,
    /// Unsigned integer: dense (updates) or sparse in 0..=10^9.
    pub int: i64,
    /// Signed integer.
    pub signed: i64,
    /// Single-precision float (an integer, a multiple of 64).
    pub float: f32,
    /// Double (an integer).
    pub double: f64,
    /// Decimal with two places (an integer: `.00`).
    pub decim: f64,
    /// Date and time, whole seconds, 1900-01-01 to 2000-12-01 (text
    /// engines store [`Row::date_text`]).
    pub date: NaiveDateTime,
    /// 10 characters, unique in every table.
    pub code: String,
    /// 20 characters.
    pub name: String,
    /// 2 to 80 characters, 20 on average.
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
        self.date.format("%Y-%m-%d %H:%M:%S").to_string()
    }
}

/// The `j`-th value (0-based) of a dense range of `n` values: 0, then
/// 2..=n (the value 1 is missing).
pub fn dense_key(j: u64) -> i64 {
    if j == 0 { 0 } else { j as i64 + 1 }
}

/// The position of `key` in the dense range of `n` values, if it is one.
pub fn dense_index(key: i64, n: u64) -> Option<u64> {
    match key {
        0 => Some(0),
        k if k >= 2 && k as u64 <= n => Some(k as u64 - 1),
        _ => None,
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

/// The `j`-th of `k` equal strata of `lo..=hi`: `[a, b)`.
fn stratum(j: u64, k: u64, lo: i64, hi: i64) -> (i64, i64) {
    let span = (hi - lo + 1) as i128;
    let at = |j: u64| (lo as i128 + span * j as i128 / k as i128) as i64;
    (at(j), at(j + 1))
}

/// The stratum (of `k` equal strata of `lo..=hi`) that holds `v`.
fn stratum_of(v: i64, k: u64, lo: i64, hi: i64) -> u64 {
    let span = (hi - lo + 1) as i128;
    (((v - lo + 1) as i128 * k as i128 + span - 1) / span - 1) as u64
}

/// A value drawn by `h` in the `j`-th of `k` strata of `lo..=hi`: distinct
/// strata give distinct values, all strata together a uniform sample.
fn in_stratum(j: u64, k: u64, lo: i64, hi: i64, h: u64) -> i64 {
    let (a, b) = stratum(j, k, lo, hi);
    a + (h % (b - a).max(1) as u64) as i64
}

/// `v` rounded down to a multiple of 64 (a 4-byte float holds it exactly
/// up to 2^30).
fn float_exact(v: i64) -> f32 {
    (v - v.rem_euclid(64)) as f32
}

/// The standard normal quantile of `p` (0 < p < 1), Acklam's rational
/// approximation (relative error under 1.2e-9).
pub fn inverse_normal(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    const LOW: f64 = 0.02425;
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p <= 1.0 - LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    }
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

/// Seconds from 1900-01-01 to 2000-12-01, the dates' range.
fn date_span() -> i64 {
    let end = NaiveDate::from_ymd_opt(2000, 12, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .expect("a valid date");
    (end - epoch()).num_seconds()
}

/// Generates the rows of one scaled table, in key order.
#[derive(Debug, Clone)]
pub struct Generator {
    n: u64,
    distinct: Distinct,
    /// Uniques (not updates) among the [`Distinct::Unique`] tables.
    uniques: bool,
    seed: u64,
    next: u64,
    perms: [Permutation; 9],
    /// The cumulative weights of the Zipf float's ranks.
    zipf: Vec<f64>,
    /// The values planted in the sparse key.
    planted: Vec<i64>,
    dates: i64,
}

/// The salt of the integers `in_stratum` draws for column `c`.
fn salt(seed: u64, c: u64, j: u64) -> u64 {
    splitmix64(seed ^ splitmix64(c.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ j))
}

impl Generator {
    /// The rows of `table` (a scaled one) with `n` rows, from `seed`.
    pub fn new(table: Table, n: u64, seed: u64) -> Generator {
        let distinct = table.distinct.expect("a scaled table");
        let tseed = seed ^ splitmix64(table.name.bytes().fold(0u64, |h, b| h * 131 + b as u64));
        let mut perms = std::array::from_fn(|c| Permutation::new(n, tseed, c as u64 + 1));
        let uniques = table.name == names::UNIQUES;
        let updates = table.name == names::UPDATES;
        if updates {
            // remove_duplicate deletes `key = 6000 and int = 0`: the row
            // of key 6000 must not have int 0.
            let mut salt = 100;
            while perms[0].at(5999 % n) == 0 {
                perms[0] = Permutation::new(n, tseed, salt);
                salt += 1;
            }
        }
        let ranks = if uniques {
            UNIQUES_FLOAT_VALUES
        } else {
            UPDATES_FLOAT_VALUES
        };
        let mut zipf = Vec::new();
        if distinct == Distinct::Unique {
            let total: f64 = (1..=ranks).map(|r| 1.0 / r as f64).sum();
            let mut acc = 0.0;
            for r in 1..=ranks {
                acc += 1.0 / r as f64 / total;
                zipf.push(acc);
            }
        }
        let planted = match table.name {
            names::UNIQUES => [1000].into_iter().chain(JOIN_1_10_KEYS).collect(),
            names::TENPCT => vec![1000],
            _ => Vec::new(),
        };
        Generator {
            n,
            distinct,
            uniques,
            seed: tseed,
            next: 0,
            perms,
            zipf,
            planted,
            dates: date_span(),
        }
    }

    /// The `j`-th of n sparse values of 0..=10^9: 0 in the first stratum
    /// (so 1 is missing), a planted value in its stratum.
    fn sparse(&self, c: u64, j: u64, planted: &[i64]) -> i64 {
        if let Some(&p) = planted
            .iter()
            .find(|&&p| stratum_of(p, self.n, 0, SPARSE_TOP) == j)
        {
            return p;
        }
        if j == 0 {
            return 0;
        }
        in_stratum(j, self.n, 0, SPARSE_TOP, salt(self.seed, c, j))
    }

    /// The `j`-th of `k` values spread over `lo..=hi`.
    fn spread(&self, c: u64, j: u64, k: u64, lo: i64, hi: i64) -> i64 {
        in_stratum(j, k, lo, hi, salt(self.seed, c, j))
    }

    /// The Zipf float of quantile position `j` (of n).
    fn zipf_float(&self, j: u64) -> f32 {
        let u = (j as f64 + 0.5) / self.n as f64;
        let rank = self
            .zipf
            .partition_point(|&c| c <= u)
            .min(self.zipf.len() - 1) as u64;
        float_exact(self.spread(3, rank, self.zipf.len() as u64, -500_000_000, 500_000_000))
    }

    /// The normal double of quantile position `j` (of n).
    fn normal_double(&self, j: u64) -> f64 {
        let z = inverse_normal((j as f64 + 0.5) / self.n as f64);
        (z * NORMAL_SIGMA)
            .round()
            .clamp(-SPARSE_TOP as f64, SPARSE_TOP as f64)
    }

    /// A 20-character name, distinct for each `v` of `c`.
    fn name_of(&self, c: u64, v: u64) -> String {
        format!("{}{}", base36(v, 8), letters(salt(self.seed, c, v), 12))
    }

    /// An address of 6 to 34 characters (20 on average), distinct for
    /// each `v` of `c`.
    fn address_of(&self, c: u64, v: u64) -> String {
        let h = salt(self.seed, c, v);
        format!(
            "{}{}",
            base36(v, 6),
            letters(splitmix64(h), (h % 29) as usize)
        )
    }

    /// Row `i` (0-based, in key order).
    pub fn row(&self, i: u64) -> Row {
        let n = self.n;
        let p = |c: usize| self.perms[c].at(i);
        let date = epoch() + TimeDelta::seconds(self.spread(6, p(5), n, 0, self.dates - 1));
        let code = match p(6) {
            0 => BENCHMARKS.to_string(),
            j => format!("c{}", base36(j, 9)),
        };
        match self.distinct {
            Distinct::Unique => {
                let (key, int, float) = if self.uniques {
                    (
                        self.sparse(0, i, &self.planted),
                        self.sparse(1, p(0), &[]),
                        self.zipf_float(p(2)),
                    )
                } else {
                    (dense_key(i), dense_key(p(0)), self.zipf_float(p(2)))
                };
                Row {
                    key,
                    int,
                    signed: self.spread(2, p(1), n, -500_000_000, 500_000_000),
                    float,
                    double: self.normal_double(p(3)),
                    decim: self.spread(5, p(4), n, -SPARSE_TOP, SPARSE_TOP) as f64,
                    date,
                    code,
                    name: self.name_of(8, p(7)),
                    address: match p(8) {
                        0 if self.uniques => SILICON_VALLEY.to_string(),
                        j => self.address_of(9, j),
                    },
                }
            }
            Distinct::Hundred => {
                // One group per row: every non-unique column follows it
                // (correlated, so any projection of them has 100 rows).
                // Group 0 is one row, the 'SILICON VALLEY' of join_2.
                let g = match p(1) {
                    0 => 0,
                    q => 1 + (q - 1) % 99,
                } as i64;
                Row {
                    key: dense_key(i),
                    int: self.sparse(1, p(0), &[]),
                    signed: 100 + g,
                    float: float_exact(-500_000_000 + g * 10_000_000),
                    double: (-SPARSE_TOP + g * 20_000_000 + 10_000_000) as f64,
                    decim: (-SPARSE_TOP + g * 20_000_000 + 5_000_000) as f64,
                    date,
                    code,
                    name: self.name_of(8, g as u64),
                    address: match g {
                        0 => SILICON_VALLEY.to_string(),
                        g => self.address_of(9, g as u64),
                    },
                }
            }
            Distinct::TenPercent => {
                let k = (n / 10).max(1);
                let group = |c: usize| p(c) % k;
                let signed = match group(1) {
                    g if g == k - 1 => 500_000_000,
                    g => self.spread(2, g, k, -500_000_000, 500_000_000),
                };
                Row {
                    key: self.sparse(0, i, &self.planted),
                    int: self.sparse(1, p(0), &[]),
                    signed,
                    float: float_exact(self.spread(3, group(2), k, -500_000_000, 500_000_000)),
                    double: self.spread(4, group(3), k, -SPARSE_TOP, SPARSE_TOP) as f64,
                    decim: self.spread(5, group(4), k, -SPARSE_TOP, SPARSE_TOP) as f64,
                    date,
                    code,
                    name: match p(7) % 10 {
                        0 => ASAP_NAME.to_string(),
                        g => self.name_of(8, g),
                    },
                    address: self.address_of(9, group(8)),
                }
            }
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

/// 1900-01-01 00:00:00, where the dates start.
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
    fn strata_cover_the_range_and_find_their_values() {
        for (k, lo, hi) in [
            (10_000u64, 0, SPARSE_TOP),
            (104_857, -500_000_000, 500_000_000),
        ] {
            assert_eq!(stratum(0, k, lo, hi).0, lo);
            assert_eq!(stratum(k - 1, k, lo, hi).1, hi + 1);
            for v in [lo, lo + 1, 1000, 500_000_000, hi] {
                let (a, b) = stratum(stratum_of(v, k, lo, hi), k, lo, hi);
                assert!(a <= v && v < b, "{v} in [{a}, {b})");
            }
        }
    }

    #[test]
    fn the_normal_quantile_is_right() {
        assert!(inverse_normal(0.5).abs() < 1e-9);
        assert!((inverse_normal(0.975) - 1.959_964).abs() < 1e-5);
        assert!((inverse_normal(0.001) + 3.090_232).abs() < 1e-5);
        assert!((inverse_normal(0.9999) - 3.719_016).abs() < 1e-5);
    }

    fn rows(t: &str, n: u64) -> Vec<Row> {
        Generator::new(table(t), n, 1).collect()
    }

    fn distinct(rs: &[Row], f: impl Fn(&Row) -> String) -> usize {
        rs.iter().map(f).collect::<HashSet<_>>().len()
    }

    #[test]
    fn uniques_has_sparse_unique_columns_and_its_markers() {
        let n = 10_000;
        let u = rows(names::UNIQUES, n);
        assert_eq!(u.len(), 10_000);
        assert!(u.windows(2).all(|w| w[0].key < w[1].key), "key order");
        assert!(
            u.iter()
                .all(|r| (0..=SPARSE_TOP).contains(&r.key) && r.key != 1)
        );
        assert!(
            u.iter()
                .all(|r| (0..=SPARSE_TOP).contains(&r.int) && r.int != 1)
        );
        let keys: HashSet<i64> = u.iter().map(|r| r.key).collect();
        for k in [1000].iter().chain(&JOIN_1_10_KEYS) {
            assert!(keys.contains(k), "{k}");
        }
        // Sparse and uniform: about a tenth of the keys are <= 10^8.
        let tenth = u.iter().filter(|r| r.key <= 100_000_000).count();
        assert!((990..=1010).contains(&tenth), "{tenth}");
        for f in [
            &(|r: &Row| r.int.to_string()) as &dyn Fn(&Row) -> String,
            &|r| r.signed.to_string(),
            &|r| r.double.to_string(),
            &|r| r.decim.to_string(),
            &|r| r.date_text(),
            &|r| r.code.clone(),
            &|r| r.name.clone(),
            &|r| r.address.clone(),
        ] {
            assert_eq!(distinct(&u, f), 10_000);
        }
        assert!(u.iter().all(|r| r.signed.abs() <= 500_000_000));
        assert!(
            u.iter()
                .all(|r| r.decim.abs() <= 1e9 && r.decim.fract() == 0.0)
        );
        // Zipf: the top rank holds far more rows than the last.
        assert!(distinct(&u, |r| r.float.to_string()) <= UNIQUES_FLOAT_VALUES as usize);
        // Normal: about 68 % within one standard deviation.
        let within = u.iter().filter(|r| r.double.abs() <= NORMAL_SIGMA).count();
        assert!((6700..=6950).contains(&within), "{within}");
        assert_eq!(u.iter().filter(|r| r.code == BENCHMARKS).count(), 1);
        assert_eq!(u.iter().filter(|r| r.address == SILICON_VALLEY).count(), 1);
        assert!(u.iter().all(|r| r.code.len() == 10 && r.name.len() == 20));
        let mean = u.iter().map(|r| r.address.len()).sum::<usize>() as f64 / n as f64;
        assert!((18.0..22.0).contains(&mean), "{mean}");
        let first = u[0].date_text();
        assert!(
            u.iter().all(|r| r.date_text().as_str() >= "1900-01-01"
                && r.date_text().as_str() < "2000-12-01 00:00:01"),
            "{first}"
        );
    }

    #[test]
    fn hundred_has_100_correlated_values_and_one_silicon_valley() {
        let h = rows(names::HUNDRED, 10_000);
        let keys: Vec<i64> = h.iter().map(|r| r.key).collect();
        assert_eq!(keys[..3], [0, 2, 3]);
        assert_eq!(*keys.last().unwrap(), 10_000);
        assert_eq!(distinct(&h, |r| r.signed.to_string()), 100);
        assert!(h.iter().all(|r| (100..200).contains(&r.signed)));
        for f in [
            &(|r: &Row| r.name.clone()) as &dyn Fn(&Row) -> String,
            &|r| r.address.clone(),
            &|r| r.float.to_string(),
            &|r| r.double.to_string(),
            &|r| r.decim.to_string(),
            &|r| format!("{} {} {}", r.address, r.signed, r.name),
        ] {
            assert_eq!(distinct(&h, f), 100);
        }
        assert_eq!(h.iter().filter(|r| r.address == SILICON_VALLEY).count(), 1);
        assert_eq!(h.iter().filter(|r| r.int == 0).count(), 1);
        assert_eq!(h.iter().filter(|r| r.code == BENCHMARKS).count(), 1);
        assert_eq!(distinct(&h, |r| r.int.to_string()), 10_000);
    }

    #[test]
    fn tenpct_has_a_tenth_distinct_and_ten_names() {
        let t = rows(names::TENPCT, 10_000);
        for f in [
            &(|r: &Row| r.signed.to_string()) as &dyn Fn(&Row) -> String,
            &|r| r.float.to_string(),
            &|r| r.double.to_string(),
            &|r| r.decim.to_string(),
            &|r| r.address.clone(),
        ] {
            assert_eq!(distinct(&t, f), 1_000);
        }
        assert_eq!(distinct(&t, |r| r.name.clone()), 10);
        assert_eq!(t.iter().filter(|r| r.name == ASAP_NAME).count(), 1_000);
        assert_eq!(t.iter().filter(|r| r.signed == 500_000_000).count(), 10);
        assert!(t.iter().any(|r| r.key == 1000));
        assert_eq!(t.iter().filter(|r| r.code == BENCHMARKS).count(), 1);
    }

    #[test]
    fn updates_has_dense_keys_and_ints() {
        let u = rows(names::UPDATES, 10_000);
        let ints: HashSet<i64> = u.iter().map(|r| r.int).collect();
        assert_eq!(ints, (0..10_000).map(dense_key).collect());
        assert_eq!(u.iter().filter(|r| r.int <= 100).count(), 100);
        assert_eq!(
            u.iter().filter(|r| (1001..=1100).contains(&r.int)).count(),
            100
        );
        assert_ne!(u[dense_index(6000, 10_000).unwrap() as usize].int, 0);
        assert!(distinct(&u, |r| r.float.to_string()) <= 10);
        assert_eq!(distinct(&u, |r| r.double.to_string()), 10_000);
        assert_eq!(distinct(&u, |r| r.decim.to_string()), 10_000);
        assert_eq!(dense_index(1, 10_000), None);
        assert_eq!(dense_index(10_000, 10_000), Some(9_999));
    }

    #[test]
    fn the_seed_decides_the_data() {
        let a = Checksum::generated(table(names::UPDATES), 10_000, 1);
        assert_eq!(a, Checksum::generated(table(names::UPDATES), 10_000, 1));
        let b = Checksum::generated(table(names::UPDATES), 10_000, 2);
        assert_ne!(a.key_int, b.key_int);
        assert_ne!(a.key_signed, b.key_signed);
        assert_eq!(a.keys, 10_000 * 10_001 / 2 - 1);
        assert_eq!(a.keys, b.keys);
    }
}
