//! nodebench core: the result model, units and parsing, statistics, system
//! inventory, cancellation and the contract every benchmark follows.

pub mod affinity;
pub mod bench;
pub mod cputime;
pub mod inventory;
pub mod model;
pub mod stats;
pub mod units;

pub use model::*;
