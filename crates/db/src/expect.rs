//! The row counts the generated data implies for the single-user queries
//! whose count depends on the drawn values (the fixed ones, 1, 10, 100,
//! 1000, are the dense ranges' and the planted markers' and sit with the
//! queries): one pass over the generated uniques, tenpct and updates.

use nodebench_core::names::db::table as names;

use crate::data::{ASAP_NAME, Generator, JOIN_1_10_KEYS, table};

/// `variable_select`'s program variable, first run (the index should be
/// used: few rows).
pub const VARIABLE_LOW: i64 = -500_000_000;
/// `variable_select`'s program variable, second run (a quarter of the
/// rows: a scan).
pub const VARIABLE_HIGH: i64 = -250_000_000;
/// The `decim` bound of `simple_report` and the reports.
pub const REPORT_DECIM: i64 = 980_000_000;

/// What the generated data gives the data-dependent queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Facts {
    /// Rows per scaled table.
    pub rows: u64,
    /// `scal_agg`: the smallest key of uniques.
    pub uniques_min_key: i64,
    /// `sel_10pct_cl`: uniques rows with key <= 10^8.
    pub uniques_key_tenth: u64,
    /// `sel_10pct_ncl`: tenpct rows named 'THE+ASAP+BENCHMARKS+'.
    pub tenpct_asap: u64,
    /// `variable_select`, first run: tenpct rows with signed < -5·10^8.
    pub variable_low: u64,
    /// `variable_select`, second run: tenpct rows with signed < -2.5·10^8.
    pub variable_high: u64,
    /// `proj_10pct`: distinct signed values of tenpct.
    pub tenpct_signed_values: u64,
    /// `info_retrieval`'s count.
    pub info_retrieval: i64,
    /// `join_1_10`: tenpct rows whose signed is one of the five uniques
    /// keys.
    pub join_1_10: u64,
    /// `subtotal_report`: updates rows with decim > 980,000,000 (one group
    /// each: hundred's code is unique).
    pub report_rows: u64,
}

impl Facts {
    /// The figures of the data `seed` generates with `n` rows per table.
    pub fn of(n: u64, seed: u64) -> Facts {
        let mut f = Facts {
            rows: n,
            uniques_min_key: i64::MAX,
            ..Facts::default()
        };
        for r in Generator::new(table(names::UNIQUES), n, seed) {
            f.uniques_min_key = f.uniques_min_key.min(r.key);
            f.uniques_key_tenth += u64::from(r.key <= 100_000_000);
        }
        let mut signed = std::collections::HashSet::new();
        for r in Generator::new(table(names::TENPCT), n, seed) {
            let asap = r.name == ASAP_NAME;
            f.tenpct_asap += u64::from(asap);
            f.variable_low += u64::from(r.signed < VARIABLE_LOW);
            f.variable_high += u64::from(r.signed < VARIABLE_HIGH);
            signed.insert(r.signed);
            f.join_1_10 += u64::from(JOIN_1_10_KEYS.contains(&r.signed));
            let float = f64::from(r.float);
            f.info_retrieval += i64::from(
                asap && r.int <= 100_000_000
                    && (1..=99_999_999).contains(&r.signed)
                    && !(-450_000_000.0..=450_000_000.0).contains(&float)
                    && r.double > 600_000_000.0
                    && r.decim < -600_000_000.0,
            );
        }
        f.tenpct_signed_values = signed.len() as u64;
        for r in Generator::new(table(names::UPDATES), n, seed) {
            f.report_rows += u64::from(r.decim > REPORT_DECIM as f64);
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counts_are_near_the_papers_selectivities() {
        let f = Facts::of(10_000, 1);
        assert_eq!(f.tenpct_asap, 1_000);
        assert_eq!(f.tenpct_signed_values, 1_000);
        assert_eq!(f.variable_low, 0);
        assert!((2_300..=2_700).contains(&f.variable_high), "{f:?}");
        assert!((900..=1_100).contains(&f.uniques_key_tenth), "{f:?}");
        assert!((70..=130).contains(&f.report_rows), "{f:?}");
        // One tenpct signed group is 5·10^8, the one uniques key of the
        // five that signed's ±5·10^8 reaches: 10 rows.
        assert_eq!(f.join_1_10, 10);
        assert_eq!(f.uniques_min_key, 1000);
    }
}
