//! Charts as data ([`Chart`], [`HeatMap`], [`BarChart`]) and their drawing with
//! `plotters`' SVG backend into the `<figure class="chart">` the HTML report
//! embeds. Values are stored in the unit their axis title names; log axes
//! (binary sizes, percentile "nines") are drawn on linear coordinates of the
//! transformed value, with tick labels printed back in the axis' own terms.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::escape;
use nodebench_core::units::format_bytes;

/// Width and height of every chart, in SVG pixels (scaled down by the page).
const SIZE: (u32, u32) = (960, 440);
/// Width of the legend beside the plot (legends never cover data).
const LEGEND_WIDTH: u32 = 250;
/// Font of every label.
const FONT: &str = "sans-serif";

/// Series colours: the Okabe-Ito palette, which readers with any common
/// colour-vision deficiency tell apart, without its yellow and sky blue
/// (under 3:1 against white) and with its orange darkened, then three dark
/// colours of Paul Tol's muted scheme. Every one has at least 3:1 contrast
/// on white (WCAG's floor for graphics), checked by a test.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x33, 0x22, 0x88),
    RGBColor(0xA6, 0x5E, 0x00),
    RGBColor(0x88, 0x22, 0x55),
    RGBColor(0x11, 0x77, 0x33),
];

/// The neutral grey of a baseline (never the red or green of worse and
/// better): 4.5:1 on white.
pub const NEUTRAL: RGBColor = RGBColor(0x76, 0x76, 0x76);

/// The colour of series `i`.
fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// How a legend entry's swatch is drawn.
#[derive(Clone, Copy)]
enum Swatch {
    /// A measured line.
    Line(RGBColor),
    /// A dashed limit or marker.
    Dashed(RGBColor),
    /// A bar or a heat-map bin.
    Bar(RGBColor),
}

/// Entries beyond this many are summed up in one "and N more" line.
const LEGEND_ROWS: usize = 22;

/// Draws `entries` top-down in `area`, the legend column right of a plot.
fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    entries: &[(String, Swatch)],
) -> Result<(), Box<dyn std::error::Error>> {
    let row = 18;
    for (i, (name, swatch)) in entries.iter().take(LEGEND_ROWS).enumerate() {
        let y = 48 + row * i as i32;
        match *swatch {
            Swatch::Line(c) => {
                area.draw(&PathElement::new(vec![(6, y), (28, y)], c.stroke_width(2)))?;
                area.draw(&Circle::new((17, y), 3, c.filled()))?;
            }
            Swatch::Dashed(c) => {
                for x in [6, 14, 22] {
                    area.draw(&PathElement::new(
                        vec![(x, y), (x + 5, y)],
                        c.stroke_width(2),
                    ))?;
                }
            }
            Swatch::Bar(c) => {
                area.draw(&Rectangle::new([(8, y - 6), (22, y + 6)], c.filled()))?;
            }
        }
        let text: String = if name.chars().count() > 30 {
            name.chars().take(29).chain(std::iter::once('…')).collect()
        } else {
            name.clone()
        };
        area.draw(&Text::new(text, (34, y - 7), (FONT, 13)))?;
    }
    if entries.len() > LEGEND_ROWS {
        let y = 48 + row * LEGEND_ROWS as i32;
        let more = format!("and {} more", entries.len() - LEGEND_ROWS);
        area.draw(&Text::new(more, (34, y - 7), (FONT, 13)))?;
    }
    Ok(())
}

/// How an axis maps its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Evenly spaced values.
    Linear,
    /// Whole numbers (thread counts, users, orders): integer ticks only.
    Count,
    /// Sizes in bytes on a log2 axis, ticks printed as `4 KiB`.
    Bytes,
    /// Percentiles (0..100) on a log "nines" axis: 90, 99, 99.9... evenly
    /// spaced, as HdrHistogram's percentile plots.
    Nines,
}

impl Scale {
    /// Where `v` is drawn.
    fn to_axis(self, v: f64) -> f64 {
        match self {
            Scale::Linear | Scale::Count => v,
            Scale::Bytes => v.max(1.0).log2(),
            Scale::Nines => -(1.0 - (v / 100.0).min(1.0 - 1e-9)).log10(),
        }
    }

    /// The tick label of axis position `a`.
    fn label(self, a: f64) -> String {
        match self {
            Scale::Linear => {
                if a.abs() >= 1e4 || (a != 0.0 && a.abs() < 1e-2) {
                    format!("{a:.1e}")
                } else {
                    format!("{}", (a * 1000.0).round() / 1000.0)
                }
            }
            Scale::Count => {
                if (a - a.round()).abs() < 1e-6 {
                    format!("{}", a.round())
                } else {
                    String::new()
                }
            }
            Scale::Bytes => format_bytes(2f64.powf(a).round() as u64),
            Scale::Nines => {
                let p = 100.0 * (1.0 - 10f64.powf(-a));
                let digits = (a.round() as usize).saturating_sub(2).min(6);
                format!("{p:.digits$}%")
            }
        }
    }
}

/// An axis: its title (with the unit) and its scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The title drawn along the axis, e.g. `rate (GFLOPS)`.
    pub title: String,
    /// How values map onto it.
    pub scale: Scale,
}

impl Axis {
    /// A linear axis titled `title`.
    pub fn linear(title: impl Into<String>) -> Axis {
        Axis {
            title: title.into(),
            scale: Scale::Linear,
        }
    }

    /// An axis of whole numbers titled `title` (thread counts, users).
    pub fn count(title: impl Into<String>) -> Axis {
        Axis {
            title: title.into(),
            scale: Scale::Count,
        }
    }

    /// An axis of `scale` titled `title`.
    pub fn new(title: impl Into<String>, scale: Scale) -> Axis {
        Axis {
            title: title.into(),
            scale,
        }
    }
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A measured series: a line through marked points.
    Measured,
    /// A limit (theoretical peak, saturation): a dashed line, not counted
    /// among the chart's data series.
    Limit,
}

/// One named line of a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Its legend entry.
    pub name: String,
    /// `(x, y)` in the axes' units.
    pub points: Vec<(f64, f64)>,
    /// Measured data or a limit.
    pub style: Style,
}

/// A vertical line at `x` (a cache size, a saturation point), named in
/// the legend.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// Where, in the x axis' unit.
    pub x: f64,
    /// Its legend entry.
    pub label: String,
}

/// A line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// What it shows (the `data-chart` attribute): `scaling`, `linpack`...
    pub kind: &'static str,
    /// The title drawn above it.
    pub title: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// A right-hand axis showing y times a factor (LINPACK's % of peak).
    pub y2: Option<(String, f64)>,
    /// The lines.
    pub series: Vec<Series>,
    /// Vertical markers.
    pub markers: Vec<Marker>,
}

impl Chart {
    /// An empty chart of `kind` titled `title` on axes `x` and `y`.
    pub fn new(kind: &'static str, title: impl Into<String>, x: Axis, y: Axis) -> Chart {
        Chart {
            kind,
            title: title.into(),
            x,
            y,
            y2: None,
            series: Vec::new(),
            markers: Vec::new(),
        }
    }

    /// The measured series (limits and markers aside).
    pub fn data_series(&self) -> usize {
        self.series
            .iter()
            .filter(|s| s.style == Style::Measured)
            .count()
    }

    /// The chart as a `<figure>` holding its SVG.
    pub fn figure(&self) -> String {
        let svg = match self.svg() {
            Ok(svg) => svg,
            Err(e) => return unavailable(self.kind, &self.title, &e),
        };
        figure(self.kind, self.data_series(), &self.title, &svg)
    }

    fn svg(&self) -> Result<String, String> {
        let (xs, ys) = self.ranges()?;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
            let entries = self.draw(&plot, xs, ys).map_err(|e| e.to_string())?;
            draw_legend(&legend, &entries).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }

    /// The drawn ranges of x and y, with a margin; y starts at 0.
    fn ranges(&self) -> Result<(Range<f64>, Range<f64>), String> {
        let xs: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .chain(self.markers.iter().map(|m| m.x))
            .filter(|v| v.is_finite())
            .map(|v| self.x.scale.to_axis(v))
            .collect();
        let ys: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .filter(|v| v.is_finite())
            .collect();
        if xs.is_empty() || ys.is_empty() {
            return Err("no data points".into());
        }
        let (x0, x1) = min_max(&xs);
        let pad = if x1 > x0 { 0.03 * (x1 - x0) } else { 0.5 };
        let (y0, y1) = min_max(&ys);
        let top = if y1 > 0.0 { y1 * 1.1 } else { 1.0 };
        Ok((x0 - pad..x1 + pad, y0.min(0.0)..top))
    }

    fn draw(
        &self,
        root: &DrawingArea<SVGBackend<'_>, Shift>,
        xs: Range<f64>,
        ys: Range<f64>,
    ) -> Result<Vec<(String, Swatch)>, Box<dyn std::error::Error + '_>> {
        let mut entries = Vec::new();
        let factor = self.y2.as_ref().map_or(1.0, |(_, f)| *f);
        let (xs_start, xs_end) = (xs.start, xs.end);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .right_y_label_area_size(if self.y2.is_some() { 64 } else { 0 })
            .build_cartesian_2d(xs.clone(), ys.clone())?
            .set_secondary_coord(xs, ys.start * factor..ys.end * factor);
        let scale = self.x.scale;
        let x_label = move |v: &f64| scale.label(*v);
        // Log axes get a tick per power (of 10 nines, of 2 bytes), or per
        // second power where they would crowd.
        let span = (xs_end - xs_start).max(1.0) as usize;
        let x_ticks = match scale {
            Scale::Linear => 10,
            // At most one label per whole number: the steps plotters picks
            // (1, 2, 5 x 10^k) are then whole numbers too.
            Scale::Count => ((xs_end - xs_start).floor() as usize + 1).clamp(2, 10),
            Scale::Bytes if span > 12 => span / 2 + 1,
            Scale::Bytes | Scale::Nines => span + 1,
        };
        chart
            .configure_mesh()
            .x_labels(x_ticks)
            .x_desc(&self.x.title)
            .y_desc(&self.y.title)
            .x_label_formatter(&x_label)
            .axis_desc_style((FONT, 15))
            .label_style((FONT, 13))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        if let Some((title, _)) = &self.y2 {
            chart
                .configure_secondary_axes()
                .y_desc(title)
                .axis_desc_style((FONT, 15))
                .label_style((FONT, 13))
                .draw()?;
        }
        let (top, bottom) = (chart.y_range().end, chart.y_range().start);
        for (i, s) in self.series.iter().enumerate() {
            let color = colour(i);
            let points: Vec<(f64, f64)> = s
                .points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .map(|&(x, y)| (scale.to_axis(x), y))
                .collect();
            match s.style {
                Style::Measured => {
                    chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
                    chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
                    entries.push((s.name.clone(), Swatch::Line(color)));
                }
                Style::Limit => {
                    chart.draw_series(DashedLineSeries::new(
                        points,
                        8,
                        5,
                        color.stroke_width(2),
                    ))?;
                    entries.push((s.name.clone(), Swatch::Dashed(color)));
                }
            }
        }
        for (i, m) in self.markers.iter().enumerate() {
            let color = colour(self.series.len() + i);
            let x = scale.to_axis(m.x);
            chart.draw_series(DashedLineSeries::new(
                [(x, bottom), (x, top)],
                4,
                4,
                color.stroke_width(1),
            ))?;
            entries.push((m.label.clone(), Swatch::Dashed(color)));
        }
        Ok(entries)
    }
}

/// A matrix of values by two categories (IOzone's file size x record
/// size), coloured in five bins named in the legend.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatMap {
    /// What it shows (the `data-chart` attribute).
    pub kind: &'static str,
    /// The title drawn above it.
    pub title: String,
    /// Horizontal axis title and its category names, left to right.
    pub x: (String, Vec<String>),
    /// Vertical axis title and its category names, bottom to top.
    pub y: (String, Vec<String>),
    /// `(x index, y index, value)`.
    pub cells: Vec<(usize, usize, f64)>,
    /// The unit of the values, for the legend (`MB/s`).
    pub unit: String,
}

/// Colours of the heat map's bins, low to high: five stops of viridis, a
/// sequential scale readers with any common colour-vision deficiency (and
/// in grey print) read in order; not the red-to-green of worse and better.
const BINS: [RGBColor; 5] = [
    RGBColor(0x44, 0x01, 0x54),
    RGBColor(0x3B, 0x52, 0x8B),
    RGBColor(0x21, 0x91, 0x8C),
    RGBColor(0x5D, 0xC8, 0x63),
    RGBColor(0xFD, 0xE7, 0x25),
];

impl HeatMap {
    /// The heat map as a `<figure>` holding its SVG (one data series: the matrix).
    pub fn figure(&self) -> String {
        match self.svg() {
            Ok(svg) => figure(self.kind, 1, &self.title, &svg),
            Err(e) => unavailable(self.kind, &self.title, &e),
        }
    }

    fn svg(&self) -> Result<String, String> {
        if self.cells.is_empty() || self.x.1.is_empty() || self.y.1.is_empty() {
            return Err("no cells".into());
        }
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
            let entries = self.draw(&plot).map_err(|e| e.to_string())?;
            draw_legend(&legend, &entries).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }

    fn draw(
        &self,
        root: &DrawingArea<SVGBackend<'_>, Shift>,
    ) -> Result<Vec<(String, Swatch)>, Box<dyn std::error::Error + '_>> {
        let mut entries = Vec::new();
        let (nx, ny) = (self.x.1.len(), self.y.1.len());
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5..nx as f64 - 0.5, -0.5..ny as f64 - 0.5)?;
        let category = |names: &[String], v: f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        let x_label = |v: &f64| category(&self.x.1, *v);
        let y_label = |v: &f64| category(&self.y.1, *v);
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(nx + 1)
            .y_labels(ny + 1)
            .x_desc(&self.x.0)
            .y_desc(&self.y.0)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .axis_desc_style((FONT, 15))
            .label_style((FONT, 12))
            .draw()?;
        let values: Vec<f64> = self.cells.iter().map(|c| c.2).collect();
        let (lo, hi) = min_max(&values);
        let width = (hi - lo) / BINS.len() as f64;
        let bin = |v: f64| {
            if width > 0.0 {
                (((v - lo) / width) as usize).min(BINS.len() - 1)
            } else {
                BINS.len() - 1
            }
        };
        for (b, color) in BINS.iter().enumerate() {
            let cells: Vec<_> = self.cells.iter().filter(|c| bin(c.2) == b).collect();
            if cells.is_empty() {
                continue;
            }
            let color = *color;
            let (from, to) = (lo + width * b as f64, lo + width * (b + 1) as f64);
            chart.draw_series(cells.iter().map(|&&(x, y, _)| {
                let (x, y) = (x as f64, y as f64);
                Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], color.filled())
            }))?;
            entries.push((
                format!("{from:.0}-{to:.0} {}", self.unit),
                Swatch::Bar(color),
            ));
        }
        Ok(entries)
    }
}

/// Bars grouped by category, one bar per series in each group (the
/// comparison's sides), with a dashed reference line across (100 % of the
/// baseline).
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    /// What it shows (the `data-chart` attribute).
    pub kind: &'static str,
    /// The title drawn above it.
    pub title: String,
    /// Horizontal axis title and the group names, left to right.
    pub groups: (String, Vec<String>),
    /// The vertical axis title, with its unit.
    pub y: String,
    /// `(legend entry, one value per group)`; a missing value draws no bar.
    pub series: Vec<(String, Vec<Option<f64>>)>,
    /// A horizontal line across the chart at this value, named in the legend.
    pub reference: Option<(f64, String)>,
    /// The series drawn in neutral grey: the baseline of a comparison.
    pub neutral: Option<usize>,
}

impl BarChart {
    /// The chart as a `<figure>` holding its SVG (a data series per bar
    /// colour).
    pub fn figure(&self) -> String {
        match self.svg() {
            Ok(svg) => figure(self.kind, self.series.len(), &self.title, &svg),
            Err(e) => unavailable(self.kind, &self.title, &e),
        }
    }

    fn svg(&self) -> Result<String, String> {
        let values: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.1.iter().flatten().copied())
            .chain(self.reference.iter().map(|r| r.0))
            .filter(|v| v.is_finite())
            .collect();
        if values.is_empty() || self.groups.1.is_empty() {
            return Err("no data points".into());
        }
        let (lo, hi) = min_max(&values);
        let ys = lo.min(0.0)..if hi > 0.0 { hi * 1.15 } else { 1.0 };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
            let entries = self.draw(&plot, ys).map_err(|e| e.to_string())?;
            draw_legend(&legend, &entries).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }

    fn draw(
        &self,
        root: &DrawingArea<SVGBackend<'_>, Shift>,
        ys: Range<f64>,
    ) -> Result<Vec<(String, Swatch)>, Box<dyn std::error::Error + '_>> {
        let mut entries = Vec::new();
        let groups = &self.groups.1;
        let n = groups.len();
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, ys)?;
        let group_label = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                groups.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n + 1)
            .x_desc(&self.groups.0)
            .y_desc(&self.y)
            .x_label_formatter(&group_label)
            .axis_desc_style((FONT, 15))
            .label_style((FONT, 13))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        // The bars of a group share 80 % of its width.
        let width = 0.8 / self.series.len().max(1) as f64;
        for (i, (name, values)) in self.series.iter().enumerate() {
            let color = if self.neutral == Some(i) {
                NEUTRAL
            } else {
                colour(i)
            };
            let left = |g: usize| g as f64 - 0.4 + width * i as f64;
            chart.draw_series(
                values
                    .iter()
                    .enumerate()
                    .filter_map(|(g, v)| v.filter(|v| v.is_finite()).map(|v| (g, v)))
                    .map(|(g, v)| {
                        Rectangle::new(
                            [(left(g) + 0.01, 0.0), (left(g) + width - 0.01, v)],
                            color.filled(),
                        )
                    }),
            )?;
            entries.push((name.clone(), Swatch::Bar(color)));
        }
        if let Some((value, label)) = &self.reference {
            chart.draw_series(DashedLineSeries::new(
                [(-0.5, *value), (n as f64 - 0.5, *value)],
                8,
                5,
                BLACK.stroke_width(1),
            ))?;
            entries.push((label.clone(), Swatch::Dashed(BLACK)));
        }
        Ok(entries)
    }
}

/// `<figure class="chart" data-chart=KIND data-series=N>` with its caption
/// and SVG.
fn figure(kind: &str, series: usize, title: &str, svg: &str) -> String {
    format!(
        "<figure class=\"chart\" data-chart=\"{kind}\" data-series=\"{series}\">\
         <figcaption>{}</figcaption>{}</figure>\n",
        escape(title),
        svg.trim_start_matches(|c: char| c != '<')
    )
}

/// A chart that could not be drawn: its title and why, so the page says so.
fn unavailable(kind: &str, title: &str, why: &str) -> String {
    format!(
        "<p class=\"warning\" data-chart-missing=\"{kind}\">{}: chart not drawn ({})</p>\n",
        escape(title),
        escape(why)
    )
}

/// The smallest and largest of `values` (not empty).
fn min_max(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

/// The text of every `<text>` element of `html`, trimmed: what a reader
/// sees written in the charts.
#[cfg(test)]
pub(super) fn texts(html: &str) -> Vec<String> {
    html.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..t.find("</text>")?];
            Some(body.trim().to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_chart() -> Chart {
        let mut c = Chart::new(
            "test",
            "Rate by threads",
            Axis::linear("threads"),
            Axis::linear("rate (GFLOPS)"),
        );
        c.series.push(Series {
            name: "f64.vector".into(),
            points: vec![(1.0, 10.0), (2.0, 19.0)],
            style: Style::Measured,
        });
        c.series.push(Series {
            name: "peak".into(),
            points: vec![(1.0, 25.0), (2.0, 25.0)],
            style: Style::Limit,
        });
        c
    }

    #[test]
    fn a_line_chart_draws_title_axes_and_legend_into_its_figure() {
        let html = line_chart().figure();
        assert!(
            html.starts_with("<figure class=\"chart\" data-chart=\"test\" data-series=\"1\">"),
            "{html}"
        );
        assert!(html.contains("<figcaption>Rate by threads</figcaption><svg"));
        let texts = texts(&html);
        for text in [
            "Rate by threads",
            "threads",
            "rate (GFLOPS)",
            "f64.vector",
            "peak",
        ] {
            assert!(texts.iter().any(|t| t == text), "{text} missing: {texts:?}");
        }
    }

    #[test]
    fn log_axes_print_sizes_and_nines() {
        assert_eq!(Scale::Bytes.label(Scale::Bytes.to_axis(32768.0)), "32 KiB");
        assert_eq!(Scale::Nines.label(Scale::Nines.to_axis(99.0)), "99%");
        assert_eq!(Scale::Nines.label(Scale::Nines.to_axis(99.9)), "99.9%");
        assert_eq!(Scale::Nines.label(Scale::Nines.to_axis(90.0)), "90%");
    }

    #[test]
    fn a_chart_without_points_says_why_instead_of_an_empty_svg() {
        let c = Chart::new("test", "Empty", Axis::linear("x"), Axis::linear("y"));
        let html = c.figure();
        assert!(html.contains("chart not drawn (no data points)"), "{html}");
        assert!(!html.contains("<figure"), "{html}");
    }

    #[test]
    fn a_heat_map_names_its_bins_in_the_legend() {
        let h = HeatMap {
            kind: "heat",
            title: "write".into(),
            x: ("record size".into(), vec!["4 KiB".into(), "8 KiB".into()]),
            y: ("file size".into(), vec!["64 KiB".into()]),
            cells: vec![(0, 0, 100.0), (1, 0, 200.0)],
            unit: "MB/s".into(),
        };
        let html = h.figure();
        assert!(html.contains("data-series=\"1\""), "{html}");
        let texts = texts(&html);
        for text in [
            "100-120 MB/s",
            "180-200 MB/s",
            "8 KiB",
            "record size",
            "file size",
        ] {
            assert!(texts.iter().any(|t| t == text), "{text} missing: {texts:?}");
        }
    }

    #[test]
    fn a_bar_chart_groups_a_bar_per_series_with_the_reference_line() {
        let b = BarChart {
            kind: "comparison",
            title: "% of baseline by area".into(),
            groups: ("area".into(), vec!["cpu".into(), "memory".into()]),
            y: "% of baseline".into(),
            series: vec![
                ("run 1".into(), vec![Some(100.0), Some(100.0)]),
                ("run 2".into(), vec![Some(200.0), None]),
            ],
            reference: Some((100.0, "baseline (100 %)".into())),
            neutral: Some(0),
        };
        let html = b.figure();
        assert!(
            html.starts_with(
                "<figure class=\"chart\" data-chart=\"comparison\" data-series=\"2\">"
            ),
            "{html}"
        );
        // The background, three bars (none for the missing value) and the
        // legend's two swatches.
        assert_eq!(html.matches("<rect").count(), 1 + 3 + 2, "{html}");
        // The baseline's bars and swatch are neutral grey, the other side
        // the first palette colour; no red or green.
        assert_eq!(html.matches("fill=\"#767676\"").count(), 2 + 1, "{html}");
        assert_eq!(html.matches("fill=\"#D55E00\"").count(), 1 + 1, "{html}");
        let texts = texts(&html);
        for text in [
            "% of baseline by area",
            "area",
            "% of baseline",
            "cpu",
            "memory",
            "run 1",
            "run 2",
            "baseline (100 %)",
        ] {
            assert!(texts.iter().any(|t| t == text), "{text} missing: {texts:?}");
        }
    }

    /// WCAG's contrast ratio of `c` against white.
    fn contrast_on_white(c: RGBColor) -> f64 {
        let lin = |v: u8| {
            let v = v as f64 / 255.0;
            if v <= 0.03928 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        let l = 0.2126 * lin(c.0) + 0.7152 * lin(c.1) + 0.0722 * lin(c.2);
        1.05 / (l + 0.05)
    }

    #[test]
    fn every_series_colour_stands_out_on_white() {
        for c in PALETTE.iter().chain([&NEUTRAL]) {
            assert!(
                contrast_on_white(*c) >= 3.0,
                "{c:?}: {}",
                contrast_on_white(*c)
            );
        }
        // Eight different colours before any repeats.
        let set: std::collections::BTreeSet<_> = PALETTE.iter().map(|c| (c.0, c.1, c.2)).collect();
        assert_eq!(set.len(), PALETTE.len());
    }

    #[test]
    fn thread_axes_are_ticked_in_whole_numbers_and_legends_sit_beside_the_plot() {
        let mut c = line_chart();
        c.x = Axis::count("threads");
        let html = c.figure();
        let texts = texts(&html);
        // Ticks at 1 and 2 only: no 1.2, 1.4 ...
        assert!(
            texts.iter().any(|t| t == "1") && texts.iter().any(|t| t == "2"),
            "{texts:?}"
        );
        let fractional = |t: &String| t.parse::<f64>().is_ok_and(|v| v.fract() != 0.0);
        assert!(!texts.iter().any(fractional), "{texts:?}");
        // The legend's entries start right of the plot area.
        let x_of = |name: &str| {
            let at = html
                .find(&format!(">{name}<"))
                .or_else(|| html.find(&format!(">\n{name}")));
            let before = &html[..at.unwrap_or_else(|| panic!("{name} in {html}"))];
            let tag = &before[before.rfind("<text").unwrap()..];
            let x = &tag[tag.find("x=\"").unwrap() + 3..];
            x[..x.find('"').unwrap()].parse::<f64>().unwrap()
        };
        let plot_right = (SIZE.0 - LEGEND_WIDTH) as f64;
        assert!(x_of("f64.vector") > plot_right, "{html}");
        assert!(x_of("peak") > plot_right, "{html}");
    }
}
