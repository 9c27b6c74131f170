//! Interpolation on the CPU: piecewise polynomials, tridiagonal solves
//! (Thomas' algorithm) and regular grids, in f64 and rounded once to the
//! views' dtype, as the CUDA half computes.

use super::grid_spline;
use super::CpuBackend;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::view::View;
use crate::ops::interpolate::banded::collocation_band;
use crate::ops::interpolate::{
    cell_of, interval_of, poly_derivative_at, Collocation, GridEval, GridMethod, Interpolate,
    PPolyEval, Tridiagonal,
};

/// Writes f64 values into a float32 or float64 view.
fn put(out: View<'_>, values: &[f64]) {
    if out.dtype() == DType::Float32 {
        let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        out.scatter(&v);
    } else {
        out.scatter(values);
    }
}

impl Interpolate for CpuBackend {
    fn ppoly_eval(&self, _op: &'static str, e: PPolyEval<'_>) -> Result<()> {
        let breaks = e.breaks.gather_as::<f64>();
        let coefs = e.coefs.gather_as::<f64>();
        let shape = e.coefs.shape();
        let (k, n, m) = (shape[0] - 1, shape[1], shape[2]);
        let xi = e.xi.gather_as::<f64>();
        let mut out = vec![f64::NAN; xi.len() * m];
        for (p, &x) in xi.iter().enumerate() {
            let Some(i) = interval_of(x, &breaks, e.extrapolate) else {
                continue;
            };
            let t = x - breaks[i];
            for j in 0..m {
                let c = |row: usize| coefs[(row * n + i) * m + j];
                out[p * m + j] = poly_derivative_at(c, k, e.nu, t);
            }
        }
        put(e.out, &out);
        Ok(())
    }

    fn solve_tridiagonal(&self, _op: &'static str, t: Tridiagonal<'_>) -> Result<()> {
        let (lower, diag, upper) = (
            t.lower.gather_as::<f64>(),
            t.diag.gather_as::<f64>(),
            t.upper.gather_as::<f64>(),
        );
        let n = diag.len();
        let mut rhs = t.rhs.gather_as::<f64>();
        // The forward sweep's modified upper diagonal is the same for every column.
        let mut c = vec![0.0; n];
        let mut denom = vec![0.0; n];
        for i in 0..n {
            let prev = if i == 0 { 0.0 } else { c[i - 1] };
            let lo = if i == 0 { 0.0 } else { lower[i] };
            denom[i] = diag[i] - lo * prev;
            c[i] = if i + 1 < n { upper[i] / denom[i] } else { 0.0 };
        }
        for col in rhs.chunks_mut(n) {
            for i in 0..n {
                let prev = if i == 0 { 0.0 } else { col[i - 1] };
                let lo = if i == 0 { 0.0 } else { lower[i] };
                col[i] = (col[i] - lo * prev) / denom[i];
            }
            for i in (0..n.saturating_sub(1)).rev() {
                col[i] -= c[i] * col[i + 1];
            }
        }
        put(t.rhs, &rhs);
        Ok(())
    }

    fn grid_eval(&self, _op: &'static str, g: GridEval<'_>) -> Result<()> {
        let axes_flat = g.axes.gather_as::<f64>();
        let mut axes = Vec::with_capacity(g.lengths.len());
        let mut start = 0;
        for &len in g.lengths {
            axes.push(&axes_flat[start..start + len]);
            start += len;
        }
        let d = axes.len();
        let values = g.values.gather_as::<f64>();
        let m = g.out.shape()[1];
        // Nodes (coefficients for a spline) along each axis, and their element strides.
        let counts: Vec<usize> = match g.method {
            GridMethod::Spline(k) => g.lengths.iter().map(|&n| n - k - 1).collect(),
            _ => g.lengths.to_vec(),
        };
        let mut strides = vec![m; d];
        for a in (0..d.saturating_sub(1)).rev() {
            strides[a] = strides[a + 1] * counts[a + 1];
        }
        let grid = Grid {
            axes: &axes,
            values: &values,
            strides: &strides,
            m,
        };
        let xi = g.xi.gather_as::<f64>();
        let points = xi.len().checked_div(d).unwrap_or(0);
        let mut out = vec![0.0; points * m];
        for p in 0..points {
            let x = &xi[p * d..(p + 1) * d];
            let row = &mut out[p * m..(p + 1) * m];
            let nan = x.iter().any(|v| v.is_nan());
            let outside = x
                .iter()
                .zip(&axes)
                .any(|(&v, ax)| v < ax[0] || v > ax[ax.len() - 1]);
            if nan || (outside && g.fill.is_some()) {
                row.fill(if nan {
                    f64::NAN
                } else {
                    g.fill.unwrap_or(f64::NAN)
                });
                continue;
            }
            match g.method {
                GridMethod::Nearest | GridMethod::Linear => {
                    multilinear(&grid, x, g.method == GridMethod::Nearest, row)
                }
                GridMethod::Spline(k) => grid_spline::spline_at(&grid, k, x, row),
                GridMethod::Pchip => grid_spline::pchip_at_point(&grid, x, row),
            }
        }
        put(g.out, &out);
        Ok(())
    }

    fn solve_collocation(&self, op: &'static str, c: Collocation<'_>) -> Result<()> {
        let (t, x) = (c.t.gather_as::<f64>(), c.x.gather_as::<f64>());
        let m = c.rhs.shape()[1];
        let mut rhs = c.rhs.gather_as::<f64>();
        collocation_band(op, &t, &x, c.k, c.order)?.solve(op, &mut rhs, m)?;
        put(c.rhs, &rhs);
        Ok(())
    }

    fn collocation_band(&self, op: &'static str, c: Collocation<'_>, band: View<'_>) -> Result<()> {
        let (t, x) = (c.t.gather_as::<f64>(), c.x.gather_as::<f64>());
        band.scatter(&collocation_band(op, &t, &x, c.k, c.order)?.into_values());
        Ok(())
    }
}

/// A grid's axes (or knots), its values (or coefficients) and their strides.
pub(super) struct Grid<'a> {
    pub axes: &'a [&'a [f64]],
    pub values: &'a [f64],
    pub strides: &'a [usize],
    pub m: usize,
}

/// The nearest node or the multilinear blend of the cell's corners.
fn multilinear(g: &Grid<'_>, x: &[f64], nearest: bool, row: &mut [f64]) {
    let d = g.axes.len();
    let cells: Vec<(usize, f64)> = (0..d).map(|a| cell_of(x[a], g.axes[a])).collect();
    if nearest {
        let base: usize = (0..d)
            .map(|a| {
                let (i, w) = cells[a];
                let up = g.axes[a].len() > 1 && w > 0.5;
                (i + usize::from(up)) * g.strides[a]
            })
            .sum();
        row.copy_from_slice(&g.values[base..base + g.m]);
        return;
    }
    for corner in 0..1usize << d {
        let mut weight = 1.0;
        let mut base = 0;
        for (a, &(i, w)) in cells.iter().enumerate() {
            let up = (corner >> (d - 1 - a)) & 1;
            weight *= if up == 1 { w } else { 1.0 - w };
            base += (i + up) * g.strides[a];
        }
        for (j, r) in row.iter_mut().enumerate() {
            *r += weight * g.values[base + j];
        }
    }
}
