//! nodebench-net: network benchmarks.
//!
//! [`iperf3`] speaks the iperf3 control protocol, so `nodebench net tcp|udp
//! HOST` runs against a stock `iperf3 -s` and a stock `iperf3 -c` runs
//! against `nodebench net serve`. The measurement is native: data streams,
//! pacing, interval accounting, `TCP_INFO` sampling and UDP loss/jitter are
//! implemented here; iperf3 is only the peer we interoperate with and the
//! reference we compare against. [`throughput`] turns a test into a result;
//! [`pingpong`] is the TCP/UDP round-trip test and its echo server; [`route`]
//! finds the egress interface and MTU recorded with each result.

#[cfg(feature = "cli")]
pub mod cli;
pub mod echo;
pub mod in_process;
pub mod iperf3;
pub mod pingpong;
pub mod throughput;
