//! NVML (`libnvidia-ml.so.1`), opened at run time: what each GPU is (for
//! the inventory) and what it is doing (for telemetry). An entry point an
//! older driver lacks is `None`, and its figure unknown.

#![allow(clippy::macro_metavars_in_unsafe)]

use std::ffi::{CStr, c_char, c_int, c_uint};
use std::sync::OnceLock;

use crate::Error;
use crate::libs::{self, Loaded};

pub type Ret = c_int;
pub type Device = *mut std::ffi::c_void;
pub type EventSet = *mut std::ffi::c_void;

/// `nvmlEventData_t`.
#[repr(C)]
pub struct EventData {
    pub device: Device,
    pub event_type: u64,
    pub event_data: u64,
    pub gpu_instance_id: c_uint,
    pub compute_instance_id: c_uint,
}

/// `nvmlEventTypeXidCriticalError`.
pub const EVENT_XID: u64 = 0x8;
/// `NVML_ERROR_TIMEOUT`: no event within the wait.
pub const ERROR_TIMEOUT: Ret = 10;
/// `NVML_TEMPERATURE_GPU`.
pub const TEMPERATURE_GPU: c_uint = 0;

/// `nvmlPciInfo_t` (v3).
#[repr(C)]
pub struct PciInfo {
    pub bus_id_legacy: [c_char; 16],
    pub domain: c_uint,
    pub bus: c_uint,
    pub device: c_uint,
    pub pci_device_id: c_uint,
    pub pci_sub_system_id: c_uint,
    pub bus_id: [c_char; 32],
}

/// `nvmlMemory_t`.
#[repr(C)]
#[derive(Default)]
pub struct Memory {
    pub total: u64,
    pub free: u64,
    pub used: u64,
}

/// Clock domains (`nvmlClockType_t`).
pub const CLOCK_SM: c_uint = 1;
pub const CLOCK_MEM: c_uint = 2;

macro_rules! nvml_api {
    ($($field:ident = $sym:literal : fn($($arg:ty),*);)*) => {
        /// NVML's entry points nodebench uses; each `None` where the
        /// library lacks it.
        pub struct Api {
            $(pub $field: Option<unsafe extern "C" fn($($arg),*) -> Ret>,)*
        }
        impl Api {
            /// # Safety
            /// The types are those of NVIDIA's `nvml.h`.
            unsafe fn load(lib: &Loaded) -> Api {
                // SAFETY: the types are those of NVIDIA's `nvml.h`.
                Api { $($field: unsafe { lib.symbol($sym) }.ok(),)* }
            }
        }
    };
}

nvml_api! {
    init = "nvmlInit_v2": fn();
    driver_version = "nvmlSystemGetDriverVersion": fn(*mut c_char, c_uint);
    cuda_version = "nvmlSystemGetCudaDriverVersion_v2": fn(*mut c_int);
    count = "nvmlDeviceGetCount_v2": fn(*mut c_uint);
    handle = "nvmlDeviceGetHandleByIndex_v2": fn(c_uint, *mut Device);
    name = "nvmlDeviceGetName": fn(Device, *mut c_char, c_uint);
    uuid = "nvmlDeviceGetUUID": fn(Device, *mut c_char, c_uint);
    architecture = "nvmlDeviceGetArchitecture": fn(Device, *mut c_uint);
    compute_capability = "nvmlDeviceGetCudaComputeCapability": fn(Device, *mut c_int, *mut c_int);
    memory = "nvmlDeviceGetMemoryInfo": fn(Device, *mut Memory);
    max_clock = "nvmlDeviceGetMaxClockInfo": fn(Device, c_uint, *mut c_uint);
    clock = "nvmlDeviceGetClockInfo": fn(Device, c_uint, *mut c_uint);
    bus_width = "nvmlDeviceGetMemoryBusWidth": fn(Device, *mut c_uint);
    power_limit = "nvmlDeviceGetPowerManagementLimit": fn(Device, *mut c_uint);
    power_usage = "nvmlDeviceGetPowerUsage": fn(Device, *mut c_uint);
    total_energy = "nvmlDeviceGetTotalEnergyConsumption": fn(Device, *mut u64);
    temperature = "nvmlDeviceGetTemperature": fn(Device, c_uint, *mut c_uint);
    utilization = "nvmlDeviceGetUtilizationRates": fn(Device, *mut [c_uint; 2]);
    pcie_generation = "nvmlDeviceGetMaxPcieLinkGeneration": fn(Device, *mut c_uint);
    pcie_width = "nvmlDeviceGetMaxPcieLinkWidth": fn(Device, *mut c_uint);
    ecc_mode = "nvmlDeviceGetEccMode": fn(Device, *mut c_int, *mut c_int);
    mig_mode = "nvmlDeviceGetMigMode": fn(Device, *mut c_uint, *mut c_uint);
    pci_info = "nvmlDeviceGetPciInfo_v3": fn(Device, *mut PciInfo);
    nvlink_state = "nvmlDeviceGetNvLinkState": fn(Device, c_uint, *mut c_int);
    nvlink_remote = "nvmlDeviceGetNvLinkRemotePciInfo_v2": fn(Device, c_uint, *mut PciInfo);
    handle_by_bus_id = "nvmlDeviceGetHandleByPciBusId_v2": fn(*const c_char, *mut Device);
    index = "nvmlDeviceGetIndex": fn(Device, *mut c_uint);
    total_ecc = "nvmlDeviceGetTotalEccErrors": fn(Device, c_uint, c_uint, *mut u64);
    retired_pages = "nvmlDeviceGetRetiredPages": fn(Device, c_uint, *mut c_uint, *mut u64);
    remapped_rows = "nvmlDeviceGetRemappedRows": fn(Device, *mut c_uint, *mut c_uint, *mut c_uint, *mut c_uint);
    event_reasons = "nvmlDeviceGetCurrentClocksEventReasons": fn(Device, *mut u64);
    throttle_reasons = "nvmlDeviceGetCurrentClocksThrottleReasons": fn(Device, *mut u64);
    event_set_create = "nvmlEventSetCreate": fn(*mut EventSet);
    register_events = "nvmlDeviceRegisterEvents": fn(Device, u64, EventSet);
    event_set_wait = "nvmlEventSetWait_v2": fn(EventSet, *mut EventData, c_uint);
    event_set_free = "nvmlEventSetFree": fn(EventSet);
}

/// NVML, loaded and initialised.
pub struct Nvml {
    pub api: Api,
    pub path: String,
    _lib: Loaded,
}

// SAFETY: NVML is thread-safe; the struct holds function pointers.
unsafe impl Send for Nvml {}
// SAFETY: as for Send: shared use only calls the thread-safe API.
unsafe impl Sync for Nvml {}

static NVML: OnceLock<Result<Nvml, Error>> = OnceLock::new();

/// NVML, once per process; the error is one line ("no NVIDIA driver:
/// libnvidia-ml.so.1 not found").
pub fn nvml() -> Result<&'static Nvml, Error> {
    NVML.get_or_init(|| {
        let lib = libs::open(&["libnvidia-ml.so.1", "libnvidia-ml.so"])
            .map_err(|e| Error::Missing(format!("no NVIDIA driver: {e}")))?;
        // SAFETY: nvml.h's types.
        let api = unsafe { Api::load(&lib) };
        let init = api
            .init
            .ok_or_else(|| Error::Missing("no NVIDIA driver: NVML has no nvmlInit_v2".into()))?;
        // SAFETY: no arguments.
        let r = unsafe { init() };
        if r != 0 {
            return Err(Error::Missing(format!(
                "no NVIDIA driver: nvmlInit_v2 returned {r}"
            )));
        }
        Ok(Nvml {
            api,
            path: lib.path.clone(),
            _lib: lib,
        })
    })
    .as_ref()
    .map_err(|e| e.clone())
}

/// Calls an NVML entry point that fills `T`; `None` when it is missing or
/// fails.
// Exported for the inventory, telemetry and energy readers in
// nodebench-machine; its call sites pass out-pointers and handles, the
// values the entry point takes, and the unsafe call is the FFI call itself
// (the module allows `clippy::macro_metavars_in_unsafe` for it).
#[macro_export]
macro_rules! ask {
    ($nvml:expr, $f:ident, $($arg:expr),*) => {
        $nvml.api.$f.and_then(|f| {
            // SAFETY: the arguments are nvml.h's for this entry point.
            (unsafe { f($($arg),*) } == 0).then_some(())
        })
    };
}
pub use crate::ask;

impl Nvml {
    /// The GPUs' handles.
    pub fn devices(&self) -> Vec<Device> {
        let mut n: c_uint = 0;
        if ask!(self, count, &mut n).is_none() {
            return Vec::new();
        }
        (0..n)
            .filter_map(|i| {
                let mut d: Device = std::ptr::null_mut();
                ask!(self, handle, i, &mut d).map(|_| d)
            })
            .collect()
    }

    /// A string an entry point writes into a buffer.
    ///
    /// # Safety
    /// `d` must be a handle [`Nvml::devices`] gave.
    pub unsafe fn text(
        &self,
        f: Option<unsafe extern "C" fn(Device, *mut c_char, c_uint) -> Ret>,
        d: Device,
    ) -> Option<String> {
        let f = f?;
        let mut buf = [0 as c_char; 128];
        // SAFETY: the buffer's length is passed.
        (unsafe { f(d, buf.as_mut_ptr(), buf.len() as c_uint) } == 0).then(|| cstr(&buf))?
    }

    /// An unsigned figure of a device.
    ///
    /// # Safety
    /// `d` must be a handle [`Nvml::devices`] gave.
    pub unsafe fn uint(
        &self,
        f: Option<unsafe extern "C" fn(Device, *mut c_uint) -> Ret>,
        d: Device,
    ) -> Option<u32> {
        let f = f?;
        let mut v: c_uint = 0;
        // SAFETY: writes one unsigned.
        (unsafe { f(d, &mut v) } == 0).then_some(v)
    }
}

/// A NUL-terminated buffer as trimmed text; `None` when empty.
pub fn cstr(buf: &[c_char]) -> Option<String> {
    if !buf.contains(&0) {
        return None;
    }
    // SAFETY: the buffer holds a NUL.
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .trim()
        .to_string();
    (!s.is_empty()).then_some(s)
}

/// NVML's architecture number as a name.
pub fn architecture_name(n: u32) -> Option<&'static str> {
    Some(match n {
        2 => "Kepler",
        3 => "Maxwell",
        4 => "Pascal",
        5 => "Volta",
        6 => "Turing",
        7 => "Ampere",
        8 => "Ada",
        9 => "Hopper",
        10 => "Blackwell",
        _ => return None,
    })
}

/// A PCI bus id in one form for comparing NVML's ("00000000:00:06.0") with
/// the CUDA driver's and sysfs's ("0000:00:06.0"): sysfs's, lower case.
pub fn normalise_bus_id(id: &str) -> Option<String> {
    let (domain, rest) = id.trim().split_once(':')?;
    let (bus, rest) = rest.split_once(':')?;
    let (device, function) = rest.split_once('.')?;
    let n = |s: &str| u32::from_str_radix(s, 16).ok();
    Some(format!(
        "{:04x}:{:02x}:{:02x}.{:x}",
        n(domain)?,
        n(bus)?,
        n(device)?,
        n(function)?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_ids_compare_in_one_form() {
        assert_eq!(
            normalise_bus_id("00000000:00:06.0").as_deref(),
            Some("0000:00:06.0")
        );
        assert_eq!(
            normalise_bus_id("0000:8A:00.0").as_deref(),
            Some("0000:8a:00.0")
        );
        assert_eq!(normalise_bus_id("garbage"), None);
    }

    #[test]
    fn architectures_by_nvml_number() {
        assert_eq!(architecture_name(9), Some("Hopper"));
        assert_eq!(architecture_name(7), Some("Ampere"));
        assert_eq!(architecture_name(99), None);
    }

    #[test]
    fn pci_info_has_nvml_layout() {
        assert_eq!(std::mem::size_of::<PciInfo>(), 68);
    }
}
