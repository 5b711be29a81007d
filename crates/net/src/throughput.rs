//! `nodebench net tcp|udp HOST`: one iperf3-compatible test turned into a
//! result: throughput per direction as the sender and the receiver saw it,
//! TCP retransmits, UDP jitter/loss/reordering, both sides' CPU use, a
//! per-interval time series, and the egress interface and its MTU.

use std::net::{Ipv4Addr, SocketAddr, ToSocketAddrs};

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::Config;
use nodebench_core::names::net::{self as names, direction, host, label, metric, param, side};
use nodebench_core::{BenchResult, Better, Metric, TimeSeries, Unit};

use crate::in_process::with_iperf3_server;
use crate::iperf3::{self, ClientConfig, Protocol, StreamStats, TestOutcome};
use nodebench_core::route;

/// The `net.tcp` / `net.udp` benchmark.
#[derive(Debug, Clone)]
pub struct Throughput {
    /// The test to run.
    pub config: ClientConfig,
}

/// Which way data flowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// The client sent (iperf3's default).
    ClientToServer,
    /// The server sent (`--reverse`, or the second half of `--bidir`).
    ServerToClient,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::ClientToServer => direction::CLIENT_TO_SERVER,
            Direction::ServerToClient => direction::SERVER_TO_CLIENT,
        }
    }
}

fn sum<F: Fn(&StreamStats) -> Option<u64>>(streams: &[&StreamStats], f: F) -> Option<u64> {
    let vals: Vec<u64> = streams.iter().filter_map(|s| f(s)).collect();
    (!vals.is_empty()).then(|| vals.iter().sum())
}

fn seconds(streams: &[&StreamStats]) -> f64 {
    streams.iter().map(|s| s.seconds).fold(0.0, f64::max)
}

/// Adds the metrics of one direction: the sender's and the receiver's view.
fn record_direction(result: &mut BenchResult, o: &TestOutcome, dir: Direction) {
    // The client's own streams are `local`; in this direction the client is
    // the sender when data flows client -> server.
    let client_sends = dir == Direction::ClientToServer;
    let (sender_side, receiver_side) = if client_sends {
        (&o.local, &o.remote)
    } else {
        (&o.remote, &o.local)
    };
    let senders: Vec<&StreamStats> = sender_side.iter().filter(|s| s.sender).collect();
    let receivers: Vec<&StreamStats> = receiver_side.iter().filter(|s| !s.sender).collect();
    let label = |m: Metric| m.label(label::DIRECTION, dir.name());
    for (side, streams) in [(side::SENDER, &senders), (side::RECEIVER, &receivers)] {
        if streams.is_empty() {
            continue;
        }
        let bytes: u64 = streams.iter().map(|s| s.bytes).sum();
        let secs = seconds(streams);
        // One stream's thread: how much of a core it had (a nodebench
        // peer's report for the far side).
        if let [one] = streams.as_slice()
            && let Some(cpu) = one.thread_cpu
        {
            let on = if (side == side::SENDER) == client_sends {
                host::CLIENT
            } else {
                host::SERVER
            };
            result.metrics.push(
                label(Metric::new(
                    metric::THREAD_CPU,
                    cpu,
                    Unit::Percent,
                    Better::Lower,
                ))
                .label(label::SIDE, side)
                .label(label::HOST, on),
            );
            if let Some(c) = one.last_cpu {
                let mut cpus = result
                    .param(param::THREAD_LAST_CPU)
                    .and_then(|v| v.as_object().cloned())
                    .unwrap_or_default();
                cpus.insert(format!("{} {on} {side}", dir.name()), c.into());
                result.set_param(param::THREAD_LAST_CPU, cpus);
            }
        }
        result.metrics.push(
            label(Metric::new(
                metric::BYTES,
                bytes as f64,
                Unit::Bytes,
                Better::Higher,
            ))
            .label(label::SIDE, side),
        );
        if secs > 0.0 {
            result.metrics.push(
                label(Metric::new(
                    metric::THROUGHPUT,
                    bytes as f64 / secs,
                    Unit::BytesPerSecond,
                    Better::Higher,
                ))
                .label(label::SIDE, side),
            );
        }
    }
    if let Some(r) = sum(&senders, |s| s.retransmits) {
        result.metrics.push(label(Metric::new(
            metric::RETRANSMITS,
            r as f64,
            Unit::Count,
            Better::Lower,
        )));
    }
    if let Some(cwnd) = senders.iter().filter_map(|s| s.snd_cwnd).max() {
        result.metrics.push(label(Metric::new(
            metric::SND_CWND_MAX,
            cwnd as f64,
            Unit::Bytes,
            Better::Higher,
        )));
    }
    let rtts: Vec<u64> = senders.iter().filter_map(|s| s.rtt_us).collect();
    if !rtts.is_empty() {
        let mean = rtts.iter().sum::<u64>() as f64 / rtts.len() as f64;
        result.metrics.push(label(Metric::new(
            metric::RTT,
            mean * 1e-6,
            Unit::Seconds,
            Better::Lower,
        )));
    }
    if o.protocol == Protocol::Udp {
        if let Some(p) = sum(&senders, |s| s.packets) {
            result.metrics.push(label(Metric::new(
                metric::PACKETS_SENT,
                p as f64,
                Unit::Count,
                Better::Higher,
            )));
        }
        if let Some(p) = sum(&receivers, |s| s.packets) {
            result.metrics.push(label(Metric::new(
                metric::PACKETS_RECEIVED,
                p as f64,
                Unit::Count,
                Better::Higher,
            )));
        }
        if let Some(lost) = sum(&receivers, |s| s.lost_packets) {
            result.metrics.push(label(Metric::new(
                metric::LOST_PACKETS,
                lost as f64,
                Unit::Count,
                Better::Lower,
            )));
            let total = sum(&senders, |s| s.packets).unwrap_or(0).max(1);
            result.metrics.push(label(Metric::new(
                metric::LOST_PERCENT,
                100.0 * lost as f64 / total as f64,
                Unit::Percent,
                Better::Lower,
            )));
        }
        if let Some(ooo) = sum(&receivers, |s| s.out_of_order) {
            result.metrics.push(label(Metric::new(
                metric::OUT_OF_ORDER,
                ooo as f64,
                Unit::Count,
                Better::Lower,
            )));
        }
        let jitters: Vec<f64> = receivers.iter().filter_map(|s| s.jitter_ms).collect();
        if !jitters.is_empty() {
            let mean = jitters.iter().sum::<f64>() / jitters.len() as f64;
            result.metrics.push(label(Metric::new(
                metric::JITTER,
                mean / 1e3,
                Unit::Seconds,
                Better::Lower,
            )));
        }
    }
}

/// Turns a finished test into metrics and a time series.
pub fn record_outcome(result: &mut BenchResult, o: &TestOutcome) {
    let dirs: Vec<Direction> = if o.bidir {
        vec![Direction::ClientToServer, Direction::ServerToClient]
    } else if o.reverse {
        vec![Direction::ServerToClient]
    } else {
        vec![Direction::ClientToServer]
    };
    for d in dirs {
        record_direction(result, o, d);
    }
    result.metrics.push(
        Metric::new(metric::CPU, o.local_cpu.total, Unit::Percent, Better::Lower)
            .label(label::HOST, host::CLIENT),
    );
    if let Some(r) = o.remote_cpu {
        result.metrics.push(
            Metric::new(metric::CPU, r.total, Unit::Percent, Better::Lower)
                .label(label::HOST, host::SERVER),
        );
    }
    let points: Vec<(f64, f64)> = o
        .intervals
        .iter()
        .map(|iv| {
            let bytes: u64 = iv.streams.iter().map(|s| s.bytes).sum();
            (iv.end, bytes as f64 / (iv.end - iv.start).max(1e-9))
        })
        .collect();
    if !points.is_empty() {
        result.series.push(TimeSeries {
            name: metric::THROUGHPUT.into(),
            unit: Unit::BytesPerSecond,
            labels: [(label::HOST.to_string(), host::CLIENT.to_string())]
                .into_iter()
                .collect(),
            points,
        });
    }
}

impl Benchmark for Throughput {
    fn id(&self) -> &'static str {
        match self.config.protocol {
            Protocol::Tcp => names::TCP,
            Protocol::Udp => names::UDP,
        }
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    /// Runs the test; with `loopback`, against the server started in this
    /// process for it.
    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        if !self.config.loopback {
            return self.measure(&self.config, ctx);
        }
        with_iperf3_server(self.config.mss, |port| {
            let config = ClientConfig {
                host: Ipv4Addr::LOCALHOST.to_string(),
                port,
                ..self.config.clone()
            };
            self.measure(&config, ctx)
        })
    }
}

impl Throughput {
    /// One test against `c`'s server, recorded.
    fn measure(&self, c: &ClientConfig, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let mut result = BenchResult::new(self.id());
        result.set_param(param::HOST, &c.host);
        result.set_param(param::PORT, c.port);
        result.set_param(param::PARALLEL, c.parallel);
        result.set_param(param::DURATION_S, c.duration.as_secs_f64());
        result.set_param(param::REVERSE, c.reverse);
        result.set_param(param::BIDIR, c.bidir);
        result.set_param(param::ZEROCOPY, c.zerocopy);
        result.set_param(param::WINDOW, c.window);
        result.set_param(param::BITRATE, c.bitrate);
        result.set_param(param::MSS, c.mss);
        if c.loopback {
            result.set_param(param::IN_PROCESS_SERVER, true);
        }
        let peer: Option<SocketAddr> = (c.host.trim_matches(|ch| ch == '[' || ch == ']'), c.port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next());
        match peer.and_then(route::egress_to) {
            Some(e) => {
                result.set_param(param::INTERFACE, &e.interface);
                result.set_param(param::MTU, e.mtu);
                result.set_param(param::LOCAL_ADDRESS, e.local.to_string());
            }
            None => result.set_param(param::MTU, "unknown"),
        }
        ctx.progress.start(self.id(), 1);
        match iperf3::run_client(c, &ctx.cancel) {
            Ok(o) => {
                result.set_param(param::LENGTH, o.length);
                if let Some(m) = o.data_mss {
                    result.set_param(param::DATA_MSS, m);
                }
                record_outcome(&mut result, &o);
                if ctx.cancel.is_cancelled() {
                    result.mark_cancelled();
                }
            }
            Err(e) => {
                result.mark_failed(e.to_string());
            }
        }
        ctx.progress.finish();
        ctx.record(result)?;
        Ok(())
    }
}
