//! Indexing: NumPy's basic slicing (`s![..]`, views that share memory),
//! integer and boolean ("fancy") indexing, `take`, `put`, `nonzero` and
//! `where_`.
//!
//! ```
//! use cuprite as cp;
//! use cuprite::s;
//! let x = cp::arange(12)?.reshape([3, 4])?;
//! let v = x.slice(s![1.., ..;-2])?;          // x[1:, ::-2]: a view
//! assert_eq!(v.shape(), &[2, 2]);
//! assert_eq!(v.to_vec::<i64>()?, vec![7, 5, 11, 9]);
//! let rows = x.take([2, 0], Some(0))?;     // x[[2, 0]]: a copy
//! assert_eq!(rows.to_vec::<i64>()?, vec![8, 9, 10, 11, 0, 1, 2, 3]);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! # The `s!` syntax
//!
//! `s![.., 1..3, 2, 1..;2, ..;-1, 3..0;-1, NewAxis, -1, ...]`, one entry per
//! comma, with Python's meaning; the table of forms is in the documentation
//! of [`s!`](crate::s). Slice bounds clamp to the axis as in Python;
//! integer positions must be in range.
//!
//! # Differences from CuPy
//!
//! - Out-of-bounds integer indices are an [`Error::IndexOutOfBounds`] in
//!   every operation here: `get`, `at`, `slice`, [`take`], [`put`] in
//!   [`IndexMode::Raise`]. CuPy's `take` (and fancy indexing) wraps such
//!   indices silently on the GPU; Cuprite's CUDA backend checks them on
//!   the device (one word read back) and raises as well. Use
//!   [`IndexMode::Wrap`] or [`IndexMode::Clip`] to ask for wrapping or
//!   clipping explicitly.
//! - [`put`] checks every index before writing anything, so a failed call
//!   leaves the array unchanged (NumPy may have written part of it).
//! - Boolean masks must be `bool` arrays ([`Array::mask`]); integer index
//!   arrays go through [`take`] / [`Array::index_select`]. Float index
//!   arrays are an [`Error::DType`], as in NumPy.
//! - A Rust integer that does not fit the target integer dtype is an error
//!   in [`where_`], [`Array::slice_assign`], [`Array::mask_assign`] and
//!   [`put`] (NEP 50, as NumPy 2's ufuncs and `x[i] = v` do; NumPy 2.4's
//!   `np.where` wraps it instead).

use std::fmt;
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use crate::api::creation::IntoArray;
use crate::api::operand::{common_device, IntoOperand, Operand};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{result_type, DType};
use crate::core::element::Scalar;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::{broadcast_shapes, checked_size, normalize_axis, Layout};
use crate::core::view::OwnedView;
use crate::ops::index::WhereInput;

// ---------------------------------------------------------------------------
// Slice specifications
// ---------------------------------------------------------------------------

/// One entry of an index expression, as built by [`s!`](crate::s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SliceElem {
    /// One position along the axis (negative counts from the end); the axis is removed.
    Index(isize),
    /// A range of positions with a step, as Python's `start:stop:step`.
    Slice {
        /// First position (`None`: the start of the walk, Python's default).
        start: Option<isize>,
        /// End position (`None`: walk to the end of the axis).
        end: Option<isize>,
        /// Whether `end` itself is included (`a..=b`).
        inclusive: bool,
        /// Step between positions; negative walks backwards, zero is an error.
        step: isize,
    },
    /// A new axis of extent 1 (`np.newaxis`).
    NewAxis,
    /// As many full slices as the other entries leave axes (`...`).
    Ellipsis,
}

/// Marker for a new axis in an index expression (`np.newaxis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct NewAxis;

/// `cp::newaxis`: a new axis in an index expression, spelled as in NumPy.
#[allow(non_upper_case_globals)]
pub const newaxis: NewAxis = NewAxis;

/// Marker for an ellipsis in an index expression (`...` in `s!`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Ellipsis;

/// Integers usable as slice bounds, steps and positions (any Rust integer type).
pub trait SliceBound: Copy {
    /// The value as `isize`, saturating values beyond its range.
    fn to_isize(self) -> isize;
}

/// Range expressions usable in `s!`, optionally with a step (`a..b;step`).
pub trait SliceRange {
    /// The range with the given step as a [`SliceElem::Slice`].
    fn with_step(self, step: isize) -> SliceElem;
}

impl SliceRange for RangeFull {
    fn with_step(self, step: isize) -> SliceElem {
        SliceElem::Slice {
            start: None,
            end: None,
            inclusive: false,
            step,
        }
    }
}

impl From<RangeFull> for SliceElem {
    fn from(r: RangeFull) -> SliceElem {
        r.with_step(1)
    }
}

impl From<NewAxis> for SliceElem {
    fn from(_: NewAxis) -> SliceElem {
        SliceElem::NewAxis
    }
}

impl From<Ellipsis> for SliceElem {
    fn from(_: Ellipsis) -> SliceElem {
        SliceElem::Ellipsis
    }
}

macro_rules! slice_bounds {
    ($($t:ty),*) => {$(
        impl SliceBound for $t {
            #[inline]
            fn to_isize(self) -> isize {
                #[allow(irrefutable_let_patterns)]
                if let Ok(v) = isize::try_from(self) {
                    v
                } else if self > 0 as $t {
                    isize::MAX
                } else {
                    isize::MIN
                }
            }
        }
        impl From<$t> for SliceElem {
            fn from(i: $t) -> SliceElem {
                SliceElem::Index(i.to_isize())
            }
        }
        impl SliceRange for Range<$t> {
            fn with_step(self, step: isize) -> SliceElem {
                SliceElem::Slice {
                    start: Some(self.start.to_isize()),
                    end: Some(self.end.to_isize()),
                    inclusive: false,
                    step,
                }
            }
        }
        impl SliceRange for RangeFrom<$t> {
            fn with_step(self, step: isize) -> SliceElem {
                SliceElem::Slice { start: Some(self.start.to_isize()), end: None, inclusive: false, step }
            }
        }
        impl SliceRange for RangeTo<$t> {
            fn with_step(self, step: isize) -> SliceElem {
                SliceElem::Slice { start: None, end: Some(self.end.to_isize()), inclusive: false, step }
            }
        }
        impl SliceRange for RangeInclusive<$t> {
            fn with_step(self, step: isize) -> SliceElem {
                SliceElem::Slice {
                    start: Some(self.start().to_isize()),
                    end: Some(self.end().to_isize()),
                    inclusive: true,
                    step,
                }
            }
        }
        impl SliceRange for RangeToInclusive<$t> {
            fn with_step(self, step: isize) -> SliceElem {
                SliceElem::Slice { start: None, end: Some(self.end.to_isize()), inclusive: true, step }
            }
        }
        impl From<Range<$t>> for SliceElem {
            fn from(r: Range<$t>) -> SliceElem { r.with_step(1) }
        }
        impl From<RangeFrom<$t>> for SliceElem {
            fn from(r: RangeFrom<$t>) -> SliceElem { r.with_step(1) }
        }
        impl From<RangeTo<$t>> for SliceElem {
            fn from(r: RangeTo<$t>) -> SliceElem { r.with_step(1) }
        }
        impl From<RangeInclusive<$t>> for SliceElem {
            fn from(r: RangeInclusive<$t>) -> SliceElem { r.with_step(1) }
        }
        impl From<RangeToInclusive<$t>> for SliceElem {
            fn from(r: RangeToInclusive<$t>) -> SliceElem { r.with_step(1) }
        }
    )*};
}
slice_bounds!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl SliceElem {
    /// A range with a step (`s![a..b;step]` expands to this).
    pub fn stepped<R: SliceRange, S: SliceBound>(range: R, step: S) -> SliceElem {
        range.with_step(step.to_isize())
    }

    /// Whether this entry consumes an axis of the indexed array.
    fn consumes_axis(&self) -> bool {
        matches!(self, SliceElem::Index(_) | SliceElem::Slice { .. })
    }
}

impl fmt::Display for SliceElem {
    /// NumPy's notation: `1:3`, `::-1`, `2`, `None`, `...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SliceElem::Index(i) => write!(f, "{i}"),
            SliceElem::NewAxis => f.write_str("None"),
            SliceElem::Ellipsis => f.write_str("..."),
            SliceElem::Slice {
                start,
                end,
                inclusive,
                step,
            } => {
                if let Some(s) = start {
                    write!(f, "{s}")?;
                }
                f.write_str(if *inclusive { ":=" } else { ":" })?;
                if let Some(e) = end {
                    write!(f, "{e}")?;
                }
                if *step != 1 {
                    write!(f, ":{step}")?;
                }
                Ok(())
            }
        }
    }
}

/// An index expression in NumPy's notation, for messages: `[:, 1:3, None]`.
fn fmt_index(elems: &[SliceElem]) -> String {
    let parts: Vec<String> = elems.iter().map(|e| e.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Builds an index expression (a `Vec<SliceElem>`) with NumPy's slicing
/// semantics: `s![.., 1..3, 2, 1..;2, ..;-1, NewAxis, -1, ...]`.
///
/// | `s!` entry   | NumPy      | effect                                       |
/// |--------------|------------|----------------------------------------------|
/// | `a..b`       | `a:b`      | half-open range (also `a..`, `..b`, `..`)    |
/// | `a..=b`      | `a:b+1`    | inclusive range (`b` may be negative: `..=-1` is the whole axis) |
/// | `r;step`     | `a:b:step` | every `step`-th element; a negative step walks backwards, with Python's defaults for omitted bounds (`..;-1` reverses, `3..0;-1` is 3, 2, 1) |
/// | `i`          | `i`        | one position (negative counts from the end); removes the axis |
/// | `NewAxis`    | `None`     | inserts an axis of extent 1 (`cp::newaxis` works too) |
/// | `...`        | `...`      | as many `..` as needed (also `Ellipsis`); at most one |
///
/// Bounds are any Rust integer expressions (`s![i..i + 2]`); a
/// [`SliceElem`] value may stand as an entry too. Use the result with
/// [`Array::slice`](crate::Array::slice) and
/// [`Array::slice_assign`](crate::Array::slice_assign).
///
/// ```
/// use cuprite::{s, SliceElem};
/// let i = 1;
/// let idx = s![.., i..i + 2, -1, ..;-1];
/// assert_eq!(idx[2], SliceElem::Index(-1));
/// assert_eq!(idx.len(), 4);
/// ```
#[macro_export]
macro_rules! s {
    (@acc [$($acc:tt)*]) => {{
        let elems: ::std::vec::Vec<$crate::SliceElem> = ::std::vec![$($acc)*];
        elems
    }};
    (@acc [$($acc:tt)*] ... $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc)* $crate::SliceElem::Ellipsis,] $($($rest)*)?)
    };
    (@acc [$($acc:tt)*] Ellipsis $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc)* $crate::SliceElem::Ellipsis,] $($($rest)*)?)
    };
    (@acc [$($acc:tt)*] NewAxis $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc)* $crate::SliceElem::NewAxis,] $($($rest)*)?)
    };
    (@acc [$($acc:tt)*] $e:expr ; $step:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc)* {
            // `3..0;-1` is a backward walk, not an empty range.
            #[allow(clippy::reversed_empty_ranges)]
            let range = $e;
            $crate::SliceElem::stepped(range, $step)
        },] $($($rest)*)?)
    };
    (@acc [$($acc:tt)*] $e:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc)* {
            // `8..2` is an empty slice, as `8:2` in Python.
            #[allow(clippy::reversed_empty_ranges)]
            let entry = $e;
            <$crate::SliceElem as ::std::convert::From<_>>::from(entry)
        },] $($($rest)*)?)
    };
    ($($t:tt)*) => {
        $crate::s!(@acc [] $($t)*)
    };
}

/// Start and length of a Python slice over an axis of extent `n`
/// (CPython's `PySlice_AdjustIndices`, plus inclusive ends).
fn slice_range(
    n: usize,
    start: Option<isize>,
    end: Option<isize>,
    inclusive: bool,
    step: isize,
) -> (isize, usize) {
    let n = n as isize;
    // Where a negative bound lands after adding n, clamped to the walk's range.
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |v: isize| -> isize {
        let v = if v < 0 { v.saturating_add(n) } else { v };
        v.clamp(lo, hi)
    };
    let start = match start {
        None => {
            if step > 0 {
                0
            } else {
                n - 1
            }
        }
        Some(s) => clamp(s),
    };
    let stop = match end {
        None => {
            if step > 0 {
                n
            } else {
                -1
            }
        }
        Some(e) if inclusive => {
            // Normalize the inclusive end first, then step one past it.
            let e = if e < 0 { e.saturating_add(n) } else { e };
            let past = if step > 0 {
                e.saturating_add(1)
            } else {
                e.saturating_sub(1)
            };
            past.clamp(lo, hi)
        }
        Some(e) => clamp(e),
    };
    let len = if step > 0 {
        if stop > start {
            (stop - start - 1) / step + 1
        } else {
            0
        }
    } else if start > stop {
        // unsigned_abs: `-isize::MIN` overflows (a step that large takes one element).
        ((start - stop - 1) as usize / step.unsigned_abs() + 1) as isize
    } else {
        0
    };
    (start, len as usize)
}

/// Normalizes one integer position against an axis of extent `n`.
fn normalize_index(op: &'static str, i: isize, axis: usize, n: usize) -> Result<usize> {
    let ni = n as isize;
    let j = if i < 0 { i.saturating_add(ni) } else { i };
    if j < 0 || j >= ni {
        return Err(Error::IndexOutOfBounds {
            op,
            index: i as i64,
            axis,
            size: n,
        });
    }
    Ok(j as usize)
}

/// The layout of `layout` indexed by `elems` (NumPy's basic indexing).
fn slice_layout(op: &'static str, layout: &Layout, elems: &[SliceElem]) -> Result<Layout> {
    let ndim = layout.ndim();
    let ellipses = elems
        .iter()
        .filter(|e| matches!(e, SliceElem::Ellipsis))
        .count();
    if ellipses > 1 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "an index can only have a single ellipsis; got {}",
                fmt_index(elems)
            ),
        });
    }
    let consumed = elems.iter().filter(|e| e.consumes_axis()).count();
    if consumed > ndim {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "too many indices for an array of shape {}: {} has {consumed} integer/range entries but the array has {ndim} axes",
                fmt_shape(layout.shape()),
                fmt_index(elems)
            ),
        });
    }
    let (shape, strides) = (layout.shape(), layout.strides());
    let mut out_shape = Vec::with_capacity(ndim + elems.len());
    let mut out_strides = Vec::with_capacity(ndim + elems.len());
    let mut offset = layout.offset() as isize;
    let mut ax = 0usize;
    for e in elems {
        match *e {
            SliceElem::Index(i) => {
                let j = normalize_index(op, i, ax, shape[ax])?;
                offset += j as isize * strides[ax];
                ax += 1;
            }
            SliceElem::Slice {
                start,
                end,
                inclusive,
                step,
            } => {
                if step == 0 {
                    return Err(Error::invalid(
                        op,
                        format!("slice step cannot be zero (in {})", fmt_index(elems)),
                    ));
                }
                let (s, len) = slice_range(shape[ax], start, end, inclusive, step);
                if len > 0 {
                    offset += s * strides[ax];
                }
                out_shape.push(len);
                // One element or none: the step never moves, and a step of
                // isize::MIN times a stride would overflow.
                out_strides.push(if len > 1 {
                    strides[ax] * step
                } else {
                    strides[ax]
                });
                ax += 1;
            }
            SliceElem::NewAxis => {
                out_shape.push(1);
                out_strides.push(0);
            }
            SliceElem::Ellipsis => {
                let n = ndim - consumed;
                out_shape.extend_from_slice(&shape[ax..ax + n]);
                out_strides.extend_from_slice(&strides[ax..ax + n]);
                ax += n;
            }
        }
    }
    out_shape.extend_from_slice(&shape[ax..]);
    out_strides.extend_from_slice(&strides[ax..]);
    if out_shape.contains(&0) {
        // No element is reachable; keep an offset that lies in the buffer
        // (positions along other axes may point past the end of an empty one).
        offset = layout.offset() as isize;
    }
    Ok(Layout::from_parts(out_shape, out_strides, offset as usize))
}

// ---------------------------------------------------------------------------
// Helpers shared by the data-moving operations
// ---------------------------------------------------------------------------

pub use crate::ops::IndexMode;

/// The mode argument of [`put`] (`np.put(..., mode=)`).
pub type PutMode = IndexMode;
/// The mode argument of [`take_mode`] (`np.take(..., mode=)`).
pub type TakeMode = IndexMode;

/// Fails unless `idx` has an integer (or bool) dtype.
pub(crate) fn check_index_dtype(op: &'static str, idx: &Array) -> Result<()> {
    let dt = idx.dtype();
    if !(dt.is_integer() || dt.is_bool()) {
        return Err(Error::DType {
            op,
            detail: format!(
                "index arrays must have an integer (or bool) dtype, got {dt}; convert with .astype(cp::int64) if truncation is intended"
            ),
        });
    }
    Ok(())
}

/// Converts host data to an array on `device` (indices, masks, conditions).
fn array_on(data: impl IntoArray, device: Device) -> Result<Array> {
    data.into_array_on(device)
}

/// Fails when `b` is on another device than `a`.
pub(crate) fn same_device(op: &'static str, a: &Array, b: &Array) -> Result<()> {
    if a.device() != b.device() {
        return Err(Error::DeviceMismatch {
            op,
            a: a.device().to_string(),
            b: b.device().to_string(),
        });
    }
    Ok(())
}

/// `value` as an array on `dst`'s device viewed with `shape` (broadcast;
/// leading extent-1 axes beyond `shape`'s rank dropped), not yet cast.
fn assignment_array(
    op: &'static str,
    dst: &Array,
    shape: &[usize],
    value: &Operand<'_>,
) -> Result<Array> {
    let device = common_device(
        op,
        &[&Operand::Array(std::borrow::Cow::Borrowed(dst)), value],
    )?;
    let src = value.to_array(op, dst.dtype(), device)?;
    let mut layout = src.layout().clone();
    while layout.ndim() > shape.len() && layout.shape()[0] == 1 {
        layout = Layout::from_parts(
            layout.shape()[1..].to_vec(),
            layout.strides()[1..].to_vec(),
            layout.offset(),
        );
    }
    let layout = layout.broadcast_to(shape).map_err(|_| Error::Broadcast {
        op,
        shapes: vec![src.shape().to_vec(), shape.to_vec()],
    })?;
    Ok(src.with_layout(layout))
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

impl Array {
    /// A view through an index expression (`x[...]` with slices, integers,
    /// `NewAxis` and `...`), sharing memory with `self`: `x.slice(s![1.., ..;-1])`.
    ///
    /// Ranges clamp like Python; an integer out of range is an
    /// [`Error::IndexOutOfBounds`]; more integer/range entries than axes, a
    /// second ellipsis or a zero step is an [`Error::InvalidArgument`].
    pub fn slice(&self, index: impl AsRef<[SliceElem]>) -> Result<Array> {
        let layout = slice_layout("slice", self.layout(), index.as_ref())?;
        Ok(self.with_layout(layout))
    }

    /// Writes `value` through the view `x[index]` (NumPy `x[...] = v`):
    /// arrays broadcast to the view's shape and cast with NumPy's unsafe
    /// rule; Rust scalars must fit an integer dtype.
    pub fn slice_assign<'a>(
        &mut self,
        index: impl AsRef<[SliceElem]>,
        value: impl IntoOperand<'a>,
    ) -> Result<()> {
        let op = "slice_assign";
        let layout = slice_layout(op, self.layout(), index.as_ref())?;
        let view = self.with_layout(layout);
        write_operand(op, &view, &value.into_operand())
    }

    /// The element at a full multi-index (negative entries count from the end).
    pub fn get(&self, index: &[isize]) -> Result<Scalar> {
        let op = "get";
        self.check_full_index(op, index)?;
        let elems: Vec<SliceElem> = index.iter().map(|&i| SliceElem::Index(i)).collect();
        let layout = slice_layout(op, self.layout(), &elems)?;
        self.device().check_available(op)?;
        self.with_layout(layout).scalar()
    }

    /// Sets the element at a full multi-index to `value` (cast to the dtype).
    pub fn set<'a>(&mut self, index: &[isize], value: impl IntoOperand<'a>) -> Result<()> {
        let op = "set";
        self.check_full_index(op, index)?;
        let elems: Vec<SliceElem> = index.iter().map(|&i| SliceElem::Index(i)).collect();
        let layout = slice_layout(op, self.layout(), &elems)?;
        write_operand(op, &self.with_layout(layout), &value.into_operand())
    }

    /// A view of position `i` along the first axis (`x[i]`; negative counts from the end).
    pub fn at(&self, i: isize) -> Result<Array> {
        let layout = slice_layout("at", self.layout(), &[SliceElem::Index(i)])?;
        Ok(self.with_layout(layout))
    }

    fn check_full_index(&self, op: &'static str, index: &[isize]) -> Result<()> {
        let (given, ndim, shape) = (index.len(), self.ndim(), fmt_shape(self.shape()));
        if given != ndim {
            let detail = format!("{given} indices were given for an array of shape {shape} with {ndim} axes; use .slice(s![...]) or .at(i) for a sub-array");
            return Err(Error::invalid(op, detail));
        }
        Ok(())
    }

    /// Elements picked by an integer index array along `axis`, or from the
    /// flattened array when `axis` is `None` (`np.take`; see [`take`]).
    pub fn take(&self, indices: impl IntoArray, axis: Option<isize>) -> Result<Array> {
        take(self, indices, axis)
    }

    /// As [`Array::take`] with an explicit out-of-range mode (see [`take_mode`]).
    pub fn take_mode(
        &self,
        indices: impl IntoArray,
        axis: Option<isize>,
        mode: TakeMode,
    ) -> Result<Array> {
        take_mode(self, indices, axis, mode)
    }

    /// Integer-array indexing along one axis (`x[:, idx]` for `axis = 1`):
    /// [`take`] with an axis.
    pub fn index_select(&self, indices: impl IntoArray, axis: isize) -> Result<Array> {
        take(self, indices, Some(axis))
    }

    /// The elements where the boolean `mask` is true (`x[mask]`, a copy).
    ///
    /// `mask`'s shape must equal the leading axes of `self`; the result has
    /// shape `(count,) + self.shape[mask.ndim:]` (1-D for a full-shape mask).
    pub fn mask(&self, mask: impl IntoArray) -> Result<Array> {
        let op = "mask";
        let m = array_on(mask, self.device())?;
        self.check_mask(op, &m)?;
        let b = crate::backend::on(op, self.device())?;
        let (storage, count) = b.mask(op, self.view(), m.view())?;
        let mut shape = vec![count];
        shape.extend_from_slice(&self.shape()[m.ndim()..]);
        Ok(Array::from_parts(
            storage,
            Layout::contiguous(&shape),
            self.dtype(),
        ))
    }

    /// Writes `value` into the elements where `mask` is true (`x[mask] = v`):
    /// a scalar, or an array that broadcasts to `(count,) + self.shape[mask.ndim:]`
    /// (e.g. a 1-D array of the selected count), cast with NumPy's unsafe rule.
    pub fn mask_assign<'a>(
        &mut self,
        mask: impl IntoArray,
        value: impl IntoOperand<'a>,
    ) -> Result<()> {
        let op = "mask_assign";
        let m = array_on(mask, self.device())?;
        self.check_mask(op, &m)?;
        let b = crate::backend::on(op, self.device())?;
        let value = value.into_operand();
        let trailing = &self.shape()[m.ndim()..];
        let dst: &Array = self;
        b.mask_assign(op, dst.view(), m.view(), &mut |count| {
            let mut shape = vec![count];
            shape.extend_from_slice(trailing);
            let v = assignment_array(op, dst, &shape, &value)?;
            Ok(OwnedView {
                storage: v.storage().clone(),
                layout: v.layout().clone(),
                dtype: v.dtype(),
            })
        })
    }

    /// Checks a mask's dtype, shape and device against `self`.
    fn check_mask(&self, op: &'static str, m: &Array) -> Result<()> {
        if m.dtype() != DType::Bool {
            return Err(Error::DType {
                op,
                detail: format!(
                    "a mask must be a bool array, got {}; for integer positions use .take(indices, axis) or .index_select(indices, axis)",
                    m.dtype()
                ),
            });
        }
        same_device(op, self, m)?;
        self.device().check_available(op)?;
        let k = m.ndim();
        if k > self.ndim() {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "a mask of shape {} has more axes than the array of shape {}",
                    fmt_shape(m.shape()),
                    fmt_shape(self.shape())
                ),
            });
        }
        if let Some(ax) = (0..k).find(|&i| m.shape()[i] != self.shape()[i]) {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "boolean mask of shape {} does not match the array of shape {} along axis {ax} (mask extent {}, array extent {}); the mask's shape must equal the array's leading shape",
                    fmt_shape(m.shape()),
                    fmt_shape(self.shape()),
                    m.shape()[ax],
                    self.shape()[ax]
                ),
            });
        }
        Ok(())
    }

    /// Multi-indices of the non-zero elements, one int64 array per axis (see [`nonzero`]).
    pub fn nonzero(&self) -> Result<Vec<Array>> {
        nonzero(self)
    }

    /// Writes `values` at flat (C-order) positions `indices` (see [`put`]).
    pub fn put<'a>(
        &mut self,
        indices: impl IntoArray,
        values: impl IntoOperand<'a>,
        mode: PutMode,
    ) -> Result<()> {
        put(self, indices, values, mode)
    }
}

/// Writes an operand into every element of `dst` (broadcast, unsafe cast).
fn write_operand(op: &'static str, dst: &Array, value: &Operand<'_>) -> Result<()> {
    let b = crate::backend::on(op, dst.device())?;
    let src = assignment_array(op, dst, dst.shape(), value)?;
    // A copy may not read what it overwrites.
    let src = if src.shares_memory(dst) {
        src.copy()?
    } else {
        src
    };
    b.copy_cast(op, src.view(), dst.view())
}

/// Elements of `a` picked by an integer index array (`np.take`).
///
/// With `axis = Some(ax)` the result has shape
/// `a.shape[..ax] + indices.shape + a.shape[ax+1..]`; with `None`, `a` is
/// flattened first and the result has `indices.shape`. Indices may have any
/// integer dtype (or bool, read as 0/1) and any shape; negative ones count
/// from the end. Out of range is an [`Error::IndexOutOfBounds`] (CuPy wraps
/// silently; Cuprite raises, on the GPU too); float indices are an
/// [`Error::DType`].
pub fn take(a: &Array, indices: impl IntoArray, axis: Option<isize>) -> Result<Array> {
    take_impl("take", a, indices, axis, IndexMode::Raise)
}

/// As [`take`], with NumPy's `mode=`: raise, wrap or clip out-of-range indices.
pub fn take_mode(
    a: &Array,
    indices: impl IntoArray,
    axis: Option<isize>,
    mode: TakeMode,
) -> Result<Array> {
    take_impl("take", a, indices, axis, mode)
}

fn take_impl(
    op: &'static str,
    a: &Array,
    indices: impl IntoArray,
    axis: Option<isize>,
    mode: IndexMode,
) -> Result<Array> {
    let idx = array_on(indices, a.device())?;
    same_device(op, a, &idx)?;
    let b = crate::backend::on(op, a.device())?;
    check_index_dtype(op, &idx)?;
    let (src, ax) = match axis {
        None => (a.reshape([-1])?, 0),
        Some(ax) => (a.clone(), normalize_axis(op, ax, a.ndim())?),
    };
    // Bounds are checked before the size of the result.
    let ix = crate::ops::index::Indices {
        idx: idx.view(),
        axis: ax,
        n: src.shape()[ax],
        mode,
    };
    b.check_indices(op, ix)?;
    let mut shape = src.shape()[..ax].to_vec();
    shape.extend_from_slice(idx.shape());
    shape.extend_from_slice(&src.shape()[ax + 1..]);
    let n = checked_size(op, &shape)?;
    let out = Array::from_parts(
        b.empty(op, src.dtype(), n)?,
        Layout::contiguous(&shape),
        src.dtype(),
    );
    let t = crate::ops::index::Take {
        src: src.view(),
        axis: ax,
        idx: idx.view(),
        mode,
        out: out.view(),
    };
    b.take(op, t)?;
    Ok(out)
}

/// Writes `values` into `a` at positions `indices` of the flattened array
/// (`np.put(a, indices, values, mode)`), through views.
///
/// `values` (a Rust scalar or an array of any shape, flattened in C order
/// and cast with NumPy's unsafe rule) repeats cyclically when shorter than
/// `indices`; an empty `values` writes nothing. With [`PutMode::Raise`],
/// an index outside `-size..size` is an [`Error::IndexOutOfBounds`] and
/// nothing is written. Repeated indices keep the last value.
pub fn put<'a>(
    a: &mut Array,
    indices: impl IntoArray,
    values: impl IntoOperand<'a>,
    mode: PutMode,
) -> Result<()> {
    let op = "put";
    let idx = array_on(indices, a.device())?;
    same_device(op, a, &idx)?;
    let b = crate::backend::on(op, a.device())?;
    check_index_dtype(op, &idx)?;
    // Every index is checked before anything is written.
    let ix = crate::ops::index::Indices {
        idx: idx.view(),
        axis: 0,
        n: a.size(),
        mode,
    };
    b.check_indices(op, ix)?;
    let values = values.into_operand();
    let device = common_device(
        op,
        &[&Operand::Array(std::borrow::Cow::Borrowed(&*a)), &values],
    )?;
    let varr = values.to_array(op, a.dtype(), device)?;
    if varr.size() == 0 {
        return Ok(());
    }
    // A fresh C-contiguous copy in a's dtype (never sharing a's memory).
    let vals = varr.astype(a.dtype())?;
    let p = crate::ops::index::Put {
        a: a.view(),
        idx: idx.view(),
        vals: vals.view(),
        mode,
        combine: None,
    };
    b.put(op, p)
}

/// Multi-indices of the non-zero (true) elements of `a`, one int64 array per
/// axis, in C order (`np.nonzero`). A 0-d array is an error, as in NumPy 2.
pub fn nonzero(a: &Array) -> Result<Vec<Array>> {
    let op = "nonzero";
    if a.ndim() == 0 {
        return Err(Error::Shape {
            op,
            detail: "calling nonzero on a 0-d array is not allowed; reshape it to (1,) first"
                .into(),
        });
    }
    let b = crate::backend::on(op, a.device())?;
    let (outs, count) = b.nonzero(op, a.view())?;
    Ok(outs
        .into_iter()
        .map(|s| Array::from_parts(s, Layout::contiguous(&[count]), DType::Int64))
        .collect())
}

/// Positions of the non-zero elements of `a` flattened in C order, as int64
/// (`np.flatnonzero`).
pub fn flatnonzero(a: &Array) -> Result<Array> {
    let flat = a.reshape([-1])?;
    Ok(nonzero(&flat)?.remove(0))
}

/// `x` where `cond` is true and `y` elsewhere (`np.where(cond, x, y)`).
///
/// `cond`, `x` and `y` broadcast together. `cond` is read as bool (any
/// dtype: non-zero is true). `x` and `y` are arrays or Rust scalars; the
/// result dtype is their [`result_type`] (NEP 50: `where_(&c, &x_f32, 0.0)`
/// is float32, `where_(&c, 1, 2)` is int64).
pub fn where_<'a, 'b>(
    cond: impl IntoArray,
    x: impl IntoOperand<'a>,
    y: impl IntoOperand<'b>,
) -> Result<Array> {
    let op = "where_";
    let (x, y) = (x.into_operand(), y.into_operand());
    let device = common_device(op, &[&x, &y])?;
    let cond = array_on(cond, device)?;
    let cop = Operand::Array(std::borrow::Cow::Borrowed(&cond));
    let device = common_device(op, &[&cop, &x, &y])?;
    let b = crate::backend::on(op, device)?;
    let dtype = result_type(&[x.type_operand(), y.type_operand()])?;
    let shape = broadcast_shapes(op, &[cond.shape(), x.shape(), y.shape()])?;
    let n = checked_size(op, &shape)?;
    let (xi, yi) = (where_input(op, &x, dtype)?, where_input(op, &y, dtype)?);
    let out = Array::from_parts(b.empty(op, dtype, n)?, Layout::contiguous(&shape), dtype);
    let w = crate::ops::index::Where {
        cond: cond.view(),
        x: xi,
        y: yi,
        out: out.view(),
    };
    b.where_(op, w)?;
    Ok(out)
}

/// An operand as an input of `where_` computing in `dtype`: arrays as they
/// are (the backend converts them), scalars by value (a Rust integer must
/// fit `dtype`, as `Operand::to_array` requires).
fn where_input<'a>(op: &'static str, o: &'a Operand<'_>, dtype: DType) -> Result<WhereInput<'a>> {
    match o {
        Operand::Array(a) => Ok(WhereInput::View(a.view())),
        Operand::Scalar(s) => {
            if dtype.is_integer() && !s.fits(dtype) {
                return Err(Error::invalid(
                    op,
                    format!("the Rust integer {s} does not fit in {dtype}"),
                ));
            }
            Ok(WhereInput::Scalar(*s))
        }
    }
}

/// `x[..., start:end:step, ...]` on `axis` (a view).
pub(crate) fn slice_axis(
    x: &Array,
    axis: usize,
    start: Option<isize>,
    end: Option<isize>,
    step: isize,
) -> Result<Array> {
    let mut idx = vec![
        SliceElem::Slice {
            start: None,
            end: None,
            inclusive: false,
            step: 1,
        };
        x.ndim()
    ];
    idx[axis] = SliceElem::Slice {
        start,
        end,
        inclusive: false,
        step,
    };
    x.slice(idx)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (start, stop, step) over a few extents against a direct model
    /// of Python's `range(n)[start:stop:step]`.
    #[test]
    fn slice_range_matches_python_model() {
        fn python(n: isize, start: Option<isize>, stop: Option<isize>, step: isize) -> Vec<isize> {
            // Python's slice.indices, written independently of slice_range.
            let adj = |v: isize, lo: isize, hi: isize| {
                if v < 0 {
                    (v + n).max(lo)
                } else {
                    v.min(hi)
                }
            };
            let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
            let s = start.map_or(if step > 0 { 0 } else { n - 1 }, |v| adj(v, lo, hi));
            let e = stop.map_or(if step > 0 { n } else { -1 }, |v| adj(v, lo, hi));
            let mut out = vec![];
            let mut i = s;
            while (step > 0 && i < e) || (step < 0 && i > e) {
                out.push(i);
                i += step;
            }
            out
        }
        let bounds = [
            None,
            Some(-7),
            Some(-3),
            Some(-1),
            Some(0),
            Some(1),
            Some(2),
            Some(4),
            Some(9),
        ];
        for n in 0..6isize {
            for &s in &bounds {
                for &e in &bounds {
                    for step in [-3, -2, -1, 1, 2, 3] {
                        let (start, len) = slice_range(n as usize, s, e, false, step);
                        let got: Vec<isize> = (0..len as isize).map(|k| start + k * step).collect();
                        assert_eq!(got, python(n, s, e, step), "n={n} {s:?}:{e:?}:{step}");
                    }
                }
            }
        }
    }

    #[test]
    fn inclusive_ends() {
        // ..=-1 covers the whole axis; 3..=1;-1 walks 3, 2, 1.
        assert_eq!(slice_range(5, None, Some(-1), true, 1), (0, 5));
        assert_eq!(slice_range(5, Some(3), Some(1), true, -1), (3, 3));
        assert_eq!(slice_range(5, Some(1), Some(9), true, 1), (1, 4));
        assert_eq!(slice_range(5, Some(4), Some(-9), true, -1), (4, 5));
    }

    #[test]
    fn display_in_numpy_notation() {
        let e = crate::s![.., 1..3, ..;-1, 2, NewAxis, ..., 0..=4;2];
        assert_eq!(fmt_index(&e), "[:, 1:3, ::-1, 2, None, ..., 0:=4:2]");
    }
}
