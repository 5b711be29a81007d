//! What the release archives carry beside the binary, and the build every
//! binary names: `--version`, `completions`, `manpages`, and the build
//! recorded with every stored run.

use crate::common;

use common::{TempStore, json, one_line_error, run, stdout};

/// `git rev-parse --short=12 HEAD` of this checkout, if it is one.
fn head() -> Option<String> {
    let o = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

#[test]
fn version_names_the_commit_date_target_and_glibc_floor() {
    let o = run(&["--version"]);
    assert!(o.status.success());
    let v = stdout(&o);
    let v = v.trim();
    assert!(v.starts_with("nodebench 0.1.0 (commit "), "{v}");
    if let Some(commit) = head() {
        assert!(v.contains(&format!("commit {commit}")), "{v}");
    }
    let arch = std::env::consts::ARCH;
    assert!(v.contains(&format!(", {arch}-unknown-linux-gnu, ")), "{v}");
    assert!(v.contains(", built 20"), "{v}");
    // scripts/test builds the portable binary and says which floor.
    match std::env::var("NODEBENCH_TEST_GLIBC_FLOOR") {
        Ok(floor) => assert!(v.ends_with(&format!("glibc >= {floor})")), "{v}"),
        Err(_) => assert!(v.contains("glibc >= 2."), "{v}"),
    }
}

#[test]
fn a_stored_run_records_the_build_that_made_it() {
    let store = TempStore::new();
    let o = store.run(&[
        "cpu",
        "ops",
        "--threads",
        "1",
        "--duration",
        "10ms",
        "--repeats",
        "1",
        "--warmup",
        "0",
        "--kernels",
        "int.scalar",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let r = json(&store.run(&["runs", "show", "latest", "--json"]));
    let build = &r["build"];
    assert_eq!(build["version"], "0.1.0", "{build}");
    if let Some(commit) = head() {
        assert!(
            build["commit"].as_str().unwrap().starts_with(&commit),
            "{build}"
        );
    }
    let arch = std::env::consts::ARCH;
    assert_eq!(build["target"], format!("{arch}-unknown-linux-gnu"));
    assert!(
        build["glibc_floor"].as_str().unwrap().starts_with("2."),
        "{build}"
    );
    let version = stdout(&run(&["--version"]));
    let floor = build["glibc_floor"].as_str().unwrap();
    assert!(version.contains(&format!("glibc >= {floor})")), "{version}");
}

#[test]
fn completions_for_each_shell_name_the_subcommands() {
    let bash = stdout(&run(&["completions", "bash"]));
    assert!(
        bash.contains("_nodebench()"),
        "{}",
        &bash[..200.min(bash.len())]
    );
    for word in ["linpack", "iozone", "pingpong", "manpages"] {
        assert!(bash.contains(word), "bash: {word}");
    }
    let zsh = stdout(&run(&["completions", "zsh"]));
    assert!(
        zsh.starts_with("#compdef nodebench"),
        "{}",
        &zsh[..80.min(zsh.len())]
    );
    let fish = stdout(&run(&["completions", "fish"]));
    assert!(fish.contains("complete -c nodebench"), "fish");
    assert!(fish.contains("-l binary-dir"), "fish: fleet's --binary-dir");
    one_line_error(
        &run(&["completions", "tcsh"]),
        2,
        &["invalid value 'tcsh'", "accepted: bash, zsh, fish"],
    );
}

#[test]
fn manpages_writes_one_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&["manpages", dir.path().to_str().unwrap()]);
    assert!(o.status.success());
    let pages: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        stdout(&o).trim(),
        format!(
            "{} man pages written to {}",
            pages.len(),
            dir.path().display()
        )
    );
    for p in [
        "nodebench.1",
        "nodebench-cpu-ops.1",
        "nodebench-fleet-run.1",
        "nodebench-manpages.1",
    ] {
        assert!(pages.iter().any(|x| x == p), "{p} missing: {pages:?}");
    }
    assert!(pages.len() > 40, "{}", pages.len());
    let ops = std::fs::read_to_string(dir.path().join("nodebench-cpu-ops.1")).unwrap();
    assert!(ops.contains(".TH nodebench-cpu-ops 1"), "{ops}");
    assert!(ops.contains("\\-\\-threads"), "the page lists the flags");
    one_line_error(
        &run(&["manpages", "/nonexistent/man1"]),
        2,
        &["DIR: /nonexistent/man1 is not a directory"],
    );
}
