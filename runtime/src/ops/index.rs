//! Shared types of the data-moving indexing operations.

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

/// Gather and scatter: take, put, masks, nonzero, where.
/// The backend trait of this op family (see `ops::backend`).
pub(crate) trait GatherScatter {}
