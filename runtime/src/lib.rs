//! Cuprite: NumPy/CuPy-style N-dimensional arrays for Rust, on NVIDIA GPUs
//! through CUDA and on the CPU as the reference backend and fallback.
//!
//! ```
//! use cuprite as cp;
//! let x = cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)?;
//! let y = x.sum_axis(1)?;
//! assert_eq!(y.to_vec::<f32>()?, vec![3.0, 12.0]);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! Differences from CuPy are documented where they occur; the main ones:
//! out-of-bounds integer indices are an error ([`Error::IndexOutOfBounds`])
//! rather than wrapped, and `empty` returns zero-filled memory.

#![allow(clippy::module_inception)]

// The jit macros expand to `::cuprite::jit::...`; this lets the crate's own
// tests use them.
extern crate self as cuprite;

/// Builder methods for an options struct: `field(value)` sets that field.
/// A value converts into the field's type, so an `Option<&Array>` field
/// takes `&Array`.
macro_rules! option_setters {
    ($ty:ident $(<$lt:lifetime>)? { $($(#[$doc:meta])* $field:ident: $t:ty),* $(,)? }) => {
        impl$(<$lt>)? $ty$(<$lt>)? {
            $(
                $(#[$doc])*
                #[allow(clippy::useless_conversion)]
                pub fn $field(mut self, $field: $t) -> Self {
                    self.$field = $field.into();
                    self
                }
            )*
        }
    };
}

// The layers, from the bottom: core (arrays, dtypes, layouts), ops (the
// tables and the backend traits), backend (where the device is matched, the
// probe, transfers, the one host round trip), cpu and cuda (the backends)
// and api (what users call). Arrows point down only (`tests/api/layers.rs`).
mod api;
mod backend;
mod core;
mod cpu;
pub mod cuda;
mod ops;

/// One value per process for every copy of a crate that evcxr links into a
/// notebook's cells (for the kernel's own crates; see `core/global.rs`).
#[doc(hidden)]
pub use crate::core::global::process_global;
#[doc(hidden)]
pub use crate::core::global::process_global_address_for_tests as global_address_for_tests;
// The crates whose types the public API shows, so that code using this one
// (and a notebook cell's type inference) can name them.
pub use cudarc;
pub use half;
pub use ndarray;
pub use num_complex;

// The public modules, at the paths they have always had.
pub use crate::api::elementwise::{special, ufuncs};
pub use crate::api::{
    dist, fft, format, interpolate, jit, linalg, nccl, ndimage, profiler, random, signal, sparse,
    stats,
};
pub use crate::core::{dtype, interrupt, layout};

/// Devices: the CPU and CUDA GPUs, the default device and the scoped
/// current device.
pub mod device {
    pub use crate::backend::probe::{
        cuda_status, current_device, default_device, default_device_and_reason, device_count,
        with_device, CudaStatus,
    };
    pub use crate::core::device::Device;
}

pub use crate::api::creation::more::*;
pub use crate::api::creation::{
    arange, arange_step, asarray, asarray_on, empty, empty_like, eye, from_shape_vec, full,
    full_like, identity, linspace, linspace_with, ones, ones_like, zeros, zeros_like, IntoArray,
    IntoShape, NestedData, RangeBound,
};
pub use crate::api::elementwise::logic::*;
pub use crate::api::elementwise::*;
pub use crate::api::format::{get_printoptions, set_printoptions, PrintOptions};
pub use crate::api::fuse::*;

/// Automatic fusion of elementwise operations on GPU arrays: chains of
/// ufuncs, operators and scalar arithmetic run as one generated kernel, and
/// temporaries nothing holds are never written (see `runtime/README.md`).
pub mod fusion {
    pub use crate::cuda::fusion::{
        enabled, explain, reductions_enabled, set_enabled, stats, FusionStats,
    };
}
pub use crate::api::interop::*;
pub use crate::api::io::*;
pub use crate::api::kernels::*;
pub use crate::api::linalg::matmul::{
    dot, einsum, inner, matmul, matmul_precision, outer, set_matmul_precision, tensordot, vdot,
    MatmulPrecision, TensordotAxes,
};
pub use crate::api::operand::{common_device, IntoOperand, Operand};
pub use crate::api::reductions::binning::*;
pub use crate::api::reductions::stats::*;
pub use crate::api::reductions::*;
pub use crate::api::shape::index::*;
pub use crate::api::shape::manip::*;
pub use crate::api::shape::{broadcast_arrays, concatenate, stack, IntoReshape, ReshapeDim};
pub use crate::api::sorting::search::*;
pub use crate::api::sorting::*;
pub use crate::core::array::Array;
pub use crate::core::dtype::names::*;
pub use crate::core::dtype::{
    can_cast, promote_types, result_type, Casting, DType, Kind, TypeOperand, WeakKind,
};
pub use crate::core::element::{Element, Scalar};
pub use crate::core::error::{Error, Result};
pub use crate::core::layout::{Layout, Order};
pub use device::{current_device, default_device, device_count, with_device, Device};

/// What every notebook cell has in scope: `use cuprite::prelude::*;`.
pub mod prelude {
    pub use crate::{
        s, with_device, Array, Casting, DType, Device, Element, Error, IntoArray, Order, Scalar,
    };
    pub use num_complex::{Complex32, Complex64};
}
