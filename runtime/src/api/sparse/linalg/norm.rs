//! Matrix norms of sparse matrices (`scipy.sparse.linalg.norm`): Frobenius,
//! 1 (largest column sum) and inf (largest row sum) of `|A|`, computed on
//! the matrix's device with `bincount` over its stored entries.

use crate::api::sorting::search::Side;
use crate::api::sparse::{Canonical, CsrMatrix};
use crate::core::error::Result;

/// Which norm [`norm`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SparseNorm {
    /// `sqrt(sum |a_ij|^2)` (`'fro'`, the default).
    Fro,
    /// The largest column sum of `|A|` (`1`).
    One,
    /// The largest row sum of `|A|` (`inf`).
    Inf,
}

/// `norm(A, ord)` of a sparse matrix, as a float64 host value.
pub fn norm(a: &CsrMatrix, ord: SparseNorm) -> Result<f64> {
    let op = "norm";
    let (m, n) = a.shape();
    let mut c = a.c.clone();
    if !c.sorted {
        // Duplicates must be summed before |.| is taken.
        c = c.map_host(op, true, Canonical(false))?;
    }
    if c.nnz() == 0 {
        return Ok(0.0);
    }
    let mag = crate::abs(&c.data)?.astype(crate::DType::Float64)?;
    let largest = |ids: &crate::Array, len: usize| -> Result<f64> {
        let sums = crate::bincount(ids, Some(&mag), len)?;
        Ok(crate::max(&sums, crate::Axes::All, false)?
            .scalar()?
            .as_f64())
    };
    match ord {
        SparseNorm::Fro => Ok(crate::api::linalg::matmul::vdot(&mag, &mag)?
            .scalar()?
            .as_f64()
            .sqrt()),
        SparseNorm::One => largest(&c.indices, n),
        SparseNorm::Inf => {
            let positions = crate::with_device(c.data.device(), || crate::arange(c.nnz() as i64))?;
            let rows = crate::subtract(
                crate::searchsorted(&c.indptr, &positions, Side::Right, None)?,
                1i64,
            )?;
            largest(&rows, m)
        }
    }
}
