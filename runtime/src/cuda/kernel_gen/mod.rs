//! CUDA C++ generated from descriptions: the one elementwise generator
//! (`codegen`, `elementwise`: ufuncs, copies, casts, `ElementwiseKernel`,
//! `fuse`), the one reduction generator (`reduce`, which turns the
//! reduction table's CUDA halves into kernels), the ufunc table's CUDA halves (`ufunc_expr`), the
//! `.cu` templates' renderer (`template`) and the compile-and-launch path of
//! user kernels (`custom`). The templates themselves are in `cuda/kernels/`.

pub(crate) mod codegen;
pub(crate) mod custom;
pub(crate) mod elementwise;
pub(crate) mod helpers;
pub(crate) mod reduce;
pub(crate) mod template;
pub(crate) mod ufunc_expr;
