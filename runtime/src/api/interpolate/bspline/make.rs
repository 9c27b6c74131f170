//! `make_interp_spline`: the B-spline of degree `k` through `(x, y)`, with
//! SciPy's default not-a-knot knots (or, for `k = 3`, natural or clamped
//! ends on knots at the points).
//!
//! Degrees 0 and 1 are `y` itself on the right knots, degree 2 one
//! tridiagonal solve on the device (shared with `interp1d`); degrees 3 to 5
//! solve the banded collocation system on the host, as SciPy does (LAPACK's
//! `gbsv`): for GPU inputs through the counted host fallback, since the
//! runtime has no GPU banded solver yet.

use super::banded::{basis_derivatives, interval, Band};
use super::BSpline;
use crate::api::interpolate::checks::{
    contiguous_as, rows, sample_points, value_dtype, values_along,
};
use crate::api::interpolate::ppoly::Extrapolate;
use crate::api::interpolate::quadratic::quadratic_bspline;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

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
            let device = x.device();
            let (t, c, m) = crate::backend::fallback::fetch(op, device, || {
                Ok((
                    x.astype(crate::DType::Float64)?.to_vec::<f64>()?,
                    y.astype(crate::DType::Float64)?.to_vec::<f64>()?,
                    y.shape()[1],
                ))
            })?;
            let (t, c) = solve_on_host(op, &t, &c, m, k, ends)?;
            let nt = t.len() - k - 1;
            let t = crate::asarray_on(t, device)?.astype(dt)?;
            let c = crate::asarray_on(c, device)?
                .astype(dt)?
                .reshape([nt as isize, m as isize])?;
            (t, c)
        }
    };
    let t = contiguous_as(&t, dt)?;
    let c = contiguous_as(&c, dt)?;
    Ok(BSpline::from_parts(t, c, k, rest, Extrapolate::Yes))
}

/// SciPy's knots: not-a-knot (the points, or for even `k` their midpoints,
/// less `k / 2` at each end), or the points themselves with `k` extra at
/// each end when derivative conditions fill the gap.
fn knots(x: &[f64], k: usize, ends: SplineEnds) -> Vec<f64> {
    let n = x.len();
    let (first, last) = (x[0], x[n - 1]);
    if ends != SplineEnds::NotAKnot {
        let mut t = vec![first; k];
        t.extend_from_slice(x);
        t.extend(std::iter::repeat_n(last, k));
        return t;
    }
    let inner: Vec<f64> = if k % 2 == 1 {
        let h = k.div_ceil(2);
        x[h..n - h].to_vec()
    } else {
        let h = k / 2;
        (h..n - 1 - h).map(|i| (x[i] + x[i + 1]) / 2.0).collect()
    };
    let mut t = vec![first; k + 1];
    t.extend(inner);
    t.extend(std::iter::repeat_n(last, k + 1));
    t
}

/// Knots and coefficients (`(nt, m)`, row-major) of the spline through the
/// host values `y` (`(n, m)`, row-major) at `x`, for `k >= 3`.
fn solve_on_host(
    op: &'static str,
    x: &[f64],
    y: &[f64],
    m: usize,
    k: usize,
    ends: SplineEnds,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = x.len();
    let t = knots(x, k, ends);
    let nt = t.len() - k - 1;
    // One derivative condition per end for natural / clamped ends.
    let (order, extra) = match ends {
        SplineEnds::NotAKnot => (0, 0),
        SplineEnds::Natural => (2, 1),
        SplineEnds::Clamped => (1, 1),
    };
    if nt != n + 2 * extra {
        return Err(Error::invalid(
            op,
            format!("{nt} coefficients for {n} points and {extra} conditions per end"),
        ));
    }
    let mut band = Band::new(nt, k);
    let mut rhs = vec![0.0; nt * m];
    let put = |band: &mut Band, row: usize, xv: f64, nu: usize| -> Result<()> {
        let l = interval(&t, k, nt, xv);
        let d = basis_derivatives(&t, k, l, xv, nu);
        band.set_row(op, row, l - k, &d[nu])
    };
    if extra == 1 {
        put(&mut band, 0, x[0], order)?;
        put(&mut band, nt - 1, x[n - 1], order)?;
    }
    for (i, &xv) in x.iter().enumerate() {
        put(&mut band, i + extra, xv, 0)?;
        rhs[(i + extra) * m..(i + extra + 1) * m].copy_from_slice(&y[i * m..(i + 1) * m]);
    }
    band.solve(op, &mut rhs, m)?;
    Ok((t, rhs))
}
