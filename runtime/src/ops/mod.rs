//! Op definitions: what an operation is, independent of where it runs.
//!
//! This layer sits between the core (array, layout, dtype, ...) and the
//! backends: the front-end modules (`fft`, `index`, `matmul`, `random`,
//! `kernels`, ...) and the CUDA backend (`cuda/`) both use the types here,
//! so the backend never imports a front-end module. The front-end modules
//! re-export the public ones at their usual paths (`cp::IndexMode`,
//! `cp::MatmulPrecision`, `cp::Dim3`, `cp::fft::PlanCacheInfo`).

pub(crate) mod fft;
pub(crate) mod index;
pub(crate) mod launch;
pub(crate) mod matmul;
pub(crate) mod random;

pub(crate) use fft::FftKind;
pub use fft::PlanCacheInfo;
pub use index::IndexMode;
pub use launch::Dim3;
pub use matmul::MatmulPrecision;
pub(crate) use random::Draw;
