//! The spec's indexes and the checksum table, engine-neutral: each engine
//! maps the index kinds to what it offers (see [`IndexKind`]).

use nodebench_core::names::db::table as t;

/// The kind of index the AS3AP spec asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// Clustered B-tree: the rows are stored in key order.
    Clustered,
    /// Hash index.
    Hash,
    /// Non-clustered B-tree.
    BTree,
}

/// One index of the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Index {
    /// The table.
    pub table: &'static str,
    /// The column.
    pub column: &'static str,
    /// What the spec asks for.
    pub kind: IndexKind,
}

impl Index {
    /// The index's name, after the paper's own (`tenpct_int_bt`,
    /// `tenpct_code_h`): `<table>_<column>_bt` or `_h`; the clustered key
    /// is `<table>_idx` (`uniques_idx`).
    pub fn name(&self) -> String {
        let column = self.column.trim_start_matches("col_");
        match self.kind {
            IndexKind::Clustered => format!("{}_idx", self.table),
            IndexKind::BTree => format!("{}_{column}_bt", self.table),
            IndexKind::Hash => format!("{}_{column}_h", self.table),
        }
    }
}

const fn index(table: &'static str, column: &'static str, kind: IndexKind) -> Index {
    Index {
        table,
        column,
        kind,
    }
}

/// Every index of the paper's Table 6.3: the clustered key of each scaled
/// table (tenpct's is (key, code); built with the table, see
/// [`crate::data::Table::primary_key`]), then the 13 secondary ones in the
/// order Appendix 3 builds them (each build timed).
pub const INDEXES: [Index; 17] = [
    index(t::UPDATES, "col_key", IndexKind::Clustered),
    index(t::TENPCT, "col_key", IndexKind::Clustered),
    index(t::HUNDRED, "col_key", IndexKind::Clustered),
    index(t::UNIQUES, "col_key", IndexKind::Clustered),
    index(t::TENPCT, "col_int", IndexKind::BTree),
    index(t::TENPCT, "col_signed", IndexKind::BTree),
    index(t::UNIQUES, "col_code", IndexKind::Hash),
    index(t::TENPCT, "col_double", IndexKind::BTree),
    index(t::UPDATES, "col_decim", IndexKind::BTree),
    index(t::TENPCT, "col_float", IndexKind::BTree),
    index(t::UPDATES, "col_int", IndexKind::BTree),
    index(t::TENPCT, "col_decim", IndexKind::BTree),
    index(t::HUNDRED, "col_code", IndexKind::Hash),
    index(t::TENPCT, "col_name", IndexKind::Hash),
    index(t::UPDATES, "col_code", IndexKind::Hash),
    index(t::TENPCT, "col_code", IndexKind::Hash),
    index(t::UPDATES, "col_double", IndexKind::BTree),
];

/// The secondary indexes, in the order they are built.
pub fn secondary_all() -> impl Iterator<Item = Index> {
    INDEXES
        .into_iter()
        .filter(|i| i.kind != IndexKind::Clustered)
}

/// The secondary indexes of `table` (the clustered key is part of the table).
pub fn secondary(table: &str) -> impl Iterator<Item = Index> + '_ {
    secondary_all().filter(move |i| i.table == table)
}

/// The secondary index of `table` on `column`.
pub fn secondary_on(table: &str, column: &str) -> Index {
    secondary(table)
        .find(|i| i.column == column)
        .expect("an index of Table 6.3")
}

/// The name of the foreign key `hundred.col_signed` -> `updates.col_key`.
pub const FOREIGN_KEY: &str = "hundred_signed_fk";

/// The index on `hundred.col_signed` the foreign key is checked with
/// (InnoDB requires one; every engine gets it, so changing an updates key
/// does not scan hundred). Not in Table 6.3: a deviation docs/as3ap.md
/// lists.
pub const FOREIGN_KEY_INDEX: &str = "hundred_signed_bt";

/// The table that records what was loaded: one row per AS3AP table with
/// the rows per scaled table and seed it was loaded with and the figures of
/// its [`crate::data::Checksum`]; `--reuse` checks the tables against it.
pub const CHECKSUM_TABLE: &str = "as3ap_checksum";

/// The scratch tables of the cross-section (`sel_100_seq`, `sel_100_rand`).
pub const SEL100SEQ: &str = "sel100seq";
/// See [`SEL100SEQ`].
pub const SEL100RAND: &str = "sel100rand";
/// `bulk_save`'s copy of updates' keys 5000..5999 (the paper's
/// `saveupdates`).
pub const SAVED: &str = "saveupdates";
/// `backup`'s copy of updates.
pub const BACKUP: &str = "as3ap_backup";
/// `integrity_temp`'s copy of hundred's `int = 0` row.
pub const INTEGRITY_TEMP: &str = "integrity_temp";
/// The output-mode tests' "into a relation" target.
pub const O_MODE_OUT: &str = "as3ap_o_mode_out";
/// The view `create_view` makes (the paper's `reportview`).
pub const REPORTVIEW: &str = "reportview";
