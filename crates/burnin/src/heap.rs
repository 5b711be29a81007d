//! Keeps a long burn-in's memory flat. Every iteration builds its
//! benchmark afresh on new threads, allocating and freeing the same
//! buffers (disk records, socket and HTTP buffers) over and over. glibc's
//! malloc raises its mmap threshold each time a large mapped block is
//! freed, so later buffers of that size come from per-thread arenas
//! instead, where freed space stays resident and fragments: a 30-minute
//! burn-in's peak RSS grew 11 MB that way and was still growing at the
//! end, while its live heap did not grow. A fixed threshold keeps large
//! buffers mapped and unmapped with their iteration, and trimming after
//! every checkpoint hands freed arena pages back to the system: the same
//! run then stays within 0.7 % of its first minute's peak.

/// Buffers at least this large are mapped on their own and unmapped when
/// freed (glibc's initial threshold, fixed so it no longer rises).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 * 1024;

/// Fixes the allocator's mmap threshold for the rest of the process: done
/// once, before the workloads start.
pub fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes an allocator tunable; it is called
    // before the workload threads exist.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Returns the free pages of every malloc arena to the system: called after
/// each checkpoint is committed.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim is thread-safe and touches only free memory.
    unsafe {
        libc::malloc_trim(0);
    }
}
