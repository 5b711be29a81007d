//! The CLI's integration tests, one test binary (one link, one process)
//! with a module per area. The tests that read this machine's own
//! telemetry (disturbance, bottleneck lines, repeats) are in `tests/alone`:
//! cargo runs test binaries one after another, so they never share the
//! CPUs with these.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/devtools.rs"]
mod devtools;
#[path = "../common/rapl.rs"]
mod rapl;

mod architecture;
mod burnin;
mod catalog;
mod cli;
mod compare;
mod db;
mod db_metric;
mod disk_steady;
mod dist;
mod energy;
mod failed_runs;
mod fleet;
mod fleet_quota;
mod fleet_report;
mod gpu;
mod host;
mod hpcc;
mod http;
mod http_errors;
mod http_serve;
mod import;
mod in_process;
mod input;
mod link_matrix;
mod linpack;
mod netns;
mod registry;
mod report_html;
mod scan;
mod secrets;
mod slurm;
mod store;
mod suites;
mod telemetry;
mod thresholds;
mod topology;
