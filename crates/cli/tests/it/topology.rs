//! `nodebench inventory --topology` on recorded and built `/sys` and
//! `/proc` trees (NODEBENCH_SYSFS_ROOT, NODEBENCH_PROCFS_ROOT): the tree, the
//! NUMA distances and the DIMMs a user reads, for every machine shape.

use crate::common;

use common::{bin, json, stdout};
use nodebench_machine::inventory::fixtures::trees;
use nodebench_machine::sysroot::{PROCFS_ROOT_ENV, SYSFS_ROOT_ENV};

fn inventory(tree: &str, args: &[&str]) -> std::process::Output {
    let root = tempfile::tempdir().unwrap();
    trees::write(tree, root.path()).unwrap();
    let out = bin()
        .arg("inventory")
        .args(args)
        .env(SYSFS_ROOT_ENV, root.path().join("sys"))
        .env(PROCFS_ROOT_ENV, root.path().join("proc"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    out
}

fn lines_with(text: &str, needle: &str) -> usize {
    text.lines().filter(|l| l.contains(needle)).count()
}

#[test]
fn epyc_nps4_tree_nests_nodes_l3s_and_cores() {
    let text = stdout(&inventory("epyc-2x64-nps4", &["--topology"]));
    eprintln!("{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "Machine: 2 packages, 8 NUMA nodes, 128 cores, 256 CPUs, 1 TiB memory"
    );
    assert_eq!(lines[1], "  Package 0");
    assert_eq!(lines[2], "    NUMA node 0 (128 GiB, CPUs 0-15,128-143)");
    assert_eq!(lines[3], "      L3 32 MiB (CPUs 0-7,128-135)");
    assert_eq!(
        lines[4],
        "        L2 512 KiB + L1d 32 KiB + L1i 32 KiB + Core 0: PU 0 128"
    );
    assert_eq!(lines_with(&text, "  Package "), 2);
    assert_eq!(lines_with(&text, "NUMA node "), 8);
    assert_eq!(lines_with(&text, "L3 32 MiB"), 16);
    assert_eq!(lines_with(&text, "+ Core "), 128);
    assert!(text.contains("  node    0    1    2    3    4    5    6    7\n"));
    assert!(text.contains("     0   10   12   12   12   32   32   32   32\n"));
    assert!(text.contains("DIMMs: unknown (no EDAC driver loaded)"));
}

#[test]
fn sapphire_rapids_snc2_puts_nodes_under_the_socket_l3_and_flags_the_short_controller() {
    let text = stdout(&inventory("spr-2x56-snc2", &["--topology"]));
    eprintln!("{text}");
    assert!(text.starts_with(
        "Machine: 2 packages, 4 NUMA nodes, 112 cores, 224 CPUs, 1 TiB memory\n  Package 0\n    L3 105 MiB (CPUs 0-55,112-167)\n      NUMA node 0 (256 GiB, CPUs 0-27,112-139)\n"
    ));
    assert!(text.contains("DIMMs (EDAC): 15 on 8 memory controllers, 480 GiB\n"));
    assert!(
        text.contains("  note: mc5 holds 1 DIMM where others hold 2: a channel may be empty\n")
    );
}

#[test]
fn grace_shows_its_memory_only_node() {
    let text = stdout(&inventory("grace-72", &["--topology"]));
    assert!(text.contains("  NUMA node 1 (96 GiB, no CPUs)\n"), "{text}");
    assert!(text.contains("     0   10   80\n"), "{text}");
    assert_eq!(lines_with(&text, "+ Core "), 72);
}

#[test]
fn json_and_plain_inventory_read_the_same_tree() {
    let topo = json(&inventory("emr16", &["--topology", "--json"]));
    assert_eq!(topo["cpus"], "0-15");
    assert_eq!(topo["cores"].as_array().unwrap().len(), 16);
    assert_eq!(topo["numa_nodes"][0]["distances"], serde_json::json!([10]));
    let inv = json(&inventory("emr16", &["--json"]));
    assert_eq!(inv["cpu"]["logical_cpus"], 16);
    assert_eq!(inv["topology"], topo);
    let text = stdout(&inventory("kvm2", &[]));
    assert!(
        text.contains("Intel(R) Xeon(R) Processor @ 2.50GHz"),
        "{text}"
    );
}

#[test]
fn an_empty_tree_is_unknown_not_a_guess() {
    let root = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["inventory", "--topology"])
        .env(SYSFS_ROOT_ENV, root.path())
        .env(PROCFS_ROOT_ENV, root.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "topology: unknown (sysfs does not describe the CPUs here)\n"
    );
}
