//! The not-a-knot cubic's collocation system as one tridiagonal solve, so
//! long splines solve in parallel (cuSPARSE's `gtsv2` on the GPU) rather
//! than through the sequential band factorisation. Its matrix is
//! tridiagonal but for two rows: the second point meets four basis
//! functions (columns 0..=3) and so does the second-to-last (columns
//! n-4..=n-1). Subtracting a multiple of the third row from the second,
//! and of the third-to-last from the second-to-last, clears the extra
//! entries (the same rows' right-hand sides with them).

use crate::api::interpolate::checks::rows;
use crate::api::interpolate::tridiagonal::solve;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::layout::Layout;
use crate::ops::interpolate::Collocation;

/// The band's width for `k = 3` (`3k + 1`; row `i`, column `j` at `j + 3 - i`).
const WIDTH: usize = 10;

/// The coefficients (`(n, m)`, float64) of the not-a-knot cubic on knots
/// `t` through `rhs` (`(n, m)`, float64) at the points `x`, `n >= 5`.
pub(super) fn not_a_knot_cubic(
    op: &'static str,
    t: &Array,
    x: &Array,
    rhs: &Array,
) -> Result<Array> {
    let n = rhs.shape()[0];
    let b = crate::backend::on(op, x.device())?;
    let dt = DType::Float64;
    let band = Array::from_parts(
        b.empty(op, dt, n * WIDTH)?,
        Layout::contiguous(&[n, WIDTH]),
        dt,
    );
    b.collocation_band(
        op,
        Collocation {
            t: t.view(),
            x: x.view(),
            k: 3,
            order: 0,
            rhs: rhs.view(),
        },
        band.view(),
    )?;
    // Entry `d` places right of the diagonal in row i, as a (1,) array.
    let flat = band.reshape([-1])?;
    let at = |i: usize, d: isize| {
        let c = (3 + d) as usize;
        rows(&flat, i * WIDTH + c, i * WIDTH + c + 1)
    };
    let diagonal = |d: isize| -> Result<Array> {
        let c = (3 + d) as usize;
        rows(&band.transpose(), c, c + 1).reshape([-1])
    };
    let (lower, diag, upper) = (diagonal(-1)?, diagonal(0)?, diagonal(1)?);
    let times = |f: &Array, a: Array| crate::multiply(f, a);
    // Row 1 less f1 times row 2 (columns 1..=3).
    let f1 = crate::divide(at(1, 2), at(2, 1))?;
    let diag1 = crate::subtract(at(1, 0), times(&f1, at(2, -1))?)?;
    let upper1 = crate::subtract(at(1, 1), times(&f1, at(2, 0))?)?;
    let rhs1 = crate::subtract(rows(rhs, 1, 2), times(&f1, rows(rhs, 2, 3))?)?;
    // Row r = n-2 less f2 times row q = n-3 (columns n-4..=n-2).
    let (r, q) = (n - 2, n - 3);
    let f2 = crate::divide(at(r, -2), at(q, -1))?;
    let lower_r = crate::subtract(at(r, -1), times(&f2, at(q, 0))?)?;
    let diag_r = crate::subtract(at(r, 0), times(&f2, at(q, 1))?)?;
    let rhs_r = crate::subtract(rows(rhs, r, r + 1), times(&f2, rows(rhs, q, q + 1))?)?;
    let lower = crate::concatenate(&[&rows(&lower, 0, r), &lower_r, &rows(&lower, r + 1, n)], 0)?;
    let diag = crate::concatenate(
        &[
            &rows(&diag, 0, 1),
            &diag1,
            &rows(&diag, 2, r),
            &diag_r,
            &rows(&diag, r + 1, n),
        ],
        0,
    )?;
    let upper = crate::concatenate(&[&rows(&upper, 0, 1), &upper1, &rows(&upper, 2, n)], 0)?;
    let rhs = crate::concatenate(
        &[
            &rows(rhs, 0, 1),
            &rhs1,
            &rows(rhs, 2, r),
            &rhs_r,
            &rows(rhs, r + 1, n),
        ],
        0,
    )?;
    solve(op, &lower, &diag, &upper, &rhs)
}
