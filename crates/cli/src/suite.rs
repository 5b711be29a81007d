//! The quick suite run by `nodebench run`: short, representative runs of each
//! benchmark area (CPU op rates, LINPACK at n = 1000 and 2000, STREAM, memory latency, IOzone on a 256 MiB
//! file in the temporary directory, loopback TCP and ping-pong, closed- and
//! open-model HTTP load against the built-in server), well under a
//! minute on a 2-core machine. Later areas add their entries here.

use std::time::Duration;

use nodebench_core::bench::Benchmark;
use nodebench_cpu::config::{OpsConfig, Scaling};
use nodebench_cpu::ops::CpuOps;
use nodebench_disk::iozone::{BASIC_TESTS, Iozone, IozoneConfig};
use nodebench_http::loopback::HttpLoopback;
use nodebench_linpack::Linpack;
use nodebench_linpack::config::{LinpackConfig, Sizes};
use nodebench_memory::latency::{Latency, LatencyConfig};
use nodebench_memory::stream::{Stream, StreamConfig};
use nodebench_net::loopback::Loopback;

/// The benchmarks of the quick suite, in run order.
pub fn quick() -> Vec<Box<dyn Benchmark>> {
    let ops = CpuOps {
        config: OpsConfig {
            duration: Duration::from_millis(100),
            repeats: 3,
            warmup: 1,
            scaling: vec![Scaling::Strong],
            ..OpsConfig::default()
        },
    };
    let linpack = Linpack {
        config: LinpackConfig {
            sizes: Sizes::List(vec![1000, 2000]),
            trials: 2,
            ..LinpackConfig::default()
        },
    };
    let stream = Stream {
        config: StreamConfig {
            ntimes: 5,
            ..StreamConfig::default()
        },
    };
    let latency = Latency {
        config: LatencyConfig {
            duration: Duration::from_millis(20),
            ..LatencyConfig::default()
        },
    };
    let disk = Iozone {
        config: IozoneConfig {
            file_size: 256 << 20,
            record_size: 64 << 10,
            tests: BASIC_TESTS.to_vec(),
            fsync_in_timing: true,
            purge: true,
            ..IozoneConfig::default()
        },
    };
    let net = Loopback {
        tcp_time: Duration::from_secs(2),
        pingpong_time: Duration::from_millis(200),
    };
    vec![
        Box::new(ops),
        Box::new(linpack),
        Box::new(stream),
        Box::new(latency),
        Box::new(disk),
        Box::new(net),
        // 2 s closed (c=10, keep-alive) and 2 s open (2000/s over 10
        // connections) against the built-in server on 127.0.0.1:0.
        Box::new(HttpLoopback::default()),
    ]
}
