//! The integration tests of `http`, one test binary (one link, one
//! process) with a module per area.

mod fuzz_reply;
mod fuzz_request;
mod fuzz_url;
mod load;
mod server_balance;
mod tls_h2;
