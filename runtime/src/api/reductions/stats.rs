//! Statistics and NaN-aware reductions: `nansum`, `nanprod`, `nanmin`,
//! `nanmax` (one-pass reductions of the backend), `nanmean`, `nanvar`,
//! `nanstd`, `nanargmin`, `nanargmax`, `median`, `nanmedian`, `quantile`,
//! `percentile`, `ptp`, `count_nonzero`, `average`, `diff`, `ediff1d`,
//! `gradient`, `cov`, `corrcoef`, `trapezoid` and `cumulative_sum`, with
//! NumPy's semantics.
//!
//! Everything but the four nan-reductions is built from array operations
//! that run on every backend (slices, ufuncs, reductions, sorts, `take`,
//! `matmul`), so nothing here brings device data to the host.
//!
//! Differences from NumPy: an all-NaN slice gives NaN without a warning
//! (`nanmin`, `nanmax`, `nanmean`, ...); `nanargmin` and `nanargmax` give -1
//! for an all-NaN slice where NumPy raises (CuPy's choice: raising would
//! need the device's data on the host); `average` does not check for weights
//! summing to zero (the result is inf or NaN there); `ddof` is unsigned.

use crate::api::creation::asarray_on;
use crate::api::reductions::{nanmax, nanmin, nanprod, nansum, ptp, reduce, Axes};
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::ops::reduce::ReduceOp;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// `x[..., start:end, ...]` on `axis` (a view).
fn along(x: &Array, axis: usize, start: Option<isize>, end: Option<isize>) -> Result<Array> {
    crate::api::shape::index::slice_axis(x, axis, start, end, 1)
}

/// `x` as `dtype`, without a copy when it already is.
fn cast(x: &Array, dtype: DType) -> Result<Array> {
    if x.dtype() == dtype {
        Ok(x.clone())
    } else {
        x.astype(dtype)
    }
}

/// An array of `shape` filled with `value` on `device`.
fn full_on(device: Device, shape: &[usize], value: f64, dtype: DType) -> Result<Array> {
    with_device(device, || crate::full(shape.to_vec(), value, dtype))
}

/// The shape of a reduction of `x` over `axes` (normalized).
fn reduced_shape(x: &Array, axes: &[usize], keepdims: bool) -> Vec<usize> {
    let mut s = Vec::with_capacity(x.ndim());
    for (a, &d) in x.shape().iter().enumerate() {
        if axes.contains(&a) {
            if keepdims {
                s.push(1);
            }
        } else {
            s.push(d);
        }
    }
    s
}

/// The number of elements of `x` over `axes`.
fn reduced_count(x: &Array, axes: &[usize]) -> usize {
    axes.iter().map(|&a| x.shape()[a]).product()
}

/// The float dtype statistics of `dt` are computed in: float64 for bool
/// and integers, else `dt`.
fn float_of(dt: DType) -> DType {
    if dt.is_inexact() {
        dt
    } else {
        DType::Float64
    }
}

/// Fails for a 0-d `x` (the op works along an axis).
fn at_least_1d(op: &'static str, x: &Array) -> Result<()> {
    if x.ndim() == 0 {
        return Err(Error::invalid(
            op,
            format!("{op} requires an array of at least one dimension"),
        ));
    }
    Ok(())
}

/// `axis` of `x` normalized, for an op along one axis of an n-d array.
fn along_axis(op: &'static str, x: &Array, axis: isize) -> Result<usize> {
    at_least_1d(op, x)?;
    crate::core::layout::normalize_axis(op, axis, x.ndim())
}

// ---------------------------------------------------------------------------
// NaN-aware reductions
// ---------------------------------------------------------------------------

fn non_nan_count(x: &Array, axes: &[usize], keepdims: bool) -> Result<(Array, Array)> {
    let mask = crate::isnan(x)?;
    let nans = mask.sum_axes(axes.to_vec(), keepdims)?;
    let n = reduced_count(x, axes) as i64;
    Ok((crate::subtract(n, &nans)?, mask))
}

/// The mean of the non-NaN elements of `x` over `axes` (`np.nanmean`);
/// NaN where a slice has none. Integers give float64, as `mean`.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1.0, f64::NAN, 3.0])?;
/// assert_eq!(cp::nanmean(&x, None, false)?.to_vec::<f64>()?, vec![2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn nanmean(x: &Array, axes: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    let axes = axes.into();
    if !x.dtype().is_inexact() {
        return reduce(x, ReduceOp::Mean, axes, keepdims);
    }
    let ax = axes.resolve("nanmean", x.ndim())?;
    let (count, _) = non_nan_count(x, &ax, keepdims)?;
    let total = nansum(x, ax, keepdims)?;
    // As NumPy: the division in the promoted type, cast back.
    crate::divide(&total, &count)?.astype(x.dtype())
}

/// The variance of the non-NaN elements of `x` over `axes`, dividing by
/// `count - ddof` (`np.nanvar`); NaN where that is not positive. Integers
/// give float64, complex numbers their real dtype.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1.0, f64::NAN, 3.0])?;
/// assert_eq!(cp::nanvar(&x, None, 0, false)?.to_vec::<f64>()?, vec![1.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn nanvar(x: &Array, axes: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
    nan_var(x, axes.into(), ddof, keepdims, false)
}

/// The standard deviation of the non-NaN elements of `x` over `axes`
/// (`np.nanstd`): the square root of [`nanvar`].
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1.0, f64::NAN, 5.0])?;
/// assert_eq!(cp::nanstd(&x, None, 0, false)?.to_vec::<f64>()?, vec![2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn nanstd(x: &Array, axes: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
    nan_var(x, axes.into(), ddof, keepdims, true)
}

fn nan_var(x: &Array, axes: Axes, ddof: usize, keepdims: bool, sqrt: bool) -> Result<Array> {
    let dt = x.dtype();
    if !dt.is_inexact() {
        let op = if sqrt {
            ReduceOp::Std(ddof)
        } else {
            ReduceOp::Var(ddof)
        };
        return reduce(x, op, axes, keepdims);
    }
    let name = if sqrt { "nanstd" } else { "nanvar" };
    let ax = axes.resolve(name, x.ndim())?;
    let (count, mask) = non_nan_count(x, &ax, true)?;
    let zeroed = crate::where_(&mask, 0, x)?;
    let mean = crate::divide(&zeroed.sum_axes(ax.clone(), true)?, &count)?.astype(dt)?;
    let dev = crate::where_(&mask, 0, crate::subtract(&zeroed, &mean)?)?;
    let sq = if dt.is_complex() {
        crate::square(crate::abs(&dev)?)?
    } else {
        crate::multiply(&dev, &dev)?
    };
    let ss = sq.sum_axes(ax.clone(), true)?;
    let dof = crate::subtract(&count, ddof as i64)?;
    let var = crate::divide(&ss, &dof)?.astype(ss.dtype())?;
    let var = crate::where_(crate::less_equal(&dof, 0)?, f64::NAN, &var)?;
    let var = if sqrt { crate::sqrt(&var)? } else { var };
    var.reshape(reduced_shape(x, &ax, keepdims))
}

/// `nanargmin` (`max == false`) or `nanargmax`.
fn nan_arg(x: &Array, max: bool, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    if !x.dtype().is_inexact() {
        return if max {
            crate::argmax(x, axis, keepdims)
        } else {
            crate::argmin(x, axis, keepdims)
        };
    }
    let mask = crate::isnan(x)?;
    let fill = if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    let filled = crate::where_(&mask, fill, x)?;
    let at = if max {
        crate::argmax(&filled, axis, keepdims)?
    } else {
        crate::argmin(&filled, axis, keepdims)?
    };
    let all_nan = mask.all_axes(Axes::from(axis), keepdims)?;
    crate::where_(&all_nan, -1i64, &at)
}

/// Indices of the minima of `x` along `axis` (`None`: into the flattened
/// array) ignoring NaNs (`np.nanargmin`); -1 for an all-NaN slice (where
/// NumPy raises, as CuPy does). Zero elements is an error.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![f64::NAN, 4.0, 2.0])?;
/// assert_eq!(cp::nanargmin(&x, None, false)?.to_vec::<i64>()?, vec![2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn nanargmin(x: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    nan_arg(x, false, axis, keepdims)
}

/// Indices of the maxima of `x` along `axis` (`None`: into the flattened
/// array) ignoring NaNs (`np.nanargmax`); -1 for an all-NaN slice.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![f64::NAN, 4.0, 2.0])?;
/// assert_eq!(cp::nanargmax(&x, None, false)?.to_vec::<i64>()?, vec![1]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn nanargmax(x: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    nan_arg(x, true, axis, keepdims)
}

// ---------------------------------------------------------------------------
// Ranges and counts
// ---------------------------------------------------------------------------

/// The number of non-zero elements of `x` over `axes`, as int64
/// (`np.count_nonzero`; NaN counts as non-zero).
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![vec![0, 1, 7], vec![0, 0, 3]])?;
/// assert_eq!(cp::count_nonzero(&x, 0, false)?.to_vec::<i64>()?, vec![0, 1, 2]);
/// assert_eq!(cp::count_nonzero(&x, None, false)?.to_vec::<i64>()?, vec![3]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn count_nonzero(x: &Array, axes: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    let truth = cast(x, DType::Bool)?;
    reduce(&truth, ReduceOp::Sum, axes.into(), keepdims)
}

// ---------------------------------------------------------------------------
// Order statistics
// ---------------------------------------------------------------------------

/// How [`quantile`] and [`percentile`] pick a value between two order
/// statistics (NumPy's `method=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QuantileMethod {
    /// Linear interpolation at `q * (n - 1)` (NumPy's default).
    #[default]
    Linear,
    /// The lower of the two neighbours.
    Lower,
    /// The higher of the two neighbours.
    Higher,
    /// The nearest neighbour (ties to the even index).
    Nearest,
    /// The mean of the two neighbours.
    Midpoint,
}

/// The quantiles asked of [`quantile`] (in `[0, 1]`) or [`percentile`] (in
/// `[0, 100]`): one value, or a list whose length becomes the result's
/// first axis.
#[derive(Debug, Clone, PartialEq)]
pub enum Quantiles {
    /// One quantile: the result has the reduced shape.
    One(f64),
    /// Several: the result has shape `(len,) + reduced shape`.
    Many(Vec<f64>),
}

impl From<f64> for Quantiles {
    fn from(q: f64) -> Quantiles {
        Quantiles::One(q)
    }
}

impl From<Vec<f64>> for Quantiles {
    fn from(q: Vec<f64>) -> Quantiles {
        Quantiles::Many(q)
    }
}

impl From<&[f64]> for Quantiles {
    fn from(q: &[f64]) -> Quantiles {
        Quantiles::Many(q.to_vec())
    }
}

impl<const N: usize> From<[f64; N]> for Quantiles {
    fn from(q: [f64; N]) -> Quantiles {
        Quantiles::Many(q.to_vec())
    }
}

/// `x` sorted along the reduced axes, which become one axis: the sorted
/// array, that axis, and its extent. One axis stays where it is; several
/// are moved to the end and merged.
fn sorted_along(op: &'static str, x: &Array, axes: &[usize]) -> Result<(Array, usize, usize)> {
    let n = reduced_count(x, axes);
    let (y, axis) = match axes {
        [a] => (x.clone(), *a),
        _ if axes.len() == x.ndim() => (x.reshape([x.size()])?, 0),
        _ => {
            let mut order: Vec<isize> = (0..x.ndim())
                .filter(|a| !axes.contains(a))
                .map(|a| a as isize)
                .collect();
            let kept: Vec<usize> = order.iter().map(|&a| x.shape()[a as usize]).collect();
            order.extend(axes.iter().map(|&a| a as isize));
            let mut shape = kept;
            shape.push(n);
            let y = x.permute_axes(&order)?.reshape(shape)?;
            let last = y.ndim() - 1;
            (y, last)
        }
    };
    let _ = op;
    Ok((crate::api::sorting::sort(&y, axis as isize)?, axis, n))
}

/// Where the last (largest) sorted element along `axis` is NaN, `value`
/// becomes NaN (NumPy's median and quantiles propagate NaN).
fn propagate_nan(sorted: &Array, axis: usize, n: usize, value: Array) -> Result<Array> {
    if !sorted.dtype().is_inexact() || n == 0 {
        return Ok(value);
    }
    let last = along(sorted, axis, Some(n as isize - 1), Some(n as isize))?;
    crate::where_(crate::isnan(&last)?, f64::NAN, &value)
}

/// The median of `x` over `axes` (`np.median`): the middle element of each
/// sorted slice, or the mean of the middle two. NaN where a slice has a NaN
/// or no elements; integers give float64.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![vec![3.0, 1.0, 2.0], vec![9.0, 4.0, 6.0]])?;
/// assert_eq!(cp::median(&x, 1, false)?.to_vec::<f64>()?, vec![2.0, 6.0]);
/// assert_eq!(cp::median(&x, None, false)?.to_vec::<f64>()?, vec![3.5]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn median(x: &Array, axes: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    let op = "median";
    complex_unsupported(op, x)?;
    let ax = axes.into().resolve(op, x.ndim())?;
    let out_shape = reduced_shape(x, &ax, keepdims);
    let rdt = float_of(x.dtype());
    if reduced_count(x, &ax) == 0 {
        return full_on(x.device(), &out_shape, f64::NAN, rdt);
    }
    let (sorted, axis, n) = sorted_along(op, x, &ax)?;
    // The middle one (odd n) or two (even n), averaged as NumPy does; a
    // view, so no index array goes to the device.
    let first = (n - 1) / 2;
    let mid = along(
        &sorted,
        axis,
        Some(first as isize),
        Some((n / 2 + 1) as isize),
    )?;
    let m = mid.mean_axes(axis as isize, true)?;
    propagate_nan(&sorted, axis, n, m)?.reshape(out_shape)
}

/// The median of the non-NaN elements of `x` over `axes` (`np.nanmedian`);
/// NaN where a slice has none.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![f64::NAN, 1.0, 4.0, 2.0])?;
/// assert_eq!(cp::nanmedian(&x, None, false)?.to_vec::<f64>()?, vec![2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn nanmedian(x: &Array, axes: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    let op = "nanmedian";
    let axes = axes.into();
    if !x.dtype().is_inexact() {
        return median(x, axes, keepdims);
    }
    complex_unsupported(op, x)?;
    let ax = axes.resolve(op, x.ndim())?;
    let out_shape = reduced_shape(x, &ax, keepdims);
    let n = reduced_count(x, &ax);
    if n == 0 {
        return full_on(x.device(), &out_shape, f64::NAN, x.dtype());
    }
    // Each slice as a row of a matrix, sorted: its NaNs come last, so the
    // middle of its first `count` elements is its median.
    let rows = x.size() / n;
    let mut order: Vec<isize> = (0..x.ndim())
        .filter(|a| !ax.contains(a))
        .map(|a| a as isize)
        .collect();
    order.extend(ax.iter().map(|&a| a as isize));
    let m = x.permute_axes(&order)?.reshape([rows, n])?;
    let sorted = crate::api::sorting::sort(&m, -1)?;
    let (count, _) = non_nan_count(&m, &[1], false)?;
    let starts = crate::multiply(
        asarray_on((0..rows as i64).collect::<Vec<i64>>(), x.device())?,
        n as i64,
    )?;
    // lo = max((count - 1) // 2, 0), hi = count // 2; an all-NaN row reads its NaN.
    let lo = crate::maximum(
        crate::floor_divide(crate::subtract(&count, 1i64)?, 2i64)?,
        0i64,
    )?;
    let hi = crate::floor_divide(&count, 2i64)?;
    let flat = sorted.reshape([rows * n])?;
    let a = flat.take(crate::add(&starts, &lo)?, None)?;
    let b = flat.take(crate::add(&starts, &hi)?, None)?;
    crate::stack(&[&a, &b], -1)?
        .mean_axes(-1, false)?
        .reshape(out_shape)
}

fn complex_unsupported(op: &'static str, x: &Array) -> Result<()> {
    if x.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("{op} of complex numbers is not supported (NumPy: no ordering)"),
        });
    }
    Ok(())
}

/// The `q`-th quantiles of `x` over `axes` (`np.quantile`), `q` in
/// `[0, 1]`, with NumPy's `method` (see [`QuantileMethod`]). NaN where a
/// slice has a NaN.
///
/// Result dtype (NumPy's): `Lower`, `Higher` and `Nearest` keep `x`'s
/// dtype; `Linear` and `Midpoint` give `x`'s float dtype for one quantile
/// and float64 for several (NumPy computes with `q`'s float64 there) or
/// for integers.
///
/// ```
/// use cuprite as cp;
/// use cp::QuantileMethod;
/// let x = cp::arange(5)?.astype(cp::f64)?; // 0, 1, 2, 3, 4
/// let q = cp::quantile(&x, 0.3, None, QuantileMethod::Linear, false)?;
/// assert!((q.to_vec::<f64>()?[0] - 1.2).abs() < 1e-12);
/// let q = cp::quantile(&x, vec![0.3, 1.0], None, QuantileMethod::Lower, false)?;
/// assert_eq!(q.to_vec::<f64>()?, vec![1.0, 4.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn quantile(
    x: &Array,
    q: impl Into<Quantiles>,
    axes: impl Into<Axes>,
    method: QuantileMethod,
    keepdims: bool,
) -> Result<Array> {
    quantiles("quantile", x, q.into(), 1.0, axes.into(), method, keepdims)
}

/// The `q`-th percentiles of `x` over `axes` (`np.percentile`), `q` in
/// `[0, 100]`: [`quantile`] at `q / 100`.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![vec![10.0, 7.0, 4.0], vec![3.0, 2.0, 1.0]])?;
/// let p = cp::percentile(&x, 50.0, 0, cp::QuantileMethod::Linear, false)?;
/// assert_eq!(p.to_vec::<f64>()?, vec![6.5, 4.5, 2.5]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn percentile(
    x: &Array,
    q: impl Into<Quantiles>,
    axes: impl Into<Axes>,
    method: QuantileMethod,
    keepdims: bool,
) -> Result<Array> {
    quantiles(
        "percentile",
        x,
        q.into(),
        100.0,
        axes.into(),
        method,
        keepdims,
    )
}

/// One quantile's position in a sorted run of `n`: the two neighbours and
/// the weight of the upper one, computed as NumPy does in `q`'s precision.
fn position(q: f64, n: usize, method: QuantileMethod, single_f32: bool) -> (i64, i64, f64) {
    let last = n as i64 - 1;
    let v = if single_f32 {
        // NumPy casts a Python-float q to a float32 array's dtype.
        ((n as f32 - 1.0) * q as f32) as f64
    } else {
        (n as f64 - 1.0) * q
    };
    let clamp = |i: f64| (i as i64).clamp(0, last);
    match method {
        QuantileMethod::Lower => (clamp(v.floor()), clamp(v.floor()), 0.0),
        QuantileMethod::Higher => (clamp(v.ceil()), clamp(v.ceil()), 0.0),
        QuantileMethod::Nearest => {
            let r = v.round_ties_even();
            (clamp(r), clamp(r), 0.0)
        }
        QuantileMethod::Midpoint => {
            let (lo, hi) = (clamp(v.floor()), clamp(v.ceil()));
            (lo, hi, if lo == hi { 0.0 } else { 0.5 })
        }
        QuantileMethod::Linear => {
            if v >= last as f64 {
                (last, last, 0.0)
            } else if v < 0.0 {
                (0, 0, 0.0)
            } else {
                let lo = v.floor();
                let t = if single_f32 {
                    (v as f32 - lo as f32) as f64
                } else {
                    v - lo
                };
                (lo as i64, lo as i64 + 1, t)
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn quantiles(
    op: &'static str,
    x: &Array,
    q: Quantiles,
    scale: f64,
    axes: Axes,
    method: QuantileMethod,
    keepdims: bool,
) -> Result<Array> {
    complex_unsupported(op, x)?;
    let (qs, many) = match &q {
        Quantiles::One(v) => (vec![*v / scale], false),
        Quantiles::Many(v) => (v.iter().map(|v| v / scale).collect::<Vec<f64>>(), true),
    };
    if let Some(bad) = qs.iter().find(|v| !(0.0..=1.0).contains(*v)) {
        return Err(Error::invalid(
            op,
            format!(
                "quantiles must be in the range [0, {scale}], got {}",
                bad * scale
            ),
        ));
    }
    let ax = axes.resolve(op, x.ndim())?;
    let dt = x.dtype();
    let interpolates = matches!(method, QuantileMethod::Linear | QuantileMethod::Midpoint);
    let rdt = if !interpolates {
        dt
    } else if many || !dt.is_inexact() {
        DType::Float64
    } else {
        dt
    };
    let mut out_shape = reduced_shape(x, &ax, keepdims);
    if many {
        out_shape.insert(0, qs.len());
    }
    let k = qs.len();
    if reduced_count(x, &ax) == 0 {
        return full_on(x.device(), &out_shape, f64::NAN, float_of(rdt));
    }
    if k == 0 {
        return full_on(x.device(), &out_shape, 0.0, rdt);
    }
    let (sorted, axis, n) = sorted_along(op, x, &ax)?;
    let single_f32 = !many && dt == DType::Float32;
    let pos: Vec<(i64, i64, f64)> = qs
        .iter()
        .map(|&q| position(q, n, method, single_f32))
        .collect();
    let mut picks: Vec<i64> = pos.iter().map(|p| p.0).collect();
    picks.extend(pos.iter().map(|p| p.1));
    let vals = sorted.take(asarray_on(picks, x.device())?, Some(axis as isize))?;
    let lo = cast(&along(&vals, axis, Some(0), Some(k as isize))?, rdt)?;
    let value = if interpolates {
        let hi = cast(&along(&vals, axis, Some(k as isize), None)?, rdt)?;
        let mut tshape = vec![1usize; vals.ndim()];
        tshape[axis] = k;
        let t = asarray_on(pos.iter().map(|p| p.2).collect::<Vec<f64>>(), x.device())?
            .reshape(tshape)?
            .astype(rdt)?;
        lerp(&lo, &hi, &t)?
    } else {
        lo
    };
    let value = propagate_nan(&sorted, axis, n, value)?;
    let value = if many {
        value.moveaxis(axis as isize, 0)?
    } else {
        value
    };
    value.reshape(out_shape)
}

/// NumPy's `_lerp`: `a + (b - a) * t`, or `b - (b - a) * (1 - t)` where
/// `t >= 0.5` (exact at both ends).
fn lerp(a: &Array, b: &Array, t: &Array) -> Result<Array> {
    let d = crate::subtract(b, a)?;
    let low = crate::add(a, crate::multiply(&d, t)?)?;
    let one_minus = crate::subtract(1.0, t)?;
    let high = crate::subtract(b, crate::multiply(&d, &one_minus)?)?;
    crate::where_(crate::greater_equal(t, 0.5)?, &high, &low)
}

// ---------------------------------------------------------------------------
// Weighted mean
// ---------------------------------------------------------------------------

/// The weighted mean of `x` over `axes` (`np.average`): `sum(x * w) /
/// sum(w)`, or the mean without weights.
///
/// `weights` has `x`'s shape, or is 1-D with the extent of the one axis in
/// `axes`. Integers and bools compute in float64.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1.0, 2.0, 4.0])?;
/// let w = cp::asarray(vec![3.0, 1.0, 0.0])?;
/// assert_eq!(cp::average(&x, None, Some(&w))?.to_vec::<f64>()?, vec![1.25]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn average(x: &Array, axes: impl Into<Axes>, weights: Option<&Array>) -> Result<Array> {
    Ok(average_returned(x, axes, weights)?.0)
}

/// As [`average`], also returning the sum of the weights (the element
/// count without weights), broadcast to the result's shape
/// (`np.average(..., returned=True)`).
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![vec![1.0, 3.0], vec![5.0, 7.0]])?;
/// let w = cp::asarray(vec![1.0, 3.0])?;
/// let (avg, wsum) = cp::average_returned(&x, 1, Some(&w))?;
/// assert_eq!(avg.to_vec::<f64>()?, vec![2.5, 6.5]);
/// assert_eq!(wsum.to_vec::<f64>()?, vec![4.0, 4.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn average_returned(
    x: &Array,
    axes: impl Into<Axes>,
    weights: Option<&Array>,
) -> Result<(Array, Array)> {
    let op = "average";
    let axes = axes.into();
    let ax = axes.resolve(op, x.ndim())?;
    let Some(w) = weights else {
        let avg = reduce(x, ReduceOp::Mean, axes, false)?;
        let n = reduced_count(x, &ax) as f64;
        let count = full_on(x.device(), avg.shape(), n, avg.dtype())?;
        return Ok((avg, count));
    };
    let wdt = crate::promote_types(x.dtype(), w.dtype());
    let rdt = if x.dtype().is_inexact() {
        wdt
    } else {
        crate::promote_types(wdt, DType::Float64)
    };
    let w = if w.shape() == x.shape() {
        w.clone()
    } else {
        let one_axis = match (&axes, ax.as_slice()) {
            (Axes::One(_), [a]) => Some(*a),
            _ => None,
        };
        match one_axis {
            Some(a) if w.ndim() == 1 && w.shape()[0] == x.shape()[a] => {
                let mut shape = vec![1usize; x.ndim()];
                shape[a] = w.shape()[0];
                w.reshape(shape)?
            }
            _ => {
                return Err(Error::Shape {
                    op,
                    detail: format!(
                        "weights of shape {:?} do not fit an array of shape {:?} averaged over axes {:?}: give x's shape, or a 1-D array as long as the one averaged axis",
                        w.shape(),
                        x.shape(),
                        ax
                    ),
                })
            }
        }
    };
    let w = cast(&w, rdt)?;
    let xw = crate::multiply(&cast(x, rdt)?, &w)?;
    let wsum = w.broadcast_to(x.shape())?.sum_axes(ax.clone(), false)?;
    let avg = crate::divide(&xw.sum_axes(ax, false)?, &wsum)?;
    let wsum = wsum.broadcast_to(avg.shape())?.copy()?;
    Ok((avg, wsum))
}

// ---------------------------------------------------------------------------
// Differences, gradients, integrals, running sums
// ---------------------------------------------------------------------------

/// What [`diff_with`] puts before and after `x` along the axis first.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiffEnds<'a> {
    /// Values before `x` (NumPy's `prepend=`): a 0-d array is repeated
    /// over the other axes.
    pub prepend: Option<&'a Array>,
    /// Values after `x` (NumPy's `append=`).
    pub append: Option<&'a Array>,
}

/// The `n`-th discrete difference of `x` along `axis` (`np.diff`):
/// `x[1:] - x[:-1]`, `n` times (bools: `!=`). One subtraction of two views
/// per order.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1i64, 2, 4, 7, 0])?;
/// assert_eq!(cp::diff(&x, 1, -1)?.to_vec::<i64>()?, vec![1, 2, 3, -7]);
/// assert_eq!(cp::diff(&x, 2, -1)?.to_vec::<i64>()?, vec![1, 1, -10]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn diff(x: &Array, n: usize, axis: isize) -> Result<Array> {
    diff_with(x, n, axis, DiffEnds::default())
}

/// As [`diff`], with values joined before and after `x` along `axis`
/// first (NumPy's `prepend=` and `append=`).
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1.0, 2.0, 4.0])?;
/// let zero = cp::asarray(0.0)?;
/// let ends = cp::DiffEnds { prepend: Some(&zero), append: None };
/// assert_eq!(cp::diff_with(&x, 1, 0, ends)?.to_vec::<f64>()?, vec![1.0, 1.0, 2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn diff_with(x: &Array, n: usize, axis: isize, ends: DiffEnds<'_>) -> Result<Array> {
    let op = "diff";
    let axis = along_axis(op, x, axis)?;
    if n == 0 {
        return Ok(x.clone());
    }
    let end = |e: &Array| -> Result<Array> {
        if e.ndim() == 0 {
            let mut shape = x.shape().to_vec();
            shape[axis] = 1;
            e.broadcast_to(&shape)
        } else {
            Ok(e.clone())
        }
    };
    let mut parts = Vec::new();
    if let Some(p) = ends.prepend {
        parts.push(end(p)?);
    }
    parts.push(x.clone());
    if let Some(a) = ends.append {
        parts.push(end(a)?);
    }
    let mut y = if parts.len() == 1 {
        x.clone()
    } else {
        let refs: Vec<&Array> = parts.iter().collect();
        crate::concatenate(&refs, axis as isize)?
    };
    for _ in 0..n {
        let len = y.shape()[axis];
        if len == 0 {
            break;
        }
        let hi = along(&y, axis, Some(1), None)?;
        let lo = along(&y, axis, Some(0), Some(len as isize - 1))?;
        y = if y.dtype() == DType::Bool {
            crate::not_equal(&hi, &lo)?
        } else {
            crate::subtract(&hi, &lo)?
        };
    }
    Ok(y)
}

/// The differences of consecutive elements of the flattened `x`
/// (`np.ediff1d`), with `to_begin` and `to_end` (flattened, cast to `x`'s
/// dtype) around them.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1.0f32, 2.0, 4.0])?;
/// let b = cp::asarray(vec![9.0f32])?;
/// let y = cp::ediff1d(&x, None, Some(&b))?;
/// assert_eq!(y.to_vec::<f32>()?, vec![9.0, 1.0, 2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn ediff1d(x: &Array, to_end: Option<&Array>, to_begin: Option<&Array>) -> Result<Array> {
    let flat = x.reshape([x.size()])?;
    let d = if x.size() == 0 {
        flat.clone()
    } else {
        let hi = along(&flat, 0, Some(1), None)?;
        let lo = along(&flat, 0, Some(0), Some(x.size() as isize - 1))?;
        if x.dtype() == DType::Bool {
            crate::not_equal(&hi, &lo)?
        } else {
            cast(&crate::subtract(&hi, &lo)?, x.dtype())?
        }
    };
    if to_end.is_none() && to_begin.is_none() {
        return Ok(d);
    }
    let piece = |e: &Array| -> Result<Array> {
        let e = e.reshape([e.size()])?;
        if !crate::can_cast(e.dtype(), d.dtype(), crate::Casting::SameKind) {
            return Err(Error::Cast {
                op: "ediff1d",
                from: e.dtype(),
                to: d.dtype(),
                casting: crate::Casting::SameKind.name(),
            });
        }
        cast(&e, d.dtype())
    };
    let mut parts = Vec::new();
    if let Some(b) = to_begin {
        parts.push(piece(b)?);
    }
    parts.push(d.clone());
    if let Some(e) = to_end {
        parts.push(piece(e)?);
    }
    let refs: Vec<&Array> = parts.iter().collect();
    crate::concatenate(&refs, 0)
}

/// The gradient of `f` along `axis` with uniform `spacing`
/// (`np.gradient(f, spacing, axis=axis)`, `edge_order=1`): central
/// differences inside, one-sided ones at the two ends. Integers give
/// float64. The axis needs at least 2 elements.
///
/// ```
/// use cuprite as cp;
/// let f = cp::asarray(vec![1.0, 2.0, 4.0, 7.0, 11.0])?;
/// let g = cp::gradient_axis(&f, 0, 1.0)?;
/// assert_eq!(g.to_vec::<f64>()?, vec![1.0, 1.5, 2.5, 3.5, 4.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn gradient_axis(f: &Array, axis: isize, spacing: f64) -> Result<Array> {
    let op = "gradient";
    let axis = along_axis(op, f, axis)?;
    let len = f.shape()[axis];
    if len < 2 {
        return Err(Error::invalid(
            op,
            format!(
                "shape {:?} has {len} element(s) along axis {axis}; the gradient needs at least 2 (edge_order + 1)",
                f.shape()
            ),
        ));
    }
    let f = cast(f, float_of(f.dtype()))?;
    let l = len as isize;
    let first = crate::divide(
        crate::subtract(
            &along(&f, axis, Some(1), Some(2))?,
            &along(&f, axis, Some(0), Some(1))?,
        )?,
        spacing,
    )?;
    let last = crate::divide(
        crate::subtract(
            &along(&f, axis, Some(l - 1), Some(l))?,
            &along(&f, axis, Some(l - 2), Some(l - 1))?,
        )?,
        spacing,
    )?;
    if len == 2 {
        return crate::concatenate(&[&first, &last], axis as isize);
    }
    let inner = crate::divide(
        crate::subtract(
            &along(&f, axis, Some(2), None)?,
            &along(&f, axis, Some(0), Some(l - 2))?,
        )?,
        2.0 * spacing,
    )?;
    crate::concatenate(&[&first, &inner, &last], axis as isize)
}

/// The gradient of `f` along every axis with uniform `spacing`
/// (`np.gradient(f, spacing)`): one array per axis.
///
/// ```
/// use cuprite as cp;
/// let f = cp::asarray(vec![vec![1.0, 2.0, 6.0], vec![3.0, 5.0, 7.0]])?;
/// let g = cp::gradient(&f, 1.0)?;
/// assert_eq!(g[0].to_vec::<f64>()?, vec![2.0, 3.0, 1.0, 2.0, 3.0, 1.0]);
/// assert_eq!(g[1].to_vec::<f64>()?, vec![1.0, 2.5, 4.0, 2.0, 2.0, 2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn gradient(f: &Array, spacing: f64) -> Result<Vec<Array>> {
    at_least_1d("gradient", f)?;
    (0..f.ndim() as isize)
        .map(|a| gradient_axis(f, a, spacing))
        .collect()
}

/// The integral of `y` along `axis` by the trapezoidal rule
/// (`np.trapezoid`): at sample points `x` (1-D along the axis, or `y`'s
/// shape), or spaced `dx` apart when `x` is `None`.
///
/// ```
/// use cuprite as cp;
/// let y = cp::asarray(vec![1.0, 2.0, 3.0])?;
/// assert_eq!(cp::trapezoid(&y, None, 1.0, -1)?.to_vec::<f64>()?, vec![4.0]);
/// let x = cp::asarray(vec![4.0, 6.0, 8.0])?;
/// assert_eq!(cp::trapezoid(&y, Some(&x), 1.0, -1)?.to_vec::<f64>()?, vec![8.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn trapezoid(y: &Array, x: Option<&Array>, dx: f64, axis: isize) -> Result<Array> {
    let op = "trapezoid";
    let axis = along_axis(op, y, axis)?;
    let len = y.shape()[axis] as isize;
    if len == 0 {
        let dt = float_of(y.dtype());
        return full_on(y.device(), &reduced_shape(y, &[axis], false), 0.0, dt);
    }
    let pairs = crate::add(
        &along(y, axis, Some(1), None)?,
        &along(y, axis, Some(0), Some(len - 1))?,
    )?;
    let area = match x {
        None => crate::multiply(&pairs, dx)?,
        Some(x) => {
            let d = if x.ndim() == 1 {
                if x.shape()[0] != len as usize {
                    return Err(Error::Shape {
                        op,
                        detail: format!(
                            "x has {} samples but y has {len} along axis {axis}",
                            x.shape()[0]
                        ),
                    });
                }
                let mut shape = vec![1usize; y.ndim()];
                shape[axis] = len as usize - 1;
                diff(x, 1, 0)?.reshape(shape)?
            } else {
                diff(x, 1, axis as isize)?
            };
            crate::multiply(&d, &pairs)?
        }
    };
    crate::divide(&area, 2.0)?.sum_axes(axis as isize, false)
}

/// Running sums of `x` along `axis` (NumPy 2's `np.cumulative_sum`), with
/// a leading zero when `include_initial`. `axis` may be `None` only for
/// 0-d or 1-D input. Result dtype as [`cumsum`](crate::cumsum).
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1, 2, 3])?;
/// let y = cp::cumulative_sum(&x, None, true)?;
/// assert_eq!(y.to_vec::<i64>()?, vec![0, 1, 3, 6]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn cumulative_sum(x: &Array, axis: Option<isize>, include_initial: bool) -> Result<Array> {
    let op = "cumulative_sum";
    let x = if x.ndim() == 0 {
        x.reshape([1])?
    } else {
        x.clone()
    };
    let axis = match axis {
        Some(a) => crate::core::layout::normalize_axis(op, a, x.ndim())?,
        None if x.ndim() == 1 => 0,
        None => {
            return Err(Error::invalid(
                op,
                format!(
                    "an axis is required for an array of {} dimensions",
                    x.ndim()
                ),
            ))
        }
    };
    let sums = x.cumsum(Some(axis as isize))?;
    if !include_initial {
        return Ok(sums);
    }
    let mut shape = sums.shape().to_vec();
    shape[axis] = 1;
    let zeros = full_on(x.device(), &shape, 0.0, sums.dtype())?;
    crate::concatenate(&[&zeros, &sums], axis as isize)
}

// ---------------------------------------------------------------------------
// Covariance and correlation
// ---------------------------------------------------------------------------

/// The options of [`cov`]: NumPy's `rowvar`, `bias` and `ddof`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CovOptions {
    /// Each row is a variable and each column an observation (the
    /// default); `false` swaps them.
    pub rowvar: bool,
    /// Normalise by `N` rather than `N - 1` (unless `ddof` is set).
    pub bias: bool,
    /// Normalise by `N - ddof`, overriding `bias`.
    pub ddof: Option<usize>,
}

impl Default for CovOptions {
    fn default() -> CovOptions {
        CovOptions {
            rowvar: true,
            bias: false,
            ddof: None,
        }
    }
}

/// The variables as rows of a 2-D float array (NumPy's preparation).
fn variables(op: &'static str, m: &Array, rowvar: bool) -> Result<Array> {
    if m.ndim() > 2 {
        return Err(Error::shape(
            op,
            format!("m has {} dimensions; at most 2 are supported", m.ndim()),
        ));
    }
    let x = if m.ndim() < 2 {
        m.reshape([1, m.size()])?
    } else {
        m.clone()
    };
    if !rowvar && x.shape()[0] != 1 {
        Ok(x.t())
    } else {
        Ok(x)
    }
}

/// The covariance matrix of the variables in `m` (and `y`, stacked below
/// them), as `np.cov(m, y, rowvar, bias, ddof)`: one matrix product of the
/// centred data. float64 for integers and float32 (NumPy's result type
/// with float64); a single variable gives a 0-d array.
///
/// ```
/// use cuprite as cp;
/// let m = cp::asarray(vec![vec![0.0, 1.0, 2.0], vec![2.0, 1.0, 0.0]])?;
/// let c = cp::cov(&m, None, cp::CovOptions::default())?;
/// assert_eq!(c.to_vec::<f64>()?, vec![1.0, -1.0, -1.0, 1.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn cov(m: &Array, y: Option<&Array>, opts: CovOptions) -> Result<Array> {
    let op = "cov";
    let mut x = variables(op, m, opts.rowvar)?;
    let mut dt = crate::promote_types(m.dtype(), DType::Float64);
    if let Some(y) = y {
        dt = crate::promote_types(dt, y.dtype());
        let yv = variables(op, y, opts.rowvar)?;
        if yv.shape()[1] != x.shape()[1] {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "m has {} observations but y has {}",
                    x.shape()[1],
                    yv.shape()[1]
                ),
            });
        }
        x = crate::concatenate(&[&x, &yv], 0)?;
    }
    let x = cast(&x, dt)?;
    let ddof = opts.ddof.unwrap_or(if opts.bias { 0 } else { 1 });
    let n = x.shape()[1];
    let fact = n.saturating_sub(ddof) as f64;
    let mean = x.mean_axes(1, true)?;
    let centred = crate::subtract(&x, &mean)?;
    let right = if dt.is_complex() {
        crate::conj(centred.t())?
    } else {
        centred.t()
    };
    let c = crate::api::linalg::matmul::matmul(&centred, &right)?;
    let c = crate::multiply(&c, 1.0 / fact)?;
    Ok(c.squeeze())
}

/// The Pearson correlation coefficients of the variables in `x` (and `y`)
/// (`np.corrcoef`): [`cov`] divided by the outer product of the standard
/// deviations, clipped to `[-1, 1]`.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![vec![0.0, 1.0, 2.0], vec![0.0, 2.0, 4.0]])?;
/// let r = cp::corrcoef(&x, None, true)?;
/// assert_eq!(r.to_vec::<f64>()?, vec![1.0, 1.0, 1.0, 1.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn corrcoef(x: &Array, y: Option<&Array>, rowvar: bool) -> Result<Array> {
    let c = cov(
        x,
        y,
        CovOptions {
            rowvar,
            ..CovOptions::default()
        },
    )?;
    if c.ndim() == 0 {
        return crate::divide(&c, &c);
    }
    let k = c.shape()[0];
    let diag_at: Vec<i64> = (0..k as i64).map(|i| i * (k as i64 + 1)).collect();
    let d = c.take(asarray_on(diag_at, c.device())?, None)?;
    let sd = crate::sqrt(crate::real(&d)?)?;
    let r = crate::divide(&c, &sd.reshape([k, 1])?)?;
    let r = crate::divide(&r, &sd.reshape([1, k])?)?;
    if r.dtype().is_complex() {
        let re = crate::clip(crate::real(&r)?, -1.0, 1.0)?;
        let im = crate::clip(crate::imag(&r)?, -1.0, 1.0)?;
        let i = crate::multiply(&im, num_complex::Complex64::new(0.0, 1.0))?;
        crate::add(&re, &i)?.astype(r.dtype())
    } else {
        crate::clip(&r, -1.0, 1.0)
    }
}

// ---------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------

macro_rules! stat_methods {
    ($($f:ident, $axis:ident, $axes:ident, $what:literal;)*) => {
        impl Array {$(
            #[doc = concat!("The ", $what, " of all elements, as a 0-d array (see [`", stringify!($f), "`](crate::", stringify!($f), ")).")]
            pub fn $f(&self) -> Result<Array> {
                $f(self, Axes::All, false)
            }
            #[doc = concat!("The ", $what, " along one axis (negative counts from the end), which is removed.")]
            pub fn $axis(&self, axis: isize) -> Result<Array> {
                $f(self, Axes::One(axis), false)
            }
            #[doc = concat!("The ", $what, " over `axes`; `keepdims` keeps them with extent 1.")]
            pub fn $axes(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Array> {
                $f(self, axes, keepdims)
            }
        )*}
    };
}

stat_methods! {
    nansum, nansum_axis, nansum_axes, "sum ignoring NaNs";
    nanprod, nanprod_axis, nanprod_axes, "product ignoring NaNs";
    nanmin, nanmin_axis, nanmin_axes, "minimum ignoring NaNs";
    nanmax, nanmax_axis, nanmax_axes, "maximum ignoring NaNs";
    nanmean, nanmean_axis, nanmean_axes, "mean ignoring NaNs";
    median, median_axis, median_axes, "median";
    nanmedian, nanmedian_axis, nanmedian_axes, "median ignoring NaNs";
    ptp, ptp_axis, ptp_axes, "range (`max - min`)";
}

impl Array {
    /// The variance ignoring NaNs, dividing by `count - ddof` (0-d result; see [`nanvar`]).
    pub fn nanvar(&self, ddof: usize) -> Result<Array> {
        nanvar(self, Axes::All, ddof, false)
    }
    /// The variance ignoring NaNs along one axis, dividing by `count - ddof`.
    pub fn nanvar_axis(&self, axis: isize, ddof: usize) -> Result<Array> {
        nanvar(self, Axes::One(axis), ddof, false)
    }
    /// The standard deviation ignoring NaNs, dividing by `count - ddof` (0-d result; see [`nanstd`]).
    pub fn nanstd(&self, ddof: usize) -> Result<Array> {
        nanstd(self, Axes::All, ddof, false)
    }
    /// The standard deviation ignoring NaNs along one axis, dividing by `count - ddof`.
    pub fn nanstd_axis(&self, axis: isize, ddof: usize) -> Result<Array> {
        nanstd(self, Axes::One(axis), ddof, false)
    }
}
