//! `nodebench slurm submit|collect`: maps the flags to a
//! [`SubmitConfig`], hands the script to sbatch through `nodebench-slurm`,
//! and saves what a job's nodes wrote in the store. Nothing is measured
//! here: each node runs `nodebench suite run`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result};
use nodebench_core::names::slurm::{JOB_TAG, NODE_TAG};
use nodebench_slurm::{JobState, SlurmError, SubmitConfig};

use super::runner::open_store;
use super::suites;
use crate::CliError;
use crate::args::Cli;
use crate::args::slurm::{CollectArgs, SlurmCommand, SubmitArgs};

/// How often `collect --wait` asks squeue about the job.
const POLL: Duration = Duration::from_secs(1);

/// Runs `cmd`.
pub fn run(cli: &Cli, cmd: &SlurmCommand) -> Result<()> {
    match cmd {
        SlurmCommand::Submit(args) => submit(cli, args),
        SlurmCommand::Collect(args) => collect(cli, args),
    }
}

/// A usage error with `message`.
fn usage_error(message: impl std::fmt::Display) -> anyhow::Error {
    CliError::usage(message).into()
}

/// `path` made absolute against the current directory.
fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))
}

/// The binaries the nodes run, by architecture: this one, and with
/// `--binary-dir` those of that folder, copied (unless `--dry-run`) to
/// `DIR/bin/ID/nodebench-ARCH`, where every node sees them.
fn node_binaries(args: &SubmitArgs, dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let here = (
        std::env::consts::ARCH.to_string(),
        std::env::current_exe().context("cannot find the nodebench binary")?,
    );
    let Some(from) = &args.binary_dir else {
        return Ok(vec![here]);
    };
    let id = format!(
        "{}-{}",
        chrono::Utc::now().format("%Y%m%dT%H%M%SZ"),
        std::process::id()
    );
    let stage = dir.join("bin").join(id);
    let scratch =
        std::env::temp_dir().join(format!("nodebench-slurm-unpack-{}", std::process::id()));
    let found = nodebench_core::portable::find(from, &scratch);
    let copied = found.map_err(usage_error).and_then(|found| {
        let mut out = Vec::new();
        for p in found {
            let to = stage.join(format!("nodebench-{}", p.arch));
            if !args.dry_run {
                std::fs::create_dir_all(&stage)
                    .and_then(|()| std::fs::copy(&p.path, &to).map(drop))
                    .with_context(|| {
                        format!(
                            "--dir: cannot copy {} to {}",
                            p.path.display(),
                            to.display()
                        )
                    })?;
            }
            out.push((p.arch, to));
        }
        Ok(out)
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let mut out = copied?;
    if !out.iter().any(|(arch, _)| *arch == here.0) {
        out.push(here);
    }
    Ok(out)
}

/// The submission `args` describe, its suite read and checked here (the
/// nodes must not find out it is wrong).
fn submit_config(args: &SubmitArgs) -> Result<SubmitConfig> {
    let suite = match suites::source(&args.suite)
        .and_then(|(text, origin)| suites::parse(&text, &origin))
    {
        Ok(suite) => suite,
        Err(e) => return Err(usage_error(e)),
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
        binaries: node_binaries(args, &absolute(&args.dir)?)?,
        dir: absolute(&args.dir)?,
    };
    if let Err(e) = config.validate() {
        return Err(usage_error(e));
    }
    Ok(config)
}

/// `slurm submit`: the script printed (--dry-run) or submitted.
fn submit(cli: &Cli, args: &SubmitArgs) -> Result<()> {
    let config = submit_config(args)?;
    let script = nodebench_slurm::sbatch_script(&config);
    if args.dry_run {
        out!("{script}");
        return Ok(());
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
        outln!(
            "{}",
            serde_json::json!({"job": job, "dir": job_dir, "nodes": config.nodes, "suite": config.suite_name})
        );
    } else {
        outln!(
            "submitted job {job}: suite {} on {} node(s), runs in {}",
            config.suite_name,
            config.nodes,
            job_dir.display()
        );
        outln!(
            "collect them with: nodebench slurm collect {job} --dir {}",
            config.dir.display()
        );
    }
    Ok(())
}

/// `slurm collect`: waits if asked, then saves each node's run.
fn collect(cli: &Cli, args: &CollectArgs) -> Result<()> {
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
        return Err(CliError::failed(format!(
            "job {}: no node wrote a run into {}",
            args.job,
            dir.join(args.job.to_string()).display()
        ))
        .into());
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
        outln!("{:<width$}  {line}", node.node);
    }
    if failed > 0 {
        return Err(
            CliError::failed(format!("job {}: {failed} node(s) left no run", args.job)).into(),
        );
    }
    Ok(())
}
