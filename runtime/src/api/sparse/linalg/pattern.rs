//! Questions about a CSR matrix's pattern answered with device array ops
//! (the matrix never goes to the host): the row of each stored entry, the
//! first row whose diagonal is zero or not stored, and the lower triangle.
//! Each question that decides an error reads back one number.

use crate::api::shape::index::SliceElem;
use crate::api::sorting::search::Side;
use crate::api::sparse::{Compressed, CsrMatrix};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// The row of each stored entry (int64, one per entry): the last row
/// offset at or before the entry's position.
pub(super) fn entry_rows(c: &Compressed) -> Result<Array> {
    let positions = crate::with_device(c.data.device(), || crate::arange(c.nnz() as i64))?;
    crate::subtract(
        crate::searchsorted(&c.indptr, &positions, Side::Right, None)?,
        1i64,
    )
}

/// The first index where the boolean array `flags` is true, if any.
fn first_true(flags: &Array) -> Result<Option<usize>> {
    if flags.size() == 0 || !crate::any(flags, crate::Axes::All, false)?.item::<bool>()? {
        return Ok(None);
    }
    Ok(Some(
        crate::argmax(flags, None, false)?.item::<i64>()? as usize
    ))
}

/// The first row of square `c` that stores no diagonal entry, if any.
pub(super) fn first_row_without_diagonal(c: &Compressed) -> Result<Option<usize>> {
    let n = c.major;
    if n == 0 {
        return Ok(None);
    }
    if c.nnz() == 0 {
        return Ok(Some(0));
    }
    let rows = entry_rows(c)?;
    let on_diagonal = crate::equal(&rows, &c.indices)?;
    // Entries off the diagonal count in the extra bin n.
    let bins = crate::where_(&on_diagonal, &rows, n as i64)?;
    let counts = crate::bincount(&bins, None, n + 1)?.slice([SliceElem::from(0..n as isize)])?;
    first_true(&crate::equal(&counts, 0i64)?)
}

/// The first row of square `c` whose diagonal (duplicates summed) is zero, if any.
pub(super) fn first_zero_diagonal(c: &Compressed) -> Result<Option<usize>> {
    if c.major == 0 {
        return Ok(None);
    }
    let d = super::precond::diagonal(&CsrMatrix { c: c.clone() })?;
    first_true(&crate::equal(&d, 0.0)?)
}

/// Whether every stored value of `values` is finite; else the row of the
/// first that is not.
pub(super) fn first_non_finite_row(c: &Compressed, values: &Array) -> Result<Option<usize>> {
    let bad = crate::logical_not(crate::isfinite(values)?)?;
    match first_true(&bad)? {
        None => Ok(None),
        Some(e) => {
            let rows = entry_rows(c)?;
            let row = rows.slice([SliceElem::Index(e as isize)])?.item::<i64>()?;
            Ok(Some(row as usize))
        }
    }
}

/// The lower triangle (diagonal included) of square `c`, kept in CSR form
/// on c's device: the entries whose column is at most their row, and new
/// row offsets from the count kept in each row.
pub(super) fn lower_triangle(c: &Compressed) -> Result<Compressed> {
    let n = c.major;
    let dev = c.data.device();
    let rows = entry_rows(c)?;
    let keep = crate::less_equal(&c.indices, &rows)?;
    let kept = crate::flatnonzero(&keep)?;
    let kept_rows = crate::take(&rows, &kept, None)?;
    let counts = crate::bincount(&kept_rows, None, n)?;
    let zero = crate::with_device(dev, || crate::zeros(1, DType::Int64))?;
    let offsets = crate::cumsum(&counts, None)?.astype(DType::Int64)?;
    let indptr = crate::concatenate(&[&zero, &offsets], 0)?.astype(DType::Int32)?;
    Ok(Compressed {
        data: crate::take(&c.data, &kept, None)?,
        indices: crate::take(&c.indices, &kept, None)?.astype(DType::Int32)?,
        indptr,
        major: n,
        minor: c.minor,
        sorted: c.sorted,
    })
}
