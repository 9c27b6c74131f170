//! Cubic Hermite interpolants: the piecewise cubic through `(x, y)` with
//! slopes `s` at the points, and the two that choose the slopes locally,
//! PCHIP (monotone, Fritsch-Butland) and Akima (and its modified form).

use std::ops::Deref;

use super::checks::{rows, sample_points, value_dtype, values_along, zeros_of};
use super::ppoly::{Extrapolate, PPoly};
use crate::core::array::Array;
use crate::core::error::Result;

/// The piecewise cubic through `y` (`(n, m)`) with slopes `s` at `x`.
pub(crate) fn hermite_ppoly(
    x: &Array,
    y: &Array,
    s: &Array,
    rest: Vec<usize>,
    axis: usize,
    extrapolate: Extrapolate,
) -> Result<PPoly> {
    let n = x.size();
    let dx = crate::diff(x, 1, 0)?.reshape([n as isize - 1, 1])?;
    let slope = crate::divide(crate::diff(y, 1, 0)?, &dx)?;
    let (s0, s1) = (rows(s, 0, n - 1), rows(s, 1, n));
    let t = crate::divide(
        crate::subtract(crate::add(&s0, &s1)?, crate::multiply(&slope, 2.0)?)?,
        &dx,
    )?;
    let c0 = crate::divide(&t, &dx)?;
    let c1 = crate::subtract(crate::divide(crate::subtract(&slope, &s0)?, &dx)?, &t)?;
    let c = crate::stack(&[&c0, &c1, &s0, &rows(y, 0, n - 1)], 0)?;
    Ok(PPoly::from_parts(x.clone(), c, rest, axis, extrapolate))
}

/// `a` where `cond`, else `b` (NumPy's `where`).
fn pick(cond: &Array, a: &Array, b: &Array) -> Result<Array> {
    crate::where_(cond, a, b)
}

/// SciPy's PCHIP end slope from the first two intervals (`h0`, `m0` the
/// end one): the three-point formula, zeroed where its sign differs from
/// `m0`'s, limited to `3 m0` where the slopes change sign.
fn pchip_end(h0: &Array, h1: &Array, m0: &Array, m1: &Array) -> Result<Array> {
    let d = crate::divide(
        crate::subtract(
            crate::multiply(crate::add(crate::multiply(h0, 2.0)?, h1)?, m0)?,
            crate::multiply(h0, m1)?,
        )?,
        crate::add(h0, h1)?,
    )?;
    let (sd, s0, s1) = (crate::sign(&d)?, crate::sign(m0)?, crate::sign(m1)?);
    let zero = zeros_of(&d)?;
    let d = pick(&crate::not_equal(&sd, &s0)?, &zero, &d)?;
    let limit = crate::logical_and(
        crate::not_equal(&s0, &s1)?,
        crate::greater(crate::abs(&d)?, crate::multiply(crate::abs(m0)?, 3.0)?)?,
    )?;
    pick(&limit, &crate::multiply(m0, 3.0)?, &d)
}

/// A monotone piecewise cubic (SciPy's `PchipInterpolator`): slopes by
/// the weighted harmonic mean of the neighbouring secants, zero at
/// extrema.
#[derive(Debug, Clone)]
pub struct PchipInterpolator(PPoly);

impl PchipInterpolator {
    /// Through `(x, y)` along `axis` of `y`, extrapolating by default (as SciPy).
    pub fn new(x: &Array, y: &Array, axis: isize, extrapolate: Option<bool>) -> Result<Self> {
        let op = "PchipInterpolator";
        crate::api::shape::index::same_device(op, x, y)?;
        let dt = value_dtype(op, y.dtype())?;
        let x = sample_points(op, x, dt, 2)?;
        let n = x.size();
        let (y, rest, ax) = values_along(op, y, axis, n, dt)?;
        let h = crate::diff(&x, 1, 0)?.reshape([n as isize - 1, 1])?;
        let mk = crate::divide(crate::diff(&y, 1, 0)?, &h)?;
        let s = if n == 2 {
            crate::concatenate(&[&mk, &mk], 0)?
        } else {
            let (m0, m1) = (rows(&mk, 0, n - 2), rows(&mk, 1, n - 1));
            let (h0, h1) = (rows(&h, 0, n - 2), rows(&h, 1, n - 1));
            let flat = crate::logical_or(
                crate::not_equal(crate::sign(&m1)?, crate::sign(&m0)?)?,
                crate::logical_or(crate::equal(&m1, 0.0)?, crate::equal(&m0, 0.0)?)?,
            )?;
            let w1 = crate::add(crate::multiply(&h1, 2.0)?, &h0)?;
            let w2 = crate::add(&h1, crate::multiply(&h0, 2.0)?)?;
            let whmean = crate::divide(
                crate::add(crate::divide(&w1, &m0)?, crate::divide(&w2, &m1)?)?,
                crate::add(&w1, &w2)?,
            )?;
            let inner = pick(&flat, &zeros_of(&whmean)?, &crate::reciprocal(&whmean)?)?;
            let first = pchip_end(
                &rows(&h, 0, 1),
                &rows(&h, 1, 2),
                &rows(&mk, 0, 1),
                &rows(&mk, 1, 2),
            )?;
            let last = pchip_end(
                &rows(&h, n - 2, n - 1),
                &rows(&h, n - 3, n - 2),
                &rows(&mk, n - 2, n - 1),
                &rows(&mk, n - 3, n - 2),
            )?;
            crate::concatenate(&[&first, &inner, &last], 0)?
        };
        let extrapolate = Extrapolate::from(extrapolate.unwrap_or(true));
        Ok(PchipInterpolator(hermite_ppoly(
            &x,
            &y,
            &s,
            rest,
            ax,
            extrapolate,
        )?))
    }
}

impl Deref for PchipInterpolator {
    type Target = PPoly;
    fn deref(&self) -> &PPoly {
        &self.0
    }
}

/// Which of Akima's slope rules (SciPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AkimaMethod {
    /// Akima's 1970 weights.
    #[default]
    Akima,
    /// The modified weights (`makima`), which avoid overshoot where
    /// neighbouring secants are equal.
    Makima,
}

/// Akima's piecewise cubic (SciPy's `Akima1DInterpolator`): slopes from
/// the differences of neighbouring secants, robust to outliers. Does not
/// extrapolate by default (as SciPy).
#[derive(Debug, Clone)]
pub struct Akima1DInterpolator(PPoly);

impl Akima1DInterpolator {
    /// Through `(x, y)` along `axis` of `y` (two points give the line).
    pub fn new(
        x: &Array,
        y: &Array,
        axis: isize,
        method: AkimaMethod,
        extrapolate: Option<bool>,
    ) -> Result<Self> {
        let op = "Akima1DInterpolator";
        crate::api::shape::index::same_device(op, x, y)?;
        let dt = value_dtype(op, y.dtype())?;
        let x = sample_points(op, x, dt, 2)?;
        let n = x.size();
        let (y, rest, ax) = values_along(op, y, axis, n, dt)?;
        let extrapolate = Extrapolate::from(extrapolate.unwrap_or(false));
        let h = crate::diff(&x, 1, 0)?.reshape([n as isize - 1, 1])?;
        let secants = crate::divide(crate::diff(&y, 1, 0)?, &h)?;
        if n == 2 {
            let s = crate::concatenate(&[&secants, &secants], 0)?;
            let p = hermite_ppoly(&x, &y, &s, rest, ax, extrapolate)?;
            return Ok(Akima1DInterpolator(p));
        }
        // Two secants extrapolated linearly at each end: n + 3 in all.
        let ext = |a: &Array, b: &Array| crate::subtract(crate::multiply(a, 2.0)?, b);
        let mm = ext(&rows(&secants, 0, 1), &rows(&secants, 1, 2))?;
        let mmm = ext(&mm, &rows(&secants, 0, 1))?;
        let mp = ext(&rows(&secants, n - 2, n - 1), &rows(&secants, n - 3, n - 2))?;
        let mpp = ext(&mp, &rows(&secants, n - 2, n - 1))?;
        let m = crate::concatenate(&[&mmm, &mm, &secants, &mp, &mpp], 0)?;
        let fallback = crate::multiply(crate::add(rows(&m, 3, n + 3), rows(&m, 0, n))?, 0.5)?;
        let dm = crate::abs(crate::diff(&m, 1, 0)?)?;
        let (f1, f2) = match method {
            AkimaMethod::Akima => (rows(&dm, 2, n + 2), rows(&dm, 0, n)),
            AkimaMethod::Makima => {
                let pm = crate::abs(crate::add(rows(&m, 1, n + 3), rows(&m, 0, n + 2))?)?;
                (
                    crate::add(
                        rows(&dm, 2, n + 2),
                        crate::multiply(rows(&pm, 2, n + 2), 0.5)?,
                    )?,
                    crate::add(rows(&dm, 0, n), crate::multiply(rows(&pm, 0, n), 0.5)?)?,
                )
            }
        };
        let f12 = crate::add(&f1, &f2)?;
        // Where both weights vanish (relative to the largest) the slope is
        // undefined and the mean of the secants stands in.
        let threshold = crate::multiply(crate::max(&f12, None, false)?, 1e-9)?;
        let defined = crate::greater(&f12, &threshold)?;
        let (left, right) = (rows(&m, 1, n + 1), rows(&m, 2, n + 2));
        let weighted = crate::add(
            &left,
            crate::multiply(crate::divide(&f2, &f12)?, crate::subtract(&right, &left)?)?,
        )?;
        let s = pick(&defined, &weighted, &fallback)?;
        Ok(Akima1DInterpolator(hermite_ppoly(
            &x,
            &y,
            &s,
            rest,
            ax,
            extrapolate,
        )?))
    }
}

impl Deref for Akima1DInterpolator {
    type Target = PPoly;
    fn deref(&self) -> &PPoly {
        &self.0
    }
}
