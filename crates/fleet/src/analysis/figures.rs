//! The runs as a host x figure grid: which host each run is, which figure
//! each metric is (benchmark, metric, labels, workload, as `compare`
//! matches them), and each host's value of each figure (the median of its
//! runs' values).

use std::collections::{BTreeMap, HashMap, HashSet};

use nodebench_core::model::{Better, ResultStatus, Run, Unit};
use nodebench_core::names::{fleet, slurm};

/// What identifies a figure across hosts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Key {
    pub benchmark: String,
    pub metric: String,
    pub labels: BTreeMap<String, String>,
    pub workload: BTreeMap<String, String>,
}

/// A performance figure.
#[derive(Debug, Clone)]
pub(super) struct Figure {
    pub key: Key,
    pub id: String,
    pub unit: Unit,
    pub better: Better,
}

/// A host and its runs.
#[derive(Debug, Clone)]
pub(super) struct GridHost {
    pub name: String,
    pub runs: Vec<i64>,
}

/// Every host's values of every figure.
#[derive(Debug, Default)]
pub(super) struct Grid {
    /// Hosts in name order.
    pub hosts: Vec<GridHost>,
    /// Performance figures in the order first seen.
    pub figures: Vec<Figure>,
    /// (figure, host, value) for every value read.
    cells: Vec<(usize, usize, f64)>,
    /// Distinct figures that are not performance, left out.
    pub left_out: usize,
}

/// Whether `run` holds a link matrix `fleet pair --matrix` stored.
pub fn is_link_matrix(run: &Run) -> bool {
    run.tags.get(fleet::MODE_TAG).map(String::as_str) == Some(fleet::MODE_MATRIX)
}

/// The name a run's host goes by: its `host` tag (`fleet run`), else
/// Slurm's `node` tag (`slurm collect`), else the inventory's host name,
/// else `run ID`.
pub fn host_name(run: &Run) -> String {
    run.tags
        .get(fleet::HOST_TAG)
        .or_else(|| run.tags.get(slurm::NODE_TAG))
        .cloned()
        .or_else(|| run.inventory.as_ref().and_then(|i| i.hostname.clone()))
        .unwrap_or_else(|| match run.id {
            Some(id) => format!("run {id}"),
            None => "unsaved run".to_string(),
        })
}

impl Grid {
    /// Reads every passed result's performance figures of `runs`.
    pub fn of(runs: &[Run]) -> Grid {
        // A link matrix (`fleet pair --matrix`) is no host's run.
        let runs: Vec<&Run> = runs.iter().filter(|r| !is_link_matrix(r)).collect();
        let mut names: Vec<String> = runs.iter().map(|r| host_name(r)).collect();
        names.sort();
        names.dedup();
        let host_index: HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut grid = Grid {
            hosts: names
                .iter()
                .map(|n| GridHost {
                    name: n.clone(),
                    runs: Vec::new(),
                })
                .collect(),
            ..Grid::default()
        };
        let mut index: HashMap<Key, usize> = HashMap::new();
        let mut left_out: HashSet<Key> = HashSet::new();
        for run in runs {
            let host = host_index[host_name(run).as_str()];
            if let Some(id) = run.id {
                grid.hosts[host].runs.push(id);
            }
            for result in &run.results {
                if result.status != ResultStatus::Passed {
                    continue;
                }
                let workload: BTreeMap<String, String> =
                    nodebench_core::registry::workload_params(&result.benchmark)
                        .iter()
                        .filter_map(|p| result.param(p).map(|v| (p.to_string(), v.to_string())))
                        .collect();
                for m in &result.metrics {
                    let key = Key {
                        benchmark: result.benchmark.clone(),
                        metric: m.name.clone(),
                        labels: m.labels.clone(),
                        workload: workload.clone(),
                    };
                    let better = nodebench_core::orientation::of(m);
                    if better == Better::Neither {
                        left_out.insert(key);
                        continue;
                    }
                    if !m.value.is_finite() {
                        continue;
                    }
                    let next = grid.figures.len();
                    let fig = *index.entry(key).or_insert(next);
                    if fig == next {
                        grid.figures.push(Figure {
                            id: format!("{} {}", result.benchmark, m.key()),
                            key: Key {
                                benchmark: result.benchmark.clone(),
                                metric: m.name.clone(),
                                labels: m.labels.clone(),
                                workload: workload.clone(),
                            },
                            unit: m.unit,
                            better,
                        });
                    }
                    grid.cells.push((fig, host, m.value));
                }
            }
        }
        grid.left_out = left_out.len();
        grid.name_apart();
        grid
    }

    /// Adds the workload to the ids of figures that would read the same.
    fn name_apart(&mut self) {
        let mut count: HashMap<String, usize> = HashMap::new();
        for f in &self.figures {
            *count.entry(f.id.clone()).or_default() += 1;
        }
        for f in &mut self.figures {
            if count[&f.id] > 1 {
                let w: Vec<String> = f
                    .key
                    .workload
                    .iter()
                    .map(|(k, v)| format!("{k}={}", v.trim_matches('"')))
                    .collect();
                f.id = format!("{} [{}]", f.id, w.join(","));
            }
        }
    }

    /// Per figure, each host's value (the median of its values), in host
    /// order: one sort of every cell.
    pub fn cells_by_figure(&self) -> Vec<Vec<(usize, f64)>> {
        let mut cells = self.cells.clone();
        cells.sort_unstable_by_key(|c| (c.0, c.1));
        let mut out: Vec<Vec<(usize, f64)>> = vec![Vec::new(); self.figures.len()];
        let mut i = 0;
        while i < cells.len() {
            let (fig, host, _) = cells[i];
            let mut j = i;
            while j < cells.len() && cells[j].0 == fig && cells[j].1 == host {
                j += 1;
            }
            let median = if j == i + 1 {
                cells[i].2
            } else {
                let mut vals: Vec<f64> = cells[i..j].iter().map(|c| c.2).collect();
                nodebench_core::stats::median_mad(&mut vals).map_or(f64::NAN, |m| m.0)
            };
            out[fig].push((host, median));
            i = j;
        }
        out
    }
}
