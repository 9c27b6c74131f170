//! User kernels: [`ElementwiseKernel`], [`ReductionKernel`], [`RawKernel`]
//! and [`RawModule`], with CuPy's parameter syntax and launch conventions.
//!
//! Parameters are written as in CuPy: `"float32 x, raw T y, T z"` (a dtype
//! name or a one-letter type placeholder, optionally `raw`, then a name).
//! Arguments are passed as a tuple of arrays and Rust scalars,
//! `k.call((&x, 2.0f32, 1.0f32))`, or as a slice of [`Arg`]s.
//!
//! Parsing, type resolution and the generated CUDA source work on every
//! backend (and are tested on the CPU); running the kernels needs CUDA, and
//! the CPU backend answers [`Error::NeedsCuda`](crate::Error::NeedsCuda).

mod args;
pub(crate) mod codegen;
mod elementwise;
pub(crate) mod params;
mod raw;
mod reduction;

pub use args::{Arg, DevicePtr, Dim3, IntoArg, IntoArgs, IntoDim3};
pub use elementwise::ElementwiseKernel;
pub use params::{parse_params, Param, ParamType};
pub use raw::{RawKernel, RawModule};
pub use reduction::ReductionKernel;
