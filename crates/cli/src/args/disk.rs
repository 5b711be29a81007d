//! `nodebench disk ...`: the subcommands. Each wraps its benchmark's
//! arguments, defined with their conversion into its config in `nodebench_disk::cli`.

use clap::Subcommand;
use nodebench_disk::cli::*;

/// `nodebench disk ...`
#[derive(Debug, Subcommand)]
pub enum DiskCommand {
    /// The IOzone test set: write, rewrite, read, reread, random read/write,
    /// backward read, record rewrite, stride read, fwrite/frewrite,
    /// fread/freread, pwrite/pread, mixed; IOzone's flags; throughput mode
    /// (-t) and auto mode (-a); IOPS and latency percentiles per test.
    Iozone(IozoneArgs),
    /// dd-style sequential write of --count x --block-size, without and with
    /// a final fdatasync; bytes, seconds and MB/s (10^6 B/s) as dd prints.
    Dd(DdArgs),
    /// Synced small writes, a database log's commit path: --count writes
    /// of --block-size, each followed by fdatasync (or fsync) before the
    /// next, as fio --fdatasync=1 and pg_test_fsync time them; operations
    /// per second and the latency of one write and its sync (mean,
    /// percentiles, longest).
    Fsync(FsyncArgs),
    /// The block-size x thread matrix: sequential read, random read and
    /// read+write per block size and thread count; throughput and latency.
    Blocks(DiskBlocksArgs),
}
