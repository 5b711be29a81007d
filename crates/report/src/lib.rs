//! Reports built from the result model only: human tables for the terminal
//! and exports (JSON, CSV, Markdown).

pub mod export;
pub mod format;
pub mod iozone;
pub mod table;
