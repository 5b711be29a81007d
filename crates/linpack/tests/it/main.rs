//! The integration tests of `linpack`, one test binary (one link, one
//! process) with a module per area.

mod solve;
