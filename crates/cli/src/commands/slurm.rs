//! `nodebench slurm submit|collect`: maps the flags to a
//! [`SubmitConfig`], hands the script to sbatch through `nodebench-slurm`,
//! and saves what a job's nodes wrote in the store. Nothing is measured
//! here: each node runs `nodebench suite run`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result};
use nodebench_core::names::slurm::{JOB_TAG, NODE_TAG};
use nodebench_slurm::{JobState, SlurmError, SubmitConfig};

use super::runner::open_store;
use super::suites;
use crate::args::Cli;
use crate::args::slurm::{CollectArgs, SlurmCommand, SubmitArgs};

/// How often `collect --wait` asks squeue about the job.
const POLL: Duration = Duration::from_secs(1);

/// Runs `cmd`.
pub fn run(cli: &Cli, cmd: &SlurmCommand) -> Result<ExitCode> {
    match cmd {
        SlurmCommand::Submit(args) => submit(cli, args),
        SlurmCommand::Collect(args) => collect(cli, args),
    }
}

/// One line on stderr and the usage-error exit code.
fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(crate::EXIT_USAGE)
}

/// `path` made absolute against the current directory.
fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))
}

/// The submission `args` describe, its suite read and checked here (the
/// nodes must not find out it is wrong).
fn submit_config(args: &SubmitArgs) -> Result<Result<SubmitConfig, ExitCode>> {
    let suite = match suites::source(&args.suite)
        .and_then(|(text, origin)| suites::parse(&text, &origin))
    {
        Ok(suite) => suite,
        Err(e) => return Ok(Err(usage_error(e))),
    };
    // A file is named by its absolute path: the nodes start elsewhere.
    let suite_arg = if suites::BUILTINS.iter().any(|(n, _)| *n == args.suite) {
        args.suite.clone()
    } else {
        absolute(Path::new(&args.suite))?
            .to_string_lossy()
            .into_owned()
    };
    let config = SubmitConfig {
        suite: suite_arg,
        suite_name: suite.name,
        nodes: args.nodes,
        partition: args.partition.clone(),
        exclusive: args.exclusive,
        time: args.time,
        dir: absolute(&args.dir)?,
        nodebench: std::env::current_exe().context("cannot find the nodebench binary")?,
    };
    if let Err(e) = config.validate() {
        return Ok(Err(usage_error(e)));
    }
    Ok(Ok(config))
}

/// `slurm submit`: the script printed (--dry-run) or submitted.
fn submit(cli: &Cli, args: &SubmitArgs) -> Result<ExitCode> {
    let config = match submit_config(args)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let script = nodebench_slurm::sbatch_script(&config);
    if args.dry_run {
        print!("{script}");
        return Ok(ExitCode::SUCCESS);
    }
    std::fs::create_dir_all(&config.dir)
        .with_context(|| format!("--dir: cannot create {}", config.dir.display()))?;
    let job = nodebench_slurm::submit(&script)?;
    // The script beside the job's runs, for the record.
    let job_dir = config.dir.join(job.to_string());
    std::fs::create_dir_all(&job_dir)
        .and_then(|()| std::fs::write(job_dir.join("job.sbatch"), &script))
        .with_context(|| format!("cannot write {}", job_dir.join("job.sbatch").display()))?;
    if cli.json {
        println!(
            "{}",
            serde_json::json!({"job": job, "dir": job_dir, "nodes": config.nodes, "suite": config.suite_name})
        );
    } else {
        println!(
            "submitted job {job}: suite {} on {} node(s), runs in {}",
            config.suite_name,
            config.nodes,
            job_dir.display()
        );
        println!(
            "collect them with: nodebench slurm collect {job} --dir {}",
            config.dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `slurm collect`: waits if asked, then saves each node's run.
fn collect(cli: &Cli, args: &CollectArgs) -> Result<ExitCode> {
    let dir = absolute(&args.dir)?;
    let state = match args.wait {
        Some(wait) => nodebench_slurm::wait_for_end(args.job, wait, POLL)?,
        None => nodebench_slurm::job_state(args.job)?,
    };
    if let JobState::Active(state) = state {
        return Err(SlurmError::NotEnded {
            job: args.job,
            state,
        }
        .into());
    }
    let nodes = nodebench_slurm::collect(&dir, args.job)?;
    if nodes.is_empty() {
        eprintln!(
            "error: job {}: no node wrote a run into {}",
            args.job,
            dir.join(args.job.to_string()).display()
        );
        return Ok(ExitCode::FAILURE);
    }
    let mut store = if cli.no_save {
        None
    } else {
        Some(open_store(cli)?)
    };
    // Runs of this job already in the store, by node: collecting twice
    // saves nothing twice.
    let job = args.job.to_string();
    let mut saved: BTreeMap<String, i64> = BTreeMap::new();
    if let Some(s) = &store {
        for r in s.list_runs()? {
            if r.tags.get(JOB_TAG) == Some(&job)
                && let Some(node) = r.tags.get(NODE_TAG)
            {
                saved.insert(node.clone(), r.id);
            }
        }
    }
    let width = nodes.iter().map(|n| n.node.len()).max().unwrap_or(0);
    let mut failed = 0;
    for node in nodes {
        let line = match (&node.run, saved.get(&node.node)) {
            (Err(why), _) => {
                failed += 1;
                format!("failed: {why}")
            }
            (Ok(_), Some(id)) => format!("already collected as run {id}"),
            (Ok(run), None) => {
                let what = format!("{} results, {}", run.results.len(), run.status.as_str());
                match store.as_mut() {
                    Some(s) => format!("saved as run {} ({what})", s.begin_run(run)?),
                    None => format!("not saved (--no-save) ({what})"),
                }
            }
        };
        println!("{:<width$}  {line}", node.node);
    }
    if failed > 0 {
        eprintln!("error: job {}: {failed} node(s) left no run", args.job);
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
