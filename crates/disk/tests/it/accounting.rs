//! The bytes a disk job reports match what the kernel accounted: the file's
//! size, and the process's storage write counter (`/proc/self/io`
//! write_bytes) for O_DIRECT writes. Its own test binary, so no other test's
//! I/O lands in the counter. Needs O_DIRECT in the target directory (not
//! tmpfs before Linux 6.6): without it, it says it is skipped.

use nodebench_core::bench::Cancel;
use nodebench_disk::job::{EndSync, Engine, JobSpec, run_job};
use nodebench_disk::scratch::{OpenMode, ScratchFile};

fn write_bytes() -> u64 {
    let text = std::fs::read_to_string("/proc/self/io").expect("/proc/self/io");
    text.lines()
        .find_map(|l| l.strip_prefix("write_bytes: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("write_bytes line")
}

#[test]
fn reported_bytes_match_the_kernel_accounting() {
    // The target directory is on a disk file system, where O_DIRECT works.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    for engine in [Engine::Psync, Engine::IoUring] {
        let scratch = ScratchFile::create(dir.path(), "acct").unwrap();
        let file = match scratch.open(OpenMode {
            direct: true,
            sync: false,
        }) {
            Ok(f) => f,
            Err(e) if e.to_string().contains("does not support O_DIRECT") => {
                eprintln!("reported_bytes_match_the_kernel_accounting: skipped: {e}");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        let spec = JobSpec {
            engine,
            depth: 8,
            ..JobSpec::sequential_write(64 << 10, 8 << 20, EndSync::Fdatasync)
        };
        let before = write_bytes();
        let out = run_job(&file, "acct", &spec, &Cancel::new(), None).unwrap();
        let accounted = write_bytes() - before;
        assert_eq!(out.bytes, 8 << 20, "{engine:?}");
        assert_eq!(out.ops, 128);
        assert_eq!(
            file.metadata().unwrap().len(),
            out.bytes,
            "{engine:?}: file size"
        );
        // Every data byte reached the storage layer; the kernel may also
        // charge the writer a few metadata blocks (extent/inode updates, 20
        // KiB seen on CI's ext4). Less than one 64 KiB record, so one record
        // written twice or left out still fails.
        assert!(
            accounted >= out.bytes && accounted - out.bytes < 64 << 10,
            "{engine:?}: /proc/self/io write_bytes {accounted} vs reported {}",
            out.bytes
        );
    }
}
