//! nodebench-db: the AS3AP database benchmark (`nodebench db as3ap`) on
//! SQLite, MariaDB/MySQL and PostgreSQL: the five tables generated from a seed and loaded, the spec's
//! indexes, the single-user query set and the AMP-stack study's multi-user tests.
//!
//! Bottom to top: `config` (flags), `data` (the generator and checksum),
//! `schema` (indexes), `engine` (the sessions), `queries`, `load` (the
//! tables filled), `multi` (the multi-user driver), `as3ap` (the
//! benchmark), `search` and `equivalent` (`--time-limit`: the spec's
//! metric, the equivalent database size); `endpoint` is the HTTP
//! server's `/db/ir` page on top of the engines.

pub mod as3ap;
#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod data;
pub mod endpoint;
pub mod engine;
pub mod equivalent;
pub mod expect;
mod load;
pub mod multi;
pub mod queries;
pub mod schema;
pub mod search;
mod serving;
pub mod single;
pub mod tpcc;
