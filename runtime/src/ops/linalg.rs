//! Dense linear algebra beyond matmul: factorizations, solvers, decompositions (cuSOLVER on CUDA).
//!
//! The backend trait of this op family (see `ops::backend`).

use num_complex::Complex64;

use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;
use crate::view::View;

/// A result the backend allocated, with the layout that reads it (a
/// column-major result of cuSOLVER is read through a transposed layout);
/// its dtype is the input's (its real dtype for singular values and
/// eigenvalues).
pub(crate) type Owned = (Storage, Layout);

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
}
