//! Counting and binning: histograms (1-D to n-D), `bincount` and `interp`.
//!
//! The backend trait of this op family (see `ops::backend`), and the rule
//! both halves bin a value by, so the CPU and the GPU agree on every edge.

use crate::core::error::Result;
use crate::core::view::View;

/// One axis of a histogram: the values binned along it and their edges.
///
/// A value `v` falls in bin `i` when `edges[i] <= v < edges[i + 1]`; the last
/// bin also holds `v == edges[nbins]` (NumPy's closed last bin). Values
/// outside `[edges[0], edges[nbins]]`, and NaN, fall in no bin.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BinAxis<'a> {
    /// 1-D values of any real dtype (all axes of one histogram share it),
    /// any stride.
    pub values: View<'a>,
    /// `nbins + 1` non-decreasing float64 edges, contiguous, `nbins >= 1`.
    pub edges: View<'a>,
    /// The edges are strictly increasing and equally spaced (up to
    /// rounding), so a first guess of the bin is arithmetic, corrected
    /// against the edges; otherwise the bin is found by binary search.
    pub uniform: bool,
}

/// What `histogram` counts: the bin of each sample along every axis, the
/// bins of an n-D histogram laid out in C order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Histogram<'a> {
    /// One entry per dimension; every `values` has the same length.
    pub axes: &'a [BinAxis<'a>],
    /// 1-D weights of any real dtype, one per sample; `None` counts samples.
    pub weights: Option<View<'a>>,
    /// C-contiguous, of shape `nbins` per axis: int64 counts without
    /// weights, float64 sums of the weights with them.
    pub out: View<'a>,
}

/// What `interp` computes: `out[k] = f(x[k])` for the piecewise-linear `f`
/// through the points `(xp[j], fp[j])`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Interp<'a> {
    /// 1-D values of any real dtype, any stride.
    pub x: View<'a>,
    /// Contiguous float64 sample points (increasing, at least one).
    pub xp: View<'a>,
    /// Contiguous float64 values at `xp`, as many as `xp`.
    pub fp: View<'a>,
    /// The value below `xp[0]`.
    pub left: f64,
    /// The value above `xp[last]`.
    pub right: f64,
    /// Contiguous float64, as many as `x`.
    pub out: View<'a>,
}

/// What `bincount` computes: `out[v] = ` the number of times (or the summed
/// float64 weights of the times) `v` occurs in the 1-D integer (or bool)
/// `x`, for every `v` below `out.size()`; the front end checked that `x`
/// has no negative values and none at or beyond `out.size()`. `out` is
/// contiguous, int64 without weights and float64 with them, and is
/// overwritten.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bincount<'a> {
    pub x: View<'a>,
    pub weights: Option<View<'a>>,
    pub out: View<'a>,
}

/// Counting and binning: histograms, bincount, interp.
pub(crate) trait Binning {
    /// Counts (or sums the weights of) the samples in each bin of `h.out`,
    /// overwriting it; samples outside the edges of any axis are skipped.
    fn histogram(&self, op: &'static str, h: Histogram<'_>) -> Result<()>;
    /// Counts the values of a non-negative integer array (see [`Bincount`]).
    fn bincount(&self, op: &'static str, b: Bincount<'_>) -> Result<()>;
    /// One-dimensional linear interpolation, as `np.interp`.
    fn interp(&self, op: &'static str, i: Interp<'_>) -> Result<()>;
}

/// The bin of `v` among the edges `e` (`e.len() >= 2`) by the rule of
/// [`BinAxis`], or `None`. The CUDA half's `bin_of` is the same function.
pub(crate) fn bin_of(v: f64, e: &[f64], uniform: bool) -> Option<usize> {
    let nb = e.len() - 1;
    let (lo, hi) = (e[0], e[nb]);
    // Also rejects NaN.
    if !(v >= lo && v <= hi) {
        return None;
    }
    if uniform {
        let guess = ((v - lo) / (hi - lo) * nb as f64) as usize;
        let mut i = guess.min(nb - 1);
        while i > 0 && v < e[i] {
            i -= 1;
        }
        while i + 1 < nb && v >= e[i + 1] {
            i += 1;
        }
        Some(i)
    } else {
        // The number of edges <= v, less one: the last edge at or below v.
        let at_or_below = e.partition_point(|&x| x <= v);
        Some((at_or_below - 1).min(nb - 1))
    }
}

/// `np.interp` at one point: `left` below `xp[0]`, `right` above the last
/// point, `fp[j]` at `xp[j]`, the line between neighbours elsewhere (NaN
/// stays NaN). The CUDA half's `interp_one` is the same function.
pub(crate) fn interp_one(v: f64, xp: &[f64], fp: &[f64], left: f64, right: f64) -> f64 {
    let m = xp.len();
    if m == 1 {
        // NumPy's single-point rule: NaN compares neither way and gives fp[0].
        return if v < xp[0] {
            left
        } else if v > xp[0] {
            right
        } else {
            fp[0]
        };
    }
    if v.is_nan() {
        return v;
    }
    if v < xp[0] {
        return left;
    }
    if v > xp[m - 1] {
        return right;
    }
    // Saturating: an unsorted `xp` or a NaN in it (NumPy's garbage in,
    // garbage out) can leave no point at or below `v`.
    let j = xp.partition_point(|&x| x <= v).saturating_sub(1);
    if j == m - 1 || xp[j] == v {
        return fp[j];
    }
    let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    let mut r = slope * (v - xp[j]) + fp[j];
    // NumPy: if one direction gives NaN (an infinite slope), try the other.
    if r.is_nan() {
        r = slope * (v - xp[j + 1]) + fp[j + 1];
        if r.is_nan() && fp[j] == fp[j + 1] {
            r = fp[j];
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_find_their_bins_with_the_last_closed() {
        let e = [0.0, 1.0, 2.0, 3.0];
        for uniform in [true, false] {
            assert_eq!(bin_of(0.0, &e, uniform), Some(0));
            assert_eq!(bin_of(0.999, &e, uniform), Some(0));
            assert_eq!(bin_of(1.0, &e, uniform), Some(1));
            assert_eq!(bin_of(3.0, &e, uniform), Some(2));
            assert_eq!(bin_of(3.0001, &e, uniform), None);
            assert_eq!(bin_of(-0.1, &e, uniform), None);
            assert_eq!(bin_of(f64::NAN, &e, uniform), None);
        }
        // Repeated edges: NumPy's searchsorted puts the value in the later bin.
        assert_eq!(bin_of(1.0, &[0.0, 1.0, 1.0, 2.0], false), Some(2));
        assert_eq!(bin_of(2.0, &[0.0, 1.0, 2.0, 2.0], false), Some(2));
        // A guess one off (edges rounded in float32) is corrected.
        let e32: Vec<f64> = (0..=3).map(|i| (i as f32 * 0.1f32) as f64).collect();
        assert_eq!(bin_of(e32[1], &e32, true), Some(1));
    }

    #[test]
    fn interp_follows_numpy() {
        let (xp, fp) = ([1.0, 2.0, 3.0], [3.0, 2.0, 0.0]);
        // NumPy 2.4: np.interp([0, 1, 1.5, 2.5, 3, 4, nan], [1, 2, 3], [3, 2, 0]) -> [3, 3, 2.5, 1, 0, 0, nan]
        let got: Vec<f64> = [0.0, 1.0, 1.5, 2.5, 3.0, 4.0]
            .iter()
            .map(|&v| interp_one(v, &xp, &fp, 3.0, 0.0))
            .collect();
        assert_eq!(got, vec![3.0, 3.0, 2.5, 1.0, 0.0, 0.0]);
        assert!(interp_one(f64::NAN, &xp, &fp, 3.0, 0.0).is_nan());
        // np.interp(nan, [1.], [5.]) -> 5.0
        assert_eq!(interp_one(f64::NAN, &[1.0], &[5.0], -1.0, 1.0), 5.0);
    }
}
