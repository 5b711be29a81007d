//! ENOSPC part-way through a write ends the job with a clear error naming
//! the file and offset, and the scratch file is removed. Mounts a 2 MiB
//! tmpfs, so it needs root: without root it says it is skipped.

use std::process::Command;

use nodebench_core::bench::Cancel;
use nodebench_disk::job::{EndSync, JobSpec, run_job};
use nodebench_disk::scratch::{OpenMode, ScratchFile};

#[test]
fn a_full_file_system_is_a_clear_error_and_leaves_no_file() {
    if !nodebench_core::test_require::root(
        "a_full_file_system_is_a_clear_error_and_leaves_no_file",
        "mounts a tmpfs",
    ) {
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(dir.path())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "mounting a 2 MiB tmpfs as root failed");
    let result = {
        let scratch = ScratchFile::create(dir.path(), "full").unwrap();
        let file = scratch.open(OpenMode::default()).unwrap();
        let spec = JobSpec::sequential_write(64 << 10, 8 << 20, EndSync::None);
        run_job(
            &file,
            &scratch.path().display().to_string(),
            &spec,
            &Cancel::new(),
            None,
        )
    };
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    let _ = Command::new("umount").arg(dir.path()).status();
    let err = result.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("no space left on device: writing"),
        "{err}"
    );
    assert!(err.to_string().contains(" at offset "), "{err}");
    assert!(left.is_empty(), "scratch file left behind");
}
