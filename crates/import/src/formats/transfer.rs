//! The `net.tcp` / `net.udp` figures both iperfs print, as nodebench's own
//! `net tcp|udp` records them: bytes and throughput per direction and side,
//! TCP retransmits, UDP datagrams, loss and jitter, each host's CPU use.

use nodebench_core::model::{BenchResult, Better, Metric, Printed, TimeSeries, Unit};
use nodebench_core::names::net::{self as names, label, metric, param};

/// What one summary line says about one side of one direction.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Transfer {
    /// Bytes the side counted.
    pub bytes: f64,
    /// Bits per second the tool printed.
    pub bits_per_second: f64,
    /// The bytes and the rate as the tool printed them (`6.57` `GBytes`,
    /// `18.4` `Gbits/sec`).
    pub printed: [Printed; 2],
}

/// A UDP receiver's report: jitter, lost and total datagrams.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Datagrams {
    /// Jitter, milliseconds as printed.
    pub jitter_ms: f64,
    /// Datagrams lost.
    pub lost: f64,
    /// Datagrams sent, as the receiver counted them (`lost/total`).
    pub total: f64,
    /// Loss as the tool printed it, percent.
    pub lost_percent: f64,
    /// Jitter, lost, total and loss as the tool printed them.
    pub printed: [Printed; 4],
}

impl Datagrams {
    /// A UDP receiver's report as both iperfs print it: `0.006` `ms`
    /// `0/1145` `(0%)`, each figure kept as printed.
    pub(super) fn read(jitter: &str, lost_total: &str, percent: &str) -> Option<Datagrams> {
        use crate::text::number;
        let (lost, total) = lost_total.split_once('/')?;
        let percent = percent.strip_prefix('(')?.strip_suffix("%)")?;
        Some(Datagrams {
            jitter_ms: number(jitter)?,
            lost: number(lost)?,
            total: number(total)?,
            lost_percent: number(percent)?,
            printed: [
                Printed::new(jitter, "ms"),
                Printed::new(lost, ""),
                Printed::new(total, ""),
                Printed::new(percent, "%"),
            ],
        })
    }
}

/// A new `net.tcp` or `net.udp` result.
pub(super) fn result(udp: bool) -> BenchResult {
    BenchResult::new(if udp { names::UDP } else { names::TCP })
}

/// The bytes and throughput (bits/s over 8: nodebench stores B/s) of one
/// side of `direction`.
pub(super) fn push_transfer(r: &mut BenchResult, direction: &str, side: &str, t: &Transfer) {
    let [bytes, rate] = t.printed.clone();
    let m = |name: &str, v: f64, u: Unit, printed: Printed| Metric {
        printed: Some(printed),
        ..Metric::new(name, v, u, Better::Higher)
            .label(label::DIRECTION, direction)
            .label(label::SIDE, side)
    };
    r.metrics
        .push(m(metric::BYTES, t.bytes, Unit::Bytes, bytes));
    r.metrics.push(m(
        metric::THROUGHPUT,
        t.bits_per_second / 8.0,
        Unit::BytesPerSecond,
        rate,
    ));
}

/// A count of `direction` (retransmits, datagrams), as the tool printed it.
pub(super) fn push_count(
    r: &mut BenchResult,
    direction: &str,
    (name, better): (&str, Better),
    v: f64,
    printed: Printed,
) {
    r.metrics.push(Metric {
        printed: Some(printed),
        ..Metric::new(name, v, Unit::Count, better).label(label::DIRECTION, direction)
    });
}

/// A UDP receiver's report of `direction`.
pub(super) fn push_datagrams(r: &mut BenchResult, direction: &str, d: &Datagrams) {
    let [jitter, lost, total, percent] = d.printed.clone();
    push_count(
        r,
        direction,
        (metric::LOST_PACKETS, Better::Lower),
        d.lost,
        lost,
    );
    push_count(
        r,
        direction,
        (metric::PACKETS_SENT, Better::Higher),
        d.total,
        total,
    );
    let at = |m: Metric, printed: Printed| Metric {
        printed: Some(printed),
        ..m.label(label::DIRECTION, direction)
    };
    r.metrics.push(at(
        Metric::new(
            metric::LOST_PERCENT,
            d.lost_percent,
            Unit::Percent,
            Better::Lower,
        ),
        percent,
    ));
    r.metrics.push(at(
        Metric::new(
            metric::JITTER,
            d.jitter_ms / 1e3,
            Unit::Seconds,
            Better::Lower,
        ),
        jitter,
    ));
}

/// The `-i` interval lines a tool printed before its totals, as
/// `(end seconds, bits per second)`: the throughput series of `host`
/// (client or server) as nodebench's own `net tcp|udp` keeps it (B/s at
/// each interval's end). Nothing is added without intervals.
pub(super) fn push_intervals(r: &mut BenchResult, host: &str, intervals: &[(f64, f64)]) {
    if intervals.is_empty() {
        return;
    }
    r.series.push(TimeSeries {
        name: metric::THROUGHPUT.into(),
        unit: Unit::BytesPerSecond,
        labels: [(label::HOST.to_string(), host.to_string())]
            .into_iter()
            .collect(),
        points: intervals.iter().map(|&(t, bits)| (t, bits / 8.0)).collect(),
    });
}

/// CPU use of `host` (client or server), percent, as the tool printed it.
pub(super) fn push_cpu(r: &mut BenchResult, host: &str, percent: f64, printed: Printed) {
    r.metrics.push(Metric {
        printed: Some(printed),
        ..Metric::new(metric::CPU, percent, Unit::Percent, Better::Lower).label(label::HOST, host)
    });
}

/// The test settings a command line (`iperf -c host -t 30 -P 4 -w 32M`)
/// states, as `net tcp` names them.
pub(super) fn set_command_params(r: &mut BenchResult, command: &str) {
    use crate::text::{flag_value, has_flag, number};
    if let Some(host) = flag_value(command, "-c") {
        r.set_param(param::HOST, host);
    }
    if let Some(p) = flag_value(command, "-p").and_then(|v| v.parse::<u16>().ok()) {
        r.set_param(param::PORT, p);
    }
    if let Some(t) = flag_value(command, "-t").and_then(number) {
        r.set_param(param::DURATION_S, t);
    }
    if let Some(n) = flag_value(command, "-P").and_then(|v| v.parse::<u32>().ok()) {
        r.set_param(param::PARALLEL, n);
    }
    if let Some(w) = flag_value(command, "-w").and_then(size) {
        r.set_param(param::WINDOW, w);
    }
    if let Some(l) = flag_value(command, "-l").and_then(size) {
        r.set_param(param::LENGTH, l);
    }
    if let Some(b) = flag_value(command, "-b").and_then(rate) {
        r.set_param(param::BITRATE, b);
    }
    if has_flag(command, "-R") {
        r.set_param(param::REVERSE, true);
    }
    r.set_param(crate::param::TOOL_COMMAND, command);
}

/// An iperf size option (`32M`, `128K`, `1470`): iperf's K/M/G are powers
/// of 1024.
fn size(v: &str) -> Option<u64> {
    let split = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    let (n, p) = v.split_at(split);
    Some((crate::text::number(n)? * crate::text::binary_prefix(p)?) as u64)
}

/// An iperf rate option (`100M`, `1G`): bits per second, K/M/G powers of 1000.
fn rate(v: &str) -> Option<u64> {
    let split = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    let (n, p) = v.split_at(split);
    Some((crate::text::number(n)? * crate::text::decimal_prefix(p)?) as u64)
}
