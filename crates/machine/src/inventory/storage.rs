//! Storage: block devices from `/sys/block` and the mounted real filesystems
//! with their sizes.

use std::ffi::CString;
use std::sync::mpsc;
use std::time::Duration;

use super::sysfs::{dir_names, parse_bracketed, read_number, read_text, read_value};
use crate::sysroot::Roots;
use nodebench_core::inventory::{BlockDevice, Filesystem};

/// Reads the block devices of `/sys/block`, leaving out empty loop, ram and
/// zram devices.
pub(super) fn collect_block_devices(roots: &Roots) -> Vec<BlockDevice> {
    let mut out = Vec::new();
    let block = roots.sys("block");
    for name in dir_names(&block) {
        let dir = block.join(&name);
        let size_bytes = read_number::<u64>(dir.join("size")).and_then(|s| s.checked_mul(512));
        let virtual_kind = ["loop", "ram", "zram"].iter().any(|p| name.starts_with(p));
        if virtual_kind && size_bytes == Some(0) {
            continue;
        }
        let queue = dir.join("queue");
        out.push(BlockDevice {
            model: read_value(dir.join("device/model")),
            size_bytes,
            rotational: match read_value(queue.join("rotational")).as_deref() {
                Some("1") => Some(true),
                Some("0") => Some(false),
                _ => None,
            },
            scheduler: read_text(queue.join("scheduler")).and_then(|t| parse_bracketed(&t)),
            write_cache: read_value(queue.join("write_cache")),
            logical_block_size: read_number(queue.join("logical_block_size")),
            physical_block_size: read_number(queue.join("physical_block_size")),
            name,
        });
    }
    out
}

/// Filesystem types that hold no files of their own (kernel interfaces).
const PSEUDO_FILESYSTEMS: &[&str] = &[
    "proc",
    "sysfs",
    "devtmpfs",
    "devpts",
    "mqueue",
    "securityfs",
    "debugfs",
    "tracefs",
    "pstore",
    "bpf",
    "configfs",
    "fusectl",
    "hugetlbfs",
    "autofs",
    "binfmt_misc",
    "nsfs",
    "efivarfs",
    "selinuxfs",
    "smackfs",
    "rpc_pipefs",
    "nfsd",
    "rootfs",
    "resctrl",
    "cpuset",
    "xenfs",
    "fuse.lxcfs",
    "functionfs",
    "gadgetfs",
];

/// Network filesystem types whose statvfs may hang on a dead server.
const NETWORK_FILESYSTEMS: &[&str] = &[
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "ceph",
    "glusterfs",
    "fuse.sshfs",
    "fuse.glusterfs",
    "9p",
    "lustre",
    "gpfs",
    "beegfs",
    "afs",
];

/// Whether a filesystem type is a kernel interface (see [`PSEUDO_FILESYSTEMS`]).
fn is_pseudo_filesystem(fs_type: &str) -> bool {
    PSEUDO_FILESYSTEMS.contains(&fs_type) || fs_type.starts_with("cgroup")
}

/// Decodes the octal escapes of `/proc/self/mounts` ("\040" is a space).
fn unescape_mount_field(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let v = u32::from(bytes[i + 1] - b'0') * 64
                + u32::from(bytes[i + 2] - b'0') * 8
                + u32::from(bytes[i + 3] - b'0');
            if let Ok(b) = u8::try_from(v) {
                out.push(b);
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `(device, mount point, type)` of the real filesystems in a mounts table,
/// one per mount point (the last mount on a point is the visible one).
fn parse_mounts(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let (Some(device), Some(mount_point), Some(fs_type)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if is_pseudo_filesystem(fs_type) {
            continue;
        }
        let entry = (
            unescape_mount_field(device),
            unescape_mount_field(mount_point),
            fs_type.to_string(),
        );
        out.retain(|(_, m, _)| *m != entry.1);
        out.push(entry);
    }
    out
}

/// Total and available bytes of the filesystem holding `path`.
#[allow(clippy::unnecessary_cast)] // statvfs field widths differ between targets
fn statvfs_sizes(path: &str) -> (Option<u64>, Option<u64>) {
    let Ok(c_path) = CString::new(path) else {
        return (None, None);
    };
    // SAFETY: statvfs is plain old data; all zeroes is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c_path` is NUL-terminated and `st` is a valid, writable statvfs.
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut st) } != 0 {
        return (None, None);
    }
    let frsize = if st.f_frsize > 0 {
        st.f_frsize as u64
    } else {
        st.f_bsize as u64
    };
    if frsize == 0 {
        return (None, None);
    }
    (
        (st.f_blocks as u64).checked_mul(frsize),
        (st.f_bavail as u64).checked_mul(frsize),
    )
}

/// [`statvfs_sizes`] on a helper thread, given up after `timeout` (for
/// network filesystems, whose server may not answer).
fn statvfs_sizes_with_timeout(path: &str, timeout: Duration) -> (Option<u64>, Option<u64>) {
    let (tx, rx) = mpsc::channel();
    let owned = path.to_string();
    let spawned = std::thread::Builder::new()
        .name("inventory-statvfs".to_string())
        .spawn(move || {
            let _ = tx.send(statvfs_sizes(&owned));
        });
    if spawned.is_err() {
        return (None, None);
    }
    rx.recv_timeout(timeout).unwrap_or((None, None))
}

/// Reads the mounted real filesystems and their sizes (network ones given
/// two seconds to answer).
pub(super) fn collect_filesystems() -> Vec<Filesystem> {
    let Some(text) = read_text("/proc/self/mounts").or_else(|| read_text("/proc/mounts")) else {
        return Vec::new();
    };
    parse_mounts(&text)
        .into_iter()
        .map(|(device, mount_point, fs_type)| {
            let (size_bytes, available_bytes) = if NETWORK_FILESYSTEMS.contains(&fs_type.as_str()) {
                statvfs_sizes_with_timeout(&mount_point, Duration::from_secs(2))
            } else {
                statvfs_sizes(&mount_point)
            };
            Filesystem {
                device,
                mount_point,
                fs_type,
                size_bytes,
                available_bytes,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mounts() {
        let text = "proc /proc proc rw,relatime 0 0
sysfs /sys sysfs rw,relatime 0 0
devtmpfs /dev devtmpfs rw,relatime,size=12334492k 0 0
tmpfs /dev/shm tmpfs rw,relatime 0 0
devpts /dev/pts devpts rw,relatime,mode=600 0 0
/dev/vda / ext4 rw,relatime,discard 0 0
/dev/nvme0n1p1 /mnt/my\\040data xfs rw 0 0
tmpfs /dev/shm tmpfs rw,relatime,size=1k 0 0
cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
overlay /var/lib/docker/overlay2/x/merged overlay rw 0 0
";
        let mounts = parse_mounts(text);
        let points: Vec<&str> = mounts.iter().map(|m| m.1.as_str()).collect();
        assert_eq!(
            points,
            [
                "/",
                "/mnt/my data",
                "/dev/shm",
                "/var/lib/docker/overlay2/x/merged"
            ]
        );
        assert_eq!(mounts[0], ("/dev/vda".into(), "/".into(), "ext4".into()));
        assert_eq!(unescape_mount_field("a\\011b\\134c"), "a\tb\\c");
        assert_eq!(unescape_mount_field("trailing\\04"), "trailing\\04");
    }
}
