//! nodebench-scan: `nodebench scan URL`, a safe and fast hardening check of
//! a web server from the project's own check files (default content,
//! information disclosure, methods, security headers, TLS, and with
//! `--local` the server's processes and files on this machine). Its
//! findings are an `http.scan` result: counts by severity as metrics, the
//! findings themselves as structured data.
//!
//! Bottom to top: `branches` (the end-of-life table's types and dates),
//! `config` (the target and the limits), `confs` (the server's
//! configuration files, includes followed), `checks` (the check
//! files), `client` (the rate-limited HTTP/1.1 client), `calibrate` (what
//! "not found" looks like), `request` (request checks and write probes),
//! `crawl` (the same-origin crawl), `eol` (end-of-life versions),
//! `tls` (handshakes and the certificate), `local` (processes and files),
//! `scan` (the benchmark).

pub mod branches;
pub mod calibrate;
pub mod checks;
#[cfg(feature = "cli")]
pub mod cli;
pub mod client;
pub mod config;
pub mod confs;
pub mod crawl;
pub mod eol;
pub mod local;
pub mod request;
pub mod scan;
pub mod tls;
