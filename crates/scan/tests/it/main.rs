//! The integration tests of `scan`, one test binary (one link, one
//! process) with a module per area.

#[path = "../common/mod.rs"]
mod common;

mod crawl;
mod families;
mod local;
mod servers;
