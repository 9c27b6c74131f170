//! Savitzky-Golay filters (`scipy.signal.savgol_coeffs`, `savgol_filter`):
//! the coefficients are a small least-squares problem solved on the host;
//! filtering is a correlation along the axis on the data's device, and the
//! 'interp' edges are one small matrix product (the polynomial fitted to
//! the first or last window is a fixed linear map of those samples).

use crate::api::linalg::matmul::matmul;
use crate::api::shape::concatenate;
use crate::api::shape::index::slice_axis;
use crate::api::shape::manip::{pad, PadMode};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

use super::along::{correlate_taps, restore, rows_last};

/// How `savgol_filter` treats the ends (SciPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum SavgolMode {
    /// A polynomial fitted to the first / last window gives the edge values.
    #[default]
    Interp,
    /// Reflection about the end samples (`d c b | a b c d | c b a`).
    Mirror,
    /// A constant value beyond the ends (`cval`).
    Constant(f64),
    /// The end samples repeated.
    Nearest,
    /// Periodic.
    Wrap,
}

/// Solves the small dense system `a x = b` (n x n, row-major) by Gaussian
/// elimination with partial pivoting.
fn solve(mut a: Vec<f64>, mut b: Vec<f64>, n: usize) -> Vec<f64> {
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| a[i * n + c].abs().total_cmp(&a[j * n + c].abs()))
            .unwrap_or(c);
        if p != c {
            for k in 0..n {
                a.swap(c * n + k, p * n + k);
            }
            b.swap(c, p);
        }
        let d = a[c * n + c];
        for r in c + 1..n {
            let f = a[r * n + c] / d;
            for k in c..n {
                a[r * n + k] -= f * a[c * n + k];
            }
            b[r] -= f * b[c];
        }
    }
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| a[c * n + k] * b[k]).sum();
        b[c] = (b[c] - s) / a[c * n + c];
    }
    b
}

fn factorial(k: usize) -> f64 {
    (1..=k).map(|i| i as f64).product()
}

/// The `window_length` coefficients (`scipy.signal.savgol_coeffs`) in
/// 'dot' order (sample `pos` is the point estimated), or reversed for
/// convolution when `conv`. `pos` defaults to the centre.
pub fn savgol_coeffs(
    window_length: usize,
    polyorder: usize,
    deriv: usize,
    delta: f64,
    pos: Option<f64>,
    conv: bool,
) -> Result<Vec<f64>> {
    let op = "savgol_coeffs";
    let w = window_length;
    if polyorder >= w {
        return Err(Error::invalid(
            op,
            format!("polyorder ({polyorder}) must be less than window_length ({w})"),
        ));
    }
    // The fit is a host matrix of (polyorder + 1) x window_length values.
    let cells = crate::core::layout::checked_size(op, &[w, polyorder + 1])?;
    crate::core::layout::check_host_room(op, cells, 8)?;
    let pos = pos.unwrap_or(if w % 2 == 0 {
        (w / 2) as f64 - 0.5
    } else {
        (w / 2) as f64
    });
    if !(0.0..w as f64).contains(&pos) {
        return Err(Error::invalid(
            op,
            format!("pos ({pos}) must be nonnegative and less than window_length ({w})"),
        ));
    }
    if deriv > polyorder {
        return Ok(vec![0.0; w]);
    }
    // min-norm solution of A c = y with A[k][j] = x_j^k; scaled by s^-k so
    // the normal matrix stays well conditioned.
    let xs: Vec<f64> = (0..w).map(|j| j as f64 - pos).collect();
    let s = xs.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let m = polyorder + 1;
    let a: Vec<Vec<f64>> = (0..m)
        .map(|k| xs.iter().map(|x| (x / s).powi(k as i32)).collect())
        .collect();
    let mut gram = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..m {
            gram[i * m + j] = a[i].iter().zip(&a[j]).map(|(p, q)| p * q).sum();
        }
    }
    let mut y = vec![0.0; m];
    y[deriv] = factorial(deriv) / delta.powi(deriv as i32) / s.powi(deriv as i32);
    let z = solve(gram, y, m);
    let mut c: Vec<f64> = (0..w)
        .map(|j| (0..m).map(|k| a[k][j] * z[k]).sum())
        .collect();
    if conv {
        c.reverse();
    }
    Ok(c)
}

/// The map from a window of `w` samples to the `deriv`-th derivative of
/// their degree-`p` least-squares polynomial at positions `at`: (at.len(), w).
fn edge_map(w: usize, p: usize, deriv: usize, delta: f64, at: &[usize]) -> Vec<f64> {
    let c = (w as f64 - 1.0) / 2.0;
    let s = c.max(1.0);
    let m = p + 1;
    let u: Vec<f64> = (0..w).map(|t| (t as f64 - c) / s).collect();
    let mut gram = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..m {
            gram[i * m + j] = u.iter().map(|v| v.powi((i + j) as i32)).sum();
        }
    }
    let mut out = Vec::with_capacity(at.len() * w);
    for &i in at {
        let ui = (i as f64 - c) / s;
        // d^deriv/dt^deriv of u^k at ui.
        let e: Vec<f64> = (0..m)
            .map(|k| {
                if k < deriv {
                    0.0
                } else {
                    factorial(k) / factorial(k - deriv) * ui.powi((k - deriv) as i32)
                        / s.powi(deriv as i32)
                }
            })
            .collect();
        // row = e^T G^-1 U^T
        let g = solve(gram.clone(), e, m);
        for &ut in &u {
            out.push(
                (0..m).map(|k| g[k] * ut.powi(k as i32)).sum::<f64>() / delta.powi(deriv as i32),
            );
        }
    }
    out
}

/// Options of [`savgol_filter`] beyond the window (SciPy's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavgolOptions {
    pub deriv: usize,
    pub delta: f64,
    pub axis: isize,
    pub mode: SavgolMode,
}

impl Default for SavgolOptions {
    fn default() -> Self {
        SavgolOptions {
            deriv: 0,
            delta: 1.0,
            axis: -1,
            mode: SavgolMode::Interp,
        }
    }
}

/// A Savitzky-Golay filter of `x` along an axis (`scipy.signal.savgol_filter`).
pub fn savgol_filter(
    x: &Array,
    window_length: usize,
    polyorder: usize,
    opts: SavgolOptions,
) -> Result<Array> {
    let op = "savgol_filter";
    x.device().check_available(op)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    if x.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: "complex input is not supported".into(),
        });
    }
    let w = window_length;
    let dot = savgol_coeffs(w, polyorder, opts.deriv, opts.delta, None, false)?;
    let dt = if x.dtype() == DType::Float32 {
        DType::Float32
    } else {
        DType::Float64
    };
    let ax = normalize_axis(op, opts.axis, x.ndim())?;
    let n = x.shape()[ax];
    let rows = rows_last(x, ax, dt)?;
    let last = rows.ndim() - 1;
    let shift = (w - 1) / 2;
    let mut widths = vec![(0usize, 0usize); rows.ndim()];
    widths[last] = (shift, w - 1 - shift);
    let mode = match opts.mode {
        SavgolMode::Interp => {
            if w > n {
                return Err(Error::invalid(
                    op,
                    format!("with mode 'interp', window_length ({w}) must be at most the length of x along the axis ({n})"),
                ));
            }
            PadMode::Constant(0.into())
        }
        SavgolMode::Mirror => PadMode::Reflect,
        SavgolMode::Constant(c) => PadMode::Constant(c.into()),
        SavgolMode::Nearest => PadMode::Edge,
        SavgolMode::Wrap => PadMode::Wrap,
    };
    if n == 0 {
        return restore(&rows.copy()?, ax);
    }
    if matches!(opts.mode, SavgolMode::Mirror) && n < 2 && w > 1 {
        return Err(Error::invalid(
            op,
            "mode 'mirror' needs at least two samples",
        ));
    }
    let padded = pad(&rows, widths, mode)?;
    let y = correlate_taps(&padded, &dot, 1, 1, n)?;
    let y = if opts.mode == SavgolMode::Interp && w > 1 {
        let half = w / 2;
        let left_at: Vec<usize> = (0..half).collect();
        let right_at: Vec<usize> = (w - half..w).collect();
        let edge = |at: &[usize], start: usize| -> Result<Array> {
            let m = edge_map(w, polyorder, opts.deriv, opts.delta, at);
            let m = Array::from_host_slice(&m, &[at.len(), w], x.device())?
                .astype(dt)?
                .transpose();
            let win = slice_axis(
                &rows,
                last,
                Some(start as isize),
                Some((start + w) as isize),
                1,
            )?;
            matmul(&win, &m)
        };
        let left = edge(&left_at, 0)?;
        let right = edge(&right_at, n - w)?;
        let mid = slice_axis(&y, last, Some(half as isize), Some((n - half) as isize), 1)?;
        concatenate(&[&left, &mid, &right], -1)?
    } else {
        y
    };
    restore(&y, ax)
}
