//! Interpolation on the CPU: piecewise polynomials, tridiagonal solves
//! (Thomas' algorithm) and regular grids, in f64 and rounded once to the
//! views' dtype, as the CUDA half computes.

use super::CpuBackend;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::view::View;
use crate::ops::interpolate::{
    cell_of, interval_of, poly_derivative_at, GridEval, GridMethod, Interpolate, PPolyEval,
    Tridiagonal,
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
        // Element strides of the grid axes in `values` (the last axis is m).
        let mut strides = vec![m; d];
        for a in (0..d.saturating_sub(1)).rev() {
            strides[a] = strides[a + 1] * g.lengths[a + 1];
        }
        let xi = g.xi.gather_as::<f64>();
        let points = xi.len().checked_div(d).unwrap_or(0);
        let mut out = vec![0.0; points * m];
        let mut cells = vec![(0usize, 0.0f64); d];
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
            for a in 0..d {
                cells[a] = cell_of(x[a], axes[a]);
            }
            match g.method {
                GridMethod::Nearest => {
                    let base: usize = (0..d)
                        .map(|a| {
                            let (i, w) = cells[a];
                            let up = g.lengths[a] > 1 && w > 0.5;
                            (i + usize::from(up)) * strides[a]
                        })
                        .sum();
                    row.copy_from_slice(&values[base..base + m]);
                }
                GridMethod::Linear => {
                    for corner in 0..1usize << d {
                        let mut weight = 1.0;
                        let mut base = 0;
                        for (a, &(i, w)) in cells.iter().enumerate() {
                            let up = (corner >> (d - 1 - a)) & 1;
                            weight *= if up == 1 { w } else { 1.0 - w };
                            base += (i + up) * strides[a];
                        }
                        for (j, r) in row.iter_mut().enumerate() {
                            *r += weight * values[base + j];
                        }
                    }
                }
            }
        }
        put(g.out, &out);
        Ok(())
    }
}
