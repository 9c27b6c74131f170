//! Sparse linear algebra (`cupyx.scipy.sparse.linalg`, `scipy.sparse.linalg`):
//! linear operators, Krylov solvers, preconditioners (Jacobi, ILU(0),
//! IC(0)), direct solvers,
//! eigenvalues and matrix functions.
//!
//! The iterative solvers are written once over `Array` operations, so the
//! same code runs on both backends; on the GPU every vector stays in device
//! memory, products go through cuSPARSE SpMV, inner products through cuBLAS,
//! and each iteration reads back only the number that decides whether to
//! stop (for `gmres` and `eigsh`: the small projected matrix's new column).
//! A solver that does not converge returns its result with
//! `converged: false` (SciPy's `info > 0`), not an error.

mod basis;
mod bicgstab;
mod cg;
mod direct;
mod eigsh;
mod expm;
mod gmres;
mod incomplete;
mod lsmr;
mod lsqr;
mod minres;
mod norm;
mod operator;
mod options;
mod pattern;
mod precond;
mod vector;

pub use bicgstab::bicgstab;
pub use cg::cg;
pub use direct::{factorized, splu, spsolve, spsolve_triangular, AsCsr, SparseLu, Trans};
pub use eigsh::{eigsh, svds, Eigsh, EigshOptions, Svds, Which};
pub use expm::expm_multiply;
pub use gmres::gmres;
pub use incomplete::{ic0, ilu0, IncompleteCholesky, IncompleteLu};
pub use lsmr::{lsmr, LsmrOptions};
pub use lsqr::{lsqr, LsqrOptions};
pub use minres::minres;
pub use norm::{norm, SparseNorm};
pub use operator::{aslinearoperator, IntoOperator, LinearOperator};
pub use options::{SolveOptions, SolveResult};
pub use precond::{diagonal, jacobi};
