//! `nodebench fleet check|run|http` (`pair` in fleet_pair.rs, what they
//! share in fleet_session.rs): maps the arguments to the fleet crate's
//! calls, stores what the hosts brought back and prints it.

use std::path::Path;

use anyhow::Result;
use clap::CommandFactory;
use nodebench_core::Run;
use nodebench_core::bench::BenchError;
use nodebench_core::names::fleet as names;
use nodebench_core::names::http::load as http_names;
use nodebench_fleet::remote::sha256_file;
use nodebench_fleet::run::{HostRun, Upload};
use nodebench_fleet::ssh::{HostError, Ssh};
use nodebench_report::compare::{self, CompareFormat, Side};

use super::fleet_session::{Session, binaries, load, print_table, progress, row, save};
use crate::CliError;
use crate::args::Cli;
use crate::args::fleet::{FleetCommand, HostsArgs, HttpArgs, RunArgs};

/// Runs a `fleet` subcommand.
pub fn run(cli: &Cli, cmd: &FleetCommand) -> Result<()> {
    match cmd {
        FleetCommand::Check(args) => check(args),
        FleetCommand::Run(args) => run_hosts(cli, args),
        FleetCommand::Pair(args) => super::fleet_pair::run(cli, args),
        FleetCommand::Http(args) => http(cli, args),
        FleetCommand::Report(args) => super::fleet_report::run(cli, args),
    }
}

/// `fleet check`: one line per host; exit 1 when one cannot run this nodebench.
fn check(args: &HostsArgs) -> Result<()> {
    let hosts = load(args)?;
    let local = binaries(args)?;
    let ssh = Ssh::new(&hosts, args.connect_timeout)?;
    let checks = nodebench_fleet::check(&ssh, &hosts.hosts, args.parallel);
    let mut rows = vec![row(&[
        "host",
        "destination",
        "reachable",
        "arch",
        "os",
        "nodebench",
    ])];
    for c in &checks {
        let h = &c.host;
        rows.push(match &c.probe {
            Ok(p) => {
                let bin = match local.for_arch(&p.arch) {
                    None => format!("no binary for {} (have: {})", p.arch, local.archs()),
                    Some(l) if p.matches(l) => "same".into(),
                    Some(_) if p.binary_sha256.is_some() => "different (copied on run)".into(),
                    Some(_) => "absent (copied on run)".into(),
                };
                row(&[&h.name, &h.destination, "yes", &p.arch, &p.os, &bin])
            }
            Err(e) => row(&[&h.name, &h.destination, &format!("no: {e}"), "", "", ""]),
        });
    }
    print_table(&rows);
    let bad = checks.iter().filter(|c| !c.usable(&local)).count();
    if bad > 0 {
        return Err(CliError::failed(format!(
            "{bad} of {} host(s) cannot run this nodebench",
            checks.len()
        ))
        .into());
    }
    Ok(())
}

/// The nodebench arguments a `fleet run` target stands for, and the files
/// it needs on the hosts: a top-level command as given; a local suite file
/// copied to each host and run there (`suite run ./suite-ID.toml`); else a
/// suite name (`suite run NAME`).
fn remote_args(
    target: &[String],
    fleet_id: &str,
) -> Result<(Vec<String>, Vec<Upload>), nodebench_fleet::Error> {
    let first = target[0].as_str();
    let is_command = Cli::command()
        .get_subcommands()
        .any(|c| c.get_name() == first);
    if is_command {
        return Ok((target.to_vec(), Vec::new()));
    }
    let mut args = vec!["suite".to_string(), "run".to_string()];
    let mut uploads = Vec::new();
    let path = Path::new(first);
    if path.is_file() {
        let name = format!("suite-{fleet_id}.toml");
        uploads.push(Upload {
            from: path.to_path_buf(),
            sha256: sha256_file(path)?,
            name: name.clone(),
        });
        args.push(format!("./{name}"));
    } else {
        args.push(first.to_string());
    }
    args.extend(target[1..].iter().cloned());
    Ok((args, uploads))
}

/// `fleet run`: every host in parallel, each host's run stored and shown.
fn run_hosts(cli: &Cli, args: &RunArgs) -> Result<()> {
    let hosts = load(&args.hosts)?;
    if args.target.first().is_some_and(|t| t == "fleet") {
        return Err(CliError::usage(
            "SUITE|COMMAND: fleet cannot run fleet (accepted: a suite name or a benchmark command)",
        )
        .into());
    }
    movable_secrets("SUITE|COMMAND", &args.target)?;
    let Session {
        local,
        cancel,
        ssh,
        mut store,
        fleet_id,
    } = Session::open(cli, &hosts, &args.hosts)?;
    let progress = progress(cli.quiet);
    let (remote, uploads) = match remote_args(&args.target, &fleet_id) {
        Ok(r) => r,
        Err(e) => {
            return Err(CliError::usage(format!("SUITE|COMMAND: {e}")).into());
        }
    };
    let reports = nodebench_fleet::run::run_all(
        &ssh,
        &hosts.hosts,
        &local,
        &remote,
        &uploads,
        args.hosts.parallel,
        &cancel,
        &progress,
    );
    drop(ssh);

    let mut saved: Vec<(String, Run)> = Vec::new();
    let mut rows = vec![row(&[
        "host", "status", "run", "results", "time", "copied", "error",
    ])];
    for r in reports {
        let HostRun {
            host,
            copied,
            run,
            error,
            elapsed,
        } = r;
        let mut id_text = "-".to_string();
        let mut results = "-".to_string();
        if let Some(mut run) = run {
            let tags = [
                (names::HOST_TAG, host.name.clone()),
                (names::FLEET_TAG, fleet_id.clone()),
                (names::MODE_TAG, "run".into()),
            ];
            if let Some(id) = save(cli, store.as_deref_mut(), &mut run, &tags)? {
                id_text = id.to_string();
            }
            results = run.results.len().to_string();
            saved.push((host.name.clone(), run));
        }
        let status = if error.is_none() { "ok" } else { "FAILED" };
        rows.push(row(&[
            &host.name,
            status,
            &id_text,
            &results,
            &format!("{:.1}s", elapsed.as_secs_f64()),
            if copied { "yes" } else { "no" },
            &error.as_ref().map(HostError::to_string).unwrap_or_default(),
        ]));
        if let Some(e) = &error {
            for line in &e.stderr_tail {
                eprintln!("[{}] stderr: {line}", host.name);
            }
        }
    }
    let failed = rows.iter().skip(1).filter(|r| r[1] == "FAILED").count();
    if cli.json {
        let runs: Vec<&Run> = saved.iter().map(|(_, r)| r).collect();
        outln!("{}", serde_json::to_string_pretty(&runs)?);
    } else {
        outln!(
            "fleet run {fleet_id} ({})",
            nodebench_core::credentials::redact_args(&remote).join(" ")
        );
        print_table(&rows);
        if saved.len() >= 2 {
            let sides: Vec<Side> = saved
                .iter()
                .map(|(name, run)| Side {
                    label: format!("{}={name}", names::HOST_TAG),
                    runs: vec![run.clone()],
                })
                .collect();
            let c = compare::compare(&sides);
            if let Ok(text) = compare::render(&c, CompareFormat::Table, false) {
                outln!();
                out!("{text}");
            }
        }
    }
    if cancel.is_cancelled() {
        return Err(BenchError::Interrupted(format!(
            "kept {} host run(s); remote processes stopped",
            saved.len()
        ))
        .into());
    }
    if failed > 0 {
        return Err(
            CliError::failed(format!("{failed} of {} host(s) failed", rows.len() - 1)).into(),
        );
    }
    Ok(())
}

/// Refuses, before any host is touched, a remote command line whose
/// secrets cannot be handed over on standard input (exit 2).
fn movable_secrets(what: &str, args: &[String]) -> Result<()> {
    nodebench_core::credentials::split_secrets(args)
        .map(drop)
        .map_err(|e| CliError::usage(format!("{what}: {e}")).into())
}

/// `fleet http`: the generators' runs stored, their histograms merged.
fn http(cli: &Cli, args: &HttpArgs) -> Result<()> {
    let hosts = load(&args.hosts)?;
    if !(args.url.starts_with("http://") || args.url.starts_with("https://")) {
        return Err(CliError::usage(format!(
            "URL: '{}': fleet http needs a full URL the generators reach (accepted: http://HOST:PORT/PATH)",
            args.url
        )).into());
    }
    let mut load_args = vec!["http".to_string(), "load".to_string(), args.url.clone()];
    load_args.extend(args.load.iter().cloned());
    // The load flags are checked here, before any host is touched.
    let argv = ["nodebench".to_string()]
        .into_iter()
        .chain(load_args.iter().cloned());
    if let Err(e) = <Cli as clap::Parser>::try_parse_from(argv) {
        return Err(CliError::usage(format!("LOAD FLAGS: {}", crate::args::one_line(&e))).into());
    }
    movable_secrets("LOAD FLAGS", &load_args)?;
    let Session {
        local,
        cancel,
        ssh,
        mut store,
        fleet_id,
    } = Session::open(cli, &hosts, &args.hosts)?;
    let progress = progress(cli.quiet);
    let (start, gens) = nodebench_fleet::http::run_generators(
        &ssh,
        &hosts.hosts,
        &local,
        &load_args,
        args.start_delay,
        &cancel,
        &progress,
    );
    drop(ssh);
    let ms = |ns: i64| format!("{:+.3}", ns as f64 / 1e6);
    let mut rows = vec![row(&[
        "generator",
        "clock offset ms",
        "start skew ms",
        "requests",
        "p50 ms",
        "p99 ms",
        "max ms",
        "status",
        "run",
        "error",
    ])];
    let mut json_gens = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    let mut failed = 0;
    for g in gens {
        let mut cells = vec![g.host.name.clone()];
        cells.push(
            g.clock
                .map(|c| format!("{} ±{:.3}", ms(c.offset_ns), c.rtt_ns as f64 / 2e6))
                .unwrap_or_default(),
        );
        cells.push(g.start_skew_ns.map(ms).unwrap_or_default());
        let mut id_text = "-".to_string();
        let mut run_json = serde_json::Value::Null;
        if let Some(mut run) = g.run {
            let mut tags = vec![
                (names::HOST_TAG, g.host.name.clone()),
                (names::FLEET_TAG, fleet_id.clone()),
                (names::MODE_TAG, "http".to_string()),
            ];
            if let Some(c) = g.clock {
                tags.push((names::CLOCK_OFFSET_TAG, c.offset_ns.to_string()));
            }
            if let Some(s) = g.start_skew_ns {
                tags.push((names::START_SKEW_TAG, s.to_string()));
            }
            if let Some(id) = save(cli, store.as_deref_mut(), &mut run, &tags)? {
                id_text = id.to_string();
            }
            cells.extend(latency_cells(std::slice::from_ref(&run)));
            run_json = serde_json::to_value(&run)?;
            runs.push(run);
        } else {
            cells.extend(["", "", "", ""].map(String::from));
        }
        if g.error.is_some() {
            failed += 1;
        }
        cells.push(if g.error.is_none() { "ok" } else { "FAILED" }.into());
        cells.push(id_text);
        cells.push(
            g.error
                .as_ref()
                .map(HostError::to_string)
                .unwrap_or_default(),
        );
        if let Some(e) = &g.error {
            for line in &e.stderr_tail {
                eprintln!("[{}] stderr: {line}", g.host.name);
            }
        }
        json_gens.push(serde_json::json!({
            "host": g.host.name,
            "clock_offset_ns": g.clock.map(|c| c.offset_ns),
            "clock_rtt_ns": g.clock.map(|c| c.rtt_ns),
            "start_skew_ns": g.start_skew_ns,
            "error": g.error.as_ref().map(HostError::to_string),
            "run": run_json,
        }));
        rows.push(cells);
    }
    let refs: Vec<&Run> = runs.iter().collect();
    let merged = nodebench_fleet::http::merge(&refs)?;
    let mut total = vec!["all".to_string(), String::new(), String::new()];
    total.extend(
        latency_cells(&[])
            .into_iter()
            .enumerate()
            .map(|(i, c)| merged_corrected(&merged).map_or(c, |h| latency_cell(&h, i))),
    );
    total.push(if failed == 0 { "ok" } else { "partial" }.into());
    rows.push(total);
    if cli.json {
        let out = serde_json::json!({
            "fleet": fleet_id,
            "start_at": start,
            "generators": json_gens,
            "merged": merged,
        });
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        outln!(
            "fleet http {fleet_id}: {} (start {start})",
            nodebench_core::credentials::redact_args(&load_args).join(" ")
        );
        print_table(&rows);
        for h in &merged {
            let Some(hdr) = h.to_hdr() else { continue };
            let which: Vec<String> = h.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            outln!();
            outln!(
                "merged {} {} of {} values (all generators)",
                h.name,
                which.join(" "),
                h.count
            );
            let ms = |v: u64| v as f64 / h.scale * 1e3;
            for p in http_names::LATENCY_PERCENTILES {
                outln!(
                    "  {p:>7.3}%  {:>10.3} ms",
                    ms(hdr.value_at_quantile(p / 100.0))
                );
            }
            outln!("  {:>8}  {:>10.3} ms", "max", ms(hdr.max()));
        }
    }
    if cancel.is_cancelled() {
        return Err(
            BenchError::Interrupted(format!("kept {} generator run(s)", runs.len())).into(),
        );
    }
    if failed > 0 {
        return Err(CliError::failed(format!(
            "{failed} of {} generator(s) failed",
            rows.len() - 2
        ))
        .into());
    }
    Ok(())
}

/// The corrected latency histogram among merged ones.
fn merged_corrected(merged: &[nodebench_core::Histogram]) -> Option<nodebench_core::Histogram> {
    merged
        .iter()
        .find(|h| {
            h.name == http_names::LATENCY
                && h.labels.get(http_names::label::LATENCY).map(String::as_str)
                    == Some(http_names::CORRECTED)
        })
        .cloned()
}

/// Requests, p50, p99 and max of the corrected latency of `runs`' merged
/// histograms (empty cells when none).
fn latency_cells(runs: &[Run]) -> Vec<String> {
    let refs: Vec<&Run> = runs.iter().collect();
    let merged = nodebench_fleet::http::merge(&refs)
        .ok()
        .and_then(|m| merged_corrected(&m));
    (0..4)
        .map(|i| {
            merged
                .as_ref()
                .map_or(String::new(), |h| latency_cell(h, i))
        })
        .collect()
}

/// Cell `i` (count, p50, p99, max in ms) of histogram `h`.
fn latency_cell(h: &nodebench_core::Histogram, i: usize) -> String {
    let Some(hdr) = h.to_hdr() else {
        return String::new();
    };
    let ms = |v: u64| format!("{:.3}", v as f64 / h.scale * 1e3);
    match i {
        0 => h.count.to_string(),
        1 => ms(hdr.value_at_quantile(0.5)),
        2 => ms(hdr.value_at_quantile(0.99)),
        _ => ms(hdr.max()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn args(s: &str) -> Vec<String> {
        let (args, uploads) = remote_args(&words(s), "ID").unwrap();
        assert!(uploads.is_empty());
        args
    }

    #[test]
    fn a_name_is_a_suite_and_a_command_is_kept() {
        assert_eq!(args("quick"), words("suite run quick"));
        assert_eq!(args("cpu ops --threads 1"), words("cpu ops --threads 1"));
        assert_eq!(args("suite run node-pair"), words("suite run node-pair"));
    }

    #[test]
    fn a_local_suite_file_is_uploaded() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mine.toml");
        std::fs::write(&file, "name = \"x\"").unwrap();
        let target = vec![file.display().to_string(), "--set".into(), "a=1".into()];
        let (args, uploads) = remote_args(&target, "ID").unwrap();
        assert_eq!(args, words("suite run ./suite-ID.toml --set a=1"));
        assert_eq!(uploads.len(), 1);
        assert_eq!(uploads[0].name, "suite-ID.toml");
        assert_eq!(uploads[0].sha256, sha256_file(&file).unwrap());
    }
}
