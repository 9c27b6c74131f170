//! Regular grids read by splines on the CPU: the tensor-product B-spline
//! (methods cubic and quintic) and PCHIP folded axis by axis (method pchip),
//! one point at a time in f64, as the CUDA half computes.

use super::interpolate::Grid;
use crate::ops::interpolate::banded::{basis_values, interval, MAX_DEGREE};
use crate::ops::interpolate::cell_of;
use crate::ops::interpolate::pchip::{pchip_at, pchip_window};

/// The tensor-product spline of degree `k` (knots in `g.axes`,
/// coefficients in `g.values`) at `x`, every trailing value into `row`.
pub(super) fn spline_at(g: &Grid<'_>, k: usize, x: &[f64], row: &mut [f64]) {
    let d = g.axes.len();
    let mut basis = vec![[0.0f64; MAX_DEGREE + 1]; d];
    let mut first = vec![0usize; d];
    for a in 0..d {
        let t = g.axes[a];
        let nt = t.len() - k - 1;
        let l = interval(t, k, nt, x[a]);
        basis_values(t, k, l, x[a], &mut basis[a]);
        first[a] = l - k;
    }
    row.fill(0.0);
    let taps = (k + 1).pow(d as u32);
    for combo in 0..taps {
        // The combination's digit along each axis, the last axis fastest.
        let (mut rest, mut weight, mut base) = (combo, 1.0, 0);
        for a in (0..d).rev() {
            let q = rest % (k + 1);
            rest /= k + 1;
            weight *= basis[a][q];
            base += (first[a] + q) * g.strides[a];
        }
        for (j, r) in row.iter_mut().enumerate() {
            *r += weight * g.values[base + j];
        }
    }
}

/// PCHIP along the last axis, then each earlier one, at `x` (SciPy's
/// recursive evaluation, over the window of nodes each cell needs).
pub(super) fn pchip_at_point(g: &Grid<'_>, x: &[f64], row: &mut [f64]) {
    let cells: Vec<usize> = (0..g.axes.len())
        .map(|a| cell_of(x[a], g.axes[a]).0)
        .collect();
    for (j, r) in row.iter_mut().enumerate() {
        *r = fold(g, x, &cells, 0, j);
    }
}

/// The value folded over axes `a..`, the earlier axes fixed at `offset`.
fn fold(g: &Grid<'_>, x: &[f64], cells: &[usize], a: usize, offset: usize) -> f64 {
    let axis = g.axes[a];
    let i = cells[a];
    let (s, w) = pchip_window(i, axis.len());
    let mut v = [0.0f64; 4];
    for (q, vq) in v.iter_mut().enumerate().take(w) {
        let at = offset + (s + q) * g.strides[a];
        *vq = if a + 1 == g.axes.len() {
            g.values[at]
        } else {
            fold(g, x, cells, a + 1, at)
        };
    }
    pchip_at(axis, s, &v[..w], i, x[a])
}
