//! The CUDA driver API (`libcuda.so.1`), opened at run time: devices and
//! their attributes, the primary context, device and pinned memory,
//! copies, modules and kernel launches, events. Every call's status is
//! checked and a failure comes back as "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY".

use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

use crate::Error;
use crate::libs::{self, Loaded};

pub type CuResult = c_int;
pub type CuDevice = c_int;
pub type CuDevicePtr = u64;
pub type Handle = *mut c_void;

/// A kernel of a loaded module.
#[derive(Debug, Clone, Copy)]
pub struct Function(Handle);
/// An event.
#[derive(Debug, Clone, Copy)]
pub struct Event(Handle);
/// A device's primary context.
#[derive(Debug, Clone, Copy)]
pub struct CuContext(Handle);

impl CuContext {
    /// The driver's handle, for the API's peer copies.
    pub fn raw(self) -> Handle {
        self.0
    }
}
/// A stream; [`Stream::DEFAULT`] is the context's default stream.
#[derive(Debug, Clone, Copy)]
pub struct Stream(Handle);

impl Stream {
    pub const DEFAULT: Stream = Stream(std::ptr::null_mut());

    /// The driver's handle, for the API's asynchronous calls.
    pub fn raw(self) -> Handle {
        self.0
    }
}

/// Device attributes (`CUdevice_attribute`).
pub mod attr {
    pub const MULTIPROCESSOR_COUNT: i32 = 16;
    pub const CLOCK_RATE_KHZ: i32 = 13;
    pub const MEMORY_CLOCK_RATE_KHZ: i32 = 36;
    pub const GLOBAL_MEMORY_BUS_WIDTH: i32 = 37;
    pub const L2_CACHE_SIZE: i32 = 38;
    pub const COMPUTE_CAPABILITY_MAJOR: i32 = 75;
    pub const COMPUTE_CAPABILITY_MINOR: i32 = 76;
}

macro_rules! driver_api {
    ($($field:ident = $sym:literal : fn($($arg:ty),*);)*) => {
        /// The driver's entry points nodebench uses.
        #[allow(non_snake_case)]
        pub struct Api {
            $(pub $field: unsafe extern "C" fn($($arg),*) -> CuResult,)*
        }
        impl Api {
            /// # Safety
            /// The types are those of CUDA's `cuda.h`.
            unsafe fn load(lib: &Loaded) -> Result<Api, Error> {
                // SAFETY: the types are those of CUDA's `cuda.h`, as `load`'s caller promises.
                Ok(Api { $($field: unsafe { lib.symbol($sym)? },)* })
            }
        }
    };
}

driver_api! {
    init = "cuInit": fn(c_uint);
    driver_get_version = "cuDriverGetVersion": fn(*mut c_int);
    device_get_count = "cuDeviceGetCount": fn(*mut c_int);
    device_get = "cuDeviceGet": fn(*mut CuDevice, c_int);
    device_get_name = "cuDeviceGetName": fn(*mut c_char, c_int, CuDevice);
    device_get_attribute = "cuDeviceGetAttribute": fn(*mut c_int, c_int, CuDevice);
    device_total_mem = "cuDeviceTotalMem_v2": fn(*mut usize, CuDevice);
    device_get_pci_bus_id = "cuDeviceGetPCIBusId": fn(*mut c_char, c_int, CuDevice);
    primary_ctx_retain = "cuDevicePrimaryCtxRetain": fn(*mut Handle, CuDevice);
    ctx_set_current = "cuCtxSetCurrent": fn(Handle);
    ctx_synchronize = "cuCtxSynchronize": fn();
    mem_get_info = "cuMemGetInfo_v2": fn(*mut usize, *mut usize);
    mem_alloc = "cuMemAlloc_v2": fn(*mut CuDevicePtr, usize);
    mem_free = "cuMemFree_v2": fn(CuDevicePtr);
    mem_alloc_host = "cuMemAllocHost_v2": fn(*mut *mut c_void, usize);
    mem_free_host = "cuMemFreeHost": fn(*mut c_void);
    memcpy_htod = "cuMemcpyHtoD_v2": fn(CuDevicePtr, *const c_void, usize);
    memcpy_dtoh = "cuMemcpyDtoH_v2": fn(*mut c_void, CuDevicePtr, usize);
    memcpy_dtod = "cuMemcpyDtoD_v2": fn(CuDevicePtr, CuDevicePtr, usize);
    memcpy_htod_async = "cuMemcpyHtoDAsync_v2": fn(CuDevicePtr, *const c_void, usize, Handle);
    memcpy_dtoh_async = "cuMemcpyDtoHAsync_v2": fn(*mut c_void, CuDevicePtr, usize, Handle);
    memset_d8 = "cuMemsetD8_v2": fn(CuDevicePtr, u8, usize);
    memcpy_peer_async = "cuMemcpyPeerAsync": fn(CuDevicePtr, Handle, CuDevicePtr, Handle, usize, Handle);
    can_access_peer = "cuDeviceCanAccessPeer": fn(*mut c_int, CuDevice, CuDevice);
    ctx_enable_peer_access = "cuCtxEnablePeerAccess": fn(Handle, c_uint);
    module_load_data = "cuModuleLoadData": fn(*mut Handle, *const c_void);
    module_get_function = "cuModuleGetFunction": fn(*mut Handle, Handle, *const c_char);
    launch_kernel = "cuLaunchKernel": fn(Handle, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, Handle, *mut *mut c_void, *mut *mut c_void);
    stream_create = "cuStreamCreate": fn(*mut Handle, c_uint);
    stream_synchronize = "cuStreamSynchronize": fn(Handle);
    event_create = "cuEventCreate": fn(*mut Handle, c_uint);
    event_record = "cuEventRecord": fn(Handle, Handle);
    event_synchronize = "cuEventSynchronize": fn(Handle);
    event_elapsed_time = "cuEventElapsedTime": fn(*mut f32, Handle, Handle);
    get_error_name = "cuGetErrorName": fn(CuResult, *mut *const c_char);
}

/// The loaded driver, initialised.
pub struct Driver {
    pub api: Api,
    pub path: String,
    _lib: Loaded,
}

// SAFETY: the driver API is thread-safe; the struct holds function pointers.
unsafe impl Send for Driver {}
// SAFETY: as for Send: shared use only calls the thread-safe API.
unsafe impl Sync for Driver {}

static DRIVER: OnceLock<Result<Driver, Error>> = OnceLock::new();

/// The driver, loaded and `cuInit` once per process; the error is one line
/// ("no NVIDIA GPU: libcuda.so.1 not found").
pub fn driver() -> Result<&'static Driver, Error> {
    DRIVER
        .get_or_init(|| {
            let lib = libs::open(&["libcuda.so.1", "libcuda.so"])
                .map_err(|e| Error::Missing(format!("no NVIDIA GPU: {e}")))?;
            // SAFETY: cuda.h's types.
            let api = unsafe { Api::load(&lib) }
                .map_err(|e| Error::Missing(format!("no usable CUDA driver: {e}")))?;
            let d = Driver {
                api,
                path: lib.path.clone(),
                _lib: lib,
            };
            // SAFETY: cuInit takes the flags 0 and no pointer.
            d.check("cuInit", unsafe { (d.api.init)(0) })
                .map_err(|e| Error::Missing(format!("no NVIDIA GPU: {e}")))?;
            Ok(d)
        })
        .as_ref()
        .map_err(|e| e.clone())
}

impl Driver {
    /// `Ok` for CUDA_SUCCESS, else "CALL: CUDA_ERROR_NAME".
    pub fn check(&self, call: &str, r: CuResult) -> Result<(), Error> {
        if r == 0 {
            return Ok(());
        }
        let mut name: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorName writes a static string's address.
        let known = unsafe { (self.api.get_error_name)(r, &mut name) } == 0 && !name.is_null();
        let text = if known {
            // SAFETY: a NUL-terminated static string.
            unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned()
        } else {
            format!("error {r}")
        };
        Err(Error::Call(format!("{call}: {text}")))
    }

    /// The driver's CUDA version ("13.0").
    pub fn version(&self) -> Option<String> {
        let mut v = 0;
        // SAFETY: writes one int.
        self.check("cuDriverGetVersion", unsafe {
            (self.api.driver_get_version)(&mut v)
        })
        .ok()?;
        Some(format!("{}.{}", v / 1000, (v % 1000) / 10))
    }

    /// How many devices the driver sees.
    pub fn device_count(&self) -> Result<u32, Error> {
        let mut n = 0;
        // SAFETY: writes one int.
        self.check("cuDeviceGetCount", unsafe {
            (self.api.device_get_count)(&mut n)
        })?;
        Ok(n.max(0) as u32)
    }

    /// Device `ordinal`.
    pub fn device(&self, ordinal: u32) -> Result<CuDevice, Error> {
        let mut d = 0;
        // SAFETY: writes one int.
        self.check("cuDeviceGet", unsafe {
            (self.api.device_get)(&mut d, ordinal as c_int)
        })?;
        Ok(d)
    }

    /// An integer attribute of `dev` (see [`attr`]).
    pub fn attribute(&self, dev: CuDevice, which: i32) -> Option<i32> {
        let mut v = 0;
        // SAFETY: writes one int.
        let r = unsafe { (self.api.device_get_attribute)(&mut v, which, dev) };
        (r == 0).then_some(v)
    }

    /// The device's name.
    pub fn name(&self, dev: CuDevice) -> Option<String> {
        let mut buf = [0 as c_char; 256];
        // SAFETY: the buffer's length is passed.
        let r = unsafe { (self.api.device_get_name)(buf.as_mut_ptr(), buf.len() as c_int, dev) };
        // SAFETY: NUL-terminated by the driver.
        (r == 0).then(|| {
            // SAFETY: the driver wrote a NUL-terminated name into `buf`.
            unsafe { CStr::from_ptr(buf.as_ptr()) }
                .to_string_lossy()
                .into_owned()
        })
    }

    /// The device's memory in bytes.
    pub fn total_memory(&self, dev: CuDevice) -> Option<u64> {
        let mut b = 0usize;
        // SAFETY: writes one size_t.
        let r = unsafe { (self.api.device_total_mem)(&mut b, dev) };
        (r == 0).then_some(b as u64)
    }

    /// The device's PCI bus id ("0000:00:06.0").
    pub fn pci_bus_id(&self, dev: CuDevice) -> Option<String> {
        let mut buf = [0 as c_char; 64];
        // SAFETY: the buffer's length is passed.
        let r =
            unsafe { (self.api.device_get_pci_bus_id)(buf.as_mut_ptr(), buf.len() as c_int, dev) };
        // SAFETY: NUL-terminated by the driver.
        (r == 0).then(|| {
            // SAFETY: the driver wrote a NUL-terminated id into `buf`.
            unsafe { CStr::from_ptr(buf.as_ptr()) }
                .to_string_lossy()
                .into_owned()
        })
    }

    /// Makes the device's primary context current on this thread.
    pub fn use_device(&self, dev: CuDevice) -> Result<(), Error> {
        let ctx = self.context(dev)?;
        // SAFETY: a context the driver gave.
        self.check("cuCtxSetCurrent", unsafe {
            (self.api.ctx_set_current)(ctx.0)
        })
    }

    /// The device's primary context (retained for the process).
    pub fn context(&self, dev: CuDevice) -> Result<CuContext, Error> {
        let mut ctx: Handle = std::ptr::null_mut();
        // SAFETY: writes one handle; the context lives for the process.
        self.check("cuDevicePrimaryCtxRetain", unsafe {
            (self.api.primary_ctx_retain)(&mut ctx, dev)
        })?;
        Ok(CuContext(ctx))
    }

    /// Whether `dev` can reach `peer`'s memory directly (NVLink or PCIe
    /// peer-to-peer).
    pub fn can_access_peer(&self, dev: CuDevice, peer: CuDevice) -> bool {
        let mut v: c_int = 0;
        // SAFETY: writes one int.
        let r = unsafe { (self.api.can_access_peer)(&mut v, dev, peer) };
        r == 0 && v == 1
    }

    /// Lets the current context reach `peer_ctx`'s memory directly; done
    /// already is fine.
    pub fn enable_peer_access(&self, peer_ctx: CuContext) -> Result<(), Error> {
        /// CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED.
        const ALREADY: CuResult = 704;
        // SAFETY: a context the driver gave, no flags.
        match unsafe { (self.api.ctx_enable_peer_access)(peer_ctx.0, 0) } {
            ALREADY => Ok(()),
            r => self.check("cuCtxEnablePeerAccess", r),
        }
    }

    /// Waits for all work of the current context.
    pub fn synchronize(&self) -> Result<(), Error> {
        // SAFETY: no arguments.
        self.check("cuCtxSynchronize", unsafe { (self.api.ctx_synchronize)() })
    }

    /// Free and total memory of the current context's device.
    pub fn memory_info(&self) -> Result<(u64, u64), Error> {
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: writes two size_t.
        self.check("cuMemGetInfo_v2", unsafe {
            (self.api.mem_get_info)(&mut free, &mut total)
        })?;
        Ok((free as u64, total as u64))
    }

    /// Loads a compiled module (CUBIN or PTX) and looks up `names`.
    pub fn load_module(&self, image: &[u8], names: &[&str]) -> Result<Vec<Function>, Error> {
        let mut module: Handle = std::ptr::null_mut();
        let mut owned = image.to_vec();
        if owned.last() != Some(&0) {
            owned.push(0);
        }
        // SAFETY: the image is a NUL-terminated PTX text or a CUBIN.
        self.check("cuModuleLoadData", unsafe {
            (self.api.module_load_data)(&mut module, owned.as_ptr() as *const c_void)
        })?;
        names
            .iter()
            .map(|n| {
                let c = CString::new(*n).map_err(|e| Error::Call(e.to_string()))?;
                let mut f: Handle = std::ptr::null_mut();
                // SAFETY: a module the driver loaded and a C string.
                self.check("cuModuleGetFunction", unsafe {
                    (self.api.module_get_function)(&mut f, module, c.as_ptr())
                })
                .map_err(|e| e.map(|m| format!("{m} ({n})")))?;
                Ok(Function(f))
            })
            .collect()
    }

    /// Launches `f` on the default stream with `args` (pointers to each
    /// argument's value).
    ///
    /// # Safety
    /// `args` must point at values of the kernel's parameter types, in
    /// order, alive for the call.
    pub unsafe fn launch(
        &self,
        f: Function,
        grid: u32,
        block: u32,
        shared: u32,
        args: &mut [*mut c_void],
    ) -> Result<(), Error> {
        // SAFETY: per the caller.
        self.check("cuLaunchKernel", unsafe {
            (self.api.launch_kernel)(
                f.0,
                grid,
                1,
                1,
                block,
                1,
                1,
                shared,
                std::ptr::null_mut(),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }

    /// A new event.
    pub fn event(&self) -> Result<Event, Error> {
        let mut e: Handle = std::ptr::null_mut();
        // SAFETY: writes one handle.
        self.check("cuEventCreate", unsafe {
            (self.api.event_create)(&mut e, 0)
        })?;
        Ok(Event(e))
    }

    /// Records `e` on `stream` (null: the default stream).
    pub fn record(&self, e: Event, stream: Stream) -> Result<(), Error> {
        // SAFETY: handles the driver gave.
        self.check("cuEventRecord", unsafe {
            (self.api.event_record)(e.0, stream.0)
        })
    }

    /// Seconds between two recorded events, once the second has happened.
    pub fn elapsed(&self, start: Event, end: Event) -> Result<f64, Error> {
        // SAFETY: handles the driver gave.
        self.check("cuEventSynchronize", unsafe {
            (self.api.event_synchronize)(end.0)
        })?;
        let mut ms = 0f32;
        // SAFETY: writes one float.
        self.check("cuEventElapsedTime", unsafe {
            (self.api.event_elapsed_time)(&mut ms, start.0, end.0)
        })?;
        Ok(f64::from(ms) / 1e3)
    }

    /// A new stream.
    pub fn stream(&self) -> Result<Stream, Error> {
        let mut s: Handle = std::ptr::null_mut();
        // SAFETY: writes one handle.
        self.check("cuStreamCreate", unsafe {
            (self.api.stream_create)(&mut s, 0)
        })?;
        Ok(Stream(s))
    }

    /// Device memory of `bytes`, freed when dropped.
    pub fn alloc(&'static self, bytes: usize) -> Result<DeviceBuffer, Error> {
        let mut p: CuDevicePtr = 0;
        // SAFETY: writes one pointer.
        self.check("cuMemAlloc_v2", unsafe {
            (self.api.mem_alloc)(&mut p, bytes.max(1))
        })?;
        Ok(DeviceBuffer {
            driver: self,
            ptr: p,
            bytes,
        })
    }

    /// Page-locked host memory of `bytes`, freed when dropped.
    pub fn alloc_pinned(&'static self, bytes: usize) -> Result<PinnedBuffer, Error> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: writes one pointer.
        self.check("cuMemAllocHost_v2", unsafe {
            (self.api.mem_alloc_host)(&mut p, bytes.max(1))
        })?;
        Ok(PinnedBuffer {
            driver: self,
            ptr: p as *mut u8,
            bytes,
        })
    }
}

/// Device memory.
pub struct DeviceBuffer {
    driver: &'static Driver,
    pub ptr: CuDevicePtr,
    pub bytes: usize,
}

impl DeviceBuffer {
    /// Copies `src` to the start of the buffer.
    pub fn upload<T: Copy>(&self, src: &[T]) -> Result<(), Error> {
        let n = std::mem::size_of_val(src).min(self.bytes);
        // SAFETY: `n` bytes are valid on both sides.
        self.driver.check("cuMemcpyHtoD_v2", unsafe {
            (self.driver.api.memcpy_htod)(self.ptr, src.as_ptr() as *const c_void, n)
        })
    }

    /// Copies the start of the buffer into `dst`.
    pub fn download<T: Copy>(&self, dst: &mut [T]) -> Result<(), Error> {
        self.download_at(0, dst)
    }

    /// Copies from `offset` bytes into the buffer into `dst`.
    pub fn download_at<T: Copy>(&self, offset: usize, dst: &mut [T]) -> Result<(), Error> {
        let n = std::mem::size_of_val(dst);
        if offset + n > self.bytes {
            return Err(Error::Call(format!(
                "download of {n} B at {offset} past a {} B buffer",
                self.bytes
            )));
        }
        // SAFETY: `n` bytes are valid on both sides.
        self.driver.check("cuMemcpyDtoH_v2", unsafe {
            (self.driver.api.memcpy_dtoh)(
                dst.as_mut_ptr() as *mut c_void,
                self.ptr + offset as u64,
                n,
            )
        })
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: a pointer cuMemAlloc gave, freed once.
        unsafe { (self.driver.api.mem_free)(self.ptr) };
    }
}

/// Page-locked host memory.
pub struct PinnedBuffer {
    driver: &'static Driver,
    pub ptr: *mut u8,
    pub bytes: usize,
}

impl PinnedBuffer {
    /// The memory as bytes.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: `bytes` bytes the driver allocated, owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.bytes) }
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        // SAFETY: a pointer cuMemAllocHost gave, freed once.
        unsafe { (self.driver.api.mem_free_host)(self.ptr as *mut c_void) };
    }
}
