//! Sorting and searching beyond `sort`: `searchsorted`, `digitize`,
//! `unique` (with first positions, inverse and counts), `argwhere`,
//! `partition`, `argpartition`, `isin`, `in1d`, `intersect1d`, `union1d`,
//! `setdiff1d`, `lexsort` and `topk`, with NumPy's semantics.
//!
//! `searchsorted` (a binary search per needle) and `unique` (sort, flag the
//! starts of runs, scan, scatter) are backend ops; everything else is built
//! from array operations that run on every backend (sorts, `take`,
//! `nonzero`, masks, ufuncs), so nothing here brings device data to the host
//! beyond a count that sizes a result or a flag that picks a branch.
//!
//! Differences from NumPy: `partition` and `argpartition` sort the whole
//! axis (a full radix sort on the GPU: there is no selection kernel yet),
//! which satisfies NumPy's partition contract; `digitize` checks the bins'
//! order with plain comparisons, so bins holding NaN may be accepted where
//! NumPy refuses them.

use crate::api::operand::{IntoOperand, Operand};
use crate::api::shape::index::same_device;
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::dtype::{result_type, DType, TypeOperand};
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::{normalize_axis, Layout};
use crate::ops::sort::{SearchSorted, UniqueWant};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// `x` as `dtype`, without a copy when it already is.
fn cast(x: &Array, dtype: DType) -> Result<Array> {
    if x.dtype() == dtype {
        Ok(x.clone())
    } else {
        x.astype(dtype)
    }
}

/// `x[..., start:end:step]` on the last axis (a view).
fn last_axis(x: &Array, start: Option<isize>, end: Option<isize>, step: isize) -> Result<Array> {
    crate::api::shape::index::slice_axis(x, x.ndim() - 1, start, end, step)
}

/// `np.take_along_axis(x, idx, -1)` for int64 `idx` whose leading axes
/// match `x`'s: one flat `take` at `idx + lane * n`.
pub(crate) fn take_along_last(x: &Array, idx: &Array) -> Result<Array> {
    let n = x.shape()[x.ndim() - 1];
    let m = idx.shape()[idx.ndim() - 1];
    let lanes: usize = idx.shape()[..idx.ndim() - 1].iter().product();
    if lanes * m == 0 {
        return with_device(x.device(), || crate::zeros(idx.shape().to_vec(), x.dtype()));
    }
    let starts = with_device(x.device(), || crate::arange(lanes as i64))?;
    let starts = crate::multiply(&starts, n as i64)?.reshape([lanes as isize, 1])?;
    let flat = crate::add(&idx.reshape([lanes as isize, m as isize])?, &starts)?;
    crate::take(&x.reshape([-1])?, &flat, None)?.reshape(idx.shape().to_vec())
}

// ---------------------------------------------------------------------------
// searchsorted, digitize
// ---------------------------------------------------------------------------

/// Which of the equal elements' ends `searchsorted` reports (NumPy's `side=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Side {
    /// The first position that keeps the order (`a[i-1] < v <= a[i]`).
    #[default]
    Left,
    /// The last position that keeps the order (`a[i-1] <= v < a[i]`).
    Right,
}

/// Where the elements of `v` go in the sorted 1-D `a` to keep it sorted
/// (`np.searchsorted(a, v, side, sorter)`), as int64 of `v`'s shape.
///
/// `a` and `v` are compared in their promoted dtype (a Rust scalar `v` is
/// weak, NEP 50) in NumPy's sort order (NaNs last). With `sorter`, an
/// integer 1-D array of `a`'s length whose order sorts `a` (say from
/// [`argsort`](crate::argsort)), `a` is read through it and the result
/// counts positions in that order.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![1.0, 2.0, 2.0, 3.0])?;
/// let v = cp::asarray(vec![2.0, 2.5, -1.0])?;
/// let left = cp::searchsorted(&a, &v, cp::Side::Left, None)?;
/// assert_eq!(left.to_vec::<i64>()?, vec![1, 3, 0]);
/// assert_eq!(cp::searchsorted(&a, 2.0, cp::Side::Right, None)?.item::<i64>()?, 3);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn searchsorted<'a>(
    a: &Array,
    v: impl IntoOperand<'a>,
    side: Side,
    sorter: Option<&Array>,
) -> Result<Array> {
    let op = "searchsorted";
    if a.ndim() != 1 {
        let shape = fmt_shape(a.shape());
        return Err(Error::shape(
            op,
            format!("the sorted array must be 1-D, got shape {shape}"),
        ));
    }
    let v = v.into_operand();
    if let Operand::Array(va) = &v {
        same_device(op, a, va)?;
    }
    let b = crate::backend::on(op, a.device())?;
    let dtype = result_type(&[TypeOperand::Strong(a.dtype()), v.type_operand()])?;
    let haystack = match sorter {
        Some(s) => sorted_through(op, a, s)?,
        None => a.clone(),
    };
    let haystack = cast(&haystack, dtype)?;
    let needles = cast(&v.to_array(op, dtype, a.device())?, dtype)?;
    let shape = needles.shape().to_vec();
    let out = Array::from_parts(
        b.empty(op, DType::Int64, needles.size())?,
        Layout::contiguous(&shape),
        DType::Int64,
    );
    let search = SearchSorted {
        a: haystack.view(),
        v: needles.view(),
        right: side == Side::Right,
        out: out.view(),
    };
    b.searchsorted(op, search)?;
    Ok(out)
}

/// `a[sorter]` after NumPy's checks of `sorter`: 1-D, integer, `a`'s
/// length, every index in `0..len`.
fn sorted_through(op: &'static str, a: &Array, sorter: &Array) -> Result<Array> {
    same_device(op, a, sorter)?;
    if sorter.ndim() != 1 || sorter.size() != a.size() {
        return Err(Error::Shape {
            op,
            detail: format!(
                "sorter must be 1-D with the sorted array's length {}, got shape {:?}",
                a.size(),
                sorter.shape()
            ),
        });
    }
    if !sorter.dtype().is_integer() {
        return Err(Error::DType {
            op,
            detail: format!("sorter must have an integer dtype, got {}", sorter.dtype()),
        });
    }
    if sorter.size() > 0 && crate::less(sorter, 0)?.any()?.item::<bool>()? {
        return Err(Error::invalid(op, "sorter index out of range (negative)"));
    }
    crate::take(a, sorter, None).map_err(|e| match e {
        Error::IndexOutOfBounds { .. } => {
            Error::invalid(op, format!("sorter index out of range: {e}"))
        }
        e => e,
    })
}

/// The index of the bin of `bins` each element of `x` falls in
/// (`np.digitize(x, bins, right)`), as int64 of `x`'s shape.
///
/// `bins` is 1-D and increasing or decreasing. For increasing bins, `i`
/// with `bins[i-1] <= x < bins[i]` (`right == false`) or `bins[i-1] < x <=
/// bins[i]`; below the first bin gives 0, past the last `len(bins)`.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![0.5, 1.0, 2.5, 9.0])?;
/// let bins = cp::asarray(vec![1.0, 2.0, 3.0])?;
/// assert_eq!(cp::digitize(&x, &bins, false)?.to_vec::<i64>()?, vec![0, 1, 2, 3]);
/// assert_eq!(cp::digitize(&x, &bins, true)?.to_vec::<i64>()?, vec![0, 0, 2, 3]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn digitize(x: &Array, bins: &Array, right: bool) -> Result<Array> {
    let op = "digitize";
    same_device(op, x, bins)?;
    if x.dtype().is_complex() || bins.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!(
                "x and bins may not be complex, got {} and {}",
                x.dtype(),
                bins.dtype()
            ),
        });
    }
    if bins.ndim() != 1 {
        return Err(Error::shape(
            op,
            format!("bins must be 1-D, got shape {:?}", bins.shape()),
        ));
    }
    let side = if right { Side::Left } else { Side::Right };
    let n = bins.size();
    // One read-back decides the direction: a step down anywhere means the
    // bins decrease; then a step up anywhere means they are not monotonic.
    let decreasing = n > 1 && {
        let (lo, hi) = (bins.slice(crate::s![..-1])?, bins.slice(crate::s![1..])?);
        if crate::greater(&lo, &hi)?.any()?.item::<bool>()? {
            if crate::less(&lo, &hi)?.any()?.item::<bool>()? {
                return Err(Error::invalid(
                    op,
                    "bins must be monotonically increasing or decreasing",
                ));
            }
            true
        } else {
            false
        }
    };
    if decreasing {
        let reversed = bins.slice(crate::s![..;-1])?;
        crate::subtract(n as i64, &searchsorted(&reversed, x, side, None)?)
    } else {
        searchsorted(bins, x, side, None)
    }
}

// ---------------------------------------------------------------------------
// unique
// ---------------------------------------------------------------------------

/// What [`unique_with`] returns besides the distinct values
/// (`np.unique`'s `return_index`, `return_inverse`, `return_counts`,
/// `equal_nan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniqueOptions {
    /// Return the position (in the flattened input) of each value's first
    /// occurrence; default false.
    pub index: bool,
    /// Return, for every input element, the number of its value among the
    /// distinct ones, in the input's shape; default false.
    pub inverse: bool,
    /// Return how often each value occurs; default false.
    pub counts: bool,
    /// Count every NaN as one value (complex: a NaN in either part);
    /// default true, as NumPy 2.
    pub equal_nan: bool,
}

impl Default for UniqueOptions {
    fn default() -> Self {
        UniqueOptions {
            index: false,
            inverse: false,
            counts: false,
            equal_nan: true,
        }
    }
}

impl UniqueOptions {
    /// NumPy's defaults: only the values, NaNs collapsed.
    pub fn new() -> UniqueOptions {
        UniqueOptions::default()
    }
}

option_setters!(UniqueOptions {
    /// Sets `index`.
    index: bool,
    /// Sets `inverse`.
    inverse: bool,
    /// Sets `counts`.
    counts: bool,
    /// Sets `equal_nan`.
    equal_nan: bool,
});

/// The result of [`unique_with`]: the sorted distinct values and, where
/// asked for, int64 arrays.
#[derive(Debug, Clone)]
pub struct Unique {
    /// The sorted distinct values (1-D, the input's dtype).
    pub values: Array,
    /// Where each value first occurs in the flattened input.
    pub index: Option<Array>,
    /// The number of each input element's value (the input's shape):
    /// `values.take(inverse)` rebuilds the input.
    pub inverse: Option<Array>,
    /// How often each value occurs.
    pub counts: Option<Array>,
}

/// The sorted distinct values of `a`, flattened (`np.unique(a)`); NaNs
/// count as one value.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![3, 1, 3, 2, 1])?;
/// assert_eq!(cp::unique(&a)?.to_vec::<i32>()?, vec![1, 2, 3]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn unique(a: &Array) -> Result<Array> {
    Ok(unique_with(a, UniqueOptions::new())?.values)
}

/// [`unique`] with NumPy's options: first positions, the inverse, counts
/// and `equal_nan` (`np.unique(a, return_index, return_inverse,
/// return_counts, equal_nan=...)`, `axis=None`).
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![vec![3, 1], vec![3, 2]])?;
/// let u = cp::unique_with(&a, cp::UniqueOptions::new().index(true).inverse(true).counts(true))?;
/// assert_eq!(u.values.to_vec::<i32>()?, vec![1, 2, 3]);
/// assert_eq!(u.index.unwrap().to_vec::<i64>()?, vec![1, 3, 0]);
/// let inverse = u.inverse.unwrap();
/// assert_eq!(inverse.shape(), &[2, 2]);
/// assert_eq!(inverse.to_vec::<i64>()?, vec![2, 0, 2, 1]);
/// assert_eq!(u.counts.unwrap().to_vec::<i64>()?, vec![1, 1, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn unique_with(a: &Array, options: UniqueOptions) -> Result<Unique> {
    let op = "unique";
    let b = crate::backend::on(op, a.device())?;
    let flat = a.reshape([-1])?;
    let want = UniqueWant {
        index: options.index,
        inverse: options.inverse,
        counts: options.counts,
        equal_nan: options.equal_nan,
    };
    let parts = b.unique(op, flat.view(), want)?;
    let k = parts.count;
    let int64 = |s, shape: &[usize]| Array::from_parts(s, Layout::contiguous(shape), DType::Int64);
    Ok(Unique {
        values: Array::from_parts(parts.values, Layout::contiguous(&[k]), a.dtype()),
        index: parts.index.map(|s| int64(s, &[k])),
        inverse: parts.inverse.map(|s| int64(s, a.shape())),
        counts: parts.counts.map(|s| int64(s, &[k])),
    })
}

// ---------------------------------------------------------------------------
// argwhere, partition
// ---------------------------------------------------------------------------

/// The indices of the non-zero elements of `a`, one row per element
/// (`np.argwhere(a)`): int64 of shape `(count, a.ndim())`.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![vec![0, 2], vec![3, 0]])?;
/// assert_eq!(cp::argwhere(&a)?.to_vec::<i64>()?, vec![0, 1, 1, 0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn argwhere(a: &Array) -> Result<Array> {
    if a.ndim() == 0 {
        // NumPy: one row of no columns when the scalar is non-zero.
        let count = crate::nonzero(&a.reshape([1])?)?[0].size();
        return with_device(a.device(), || crate::zeros([count, 0], DType::Int64));
    }
    let indices = crate::nonzero(a)?;
    let columns: Vec<&Array> = indices.iter().collect();
    crate::stack(&columns, 1)
}

/// Which positions [`partition`] must put in their sorted place (NumPy's
/// `kth`): one index or several; negative ones count from the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kth(Vec<isize>);

macro_rules! kth_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Kth {
            fn from(k: $t) -> Kth {
                Kth(vec![k as isize])
            }
        }
        impl<const N: usize> From<[$t; N]> for Kth {
            fn from(k: [$t; N]) -> Kth {
                Kth(k.iter().map(|&x| x as isize).collect())
            }
        }
        impl From<Vec<$t>> for Kth {
            fn from(k: Vec<$t>) -> Kth {
                Kth(k.iter().map(|&x| x as isize).collect())
            }
        }
        impl From<&[$t]> for Kth {
            fn from(k: &[$t]) -> Kth {
                Kth(k.iter().map(|&x| x as isize).collect())
            }
        }
    )*};
}
kth_from_int!(isize, i32, i64, usize);

/// Validates `kth` against the extent of `axis` of `a` and returns the
/// normalized axis.
fn check_kth(op: &'static str, a: &Array, kth: &Kth, axis: isize) -> Result<usize> {
    let ax = normalize_axis(op, axis, a.ndim())?;
    let n = a.shape()[ax] as isize;
    if let Some(&k) = kth.0.iter().find(|&&k| k < -n || k >= n) {
        return Err(Error::invalid(
            op,
            format!("kth {k} is out of bounds for axis {ax} of extent {n}"),
        ));
    }
    Ok(ax)
}

/// A copy of `a` in which the elements at the `kth` positions along `axis`
/// are where a sort puts them, smaller (or equal) ones before and larger
/// ones after (`np.partition(a, kth, axis)`).
///
/// Cuprite sorts the whole axis (on the GPU a full radix sort: there is no
/// selection kernel yet), which meets that contract.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![7, 1, 5, 3])?;
/// let p = cp::partition(&a, 2, -1)?.to_vec::<i32>()?;
/// assert_eq!(p[2], 5);
/// assert!(p[..2].iter().all(|&x| x <= 5) && p[3] >= 5);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn partition(a: &Array, kth: impl Into<Kth>, axis: isize) -> Result<Array> {
    let ax = check_kth("partition", a, &kth.into(), axis)?;
    crate::api::sorting::sort(a, ax as isize)
}

/// The int64 indices that [`partition`] `a` along `axis`
/// (`np.argpartition(a, kth, axis)`); a full stable argsort, as
/// [`partition`] says.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![7, 1, 5, 3])?;
/// let i = cp::argpartition(&a, 1, 0)?.to_vec::<i64>()?;
/// assert_eq!(i[1], 3);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn argpartition(a: &Array, kth: impl Into<Kth>, axis: isize) -> Result<Array> {
    let ax = check_kth("argpartition", a, &kth.into(), axis)?;
    crate::argsort(a, ax as isize)
}

// ---------------------------------------------------------------------------
// Set operations
// ---------------------------------------------------------------------------

/// Whether each element of `element` occurs in `test_elements` (`np.isin(
/// element, test_elements, invert=invert)`), as bool of `element`'s shape.
///
/// Elements compare in their promoted dtype with `==`, so NaN is never
/// found. `invert` gives the opposite. One sort of the test elements and a
/// binary search per element, on every device.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![1, 4, 2, 7])?;
/// let t = cp::asarray(vec![2, 1, 9])?;
/// assert_eq!(cp::isin(&x, &t, false)?.to_vec::<bool>()?, vec![true, false, true, false]);
/// assert_eq!(cp::isin(&x, &t, true)?.to_vec::<bool>()?, vec![false, true, false, true]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn isin(element: &Array, test_elements: &Array, invert: bool) -> Result<Array> {
    let op = "isin";
    same_device(op, element, test_elements)?;
    let n = test_elements.size();
    if n == 0 {
        return with_device(element.device(), || {
            crate::full(element.shape().to_vec(), invert, DType::Bool)
        });
    }
    let sorted = crate::api::sorting::sort(&test_elements.reshape([-1])?, 0)?;
    let at = searchsorted(&sorted, element, Side::Left, None)?;
    let at = crate::minimum(&at, n as i64 - 1)?;
    let candidate = crate::take(&sorted, &at, None)?;
    if invert {
        crate::not_equal(&candidate, element)
    } else {
        crate::equal(&candidate, element)
    }
}

/// [`isin`] of the flattened `ar1` (`np.in1d(ar1, ar2, invert=invert)`): 1-D bool.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![vec![0, 1], vec![2, 3]])?;
/// let b = cp::asarray(vec![3, 0])?;
/// assert_eq!(cp::in1d(&a, &b, false)?.to_vec::<bool>()?, vec![true, false, false, true]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn in1d(ar1: &Array, ar2: &Array, invert: bool) -> Result<Array> {
    isin(&ar1.reshape([-1])?, ar2, invert)
}

/// The sorted distinct values found in both `ar1` and `ar2`, flattened
/// (`np.intersect1d(ar1, ar2)`), in their promoted dtype. NaN is in no
/// intersection.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![1, 3, 4, 3])?;
/// let b = cp::asarray(vec![3, 1, 2, 1])?;
/// assert_eq!(cp::intersect1d(&a, &b)?.to_vec::<i32>()?, vec![1, 3]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn intersect1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    same_device("intersect1d", ar1, ar2)?;
    let dtype = result_type(&[ar1.dtype().into(), ar2.dtype().into()])?;
    let u1 = unique(&cast(ar1, dtype)?)?;
    u1.mask(isin(&u1, ar2, false)?)
}

/// The sorted distinct values of `ar1` and `ar2` together, flattened
/// (`np.union1d(ar1, ar2)`), in their promoted dtype.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![-1, 0, 1])?;
/// let b = cp::asarray(vec![-2, 0, 2])?;
/// assert_eq!(cp::union1d(&a, &b)?.to_vec::<i32>()?, vec![-2, -1, 0, 1, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn union1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    same_device("union1d", ar1, ar2)?;
    unique(&crate::concatenate(
        &[&ar1.reshape([-1])?, &ar2.reshape([-1])?],
        0,
    )?)
}

/// The sorted distinct values of `ar1` that are not in `ar2`, flattened
/// (`np.setdiff1d(ar1, ar2)`), in `ar1`'s dtype.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![1, 2, 3, 2, 4, 1])?;
/// let b = cp::asarray(vec![3, 4, 5, 6])?;
/// assert_eq!(cp::setdiff1d(&a, &b)?.to_vec::<i32>()?, vec![1, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn setdiff1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    same_device("setdiff1d", ar1, ar2)?;
    let u1 = unique(ar1)?;
    u1.mask(isin(&u1, ar2, true)?)
}

// ---------------------------------------------------------------------------
// lexsort, topk
// ---------------------------------------------------------------------------

/// The int64 indices that sort by several keys along the last axis, the
/// last key primary (`np.lexsort(keys)`); stable, each key in NumPy's sort
/// order (NaNs last).
///
/// The keys share one shape (at least 1-D) and may differ in dtype. One
/// stable argsort per key, least significant first.
///
/// ```
/// use cuprite as cp;
/// let first = cp::asarray(vec![1, 2, 1, 2])?;
/// let primary = cp::asarray(vec![0, 0, 1, 1])?;
/// assert_eq!(cp::lexsort(&[&first, &primary])?.to_vec::<i64>()?, vec![0, 1, 2, 3]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn lexsort(keys: &[&Array]) -> Result<Array> {
    let op = "lexsort";
    let Some((first, rest)) = keys.split_first() else {
        return Err(Error::invalid(op, "need at least one key"));
    };
    if first.ndim() == 0 {
        return Err(Error::shape(op, "keys must be at least 1-D"));
    }
    for k in rest {
        same_device(op, first, k)?;
        let (want, got) = (fmt_shape(first.shape()), fmt_shape(k.shape()));
        if want != got {
            let detail = format!("all keys need the same shape, got {want} and {got}");
            return Err(Error::shape(op, detail));
        }
    }
    let mut order = crate::argsort(first, -1)?;
    for k in rest {
        let by_key = crate::argsort(&take_along_last(k, &order)?, -1)?;
        order = take_along_last(&order, &by_key)?;
    }
    Ok(order)
}

/// The `k` smallest (`largest == false`) or largest elements along `axis`,
/// in order, and their int64 indices: `(values, indices)`, each of `a`'s
/// shape with `k` along `axis`.
///
/// Equal elements come in index order. NaN counts as the largest value (as
/// in NumPy's sort), so it comes first when `largest`. Built on a full
/// stable argsort along the axis.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![4.0, 9.0, 1.0, 9.0, 7.0])?;
/// let (v, i) = cp::topk(&a, 3, -1, true)?;
/// assert_eq!(v.to_vec::<f64>()?, vec![9.0, 9.0, 7.0]);
/// assert_eq!(i.to_vec::<i64>()?, vec![1, 3, 4]);
/// let (v, _) = cp::topk(&a, 2, 0, false)?;
/// assert_eq!(v.to_vec::<f64>()?, vec![1.0, 4.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn topk(a: &Array, k: usize, axis: isize, largest: bool) -> Result<(Array, Array)> {
    let op = "topk";
    let ax = normalize_axis(op, axis, a.ndim())?;
    let n = a.shape()[ax];
    if k > n {
        return Err(Error::invalid(
            op,
            format!("k = {k} is larger than axis {ax}'s extent {n}"),
        ));
    }
    let moved = a.moveaxis(ax as isize, -1)?;
    let k = k as isize;
    let idx = if largest {
        // A stable argsort of the reversed lanes, read backwards: largest
        // first, and equal elements in index order.
        let reversed = last_axis(&moved, None, None, -1)?;
        let order = crate::argsort(&reversed, -1)?;
        let top = last_axis(&order, None, None, -1)?;
        crate::subtract(n as i64 - 1, &last_axis(&top, None, Some(k), 1)?)?
    } else {
        last_axis(&crate::argsort(&moved, -1)?, None, Some(k), 1)?.ascontiguousarray()?
    };
    let values = take_along_last(&moved, &idx)?;
    let back = |x: Array| x.moveaxis(-1, ax as isize)?.ascontiguousarray();
    Ok((back(values)?, back(idx)?))
}
