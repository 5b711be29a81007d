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
    /// The index's name: `as3ap_<table>_<column>`.
    pub fn name(&self) -> String {
        format!(
            "as3ap_{}_{}",
            self.table,
            self.column.trim_start_matches("col_")
        )
    }
}

/// Every index of the spec: a clustered key on each scaled table, then the
/// secondary ones (built after the load, each timed).
pub const INDEXES: [Index; 12] = [
    Index {
        table: t::UNIQUES,
        column: "col_key",
        kind: IndexKind::Clustered,
    },
    Index {
        table: t::UNIQUES,
        column: "col_code",
        kind: IndexKind::Hash,
    },
    Index {
        table: t::HUNDRED,
        column: "col_key",
        kind: IndexKind::Clustered,
    },
    Index {
        table: t::HUNDRED,
        column: "col_code",
        kind: IndexKind::Hash,
    },
    Index {
        table: t::TENPCT,
        column: "col_key",
        kind: IndexKind::Clustered,
    },
    Index {
        table: t::TENPCT,
        column: "col_code",
        kind: IndexKind::Hash,
    },
    Index {
        table: t::TENPCT,
        column: "col_signed",
        kind: IndexKind::BTree,
    },
    Index {
        table: t::UPDATES,
        column: "col_key",
        kind: IndexKind::Clustered,
    },
    Index {
        table: t::UPDATES,
        column: "col_int",
        kind: IndexKind::BTree,
    },
    Index {
        table: t::UPDATES,
        column: "col_code",
        kind: IndexKind::Hash,
    },
    Index {
        table: t::UPDATES,
        column: "col_double",
        kind: IndexKind::BTree,
    },
    Index {
        table: t::UPDATES,
        column: "col_decim",
        kind: IndexKind::Hash,
    },
];

/// The secondary indexes of `table` (the clustered key is part of the table).
pub fn secondary(table: &str) -> impl Iterator<Item = Index> + '_ {
    INDEXES
        .into_iter()
        .filter(move |i| i.table == table && i.kind != IndexKind::Clustered)
}

/// The table that records what was loaded: one row per AS3AP table with
/// the rows per scaled table and seed it was loaded with and the figures of
/// its [`crate::data::Checksum`]; `--reuse` checks the tables against it.
pub const CHECKSUM_TABLE: &str = "as3ap_checksum";

/// The scratch tables of the cross-section (`sel_100_seq`, `sel_100_rand`).
pub const SEL100SEQ: &str = "sel100seq";
/// See [`SEL100SEQ`].
pub const SEL100RAND: &str = "sel100rand";
/// The rows the single-user bulk tests save, delete and append again.
pub const SAVED: &str = "as3ap_saved";
