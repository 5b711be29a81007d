//! iperf 2's text output, client's or server's, TCP or UDP, with `-P`
//! streams summed on `[SUM]` lines and the UDP server's report the client
//! prints. Each test becomes one `net.tcp` or `net.udp` result: the client
//! counts the sender's side, the server the receiver's; the whole-test line
//! of a stream is its last one starting at 0.0 (the `-i` intervals come
//! before it).

use nodebench_core::model::{BenchResult, Printed};
use nodebench_core::names::net::{direction, host, param, side};

use crate::formats::transfer::{self, Datagrams, Transfer};
use crate::text::{flag_value, iperf_bits, iperf_bytes, number};

/// A client's first line after the dashes.
const CLIENT: &str = "Client connecting to ";
/// A server's first line after the dashes.
const SERVER: &str = "Server listening on ";
/// The line a UDP client prints before the server's report.
const SERVER_REPORT: &str = "Server Report:";
/// A connection line's words.
const CONNECTED: &str = " connected with ";

/// True when `text` holds iperf 2 output: a client's or server's banner and
/// a report line.
pub(crate) fn detect(text: &str) -> bool {
    text.lines().any(is_banner) && text.lines().any(|l| report(l).is_some())
}

/// `Client connecting to H, TCP port P` or `Server listening on UDP port P`
/// (iperf3's `Server listening on 5201` names no protocol).
fn is_banner(line: &str) -> bool {
    (line.starts_with(CLIENT) || line.starts_with(SERVER))
        && (line.contains("TCP port") || line.contains("UDP port"))
}

/// One result per test in `text`.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = (0..lines.len()).filter(|&i| is_banner(lines[i])).collect();
    if starts.is_empty() {
        return Err(format!(
            "expected a `{CLIENT}H, TCP port P` or `{SERVER}TCP port P` line"
        ));
    }
    if let Some((i, last)) = lines
        .iter()
        .enumerate()
        .rfind(|(_, l)| !l.trim().is_empty())
        && last.starts_with('[')
        && !is_stream_line(last)
    {
        return Err(format!("line {}: cut off: `{}`", i + 1, last.trim()));
    }
    let mut results = Vec::new();
    for (k, &from) in starts.iter().enumerate() {
        let next = starts.get(k + 1).copied().unwrap_or(lines.len());
        // A block ends at the next banner or at a shell prompt line.
        let to = (from + 1..next)
            .find(|&i| is_shell(lines[i]))
            .unwrap_or(next);
        let command = (from.saturating_sub(4)..from)
            .rev()
            .map(|i| lines[i])
            .find_map(command_of);
        let block = &lines[from..to];
        if block[0].starts_with(CLIENT) {
            results.push(client(block, from, command)?);
        } else {
            for (at, test) in server_tests(block, from) {
                results.push(server(test, at, command)?);
            }
        }
    }
    Ok(results)
}

/// A whole `[ N]` line iperf prints: a report, a connection, the column
/// header, a UDP client's `Sent N datagrams` or `Server Report:`.
fn is_stream_line(line: &str) -> bool {
    report(line).is_some()
        || line.contains(CONNECTED)
        || line.starts_with("[ ID] Interval")
        || line.contains(SERVER_REPORT)
        || (line.contains("] Sent ") && line.trim_end().ends_with("datagrams"))
}

/// A shell prompt line (`# ifconfig ...`, `$ iperf ...`).
fn is_shell(line: &str) -> bool {
    line.starts_with("# ") || line.starts_with("$ ")
}

/// The iperf command of a shell line.
fn command_of(line: &str) -> Option<&str> {
    let l = line.trim_start_matches(['#', '$', ' ', '\t']);
    l.starts_with("iperf ").then_some(l)
}

/// One report line: `[  3]  0.0-30.0 sec  32.9 GBytes  9.40 Gbits/sec`,
/// with the UDP receiver's `0.000 ms 0/2678 (0%)` after it.
#[derive(Debug, Clone, PartialEq)]
struct Report {
    stream: String,
    start: f64,
    end: f64,
    transfer: Transfer,
    datagrams: Option<Datagrams>,
}

/// Reads a report line.
fn report(line: &str) -> Option<Report> {
    let rest = line.strip_prefix('[')?;
    let (stream, rest) = rest.split_once(']')?;
    let (interval, rest) = rest.split_once(" sec ")?;
    let (start, end) = interval.trim().split_once('-')?;
    let w: Vec<&str> = rest.split_whitespace().collect();
    if w.len() < 4 {
        return None;
    }
    let datagrams = match w.get(4..8) {
        Some([jitter, "ms", lost_total, percent]) => {
            Some(Datagrams::read(jitter, lost_total, percent)?)
        }
        _ => None,
    };
    Some(Report {
        stream: stream.trim().to_string(),
        start: number(start)?,
        end: number(end)?,
        transfer: Transfer {
            bytes: iperf_bytes(w[0], w[1])?,
            bits_per_second: iperf_bits(w[2], w[3])?,
            printed: [Printed::new(w[0], w[1]), Printed::new(w[2], w[3])],
        },
        datagrams,
    })
}

/// The whole-test report of a test's lines: the `[SUM]` stream's when there
/// is one, else the single stream's; it must be the stream's last line and
/// start at 0.
fn total<'a>(reports: &'a [Report], what: &str, at: usize) -> Result<&'a Report, String> {
    let stream = if reports.iter().any(|r| r.stream == "SUM") {
        "SUM"
    } else {
        match reports.first() {
            Some(r) => r.stream.as_str(),
            None => {
                return Err(format!(
                    "line {}: expected the {what}'s report lines",
                    at + 1
                ));
            }
        }
    };
    reports
        .iter()
        .rfind(|r| r.stream == stream)
        .filter(|r| r.start == 0.0)
        .ok_or_else(|| {
            format!(
                "line {}: expected the {what}'s whole-test line (`[{stream}]  0.0-T sec ...`) after its intervals",
                at + 1
            )
        })
}

/// The interval lines of `total`'s stream before it, `(end, bits/s)`.
fn intervals(reports: &[Report], total: &Report) -> Vec<(f64, f64)> {
    let mine: Vec<&Report> = reports
        .iter()
        .filter(|r| r.stream == total.stream)
        .collect();
    mine[..mine.len().saturating_sub(1)]
        .iter()
        .filter(|r| r.end > r.start)
        .map(|r| (r.end, r.transfer.bits_per_second))
        .collect()
}

/// A client's test: its own line is the sender's; a UDP client's `Server
/// Report:` the receiver's.
fn client(block: &[&str], at: usize, command: Option<&str>) -> Result<BenchResult, String> {
    let udp = block[0].contains("UDP port");
    let split = block
        .iter()
        .position(|l| l.contains(SERVER_REPORT))
        .unwrap_or(block.len());
    let own: Vec<Report> = block[..split].iter().filter_map(|l| report(l)).collect();
    let sent = total(&own, "client", at)?;
    if let Some(t) = command.and_then(|c| flag_value(c, "-t")).and_then(number) {
        // iperf 2 ends within a few hundred ms of -t; an earlier end is a
        // cut-off interval line.
        if sent.end < t * 0.9 {
            return Err(format!(
                "line {}: the last client line ends at {} s of a {t} s test",
                at + 1,
                sent.end
            ));
        }
    }
    let dir = if command.is_some_and(|c| crate::text::has_flag(c, "-R")) {
        direction::SERVER_TO_CLIENT
    } else {
        direction::CLIENT_TO_SERVER
    };
    let mut r = transfer::result(udp);
    transfer::push_transfer(&mut r, dir, side::SENDER, &sent.transfer);
    transfer::push_intervals(&mut r, host::CLIENT, &intervals(&own, sent));
    if split < block.len() {
        let theirs: Vec<Report> = block[split..].iter().filter_map(|l| report(l)).collect();
        let received = theirs.last().ok_or_else(|| {
            format!(
                "line {}: expected the server's report after `{SERVER_REPORT}`",
                at + split + 1
            )
        })?;
        transfer::push_transfer(&mut r, dir, side::RECEIVER, &received.transfer);
        if let Some(d) = &received.datagrams {
            transfer::push_datagrams(&mut r, dir, d);
        }
    } else if udp
        && !block
            .iter()
            .any(|l| l.contains("WARNING: did not receive ack"))
    {
        return Err(format!(
            "line {}: expected the UDP server's report (`{SERVER_REPORT}`) after the client's line",
            at + 1
        ));
    }
    // `Client connecting to 10.0.0.1, TCP port 5001`
    if let Some((host, port)) = block[0]
        .strip_prefix(CLIENT)
        .and_then(|l| l.split_once(", "))
    {
        r.set_param(param::HOST, host);
        if let Some(p) = port
            .split_whitespace()
            .last()
            .and_then(|p| p.parse::<u16>().ok())
        {
            r.set_param(param::PORT, p);
        }
    }
    set_common_params(&mut r, block, command);
    Ok(r)
}

/// A server block's tests: each starts at a run of `connected with` lines.
fn server_tests<'a>(block: &'a [&'a str], at: usize) -> Vec<(usize, &'a [&'a str])> {
    let mut starts = Vec::new();
    for (i, l) in block.iter().enumerate() {
        let after_report = i > 0 && !block[i - 1].contains(CONNECTED);
        if l.contains(CONNECTED) && (starts.is_empty() || after_report) {
            starts.push(i);
        }
    }
    if starts.is_empty() {
        return vec![(at, block)];
    }
    (0..starts.len())
        .map(|k| {
            let from = starts[k];
            let to = starts.get(k + 1).copied().unwrap_or(block.len());
            (at + from, &block[from..to])
        })
        .collect()
}

/// A server's test: its lines are the receiver's.
fn server(test: &[&str], at: usize, command: Option<&str>) -> Result<BenchResult, String> {
    let reports: Vec<Report> = test.iter().filter_map(|l| report(l)).collect();
    let received = total(&reports, "server", at)?;
    let mut r = transfer::result(received.datagrams.is_some());
    let dir = direction::CLIENT_TO_SERVER;
    transfer::push_transfer(&mut r, dir, side::RECEIVER, &received.transfer);
    if let Some(d) = &received.datagrams {
        transfer::push_datagrams(&mut r, dir, d);
    }
    transfer::push_intervals(&mut r, host::SERVER, &intervals(&reports, received));
    set_common_params(&mut r, test, command);
    Ok(r)
}

/// Streams, datagram length and the command line.
fn set_common_params(r: &mut BenchResult, lines: &[&str], command: Option<&str>) {
    if let Some(c) = command {
        transfer::set_command_params(r, c);
    }
    let streams = lines.iter().filter(|l| l.contains(CONNECTED)).count();
    if streams > 0 {
        r.set_param(param::PARALLEL, streams);
    }
    // `Sending 1470 byte datagrams, IPG target: ...`
    if let Some(len) = lines.iter().find_map(|l| {
        l.strip_prefix("Sending ")?
            .split_whitespace()
            .next()?
            .parse::<u64>()
            .ok()
    }) {
        r.set_param(param::LENGTH, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::value;
    use nodebench_core::names::net::{self as names, label, metric};

    const SEED_001: &str = include_str!("../../tests/fixtures/iperf-seed001.txt");
    const TCP: &str = include_str!("../../tests/fixtures/iperf-tcp.txt");
    const TCP_P2: &str = include_str!("../../tests/fixtures/iperf-tcp-p2.txt");
    const SERVER_OUT: &str = include_str!("../../tests/fixtures/iperf-server.txt");
    const UDP: &str = include_str!("../../tests/fixtures/iperf-udp.txt");
    const UDP_SERVER: &str = include_str!("../../tests/fixtures/iperf-udp-server.txt");

    const C2S: (&str, &str) = (label::DIRECTION, direction::CLIENT_TO_SERVER);
    const SENDER: (&str, &str) = (label::SIDE, side::SENDER);
    const RECEIVER: (&str, &str) = (label::SIDE, side::RECEIVER);

    #[test]
    fn seed_001_servers_and_clients_at_two_mtus() {
        assert!(detect(SEED_001));
        let results = parse(SEED_001).unwrap();
        assert_eq!(results.len(), 4);
        assert!(results.iter().all(|r| r.benchmark == names::TCP));
        // Server (receiver) 9.40 Gbits/sec, client (sender) 9.41, then 9.89 / 9.91.
        assert_eq!(
            value(&results[0], metric::THROUGHPUT, &[C2S, RECEIVER]),
            9.40e9 / 8.0
        );
        assert_eq!(
            value(&results[0], metric::BYTES, &[C2S, RECEIVER]),
            32.9 * 1073741824.0
        );
        assert_eq!(
            value(&results[1], metric::THROUGHPUT, &[C2S, SENDER]),
            9.41e9 / 8.0
        );
        assert_eq!(
            value(&results[2], metric::THROUGHPUT, &[C2S, RECEIVER]),
            9.89e9 / 8.0
        );
        assert_eq!(
            value(&results[3], metric::THROUGHPUT, &[C2S, SENDER]),
            9.91e9 / 8.0
        );
        assert_eq!(
            value(&results[3], metric::BYTES, &[C2S, SENDER]),
            34.6 * 1073741824.0
        );
        let c = &results[1];
        assert_eq!(c.param(param::HOST), Some(&"203.XXX.YYY.60".into()));
        assert_eq!(c.param(param::PORT), Some(&5001.into()));
        assert_eq!(c.param(param::DURATION_S), Some(&30.0.into()));
        assert_eq!(c.param(param::WINDOW), Some(&(32u64 << 20).into()));
        assert_eq!(
            c.param(crate::param::TOOL_COMMAND),
            Some(&"iperf -c 203.XXX.YYY.60 -i 1 -t 30 -w 32M".into())
        );
        assert_eq!(
            results[0].param(crate::param::TOOL_COMMAND),
            Some(&"iperf -s -w 32M".into())
        );
    }

    #[test]
    fn a_client_with_intervals_takes_the_whole_test_line() {
        let r = &parse(TCP).unwrap()[0];
        assert_eq!(value(r, metric::THROUGHPUT, &[C2S, SENDER]), 17.4e9 / 8.0);
        assert_eq!(value(r, metric::BYTES, &[C2S, SENDER]), 6.12 * 1073741824.0);
        assert_eq!(r.param(param::PARALLEL), Some(&1.into()));
        // The -i 1 lines before it are kept as the client's series.
        assert_eq!(r.series.len(), 1);
        let s = &r.series[0];
        assert_eq!(s.name, metric::THROUGHPUT);
        assert_eq!(
            s.labels.get(label::HOST).map(String::as_str),
            Some("client")
        );
        assert_eq!(
            s.points,
            vec![
                (1.0, 20.1e9 / 8.0),
                (2.0, 16.3e9 / 8.0),
                (3.0, 16.2e9 / 8.0)
            ]
        );
    }

    #[test]
    fn parallel_streams_take_the_sum_line() {
        let r = &parse(TCP_P2).unwrap()[0];
        assert_eq!(value(r, metric::THROUGHPUT, &[C2S, SENDER]), 35.8e9 / 8.0);
        assert_eq!(r.param(param::PARALLEL), Some(&2.into()));
        let server = parse(SERVER_OUT).unwrap();
        assert_eq!(server.len(), 2, "a single-stream test, then a -P 2 one");
        assert_eq!(
            value(&server[0], metric::THROUGHPUT, &[C2S, RECEIVER]),
            17.5e9 / 8.0
        );
        assert_eq!(
            value(&server[1], metric::THROUGHPUT, &[C2S, RECEIVER]),
            35.9e9 / 8.0
        );
        assert_eq!(
            value(&server[1], metric::BYTES, &[C2S, RECEIVER]),
            12.5 * 1073741824.0
        );
        assert_eq!(server[1].param(param::PARALLEL), Some(&2.into()));
    }

    #[test]
    fn udp_client_with_the_server_report_and_udp_server() {
        let r = &parse(UDP).unwrap()[0];
        assert_eq!(r.benchmark, names::UDP);
        assert_eq!(value(r, metric::THROUGHPUT, &[C2S, SENDER]), 10.5e6 / 8.0);
        assert_eq!(value(r, metric::THROUGHPUT, &[C2S, RECEIVER]), 10.5e6 / 8.0);
        assert_eq!(value(r, metric::BYTES, &[C2S, RECEIVER]), 3.75 * 1048576.0);
        assert_eq!(value(r, metric::PACKETS_SENT, &[C2S]), 2678.0);
        assert_eq!(value(r, metric::LOST_PACKETS, &[C2S]), 0.0);
        assert_eq!(value(r, metric::JITTER, &[C2S]), 0.0);
        assert_eq!(r.param(param::LENGTH), Some(&1470.into()));
        let s = &parse(UDP_SERVER).unwrap()[0];
        assert_eq!(s.benchmark, names::UDP);
        assert_eq!(value(s, metric::PACKETS_SENT, &[C2S]), 2678.0);
        assert_eq!(value(s, metric::THROUGHPUT, &[C2S, RECEIVER]), 10.5e6 / 8.0);
    }

    #[test]
    fn halves_and_foreign_text_are_refused() {
        for text in [TCP, TCP_P2, SERVER_OUT, UDP, UDP_SERVER] {
            let half = &text[..text.len() / 2];
            assert!(parse(half).is_err(), "half accepted: {half}");
        }
        // Seed 001's first half is its first two tests, complete; three
        // quarters end inside the second client's intervals.
        assert_eq!(parse(&SEED_001[..SEED_001.len() / 2]).unwrap().len(), 2);
        assert!(parse(&SEED_001[..SEED_001.len() * 3 / 4]).is_err());
        let iperf3 = include_str!("../../tests/fixtures/iperf3-tcp.txt");
        assert!(!detect(iperf3));
        assert!(parse(iperf3).is_err());
    }

    #[test]
    fn a_client_cut_inside_its_intervals_names_what_is_missing() {
        let cut: String = SEED_001
            .lines()
            .take(30)
            .map(|l| format!("{l}\n"))
            .collect();
        let e = parse(&cut).unwrap_err();
        assert!(
            e.contains("whole-test line") || e.contains("of a 30 s test"),
            "{e}"
        );
    }
}
