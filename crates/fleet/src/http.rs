//! `fleet http`: the same `http load` from every generator host with a
//! synchronised start, and the generators' latency HdrHistograms merged
//! exactly (added, not averaged), so the combined percentiles are those of
//! all requests.
//!
//! The start: each host's clock offset to this machine is measured over ssh
//! (the reply of least round trip of several `date +%s%N` in one session; offset = the host's
//! time minus the midpoint of the round trip, uncertain by half of it); a
//! start time a few seconds ahead is turned into each host's own clock, and
//! the host's shell sleeps until it before starting nodebench. Each
//! generator's measured start (its run's `started_at`, brought back to this
//! machine's clock) is reported against the agreed time.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

use chrono::{DateTime, Utc};
use nodebench_core::bench::Cancel;
use nodebench_core::model::{Histogram, Run};
use nodebench_core::names::http as names;

use crate::hosts::Host;
use crate::remote::{self, Binaries};
use crate::run::{for_each_host, run_remote_at};
use crate::ssh::{HostError, Ssh, exit_text, tail};

/// Round trips measured per host for its clock offset.
const CLOCK_SAMPLES: usize = 16;

/// A host's clock against this machine's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockOffset {
    /// Host clock minus this machine's, in nanoseconds.
    pub offset_ns: i64,
    /// Round trip of the sample it comes from (the offset is within half of it).
    pub rtt_ns: i64,
}

/// This machine's clock in nanoseconds since the epoch.
fn now_ns() -> i64 {
    Utc::now().timestamp_nanos_opt().unwrap_or(0)
}

/// Measures `host`'s clock offset over one ssh session (a shell answering
/// each line read with `date +%s%N`, so no sample pays for starting ssh):
/// the sample of least round trip.
pub fn clock_offset(ssh: &Ssh, host: &Host) -> Result<ClockOffset, HostError> {
    let mut child = ssh
        .command(host, "while read -r _; do date +%s%N; done")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| HostError::new(format!("cannot run ssh: {e}")))?;
    let mut input = child.stdin.take().expect("piped");
    let mut output = BufReader::new(child.stdout.take().expect("piped"));
    let mut best: Option<ClockOffset> = None;
    let mut failure = None;
    for _ in 0..CLOCK_SAMPLES {
        let mut line = String::new();
        let t0 = now_ns();
        if input.write_all(b"\n").and_then(|()| input.flush()).is_err()
            || output.read_line(&mut line).unwrap_or(0) == 0
        {
            failure = Some("clock: the host stopped answering".to_string());
            break;
        }
        let t1 = now_ns();
        let Ok(remote) = line.trim().parse::<i64>() else {
            failure = Some(format!("clock: unexpected reply '{}'", line.trim()));
            break;
        };
        let sample = ClockOffset {
            offset_ns: remote - (t0 + (t1 - t0) / 2),
            rtt_ns: t1 - t0,
        };
        if best.is_none_or(|b| sample.rtt_ns < b.rtt_ns) {
            best = Some(sample);
        }
    }
    drop(input);
    let _ = child.wait();
    match (best, failure) {
        (Some(b), None) => Ok(b),
        (_, f) => Err(HostError::new(
            f.unwrap_or_else(|| "clock: no sample".into()),
        )),
    }
}

/// One generator's part.
#[derive(Debug, Clone)]
pub struct Generator {
    /// The host.
    pub host: Host,
    /// Its clock offset, once measured.
    pub clock: Option<ClockOffset>,
    /// Its run (`http load --json`).
    pub run: Option<Run>,
    /// When its run started, on this machine's clock, minus the agreed start.
    pub start_skew_ns: Option<i64>,
    /// Why it failed.
    pub error: Option<HostError>,
}

/// Runs `load_args` (`http load URL ...`) on every host at once, all
/// starting at `delay` from now (each on its own clock, corrected by its
/// measured offset). Returns the agreed start and each generator.
pub fn run_generators(
    ssh: &Ssh,
    hosts: &[Host],
    local: &Binaries,
    load_args: &[String],
    delay: Duration,
    cancel: &Cancel,
    progress: &(dyn Fn(&Host, &str) + Sync),
) -> (DateTime<Utc>, Vec<Generator>) {
    let ready: Vec<Result<ClockOffset, HostError>> = for_each_host(hosts, hosts.len(), |h| {
        ssh.connect(h)?;
        remote::deploy(ssh, h, local)?;
        clock_offset(ssh, h)
    });
    let start_ns = now_ns() + i64::try_from(delay.as_nanos()).unwrap_or(i64::MAX / 2);
    let start = DateTime::from_timestamp_nanos(start_ns);
    let mut args = vec![
        "--json".to_string(),
        "--no-save".to_string(),
        "--quiet".to_string(),
    ];
    args.extend(load_args.iter().cloned());
    let pairs: Vec<(Host, Result<ClockOffset, HostError>)> =
        hosts.iter().cloned().zip(ready).collect();
    let gens = for_each_host(hosts, hosts.len(), |h| {
        let i = hosts.iter().position(|o| o.name == h.name).unwrap_or(0);
        let mut g = Generator {
            host: h.clone(),
            clock: pairs[i].1.as_ref().ok().copied(),
            run: None,
            start_skew_ns: None,
            error: pairs[i].1.as_ref().err().cloned(),
        };
        let Some(clock) = g.clock else { return g };
        let at = start_ns + clock.offset_ns;
        match run_remote_at(ssh, h, "http", &args, Some(at), cancel, progress) {
            Ok(f) => {
                g.run = serde_json::from_str::<Run>(f.stdout.trim()).ok();
                if !f.status.success() || g.run.is_none() || f.cancelled {
                    g.error = Some(HostError {
                        message: if f.cancelled {
                            "interrupted".into()
                        } else {
                            format!("nodebench {}", exit_text(&f.status))
                        },
                        stderr_tail: tail(&f.stderr),
                    });
                }
            }
            Err(e) => g.error = Some(e),
        }
        if let Some(r) = &g.run {
            let began = r.started_at.timestamp_nanos_opt().unwrap_or(0) - clock.offset_ns;
            g.start_skew_ns = Some(began - start_ns);
        }
        let _ = remote::remove(ssh, h, &[&remote::pid_file_name("http")]);
        g
    });
    (start, gens)
}

/// The `http.load` histograms of `runs` added together, one per name and
/// labels (corrected and uncorrected latency, connect time), in the order
/// first seen. An exact merge: the result's percentiles are those of every
/// request of every run.
pub fn merge(runs: &[&Run]) -> Result<Vec<Histogram>, crate::Error> {
    let mut order: Vec<(String, BTreeMap<String, String>)> = Vec::new();
    let mut merged: Vec<(Histogram, hdrhistogram::Histogram<u64>)> = Vec::new();
    for run in runs {
        for result in run.results.iter().filter(|r| r.benchmark == names::LOAD) {
            for h in &result.histograms {
                let hdr = h.to_hdr().ok_or_else(|| {
                    crate::Error::Results(format!("histogram {} of run does not decode", h.name))
                })?;
                let key = (h.name.clone(), h.labels.clone());
                match order.iter().position(|k| *k == key) {
                    Some(i) => merged[i]
                        .1
                        .add(&hdr)
                        .map_err(|e| crate::Error::Results(format!("histogram {}: {e}", h.name)))?,
                    None => {
                        order.push(key);
                        merged.push((h.clone(), hdr));
                    }
                }
            }
        }
    }
    Ok(merged
        .into_iter()
        .map(|(h, hdr)| Histogram::from_hdr(h.name, h.unit, h.scale, h.labels, &hdr))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::model::{BenchResult, Unit};

    fn run_with(values: &[u64]) -> Run {
        let mut hdr = nodebench_core::latency::histogram();
        for v in values {
            hdr.record(*v).unwrap();
        }
        let mut r = BenchResult::new(names::LOAD);
        let labels = BTreeMap::from([("latency".to_string(), "corrected".to_string())]);
        r.histograms.push(Histogram::from_hdr(
            "latency",
            Unit::Seconds,
            1e9,
            labels,
            &hdr,
        ));
        let mut run = Run::start(Vec::new(), BTreeMap::new());
        run.results.push(r);
        run
    }

    #[test]
    fn merges_exactly_not_by_averaging_percentiles() {
        // 99 fast requests on one generator, 99 slow ones on the other: the
        // union's p99 is a slow one, the mean of the two p99s is not.
        let fast = run_with(&vec![1_000; 99]);
        let slow = run_with(&[vec![1_000_000; 98], vec![5_000_000]].concat());
        let merged = merge(&[&fast, &slow]).unwrap();
        assert_eq!(merged.len(), 1);
        let m = &merged[0];
        assert_eq!(m.count, 198);
        let hdr = m.to_hdr().unwrap();
        let mut union = nodebench_core::latency::histogram();
        union
            .add(fast.results[0].histograms[0].to_hdr().unwrap())
            .unwrap();
        union
            .add(slow.results[0].histograms[0].to_hdr().unwrap())
            .unwrap();
        assert_eq!(hdr.value_at_quantile(0.99), union.value_at_quantile(0.99));
        assert_eq!(hdr.max(), union.max());
        let p99 = |r: &Run| {
            r.results[0].histograms[0]
                .to_hdr()
                .unwrap()
                .value_at_quantile(0.99)
        };
        assert_ne!(hdr.value_at_quantile(0.99), (p99(&fast) + p99(&slow)) / 2);
    }
}
