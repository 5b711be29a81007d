//! Recorded and synthetic `/sys` and `/proc` trees of bigger machines
//! ([`trees`]) for the topology tests here and the CLI's; enabled through
//! the `fixtures` feature.

pub mod trees;
