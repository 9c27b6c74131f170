//! Sparse matrices: conversions and sparse-dense products (cuSPARSE on CUDA).
//!
//! The backend trait of this op family (see `ops::backend`).

/// Sparse matrices: conversions and sparse-dense products (cuSPARSE on CUDA).
pub(crate) trait Sparse {}
