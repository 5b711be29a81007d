//! One GPU made ready to measure: the driver, its primary context current
//! on this thread, what it is (from the inventory's NVML section, matched
//! by PCI bus id), and the kernels compiled for it.

use nodebench_core::BenchResult;
use nodebench_core::bench::{BenchError, Context};
use nodebench_core::inventory::{GpuInfo, Inventory};
use nodebench_core::names::gpu::param;
use nodebench_nvidia::cuda::{self, CuDevice, Driver, Function, attr};
use nodebench_nvidia::nvml::normalise_bus_id;

use crate::kernels;
use crate::toolkit::Nvrtc;

/// A GPU with its context current.
pub struct Gpu {
    pub driver: &'static Driver,
    pub ordinal: u32,
    pub device: CuDevice,
    /// What NVML and the driver say of it.
    pub info: GpuInfo,
    /// Compute capability.
    pub major: i32,
    pub minor: i32,
}

/// The driver, or the one line saying why there is none.
pub fn driver() -> Result<&'static Driver, crate::Error> {
    Ok(cuda::driver()?)
}

/// The GPUs to measure: `chosen`, else every one the driver sees; an
/// ordinal past the last is an error naming `--gpus`.
pub fn ordinals(chosen: Option<&[u32]>) -> Result<Vec<u32>, crate::Error> {
    let n = driver()?.device_count()?;
    if n == 0 {
        return Err(crate::Error::Missing(
            "no NVIDIA GPU: the driver lists none".into(),
        ));
    }
    match chosen {
        None => Ok((0..n).collect()),
        Some(list) => {
            if let Some(bad) = list.iter().find(|g| **g >= n) {
                return Err(crate::Error::Failed(format!(
                    "--gpus: GPU {bad} does not exist (this machine has {n}: 0..{})",
                    n - 1
                )));
            }
            Ok(list.to_vec())
        }
    }
}

impl Gpu {
    /// Opens GPU `ordinal` and makes its context current.
    pub fn open(ordinal: u32, inventory: &Inventory) -> Result<Gpu, crate::Error> {
        let driver = driver()?;
        let device = driver.device(ordinal)?;
        driver.use_device(device)?;
        let bus = driver.pci_bus_id(device).and_then(|b| normalise_bus_id(&b));
        let from_inventory = inventory.gpus.as_ref().and_then(|g| {
            g.devices
                .iter()
                .find(|d| {
                    d.pci_bus_id.as_deref().and_then(normalise_bus_id) == bus && bus.is_some()
                })
                .cloned()
        });
        let mut info = from_inventory.unwrap_or_default();
        info.name = info.name.or_else(|| driver.name(device));
        info.memory_bytes = info.memory_bytes.or_else(|| driver.total_memory(device));
        info.sms = info.sms.or_else(|| {
            driver
                .attribute(device, attr::MULTIPROCESSOR_COUNT)
                .map(|v| v as u32)
        });
        info.l2_bytes = info.l2_bytes.or_else(|| {
            driver
                .attribute(device, attr::L2_CACHE_SIZE)
                .map(|v| v as u64)
        });
        // Without NVML, the driver's (deprecated) clock and bus figures.
        info.max_sm_clock_mhz = info.max_sm_clock_mhz.or_else(|| {
            driver
                .attribute(device, attr::CLOCK_RATE_KHZ)
                .map(|k| k as u32 / 1000)
        });
        info.max_memory_clock_mhz = info.max_memory_clock_mhz.or_else(|| {
            driver
                .attribute(device, attr::MEMORY_CLOCK_RATE_KHZ)
                .map(|k| k as u32 / 1000)
        });
        info.memory_bus_bits = info.memory_bus_bits.or_else(|| {
            driver
                .attribute(device, attr::GLOBAL_MEMORY_BUS_WIDTH)
                .map(|v| v as u32)
        });
        let major = driver
            .attribute(device, attr::COMPUTE_CAPABILITY_MAJOR)
            .unwrap_or(0);
        let minor = driver
            .attribute(device, attr::COMPUTE_CAPABILITY_MINOR)
            .unwrap_or(0);
        info.compute_capability = Some(format!("{major}.{minor}"));
        Ok(Gpu {
            driver,
            ordinal,
            device,
            info,
            major,
            minor,
        })
    }

    /// "0: NVIDIA H200".
    pub fn label(&self) -> String {
        format!(
            "{}: {}",
            self.ordinal,
            self.info.name.as_deref().unwrap_or("unknown GPU")
        )
    }

    /// The stream kernels compiled for this GPU, in [`kernels::NAMES`]'
    /// order, and NVRTC's description.
    pub fn kernels(&self) -> Result<(Vec<Function>, String), crate::Error> {
        let nvrtc = Nvrtc::open()?;
        let cubin = nvrtc.compile(kernels::SOURCE, self.major, self.minor)?;
        Ok((
            self.driver.load_module(&cubin, &kernels::NAMES)?,
            nvrtc.describe(),
        ))
    }
}

/// Runs `measure` on each GPU of `chosen` (all where `None`), one result
/// of benchmark `id` each: failed with the error where opening the GPU or
/// measuring fails, cancelled where the run was stopped meanwhile.
pub fn run_each(
    id: &str,
    chosen: Option<&[u32]>,
    ctx: &mut Context<'_>,
    mut measure: impl FnMut(&Gpu, &mut Context<'_>, &mut BenchResult) -> Result<(), crate::Error>,
) -> Result<(), BenchError> {
    for g in ordinals(chosen)? {
        if ctx.cancel.is_cancelled() {
            break;
        }
        // The counters at the result's start (energy, disturbance): the
        // driver's start-up before it is not the result's.
        ctx.sink.boundary();
        let mut result = BenchResult::new(id);
        let outcome = Gpu::open(g, ctx.inventory).and_then(|gpu| {
            if let Some(bus) = gpu
                .driver
                .pci_bus_id(gpu.device)
                .and_then(|b| normalise_bus_id(&b))
            {
                result.set_param(param::BUS_ID, bus);
            }
            measure(&gpu, ctx, &mut result)
        });
        if let Err(e) = outcome {
            result.mark_failed(e.to_string());
        } else if ctx.cancel.is_cancelled() {
            result.mark_cancelled();
        }
        ctx.record(result)?;
    }
    Ok(())
}
