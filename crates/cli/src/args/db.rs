//! `nodebench db ...`: the subcommands. Each wraps its benchmark's
//! arguments, defined with their conversion into its config in `nodebench_db::cli`.

use clap::Subcommand;
use nodebench_db::cli::*;

/// `nodebench db ...`
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// The AS3AP benchmark: the five tables generated from --seed and
    /// loaded (rows/s), the spec's indexes, the single-user query set and
    /// the multi-user tests of the AMP-stack study (IR and cross-section with IR or
    /// OLTP background); queries/s, latency percentiles, per-query times.
    As3ap(As3apArgs),
    /// A TPC-C-derived OLTP workload (TPC-C-derived, not audited, not
    /// comparable to published TPC-C results): the nine tables of
    /// --warehouses loaded in parallel (rows/s, each index timed), the
    /// five transactions in the 45/43/4/4/4 mix by --users terminals, then
    /// the consistency checks; NOPM, TPM, per-transaction throughput and
    /// latency, rollbacks, retries by kind. See docs/tpcc.md.
    Tpcc(TpccArgs),
}
