//! Large page-aligned buffers whose pages are left untouched until the
//! threads that use them write them (first touch puts each page on the NUMA
//! node of the thread that owns that part), and a check of free memory
//! before anything is allocated. Every buffer starts on a page boundary, so
//! it also serves as O_DIRECT I/O memory.

use std::alloc::{Layout, alloc, dealloc};
use std::ptr::NonNull;

use crate::bench::BenchError;
use crate::inventory::available_memory_bytes;
use crate::units::format_bytes;

/// Alignment of large buffers: 2 MiB, so transparent huge pages can back them.
const HUGE_ALIGN: usize = 2 << 20;

/// Alignment of every buffer at least: one page, which is also more than
/// O_DIRECT asks of user memory on any file system in use (512 or 4096).
pub const PAGE_ALIGN: usize = 4096;

/// An uninitialised, aligned buffer of `len` elements of `T`, shared by the
/// threads of a team; each thread writes only its own part.
pub struct Buffer<T: Copy> {
    ptr: NonNull<T>,
    len: usize,
    layout: Layout,
}

// SAFETY: the buffer is plain memory; callers split it into disjoint parts
// per thread (see `part`), so sharing the pointer across threads is sound.
unsafe impl<T: Copy + Send> Send for Buffer<T> {}
// SAFETY: as above.
unsafe impl<T: Copy + Sync> Sync for Buffer<T> {}

impl<T: Copy> Buffer<T> {
    /// Allocates `len` elements (pages untouched), aligned to [`PAGE_ALIGN`]
    /// (2 MiB from 2 MiB up), asking for transparent huge pages when `huge`
    /// and the buffer spans at least one. `what` names the flag the size came
    /// from, for the error message.
    pub fn new(len: usize, huge: bool, what: &str) -> Result<Buffer<T>, BenchError> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .filter(|b| *b > 0 && *b <= isize::MAX as usize)
            .ok_or_else(|| {
                BenchError::System(format!("{what}: buffer of {len} elements is out of range"))
            })?;
        let align = if bytes >= HUGE_ALIGN {
            HUGE_ALIGN
        } else {
            PAGE_ALIGN
        };
        let layout = Layout::from_size_align(bytes, align)
            .map_err(|e| BenchError::System(format!("{what}: {e}")))?;
        // SAFETY: layout has a non-zero size.
        let raw = unsafe { alloc(layout) } as *mut T;
        let ptr = NonNull::new(raw).ok_or_else(|| {
            BenchError::System(format!(
                "{what}: cannot allocate {}",
                format_bytes(bytes as u64)
            ))
        })?;
        #[cfg(target_os = "linux")]
        if huge && align == HUGE_ALIGN {
            // SAFETY: advising our own mapping; failure only means no huge pages.
            unsafe {
                libc::madvise(raw as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
            }
        }
        Ok(Buffer { ptr, len, layout })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty (never, for a buffer made by `new`).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Raw pointer to the first element.
    pub fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// The elements `range` as a mutable slice.
    ///
    /// # Safety
    /// No other live slice may overlap `range`, and the elements must have
    /// been written before they are read.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn part(&self, range: std::ops::Range<usize>) -> &mut [T] {
        assert!(range.start <= range.end && range.end <= self.len);
        // SAFETY: in bounds (asserted); exclusivity is the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(range.start), range.len()) }
    }

    /// Slot `i` of the buffer cut into equal slots of `slot_len` elements:
    /// one I/O buffer per operation in flight, as fio keeps them.
    ///
    /// # Safety
    /// As [`part`](Self::part): at most one live slice per slot (an io_uring
    /// slot stays busy until its completion is reaped), written before read.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slot(&self, i: usize, slot_len: usize) -> &mut [T] {
        // SAFETY: the caller's promise, passed on; `part` checks the bounds.
        unsafe { self.part(i * slot_len..(i + 1) * slot_len) }
    }
}

impl<T: Copy> Drop for Buffer<T> {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr.as_ptr() as *mut u8, self.layout) }
    }
}

/// The share of available memory one benchmark's buffers may take.
pub const FIT_FRACTION: f64 = 0.9;

/// Refuses `bytes` when more than [`FIT_FRACTION`] of the memory available
/// now: the error names `flag` and both sizes. Unknown available memory
/// passes.
pub fn check_fits(bytes: u64, flag: &str) -> Result<(), BenchError> {
    if let Some(avail) = available_memory_bytes()
        && bytes as f64 > FIT_FRACTION * avail as f64
    {
        return Err(BenchError::Invalid(format!(
            "{flag}: needs {} of memory but only {} is available; choose a smaller size",
            format_bytes(bytes),
            format_bytes(avail)
        )));
    }
    Ok(())
}

/// The part of `0..len` that thread `t` of `threads` owns: contiguous, in
/// order, multiples of `granule` elements except the last (static schedule).
pub fn split(len: usize, threads: usize, t: usize, granule: usize) -> std::ops::Range<usize> {
    let granules = len.div_ceil(granule);
    let per = granules / threads;
    let extra = granules % threads;
    let start = (t * per + t.min(extra)) * granule;
    let end = ((t + 1) * per + (t + 1).min(extra)) * granule;
    start.min(len)..end.min(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_everything_once_in_granules() {
        for (len, threads) in [(1000, 3), (7, 4), (64, 1), (10_000_019, 8)] {
            let mut next = 0;
            for t in 0..threads {
                let r = split(len, threads, t, 8);
                assert_eq!(r.start, next);
                assert!(r.start.is_multiple_of(8) || r.start == len);
                next = r.end;
            }
            assert_eq!(next, len);
        }
    }

    #[test]
    fn buffers_allocate_and_refuse_absurd_sizes() {
        let b: Buffer<f64> = Buffer::new(1 << 20, true, "--array-size").unwrap();
        // SAFETY: single owner, whole range, written before read.
        let s = unsafe { b.part(0..b.len()) };
        s.fill(1.5);
        assert_eq!(s.iter().sum::<f64>(), 1.5 * (1 << 20) as f64);
        assert_eq!(b.as_ptr() as usize % HUGE_ALIGN, 0);
        assert!(Buffer::<f64>::new(usize::MAX / 4, true, "--array-size").is_err());
        let small: Buffer<u8> = Buffer::new(3 * 512, false, "--record-size").unwrap();
        assert_eq!(small.as_ptr() as usize % PAGE_ALIGN, 0);
        let e = check_fits(u64::MAX / 2, "--array-size").unwrap_err();
        assert!(e.to_string().starts_with("--array-size: needs"), "{e}");
    }

    #[test]
    fn slots_are_disjoint_equal_parts() {
        let b: Buffer<u8> = Buffer::new(3 * 512, false, "--record-size").unwrap();
        for i in 0..3 {
            // SAFETY: one slot at a time, written before read.
            unsafe { b.slot(i, 512) }.fill(i as u8 + 1);
        }
        // SAFETY: no other slice is live now; every byte was written.
        let all = unsafe { b.part(0..b.len()) };
        for i in 0..3 {
            assert!(
                all[i * 512..(i + 1) * 512]
                    .iter()
                    .all(|&x| x == i as u8 + 1)
            );
        }
    }
}
