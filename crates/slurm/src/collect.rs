//! Reading a job's directory: each node's run, tagged with its node and job.

use std::path::{Path, PathBuf};

use nodebench_core::Run;
use nodebench_core::names::slurm::{JOB_TAG, NODE_TAG};

use crate::SlurmError;

/// How many bytes of a node's stderr a failure quotes (its end).
const STDERR_TAIL: usize = 400;

/// What one node of a job left.
#[derive(Debug)]
pub struct NodeRun {
    /// The node's name (`SLURMD_NODENAME`).
    pub node: String,
    /// Its run, tagged `node=NODE` and `slurm_job=JOB`; or why there is
    /// none (empty or unreadable JSON, with the end of its stderr).
    pub run: Result<Run, String>,
}

/// The runs job `job`'s nodes wrote into `dir/JOB/` (one `NODE.json`
/// each), by node name. [`SlurmError::Io`] when the job's directory cannot
/// be read (the job never started, or `dir` is not the one it was
/// submitted with).
pub fn collect(dir: &Path, job: u64) -> Result<Vec<NodeRun>, SlurmError> {
    let job_dir = dir.join(job.to_string());
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SlurmError::Io { path, source }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&job_dir)
        .map_err(io(&job_dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut runs = Vec::with_capacity(files.len());
    for file in files {
        let node = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&file).map_err(io(&file))?;
        let run = serde_json::from_str::<Run>(&text)
            .map(|mut run| {
                run.id = None;
                run.tags.insert(NODE_TAG.to_string(), node.clone());
                run.tags.insert(JOB_TAG.to_string(), job.to_string());
                run
            })
            .map_err(|e| {
                let why = if text.trim().is_empty() {
                    "no run written".to_string()
                } else {
                    format!("unreadable run: {e}")
                };
                match stderr_tail(&file.with_extension("err")) {
                    Some(tail) => format!("{why}; its stderr ends: {tail}"),
                    None => why,
                }
            });
        runs.push(NodeRun { node, run });
    }
    Ok(runs)
}

/// The last [`STDERR_TAIL`] bytes of `path`, lines joined with ` | `;
/// `None` when empty or unreadable.
fn stderr_tail(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let start = text
        .char_indices()
        .map(|(i, _)| i)
        .find(|&i| text.len() - i <= STDERR_TAIL)
        .unwrap_or(text.len());
    let tail: Vec<&str> = text[start..]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    (!tail.is_empty()).then(|| tail.join(" | "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_nodes_run_is_tagged_and_a_node_without_one_says_why() {
        let tmp = tempfile::tempdir().unwrap();
        let job = tmp.path().join("42");
        std::fs::create_dir(&job).unwrap();
        let mut run = Run::start(vec!["nodebench".into()], Default::default());
        run.id = Some(9);
        run.tags.insert("suite".into(), "quick".into());
        std::fs::write(job.join("n1.json"), serde_json::to_string(&run).unwrap()).unwrap();
        std::fs::write(job.join("n1.err"), "").unwrap();
        std::fs::write(job.join("n2.json"), "").unwrap();
        std::fs::write(job.join("n2.err"), "error: step 2: no room\n").unwrap();
        std::fs::write(job.join("n3.json"), "{\"truncated").unwrap();
        std::fs::write(job.join("job.sbatch"), "#!/bin/sh\n").unwrap();

        let nodes = collect(tmp.path(), 42).unwrap();
        assert_eq!(
            nodes.iter().map(|n| n.node.as_str()).collect::<Vec<_>>(),
            ["n1", "n2", "n3"]
        );
        let got = nodes[0].run.as_ref().unwrap();
        assert_eq!(got.id, None);
        assert_eq!(got.tags["node"], "n1");
        assert_eq!(got.tags["slurm_job"], "42");
        assert_eq!(got.tags["suite"], "quick");
        assert_eq!(
            nodes[1].run.as_ref().unwrap_err(),
            "no run written; its stderr ends: error: step 2: no room"
        );
        assert!(
            nodes[2]
                .run
                .as_ref()
                .unwrap_err()
                .starts_with("unreadable run: "),
            "{:?}",
            nodes[2].run
        );
    }

    #[test]
    fn a_missing_job_directory_is_one_line_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let err = collect(tmp.path(), 7).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: No such file or directory (os error 2)",
                tmp.path().join("7").display()
            )
        );
    }
}
