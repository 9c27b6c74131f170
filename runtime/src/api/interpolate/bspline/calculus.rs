//! A B-spline's derivative, antiderivative and definite integral, each a
//! few array operations on its knots and coefficients (SciPy's `splder`
//! and `splantider`).

use super::BSpline;
use crate::api::interpolate::checks::{constants, row, rows, zeros_of};
use crate::api::interpolate::ppoly::Extrapolate;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

impl BSpline {
    /// The spline of its `nu`-th derivative (degree `k - nu`); `nu <= k`.
    pub fn derivative(&self, nu: usize) -> Result<BSpline> {
        let op = "BSpline.derivative";
        if nu > self.k {
            return Err(Error::invalid(
                op,
                format!(
                    "the order of the derivative must be <= k = {}, got nu = {nu}",
                    self.k
                ),
            ));
        }
        let mut s = self.clone();
        for _ in 0..nu {
            let (k, n, len) = (s.k, s.n(), s.t.size());
            // c'_i = k (c_{i+1} - c_i) / (t_{i+k+1} - t_{i+1}), i < n - 1.
            let span = crate::subtract(rows(&s.t, k + 1, k + n), rows(&s.t, 1, n))?;
            if !crate::greater(&span, 0.0)?.all()?.item::<bool>()? {
                return Err(Error::invalid(
                    op,
                    format!("the spline has repeated interior knots and is not differentiable {nu} times"),
                ));
            }
            let diff = crate::subtract(rows(&s.c, 1, n), rows(&s.c, 0, n - 1))?;
            let c = crate::divide(crate::multiply(diff, k as f64)?, span.reshape([-1, 1])?)?
                .astype(s.c.dtype())?
                .ascontiguousarray()?;
            let t = rows(&s.t, 1, len - 1).ascontiguousarray()?;
            s = BSpline::from_parts(t, c, k - 1, s.rest.clone(), s.extrapolate);
        }
        Ok(s)
    }

    /// The spline of its `nu`-th antiderivative (degree `k + nu`), zero at `t[0]`.
    pub fn antiderivative(&self, nu: usize) -> Result<BSpline> {
        let mut s = self.clone();
        // SciPy drops periodic extrapolation: the antiderivative is not periodic.
        if s.extrapolate == Extrapolate::Periodic {
            s.extrapolate = Extrapolate::No;
        }
        for _ in 0..nu {
            let (k, n, len) = (s.k, s.n(), s.t.size());
            // C_{i+1} = sum_{j<=i} c_j (t_{j+k+1} - t_j) / (k + 1), C_0 = 0.
            let width = crate::subtract(rows(&s.t, k + 1, len), rows(&s.t, 0, n))?;
            let scaled = crate::multiply(
                &s.c,
                crate::divide(width, (k + 1) as f64)?.reshape([-1, 1])?,
            )?;
            let sums = crate::cumsum(&scaled, Some(0))?.astype(s.c.dtype())?;
            let c = crate::concatenate(&[&zeros_of(&row(&s.c, 0))?, &sums], 0)?;
            let t = crate::concatenate(&[&row(&s.t, 0), &s.t, &row(&s.t, len - 1)], 0)?;
            s = BSpline::from_parts(t, c, k + 1, s.rest.clone(), s.extrapolate);
        }
        Ok(s)
    }

    /// The integral from `a` to `b`, shape `c.shape[1:]` (without
    /// extrapolation the bounds are clipped to `t[k]..=t[n]`, as SciPy does).
    pub fn integrate(&self, a: f64, b: f64) -> Result<Array> {
        let op = "BSpline.integrate";
        if !a.is_finite() || !b.is_finite() {
            return Err(Error::invalid(
                op,
                format!("the bounds must be finite, got a = {a}, b = {b}"),
            ));
        }
        let anti = self.antiderivative(1)?;
        let (sign, a, b) = if b < a { (-1.0, b, a) } else { (1.0, a, b) };
        let ends = constants(vec![a, b], self.c.dtype(), &self.t)?;
        let vals = match self.extrapolate {
            Extrapolate::Periodic => return self.integrate_periodic(&anti, a, b, sign),
            Extrapolate::No => {
                let (lo, hi) = (row(&self.t, self.k), row(&self.t, self.n()));
                anti.call_with(&crate::clip(&ends, &lo, &hi)?, Extrapolate::Yes)?
            }
            Extrapolate::Yes => anti.call_with(&ends, Extrapolate::Yes)?,
        };
        let diff = crate::subtract(row(&vals, 1), row(&vals, 0))?;
        let shape: Vec<usize> = self.rest.clone();
        crate::multiply(diff, sign)?
            .astype(self.c.dtype())?
            .reshape(shape)
    }

    /// The integral of the periodic extension: whole periods plus the rest.
    fn integrate_periodic(&self, anti: &BSpline, a: f64, b: f64, sign: f64) -> Result<Array> {
        let (k, n) = (self.k, self.n());
        let bounds = crate::concatenate(&[&row(&self.t, k), &row(&self.t, n)], 0)?
            .astype(crate::DType::Float64)?
            .to_vec::<f64>()?;
        let (lo, hi) = (bounds[0], bounds[1]);
        let period = hi - lo;
        let periods = ((b - a) / period).floor();
        let start = lo + (a - lo).rem_euclid(period);
        let end = start + (b - a) - periods * period;
        let mut pts = vec![lo, hi, start, end.min(hi)];
        if end > hi {
            pts.extend([lo, lo + (end - hi)]);
        } else {
            pts.extend([lo, lo]);
        }
        let at = anti.call_with(&constants(pts, self.c.dtype(), &self.t)?, Extrapolate::Yes)?;
        let seg = |i: usize| crate::subtract(row(&at, i + 1), row(&at, i));
        let whole = crate::multiply(seg(0)?, periods)?;
        let total = crate::add(crate::add(whole, seg(2)?)?, seg(4)?)?;
        crate::multiply(total, sign)?
            .astype(self.c.dtype())?
            .reshape(self.rest.clone())
    }
}
