//! The quick suite's network part: starts `serve` and the ping-pong echo on
//! ephemeral loopback ports inside this process, runs a short TCP test and a
//! short ping-pong against them, and stops both.

use std::time::Duration;

use nodebench_core::bench::{BenchError, Benchmark, Context};

use crate::in_process::{with_echo_server, with_iperf3_server};
use crate::iperf3::ClientConfig;
use crate::pingpong::{Pingpong, PingpongConfig, Proto};
use crate::throughput::Throughput;

/// Short loopback TCP and ping-pong runs against in-process servers.
#[derive(Debug, Clone)]
pub struct Loopback {
    /// Length of the TCP test.
    pub tcp_time: Duration,
    /// Time per ping-pong cell.
    pub pingpong_time: Duration,
}

impl Benchmark for Loopback {
    fn id(&self) -> &'static str {
        nodebench_core::names::net::LOOPBACK
    }

    /// Nothing to check: the quick suite's fixed loopback pair.
    fn validate(&self) -> Result<(), BenchError> {
        Ok(())
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        with_echo_server(|echo_addr| {
            with_iperf3_server(None, |port| {
                let mut client = ClientConfig::new("127.0.0.1");
                client.port = port;
                client.duration = self.tcp_time;
                Throughput { config: client }.run(ctx)?;
                Pingpong {
                    config: PingpongConfig {
                        server: echo_addr,
                        protocols: vec![Proto::Tcp, Proto::Udp],
                        sizes: vec![1, 1024, 65_536],
                        threads: vec![1],
                        duration: self.pingpong_time,
                        timeout: Duration::from_secs(1),
                        loopback: false,
                    },
                }
                .run(ctx)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    #[test]
    fn loopback_runs_tcp_and_pingpong_and_stops_its_servers() {
        let out = collect(
            &Loopback {
                tcp_time: Duration::from_millis(500),
                pingpong_time: Duration::from_millis(50),
            },
            &Inventory::default(),
            Cancel::new(),
        )
        .unwrap();
        let ids: Vec<&str> = out.iter().map(|r| r.benchmark.as_str()).collect();
        assert_eq!(ids, vec!["net.tcp", "net.pingpong", "net.pingpong"]);
        assert!(
            out.iter().all(|r| r.status == ResultStatus::Passed),
            "{:?}",
            out.iter().map(|r| &r.error).collect::<Vec<_>>()
        );
        let sent = out[0]
            .metrics
            .iter()
            .find(|m| m.name == "bytes" && m.labels["side"] == "sender")
            .unwrap()
            .value;
        let received = out[0]
            .metrics
            .iter()
            .find(|m| m.name == "bytes" && m.labels["side"] == "receiver")
            .unwrap()
            .value;
        assert_eq!(sent, received, "receiver bytes equal sender bytes");
        assert_eq!(out[0].parameters["mtu"], 65536);
    }
}
