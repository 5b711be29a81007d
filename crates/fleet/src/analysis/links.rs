//! The link matrix of `fleet pair --matrix`: each tested link (server x
//! client) with its TCP bandwidth (what the server received, `net.tcp`)
//! and its ping-pong latency (the median TCP round trip of one thread with
//! 1-byte messages, `net.pingpong`); the median link of each figure; the
//! links worse than that median by more than the tolerance (bandwidth
//! below it, latency above it), and the host on the most slow links ("h3
//! is on 3 of the 3 slow links").
//!
//! Built from the pairs' runs as they come back, or read back from a
//! stored [`fleet::LINKS`] result; [`LinkMatrix::to_result`] is what is
//! stored. A figure is judged only with at least [`MIN_LINKS`] links
//! holding it: with two, neither can be told from the median.

use std::collections::BTreeMap;

use nodebench_core::model::{BenchResult, Better, Metric, ResultStatus, Run, Unit};
use nodebench_core::names::fleet::{self, label, metric};
use nodebench_core::names::{labels, latency, net};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The fewest links with a figure for its median to judge them.
pub const MIN_LINKS: usize = 3;

/// One tested link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Link {
    /// The host that served.
    pub server: String,
    /// The host that ran the client.
    pub client: String,
    /// Bytes per second the server received (the median of the link's
    /// TCP runs); absent where no TCP test passed on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<f64>,
    /// The median TCP round trip, seconds (the median of the link's
    /// ping-pong runs); absent where none passed on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<f64>,
    /// (bandwidth - median) / median in %, where judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_deviation_percent: Option<f64>,
    /// (latency - median) / median in %, where judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_deviation_percent: Option<f64>,
    /// Bandwidth below the median link's by more than the tolerance.
    pub slow_bandwidth: bool,
    /// Latency above the median link's by more than the tolerance.
    pub slow_latency: bool,
}

impl Link {
    /// Whether it is slow on either figure.
    pub fn slow(&self) -> bool {
        self.slow_bandwidth || self.slow_latency
    }

    /// Whether `host` is one of its ends.
    pub fn has(&self, host: &str) -> bool {
        self.server == host || self.client == host
    }
}

/// A host on the most slow links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommonHost {
    /// The host.
    pub host: String,
    /// The slow links it is on.
    pub slow_links: usize,
    /// Every tested link it is on.
    pub links: usize,
}

/// The links between hosts, judged against the median link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LinkMatrix {
    /// Every host on a link, by name.
    pub hosts: Vec<String>,
    /// Every tested link, by server then client.
    pub links: Vec<Link>,
    /// A link is slow when worse than the median link by more than this, in %.
    pub tolerance_percent: f64,
    /// The median link bandwidth, bytes per second (absent without links
    /// holding it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_median: Option<f64>,
    /// The median link latency, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_median: Option<f64>,
    /// Whether the bandwidths were judged (at least [`MIN_LINKS`] links).
    pub bandwidth_judged: bool,
    /// Whether the latencies were judged.
    pub latency_judged: bool,
    /// The hosts on the most slow links, where that is two or more (ties
    /// all named); empty when no host is on more than one.
    pub common: Vec<CommonHost>,
}

/// Each link's values of both figures, before judging.
type Values = BTreeMap<(String, String), (Vec<f64>, Vec<f64>)>;

impl LinkMatrix {
    /// The matrix of `runs`, the client runs `fleet pair` brings back
    /// (tagged with the client as [`fleet::HOST_TAG`] and the server as
    /// [`fleet::SERVER_TAG`]): each passed `net.tcp` result's receiver
    /// throughput from client to server, and each passed `net.pingpong`
    /// result's TCP median round trip of one thread at its smallest message
    /// size. Runs without both tags are left out.
    pub fn from_pair_runs(runs: &[Run], tolerance_percent: f64) -> LinkMatrix {
        let mut values: Values = BTreeMap::new();
        for run in runs {
            let (Some(server), Some(client)) = (
                run.tags.get(fleet::SERVER_TAG),
                run.tags.get(fleet::HOST_TAG),
            ) else {
                continue;
            };
            let entry = values.entry((server.clone(), client.clone())).or_default();
            for r in run
                .results
                .iter()
                .filter(|r| r.status == ResultStatus::Passed)
            {
                if r.benchmark == net::TCP {
                    entry.0.extend(tcp_bandwidth(r));
                } else if r.benchmark == net::PINGPONG {
                    entry.1.extend(pingpong_latency(r));
                }
            }
        }
        values.retain(|_, (b, l)| !(b.is_empty() && l.is_empty()));
        LinkMatrix::judge(values, tolerance_percent)
    }

    /// The matrix a stored [`fleet::LINKS`] result holds, judged with
    /// `tolerance_percent`.
    pub fn from_result(result: &BenchResult, tolerance_percent: f64) -> LinkMatrix {
        let mut values: Values = BTreeMap::new();
        for m in &result.metrics {
            let (Some(server), Some(client)) =
                (m.labels.get(label::SERVER), m.labels.get(label::CLIENT))
            else {
                continue;
            };
            if !m.value.is_finite() {
                continue;
            }
            let entry = values.entry((server.clone(), client.clone())).or_default();
            if m.name == metric::BANDWIDTH {
                entry.0.push(m.value);
            } else if m.name == metric::LATENCY {
                entry.1.push(m.value);
            }
        }
        LinkMatrix::judge(values, tolerance_percent)
    }

    /// Each link's median figures, the medians over links and the verdicts.
    fn judge(values: Values, tolerance_percent: f64) -> LinkMatrix {
        let median = |v: &mut Vec<f64>| nodebench_core::stats::median_mad(v).map(|m| m.0);
        let mut links: Vec<Link> = values
            .into_iter()
            .map(|((server, client), (mut b, mut l))| Link {
                server,
                client,
                bandwidth: median(&mut b),
                latency: median(&mut l),
                bandwidth_deviation_percent: None,
                latency_deviation_percent: None,
                slow_bandwidth: false,
                slow_latency: false,
            })
            .collect();
        let mut bandwidths: Vec<f64> = links.iter().filter_map(|l| l.bandwidth).collect();
        let mut latencies: Vec<f64> = links.iter().filter_map(|l| l.latency).collect();
        let bandwidth_judged = bandwidths.len() >= MIN_LINKS;
        let latency_judged = latencies.len() >= MIN_LINKS;
        let bandwidth_median = median(&mut bandwidths);
        let latency_median = median(&mut latencies);
        let deviation = |v: Option<f64>, m: Option<f64>, judged: bool| match (v, m) {
            (Some(v), Some(m)) if judged && m > 0.0 => Some((v - m) / m * 100.0),
            _ => None,
        };
        for l in &mut links {
            l.bandwidth_deviation_percent =
                deviation(l.bandwidth, bandwidth_median, bandwidth_judged);
            l.latency_deviation_percent = deviation(l.latency, latency_median, latency_judged);
            // Worse: lower bandwidth, higher latency.
            l.slow_bandwidth = l
                .bandwidth_deviation_percent
                .is_some_and(|d| -d > tolerance_percent);
            l.slow_latency = l
                .latency_deviation_percent
                .is_some_and(|d| d > tolerance_percent);
        }
        let mut hosts: Vec<String> = links
            .iter()
            .flat_map(|l| [l.server.clone(), l.client.clone()])
            .collect();
        hosts.sort();
        hosts.dedup();
        let mut matrix = LinkMatrix {
            hosts,
            links,
            tolerance_percent,
            bandwidth_median,
            latency_median,
            bandwidth_judged,
            latency_judged,
            common: Vec::new(),
        };
        matrix.common = matrix.common_hosts();
        matrix
    }

    /// The hosts on the most slow links, where that is two or more.
    fn common_hosts(&self) -> Vec<CommonHost> {
        let counts: Vec<CommonHost> = self
            .hosts
            .iter()
            .map(|h| CommonHost {
                host: h.clone(),
                slow_links: self.slow_links().filter(|l| l.has(h)).count(),
                links: self.links.iter().filter(|l| l.has(h)).count(),
            })
            .collect();
        let most = counts.iter().map(|c| c.slow_links).max().unwrap_or(0);
        if most < 2 {
            return Vec::new();
        }
        counts
            .into_iter()
            .filter(|c| c.slow_links == most)
            .collect()
    }

    /// The slow links, by server then client.
    pub fn slow_links(&self) -> impl Iterator<Item = &Link> {
        self.links.iter().filter(|l| l.slow())
    }

    /// The link from `server` to `client`, if tested.
    pub fn link(&self, server: &str, client: &str) -> Option<&Link> {
        self.links
            .iter()
            .find(|l| l.server == server && l.client == client)
    }

    /// "h3 is on 3 of the 3 slow links (3 of its 4 links)", or for a tie
    /// "h1 and h2 are each on 2 of the 3 slow links"; None when no host is
    /// on more than one.
    pub fn common_line(&self) -> Option<String> {
        let slow = self.slow_links().count();
        match self.common.as_slice() {
            [] => None,
            [c] => Some(format!(
                "{} is on {} of the {slow} slow link(s) ({} of its {} link(s))",
                c.host, c.slow_links, c.slow_links, c.links
            )),
            many => {
                let names: Vec<&str> = many.iter().map(|c| c.host.as_str()).collect();
                Some(format!(
                    "{} are each on {} of the {slow} slow link(s)",
                    names.join(", "),
                    many[0].slow_links
                ))
            }
        }
    }

    /// One line per slow link, then the common host's, in words without
    /// units (the stored result's warnings).
    pub fn verdict_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .slow_links()
            .map(|l| {
                let mut why = Vec::new();
                if let (true, Some(d)) = (l.slow_bandwidth, l.bandwidth_deviation_percent) {
                    why.push(format!("bandwidth {:.1} % below the median link", -d));
                }
                if let (true, Some(d)) = (l.slow_latency, l.latency_deviation_percent) {
                    why.push(format!("latency {d:.1} % above the median link"));
                }
                format!("slow link {} -> {}: {}", l.server, l.client, why.join(", "))
            })
            .collect();
        out.extend(self.common_line());
        out
    }

    /// The [`fleet::LINKS`] result: one bandwidth and one latency figure
    /// per link (labels server and client), the tolerance, and the slow
    /// links as warnings.
    pub fn to_result(&self) -> BenchResult {
        let mut r = BenchResult::new(fleet::LINKS);
        for l in &self.links {
            let labelled = |m: Metric| {
                m.label(label::SERVER, &l.server)
                    .label(label::CLIENT, &l.client)
            };
            if let Some(b) = l.bandwidth {
                r.metrics.push(labelled(Metric::new(
                    metric::BANDWIDTH,
                    b,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )));
            }
            if let Some(t) = l.latency {
                r.metrics.push(labelled(Metric::new(
                    metric::LATENCY,
                    t,
                    Unit::Seconds,
                    Better::Lower,
                )));
            }
        }
        r.set_param(fleet::param::TOLERANCE, self.tolerance_percent);
        r.set_param(fleet::param::HOSTS, self.hosts.len());
        r.warnings = self.verdict_lines();
        r
    }
}

/// `net.tcp`'s bytes per second received by the server from the client.
fn tcp_bandwidth(r: &BenchResult) -> Option<f64> {
    r.metrics
        .iter()
        .find(|m| {
            m.name == net::metric::THROUGHPUT
                && m.labels.get(net::label::DIRECTION).map(String::as_str)
                    == Some(net::direction::CLIENT_TO_SERVER)
                && m.labels.get(net::label::SIDE).map(String::as_str) == Some(net::side::RECEIVER)
        })
        .map(|m| m.value)
        .filter(|v| v.is_finite())
}

/// `net.pingpong`'s median TCP round trip of one thread, at the smallest
/// message size it ran.
fn pingpong_latency(r: &BenchResult) -> Option<f64> {
    r.metrics
        .iter()
        .filter(|m| {
            m.name == latency::LATENCY_P50
                && m.labels.get(net::label::PROTOCOL).map(String::as_str)
                    == Some(net::protocol::TCP)
                && m.labels.get(labels::THREADS).map(String::as_str) == Some("1")
                && m.value.is_finite()
        })
        .filter_map(|m| {
            let size: u64 = m.labels.get(labels::SIZE)?.parse().ok()?;
            Some((size, m.value))
        })
        .min_by_key(|(size, _)| *size)
        .map(|(_, v)| v)
}

#[cfg(test)]
#[path = "links_tests.rs"]
mod tests;
