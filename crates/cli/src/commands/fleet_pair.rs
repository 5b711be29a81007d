//! `nodebench fleet pair`: the pairs (every two hosts, `--pairs`, or past
//! `--max-pairs` the fleet crate's plan: a ring plus seeded random pairs),
//! each client's run stored with both sides' interface, MTU and route;
//! with `--matrix` the links' matrix (the fleet crate's analysis) stored as
//! a run of its own, printed (the report crate's `fleet_links`), and exit 1
//! on a slow link.

use std::collections::BTreeMap;

use anyhow::Result;
use nodebench_core::bench::BenchError;
use nodebench_core::config::Choice;
use nodebench_core::model::{Run, RunStatus};
use nodebench_core::names::fleet as names;
use nodebench_fleet::analysis::links::LinkMatrix;
use nodebench_fleet::analysis::{ReportConfig, check_tolerance};
use nodebench_fleet::pair::{self as pairs, PairConfig, PairTest, Plan};
use nodebench_fleet::ssh::HostError;
use nodebench_report::fleet_links::matrix_text;

use super::fleet_session::{Session, load, print_table, progress, row, save};
use crate::CliError;
use crate::args::Cli;
use crate::args::fleet::PairArgs;

/// The pairs to run and how they were chosen ([`names::plan`]).
struct Chosen {
    plan: Plan,
    kind: &'static str,
}

/// `fleet pair`.
pub fn run(cli: &Cli, args: &PairArgs) -> Result<()> {
    let hosts = load(&args.hosts)?;
    let usage = |e: String| -> anyhow::Error { CliError::usage(e).into() };
    let tests = match (args.tests.is_empty(), args.matrix) {
        (false, _) => args.tests.clone(),
        (true, false) => vec![PairTest::Tcp],
        (true, true) => vec![PairTest::Tcp, PairTest::Pingpong],
    };
    if args.tolerance.is_some() && !args.matrix {
        return Err(usage(
            "--tolerance: only with --matrix (it judges the links; accepted: --matrix --tolerance 5)".into(),
        ));
    }
    if args.seed.is_some() && args.max_pairs.is_none() {
        return Err(usage(
            "--seed: only with --max-pairs (it seeds the random pairs; accepted: --max-pairs N --seed S)".into(),
        ));
    }
    let tolerance = args
        .tolerance
        .unwrap_or(ReportConfig::default().tolerance_percent);
    if args.matrix {
        if !tests
            .iter()
            .any(|t| matches!(t, PairTest::Tcp | PairTest::Pingpong))
        {
            return Err(usage(
                "--tests: --matrix reads the tcp and pingpong tests and neither is among them (accepted: e.g. --tests tcp,pingpong)".into(),
            ));
        }
        if args.mtu.len() > 1 {
            return Err(usage(format!(
                "--mtu: --matrix compares the links at one MTU, got {} (accepted: one MTU, e.g. --mtu 9000)",
                args.mtu.len()
            )));
        }
        check_tolerance(tolerance).map_err(|e| usage(format!("fleet pair: {e}")))?;
    }
    let cfg = PairConfig {
        tests,
        mtus: args.mtu.clone(),
        duration: args.duration,
        port: args.port,
        pingpong_one_cell: args.matrix,
    };
    let index = |name: &str| {
        hosts
            .get(name, "--pairs")
            .map(|_| hosts.hosts.iter().position(|h| h.name == name).unwrap_or(0))
    };
    let n = hosts.hosts.len();
    let chosen = pairs::check_hosts(&hosts.hosts, &cfg).and_then(|()| {
        if !args.pairs.is_empty() {
            let list = args
                .pairs
                .iter()
                .map(|(a, b)| Ok((index(a)?, index(b)?)))
                .collect::<Result<Vec<_>, nodebench_fleet::Error>>()?;
            return Ok(Chosen {
                plan: Plan {
                    pairs: list,
                    ring: 0,
                    seed: None,
                },
                kind: names::plan::GIVEN,
            });
        }
        let max = args.max_pairs.unwrap_or(usize::MAX);
        let plan = pairs::plan(n, max, args.seed.unwrap_or_else(pairs::new_seed))?;
        let kind = if plan.ring > 0 {
            names::plan::RING_RANDOM
        } else {
            names::plan::ALL
        };
        Ok(Chosen { plan, kind })
    });
    let chosen = chosen.map_err(|e| CliError::of(&e))?;
    let plan_line = plan_line(&chosen, n, args.max_pairs);
    let Session {
        local,
        cancel,
        ssh,
        mut store,
        fleet_id,
    } = Session::open(cli, &hosts, &args.hosts)?;
    if let Some(line) = &plan_line
        && !cli.quiet
    {
        eprintln!("{line}");
    }
    let progress = progress(cli.quiet);
    let started = chrono::Utc::now();
    let results = pairs::run_pairs(
        &ssh,
        &hosts.hosts,
        &chosen.plan.pairs,
        &local,
        &cfg,
        &cancel,
        &progress,
    );
    drop(ssh);
    let mut rows = vec![row(&[
        "server", "client", "test", "mtu", "status", "run", "error",
    ])];
    let mut runs = Vec::new();
    let mut failed = 0;
    for r in results {
        let mtu = r.mtu.map(|m| m.to_string()).unwrap_or_else(|| "-".into());
        let mut id_text = "-".to_string();
        if let Some(mut run) = r.run {
            let mut tags = vec![
                (names::HOST_TAG, r.client.clone()),
                (names::SERVER_TAG, r.server.clone()),
                (names::FLEET_TAG, fleet_id.clone()),
                (names::MODE_TAG, "pair".to_string()),
                (names::TEST_TAG, r.test.as_str().to_string()),
            ];
            if let Some(m) = r.mtu {
                tags.push((names::MTU_TAG, m.to_string()));
            }
            if let Some(s) = &r.server_side {
                if let Some(i) = &s.interface {
                    tags.push((names::SERVER_INTERFACE_TAG, i.clone()));
                }
                if let Some(m) = s.mtu {
                    tags.push((names::SERVER_MTU_TAG, m.to_string()));
                }
                tags.push((names::SERVER_ROUTE_TAG, s.route.clone()));
            }
            if let Some(c) = &r.client_side {
                tags.push((names::CLIENT_ROUTE_TAG, c.route.clone()));
            }
            if let Some(id) = save(cli, store.as_deref_mut(), &mut run, &tags)? {
                id_text = id.to_string();
            }
            runs.push(run);
        }
        if r.error.is_some() {
            failed += 1;
        }
        rows.push(row(&[
            &r.server,
            &r.client,
            r.test.as_str(),
            &mtu,
            if r.error.is_none() { "ok" } else { "FAILED" },
            &id_text,
            &r.error
                .as_ref()
                .map(HostError::to_string)
                .unwrap_or_default(),
        ]));
        if let Some(e) = &r.error {
            for line in &e.stderr_tail {
                eprintln!("[{}->{}] stderr: {line}", r.client, r.server);
            }
        }
    }
    let mut matrix = None;
    if args.matrix {
        let m = LinkMatrix::from_pair_runs(&runs, tolerance);
        if !m.links.is_empty() {
            let mut result = m.to_result();
            result.started_at = started;
            result.ended_at = chrono::Utc::now();
            result.set_param(names::param::PLAN, chosen.kind);
            if let Some(seed) = chosen.plan.seed {
                result.set_param(names::param::SEED, seed);
            }
            if let Some(max) = args.max_pairs {
                result.set_param(names::param::MAX_PAIRS, max);
            }
            result.set_param(names::param::PAIRS, chosen.plan.pairs.len());
            result.set_param(names::param::ALL_PAIRS, pairs::pair_count(n));
            let mut run = Run::start(std::env::args().collect(), BTreeMap::new());
            run.started_at = started;
            run.ended_at = Some(result.ended_at);
            run.status = RunStatus::Complete;
            run.results.push(result);
            let tags = [
                (names::FLEET_TAG, fleet_id.clone()),
                (names::MODE_TAG, names::MODE_MATRIX.to_string()),
            ];
            save(cli, store.as_deref_mut(), &mut run, &tags)?;
            matrix = Some((m, run));
        }
    }
    if cli.json {
        let mut all: Vec<&Run> = runs.iter().collect();
        all.extend(matrix.as_ref().map(|(_, r)| r));
        outln!("{}", serde_json::to_string_pretty(&all)?);
    } else {
        for run in &runs {
            outln!(
                "{} -> {}:",
                run.tags[names::HOST_TAG],
                run.tags[names::SERVER_TAG]
            );
            out!("{}", nodebench_report::reporters::run_report(run));
            outln!();
        }
        outln!("fleet pair {fleet_id}");
        if let Some(line) = &plan_line {
            outln!("{line}");
        }
        print_table(&rows);
        if args.matrix {
            outln!();
            match &matrix {
                Some((m, run)) => out!("{}", matrix_text(m, run.id)),
                None => outln!("link matrix: no link measured"),
            }
        }
    }
    if cancel.is_cancelled() {
        return Err(BenchError::Interrupted(format!(
            "kept {} test run(s); servers stopped",
            runs.len()
        ))
        .into());
    }
    let slow = matrix.as_ref().map_or(0, |(m, _)| m.slow_links().count());
    let mut why = Vec::new();
    if failed > 0 {
        why.push(format!("{failed} of {} test(s) failed", rows.len() - 1));
    }
    if slow > 0 {
        let (m, _) = matrix.as_ref().expect("slow links are the matrix's");
        let mut s = format!("{slow} slow link(s) of {}", m.links.len());
        if let Some(c) = m.common_line() {
            s += &format!(": {c}");
        }
        why.push(s);
    }
    if !why.is_empty() {
        return Err(CliError::failed(format!("fleet pair: {}", why.join("; "))).into());
    }
    Ok(())
}

/// What the plan is, where it is not every pair: "plan: ..." with the
/// seed.
fn plan_line(c: &Chosen, hosts: usize, max_pairs: Option<usize>) -> Option<String> {
    let all = pairs::pair_count(hosts);
    let p = &c.plan;
    let seed = p.seed?;
    Some(format!(
        "plan: {} of the {all} pairs of {hosts} hosts (past --max-pairs {}): a ring through every host ({} pairs) and {} random pairs, seed {seed} (--seed {seed} runs the same plan)",
        p.pairs.len(),
        max_pairs.unwrap_or(all),
        p.ring,
        p.pairs.len() - p.ring,
    ))
}
