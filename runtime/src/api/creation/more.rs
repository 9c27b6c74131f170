//! More creation functions: log and geometric ranges, coordinate grids
//! (`meshgrid`, `indices`, `from_fn`), diagonals and triangles (`diag`,
//! `diagflat`, `diagonal`, `tri`, `tril`, `triu`) and the `*_like`
//! functions with a dtype.
//!
//! Everything here is composed of operations that run on either backend
//! (ranges, views, broadcast comparisons, `where_`, copies), so a GPU array
//! never goes through the host. Ranges (`logspace`, `geomspace`) are
//! computed on the host, as `linspace` and `arange` are, with the same
//! libm calls as NumPy, and then placed on the current device.

use crate::api::creation::{
    arange, arange_step, check_range, empty, full, linspace_values, ones, upload, zeros, IntoShape,
};
use crate::backend::probe::{current_device, with_device};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::{Error, Result};
use crate::core::layout::{checked_size, normalize_axis, Layout};

// ---------------------------------------------------------------------------
// Ranges
// ---------------------------------------------------------------------------

/// `num` float64 values `10 ** linspace(start, stop, num)` (`np.logspace`).
///
/// ```
/// use cuprite as cp;
/// let a = cp::logspace(0.0, 3.0, 4)?;
/// assert_eq!(a.to_vec::<f64>()?, vec![1.0, 10.0, 100.0, 1000.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn logspace(start: f64, stop: f64, num: usize) -> Result<Array> {
    logspace_with(start, stop, num, true, 10.0, DType::Float64)
}

/// As [`logspace`], with NumPy's `endpoint`, `base` and `dtype`: the values
/// are `base ** linspace(start, stop, num, endpoint)` in float64, then cast
/// to `dtype` (truncating toward zero for integers, as NumPy's `astype`).
///
/// ```
/// use cuprite as cp;
/// let a = cp::logspace_with(0.0, 3.0, 3, false, 2.0, cp::i64)?;
/// assert_eq!(a.to_vec::<i64>()?, vec![1, 2, 4]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn logspace_with(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    base: f64,
    dtype: DType,
) -> Result<Array> {
    let op = "logspace";
    check_range(op, start, stop, num)?;
    let v = linspace_values(start, stop, num, endpoint)
        .into_iter()
        .map(|y| base.powf(y))
        .collect();
    upload(op, v, dtype)
}

/// `num` float64 values evenly spaced on a log scale from `start` to `stop`
/// inclusive: a geometric progression (`np.geomspace`).
///
/// ```
/// use cuprite as cp;
/// let a = cp::geomspace(1.0, 1000.0, 4)?;
/// assert_eq!(a.to_vec::<f64>()?, vec![1.0, 10.0, 100.0, 1000.0]);
/// let b = cp::geomspace(-1.0, -100.0, 3)?;
/// assert_eq!(b.to_vec::<f64>()?, vec![-1.0, -10.0, -100.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn geomspace(start: f64, stop: f64, num: usize) -> Result<Array> {
    geomspace_with(start, stop, num, true, DType::Float64)
}

/// As [`geomspace`], with NumPy's `endpoint` and `dtype`.
///
/// As in NumPy: zero bounds are an error; negative bounds give a negative
/// progression; bounds of opposite signs give NaN between the two ends;
/// the first (and with `endpoint` the last) value is exactly `start`
/// (`stop`); integer dtypes take the floor of the values. Real bounds only
/// (NumPy also accepts complex ones).
///
/// ```
/// use cuprite as cp;
/// let a = cp::geomspace_with(8.0, 2.0, 3, true, cp::i32)?;
/// assert_eq!(a.to_vec::<i32>()?, vec![8, 4, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn geomspace_with(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    dtype: DType,
) -> Result<Array> {
    let op = "geomspace";
    check_range(op, start, stop, num)?;
    if start == 0.0 || stop == 0.0 {
        return Err(Error::invalid(
            op,
            format!("a geometric sequence cannot include zero (got {start} and {stop})"),
        ));
    }
    // NumPy's steps: divide out the sign of start, space the logarithms,
    // pin the ends, restore the sign.
    let sign = start.signum();
    let (s, e) = (start / sign, stop / sign);
    let mut v: Vec<f64> = linspace_values(s.log10(), e.log10(), num, endpoint)
        .into_iter()
        .map(|y| 10f64.powf(y))
        .collect();
    if num > 0 {
        v[0] = s;
        if num > 1 && endpoint {
            v[num - 1] = e;
        }
    }
    for x in &mut v {
        *x *= sign;
        if dtype.is_integer() {
            *x = x.floor();
        }
    }
    upload(op, v, dtype)
}

// ---------------------------------------------------------------------------
// Grids
// ---------------------------------------------------------------------------

/// How [`meshgrid_with`] orders the output axes: NumPy's `indexing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Indexing {
    /// Cartesian (`"xy"`, the default): for inputs of lengths `m` and `n`
    /// the outputs have shape `(n, m)`.
    #[default]
    Xy,
    /// Matrix (`"ij"`): the outputs have shape `(m, n)`.
    Ij,
}

/// Options of [`meshgrid_with`]: NumPy's `indexing`, `sparse` and `copy`.
///
/// `MeshgridOptions::new().indexing(cp::Indexing::Ij).sparse(true)`, or a
/// struct literal with `..Default::default()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshgridOptions {
    /// Axis order; default [`Indexing::Xy`].
    pub indexing: Indexing,
    /// Return arrays with extent 1 on every axis but their own (they
    /// broadcast to the full grid); default false.
    pub sparse: bool,
    /// Return new arrays; with false, views of the inputs (a full grid is
    /// then a broadcast view with zero strides: writing to it writes the
    /// input). Default true.
    pub copy: bool,
}

impl Default for MeshgridOptions {
    fn default() -> Self {
        MeshgridOptions {
            indexing: Indexing::Xy,
            sparse: false,
            copy: true,
        }
    }
}

impl MeshgridOptions {
    /// NumPy's defaults: `indexing="xy", sparse=False, copy=True`.
    pub fn new() -> MeshgridOptions {
        MeshgridOptions::default()
    }
}

option_setters!(MeshgridOptions {
    /// Sets the indexing.
    indexing: Indexing,
    /// Sets `sparse`.
    sparse: bool,
    /// Sets `copy`.
    copy: bool,
});

/// Coordinate matrices from coordinate vectors (`np.meshgrid(*xs)`), with
/// Cartesian indexing: for `x` of length `m` and `y` of length `n`, both
/// outputs have shape `(n, m)`. Inputs of any shape are flattened.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1i64, 2, 3])?;
/// let y = cp::asarray(vec![10i64, 20])?;
/// let g = cp::meshgrid(&[&x, &y])?;
/// assert_eq!(g[0].shape(), &[2, 3]);
/// assert_eq!(g[0].to_vec::<i64>()?, vec![1, 2, 3, 1, 2, 3]);
/// assert_eq!(g[1].to_vec::<i64>()?, vec![10, 10, 10, 20, 20, 20]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn meshgrid(xs: &[&Array]) -> Result<Vec<Array>> {
    meshgrid_with(xs, MeshgridOptions::default())
}

/// As [`meshgrid`], with NumPy's `indexing`, `sparse` and `copy`.
///
/// ```
/// use cuprite as cp;
/// let x = cp::arange(3)?;
/// let y = cp::arange(2)?;
/// let opts = cp::MeshgridOptions::new().indexing(cp::Indexing::Ij).sparse(true);
/// let g = cp::meshgrid_with(&[&x, &y], opts)?;
/// assert_eq!((g[0].shape(), g[1].shape()), (&[3, 1][..], &[1, 2][..]));
/// # Ok::<(), cp::Error>(())
/// ```
pub fn meshgrid_with(xs: &[&Array], opts: MeshgridOptions) -> Result<Vec<Array>> {
    let op = "meshgrid";
    if let Some(first) = xs.first() {
        if let Some(x) = xs.iter().find(|x| x.device() != first.device()) {
            return Err(Error::DeviceMismatch {
                op,
                a: first.device().to_string(),
                b: x.device().to_string(),
            });
        }
    }
    let ndim = xs.len();
    let mut out = Vec::with_capacity(ndim);
    for (i, x) in xs.iter().enumerate() {
        // Axis i holds input i, except that "xy" swaps the first two.
        let axis = match (opts.indexing, ndim > 1, i) {
            (Indexing::Xy, true, 0) => 1,
            (Indexing::Xy, true, 1) => 0,
            _ => i,
        };
        let mut shape = vec![1isize; ndim];
        shape[axis] = -1;
        out.push(x.reshape(shape)?);
    }
    if !opts.sparse {
        let refs: Vec<&Array> = out.iter().collect();
        out = crate::api::shape::broadcast_arrays(&refs)?;
    }
    if opts.copy {
        out = out.iter().map(Array::copy).collect::<Result<_>>()?;
    }
    Ok(out)
}

/// The index grid of a shape (`np.indices(dimensions, dtype)`): an array of
/// shape `(len(dimensions), *dimensions)` whose `i`-th subarray holds the
/// index along axis `i` at every position.
///
/// ```
/// use cuprite as cp;
/// let g = cp::indices([2, 3], cp::i64)?;
/// assert_eq!(g.shape(), &[2, 2, 3]);
/// assert_eq!(g.to_vec::<i64>()?, vec![0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn indices(dimensions: impl IntoShape, dtype: DType) -> Result<Array> {
    let dims = dimensions.into_shape();
    let parts = indices_sparse(&dims, dtype)?;
    let mut shape = vec![dims.len()];
    shape.extend_from_slice(&dims);
    checked_size("indices", &shape)?;
    let out = empty(shape, dtype)?;
    for (i, p) in parts.iter().enumerate() {
        out.at(i as isize)?.slice_assign(crate::s![...], p)?;
    }
    Ok(out)
}

/// The sparse form of [`indices`] (`np.indices(dimensions, dtype,
/// sparse=True)`): one array per axis, of extent 1 on every other axis, that
/// broadcast to the dense grid.
///
/// ```
/// use cuprite as cp;
/// let g = cp::indices_sparse([2, 3], cp::i32)?;
/// assert_eq!((g[0].shape(), g[1].shape()), (&[2, 1][..], &[1, 3][..]));
/// assert_eq!(g[1].to_vec::<i32>()?, vec![0, 1, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn indices_sparse(dimensions: impl IntoShape, dtype: DType) -> Result<Vec<Array>> {
    let dims = dimensions.into_shape();
    let n = dims.len();
    dims.iter()
        .enumerate()
        .map(|(i, &d)| {
            let mut shape = vec![1usize; n];
            shape[i] = d;
            arange(d)?.astype(dtype)?.reshape(shape)
        })
        .collect()
}

/// An array computed from the indices of its elements (NumPy's
/// `fromfunction`): `f` gets one array of `dtype` per axis, each of the full
/// `shape`, holding that axis' index (the subarrays of [`indices`]), and its
/// result is returned as it is.
///
/// ```
/// use cuprite as cp;
/// let a = cp::from_fn([2, 3], cp::f64, |i| cp::add(&i[0] * 10.0, &i[1]))?;
/// assert_eq!(a.to_vec::<f64>()?, vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn from_fn(
    shape: impl IntoShape,
    dtype: DType,
    f: impl FnOnce(&[Array]) -> Result<Array>,
) -> Result<Array> {
    let grid = indices(shape, dtype)?;
    let parts: Vec<Array> = (0..grid.shape()[0])
        .map(|i| grid.at(i as isize))
        .collect::<Result<_>>()?;
    f(&parts)
}

// ---------------------------------------------------------------------------
// Diagonals and triangles
// ---------------------------------------------------------------------------

/// The diagonal `offset` of the 2-D subarrays over `axis1` and `axis2`
/// (`np.diagonal(a, offset, axis1, axis2)`), as a view sharing `a`'s memory:
/// those two axes are removed and the diagonal becomes the last axis.
///
/// A positive `offset` is above the main diagonal, a negative one below; an
/// offset past the edge gives an empty diagonal. NumPy's view is read-only;
/// this one is writable (writing through it writes `a`).
///
/// ```
/// use cuprite as cp;
/// let a = cp::arange(12)?.reshape([3, 4])?;
/// assert_eq!(cp::diagonal(&a, 0, 0, 1)?.to_vec::<i64>()?, vec![0, 5, 10]);
/// assert_eq!(cp::diagonal(&a, 1, 0, 1)?.to_vec::<i64>()?, vec![1, 6, 11]);
/// assert_eq!(cp::diagonal(&a, -1, 0, 1)?.to_vec::<i64>()?, vec![4, 9]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn diagonal(a: &Array, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
    let op = "diagonal";
    let nd = a.ndim();
    if nd < 2 {
        return Err(Error::shape(
            op,
            format!("the array must have at least 2 dimensions (it has {nd})"),
        ));
    }
    let (a1, a2) = (
        normalize_axis(op, axis1, nd)?,
        normalize_axis(op, axis2, nd)?,
    );
    if a1 == a2 {
        return Err(Error::invalid(
            op,
            format!("axis1 and axis2 cannot be the same (both are axis {a1})"),
        ));
    }
    let layout = a.layout();
    let (shape, strides) = (layout.shape(), layout.strides());
    let (d1, d2) = (shape[a1], shape[a2]);
    // First element (row, col) of the diagonal and its length.
    let (row, col) = if offset >= 0 {
        (0, offset.unsigned_abs())
    } else {
        (offset.unsigned_abs(), 0)
    };
    let len = d1.saturating_sub(row).min(d2.saturating_sub(col));
    let mut new_shape = Vec::with_capacity(nd - 1);
    let mut new_strides = Vec::with_capacity(nd - 1);
    for k in (0..nd).filter(|&k| k != a1 && k != a2) {
        new_shape.push(shape[k]);
        new_strides.push(strides[k]);
    }
    new_shape.push(len);
    new_strides.push(strides[a1] + strides[a2]);
    let start = if len == 0 {
        layout.offset()
    } else {
        let o = layout.offset() as isize + row as isize * strides[a1] + col as isize * strides[a2];
        o as usize
    };
    Ok(a.with_layout(Layout::from_parts(new_shape, new_strides, start)))
}

/// A new zero array of `dtype` on `device`.
fn zeros_on(device: Device, shape: &[usize], dtype: DType) -> Result<Array> {
    with_device(device, || zeros(shape, dtype))
}

/// From a 1-D `v`, a square 2-D array with `v` on diagonal `k` and zeros
/// elsewhere; from a 2-D `v`, a copy of its diagonal `k` (`np.diag(v, k)`).
///
/// ```
/// use cuprite as cp;
/// let v = cp::asarray(vec![1i32, 2])?;
/// let m = cp::diag(&v, 1)?;
/// assert_eq!(m.shape(), &[3, 3]);
/// assert_eq!(m.to_vec::<i32>()?, vec![0, 1, 0, 0, 0, 2, 0, 0, 0]);
/// assert_eq!(cp::diag(&m, 1)?.to_vec::<i32>()?, vec![1, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn diag(v: &Array, k: isize) -> Result<Array> {
    match v.ndim() {
        1 => {
            let n = v
                .len()
                .checked_add(k.unsigned_abs())
                .ok_or_else(|| Error::Overflow {
                    op: "diag",
                    detail: format!("a diagonal of {} elements at offset {k}", v.len()),
                })?;
            let out = zeros_on(v.device(), &[n, n], v.dtype())?;
            diagonal(&out, k, 0, 1)?.slice_assign(crate::s![...], v)?;
            Ok(out)
        }
        2 => diagonal(v, k, 0, 1)?.copy(),
        nd => Err(Error::Shape {
            op: "diag",
            detail: format!("the input must be 1-D or 2-D (it has {nd} dimensions)"),
        }),
    }
}

/// A square 2-D array with the flattened `v` on diagonal `k` (`np.diagflat`).
///
/// ```
/// use cuprite as cp;
/// let v = cp::asarray([[1.0, 2.0], [3.0, 4.0]])?;
/// let m = cp::diagflat(&v, -1)?;
/// assert_eq!(m.shape(), &[5, 5]);
/// assert_eq!(cp::diagonal(&m, -1, 0, 1)?.to_vec::<f64>()?, vec![1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn diagflat(v: &Array, k: isize) -> Result<Array> {
    diag(&v.reshape([-1])?, k)
}

/// The bool mask `j - i <= k` of shape `(n, m)` on `device`: the lower
/// triangle of `tri`, from one broadcast comparison of two ranges.
fn tri_mask(device: Device, n: usize, m: usize, k: isize) -> Result<Array> {
    let op = "tri";
    checked_size(op, &[n, m])?;
    with_device(device, || {
        let rows = arange(n)?.reshape([n, 1])?;
        // NumPy's greater_equal.outer(arange(n), arange(-k, m - k)). Past
        // -n (all false) and m (all true) the mask stays the same, so k is
        // clamped there and the bounds cannot overflow.
        let k = (k as i64).clamp(-(n as i64), m as i64);
        let cols = arange_step(-k, m as i64 - k, 1i64)?;
        crate::api::elementwise::greater_equal(&rows, &cols)
    })
}

/// A 2-D array of shape `(n, m)` (`m` defaults to `n`) with ones at and
/// below diagonal `k` and zeros above (`np.tri(N, M, k, dtype)`).
///
/// ```
/// use cuprite as cp;
/// let t = cp::tri(3, Some(4), 1, cp::i32)?;
/// assert_eq!(t.to_vec::<i32>()?, vec![1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn tri(n: usize, m: Option<usize>, k: isize, dtype: DType) -> Result<Array> {
    let mask = tri_mask(current_device(), n, m.unwrap_or(n), k)?;
    if dtype == DType::Bool {
        Ok(mask)
    } else {
        mask.astype(dtype)
    }
}

/// `a` with the elements above diagonal `k` of its last two axes zeroed,
/// through one `where_` over a broadcast index mask.
fn triangle(op: &'static str, a: &Array, k: isize, lower: bool) -> Result<Array> {
    let (n, m) = match a.shape() {
        [] => {
            return Err(Error::shape(
                op,
                "the input must have at least 1 dimension (it is 0-d)",
            ))
        }
        // As NumPy: a 1-D input of length m is treated as an (m, m) stack of rows.
        [m] => (*m, *m),
        [.., n, m] => (*n, *m),
    };
    let device = a.device();
    let zero = zeros_on(device, &[], a.dtype())?;
    if lower {
        let mask = tri_mask(device, n, m, k)?;
        crate::api::shape::index::where_(&mask, a, &zero)
    } else {
        let mask = tri_mask(device, n, m, k.saturating_sub(1))?;
        crate::api::shape::index::where_(&mask, &zero, a)
    }
}

/// The lower triangle of `a`: elements above diagonal `k` set to zero
/// (`np.tril(a, k)`). Arrays of more dimensions are stacks of matrices over
/// the last two axes; a 1-D array of length `m` gives an `(m, m)` result.
///
/// ```
/// use cuprite as cp;
/// let a = cp::arange(9)?.reshape([3, 3])?;
/// assert_eq!(cp::tril(&a, 0)?.to_vec::<i64>()?, vec![0, 0, 0, 3, 4, 0, 6, 7, 8]);
/// assert_eq!(cp::tril(&a, -1)?.to_vec::<i64>()?, vec![0, 0, 0, 3, 0, 0, 6, 7, 0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn tril(a: &Array, k: isize) -> Result<Array> {
    triangle("tril", a, k, true)
}

/// The upper triangle of `a`: elements below diagonal `k` set to zero
/// (`np.triu(a, k)`); stacks and 1-D input as in [`tril`].
///
/// ```
/// use cuprite as cp;
/// let a = cp::arange(9)?.reshape([3, 3])?;
/// assert_eq!(cp::triu(&a, 0)?.to_vec::<i64>()?, vec![0, 1, 2, 0, 4, 5, 0, 0, 8]);
/// assert_eq!(cp::triu(&a, 1)?.to_vec::<i64>()?, vec![0, 1, 2, 0, 0, 5, 0, 0, 0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn triu(a: &Array, k: isize) -> Result<Array> {
    triangle("triu", a, k, false)
}

// ---------------------------------------------------------------------------
// *_like with a dtype
// ---------------------------------------------------------------------------

// The `*_like` functions (these and the ones without a dtype, which call
// them) make their array on `a`'s device, not the current one: a CPU-backend
// array (a check beside GPU work) gets a CPU array back, as NumPy's and
// PyTorch's `*_like` keep the kind and device of `a`.

/// Zeros with the shape and device of `a` and the given dtype (`np.zeros_like(a, dtype)`).
///
/// ```
/// use cuprite as cp;
/// let a = cp::ones([2, 3], cp::f64)?;
/// let z = cp::zeros_like_as(&a, cp::i32)?;
/// assert_eq!((z.shape(), z.dtype()), (&[2, 3][..], cp::i32));
/// # Ok::<(), cp::Error>(())
/// ```
pub fn zeros_like_as(a: &Array, dtype: DType) -> Result<Array> {
    with_device(a.device(), || zeros(a.shape(), dtype))
}

/// Ones with the shape and device of `a` and the given dtype (`np.ones_like(a, dtype)`).
///
/// ```
/// use cuprite as cp;
/// let a = cp::zeros([2], cp::f64)?;
/// assert_eq!(cp::ones_like_as(&a, cp::bool_)?.to_vec::<bool>()?, vec![true, true]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn ones_like_as(a: &Array, dtype: DType) -> Result<Array> {
    with_device(a.device(), || ones(a.shape(), dtype))
}

/// An array with the shape and device of `a` and the given dtype, contents unspecified
/// (`np.empty_like(a, dtype)`; see [`empty`](crate::empty)).
///
/// ```
/// use cuprite as cp;
/// let a = cp::zeros([4, 2], cp::f64)?;
/// let e = cp::empty_like_as(&a, cp::f32)?;
/// assert_eq!((e.shape(), e.dtype()), (&[4, 2][..], cp::f32));
/// # Ok::<(), cp::Error>(())
/// ```
pub fn empty_like_as(a: &Array, dtype: DType) -> Result<Array> {
    with_device(a.device(), || empty(a.shape(), dtype))
}

/// `value` cast to `dtype`, with the shape and device of `a` (`np.full_like(a, value, dtype)`).
///
/// ```
/// use cuprite as cp;
/// let a = cp::zeros([3], cp::i64)?;
/// assert_eq!(cp::full_like_as(&a, 2.5, cp::f32)?.to_vec::<f32>()?, vec![2.5; 3]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn full_like_as(a: &Array, value: impl Into<Scalar>, dtype: DType) -> Result<Array> {
    with_device(a.device(), || full(a.shape(), value, dtype))
}
