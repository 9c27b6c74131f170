//! `interp1d`: SciPy's classic 1-D interpolating function object, over
//! the same pieces as the rest of the module: nearest, previous and next
//! by `searchsorted` and a gather, the splines as piecewise polynomials.

use super::checks::{
    contiguous_as, row, rows, sample_points, value_dtype, values_along, xi_axes_at, zeros_of,
};
use super::cubic::{CubicSpline, CubicSplineOptions};
use super::ppoly::{Extrapolate, PPoly};
use crate::api::sorting::search::Side;
use crate::core::array::Array;
use crate::core::error::{Error, Result};
use crate::ops::index::IndexMode;

/// How `interp1d` reads between the points (SciPy's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Interp1dKind {
    /// The line between neighbours.
    #[default]
    Linear,
    /// The nearest point; halfway rounds down.
    Nearest,
    /// The nearest point; halfway rounds up.
    NearestUp,
    /// The point at or before.
    Previous,
    /// The point at or after.
    Next,
    /// The spline of degree 0: the value of the last point at or before
    /// (the first point's below them).
    Zero,
    /// The spline of degree 1 (as `Linear`).
    SLinear,
    /// The quadratic spline (knots at the midpoints, SciPy's `k=2`).
    Quadratic,
    /// The not-a-knot cubic spline.
    Cubic,
}

/// What `interp1d` gives outside `x` (SciPy's `fill_value`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FillValue {
    /// One value below and above.
    Value(f64),
    /// `(below, above)`.
    BelowAbove(f64, f64),
    /// Continue the interpolant (SciPy's `"extrapolate"`).
    Extrapolate,
}

impl Default for FillValue {
    fn default() -> Self {
        FillValue::Value(f64::NAN)
    }
}

/// Options of [`interp1d`]; `Default` is SciPy's (`kind='linear'`,
/// `axis=-1`, `bounds_error=None`, `fill_value=nan`, `assume_sorted=False`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interp1dOptions {
    pub kind: Interp1dKind,
    /// The axis of `y` along `x`.
    pub axis: isize,
    /// Points outside `x` are an error; `None`: unless extrapolating.
    pub bounds_error: Option<bool>,
    pub fill_value: FillValue,
    /// `x` is already increasing (otherwise it is sorted, with `y`).
    pub assume_sorted: bool,
}

impl Default for Interp1dOptions {
    fn default() -> Self {
        Interp1dOptions {
            kind: Interp1dKind::Linear,
            axis: -1,
            bounds_error: None,
            fill_value: FillValue::default(),
            assume_sorted: false,
        }
    }
}

option_setters!(Interp1dOptions {
    /// How it reads between the points.
    kind: Interp1dKind,
    /// The axis of `y` along `x`.
    axis: isize,
    /// Points outside `x` are an error.
    bounds_error: Option<bool>,
    /// What it gives outside `x`.
    fill_value: FillValue,
    /// `x` is already increasing.
    assume_sorted: bool,
});

/// How the values between points are computed.
#[derive(Debug, Clone)]
enum Reader {
    Poly(Box<PPoly>),
    /// Gathers `y` (`(n, m)`) at a searchsorted index.
    Pick(Interp1dKind),
}

/// A 1-D interpolating function (SciPy's `interp1d`): call it on points.
#[derive(Debug, Clone)]
pub struct Interp1d {
    x: Array,
    /// `(n, m)`, the interpolation axis first.
    y: Array,
    rest: Vec<usize>,
    axis: usize,
    reader: Reader,
    bounds_error: bool,
    fill_value: FillValue,
}

/// A 1-D interpolating function through `(x, y)` (SciPy's `interp1d`).
pub fn interp1d(x: &Array, y: &Array, opts: Interp1dOptions) -> Result<Interp1d> {
    Interp1d::new(x, y, opts)
}

impl Interp1d {
    /// See [`interp1d`].
    pub fn new(x: &Array, y: &Array, opts: Interp1dOptions) -> Result<Interp1d> {
        let op = "interp1d";
        crate::api::shape::index::same_device(op, x, y)?;
        let dt = value_dtype(op, y.dtype())?;
        if x.ndim() != 1 {
            return Err(Error::shape(
                op,
                format!("x must be 1-D, got shape {:?}", x.shape()),
            ));
        }
        let (x, y) = if opts.assume_sorted || x.size() < 2 {
            (x.clone(), y.clone())
        } else {
            let ax = crate::core::layout::normalize_axis(op, opts.axis, y.ndim().max(1))?;
            let order = crate::argsort(x, -1)?;
            (
                crate::take(x, &order, None)?,
                crate::take(y, &order, Some(ax as isize))?,
            )
        };
        let min = match opts.kind {
            Interp1dKind::Cubic => 4,
            Interp1dKind::Quadratic => 3,
            Interp1dKind::Nearest
            | Interp1dKind::NearestUp
            | Interp1dKind::Previous
            | Interp1dKind::Next => 1,
            _ => 2,
        };
        let x = sample_points(op, &x, dt, min)?;
        let n = x.size();
        let (y, rest, ax) = values_along(op, &y, opts.axis, n, dt)?;
        let reader = match opts.kind {
            Interp1dKind::Linear | Interp1dKind::SLinear => {
                Reader::Poly(Box::new(linear(&x, &y, &rest, ax)?))
            }
            Interp1dKind::Quadratic => Reader::Poly(Box::new(super::quadratic::quadratic_spline(
                &x, &y, &rest, ax,
            )?)),
            Interp1dKind::Cubic => {
                let o = CubicSplineOptions::default().axis(0);
                let s = CubicSpline::with(&x, &y, o)?;
                Reader::Poly(Box::new(PPoly::from_parts(
                    x.clone(),
                    s.c()?.reshape([4, n as isize - 1, -1])?,
                    rest.clone(),
                    ax,
                    Extrapolate::Yes,
                )))
            }
            k => Reader::Pick(k),
        };
        let bounds_error = opts
            .bounds_error
            .unwrap_or(opts.fill_value != FillValue::Extrapolate);
        if bounds_error && opts.fill_value == FillValue::Extrapolate {
            return Err(Error::invalid(op, "cannot extrapolate and raise at the same time (fill_value extrapolate with bounds_error true)"));
        }
        Ok(Interp1d {
            x,
            y,
            rest,
            axis: ax,
            reader,
            bounds_error,
            fill_value: opts.fill_value,
        })
    }

    /// Its values at `x_new`: shape `y.shape[:axis] + x_new.shape + y.shape[axis+1:]`.
    pub fn call(&self, x_new: &Array) -> Result<Array> {
        let op = "interp1d.__call__";
        crate::api::shape::index::same_device(op, &self.x, x_new)?;
        if x_new.dtype().is_complex() {
            return Err(Error::DType {
                op,
                detail: format!("the points must be real, got {}", x_new.dtype()),
            });
        }
        let dt = self.y.dtype();
        let n = self.x.size();
        let flat = contiguous_as(&x_new.reshape([-1])?, dt)?;
        let (lo, hi) = (row(&self.x, 0), row(&self.x, n - 1));
        let below = crate::less(&flat, &lo)?;
        let above = crate::greater(&flat, &hi)?;
        if self.bounds_error {
            check_bounds(op, &flat, &below, &above, &self.x)?;
        }
        let m = self.y.shape()[1];
        let values = match &self.reader {
            Reader::Poly(p) => p.with_axis(0).call(&flat)?,
            Reader::Pick(kind) => {
                let at = self.pick_index(*kind, &flat)?;
                crate::take_mode(&self.y, &at, Some(0), IndexMode::Clip)?
            }
        };
        let values = values.reshape([flat.size() as isize, m as isize])?;
        // Nothing comes before the first point or after the last (SciPy
        // gives NaN there even when extrapolating).
        let values = match self.reader {
            Reader::Pick(Interp1dKind::Previous) => {
                fill(&values, &below, &below, f64::NAN, f64::NAN)?
            }
            Reader::Pick(Interp1dKind::Next) => fill(&values, &above, &above, f64::NAN, f64::NAN)?,
            _ => values,
        };
        let values = match self.fill_value {
            FillValue::Extrapolate => values,
            FillValue::Value(v) => fill(&values, &below, &above, v, v)?,
            FillValue::BelowAbove(b, a) => fill(&values, &below, &above, b, a)?,
        };
        let mut shape = x_new.shape().to_vec();
        shape.extend_from_slice(&self.rest);
        xi_axes_at(
            values.reshape(shape)?,
            x_new.ndim(),
            self.rest.len(),
            self.axis,
        )
    }

    /// The row of `y` each point reads for the nearest, previous and next kinds.
    fn pick_index(&self, kind: Interp1dKind, flat: &Array) -> Result<Array> {
        let n = self.x.size() as i64;
        let x = &self.x;
        Ok(match kind {
            Interp1dKind::Nearest | Interp1dKind::NearestUp => {
                if n == 1 {
                    return zeros_of(flat)?.astype(crate::int64);
                }
                let mid = crate::multiply(
                    crate::add(rows(x, 1, n as usize), rows(x, 0, n as usize - 1))?,
                    0.5,
                )?;
                let side = if kind == Interp1dKind::Nearest {
                    Side::Left
                } else {
                    Side::Right
                };
                crate::searchsorted(&mid, flat, side, None)?
            }
            // The degree-0 spline: the value of the last point at or before,
            // the first point's below them.
            Interp1dKind::Previous | Interp1dKind::Zero => {
                let i = crate::searchsorted(x, flat, Side::Right, None)?;
                crate::subtract(crate::clip(&i, 1i64, n)?, 1i64)?
            }
            _ => {
                let i = crate::searchsorted(x, flat, Side::Left, None)?;
                crate::clip(&i, 0i64, n - 1)?
            }
        })
    }
}

/// The piecewise line through `(x, y)`.
fn linear(x: &Array, y: &Array, rest: &[usize], axis: usize) -> Result<PPoly> {
    let n = x.size();
    let dx = crate::diff(x, 1, 0)?.reshape([n as isize - 1, 1])?;
    let slope = crate::divide(crate::diff(y, 1, 0)?, &dx)?;
    let c = crate::stack(&[&slope, &rows(y, 0, n - 1)], 0)?;
    Ok(PPoly::from_parts(
        x.clone(),
        c,
        rest.to_vec(),
        axis,
        Extrapolate::Yes,
    ))
}

/// `values` (`(p, m)`) with `below`/`above` rows replaced.
fn fill(values: &Array, below: &Array, above: &Array, b: f64, a: f64) -> Result<Array> {
    let (lo, hi) = (below.reshape([-1, 1])?, above.reshape([-1, 1])?);
    let v = crate::where_(&lo, b, values)?;
    crate::where_(&hi, a, &v)?.astype(values.dtype())
}

/// An error naming the first point outside `x`, if any.
fn check_bounds(
    op: &'static str,
    flat: &Array,
    below: &Array,
    above: &Array,
    x: &Array,
) -> Result<()> {
    let outside = crate::logical_or(below, above)?;
    if !outside.any()?.item::<bool>()? {
        return Ok(());
    }
    let i = crate::argmax(&outside, None, false)?.item::<i64>()?;
    let v = flat.at(i as isize)?.item::<f64>()?;
    let (lo, hi) = (x.at(0)?.item::<f64>()?, x.at(-1)?.item::<f64>()?);
    let side = if v < lo { "below" } else { "above" };
    Err(Error::invalid(
        op,
        format!("a value in x_new is {side} the interpolation range [{lo}, {hi}]: x_new[{i}] = {v} (bounds_error is on)"),
    ))
}
