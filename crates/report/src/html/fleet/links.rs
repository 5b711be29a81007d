//! The link matrix section's body: `fleet pair --matrix`'s stored matrix
//! as a heat map, a row per server and a column per client, each cell
//! coloured by the link's bandwidth against the median link on the host
//! heat map's scale (the tolerance its unit), the slow links (on bandwidth
//! or latency) in the outlier colour and marked; then the slow links and
//! the host common to them. Up to [`TABLE_HOSTS`] hosts the cells are a
//! table (each cell's title its figures); beyond, one pixel per link of an
//! indexed PNG, and the slow links listed.

use std::fmt::Write as _;

use nodebench_core::model::{Better, Unit};
use nodebench_fleet::analysis::links::{Link, LinkMatrix};

use super::heatmap::{self, Cell};
use super::png;
use crate::format;
use crate::html::escape;

/// The most hosts drawn as a table with their names.
pub const TABLE_HOSTS: usize = 40;

/// The most hosts whose cells also show the bandwidth.
const VALUE_HOSTS: usize = 12;

/// The most slow links listed under the map.
const MAX_LISTED: usize = 50;

/// The cell of link `l` ([`Cell::Missing`] for an untested one).
fn cell(l: Option<&Link>, m: &LinkMatrix) -> Cell {
    let Some(l) = l else {
        return Cell::Missing;
    };
    if l.slow() {
        return Cell::Outlier;
    }
    heatmap::cell(
        l.bandwidth_deviation_percent,
        Better::Higher,
        false,
        m.tolerance_percent,
    )
}

/// `h1 -> h2: 45.68 MB/s (-0.1 %), 21.10 us (+0.1 %)`.
fn describe(l: &Link) -> String {
    let mut parts = Vec::new();
    let pct = |d: Option<f64>| d.map_or(String::new(), |d| format!(" ({d:+.1} %)"));
    if let Some(b) = l.bandwidth {
        parts.push(format!(
            "{}{}",
            format::value(b, Unit::BytesPerSecond),
            pct(l.bandwidth_deviation_percent)
        ));
    }
    if let Some(t) = l.latency {
        parts.push(format!(
            "{}{}",
            format::value(t, Unit::Seconds),
            pct(l.latency_deviation_percent)
        ));
    }
    format!(
        "{} -> {}: {}{}",
        l.server,
        l.client,
        parts.join(", "),
        if l.slow() { ", SLOW" } else { "" }
    )
}

/// The legend of the link cells.
fn legend(t: f64) -> String {
    let f = |x: f64| format!("{}", (x * 100.0).round() / 100.0);
    let items = [
        (
            Cell::Outlier,
            "slow link (bandwidth or latency)".to_string(),
        ),
        (Cell::WorseHalf, format!("{}-{} % below", f(t / 2.0), f(t))),
        (
            Cell::WorseFifth,
            format!("{}-{} % below", f(t / 5.0), f(t / 2.0)),
        ),
        (Cell::Near, format!("within &#177;{} %", f(t / 5.0))),
        (
            Cell::BetterFifth,
            format!("{}-{} % above", f(t / 5.0), f(t / 2.0)),
        ),
        (Cell::BetterHalf, format!("{}-{} % above", f(t / 2.0), f(t))),
        (Cell::BetterBeyond, format!("over {} % above", f(t))),
        (Cell::Missing, "not tested, or no bandwidth".to_string()),
    ];
    let mut out = String::from("<p class=\"legend\">");
    for (c, text) in items {
        let _ = write!(
            out,
            "<span><i style=\"background:{}\"></i>{text}</span>",
            heatmap::colour(c)
        );
    }
    out.push_str("</p>\n");
    out
}

/// The section's body for matrix `m` (stored as run `run`, where known).
pub fn body(m: &LinkMatrix, run: Option<i64>) -> String {
    let mut out = String::new();
    let median = |v: Option<f64>, unit| v.map_or_else(|| "-".into(), |v| format::value(v, unit));
    let _ = writeln!(
        out,
        "<p>{} link(s) between {} host(s){}, server (rows) x client (columns); \
         median link: bandwidth {}, latency {}. A link is slow when its bandwidth is below \
         the median link's (its latency above it) by more than {} %{}.</p>",
        m.links.len(),
        m.hosts.len(),
        run.map_or(String::new(), |id| format!(" (run {id})")),
        median(m.bandwidth_median, Unit::BytesPerSecond),
        median(m.latency_median, Unit::Seconds),
        m.tolerance_percent,
        if m.bandwidth_judged || m.latency_judged {
            ""
        } else {
            "; with fewer than 3 links none is judged"
        }
    );
    out.push_str(&legend(m.tolerance_percent));
    let n = m.hosts.len();
    if n <= TABLE_HOSTS {
        out.push_str("<div class=\"links\"><table class=\"links\"><tr><th>server \\ client</th>");
        for h in &m.hosts {
            let _ = write!(out, "<th class=\"client\">{}</th>", escape(h));
        }
        out.push_str("</tr>\n");
        for s in &m.hosts {
            let _ = write!(out, "<tr><th>{}</th>", escape(s));
            for c in &m.hosts {
                if s == c {
                    out.push_str("<td class=\"self\"></td>");
                    continue;
                }
                let l = m.link(s, c);
                let title = l.map_or_else(|| format!("{s} -> {c}: not tested"), describe);
                let slow = l.is_some_and(Link::slow);
                // Up to VALUE_HOSTS hosts, the bandwidth in the cell too.
                let value = match l.and_then(|l| l.bandwidth) {
                    Some(b) if n <= VALUE_HOSTS => format::value(b, Unit::BytesPerSecond),
                    _ => String::new(),
                };
                let _ = write!(
                    out,
                    "<td style=\"background:{}\" title=\"{}\"{}>{value}{}</td>",
                    heatmap::colour(cell(l, m)),
                    escape(&title),
                    if slow { " class=\"bad slow\"" } else { "" },
                    match (slow, value.is_empty()) {
                        (false, _) => "",
                        (true, true) => "&#10005;",
                        (true, false) => " &#10005;",
                    }
                );
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table></div>\n");
    } else {
        let index = |h: &str| m.hosts.binary_search_by(|x| x.as_str().cmp(h)).ok();
        let mut px = vec![Cell::Missing as u8; n * n];
        for l in &m.links {
            if let (Some(s), Some(c)) = (index(&l.server), index(&l.client)) {
                px[s * n + c] = cell(Some(l), m) as u8;
            }
        }
        let size = (800 / n).max(1) * n;
        let _ = writeln!(
            out,
            "<p><img class=\"links\" alt=\"link matrix, {n} x {n} hosts\" width=\"{size}\" height=\"{size}\" \
             style=\"image-rendering:pixelated\" src=\"{}\"></p>\n\
             <p class=\"note\">{n} hosts: a pixel per link, the hosts in name order ({} to {}).</p>",
            png::data_uri(n, n, &px, &heatmap::PALETTE),
            escape(&m.hosts[0]),
            escape(&m.hosts[n - 1])
        );
    }
    let slow: Vec<&Link> = m.slow_links().collect();
    if slow.is_empty() {
        out.push_str("<p>No slow link.</p>\n");
        return out;
    }
    let _ = writeln!(
        out,
        "<p class=\"bad\">{} slow link(s) of {}:</p>\n<ul class=\"slow-links\">",
        slow.len(),
        m.links.len()
    );
    for l in slow.iter().take(MAX_LISTED) {
        let _ = writeln!(out, "<li>{}</li>", escape(&describe(l)));
    }
    if slow.len() > MAX_LISTED {
        let _ = writeln!(out, "<li>... and {} more</li>", slow.len() - MAX_LISTED);
    }
    out.push_str("</ul>\n");
    if let Some(c) = m.common_line() {
        let _ = writeln!(out, "<p class=\"bad common\">{}</p>", escape(&c));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use nodebench_core::model::{BenchResult, Metric, Run};
    use nodebench_core::names::{fleet, net};

    use super::*;

    /// A stored matrix of `hosts`, every pair both ways at 1 GB/s but
    /// 0.5 GB/s where `slow` is the client.
    fn matrix(hosts: &[String], slow: &str) -> LinkMatrix {
        let mut runs = Vec::new();
        for s in hosts {
            for c in hosts.iter().filter(|c| *c != s) {
                let mut tags = BTreeMap::new();
                tags.insert(fleet::SERVER_TAG.to_string(), s.clone());
                tags.insert(fleet::HOST_TAG.to_string(), c.clone());
                let mut run = Run::start(Vec::new(), tags);
                let mut r = BenchResult::new(net::TCP);
                let b = if c == slow { 5e8 } else { 1e9 };
                r.metrics.push(
                    Metric::new(
                        net::metric::THROUGHPUT,
                        b,
                        Unit::BytesPerSecond,
                        Better::Higher,
                    )
                    .label(net::label::DIRECTION, net::direction::CLIENT_TO_SERVER)
                    .label(net::label::SIDE, net::side::RECEIVER),
                );
                run.results.push(r);
                runs.push(run);
            }
        }
        // As `fleet report` reads it: from the stored result.
        let stored = LinkMatrix::from_pair_runs(&runs, 5.0).to_result();
        LinkMatrix::from_result(&stored, 5.0)
    }

    #[test]
    fn a_cell_per_link_coloured_against_the_median_and_the_slow_ones_marked() {
        let hosts: Vec<String> = ["h1", "h2", "h3", "h4", "h5"].map(String::from).to_vec();
        let m = matrix(&hosts, "h4");
        let html = body(&m, Some(17));
        assert!(
            html.contains("20 link(s) between 5 host(s) (run 17)"),
            "{html}"
        );
        // The header and five rows of five cells, the diagonal empty.
        assert_eq!(html.matches("<tr><th>").count(), 6);
        assert_eq!(html.matches("<td class=\"self\">").count(), 5);
        // The four links where h4 is the client are slow, in the outlier
        // colour and marked; the others near the median.
        let slow = html
            .matches(" class=\"bad slow\">500.00 MB/s &#10005;</td>")
            .count();
        assert_eq!(slow, 4);
        assert_eq!(html.matches(">1.00 GB/s</td>").count(), 16);
        let outlier = format!(
            "<td style=\"background:{}\"",
            heatmap::colour(Cell::Outlier)
        );
        assert_eq!(html.matches(&outlier).count(), 4);
        let near = format!("<td style=\"background:{}\"", heatmap::colour(Cell::Near));
        assert_eq!(html.matches(&near).count(), 16);
        assert!(
            html.contains("title=\"h1 -&gt; h4: 500.00 MB/s (-50.0 %), SLOW\""),
            "{html}"
        );
        assert!(html.contains("<p class=\"bad\">4 slow link(s) of 20:</p>"));
        assert!(html.contains("h4 is on 4 of the 4 slow link(s) (4 of its 8 link(s))"));

        // Past the table's hosts: one pixel per link, the slow ones listed.
        let many: Vec<String> = (0..60).map(|i| format!("n{i:02}")).collect();
        let m = matrix(&many, "n07");
        let html = body(&m, None);
        assert!(!html.contains("<table"));
        assert!(
            html.contains("<img class=\"links\" alt=\"link matrix, 60 x 60 hosts\" width=\"780\"")
        );
        assert!(html.contains("data:image/png;base64,"));
        assert!(html.contains("59 slow link(s) of 3540:"));
        assert!(html.contains("<li>... and 9 more</li>"));
        assert!(html.contains("n07 is on 59 of the 59 slow link(s)"));
        // A cell per link, marked where slow, no value past 12 hosts.
        let m = matrix(&many[..20], "n07");
        let html = body(&m, None);
        assert_eq!(
            html.matches(" class=\"bad slow\">&#10005;</td>").count(),
            19
        );
    }
}
