//! Dense linear algebra beyond matmul: factorizations, solvers, decompositions (cuSOLVER on CUDA).
//!
//! The backend trait of this op family (see `ops::backend`).

use num_complex::Complex64;

use crate::core::error::Result;
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::core::view::View;

/// A result the backend allocated, with the layout that reads it (a
/// column-major result of cuSOLVER is read through a transposed layout);
/// its dtype is the input's (its real dtype for singular values and
/// eigenvalues).
pub(crate) type Owned = (Storage, Layout);

/// Which system a triangular or LU solve solves (SciPy's `trans`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Trans {
    /// `a x = b` (SciPy's `trans=0` or `'N'`).
    #[default]
    N,
    /// `aᵀ x = b` (`trans=1` or `'T'`).
    T,
    /// `aᴴ x = b` (`trans=2` or `'C'`).
    C,
}

/// How a triangular solve reads its matrix: the `lower` (else upper)
/// triangle, `op` applied by `trans`, a diagonal of ones (not read) when
/// `unit_diagonal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Triangular {
    pub lower: bool,
    pub trans: Trans,
    pub unit_diagonal: bool,
}

/// What `svd` returns: `(U, S, Vh)`, U and Vh only when asked for.
pub(crate) type SvdParts = (Option<Owned>, Owned, Option<Owned>);

/// Dense linear algebra beyond matmul: factorizations, solvers,
/// decompositions (cuSOLVER on CUDA). Every method takes float32, float64,
/// complex64 or complex128 matrices (the front end converts) and
/// reports singular or non-converging inputs as `Error::LinAlg`.
pub(crate) trait Linalg {
    /// `x` with `a x = b` for one square `a` (n, n) and `b` (n, k), n, k > 0.
    fn solve(&self, a: View<'_>, b: View<'_>) -> Result<Owned>;
    /// The inverses of a non-empty stack of square matrices (batch..., n, n).
    fn inv(&self, a: View<'_>) -> Result<Owned>;
    /// U's diagonal (as complex128) and the row permutation's parity of the
    /// LU factorization of one non-empty square matrix (for determinants).
    fn lu_diagonal(&self, a: View<'_>) -> Result<(Vec<Complex64>, bool)>;
    /// The lower Cholesky factor of one Hermitian positive definite matrix
    /// (its lower triangle is read).
    fn cholesky(&self, a: View<'_>) -> Result<Owned>;
    /// QR of one (m, n) matrix, m, n > 0: `(Q, R)`, Q only when `want_q`;
    /// `complete` gives Q (m, m) and R (m, n), else Q (m, k), R (k, n).
    fn qr(&self, a: View<'_>, complete: bool, want_q: bool) -> Result<(Option<Owned>, Owned)>;
    /// SVD of one (m, n) matrix, m, n > 0: `(U, S, Vh)` (full or reduced)
    /// when `compute_uv`, else `(None, S, None)`.
    fn svd(&self, a: View<'_>, full: bool, compute_uv: bool) -> Result<SvdParts>;
    /// Ascending eigenvalues and, when `vectors`, eigenvectors (columns) of
    /// one Hermitian matrix, reading its lower triangle.
    fn eigh(&self, a: View<'_>, vectors: bool) -> Result<(Owned, Option<Owned>)>;
    /// Eigenvalues (n,) and, when `vectors`, right eigenvectors (columns of
    /// unit 2-norm) of one general square matrix (n, n), n > 0, its entries
    /// finite; both of the complex dtype of `a`'s precision, in any order.
    fn eig(&self, a: View<'_>, vectors: bool) -> Result<(Owned, Option<Owned>)>;
    /// `x` with `op(a) x = b` for one triangular `a` (n, n), read as `how`
    /// says, and `b` (n, k), n, k > 0. No singularity check.
    fn solve_triangular(&self, a: View<'_>, b: View<'_>, how: Triangular) -> Result<Owned>;
    /// LAPACK's getrf of one square (n, n) matrix, n > 0: the factors L
    /// (unit lower) and U in one matrix and the 1-based int64 row swaps
    /// (row i was swapped with row piv[i] - 1). A zero pivot is no error.
    fn lu_factor(&self, a: View<'_>) -> Result<(Owned, Owned)>;
    /// LAPACK's getrs: `x` with `op(a) x = b` from `lu_factor`'s factors
    /// (n, n) and 1-based int64 pivots (n,), and `b` (n, k), n, k > 0.
    fn lu_solve(&self, lu: View<'_>, piv: View<'_>, b: View<'_>, trans: Trans) -> Result<Owned>;
}
