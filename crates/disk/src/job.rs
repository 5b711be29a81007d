//! One I/O job: a pass of reads and/or writes of `record`-byte records over a
//! file, in a given order, through one engine, timing every operation into
//! an HdrHistogram. Every disk benchmark (IOzone tests, dd, the block matrix,
//! the fio comparison) is a sequence of jobs.

use nodebench_core::bench::BenchError;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use hdrhistogram::Histogram;
use nodebench_core::bench::Cancel;
use nodebench_core::buffer::Buffer;
use nodebench_core::latency;
use nodebench_core::names::disk::{engine, metric, sync};
use nodebench_core::rng::{GOLDEN_GAMMA, XorShift64};

/// The order records are visited in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// 0, 1, 2, ...
    Sequential,
    /// Last record first (IOzone's backward read).
    Backward,
    /// Every `n`-th record, then the next start, until all are visited
    /// (IOzone's stride read, default stride 17).
    Stride(u64),
    /// A random permutation of all records (seeded), each visited once, as
    /// fio's random map does.
    Random(u64),
    /// The same record over and over (IOzone's record rewrite).
    Fixed(u64),
}

/// What each operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rw {
    /// Read records.
    Read,
    /// Write records.
    Write,
    /// Alternate read and write (IOzone's mixed workload).
    Mixed,
}

nodebench_core::choice! {
    /// How operations reach the kernel (fio's `ioengine`).
    pub enum Engine {
        /// pread/pwrite, one at a time.
        Psync => engine::PSYNC,
        /// io_uring with up to [`JobSpec::depth`] operations in flight.
        IoUring => engine::IO_URING,
        /// Buffered stdio-like streams (IOzone's fread/fwrite), sequential.
        Stdio => engine::STDIO,
    }
}

nodebench_core::choice! {
    /// What to flush after the last write, inside the timing.
    pub enum EndSync {
        /// Nothing: the figure may be the page cache's.
        None => sync::NONE,
        /// fsync(2): data and metadata.
        Fsync => sync::FSYNC,
        /// fdatasync(2): data (and the metadata needed to read it).
        Fdatasync => sync::FDATASYNC,
    }
}

/// One job.
#[derive(Debug, Clone, Copy)]
pub struct JobSpec {
    /// Read, write or mixed.
    pub rw: Rw,
    /// Record order.
    pub access: Access,
    /// Bytes per operation.
    pub record: u64,
    /// Bytes of the file covered (a whole number of records is used).
    pub size: u64,
    /// The engine.
    pub engine: Engine,
    /// Operations in flight with io_uring (fio's `iodepth`); the other
    /// engines have one.
    pub depth: u32,
    /// Flush to stable storage after the last write, inside the timing
    /// (IOzone `-e`, dd `conv=fdatasync`).
    pub end_sync: EndSync,
    /// Stop after this long even if records remain (bounds tiny-block runs).
    pub time_limit: Option<std::time::Duration>,
    /// Write content derived from (seed, record index) so `verify` can check it.
    pub verifiable: Option<u64>,
}

impl JobSpec {
    /// A sequential psync write of `size` bytes in `record`-byte records,
    /// flushed with `end_sync`: dd's write, and how a file is laid out
    /// before tests read it.
    pub fn sequential_write(record: u64, size: u64, end_sync: EndSync) -> JobSpec {
        JobSpec {
            rw: Rw::Write,
            access: Access::Sequential,
            record,
            size,
            engine: Engine::Psync,
            depth: 1,
            end_sync,
            time_limit: None,
            verifiable: None,
        }
    }
}

/// What a job did.
#[derive(Debug)]
pub struct JobOutcome {
    /// Bytes transferred.
    pub bytes: u64,
    /// Operations completed.
    pub ops: u64,
    /// Wall time from the first operation to the last (and the fsync, if asked).
    pub seconds: f64,
    /// Per-operation latency in nanoseconds.
    pub latency_ns: Histogram<u64>,
    /// Bytes done when another job of the same test signalled it had
    /// finished (IOzone's "min xfer"); `None` if none did before this one.
    pub bytes_when_first_done: Option<u64>,
    /// True when stopped by cancellation.
    pub cancelled: bool,
}

/// Shared between the jobs of one throughput-mode test.
#[derive(Debug, Default)]
pub struct Siblings {
    /// Set by the first job to finish.
    pub first_done: AtomicBool,
}

/// An I/O error with the context a user needs.
pub fn io_error(what: &str, path: &str, offset: u64, e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOSPC) => format!(
            "no space left on device: {what} {path} at offset {offset} (the --dir file system is full)"
        ),
        Some(libc::EFBIG) => format!(
            "file too large (EFBIG): {what} {path} at offset {offset}: the file system or RLIMIT_FSIZE caps the file size"
        ),
        Some(libc::EDQUOT) => format!("disk quota exceeded: {what} {path} at offset {offset}"),
        _ => format!("{what} {path} at offset {offset}: {e}"),
    }
}

/// Page-aligned I/O buffers (O_DIRECT needs aligned memory): `slots` slots
/// of `record` bytes, one per operation in flight as fio keeps them, filled
/// with incompressible xorshift bytes.
fn io_buffers(record: usize, slots: usize) -> Result<Buffer<u8>, BenchError> {
    let bufs = Buffer::new(record.saturating_mul(slots), false, "I/O buffers")
        .map_err(|e| e.to_string())
        .map_err(BenchError::System)?;
    // SAFETY: the buffer was just made; this is the only slice of it.
    XorShift64::new(GOLDEN_GAMMA).fill_bytes(unsafe { bufs.part(0..bufs.len()) });
    Ok(bufs)
}

/// Makes each written record unique without regenerating it: stamps the
/// operation number into the first 8 bytes of every 4 KiB (as fio's
/// `scramble_buffers` does), so deduplicating storage cannot collapse
/// records that share one random buffer.
fn scramble(buf: &mut [u8], op: u64) {
    for (k, block) in buf.chunks_mut(4096).enumerate() {
        let stamp = (op.wrapping_mul(GOLDEN_GAMMA) ^ k as u64).to_le_bytes();
        let n = block.len().min(8);
        block[..n].copy_from_slice(&stamp[..n]);
    }
}

/// Fills `buf` with xorshift bytes derived from `seed` and the record index
/// only, so [`verify`] can regenerate what any record should hold.
pub fn fill_verifiable(buf: &mut [u8], seed: u64, record_index: u64) {
    let start =
        (seed.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ record_index.wrapping_mul(GOLDEN_GAMMA)) | 1;
    XorShift64::new(start).fill_bytes(buf);
}

/// The record indexes of `n` records in `access` order.
pub fn order(access: Access, n: u64) -> Vec<u64> {
    match access {
        Access::Sequential => (0..n).collect(),
        Access::Backward => (0..n).rev().collect(),
        Access::Stride(s) => {
            let s = s.max(1);
            let mut v = Vec::with_capacity(n as usize);
            for start in 0..s.min(n) {
                v.extend((start..n).step_by(s as usize));
            }
            v
        }
        Access::Random(seed) => {
            let mut v: Vec<u64> = (0..n).collect();
            XorShift64::new(seed | 1).shuffle(&mut v);
            v
        }
        Access::Fixed(r) => vec![r.min(n.saturating_sub(1)); n as usize],
    }
}

/// Runs `spec` on `file` (opened by the caller with the right flags).
pub fn run_job(
    file: &File,
    path: &str,
    spec: &JobSpec,
    cancel: &Cancel,
    siblings: Option<&Siblings>,
) -> Result<JobOutcome, BenchError> {
    PreparedJob::new(spec)?.run(file, path, cancel, siblings)
}

/// A job whose buffers, record order and latency histogram are made: what a
/// throughput-mode worker sets up before the common start, so that the wall
/// time of the test (IOzone's "parent sees") counts I/O, not setup.
pub struct PreparedJob {
    spec: JobSpec,
    records: u64,
    offsets: Vec<u64>,
    depth: usize,
    bufs: Buffer<u8>,
    latency_ns: Histogram<u64>,
}

impl PreparedJob {
    /// Sets `spec` up: one I/O buffer per operation in flight, the record
    /// order, an empty histogram.
    pub fn new(spec: &JobSpec) -> Result<PreparedJob, BenchError> {
        let records = (spec.size / spec.record.max(1)).max(1);
        let depth = match spec.engine {
            Engine::IoUring => spec.depth.max(1) as usize,
            _ => 1,
        };
        Ok(PreparedJob {
            spec: *spec,
            records,
            offsets: order(spec.access, records),
            depth,
            // `scramble` keeps the written records of one buffer distinct.
            bufs: io_buffers(spec.record as usize, depth)?,
            latency_ns: latency::histogram(),
        })
    }

    /// Runs the job on `file` (opened by the caller with the right flags),
    /// timed from its first operation.
    pub fn run(
        self,
        file: &File,
        path: &str,
        cancel: &Cancel,
        siblings: Option<&Siblings>,
    ) -> Result<JobOutcome, BenchError> {
        let PreparedJob {
            spec,
            records,
            offsets,
            depth,
            bufs,
            latency_ns,
        } = self;
        let spec = &spec;
        let mut out = JobOutcome {
            bytes: 0,
            ops: 0,
            seconds: 0.0,
            latency_ns,
            bytes_when_first_done: None,
            cancelled: false,
        };
        let start = Instant::now();
        let stop = Stop {
            cancel,
            deadline: spec.time_limit.map(|d| start + d),
        };
        match spec.engine {
            Engine::Psync => psync(file, path, spec, &offsets, &bufs, &stop, siblings, &mut out)?,
            Engine::IoUring => uring(
                file, path, spec, &offsets, &bufs, depth, &stop, siblings, &mut out,
            )?,
            Engine::Stdio => stdio(file, path, spec, records, &bufs, &stop, siblings, &mut out)?,
        }
        if spec.rw != Rw::Read {
            match spec.end_sync {
                EndSync::None => {}
                EndSync::Fsync => file
                    .sync_all()
                    .map_err(|e| BenchError::System(io_error("fsync", path, 0, &e)))?,
                EndSync::Fdatasync => file
                    .sync_data()
                    .map_err(|e| BenchError::System(io_error("fdatasync", path, 0, &e)))?,
            }
        }
        out.seconds = start.elapsed().as_secs_f64();
        if let Some(s) = siblings {
            s.first_done.store(true, Ordering::SeqCst);
        }
        Ok(out)
    }
}

/// When a job stops early: cancellation, or its time limit.
struct Stop<'a> {
    cancel: &'a Cancel,
    deadline: Option<Instant>,
}

impl Stop<'_> {
    /// True when the job must stop now; marks a cancellation in `out`.
    fn now(&self, out: &mut JobOutcome) -> bool {
        if self.cancel.is_cancelled() {
            out.cancelled = true;
            return true;
        }
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

fn is_write(rw: Rw, i: u64) -> bool {
    match rw {
        Rw::Read => false,
        Rw::Write => true,
        Rw::Mixed => i % 2 == 1,
    }
}

fn note_siblings(out: &mut JobOutcome, siblings: Option<&Siblings>) {
    if out.bytes_when_first_done.is_none()
        && let Some(s) = siblings
        && s.first_done.load(Ordering::Relaxed)
    {
        out.bytes_when_first_done = Some(out.bytes);
    }
}

#[allow(clippy::too_many_arguments)]
fn psync(
    file: &File,
    path: &str,
    spec: &JobSpec,
    offsets: &[u64],
    bufs: &Buffer<u8>,
    stop: &Stop<'_>,
    siblings: Option<&Siblings>,
    out: &mut JobOutcome,
) -> Result<(), BenchError> {
    let record = spec.record;
    for (i, &idx) in offsets.iter().enumerate() {
        if i % 256 == 0 && stop.now(out) {
            break;
        }
        let off = idx * record;
        // SAFETY: one operation at a time uses the one slot.
        let buf = unsafe { bufs.slot(0, record as usize) };
        let write = is_write(spec.rw, i as u64);
        if write {
            match spec.verifiable {
                Some(seed) => fill_verifiable(buf, seed, idx),
                None => scramble(buf, i as u64),
            }
        }
        let t = Instant::now();
        if write {
            file.write_all_at(buf, off)
                .map_err(|e| BenchError::System(io_error("writing", path, off, &e)))?;
        } else {
            file.read_exact_at(buf, off)
                .map_err(|e| BenchError::System(io_error("reading", path, off, &e)))?;
        }
        latency::record(&mut out.latency_ns, t.elapsed());
        out.bytes += record;
        out.ops += 1;
        note_siblings(out, siblings);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn uring(
    file: &File,
    path: &str,
    spec: &JobSpec,
    offsets: &[u64],
    bufs: &Buffer<u8>,
    depth: usize,
    stop: &Stop<'_>,
    siblings: Option<&Siblings>,
    out: &mut JobOutcome,
) -> Result<(), BenchError> {
    use io_uring::{IoUring, opcode, types};
    // Cooperative task running (no IPIs to the submitter), as fio sets up
    // its rings; older kernels refuse the flag, then a plain ring.
    let entries = (depth as u32).next_power_of_two();
    let mut ring = IoUring::builder()
        .setup_coop_taskrun()
        .build(entries)
        .or_else(|_| IoUring::new(entries))
        .map_err(|e| BenchError::System(format!("--engine io_uring: cannot set up a ring: {e}")))?;
    let fd = types::Fd(file.as_raw_fd());
    let record = spec.record;
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut started: Vec<(Instant, u64, bool)> = vec![(Instant::now(), 0, false); depth];
    let (mut next, mut inflight) = (0usize, 0usize);
    while next < offsets.len() || inflight > 0 {
        if next < offsets.len() && next % 256 == 0 && stop.now(out) {
            next = offsets.len();
        }
        while inflight < depth && next < offsets.len() {
            let Some(slot) = free.pop() else { break };
            let idx = offsets[next];
            let off = idx * record;
            let write = is_write(spec.rw, next as u64);
            // SAFETY: `slot` came off the free list; nothing else uses it until reaped.
            let buf = unsafe { bufs.slot(slot, record as usize) };
            if write {
                match spec.verifiable {
                    Some(seed) => fill_verifiable(buf, seed, idx),
                    None => scramble(buf, next as u64),
                }
            }
            let sqe = if write {
                opcode::Write::new(fd, buf.as_ptr(), record as u32)
                    .offset(off)
                    .build()
            } else {
                opcode::Read::new(fd, buf.as_mut_ptr(), record as u32)
                    .offset(off)
                    .build()
            }
            .user_data(slot as u64);
            started[slot] = (Instant::now(), off, write);
            // SAFETY: the buffer of `slot` stays alive and untouched until its completion is reaped.
            unsafe {
                ring.submission().push(&sqe).map_err(|_| {
                    BenchError::System("io_uring submission queue full".to_string())
                })?;
            }
            next += 1;
            inflight += 1;
            // One operation per submission, as fio's default
            // iodepth_batch_submit=1: a burst of 32 reaches the device as one
            // batch and comes back as one, and the queue then runs in convoys
            // instead of staying full.
            ring.submit()
                .map_err(|e| BenchError::System(format!("io_uring submit: {e}")))?;
        }
        // Take whatever has completed; block only when nothing has.
        let mut done: Vec<(u64, i32)> = ring
            .completion()
            .map(|c| (c.user_data(), c.result()))
            .collect();
        if done.is_empty() {
            ring.submit_and_wait(1)
                .map_err(|e| BenchError::System(format!("io_uring submit: {e}")))?;
            done.extend(ring.completion().map(|c| (c.user_data(), c.result())));
        }
        for (slot, res) in done {
            let slot = slot as usize;
            let (t, off, write) = started[slot];
            latency::record(&mut out.latency_ns, t.elapsed());
            free.push(slot);
            inflight -= 1;
            let what = if write { "writing" } else { "reading" };
            if res < 0 {
                return Err(BenchError::System(io_error(
                    what,
                    path,
                    off,
                    &std::io::Error::from_raw_os_error(-res),
                )));
            }
            if res as u64 != record {
                return Err(BenchError::System(format!(
                    "{what} {path} at offset {off}: short transfer of {res} of {record} bytes"
                )));
            }
            out.bytes += record;
            out.ops += 1;
            note_siblings(out, siblings);
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn stdio(
    file: &File,
    path: &str,
    spec: &JobSpec,
    n: u64,
    bufs: &Buffer<u8>,
    stop: &Stop<'_>,
    siblings: Option<&Siblings>,
    out: &mut JobOutcome,
) -> Result<(), BenchError> {
    // stdio's buffer is the file system's preferred block size, as glibc sizes it.
    let capacity = {
        use std::os::unix::fs::MetadataExt;
        file.metadata()
            .map(|m| m.blksize() as usize)
            .unwrap_or(4096)
            .max(512)
    };
    let mut handle = file
        .try_clone()
        .map_err(|e| BenchError::System(format!("{path}: {e}")))?;
    std::io::Seek::seek(&mut handle, std::io::SeekFrom::Start(0))
        .map_err(|e| BenchError::System(format!("{path}: {e}")))?;
    let record = spec.record;
    if spec.rw == Rw::Read {
        let mut r = std::io::BufReader::with_capacity(capacity, handle);
        for i in 0..n {
            if i % 256 == 0 && stop.now(out) {
                break;
            }
            // SAFETY: one operation at a time uses the one slot.
            let buf = unsafe { bufs.slot(0, record as usize) };
            let t = Instant::now();
            r.read_exact(buf)
                .map_err(|e| BenchError::System(io_error("reading", path, i * record, &e)))?;
            latency::record(&mut out.latency_ns, t.elapsed());
            out.bytes += record;
            out.ops += 1;
            note_siblings(out, siblings);
        }
    } else {
        let mut w = std::io::BufWriter::with_capacity(capacity, handle);
        for i in 0..n {
            if i % 256 == 0 && stop.now(out) {
                break;
            }
            // SAFETY: one operation at a time uses the one slot.
            let buf = unsafe { bufs.slot(0, record as usize) };
            match spec.verifiable {
                Some(seed) => fill_verifiable(buf, seed, i),
                None => scramble(buf, i),
            }
            let t = Instant::now();
            w.write_all(buf)
                .map_err(|e| BenchError::System(io_error("writing", path, i * record, &e)))?;
            latency::record(&mut out.latency_ns, t.elapsed());
            out.bytes += record;
            out.ops += 1;
            note_siblings(out, siblings);
        }
        // fflush: inside the timing, as IOzone's fwrite test has it.
        w.flush()
            .map_err(|e| BenchError::System(io_error("writing", path, n * record, &e)))?;
    }
    Ok(())
}

/// Reads `size` bytes back in `record`-byte records and checks each against
/// the content written with `seed`; `Err` names the first bad offset.
pub fn verify(
    file: &File,
    path: &str,
    size: u64,
    record: u64,
    seed: u64,
) -> Result<u64, BenchError> {
    let n = (size / record.max(1)).max(1);
    let bufs = io_buffers(record as usize, 2)?;
    // SAFETY: two distinct slots, the only slices of the buffer.
    let (got, want) = unsafe { (bufs.slot(0, record as usize), bufs.slot(1, record as usize)) };
    for idx in 0..n {
        let off = idx * record;
        file.read_exact_at(got, off)
            .map_err(|e| BenchError::System(io_error("verifying", path, off, &e)))?;
        fill_verifiable(want, seed, idx);
        if got != want {
            return Err(BenchError::System(format!(
                "--verify: {path}: data read back at offset {off} differs from what was written"
            )));
        }
    }
    Ok(n * record)
}

/// Drops the file's pages from the page cache (IOzone `-p`): dirty pages are
/// written first, since the kernel cannot drop them.
pub fn purge(file: &File, path: &str) -> Result<(), BenchError> {
    file.sync_all()
        .map_err(|e| BenchError::System(io_error("fsync", path, 0, &e)))?;
    // SAFETY: plain advice on our own descriptor.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 {
        return Err(BenchError::System(format!(
            "purging {path} from the page cache: {}",
            std::io::Error::from_raw_os_error(rc)
        )));
    }
    Ok(())
}

/// Writes dirty pages back and drops the whole page cache
/// (`echo 3 > /proc/sys/vm/drop_caches`); only root may.
pub fn drop_caches() -> Result<(), BenchError> {
    // SAFETY: sync(2) takes no arguments and cannot fail.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", "3\n").map_err(|e| {
        BenchError::System(format!(
            "--drop-caches: cannot write /proc/sys/vm/drop_caches ({e}); it needs root"
        ))
    })
}

/// The latency percentile metrics of `hist` (ns), in seconds: p50, p90,
/// p99, p99.9 and the longest.
pub fn percentile_metrics(hist: &Histogram<u64>) -> [(&'static str, f64); 5] {
    let q = |p: f64| hist.value_at_quantile(p) as f64 * 1e-9;
    [
        (metric::LATENCY_P50, q(0.50)),
        (metric::LATENCY_P90, q(0.90)),
        (metric::LATENCY_P99, q(0.99)),
        (metric::LATENCY_P999, q(0.999)),
        (metric::LATENCY_MAX, hist.max() as f64 * 1e-9),
    ]
}

/// Makes a write past RLIMIT_FSIZE fail with EFBIG instead of killing the
/// process with SIGXFSZ, so the error can be reported and files removed.
pub fn ignore_sigxfsz() {
    // SAFETY: setting a signal to ignored.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::{OpenMode, ScratchFile};
    use nodebench_core::config::Choice;

    #[test]
    fn orders_visit_every_record_once() {
        for access in [
            Access::Sequential,
            Access::Backward,
            Access::Stride(17),
            Access::Random(7),
        ] {
            let mut v = order(access, 1000);
            assert_eq!(v.len(), 1000);
            v.sort_unstable();
            assert_eq!(v, (0..1000).collect::<Vec<_>>(), "{access:?}");
        }
        assert_eq!(order(Access::Stride(3), 7), vec![0, 3, 6, 1, 4, 2, 5]);
        assert_eq!(order(Access::Backward, 3), vec![2, 1, 0]);
        assert_eq!(order(Access::Fixed(0), 3), vec![0, 0, 0]);
        // The permutation of a seed stays the one earlier runs used.
        assert_eq!(
            order(Access::Random(7), 10),
            vec![2, 3, 8, 1, 0, 4, 5, 9, 6, 7]
        );
    }

    #[test]
    fn verifiable_content_is_fixed_by_seed_and_record() {
        let mut a = [0u8; 12];
        fill_verifiable(&mut a, 42, 3);
        assert_eq!(a, [189, 127, 247, 203, 246, 188, 114, 199, 2, 222, 76, 136]);
        let mut b = [0u8; 12];
        fill_verifiable(&mut b, 42, 4);
        assert_ne!(a, b, "another record");
        fill_verifiable(&mut b, 43, 3);
        assert_ne!(a, b, "another seed");
    }

    #[test]
    fn io_buffers_are_incompressible() {
        let record = 64 << 10;
        let bufs = io_buffers(record, 2).unwrap();
        // SAFETY: the only slice; every byte was written by `io_buffers`.
        let all = unsafe { bufs.part(0..bufs.len()) };
        let mut words: Vec<u64> = all
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let n = words.len();
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), n, "a repeated 8-byte word");
        let mut counts = [0usize; 256];
        for &b in all.iter() {
            counts[b as usize] += 1;
        }
        // 512 expected per byte value; a compressible buffer is far off.
        assert!(
            counts.iter().all(|&c| (384..640).contains(&c)),
            "{counts:?}"
        );
    }

    fn spec(rw: Rw, access: Access, engine: Engine) -> JobSpec {
        JobSpec {
            rw,
            access,
            record: 4096,
            size: 1 << 20,
            engine,
            depth: 8,
            end_sync: EndSync::Fsync,
            time_limit: None,
            verifiable: Some(42),
        }
    }

    #[test]
    fn every_engine_writes_reads_and_verifies() {
        let dir = tempfile::tempdir().unwrap();
        for &engine in Engine::ALL {
            let f = ScratchFile::create(dir.path(), "job").unwrap();
            let file = f.open(OpenMode::default()).unwrap();
            let path = f.path().display().to_string();
            let w = run_job(
                &file,
                &path,
                &spec(Rw::Write, Access::Sequential, engine),
                &Cancel::new(),
                None,
            );
            let w = match w {
                Err(e) if e.to_string().contains("io_uring") => {
                    eprintln!("io_uring unavailable here: {e}");
                    continue;
                }
                other => other.unwrap(),
            };
            assert_eq!((w.bytes, w.ops), (1 << 20, 256), "{engine:?}");
            assert_eq!(w.latency_ns.len(), 256);
            assert_eq!(file.metadata().unwrap().len(), 1 << 20);
            let access = if engine == Engine::Stdio {
                Access::Sequential
            } else {
                Access::Random(3)
            };
            let r = run_job(
                &file,
                &path,
                &spec(Rw::Read, access, engine),
                &Cancel::new(),
                None,
            )
            .unwrap();
            assert_eq!(r.bytes, 1 << 20);
            assert_eq!(verify(&file, &path, 1 << 20, 4096, 42).unwrap(), 1 << 20);
            let e = verify(&file, &path, 1 << 20, 4096, 43).unwrap_err();
            assert!(e.to_string().contains("offset 0 differs"), "{e}");
            // One flipped byte in record 73 is caught, at that record.
            let mut byte = [0u8];
            file.read_exact_at(&mut byte, 300_000).unwrap();
            file.write_all_at(&[!byte[0]], 300_000).unwrap();
            let e = verify(&file, &path, 1 << 20, 4096, 42).unwrap_err();
            assert!(e.to_string().contains("at offset 299008 differs"), "{e}");
        }
    }

    #[test]
    fn reading_past_the_end_is_an_error_naming_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let f = ScratchFile::create(dir.path(), "short").unwrap();
        let file = f.open(OpenMode::default()).unwrap();
        let e = run_job(
            &file,
            "x",
            &spec(Rw::Read, Access::Sequential, Engine::Psync),
            &Cancel::new(),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("reading x at offset 0"), "{e}");
    }
}
