//! `make_interp_spline`: the B-spline of degree `k` through `(x, y)`, with
//! SciPy's default not-a-knot knots (or, for `k = 3`, natural or clamped
//! ends on knots at the points).
//!
//! Degrees 0 and 1 are `y` itself on the right knots, degree 2 one
//! tridiagonal solve on the device (shared with `interp1d`); degrees 3 to 5
//! solve the banded collocation system (SciPy's LAPACK `gbsv`) on the
//! device of the inputs: the not-a-knot cubic as one tridiagonal system
//! (`not_a_knot.rs`), the others by the backend's `solve_collocation` (on
//! the GPU one thread factors the band, one thread per column solves).

use super::BSpline;
use crate::api::interpolate::checks::{
    contiguous_as, rows, sample_points, value_dtype, values_along,
};
use crate::api::interpolate::ppoly::Extrapolate;
use crate::api::interpolate::quadratic::quadratic_bspline;
use crate::core::array::Array;
use crate::core::error::{Error, Result};
use crate::ops::interpolate::Collocation;

/// The ends of an interpolating spline (SciPy's `bc_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplineEnds {
    /// Not-a-knot knots (SciPy's `bc_type=None`).
    #[default]
    NotAKnot,
    /// Second derivative zero at both ends (`k = 3` only).
    Natural,
    /// First derivative zero at both ends (`k = 3` only).
    Clamped,
}

/// The highest degree offered.
const MAX_K: usize = 5;

/// The interpolating B-spline of degree `k` (`0..=5`) through `y` at the
/// strictly increasing points `x`, along axis 0 of `y` (any trailing shape).
pub fn make_interp_spline(x: &Array, y: &Array, k: usize, ends: SplineEnds) -> Result<BSpline> {
    let op = "make_interp_spline";
    crate::api::shape::index::same_device(op, x, y)?;
    if k > MAX_K {
        return Err(Error::invalid(
            op,
            format!("k must be in 0..={MAX_K}, got k = {k}"),
        ));
    }
    if ends != SplineEnds::NotAKnot && k != 3 {
        return Err(Error::invalid(
            op,
            format!("{ends:?} ends need k = 3 (one derivative condition at each end), got k = {k}"),
        ));
    }
    let dt = value_dtype(op, y.dtype())?;
    let x = sample_points(op, x, dt, 1)?;
    let n = x.size();
    if n < k + 1 {
        return Err(Error::invalid(
            op,
            format!("k = {k} needs at least k + 1 = {} points, got {n}", k + 1),
        ));
    }
    let (y, rest, _) = values_along(op, y, 0, n, dt)?;
    let (t, c) = match k {
        0 => (crate::concatenate(&[&x, &rows(&x, n - 1, n)], 0)?, y),
        1 => (
            crate::concatenate(&[&rows(&x, 0, 1), &x, &rows(&x, n - 1, n)], 0)?,
            y,
        ),
        2 => quadratic_bspline(op, &x, &y)?,
        _ => {
            let (t, c) = collocation_spline(op, &x, &y, k, ends)?;
            (t.astype(dt)?, c.astype(dt)?)
        }
    };
    let t = contiguous_as(&t, dt)?;
    let c = contiguous_as(&c, dt)?;
    Ok(BSpline::from_parts(t, c, k, rest, Extrapolate::Yes))
}

/// SciPy's knots, built on the device of `x` (float64): not-a-knot (the
/// points, or for even `k` their midpoints, less `k / 2` at each end,
/// the ends repeated `k + 1` times), or the points themselves with `k`
/// extra at each end when derivative conditions fill the gap.
fn knots(x: &Array, k: usize, ends: SplineEnds) -> Result<Array> {
    let n = x.size();
    let (first, last) = (rows(x, 0, 1), rows(x, n - 1, n));
    let (reps, inner) = if ends != SplineEnds::NotAKnot {
        (k, x.clone())
    } else if k % 2 == 1 {
        let h = k.div_ceil(2);
        (k + 1, rows(x, h, n - h))
    } else {
        let h = k / 2;
        let mids = crate::multiply(crate::add(rows(x, 1, n), rows(x, 0, n - 1))?, 0.5)?;
        (k + 1, rows(&mids, h, n - 1 - h))
    };
    let mut parts: Vec<&Array> = vec![&first; reps];
    parts.push(&inner);
    parts.extend(std::iter::repeat_n(&last, reps));
    crate::concatenate(&parts, 0)?.ascontiguousarray()
}

/// Knots (float64) and coefficients (`(nt, m)`, float64) of the spline of
/// degree `k >= 1` through `y` (`(n, m)`) at the increasing points `x`
/// (`(n,)`), on their device.
pub(crate) fn collocation_spline(
    op: &'static str,
    x: &Array,
    y: &Array,
    k: usize,
    ends: SplineEnds,
) -> Result<(Array, Array)> {
    let x = contiguous_as(x, crate::DType::Float64)?;
    let n = x.size();
    let t = knots(&x, k, ends)?;
    let nt = t.size() - k - 1;
    // One derivative condition per end for natural / clamped ends: its rows are zeros.
    let order = match ends {
        SplineEnds::NotAKnot => 0,
        SplineEnds::Natural => 2,
        SplineEnds::Clamped => 1,
    };
    let y = contiguous_as(y, crate::DType::Float64)?;
    let m = y.shape()[1];
    let rhs = if order > 0 {
        let zero = crate::zeros([1, m], crate::DType::Float64)?.to_device(&x.device())?;
        crate::concatenate(&[&zero, &y, &zero], 0)?
    } else {
        y.copy()?
    };
    if rhs.shape()[0] != nt {
        return Err(Error::invalid(
            op,
            format!("{nt} coefficients for {n} points of a spline of degree {k}"),
        ));
    }
    if k == 3 && order == 0 && n >= 5 {
        let c = super::not_a_knot::not_a_knot_cubic(op, &t, &x, &rhs)?;
        return Ok((t, c));
    }
    let b = crate::backend::on(op, x.device())?;
    b.solve_collocation(
        op,
        Collocation {
            t: t.view(),
            x: x.view(),
            k,
            order,
            rhs: rhs.view(),
        },
    )?;
    Ok((t, rhs))
}
