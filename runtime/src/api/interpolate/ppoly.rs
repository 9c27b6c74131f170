//! Piecewise polynomials (SciPy's `PPoly`): what every 1-D interpolant
//! here is, evaluated by one kernel per call, differentiated and
//! integrated by array operations on its coefficients.

use super::checks::{
    constants, contiguous_as, row, rows, sample_points, value_dtype, xi_axes_at, zeros_of,
};
use crate::core::array::Array;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::ops::interpolate::PPolyEval;

/// What a piecewise polynomial gives outside its breakpoints (SciPy's
/// `extrapolate`: `True`, `False` or `'periodic'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Extrapolate {
    /// NaN outside.
    No,
    /// The end pieces continued.
    Yes,
    /// The pieces repeated with the period `x[n] - x[0]`.
    Periodic,
}

impl From<bool> for Extrapolate {
    fn from(b: bool) -> Extrapolate {
        if b {
            Extrapolate::Yes
        } else {
            Extrapolate::No
        }
    }
}

/// A piecewise polynomial: on `x[i] <= t < x[i+1]`,
/// `sum_m c[m, i] (t - x[i])^(k - m)` (SciPy's `PPoly(c, x)`).
#[derive(Debug, Clone)]
pub struct PPoly {
    /// `(n + 1,)` breakpoints.
    x: Array,
    /// `(k + 1, n, m)` coefficients, C-contiguous.
    c: Array,
    /// The shape of the values at one point (SciPy's `c.shape[2:]`).
    rest: Vec<usize>,
    /// Where the axes of the points go in a result (SciPy's `axis`).
    axis: usize,
    extrapolate: Extrapolate,
}

impl PPoly {
    /// A piecewise polynomial from coefficients `c` of shape `(k + 1, n,
    /// ...)` (highest power first) and `n + 1` increasing breakpoints `x`.
    pub fn new(c: &Array, x: &Array, extrapolate: Extrapolate) -> Result<PPoly> {
        let op = "PPoly";
        if c.ndim() < 2 {
            return Err(Error::shape(
                op,
                format!(
                    "c must have at least 2 axes (k + 1, n, ...), got shape {:?}",
                    c.shape()
                ),
            ));
        }
        crate::api::shape::index::same_device(op, c, x)?;
        let dt = value_dtype(op, c.dtype())?;
        let x = sample_points(op, x, dt, 2)?;
        let n = x.size() - 1;
        if c.shape()[1] != n || c.shape()[0] == 0 {
            return Err(Error::shape(
                op,
                format!(
                    "c must have shape (k + 1, {n}, ...) for {} breakpoints, got {:?}",
                    n + 1,
                    c.shape()
                ),
            ));
        }
        let rest = c.shape()[2..].to_vec();
        let m: usize = rest.iter().product();
        let k1 = c.shape()[0] as isize;
        let c = contiguous_as(c, dt)?.reshape([k1, n as isize, m as isize])?;
        Ok(PPoly::from_parts(x, c, rest, 0, extrapolate))
    }

    /// From checked parts: `x` `(n + 1,)` and `c` `(k + 1, n, m)`, C-contiguous, one dtype.
    pub(crate) fn from_parts(
        x: Array,
        c: Array,
        rest: Vec<usize>,
        axis: usize,
        extrapolate: Extrapolate,
    ) -> PPoly {
        PPoly {
            x,
            c,
            rest,
            axis,
            extrapolate,
        }
    }

    /// The breakpoints, `(n + 1,)`.
    pub fn x(&self) -> &Array {
        &self.x
    }

    /// The coefficients, `(k + 1, n, ...)`, the highest power first.
    pub fn c(&self) -> Result<Array> {
        let mut shape: Vec<isize> = self.c.shape()[..2].iter().map(|&v| v as isize).collect();
        shape.extend(self.rest.iter().map(|&v| v as isize));
        self.c.reshape(shape)
    }

    /// The polynomials' degree `k`.
    pub fn degree(&self) -> usize {
        self.c.shape()[0] - 1
    }

    /// What it gives outside its breakpoints.
    pub fn extrapolate(&self) -> Extrapolate {
        self.extrapolate
    }

    /// Its values at `xi` (SciPy's `__call__`): shape
    /// `y.shape[:axis] + xi.shape + y.shape[axis+1:]`.
    pub fn call(&self, xi: &Array) -> Result<Array> {
        self.call_with(xi, 0, None)
    }

    /// Its `nu`-th derivative at `xi` (a negative `nu`: the antiderivative
    /// of that order), extrapolating as `extrapolate` says (default: its own).
    pub fn call_with(
        &self,
        xi: &Array,
        nu: isize,
        extrapolate: Option<Extrapolate>,
    ) -> Result<Array> {
        let op = "PPoly.__call__";
        if nu < 0 {
            return self
                .antiderivative(nu.unsigned_abs())?
                .call_with(xi, 0, extrapolate);
        }
        crate::api::shape::index::same_device(op, &self.x, xi)?;
        if xi.dtype().is_complex() {
            return Err(Error::DType {
                op,
                detail: format!("the points must be real, got {}", xi.dtype()),
            });
        }
        let extrapolate = extrapolate.unwrap_or(self.extrapolate);
        let dt = self.c.dtype();
        let mut points = contiguous_as(&xi.reshape([-1])?, dt)?;
        if extrapolate == Extrapolate::Periodic {
            // x0 + (xi - x0) mod period: every point folded into the breakpoints.
            let n = self.x.size() - 1;
            let x0 = row(&self.x, 0);
            let period = crate::subtract(row(&self.x, n), &x0)?;
            points = crate::add(
                crate::remainder(crate::subtract(&points, &x0)?, &period)?,
                &x0,
            )?;
        }
        let m = self.c.shape()[2];
        let nu = nu as usize;
        let shape = [points.size(), m];
        let b = crate::backend::on(op, xi.device())?;
        let out = Array::from_parts(
            b.empty(op, dt, points.size() * m)?,
            Layout::contiguous(&shape),
            dt,
        );
        if nu > self.degree() {
            b.fill(op, out.view(), crate::Scalar::Float(0.0))?;
        } else {
            b.ppoly_eval(
                op,
                PPolyEval {
                    breaks: self.x.view(),
                    coefs: self.c.view(),
                    xi: points.view(),
                    nu,
                    extrapolate: extrapolate != Extrapolate::No,
                    out: out.view(),
                },
            )?;
        }
        let mut shape: Vec<usize> = xi.shape().to_vec();
        shape.extend_from_slice(&self.rest);
        let out = out.reshape(shape)?;
        xi_axes_at(out, xi.ndim(), self.rest.len(), self.axis)
    }

    /// The piecewise polynomial of its `nu`-th derivative (degree `k - nu`;
    /// a zero constant past `k`).
    pub fn derivative(&self, nu: usize) -> Result<PPoly> {
        let k = self.degree();
        let c = if nu > k {
            let s = self.c.shape();
            zeros_of(&rows(&self.c, 0, 1))?.reshape([1, s[1] as isize, s[2] as isize])?
        } else {
            // Row r holds power k - r; its nu-th derivative brings down
            // (k - r)! / (k - r - nu)!.
            let factors: Vec<f64> = (0..=k - nu)
                .map(|r| ((k - r - nu + 1)..=(k - r)).map(|v| v as f64).product())
                .collect();
            let f = constants(factors, self.c.dtype(), &self.c)?.reshape([-1, 1, 1])?;
            crate::multiply(rows(&self.c, 0, k + 1 - nu), &f)?.ascontiguousarray()?
        };
        Ok(PPoly::from_parts(
            self.x.clone(),
            c,
            self.rest.clone(),
            self.axis,
            self.extrapolate,
        ))
    }

    /// The piecewise polynomial of its `nu`-th antiderivative, zero at
    /// `x[0]` and continuous (degree `k + nu`). A periodic one does not
    /// extrapolate (as SciPy).
    pub fn antiderivative(&self, nu: usize) -> Result<PPoly> {
        let mut p = self.clone();
        if p.extrapolate == Extrapolate::Periodic {
            p.extrapolate = Extrapolate::No;
        }
        for _ in 0..nu {
            p = p.integrated_once()?;
        }
        Ok(p)
    }

    fn integrated_once(&self) -> Result<PPoly> {
        let k = self.degree();
        let dt = self.c.dtype();
        let n = self.x.size() - 1;
        let divisors: Vec<f64> = (0..=k).map(|r| 1.0 / (k + 1 - r) as f64).collect();
        let f = constants(divisors, dt, &self.c)?.reshape([-1, 1, 1])?;
        let raised = crate::multiply(&self.c, &f)?;
        // Each piece's integral over its whole interval, by Horner's rule in
        // h; the constants are their sums over the pieces before.
        let h = crate::diff(&self.x, 1, 0)?.reshape([n as isize, 1])?;
        let mut acc = zeros_of(&raised.at(0)?)?;
        for r in 0..=k {
            acc = crate::add(crate::multiply(&acc, &h)?, raised.at(r as isize)?)?;
        }
        let whole = crate::multiply(&acc, &h)?;
        let before = crate::subtract(crate::cumsum(&whole, Some(0))?, &whole)?;
        let last = before.expand_dims(0)?;
        let c = crate::concatenate(&[&raised, &last], 0)?;
        Ok(PPoly::from_parts(
            self.x.clone(),
            c,
            self.rest.clone(),
            self.axis,
            self.extrapolate,
        ))
    }

    /// Its definite integral from `a` to `b` (SciPy's `integrate`), of
    /// shape `y.shape[:axis] + y.shape[axis+1:]`.
    pub fn integrate(&self, a: f64, b: f64, extrapolate: Option<Extrapolate>) -> Result<Array> {
        let op = "PPoly.integrate";
        if !a.is_finite() || !b.is_finite() {
            return Err(Error::invalid(
                op,
                format!("the bounds must be finite, got a = {a}, b = {b}"),
            ));
        }
        let extrapolate = extrapolate.unwrap_or(self.extrapolate);
        let (a, b, sign) = if b < a { (b, a, -1.0) } else { (a, b, 1.0) };
        let anti = self.antiderivative(1)?;
        let at = |points: Vec<f64>| -> Result<Array> {
            let xi = constants(points, self.c.dtype(), &self.c)?;
            anti.with_axis(0).call_with(&xi, 0, Some(Extrapolate::Yes))
        };
        let diff_of = |lo: f64, hi: f64| -> Result<Array> {
            let v = at(vec![lo, hi])?;
            crate::subtract(v.at(1)?, v.at(0)?)
        };
        let total = if extrapolate == Extrapolate::Periodic {
            let xv = [self.x.at(0)?.item::<f64>()?, self.x.at(-1)?.item::<f64>()?];
            let (xs, xe) = (xv[0], xv[1]);
            let period = xe - xs;
            let interval = b - a;
            let periods = (interval / period).floor();
            let left = interval - periods * period;
            let mut total = crate::multiply(diff_of(xs, xe)?, periods)?;
            let a = xs + (a - xs).rem_euclid(period);
            let b = a + left;
            if b <= xe {
                total = crate::add(total, diff_of(a, b)?)?;
            } else {
                total = crate::add(total, diff_of(a, xe)?)?;
                total = crate::add(total, diff_of(xs, xs + b - xe)?)?;
            }
            total
        } else {
            let v = anti.with_axis(0).call_with(
                &constants(vec![a, b], self.c.dtype(), &self.c)?,
                0,
                Some(extrapolate),
            )?;
            crate::subtract(v.at(1)?, v.at(0)?)?
        };
        crate::multiply(total, sign)
    }

    /// The same polynomial with the points' axes at `axis` in results.
    pub(crate) fn with_axis(&self, axis: usize) -> PPoly {
        PPoly {
            axis,
            ..self.clone()
        }
    }
}
