//! The integration tests of `disk`, one test binary (one link, one
//! process) with a module per area.

mod accounting;
mod enospc;
