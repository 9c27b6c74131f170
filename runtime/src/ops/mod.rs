//! Op definitions: what an operation is, independent of where it runs.
//!
//! This layer sits between the core (array, layout, dtype, ...) and the
//! backends. It holds one table per op family, each row the whole of an op
//! (name, doc, type rule, CPU body, CUDA expression: `ufunc`), the element
//! math the CPU halves call (`scalar_math`), and the small types the front
//! end and the CUDA backend share (`fft`, `index`, `launch`, `matmul`,
//! `random`), so the backend never imports a front-end module, and the
//! backend interface (`backend`: one trait per family, each in the module
//! of its family). The
//! front-end modules re-export the public ones at their usual paths
//! (`cp::IndexMode`, `cp::MatmulPrecision`, `cp::Dim3`,
//! `cp::fft::PlanCacheInfo`).

pub(crate) mod backend;
pub(crate) mod binning;
pub(crate) mod c_types;
pub(crate) mod create;
pub(crate) mod fft;
pub(crate) mod index;
pub(crate) mod interpolate;
pub(crate) mod launch;
pub(crate) mod linalg;
pub(crate) mod matmul;
pub(crate) mod ndimage;
pub(crate) mod random;
pub(crate) mod reduce;
pub(crate) mod scalar_math;
pub(crate) mod signal;
pub(crate) mod sort;
pub(crate) mod sparse;
pub(crate) mod special;
pub(crate) mod ufunc;

pub(crate) use fft::FftKind;
pub use fft::PlanCacheInfo;
pub use index::IndexMode;
pub use launch::Dim3;
pub use matmul::MatmulPrecision;
pub(crate) use random::Draw;
