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

mod array;
mod backend;
mod binning;
mod cpu;
mod creation;
mod creation_more;
pub mod cuda;
pub mod device;
pub mod dtype;
mod element;
mod error;
pub mod fft;
pub mod format;
mod fuse;
mod global;
mod index;
mod interop;
pub mod interrupt;
mod io;
mod kernels;
pub mod layout;
pub mod linalg;
mod logic;
mod lru;
mod manip;
mod matmul;
pub mod nccl;
mod operand;
mod operators;
mod ops;
pub mod profiler;
pub mod random;
mod reduce;
mod search;
mod shape;
pub mod signal;
mod sort;
pub mod sparse;
mod stats;
mod storage;
mod ufunc;
pub mod ufuncs;
mod view;

#[doc(hidden)]
pub use global::process_global_address_for_tests as global_address_for_tests;
// The crates whose types the public API shows, so that code using this one
// (and a notebook cell's type inference) can name them.
pub use cudarc;
pub use half;
pub use ndarray;
pub use num_complex;

pub use array::Array;
pub use binning::*;
pub use creation::{
    arange, arange_step, asarray, asarray_on, empty, empty_like, eye, from_shape_vec, full,
    full_like, identity, linspace, linspace_with, ones, ones_like, zeros, zeros_like, IntoArray,
    IntoShape, NestedData, RangeBound,
};
pub use creation_more::*;
pub use device::{current_device, default_device, device_count, with_device, Device};
pub use dtype::names::*;
pub use dtype::{
    can_cast, promote_types, result_type, Casting, DType, Kind, TypeOperand, WeakKind,
};
pub use element::{Element, Scalar};
pub use error::{Error, Result};
pub use format::{get_printoptions, set_printoptions, PrintOptions};
pub use fuse::*;
pub use index::*;
pub use interop::*;
pub use io::*;
pub use kernels::*;
pub use layout::{Layout, Order};
pub use logic::*;
pub use manip::*;
pub use matmul::{
    dot, einsum, inner, matmul, matmul_precision, outer, set_matmul_precision, tensordot, vdot,
    MatmulPrecision, TensordotAxes,
};
pub use operand::{common_device, IntoOperand, Operand};
pub use reduce::*;
pub use search::*;
pub use shape::{broadcast_arrays, concatenate, stack, IntoReshape, ReshapeDim};
pub use sort::*;
pub use stats::*;
pub use ufunc::*;

/// What every notebook cell has in scope: `use cuprite::prelude::*;`.
pub mod prelude {
    pub use crate::{
        s, with_device, Array, Casting, DType, Device, Element, Error, IntoArray, Order, Scalar,
    };
    pub use num_complex::{Complex32, Complex64};
}
