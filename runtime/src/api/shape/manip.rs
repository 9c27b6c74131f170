//! Array manipulation in NumPy's vocabulary: joining (`vstack`, `hstack`,
//! `dstack`, `column_stack`, `append`, `insert`), splitting (`split`,
//! `array_split`, `hsplit`, `vsplit`, `dsplit`), repeating (`tile`,
//! `repeat`, `resize`), reordering (`flip`, `roll`, `rot90`), `pad`,
//! `delete`, `trim_zeros` and `atleast_1d/2d/3d`.
//!
//! Everything is built from views (slices, broadcasts, negative strides) and
//! whole-view copies on the array's own device, so each function runs on
//! every backend without a host round trip: `flip`, `rot90`, `split` and
//! `atleast_*` are views; `tile`, `repeat`, `resize` are one broadcast copy;
//! `roll` is one copy per piece (2^k pieces for k rolled axes) into one
//! preallocated result; `pad` copies the input once and fills each pad
//! region with one copy (or fill) from the result itself.
//!
//! ```
//! use cuprite as cp;
//! let x = cp::arange(6)?.reshape([2, 3])?;
//! let y = cp::roll(&x, 1, Some(1))?;
//! assert_eq!(y.to_vec::<i64>()?, vec![2, 0, 1, 5, 3, 4]);
//! let p = cp::pad(&cp::arange(3)?, 2, cp::PadMode::Reflect)?;
//! assert_eq!(p.to_vec::<i64>()?, vec![2, 1, 0, 1, 2, 1, 0]);
//! # Ok::<(), cp::Error>(())
//! ```

use crate::api::creation::{alloc, IntoArray, IntoShape};
use crate::api::reductions::Axes;
use crate::api::shape::concatenate;
use crate::core::array::Array;
use crate::core::dtype::{Casting, DType};
use crate::core::element::Scalar;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::{checked_size, normalize_axes, normalize_axis, Layout};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Copies `src` (same shape, or broadcastable) into the view `dst`, casting
/// with the unsafe rule. `src` may be a view of `dst`'s buffer provided the
/// two do not overlap.
fn copy_into(op: &'static str, src: &Array, dst: &Array) -> Result<()> {
    if dst.size() == 0 {
        return Ok(());
    }
    crate::backend::on(op, dst.device())?.copy_cast(op, src.view(), dst.view())
}

/// `a` seen with `shape` and `strides` (same buffer and offset).
fn restrided(a: &Array, shape: Vec<usize>, strides: Vec<isize>) -> Array {
    a.with_layout(Layout::from_parts(shape, strides, a.layout().offset()))
}

/// A view of `a` reversed along axis `ax` (negative stride).
fn reversed(a: &Array, ax: usize) -> Array {
    let d = a.shape()[ax];
    if d == 0 {
        return a.clone();
    }
    let mut strides = a.strides().to_vec();
    let offset = a.layout().offset() as isize + (d as isize - 1) * strides[ax];
    strides[ax] = -strides[ax];
    a.with_layout(Layout::from_parts(
        a.shape().to_vec(),
        strides,
        offset as usize,
    ))
}

/// `start..start + len` along `ax` (in range).
fn span(a: &Array, ax: usize, start: usize, len: usize) -> Array {
    a.slice_axis(ax, start, start + len)
}

/// `a` with extent-1 axes prepended up to `ndim` axes (a view).
fn with_leading_axes(a: &Array, ndim: usize) -> Array {
    if a.ndim() >= ndim {
        return a.clone();
    }
    let pad = ndim - a.ndim();
    let mut shape = vec![1; pad];
    shape.extend_from_slice(a.shape());
    let mut strides = vec![0; pad];
    strides.extend_from_slice(a.strides());
    restrided(a, shape, strides)
}

fn need_arrays(op: &'static str, arrays: &[&Array]) -> Result<()> {
    if arrays.is_empty() {
        return Err(Error::invalid(op, "needs at least one array"));
    }
    Ok(())
}

/// `src` at positions `idx` (built here, all in range) along `ax`: one
/// gather on `src`'s device. The positions are uploaded as int64; the
/// `Clip` mode skips the device-side bounds check (and its read-back),
/// which in-range positions do not need.
fn gather(src: &Array, idx: Vec<i64>, ax: usize) -> Result<Array> {
    let n = idx.len();
    let idx = Array::from_host(
        crate::core::element::Element::into_data(idx),
        &[n],
        src.device(),
    )?;
    crate::api::shape::index::take_mode(
        src,
        &idx,
        Some(ax as isize),
        crate::api::shape::index::IndexMode::Clip,
    )
}

// ---------------------------------------------------------------------------
// atleast_*
// ---------------------------------------------------------------------------

/// `a` with at least one axis (`np.atleast_1d`): a 0-d array becomes shape
/// `(1,)`; others are returned as they are. A view.
///
/// ```
/// use cuprite as cp;
/// assert_eq!(cp::atleast_1d(&cp::asarray(5.0)?)?.shape(), &[1]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn atleast_1d(a: &Array) -> Result<Array> {
    Ok(with_leading_axes(a, 1))
}

/// `a` with at least two axes (`np.atleast_2d`): `()` → `(1, 1)`, `(N,)` →
/// `(1, N)`. A view.
///
/// ```
/// use cuprite as cp;
/// assert_eq!(cp::atleast_2d(&cp::arange(3)?)?.shape(), &[1, 3]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn atleast_2d(a: &Array) -> Result<Array> {
    Ok(with_leading_axes(a, 2))
}

/// `a` with at least three axes (`np.atleast_3d`): `()` → `(1, 1, 1)`,
/// `(N,)` → `(1, N, 1)`, `(M, N)` → `(M, N, 1)`. A view.
///
/// ```
/// use cuprite as cp;
/// assert_eq!(cp::atleast_3d(&cp::arange(3)?)?.shape(), &[1, 3, 1]);
/// assert_eq!(cp::atleast_3d(&cp::zeros([2, 4], cp::f32)?)?.shape(), &[2, 4, 1]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn atleast_3d(a: &Array) -> Result<Array> {
    Ok(match a.ndim() {
        0 => restrided(a, vec![1, 1, 1], vec![0, 0, 0]),
        1 => restrided(a, vec![1, a.shape()[0], 1], vec![0, a.strides()[0], 0]),
        2 => a.expand_dims(2)?,
        _ => a.clone(),
    })
}

// ---------------------------------------------------------------------------
// Stacking
// ---------------------------------------------------------------------------

fn join(op: &'static str, arrays: &[Array], axis: isize) -> Result<Array> {
    let refs: Vec<&Array> = arrays.iter().collect();
    concatenate(&refs, axis).map_err(|e| rename(e, op))
}

/// Reports a concatenate error under the name of the function the user called.
fn rename(e: Error, op: &'static str) -> Error {
    match e {
        Error::Shape { detail, .. } => Error::Shape { op, detail },
        Error::InvalidArgument { detail, .. } => Error::InvalidArgument { op, detail },
        Error::Axis { axis, ndim, .. } => Error::Axis { op, axis, ndim },
        other => other,
    }
}

/// Stacks arrays row-wise (`np.vstack`): 1-D arrays of length N become rows
/// `(1, N)`, then everything is joined along axis 0. The dtype is the
/// promotion of the inputs'.
///
/// ```
/// use cuprite as cp;
/// let v = cp::vstack(&[&cp::arange(3)?, &cp::arange(3)?])?;
/// assert_eq!(v.shape(), &[2, 3]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn vstack(arrays: &[&Array]) -> Result<Array> {
    let op = "vstack";
    need_arrays(op, arrays)?;
    let v: Vec<Array> = arrays.iter().map(|a| with_leading_axes(a, 2)).collect();
    join(op, &v, 0)
}

/// Stacks arrays column-wise (`np.hstack`): joined along axis 1, or along
/// axis 0 when the (at least 1-D) inputs are 1-D.
///
/// ```
/// use cuprite as cp;
/// let h = cp::hstack(&[&cp::arange(2)?, &cp::arange(3)?])?;
/// assert_eq!(h.to_vec::<i64>()?, vec![0, 1, 0, 1, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn hstack(arrays: &[&Array]) -> Result<Array> {
    let op = "hstack";
    need_arrays(op, arrays)?;
    let v: Vec<Array> = arrays.iter().map(|a| with_leading_axes(a, 1)).collect();
    let axis = if v[0].ndim() == 1 { 0 } else { 1 };
    join(op, &v, axis)
}

/// Stacks arrays depth-wise (`np.dstack`): each is made at least 3-D as
/// [`atleast_3d`] does, then joined along axis 2.
///
/// ```
/// use cuprite as cp;
/// let d = cp::dstack(&[&cp::arange(3)?, &cp::arange(3)?])?;
/// assert_eq!(d.shape(), &[1, 3, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn dstack(arrays: &[&Array]) -> Result<Array> {
    let op = "dstack";
    need_arrays(op, arrays)?;
    let v: Vec<Array> = arrays
        .iter()
        .map(|a| atleast_3d(a))
        .collect::<Result<_>>()?;
    join(op, &v, 2)
}

/// Stacks 1-D arrays as columns of a 2-D array (`np.column_stack`); 2-D
/// inputs are joined as they are (axis 1), 0-d ones become `(1, 1)`.
///
/// ```
/// use cuprite as cp;
/// let c = cp::column_stack(&[&cp::arange(3)?, &cp::arange(3)?])?;
/// assert_eq!(c.shape(), &[3, 2]);
/// assert_eq!(c.to_vec::<i64>()?, vec![0, 0, 1, 1, 2, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn column_stack(arrays: &[&Array]) -> Result<Array> {
    let op = "column_stack";
    need_arrays(op, arrays)?;
    let v: Vec<Array> = arrays
        .iter()
        .map(|a| {
            if a.ndim() < 2 {
                with_leading_axes(a, 2).t()
            } else {
                (*a).clone()
            }
        })
        .collect();
    join(op, &v, 1)
}

/// `values` appended to `arr` (`np.append`): with `axis = None` both are
/// flattened and the result is 1-D; with an axis, `values` must have the
/// same number of axes and matching extents elsewhere. The dtype is the
/// promotion of both.
///
/// ```
/// use cuprite as cp;
/// let a = cp::append(&cp::arange(3)?, vec![7i64, 8], None)?;
/// assert_eq!(a.to_vec::<i64>()?, vec![0, 1, 2, 7, 8]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn append(arr: &Array, values: impl IntoArray, axis: Option<isize>) -> Result<Array> {
    let op = "append";
    let values = values.into_array_on(arr.device())?;
    match axis {
        None => join(op, &[arr.reshape([-1])?, values.reshape([-1])?], 0),
        Some(ax) => {
            if arr.ndim() != values.ndim() {
                let (got, want) = (fmt_shape(values.shape()), fmt_shape(arr.shape()));
                let detail = format!("values of shape {got} must have the same number of axes as the array of shape {want}");
                return Err(Error::shape(op, detail));
            }
            join(op, &[arr.clone(), values], ax)
        }
    }
}

// ---------------------------------------------------------------------------
// Splitting
// ---------------------------------------------------------------------------

/// `From` one integer and from integer lists (`[T; N]`, `Vec<T>`, `&[T]`)
/// for an argument enum: `one` wraps a single value, `many` a list. Values
/// past the target integer's range saturate to its maximum, which the op then
/// rejects as out of range (never a wrapped, valid-looking number).
macro_rules! from_ints {
    ($target:ty, $one_t:ty => $one:expr, $many_t:ty => $many:expr; $($t:ty),*) => {$(
        impl From<$t> for $target {
            fn from(n: $t) -> $target {
                $one(<$one_t>::try_from(n).unwrap_or(<$one_t>::MAX))
            }
        }
        impl<const N: usize> From<[$t; N]> for $target {
            fn from(v: [$t; N]) -> $target {
                v.as_slice().into()
            }
        }
        impl From<Vec<$t>> for $target {
            fn from(v: Vec<$t>) -> $target {
                v.as_slice().into()
            }
        }
        impl From<&[$t]> for $target {
            fn from(v: &[$t]) -> $target {
                $many(v.iter().map(|&i| <$many_t>::try_from(i).unwrap_or(<$many_t>::MAX)).collect())
            }
        }
    )*};
}

/// Where [`split`] and [`array_split`] cut: into a number of sections, or
/// before each of a list of positions (Python's slice bounds: negative
/// counts from the end, out-of-range clamps).
///
/// An integer converts to `Sections`; an array, `Vec` or slice of integers
/// to `Indices`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitAt {
    /// That many sections (must be positive).
    Sections(i64),
    /// Cut before each position: `[2, 5]` gives `a[:2]`, `a[2:5]`, `a[5:]`.
    Indices(Vec<isize>),
}

from_ints!(SplitAt, i64 => SplitAt::Sections, isize => SplitAt::Indices; i32, i64, isize, usize);

/// Start and length of each piece along an axis of extent `n`.
fn split_spans(
    op: &'static str,
    n: usize,
    at: &SplitAt,
    equal: bool,
) -> Result<Vec<(usize, usize)>> {
    match at {
        SplitAt::Sections(k) => {
            if *k <= 0 {
                return Err(Error::invalid(
                    op,
                    format!("the number of sections must be larger than 0, got {k}"),
                ));
            }
            let k = *k as usize;
            if equal && n % k != 0 {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!(
                        "an axis of extent {n} does not split into {k} equal sections; use array_split for unequal ones"
                    ),
                });
            }
            let (each, extra) = (n / k, n % k);
            let mut start = 0;
            Ok((0..k)
                .map(|i| {
                    let len = each + usize::from(i < extra);
                    let s = (start, len);
                    start += len;
                    s
                })
                .collect())
        }
        SplitAt::Indices(idx) => {
            let ni = n as isize;
            let clamp = |v: isize| -> usize {
                let v = if v < 0 { v.saturating_add(ni) } else { v };
                v.clamp(0, ni) as usize
            };
            let mut bounds = vec![0usize];
            bounds.extend(idx.iter().map(|&i| clamp(i)));
            let mut out = Vec::with_capacity(bounds.len());
            for (i, &s) in bounds.iter().enumerate() {
                let e = bounds.get(i + 1).copied().unwrap_or(n);
                out.push((s, e.max(s) - s));
            }
            Ok(out)
        }
    }
}

fn split_impl(
    op: &'static str,
    a: &Array,
    at: SplitAt,
    axis: isize,
    equal: bool,
) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::shape(op, "a 0-d array cannot be split"));
    }
    let ax = normalize_axis(op, axis, a.ndim())?;
    Ok(split_spans(op, a.shape()[ax], &at, equal)?
        .into_iter()
        .map(|(s, len)| span(a, ax, s, len))
        .collect())
}

/// Views of `a` cut along `axis` (`np.split`): into `n` equal sections
/// (an error when the extent is not a multiple of `n`) or before each of a
/// list of positions.
///
/// ```
/// use cuprite as cp;
/// let parts = cp::split(&cp::arange(6)?, 3, 0)?;
/// assert_eq!(parts[1].to_vec::<i64>()?, vec![2, 3]);
/// let parts = cp::split(&cp::arange(6)?, [1, 4], 0)?;
/// assert_eq!(parts[2].to_vec::<i64>()?, vec![4, 5]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn split(a: &Array, at: impl Into<SplitAt>, axis: isize) -> Result<Vec<Array>> {
    split_impl("split", a, at.into(), axis, true)
}

/// As [`split`], but `n` sections need not be equal (`np.array_split`):
/// the first `extent % n` sections have one element more.
///
/// ```
/// use cuprite as cp;
/// let parts = cp::array_split(&cp::arange(7)?, 3, 0)?;
/// let lens: Vec<usize> = parts.iter().map(|p| p.size()).collect();
/// assert_eq!(lens, vec![3, 2, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn array_split(a: &Array, at: impl Into<SplitAt>, axis: isize) -> Result<Vec<Array>> {
    split_impl("array_split", a, at.into(), axis, false)
}

/// [`split`] along axis 1, or axis 0 for a 1-D array (`np.hsplit`).
///
/// ```
/// use cuprite as cp;
/// let parts = cp::hsplit(&cp::zeros([2, 4], cp::f32)?, 2)?;
/// assert_eq!(parts[0].shape(), &[2, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn hsplit(a: &Array, at: impl Into<SplitAt>) -> Result<Vec<Array>> {
    let op = "hsplit";
    let axis = if a.ndim() > 1 { 1 } else { 0 };
    split_impl(op, a, at.into(), axis, true)
}

/// [`split`] along axis 0 of an array with at least two axes (`np.vsplit`).
///
/// ```
/// use cuprite as cp;
/// let parts = cp::vsplit(&cp::zeros([4, 2], cp::f32)?, [1])?;
/// assert_eq!(parts[1].shape(), &[3, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn vsplit(a: &Array, at: impl Into<SplitAt>) -> Result<Vec<Array>> {
    min_ndim("vsplit", a, 2)?;
    split_impl("vsplit", a, at.into(), 0, true)
}

/// [`split`] along axis 2 of an array with at least three axes (`np.dsplit`).
///
/// ```
/// use cuprite as cp;
/// let parts = cp::dsplit(&cp::zeros([1, 2, 4], cp::f32)?, 2)?;
/// assert_eq!(parts[0].shape(), &[1, 2, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn dsplit(a: &Array, at: impl Into<SplitAt>) -> Result<Vec<Array>> {
    min_ndim("dsplit", a, 3)?;
    split_impl("dsplit", a, at.into(), 2, true)
}

fn min_ndim(op: &'static str, a: &Array, n: usize) -> Result<()> {
    if a.ndim() < n {
        return Err(Error::Shape {
            op,
            detail: format!(
                "needs an array with at least {n} axes, got shape {}",
                fmt_shape(a.shape())
            ),
        });
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// tile, repeat, resize
// ---------------------------------------------------------------------------

/// `a` repeated `reps[i]` times along each axis (`np.tile`). When `reps`
/// is shorter than `a.ndim`, ones are prepended to it; when longer, axes
/// of extent 1 are prepended to `a`. One copy on the array's device.
///
/// ```
/// use cuprite as cp;
/// let t = cp::tile(&cp::arange(3)?, [2, 2])?;
/// assert_eq!(t.shape(), &[2, 6]);
/// assert_eq!(t.to_vec::<i64>()?, vec![0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn tile(a: &Array, reps: impl IntoShape) -> Result<Array> {
    let op = "tile";
    let reps = reps.into_shape();
    let d = a.ndim().max(reps.len());
    let a = with_leading_axes(a, d);
    let mut r = vec![1usize; d - reps.len()];
    r.extend_from_slice(&reps);
    // (r0, s0, r1, s1, ...) with stride 0 on the repeat axes.
    let mut shape = Vec::with_capacity(2 * d);
    let mut strides = Vec::with_capacity(2 * d);
    let mut out_shape = Vec::with_capacity(d);
    for (i, &ri) in r.iter().enumerate() {
        shape.extend_from_slice(&[ri, a.shape()[i]]);
        strides.extend_from_slice(&[0, a.strides()[i]]);
        out_shape.push(
            ri.checked_mul(a.shape()[i])
                .ok_or_else(|| Error::Overflow {
                    op,
                    detail: format!("tiling shape {} by {reps:?}", fmt_shape(a.shape())),
                })?,
        );
    }
    checked_size(op, &out_shape)?;
    let src = restrided(&a, shape.clone(), strides);
    let out = alloc(op, a.device(), &shape, a.dtype())?;
    copy_into(op, &src, &out)?;
    out.reshape(out_shape)
}

/// How many times [`repeat`] repeats each element: the same count for all,
/// or one count per element along the axis.
///
/// An integer converts to `All`; an array, `Vec` or slice of integers to
/// `Each`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repeats {
    /// Every element that many times.
    All(i64),
    /// Element `i` `counts[i]` times (a list of one count means `All`).
    Each(Vec<i64>),
}

from_ints!(Repeats, i64 => Repeats::All, i64 => Repeats::Each; i32, i64, isize, u32, usize);

/// Each element repeated (`np.repeat`): along `axis`, or over the
/// flattened array (1-D result) when `axis` is `None`. A single count is
/// one broadcast copy; per-element counts are one gather (`take`) with
/// positions computed on the host from the counts.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![vec![1i64, 2], vec![3, 4]])?;
/// assert_eq!(cp::repeat(&x, 2, None)?.to_vec::<i64>()?, vec![1, 1, 2, 2, 3, 3, 4, 4]);
/// let r = cp::repeat(&x, [1, 2], Some(0))?;
/// assert_eq!(r.to_vec::<i64>()?, vec![1, 2, 3, 4, 3, 4]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn repeat(a: &Array, repeats: impl Into<Repeats>, axis: Option<isize>) -> Result<Array> {
    let op = "repeat";
    let (src, ax) = match axis {
        // Flattened: the last axis of a C-order walk, so no ravel copy.
        None => (with_trailing_axis(a), a.ndim()),
        Some(ax) => (a.clone(), normalize_axis(op, ax, a.ndim())?),
    };
    let counts = match repeats.into() {
        Repeats::Each(v) if v.len() == 1 => Repeats::All(v[0]),
        r => r,
    };
    let negative = || Error::invalid(op, "repeat counts must not be negative");
    match counts {
        Repeats::All(r) => {
            if r < 0 {
                return Err(negative());
            }
            let r = r as usize;
            let mut shape = src.shape().to_vec();
            let mut strides = src.strides().to_vec();
            shape.insert(ax + 1, r);
            strides.insert(ax + 1, 0);
            let view = restrided(&src, shape.clone(), strides);
            let out = alloc(op, a.device(), &shape, a.dtype())?;
            copy_into(op, &view, &out)?;
            let mut out_shape = src.shape().to_vec();
            out_shape[ax] = out_shape[ax]
                .checked_mul(r)
                .ok_or_else(|| Error::Overflow {
                    op,
                    detail: "the repeated extent".into(),
                })?;
            let out = out.reshape(out_shape)?;
            match axis {
                None => out.reshape([-1]),
                Some(_) => Ok(out),
            }
        }
        Repeats::Each(counts) => {
            let (src, ax) = match axis {
                None => (a.reshape([-1])?, 0),
                Some(_) => (src, ax),
            };
            let n = src.shape()[ax];
            if counts.len() != n {
                return Err(Error::Shape {
                    op,
                    detail: format!(
                        "{} repeat counts were given for an axis of extent {n}; give one count or one per element",
                        counts.len()
                    ),
                });
            }
            if counts.iter().any(|&c| c < 0) {
                return Err(negative());
            }
            let total = counts
                .iter()
                .try_fold(0usize, |acc, &c| acc.checked_add(c as usize))
                .ok_or_else(|| Error::Overflow {
                    op,
                    detail: "the sum of the repeat counts".into(),
                })?;
            let mut shape = src.shape().to_vec();
            shape[ax] = total;
            checked_size(op, &shape)?;
            let mut idx = Vec::with_capacity(total);
            for (i, &c) in counts.iter().enumerate() {
                idx.extend(std::iter::repeat_n(i as i64, c as usize));
            }
            gather(&src, idx, ax)
        }
    }
}

/// `a` with a trailing axis of extent 1 (a view), so that "the flattened
/// array" is the C-order walk over axes `0..=ndim`.
fn with_trailing_axis(a: &Array) -> Array {
    let mut shape = a.shape().to_vec();
    let mut strides = a.strides().to_vec();
    shape.push(1);
    strides.push(0);
    restrided(a, shape, strides)
}

/// A new array of `new_shape` filled with `a`'s elements (C order),
/// repeated cyclically as needed (`np.resize`, not `ndarray.resize`). An
/// empty `a` gives zeros. One broadcast copy.
///
/// ```
/// use cuprite as cp;
/// let r = cp::resize(&cp::arange(3)?, [2, 4])?;
/// assert_eq!(r.to_vec::<i64>()?, vec![0, 1, 2, 0, 1, 2, 0, 1]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn resize(a: &Array, new_shape: impl IntoShape) -> Result<Array> {
    let op = "resize";
    let new_shape = new_shape.into_shape();
    let total = checked_size(op, &new_shape)?;
    if a.size() == 0 || total == 0 {
        let out = alloc(op, a.device(), &new_shape, a.dtype())?;
        if total > 0 {
            crate::backend::on(op, a.device())?.fill(op, out.view(), Scalar::Int(0))?;
        }
        return Ok(out);
    }
    let reps = total.div_ceil(a.size());
    let mut shape = vec![reps];
    shape.extend_from_slice(a.shape());
    let src = a.expand_dims(0)?.broadcast_to(&shape)?;
    let out = alloc(op, a.device(), &shape, a.dtype())?;
    copy_into(op, &src, &out)?;
    out.reshape([-1])?
        .slice_axis(0, 0, total)
        .reshape(new_shape)
}

// ---------------------------------------------------------------------------
// flip, rot90, roll
// ---------------------------------------------------------------------------

/// `a` with the order of elements reversed along `axes` (`np.flip`): `None`
/// (or `Axes::All`) for every axis, an axis, or several. A view with
/// negative strides; nothing is copied.
///
/// ```
/// use cuprite as cp;
/// let x = cp::arange(6)?.reshape([2, 3])?;
/// assert_eq!(cp::flip(&x, 1)?.to_vec::<i64>()?, vec![2, 1, 0, 5, 4, 3]);
/// assert_eq!(cp::flip(&x, None)?.to_vec::<i64>()?, vec![5, 4, 3, 2, 1, 0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn flip(a: &Array, axes: impl Into<Axes>) -> Result<Array> {
    let axes = axes.into().resolve("flip", a.ndim())?;
    Ok(axes.into_iter().fold(a.clone(), |v, ax| reversed(&v, ax)))
}

/// `a` reversed along axis 1 (`np.fliplr`; needs at least two axes). A view.
///
/// ```
/// use cuprite as cp;
/// let x = cp::arange(4)?.reshape([2, 2])?;
/// assert_eq!(cp::fliplr(&x)?.to_vec::<i64>()?, vec![1, 0, 3, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn fliplr(a: &Array) -> Result<Array> {
    min_ndim("fliplr", a, 2)?;
    Ok(reversed(a, 1))
}

/// `a` reversed along axis 0 (`np.flipud`; needs at least one axis). A view.
///
/// ```
/// use cuprite as cp;
/// let x = cp::arange(4)?.reshape([2, 2])?;
/// assert_eq!(cp::flipud(&x)?.to_vec::<i64>()?, vec![2, 3, 0, 1]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn flipud(a: &Array) -> Result<Array> {
    min_ndim("flipud", a, 1)?;
    Ok(reversed(a, 0))
}

/// `a` rotated by 90 degrees `k` times in the plane of `axes`, from the
/// first axis towards the second (`np.rot90(m, k, axes)`; NumPy's default
/// `axes` is `(0, 1)`). A view.
///
/// ```
/// use cuprite as cp;
/// let x = cp::arange(4)?.reshape([2, 2])?;     // [[0, 1], [2, 3]]
/// assert_eq!(cp::rot90(&x, 1, (0, 1))?.to_vec::<i64>()?, vec![1, 3, 0, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn rot90(a: &Array, k: i64, axes: (isize, isize)) -> Result<Array> {
    let op = "rot90";
    if a.ndim() < 2 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "needs an array with at least 2 axes, got shape {}",
                fmt_shape(a.shape())
            ),
        });
    }
    let ax = normalize_axes(op, &[axes.0, axes.1], a.ndim()).map_err(|e| match e {
        Error::InvalidArgument { .. } => {
            Error::invalid(op, format!("the two axes must differ, got {axes:?}"))
        }
        e => e,
    })?;
    let (a0, a1) = (ax[0], ax[1]);
    let mut perm: Vec<usize> = (0..a.ndim()).collect();
    perm.swap(a0, a1);
    Ok(match k.rem_euclid(4) {
        0 => a.clone(),
        2 => reversed(&reversed(a, a0), a1),
        1 => {
            let f = reversed(a, a1);
            f.with_layout(f.layout().permuted(&perm))
        }
        _ => {
            let t = a.with_layout(a.layout().permuted(&perm));
            reversed(&t, a1)
        }
    })
}

/// Elements shifted by `shift` positions along `axis`, those pushed past the
/// end coming back at the start (`np.roll`); `axis = None` rolls the
/// flattened array and keeps the shape. One copy per piece into one new
/// array (two pieces).
///
/// ```
/// use cuprite as cp;
/// assert_eq!(cp::roll(&cp::arange(5)?, 2, None)?.to_vec::<i64>()?, vec![3, 4, 0, 1, 2]);
/// assert_eq!(cp::roll(&cp::arange(5)?, -1, Some(0))?.to_vec::<i64>()?, vec![1, 2, 3, 4, 0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn roll(a: &Array, shift: i64, axis: Option<isize>) -> Result<Array> {
    let op = "roll";
    match axis {
        Some(ax) => roll_impl(op, a, &[shift], &[ax]),
        None => {
            if a.is_c_contiguous() {
                let flat = a.reshape([-1])?;
                roll_impl(op, &flat, &[shift], &[0])?.reshape(a.shape())
            } else {
                // Roll of the C-order walk without first making it contiguous:
                // a flat roll is the same as a roll of the copy.
                let flat = a.copy()?.reshape([-1])?;
                roll_impl(op, &flat, &[shift], &[0])?.reshape(a.shape())
            }
        }
    }
}

/// As [`roll`] over several axes at once (`np.roll(a, shifts, axes)`):
/// `shifts` and `axes` pair up, and one of them may have a single entry
/// that applies to all of the other's; an axis listed twice is shifted by
/// the sum. One copy per piece (2^k for k rolled axes) into one new array.
///
/// ```
/// use cuprite as cp;
/// let x = cp::arange(6)?.reshape([2, 3])?;
/// let y = cp::roll_axes(&x, &[1, 1], &[0, 1])?;
/// assert_eq!(y.to_vec::<i64>()?, vec![5, 3, 4, 2, 0, 1]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn roll_axes(a: &Array, shifts: &[i64], axes: &[isize]) -> Result<Array> {
    roll_impl("roll", a, shifts, axes)
}

fn roll_impl(op: &'static str, a: &Array, shifts: &[i64], axes: &[isize]) -> Result<Array> {
    let n = match (shifts.len(), axes.len()) {
        (s, x) if s == x => s,
        (1, x) => x,
        (s, 1) => s,
        (s, x) => {
            return Err(Error::Shape {
                op,
                detail: format!(
                "{s} shifts and {x} axes do not pair up (give as many of each, or one of either)"
            ),
            })
        }
    };
    let mut offset = vec![0i64; a.ndim()];
    for i in 0..n {
        let sh = shifts[if shifts.len() == 1 { 0 } else { i }];
        let ax = normalize_axis(op, axes[if axes.len() == 1 { 0 } else { i }], a.ndim())?;
        let d = a.shape()[ax].max(1) as i64;
        offset[ax] = (offset[ax] + sh.rem_euclid(d)).rem_euclid(d);
    }
    let out = alloc(op, a.device(), a.shape(), a.dtype())?;
    if a.size() == 0 {
        return Ok(out);
    }
    // Along each axis: (source start, destination start, length) pieces.
    let pieces: Vec<Vec<(usize, usize, usize)>> = (0..a.ndim())
        .map(|ax| {
            let (d, o) = (a.shape()[ax], offset[ax] as usize);
            if o == 0 {
                vec![(0, 0, d)]
            } else {
                vec![(0, o, d - o), (d - o, 0, o)]
            }
        })
        .collect();
    let mut choice = vec![0usize; a.ndim()];
    loop {
        let (mut src, mut dst) = (a.clone(), out.clone());
        for ax in 0..a.ndim() {
            let (s, d, len) = pieces[ax][choice[ax]];
            src = span(&src, ax, s, len);
            dst = span(&dst, ax, d, len);
        }
        copy_into(op, &src, &dst)?;
        // Next combination of pieces (odometer order).
        let mut ax = a.ndim();
        loop {
            if ax == 0 {
                return Ok(out);
            }
            ax -= 1;
            choice[ax] += 1;
            if choice[ax] < pieces[ax].len() {
                break;
            }
            choice[ax] = 0;
        }
    }
}

// ---------------------------------------------------------------------------
// pad
// ---------------------------------------------------------------------------

/// How [`pad`] fills the new elements (NumPy's `mode=`).
#[derive(Debug, Clone, PartialEq)]
pub enum PadMode {
    /// One value everywhere (`mode='constant', constant_values=v`; NumPy's
    /// default is `Constant(0)`), cast to the array's dtype.
    Constant(Scalar),
    /// A (before, after) pair of values per axis, or one pair for all axes
    /// (`constant_values=((b0, a0), (b1, a1), ...)`). Where pads of two
    /// axes meet, the later axis's value wins, as in NumPy.
    ConstantEach(Vec<(Scalar, Scalar)>),
    /// The edge element repeated (`'edge'`).
    Edge,
    /// Mirror image without repeating the edge (`'reflect'`): `[1, 2, 3]`
    /// padded by 2 is `[3, 2, 1, 2, 3, 2, 1]`.
    Reflect,
    /// Mirror image repeating the edge (`'symmetric'`): `[1, 2, 3]` padded
    /// by 2 is `[2, 1, 1, 2, 3, 3, 2]`.
    Symmetric,
    /// The array continued periodically (`'wrap'`).
    Wrap,
}

impl PadMode {
    fn name(&self) -> &'static str {
        match self {
            PadMode::Constant(_) | PadMode::ConstantEach(_) => "constant",
            PadMode::Edge => "edge",
            PadMode::Reflect => "reflect",
            PadMode::Symmetric => "symmetric",
            PadMode::Wrap => "wrap",
        }
    }
}

/// Pad widths for [`pad`]: one width for every side (`2`), one
/// `(before, after)` pair for every axis (`(1, 2)`), or a pair per axis
/// (`[(1, 2), (0, 3)]`, a `Vec` or slice of pairs).
pub trait IntoPadWidth {
    /// The (before, after) pairs as given (one pair means "every axis").
    fn into_pad_width(self) -> Vec<(i64, i64)>;
}

macro_rules! pad_width_from {
    ($($t:ty),*) => {$(
        impl IntoPadWidth for $t {
            fn into_pad_width(self) -> Vec<(i64, i64)> {
                let w = i64::try_from(self).unwrap_or(i64::MAX);
                vec![(w, w)]
            }
        }
        impl IntoPadWidth for ($t, $t) {
            fn into_pad_width(self) -> Vec<(i64, i64)> {
                let c = |w: $t| i64::try_from(w).unwrap_or(i64::MAX);
                vec![(c(self.0), c(self.1))]
            }
        }
        impl<const N: usize> IntoPadWidth for [($t, $t); N] {
            fn into_pad_width(self) -> Vec<(i64, i64)> {
                self.as_slice().into_pad_width()
            }
        }
        impl IntoPadWidth for Vec<($t, $t)> {
            fn into_pad_width(self) -> Vec<(i64, i64)> {
                self.as_slice().into_pad_width()
            }
        }
        impl IntoPadWidth for &[($t, $t)] {
            fn into_pad_width(self) -> Vec<(i64, i64)> {
                let c = |w: $t| i64::try_from(w).unwrap_or(i64::MAX);
                self.iter().map(|&(b, a)| (c(b), c(a))).collect()
            }
        }
    )*};
}
pad_width_from!(i32, i64, isize, usize);

/// `a` with elements added before and after each axis (`np.pad`).
///
/// `width` is one width for all sides, one `(before, after)` pair for all
/// axes, or a pair per axis. `mode` says what the new elements hold (see
/// [`PadMode`]); pads wider than the array repeat the pattern as NumPy
/// does. An axis of extent 0 can only be padded with a constant.
///
/// The work is one copy of `a` into the new array and, per axis, one copy
/// (or fill) per side taken from the new array itself (a few more when a
/// pad is wider than the axis).
///
/// ```
/// use cuprite as cp;
/// use cp::PadMode;
/// let x = cp::asarray(vec![1i64, 2, 3])?;
/// assert_eq!(cp::pad(&x, (1, 2), PadMode::Constant(0.into()))?.to_vec::<i64>()?, vec![0, 1, 2, 3, 0, 0]);
/// assert_eq!(cp::pad(&x, 2, PadMode::Edge)?.to_vec::<i64>()?, vec![1, 1, 1, 2, 3, 3, 3]);
/// assert_eq!(cp::pad(&x, 2, PadMode::Symmetric)?.to_vec::<i64>()?, vec![2, 1, 1, 2, 3, 3, 2]);
/// assert_eq!(cp::pad(&x, 2, PadMode::Wrap)?.to_vec::<i64>()?, vec![2, 3, 1, 2, 3, 1, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn pad(a: &Array, width: impl IntoPadWidth, mode: PadMode) -> Result<Array> {
    let op = "pad";
    let nd = a.ndim();
    let widths = broadcast_pairs(op, "pad widths", width.into_pad_width(), nd)?;
    let mut w = Vec::with_capacity(nd);
    for &(b, af) in &widths {
        if b < 0 || af < 0 {
            return Err(Error::invalid(
                op,
                format!("pad widths must not be negative, got {widths:?}"),
            ));
        }
        w.push((b as usize, af as usize));
    }
    let values = match &mode {
        PadMode::Constant(v) => vec![(*v, *v); nd],
        PadMode::ConstantEach(v) => broadcast_pairs(op, "constant values", v.clone(), nd)?,
        _ => Vec::new(),
    };
    let mut shape = Vec::with_capacity(nd);
    for (ax, &(b, af)) in w.iter().enumerate() {
        let n = a.shape()[ax];
        if n == 0 && b + af > 0 && values.is_empty() {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "cannot extend the empty axis {ax} of shape {} in mode '{}'; only a constant can pad it",
                    fmt_shape(a.shape()),
                    mode.name()
                ),
            });
        }
        let total = n
            .checked_add(b)
            .and_then(|t| t.checked_add(af))
            .ok_or_else(|| Error::Overflow {
                op,
                detail: format!("the padded extent of axis {ax}"),
            })?;
        shape.push(total);
    }
    checked_size(op, &shape)?;
    let out = alloc(op, a.device(), &shape, a.dtype())?;
    // The input into the centre.
    let mut centre = out.clone();
    for (ax, &(b, _)) in w.iter().enumerate() {
        centre = span(&centre, ax, b, a.shape()[ax]);
    }
    copy_into(op, a, &centre)?;
    let backend = crate::backend::on(op, a.device())?;
    // Axis by axis, as NumPy: the region of axis `ax` spans the full padded
    // extent of the axes before it and the centre of those after it.
    for ax in 0..nd {
        let (b, af) = w[ax];
        if b + af == 0 {
            continue;
        }
        let mut r = out.clone();
        for (j, &(bj, _)) in w.iter().enumerate().skip(ax + 1) {
            r = span(&r, j, bj, a.shape()[j]);
        }
        if r.size() == 0 {
            continue;
        }
        let n = a.shape()[ax];
        let total = shape[ax];
        let copy = |src: Array, dst: Array| copy_into(op, &src, &dst);
        if !values.is_empty() {
            let (vb, va) = values[ax];
            if b > 0 {
                backend.fill(op, span(&r, ax, 0, b).view(), vb)?;
            }
            if af > 0 {
                backend.fill(op, span(&r, ax, b + n, af).view(), va)?;
            }
            continue;
        }
        // Reflecting a single element repeats it.
        let edge = matches!(mode, PadMode::Edge) || (matches!(mode, PadMode::Reflect) && n == 1);
        // The first piece on each side comes from the centre.
        let (kl, kr, period) = match mode {
            _ if edge => {
                if b > 0 {
                    copy(span(&r, ax, b, 1), span(&r, ax, 0, b))?;
                }
                if af > 0 {
                    copy(span(&r, ax, b + n - 1, 1), span(&r, ax, b + n, af))?;
                }
                continue;
            }
            PadMode::Reflect => {
                let (kl, kr) = (b.min(n - 1), af.min(n - 1));
                copy(
                    reversed(&span(&r, ax, b + 1, kl), ax),
                    span(&r, ax, b - kl, kl),
                )?;
                copy(
                    reversed(&span(&r, ax, b + n - 1 - kr, kr), ax),
                    span(&r, ax, b + n, kr),
                )?;
                (kl, kr, 2 * (n - 1))
            }
            PadMode::Symmetric => {
                let (kl, kr) = (b.min(n), af.min(n));
                copy(reversed(&span(&r, ax, b, kl), ax), span(&r, ax, b - kl, kl))?;
                copy(
                    reversed(&span(&r, ax, b + n - kr, kr), ax),
                    span(&r, ax, b + n, kr),
                )?;
                (kl, kr, 2 * n)
            }
            _ => {
                let (kl, kr) = (b.min(n), af.min(n));
                copy(span(&r, ax, b + n - kl, kl), span(&r, ax, b - kl, kl))?;
                copy(span(&r, ax, b, kr), span(&r, ax, b + n, kr))?;
                (kl, kr, n)
            }
        };
        // Wider pads: the filled stretch is periodic with `period` and at
        // least one period long; copy whole periods of it outwards.
        let (mut lo, mut hi) = (b - kl, b + n + kr);
        while lo > 0 {
            let s = (hi - lo) / period * period;
            let k = lo.min(s);
            copy(span(&r, ax, lo - k + s, k), span(&r, ax, lo - k, k))?;
            lo -= k;
        }
        while hi < total {
            let s = (hi - lo) / period * period;
            let k = (total - hi).min(s);
            copy(span(&r, ax, hi - s, k), span(&r, ax, hi, k))?;
            hi += k;
        }
    }
    Ok(out)
}

/// One pair per axis from one pair or `ndim` pairs.
fn broadcast_pairs<T: Clone + std::fmt::Debug>(
    op: &'static str,
    what: &str,
    pairs: Vec<(T, T)>,
    ndim: usize,
) -> Result<Vec<(T, T)>> {
    match pairs.len() {
        1 => Ok(vec![pairs[0].clone(); ndim]),
        n if n == ndim => Ok(pairs),
        n => Err(Error::Shape {
            op,
            detail: format!(
                "{n} (before, after) pairs of {what} were given for an array with {ndim} axes; give one pair or one per axis"
            ),
        }),
    }
}

// ---------------------------------------------------------------------------
// insert, delete
// ---------------------------------------------------------------------------

/// Positions along an axis for [`insert`] and [`delete`]: one position, a
/// list of positions, or a boolean mask over the axis.
///
/// An integer converts to `One`; arrays, `Vec`s and slices of integers to
/// `Many`; of `bool` to `Mask`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AxisPositions {
    /// One position (negative counts from the end).
    One(isize),
    /// Several positions (negative count from the end; repeats allowed).
    Many(Vec<isize>),
    /// A mask as long as the axis: the positions where it is true.
    Mask(Vec<bool>),
}

from_ints!(AxisPositions, isize => AxisPositions::One, isize => AxisPositions::Many; i32, i64, isize, usize);

impl<const N: usize> From<[bool; N]> for AxisPositions {
    fn from(v: [bool; N]) -> AxisPositions {
        AxisPositions::Mask(v.to_vec())
    }
}
impl From<Vec<bool>> for AxisPositions {
    fn from(v: Vec<bool>) -> AxisPositions {
        AxisPositions::Mask(v)
    }
}
impl From<&[bool]> for AxisPositions {
    fn from(v: &[bool]) -> AxisPositions {
        AxisPositions::Mask(v.to_vec())
    }
}

/// `arr` flattened when `axis` is `None`, with the axis to work along.
fn along(op: &'static str, arr: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    match axis {
        None => Ok((arr.reshape([-1])?, 0)),
        Some(ax) => {
            if arr.ndim() == 0 {
                return Err(Error::Axis {
                    op,
                    axis: ax,
                    ndim: 0,
                });
            }
            Ok((arr.clone(), normalize_axis(op, ax, arr.ndim())?))
        }
    }
}

/// `values` inserted into `arr` before the given positions along `axis`
/// (`np.insert`); with `axis = None`, `arr` is flattened first. The result
/// keeps `arr`'s dtype (values are cast with the unsafe rule).
///
/// With one position, `values` (with axes prepended up to `arr.ndim`, its
/// first axis moved to `axis`) is inserted as a block; with a list, one
/// slice per position is inserted and `values` broadcasts to
/// `arr.shape` with `axis` of extent `len(positions)`. Positions may be
/// `-n..=n` (`n` appends).
///
/// ```
/// use cuprite as cp;
/// let x = cp::arange(4)?;
/// assert_eq!(cp::insert(&x, 1, vec![9i64, 8], None)?.to_vec::<i64>()?, vec![0, 9, 8, 1, 2, 3]);
/// assert_eq!(cp::insert(&x, [1, 3], vec![9i64, 8], None)?.to_vec::<i64>()?, vec![0, 9, 1, 2, 8, 3]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn insert(
    arr: &Array,
    positions: impl Into<AxisPositions>,
    values: impl IntoArray,
    axis: Option<isize>,
) -> Result<Array> {
    let op = "insert";
    let (src, ax) = along(op, arr, axis)?;
    let values = values.into_array_on(arr.device())?;
    let n = src.shape()[ax];
    let (list, scalar) = match positions.into() {
        AxisPositions::One(i) => (vec![i], true),
        AxisPositions::Many(v) => (v, false),
        AxisPositions::Mask(m) => {
            if m.len() != n {
                return Err(Error::shape(
                    op,
                    format!("a mask of {} entries for an axis of extent {n}", m.len()),
                ));
            }
            ((0..n as isize).filter(|&i| m[i as usize]).collect(), false)
        }
    };
    let ni = n as isize;
    let mut idx = Vec::with_capacity(list.len());
    for &i in &list {
        if i < -ni || i > ni {
            return Err(Error::IndexOutOfBounds {
                op,
                index: i as i64,
                axis: ax,
                size: n,
            });
        }
        idx.push(if i < 0 { i + ni } else { i } as usize);
    }
    let nd = src.ndim();
    if idx.len() == 1 {
        let at = idx[0];
        let mut v = with_leading_axes(&values, nd);
        if scalar {
            v = v.moveaxis(0, ax as isize)?;
        }
        if v.ndim() > nd {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "values of shape {} have more axes than the array of shape {}",
                    fmt_shape(values.shape()),
                    fmt_shape(src.shape())
                ),
            });
        }
        let numnew = v.shape()[ax];
        let mut shape = src.shape().to_vec();
        shape[ax] = numnew;
        let v = v.broadcast_to(&shape).map_err(|_| Error::Broadcast {
            op,
            shapes: vec![values.shape().to_vec(), shape.clone()],
        })?;
        shape[ax] = n + numnew;
        let out = alloc(op, src.device(), &shape, src.dtype())?;
        copy_into(op, &span(&src, ax, 0, at), &span(&out, ax, 0, at))?;
        copy_into(op, &v, &span(&out, ax, at, numnew))?;
        copy_into(
            op,
            &span(&src, ax, at, n - at),
            &span(&out, ax, at + numnew, n - at),
        )?;
        return Ok(out);
    }
    // Several positions: the values go after `src` along the axis, then one
    // gather puts every slice in its place.
    let numnew = idx.len();
    let mut vshape = src.shape().to_vec();
    vshape[ax] = numnew;
    let v = values.broadcast_to(&vshape).map_err(|_| Error::Broadcast {
        op,
        shapes: vec![values.shape().to_vec(), vshape.clone()],
    })?;
    let v = v.astype(src.dtype())?;
    let both = join(op, &[src.clone(), v], ax as isize)?;
    // New position of the k-th inserted slice (stable order by position).
    let mut order: Vec<usize> = (0..numnew).collect();
    order.sort_by_key(|&k| idx[k]);
    let mut from = vec![-1i64; n + numnew];
    for (rank, &k) in order.iter().enumerate() {
        from[idx[k] + rank] = (n + k) as i64;
    }
    for (old, f) in from.iter_mut().filter(|f| **f < 0).enumerate() {
        *f = old as i64;
    }
    gather(&both, from, ax)
}

/// `arr` without the slices at the given positions along `axis`
/// (`np.delete`); with `axis = None`, `arr` is flattened first. Positions
/// may repeat and count from the end when negative; out of range is an
/// [`Error::IndexOutOfBounds`]. One gather of the kept slices.
///
/// ```
/// use cuprite as cp;
/// let x = cp::arange(6)?.reshape([2, 3])?;
/// assert_eq!(cp::delete(&x, [0, -1], Some(1))?.to_vec::<i64>()?, vec![1, 4]);
/// assert_eq!(cp::delete(&x, 2, None)?.to_vec::<i64>()?, vec![0, 1, 3, 4, 5]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn delete(
    arr: &Array,
    positions: impl Into<AxisPositions>,
    axis: Option<isize>,
) -> Result<Array> {
    let op = "delete";
    let (src, ax) = along(op, arr, axis)?;
    let n = src.shape()[ax];
    let mut keep = vec![true; n];
    match positions.into() {
        AxisPositions::Mask(m) => {
            if m.len() != n {
                return Err(Error::shape(
                    op,
                    format!("a mask of {} entries for an axis of extent {n}", m.len()),
                ));
            }
            for (k, d) in keep.iter_mut().zip(m) {
                *k = !d;
            }
        }
        AxisPositions::One(i) => drop_position(op, &mut keep, i, ax)?,
        AxisPositions::Many(v) => {
            for i in v {
                drop_position(op, &mut keep, i, ax)?;
            }
        }
    }
    let kept: Vec<i64> = (0..n as i64).filter(|&i| keep[i as usize]).collect();
    if kept.len() == n {
        return src.copy();
    }
    gather(&src, kept, ax)
}

fn drop_position(op: &'static str, keep: &mut [bool], i: isize, axis: usize) -> Result<()> {
    let n = keep.len() as isize;
    let j = if i < 0 { i.saturating_add(n) } else { i };
    if j < 0 || j >= n {
        return Err(Error::IndexOutOfBounds {
            op,
            index: i as i64,
            axis,
            size: keep.len(),
        });
    }
    keep[j as usize] = false;
    Ok(())
}

// ---------------------------------------------------------------------------
// trim_zeros
// ---------------------------------------------------------------------------

/// Which ends [`trim_zeros`] trims (NumPy's `trim='f'`, `'b'`, `'fb'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Trim {
    /// Leading zeros (`'f'`).
    Front,
    /// Trailing zeros (`'b'`).
    Back,
    /// Both (`'fb'`, the default).
    #[default]
    Both,
}

/// A view of `a` without its leading and/or trailing zeros along `axes`
/// (`np.trim_zeros(filt, trim, axis)`; `None` trims every axis). Along
/// each trimmed axis, the slices that hold only zeros are cut from the
/// ends; when every element is zero the axis becomes empty. NaN is not
/// zero.
///
/// The extent depends on the data: the bounds of every axis are found on
/// the device and read back together (one small transfer).
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![0.0, 0.0, 1.5, 0.0, 2.0, 0.0])?;
/// assert_eq!(cp::trim_zeros(&x, cp::Trim::Both, None)?.to_vec::<f64>()?, vec![1.5, 0.0, 2.0]);
/// assert_eq!(cp::trim_zeros(&x, cp::Trim::Front, None)?.size(), 4);
/// let m = cp::asarray(vec![vec![0i64, 0, 0], vec![0, 1, 0]])?;
/// assert_eq!(cp::trim_zeros(&m, cp::Trim::Both, None)?.shape(), &[1, 1]);
/// assert_eq!(cp::trim_zeros(&m, cp::Trim::Both, 1)?.shape(), &[2, 1]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn trim_zeros(a: &Array, trim: Trim, axes: impl Into<Axes>) -> Result<Array> {
    let op = "trim_zeros";
    let axes = axes.into().resolve(op, a.ndim())?;
    if a.size() == 0 {
        // No element is non-zero: every trimmed axis becomes empty.
        return Ok(axes.iter().fold(a.clone(), |v, &ax| span(&v, ax, 0, 0)));
    }
    if axes.is_empty() {
        return Ok(a.clone());
    }
    let nonzero = a.astype_with(DType::Bool, Casting::Unsafe)?;
    let mut parts = Vec::with_capacity(3 * axes.len());
    for &ax in &axes {
        let others: Vec<isize> = (0..a.ndim() as isize)
            .filter(|&j| j != ax as isize)
            .collect();
        let along = if others.is_empty() {
            nonzero.clone()
        } else {
            nonzero.any_axes(others, false)?
        };
        parts.push(along.argmax()?);
        parts.push(reversed(&along, 0).argmax()?);
        parts.push(along.any()?.astype(DType::Int64)?);
    }
    // The result's extent depends on the data: the only host read, three
    // numbers per axis in one transfer.
    let refs: Vec<&Array> = parts.iter().collect();
    let bounds = crate::api::shape::stack(&refs, 0)?.to_vec::<i64>()?;
    let mut out = a.clone();
    for (k, &ax) in axes.iter().enumerate() {
        let (first, last, any) = (bounds[3 * k], bounds[3 * k + 1], bounds[3 * k + 2]);
        let n = a.shape()[ax];
        if any == 0 {
            out = span(&out, ax, 0, 0);
            continue;
        }
        let start = match trim {
            Trim::Front | Trim::Both => first as usize,
            Trim::Back => 0,
        };
        let stop = match trim {
            Trim::Back | Trim::Both => n - last as usize,
            Trim::Front => n,
        };
        out = span(&out, ax, start, stop - start);
    }
    Ok(out)
}
