//! Scratch files: created only as `nodebench-*.tmp` under the directory the
//! user gave, after checking free space, opened with the flags a test asks
//! for (O_DIRECT, O_SYNC), and removed when dropped, so an error, a failed
//! test or Ctrl-C leaves nothing behind.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use nodebench_core::bench::BenchError;
use nodebench_core::units::format_bytes;

static NEXT: AtomicU64 = AtomicU64::new(0);

/// How a scratch file is opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenMode {
    /// O_DIRECT: bypass the page cache (IOzone `-I`).
    pub direct: bool,
    /// O_SYNC: every write is durable before it returns (IOzone `-o`).
    pub sync: bool,
}

/// A file this run created; removed on drop.
#[derive(Debug)]
pub struct ScratchFile {
    path: PathBuf,
}

impl ScratchFile {
    /// A new, empty `nodebench-<pid>-<n>-<tag>.tmp` under `dir`.
    pub fn create(dir: &Path, tag: &str) -> Result<ScratchFile, BenchError> {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let path = dir.join(format!("nodebench-{}-{n}-{tag}.tmp", std::process::id()));
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| {
                format!(
                    "--dir {}: cannot create {}: {e}",
                    dir.display(),
                    path.display()
                )
            })
            .map_err(BenchError::System)?;
        Ok(ScratchFile { path })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens it for reading and writing with `mode`.
    pub fn open(&self, mode: OpenMode) -> Result<File, BenchError> {
        let mut flags = 0;
        if mode.direct {
            flags |= libc::O_DIRECT;
        }
        if mode.sync {
            flags |= libc::O_SYNC;
        }
        OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(flags)
            .open(&self.path)
            .map_err(|e| {
                if mode.direct && e.raw_os_error() == Some(libc::EINVAL) {
                    format!(
                        "--direct: {} does not support O_DIRECT (tmpfs?): {e}",
                        self.path.display()
                    )
                } else {
                    format!("cannot open {}: {e}", self.path.display())
                }
            })
            .map_err(BenchError::System)
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Refuses `count` writes of `block_size` bytes (dd's and fsync's
/// `--block-size x --count`) when the total overflows or `dir` cannot take
/// it ([`check_dir`]).
pub fn check_blocks(dir: &Path, block_size: u64, count: u64) -> Result<(), BenchError> {
    let total = block_size
        .checked_mul(count)
        .ok_or_else(|| BenchError::Invalid("--block-size x --count overflows".into()))?;
    check_dir(dir, total)
}

/// Bytes free for an unprivileged writer on the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> Result<u64, BenchError> {
    let c = CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| BenchError::System(format!("--dir {}: bad path", dir.display())))?;
    // SAFETY: statvfs fills the struct for a NUL-terminated path.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(c.as_ptr(), &mut st) != 0 {
            return Err(BenchError::System(format!(
                "--dir {}: {}",
                dir.display(),
                std::io::Error::last_os_error()
            )));
        }
        Ok(st.f_bavail as u64 * st.f_frsize as u64)
    }
}

/// Checks that `dir` is a writable directory with room for `bytes` plus 5 %.
pub fn check_dir(dir: &Path, bytes: u64) -> Result<(), BenchError> {
    // A path that is not a directory is the user's input, refused before
    // anything runs; a directory without room is the machine's refusal.
    let meta = std::fs::metadata(dir).map_err(|e| {
        BenchError::Invalid(format!(
            "--dir {}: {e} (expected an existing directory)",
            dir.display()
        ))
    })?;
    if !meta.is_dir() {
        return Err(BenchError::Invalid(format!(
            "--dir {}: not a directory (expected an existing directory)",
            dir.display()
        )));
    }
    let free = free_bytes(dir)?;
    let need = bytes.saturating_add(bytes / 20);
    if free < need {
        return Err(BenchError::System(format!(
            "--dir {}: needs {} free for the test files but only {} is free; use a smaller --file-size or fewer workers",
            dir.display(),
            format_bytes(need),
            format_bytes(free)
        )));
    }
    Ok(())
}

/// The warning a result carries when its test files, `bytes` in all, go
/// through the page cache (no `--direct`) and are smaller than twice the
/// RAM (`ram`, unknown: no warning): the cache can hold them, so reads and
/// writes may be served by memory rather than the disk.
pub fn page_cache_warning(direct: bool, bytes: u64, ram: Option<u64>) -> Option<String> {
    let ram = ram?;
    let twice = ram.saturating_mul(2);
    if direct || bytes >= twice {
        return None;
    }
    Some(format!(
        "page cache: the test files ({}) are smaller than twice the RAM (2 x {}) and go through the page cache (no --direct), which serves them: the figures may be memory's, not the disk's; use --direct or files of {} or more",
        format_bytes(bytes),
        format_bytes(ram),
        format_bytes(twice)
    ))
}

/// The alignment O_DIRECT needs for offsets and lengths in `dir`'s file
/// system: statx's `dio_offset_align` where the kernel reports it (6.1+),
/// else 4096 (safe for every logical block size in use).
pub fn direct_alignment(file: &Path) -> u64 {
    #[cfg(target_os = "linux")]
    {
        let Ok(c) = CString::new(file.as_os_str().as_bytes()) else {
            return 4096;
        };
        // SAFETY: statx fills the struct for a NUL-terminated path.
        unsafe {
            let mut st: libc::statx = std::mem::zeroed();
            const STATX_DIOALIGN: u32 = 0x2000;
            if libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, STATX_DIOALIGN, &mut st) == 0
                && st.stx_mask & STATX_DIOALIGN != 0
                && st.stx_dio_offset_align > 0
            {
                return st.stx_dio_offset_align as u64;
            }
        }
    }
    let _ = file;
    4096
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_files_are_named_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = {
            let f = ScratchFile::create(dir.path(), "t").unwrap();
            let name = f.path().file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                name.starts_with("nodebench-") && name.ends_with(".tmp"),
                "{name}"
            );
            f.open(OpenMode::default()).unwrap();
            f.path().to_path_buf()
        };
        assert!(!path.exists());
    }

    #[test]
    fn files_the_page_cache_can_hold_are_warned_of() {
        let ram = Some(8 << 30);
        let w = page_cache_warning(false, 512 << 20, ram).unwrap();
        assert!(
            w.starts_with(
                "page cache: the test files (512 MiB) are smaller than twice the RAM (2 x 8 GiB)"
            ),
            "{w}"
        );
        assert!(w.contains("--direct"), "{w}");
        assert_eq!(page_cache_warning(true, 512 << 20, ram), None);
        assert_eq!(page_cache_warning(false, 16 << 30, ram), None);
        assert_eq!(page_cache_warning(false, 512 << 20, None), None);
    }

    #[test]
    fn too_little_space_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let Err(BenchError::System(e)) = check_dir(dir.path(), u64::MAX / 4) else {
            panic!("no room is the machine's refusal");
        };
        assert!(e.contains("--dir") && e.contains("free"), "{e}");
        let Err(BenchError::Invalid(e)) = check_dir(Path::new("/nonexistent-nodebench"), 1) else {
            panic!("a missing directory is a usage error");
        };
        assert!(e.starts_with("--dir /nonexistent-nodebench"), "{e}");
        let Err(BenchError::Invalid(e)) = check_dir(Path::new("/etc/hostname"), 1) else {
            panic!("a file is a usage error");
        };
        assert_eq!(
            e,
            "--dir /etc/hostname: not a directory (expected an existing directory)"
        );
    }
}
