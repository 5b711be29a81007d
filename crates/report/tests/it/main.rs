//! The integration tests of `report`, one test binary (one link, one
//! process) with a module per area.

mod junit;
mod memory;
