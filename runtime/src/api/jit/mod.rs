//! GPU kernels written in Rust (`cupyx.jit` for Rust): a function in a
//! small subset of Rust, marked `#[cp::jit::kernel]` or
//! `#[cp::jit::elementwise]`, is translated into CUDA C at compile time,
//! compiled by NVRTC on its first GPU launch (with the session's kernel
//! cache) and also compiled natively, so the same kernel runs on CPU arrays
//! (the grid block by block, barriers honoured) for tests and login nodes.
//!
//! ```
//! use cuprite as cp;
//!
//! #[cp::jit::kernel]
//! fn block_sum(x: &[f32], out: &mut [f32]) {
//!     let partial = shared_array::<f32, 8>();
//!     let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
//!     let mut v = if i < x.len() { x[i] } else { 0.0 };
//!     let mut offset = 16;
//!     while offset > 0 {
//!         v += shfl_down_sync(0xffffffff, v, offset);
//!         offset /= 2;
//!     }
//!     if lane_id() == 0 {
//!         partial[(thread_idx().x / 32) as usize] = v;
//!     }
//!     sync_threads();
//!     if thread_idx().x == 0 {
//!         let mut s = 0.0;
//!         for w in 0..(block_dim().x / 32) as usize {
//!             s += partial[w];
//!         }
//!         atomic_add(out, 0, s);
//!     }
//! }
//!
//! let x = cp::ones([1000], cp::f32)?;
//! let mut total = cp::zeros([1], cp::f32)?;
//! block_sum.launch((4,), (256,), (&x, &mut total))?;
//! assert_eq!(total.to_vec::<f32>()?, vec![1000.0]);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! The subset (runtime/README.md has the full list): scalar parameters and
//! `&[T]` / `&mut [T]` arrays of bool, integers and f32/f64; `let`,
//! `if`/`else` (also as a value), `for i in a..b` (`..=`, `.step_by(s)`,
//! `grid_stride(n)`), `while`, `loop`, `break`, `continue`, `return`,
//! compound assignment, `as` casts, the math methods of f32/f64, and the
//! built-ins here. Anything else is a compile error that says what to
//! write instead. The built-ins need no import: the macro resolves them.

mod builtins;
mod elementwise;
mod grid;
mod kernel;
mod memory;
mod reduction;
mod views;

pub use builtins::{block_dim, block_idx, grid_dim, lane_id, thread_idx};
pub use cuprite_jit_macros::{elementwise, kernel, reduction};
pub use elementwise::Elementwise;
pub use kernel::Kernel;
pub use memory::{JitElem, JitIndex, Slice};
pub use reduction::Reduction;
pub use views::{View, View1, View1Mut, View2, View2Mut, View3, View3Mut, ViewIndex};

/// The element types a type placeholder of `#[cp::jit::elementwise]`
/// stands for: `fn f<T: cp::jit::Float>(x: T) -> T` is instantiated for
/// float32 and float64, and float16 and bfloat16 (`cp::half::f16` /
/// `bf16`: on a GPU every operation on them runs in float and is rounded
/// back, as the `half` crate does on the CPU, so both agree; a generic
/// `#[cp::jit::reduction]` accumulates half inputs in f32). The math methods are `num_traits::Float`'s; a
/// constant is written `T::from_f64(0.5)`.
pub trait Float: num_traits::Float + crate::core::element::Element + JitElem {
    /// The constant `v` in this type.
    fn from_f64(v: f64) -> Self;
}

impl Float for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl Float for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl Float for half::f16 {
    fn from_f64(v: f64) -> Self {
        half::f16::from_f64(v)
    }
}

impl Float for half::bf16 {
    fn from_f64(v: f64) -> Self {
        half::bf16::from_f64(v)
    }
}

/// What the macros' expansions name; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use super::builtins::*;
    pub use super::elementwise::{Column, ElemCall, ElementwiseInfo};
    pub use super::grid::Fault;
    pub use super::kernel::{CpuArgs, KernelInfo, Param, ParamKind};
    pub use super::memory::Slice;
    pub use super::reduction::{RedCall, ReductionInfo};
    pub use num_traits::Float as NumFloat;
}

#[cfg(test)]
mod tests;
