//! The CUDA C kernels, compiled at run time by NVRTC for the GPU at hand:
//! BabelStream's copy, mul, add, triad and dot in double precision (copy,
//! mul, add and triad: 16-byte double2 accesses, each thread two of them
//! a grid's width apart, 256 threads a block; dot a grid-stride loop with a
//! shared-memory tree per 1024-thread block), the arrays' initialisation,
//! a validation kernel (per-block sums of |x - expected|), and `gpu
//! burn`'s comparison (elements that differ bit for bit). Stream array
//! lengths are multiples of 1024, so of 4.

/// Threads per block of the reductions (dot, validation) and init.
pub const BLOCK: u32 = 1024;
/// Threads per block of copy, mul, add and triad.
pub const STREAM_BLOCK: u32 = 256;

/// Blocks of copy, mul, add and triad for `n` elements: four elements a
/// thread.
pub fn stream_grid(n: u64) -> u32 {
    n.div_ceil(4 * u64::from(STREAM_BLOCK)) as u32
}

/// The source NVRTC compiles.
pub const SOURCE: &str = r#"
typedef unsigned long long u64;
#define TB 1024

extern "C" __global__ void nb_init(double* a, double* b, double* c, double ia, double ib, double ic, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        a[i] = ia; b[i] = ib; c[i] = ic;
    }
}
// Each thread moves two 16-byte pairs of each array, one grid's width
// apart: element pairs i and i + stride (coalesced, two loads in flight).
#define PAIRS(body) \
    u64 n2 = n / 2; \
    u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; \
    u64 stride = (u64)gridDim.x * blockDim.x; \
    if (i < n2) { body } \
    i += stride; \
    if (i < n2) { body }
extern "C" __global__ void nb_copy(const double* __restrict__ a, double* __restrict__ c, u64 n) {
    const double2* a2 = (const double2*)a; double2* c2 = (double2*)c;
    PAIRS(c2[i] = a2[i];)
}
extern "C" __global__ void nb_mul(double* __restrict__ b, const double* __restrict__ c, double s, u64 n) {
    double2* b2 = (double2*)b; const double2* c2 = (const double2*)c;
    PAIRS(double2 x = c2[i]; b2[i] = make_double2(s * x.x, s * x.y);)
}
extern "C" __global__ void nb_add(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c, u64 n) {
    const double2* a2 = (const double2*)a; const double2* b2 = (const double2*)b; double2* c2 = (double2*)c;
    PAIRS(double2 x = a2[i]; double2 y = b2[i]; c2[i] = make_double2(x.x + y.x, x.y + y.y);)
}
extern "C" __global__ void nb_triad(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c, double s, u64 n) {
    double2* a2 = (double2*)a; const double2* b2 = (const double2*)b; const double2* c2 = (const double2*)c;
    PAIRS(double2 x = b2[i]; double2 y = c2[i]; a2[i] = make_double2(x.x + s * y.x, x.y + s * y.y);)
}
extern "C" __global__ void nb_dot(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ sums, u64 n) {
    __shared__ double tb[TB];
    double t = 0.0;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        t += a[i] * b[i];
    }
    tb[threadIdx.x] = t;
    for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
        __syncthreads();
        if (threadIdx.x < off) tb[threadIdx.x] += tb[threadIdx.x + off];
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = tb[0];
}
extern "C" __global__ void nb_err(const double* __restrict__ x, double gold, double* __restrict__ sums, u64 n) {
    __shared__ double tb[TB];
    double t = 0.0;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        t += fabs(x[i] - gold);
    }
    tb[threadIdx.x] = t;
    for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
        __syncthreads();
        if (threadIdx.x < off) tb[threadIdx.x] += tb[threadIdx.x + off];
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = tb[0];
}
// gpu burn: elements of x that differ bit for bit from y, added to *bad.
#define CMP(name, T) \
extern "C" __global__ void name(const T* __restrict__ x, const T* __restrict__ y, u64 n, u64* bad) { \
    u64 t = 0; \
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) \
        t += (x[i] != y[i]); \
    if (t) atomicAdd(bad, t); \
}
CMP(nb_cmp16, unsigned short)
CMP(nb_cmp32, unsigned int)
CMP(nb_cmp64, u64)
"#;

/// The kernels' names, in the order [`SOURCE`]'s module is asked for them.
pub const NAMES: [&str; 10] = [
    "nb_init", "nb_copy", "nb_mul", "nb_add", "nb_triad", "nb_dot", "nb_err", "nb_cmp16",
    "nb_cmp32", "nb_cmp64",
];

/// The index in [`NAMES`] of the comparison kernel for elements of
/// `bytes` (2, 4 or 8).
pub fn compare_kernel(bytes: usize) -> Option<usize> {
    match bytes {
        2 => Some(7),
        4 => Some(8),
        8 => Some(9),
        _ => None,
    }
}
