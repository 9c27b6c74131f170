//! Relative extrema (`scipy.signal.argrelextrema`, `argrelmax`,
//! `argrelmin`): each sample compared with its neighbours up to `order`
//! away through shifted `take`s (clipped or wrapped at the ends), all
//! elementwise on the data's device.

use crate::api::creation::arange;
use crate::api::elementwise::{add, greater, greater_equal, less, less_equal, logical_and};
use crate::api::shape::index::{nonzero, take_mode};
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;
use crate::ops::index::IndexMode;

/// The comparison a relative extremum satisfies against its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comparator {
    /// Strictly above (`np.greater`): maxima.
    Greater,
    /// At least (`np.greater_equal`).
    GreaterEqual,
    /// Strictly below (`np.less`): minima.
    Less,
    /// At most (`np.less_equal`).
    LessEqual,
}

/// How neighbours past the ends are found (SciPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ExtremaMode {
    /// The end sample (`'clip'`).
    #[default]
    Clip,
    /// Periodic (`'wrap'`).
    Wrap,
}

/// The indices of the relative extrema of `data` along `axis`
/// (`scipy.signal.argrelextrema`): one index array per dimension, as
/// `nonzero` gives.
pub fn argrelextrema(
    data: &Array,
    comparator: Comparator,
    axis: isize,
    order: usize,
    mode: ExtremaMode,
) -> Result<Vec<Array>> {
    let op = "argrelextrema";
    data.device().check_available(op)?;
    if order < 1 {
        return Err(Error::invalid(op, "order must be an int >= 1"));
    }
    if data.ndim() == 0 {
        return Err(Error::shape(op, "data must have at least one dimension"));
    }
    let ax = normalize_axis(op, axis, data.ndim())?;
    let n = data.shape()[ax];
    let locs = with_device(data.device(), || arange(n as i64))?;
    let im = match mode {
        ExtremaMode::Clip => IndexMode::Clip,
        ExtremaMode::Wrap => IndexMode::Wrap,
    };
    let cmp = |a: &Array, b: &Array| match comparator {
        Comparator::Greater => greater(a, b),
        Comparator::GreaterEqual => greater_equal(a, b),
        Comparator::Less => less(a, b),
        Comparator::LessEqual => less_equal(a, b),
    };
    // Shifts past n change nothing (clipped indices stay at the ends, and
    // wrapped ones repeat with period n, shift n included), so an order
    // above n is cut to n: the result is the same and a huge order ends.
    let order = order.min(n.max(1));
    let mut result: Option<Array> = None;
    for shift in 1..=order as i64 {
        let plus = take_mode(data, add(&locs, shift)?, Some(ax as isize), im)?;
        let minus = take_mode(data, add(&locs, -shift)?, Some(ax as isize), im)?;
        let both = logical_and(cmp(data, &plus)?, cmp(data, &minus)?)?;
        result = Some(match result {
            None => both,
            Some(r) => logical_and(&r, &both)?,
        });
    }
    match result {
        Some(r) => nonzero(&r),
        None => Err(Error::invalid(op, "order must be an int >= 1")),
    }
}

/// The indices of the relative maxima of `data` along `axis` (`scipy.signal.argrelmax`).
pub fn argrelmax(data: &Array, axis: isize, order: usize, mode: ExtremaMode) -> Result<Vec<Array>> {
    argrelextrema(data, Comparator::Greater, axis, order, mode)
}

/// The indices of the relative minima of `data` along `axis` (`scipy.signal.argrelmin`).
pub fn argrelmin(data: &Array, axis: isize, order: usize, mode: ExtremaMode) -> Result<Vec<Array>> {
    argrelextrema(data, Comparator::Less, axis, order, mode)
}
