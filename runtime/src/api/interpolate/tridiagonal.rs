//! The tridiagonal solve behind spline fitting, on the device of its
//! inputs (cuSPARSE's `gtsv2` on the GPU, Thomas' algorithm on the CPU).

use super::checks::{contiguous_as, rows, zeros_of};
use crate::core::array::Array;
use crate::core::error::Result;
use crate::ops::interpolate::Tridiagonal;

/// Smallest system the backends take (cuSPARSE's `gtsv2` needs 3 rows).
const MIN_ROWS: usize = 3;

/// The solution of `lower[i] s[i-1] + diag[i] s[i] + upper[i] s[i+1] =
/// rhs[i]` for every column of `rhs` (`(n, m)`); `lower[0]` and
/// `upper[n-1]` are zeroed here, as cuSPARSE requires.
pub(crate) fn solve(
    op: &'static str,
    lower: &Array,
    diag: &Array,
    upper: &Array,
    rhs: &Array,
) -> Result<Array> {
    let dt = rhs.dtype();
    let n = diag.size();
    let m = rhs.shape()[1];
    // Padded with identity rows up to MIN_ROWS; the padding solves to zero.
    let pad = MIN_ROWS.saturating_sub(n);
    let zero1 = zeros_of(&rows(diag, 0, 1))?;
    let zeros = |len: usize| -> Result<Array> { zero1.broadcast_to(&[len])?.ascontiguousarray() };
    let lower = crate::concatenate(&[&zero1, &rows(lower, 1, n), &zeros(pad)?], 0)?;
    let upper = crate::concatenate(&[&rows(upper, 0, n - 1), &zero1, &zeros(pad)?], 0)?;
    let ones = crate::add(&zeros(pad)?, 1.0)?;
    let diag = crate::concatenate(&[diag, &ones], 0)?;
    let rhs_t = if pad > 0 {
        let z = zeros_of(&rows(rhs, 0, 1))?;
        let z = z.broadcast_to(&[pad, m])?;
        crate::concatenate(&[rhs, &z], 0)?.transpose()
    } else {
        rhs.transpose()
    };
    let lower = contiguous_as(&lower, dt)?;
    let diag = contiguous_as(&diag, dt)?;
    let upper = contiguous_as(&upper, dt)?;
    // A fresh C-contiguous (m, n) copy: overwritten with the solutions.
    let solution = rhs_t.copy()?;
    let b = crate::backend::on(op, rhs.device())?;
    b.solve_tridiagonal(
        op,
        Tridiagonal {
            lower: lower.view(),
            diag: diag.view(),
            upper: upper.view(),
            rhs: solution.view(),
        },
    )?;
    rows(&solution.transpose(), 0, n).ascontiguousarray()
}
