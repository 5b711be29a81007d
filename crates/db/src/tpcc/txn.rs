//! The five transactions of clause 2: their inputs drawn by a terminal
//! (clauses 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1), then their database
//! work, one database transaction each. The inputs are drawn once, before
//! the first try, so a retried transaction is the same transaction.

use std::collections::HashMap;

use super::random::{A_C_ID, A_OL_I_ID, Constants, Rng, last_name};
use crate::engine::DbError;
use crate::engine::sql::{Sql, V};

/// What a terminal's transactions draw from.
#[derive(Debug, Clone)]
pub struct Scale {
    /// Warehouses.
    pub warehouses: u64,
    /// Items.
    pub items: u64,
    /// Customers per district.
    pub customers: u64,
    /// Customers with sequential last names (the range of names drawn).
    pub named: u64,
    /// The run's NURand constants.
    pub c: Constants,
}

/// Which customer: by id, or by last name (the middle one of those with
/// it, ordered by first name).
#[derive(Debug, Clone, PartialEq)]
pub enum Who {
    /// C_ID.
    Id(i64),
    /// C_LAST.
    Last(String),
}

/// One order line's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// OL_I_ID (an unused id in a rolled-back order's last line).
    pub item: i64,
    /// OL_SUPPLY_W_ID.
    pub supply_w: i64,
    /// OL_QUANTITY.
    pub quantity: i64,
}

/// A transaction's drawn input.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// New-Order.
    NewOrder {
        /// W_ID, D_ID, C_ID.
        w: i64,
        d: i64,
        c: i64,
        /// The lines.
        lines: Vec<Line>,
    },
    /// Payment.
    Payment {
        /// The terminal's warehouse and a district of it.
        w: i64,
        d: i64,
        /// The customer's warehouse and district.
        c_w: i64,
        c_d: i64,
        who: Who,
        /// H_AMOUNT.
        amount: f64,
    },
    /// Order-Status.
    OrderStatus { w: i64, d: i64, who: Who },
    /// Delivery.
    Delivery { w: i64, carrier: i64 },
    /// Stock-Level.
    StockLevel { w: i64, d: i64, threshold: i64 },
}

/// How a transaction ended, when it did not fail.
#[derive(Debug, Clone, PartialEq)]
pub enum Done {
    /// Committed; what it read that tests look at.
    Committed(Output),
    /// New-Order rolled back on its unused item (clause 2.4.2.3).
    RolledBack,
}

/// What a committed transaction found (for the tests; the driver only
/// counts).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    /// New-Order: O_ID; Order-Status: the customer's last O_ID.
    pub order: Option<i64>,
    /// The customer Payment or Order-Status picked.
    pub customer: Option<i64>,
    /// Delivery: the order delivered in each district (None: none left).
    pub delivered: Vec<Option<i64>>,
    /// Stock-Level: the low-stock count; Order-Status: its lines.
    pub count: i64,
}

/// A customer by NURand(1023, 1, customers).
fn customer_id(r: &mut Rng, s: &Scale) -> i64 {
    r.nurand(A_C_ID, s.c.c_id, 1, s.customers) as i64
}

/// 60 % by last name (NURand(255, 0, 999) at the run's C), else by id.
fn who(r: &mut Rng, s: &Scale) -> Who {
    if r.int(1, 100) <= 60 {
        Who::Last(last_name(r.nurand(255, s.c.c_last, 0, s.named - 1)))
    } else {
        Who::Id(customer_id(r, s))
    }
}

/// A warehouse other than `w` (W > 1).
fn other_warehouse(r: &mut Rng, s: &Scale, w: i64) -> i64 {
    let o = r.int(1, s.warehouses - 1) as i64;
    if o >= w { o + 1 } else { o }
}

/// New-Order's input (clause 2.4.1) for the terminal's warehouse `w`.
pub fn new_order(r: &mut Rng, s: &Scale, w: i64) -> Input {
    let d = r.int(1, 10) as i64;
    let c = customer_id(r, s);
    let n = r.int(5, 15);
    let rollback = r.int(1, 100) == 1;
    let lines = (0..n)
        .map(|i| {
            let item = if rollback && i == n - 1 {
                s.items as i64 + 1
            } else {
                r.nurand(A_OL_I_ID, s.c.ol_i_id, 1, s.items) as i64
            };
            let supply_w = if s.warehouses > 1 && r.int(1, 100) == 1 {
                other_warehouse(r, s, w)
            } else {
                w
            };
            Line {
                item,
                supply_w,
                quantity: r.int(1, 10) as i64,
            }
        })
        .collect();
    Input::NewOrder { w, d, c, lines }
}

/// Payment's input (clause 2.5.1).
pub fn payment(r: &mut Rng, s: &Scale, w: i64) -> Input {
    let d = r.int(1, 10) as i64;
    let (c_w, c_d) = if s.warehouses > 1 && r.int(1, 100) > 85 {
        (other_warehouse(r, s, w), r.int(1, 10) as i64)
    } else {
        (w, d)
    };
    let who = who(r, s);
    Input::Payment {
        w,
        d,
        c_w,
        c_d,
        who,
        amount: r.decimal(1.0, 5000.0, 2),
    }
}

/// Order-Status's input (clause 2.6.1).
pub fn order_status(r: &mut Rng, s: &Scale, w: i64) -> Input {
    let d = r.int(1, 10) as i64;
    Input::OrderStatus {
        w,
        d,
        who: who(r, s),
    }
}

/// Delivery's input (clause 2.7.1).
pub fn delivery(r: &mut Rng, w: i64) -> Input {
    Input::Delivery {
        w,
        carrier: r.int(1, 10) as i64,
    }
}

/// Stock-Level's input (clause 2.8.1) for the terminal's district `d`.
pub fn stock_level(r: &mut Rng, w: i64, d: i64) -> Input {
    Input::StockLevel {
        w,
        d,
        threshold: r.int(10, 20) as i64,
    }
}

/// Statements whose text depends on a count or a district, built once per
/// terminal.
#[derive(Debug, Default)]
pub struct Texts {
    items: HashMap<usize, String>,
    stock: HashMap<(i64, usize), String>,
    lines: HashMap<usize, String>,
}

/// `(?, ?, ...)` of `n` marks; `group` marks a group.
fn marks(n: usize, group: &str) -> String {
    vec![group; n].join(", ")
}

impl Texts {
    fn items(&mut self, n: usize) -> &str {
        self.items.entry(n).or_insert_with(|| {
            format!(
                "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN ({})",
                marks(n, "?")
            )
        })
    }

    fn stock(&mut self, d: i64, n: usize) -> &str {
        self.stock.entry((d, n)).or_insert_with(|| {
            format!(
                "SELECT s_w_id, s_i_id, s_quantity, s_data, s_dist_{d:02} FROM stock WHERE (s_w_id, s_i_id) IN ({}) FOR UPDATE",
                marks(n, "(?, ?)")
            )
        })
    }

    fn lines(&mut self, n: usize) -> &str {
        self.lines.entry(n).or_insert_with(|| {
            format!(
                "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES {}",
                marks(n, "(?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)")
            )
        })
    }
}

/// A column as an integer, or an error naming it.
fn int(v: &V, what: &str) -> Result<i64, DbError> {
    v.int()
        .ok_or_else(|| DbError::other(format!("{what}: expected an integer, got {v:?}")))
}

/// A column as a number, or an error naming it.
fn num(v: &V, what: &str) -> Result<f64, DbError> {
    v.num()
        .ok_or_else(|| DbError::other(format!("{what}: expected a number, got {v:?}")))
}

/// Money rounded to cents, as the DECIMAL(…, 2) columns hold it.
fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Runs `input` in one transaction: begin, the work, commit (New-Order's
/// unused item: rollback). On an error the transaction is rolled back
/// and the error returned.
pub fn run(s: &mut dyn Sql, t: &mut Texts, input: &Input) -> Result<Done, DbError> {
    let writes = !matches!(input, Input::OrderStatus { .. } | Input::StockLevel { .. });
    s.begin(writes)?;
    let done = match input {
        Input::NewOrder { w, d, c, lines } => new_order_work(s, t, *w, *d, *c, lines),
        Input::Payment {
            w,
            d,
            c_w,
            c_d,
            who,
            amount,
        } => payment_work(s, *w, *d, *c_w, *c_d, who, *amount),
        Input::OrderStatus { w, d, who } => order_status_work(s, *w, *d, who),
        Input::Delivery { w, carrier } => delivery_work(s, *w, *carrier),
        Input::StockLevel { w, d, threshold } => stock_level_work(s, *w, *d, *threshold),
    };
    match done {
        Ok(Done::RolledBack) => {
            s.rollback()?;
            Ok(Done::RolledBack)
        }
        Ok(d) => {
            if let Err(e) = s.commit() {
                let _ = s.rollback();
                return Err(e);
            }
            Ok(d)
        }
        Err(e) => {
            let _ = s.rollback();
            Err(e)
        }
    }
}

/// New-Order's work (clause 2.4.2.2).
fn new_order_work(
    s: &mut dyn Sql,
    t: &mut Texts,
    w: i64,
    d: i64,
    c: i64,
    lines: &[Line],
) -> Result<Done, DbError> {
    let (wv, dv) = (V::I(w), V::I(d));
    let cust = s.query(
        "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?",
        &[wv.clone(), dv.clone(), V::I(c)],
    )?;
    let cust = cust
        .first()
        .ok_or_else(|| DbError::other(format!("new-order: no customer {w}/{d}/{c}")))?;
    let (discount, w_tax) = (num(&cust[0], "c_discount")?, num(&cust[3], "w_tax")?);
    let dist = s.query(
        "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE",
        &[wv.clone(), dv.clone()],
    )?;
    let dist = dist
        .first()
        .ok_or_else(|| DbError::other(format!("new-order: no district {w}/{d}")))?;
    let (o_id, d_tax) = (int(&dist[0], "d_next_o_id")?, num(&dist[1], "d_tax")?);
    s.exec(
        "UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?",
        &[V::I(o_id + 1), wv.clone(), dv.clone()],
    )?;
    let all_local = lines.iter().all(|l| l.supply_w == w) as i64;
    s.exec(
        "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, NULL, ?, ?)",
        &[
            V::I(o_id),
            dv.clone(),
            wv.clone(),
            V::I(c),
            V::I(lines.len() as i64),
            V::I(all_local),
        ],
    )?;
    s.exec(
        "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)",
        &[V::I(o_id), dv.clone(), wv.clone()],
    )?;
    // The items, each id once.
    let mut ids: Vec<i64> = lines.iter().map(|l| l.item).collect();
    ids.sort_unstable();
    ids.dedup();
    let params: Vec<V> = ids.iter().map(|&i| V::I(i)).collect();
    let found = s.query(t.items(ids.len()), &params)?;
    if found.len() < ids.len() {
        // Clause 2.4.2.3: an unused item id rolls the order back.
        return Ok(Done::RolledBack);
    }
    let mut price = HashMap::new();
    for r in &found {
        price.insert(int(&r[0], "i_id")?, num(&r[1], "i_price")?);
    }
    // The stock rows, each (warehouse, item) once, locked in key order.
    let mut keys: Vec<(i64, i64)> = lines.iter().map(|l| (l.supply_w, l.item)).collect();
    keys.sort_unstable();
    keys.dedup();
    let params: Vec<V> = keys.iter().flat_map(|&(w, i)| [V::I(w), V::I(i)]).collect();
    let rows = s.query(t.stock(d, keys.len()), &params)?;
    let mut stock = HashMap::new();
    for r in &rows {
        let key = (int(&r[0], "s_w_id")?, int(&r[1], "s_i_id")?);
        let dist = r[4].text().unwrap_or_default();
        stock.insert(key, (int(&r[2], "s_quantity")?, dist));
    }
    let mut order_lines = Vec::with_capacity(lines.len() * 9);
    let mut total = 0.0;
    // Stock updated in key order (fewer deadlocks between terminals),
    // each line's quantity against the row as earlier lines left it.
    let mut updates: Vec<(usize, &Line)> = lines.iter().enumerate().collect();
    updates.sort_by_key(|(_, l)| (l.supply_w, l.item));
    let mut amounts = vec![0.0; lines.len()];
    let mut dists = vec![String::new(); lines.len()];
    for (n, l) in updates {
        let (q, dist) = stock.get_mut(&(l.supply_w, l.item)).ok_or_else(|| {
            DbError::other(format!("new-order: no stock {}/{}", l.supply_w, l.item))
        })?;
        let new_q = if *q - l.quantity >= 10 {
            *q - l.quantity
        } else {
            *q - l.quantity + 91
        };
        *q = new_q;
        s.exec(
            "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?",
            &[
                V::I(new_q),
                V::I(l.quantity),
                V::I((l.supply_w != w) as i64),
                V::I(l.supply_w),
                V::I(l.item),
            ],
        )?;
        amounts[n] = cents(l.quantity as f64 * price[&l.item]);
        dists[n] = dist.clone();
    }
    for (n, l) in lines.iter().enumerate() {
        total += amounts[n];
        order_lines.extend([
            V::I(o_id),
            dv.clone(),
            wv.clone(),
            V::I(n as i64 + 1),
            V::I(l.item),
            V::I(l.supply_w),
            V::I(l.quantity),
            V::F(amounts[n]),
            V::S(std::mem::take(&mut dists[n])),
        ]);
    }
    s.exec(t.lines(lines.len()), &order_lines)?;
    // The order's total, as the terminal displays it (clause 2.4.3.3).
    let _total = total * (1.0 - discount) * (1.0 + w_tax + d_tax);
    Ok(Done::Committed(Output {
        order: Some(o_id),
        ..Output::default()
    }))
}

/// The customer `who` names in `w`/`d`: by id, or the middle one (position
/// ceil(n/2)) of those with the last name, ordered by C_FIRST.
fn pick_customer(s: &mut dyn Sql, w: i64, d: i64, who: &Who) -> Result<i64, DbError> {
    match who {
        Who::Id(c) => Ok(*c),
        Who::Last(last) => {
            let rows = s.query(
                "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
                &[V::I(w), V::I(d), V::S(last.clone())],
            )?;
            if rows.is_empty() {
                return Err(DbError::other(format!(
                    "no customer named {last} in {w}/{d}"
                )));
            }
            int(&rows[(rows.len() - 1) / 2][0], "c_id")
        }
    }
}

/// Payment's work (clause 2.5.2.2).
fn payment_work(
    s: &mut dyn Sql,
    w: i64,
    d: i64,
    c_w: i64,
    c_d: i64,
    who: &Who,
    amount: f64,
) -> Result<Done, DbError> {
    let (wv, dv, av) = (V::I(w), V::I(d), V::F(amount));
    s.exec(
        "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?",
        &[av.clone(), wv.clone()],
    )?;
    let wh = s.query(
        "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?",
        std::slice::from_ref(&wv),
    )?;
    let w_name = wh.first().and_then(|r| r[5].text()).unwrap_or_default();
    s.exec(
        "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?",
        &[av.clone(), wv.clone(), dv.clone()],
    )?;
    let di = s.query(
        "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = ? AND d_id = ?",
        &[wv.clone(), dv.clone()],
    )?;
    let d_name = di.first().and_then(|r| r[5].text()).unwrap_or_default();
    let c = pick_customer(s, c_w, c_d, who)?;
    let key = [V::I(c_w), V::I(c_d), V::I(c)];
    let cust = s.query(
        "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE",
        &key,
    )?;
    let cust = cust
        .first()
        .ok_or_else(|| DbError::other(format!("payment: no customer {c_w}/{c_d}/{c}")))?;
    if cust[10].text().as_deref() == Some("BC") {
        let data = s.query(
            "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            &key,
        )?;
        let old = data.first().and_then(|r| r[0].text()).unwrap_or_default();
        let mut new = format!("{c} {c_d} {c_w} {d} {w} {amount:.2} | {old}");
        new.truncate(500);
        s.exec(
            "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            &[av.clone(), av.clone(), V::S(new), key[0].clone(), key[1].clone(), key[2].clone()],
        )?;
    } else {
        s.exec(
            "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            &[av.clone(), av.clone(), key[0].clone(), key[1].clone(), key[2].clone()],
        )?;
    }
    s.exec(
        "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)",
        &[
            V::I(c),
            V::I(c_d),
            V::I(c_w),
            dv,
            wv,
            av,
            V::S(format!("{w_name}    {d_name}")),
        ],
    )?;
    Ok(Done::Committed(Output {
        customer: Some(c),
        ..Output::default()
    }))
}

/// Order-Status's work (clause 2.6.2.2).
fn order_status_work(s: &mut dyn Sql, w: i64, d: i64, who: &Who) -> Result<Done, DbError> {
    let c = pick_customer(s, w, d, who)?;
    s.query(
        "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
        &[V::I(w), V::I(d), V::I(c)],
    )?;
    let order = s.query(
        "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1",
        &[V::I(w), V::I(d), V::I(c)],
    )?;
    let mut out = Output {
        customer: Some(c),
        ..Output::default()
    };
    if let Some(o) = order.first() {
        let o_id = int(&o[0], "o_id")?;
        let lines = s.query(
            "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
            &[V::I(w), V::I(d), V::I(o_id)],
        )?;
        out.order = Some(o_id);
        out.count = lines.len() as i64;
    }
    Ok(Done::Committed(out))
}

/// Delivery's work (clause 2.7.4.2): the oldest undelivered order of each
/// of the ten districts, in one transaction.
fn delivery_work(s: &mut dyn Sql, w: i64, carrier: i64) -> Result<Done, DbError> {
    let mut delivered = Vec::with_capacity(10);
    for d in 1..=10 {
        let (wv, dv) = (V::I(w), V::I(d));
        let oldest = s.query(
            "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE",
            &[wv.clone(), dv.clone()],
        )?;
        let Some(o) = oldest.first() else {
            // Clause 2.7.4.2: none left in this district; skipped.
            delivered.push(None);
            continue;
        };
        let o_id = int(&o[0], "no_o_id")?;
        let key = [wv.clone(), dv.clone(), V::I(o_id)];
        if s.exec(
            "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?",
            &key,
        )? == 0
        {
            // Another terminal delivered it first.
            delivered.push(None);
            continue;
        }
        let c = s.query(
            "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
            &key,
        )?;
        let c = int(
            &c.first()
                .ok_or_else(|| DbError::other(format!("delivery: no order {w}/{d}/{o_id}")))?[0],
            "o_c_id",
        )?;
        s.exec(
            "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
            &[
                V::I(carrier),
                key[0].clone(),
                key[1].clone(),
                key[2].clone(),
            ],
        )?;
        s.exec(
            "UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
            &key,
        )?;
        let sum = s.query(
            "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
            &key,
        )?;
        let sum = sum.first().and_then(|r| r[0].num()).unwrap_or(0.0);
        s.exec(
            "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            &[V::F(cents(sum)), wv, dv, V::I(c)],
        )?;
        delivered.push(Some(o_id));
    }
    Ok(Done::Committed(Output {
        delivered,
        ..Output::default()
    }))
}

/// Stock-Level's work (clause 2.8.2.2): distinct items of the district's
/// last 20 orders whose stock is under the threshold.
fn stock_level_work(s: &mut dyn Sql, w: i64, d: i64, threshold: i64) -> Result<Done, DbError> {
    let next = s.query(
        "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
        &[V::I(w), V::I(d)],
    )?;
    let next = int(
        &next
            .first()
            .ok_or_else(|| DbError::other(format!("stock-level: no district {w}/{d}")))?[0],
        "d_next_o_id",
    )?;
    let count = s.query(
        "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?",
        &[
            V::I(w),
            V::I(d),
            V::I(next),
            V::I(next - 20),
            V::I(w),
            V::I(threshold),
        ],
    )?;
    Ok(Done::Committed(Output {
        count: count.first().and_then(|r| r[0].int()).unwrap_or(0),
        ..Output::default()
    }))
}
