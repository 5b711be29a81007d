//! The repeats of a benchmark merged into one result per result of a
//! repeat: the n-th result of a benchmark and workload in each repeat are
//! one result's repeats.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::model::{BenchResult, Histogram, Metric, ResultStatus};
use crate::stats::Stats;

/// Which result of a repeat a result is: its benchmark, its workload
/// parameters ([`crate::registry::workload_params`]) and how many results of
/// that benchmark and workload came before it in its repeat.
type Key = (String, Vec<String>, usize);

fn workload(r: &BenchResult) -> Vec<String> {
    crate::registry::workload_params(&r.benchmark)
        .iter()
        .map(|p| r.param(p).map(|v| v.to_string()).unwrap_or_default())
        .collect()
}

/// Merges `repeats` (each repeat's results in the order recorded) into one
/// result per result of a repeat, in first-seen order. A merged result
/// spans its repeats (first start to last end) and keeps:
///
/// * each metric (by name and labels) with the median of its repeats as its
///   value and their [`Stats::of_repeats`] (every value, the outliers
///   counted) as its stats, its percentage of its reference recomputed;
///   only the passed repeats' values count when any passed;
/// * the first repeat's status, unless a repeat did not pass (then the
///   first that did not, with its error);
/// * every repeat's warnings once ([`merged_warnings`]), their histograms
///   added up, their series
///   one after another (each point's time since the merged start), and the
///   last repeat's phases (their spans since the merged start); no
///   bottleneck line (the recorder names it over the whole span).
pub fn merge(repeats: &[Vec<BenchResult>]) -> Vec<BenchResult> {
    let mut groups: Vec<(Key, Vec<&BenchResult>)> = Vec::new();
    for repeat in repeats {
        let mut seen: BTreeMap<(String, Vec<String>), usize> = BTreeMap::new();
        for r in repeat {
            let w = workload(r);
            let n = seen.entry((r.benchmark.clone(), w.clone())).or_insert(0);
            let key = (r.benchmark.clone(), w, *n);
            *n += 1;
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(r),
                None => groups.push((key, vec![r])),
            }
        }
    }
    groups
        .into_iter()
        .map(|(_, members)| merge_one(&members))
        .collect()
}

/// Seconds from `from` to `t`.
fn since(from: DateTime<Utc>, t: DateTime<Utc>) -> f64 {
    (t - from).num_microseconds().unwrap_or(0) as f64 / 1e6
}

fn merge_one(members: &[&BenchResult]) -> BenchResult {
    let first = members[0];
    let mut out = first.clone();
    if members.len() == 1 {
        return out;
    }
    out.started_at = members
        .iter()
        .map(|r| r.started_at)
        .min()
        .unwrap_or(out.started_at);
    out.ended_at = members
        .iter()
        .map(|r| r.ended_at)
        .max()
        .unwrap_or(out.ended_at);
    if let Some(bad) = members.iter().find(|r| r.status != ResultStatus::Passed) {
        out.status = bad.status;
        out.error = bad.error.clone();
    }
    out.warnings = merged_warnings(members);
    let passed: Vec<&BenchResult> = members
        .iter()
        .copied()
        .filter(|r| r.status == ResultStatus::Passed)
        .collect();
    let counted = if passed.is_empty() {
        members
    } else {
        &passed[..]
    };
    out.metrics = merge_metrics(counted);
    out.histograms = merge_histograms(members);
    out.series = Vec::new();
    for r in members {
        let offset = since(out.started_at, r.started_at);
        for s in &r.series {
            let mut s = s.clone();
            for p in &mut s.points {
                p.0 += offset;
            }
            match out
                .series
                .iter_mut()
                .find(|o| o.name == s.name && o.labels == s.labels)
            {
                Some(o) => o.points.extend(s.points),
                None => out.series.push(s),
            }
        }
    }
    let last = members[members.len() - 1];
    let offset = since(out.started_at, last.started_at);
    out.phases = last
        .phases
        .iter()
        .map(|p| {
            let mut p = p.clone();
            p.start_s += offset;
            p.end_s += offset;
            p.bottleneck = None;
            p
        })
        .collect();
    out.bottleneck = None;
    out
}

/// Each metric (by name and labels, in first-seen order) over `results`.
fn merge_metrics(results: &[&BenchResult]) -> Vec<Metric> {
    let mut merged: Vec<(Metric, Vec<f64>)> = Vec::new();
    for m in results.iter().flat_map(|r| &r.metrics) {
        match merged
            .iter_mut()
            .find(|(o, _)| o.name == m.name && o.labels == m.labels)
        {
            Some((_, values)) => values.push(m.value),
            None => merged.push((m.clone(), vec![m.value])),
        }
    }
    merged
        .into_iter()
        .map(|(mut m, values)| {
            if let Some(st) = Stats::of_repeats(&values).filter(|_| values.len() >= 2) {
                m.value = st.median;
                m.stats = Some(st);
                let reference = m.reference.take();
                m.percent_of_reference = None;
                m = m.with_reference(reference);
            }
            m
        })
        .collect()
}

/// Histograms of the same name and labels added up; one that cannot be
/// decoded is kept as it is.
fn merge_histograms(results: &[&BenchResult]) -> Vec<Histogram> {
    let mut out: Vec<(Histogram, Option<hdrhistogram::Histogram<u64>>)> = Vec::new();
    for h in results.iter().flat_map(|r| &r.histograms) {
        let hdr = h.to_hdr();
        let found = out
            .iter_mut()
            .find(|(o, _)| o.name == h.name && o.labels == h.labels && o.scale == h.scale);
        if let (Some((_, Some(sum))), Some(add)) = (found, &hdr)
            && sum.add(add).is_ok()
        {
            continue;
        }
        if out
            .iter()
            .any(|(o, _)| o.name == h.name && o.labels == h.labels)
        {
            out.push((h.clone(), None));
        } else {
            out.push((h.clone(), hdr));
        }
    }
    out.into_iter()
        .map(|(h, sum)| match sum {
            Some(sum) if sum.len() != h.count => {
                Histogram::from_hdr(h.name, h.unit, h.scale, h.labels, &sum)
            }
            _ => h,
        })
        .collect()
}

/// Every repeat's warnings once: a warning of the same kind (the same text
/// before its first `": "`, e.g. `coefficient of variation over 5 %
/// (noisy machine?)`) in several repeats is kept as the first repeat's,
/// followed by `[and in K more of the N repeats]`, not printed once a
/// repeat with other figures.
pub fn merged_warnings(members: &[&BenchResult]) -> Vec<String> {
    let kind = |w: &str| w.split_once(": ").map_or(w, |(k, _)| k).to_string();
    let mut first: Vec<(String, String, usize)> = Vec::new();
    for r in members {
        let mut seen_here: Vec<String> = Vec::new();
        for w in &r.warnings {
            let k = kind(w);
            if seen_here.contains(&k) && !first.iter().any(|(_, f, _)| f == w) {
                // A second warning of one kind in one repeat: its own.
                first.push((w.clone(), w.clone(), 1));
                continue;
            }
            match first.iter_mut().find(|(fk, _, _)| *fk == k) {
                Some((_, _, n)) if !seen_here.contains(&k) => *n += 1,
                Some(_) => {}
                None => first.push((k.clone(), w.clone(), 1)),
            }
            seen_here.push(k);
        }
    }
    let total = members.len();
    first
        .into_iter()
        .map(|(_, w, n)| {
            if n > 1 {
                format!("{w} [and in {} more of the {total} repeats]", n - 1)
            } else {
                w
            }
        })
        .collect()
}
