//! `nodebench memory numa`: Intel MLC's `--latency_matrix` and
//! `--bandwidth_matrix`. For every NUMA node i with usable CPUs and every
//! node j with memory: the idle latency of a dependent chase on one CPU of
//! node i through a buffer bound to node j (`mbind`, before first touch),
//! and the read bandwidth of all usable CPUs of node i through a buffer
//! bound to node j. The kernel is asked where sampled pages ended up, and
//! the result says so. On a machine with one node the matrices are 1x1 and
//! a note says there is nothing far to compare.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::{Buffer, check_fits};
use nodebench_core::config::Config;
use nodebench_core::inventory::Inventory;
use nodebench_core::names::memory::{self as names, label, metric, param};
use nodebench_core::numa::{self, Placement};
use nodebench_core::team::SpinBarrier;
use nodebench_core::{BenchResult, Better, Metric, Unit, affinity, cpulist};

use crate::config::{check_buffer, check_point_duration, default_traffic_bytes, hugepages_param};
use crate::latency::{build_chain, chase, line_bytes, median_chase, warmup_loads};

/// Everything `memory numa` runs with.
#[derive(Debug, Clone)]
pub struct NumaConfig {
    /// Bytes of each latency cell's chase buffer.
    pub latency_bytes: u64,
    /// Bytes of each bandwidth cell's buffer; `None` for 4x the last-level
    /// cache, at least 256 MiB.
    pub bandwidth_bytes: Option<u64>,
    /// Time per cell.
    pub duration: Duration,
    /// Transparent huge pages for the buffers.
    pub hugepages: bool,
}

impl Default for NumaConfig {
    /// 256 MiB chases, 4x LLC bandwidth buffers, 200 ms a cell, huge pages.
    fn default() -> Self {
        NumaConfig {
            latency_bytes: 256 << 20,
            bandwidth_bytes: None,
            duration: Duration::from_millis(200),
            hugepages: true,
        }
    }
}

impl Config for NumaConfig {
    fn validate(&self) -> Result<(), BenchError> {
        check_buffer("--latency-size", self.latency_bytes, "256m")?;
        if let Some(b) = self.bandwidth_bytes {
            check_buffer("--bandwidth-size", b, "1g")?;
        }
        check_point_duration(self.duration, "cell")?;
        Ok(())
    }
}

/// The NUMA matrices benchmark.
#[derive(Debug, Clone, Default)]
pub struct Numa {
    pub config: NumaConfig,
}

/// The nodes a run measures: (node, its usable CPUs) for rows, and the
/// nodes with memory for columns; `None` where the inventory has no nodes.
pub(crate) struct Nodes {
    pub rows: Vec<(u32, Vec<usize>)>,
    pub columns: Vec<u32>,
    pub known: bool,
}

/// The rows and columns of the matrices on this machine: every node with a
/// usable CPU, every node with memory (or unknown memory). Without NUMA
/// information: one node 0 holding every usable CPU.
pub(crate) fn nodes(inv: &Inventory, allowed: &[usize]) -> Nodes {
    let listed = inv.topology.as_ref().and_then(|t| t.numa_nodes.as_ref());
    let Some(list) = listed.filter(|l| !l.is_empty()) else {
        return Nodes {
            rows: vec![(0, allowed.to_vec())],
            columns: vec![0],
            known: false,
        };
    };
    let rows = list
        .iter()
        .map(|n| {
            let cpus: Vec<usize> = cpulist::parse(&n.cpus)
                .unwrap_or_default()
                .into_iter()
                .map(|c| c as usize)
                .filter(|c| allowed.contains(c))
                .collect();
            (n.id, cpus)
        })
        .filter(|(_, cpus)| !cpus.is_empty())
        .collect();
    let columns = list
        .iter()
        .filter(|n| n.memory_bytes != Some(0))
        .map(|n| n.id)
        .collect();
    Nodes {
        rows,
        columns,
        known: true,
    }
}

/// Reads every word of `part` into eight sums (vectorised by the compiler).
#[inline(never)]
pub(crate) fn read_all(part: &[u64]) -> u64 {
    let mut acc = [0u64; 8];
    for chunk in part.chunks_exact(8) {
        for k in 0..8 {
            acc[k] = acc[k].wrapping_add(chunk[k]);
        }
    }
    acc.iter().fold(0, |a, b| a.wrapping_add(*b))
}

/// Where sampled pages of a buffer are, against the node it was bound to:
/// `None` when all are there, else a description.
fn misplaced(ptr: *const u8, len: usize, node: u32) -> Option<String> {
    let found = numa::page_nodes(ptr, len, 64);
    if found.is_empty() {
        return Some("the kernel did not say where pages are".into());
    }
    if found.iter().all(|&(n, _)| n == node) {
        return None;
    }
    let total: usize = found.iter().map(|(_, c)| c).sum();
    let on = found
        .iter()
        .find(|&&(n, _)| n == node)
        .map_or(0, |(_, c)| *c);
    Some(format!("{on} of {total} sampled pages on node {node}"))
}

/// One latency cell: seconds per load of a chase on `cpu` through memory
/// bound to `node`, and where its pages were.
fn latency_cell(
    cpu: usize,
    node: u32,
    c: &NumaConfig,
    line: usize,
    llc: Option<u64>,
    bind: bool,
) -> Result<(f64, Option<String>), BenchError> {
    std::thread::scope(|s| {
        s.spawn(|| {
            affinity::pin_current_thread(cpu);
            let words = line / std::mem::size_of::<usize>();
            let lines = (c.latency_bytes as usize / line).max(2);
            let buf: Buffer<usize> = Buffer::new(lines * words, c.hugepages, "--latency-size")?;
            let bytes = lines * line;
            if bind {
                numa::bind(buf.as_ptr() as *mut u8, bytes, &Placement::Node(node))?;
            }
            build_chain(&buf, words, lines, 0x5EED + u64::from(node));
            let mut p = buf.as_ptr() as *const usize;
            p = chase(p, warmup_loads(lines, line, llc));
            let per_load = median_chase(&mut p, c.duration, 5);
            let place = bind
                .then(|| misplaced(buf.as_ptr() as *const u8, bytes, node))
                .flatten();
            Ok((per_load, place))
        })
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// One bandwidth cell: bytes per second all of `cpus` read from a buffer of
/// `bytes` bound to `node`, and where its pages were.
pub(crate) fn bandwidth_cell(
    cpus: &[usize],
    node: Option<u32>,
    bytes: u64,
    duration: Duration,
    hugepages: bool,
) -> Result<(f64, Option<String>), BenchError> {
    let threads = cpus.len();
    let words = (bytes as usize / 8 / threads / 8 * 8).max(8);
    let buf: Buffer<u64> = Buffer::new(words * threads, hugepages, "--bandwidth-size")?;
    if let Some(n) = node {
        numa::bind(buf.as_ptr() as *mut u8, buf.len() * 8, &Placement::Node(n))?;
    }
    let barrier = SpinBarrier::new(threads);
    let start = Mutex::new(Instant::now());
    let secs = Mutex::new([0.0f64; 2]);
    let passes = AtomicU64::new(1);
    std::thread::scope(|s| {
        for (t, &cpu) in cpus.iter().enumerate() {
            let (buf, barrier, start, secs, passes) = (&buf, &barrier, &start, &secs, &passes);
            s.spawn(move || {
                affinity::pin_current_thread(cpu);
                // SAFETY: each thread owns its part; written before read.
                let part = unsafe { buf.part(t * words..(t + 1) * words) };
                for (i, w) in part.iter_mut().enumerate() {
                    *w = i as u64;
                }
                let mut sink = 0u64;
                // Round 0, one pass, sizes round 1 to last `duration`.
                for round in 0..2 {
                    barrier.wait_then(|| *start.lock().unwrap() = Instant::now());
                    for _ in 0..passes.load(Ordering::Acquire) {
                        // Through black_box as if written: else an
                        // optimised build reads the unchanged part once
                        // and adds the sum `passes` times (602 GB/s
                        // "measured" on a 20 GB/s guest).
                        // A `&mut` on purpose: a shared borrow lets the
                        // compiler assume the words unchanged.
                        #[allow(clippy::unnecessary_mut_passed)]
                        let seen = std::hint::black_box(&mut *part);
                        sink = sink.wrapping_add(read_all(seen));
                    }
                    barrier.wait_then(|| {
                        let el = start.lock().unwrap().elapsed().as_secs_f64().max(1e-9);
                        secs.lock().unwrap()[round] = el;
                        if round == 0 {
                            let k = (duration.as_secs_f64() / el).ceil().clamp(1.0, 1e6);
                            passes.store(k as u64, Ordering::Release);
                        }
                    });
                }
                std::hint::black_box(sink);
            });
        }
    });
    let secs = secs.into_inner().unwrap()[1];
    let moved = (words * threads * 8) as f64 * passes.load(Ordering::Acquire) as f64;
    let place = node.and_then(|n| misplaced(buf.as_ptr() as *const u8, buf.len() * 8, n));
    Ok((moved / secs, place))
}

impl Benchmark for Numa {
    fn id(&self) -> &'static str {
        names::NUMA
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        let allowed = affinity::allowed_cpus();
        let inv = ctx.inventory;
        let found = nodes(inv, &allowed);
        let line = line_bytes(inv);
        let llc = inv.last_level_cache_bytes();
        let bw_bytes = c
            .bandwidth_bytes
            .unwrap_or_else(|| default_traffic_bytes(llc));
        check_fits(c.latency_bytes.max(bw_bytes), "--bandwidth-size")?;
        // Binding is what makes column j node j's memory. Where the kernel
        // refuses mbind (a container's seccomp filter, qemu-user) one node
        // needs none: its pages can be nowhere else.
        let refused = if found.known {
            numa::refuses_binding(found.columns[0])
        } else {
            None
        };
        if let Some(why) = &refused
            && found.columns.len() > 1
        {
            return Err(BenchError::System(format!(
                "memory numa: cannot bind memory to a node ({why}); run where mbind is allowed (outside a seccomp filter that blocks it, or with CAP_SYS_NICE)"
            )));
        }
        let bind = found.known && refused.is_none();
        let mut result = BenchResult::new(self.id());
        result.set_param(param::CHASE_BYTES, c.latency_bytes);
        result.set_param(param::TRAFFIC_BYTES, bw_bytes);
        result.set_param(param::DURATION_S, c.duration.as_secs_f64());
        result.set_param(param::HUGEPAGES, hugepages_param(c.hugepages));
        result.set_param(param::LINE_BYTES, line);
        result.set_param(
            param::METHOD,
            "latency: dependent loads over a random cycle of cache lines on the first usable CPU of each node (the median of 5 windows); bandwidth: every usable CPU of the node reads its share; memory bound to the column's node with mbind before first touch",
        );
        let chase_cpus: Vec<String> = found
            .rows
            .iter()
            .map(|(n, cpus)| format!("node {n}: CPU {}", cpus[0]))
            .collect();
        result.set_param(param::CHASE_CPUS, chase_cpus.join(", "));
        let mut notes = Vec::new();
        if !found.known {
            notes.push(
                "the machine lists no NUMA nodes: one cell, memory placed by first touch"
                    .to_string(),
            );
        } else if found.rows.len() == 1 && found.columns.len() == 1 {
            notes.push(format!(
                "one NUMA node: a 1x1 matrix, nothing far to compare (node {})",
                found.columns[0]
            ));
        }
        let cells = found.rows.len() * found.columns.len() * 2;
        ctx.progress.start("memory numa", cells as u64);
        let mut misplacements = Vec::new();
        let mut interrupted = false;
        'rows: for (row, cpus) in &found.rows {
            for &col in &found.columns {
                if ctx.cancel.is_cancelled() {
                    interrupted = true;
                    break 'rows;
                }
                let labelled =
                    |m: Metric| m.label(label::CPU_NODE, row).label(label::MEMORY_NODE, col);
                let (lat, place) = latency_cell(cpus[0], col, c, line, llc, bind)?;
                if let Some(p) = place {
                    misplacements.push(format!("latency {row}->{col}: {p}"));
                }
                result.metrics.push(labelled(Metric::new(
                    metric::LATENCY,
                    lat,
                    Unit::Seconds,
                    Better::Lower,
                )));
                ctx.progress.advance(1);
                let (bw, place) =
                    bandwidth_cell(cpus, bind.then_some(col), bw_bytes, c.duration, c.hugepages)?;
                if let Some(p) = place {
                    misplacements.push(format!("bandwidth {row}->{col}: {p}"));
                }
                result.metrics.push(labelled(Metric::new(
                    metric::BANDWIDTH,
                    bw,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )));
                ctx.progress.advance(1);
            }
        }
        ctx.progress.finish();
        let placement = if let Some(why) = &refused {
            format!("first touch by the measuring threads ({why}; one node holds every page)")
        } else if !bind {
            "first touch by the measuring threads".to_string()
        } else if misplacements.is_empty() {
            "bound with mbind; every sampled page on the intended node".to_string()
        } else {
            format!("bound with mbind; {}", misplacements.join("; "))
        };
        if bind && !misplacements.is_empty() {
            result.warnings.push(format!(
                "memory numa: pages not where they were bound ({}); a column may not be that node's memory",
                misplacements.join("; ")
            ));
        }
        result.set_param(param::PLACEMENT, placement);
        if !notes.is_empty() {
            result.set_param(param::NOTE, notes.join("; "));
        }
        if interrupted {
            result.mark_cancelled();
        }
        ctx.record(result)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::topology::{NumaNode, Topology};

    fn inv_with(nodes: Vec<NumaNode>) -> Inventory {
        Inventory {
            topology: Some(Topology {
                numa_nodes: Some(nodes),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn node(id: u32, cpus: &str, memory: Option<u64>) -> NumaNode {
        NumaNode {
            id,
            cpus: cpus.into(),
            memory_bytes: memory,
            distances: vec![],
        }
    }

    #[test]
    fn rows_are_nodes_with_usable_cpus_and_columns_nodes_with_memory() {
        let inv = inv_with(vec![
            node(0, "0-3", Some(1 << 30)),
            node(1, "4-7", Some(1 << 30)),
            node(2, "", Some(96 << 30)),
            node(3, "8-9", Some(0)),
        ]);
        let n = nodes(&inv, &[1, 2, 8]);
        assert_eq!(n.rows, vec![(0, vec![1, 2]), (3, vec![8])]);
        assert_eq!(n.columns, vec![0, 1, 2]);
        assert!(n.known);
        let none = nodes(&Inventory::default(), &[0, 1]);
        assert_eq!(
            (none.rows, none.columns, none.known),
            (vec![(0, vec![0, 1])], vec![0], false)
        );
    }

    #[test]
    fn small_buffers_and_short_cells_are_refused() {
        let err = |config: NumaConfig| Numa { config }.validate().unwrap_err().to_string();
        assert_eq!(
            err(NumaConfig {
                latency_bytes: 1 << 20,
                ..Default::default()
            }),
            "--latency-size: expected at least 4 MiB (e.g. 256m), got 1048576 B"
        );
        assert_eq!(
            err(NumaConfig {
                duration: Duration::from_millis(1),
                ..Default::default()
            }),
            "--duration: expected at least 10ms per cell (e.g. 200ms)"
        );
    }

    #[test]
    fn this_machine_gives_a_full_matrix_of_positive_figures() {
        let inv = nodebench_machine::inventory::collect();
        let config = NumaConfig {
            latency_bytes: 16 << 20,
            bandwidth_bytes: Some(16 << 20),
            duration: Duration::from_millis(20),
            hugepages: false,
        };
        let results = collect(&Numa { config }, &inv, Cancel::new()).unwrap();
        let r = &results[0];
        let allowed = affinity::allowed_cpus();
        let n = nodes(&inv, &allowed);
        let cells = n.rows.len() * n.columns.len();
        assert_eq!(r.metrics.len(), 2 * cells);
        for m in &r.metrics {
            assert!(m.value > 0.0 && m.value.is_finite(), "{m:?}");
        }
        if cells == 1 {
            assert!(
                r.parameters[param::NOTE]
                    .as_str()
                    .unwrap()
                    .starts_with("one NUMA node: a 1x1 matrix")
            );
        }
    }
}
