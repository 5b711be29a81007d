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
const SIZE: (u32, u32) = (880, 440);
/// Font of every label.
const FONT: &str = "sans-serif";

/// How an axis maps its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Evenly spaced values.
    Linear,
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
            Scale::Linear => v,
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
            self.draw(&root, xs, ys).map_err(|e| e.to_string())?;
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
    ) -> Result<(), Box<dyn std::error::Error + '_>> {
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
            let color = Palette99::pick(i).to_rgba();
            let points: Vec<(f64, f64)> = s
                .points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .map(|&(x, y)| (scale.to_axis(x), y))
                .collect();
            match s.style {
                Style::Measured => {
                    chart
                        .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
                        .label(&s.name)
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                        });
                    chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
                }
                Style::Limit => {
                    chart
                        .draw_series(DashedLineSeries::new(points, 8, 5, color.stroke_width(2)))?
                        .label(&s.name)
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(1))
                        });
                }
            }
        }
        for (i, m) in self.markers.iter().enumerate() {
            let color = Palette99::pick(self.series.len() + i).to_rgba();
            let x = scale.to_axis(m.x);
            chart
                .draw_series(DashedLineSeries::new(
                    [(x, bottom), (x, top)],
                    4,
                    4,
                    color.stroke_width(1),
                ))?
                .label(&m.label)
                .legend(move |(x, y)| {
                    PathElement::new(
                        vec![(x + 10, y - 6), (x + 10, y + 6)],
                        color.stroke_width(2),
                    )
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font((FONT, 13))
            .draw()?;
        Ok(())
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

/// Colours of the heat map's bins, low to high.
const BINS: [RGBColor; 5] = [
    RGBColor(215, 48, 39),
    RGBColor(252, 141, 89),
    RGBColor(254, 224, 139),
    RGBColor(145, 207, 96),
    RGBColor(26, 152, 80),
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
            self.draw(&root).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }

    fn draw(
        &self,
        root: &DrawingArea<SVGBackend<'_>, Shift>,
    ) -> Result<(), Box<dyn std::error::Error + '_>> {
        let (nx, ny) = (self.x.1.len(), self.y.1.len());
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .right_y_label_area_size(150)
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
            chart
                .draw_series(cells.iter().map(|&&(x, y, _)| {
                    let (x, y) = (x as f64, y as f64);
                    Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], color.filled())
                }))?
                .label(format!("{from:.0}-{to:.0} {}", self.unit))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled())
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .margin(-140)
            .background_style(WHITE)
            .border_style(RGBColor(160, 160, 160))
            .label_font((FONT, 12))
            .draw()?;
        Ok(())
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
            self.draw(&root, ys).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }

    fn draw(
        &self,
        root: &DrawingArea<SVGBackend<'_>, Shift>,
        ys: Range<f64>,
    ) -> Result<(), Box<dyn std::error::Error + '_>> {
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
            let color = Palette99::pick(i).to_rgba();
            let left = |g: usize| g as f64 - 0.4 + width * i as f64;
            chart
                .draw_series(
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
                )?
                .label(name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled())
                });
        }
        if let Some((value, label)) = &self.reference {
            chart
                .draw_series(DashedLineSeries::new(
                    [(-0.5, *value), (n as f64 - 0.5, *value)],
                    8,
                    5,
                    BLACK.stroke_width(1),
                ))?
                .label(label)
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(1))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font((FONT, 13))
            .draw()?;
        Ok(())
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
        };
        let html = b.figure();
        assert!(
            html.starts_with(
                "<figure class=\"chart\" data-chart=\"comparison\" data-series=\"2\">"
            ),
            "{html}"
        );
        // The background, three bars (none for the missing value), the
        // legend's box and border, and its two swatches.
        assert_eq!(html.matches("<rect").count(), 1 + 3 + 2 + 2, "{html}");
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
}
