//! The quick suite's network part: starts `serve` and the ping-pong echo on
//! ephemeral loopback ports inside this process, runs a short TCP test and a
//! short ping-pong against them, and stops both.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::mpsc;
use std::time::Duration;

use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context};

use crate::iperf3::{self, ClientConfig, ServerConfig};
use crate::pingpong::{EchoServer, Pingpong, PingpongConfig, Proto};
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
        let localhost = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let echo = EchoServer::bind(SocketAddr::new(localhost, 0)).map_err(BenchError::System)?;
        let echo_addr = echo
            .local_addr()
            .ok_or_else(|| BenchError::System("echo server has no address".into()))?;
        let stop = Cancel::new();
        let cfg = ServerConfig {
            bind: localhost,
            port: 0,
            max_tests: Some(1),
            ..ServerConfig::default()
        };
        std::thread::scope(|s| {
            let (ready_tx, ready_rx) = mpsc::channel();
            let (stop_echo, stop_server) = (stop.clone(), stop.clone());
            s.spawn(move || echo.serve(&stop_echo));
            let cfg = &cfg;
            s.spawn(move || {
                iperf3::serve(
                    cfg,
                    &stop_server,
                    |addr| {
                        let _ = ready_tx.send(addr);
                    },
                    |_| {},
                )
            });
            let outcome = (|| {
                let addr = ready_rx.recv_timeout(Duration::from_secs(5)).map_err(|_| {
                    BenchError::System("loopback iperf3 server did not start".into())
                })?;
                let mut client = ClientConfig::new("127.0.0.1");
                client.port = addr.port();
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
                    },
                }
                .run(ctx)
            })();
            stop.cancel();
            outcome
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::collect;
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
