//! Sparse matrices: conversions and sparse-dense products (cuSPARSE on CUDA).
//!
//! The backend trait of this op family (see `ops::backend`).

use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;
use std::rc::Rc;

/// A CSR matrix as a backend sees it: int32 row offsets `indptr`
/// (rows + 1) and column `indices`, the values `data` (one of float32,
/// float64, complex64, complex128), all 1-D and C-contiguous.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CsrView<'a> {
    pub rows: usize,
    pub cols: usize,
    pub indptr: View<'a>,
    pub indices: View<'a>,
    pub data: View<'a>,
}

/// The buffers of a CSR result (1-D, C-contiguous): values, int32 column
/// indices and row offsets, how many values are stored, and whether the
/// indices are sorted within each row.
pub(crate) struct CsrBuffers {
    pub data: Storage,
    pub indices: Storage,
    pub indptr: Storage,
    pub nnz: usize,
    pub sorted: bool,
}

/// A sparse LU factorization kept by `splu` for repeated solves.
pub(crate) trait SparseFactor {
    /// `A^-1 b`, or (`transpose`) `A^-T b`, for a C-contiguous vector (n,)
    /// or matrix (n, k) `b` of the factor's dtype on its device, as a new
    /// buffer of b's shape; a solution that is not finite is an error.
    fn solve(&self, op: &'static str, b: View<'_>, transpose: bool) -> Result<Storage>;
}

/// Sparse matrices: conversions and sparse-dense products (cuSPARSE on CUDA).
pub(crate) trait Sparse {
    /// `A @ x` for a C-contiguous dense vector (cols,) or matrix (cols, k)
    /// `x` of A's dtype, as a new C-contiguous buffer of (rows,) or (rows, k).
    fn csr_dot(&self, op: &'static str, a: &CsrView<'_>, x: View<'_>) -> Result<Storage>;
    /// `A @ B` of two CSR matrices of one dtype (A's cols = B's rows) whose
    /// indices are sorted when both store values.
    fn csr_spgemm(&self, op: &'static str, a: &CsrView<'_>, b: &CsrView<'_>) -> Result<CsrBuffers>;
    /// `A^-1 b` for a square CSR matrix and a C-contiguous vector (rows,) or
    /// matrix (rows, k) `b` of A's dtype, as a new buffer of b's shape; a
    /// singular matrix is an error. A factorization whose pivots are
    /// tested against a tolerance (cuSOLVER's QR) counts a pivot of at most
    /// `pivot_tol` in magnitude as zero; one that only detects exact zeros
    /// (faer's LU) may ignore it, the front end's conditioning test
    /// catching the rest.
    fn csr_solve(
        &self,
        op: &'static str,
        a: &CsrView<'_>,
        b: View<'_>,
        pivot_tol: f64,
    ) -> Result<Storage>;
    /// The LU factorization of a square CSR matrix, kept for repeated
    /// solves (`splu`); a singular matrix is an error.
    fn csr_lu_factor(&self, op: &'static str, a: &CsrView<'_>) -> Result<Rc<dyn SparseFactor>>;
    /// The lower (or upper) triangle of the square CSR matrix `a` (sorted
    /// indices, no duplicates), prepared for repeated solves: cuSPARSE
    /// SpSV's analysis is done once and kept. A zero on the used diagonal
    /// is the caller's to refuse first (the GPU does not test it).
    fn csr_triangular(
        &self,
        op: &'static str,
        a: &CsrView<'_>,
        triangle: Triangle,
    ) -> Result<Rc<dyn TriangularSolver>>;
    /// The zero-fill incomplete factorization of the square CSR matrix `a`
    /// (sorted indices, no duplicates, every diagonal entry stored), as new
    /// values in a's pattern: for `Incomplete::Lu`, L (unit diagonal, not
    /// stored) below the diagonal and U on and above it; for
    /// `Incomplete::Cholesky` of a lower triangle, the L with `L L^H ~ A`.
    /// A zero pivot is an error naming its row.
    fn csr_incomplete_factor(
        &self,
        op: &'static str,
        a: &CsrView<'_>,
        kind: Incomplete,
    ) -> Result<Storage>;
}

/// Which triangle of a CSR matrix a triangular solve reads, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Triangle {
    /// The lower triangle (else the upper); entries of the other are ignored.
    pub lower: bool,
    /// Ones on the diagonal (the stored diagonal is ignored).
    pub unit_diagonal: bool,
    /// Solve with the triangle's conjugate transpose (`T^H x = b`).
    pub adjoint: bool,
}

/// A triangular matrix prepared for repeated solves.
pub(crate) trait TriangularSolver {
    /// `T^-1 b` (`T^-H b` for an adjoint triangle) for a C-contiguous vector
    /// `b` (n,) of the matrix's dtype on its device, as a new buffer (n,).
    fn solve(&self, op: &'static str, b: View<'_>) -> Result<Storage>;
}

/// Which zero-fill incomplete factorization `csr_incomplete_factor` computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Incomplete {
    /// ILU(0): `A ~ L U` in A's pattern.
    Lu,
    /// IC(0): `A ~ L L^H` in the pattern of A's lower triangle.
    Cholesky,
}
