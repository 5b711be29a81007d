//! The integration tests of `net`, one test binary (one link, one
//! process) with a module per area.

mod fuzz_iperf3_control;
mod iperf3_interop;
mod mss;
