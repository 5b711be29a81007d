//! The servers of `nodebench net serve` as the peer of one benchmark
//! (`--loopback`): started in this process on ephemeral loopback ports,
//! stopped when the benchmark is done.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::mpsc;
use std::time::Duration;

use nodebench_core::bench::{BenchError, Cancel};

use crate::iperf3::{self, ServerConfig};
use crate::pingpong::EchoServer;

/// How long the iperf3 server may take to bind before the test gives up.
const READY_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs `test` with the iperf3-compatible server serving one test on an
/// ephemeral 127.0.0.1 port (`test` gets the port), `TCP_MAXSEG` `mss` on
/// its listener; stops the server afterwards.
pub fn with_iperf3_server<R>(
    mss: Option<u32>,
    test: impl FnOnce(u16) -> Result<R, BenchError>,
) -> Result<R, BenchError> {
    let stop = Cancel::new();
    let cfg = ServerConfig {
        bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
        port: 0,
        max_tests: Some(1),
        mss,
        ..ServerConfig::default()
    };
    std::thread::scope(|s| {
        let (ready_tx, ready_rx) = mpsc::channel();
        let (cfg, stop_server) = (&cfg, stop.clone());
        let server = s.spawn(move || {
            iperf3::serve(
                cfg,
                &stop_server,
                |addr| {
                    let _ = ready_tx.send(addr);
                },
                |_| {},
            )
        });
        let outcome = match ready_rx.recv_timeout(READY_TIMEOUT) {
            Ok(addr) => test(addr.port()),
            // The server thread ended (bind error) or never got ready.
            Err(_) => Err(BenchError::System(
                "the in-process iperf3 server did not start".into(),
            )),
        };
        stop.cancel();
        match server.join() {
            Ok(Err(e)) if outcome.is_err() => Err(BenchError::System(e)),
            _ => outcome,
        }
    })
}

/// Runs `test` with the ping-pong echo server on an ephemeral 127.0.0.1
/// port (`test` gets its address); stops it afterwards.
pub fn with_echo_server<R>(
    test: impl FnOnce(SocketAddr) -> Result<R, BenchError>,
) -> Result<R, BenchError> {
    let echo = EchoServer::bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0))
        .map_err(BenchError::System)?;
    let addr = echo
        .local_addr()
        .ok_or_else(|| BenchError::System("the echo server has no address".into()))?;
    let stop = Cancel::new();
    std::thread::scope(|s| {
        let stop_echo = stop.clone();
        s.spawn(move || echo.serve(&stop_echo));
        let outcome = test(addr);
        stop.cancel();
        outcome
    })
}
