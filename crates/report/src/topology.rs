//! The machine's topology as a text tree (`nodebench inventory --topology`),
//! laid out as `lstopo-no-graphics` lays it out: each object under the
//! smallest object whose CPUs hold all of its CPUs, packages above NUMA
//! nodes above shared caches, and one line per core with its private
//! caches and hardware threads. Then the SLIT distance matrix and EDAC's
//! DIMMs per memory controller, with a line where a controller holds fewer
//! DIMMs than the others.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use nodebench_core::cpulist;
use nodebench_core::inventory::topology::Topology;
use nodebench_core::units::format_bytes;

/// One object of the tree: its CPUs and its line.
struct Object {
    cpus: Vec<u32>,
    /// Higher ranks go above lower ones when the CPU sets are equal.
    rank: u32,
    line: String,
}

fn cache_name(level: u32, kind: &str) -> String {
    match kind {
        "Data" => format!("L{level}d"),
        "Instruction" => format!("L{level}i"),
        _ => format!("L{level}"),
    }
}

fn size(bytes: Option<u64>) -> String {
    bytes.map_or_else(|| "size unknown".into(), format_bytes)
}

/// The tree, the distances and the DIMMs; `None` is "unknown" in words.
pub fn report(topology: Option<&Topology>) -> String {
    let Some(t) = topology else {
        return "topology: unknown (sysfs does not describe the CPUs here)\n".into();
    };
    let mut out = String::new();
    let nodes = t.numa_nodes.as_deref().unwrap_or(&[]);
    let cpus = t.cpu_list();
    let _ = writeln!(
        out,
        "Machine: {} package{}, {} NUMA node{}, {} cores, {} CPUs{}",
        t.packages.len(),
        plural(t.packages.len()),
        t.numa_nodes
            .as_ref()
            .map_or("unknown".into(), |n| n.len().to_string()),
        plural(nodes.len()),
        t.cores.len(),
        cpus.len(),
        t.memory_bytes()
            .map_or(String::new(), |b| format!(", {} memory", format_bytes(b)))
    );
    let parse = |l: &str| cpulist::parse(l).unwrap_or_default();
    let mut objects: Vec<Object> = Vec::new();
    for p in &t.packages {
        objects.push(Object {
            cpus: parse(&p.cpus),
            rank: 100,
            line: format!("Package {}", p.id),
        });
    }
    for n in nodes.iter().filter(|n| !n.cpus.is_empty()) {
        objects.push(Object {
            cpus: parse(&n.cpus),
            rank: 90,
            line: format!(
                "NUMA node {} ({}, CPUs {})",
                n.id,
                size(n.memory_bytes),
                n.cpus
            ),
        });
    }
    // Caches private to one core go on the core's line.
    let mut private: BTreeMap<Vec<u32>, Vec<String>> = BTreeMap::new();
    let mut caches: Vec<_> = t.caches.iter().collect();
    caches.sort_by_key(|c| (std::cmp::Reverse(c.level), c.kind != "Data"));
    for c in caches {
        let set = parse(&c.cpus);
        let name = format!("{} {}", cache_name(c.level, &c.kind), size(c.size_bytes));
        if t.cores.iter().any(|core| parse(&core.cpus) == set) {
            private.entry(set).or_default().push(name);
        } else {
            objects.push(Object {
                cpus: set,
                rank: 80 - c.level,
                line: format!("{name} (CPUs {})", c.cpus),
            });
        }
    }
    for core in &t.cores {
        let set = parse(&core.cpus);
        let mut parts = private.get(&set).cloned().unwrap_or_default();
        let pus: Vec<String> = set.iter().map(u32::to_string).collect();
        parts.push(format!("Core {}: PU {}", core.id, pus.join(" ")));
        objects.push(Object {
            cpus: set,
            rank: 0,
            line: parts.join(" + "),
        });
    }
    // Larger sets first, then higher ranks, then by first CPU: each object's
    // parent is the last placed object holding all its CPUs.
    objects.sort_by(|a, b| {
        b.cpus
            .len()
            .cmp(&a.cpus.len())
            .then(b.rank.cmp(&a.rank))
            .then(a.cpus.first().cmp(&b.cpus.first()))
    });
    let mut depth: Vec<usize> = Vec::with_capacity(objects.len());
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); objects.len()];
    let mut roots: Vec<usize> = Vec::new();
    for i in 0..objects.len() {
        let parent = (0..i).rev().find(|&j| {
            objects[j].cpus.len() >= objects[i].cpus.len()
                && objects[i]
                    .cpus
                    .iter()
                    .all(|c| objects[j].cpus.binary_search(c).is_ok())
        });
        match parent {
            Some(j) => {
                depth.push(depth[j] + 1);
                children[j].push(i);
            }
            None => {
                depth.push(0);
                roots.push(i);
            }
        }
    }
    for list in children.iter_mut().chain(std::iter::once(&mut roots)) {
        list.sort_by_key(|&i| objects[i].cpus.first().copied());
    }
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        let _ = writeln!(out, "{}{}", "  ".repeat(depth[i] + 1), objects[i].line);
        stack.extend(children[i].iter().rev());
    }
    for n in nodes.iter().filter(|n| n.cpus.is_empty()) {
        let _ = writeln!(
            out,
            "  NUMA node {} ({}, no CPUs)",
            n.id,
            size(n.memory_bytes)
        );
    }
    if t.numa_nodes.is_none() {
        let _ = writeln!(out, "  NUMA nodes: unknown (no /sys/devices/system/node)");
    }
    distances(&mut out, nodes);
    dimms(&mut out, t);
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The SLIT matrix, as `numactl --hardware` prints it.
fn distances(out: &mut String, nodes: &[nodebench_core::inventory::topology::NumaNode]) {
    if nodes.is_empty() {
        return;
    }
    let _ = writeln!(out, "NUMA distances (SLIT, 10 = local):");
    let mut head = String::from("  node");
    for n in nodes {
        let _ = write!(head, " {:>4}", n.id);
    }
    let _ = writeln!(out, "{head}");
    for n in nodes {
        let mut row = format!("  {:>4}", n.id);
        if n.distances.len() != nodes.len() {
            let _ = writeln!(out, "{row}  unknown");
            continue;
        }
        for d in &n.distances {
            let _ = write!(row, " {d:>4}");
        }
        let _ = writeln!(out, "{row}");
    }
}

/// DIMMs per controller, and the controllers holding fewer than the most.
fn dimms(out: &mut String, t: &Topology) {
    let Some(dimms) = &t.dimms else {
        let _ = writeln!(out, "DIMMs: unknown (no EDAC driver loaded)");
        return;
    };
    let mut per: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for d in dimms {
        let mut s = format!("dimm{} {}", d.slot, size(d.size_bytes));
        if let Some(kind) = &d.memory_type {
            let _ = write!(s, " {kind}");
        }
        if let Some(label) = &d.label {
            let _ = write!(s, " \"{label}\"");
        }
        per.entry(d.controller).or_default().push(s);
    }
    let total: u64 = dimms.iter().filter_map(|d| d.size_bytes).sum();
    let _ = writeln!(
        out,
        "DIMMs (EDAC): {} on {} memory controller{}, {}",
        dimms.len(),
        per.len(),
        plural(per.len()),
        format_bytes(total)
    );
    for (mc, list) in &per {
        let _ = writeln!(out, "  mc{mc}: {}", list.join(", "));
    }
    let most = per.values().map(Vec::len).max().unwrap_or(0);
    for (mc, list) in &per {
        if list.len() < most {
            let _ = writeln!(
                out,
                "  note: mc{mc} holds {} DIMM{} where others hold {most}: a channel may be empty",
                list.len(),
                plural(list.len())
            );
        }
    }
}
