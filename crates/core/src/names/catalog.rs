//! What each runnable benchmark produces: its metrics with their units, and
//! the label keys they carry with, where finite, the values each key takes.
//! An acceptance threshold (`memory.stream bandwidth{kernel=triad} >= 20
//! GB/s`) that names a benchmark, metric, label or value missing here can
//! never match a result, so it can be refused before anything runs.
//!
//! Only [`crate::model::BenchResult::metrics`] are listed (thresholds judge
//! metrics, not histograms or series). Imported benchmarks (`disk.fio`,
//! `cpu.sysbench`, HPCC's ping-pong...) are not runnable and not here;
//! the link matrix `fleet pair --matrix` builds from its pairs' runs
//! (`fleet.links`) is, as the figures it stores.
//!
//! Two metric names are recorded in more than one unit; each is listed in
//! the unit most of its results carry:
//!
//! * `cpu.ops rate`: flop/s for the floating-point kernels (`f32.*`,
//!   `f64.*`), op/s for the integer ones (`int.*`);
//! * `burnin.checkpoint throughput_mean|throughput_min|throughput_max|
//!   baseline_median`: the unit of the workload's watched metric: B/s for
//!   the memory, disk and TCP workloads (and the B/s suite steps), flop/s
//!   for cpu, op/s for http.

use super::burnin::{self, metric as burnin_metric};
use super::http::{self, download, in_process, load, sweep};
use super::labels::{KERNEL, PERCENTILE, SIZE, THREADS};
use super::latency::{
    LATENCY_MAX, LATENCY_MEAN, LATENCY_P50, LATENCY_P90, LATENCY_P99, LATENCY_P999,
};
use super::{cpu, db, disk, energy, fleet, gpu, hpcc, linpack, memory, net, scan};
use crate::model::Unit;

/// One metric a benchmark produces.
#[derive(Debug)]
pub struct MetricSpec {
    /// The metric's name.
    pub name: &'static str,
    /// The unit its values are recorded in.
    pub unit: Unit,
}

/// One label key a benchmark's metrics may carry; `values` is the finite
/// set of values it takes, `None` where open (sizes, thread counts,
/// percentiles, paths, ...).
#[derive(Debug)]
pub struct LabelSpec {
    /// The label key.
    pub key: &'static str,
    /// Every value the key takes, or `None` where the set is open.
    pub values: Option<&'static [&'static str]>,
}

/// What benchmark `id` produces.
#[derive(Debug)]
pub struct BenchSpec {
    /// The benchmark id results carry.
    pub id: &'static str,
    /// Every metric its results may hold.
    pub metrics: &'static [MetricSpec],
    /// Every label key its metrics may carry.
    pub labels: &'static [LabelSpec],
}

/// The energy figures any result may carry (`machine::energy`), where a
/// power source is readable: joules and average watts per source.
pub const ENERGY_METRICS: &[MetricSpec] = &[
    m(energy::metric::ENERGY, Unit::Joules),
    m(energy::metric::POWER, Unit::Watts),
    m(energy::metric::POWER_ABOVE_IDLE, Unit::Watts),
    m(energy::metric::ENERGY_ABOVE_IDLE, Unit::Joules),
];

/// The work-per-joule figures, each recorded by the benchmarks
/// [`energy::EFFICIENCY`] names for it.
pub const EFFICIENCY_METRICS: &[MetricSpec] = &[
    m(energy::metric::GFLOPS_PER_WATT, Unit::Count),
    m(energy::metric::GB_PER_S_PER_WATT, Unit::Count),
    m(energy::metric::REQUESTS_PER_JOULE, Unit::Count),
    m(energy::metric::QUERIES_PER_JOULE, Unit::Count),
    m(energy::metric::BITS_PER_JOULE, Unit::Count),
];

/// The label keys of the energy figures.
pub const ENERGY_LABELS: &[LabelSpec] = &[
    of(energy::label::SOURCE, &energy::source::ALL),
    of(energy::label::SCOPE, &energy::scope::ALL),
    open(energy::label::SENSOR),
    of(energy::label::DRAW, &energy::draw::ALL),
];

impl BenchSpec {
    /// The spec of metric `name`: one of [`BenchSpec::metrics`], an energy
    /// figure, or the benchmark's work per joule.
    pub fn metric(&self, name: &str) -> Option<&'static MetricSpec> {
        let id = self.id;
        self.metrics
            .iter()
            .chain(ENERGY_METRICS)
            .chain(
                EFFICIENCY_METRICS
                    .iter()
                    .filter(move |s| energy::efficiency_of(id).any(|e| e.metric == s.name)),
            )
            .find(|s| s.name == name)
    }

    /// Every metric name [`BenchSpec::metric`] knows.
    pub fn metric_names(&self) -> Vec<&'static str> {
        let id = self.id;
        self.metrics
            .iter()
            .chain(ENERGY_METRICS)
            .map(|s| s.name)
            .chain(energy::efficiency_of(id).map(|e| e.metric))
            .fold(Vec::new(), |mut v, n| {
                if !v.contains(&n) {
                    v.push(n);
                }
                v
            })
    }

    /// The spec of label `key`: one of [`BenchSpec::labels`] or an energy
    /// figure's.
    pub fn label(&self, key: &str) -> Option<&'static LabelSpec> {
        self.labels
            .iter()
            .chain(ENERGY_LABELS)
            .find(|l| l.key == key)
    }

    /// Every label key [`BenchSpec::label`] knows.
    pub fn label_keys(&self) -> Vec<&'static str> {
        self.labels
            .iter()
            .chain(ENERGY_LABELS)
            .map(|l| l.key)
            .collect()
    }
}

/// Every runnable benchmark's spec.
pub fn all() -> &'static [BenchSpec] {
    SPECS
}

/// The spec of benchmark `id`, if it is a runnable benchmark.
pub fn spec(id: &str) -> Option<&'static BenchSpec> {
    SPECS.iter().find(|s| s.id == id)
}

const fn m(name: &'static str, unit: Unit) -> MetricSpec {
    MetricSpec { name, unit }
}

/// A label key whose values are open.
const fn open(key: &'static str) -> LabelSpec {
    LabelSpec { key, values: None }
}

/// A label key taking only `values`.
const fn of(key: &'static str, values: &'static [&'static str]) -> LabelSpec {
    LabelSpec {
        key,
        values: Some(values),
    }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `a`, then the names of `b` not in `a`: `N` of them (checked when
/// compiled).
const fn union<const N: usize>(a: &[&'static str], b: &[&'static str]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 0;
    while n < a.len() {
        out[n] = a[n];
        n += 1;
    }
    let mut j = 0;
    while j < b.len() {
        let mut seen = false;
        let mut i = 0;
        while i < a.len() {
            seen = seen || same(a[i], b[j]);
            i += 1;
        }
        if !seen {
            out[n] = b[j];
            n += 1;
        }
        j += 1;
    }
    assert!(n == N, "union: wrong length");
    out
}

/// The `stat` values of `http.load`: ab's connection-time columns and
/// httperf's reply-rate statistics.
const LOAD_STATS: [&str; 7] = union(&load::CONNECTION_STATS, &load::REPLY_RATE_STATS);
/// The `kind` values of `http.load`: ab's failure columns and the error kinds.
const LOAD_KINDS: [&str; 12] = union(&load::FAILED_CLASSES, &load::ERROR_KINDS);

/// The built-in server's per-worker figures, in a result whose target was a
/// path (`http.load|sweep|download /PATH`).
const SERVER_THREAD_CPU: MetricSpec = m(in_process::SERVER_THREAD_CPU, Unit::Percent);
const SERVER_THREAD_WAIT: MetricSpec = m(in_process::SERVER_THREAD_WAIT, Unit::Percent);
const SERVER_THREAD_REQUESTS: MetricSpec = m(in_process::SERVER_THREAD_REQUESTS, Unit::Count);

/// `net.tcp` and `net.udp` label their figures alike.
const NET_THROUGHPUT_LABELS: &[LabelSpec] = &[
    of(
        net::label::DIRECTION,
        &[
            net::direction::CLIENT_TO_SERVER,
            net::direction::SERVER_TO_CLIENT,
        ],
    ),
    of(net::label::SIDE, &[net::side::SENDER, net::side::RECEIVER]),
    of(net::label::HOST, &[net::host::CLIENT, net::host::SERVER]),
];

static SPECS: &[BenchSpec] = &[
    BenchSpec {
        id: cpu::OPS,
        metrics: &[
            // op/s for the int.* kernels (see the module's notes).
            m(cpu::RATE, Unit::FlopsPerSecond),
            m(cpu::SPEEDUP, Unit::Count),
            m(cpu::EFFICIENCY, Unit::Percent),
        ],
        labels: &[
            of(KERNEL, cpu::kernel::ALL),
            of(
                cpu::label::SCALING,
                &[cpu::scaling::STRONG, cpu::scaling::WEAK],
            ),
            open(THREADS),
        ],
    },
    BenchSpec {
        id: linpack::LINPACK,
        metrics: &[
            m(linpack::TIME, Unit::Seconds),
            m(linpack::RATE, Unit::FlopsPerSecond),
            m(linpack::RESIDUAL, Unit::Count),
            m(linpack::RESIDUAL_NORM, Unit::Count),
            m(linpack::RATE_AVERAGE, Unit::FlopsPerSecond),
            m(linpack::RATE_MAXIMAL, Unit::FlopsPerSecond),
        ],
        labels: &[open(linpack::label::TRIAL)],
    },
    BenchSpec {
        id: memory::STREAM,
        metrics: &[
            m(memory::metric::BANDWIDTH, Unit::BytesPerSecond),
            m(memory::metric::TIME_AVG, Unit::Seconds),
            m(memory::metric::TIME_MIN, Unit::Seconds),
            m(memory::metric::TIME_MAX, Unit::Seconds),
        ],
        labels: &[
            of(
                KERNEL,
                &[
                    memory::kernel::COPY,
                    memory::kernel::SCALE,
                    memory::kernel::ADD,
                    memory::kernel::TRIAD,
                ],
            ),
            of(
                memory::label::STORES,
                &[memory::stores::NORMAL, memory::stores::NONTEMPORAL],
            ),
            open(THREADS),
        ],
    },
    BenchSpec {
        id: memory::BLOCKS,
        metrics: &[
            m(memory::metric::BANDWIDTH, Unit::BytesPerSecond),
            m(memory::metric::LATENCY, Unit::Seconds),
        ],
        labels: &[
            of(
                memory::label::OP,
                &[
                    memory::op::SEQ_WRITE,
                    memory::op::RAND_WRITE,
                    memory::op::READ_WRITE,
                ],
            ),
            open(memory::label::BLOCK),
            open(THREADS),
        ],
    },
    BenchSpec {
        id: memory::LATENCY,
        metrics: &[
            m(memory::metric::LATENCY, Unit::Seconds),
            m(memory::metric::LATENCY_CYCLES, Unit::Cycles),
        ],
        labels: &[
            open(memory::label::WORKING_SET),
            of(
                memory::label::LEVEL,
                &[
                    memory::level::L1,
                    memory::level::L2,
                    memory::level::L3,
                    memory::level::DRAM,
                    memory::level::UNKNOWN,
                ],
            ),
        ],
    },
    BenchSpec {
        id: memory::NUMA,
        metrics: &[
            m(memory::metric::LATENCY, Unit::Seconds),
            m(memory::metric::BANDWIDTH, Unit::BytesPerSecond),
        ],
        labels: &[
            open(memory::label::CPU_NODE),
            open(memory::label::MEMORY_NODE),
        ],
    },
    BenchSpec {
        id: memory::LOADED_LATENCY,
        metrics: &[
            m(memory::metric::LATENCY, Unit::Seconds),
            m(memory::metric::BANDWIDTH, Unit::BytesPerSecond),
            m(memory::metric::INJECTION_BANDWIDTH, Unit::BytesPerSecond),
            m(memory::metric::KNEE_BANDWIDTH, Unit::BytesPerSecond),
            m(memory::metric::KNEE_LATENCY, Unit::Seconds),
        ],
        labels: &[
            of(memory::label::MIX, &memory::mix::ALL),
            open(memory::label::DELAY),
        ],
    },
    BenchSpec {
        id: cpu::HPCC_DGEMM,
        metrics: &[
            m(hpcc::metric::RATE, Unit::FlopsPerSecond),
            m(hpcc::metric::RESIDUAL, Unit::Count),
        ],
        labels: &[of(
            hpcc::label::MODE,
            &[hpcc::mode::SINGLE, hpcc::mode::STAR],
        )],
    },
    BenchSpec {
        id: cpu::HPCC_FFT,
        metrics: &[
            m(hpcc::metric::RATE, Unit::FlopsPerSecond),
            m(hpcc::metric::RESIDUAL, Unit::Count),
        ],
        labels: &[of(
            hpcc::label::MODE,
            &[hpcc::mode::SINGLE, hpcc::mode::STAR],
        )],
    },
    BenchSpec {
        id: memory::HPCC_PTRANS,
        metrics: &[
            m(hpcc::metric::BANDWIDTH, Unit::BytesPerSecond),
            m(hpcc::metric::RESIDUAL, Unit::Count),
        ],
        labels: &[of(hpcc::label::MODE, &[hpcc::mode::MPI])],
    },
    BenchSpec {
        id: memory::HPCC_RANDOM_ACCESS,
        metrics: &[
            m(hpcc::metric::UPDATES, Unit::OpsPerSecond),
            m(hpcc::metric::ERRORS, Unit::Count),
        ],
        labels: &[of(
            hpcc::label::MODE,
            &[hpcc::mode::SINGLE, hpcc::mode::STAR, hpcc::mode::SHARED],
        )],
    },
    BenchSpec {
        id: gpu::STREAM,
        metrics: &[
            m(gpu::metric::BANDWIDTH, Unit::BytesPerSecond),
            m(gpu::metric::PEAK_PERCENT, Unit::Percent),
        ],
        labels: &[open(gpu::label::GPU), of(KERNEL, &gpu::kernel::ALL)],
    },
    BenchSpec {
        id: gpu::GEMM,
        metrics: &[
            m(gpu::metric::RATE, Unit::FlopsPerSecond),
            m(gpu::metric::PEAK_PERCENT, Unit::Percent),
        ],
        labels: &[
            open(gpu::label::GPU),
            of(gpu::label::PRECISION, &gpu::precision::ALL),
            open(gpu::label::N),
        ],
    },
    BenchSpec {
        id: gpu::BANDWIDTH,
        metrics: &[m(gpu::metric::BANDWIDTH, Unit::BytesPerSecond)],
        labels: &[
            open(gpu::label::GPU),
            of(gpu::label::DIRECTION, &gpu::direction::ALL),
            of(gpu::label::HOST_MEMORY, &gpu::host_memory::ALL),
            open(gpu::label::HOST_NODE),
            open(gpu::label::PEER),
        ],
    },
    BenchSpec {
        id: gpu::BURN,
        metrics: &[
            m(gpu::metric::RATE, Unit::FlopsPerSecond),
            m(gpu::metric::RATE_MIN, Unit::FlopsPerSecond),
            m(gpu::metric::PEAK_PERCENT, Unit::Percent),
            m(gpu::metric::ITERATIONS, Unit::Count),
            m(gpu::metric::MISMATCHES, Unit::Count),
            m(gpu::metric::XID_ERRORS, Unit::Count),
            m(gpu::metric::ECC_ERRORS, Unit::Count),
            m(gpu::metric::RETIRED_MEMORY, Unit::Count),
            m(gpu::metric::THROTTLED, Unit::Percent),
            m(gpu::metric::TEMPERATURE_MAX, Unit::Count),
            m(gpu::metric::POWER_MAX, Unit::Watts),
            m(gpu::metric::SM_CLOCK_MEAN, Unit::Hertz),
        ],
        labels: &[
            open(gpu::label::GPU),
            of(gpu::label::PRECISION, &gpu::precision::ALL),
            open(gpu::label::N),
            of(gpu::label::ECC, &gpu::ecc::ALL),
            of(gpu::label::THROTTLE, &gpu::throttle::ALL),
        ],
    },
    BenchSpec {
        id: disk::IOZONE,
        metrics: &[
            m(disk::metric::BANDWIDTH, Unit::BytesPerSecond),
            m(disk::metric::IOPS, Unit::OpsPerSecond),
            m(disk::metric::LATENCY_P50, Unit::Seconds),
            m(disk::metric::LATENCY_P90, Unit::Seconds),
            m(disk::metric::LATENCY_P99, Unit::Seconds),
            m(disk::metric::LATENCY_P999, Unit::Seconds),
            m(disk::metric::LATENCY_MAX, Unit::Seconds),
            m(disk::metric::BYTES, Unit::Bytes),
            m(disk::metric::OPERATIONS, Unit::Count),
            m(disk::metric::CHILDREN_SEE, Unit::BytesPerSecond),
            m(disk::metric::PARENT_SEES, Unit::BytesPerSecond),
            m(disk::metric::MIN_PER_WORKER, Unit::BytesPerSecond),
            m(disk::metric::MAX_PER_WORKER, Unit::BytesPerSecond),
            m(disk::metric::AVG_PER_WORKER, Unit::BytesPerSecond),
            m(disk::metric::MIN_XFER, Unit::Bytes),
            m(disk::metric::ROUND_IOPS, Unit::OpsPerSecond),
        ],
        labels: &[
            of(
                disk::label::TEST,
                &[
                    disk::test::WRITE,
                    disk::test::REWRITE,
                    disk::test::READ,
                    disk::test::REREAD,
                    disk::test::RANDOM_READ,
                    disk::test::RANDOM_WRITE,
                    disk::test::BACKWARD_READ,
                    disk::test::RECORD_REWRITE,
                    disk::test::STRIDE_READ,
                    disk::test::FWRITE,
                    disk::test::FREWRITE,
                    disk::test::FREAD,
                    disk::test::FREREAD,
                    disk::test::PWRITE,
                    disk::test::PREAD,
                    disk::test::MIXED,
                ],
            ),
            open(disk::label::FILE_SIZE),
            open(disk::label::RECORD),
            open(disk::label::WORKERS),
            open(disk::label::ROUND),
        ],
    },
    BenchSpec {
        id: disk::DD,
        metrics: &[
            m(disk::metric::BYTES, Unit::Bytes),
            m(disk::metric::SECONDS, Unit::Seconds),
            m(disk::metric::BANDWIDTH, Unit::BytesPerSecond),
        ],
        // dd writes once without and once with a final fdatasync.
        labels: &[of(
            disk::label::SYNC,
            &[disk::sync::NONE, disk::sync::FDATASYNC],
        )],
    },
    BenchSpec {
        id: disk::BLOCKS,
        metrics: &[
            m(disk::metric::BANDWIDTH, Unit::BytesPerSecond),
            m(disk::metric::LATENCY, Unit::Seconds),
            m(disk::metric::IOPS, Unit::OpsPerSecond),
            m(disk::metric::ROUND_IOPS, Unit::OpsPerSecond),
        ],
        labels: &[
            of(
                disk::label::OP,
                &[
                    disk::op::SEQ_READ,
                    disk::op::RAND_READ,
                    disk::op::READ_WRITE,
                ],
            ),
            open(disk::label::BLOCK),
            open(THREADS),
            open(disk::label::ROUND),
        ],
    },
    BenchSpec {
        id: net::TCP,
        metrics: &[
            m(net::metric::BYTES, Unit::Bytes),
            m(net::metric::THROUGHPUT, Unit::BytesPerSecond),
            m(net::metric::RETRANSMITS, Unit::Count),
            m(net::metric::SND_CWND_MAX, Unit::Bytes),
            m(net::metric::RTT, Unit::Seconds),
            m(net::metric::CPU, Unit::Percent),
            m(net::metric::THREAD_CPU, Unit::Percent),
        ],
        labels: NET_THROUGHPUT_LABELS,
    },
    BenchSpec {
        id: net::UDP,
        metrics: &[
            m(net::metric::BYTES, Unit::Bytes),
            m(net::metric::THROUGHPUT, Unit::BytesPerSecond),
            m(net::metric::PACKETS_SENT, Unit::Count),
            m(net::metric::PACKETS_RECEIVED, Unit::Count),
            m(net::metric::LOST_PACKETS, Unit::Count),
            m(net::metric::LOST_PERCENT, Unit::Percent),
            m(net::metric::OUT_OF_ORDER, Unit::Count),
            m(net::metric::JITTER, Unit::Seconds),
            m(net::metric::CPU, Unit::Percent),
            m(net::metric::THREAD_CPU, Unit::Percent),
        ],
        labels: NET_THROUGHPUT_LABELS,
    },
    BenchSpec {
        id: net::PINGPONG,
        metrics: &[
            m(net::metric::ROUND_TRIPS, Unit::OpsPerSecond),
            m(LATENCY_P50, Unit::Seconds),
            m(LATENCY_P99, Unit::Seconds),
            m(LATENCY_P999, Unit::Seconds),
            m(LATENCY_MAX, Unit::Seconds),
            m(net::metric::LOST, Unit::Count),
        ],
        labels: &[
            of(
                net::label::PROTOCOL,
                &[net::protocol::TCP, net::protocol::UDP],
            ),
            open(SIZE),
            open(THREADS),
        ],
    },
    BenchSpec {
        id: http::LOAD,
        metrics: &[
            m(load::TIME_TAKEN, Unit::Seconds),
            m(load::REQUESTS_COMPLETED, Unit::Count),
            m(load::REQUESTS_FAILED, Unit::Count),
            m(load::NON_2XX, Unit::Count),
            m(load::CONNECTIONS_OPENED, Unit::Count),
            m(load::REQUESTS_SENT, Unit::Count),
            m(load::SENT_LATE, Unit::Count),
            m(load::REQUESTS_PER_SECOND, Unit::OpsPerSecond),
            m(load::TIME_PER_REQUEST, Unit::Seconds),
            m(load::TRANSFER_RATE, Unit::BytesPerSecond),
            m(load::TOTAL_TRANSFERRED, Unit::Bytes),
            m(load::HTML_TRANSFERRED, Unit::Bytes),
            m(load::CONNECTION_TIME, Unit::Seconds),
            m(load::SERVED_WITHIN, Unit::Seconds),
            m(load::LATENCY, Unit::Seconds),
            m(load::REPLIES, Unit::Count),
            m(load::FAILED_REQUESTS, Unit::Count),
            m(load::ERRORS, Unit::Count),
            m(load::REPLY_RATE, Unit::OpsPerSecond),
            m(load::REPLY_RATE_SAMPLES, Unit::Count),
            m(load::CLIENT_CPU_TIME, Unit::Seconds),
            m(load::CLIENT_CPU_UTILIZATION, Unit::Percent),
            m(load::CLIENT_CPU_PER_REQUEST, Unit::Seconds),
            m(load::NET_IO, Unit::Bytes),
            m(load::NET_IO_RATE, Unit::BytesPerSecond),
            SERVER_THREAD_CPU,
            SERVER_THREAD_WAIT,
            SERVER_THREAD_REQUESTS,
        ],
        labels: &[
            of(load::label::LATENCY, &[load::CORRECTED, load::UNCORRECTED]),
            // wrk2's percentiles, `max` and `mean`.
            open(PERCENTILE),
            of(
                load::label::SCOPE,
                &[load::SCOPE_MEAN, load::SCOPE_ACROSS_ALL],
            ),
            of(load::label::PHASE, &load::PHASES),
            of(load::label::STAT, &LOAD_STATS),
            // ab's served-within percentages.
            open(load::label::PERCENT),
            of(load::label::CLASS, &load::STATUS_CLASSES),
            of(load::label::KIND, &LOAD_KINDS),
            of(load::label::MODE, &[load::MODE_USER, load::MODE_SYS]),
            of(
                load::label::DIRECTION,
                &[load::DIRECTION_IN, load::DIRECTION_OUT],
            ),
            open(in_process::THREAD),
        ],
    },
    BenchSpec {
        id: http::SWEEP,
        metrics: &[
            m(sweep::RATE, Unit::OpsPerSecond),
            m(sweep::PERCENT_OF_FIRST, Unit::Percent),
            m(sweep::LATENCY_AVG, Unit::Seconds),
            m(sweep::LATENCY_MIN, Unit::Seconds),
            m(sweep::LATENCY_MAX, Unit::Seconds),
            m(sweep::REQUESTS, Unit::Count),
            m(sweep::ERRORS, Unit::Count),
            m(sweep::THROUGHPUT, Unit::BytesPerSecond),
            m(sweep::MACHINE_CPU, Unit::Percent),
            m(sweep::CLIENT_CPU, Unit::Percent),
            m(sweep::SATURATION_RATE, Unit::OpsPerSecond),
            SERVER_THREAD_CPU,
            SERVER_THREAD_WAIT,
            SERVER_THREAD_REQUESTS,
        ],
        labels: &[open(sweep::USERS), open(in_process::THREAD)],
    },
    BenchSpec {
        id: http::DOWNLOAD,
        metrics: &[
            m(download::BYTES, Unit::Bytes),
            m(download::THROUGHPUT, Unit::BytesPerSecond),
            m(download::THROUGHPUT_MAX, Unit::BytesPerSecond),
            m(download::TIME, Unit::Seconds),
            m(download::FIRST_BYTE, Unit::Seconds),
            m(download::CONNECT, Unit::Seconds),
            SERVER_THREAD_CPU,
            SERVER_THREAD_WAIT,
            SERVER_THREAD_REQUESTS,
        ],
        labels: &[open(in_process::THREAD)],
    },
    BenchSpec {
        id: db::AS3AP,
        metrics: &[
            m(db::metric::ROWS, Unit::Count),
            m(db::metric::LOAD_SECONDS, Unit::Seconds),
            m(db::metric::LOAD_ROWS_PER_SECOND, Unit::OpsPerSecond),
            m(db::metric::INDEX_SECONDS, Unit::Seconds),
            m(db::metric::PRELOAD_SECONDS, Unit::Seconds),
            m(db::metric::QUERIES_PER_SECOND, Unit::OpsPerSecond),
            m(db::metric::QUERIES, Unit::Count),
            m(db::metric::QUERY_SECONDS, Unit::Seconds),
            m(db::metric::QUERY_ROWS, Unit::Count),
            m(db::metric::STEP_SECONDS, Unit::Seconds),
            m(db::metric::STEP_ROWS, Unit::Count),
            m(db::metric::QUERY_ROWS_EXPECTED, Unit::Count),
            m(db::metric::REFUSED, Unit::Count),
            m(db::metric::ERRORS, Unit::Count),
            m(db::metric::OLTP_UPDATES, Unit::Count),
            m(db::metric::SIGNED_DELTA, Unit::Count),
            m(db::metric::RESTORE_SECONDS, Unit::Seconds),
            m(db::metric::SECONDS, Unit::Seconds),
            m(db::metric::EQUIVALENT_SIZE, Unit::Bytes),
            m(db::metric::EQUIVALENT_ROWS_PER_TABLE, Unit::Count),
            m(db::metric::SEARCH_SECONDS, Unit::Seconds),
            m(db::metric::TRIAL_SIZE, Unit::Bytes),
            m(db::metric::TRIAL_ROWS_PER_TABLE, Unit::Count),
            m(db::metric::TRIAL_SECONDS, Unit::Seconds),
            m(db::metric::TRIAL_WITHIN_LIMIT, Unit::Count),
            m(db::metric::TEST_SECONDS, Unit::Seconds),
            m(LATENCY_P50, Unit::Seconds),
            m(LATENCY_P90, Unit::Seconds),
            m(LATENCY_P99, Unit::Seconds),
            m(LATENCY_P999, Unit::Seconds),
            m(LATENCY_MEAN, Unit::Seconds),
            m(LATENCY_MAX, Unit::Seconds),
        ],
        labels: &[
            of(
                db::label::TABLE,
                &[
                    db::table::UNIQUES,
                    db::table::HUNDRED,
                    db::table::TENPCT,
                    db::table::UPDATES,
                    db::table::TINY,
                    db::label::ALL,
                ],
            ),
            // `as3ap_<table>_<column>`, or `all`.
            open(db::label::INDEX),
            // The AS3AP query names of the db crate's query sets.
            open(db::label::QUERY),
            // The statement of a single-user test.
            open(db::label::STEP),
            of(
                db::label::USER,
                &[db::label::ALL, db::label::MEASURED, db::label::BACKGROUND],
            ),
            of(
                db::label::KIND,
                &[db::label::BUSY, db::label::DEADLOCK, db::label::OTHER],
            ),
            // The equivalent-size search: its trials, numbered from 1, and
            // the phases timed at the equivalent size.
            open(db::label::TRIAL),
            of(
                db::label::TEST,
                &[
                    db::test::LOAD,
                    db::test::SINGLE,
                    db::test::IR,
                    db::test::IR_OLTP,
                    db::test::CROSS_IR,
                    db::test::CROSS_OLTP,
                ],
            ),
        ],
    },
    BenchSpec {
        id: db::TPCC,
        metrics: &[
            m(db::metric::ROWS, Unit::Count),
            m(db::metric::LOAD_SECONDS, Unit::Seconds),
            m(db::metric::LOAD_ROWS_PER_SECOND, Unit::OpsPerSecond),
            m(db::metric::INDEX_SECONDS, Unit::Seconds),
            m(db::metric::SECONDS, Unit::Seconds),
            m(db::tpcc::metric::NOPM, Unit::Count),
            m(db::tpcc::metric::TPM, Unit::Count),
            m(db::tpcc::metric::TRANSACTIONS, Unit::Count),
            m(
                db::tpcc::metric::TRANSACTIONS_PER_SECOND,
                Unit::OpsPerSecond,
            ),
            m(db::tpcc::metric::ROLLBACKS, Unit::Count),
            m(db::tpcc::metric::RETRIES, Unit::Count),
            m(db::tpcc::metric::FAILURES, Unit::Count),
            m(db::tpcc::metric::CHECK_PASSED, Unit::Count),
            m(LATENCY_P50, Unit::Seconds),
            m(LATENCY_P90, Unit::Seconds),
            m(LATENCY_P99, Unit::Seconds),
            m(LATENCY_P999, Unit::Seconds),
            m(LATENCY_MEAN, Unit::Seconds),
            m(LATENCY_MAX, Unit::Seconds),
        ],
        labels: &[
            of(
                db::label::TABLE,
                &[
                    db::tpcc::table::WAREHOUSE,
                    db::tpcc::table::DISTRICT,
                    db::tpcc::table::CUSTOMER,
                    db::tpcc::table::HISTORY,
                    db::tpcc::table::NEW_ORDER,
                    db::tpcc::table::ORDERS,
                    db::tpcc::table::ORDER_LINE,
                    db::tpcc::table::ITEM,
                    db::tpcc::table::STOCK,
                    db::label::ALL,
                ],
            ),
            // go-tpc's index names, `<table>_pkey` (PostgreSQL), or `all`.
            open(db::label::INDEX),
            of(
                db::tpcc::label::TXN,
                &[
                    db::tpcc::txn::NEW_ORDER,
                    db::tpcc::txn::PAYMENT,
                    db::tpcc::txn::ORDER_STATUS,
                    db::tpcc::txn::DELIVERY,
                    db::tpcc::txn::STOCK_LEVEL,
                    db::label::ALL,
                ],
            ),
            of(
                db::label::KIND,
                &[
                    db::label::DEADLOCK,
                    db::label::SERIALIZATION,
                    db::label::BUSY,
                ],
            ),
            // The clause of 3.3.2 each condition is.
            open(db::tpcc::label::CHECK),
        ],
    },
    BenchSpec {
        id: scan::SCAN,
        metrics: &[
            m(scan::metric::FINDINGS, Unit::Count),
            m(scan::metric::REQUESTS, Unit::Count),
            m(scan::metric::TLS_HANDSHAKES, Unit::Count),
            m(scan::metric::SECONDS, Unit::Seconds),
            m(scan::metric::PAGES_CRAWLED, Unit::Count),
        ],
        labels: &[of(
            scan::label::SEVERITY,
            &[
                scan::severity::INFO,
                scan::severity::LOW,
                scan::severity::MEDIUM,
                scan::severity::HIGH,
            ],
        )],
    },
    BenchSpec {
        id: energy::IDLE,
        metrics: &[
            m(energy::metric::ENERGY, Unit::Joules),
            m(energy::metric::POWER, Unit::Watts),
        ],
        labels: &[],
    },
    BenchSpec {
        id: fleet::LINKS,
        metrics: &[
            m(fleet::metric::BANDWIDTH, Unit::BytesPerSecond),
            m(fleet::metric::LATENCY, Unit::Seconds),
        ],
        // Host names.
        labels: &[open(fleet::label::SERVER), open(fleet::label::CLIENT)],
    },
    BenchSpec {
        id: burnin::CHECKPOINT,
        metrics: &[
            m(burnin_metric::ITERATIONS, Unit::Count),
            m(burnin_metric::ERRORS, Unit::Count),
            // The workload's unit: flop/s for cpu, op/s for http (see the
            // module's notes).
            m(burnin_metric::THROUGHPUT_MEAN, Unit::BytesPerSecond),
            m(burnin_metric::THROUGHPUT_MIN, Unit::BytesPerSecond),
            m(burnin_metric::THROUGHPUT_MAX, Unit::BytesPerSecond),
            m(burnin_metric::BASELINE_MEDIAN, Unit::BytesPerSecond),
            m(burnin_metric::PERCENT_OF_BASELINE, Unit::Percent),
            m(burnin_metric::POWER_MEDIAN, Unit::Watts),
            m(burnin_metric::POWER_BASELINE_MEDIAN, Unit::Watts),
            m(burnin_metric::POWER_PERCENT_OF_BASELINE, Unit::Percent),
        ],
        labels: &[],
    },
];

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
