//! The link matrix `fleet pair --matrix` stores (`fleet.links`): per
//! figure a table of server rows and client columns, untested links `-`;
//! the slow links are the result's warnings. [`matrix_text`]: the judged
//! matrix as `fleet pair --matrix` and `fleet report` print it, the slow
//! cells marked.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use nodebench_core::BenchResult;
use nodebench_core::model::Unit;
use nodebench_core::names::fleet::{label, metric};
use nodebench_fleet::analysis::links::{Link, LinkMatrix, MIN_LINKS};

use crate::format;

/// The most hosts a matrix is printed for as a table (beyond, a row per link).
pub const MATRIX_TABLE_HOSTS: usize = 24;

/// One link's figure: server, client, value, slow.
pub type Cell<'a> = (&'a str, &'a str, f64, bool);

/// `cells` as a table: a row per server, a column per client (of
/// `hosts`), the slow cells marked ` *`; past [`MATRIX_TABLE_HOSTS`] a row
/// per link instead.
pub fn matrix_table(hosts: &[String], cells: &[Cell], unit: Unit) -> String {
    let text =
        |v: f64, slow: bool| format!("{}{}", format::value(v, unit), if slow { " *" } else { "" });
    if hosts.len() > MATRIX_TABLE_HOSTS {
        let header = ["server", "client", "value"].map(String::from).to_vec();
        let rows: Vec<Vec<String>> = cells
            .iter()
            .map(|&(s, c, v, slow)| vec![s.to_string(), c.to_string(), text(v, slow)])
            .collect();
        return crate::table::text_table(&header, &rows, 2);
    }
    let mut header = vec!["server \\ client".to_string()];
    header.extend(hosts.iter().cloned());
    let rows: Vec<Vec<String>> = hosts
        .iter()
        .map(|server| {
            let mut row = vec![server.clone()];
            row.extend(hosts.iter().map(|client| {
                match cells.iter().find(|c| c.0 == server && c.1 == client) {
                    _ if server == client => String::new(),
                    Some(&(_, _, v, slow)) => text(v, slow),
                    None => "-".into(),
                }
            }));
            row
        })
        .collect();
    crate::table::text_table(&header, &rows, 1)
}

/// The stored matrix: the bandwidth and latency tables, then the warnings
/// (the slow links and the host common to them).
pub fn report(r: &BenchResult) -> String {
    let mut out = format!("{} [{}]\n", r.benchmark, r.status.as_str());
    fn ends(m: &nodebench_core::model::Metric) -> Option<(&str, &str)> {
        Some((m.label_value(label::SERVER)?, m.label_value(label::CLIENT)?))
    }
    let hosts: Vec<String> = r
        .metrics
        .iter()
        .filter_map(ends)
        .flat_map(|(s, c)| [s.to_string(), c.to_string()])
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect();
    for (name, title, unit) in [
        (
            metric::BANDWIDTH,
            "bandwidth (TCP, what the server received): server (rows) x client (columns)",
            Unit::BytesPerSecond,
        ),
        (
            metric::LATENCY,
            "latency (median TCP round trip, 1 byte, one thread): server x client",
            Unit::Seconds,
        ),
    ] {
        let cells: Vec<Cell> = r
            .metrics
            .iter()
            .filter(|m| m.name == name)
            .filter_map(|m| ends(m).map(|(s, c)| (s, c, m.value, false)))
            .collect();
        if cells.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{title}");
        let _ = writeln!(out, "{}", matrix_table(&hosts, &cells, unit));
    }
    if let Some(e) = crate::table::error_line(r) {
        let _ = writeln!(out, "{e}");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// The matrix as text: the bandwidth and latency tables (server rows,
/// client columns, slow cells marked `*`; a row per link past
/// [`MATRIX_TABLE_HOSTS`] hosts), the slow
/// links and the common host.
pub fn matrix_text(m: &LinkMatrix, run_id: Option<i64>) -> String {
    let mut s = format!(
        "link matrix: {} link(s) between {} host(s){}\n",
        m.links.len(),
        m.hosts.len(),
        run_id.map_or(String::new(), |id| format!(", stored as run {id}"))
    );
    let figures = [
        Figure {
            name: "bandwidth (TCP, what the server received)",
            median: m.bandwidth_median,
            judged: m.bandwidth_judged,
            unit: Unit::BytesPerSecond,
            worse: "below",
            of: |l| (l.bandwidth, l.slow_bandwidth),
        },
        Figure {
            name: "latency (median TCP round trip, 1 byte, one thread)",
            median: m.latency_median,
            judged: m.latency_judged,
            unit: Unit::Seconds,
            worse: "above",
            of: |l| (l.latency, l.slow_latency),
        },
    ];
    for Figure {
        name,
        median,
        judged,
        unit,
        worse,
        of,
    } in figures
    {
        let Some(median) = median else { continue };
        s += &format!("\n{name}: median link {}", format::value(median, unit));
        if judged {
            s += &format!(
                "; * slow: {worse} it by more than {} %\n",
                m.tolerance_percent
            );
        } else {
            s += &format!("; fewer than {} links, none judged\n", MIN_LINKS);
        }
        let cells: Vec<Cell> = m
            .links
            .iter()
            .filter_map(|l| match of(l) {
                (Some(v), slow) => Some((l.server.as_str(), l.client.as_str(), v, slow)),
                (None, _) => None,
            })
            .collect();
        s += &matrix_table(&m.hosts, &cells, unit);
        s += "\n";
    }
    let slow: Vec<&Link> = m.slow_links().collect();
    if slow.is_empty() {
        s += "\nno slow link\n";
        return s;
    }
    s += &format!("\nslow links ({} of {}):\n", slow.len(), m.links.len());
    for l in slow {
        let mut why = Vec::new();
        if let (true, Some(v), Some(d)) =
            (l.slow_bandwidth, l.bandwidth, l.bandwidth_deviation_percent)
        {
            why.push(format!(
                "bandwidth {} ({d:+.1} %)",
                format::value(v, Unit::BytesPerSecond)
            ));
        }
        if let (true, Some(v), Some(d)) = (l.slow_latency, l.latency, l.latency_deviation_percent) {
            why.push(format!(
                "latency {} ({d:+.1} %)",
                format::value(v, Unit::Seconds)
            ));
        }
        s += &format!("  {} -> {}: {}\n", l.server, l.client, why.join(", "));
    }
    match m.common_line() {
        Some(c) => s += &format!("{c}\n"),
        None => s += "no host is on more than one slow link\n",
    }
    s
}

/// One figure of the matrix, as printed.
struct Figure {
    /// What it is.
    name: &'static str,
    /// The median link's.
    median: Option<f64>,
    /// Whether the links were judged on it.
    judged: bool,
    /// Its unit.
    unit: Unit,
    /// Which side of the median is worse, in words.
    worse: &'static str,
    /// A link's value and whether it is slow on it.
    of: fn(&Link) -> (Option<f64>, bool),
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::model::{Better, Metric};
    use nodebench_core::names::fleet;

    #[test]
    fn a_row_per_server_a_column_per_client_and_untested_links_dashed() {
        let mut r = BenchResult::new(fleet::LINKS);
        for (s, c, b) in [("h1", "h2", 1.2e9), ("h1", "h3", 1.1e9), ("h3", "h2", 5e6)] {
            r.metrics.push(
                Metric::new(metric::BANDWIDTH, b, Unit::BytesPerSecond, Better::Higher)
                    .label(label::SERVER, s)
                    .label(label::CLIENT, c),
            );
        }
        r.warnings
            .push("slow link h3 -> h2: bandwidth 99.6 % below the median link".into());
        let text = report(&r);
        let row = |h: &str| {
            text.lines()
                .find(|l| l.trim_start_matches("| ").starts_with(h))
                .unwrap()
                .split_whitespace()
                .filter(|w| *w != "|")
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(row("h1"), "h1 1.20 GB/s 1.10 GB/s");
        assert_eq!(row("h2"), "h2 - -");
        assert_eq!(row("h3"), "h3 - 5.00 MB/s");
        assert!(text.contains("warning: slow link h3 -> h2"), "{text}");
        // No latency figure: no latency table.
        assert!(!text.contains("latency ("), "{text}");
        // Marked cells, and a row per link past the table's hosts.
        let hosts: Vec<String> = (0..30).map(|i| format!("n{i:02}")).collect();
        let cells = [("n00", "n01", 5e6, true)];
        let t = matrix_table(&hosts, &cells, Unit::BytesPerSecond);
        assert!(t.contains("n00") && t.contains("5.00 MB/s *"), "{t}");
        assert_eq!(t.lines().filter(|l| l.contains("n0")).count(), 1, "{t}");
    }
}
