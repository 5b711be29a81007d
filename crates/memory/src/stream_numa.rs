//! STREAM across NUMA nodes (`memory stream --numa`), as STREAM is run on
//! such nodes with `numactl`: which CPUs each team runs on and where its
//! arrays go.
//!
//! * `local` (the default): the team runs on every usable CPU and each
//!   thread first-touches its own part of the arrays, so every part is on
//!   its thread's node: the machine's total. On a machine with two or more
//!   nodes, each node then runs alone (its CPUs, its memory bound to it):
//!   the figures per node.
//! * `interleave`: every usable CPU, the arrays' pages interleaved over all
//!   nodes with memory (`numactl --interleave=all`).
//! * `node:N`: node N's usable CPUs and memory bound to node N
//!   (`numactl --cpunodebind=N --membind=N`).

use nodebench_core::bench::BenchError;
use nodebench_core::inventory::Inventory;
use nodebench_core::numa::Placement;

use crate::numa::nodes;

/// Where STREAM runs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StreamNuma {
    /// First touch on every usable CPU, then each node alone.
    #[default]
    Local,
    /// Pages interleaved over every node with memory.
    Interleave,
    /// One node's CPUs and memory.
    Node(u32),
}

impl StreamNuma {
    /// Parses `--numa`: `local`, `interleave` or `node:N`.
    pub fn parse(s: &str) -> Result<StreamNuma, BenchError> {
        match s {
            "local" => Ok(StreamNuma::Local),
            "interleave" => Ok(StreamNuma::Interleave),
            _ => s
                .strip_prefix("node:")
                .and_then(|n| n.parse().ok())
                .map(StreamNuma::Node)
                .ok_or_else(|| {
                    BenchError::Invalid(
                        "expected local, interleave or node:N (e.g. node:1)".to_string(),
                    )
                }),
        }
    }
}

/// One team: its CPUs, where its arrays go, the `numa` parameter of its
/// results (`None` for the plain run on every CPU, as before `--numa`), and
/// whether its thread counts are the user's (else all its CPUs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    pub cpus: Vec<usize>,
    pub placement: Placement,
    pub param: Option<String>,
    pub user_threads: bool,
}

/// The teams of a run on a machine with `allowed` CPUs, where `refused`
/// says why the kernel would not bind memory to a node (a seccomp filter,
/// qemu-user) or `None`. One node with memory needs no binding (its pages
/// can be nowhere else): its teams fall back to first touch and say so;
/// with several, a refusal is an error.
pub fn plan(
    numa: &StreamNuma,
    inv: &Inventory,
    allowed: &[usize],
    refused: &dyn Fn(u32) -> Option<String>,
) -> Result<Vec<Team>, BenchError> {
    let mut teams = plan_bound(numa, inv, allowed)?;
    let found = nodes(inv, allowed);
    let binds = |t: &Team| !matches!(t.placement, Placement::FirstTouch);
    if let Some(first) = teams
        .iter()
        .find(|t| binds(t))
        .and_then(|_| found.columns.first().copied())
        && let Some(why) = refused(first)
    {
        if found.columns.len() > 1 {
            return Err(BenchError::System(format!(
                "--numa: cannot bind memory to a node ({why}); run where mbind is allowed, or use --numa local"
            )));
        }
        for t in teams.iter_mut().filter(|t| binds(t)) {
            t.placement = Placement::FirstTouch;
            t.param = t
                .param
                .take()
                .map(|p| format!("{p} (first touch: the one node; mbind refused: {why})"));
        }
    }
    Ok(teams)
}

/// [`plan`] where binding is allowed.
fn plan_bound(
    numa: &StreamNuma,
    inv: &Inventory,
    allowed: &[usize],
) -> Result<Vec<Team>, BenchError> {
    let found = nodes(inv, allowed);
    match numa {
        StreamNuma::Local => {
            let mut teams = vec![Team {
                cpus: allowed.to_vec(),
                placement: Placement::FirstTouch,
                param: None,
                user_threads: true,
            }];
            if found.known && found.rows.len() > 1 {
                teams.extend(found.rows.iter().map(|(n, cpus)| Team {
                    cpus: cpus.clone(),
                    placement: Placement::Node(*n),
                    param: Some(format!("node {n} alone")),
                    user_threads: false,
                }));
            }
            Ok(teams)
        }
        StreamNuma::Interleave => {
            if !found.known {
                return Err(BenchError::Invalid(
                    "--numa interleave: this machine lists no NUMA nodes (/sys/devices/system/node); expected local".into(),
                ));
            }
            Ok(vec![Team {
                cpus: allowed.to_vec(),
                placement: Placement::Interleave(found.columns.clone()),
                param: Some(format!(
                    "interleave over nodes {}",
                    nodebench_core::cpulist::format(&found.columns)
                )),
                user_threads: true,
            }])
        }
        StreamNuma::Node(n) => {
            let cpus = found
                .rows
                .iter()
                .find(|(id, _)| id == n)
                .map(|(_, cpus)| cpus.clone())
                .filter(|_| found.known);
            let Some(cpus) = cpus else {
                let have: Vec<String> = found.rows.iter().map(|(id, _)| id.to_string()).collect();
                return Err(BenchError::Invalid(format!(
                    "--numa node:{n}: expected a node with usable CPUs ({})",
                    if found.known {
                        have.join(", ")
                    } else {
                        "none listed".into()
                    }
                )));
            };
            Ok(vec![Team {
                cpus,
                placement: Placement::Node(*n),
                param: Some(format!("node {n}")),
                user_threads: true,
            }])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::inventory::topology::{NumaNode, Topology};

    fn two_nodes() -> Inventory {
        let node = |id: u32, cpus: &str| NumaNode {
            id,
            cpus: cpus.into(),
            memory_bytes: Some(1 << 30),
            distances: vec![],
        };
        Inventory {
            topology: Some(Topology {
                numa_nodes: Some(vec![node(0, "0-3"), node(1, "4-7")]),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(StreamNuma::parse("local"), Ok(StreamNuma::Local));
        assert_eq!(StreamNuma::parse("interleave"), Ok(StreamNuma::Interleave));
        assert_eq!(StreamNuma::parse("node:3"), Ok(StreamNuma::Node(3)));
        for bad in ["node:", "node:x", "remote", ""] {
            assert_eq!(
                StreamNuma::parse(bad),
                Err(BenchError::Invalid(
                    "expected local, interleave or node:N (e.g. node:1)".into()
                ))
            );
        }
    }

    /// mbind allowed.
    fn allowed(_: u32) -> Option<String> {
        None
    }

    /// mbind refused, as under qemu-user.
    fn refused(_: u32) -> Option<String> {
        Some("mbind: Function not implemented".into())
    }

    fn one_node() -> Inventory {
        Inventory {
            topology: Some(Topology {
                numa_nodes: Some(vec![NumaNode {
                    id: 0,
                    cpus: "0-3".into(),
                    memory_bytes: Some(1 << 30),
                    distances: vec![10],
                }]),
                ..Topology::default()
            }),
            ..Inventory::default()
        }
    }

    #[test]
    fn a_refused_mbind_falls_back_to_first_touch_on_one_node_only() {
        let all: Vec<usize> = (0..4).collect();
        let n = plan(&StreamNuma::Node(0), &one_node(), &all, &refused).unwrap();
        assert_eq!(n[0].placement, Placement::FirstTouch);
        assert_eq!(
            n[0].param.as_deref(),
            Some(
                "node 0 (first touch: the one node; mbind refused: mbind: Function not implemented)"
            )
        );
        let i = plan(&StreamNuma::Interleave, &one_node(), &all, &refused).unwrap();
        assert_eq!(i[0].placement, Placement::FirstTouch);
        // Allowed, the same plan binds.
        let n = plan(&StreamNuma::Node(0), &one_node(), &all, &allowed).unwrap();
        assert_eq!(n[0].placement, Placement::Node(0));
        // Local never binds on one node: nothing to ask.
        let l = plan(&StreamNuma::Local, &one_node(), &all, &refused).unwrap();
        assert_eq!(
            (l.len(), l[0].placement.clone()),
            (1, Placement::FirstTouch)
        );
        // Two nodes: refused binding is an error, not a wrong figure.
        let all8: Vec<usize> = (0..8).collect();
        let e = plan(&StreamNuma::Node(1), &two_nodes(), &all8, &refused)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--numa: cannot bind memory to a node (mbind: Function not implemented)"),
            "{e}"
        );
    }

    #[test]
    fn local_on_two_nodes_runs_the_total_then_each_node_alone() {
        let all: Vec<usize> = (0..8).collect();
        let teams = plan(&StreamNuma::Local, &two_nodes(), &all, &allowed).unwrap();
        assert_eq!(teams.len(), 3);
        assert_eq!((teams[0].cpus.len(), teams[0].param.clone()), (8, None));
        assert_eq!(teams[1].cpus, vec![0, 1, 2, 3]);
        assert_eq!(teams[1].placement, Placement::Node(0));
        assert_eq!(teams[2].param.as_deref(), Some("node 1 alone"));
        assert!(!teams[2].user_threads);
        // One node (or none listed): the total only.
        let one = plan(&StreamNuma::Local, &Inventory::default(), &all, &allowed).unwrap();
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn interleave_and_node_place_memory_and_refuse_what_is_not_there() {
        let all: Vec<usize> = (0..8).collect();
        let i = plan(&StreamNuma::Interleave, &two_nodes(), &all, &allowed).unwrap();
        assert_eq!(i[0].placement, Placement::Interleave(vec![0, 1]));
        assert_eq!(i[0].param.as_deref(), Some("interleave over nodes 0-1"));
        let n = plan(&StreamNuma::Node(1), &two_nodes(), &all, &allowed).unwrap();
        assert_eq!(
            (n[0].cpus.clone(), n[0].placement.clone()),
            (vec![4, 5, 6, 7], Placement::Node(1))
        );
        let e = plan(&StreamNuma::Node(2), &two_nodes(), &all, &allowed)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "--numa node:2: expected a node with usable CPUs (0, 1)");
        let e = plan(
            &StreamNuma::Interleave,
            &Inventory::default(),
            &all,
            &allowed,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("--numa interleave: this machine lists no NUMA nodes"),
            "{e}"
        );
    }
}
