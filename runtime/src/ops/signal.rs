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
