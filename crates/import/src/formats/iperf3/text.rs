//! iperf3's text output, client's or server's. A test starts at
//! `Connecting to host H, port P` (client) or `Accepted connection from`
//! (server); its totals are the lines after the last `- - -` separator that
//! end in `sender` or `receiver` (the `[SUM]` lines when there are parallel
//! streams).

use nodebench_core::model::{BenchResult, Better, Printed};
use nodebench_core::names::net::{direction, host, metric, param, side};

use crate::formats::transfer::{self, Datagrams, Transfer};
use crate::text::{iperf_bits, iperf_bytes, number};

/// The line a client's test starts with.
const CONNECTING: &str = "Connecting to host ";
/// The line a server's test starts with.
const ACCEPTED: &str = "Accepted connection from ";
/// The line a client prints last.
const DONE: &str = "iperf Done.";
/// The line a client prints in `-R` mode.
const REVERSE: &str = "Reverse mode";

/// True when `text` holds iperf3 text output: a test's first line and a
/// summary line ending in `sender` or `receiver`.
pub(super) fn detect(text: &str) -> bool {
    text.lines()
        .any(|l| l.trim_start().starts_with(CONNECTING) || l.contains(ACCEPTED))
        && text.lines().any(|l| summary(l).is_some())
}

/// One result per test in `text`.
pub(super) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(CONNECTING) || l.starts_with(ACCEPTED))
        .map(|(i, _)| i)
        .collect();
    if starts.is_empty() {
        return Err(format!(
            "expected a `{CONNECTING}H, port P` or `{ACCEPTED}` line"
        ));
    }
    let mut results = Vec::new();
    for (k, &from) in starts.iter().enumerate() {
        let to = starts.get(k + 1).copied().unwrap_or(lines.len());
        // The shell or version lines just above a client's test belong to it.
        let header_from = if k == 0 { 0 } else { starts[k - 1] + 1 };
        results.push(test(
            &lines[header_from.max(from.saturating_sub(6))..from],
            &lines[from..to],
            from,
        )?);
    }
    Ok(results)
}

/// One summary line: the stream (`5` or `SUM`), the figures, the role.
#[derive(Debug, Clone, PartialEq)]
struct Summary {
    stream: String,
    transfer: Transfer,
    /// TCP sender: retransmits, when printed, and as printed.
    retransmits: Option<(f64, Printed)>,
    /// UDP: the receiver's (or the sender's own) datagram report.
    datagrams: Option<Datagrams>,
    sender: bool,
}

/// Reads `[  5]   0.00-3.00   sec  4.09 GBytes  11.7 Gbits/sec   34   sender`
/// (TCP) or `... 0.006 ms  0/1145 (0%)  receiver` (UDP).
fn summary(line: &str) -> Option<Summary> {
    let line = line.trim_end();
    let (rest, sender) = if let Some(r) = line.strip_suffix("sender") {
        (r, true)
    } else {
        (line.strip_suffix("receiver")?, false)
    };
    let rest = rest.trim_start().strip_prefix('[')?;
    let (stream, rest) = rest.split_once(']')?;
    let w: Vec<&str> = rest.split_whitespace().collect();
    // interval, sec, value, unit, value, unit, then TCP retransmits or UDP report.
    if w.len() < 6 || w[1] != "sec" || !w[0].contains('-') {
        return None;
    }
    let transfer = Transfer {
        bytes: iperf_bytes(w[2], w[3])?,
        bits_per_second: iperf_bits(w[4], w[5])?,
        printed: [Printed::new(w[2], w[3]), Printed::new(w[4], w[5])],
    };
    let mut s = Summary {
        stream: stream.trim().to_string(),
        transfer,
        retransmits: None,
        datagrams: None,
        sender,
    };
    match &w[6..] {
        [] => {}
        [retr] => s.retransmits = Some((number(retr)?, Printed::new(*retr, ""))),
        [jitter, "ms", lost_total, percent] => {
            s.datagrams = Some(Datagrams::read(jitter, lost_total, percent)?);
        }
        _ => return None,
    }
    Some(s)
}

/// One interval line, before the totals: `[  5]   1.00-2.00   sec  1.09
/// GBytes  9.39 Gbits/sec    0   1.52 MBytes` as `(stream, end, bits/s)`.
fn interval(line: &str) -> Option<(String, f64, f64)> {
    let rest = line.trim_start().strip_prefix('[')?;
    let (stream, rest) = rest.split_once(']')?;
    let w: Vec<&str> = rest.split_whitespace().collect();
    if w.len() < 6 || w[1] != "sec" || matches!(w.last(), Some(&"sender" | &"receiver")) {
        return None;
    }
    let (start, end) = w[0].split_once('-')?;
    let (start, end) = (number(start)?, number(end)?);
    (end > start).then_some(())?;
    Some((stream.trim().to_string(), end, iperf_bits(w[4], w[5])?))
}

/// The result of one test: `header` is what precedes it (a shell line, the
/// version), `body` runs from its first line to the next test; `at` is the
/// body's 0-based line number.
fn test(header: &[&str], body: &[&str], at: usize) -> Result<BenchResult, String> {
    let client = body[0].trim_start().starts_with(CONNECTING);
    if body
        .iter()
        .any(|l| l.contains("][TX-") || l.contains("][RX-"))
    {
        return Err(format!(
            "line {}: --bidir output is not supported (import its -J output)",
            at + 1
        ));
    }
    let summaries: Vec<Summary> = body.iter().filter_map(|l| summary(l)).collect();
    let udp = body
        .iter()
        .any(|l| l.contains("Total Datagrams") || l.contains("Lost/Total"));
    let parallel = summaries.iter().any(|s| s.stream == "SUM");
    let totals: Vec<&Summary> = summaries
        .iter()
        .filter(|s| (s.stream == "SUM") == parallel)
        .collect();
    let sent = totals.iter().find(|s| s.sender);
    let received = totals.iter().find(|s| !s.sender);
    if client && (sent.is_none() || received.is_none() || !body.iter().any(|l| l.trim() == DONE)) {
        return Err(format!(
            "line {}: expected the test's `... sender` and `... receiver` summary lines and `{DONE}`",
            at + 1
        ));
    }
    let reverse = body.iter().any(|l| l.starts_with(REVERSE));
    let dir = if !client {
        // A server that sent has a sender line with bytes and no receiver's.
        match (sent, received) {
            (Some(s), r) if s.transfer.bytes > 0.0 && r.is_none_or(|r| r.transfer.bytes == 0.0) => {
                direction::SERVER_TO_CLIENT
            }
            (_, Some(_)) => direction::CLIENT_TO_SERVER,
            _ => {
                return Err(format!(
                    "line {}: expected the test's `... sender` or `... receiver` summary line",
                    at + 1
                ));
            }
        }
    } else if reverse {
        direction::SERVER_TO_CLIENT
    } else {
        direction::CLIENT_TO_SERVER
    };
    let mut r = transfer::result(udp);
    for (s, which) in [(sent, side::SENDER), (received, side::RECEIVER)] {
        let Some(s) = s else { continue };
        if !client && s.transfer.bytes == 0.0 {
            // A server prints the side it did not play as zeros.
            continue;
        }
        transfer::push_transfer(&mut r, dir, which, &s.transfer);
        if let Some((retr, printed)) = &s.retransmits {
            transfer::push_count(
                &mut r,
                dir,
                (metric::RETRANSMITS, Better::Lower),
                *retr,
                printed.clone(),
            );
        }
        if let (Some(d), false) = (&s.datagrams, s.sender) {
            transfer::push_datagrams(&mut r, dir, d);
        }
    }
    // The intervals of the [SUM] stream (or the one stream), up to the
    // separator before the totals.
    let stream = if parallel {
        "SUM".to_string()
    } else {
        totals
            .first()
            .map_or_else(String::new, |s| s.stream.clone())
    };
    let before_totals = body
        .iter()
        .rposition(|l| l.trim_start().starts_with("- - -"))
        .unwrap_or(body.len());
    let points: Vec<(f64, f64)> = body[..before_totals]
        .iter()
        .filter_map(|l| interval(l))
        .filter(|(s, _, _)| *s == stream)
        .map(|(_, end, bits)| (end, bits))
        .collect();
    let who = if client { host::CLIENT } else { host::SERVER };
    transfer::push_intervals(&mut r, who, &points);
    set_params(&mut r, header, body, client, reverse, parallel);
    push_cpu(&mut r, body, client);
    Ok(r)
}

/// `CPU Utilization: local/sender 31.4% (...), remote/receiver 19.8% (...)`
/// (printed with `-V`).
fn push_cpu(r: &mut BenchResult, body: &[&str], client: bool) {
    let Some(line) = body
        .iter()
        .find_map(|l| l.trim().strip_prefix("CPU Utilization:"))
    else {
        return;
    };
    let (local, remote) = if client {
        (host::CLIENT, host::SERVER)
    } else {
        (host::SERVER, host::CLIENT)
    };
    for part in line.split(',') {
        let mut w = part.split_whitespace();
        let (Some(who), Some(pct)) = (w.next(), w.next()) else {
            continue;
        };
        let Some((p, text)) = pct.strip_suffix('%').and_then(|t| Some((number(t)?, t))) else {
            continue;
        };
        let h = if who.starts_with("local") {
            local
        } else {
            remote
        };
        transfer::push_cpu(r, h, p, Printed::new(text, "%"));
    }
}

/// Host and port, streams, version and the command line where printed.
fn set_params(
    r: &mut BenchResult,
    header: &[&str],
    body: &[&str],
    client: bool,
    reverse: bool,
    parallel: bool,
) {
    if let Some(cmd) = header
        .iter()
        .chain(body.iter())
        .map(|l| l.trim_start_matches(['#', '$', ' ', '\t']))
        .find(|l| l.starts_with("iperf3 "))
    {
        transfer::set_command_params(r, cmd);
    }
    if client {
        // `Connecting to host 127.0.0.1, port 5201`
        if let Some((h, p)) = body[0]
            .trim_start()
            .strip_prefix(CONNECTING)
            .and_then(|rest| rest.split_once(", port "))
        {
            r.set_param(param::HOST, h.trim());
            if let Ok(p) = p.trim().parse::<u16>() {
                r.set_param(param::PORT, p);
            }
        }
    }
    r.set_param(param::REVERSE, reverse);
    let streams = body
        .iter()
        .filter(|l| l.starts_with('[') && l.contains(" connected to "))
        .count();
    if streams > 0 {
        r.set_param(param::PARALLEL, streams);
    } else if !parallel {
        r.set_param(param::PARALLEL, 1);
    }
    if let Some(v) = header
        .iter()
        .chain(body.iter())
        .find(|l| l.starts_with("iperf 3"))
    {
        r.set_param(crate::param::TOOL_VERSION, v.trim());
    }
}
