//! N-dimensional image processing (`cupyx.scipy.ndimage`, `scipy.ndimage`):
//! filters, spline interpolation, labelling and measurements, morphology
//! and distance transforms, on the GPU and on the CPU.
//!
//! ```
//! use cuprite as cp;
//! use cp::ndimage::{gaussian_filter, label, FilterOptions};
//! let img = cp::asarray(vec![vec![0.0, 1.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 0.0]])?;
//! let smooth = gaussian_filter(&img, &[1.0], &[0], &FilterOptions::default())?;
//! assert_eq!(smooth.shape(), &[3, 3]);
//! let (labels, n) = label(&img, None)?;
//! assert_eq!(n, 1);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! Differences from SciPy: weighted filters and interpolation return
//! float32 for float32 input and float64 otherwise (SciPy keeps integer
//! dtypes); weights, footprints, structures and matrices are small
//! parameters read once to the host; inputs have at most 8 dimensions; on
//! the GPU a rank filter (median, percentile, rank, grey morphology with a
//! footprint) over more than 1024 elements runs on the host, counted as a
//! fallback; the spline
//! prefilter treats `Nearest` like `Mirror` at the edges of the padded
//! input (a difference below 1e-6 of the data's scale for order 3).

mod distance;
mod filters;
mod interpolation;
mod measurements;
mod morphology;
mod rank;

pub use crate::ops::ndimage::Mode;
pub use distance::*;
pub use filters::*;
pub use interpolation::*;
pub use measurements::*;
pub use morphology::*;
pub use rank::*;

use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::ops::ndimage::MAX_NDIM;

impl Mode {
    /// The mode named as SciPy names it, or an error naming `op` and the name.
    pub fn from_name(op: &'static str, name: &str) -> Result<Mode> {
        Mode::parse(name).ok_or_else(|| Error::InvalidArgument {
            op,
            detail: format!(
                "mode {name:?} is not one of reflect, constant, nearest, mirror, wrap, grid-mirror, grid-constant, grid-wrap"
            ),
        })
    }
}

/// Boundary handling and window placement shared by the filters.
#[derive(Debug, Clone)]
pub struct FilterOptions {
    /// How the input is extended past its edges (default `Reflect`).
    pub mode: Mode,
    /// The value outside the input for `Constant` (default 0).
    pub cval: f64,
    /// Shift of the window's centre: one value for every axis or one per
    /// axis (default 0), within `-(size / 2) ..= (size - 1) / 2` of each
    /// axis's window. The Gaussian, Sobel, Prewitt and Laplace filters have
    /// no origin in SciPy and ignore it.
    pub origin: Vec<isize>,
    /// Gaussian filters: the kernel's radius in standard deviations (default 4).
    pub truncate: f64,
}

impl Default for FilterOptions {
    fn default() -> Self {
        FilterOptions {
            mode: Mode::Reflect,
            cval: 0.0,
            origin: vec![0],
            truncate: 4.0,
        }
    }
}

impl FilterOptions {
    /// Sets the boundary mode.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }
    /// Sets the constant outside the input.
    pub fn cval(mut self, cval: f64) -> Self {
        self.cval = cval;
        self
    }
    /// Sets one origin for every axis.
    pub fn origin(mut self, origin: isize) -> Self {
        self.origin = vec![origin];
        self
    }
    /// Sets one origin per axis.
    pub fn origins(mut self, origins: &[isize]) -> Self {
        self.origin = origins.to_vec();
        self
    }
    /// Sets the Gaussian kernel's truncation in standard deviations.
    pub fn truncate(mut self, truncate: f64) -> Self {
        self.truncate = truncate;
        self
    }

    /// The origin of each of `ndim` axes.
    pub(crate) fn origins_for(&self, op: &'static str, ndim: usize) -> Result<Vec<isize>> {
        per_axis(op, "origin", &self.origin, ndim)
    }
}

/// A window: a box of extents (one for every axis or one per axis) or a
/// boolean footprint of the input's rank.
#[derive(Debug, Clone)]
pub enum Footprint {
    /// A full box (`size=`).
    Size(Vec<usize>),
    /// The elements where this array is non-zero (`footprint=`).
    Mask(Array),
}

impl From<usize> for Footprint {
    fn from(n: usize) -> Self {
        Footprint::Size(vec![n])
    }
}
impl From<&[usize]> for Footprint {
    fn from(n: &[usize]) -> Self {
        Footprint::Size(n.to_vec())
    }
}
impl<const N: usize> From<[usize; N]> for Footprint {
    fn from(n: [usize; N]) -> Self {
        Footprint::Size(n.to_vec())
    }
}
impl From<&Array> for Footprint {
    fn from(a: &Array) -> Self {
        Footprint::Mask(a.clone())
    }
}

/// `values` (one, or one per axis) for `ndim` axes.
pub(crate) fn per_axis<T: Copy + std::fmt::Debug>(
    op: &'static str,
    what: &str,
    values: &[T],
    ndim: usize,
) -> Result<Vec<T>> {
    match values.len() {
        1 => Ok(vec![values[0]; ndim]),
        n if n == ndim => Ok(values.to_vec()),
        n => Err(Error::InvalidArgument {
            op,
            detail: format!("{what} has {n} values {values:?}; give one or one per axis ({ndim})"),
        }),
    }
}

/// Checks the rank limit and that the input is not complex.
pub(crate) fn check_input(op: &'static str, x: &Array) -> Result<()> {
    if x.ndim() > MAX_NDIM {
        return Err(Error::Shape {
            op,
            detail: format!(
                "an input of {} dimensions; at most {MAX_NDIM} are supported",
                x.ndim()
            ),
        });
    }
    if x.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("complex input ({}) is not supported", x.dtype()),
        });
    }
    Ok(())
}

/// The axis `axis` (negative from the end) of an `ndim`-dimensional input.
pub(crate) fn norm_axis(op: &'static str, axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    let a = if axis < 0 { axis + n } else { axis };
    if a < 0 || a >= n {
        return Err(Error::Axis { op, axis, ndim });
    }
    Ok(a as usize)
}

/// The dtype weighted filters and interpolation compute and return in.
pub(crate) fn float_dtype(x: &Array) -> DType {
    if x.dtype() == DType::Float32 {
        DType::Float32
    } else {
        DType::Float64
    }
}

/// `x` as a C-contiguous array of `dt` (shared when it already is one).
pub(crate) fn contiguous_as(x: &Array, dt: DType) -> Result<Array> {
    if x.dtype() == dt && x.is_c_contiguous() {
        return Ok(x.clone());
    }
    x.astype(dt)?.ascontiguousarray()
}

/// A backend result of `shape` and `dt` as an array.
pub(crate) fn wrap(s: Storage, shape: &[usize], dt: DType) -> Array {
    Array::from_parts(s, Layout::contiguous(shape), dt)
}

/// The taps' offsets as the backends read them. A backend counts a window's
/// taps as its offsets per axis, and a 0-d window has taps but no offsets:
/// a 0-d input goes to the backend as a line of one element, every tap
/// reading it (offset 0). `wrap` of the result with the input's shape
/// gives it back its rank.
pub(crate) fn backend_window(
    x: &Array,
    offsets: Vec<i64>,
    taps: usize,
) -> Result<(Array, Vec<i64>)> {
    if x.ndim() > 0 {
        return Ok((x.clone(), offsets));
    }
    Ok((x.reshape([1usize])?, vec![0; taps]))
}

/// `cval` as a value of `dt`, so that every backend pads with the same
/// element whatever dtype it computes in: an order filter of a bool or
/// integer input reads `cval` as the input would hold it (-1 pads a bool
/// input with `true`), not as a float beside its values. The cast is
/// `astype`'s (NumPy's unsafe cast), done on the host: no array is made.
pub(crate) fn cval_of(dt: DType, cval: f64) -> f64 {
    if dt != DType::Bool && !dt.is_integer() {
        return cval;
    }
    crate::with_dtype!(dt, T => T::from_scalar(Scalar::Float(cval)).to_scalar().as_f64())
}

/// A small parameter array (weights, footprint, structure) read to the host as f64.
pub(crate) fn host_values(x: &Array) -> Result<Vec<f64>> {
    x.astype(DType::Float64)?
        .to_device(&crate::Device::Cpu)?
        .to_vec::<f64>()
}

/// The most elements a filter window may have. SciPy sets no limit (and
/// crashes on a window of 2^62 elements); a larger window than this is of
/// no use, and its taps or weights would not fit in memory.
pub(crate) const MAX_WINDOW: usize = 1 << 24;

/// Checks that no extent of a separable window (filtered one axis at a
/// time) is larger than [`MAX_WINDOW`]; the error names `op` and the sizes.
pub(crate) fn check_extents(op: &'static str, extents: &[usize]) -> Result<()> {
    if extents.iter().all(|&e| e <= MAX_WINDOW) {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op,
        detail: format!(
            "size {extents:?} has an extent above {MAX_WINDOW}, the longest window supported"
        ),
    })
}

/// The element count of a window of `extents`, or an error naming `op`
/// and the sizes when it is larger than [`MAX_WINDOW`].
pub(crate) fn window_len(op: &'static str, extents: &[usize]) -> Result<usize> {
    check_extents(op, extents)?;
    extents
        .iter()
        .try_fold(1usize, |n, &e| n.checked_mul(e))
        .filter(|&n| n <= MAX_WINDOW)
        .ok_or_else(|| Error::InvalidArgument {
            op,
            detail: format!(
                "size {extents:?} gives a window of more than {MAX_WINDOW} elements, the most supported"
            ),
        })
}

/// The index of a window's centre: `len / 2 + origin`, checked as SciPy
/// checks an origin (`-(len / 2) <= origin <= (len - 1) / 2`) without
/// overflowing on an absurd one.
pub(crate) fn center_of(op: &'static str, len: usize, origin: isize) -> Result<i64> {
    let c = isize::try_from(len / 2)
        .ok()
        .and_then(|half| half.checked_add(origin))
        .filter(|&c| c >= 0 && (c as usize) < len);
    c.map(|c| c as i64).ok_or_else(|| Error::InvalidArgument {
        op,
        detail: format!(
            "origin {origin} is outside a window of {len} taps; it must lie in [-{}, {}]",
            len / 2,
            len.saturating_sub(1) / 2
        ),
    })
}

/// The origin of a window mirrored for a convolution or dilation: negated,
/// and moved by one for an even extent (whose centre is off the middle).
/// The origin is checked first, so an error shows the value given; the
/// mirrored one then lies in the same range.
pub(crate) fn mirrored_origin(op: &'static str, origin: isize, extent: usize) -> Result<isize> {
    center_of(op, extent.max(1), origin)?;
    Ok(-origin - isize::from(extent % 2 == 0 && extent > 0))
}

/// The offsets (ndim each) of the non-zero elements of a window of
/// `shape` whose flat values are `mask`, centred at `shape / 2 + origin`;
/// and which elements of `mask` they are.
pub(crate) fn window_offsets(
    op: &'static str,
    shape: &[usize],
    mask: &[f64],
    origins: &[isize],
) -> Result<(Vec<i64>, Vec<usize>)> {
    let nd = shape.len();
    // An empty axis has no elements to place; its origin is checked as a
    // window of one.
    let centers = (0..nd)
        .map(|d| center_of(op, shape[d].max(1), origins[d]))
        .collect::<Result<Vec<i64>>>()?;
    let mut offsets = Vec::new();
    let mut kept = Vec::new();
    let mut idx = vec![0usize; nd];
    for (flat, &m) in mask.iter().enumerate() {
        let mut r = flat;
        for d in (0..nd).rev() {
            idx[d] = r % shape[d];
            r /= shape[d];
        }
        if m != 0.0 {
            for d in 0..nd {
                offsets.push(idx[d] as i64 - centers[d]);
            }
            kept.push(flat);
        }
    }
    Ok((offsets, kept))
}
