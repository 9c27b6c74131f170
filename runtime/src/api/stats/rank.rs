//! Ranks along an axis (`scipy.stats.rankdata`) on the array's device: a
//! stable argsort, the runs of equal sorted values found by comparing
//! neighbours, each run's first and last position spread over it by a
//! running maximum (forwards) and minimum (backwards), and the ranks put
//! back in the original order through the inverse permutation.

use super::float_input;
use crate::api::creation::{arange, ones};
use crate::api::elementwise::ufuncs;
use crate::api::elementwise::{add, isnan, multiply, not_equal};
use crate::api::shape::concatenate;
use crate::api::shape::index::{slice_axis, where_};
use crate::api::sorting::argsort;
use crate::api::sorting::search::take_along_last;
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

/// How [`rankdata`] ranks equal values (SciPy's `method=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RankMethod {
    /// The mean of the ranks the tied values span.
    #[default]
    Average,
    /// The least of them.
    Min,
    /// The greatest of them.
    Max,
    /// Consecutive ranks of the distinct values: 1, 2, 3 with no gaps.
    Dense,
    /// Distinct ranks in order of appearance.
    Ordinal,
}

/// `x` with `axis` moved last (a view), the axis checked.
pub(crate) fn to_last_axis(op: &'static str, x: &Array, axis: isize) -> Result<Array> {
    if x.ndim() == 0 {
        return Err(Error::Axis { op, axis, ndim: 0 });
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    x.moveaxis(ax as isize, -1)
}

/// The sorted values along the last axis and, for each sorted position,
/// the first and last position (float64) of its run of equal values.
pub(crate) struct Runs {
    /// The values sorted along the last axis.
    pub sorted: Array,
    /// The stable argsort that sorts them (int64).
    pub order: Array,
    /// Where each sorted value's run starts.
    pub start: Array,
    /// Where it ends (inclusive).
    pub end: Array,
    /// 1 where a run starts, 0 elsewhere (float64).
    pub first: Array,
}

/// The runs of equal values of `x` along its last axis (which is not empty).
pub(crate) fn sorted_runs(x: &Array) -> Result<Runs> {
    let last = x.ndim() - 1;
    let n = x.shape()[last];
    let order = argsort(x, -1)?;
    let sorted = take_along_last(x, &order)?;
    let pos = with_device(x.device(), || arange(n as i64))?.astype(DType::Float64)?;
    // A run starts at 0 and wherever a value differs from the one before.
    let mut edge_shape = x.shape().to_vec();
    edge_shape[last] = 1;
    let edge = with_device(x.device(), || ones(edge_shape, DType::Float64))?;
    let changed = not_equal(
        &slice_axis(&sorted, last, Some(1), None, 1)?,
        &slice_axis(&sorted, last, None, Some(n as isize - 1), 1)?,
    )?
    .astype(DType::Float64)?;
    let first = concatenate(&[&edge, &changed], -1)?;
    // The first position of a run is a running maximum of run starts; the
    // last, a running minimum (from the end) of positions before the next start.
    let starts_at = where_(&first, &pos, 0.0)?;
    let start = ufuncs::maximum.accumulate(&starts_at, -1)?;
    let next_first = concatenate(&[&slice_axis(&first, last, Some(1), None, 1)?, &edge], -1)?;
    let ends_at = where_(&next_first, &pos, n as f64)?;
    let flipped = crate::api::shape::manip::flip(&ends_at, -1)?;
    let end = crate::api::shape::manip::flip(&ufuncs::minimum.accumulate(&flipped, -1)?, -1)?;
    Ok(Runs {
        sorted,
        order,
        start,
        end,
        first,
    })
}

/// The ranks of `a` along `axis`, 1 for the least, ties by `method`
/// (`scipy.stats.rankdata(a, method, axis)`; `None` ranks the flattened
/// array). float64, as SciPy's; a slice with a NaN ranks as all NaN (SciPy's
/// `nan_policy='propagate'`). Runs on the array's device: a stable argsort,
/// scans and gathers.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![40.0, 10.0, 30.0, 10.0])?;
/// let r = cp::stats::rankdata(&a, cp::stats::RankMethod::Average, None)?;
/// assert_eq!(r.to_vec::<f64>()?, vec![4.0, 1.5, 3.0, 1.5]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn rankdata(a: &Array, method: RankMethod, axis: Option<isize>) -> Result<Array> {
    let op = "stats.rankdata";
    if a.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("complex input ({}) is not supported", a.dtype()),
        });
    }
    let (x, axis) = match axis {
        None => (a.reshape([-1])?, 0),
        Some(ax) => (a.clone(), ax),
    };
    let x = if x.dtype() == DType::Bool {
        x.astype(DType::Int8)?
    } else {
        x
    };
    let last = to_last_axis(op, &x, axis)?;
    let n = last.shape()[last.ndim() - 1];
    if n == 0 || last.size() == 0 {
        let empty = float_input(op, &last)?.astype(DType::Float64)?;
        return empty.moveaxis(-1, normalize_axis(op, axis, x.ndim())? as isize);
    }
    let runs = sorted_runs(&last)?;
    let pos = with_device(x.device(), || arange(n as i64))?.astype(DType::Float64)?;
    let sorted_ranks = match method {
        RankMethod::Average => add(multiply(add(&runs.start, &runs.end)?, 0.5)?, 1.0)?,
        RankMethod::Min => add(&runs.start, 1.0)?,
        RankMethod::Max => add(&runs.end, 1.0)?,
        RankMethod::Dense => runs.first.cumsum(Some(-1))?,
        RankMethod::Ordinal => add(multiply(&runs.start, 0.0)?, add(&pos, 1.0)?)?,
    };
    // Back to the original order: the inverse of the sorting permutation.
    let inverse = argsort(&runs.order, -1)?;
    let ranks = take_along_last(&sorted_ranks, &inverse)?;
    let ranks = if x.dtype().is_float() {
        let any_nan = isnan(&last)?.any_axes(-1, true)?;
        where_(&any_nan, f64::NAN, &ranks)?
    } else {
        ranks
    };
    let ax = normalize_axis(op, axis, x.ndim())? as isize;
    ranks.moveaxis(-1, ax)?.copy()
}
