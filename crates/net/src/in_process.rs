//! The iperf3-compatible server of `nodebench net serve` as the peer of one
//! test (`net tcp|udp --loopback`): started in this process on an ephemeral
//! loopback port, stopped when the test is done. (The ping-pong echo's
//! counterpart is `echo::with_echo_server`.)

use std::net::{IpAddr, Ipv4Addr};
use std::sync::mpsc;
use std::time::Duration;

use nodebench_core::bench::{BenchError, Cancel};

use crate::iperf3::{self, ServerConfig};

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
            Ok(Err(e)) if outcome.is_err() => Err(e),
            _ => outcome,
        }
    })
}
