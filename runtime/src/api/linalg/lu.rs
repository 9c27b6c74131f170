//! Triangular solves and LU factors with SciPy's signatures
//! (`scipy.linalg.solve_triangular`, `lu_factor`, `lu_solve`): faer on the
//! CPU, cuBLAS `trsm` and cuSOLVER `getrf` / `getrs` on CUDA.

use super::{array, batched_solve, check_square, field_dtype, per_matrix, promoted};
use crate::api::linalg::matmul::{as_dtype, same_device};
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::dtype::{promote_types, DType};
use crate::core::error::{fmt_shape, Error, Result};
pub use crate::ops::linalg::Trans;
use crate::ops::linalg::Triangular;

/// Solves `op(a) x = b` for a (stack of) triangular `a` (..., M, M) and `b`
/// (M,) or (..., M, K) (`scipy.linalg.solve_triangular(a, b, trans, lower,
/// unit_diagonal)`): only `a`'s `lower` (or upper) triangle is read, and
/// not its diagonal when `unit_diagonal` (taken as ones). A zero on the
/// diagonal is `LinAlg` ("singular matrix"), as SciPy.
///
/// ```
/// use cuprite as cp;
/// use cp::linalg::Trans;
/// let a = cp::asarray(vec![vec![2.0, 0.0], vec![1.0, 4.0]])?;
/// let b = cp::asarray(vec![2.0, 9.0])?;
/// let x = cp::linalg::solve_triangular(&a, &b, true, Trans::N, false)?;
/// assert_eq!(x.to_vec::<f64>()?, [1.0, 2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn solve_triangular(
    a: &Array,
    b: &Array,
    lower: bool,
    trans: Trans,
    unit_diagonal: bool,
) -> Result<Array> {
    let op = "solve_triangular";
    same_device(op, a, b)?;
    check_square(op, a)?;
    if !unit_diagonal && a.size() > 0 {
        let diag = crate::diagonal(a, 0, -2, -1)?;
        let zero = crate::equal(&diag, 0)?.any()?.item::<bool>()?;
        if zero {
            return Err(Error::LinAlg {
                op,
                detail: "singular matrix: a zero on the diagonal".into(),
            });
        }
    }
    batched_solve(op, a, b, |a, b| {
        let be = crate::backend::on(op, a.device())?;
        let how = Triangular {
            lower,
            trans,
            unit_diagonal,
        };
        let x = be.solve_triangular(a.view(), b.view(), how)?;
        Ok(array(x, a.dtype()))
    })
}

/// The LU factorization of a (stack of) square matrices with partial
/// pivoting (`scipy.linalg.lu_factor(a)`): `(lu, piv)`, `lu` holding U and
/// the unit lower L below the diagonal, `piv` the 0-based int32 row swaps
/// (row `i` was swapped with row `piv[i]`, in order). A singular matrix
/// (a zero on U's diagonal) is factored without error (SciPy warns); below
/// a zero pivot the CPU's factors (faer) may hold NaN where cuSOLVER's,
/// like LAPACK's, stay finite.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![vec![1.0, 2.0], vec![3.0, 4.0]])?;
/// let (lu, piv) = cp::linalg::lu_factor(&a)?;
/// assert_eq!(piv.to_vec::<i32>()?, [1, 1]);
/// assert_eq!(lu.to_vec::<f64>()?, [3.0, 4.0, 1.0 / 3.0, 2.0 - 4.0 / 3.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn lu_factor(a: &Array) -> Result<(Array, Array)> {
    let op = "lu_factor";
    let n = check_square(op, a)?;
    let a = promoted(a)?;
    let device = a.device();
    if n == 0 || a.size() == 0 {
        let piv_shape = &a.shape()[..a.ndim() - 1];
        let piv = with_device(device, || crate::zeros(piv_shape, DType::Int32))?;
        return Ok((a.copy()?, piv));
    }
    let be = crate::backend::on(op, device)?;
    let mut parts = per_matrix(&a, |m| {
        let (lu, piv) = be.lu_factor(m.view())?;
        let piv = crate::subtract(array(piv, DType::Int64), 1)?.astype(DType::Int32)?;
        Ok(vec![array(lu, m.dtype()), piv])
    })?;
    let piv = parts.remove(1);
    Ok((parts.remove(0), piv))
}

/// Solves `op(a) x = b` from `lu_factor(a)`'s `(lu, piv)` (`scipy.linalg.
/// lu_solve((lu, piv), b, trans)`): `lu` (M, M), `piv` (M,) of an integer
/// dtype with values in [0, M), `b` (M,) or (M, K). As in SciPy, a singular
/// factorization is not checked: its solution holds inf or NaN.
///
/// ```
/// use cuprite as cp;
/// use cp::linalg::Trans;
/// let a = cp::asarray(vec![vec![1.0, 2.0], vec![3.0, 4.0]])?;
/// let b = cp::asarray(vec![5.0, 11.0])?;
/// let (lu, piv) = cp::linalg::lu_factor(&a)?;
/// let x = cp::linalg::lu_solve(&lu, &piv, &b, Trans::N)?;
/// assert!(cp::allclose(&x, cp::asarray(vec![1.0, 2.0])?)?);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn lu_solve(lu: &Array, piv: &Array, b: &Array, trans: Trans) -> Result<Array> {
    let op = "lu_solve";
    same_device(op, lu, b)?;
    same_device(op, lu, piv)?;
    let n = check_square(op, lu)?;
    if lu.ndim() != 2 || piv.shape() != [n] {
        return Err(Error::Shape {
            op,
            detail: format!(
                "lu must be (M, M) and piv (M,); got lu {} and piv {}",
                fmt_shape(lu.shape()),
                fmt_shape(piv.shape())
            ),
        });
    }
    if !piv.dtype().is_integer() {
        return Err(Error::DType {
            op,
            detail: format!("piv must have an integer dtype, got {}", piv.dtype()),
        });
    }
    if n > 0 {
        let piv = piv.astype(DType::Int64)?;
        let (lo, hi) = (piv.min()?.item::<i64>()?, piv.max()?.item::<i64>()?);
        if lo < 0 || hi >= n as i64 {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("piv values must lie in [0, {n}), got [{lo}, {hi}]"),
            });
        }
    }
    // LAPACK's 1-based pivots, contiguous for getrs.
    let piv1 = crate::add(piv.astype(DType::Int64)?, 1)?;
    let dtype = field_dtype(promote_types(lu.dtype(), b.dtype()));
    let lu = as_dtype(lu, dtype)?;
    batched_solve(op, &lu, b, |f, b| {
        let be = crate::backend::on(op, f.device())?;
        let x = be.lu_solve(f.view(), piv1.view(), b.view(), trans)?;
        Ok(array(x, f.dtype()))
    })
}
