//! Reports built from the result model only: human tables for the terminal
//! and exports (JSON, CSV, Markdown), the comparison of runs, and the
//! self-contained HTML report with charts.

pub mod burnin;
pub mod compare;
pub mod db;
pub mod dd;
pub mod error;
pub mod export;
pub mod fleet_links;
pub mod format;
pub mod gpu;
pub mod host;
pub mod hpcc;
pub mod html;
pub mod http;
pub mod http_sweep;
pub mod inventory;
pub mod iozone;
pub mod linpack;
pub mod memory_numa;
pub mod reporters;
pub mod scan;
pub mod table;
pub mod telemetry;
pub mod topology;
pub mod verdicts;

pub use error::Error;
