//! N-dimensional image processing (`cp::ndimage`): line and window filters,
//! spline interpolation, connected components, reductions over labels and
//! distance transforms.
//!
//! The backend trait of this op family (see `ops::backend`). Every input
//! view is C-contiguous (the front end makes it so), of at most
//! [`MAX_NDIM`] dimensions, and results are new C-contiguous buffers.

use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;

/// Most dimensions an `ndimage` input may have (the kernels keep one
/// coordinate per axis in registers).
pub const MAX_NDIM: usize = 8;

/// How a filter or an interpolation extends the input past its edges
/// (SciPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `d c b a | a b c d | d c b a`: mirrored about the edge (SciPy's default for filters).
    Reflect,
    /// `k k k k | a b c d | k k k k`: the constant `cval`; interpolation gives `cval`
    /// anywhere outside `[0, n - 1]` (SciPy's default for interpolation).
    Constant,
    /// `a a a a | a b c d | d d d d`: the edge value repeated.
    Nearest,
    /// `d c b | a b c d | c b a`: mirrored about the edge sample.
    Mirror,
    /// `a b c d | a b c d | a b c d`: periodic (interpolation: SciPy's `wrap`, period `n - 1`).
    Wrap,
    /// The same as `Reflect` (interpolation's name for it).
    GridMirror,
    /// `cval` outside, interpolated as if the input were padded with it.
    GridConstant,
    /// Periodic with period `n` (interpolation; for filters the same as `Wrap`).
    GridWrap,
}

impl Mode {
    /// The mode named as SciPy names it (`"reflect"`, `"grid-wrap"`, ...).
    pub fn parse(name: &str) -> Option<Mode> {
        Some(match name {
            "reflect" => Mode::Reflect,
            "constant" => Mode::Constant,
            "nearest" => Mode::Nearest,
            "mirror" => Mode::Mirror,
            "wrap" => Mode::Wrap,
            "grid-mirror" => Mode::GridMirror,
            "grid-constant" => Mode::GridConstant,
            "grid-wrap" => Mode::GridWrap,
            _ => return None,
        })
    }

    /// The mode a filter (integer positions) uses: the grid names are aliases there.
    pub(crate) fn for_filters(self) -> Mode {
        match self {
            Mode::GridMirror => Mode::Reflect,
            Mode::GridConstant => Mode::Constant,
            Mode::GridWrap => Mode::Wrap,
            m => m,
        }
    }

    /// The number the kernels switch on.
    pub(crate) fn code(self) -> i32 {
        self as i32
    }
}

/// The position `i` along an axis of `n` samples under a filter's `mode`
/// (`None`: the constant). Shared by the CPU backend and, in C, by the kernels.
#[inline]
pub(crate) fn extend(i: i64, n: i64, mode: Mode) -> Option<i64> {
    if (0..n).contains(&i) {
        return Some(i);
    }
    Some(match mode.for_filters() {
        Mode::Constant => return None,
        Mode::Nearest => i.clamp(0, n - 1),
        Mode::Wrap => i.rem_euclid(n),
        Mode::Mirror => {
            if n == 1 {
                0
            } else {
                let p = 2 * n - 2;
                let m = i.rem_euclid(p);
                if m >= n {
                    p - m
                } else {
                    m
                }
            }
        }
        _ => {
            let p = 2 * n;
            let m = i.rem_euclid(p);
            if m >= n {
                p - 1 - m
            } else {
                m
            }
        }
    })
}

/// The poles of the B-spline prefilter of `order` (2-5).
pub(crate) fn poles(order: usize) -> Vec<f64> {
    match order {
        2 => vec![8f64.sqrt() - 3.0],
        3 => vec![3f64.sqrt() - 2.0],
        4 => vec![
            (664.0 - 438976f64.sqrt()).sqrt() + 304f64.sqrt() - 19.0,
            (664.0 + 438976f64.sqrt()).sqrt() - 304f64.sqrt() - 19.0,
        ],
        5 => vec![
            (67.5 - 4436.25f64.sqrt()).sqrt() + 26.25f64.sqrt() - 6.5,
            (67.5 + 4436.25f64.sqrt()).sqrt() - 26.25f64.sqrt() - 6.5,
        ],
        _ => vec![],
    }
}

/// Which boundary condition the prefilter of `mode` assumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extension {
    /// About the edge sample (SciPy's default).
    Mirror,
    /// About the edge (`reflect`, `grid-mirror`).
    Reflect,
    /// Periodic with period n (`grid-wrap`).
    Periodic,
}

impl Extension {
    pub(crate) fn of(mode: Mode) -> Extension {
        match mode {
            Mode::Reflect | Mode::GridMirror => Extension::Reflect,
            Mode::GridWrap => Extension::Periodic,
            _ => Extension::Mirror,
        }
    }

    /// The sample `i` of a line of `n` stands for under this extension.
    pub(crate) fn index(self, i: i64, n: i64) -> i64 {
        if (0..n).contains(&i) {
            return i;
        }
        if n <= 1 {
            return 0;
        }
        match self {
            Extension::Mirror => {
                let p = 2 * n - 2;
                let m = i.rem_euclid(p);
                if m >= n {
                    p - m
                } else {
                    m
                }
            }
            Extension::Reflect => {
                let p = 2 * n;
                let m = i.rem_euclid(p);
                if m >= n {
                    p - 1 - m
                } else {
                    m
                }
            }
            Extension::Periodic => i.rem_euclid(n),
        }
    }
}

/// What a line filter computes over each window of `weights.len()` samples
/// along one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum LineOp {
    /// The weighted sum (`correlate1d`).
    Correlate,
    /// The smallest sample.
    Min,
    /// The largest sample.
    Max,
}

/// A filter along `axis`: `out[.., i, ..] = op_k(w[k], X(i + k - center))`,
/// `X` extended by `mode` (`cval` for `Constant`), in `x`'s dtype.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineFilter<'a> {
    pub axis: usize,
    pub weights: &'a [f64],
    pub center: i64,
    pub op: LineOp,
    pub mode: Mode,
    pub cval: f64,
}

/// A window given as taps: tap `t` reads `X(i + offsets[t * ndim..][..ndim])`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window<'a> {
    pub offsets: &'a [i64],
    pub mode: Mode,
    pub cval: f64,
}

impl Window<'_> {
    /// Number of taps for an input of `ndim` dimensions (at least 1: the
    /// api layer gives a 0-d input as a line of one element, whose window
    /// has no offsets to count, and asks for no window without taps).
    pub fn taps(&self, ndim: usize) -> usize {
        self.offsets.len() / ndim.max(1)
    }
}

/// Binary erosion or dilation steps: each output is the minimum (erosion)
/// or maximum (dilation) of the 0/1 input over `window`'s taps (mode
/// `Constant`, `cval` the border value), except where `mask` (uint8, the
/// input's shape) is 0: there the input is kept.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BinarySteps<'a> {
    pub window: Window<'a>,
    pub dilate: bool,
    pub mask: Option<View<'a>>,
    /// The number of steps; 0 repeats until one changes nothing. A step
    /// that changes nothing ends the loop in any case (the result is the
    /// same, and a huge count does not spin).
    pub iterations: usize,
}

/// Where the output points of an interpolation read the input.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Coords<'a> {
    /// `(ndim_in, output...)` float64 coordinates (`map_coordinates`).
    Array(View<'a>),
    /// `in = matrix (ndim_in x ndim_out, row-major) * out + offset`.
    Affine {
        matrix: &'a [f64],
        offset: &'a [f64],
    },
}

/// A spline interpolation of order 0-5 from the coefficients `coeffs`
/// (float32 or float64, already prefiltered for orders above 1, padded by
/// `npad` samples on every side), written as `out_dt` (float32 or
/// float64) of `out_shape`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Interp<'a> {
    pub coeffs: View<'a>,
    pub coords: Coords<'a>,
    pub out_shape: &'a [usize],
    pub order: usize,
    pub mode: Mode,
    pub cval: f64,
    pub npad: usize,
    pub out_dt: crate::core::dtype::DType,
}

/// A reduction of values over labels (`sum_labels`, `minimum`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum LabelReduce {
    Sum,
    Min,
    Max,
    /// The first flat index (C order) holding the label's minimum.
    ArgMin,
    /// The first flat index holding the label's maximum.
    ArgMax,
}

/// N-dimensional image processing.
pub(crate) trait Ndimage {
    /// A line filter of `x` (real, C-contiguous) along one axis, as a new
    /// C-contiguous buffer of `x`'s dtype.
    fn line_filter(&self, op: &'static str, x: View<'_>, f: &LineFilter<'_>) -> Result<Storage>;
    /// `out[i] = sum_t weights[t] X(i + offset_t)` over a window (float input).
    fn correlate(
        &self,
        op: &'static str,
        x: View<'_>,
        w: &Window<'_>,
        weights: &[f64],
    ) -> Result<Storage>;
    /// The `rank`-th smallest (from 0) of each window, in `x`'s dtype
    /// (`add`, when given, is added tap by tap first: grey morphology with
    /// a structuring element).
    fn rank_filter(
        &self,
        op: &'static str,
        x: View<'_>,
        w: &Window<'_>,
        rank: usize,
        add: Option<&[f64]>,
    ) -> Result<Storage>;
    /// `f`'s steps of binary erosion or dilation of `x` (uint8 0/1,
    /// C-contiguous), as a new uint8 0/1 buffer.
    fn binary_steps(&self, op: &'static str, x: View<'_>, f: &BinarySteps<'_>) -> Result<Storage>;
    /// Spline prefilter of order 2-5 along `axis` of float64 `x` (SciPy's
    /// boundary conditions for `mode`), as a new float64 buffer.
    fn spline_filter1d(
        &self,
        op: &'static str,
        x: View<'_>,
        axis: usize,
        order: usize,
        mode: Mode,
    ) -> Result<Storage>;
    /// Interpolated values at the output points, of `f.out_dt`.
    fn interpolate(&self, op: &'static str, f: &Interp<'_>) -> Result<Storage>;
    /// Connected components of the non-zero elements of `x` (uint8): each
    /// element's component root (the smallest flat index in it), int64,
    /// -1 for zero elements. `neighbors` holds the offsets (ndim each) of
    /// the structure's earlier half.
    fn label_roots(&self, op: &'static str, x: View<'_>, neighbors: &[i64]) -> Result<Storage>;
    /// The components `label_roots` found, numbered 1, 2, ... in the C order
    /// of their roots: each element's number (int32, 0 off the mask; the
    /// caller refuses more than `i32::MAX` components) and how many there are.
    fn label_number(&self, op: &'static str, roots: View<'_>) -> Result<(Storage, usize)>;
    /// Per label `0..bins` the reduction of the float64 `values` whose
    /// int64 `labels` (same shape) equal it, float64 (`Sum`: 0 for an
    /// empty label; `Min`/`Max`: +inf / -inf; arg-forms: -1).
    fn label_reduce(
        &self,
        op: &'static str,
        values: View<'_>,
        labels: View<'_>,
        bins: usize,
        how: LabelReduce,
    ) -> Result<Storage>;
    /// Exact Euclidean distance of each non-zero element of `x` (uint8) to
    /// the nearest zero one with grid spacing `sampling` (float64), and
    /// with `indices` that zero element's coordinates `(ndim, shape...)`
    /// (int64).
    fn edt(
        &self,
        op: &'static str,
        x: View<'_>,
        sampling: &[f64],
        indices: bool,
    ) -> Result<(Storage, Option<Storage>)>;
    /// Chessboard (L-infinity) or taxicab (L1) distance of each non-zero
    /// element of `x` (uint8) to the nearest zero one, int32 (-1 when
    /// there is none).
    fn cdt(&self, op: &'static str, x: View<'_>, chessboard: bool) -> Result<Storage>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extend_matches_scipy_pictures() {
        // n = 4: positions -3..=6.
        let row = |m: Mode| -> Vec<Option<i64>> { (-3..7).map(|i| extend(i, 4, m)).collect() };
        let s = |v: &[i64]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        assert_eq!(row(Mode::Reflect), s(&[2, 1, 0, 0, 1, 2, 3, 3, 2, 1]));
        assert_eq!(row(Mode::Mirror), s(&[3, 2, 1, 0, 1, 2, 3, 2, 1, 0]));
        assert_eq!(row(Mode::Wrap), s(&[1, 2, 3, 0, 1, 2, 3, 0, 1, 2]));
        assert_eq!(row(Mode::Nearest), s(&[0, 0, 0, 0, 1, 2, 3, 3, 3, 3]));
        assert_eq!(row(Mode::Constant)[0], None);
        assert_eq!(extend(-5, 1, Mode::Mirror), Some(0));
    }
}
