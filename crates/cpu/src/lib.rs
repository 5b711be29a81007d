//! CPU benchmarks: integer and floating-point operation rates with thread
//! scaling, and the theoretical peak they are set against.

pub mod kernels;
pub mod ops;
