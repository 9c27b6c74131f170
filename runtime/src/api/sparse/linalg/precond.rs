//! Preconditioners: Jacobi (the inverse of the diagonal).
//!
//! The diagonal of a CSR matrix is found with device array ops: each stored
//! entry's row comes from `searchsorted` on the row offsets, entries whose
//! column equals their row are kept, and `bincount` sums them per row
//! (summing duplicates, as SciPy's `diagonal()` does).

use crate::api::sorting::search::Side;
use crate::api::sparse::linalg::operator::LinearOperator;
use crate::api::sparse::linalg::options::require_square;
use crate::api::sparse::CsrMatrix;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// The main diagonal of `a` (`a.diagonal()`), on its device, of length min(rows, cols).
pub fn diagonal(a: &CsrMatrix) -> Result<Array> {
    let (m, n) = a.shape();
    let k = m.min(n);
    let dt = a.dtype();
    let dev = a.device();
    if a.nnz() == 0 {
        return crate::with_device(dev, || crate::zeros(k, dt));
    }
    let positions = crate::with_device(dev, || crate::arange(a.nnz() as i64))?;
    let rows = crate::subtract(
        crate::searchsorted(a.indptr(), &positions, Side::Right, None)?,
        1i64,
    )?;
    let on_diagonal = crate::equal(&rows, a.indices())?;
    let rows = crate::where_(&on_diagonal, &rows, k as i64)?;
    let sum = |values: &Array| -> Result<Array> {
        let w = crate::where_(&on_diagonal, values, 0.0)?;
        let s = crate::bincount(&rows, Some(&w), k + 1)?;
        s.slice([crate::api::shape::index::SliceElem::from(0..k as isize)])
    };
    if dt.is_complex() {
        let re = sum(&crate::real(a.data())?)?;
        let im = sum(&crate::imag(a.data())?)?;
        let j = crate::api::operand::Operand::Scalar(num_complex::Complex64::new(0.0, 1.0).into());
        crate::add(&re, crate::multiply(&im, j)?)?.astype(dt)
    } else {
        sum(a.data())?.astype(dt)
    }
}

/// The Jacobi preconditioner `M = diag(A)^-1` for a square matrix; a zero
/// on the diagonal is an error naming its row.
pub fn jacobi<'a>(a: &CsrMatrix) -> Result<LinearOperator<'a>> {
    let op = "jacobi";
    let n = require_square(op, a.shape())?;
    let d = diagonal(a)?;
    let zero = crate::equal(&d, 0.0)?;
    if n > 0 && crate::any(&zero, crate::Axes::All, false)?.item::<bool>()? {
        let row = crate::argmax(&zero, None, false)?.item::<i64>()?;
        return Err(Error::LinAlg {
            op,
            detail: format!("the diagonal is zero at row {row}, so it has no inverse"),
        });
    }
    let inv = crate::divide(1.0, &d)?;
    let dt = a.dtype();
    Ok(LinearOperator::new((n, n), dt, move |x| crate::multiply(&inv, x)).with_device(a.device()))
}
