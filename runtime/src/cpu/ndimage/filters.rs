//! Line and window filters on the CPU: the reference the kernels of
//! `cuda/ndimage` are tested against.

use crate::core::view::View;
use crate::ops::ndimage::{extend, BinarySteps, LineFilter, LineOp, Window};

/// Row-major strides (in elements) of `shape`.
pub(super) fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// The extents before, along and after `axis`: (outer, n, inner).
pub(super) fn around(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// `f` over every line along `axis`: the line's samples (gathered) and
/// where the output line starts and steps.
pub(super) fn lines_along(
    x: &[f64],
    shape: &[usize],
    axis: usize,
    mut f: impl FnMut(&[f64], usize, usize),
) {
    let (outer, n, inner) = around(shape, axis);
    let mut line = vec![0.0; n];
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            for (k, v) in line.iter_mut().enumerate() {
                *v = x[base + k * inner];
            }
            f(&line, base, inner);
        }
    }
}

/// The line filter `f` of the host copy `x` of shape `shape`.
pub(super) fn line_filter(x: &[f64], shape: &[usize], f: &LineFilter<'_>) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    if x.is_empty() {
        return out;
    }
    lines_along(x, shape, f.axis, |line, base, step| {
        let n = line.len() as i64;
        for i in 0..n {
            let mut acc = match f.op {
                LineOp::Correlate => 0.0,
                LineOp::Min => f64::INFINITY,
                LineOp::Max => f64::NEG_INFINITY,
            };
            for (k, &w) in f.weights.iter().enumerate() {
                let v = match extend(i + k as i64 - f.center, n, f.mode) {
                    Some(p) => line[p as usize],
                    None => f.cval,
                };
                acc = match f.op {
                    LineOp::Correlate => acc + w * v,
                    LineOp::Min => acc.min(v),
                    LineOp::Max => acc.max(v),
                };
            }
            out[base + i as usize * step] = acc;
        }
    });
    out
}

/// Calls `f(flat index, window values)` for every element of `x`, the
/// window read through `w`'s taps.
pub(super) fn windows(
    x: &[f64],
    shape: &[usize],
    w: &Window<'_>,
    mut f: impl FnMut(usize, &[f64]),
) {
    let nd = shape.len();
    let taps = w.taps(nd);
    let strides = c_strides(shape);
    let mut vals = vec![0.0; taps];
    let mut idx = vec![0i64; nd];
    for (flat, _) in x.iter().enumerate() {
        let mut r = flat;
        for d in 0..nd {
            idx[d] = (r / strides[d]) as i64;
            r %= strides[d];
        }
        for (t, v) in vals.iter_mut().enumerate() {
            let mut at = Some(0usize);
            for d in 0..nd {
                let p = extend(idx[d] + w.offsets[t * nd + d], shape[d] as i64, w.mode);
                at = match (at, p) {
                    (Some(a), Some(p)) => Some(a + p as usize * strides[d]),
                    _ => None,
                };
            }
            *v = at.map_or(w.cval, |a| x[a]);
        }
        f(flat, &vals);
    }
}

/// The correlation of `x` with `weights` over `w`'s taps.
pub(super) fn correlate(x: &[f64], shape: &[usize], w: &Window<'_>, weights: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    windows(x, shape, w, |i, vals| {
        out[i] = vals.iter().zip(weights).map(|(v, k)| v * k).sum();
    });
    out
}

/// The `rank`-th smallest of each window (plus `add` tap by tap).
pub(super) fn rank_filter(
    x: &[f64],
    shape: &[usize],
    w: &Window<'_>,
    rank: usize,
    add: Option<&[f64]>,
) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    let mut buf = Vec::new();
    windows(x, shape, w, |i, vals| {
        buf.clear();
        buf.extend_from_slice(vals);
        if let Some(a) = add {
            for (b, s) in buf.iter_mut().zip(a) {
                *b += s;
            }
        }
        if buf.is_empty() {
            return;
        }
        let r = rank.min(buf.len() - 1);
        let (_, v, _) = buf.select_nth_unstable_by(r, |a, b| a.total_cmp(b));
        out[i] = *v;
    });
    out
}

/// Binary erosion or dilation steps of the 0/1 values `x` (see
/// [`BinarySteps`]): the minimum or maximum over the window, step by step.
pub(super) fn binary_steps(
    x: &[f64],
    shape: &[usize],
    f: &BinarySteps<'_>,
    mask: Option<&[f64]>,
) -> Vec<f64> {
    let taps = f.window.taps(shape.len());
    let rank = if f.dilate { taps.saturating_sub(1) } else { 0 };
    let mut cur = x.to_vec();
    let mut done = 0usize;
    loop {
        let mut next = rank_filter(&cur, shape, &f.window, rank, None);
        if let Some(m) = mask {
            for ((n, &c), &m) in next.iter_mut().zip(&cur).zip(m) {
                if m == 0.0 {
                    *n = c;
                }
            }
        }
        done += 1;
        let same = next == cur;
        cur = next;
        if same || (f.iterations != 0 && done >= f.iterations) {
            return cur;
        }
    }
}

/// A host copy of `v` as float64 (C order).
pub(super) fn host(v: View<'_>) -> Vec<f64> {
    v.gather_as::<f64>()
}
