//! The integration tests of `import`, one test binary (one link, one
//! process) with a module per area.

mod fuzz_import;
