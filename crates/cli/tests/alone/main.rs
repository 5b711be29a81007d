//! The CLI's tests that judge this machine's own telemetry: what
//! disturbed a run, bottleneck lines, the quick suite against its
//! peaks, repeats until an interval, the memory matrices. Each is the
//! others' noise on a small machine, so they are a test binary of their
//! own (cargo runs binaries one at a time, never beside `tests/it`) and
//! every test holds [`ALONE`] while it runs.

#[path = "../common/mod.rs"]
mod common;

/// Held by every test of this binary for its whole run.
static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

mod bottleneck;
mod disturbed;
mod memory_numa;
mod quick_suite_truth;
mod repeat;
