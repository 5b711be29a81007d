//! A dot plot per figure: every host a dot on the figure's axis (its
//! deviation from the fleet median in %, the median's value at 0), hosts
//! that fall in the same bin (a dot's width) stacked (a Wilkinson dot
//! plot), the
//! median line, the tolerance band, the outlier limit on the worse side,
//! and the outlier hosts red and named above their dots.
//!
//! A stack of n dots is one SVG path of length (n-1) x step drawn with
//! `stroke-dasharray="0 step"` and round caps (each zero-length dash is a
//! dot), so a figure of 1,000 hosts is about 200 short paths, not 1,000
//! circles.

use std::fmt::Write as _;

use nodebench_core::model::Better;
use nodebench_core::stats::MAD_SCALE;
use nodebench_fleet::analysis::{FigureSummary, FleetReport};

use crate::format;
use crate::html::escape;

/// Width of the plot, and its left and right margins.
const W: f64 = 560.0;
const PAD: f64 = 14.0;
/// The dots' diameter, and the width of a bin (hosts closer than this
/// stack): 5 px up to [`FEW_HOSTS`] hosts, 3 px above.
const BIG_DOT: f64 = 5.0;
const SMALL_DOT: f64 = 3.0;
const FEW_HOSTS: usize = 100;
/// The outliers' dots, at the least.
const OUTLIER_DOT: f64 = 5.0;
/// Height of the dots' area: the tallest stack's, within these.
const STACK_MIN: f64 = 24.0;
const STACK_MAX: f64 = 54.0;
/// Height of a label lane, and the most lanes.
const LANE_H: f64 = 12.0;
const MAX_LANES: usize = 3;
/// A label character's width at the labels' font size (about).
const CHAR_W: f64 = 6.0;

/// What is drawn of one host.
struct Dot {
    host: String,
    /// Position on the axis: deviation in % (or the value where the
    /// figure has no %).
    p: f64,
    outlier: bool,
    /// How much worse than the median, in % (for the labels' order).
    worse: f64,
}

/// Nice tick positions over `[lo, hi]`, about `n` of them.
fn ticks(lo: f64, hi: f64, n: usize) -> (Vec<f64>, f64) {
    let raw = (hi - lo) / n as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    ((first..=last).map(|k| k as f64 * step).collect(), step)
}

/// The outlier limit on the axis (% from the median): the worse side's
/// tolerance, or the robust z's limit where that is further out.
fn limit(f: &FigureSummary, r: &FleetReport) -> f64 {
    let sign = if f.better == Better::Lower { 1.0 } else { -1.0 };
    let tol = r.tolerance_percent;
    let z = if r.robust_z_used && f.mad > 0.0 {
        r.z * MAD_SCALE * f.mad / f.median * 100.0
    } else {
        0.0
    };
    sign * tol.max(z)
}

/// The figure's `<figure>`: caption (id, median, spread, outliers) and
/// the plot.
pub fn plot(f: &FigureSummary, r: &FleetReport) -> String {
    let judged = f.judged;
    let mut dots: Vec<Dot> = f
        .deviations
        .iter()
        .map(|d| {
            let p = if judged {
                d.deviation_percent.unwrap_or(0.0)
            } else {
                d.value
            };
            let worse = if f.better == Better::Lower { p } else { -p };
            Dot {
                host: d.host.clone(),
                p,
                outlier: d.outlier,
                worse,
            }
        })
        .collect();
    let (mut lo, mut hi) = dots
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), d| {
            (l.min(d.p), h.max(d.p))
        });
    let lim = judged.then(|| limit(f, r));
    if let Some(lim) = lim {
        let t = r.tolerance_percent;
        lo = lo.min(-t).min(lim);
        hi = hi.max(t).max(lim);
    }
    if hi <= lo {
        (lo, hi) = (lo - 1.0, hi + 1.0);
    }
    let span = hi - lo;
    let (lo, hi) = (lo - span * 0.04, hi + span * 0.04);
    let x = |p: f64| PAD + (p - lo) / (hi - lo) * (W - 2.0 * PAD);

    // Stack the dots bin by bin: the others first, the outliers on top.
    let size = if dots.len() <= FEW_HOSTS {
        BIG_DOT
    } else {
        SMALL_DOT
    };
    let bins = ((W - 2.0 * PAD) / size).ceil() as usize + 1;
    let bin_of = |p: f64| (((x(p) - PAD) / size).floor().max(0.0) as usize).min(bins - 1);
    let mut normal = vec![0usize; bins];
    let mut odd = vec![0usize; bins];
    for d in &dots {
        if d.outlier {
            odd[bin_of(d.p)] += 1;
        } else {
            normal[bin_of(d.p)] += 1;
        }
    }
    let tallest = (0..bins).map(|b| normal[b] + odd[b]).max().unwrap_or(1);
    let stack_h = (tallest as f64 * (size + 0.5)).clamp(STACK_MIN, STACK_MAX);
    let step = ((stack_h / tallest as f64).min(size + 0.5) * 100.0).floor() / 100.0;
    let dot = step.min(size).max(1.4);

    // The outliers' labels: the worst first, each in the first lane where
    // it fits, up to MAX_LANES lanes.
    dots.sort_by(|a, b| b.worse.total_cmp(&a.worse));
    let mut lanes: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut placed: Vec<(usize, f64, &Dot)> = Vec::new();
    let mut unlabelled = 0;
    for d in dots.iter().filter(|d| d.outlier) {
        let w = d.host.chars().count() as f64 * CHAR_W + 4.0;
        let cx = x(d.p).clamp(PAD + w / 2.0, W - PAD - w / 2.0);
        let (a, b) = (cx - w / 2.0, cx + w / 2.0);
        let free = |lane: &Vec<(f64, f64)>| lane.iter().all(|&(s, e)| b + 3.0 < s || a > e + 3.0);
        let lane = match lanes.iter().position(free) {
            Some(l) => l,
            None if lanes.len() < MAX_LANES => {
                lanes.push(Vec::new());
                lanes.len() - 1
            }
            None => {
                unlabelled += 1;
                continue;
            }
        };
        lanes[lane].push((a, b));
        placed.push((lane, cx, d));
    }
    let stack_top = 4.0 + lanes.len() as f64 * LANE_H;
    let base = stack_top + stack_h;
    let height = base + 20.0;

    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{height}\" viewBox=\"0 0 {W} {height}\">"
    );
    if let Some(lim) = lim {
        let t = r.tolerance_percent;
        let _ = write!(
            svg,
            "<rect x=\"{:.1}\" y=\"{stack_top}\" width=\"{:.1}\" height=\"{stack_h}\" class=\"band\"/>\
             <path d=\"M{:.1} {}V{base}\" class=\"limit\"/>",
            x(-t),
            x(t) - x(-t),
            x(lim),
            stack_top - 2.0
        );
    }
    let _ = write!(
        svg,
        "<path d=\"M{PAD} {0}H{1}\" class=\"axis\"/><path d=\"M{2:.1} {3}V{0}\" class=\"median\"/>",
        base + 1.0,
        W - PAD,
        x(if judged { 0.0 } else { f.median }),
        stack_top - 2.0
    );
    // Ticks: % from the median (the median's value at 0), or values.
    let (ts, st) = ticks(lo, hi, 6);
    for t in ts {
        let text = if !judged {
            format::value(t, f.unit)
        } else if t.abs() < st / 1e6 {
            format::value(f.median, f.unit)
        } else if st >= 1.0 {
            format!("{t:+.0} %")
        } else {
            format!("{t:+.1} %")
        };
        let _ = write!(
            svg,
            "<path d=\"M{0:.1} {1}v3\" class=\"axis\"/><text x=\"{0:.1}\" y=\"{2}\" text-anchor=\"middle\">{3}</text>",
            x(t),
            base + 1.0,
            base + 14.0,
            escape(&text)
        );
    }
    // The dots: one dashed path per colour.
    let column = |count: &[usize], below: &[usize]| {
        let mut d = String::new();
        for b in 0..bins {
            let n = count[b];
            if n == 0 {
                continue;
            }
            let cx = PAD + b as f64 * size + size / 2.0;
            let y = base - dot / 2.0 - below[b] as f64 * step;
            let _ = write!(
                d,
                "M{cx:.1} {y:.2}v-{:.2}",
                (n - 1) as f64 * step + step / 4.0
            );
        }
        d
    };
    let none = vec![0usize; bins];
    for (class, d, width) in [
        ("dots", column(&normal, &none), dot),
        ("dots bad", column(&odd, &normal), dot.max(OUTLIER_DOT)),
    ] {
        if !d.is_empty() {
            let _ = write!(
                svg,
                "<path d=\"{d}\" class=\"{class}\" stroke-width=\"{width}\" stroke-dasharray=\"0 {step}\"/>"
            );
        }
    }
    // The outliers' names, each with a line down to its bin's stack.
    for (lane, cx, d) in &placed {
        let ly = 4.0 + (*lane as f64 + 1.0) * LANE_H - 3.0;
        let b = bin_of(d.p);
        let top = base - dot - (normal[b] + odd[b]) as f64 * step;
        let _ = write!(
            svg,
            "<text x=\"{cx:.1}\" y=\"{ly}\" text-anchor=\"middle\" class=\"bad\">{}</text>\
             <path d=\"M{:.1} {}V{:.1}\" class=\"leader\"/>",
            escape(&d.host),
            x(d.p).clamp(PAD, W - PAD),
            ly + 2.0,
            top.max(ly + 2.0)
        );
    }
    svg.push_str("</svg>");

    let mut caption = format!(
        "<code>{}</code> <span class=\"note\">{} hosts, median {}",
        escape(&f.id),
        f.host_count,
        escape(&format::value(f.median, f.unit))
    );
    if judged {
        let _ = write!(caption, ", MAD {:.2} %", f.mad / f.median * 100.0);
    }
    let _ = write!(
        caption,
        ", {} is better",
        if f.better == Better::Lower {
            "lower"
        } else {
            "higher"
        }
    );
    if !f.outliers.is_empty() {
        let _ = write!(
            caption,
            "; <b class=\"bad\">{} outlier(s)</b>",
            f.outliers.len()
        );
        if unlabelled > 0 {
            let _ = write!(caption, ", {unlabelled} not named in the plot");
        }
    }
    caption.push_str("</span>");
    format!(
        "<figure class=\"dotplot\" data-outliers=\"{}\"><figcaption>{caption}</figcaption>{svg}</figure>\n",
        f.outliers.len()
    )
}
