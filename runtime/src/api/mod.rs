//! What users call, one folder or file per family: each function validates
//! its arguments, resolves dtypes and shapes, allocates its result and runs
//! on a device through `backend::on`. `lib.rs` re-exports the public items
//! at their usual paths (`cp::sum`, `cp::linalg::svd`).

pub(crate) mod creation;
pub mod dist;
pub(crate) mod elementwise;
pub mod fft;
pub mod format;
pub(crate) mod fuse;
pub(crate) mod interop;
pub mod interpolate;
pub(crate) mod io;
pub mod jit;
pub(crate) mod kernels;
pub mod linalg;
pub mod nccl;
pub mod ndimage;
pub(crate) mod operand;
pub mod profiler;
pub mod random;
pub(crate) mod reductions;
pub(crate) mod shape;
pub mod signal;
pub(crate) mod sorting;
pub mod sparse;
pub mod stats;
