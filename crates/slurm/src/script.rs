//! The sbatch script of a submission.

use crate::config::{SubmitConfig, slurm_time};

/// `s` quoted for a POSIX shell (single quotes; a quote inside as `'\''`).
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `name` with every character Slurm or a shell would read as more than a
/// name replaced by `_`, for the job name.
fn job_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What each node's task runs (`sh -c`), with the suite, the output
/// directory and the binaries by architecture as its arguments (`SUITE
/// OUT ARCH PATH [ARCH PATH]...`): the binary of the node's `uname -m`, or,
/// where there is none, one line in `NODE.err` beside an empty `NODE.json`
/// so that `slurm collect` reports the node as failed. No single quote in
/// it: it is quoted whole.
const NODE_TASK: &str = "suite=$1; out=$2; shift 2; m=$(uname -m); have=; bin=; \
while [ $# -ge 2 ]; do have=\"$have $1\"; [ \"$1\" = \"$m\" ] && bin=$2; shift 2; done; \
if [ -z \"$bin\" ]; then : >\"$out/$SLURMD_NODENAME.json\"; \
echo \"error: node $SLURMD_NODENAME is $m, and there is no nodebench for $m (have:$have): submit with --binary-dir holding the nodebench-VERSION-$m-linux-gnu.tar.gz release archive\" >\"$out/$SLURMD_NODENAME.err\"; exit 1; fi; \
exec \"$bin\" --no-save --quiet --json suite run \"$suite\" \
>\"$out/$SLURMD_NODENAME.json\" 2>\"$out/$SLURMD_NODENAME.err\"";

/// The sbatch script that runs `cfg.suite` once on each of `cfg.nodes`
/// nodes (one task per node, through `srun`): each node runs the binary of
/// its architecture, `nodebench --no-save --quiet --json suite run SUITE`,
/// and writes its standard output to `DIR/$SLURM_JOB_ID/$SLURMD_NODENAME.json`
/// and its standard error beside it (`.err`); Slurm's own output goes to
/// `DIR/slurm-JOBID.out`. The values in it were checked by
/// [`SubmitConfig::validate`].
pub fn sbatch_script(cfg: &SubmitConfig) -> String {
    let dir = cfg.dir.to_string_lossy();
    let mut s = String::from("#!/bin/sh\n");
    s.push_str(&format!(
        "# nodebench slurm submit: suite {} on {} node(s), one task per node;\n\
         # each node writes its run to {dir}/$SLURM_JOB_ID/NODE.json (stderr: NODE.err).\n",
        cfg.suite_name, cfg.nodes
    ));
    s.push_str(&format!(
        "#SBATCH --job-name=nodebench-{}\n",
        job_name(&cfg.suite_name)
    ));
    s.push_str(&format!("#SBATCH --nodes={}\n", cfg.nodes));
    s.push_str("#SBATCH --ntasks-per-node=1\n");
    if cfg.exclusive {
        s.push_str("#SBATCH --exclusive\n");
    }
    if let Some(p) = &cfg.partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    if let Some(t) = cfg.time {
        s.push_str(&format!("#SBATCH --time={}\n", slurm_time(t)));
    }
    s.push_str(&format!("#SBATCH --output={dir}/slurm-%j.out\n"));
    s.push_str("set -u\n");
    s.push_str(&format!(
        "out={}/\"$SLURM_JOB_ID\"\nmkdir -p \"$out\"\n",
        shell_quote(&dir)
    ));
    // One task per node; the task's shell picks the binary of its node's
    // architecture and names its files after its node.
    let binaries: Vec<String> = cfg
        .binaries
        .iter()
        .map(|(arch, path)| {
            format!(
                "{} {}",
                shell_quote(arch),
                shell_quote(&path.to_string_lossy())
            )
        })
        .collect();
    s.push_str(&format!(
        "srun --nodes={nodes} --ntasks={nodes} --ntasks-per-node=1 /bin/sh -c '{NODE_TASK}' \
         sh {suite} \"$out\" {binaries}\n",
        nodes = cfg.nodes,
        suite = shell_quote(&cfg.suite),
        binaries = binaries.join(" "),
    ));
    s
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::process::Command;
    use std::time::Duration;

    use super::*;

    fn config() -> SubmitConfig {
        SubmitConfig {
            suite: "/home/me/it's mine.toml".into(),
            suite_name: "mine v2".into(),
            nodes: 4,
            partition: Some("batch".into()),
            exclusive: true,
            time: Some(Duration::from_secs(5400)),
            dir: PathBuf::from("/shared/nb"),
            binaries: vec![(
                "x86_64".into(),
                PathBuf::from("/opt/nodebench/bin/nodebench"),
            )],
        }
    }

    #[test]
    fn the_script_asks_for_the_nodes_and_runs_one_task_on_each() {
        let s = sbatch_script(&config());
        let directives: Vec<&str> = s.lines().filter(|l| l.starts_with("#SBATCH")).collect();
        assert_eq!(
            directives,
            [
                "#SBATCH --job-name=nodebench-mine_v2",
                "#SBATCH --nodes=4",
                "#SBATCH --ntasks-per-node=1",
                "#SBATCH --exclusive",
                "#SBATCH --partition=batch",
                "#SBATCH --time=0-01:30:00",
                "#SBATCH --output=/shared/nb/slurm-%j.out",
            ]
        );
        assert!(
            s.contains("srun --nodes=4 --ntasks=4 --ntasks-per-node=1 "),
            "{s}"
        );
        let shared = sbatch_script(&SubmitConfig {
            exclusive: false,
            partition: None,
            time: None,
            ..config()
        });
        assert!(!shared.contains("--exclusive"), "{shared}");
        assert!(!shared.contains("--partition"), "{shared}");
        assert!(!shared.contains("--time"), "{shared}");
    }

    /// The script's body run by a real shell with a stand-in nodebench
    /// (echoing its arguments) and srun (running its command once): each
    /// node's files land in DIR/JOBID, the suite path intact.
    #[test]
    fn the_script_writes_each_nodes_run_into_the_jobs_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let write_exe = |name: &str, body: &str| {
            let p = bin.join(name);
            std::fs::write(&p, body).unwrap();
            std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
            p
        };
        write_exe(
            "srun",
            "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n",
        );
        let fake = write_exe(
            "nodebench",
            "#!/bin/sh\nprintf '%s\\n' \"$@\"\necho oops >&2\n",
        );
        let dir = tmp.path().join("jobs");
        let here = std::env::consts::ARCH.to_string();
        let cfg = SubmitConfig {
            dir: dir.clone(),
            binaries: vec![
                ("sparc64".into(), PathBuf::from("/nonexistent/nodebench")),
                (here.clone(), fake),
            ],
            ..config()
        };
        let run = |cfg: &SubmitConfig, node: &str| {
            Command::new("/bin/sh")
                .arg("-c")
                .arg(sbatch_script(cfg))
                .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
                .env("SLURM_JOB_ID", "42")
                .env("SLURMD_NODENAME", node)
                .output()
                .unwrap()
        };
        let out = run(&cfg, "node7");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let job = dir.join("42");
        assert_eq!(
            std::fs::read_to_string(job.join("node7.json")).unwrap(),
            "--no-save\n--quiet\n--json\nsuite\nrun\n/home/me/it's mine.toml\n"
        );
        assert_eq!(
            std::fs::read_to_string(job.join("node7.err")).unwrap(),
            "oops\n"
        );
        // A node of an architecture without a binary: one line, its own.
        let other = SubmitConfig {
            binaries: vec![("sparc64".into(), PathBuf::from("/nonexistent/nodebench"))],
            ..cfg
        };
        let out = run(&other, "node8");
        assert!(!out.status.success());
        assert_eq!(std::fs::read_to_string(job.join("node8.json")).unwrap(), "");
        assert_eq!(
            std::fs::read_to_string(job.join("node8.err")).unwrap(),
            format!(
                "error: node node8 is {here}, and there is no nodebench for {here} (have: sparc64): submit with --binary-dir holding the nodebench-VERSION-{here}-linux-gnu.tar.gz release archive\n"
            )
        );
    }
}
