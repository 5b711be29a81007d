//! Names of the database benchmarks' results.

/// Benchmark id of sysbench's OLTP scripts (`oltp_read_write`,
/// `oltp_read_only`...), imported from their output; the figures are the
/// [`super::sysbench`] names.
pub const SYSBENCH_OLTP: &str = "db.sysbench_oltp";
