//! ENOSPC part-way through a write ends the job with a clear error naming
//! the file and offset, and the scratch file is removed. Mounts a 2 MiB
//! tmpfs, so it needs root (CI runs as root).

use std::process::Command;

use nodebench_core::bench::Cancel;
use nodebench_disk::job::{Access, EndSync, Engine, JobSpec, Rw, run_job};
use nodebench_disk::scratch::{OpenMode, ScratchFile};

#[test]
fn a_full_file_system_is_a_clear_error_and_leaves_no_file() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(dir.path())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "mounting a tmpfs needs root (CI runs as root)");
    let result = {
        let scratch = ScratchFile::create(dir.path(), "full").unwrap();
        let file = scratch.open(OpenMode::default()).unwrap();
        let spec = JobSpec {
            rw: Rw::Write,
            access: Access::Sequential,
            record: 64 << 10,
            size: 8 << 20,
            engine: Engine::Psync,
            end_sync: EndSync::None,
            time_limit: None,
            verifiable: None,
        };
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
    assert!(err.starts_with("no space left on device: writing"), "{err}");
    assert!(
        err.contains("at offset 2097152") || err.contains("at offset"),
        "{err}"
    );
    assert!(left.is_empty(), "scratch file left behind");
}
