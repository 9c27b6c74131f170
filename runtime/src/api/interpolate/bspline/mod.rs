//! B-splines (SciPy's `BSpline` and `make_interp_spline`): a spline of
//! degree `k` as knots `t` and coefficients `c`, evaluated on the device of
//! its arrays by de Boor's recurrence over all points at once (one interval
//! search, then `k (k + 1) / 2` blends of gathered coefficients).

mod calculus;
mod make;
mod not_a_knot;

pub(crate) use make::collocation_spline;
pub use make::{make_interp_spline, SplineEnds};

use super::checks::{contiguous_as, row, rows, value_dtype, xi_axes_at};
use super::ppoly::Extrapolate;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// A spline of degree `k`: `sum_j c[j] B_{j,k;t}(x)` on `t[k] <= x <= t[n]`
/// (`n = len(t) - k - 1` coefficients).
#[derive(Debug, Clone)]
pub struct BSpline {
    /// `(n + k + 1,)` knots, non-decreasing.
    t: Array,
    /// `(n, m)` coefficients, C-contiguous, the dtype of `t`.
    c: Array,
    k: usize,
    /// The shape of the values at one point (SciPy's `c.shape[1:]`).
    rest: Vec<usize>,
    extrapolate: Extrapolate,
}

impl BSpline {
    /// The spline of knots `t`, coefficients `c` (`(n, ...)`, `n >= k + 1`;
    /// extra rows past `len(t) - k - 1` are ignored, as SciPy does) and degree `k`.
    pub fn new(t: &Array, c: &Array, k: usize, extrapolate: Extrapolate) -> Result<BSpline> {
        let op = "BSpline";
        crate::api::shape::index::same_device(op, t, c)?;
        if t.ndim() != 1 {
            return Err(Error::shape(
                op,
                format!("t must be 1-D, got shape {:?}", t.shape()),
            ));
        }
        if c.ndim() == 0 {
            return Err(Error::shape(
                op,
                "c must have at least one axis, got a 0-d array",
            ));
        }
        let dt = value_dtype(op, c.dtype())?;
        if t.size() < 2 * k + 2 {
            return Err(Error::invalid(
                op,
                format!(
                    "need at least 2k + 2 = {} knots for k = {k}, got {}",
                    2 * k + 2,
                    t.size()
                ),
            ));
        }
        let n = t.size() - k - 1;
        if c.shape()[0] < n {
            return Err(Error::shape(
                op,
                format!(
                    "c must have at least len(t) - k - 1 = {n} rows, got shape {:?}",
                    c.shape()
                ),
            ));
        }
        let t = contiguous_as(t, dt)?;
        if !crate::isfinite(&t)?.all()?.item::<bool>()? {
            return Err(Error::invalid(op, "the knots t must be finite"));
        }
        if !crate::greater_equal(crate::diff(&t, 1, 0)?, 0.0)?
            .all()?
            .item::<bool>()?
        {
            return Err(Error::invalid(op, "the knots t must be non-decreasing"));
        }
        let rest = c.shape()[1..].to_vec();
        let m: usize = rest.iter().product();
        let c = contiguous_as(&rows(c, 0, n), dt)?.reshape([n as isize, m as isize])?;
        Ok(BSpline::from_parts(t, c, k, rest, extrapolate))
    }

    /// From checked parts: `t` `(n + k + 1,)`, `c` `(n, m)`, C-contiguous, one dtype.
    pub(crate) fn from_parts(
        t: Array,
        c: Array,
        k: usize,
        rest: Vec<usize>,
        extrapolate: Extrapolate,
    ) -> BSpline {
        BSpline {
            t,
            c,
            k,
            rest,
            extrapolate,
        }
    }

    /// The knots.
    pub fn t(&self) -> &Array {
        &self.t
    }

    /// The coefficients, `(n, ...)`.
    pub fn c(&self) -> Result<Array> {
        let mut shape = vec![self.c.shape()[0] as isize];
        shape.extend(self.rest.iter().map(|&v| v as isize));
        self.c.reshape(shape)
    }

    /// The degree.
    pub fn k(&self) -> usize {
        self.k
    }

    /// What it gives outside `t[k]..=t[n]`.
    pub fn extrapolate(&self) -> Extrapolate {
        self.extrapolate
    }

    /// The number of coefficients `n`.
    fn n(&self) -> usize {
        self.c.shape()[0]
    }

    /// Its values at `xi` (SciPy's `__call__`): shape `xi.shape + c.shape[1:]`.
    pub fn call(&self, xi: &Array) -> Result<Array> {
        self.call_with(xi, self.extrapolate)
    }

    /// Its values at `xi`, extrapolating as `extrapolate` says.
    pub fn call_with(&self, xi: &Array, extrapolate: Extrapolate) -> Result<Array> {
        let op = "BSpline.__call__";
        crate::api::shape::index::same_device(op, &self.t, xi)?;
        if xi.dtype().is_complex() {
            return Err(Error::DType {
                op,
                detail: format!("the points must be real, got {}", xi.dtype()),
            });
        }
        let (k, n) = (self.k, self.n());
        let dt = self.c.dtype();
        let mut x = contiguous_as(&xi.reshape([-1])?, dt)?;
        let (lo, hi) = (row(&self.t, k), row(&self.t, n));
        if extrapolate == Extrapolate::Periodic {
            let period = crate::subtract(&hi, &lo)?;
            x = crate::add(crate::remainder(crate::subtract(&x, &lo)?, &period)?, &lo)?;
        }
        // l - k for each point: the interior knots t[k+1..n] at or below it.
        let inner = rows(&self.t, k + 1, n).ascontiguousarray()?;
        let base = crate::searchsorted(&inner, &x, crate::Side::Right, None)?;
        // t[l - k + s] and c[l - k + s] for each point, gathered from shifted views.
        let knot = |s: usize| crate::take(&rows(&self.t, s, s + n - k), &base, Some(0));
        let xc = x.reshape([-1, 1])?;
        let mut d: Vec<Array> = (0..=k)
            .map(|j| crate::take(&rows(&self.c, j, j + n - k), &base, Some(0)))
            .collect::<Result<_>>()?;
        for r in 1..=k {
            for j in (r..=k).rev() {
                let left = knot(j)?;
                let right = knot(j + 1 + k - r)?;
                // Coinciding knots (repeated past the ends) give 0/0: the
                // recurrence's weight there is 0, as de Boor's convention.
                let den = crate::subtract(&right, &left)?;
                let empty = crate::equal(&den, 0.0)?;
                let safe = crate::where_(&empty, 1.0, &den)?;
                let alpha = crate::where_(
                    &empty,
                    0.0,
                    crate::divide(crate::subtract(&x, &left)?, &safe)?,
                )?
                .reshape([-1, 1])?;
                let blend = crate::add(
                    &d[j - 1],
                    crate::multiply(&alpha, crate::subtract(&d[j], &d[j - 1])?)?,
                )?;
                d[j] = blend;
            }
        }
        let mut out = d.swap_remove(k);
        if k >= 1 {
            // SciPy's de Boor zeroes every basis function in an interval of
            // zero length, so where the last knots repeat (the antiderivative
            // of a degree-0 spline) the value at and past t[n] is 0, as there.
            let empty = crate::equal(knot(k)?, knot(k + 1)?)?.reshape([-1, 1])?;
            out = crate::where_(&empty, 0.0, &out)?.astype(dt)?;
        }
        if extrapolate == Extrapolate::No {
            let outside = crate::logical_or(crate::less(&xc, &lo)?, crate::greater(&xc, &hi)?)?;
            out = crate::where_(&outside, f64::NAN, &out)?.astype(dt)?;
        }
        let mut shape: Vec<usize> = xi.shape().to_vec();
        shape.extend_from_slice(&self.rest);
        let out = out.ascontiguousarray()?.reshape(shape)?;
        xi_axes_at(out, xi.ndim(), self.rest.len(), 0)
    }
}
