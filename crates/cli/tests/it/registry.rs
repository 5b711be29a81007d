//! The benchmark registry (`nodebench_core::registry`) against the rest of
//! the workspace, an architecture rule as those of `architecture.rs`:
//!
//! * every metric name `core::names` declares (each `pub mod metric`
//!   block) is claimed by a descriptor, unless only the importers produce
//!   it, and no descriptor claims a metric twice (one unit per benchmark
//!   and metric).
//!
//! How a benchmark prints is its descriptor's `report` style, which the
//! report crate matches exhaustively: the compiler checks that side.
//!
//! The CLI's side (each benchmark subcommand has exactly one descriptor)
//! is checked in the binary's own tests, `src/commands/architecture.rs`,
//! where its clap definitions are.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use nodebench_core::registry;

/// The areas of `core::names` whose metrics only the importers produce
/// (sysbench's figures), with the runnable benchmarks' none of them.
const IMPORTED_ONLY: &[&str] = &["sysbench"];

/// `(area, constant, value)` of each string constant inside a
/// `pub mod metric { ... }` block of `crates/core/src/names/*.rs`.
fn declared_metrics() -> Vec<(String, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/names");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let area = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut depth = 0usize;
        let mut inside: Option<usize> = None;
        for line in text.lines() {
            let t = line.trim();
            if inside.is_none() && t == "pub mod metric {" {
                inside = Some(depth);
            }
            if inside.is_some()
                && let Some(rest) = t.strip_prefix("pub const ")
                && let Some((name, value)) = rest.split_once(": &str = \"")
            {
                let value = value.trim_end_matches("\";");
                out.push((area.clone(), name.to_string(), value.to_string()));
            }
            depth += t.matches('{').count();
            depth -= t.matches('}').count();
            if inside == Some(depth) && t.contains('}') {
                inside = None;
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_scan_finds_the_metric_blocks() {
    let declared = declared_metrics();
    let has = |area: &str, name: &str, value: &str| {
        declared
            .iter()
            .any(|(a, n, v)| a == area && n == name && v == value)
    };
    assert!(has("disk", "BANDWIDTH", "bandwidth"), "{declared:?}");
    assert!(has("db", "QUERIES_PER_SECOND", "queries_per_second"));
    assert!(has("sysbench", "EVENTS_PER_SECOND", "events_per_second"));
    // Label keys and parameters are not metrics.
    assert!(!declared.iter().any(|(_, n, _)| n == "FILE_SIZE"));
    assert!(declared.len() > 120, "{}", declared.len());
}

#[test]
fn every_declared_metric_is_claimed_by_a_descriptor() {
    let claimed: BTreeSet<&str> = registry::ALL
        .iter()
        .flat_map(|d| d.metric_names())
        .collect();
    let unclaimed: Vec<String> = declared_metrics()
        .into_iter()
        .filter(|(area, _, _)| !IMPORTED_ONLY.contains(&area.as_str()))
        .filter(|(_, _, value)| !claimed.contains(value.as_str()))
        .map(|(area, name, value)| format!("{area}::metric::{name} ({value})"))
        .collect();
    assert!(
        unclaimed.is_empty(),
        "metric names no descriptor claims (add each to its benchmark's descriptor in crates/core/src/registry/): {unclaimed:?}"
    );
}

#[test]
fn each_descriptor_claims_each_metric_once_in_one_unit() {
    for d in registry::ALL {
        let mut units = BTreeMap::new();
        for m in d.metrics {
            assert!(
                units.insert(m.name, m.unit).is_none(),
                "{}: metric {} claimed twice",
                d.id,
                m.name
            );
        }
    }
}
