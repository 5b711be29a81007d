//! `fleet report SELECTION -o FILE.html`: the fleet's page, self-contained
//! as `report`'s (styles inline, no script, nothing fetched). From the
//! fleet crate's analysis ([`FleetReport`]):
//!
//! * the header: the selection, the hosts, the rule and the verdicts (the
//!   flagged hosts, the worst first, each with the figure it is worst on);
//! * the host x figure heat map of deviations ([`heatmap`]);
//! * the consistency table: each inventory field or host-state reading not
//!   alike everywhere, its majority value and the hosts that differ;
//! * the link matrix ([`links_section`], its body drawn by [`links::body`]
//!   from the selection's stored `fleet pair --matrix` result);
//! * a dot plot per figure ([`dotplot`]), the figures with outliers first.

pub mod dotplot;
pub mod heatmap;
pub mod links;
pub mod png;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use nodebench_fleet::analysis::consistency::host_ranges;
use nodebench_fleet::analysis::{FleetReport, HostVerdict};

use crate::format;
use crate::html::escape;

/// The most flagged hosts the verdict table lists (the text report lists
/// them all).
const MAX_VERDICT_ROWS: usize = 50;

/// The page's styles beyond `report`'s.
const FLEET_STYLE: &str = "
.bad{color:#8e0152;fill:#8e0152;font-weight:600}
p.summary{font-size:1.05em;margin:.3em 0}
table.verdicts td:nth-child(3){font-family:ui-monospace,monospace;font-size:.85em}
table.verdicts th,table.verdicts td:nth-child(-n+2),table.verdicts td.num{white-space:nowrap}
p.legend span{display:inline-block;margin:0 .9em .2em 0;font-size:.85em;white-space:nowrap}
p.legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-.1em;border:1px solid #bbb}
div.heatmap{overflow-x:auto}div.heatmap svg{font:11px ui-monospace,monospace}
div.heatmap text.bad{font-weight:600}
svg .leader{stroke:#888;stroke-width:.8;fill:none}svg .frame{fill:none;stroke:#999;stroke-width:.5}
svg .split{stroke:#222;stroke-width:1.2}
div.dotplots{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:.6em 1.4em}
figure.dotplot{margin:0;break-inside:avoid}figure.dotplot figcaption{font-size:.85em;margin-bottom:.1em}
figure.dotplot svg{max-width:100%;height:auto;font:10px system-ui,sans-serif}
figure.dotplot svg text.bad{font-size:10px}
svg .band{fill:#e3f1e3}svg .limit{stroke:#8e0152;stroke-dasharray:3 2;stroke-width:1;fill:none}
svg .median{stroke:#222;stroke-width:1.2}svg .axis{stroke:#777;fill:none}
svg .dots{stroke:#4a6f8f;stroke-linecap:round;fill:none}svg .dots.bad{stroke:#8e0152}
table.consistency td:first-child{font-family:ui-monospace,monospace}
table.links{border-collapse:collapse}table.links th{font:11px ui-monospace,monospace;padding:.1em .4em;white-space:nowrap}
table.links td{min-width:1.8em;height:1.8em;padding:.1em .4em;text-align:right;border:1px solid #fff;white-space:nowrap;font-size:.85em}
table.links td.slow{color:#fff;font-weight:600}table.links td.self{background:#fff}
ul.slow-links{font-family:ui-monospace,monospace;font-size:.85em}
";

/// The whole page for `report` of `selection` (as given on the command
/// line); `links` is the link matrix section's body ([`links_section`]).
pub fn page(report: &FleetReport, selection: &str, links: Option<&str>) -> String {
    let title = format!("nodebench fleet report: {selection}");
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{0}</title><style>{1}{FLEET_STYLE}</style></head><body>\n<h1>{0}</h1>\n",
        escape(&title),
        super::STYLE
    );
    out.push_str(&header(report));
    out.push_str(&heatmap::section(report));
    out.push_str(&consistency(report));
    out.push_str(&links_section(links));
    out.push_str(&figures(report));
    out.push_str("</body></html>\n");
    out
}

/// The counts, the rule, the note and the flagged hosts' verdicts.
fn header(r: &FleetReport) -> String {
    let mut out = String::new();
    let outliers = r.outlier_hosts().count();
    let differ = r.hosts.iter().filter(|h| !h.differs.is_empty()).count();
    let ok = r.hosts.len() - r.flagged_hosts().count();
    let _ = writeln!(
        out,
        "<p class=\"summary\">{} host(s), {} run(s), {} performance figure(s) ({} not performance, left out).</p>",
        r.hosts.len(),
        r.runs.len(),
        r.figures.len(),
        r.left_out_figures
    );
    let _ = writeln!(
        out,
        "<p>A host is an outlier on a figure when it is worse than the fleet median by more than {} %{}.</p>",
        r.tolerance_percent,
        if r.robust_z_used {
            format!(
                " and beyond robust z {} (deviation / (1.4826 &#215; MAD))",
                r.z
            )
        } else {
            String::new()
        }
    );
    if let Some(n) = &r.note {
        let _ = writeln!(out, "<p class=\"warning\">note: {}</p>", escape(n));
    }
    let _ = writeln!(
        out,
        "<p class=\"summary\"><b{}>{outliers} outlier host(s)</b>, {differ} unlike the others in inventory or host state, {ok} ok.</p>",
        if outliers > 0 { " class=\"bad\"" } else { "" }
    );
    let flagged: Vec<&HostVerdict> = r.flagged_hosts().collect();
    if flagged.is_empty() {
        return out;
    }
    out.push_str(
        "<h2 id=\"verdicts\">Hosts flagged, the worst first</h2>\n<table class=\"verdicts\">\
         <tr><th>host</th><th>verdict</th><th>worst figure</th><th>value</th><th>median</th>\
         <th>dev %</th><th>z</th><th>differs from the majority</th></tr>\n",
    );
    for h in flagged.iter().take(MAX_VERDICT_ROWS) {
        out.push_str(&verdict_row(r, h));
    }
    out.push_str("</table>\n");
    if flagged.len() > MAX_VERDICT_ROWS {
        let _ = writeln!(
            out,
            "<p class=\"note\">... and {} more flagged host(s): <code>nodebench fleet report</code> prints them all.</p>",
            flagged.len() - MAX_VERDICT_ROWS
        );
    }
    out
}

/// One flagged host: its verdict and the figure it is worst on (its worst
/// outlying figure, else its largest shortfall).
fn verdict_row(r: &FleetReport, h: &HostVerdict) -> String {
    let worst = h
        .outliers
        .first()
        .map(|o| o.figure.as_str())
        .or(h.worst_figure.as_deref());
    let fig = worst.and_then(|id| r.figures.iter().find(|f| f.id == id));
    let dev = fig.and_then(|f| f.deviations.iter().find(|d| d.host == h.host));
    let verdict = if h.outliers.is_empty() {
        "differs".to_string()
    } else {
        format!("outlier on {}", h.outliers.len())
    };
    let class = if h.outliers.is_empty() {
        ""
    } else {
        " class=\"bad\""
    };
    let num = |s: String| format!("<td class=\"num\">{}</td>", escape(&s));
    format!(
        "<tr><td{class}>{}</td><td{class}>{verdict}</td><td>{}</td>{}{}{}{}<td>{}</td></tr>\n",
        escape(&h.host),
        escape(worst.unwrap_or("-")),
        num(match (fig, dev) {
            (Some(f), Some(d)) => format::value(d.value, f.unit),
            _ => "-".into(),
        }),
        num(fig.map_or_else(|| "-".into(), |f| format::value(f.median, f.unit))),
        num(dev
            .and_then(|d| d.deviation_percent)
            .map_or_else(|| "-".into(), |p| format!("{p:+.1}"))),
        num(dev
            .and_then(|d| d.z)
            .map_or_else(|| "-".into(), |z| format!("{z:+.1}"))),
        escape(&h.differs.join(", "))
    )
}

/// The fields not alike on every host: majority, then each other value
/// with its hosts.
fn consistency(r: &FleetReport) -> String {
    let mut out = String::from("<h2 id=\"consistency\">Inventory and host state</h2>\n");
    if r.consistency.is_empty() {
        out.push_str("<p>Alike on every host.</p>\n");
    } else {
        out.push_str(
            "<table class=\"consistency\"><tr><th>field</th><th>majority value</th>\
             <th>hosts</th><th>other value</th><th>hosts with it</th></tr>\n",
        );
        for c in &r.consistency {
            let span = c.others.len().max(1);
            let _ = write!(
                out,
                "<tr><td rowspan=\"{span}\">{}</td><td rowspan=\"{span}\">{}</td><td rowspan=\"{span}\" class=\"num\">{}</td>",
                escape(&c.field),
                escape(&c.majority),
                c.majority_hosts
            );
            for (i, g) in c.others.iter().enumerate() {
                if i > 0 {
                    out.push_str("<tr>");
                }
                let _ = writeln!(
                    out,
                    "<td class=\"bad\">{}</td><td>{} ({})</td></tr>",
                    escape(&g.value),
                    escape(&host_ranges(&g.hosts)),
                    g.hosts.len()
                );
            }
            if c.others.is_empty() {
                out.push_str("<td></td><td></td></tr>\n");
            }
        }
        out.push_str("</table>\n");
    }
    if r.fields_without_majority > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note\">{} field(s) with no value on more than half of the hosts left out.</p>",
            r.fields_without_majority
        );
    }
    out
}

/// The link matrix section. `matrix` is its body, the host x host heat
/// map of `fleet pair --matrix`'s stored matrix ([`links::body`]); without
/// one the section says how to get it.
pub fn links_section(matrix: Option<&str>) -> String {
    let mut out = String::from("<h2 id=\"links\">Links between hosts</h2>\n");
    match matrix {
        Some(body) => out.push_str(body),
        None => out.push_str(
            "<p class=\"note\">No link matrix in this selection: <code>nodebench fleet pair --matrix</code> measures one.</p>\n",
        ),
    }
    out
}

/// A dot plot per figure, the figures with the most outliers first.
fn figures(r: &FleetReport) -> String {
    let mut order: Vec<usize> = (0..r.figures.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(r.figures[i].outliers.len()));
    let with = r.figures.iter().filter(|f| !f.outliers.is_empty()).count();
    let mut out = format!(
        "<h2 id=\"figures\">Figures</h2>\n<p class=\"note\">Every host a dot (hosts that fall together stacked), \
         the axis in % from the median (its value at 0); black: the median; green: the tolerance, &#177;{} %; \
         dashed: the outlier limit on the worse side. {with} of {} figure(s) with outliers, first.</p>\n\
         <div class=\"dotplots\">\n",
        r.tolerance_percent,
        r.figures.len()
    );
    for i in order {
        out.push_str(&dotplot::plot(&r.figures[i], r));
    }
    out.push_str("</div>\n");
    out
}
