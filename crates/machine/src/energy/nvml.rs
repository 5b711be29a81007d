//! NVML's total-energy counter per GPU (`nvmlDeviceGetTotalEnergyConsumption`,
//! millijoules since the driver loaded; Volta and later): exact joules
//! between two readings. A GPU without the counter is left out with a note.

use nodebench_core::names::energy::{scope, source};

use super::{Found, Reader, Source};
use crate::gpu::zero_pci;
use nodebench_nvidia::nvml::{self, Device, ask, normalise_bus_id};

/// How the source is read, for the inventory.
pub const HOW: &str = "nvmlDeviceGetTotalEnergyConsumption (mJ counter since the driver loaded)";

/// GPU `index`'s energy counter in joules; `None` where NVML or the entry
/// point is missing or fails.
pub fn energy_j(index: u32) -> Option<f64> {
    let n = nvml::nvml().ok()?;
    let mut d: Device = std::ptr::null_mut();
    ask!(n, handle, index, &mut d)?;
    let mut mj: u64 = 0;
    ask!(n, total_energy, d, &mut mj)?;
    Some(mj as f64 / 1e3)
}

/// Adds a source per GPU whose counter reads.
pub fn discover(found: &mut Found) {
    let Ok(n) = nvml::nvml() else {
        return;
    };
    if n.api.total_energy.is_none() {
        found
            .notes
            .push("NVML has no nvmlDeviceGetTotalEnergyConsumption".into());
        return;
    }
    for (index, d) in n.devices().into_iter().enumerate() {
        let index = index as u32;
        if energy_j(index).is_none() {
            found
                .notes
                .push(format!("GPU {index}: NVML gives no energy counter"));
            continue;
        }
        let mut pci = zero_pci();
        let bus_id = ask!(n, pci_info, d, &mut pci)
            .and_then(|_| nvml::cstr(&pci.bus_id))
            .and_then(|b| normalise_bus_id(&b));
        found.sources.push(Source {
            source: source::NVML,
            scope: scope::GPU,
            sensor: sensor(index),
            how: HOW.into(),
            bus_id,
            nested: false,
            shortest: super::NVML_SHORTEST,
            reader: Reader::Counter {
                read: Box::new(move || energy_j(index)),
                range: None,
            },
        });
    }
}

/// The sensor name of NVML's GPU `index`.
pub fn sensor(index: u32) -> String {
    format!("gpu{index}")
}
