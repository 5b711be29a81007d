//! The nine tables of clause 1.3 by the spec's (and go-tpc's) table and
//! column names and types, their primary keys, and the two secondary
//! indexes the transactions read by (customer by last name, orders by
//! customer).

use nodebench_core::names::db::tpcc::table;

/// One table: name, columns with their (MariaDB) types, primary key.
#[derive(Debug, Clone, Copy)]
pub struct TableDef {
    /// The spec's name.
    pub name: &'static str,
    /// `(column, type)`, in the spec's order.
    pub columns: &'static [(&'static str, &'static str)],
    /// The primary key's columns (none: HISTORY has no key).
    pub key: &'static str,
}

impl TableDef {
    /// The column names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.columns.iter().map(|(c, _)| *c).collect()
    }
}

/// A secondary index: name, table, columns.
#[derive(Debug, Clone, Copy)]
pub struct IndexDef {
    /// The index's name (go-tpc's).
    pub name: &'static str,
    /// Its table.
    pub table: &'static str,
    /// Its columns.
    pub columns: &'static str,
}

/// The tables, in load order (ITEM first: it is shared by warehouses).
pub const TABLES: [TableDef; 9] = [
    TableDef {
        name: table::ITEM,
        columns: &[
            ("i_id", "INT NOT NULL"),
            ("i_im_id", "INT"),
            ("i_name", "VARCHAR(24)"),
            ("i_price", "DECIMAL(5,2)"),
            ("i_data", "VARCHAR(50)"),
        ],
        key: "i_id",
    },
    TableDef {
        name: table::WAREHOUSE,
        columns: &[
            ("w_id", "INT NOT NULL"),
            ("w_name", "VARCHAR(10)"),
            ("w_street_1", "VARCHAR(20)"),
            ("w_street_2", "VARCHAR(20)"),
            ("w_city", "VARCHAR(20)"),
            ("w_state", "CHAR(2)"),
            ("w_zip", "CHAR(9)"),
            ("w_tax", "DECIMAL(4,4)"),
            ("w_ytd", "DECIMAL(12,2)"),
        ],
        key: "w_id",
    },
    TableDef {
        name: table::STOCK,
        columns: &[
            ("s_i_id", "INT NOT NULL"),
            ("s_w_id", "INT NOT NULL"),
            ("s_quantity", "INT"),
            ("s_dist_01", "CHAR(24)"),
            ("s_dist_02", "CHAR(24)"),
            ("s_dist_03", "CHAR(24)"),
            ("s_dist_04", "CHAR(24)"),
            ("s_dist_05", "CHAR(24)"),
            ("s_dist_06", "CHAR(24)"),
            ("s_dist_07", "CHAR(24)"),
            ("s_dist_08", "CHAR(24)"),
            ("s_dist_09", "CHAR(24)"),
            ("s_dist_10", "CHAR(24)"),
            ("s_ytd", "INT"),
            ("s_order_cnt", "INT"),
            ("s_remote_cnt", "INT"),
            ("s_data", "VARCHAR(50)"),
        ],
        key: "s_w_id, s_i_id",
    },
    TableDef {
        name: table::DISTRICT,
        columns: &[
            ("d_id", "INT NOT NULL"),
            ("d_w_id", "INT NOT NULL"),
            ("d_name", "VARCHAR(10)"),
            ("d_street_1", "VARCHAR(20)"),
            ("d_street_2", "VARCHAR(20)"),
            ("d_city", "VARCHAR(20)"),
            ("d_state", "CHAR(2)"),
            ("d_zip", "CHAR(9)"),
            ("d_tax", "DECIMAL(4,4)"),
            ("d_ytd", "DECIMAL(12,2)"),
            ("d_next_o_id", "INT"),
        ],
        key: "d_w_id, d_id",
    },
    TableDef {
        name: table::CUSTOMER,
        columns: &[
            ("c_id", "INT NOT NULL"),
            ("c_d_id", "INT NOT NULL"),
            ("c_w_id", "INT NOT NULL"),
            ("c_first", "VARCHAR(16)"),
            ("c_middle", "CHAR(2)"),
            ("c_last", "VARCHAR(16)"),
            ("c_street_1", "VARCHAR(20)"),
            ("c_street_2", "VARCHAR(20)"),
            ("c_city", "VARCHAR(20)"),
            ("c_state", "CHAR(2)"),
            ("c_zip", "CHAR(9)"),
            ("c_phone", "CHAR(16)"),
            ("c_since", "DATETIME"),
            ("c_credit", "CHAR(2)"),
            ("c_credit_lim", "DECIMAL(12,2)"),
            ("c_discount", "DECIMAL(4,4)"),
            ("c_balance", "DECIMAL(12,2)"),
            ("c_ytd_payment", "DECIMAL(12,2)"),
            ("c_payment_cnt", "INT"),
            ("c_delivery_cnt", "INT"),
            ("c_data", "VARCHAR(500)"),
        ],
        key: "c_w_id, c_d_id, c_id",
    },
    TableDef {
        name: table::HISTORY,
        columns: &[
            ("h_c_id", "INT NOT NULL"),
            ("h_c_d_id", "INT NOT NULL"),
            ("h_c_w_id", "INT NOT NULL"),
            ("h_d_id", "INT NOT NULL"),
            ("h_w_id", "INT NOT NULL"),
            ("h_date", "DATETIME"),
            ("h_amount", "DECIMAL(6,2)"),
            ("h_data", "VARCHAR(24)"),
        ],
        key: "",
    },
    TableDef {
        name: table::ORDERS,
        columns: &[
            ("o_id", "INT NOT NULL"),
            ("o_d_id", "INT NOT NULL"),
            ("o_w_id", "INT NOT NULL"),
            ("o_c_id", "INT"),
            ("o_entry_d", "DATETIME"),
            ("o_carrier_id", "INT"),
            ("o_ol_cnt", "INT"),
            ("o_all_local", "INT"),
        ],
        key: "o_w_id, o_d_id, o_id",
    },
    TableDef {
        name: table::NEW_ORDER,
        columns: &[
            ("no_o_id", "INT NOT NULL"),
            ("no_d_id", "INT NOT NULL"),
            ("no_w_id", "INT NOT NULL"),
        ],
        key: "no_w_id, no_d_id, no_o_id",
    },
    TableDef {
        name: table::ORDER_LINE,
        columns: &[
            ("ol_o_id", "INT NOT NULL"),
            ("ol_d_id", "INT NOT NULL"),
            ("ol_w_id", "INT NOT NULL"),
            ("ol_number", "INT NOT NULL"),
            ("ol_i_id", "INT NOT NULL"),
            ("ol_supply_w_id", "INT"),
            ("ol_delivery_d", "DATETIME"),
            ("ol_quantity", "INT"),
            ("ol_amount", "DECIMAL(6,2)"),
            ("ol_dist_info", "CHAR(24)"),
        ],
        key: "ol_w_id, ol_d_id, ol_o_id, ol_number",
    },
];

/// The secondary indexes (go-tpc's names): Payment's and Order-Status's
/// customer by last name, Order-Status's last order of a customer.
pub const INDEXES: [IndexDef; 2] = [
    IndexDef {
        name: "idx_customer",
        table: table::CUSTOMER,
        columns: "c_w_id, c_d_id, c_last, c_first",
    },
    IndexDef {
        name: "idx_order",
        table: table::ORDERS,
        columns: "o_w_id, o_d_id, o_c_id, o_id",
    },
];

/// The table named `name`.
pub fn table(name: &str) -> &'static TableDef {
    TABLES
        .iter()
        .find(|t| t.name == name)
        .expect("one of the nine tables")
}

/// Which engine the DDL is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite.
    Sqlite,
    /// MariaDB / MySQL (InnoDB).
    Mysql,
    /// PostgreSQL.
    Postgres,
}

impl Dialect {
    /// The dialect of an engine name (`Target::engine`).
    pub fn of(engine: &str) -> Dialect {
        match engine {
            "mysql" => Dialect::Mysql,
            "postgres" => Dialect::Postgres,
            _ => Dialect::Sqlite,
        }
    }

    /// Whether the primary key is added after the load (PostgreSQL: one
    /// sort over the loaded rows, as pgbench -i builds its keys) rather
    /// than declared with the table (InnoDB stores rows in its key; SQLite
    /// fills it as rows come, in key order).
    pub fn key_after_load(self) -> bool {
        self == Dialect::Postgres
    }
}

/// `CREATE TABLE` of `t`.
pub fn create_table(t: &TableDef, d: Dialect) -> String {
    let mut cols: Vec<String> = t
        .columns
        .iter()
        .map(|(c, ty)| {
            let ty = if d == Dialect::Postgres {
                ty.replace("DATETIME", "TIMESTAMP")
            } else {
                ty.to_string()
            };
            format!("{c} {ty}")
        })
        .collect();
    if !t.key.is_empty() && !d.key_after_load() {
        cols.push(format!("PRIMARY KEY ({})", t.key));
    }
    let engine = if d == Dialect::Mysql {
        " ENGINE=InnoDB"
    } else {
        ""
    };
    format!("CREATE TABLE {} ({}){engine}", t.name, cols.join(", "))
}

/// The primary key added after the load, where the dialect does that.
pub fn add_key(t: &TableDef, d: Dialect) -> Option<String> {
    (d.key_after_load() && !t.key.is_empty())
        .then(|| format!("ALTER TABLE {} ADD PRIMARY KEY ({})", t.name, t.key))
}

/// `CREATE INDEX` of `i`.
pub fn create_index(i: &IndexDef) -> String {
    format!("CREATE INDEX {} ON {} ({})", i.name, i.table, i.columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_carry_the_specs_names() {
        let stock = table(table::STOCK).names();
        assert_eq!(stock.len(), 17);
        assert!(stock.contains(&"s_dist_10") && stock.contains(&"s_quantity"));
        assert!(table(table::DISTRICT).names().contains(&"d_next_o_id"));
        assert!(table(table::ORDER_LINE).names().contains(&"ol_delivery_d"));
        let pg = create_table(table(table::ORDERS), Dialect::Postgres);
        assert!(
            pg.contains("o_entry_d TIMESTAMP") && !pg.contains("PRIMARY KEY"),
            "{pg}"
        );
        let my = create_table(table(table::ORDERS), Dialect::Mysql);
        assert!(
            my.ends_with("PRIMARY KEY (o_w_id, o_d_id, o_id)) ENGINE=InnoDB"),
            "{my}"
        );
        assert!(add_key(table(table::HISTORY), Dialect::Postgres).is_none());
    }
}
