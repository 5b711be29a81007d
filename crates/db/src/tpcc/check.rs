//! The consistency conditions of clause 3.3.2, checked after the run (and
//! before `--reuse` keeps tables): 3.3.2.1 to 3.3.2.4, and 3.3.2.8 and
//! 3.3.2.9 (warehouse and district YTD against HISTORY). Money is
//! compared to the cent: SQLite keeps DECIMAL columns as floating point.

use std::collections::BTreeMap;

use crate::engine::DbError;
use crate::engine::sql::{Sql, V};

/// One condition's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The clause, `3.3.2.1` ...
    pub clause: &'static str,
    /// The first violation, `None` where the condition held everywhere.
    pub violation: Option<String>,
}

/// Half a cent: money within it is equal.
const CENT: f64 = 0.005;

/// Rows of `sql` as `(w, d) -> the other columns`.
fn by_district(s: &mut dyn Sql, sql: &str) -> Result<BTreeMap<(i64, i64), Vec<V>>, DbError> {
    let mut out = BTreeMap::new();
    for r in s.query(sql, &[])? {
        let key = (r[0].int().unwrap_or(-1), r[1].int().unwrap_or(-1));
        out.insert(key, r[2..].to_vec());
    }
    Ok(out)
}

/// Rows of `sql` as `w -> the other columns`.
fn by_warehouse(s: &mut dyn Sql, sql: &str) -> Result<BTreeMap<i64, Vec<V>>, DbError> {
    let mut out = BTreeMap::new();
    for r in s.query(sql, &[])? {
        out.insert(r[0].int().unwrap_or(-1), r[1..].to_vec());
    }
    Ok(out)
}

/// Money equal to the cent (a missing side is 0).
fn same_money(a: Option<&V>, b: Option<&V>) -> bool {
    let n = |v: Option<&V>| v.and_then(V::num).unwrap_or(0.0);
    (n(a) - n(b)).abs() < CENT
}

/// Checks every condition, in clause order.
pub fn run(s: &mut dyn Sql) -> Result<Vec<Verdict>, DbError> {
    let mut out = Vec::new();
    // 3.3.2.1: W_YTD = sum(D_YTD).
    let w = by_warehouse(s, "SELECT w_id, w_ytd FROM warehouse")?;
    let d = by_warehouse(s, "SELECT d_w_id, SUM(d_ytd) FROM district GROUP BY d_w_id")?;
    let violation = w.iter().find_map(|(id, v)| {
        let sum = d.get(id).map(|r| &r[0]);
        (!same_money(v.first(), sum)).then(|| {
            format!(
                "warehouse {id}: w_ytd {:?} but sum(d_ytd) {:?}",
                v.first(),
                sum
            )
        })
    });
    out.push(Verdict {
        clause: "3.3.2.1",
        violation,
    });
    // 3.3.2.2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID).
    let next = by_district(s, "SELECT d_w_id, d_id, d_next_o_id FROM district")?;
    let max_o = by_district(
        s,
        "SELECT o_w_id, o_d_id, MAX(o_id) FROM orders GROUP BY o_w_id, o_d_id",
    )?;
    let no = by_district(
        s,
        "SELECT no_w_id, no_d_id, MAX(no_o_id), MIN(no_o_id), COUNT(*) FROM new_order GROUP BY no_w_id, no_d_id",
    )?;
    let violation = next.iter().find_map(|(k, v)| {
        let last = v[0].int().unwrap_or(0) - 1;
        let o = max_o.get(k).and_then(|r| r[0].int());
        let n = no.get(k).and_then(|r| r[0].int());
        // No outstanding new orders: the NEW-ORDER side does not apply.
        (o != Some(last) || n.is_some_and(|n| n != last)).then(|| {
            format!(
                "district {}/{}: d_next_o_id - 1 = {last}, max(o_id) = {o:?}, max(no_o_id) = {n:?}",
                k.0, k.1
            )
        })
    });
    out.push(Verdict {
        clause: "3.3.2.2",
        violation,
    });
    // 3.3.2.3: max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER.
    let violation = no.iter().find_map(|(k, v)| {
        let (max, min, n) = (v[0].int(), v[1].int(), v[2].int());
        let span = max.zip(min).map(|(a, b)| a - b + 1);
        (span != n).then(|| {
            format!(
                "district {}/{}: max - min + 1 = {span:?} but {n:?} new orders",
                k.0, k.1
            )
        })
    });
    out.push(Verdict {
        clause: "3.3.2.3",
        violation,
    });
    // 3.3.2.4: sum(O_OL_CNT) = rows in ORDER-LINE.
    let cnt = by_district(
        s,
        "SELECT o_w_id, o_d_id, SUM(o_ol_cnt) FROM orders GROUP BY o_w_id, o_d_id",
    )?;
    let lines = by_district(
        s,
        "SELECT ol_w_id, ol_d_id, COUNT(*) FROM order_line GROUP BY ol_w_id, ol_d_id",
    )?;
    let violation = next.keys().find_map(|k| {
        let a = cnt.get(k).and_then(|r| r[0].int()).unwrap_or(0);
        let b = lines.get(k).and_then(|r| r[0].int()).unwrap_or(0);
        (a != b).then(|| {
            format!(
                "district {}/{}: sum(o_ol_cnt) = {a} but {b} order lines",
                k.0, k.1
            )
        })
    });
    out.push(Verdict {
        clause: "3.3.2.4",
        violation,
    });
    // 3.3.2.8: W_YTD = sum(H_AMOUNT) of the warehouse.
    let h = by_warehouse(
        s,
        "SELECT h_w_id, SUM(h_amount) FROM history GROUP BY h_w_id",
    )?;
    let violation = w.iter().find_map(|(id, v)| {
        let sum = h.get(id).map(|r| &r[0]);
        (!same_money(v.first(), sum)).then(|| {
            format!(
                "warehouse {id}: w_ytd {:?} but sum(h_amount) {:?}",
                v.first(),
                sum
            )
        })
    });
    out.push(Verdict {
        clause: "3.3.2.8",
        violation,
    });
    // 3.3.2.9: D_YTD = sum(H_AMOUNT) of the district.
    let dy = by_district(s, "SELECT d_w_id, d_id, d_ytd FROM district")?;
    let hd = by_district(
        s,
        "SELECT h_w_id, h_d_id, SUM(h_amount) FROM history GROUP BY h_w_id, h_d_id",
    )?;
    let violation = dy.iter().find_map(|(k, v)| {
        let sum = hd.get(k).map(|r| &r[0]);
        (!same_money(v.first(), sum)).then(|| {
            format!(
                "district {}/{}: d_ytd {:?} but sum(h_amount) {:?}",
                k.0,
                k.1,
                v.first(),
                sum
            )
        })
    });
    out.push(Verdict {
        clause: "3.3.2.9",
        violation,
    });
    Ok(out)
}
