//! A power chart per result that has power figures, placed right after the
//! charts of its benchmark (beside its rate in the grid): each source's
//! average watts over the result as bars, a bar per run, and where an idle
//! draw was stored the watts above it too.

use nodebench_core::names::energy::{label, metric};
use nodebench_core::{BenchResult, Metric};

use super::super::Labelled;
use super::super::chart::BarChart;
use super::{Figure, matched, series_name, titled};

/// The `data-chart` kind.
pub const KIND: &str = "power";

/// Whether `m` is the whole result's figure of a source (not a phase's):
/// it carries only the source's labels.
fn whole(m: &Metric) -> bool {
    m.labels
        .keys()
        .all(|k| [label::SOURCE, label::SCOPE, label::SENSOR].contains(&k.as_str()))
}

/// `SENSOR (SCOPE)`.
fn source_name(m: &Metric) -> Option<String> {
    let sensor = m.labels.get(label::SENSOR)?;
    Some(match m.labels.get(label::SCOPE) {
        Some(scope) => format!("{sensor} ({scope})"),
        None => sensor.clone(),
    })
}

/// The power chart of each result (matched across runs) holding `power`.
fn charts(runs: &[Labelled]) -> Vec<(String, BarChart)> {
    let mut ids: Vec<&str> = Vec::new();
    for run in runs {
        for r in &run.run.results {
            if !ids.contains(&r.benchmark.as_str()) {
                ids.push(&r.benchmark);
            }
        }
    }
    let mut out = Vec::new();
    for id in ids {
        for group in matched(runs, id) {
            let of = |r: &BenchResult, name: &str| -> Vec<(String, f64)> {
                r.metrics_named(name)
                    .filter(|m| whole(m) && m.value.is_finite())
                    .filter_map(|m| Some((source_name(m)?, m.value)))
                    .collect()
            };
            let mut sources: Vec<String> = Vec::new();
            for (_, r) in &group {
                for (s, _) in of(r, metric::POWER) {
                    if !sources.contains(&s) {
                        sources.push(s);
                    }
                }
            }
            if sources.is_empty() {
                continue;
            }
            let mut series = Vec::new();
            for &(run, r) in &group {
                for (name, what) in [
                    (metric::POWER, "total"),
                    (metric::POWER_ABOVE_IDLE, "above idle"),
                ] {
                    let values = of(r, name);
                    if values.is_empty() {
                        continue;
                    }
                    let per_source = sources
                        .iter()
                        .map(|s| values.iter().find(|(n, _)| n == s).map(|(_, v)| *v))
                        .collect();
                    series.push((series_name(runs, run, what), per_source));
                }
            }
            let title = format!("{}: average power by source", titled(id, group[0].1));
            out.push((
                id.to_string(),
                BarChart {
                    kind: KIND,
                    title,
                    groups: ("power source".into(), sources),
                    y: "power (W)".into(),
                    series,
                    reference: None,
                    neutral: None,
                },
            ));
        }
    }
    out
}

/// The title of a figure.
fn title(f: &Figure) -> &str {
    match f {
        Figure::Line(c) => &c.title,
        Figure::Heat(h) => &h.title,
        Figure::Bar(b) => &b.title,
    }
}

/// Adds the power charts of `runs` to `figures`, each right after the last
/// chart of its benchmark (its rate), else at the end.
pub(super) fn insert(runs: &[Labelled], figures: &mut Vec<Figure>) {
    for (id, chart) in charts(runs) {
        let of_id = |f: &Figure| {
            let t = title(f);
            t.strip_prefix(id.as_str())
                .is_some_and(|rest| rest.starts_with(':') || rest.starts_with(' '))
        };
        let at = figures
            .iter()
            .rposition(|f| of_id(f) && !matches!(f, Figure::Bar(b) if b.kind == KIND))
            .map_or(figures.len(), |i| i + 1);
        // After the result's own charts and any power chart already there.
        let at = at
            + figures[at..]
                .iter()
                .take_while(|f| matches!(f, Figure::Bar(b) if b.kind == KIND) && of_id(f))
                .count();
        figures.insert(at, Figure::Bar(chart));
    }
}
