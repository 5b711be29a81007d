//! `gpu bandwidth`: host-to-device and device-to-host copies as nvbandwidth
//! measures them, from pinned memory (asynchronous copies on a stream,
//! timed with events) and pageable memory (the driver stages it; timed on
//! the host), one direction and both at once on two streams; the host
//! memory placed on the GPU's closest NUMA node where the machine says
//! which, and on a far one where there is one. The figure is the median
//! of `--repeats` copies.

use std::ffi::c_void;
use std::time::Instant;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::Config;
use nodebench_core::names::gpu::{self as names, direction, host_memory, label, metric, param};
use nodebench_core::{BenchResult, Better, Metric, Unit, affinity, cpulist, stats};

use crate::config::BandwidthConfig;
use crate::device::{self, Gpu};

/// The benchmark.
pub struct GpuBandwidth {
    pub config: BandwidthConfig,
}

impl Benchmark for GpuBandwidth {
    fn id(&self) -> &'static str {
        names::BANDWIDTH
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        let c = &self.config;
        device::run_each(self.id(), c.gpus.as_deref(), ctx, |gpu, ctx, result| {
            measure(gpu, c, ctx, result)
        })
    }
}

/// The host placements to copy from: (node label, CPUs to run on).
fn placements(gpu: &Gpu, ctx: &Context<'_>) -> Vec<(String, Option<Vec<usize>>)> {
    let Some(near) = gpu.info.numa_node else {
        return vec![("any".into(), None)];
    };
    let nodes = ctx
        .inventory
        .topology
        .as_ref()
        .and_then(|t| t.numa_nodes.clone())
        .unwrap_or_default();
    let cpus_of = |id: u32| -> Option<Vec<usize>> {
        let n = nodes.iter().find(|n| n.id == id)?;
        let list = cpulist::parse(&n.cpus)?;
        (!list.is_empty()).then(|| list.into_iter().map(|c| c as usize).collect())
    };
    let mut out = vec![(near.to_string(), cpus_of(near))];
    // The farthest node with CPUs, by the SLIT row of the near one.
    if let Some(n) = nodes.iter().find(|n| n.id == near) {
        let far = nodes
            .iter()
            .filter(|m| m.id != near && !m.cpus.is_empty())
            .max_by_key(|m| n.distances.get(m.id as usize).copied().unwrap_or(0));
        if let Some(f) = far {
            out.push((f.id.to_string(), cpus_of(f.id)));
        }
    }
    out
}

fn measure(
    gpu: &Gpu,
    c: &BandwidthConfig,
    ctx: &Context<'_>,
    result: &mut BenchResult,
) -> Result<(), String> {
    let d = gpu.driver;
    let bytes = c.bytes as usize;
    result.set_param(param::GPU, gpu.label());
    result.set_param(param::COPY_BYTES, c.bytes);
    result.set_param(
        param::METHOD,
        "pinned: cuMemcpyHtoDAsync / DtoHAsync of --size on a stream, timed with events; pageable: cuMemcpyHtoD / DtoH from ordinary memory, timed on the host; both: the two directions at once on two streams, the sum of their bytes over the time both took; each figure the median of --repeats copies; host memory first-touched by a thread on the node's CPUs",
    );
    let dev_a = d.alloc(bytes)?;
    let dev_b = d.alloc(bytes)?;
    let (s1, s2) = (d.stream()?, d.stream()?);
    let (e0, e1) = (d.event()?, d.event()?);
    let before = affinity::allowed_cpus();
    for (node, cpus) in placements(gpu, ctx) {
        if ctx.cancel.is_cancelled() {
            break;
        }
        if let Some(cpus) = &cpus {
            affinity::pin_current_thread_to(cpus);
        }
        let mut pinned_a = d.alloc_pinned(bytes)?;
        let mut pinned_b = d.alloc_pinned(bytes)?;
        pinned_a.as_mut_slice().fill(1);
        pinned_b.as_mut_slice().fill(2);
        let mut pageable = vec![3u8; bytes];
        let mut figure = |dir: &str,
                          mem: &str,
                          secs: &mut dyn FnMut() -> Result<f64, String>,
                          moved: usize|
         -> Result<(), String> {
            secs()?; // warm-up
            let mut t = Vec::with_capacity(c.repeats as usize);
            for _ in 0..c.repeats {
                t.push(secs()?);
            }
            let med = stats::Stats::from_samples(&t).map_or(f64::NAN, |s| s.median);
            result.metrics.push(
                Metric::new(
                    metric::BANDWIDTH,
                    moved as f64 / med,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )
                .label(label::GPU, gpu.ordinal)
                .label(label::DIRECTION, dir)
                .label(label::HOST_MEMORY, mem)
                .label(label::HOST_NODE, &node),
            );
            Ok(())
        };
        let (pa, pb) = (pinned_a.ptr as *mut c_void, pinned_b.ptr as *mut c_void);
        let api = &d.api;
        let timed = |f: &dyn Fn() -> i32, call: &str| -> Result<f64, String> {
            d.record(e0, s1)?;
            d.check(call, f())?;
            d.record(e1, s1)?;
            d.elapsed(e0, e1)
        };
        // SAFETY (every copy below): host and device buffers of `bytes`.
        figure(
            direction::HOST_TO_DEVICE,
            host_memory::PINNED,
            &mut || {
                timed(
                    &|| unsafe { (api.memcpy_htod_async)(dev_a.ptr, pa, bytes, s1.raw()) },
                    "cuMemcpyHtoDAsync_v2",
                )
            },
            bytes,
        )?;
        figure(
            direction::DEVICE_TO_HOST,
            host_memory::PINNED,
            &mut || {
                timed(
                    &|| unsafe { (api.memcpy_dtoh_async)(pa, dev_a.ptr, bytes, s1.raw()) },
                    "cuMemcpyDtoHAsync_v2",
                )
            },
            bytes,
        )?;
        figure(
            direction::BOTH,
            host_memory::PINNED,
            &mut || {
                let t = Instant::now();
                d.check("cuMemcpyHtoDAsync_v2", unsafe {
                    (api.memcpy_htod_async)(dev_a.ptr, pa, bytes, s1.raw())
                })?;
                d.check("cuMemcpyDtoHAsync_v2", unsafe {
                    (api.memcpy_dtoh_async)(pb, dev_b.ptr, bytes, s2.raw())
                })?;
                d.check("cuStreamSynchronize", unsafe {
                    (api.stream_synchronize)(s1.raw())
                })?;
                d.check("cuStreamSynchronize", unsafe {
                    (api.stream_synchronize)(s2.raw())
                })?;
                Ok(t.elapsed().as_secs_f64())
            },
            2 * bytes,
        )?;
        let host = pageable.as_mut_ptr() as *mut c_void;
        figure(
            direction::HOST_TO_DEVICE,
            host_memory::PAGEABLE,
            &mut || {
                let t = Instant::now();
                d.check("cuMemcpyHtoD_v2", unsafe {
                    (api.memcpy_htod)(dev_a.ptr, host, bytes)
                })?;
                Ok(t.elapsed().as_secs_f64())
            },
            bytes,
        )?;
        figure(
            direction::DEVICE_TO_HOST,
            host_memory::PAGEABLE,
            &mut || {
                let t = Instant::now();
                d.check("cuMemcpyDtoH_v2", unsafe {
                    (api.memcpy_dtoh)(host, dev_a.ptr, bytes)
                })?;
                Ok(t.elapsed().as_secs_f64())
            },
            bytes,
        )?;
        drop(pageable);
    }
    affinity::pin_current_thread_to(&before);
    Ok(())
}
