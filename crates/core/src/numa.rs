//! Memory on a chosen NUMA node: binding a buffer's pages to nodes before
//! they are first touched (`mbind`, as `numactl --membind` and
//! `--interleave` do), and asking the kernel where a page is
//! (`get_mempolicy` with `MPOL_F_NODE | MPOL_F_ADDR`), so a figure said to
//! be "node 1's memory" is checked, not assumed. Raw system calls: no
//! libnuma is needed on the machine.

use crate::bench::BenchError;

/// `MPOL_BIND`: pages only on the given nodes.
const MPOL_BIND: i32 = 2;
/// `MPOL_INTERLEAVE`: pages round-robin over the given nodes.
const MPOL_INTERLEAVE: i32 = 3;
/// `MPOL_F_NODE | MPOL_F_ADDR`: the node of the page at an address.
const MPOL_F_NODE_ADDR: u64 = 1 | 2;
/// Nodes a mask can name (the largest machines have 64; the kernel's
/// default limit is 1024).
const MASK_WORDS: usize = 16;

/// Where a buffer's pages go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Wherever the thread that first touches a page runs (the kernel's
    /// default policy).
    FirstTouch,
    /// Only on this node.
    Node(u32),
    /// Round-robin over these nodes, page by page.
    Interleave(Vec<u32>),
}

impl Placement {
    /// How a result's parameter says it.
    pub fn describe(&self) -> String {
        match self {
            Placement::FirstTouch => "first touch (each thread's part on its own node)".into(),
            Placement::Node(n) => format!("bound to node {n}"),
            Placement::Interleave(nodes) => {
                format!("interleaved over nodes {}", crate::cpulist::format(nodes))
            }
        }
    }
}

/// Applies `placement` to the untouched pages of `[ptr, ptr + len)` (page
/// aligned; the buffer's pages must not have been touched yet).
pub fn bind(ptr: *mut u8, len: usize, placement: &Placement) -> Result<(), BenchError> {
    let (mode, nodes) = match placement {
        Placement::FirstTouch => return Ok(()),
        Placement::Node(n) => (MPOL_BIND, vec![*n]),
        Placement::Interleave(nodes) => (MPOL_INTERLEAVE, nodes.clone()),
    };
    let mut mask = [0u64; MASK_WORDS];
    for &n in &nodes {
        let n = n as usize;
        if n >= MASK_WORDS * 64 {
            return Err(BenchError::System(format!(
                "node {n} is beyond the {} nodes a mask names",
                MASK_WORDS * 64
            )));
        }
        mask[n / 64] |= 1 << (n % 64);
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: mbind reads `mask` (MASK_WORDS words, maxnode bits) and
        // changes only the policy of our own mapping.
        let r = unsafe {
            libc::syscall(
                libc::SYS_mbind,
                ptr as usize,
                len,
                mode,
                mask.as_ptr(),
                MASK_WORDS * 64,
                0u32,
            )
        };
        if r != 0 {
            return Err(BenchError::System(format!(
                "cannot place memory {}: mbind: {}",
                placement.describe(),
                std::io::Error::last_os_error()
            )));
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (ptr, len, mode, mask);
        Err(BenchError::System("NUMA placement needs Linux".into()))
    }
}

/// Why this process may not bind memory to `node`, tried on a small
/// scratch mapping; `None` where it may. A kernel without NUMA support,
/// qemu-user (ENOSYS) and a seccomp filter (EPERM) refuse.
pub fn refuses_binding(node: u32) -> Option<String> {
    let buf: crate::buffer::Buffer<u8> = match crate::buffer::Buffer::new(2 << 20, false, "mbind") {
        Ok(b) => b,
        Err(e) => return Some(e.to_string()),
    };
    bind(buf.as_ptr(), buf.len(), &Placement::Node(node))
        .err()
        .map(|e| e.to_string())
}

/// The node holding the (touched) page at `ptr`; `None` where the kernel
/// will not say (no NUMA support, or the call is filtered).
pub fn node_of(ptr: *const u8) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        let mut node: i32 = -1;
        // SAFETY: get_mempolicy writes one int; no mask is asked for.
        let r = unsafe {
            libc::syscall(
                libc::SYS_get_mempolicy,
                &mut node as *mut i32,
                std::ptr::null_mut::<u64>(),
                0usize,
                ptr as usize,
                MPOL_F_NODE_ADDR,
            )
        };
        (r == 0).then_some(node).and_then(|n| u32::try_from(n).ok())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = ptr;
        None
    }
}

/// How many of `samples` pages spread over `[ptr, ptr + len)` are on each
/// node, as (node, pages); empty where the kernel will not say.
pub fn page_nodes(ptr: *const u8, len: usize, samples: usize) -> Vec<(u32, usize)> {
    let page = 4096;
    let pages = (len / page).max(1);
    let step = (pages / samples.max(1)).max(1);
    let mut counts: std::collections::BTreeMap<u32, usize> = Default::default();
    for p in (0..pages).step_by(step) {
        // Only the page's address is passed on, never dereferenced here.
        match node_of(ptr.wrapping_add(p * page)) {
            Some(n) => *counts.entry(n).or_default() += 1,
            None => return Vec::new(),
        }
    }
    counts.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::Buffer;

    #[test]
    fn a_buffer_bound_to_node_zero_is_on_node_zero() {
        let buf: Buffer<u8> = Buffer::new(8 << 20, false, "test").unwrap();
        if let Some(why) = refuses_binding(0) {
            // qemu-user (ENOSYS) or a seccomp filter (EPERM): nothing to test.
            assert!(why.contains("mbind:"), "{why}");
            eprintln!("skipped: {why}");
            return;
        }
        bind(buf.as_ptr(), buf.len(), &Placement::Node(0)).unwrap();
        // SAFETY: the whole buffer, written once.
        unsafe { buf.part(0..buf.len()).fill(1) };
        let nodes = page_nodes(buf.as_ptr(), buf.len(), 64);
        assert!(nodes.is_empty() || nodes == vec![(0, 64)], "{nodes:?}");
    }

    #[test]
    fn a_node_the_machine_lacks_is_refused_in_words() {
        let buf: Buffer<u8> = Buffer::new(4 << 20, false, "test").unwrap();
        let e = bind(buf.as_ptr(), buf.len(), &Placement::Node(1000)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot place memory bound to node 1000: mbind:"),
            "{e}"
        );
        let e = bind(buf.as_ptr(), buf.len(), &Placement::Node(5000)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "node 5000 is beyond the 1024 nodes a mask names"
        );
        assert_eq!(
            Placement::Interleave(vec![0, 1, 2, 3]).describe(),
            "interleaved over nodes 0-3"
        );
    }
}
