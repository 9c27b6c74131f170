//! Signal processing: convolution, correlation and linear filtering.
//!
//! The backend trait of this op family (see `ops::backend`).

use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;

/// How `convolve2d` / `correlate2d` extend the first input past its edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Boundary {
    /// The fill value.
    Fill,
    /// Periodic continuation (circular).
    Wrap,
    /// Mirror image including the edge sample (`symm`).
    Symm,
}

/// A convolution: output shape `osh`, per axis the offset `off` of output
/// 0 in the full convolution, the boundary rule (`fill` outside for
/// `Fill`), the output dtype, and whether to compute it through FFTs (same
/// values to rounding; `bound` is then `Fill` with 0).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Conv<'a> {
    pub osh: &'a [usize],
    pub off: &'a [isize],
    pub bound: Boundary,
    pub fill: Scalar,
    pub out_dt: DType,
    pub fft: bool,
}

/// A linear filter `b / a` (1-D, `a[0]` non-zero) of `x` along `axis`,
/// from the initial conditions `zi` when given, computed in `dt` (float or
/// complex).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lfilter<'a> {
    pub b: View<'a>,
    pub a: View<'a>,
    pub x: View<'a>,
    pub zi: Option<View<'a>>,
    pub axis: usize,
    pub dt: DType,
}

/// A cascade of linear filters of one `order` applied along the rows of
/// the C-contiguous (lanes, n) `x` of dtype `dt` (real float): section `s`
/// has coefficients `coefs[s * 2 * (order + 1)..]`, `b` then `a`, with
/// `a[0] == 1`, and runs in direct form II transposed from the states
/// `zi` ((sections, lanes, order), C-contiguous, `dt`) or from zero.
/// Second-order sections are `order == 2`; `lfilter` is one section.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cascade<'a> {
    pub coefs: &'a [f64],
    pub order: usize,
    pub x: View<'a>,
    pub zi: Option<View<'a>>,
    pub dt: DType,
}

impl Cascade<'_> {
    /// Number of sections.
    pub fn sections(&self) -> usize {
        self.coefs.len() / (2 * (self.order + 1))
    }
}

/// `y[m] = sum_k taps[k] xu[t0 + m down - k]` for `m < len` along each row
/// of the C-contiguous (lanes, n) float `x`, where `xu` is `x` upsampled
/// by `up` (`xu[j] = x[j / up]` when `up` divides `j`, zero elsewhere and
/// past either end): SciPy's `upfirdn` output from index `t0 / down` on
/// when `down` divides `t0`, and `resample_poly`'s centred filter when
/// `t0` is half the filter. `taps` is 1-D C-contiguous float64 on `x`'s
/// device; the caller has checked that `t0 + (len - 1) down` and `n up`
/// fit an i64.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Upfirdn<'a> {
    pub x: View<'a>,
    pub taps: View<'a>,
    pub up: usize,
    pub down: usize,
    pub t0: usize,
    pub len: usize,
}

/// The conditions of `find_peaks` that a peak's plateau and its two
/// neighbours decide (`[min, max]`, either end optional): plateau size,
/// height `x[peak]`, and the thresholds `x[peak] - x[peak -+ 1]` (the
/// lower one against `min`, the higher against `max`; NaN fails).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct PeakConds {
    pub plateau: [Option<f64>; 2],
    pub height: [Option<f64>; 2],
    pub threshold: [Option<f64>; 2],
}

impl PeakConds {
    fn within(v: f64, b: [Option<f64>; 2]) -> bool {
        b[0].is_none_or(|lo| v >= lo) && b[1].is_none_or(|hi| v <= hi)
    }

    /// Whether the peak of the plateau `left..=right` of `x` (its middle,
    /// rounded down, is the peak) meets every condition.
    pub fn keep(&self, x: &[f64], left: usize, right: usize) -> bool {
        let peak = (left + right) / 2;
        let (l, r) = (x[peak] - x[peak - 1], x[peak] - x[peak + 1]);
        Self::within((right - left + 1) as f64, self.plateau)
            && Self::within(x[peak], self.height)
            // min(l, r) >= lo and max(l, r) <= hi: both within.
            && Self::within(l, self.threshold)
            && Self::within(r, self.threshold)
    }

    /// The six bounds in order (plateau, height, threshold; min then max),
    /// absent ones as 0, and a bit mask of those present (bit `i` for
    /// bound `i`): the kernel's form.
    pub fn packed(&self) -> ([f64; 6], i32) {
        let all = [
            self.plateau[0],
            self.plateau[1],
            self.height[0],
            self.height[1],
            self.threshold[0],
            self.threshold[1],
        ];
        let mut mask = 0;
        for (i, b) in all.iter().enumerate() {
            if b.is_some() {
                mask |= 1 << i;
            }
        }
        (all.map(|b| b.unwrap_or(0.0)), mask)
    }
}

/// The local maxima of the 1-D C-contiguous float64 `x` (SciPy's
/// `_local_maxima_1d`: a rise, a flat run, a fall; the peak at the run's
/// middle, rounded down) that meet `conds`, and which of their
/// properties to return.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalPeaks<'a> {
    pub x: View<'a>,
    pub conds: PeakConds,
    pub edges: bool,
    pub heights: bool,
    pub thresholds: bool,
}

/// What `Signal::local_peaks` found: `count` peaks (int64), and the
/// properties asked for, one per peak: the plateau's left and right
/// edges (int64), `x[peak]`, and the left and right thresholds (f64).
#[derive(Debug)]
pub(crate) struct PeakSet {
    pub count: usize,
    pub peaks: Storage,
    pub edges: Option<[Storage; 2]>,
    pub heights: Option<Storage>,
    pub thresholds: Option<[Storage; 2]>,
}

/// Signal processing: convolution and correlation.
pub(crate) trait Signal {
    /// `out[i] = sum_p A(i + off - p) k[p]` over N-D `a` and `k` (same rank,
    /// at least 1, not empty), `A` extended by the boundary rule, as a new
    /// C-contiguous buffer of `c.osh` and `c.out_dt`.
    fn convolve(&self, op: &'static str, a: View<'_>, k: View<'_>, c: &Conv<'_>)
        -> Result<Storage>;
    /// The median of each window of `ks` (odd extents, one per axis) with
    /// zero padding, as a new C-contiguous buffer of `v`'s dtype (real).
    fn medfilt(&self, op: &'static str, v: View<'_>, ks: &[usize]) -> Result<Storage>;
    /// The filtered `x` and, when `zi` is given, the final conditions, as
    /// new C-contiguous buffers.
    fn lfilter(&self, f: &Lfilter<'_>) -> Result<(Storage, Option<Storage>)>;
    /// The filtered rows (lanes, n) and the final states (sections, lanes,
    /// order), as new C-contiguous buffers of `f.dt`.
    fn cascade(&self, op: &'static str, f: &Cascade<'_>) -> Result<(Storage, Storage)>;
    /// The prominence of each peak of `p.x` (`scipy.signal.peak_prominences`):
    /// (prominences f64, left bases i64, right bases i64), one per peak.
    fn peak_prominences(
        &self,
        op: &'static str,
        p: &PeakScan<'_>,
        wlen: i64,
    ) -> Result<[Storage; 3]>;
    /// The width of each peak at `rel_height` of its prominence
    /// (`scipy.signal.peak_widths`) from `bases` = (prominences, left
    /// bases, right bases): (widths, heights, left ips, right ips), f64.
    fn peak_widths(
        &self,
        op: &'static str,
        p: &PeakScan<'_>,
        rel_height: f64,
        bases: [View<'_>; 3],
    ) -> Result<[Storage; 4]>;
    /// The rows of `u.x` resampled (see [`Upfirdn`]), as a new C-contiguous
    /// (lanes, `u.len`) buffer of `u.x`'s dtype.
    fn upfirdn(&self, op: &'static str, u: &Upfirdn<'_>) -> Result<Storage>;
    /// The peaks of `p` (see [`LocalPeaks`]), or `None` when the backend
    /// leaves this signal to the caller's array path (the GPU does for a
    /// plateau too long for one thread to walk).
    fn local_peaks(&self, op: &'static str, p: &LocalPeaks<'_>) -> Result<Option<PeakSet>>;
    /// Which peaks remain (bool) when, taken by decreasing `priority`
    /// (f64 compared as numbers, -0.0 equal to 0.0 and NaN above all; ties
    /// to the later peak), each removes the others closer than
    /// `distance` samples (SciPy's `_select_by_peak_distance`).
    fn peaks_by_distance(
        &self,
        op: &'static str,
        peaks: View<'_>,
        priority: View<'_>,
        distance: i64,
    ) -> Result<Storage>;
}

/// A 1-D C-contiguous float64 signal `x` and sorted int64 peak indices
/// into it (validated by the caller to lie in `0..x.len()`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PeakScan<'a> {
    pub x: View<'a>,
    pub peaks: View<'a>,
}
