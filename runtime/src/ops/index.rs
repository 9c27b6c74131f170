//! Shared types of the data-moving indexing operations, and their backend
//! trait.

use crate::core::element::Scalar;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::{OwnedView, View};

/// How out-of-range indices are treated by [`take_mode`](crate::take_mode)
/// and [`put`](crate::put) (NumPy's `mode=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IndexMode {
    /// Out of range is an [`Error::IndexOutOfBounds`](crate::Error::IndexOutOfBounds);
    /// negative indices count from the end.
    #[default]
    Raise,
    /// Indices wrap around (`i mod n`; `-1` is the last element).
    Wrap,
    /// Indices are clipped to `0..n` (so negative indices become 0, as in NumPy).
    Clip,
}

/// What `take` reads and writes: `out[o, k, i] = src[o, idx[k], i]` along `axis`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Take<'a> {
    pub src: View<'a>,
    pub axis: usize,
    pub idx: View<'a>,
    pub mode: IndexMode,
    pub out: View<'a>,
}

/// What `put` writes: `a.flat[idx[k]] = vals[k % vals.size()]`, or with
/// `combine` (`ufunc.at`) `a.flat[idx[k]] = op(a.flat[idx[k]], vals[..])`
/// for every `k` in order, the op's loop and result dtype being `a`'s.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Put<'a> {
    pub a: View<'a>,
    pub idx: View<'a>,
    pub vals: View<'a>,
    pub mode: IndexMode,
    pub combine: Option<crate::ops::ufunc::Binary>,
}

/// Indices `idx` into an axis of extent `n` (`axis` names it in messages),
/// resolved under `mode`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Indices<'a> {
    pub idx: View<'a>,
    pub axis: usize,
    pub n: usize,
    pub mode: IndexMode,
}

/// What `where_` reads and writes: `out = cond ? x : y`, broadcast.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Where<'a> {
    pub cond: View<'a>,
    pub x: WhereInput<'a>,
    pub y: WhereInput<'a>,
    pub out: View<'a>,
}

/// An input of `where_`: an array, or a Rust scalar the front end checked
/// against the result dtype.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WhereInput<'a> {
    /// An array broadcast to the result's shape, converted to its dtype.
    View(View<'a>),
    /// A value converted to the result's dtype.
    Scalar(Scalar),
}

/// Gather and scatter: take, put, masks, nonzero, where.
/// The backend trait of this op family (see `ops::backend`).
///
/// Index arrays reach the backend with an integer or bool dtype (the front
/// end checks); bool indices read as 0 and 1, uint64 indices beyond
/// `i64::MAX` saturate.
pub(crate) trait GatherScatter {
    /// Checks indices against their axis: a non-empty `idx` into an empty
    /// axis fails in every mode, and in raise mode the first index (C
    /// order) outside `-n..n` is an `Error::IndexOutOfBounds`.
    fn check_indices(&self, op: &'static str, ix: Indices<'_>) -> Result<()>;
    /// `out[o, k, i] = src[o, idx[k], i]` along `axis` (indices checked by
    /// `check_indices`, resolved under `mode`); `out` is C-contiguous.
    fn take(&self, op: &'static str, t: Take<'_>) -> Result<()>;
    /// `a.flat[idx[k]] = vals[k % vals.size()]` for every k (C order of
    /// `a`), the last index winning for repeated targets; `idx` is checked,
    /// `vals` is non-empty, has `a`'s dtype and shares no memory with `a`.
    fn put(&self, op: &'static str, p: Put<'_>) -> Result<()>;
    /// `x[m]` for a checked bool mask `m` of `x`'s leading axes: a new
    /// C-contiguous buffer of the selected elements (shape `(count,) +
    /// x.shape[m.ndim:]`, its size checked) and `count`.
    fn mask(&self, op: &'static str, x: View<'_>, m: View<'_>) -> Result<(Storage, usize)>;
    /// `x[m] = value`: `value(count)` gives the values, of any dtype (cast
    /// with NumPy's unsafe rule), viewed with shape `(count,) +
    /// x.shape[m.ndim:]`, or the error of a shape mismatch.
    fn mask_assign(
        &self,
        op: &'static str,
        x: View<'_>,
        m: View<'_>,
        value: &mut dyn FnMut(usize) -> Result<OwnedView>,
    ) -> Result<()>;
    /// Multi-indices of the non-zero elements of `a` (`ndim >= 1`), C order:
    /// one new int64 buffer per axis, and their common length.
    fn nonzero(&self, op: &'static str, a: View<'_>) -> Result<(Vec<Storage>, usize)>;
    /// `cond ? x : y` broadcast to `out`'s shape and converted to its dtype
    /// (`cond` read as bool); `out` is C-contiguous.
    fn where_(&self, op: &'static str, w: Where<'_>) -> Result<()>;
}
