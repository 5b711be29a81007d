//! The CLI against the benchmark registry (`nodebench_core::registry`):
//! every benchmark subcommand has exactly one descriptor, every
//! descriptor's subcommand exists, and a suite step of each suite-step
//! benchmark builds the benchmark its descriptor names.

use clap::CommandFactory;
use nodebench_core::registry;

use crate::args::Cli;

/// The leaf subcommands that run no benchmark of their own: servers,
/// the store's commands, the fleet's and Slurm's drivers (whose hosts run
/// the benchmark commands), and the suites (whose steps are benchmarks).
const NOT_BENCHMARKS: &[&[&str]] = &[
    &["run"],
    &["suite", "list"],
    &["suite", "show"],
    &["suite", "run"],
    &["inventory"],
    &["check"],
    &["net", "serve"],
    &["http", "serve"],
    &["import"],
    &["fleet", "check"],
    &["fleet", "run"],
    &["fleet", "http"],
    &["fleet", "report"],
    &["runs", "list"],
    &["runs", "show"],
    &["runs", "export"],
    &["runs", "delete"],
    &["compare"],
    &["schema"],
    &["report"],
    &["slurm", "submit"],
    &["slurm", "collect"],
    &["completions"],
    &["manpages"],
];

/// Every leaf subcommand under `cmd`, as its words.
fn leaves(cmd: &clap::Command, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let subs: Vec<&clap::Command> = cmd
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .collect();
    if subs.is_empty() {
        out.push(path.clone());
        return;
    }
    for sub in subs {
        path.push(sub.get_name().to_string());
        leaves(sub, path, out);
        path.pop();
    }
}

fn all_leaves() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    leaves(&Cli::command(), &mut Vec::new(), &mut out);
    out
}

#[test]
fn every_benchmark_subcommand_has_exactly_one_descriptor() {
    let mut unclassified = Vec::new();
    for leaf in all_leaves() {
        let words: Vec<&str> = leaf.iter().map(String::as_str).collect();
        let described = registry::ALL.iter().filter(|d| d.command == words).count();
        let listed = NOT_BENCHMARKS.contains(&words.as_slice());
        assert!(described <= 1, "{words:?}: {described} descriptors");
        assert!(
            !(described == 1 && listed),
            "{words:?}: a descriptor's command listed as no benchmark"
        );
        if described == 0 && !listed {
            unclassified.push(words.join(" "));
        }
    }
    assert!(
        unclassified.is_empty(),
        "subcommands with no descriptor (add one to nodebench_core::registry, or list them in NOT_BENCHMARKS if they run no benchmark): {unclassified:?}"
    );
    for words in NOT_BENCHMARKS {
        assert!(
            all_leaves().iter().any(|l| l == words),
            "{words:?} is no subcommand"
        );
    }
}

#[test]
fn every_descriptor_names_a_subcommand_that_exists() {
    let leaves = all_leaves();
    for d in registry::ALL {
        assert!(
            leaves.iter().any(|l| l == d.command),
            "{}: no subcommand {:?}",
            d.id,
            d.command
        );
    }
}

/// The parameters a step of `id` cannot do without (the target of the
/// network and HTTP benchmarks).
fn required(id: &str) -> &'static str {
    use nodebench_core::names::{http, net};
    match id {
        net::TCP | net::UDP | net::PINGPONG => "host = \"127.0.0.1\"\n",
        http::LOAD | http::SWEEP | http::DOWNLOAD => "url = \"http://127.0.0.1:1/\"\n",
        _ => "",
    }
}

#[test]
fn a_suite_step_of_each_suite_benchmark_builds_that_benchmark() {
    for d in registry::suite_steps() {
        let text = format!(
            "name = \"x\"\n[[step]]\nbench = \"{}\"\n{}",
            d.id,
            required(d.id)
        );
        let suite = super::suites::parse(&text, "s.toml").unwrap_or_else(|e| panic!("{e}"));
        let built = super::suites::benchmarks(&suite).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(built.len(), 1, "{}", d.id);
        assert_eq!(built[0].id(), d.id, "step bench = {}", d.id);
    }
    let unknown = super::suites::parse("name = \"x\"\n[[step]]\nbench = \"disk.fio\"\n", "s.toml")
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains(
            "unknown benchmark 'disk.fio' (accepted: cpu.ops, cpu.switch, cpu.linpack, memory.stream"
        ),
        "{unknown}"
    );
}

#[test]
fn each_benchmark_subcommand_builds_the_benchmark_its_descriptor_names() {
    use clap::Parser;
    let mut built = Vec::new();
    for d in registry::ALL {
        let mut argv = vec!["nodebench"];
        argv.extend(d.command);
        argv.extend(match d.command {
            ["net", _] => &["127.0.0.1"][..],
            ["http", _] | ["scan"] => &["http://127.0.0.1:1/"][..],
            ["disk", _] => &["--dir", "/tmp"][..],
            ["fleet", "pair"] => &["hosts.toml", "--matrix"][..],
            _ => &[][..],
        });
        let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
        // The fleet's link matrix and the burn-in are drivers of their own.
        if let Ok(b) = super::benchmark(&cli.command) {
            assert_eq!(b.id(), d.id, "{argv:?}");
            built.push(d.id);
        }
    }
    assert_eq!(built.len(), registry::ALL.len() - 2, "{built:?}");
}

/// The descriptors whose command is a driver of the CLI's own (the fleet's
/// link matrix, the burn-in), with no runnable in an area crate.
const DRIVERS: &[&str] = &[
    nodebench_core::names::fleet::LINKS,
    nodebench_core::names::burnin::CHECKPOINT,
];

#[test]
fn every_descriptor_but_the_drivers_has_exactly_one_runnable_and_no_runnable_is_undescribed() {
    for d in registry::ALL {
        let n = crate::runnable::all().filter(|r| r.id == d.id).count();
        let want = usize::from(!DRIVERS.contains(&d.id));
        assert_eq!(n, want, "{}: {n} runnables", d.id);
    }
    for r in crate::runnable::all() {
        assert!(
            registry::get(r.id).is_some(),
            "runnable {} has no descriptor",
            r.id
        );
    }
}
