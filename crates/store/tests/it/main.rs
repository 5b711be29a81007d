//! The integration tests of `store`, one test binary (one link, one
//! process) with a module per area.

#[path = "../common/mod.rs"]
#[macro_use]
mod common;

mod paths;
mod store;
mod telemetry_size;
mod two_writers;
