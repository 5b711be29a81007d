//! The integration tests of `core`, one test binary (one link, one
//! process) with a module per area.

mod fuzz_units;
