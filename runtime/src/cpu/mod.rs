//! The CPU backend: strided loops over host buffers, one module per op
//! family implementing its trait of `ops::backend`.

mod binning;
mod create;
mod elementwise;
mod fft;
mod gather;
mod grid_spline;
mod interpolate;
mod linalg;
pub(crate) mod loops;
mod matmul;
mod ndimage;
pub(crate) mod peaks;
mod random;
pub(crate) mod reduce;
mod signal;
mod sort;
mod sparse;
mod sparse_ilu;
mod sparse_solve;

/// The host backend, the reference the CUDA backend is tested against.
pub(crate) struct CpuBackend;
