//! `gpu bandwidth`: host-to-device and device-to-host copies as nvbandwidth
//! measures them, from pinned memory (asynchronous copies on a stream,
//! timed with events) and pageable memory (the driver stages it; timed on
//! the host), one direction and both at once on two streams; the host
//! memory placed on the GPU's closest NUMA node where the machine says
//! which, and on a far one where there is one; and where several GPUs are
//! measured, device-to-device copies to each other one, one way and both
//! ways at once. The figure is the median of `--repeats` copies.

use std::ffi::c_void;
use std::time::Instant;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::Buffer;
use nodebench_core::config::Config;
use nodebench_core::names::gpu::{self as names, direction, host_memory, label, metric, param};
use nodebench_core::{BenchResult, Better, Metric, Unit, affinity, cpulist, stats};

use crate::config::BandwidthConfig;
use crate::device::{self, Gpu};
use nodebench_nvidia::cuda::{CuContext, Stream};

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
) -> Result<(), crate::Error> {
    let d = gpu.driver;
    let bytes = c.bytes as usize;
    result.set_param(param::GPU, gpu.label());
    result.set_param(param::COPY_BYTES, c.bytes);
    result.set_param(
        param::METHOD,
        "pinned: cuMemcpyHtoDAsync / DtoHAsync of --size on a stream, timed with events; pageable: cuMemcpyHtoDAsync / DtoHAsync from ordinary memory on a stream (the driver stages it), timed on the host until the stream is done, as nvbandwidth and PyTorch copy; both: the two directions at once on two streams, the sum of their bytes over the time both took; each figure the median of --repeats copies; host memory page-aligned and first-touched by a thread on the node's CPUs",
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
        // Ordinary 4 KiB pages, page-aligned (a copy's partial first page
        // is not what is measured), written before the copies.
        let pageable = Buffer::<u8>::new(bytes, false, "--size")
            .map_err(|e| crate::Error::Failed(e.to_string()))?;
        // SAFETY: the one slice of the buffer, written before any read.
        unsafe { pageable.part(0..bytes) }.fill(3);
        let mut figure = |dir: &str,
                          mem: &str,
                          secs: &mut dyn FnMut() -> Result<f64, crate::Error>,
                          moved: usize|
         -> Result<(), crate::Error> {
            let m = copy_figure(gpu, dir, c.repeats, moved, secs)?;
            result.metrics.push(
                m.label(label::HOST_MEMORY, mem)
                    .label(label::HOST_NODE, &node),
            );
            Ok(())
        };
        let (pa, pb) = (pinned_a.ptr as *mut c_void, pinned_b.ptr as *mut c_void);
        let api = &d.api;
        let timed = |f: &dyn Fn() -> i32, call: &str| -> Result<f64, crate::Error> {
            d.record(e0, s1)?;
            d.check(call, f())?;
            d.record(e1, s1)?;
            Ok(d.elapsed(e0, e1)?)
        };
        // SAFETY (every copy below): host and device buffers of `bytes`.
        figure(
            direction::HOST_TO_DEVICE,
            host_memory::PINNED,
            &mut || {
                timed(
                    // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
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
                    // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
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
                // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
                d.check("cuMemcpyHtoDAsync_v2", unsafe {
                    (api.memcpy_htod_async)(dev_a.ptr, pa, bytes, s1.raw())
                })?;
                // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
                d.check("cuMemcpyDtoHAsync_v2", unsafe {
                    (api.memcpy_dtoh_async)(pb, dev_b.ptr, bytes, s2.raw())
                })?;
                // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
                d.check("cuStreamSynchronize", unsafe {
                    (api.stream_synchronize)(s1.raw())
                })?;
                // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
                d.check("cuStreamSynchronize", unsafe {
                    (api.stream_synchronize)(s2.raw())
                })?;
                Ok(t.elapsed().as_secs_f64())
            },
            2 * bytes,
        )?;
        let host = pageable.as_ptr() as *mut c_void;
        figure(
            direction::HOST_TO_DEVICE,
            host_memory::PAGEABLE,
            &mut || {
                let t = Instant::now();
                // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
                d.check("cuMemcpyHtoDAsync_v2", unsafe {
                    (api.memcpy_htod_async)(dev_a.ptr, host, bytes, s1.raw())
                })?;
                // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
                d.check("cuStreamSynchronize", unsafe {
                    (api.stream_synchronize)(s1.raw())
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
                // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
                d.check("cuMemcpyDtoHAsync_v2", unsafe {
                    (api.memcpy_dtoh_async)(host, dev_a.ptr, bytes, s1.raw())
                })?;
                // SAFETY: host and device buffers of `bytes` each, alive for the call, on a live stream.
                d.check("cuStreamSynchronize", unsafe {
                    (api.stream_synchronize)(s1.raw())
                })?;
                Ok(t.elapsed().as_secs_f64())
            },
            bytes,
        )?;
        drop(pageable);
    }
    affinity::pin_current_thread_to(&before);
    let peers: Vec<u32> = device::ordinals(c.gpus.as_deref())?
        .into_iter()
        .filter(|p| *p != gpu.ordinal)
        .collect();
    if !peers.is_empty() && !ctx.cancel.is_cancelled() {
        peer_copies(gpu, &peers, c, result)?;
    }
    Ok(())
}

/// A copy's figure: one warm-up, then the median of `repeats` timings of
/// `copy` (seconds each), as `moved` bytes per second, labelled with the
/// GPU and the direction.
fn copy_figure(
    gpu: &Gpu,
    dir: &str,
    repeats: u32,
    moved: usize,
    copy: &mut dyn FnMut() -> Result<f64, crate::Error>,
) -> Result<Metric, crate::Error> {
    copy()?;
    let t: Vec<f64> = (0..repeats).map(|_| copy()).collect::<Result<_, _>>()?;
    let med = stats::Stats::from_samples(&t).map_or(f64::NAN, |s| s.median);
    Ok(Metric::new(
        metric::BANDWIDTH,
        moved as f64 / med,
        Unit::BytesPerSecond,
        Better::Higher,
    )
    .label(label::GPU, gpu.ordinal)
    .label(label::DIRECTION, dir))
}

/// Device-to-device copies from `gpu` to each of `peers` and both ways at
/// once (cuMemcpyPeerAsync, direct where the GPUs can reach each other,
/// else staged by the driver), as nvbandwidth's device_to_device tests.
fn peer_copies(
    gpu: &Gpu,
    peers: &[u32],
    c: &BandwidthConfig,
    result: &mut BenchResult,
) -> Result<(), crate::Error> {
    let d = gpu.driver;
    let bytes = c.bytes as usize;
    let here = d.context(gpu.device)?;
    let (s1, s2) = (d.stream()?, d.stream()?);
    let (e0, e1) = (d.event()?, d.event()?);
    let mine = (d.alloc(bytes)?, d.alloc(bytes)?);
    let mut access = Vec::new();
    for &p in peers {
        let dev = d.device(p)?;
        let there = d.context(dev)?;
        let direct = d.can_access_peer(gpu.device, dev) && d.can_access_peer(dev, gpu.device);
        // Their buffers, allocated in their context; then back to ours.
        d.use_device(dev)?;
        if direct {
            d.enable_peer_access(here)?;
        }
        let theirs = (d.alloc(bytes), d.alloc(bytes));
        d.use_device(gpu.device)?;
        let theirs = (theirs.0?, theirs.1?);
        if direct {
            d.enable_peer_access(there)?;
        }
        access.push(format!(
            "{p}: {}",
            if direct {
                "direct"
            } else {
                "staged through the host"
            }
        ));
        let copy = |dst: u64, dst_ctx: CuContext, src: u64, src_ctx: CuContext, s: Stream| {
            // SAFETY: device buffers of `bytes` in the contexts named.
            d.check("cuMemcpyPeerAsync", unsafe {
                (d.api.memcpy_peer_async)(dst, dst_ctx.raw(), src, src_ctx.raw(), bytes, s.raw())
            })
        };
        let one = || -> Result<f64, crate::Error> {
            d.record(e0, s1)?;
            copy(theirs.0.ptr, there, mine.0.ptr, here, s1)?;
            d.record(e1, s1)?;
            Ok(d.elapsed(e0, e1)?)
        };
        let both = || -> Result<f64, crate::Error> {
            let t = Instant::now();
            copy(theirs.0.ptr, there, mine.0.ptr, here, s1)?;
            copy(mine.1.ptr, here, theirs.1.ptr, there, s2)?;
            for s in [s1, s2] {
                // SAFETY: a stream of this context.
                d.check("cuStreamSynchronize", unsafe {
                    (d.api.stream_synchronize)(s.raw())
                })?;
            }
            Ok(t.elapsed().as_secs_f64())
        };
        for (dir, f, moved) in [
            (
                direction::PEER,
                &one as &dyn Fn() -> Result<f64, crate::Error>,
                bytes,
            ),
            (direction::PEER_BOTH, &both, 2 * bytes),
        ] {
            let m = copy_figure(gpu, dir, c.repeats, moved, &mut || f())?;
            result.metrics.push(m.label(label::PEER, p));
        }
    }
    result.set_param(param::PEER_ACCESS, access.join(", "));
    Ok(())
}
