//! The general (non-Hermitian) eigendecomposition, `np.linalg.eig` and
//! `np.linalg.eigvals`: faer on the CPU, cuSOLVER's `Xgeev` on CUDA.

use super::{check_square, eigen_stack, promoted, values_and_vectors};
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// Eigenvalues `w` and right eigenvectors `v` (columns) of a (stack of)
/// general square matrices (`np.linalg.eig`): `a @ v[..., :, i] = w[..., i]
/// * v[..., :, i]`, each column of unit 2-norm.
///
/// Real input gives real `w` and `v` when every eigenvalue of the stack is
/// real and complex ones otherwise, as NumPy (CuPy's `eig` always returns
/// complex); on a GPU that choice reads one flag back. The order of the
/// eigenvalues is not defined (it may differ between devices and from
/// NumPy's), and each eigenvector is defined up to a unit factor: both
/// devices make the largest component of a complex vector real, as LAPACK.
/// Input with infs or NaNs is `LinAlg`, as NumPy. On CUDA this is
/// cuSOLVER's `Xgeev` (CUDA 12.6 and newer); with an older cuSOLVER it runs
/// on the CPU through the counted host fallback (`%gpu` shows it).
///
/// ```
/// use cuprite as cp;
/// // A quarter turn: eigenvalues ±i, so the results are complex.
/// let a = cp::asarray(vec![vec![0.0, -1.0], vec![1.0, 0.0]])?;
/// let (w, v) = cp::linalg::eig(&a)?;
/// assert_eq!(w.dtype(), cp::DType::Complex128);
/// // a v = v diag(w): multiplying by w scales column j by w[j].
/// assert!(cp::allclose(&cp::matmul(&a, &v)?, &cp::multiply(&v, &w)?)?);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn eig(a: &Array) -> Result<(Array, Array)> {
    eig_impl(a, true).map(values_and_vectors)
}

/// Eigenvalues of a (stack of) general square matrices
/// (`np.linalg.eigvals`), in no defined order; real for real input when
/// every eigenvalue of the stack is real, as NumPy (see [`eig`]).
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![vec![2.0, 1.0], vec![0.0, 3.0]])?;
/// let w = cp::linalg::eigvals(&a)?;
/// assert_eq!(w.dtype(), cp::DType::Float64);
/// assert!(cp::allclose(&cp::sort(&w, -1)?, cp::asarray(vec![2.0, 3.0])?)?);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn eigvals(a: &Array) -> Result<Array> {
    eig_impl(a, false).map(|mut parts| parts.remove(0))
}

fn eig_impl(a: &Array, vectors: bool) -> Result<Vec<Array>> {
    let op = if vectors { "eig" } else { "eigvals" };
    let a = promoted(a)?;
    check_square(op, &a)?;
    if a.size() > 0 && !crate::isfinite(&a)?.all()?.item::<bool>()? {
        return Err(Error::LinAlg {
            op,
            detail: format!(
                "the array (shape {}) must not contain infs or NaNs",
                crate::core::error::fmt_shape(a.shape())
            ),
        });
    }
    let complex = a.dtype().complex_dtype();
    let parts = eigen_stack(op, &a, vectors, (complex, complex), |be, x| {
        be.eig(x, vectors)
    })?;
    if a.dtype().is_complex() {
        return Ok(parts);
    }
    let any_complex = crate::not_equal(crate::imag(&parts[0])?, 0)?
        .any()?
        .item::<bool>()?;
    if any_complex {
        return Ok(parts);
    }
    parts.iter().map(crate::real).collect()
}
