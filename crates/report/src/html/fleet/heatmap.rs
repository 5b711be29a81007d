//! The host x figure heat map: a row per host (worst first, as the
//! verdicts are sorted), a column per figure, each cell coloured by how far
//! the host is from the fleet's median in the direction that is worse for
//! that figure. The cells are one pixel each of an indexed PNG, scaled up
//! without smoothing; the labels (hosts, figures, benchmarks) are SVG text
//! around it, the columns bracketed by metric and by benchmark below.
//! Every host is labelled where the rows are tall enough; otherwise (pixel
//! rows) the outlier hosts' rows are made 12 px tall and labelled.

use std::collections::HashMap;
use std::fmt::Write as _;

use nodebench_core::model::Better;
use nodebench_fleet::analysis::{FigureSummary, FleetReport};

use super::png;
use crate::html::escape;

/// The cell colours (palette indices).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Cell {
    /// The host has no such figure, or it has no % (median 0 or below).
    Missing = 0,
    /// An outlier on the figure.
    Outlier,
    /// Worse by more than the tolerance, not an outlier (within the z).
    WorseBeyond,
    /// Worse by a half to all of the tolerance.
    WorseHalf,
    /// Worse by a fifth to a half of the tolerance.
    WorseFifth,
    /// Within a fifth of the tolerance either way.
    Near,
    /// Better by a fifth to a half of the tolerance.
    BetterFifth,
    /// Better by a half to all of the tolerance.
    BetterHalf,
    /// Better by more than the tolerance.
    BetterBeyond,
}

/// RGB of each [`Cell`], in its order (a diverging red-blue scale).
pub(super) const PALETTE: [[u8; 3]; 9] = [
    [0xbd, 0xbd, 0xbd],
    [0x8e, 0x01, 0x52],
    [0xd6, 0x60, 0x4d],
    [0xf4, 0xa5, 0x82],
    [0xfd, 0xdb, 0xc7],
    [0xf7, 0xf7, 0xf7],
    [0xd1, 0xe5, 0xf0],
    [0x92, 0xc5, 0xde],
    [0x43, 0x93, 0xc3],
];

/// `#rrggbb` of `cell`.
pub fn colour(cell: Cell) -> String {
    let [r, g, b] = PALETTE[cell as usize];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The cell of a deviation of `percent` on a figure where `better` is
/// better, `outlier` as judged, against `tolerance` (%).
pub fn cell(percent: Option<f64>, better: Better, outlier: bool, tolerance: f64) -> Cell {
    let Some(d) = percent else {
        return Cell::Missing;
    };
    if outlier {
        return Cell::Outlier;
    }
    let worse = if better == Better::Lower { d } else { -d };
    let t = tolerance;
    match worse {
        w if w > t => Cell::WorseBeyond,
        w if w > t / 2.0 => Cell::WorseHalf,
        w if w > t / 5.0 => Cell::WorseFifth,
        w if w >= -t / 5.0 => Cell::Near,
        w if w >= -t / 2.0 => Cell::BetterFifth,
        w if w >= -t => Cell::BetterHalf,
        _ => Cell::BetterBeyond,
    }
}

/// The legend: each colour and what it stands for.
fn legend(tolerance: f64) -> String {
    let t = tolerance;
    let f = |x: f64| format!("{}", (x * 100.0).round() / 100.0);
    let items = [
        (Cell::Outlier, "outlier".to_string()),
        (
            Cell::WorseBeyond,
            format!("worse &gt; {} % (within the z)", f(t)),
        ),
        (Cell::WorseHalf, format!("worse {}-{} %", f(t / 2.0), f(t))),
        (
            Cell::WorseFifth,
            format!("worse {}-{} %", f(t / 5.0), f(t / 2.0)),
        ),
        (Cell::Near, format!("within &#177;{} %", f(t / 5.0))),
        (
            Cell::BetterFifth,
            format!("better {}-{} %", f(t / 5.0), f(t / 2.0)),
        ),
        (
            Cell::BetterHalf,
            format!("better {}-{} %", f(t / 2.0), f(t)),
        ),
        (Cell::BetterBeyond, format!("better &gt; {} %", f(t))),
        (Cell::Missing, "no figure, or no %".to_string()),
    ];
    let mut out = String::from("<p class=\"legend\">");
    for (c, text) in items {
        let _ = write!(
            out,
            "<span><i style=\"background:{}\"></i>{text}</span>",
            colour(c)
        );
    }
    out.push_str("</p>\n");
    out
}

/// Left of the cells: the host labels and their leader lines.
const LABEL_W: usize = 110;
const GAP: usize = 22;
/// The most host labels in the compact (pixel rows) form.
const MAX_LABELS: usize = 40;
/// The least height of a labelled outlier's row in the compact form.
const TALL_ROW: usize = 12;

/// The cells' sizes in px (width, height) for `figures` x `hosts`: up to
/// 28 x 14, down to 3 x 1 at 1,000 hosts x 200 figures.
fn cell_size(figures: usize, hosts: usize) -> (usize, usize) {
    let w = (960 / figures.max(1)).clamp(3, 28);
    let h = if hosts <= 60 {
        14
    } else {
        (900 / hosts).clamp(1, 14)
    };
    (w, h)
}

/// The figures in column order: by benchmark, then by metric, each in
/// the order first seen (one benchmark's bandwidths side by side).
pub fn columns(r: &FleetReport) -> Vec<&FigureSummary> {
    let rank = |key: &dyn Fn(&FigureSummary) -> &str, f: &FigureSummary| {
        r.figures.iter().position(|g| key(g) == key(f)).unwrap_or(0)
    };
    let mut order: Vec<(usize, usize, usize)> = r
        .figures
        .iter()
        .enumerate()
        .map(|(i, f)| {
            (
                rank(&|g| g.benchmark.as_str(), f),
                rank(&|g| g.metric.as_str(), f),
                i,
            )
        })
        .collect();
    order.sort_unstable();
    order.into_iter().map(|(_, _, i)| &r.figures[i]).collect()
}

/// The palette index of every (host, figure), hosts in `r.hosts` order,
/// figures in [`columns`] order.
pub fn cells(r: &FleetReport) -> Vec<u8> {
    let rows: HashMap<&str, usize> = r
        .hosts
        .iter()
        .enumerate()
        .map(|(i, h)| (h.host.as_str(), i))
        .collect();
    let nf = r.figures.len();
    let mut px = vec![Cell::Missing as u8; r.hosts.len() * nf];
    for (col, f) in columns(r).into_iter().enumerate() {
        for d in &f.deviations {
            if let Some(&row) = rows.get(d.host.as_str()) {
                px[row * nf + col] = cell(
                    d.deviation_percent,
                    f.better,
                    d.outlier,
                    r.tolerance_percent,
                ) as u8;
            }
        }
    }
    px
}

/// A figure's column label: its metric and label values (`bandwidth
/// copy,normal,2`; the full id is in the figure's dot plot), cut to 30
/// characters.
fn column_label(f: &FigureSummary) -> String {
    let values: Vec<&str> = f.labels.values().map(String::as_str).collect();
    let text = if values.is_empty() {
        f.metric.clone()
    } else {
        format!("{} {}", f.metric, values.join(","))
    };
    let mut s: String = text.chars().take(30).collect();
    if text.chars().count() > 30 {
        s.push('\u{2026}');
    }
    s
}

/// A host's row label: its name, cut to the label column (17 characters).
fn row_label(host: &str) -> String {
    if host.chars().count() <= 17 {
        return host.to_string();
    }
    let mut s: String = host.chars().take(16).collect();
    s.push('\u{2026}');
    s
}

/// The section: heading, legend and the map (nothing without figures).
pub fn section(r: &FleetReport) -> String {
    let (nh, nf) = (r.hosts.len(), r.figures.len());
    let mut out = String::from("<h2 id=\"heatmap\">Deviations: host &#215; figure</h2>\n");
    if nh == 0 || nf == 0 {
        out.push_str("<p class=\"note\">No performance figure on two hosts or more.</p>\n");
        return out;
    }
    let (cw, rh) = cell_size(nf, nh);
    let every_host = rh >= 11;
    let outliers = r.outlier_hosts().count();
    let _ = writeln!(
        out,
        "<p class=\"note\">{nh} hosts (rows, the worst first) &#215; {nf} figures (columns, by benchmark and metric); \
         each cell is the host's deviation from the fleet median in the direction worse for the figure. {}</p>",
        if every_host {
            "Outlier hosts in red.".to_string()
        } else if outliers > 0 {
            format!(
                "The {outliers} outlier host(s) are labelled, above the line, their rows taller."
            )
        } else {
            "No host is an outlier.".to_string()
        }
    );
    out.push_str(&legend(r.tolerance_percent));

    let rotated = cw >= 12;
    let top = if rotated { 170 } else { 8 };
    let x0 = LABEL_W + GAP;
    // In the compact form the outlier hosts' rows (up to MAX_LABELS) are
    // made tall enough for a label: their pixel row is repeated.
    let tall = if every_host {
        0
    } else {
        outliers.min(MAX_LABELS)
    };
    let reps = if tall > 0 { TALL_ROW.div_ceil(rh) } else { 1 };
    let row_y = |i: usize| top + (i.min(tall) * reps + i.saturating_sub(tall)) * rh;
    let (w, h) = (nf * cw, row_y(nh) - top);
    let right = if rotated { 100 } else { 10 };
    let bottom = 58;
    let mut labels = String::new();
    let mut label_bottom = 0;
    let labelled = if every_host { nh } else { tall };
    for (i, host) in r.hosts.iter().take(labelled).enumerate() {
        let y = (row_y(i) + row_y(i + 1)) / 2 + 4;
        let class = if host.outliers.is_empty() {
            ""
        } else {
            " class=\"bad\""
        };
        let _ = writeln!(
            labels,
            "<text x=\"{}\" y=\"{y}\" text-anchor=\"end\"{class}>{}</text>",
            LABEL_W - 2,
            escape(&row_label(&host.host))
        );
    }
    if !every_host && outliers > tall {
        label_bottom = row_y(tall) + 12;
        let _ = writeln!(
            labels,
            "<text x=\"{}\" y=\"{label_bottom}\" text-anchor=\"end\" class=\"bad\">+{} more</text>",
            LABEL_W - 2,
            outliers - tall
        );
    }
    let height = (top + h + bottom).max(label_bottom + 8);
    let width = x0 + w + right;
    let _ = writeln!(
        out,
        "<div class=\"heatmap\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"deviation of each host on each figure\">"
    );
    out.push_str(&labels);
    let mut px = Vec::with_capacity(nf * (nh + tall * reps));
    for (i, row) in cells(r).chunks(nf).enumerate() {
        for _ in 0..if i < tall { reps } else { 1 } {
            px.extend_from_slice(row);
        }
    }
    let uri = png::data_uri(nf, px.len() / nf, &px, &PALETTE);
    let _ = writeln!(
        out,
        "<image x=\"{x0}\" y=\"{top}\" width=\"{w}\" height=\"{h}\" preserveAspectRatio=\"none\" \
         style=\"image-rendering:pixelated\" href=\"{uri}\"/>\
         <rect x=\"{x0}\" y=\"{top}\" width=\"{w}\" height=\"{h}\" class=\"frame\"/>"
    );
    // The line below the outlier hosts' rows.
    if outliers > 0 && outliers < nh {
        let _ = writeln!(
            out,
            "<path d=\"M{} {}h{}\" class=\"split\"/>",
            x0 - 4,
            row_y(outliers),
            w + 8
        );
    }
    if rotated {
        for (i, f) in columns(r).into_iter().enumerate() {
            let x = x0 + i * cw + cw / 2 + 3;
            let class = if f.outliers.is_empty() {
                ""
            } else {
                " class=\"bad\""
            };
            let _ = writeln!(
                out,
                "<text transform=\"translate({x},{}) rotate(-50)\"{class}>{}</text>",
                top - 4,
                escape(&column_label(f))
            );
        }
    }
    // Two rows of brackets: each benchmark's metrics, then the benchmarks.
    let cols = columns(r);
    let metric = |f: &FigureSummary| (format!("{} {}", f.benchmark, f.metric), f.metric.clone());
    let benchmark = |f: &FigureSummary| (f.benchmark.clone(), f.benchmark.clone());
    out.push_str(&groups(&cols, metric, x0, cw, top + h));
    out.push_str(&groups(&cols, benchmark, x0, cw, top + h + 24));
    out.push_str("</svg></div>\n");
    out
}

/// Below the map: a bracket under each run of columns `key` gives the
/// same (group, name), named where it is wide enough.
fn groups(
    figures: &[&FigureSummary],
    key: impl Fn(&FigureSummary) -> (String, String),
    x0: usize,
    cw: usize,
    y: usize,
) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < figures.len() {
        let (group, name) = key(figures[i]);
        let mut j = i;
        while j < figures.len() && key(figures[j]).0 == group {
            j += 1;
        }
        let (x1, x2) = (x0 + i * cw + 1, x0 + j * cw - 1);
        let _ = write!(
            out,
            "<path d=\"M{x1} {}v4H{x2}v-4\" class=\"leader\"/>",
            y + 3
        );
        let room = x2.saturating_sub(x1);
        let chars = name.chars().count();
        let name: String = if chars * 6 + 4 <= room {
            name
        } else {
            // Cut to the room (a character is about 6 px), or nothing.
            let keep = room.saturating_sub(10) / 6;
            if keep >= 3 {
                format!("{}\u{2026}", name.chars().take(keep).collect::<String>())
            } else {
                String::new()
            }
        };
        if !name.is_empty() {
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                (x1 + x2) / 2,
                y + 20,
                escape(&name)
            );
        }
        i = j;
    }
    out.push('\n');
    out
}
