//! The interpolating quadratic spline (SciPy's `make_interp_spline(x, y,
//! k=2)`, which `interp1d(kind='quadratic')` and [`make_interp_spline`]
//! share): B-spline knots at the midpoints of the points, less the second
//! and second-to-last (the quadratic's not-a-knot), so each point meets
//! three basis functions and the coefficients solve one tridiagonal system
//! on the device. `interp1d` then writes it as a piecewise polynomial.
//!
//! [`make_interp_spline`]: super::bspline::make_interp_spline

use super::checks::{ones_of, rows, zeros_of};
use super::ppoly::{Extrapolate, PPoly};
use super::tridiagonal::solve;
use crate::core::array::Array;
use crate::core::error::Result;

/// `t[a..b]` as a column, to scale rows of `(len, m)` arrays.
fn col(t: &Array, a: usize, b: usize) -> Result<Array> {
    rows(t, a, b).reshape([-1, 1])
}

/// The quadratic spline through `y` (`(n, m)`, `n >= 3`) at `x`, as a
/// piecewise polynomial.
pub(crate) fn quadratic_spline(x: &Array, y: &Array, rest: &[usize], axis: usize) -> Result<PPoly> {
    let n = x.size();
    let (t, c) = quadratic_bspline("interp1d", x, y)?;
    // Pieces l = 2..n: value, slope and curvature at each left knot.
    let (pl, pl1, plm1) = (col(&t, 2, n)?, col(&t, 3, n + 1)?, col(&t, 1, n - 1)?);
    let span = crate::subtract(&pl1, &plm1)?;
    let value = crate::add(
        crate::multiply(
            rows(&c, 0, n - 2),
            crate::divide(crate::subtract(&pl1, &pl)?, &span)?,
        )?,
        crate::multiply(
            rows(&c, 1, n - 1),
            crate::divide(crate::subtract(&pl, &plm1)?, &span)?,
        )?,
    )?;
    // The derivative's (linear) B-spline coefficients d_1..d_{n-1}.
    let d = crate::divide(
        crate::multiply(crate::subtract(rows(&c, 1, n), rows(&c, 0, n - 1))?, 2.0)?,
        crate::subtract(col(&t, 3, n + 2)?, col(&t, 1, n)?)?,
    )?;
    let slope = rows(&d, 0, n - 2);
    let curvature = crate::divide(
        crate::subtract(rows(&d, 1, n - 1), &slope)?,
        crate::subtract(&pl1, &pl)?,
    )?;
    let half = crate::multiply(curvature, 0.5)?;
    let coefs = crate::stack(&[&half, &slope, &value], 0)?;
    let breaks = rows(&t, 2, n + 1).ascontiguousarray()?;
    Ok(PPoly::from_parts(
        breaks,
        coefs,
        rest.to_vec(),
        axis,
        Extrapolate::Yes,
    ))
}

/// The knots `t` (`(n + 3,)`) and coefficients `c` (`(n, m)`) of the
/// quadratic B-spline through `y` (`(n, m)`, `n >= 3`) at `x`.
pub(crate) fn quadratic_bspline(op: &'static str, x: &Array, y: &Array) -> Result<(Array, Array)> {
    let n = x.size();
    let first = rows(x, 0, 1);
    let last = rows(x, n - 1, n);
    let mids = crate::multiply(crate::add(rows(x, 1, n), rows(x, 0, n - 1))?, 0.5)?;
    // n + 3 knots: x0 three times, mids[1..n-2], x[n-1] three times.
    let t = crate::concatenate(
        &[
            &first,
            &first,
            &first,
            &rows(&mids, 1, n - 2),
            &last,
            &last,
            &last,
        ],
        0,
    )?;
    let sq = |a: Array| crate::square(&a);
    // Row i (1..n-1) lies in the knot interval l = i + 1: basis i-1, i, i+1.
    let (tl, tl1) = (rows(&t, 2, n), rows(&t, 3, n + 1));
    let (tlm1, tl2) = (rows(&t, 1, n - 1), rows(&t, 4, n + 2));
    let xv = rows(x, 1, n - 1);
    let width = crate::subtract(&tl1, &tl)?;
    let lower_in = crate::divide(
        sq(crate::subtract(&tl1, &xv)?)?,
        crate::multiply(crate::subtract(&tl1, &tlm1)?, &width)?,
    )?;
    let upper_in = crate::divide(
        sq(crate::subtract(&xv, &tl)?)?,
        crate::multiply(crate::subtract(&tl2, &tl)?, &width)?,
    )?;
    let diag_in = crate::subtract(crate::subtract(1.0, &lower_in)?, &upper_in)?;
    // The end rows: the spline equals its end coefficient there.
    let (zero, one) = (zeros_of(&first)?, ones_of(&first)?);
    let lower = crate::concatenate(&[&zero, &lower_in, &zero], 0)?;
    let diag = crate::concatenate(&[&one, &diag_in, &one], 0)?;
    let upper = crate::concatenate(&[&zero, &upper_in, &zero], 0)?;
    let c = solve(op, &lower, &diag, &upper, y)?;
    Ok((t, c))
}
