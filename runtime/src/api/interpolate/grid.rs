//! Regular (rectilinear) grids: SciPy's `RegularGridInterpolator` and
//! `interpn`, one kernel per call that finds each point's cell along every
//! axis and reads its corners (linear, nearest), its tensor-product spline
//! (cubic, quintic: the coefficients solved axis by axis when the
//! interpolator is made) or its PCHIP fold (pchip).

use super::checks::{contiguous_as, value_dtype};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::ops::interpolate::{GridEval, GridMethod};

/// How a grid is read between its nodes (SciPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RegularGridMethod {
    /// Multilinear in the cell's corners.
    #[default]
    Linear,
    /// The nearest node (halfway rounds down, as SciPy).
    Nearest,
    /// The tensor-product spline of degree 1: the same values as `Linear`.
    SLinear,
    /// The tensor-product cubic spline with not-a-knot ends (`make_interp_spline`
    /// along each axis); at least 4 points per axis.
    Cubic,
    /// The tensor-product quintic spline; at least 6 points per axis.
    Quintic,
    /// PCHIP along each axis in turn, the last first (SciPy's recursive
    /// evaluation); at least 4 points per axis.
    Pchip,
}

impl RegularGridMethod {
    /// The fewest points per axis the method takes (SciPy's).
    fn min_points(self) -> usize {
        match self {
            RegularGridMethod::Nearest => 1,
            RegularGridMethod::Linear | RegularGridMethod::SLinear => 2,
            RegularGridMethod::Cubic | RegularGridMethod::Pchip => 4,
            RegularGridMethod::Quintic => 6,
        }
    }

    /// The degree of a tensor-product spline method.
    fn spline_degree(self) -> Option<usize> {
        match self {
            RegularGridMethod::Cubic => Some(3),
            RegularGridMethod::Quintic => Some(5),
            _ => None,
        }
    }
}

/// A grid's tensor-product spline: each axis' knots (concatenated, float64)
/// and their counts, and the coefficients `(n_0, ..., n_{d-1}, m)`.
#[derive(Debug, Clone)]
struct GridSpline {
    k: usize,
    knots: Array,
    lengths: Vec<usize>,
    coefs: Array,
}

/// Options of [`RegularGridInterpolator`] and [`interpn`]; `Default` is
/// SciPy's (`method='linear'`, `bounds_error=True`, `fill_value=nan`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridOptions {
    pub method: RegularGridMethod,
    /// Points outside the grid are an error.
    pub bounds_error: bool,
    /// The value outside the grid (when `bounds_error` is off); `None`
    /// extrapolates.
    pub fill_value: Option<f64>,
}

impl Default for GridOptions {
    fn default() -> Self {
        GridOptions {
            method: RegularGridMethod::Linear,
            bounds_error: true,
            fill_value: Some(f64::NAN),
        }
    }
}

option_setters!(GridOptions {
    /// How the grid is read between nodes.
    method: RegularGridMethod,
    /// Points outside the grid are an error.
    bounds_error: bool,
    /// The value outside the grid; `None` extrapolates.
    fill_value: Option<f64>,
});

/// Values on a rectilinear grid, read at any points (SciPy's
/// `RegularGridInterpolator`).
#[derive(Debug, Clone)]
pub struct RegularGridInterpolator {
    /// The axes, concatenated, float64.
    axes: Array,
    lengths: Vec<usize>,
    /// `(n_0, ..., n_{d-1}, m)`.
    values: Array,
    /// The shape of the values at one node.
    rest: Vec<usize>,
    /// Each axis' first and last node, for the bounds check.
    ends: Vec<(f64, f64)>,
    opts: GridOptions,
    /// The spline of a cubic or quintic `opts.method`, solved once.
    spline: Option<GridSpline>,
}

impl RegularGridInterpolator {
    /// The interpolator of `values` (shape `(n_0, ..., n_{d-1}, ...)`) on
    /// the strictly increasing axes `points` (lengths `n_k`).
    pub fn new(points: &[&Array], values: &Array, opts: GridOptions) -> Result<Self> {
        let op = "RegularGridInterpolator";
        let d = points.len();
        if d == 0 || d > values.ndim() {
            return Err(Error::shape(
                op,
                format!(
                    "there are {d} point arrays, but values has {} dimensions (shape {:?})",
                    values.ndim(),
                    values.shape()
                ),
            ));
        }
        let dt = value_dtype(op, values.dtype())?;
        let min = opts.method.min_points();
        let mut axes = Vec::with_capacity(d);
        let mut ends = Vec::with_capacity(d);
        for (k, p) in points.iter().enumerate() {
            crate::api::shape::index::same_device(op, p, values)?;
            if p.ndim() != 1 || p.size() != values.shape()[k] {
                return Err(Error::shape(
                    op,
                    format!(
                        "there are {} points in dimension {k}, but values has {} (shape {:?})",
                        p.size(),
                        values.shape()[k],
                        values.shape()
                    ),
                ));
            }
            if p.size() < min {
                return Err(Error::invalid(
                    op,
                    format!(
                        "dimension {k} has {} point(s); method {:?} needs at least {min}",
                        p.size(),
                        opts.method
                    ),
                ));
            }
            let a = super::checks::sample_points(op, p, DType::Float64, min)
                .map_err(|e| Error::invalid(op, format!("the points in dimension {k}: {e}")))?;
            ends.push((a.at(0)?.item::<f64>()?, a.at(-1)?.item::<f64>()?));
            axes.push(a);
        }
        let refs: Vec<&Array> = axes.iter().collect();
        let axes = crate::concatenate(&refs, 0)?;
        let lengths: Vec<usize> = values.shape()[..d].to_vec();
        let rest = values.shape()[d..].to_vec();
        let m: usize = rest.iter().product();
        let mut shape: Vec<isize> = lengths.iter().map(|&v| v as isize).collect();
        shape.push(m as isize);
        let values = contiguous_as(values, dt)?.reshape(shape)?;
        if let Some(f) = opts.fill_value {
            if dt == DType::Float32 && f.is_finite() && (f as f32).is_infinite() {
                return Err(Error::invalid(
                    op,
                    format!("fill_value {f} does not fit float32 values"),
                ));
            }
        }
        let mut grid = RegularGridInterpolator {
            axes,
            lengths,
            values,
            rest,
            ends,
            opts,
            spline: None,
        };
        if let Some(k) = opts.method.spline_degree() {
            grid.spline = Some(grid.solve_spline(k)?);
        }
        Ok(grid)
    }

    /// The tensor-product spline of degree `k` through the values: the
    /// interpolating spline's coefficients solved along each axis in turn
    /// (the collocation matrices' Kronecker product is solved by solving
    /// each factor over the other axes).
    fn solve_spline(&self, k: usize) -> Result<GridSpline> {
        let op = "RegularGridInterpolator";
        let d = self.lengths.len();
        let mut coefs = self.values.astype(DType::Float64)?;
        let mut knots = Vec::with_capacity(d);
        let mut start = 0;
        for (a, &n) in self.lengths.iter().enumerate() {
            let x = super::checks::rows(&self.axes, start, start + n);
            start += n;
            let moved = coefs.moveaxis(a as isize, 0)?;
            let shape: Vec<isize> = moved.shape().iter().map(|&v| v as isize).collect();
            let flat = moved.ascontiguousarray()?.reshape([n as isize, -1])?;
            let (t, c) = super::bspline::collocation_spline(
                op,
                &x,
                &flat,
                k,
                super::bspline::SplineEnds::NotAKnot,
            )?;
            coefs = c.reshape(shape)?.moveaxis(0, a as isize)?;
            knots.push(t);
        }
        let lengths = knots.iter().map(|t| t.size()).collect();
        let refs: Vec<&Array> = knots.iter().collect();
        Ok(GridSpline {
            k,
            knots: crate::concatenate(&refs, 0)?,
            lengths,
            coefs: contiguous_as(&coefs, self.values.dtype())?,
        })
    }

    /// Its values at `xi` (shape `(..., d)`; 1-D for a 1-D grid): shape
    /// `xi.shape[:-1] + values.shape[d:]`.
    pub fn call(&self, xi: &Array) -> Result<Array> {
        self.call_with(xi, self.opts.method)
    }

    /// As [`call`](Self::call) with another method.
    pub fn call_with(&self, xi: &Array, method: RegularGridMethod) -> Result<Array> {
        let op = "RegularGridInterpolator.__call__";
        crate::api::shape::index::same_device(op, &self.values, xi)?;
        let d = self.lengths.len();
        let (lead, xi2): (Vec<usize>, Array) = if xi.ndim() == 1 && d == 1 {
            (xi.shape().to_vec(), xi.reshape([-1, 1])?)
        } else if xi.ndim() >= 1 && xi.shape()[xi.ndim() - 1] == d {
            (
                xi.shape()[..xi.ndim() - 1].to_vec(),
                xi.reshape([-1, d as isize])?,
            )
        } else {
            return Err(Error::shape(
                op,
                format!(
                    "the points xi have dimension {} (shape {:?}), but the grid has dimension {d}",
                    xi.shape().last().copied().unwrap_or(0),
                    xi.shape()
                ),
            ));
        };
        if xi.dtype().is_complex() {
            return Err(Error::DType {
                op,
                detail: format!("the points must be real, got {}", xi.dtype()),
            });
        }
        let min = method.min_points();
        if let Some((a, n)) = self.lengths.iter().enumerate().find(|&(_, &n)| n < min) {
            return Err(Error::invalid(
                op,
                format!(
                    "there are {n} points in dimension {a}, but method {method:?} needs at least {min} per dimension (grid {:?})",
                    self.lengths
                ),
            ));
        }
        // Points keep float32 or float64; the result is the wider of theirs and the values'.
        let xt = if xi.dtype() == DType::Float32 {
            DType::Float32
        } else {
            DType::Float64
        };
        let xi2 = contiguous_as(&xi2, xt)?;
        let dt = crate::core::dtype::promote_types(self.values.dtype(), xt);
        if self.opts.bounds_error {
            self.check_bounds(op, &xi2)?;
        }
        let p = xi2.shape()[0];
        let m = self.values.shape()[d];
        let solved;
        let spline = match (method.spline_degree(), &self.spline) {
            (Some(k), Some(s)) if s.k == k => Some(s),
            (Some(k), _) => {
                solved = self.solve_spline(k)?;
                Some(&solved)
            }
            (None, _) => None,
        };
        let b = crate::backend::on(op, xi.device())?;
        let out = Array::from_parts(b.empty(op, dt, p * m)?, Layout::contiguous(&[p, m]), dt);
        let (axes, lengths, values) = match spline {
            Some(s) => (&s.knots, &s.lengths, &s.coefs),
            None => (&self.axes, &self.lengths, &self.values),
        };
        b.grid_eval(
            op,
            GridEval {
                axes: axes.view(),
                lengths,
                values: values.view(),
                xi: xi2.view(),
                method: match method {
                    RegularGridMethod::Linear | RegularGridMethod::SLinear => GridMethod::Linear,
                    RegularGridMethod::Nearest => GridMethod::Nearest,
                    RegularGridMethod::Cubic | RegularGridMethod::Quintic => {
                        GridMethod::Spline(spline.map_or(3, |s| s.k))
                    }
                    RegularGridMethod::Pchip => GridMethod::Pchip,
                },
                fill: self.opts.fill_value,
                out: out.view(),
            },
        )?;
        let mut shape = lead;
        shape.extend_from_slice(&self.rest);
        out.reshape(shape)
    }

    /// An error naming the first point outside the grid, if any.
    fn check_bounds(&self, op: &'static str, xi: &Array) -> Result<()> {
        let d = self.lengths.len();
        let lo: Vec<f64> = self.ends.iter().map(|e| e.0).collect();
        let hi: Vec<f64> = self.ends.iter().map(|e| e.1).collect();
        let dt = xi.dtype();
        let lo_a = super::checks::constants(lo.clone(), dt, xi)?;
        let hi_a = super::checks::constants(hi.clone(), dt, xi)?;
        let outside = crate::logical_or(crate::less(xi, &lo_a)?, crate::greater(xi, &hi_a)?)?;
        if !outside.any()?.item::<bool>()? {
            return Ok(());
        }
        let at = crate::argmax(&outside.reshape([-1])?, None, false)?.item::<i64>()? as usize;
        let (p, k) = (at / d, at % d);
        let v = xi.reshape([-1])?.at(at as isize)?.item::<f64>()?;
        Err(Error::invalid(
            op,
            format!("one of the requested xi is out of bounds in dimension {k}: xi[{p}, {k}] = {v} is outside [{}, {}] (bounds_error is on)", lo[k], hi[k]),
        ))
    }
}

/// Interpolation on a regular grid at the points `xi` (SciPy's `interpn`).
pub fn interpn(points: &[&Array], values: &Array, xi: &Array, opts: GridOptions) -> Result<Array> {
    RegularGridInterpolator::new(points, values, opts)?.call(xi)
}
