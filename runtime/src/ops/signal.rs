//! Signal processing: convolution and correlation.
//!
//! The backend trait of this op family (see `ops::backend`).

use crate::dtype::DType;
use crate::element::Scalar;
use crate::error::Result;
use crate::storage::Storage;
use crate::view::View;

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

/// Where a convolution's output lies: its shape `osh` and, per axis, the
/// offset `off` of output 0 in the full convolution.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConvGeometry<'a> {
    pub osh: &'a [usize],
    pub off: &'a [isize],
}

/// Signal processing: convolution and correlation.
pub(crate) trait Signal {
    /// `out[i] = sum_p A(i + off - p) k[p]` over N-D `a` and `k` (same rank
    /// >= 1, not empty), `A` extended by `bound` (`fill` outside for
    /// `Fill`), as a new C-contiguous buffer of `out_dt`; `fft` computes it
    /// through FFTs (same values to rounding; `bound` is then `Fill` with 0).
    #[allow(clippy::too_many_arguments)]
    fn convolve(
        &self,
        op: &'static str,
        a: View<'_>,
        k: View<'_>,
        geo: ConvGeometry<'_>,
        bound: Boundary,
        fill: Scalar,
        out_dt: DType,
        fft: bool,
    ) -> Result<Storage>;
    /// The median of each window of `ks` (odd extents, one per axis) with
    /// zero padding, as a new C-contiguous buffer of `v`'s dtype (real).
    fn medfilt(&self, op: &'static str, v: View<'_>, ks: &[usize]) -> Result<Storage>;
    /// `y` and, when `zi` is given, the final conditions of the filter `b / a`
    /// (1-D, same length `m`, `a[0]` non-zero) along `axis` of `x`, in `dt`
    /// (float or complex), as new C-contiguous buffers.
    #[allow(clippy::too_many_arguments)]
    fn lfilter(
        &self,
        b: View<'_>,
        a: View<'_>,
        x: View<'_>,
        zi: Option<View<'_>>,
        axis: usize,
        dt: DType,
    ) -> Result<(Storage, Option<Storage>)>;
}
