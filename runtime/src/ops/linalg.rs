//! Dense linear algebra beyond matmul: factorizations, solvers, decompositions (cuSOLVER on CUDA).
//!
//! The backend trait of this op family (see `ops::backend`).

/// Dense linear algebra beyond matmul: factorizations, solvers, decompositions (cuSOLVER on CUDA).
pub(crate) trait Linalg {}
