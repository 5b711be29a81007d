//! The integration tests of `machine`, one test binary (one link, one
//! process) with a module per area.

mod telemetry;
mod telemetry_memory;
