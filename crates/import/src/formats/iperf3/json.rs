//! iperf3 `-J`: one JSON object per test (several when a file holds several
//! runs one after the other). The `end` object's `sum_sent` and
//! `sum_received` are the sender's and the receiver's totals.

use nodebench_core::model::{BenchResult, Better, Metric, Printed, Unit};
use nodebench_core::names::net::{direction, host, label, metric, param, side};
use serde_json::Value;

use crate::formats::transfer::{self, Datagrams, Transfer};

/// The keys every iperf3 JSON test has at its top.
const START: &str = "\"start\"";
/// iperf3's name for the settings of a test.
const TEST_START: &str = "\"test_start\"";

/// True when `text` is iperf3 JSON.
pub(super) fn detect(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.contains(START) && text.contains(TEST_START)
}

/// One result per JSON object in `text`.
pub(super) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let mut results = Vec::new();
    for (i, value) in serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .enumerate()
    {
        let value = value.map_err(|e| format!("test {}: not complete JSON: {e}", i + 1))?;
        results.push(test(&value).map_err(|e| format!("test {}: {e}", i + 1))?);
    }
    Ok(results)
}

/// `v[key]` as a number.
fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key)?.as_f64()
}

/// `v[key]` as iperf3 printed it: the number's JSON text, named by its key
/// (`"bits_per_second": 8216395776.432` is `8216395776.432`
/// `bits_per_second`).
fn as_printed(v: &Value, key: &str) -> Printed {
    Printed::new(v.get(key).map(as_cjson_prints).unwrap_or_default(), key)
}

/// A JSON number as iperf3's cJSON prints it: an integer as it is, a
/// float as C's `%1.15g` when that reads back as the same double, else
/// `%1.17g` (`8215659115.1011086`).
fn as_cjson_prints(v: &Value) -> String {
    match v.as_f64() {
        Some(f) if v.is_f64() => {
            let short = c_g(f, 15);
            if short.parse::<f64>() == Ok(f) {
                short
            } else {
                c_g(f, 17)
            }
        }
        _ => v.to_string(),
    }
}

/// C's `%.{precision}g` of `v`: `precision` significant digits, trailing
/// zeros dropped, in exponent form below 1e-4 or from 10^precision.
fn c_g(v: f64, precision: usize) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    let e = format!("{:.*e}", precision - 1, v);
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= precision as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        let decimals = usize::try_from(precision as i32 - 1 - exp).unwrap_or(0);
        trim(&format!("{v:.decimals$}"))
    }
}

/// The `bytes` and `bits_per_second` of a sum.
fn transfer_of(sum: &Value) -> Option<Transfer> {
    Some(Transfer {
        bytes: num(sum, "bytes")?,
        bits_per_second: num(sum, "bits_per_second")?,
        printed: [as_printed(sum, "bytes"), as_printed(sum, "bits_per_second")],
    })
}

/// The result of one test object.
fn test(v: &Value) -> Result<BenchResult, String> {
    if let Some(e) = v.get("error").and_then(Value::as_str) {
        return Err(format!("iperf3 reported an error: {e}"));
    }
    let start = v.get("start").ok_or("expected a `start` object")?;
    let settings = start
        .get("test_start")
        .ok_or("expected `start.test_start`")?;
    let udp = settings.get("protocol").and_then(Value::as_str) == Some("UDP");
    let end = v
        .get("end")
        .filter(|e| e.get("sum_sent").is_some() && e.get("sum_received").is_some())
        .ok_or("expected `end.sum_sent` and `end.sum_received` (the test's totals)")?;
    let mut r = transfer::result(udp);
    set_params(&mut r, start, settings);
    let reverse = num(settings, "reverse").unwrap_or(0.0) != 0.0;
    let mut directions = vec![(
        if reverse {
            direction::SERVER_TO_CLIENT
        } else {
            direction::CLIENT_TO_SERVER
        },
        "",
    )];
    // iperf3 3.12 says `--bidir` only by the second pair of sums.
    let bidir =
        num(settings, "bidir").unwrap_or(0.0) != 0.0 || end.get("sum_sent_bidir_reverse").is_some();
    if bidir {
        directions.push((direction::SERVER_TO_CLIENT, "_bidir_reverse"));
        r.set_param(param::BIDIR, true);
    }
    for (dir, suffix) in directions {
        let sent = end
            .get(format!("sum_sent{suffix}"))
            .ok_or_else(|| format!("expected `end.sum_sent{suffix}`"))?;
        let received = end
            .get(format!("sum_received{suffix}"))
            .ok_or_else(|| format!("expected `end.sum_received{suffix}`"))?;
        for (s, sum) in [(side::SENDER, sent), (side::RECEIVER, received)] {
            let t = transfer_of(sum).ok_or_else(|| {
                format!("expected `bytes` and `bits_per_second` in the {s}'s sum")
            })?;
            transfer::push_transfer(&mut r, dir, s, &t);
        }
        if udp {
            // The receiver's report; iperf3 before 3.8 has it in `sum` only.
            let report = if num(received, "packets").is_some() {
                received
            } else {
                end.get("sum").ok_or("expected the UDP receiver's `sum`")?
            };
            let d = Datagrams {
                jitter_ms: num(report, "jitter_ms").ok_or("expected `jitter_ms`")?,
                lost: num(report, "lost_packets").ok_or("expected `lost_packets`")?,
                total: num(report, "packets").ok_or("expected `packets`")?,
                lost_percent: num(report, "lost_percent").ok_or("expected `lost_percent`")?,
                printed: ["jitter_ms", "lost_packets", "packets", "lost_percent"]
                    .map(|k| as_printed(report, k)),
            };
            transfer::push_datagrams(&mut r, dir, &d);
        } else if let Some(retr) = num(sent, "retransmits") {
            transfer::push_count(
                &mut r,
                dir,
                (metric::RETRANSMITS, Better::Lower),
                retr,
                as_printed(sent, "retransmits"),
            );
        }
        if suffix.is_empty() && !udp {
            push_stream_tcp_info(&mut r, dir, end);
        }
    }
    // The intervals' sums (the test's direction; `sum_bidir_reverse` is the
    // other one's), as the series of the host that printed them.
    let points: Vec<(f64, f64)> = v
        .get("intervals")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|i| {
                    let sum = i.get("sum")?;
                    let (start, end) = (num(sum, "start")?, num(sum, "end")?);
                    (end > start).then_some((end, num(sum, "bits_per_second")?))
                })
                .collect()
        })
        .unwrap_or_default();
    let who = if start.get("connecting_to").is_some() {
        host::CLIENT
    } else {
        host::SERVER
    };
    transfer::push_intervals(&mut r, who, &points);
    if let Some(cpu) = end.get("cpu_utilization_percent") {
        let (local, remote) = if start.get("connecting_to").is_some() {
            (host::CLIENT, host::SERVER)
        } else {
            (host::SERVER, host::CLIENT)
        };
        for (h, key) in [(local, "host_total"), (remote, "remote_total")] {
            if let Some(p) = num(cpu, key) {
                transfer::push_cpu(&mut r, h, p, as_printed(cpu, key));
            }
        }
    }
    Ok(r)
}

/// The senders' largest congestion window and mean smoothed RTT, from the
/// per-stream `sender` objects (Linux only).
fn push_stream_tcp_info(r: &mut BenchResult, dir: &str, end: &Value) {
    // Only the sending end has TCP_INFO figures: streams this host received
    // on (`-R`, the reverse half of `--bidir`) have none.
    let senders: Vec<&Value> = end
        .get("streams")
        .and_then(Value::as_array)
        .map(|s| {
            s.iter()
                .filter_map(|s| s.get("sender"))
                .filter(|s| s.get("max_snd_cwnd").is_some())
                .collect()
        })
        .unwrap_or_default();
    // The largest stream's window, as that stream printed it.
    let cwnd = senders
        .iter()
        .filter_map(|s| Some((num(s, "max_snd_cwnd")?, *s)))
        .fold(None, |m: Option<(f64, &Value)>, (v, s)| match m {
            Some((best, _)) if best >= v => m,
            _ => Some((v, s)),
        });
    if let Some((c, stream)) = cwnd {
        r.metrics.push(Metric {
            printed: Some(as_printed(stream, "max_snd_cwnd")),
            ..Metric::new(metric::SND_CWND_MAX, c, Unit::Bytes, Better::Higher)
                .label(label::DIRECTION, dir)
        });
    }
    let rtts: Vec<f64> = senders.iter().filter_map(|s| num(s, "mean_rtt")).collect();
    if !rtts.is_empty() {
        let mean_us = rtts.iter().sum::<f64>() / rtts.len() as f64;
        // One stream's mean RTT is iperf3's figure; the mean of several
        // streams' is nodebench's (derived).
        let printed = match senders[..] {
            [one] if rtts.len() == 1 => Some(as_printed(one, "mean_rtt")),
            _ => None,
        };
        r.metrics.push(Metric {
            printed,
            ..Metric::new(metric::RTT, mean_us / 1e6, Unit::Seconds, Better::Lower)
                .label(label::DIRECTION, dir)
        });
    }
}

/// The test's settings as `net`'s parameters, and iperf3's version.
fn set_params(r: &mut BenchResult, start: &Value, settings: &Value) {
    if let Some(to) = start.get("connecting_to") {
        if let Some(h) = to.get("host").and_then(Value::as_str) {
            r.set_param(param::HOST, h);
        }
        if let Some(p) = to.get("port").and_then(Value::as_u64) {
            r.set_param(param::PORT, p);
        }
    }
    for (key, name) in [
        ("num_streams", param::PARALLEL),
        ("blksize", param::LENGTH),
        ("target_bitrate", param::BITRATE),
    ] {
        if let Some(n) = settings.get(key).and_then(Value::as_u64) {
            r.set_param(name, n);
        }
    }
    if let Some(d) = num(settings, "duration") {
        r.set_param(param::DURATION_S, d);
    }
    if let Some(n) = num(settings, "reverse") {
        r.set_param(param::REVERSE, n != 0.0);
    }
    if let Some(w) = start
        .get("sock_bufsize")
        .and_then(Value::as_u64)
        .filter(|&w| w > 0)
    {
        r.set_param(param::WINDOW, w);
    }
    if let Some(v) = start.get("version").and_then(Value::as_str) {
        r.set_param(crate::param::TOOL_VERSION, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_cjson_prints_them() {
        let n = |s: &str| as_cjson_prints(&serde_json::from_str::<Value>(s).unwrap());
        assert_eq!(n("8215659115.1011086"), "8215659115.1011086");
        assert_eq!(n("43.034886787944778"), "43.034886787944778");
        assert_eq!(n("3081502720"), "3081502720");
        assert_eq!(n("0.5"), "0.5");
        assert_eq!(n("1.5e-07"), "1.5e-07");
    }
}
