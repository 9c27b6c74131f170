//! Reductions (`sum`, `prod`, `mean`, `var`, `std`, `min`, `max`, `all`,
//! `any`, `argmin`, `argmax`) and scans (`cumsum`, `cumprod`), with NumPy's
//! semantics and result dtypes.
//!
//! Result dtypes (NumPy 2 on Linux): `sum`, `prod` and the scans give int64
//! for bool and signed integers, uint64 for unsigned integers, and keep float
//! and complex dtypes (float16 and bfloat16 accumulate in float32). `mean`
//! gives float64 for bool and integers; `var` and `std` give float64 for
//! integers and the real dtype for complex input. Float sums use pairwise
//! summation, as NumPy does, so long float32 sums stay accurate; reductions
//! over leading axes (`x.sum_axis(0)`) sum blocks of rows pairwise too,
//! where NumPy adds row by row.
//!
//! Differences from NumPy: float16 and bfloat16 scans keep a float32
//! running value and round each output (NumPy rounds every partial sum to
//! float16), and `ddof` is an unsigned integer.
//!
//! The reductions over axes are the rows of the reduction table
//! (`ops/reduce.rs`); their functions and `_out` forms are generated here
//! from the rows. They validate the axes, resolve the result dtype,
//! allocate the result and call the array's backend
//! (`cpu/reduce.rs`, `cuda/kernel_gen/reduce.rs`, `cuda/scan.rs`, `cuda/argreduce.rs`).

pub(crate) mod binning;
pub(crate) mod stats;

use crate::backend::Backend;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::layout::{normalize_axes, normalize_axis};
use crate::ops::reduce::sum_dtype;

// ---------------------------------------------------------------------------
// Axes
// ---------------------------------------------------------------------------

/// Which axes a reduction runs over: all of them, one, or several.
///
/// Anything that converts into `Axes` can be passed: `1`, `-1`, `[0, 1]`,
/// `vec![0, 2]`, `&[0, 1][..]`, `None` (all) or `Axes::All`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Axes {
    /// Every axis (NumPy's `axis=None`).
    #[default]
    All,
    /// One axis; negative values count from the end.
    One(isize),
    /// Several distinct axes; negative values count from the end. An empty
    /// list reduces nothing (NumPy's `axis=()`).
    Many(Vec<isize>),
}

impl Axes {
    /// The reduced axes, normalized to `0..ndim` and in increasing order.
    /// Out-of-range axes give [`Error::Axis`], repeated ones
    /// [`Error::InvalidArgument`].
    pub fn resolve(&self, op: &'static str, ndim: usize) -> Result<Vec<usize>> {
        let mut axes = match self {
            Axes::All => (0..ndim).collect(),
            Axes::One(a) => vec![normalize_axis(op, *a, ndim)?],
            Axes::Many(v) => normalize_axes(op, v, ndim)?,
        };
        axes.sort_unstable();
        Ok(axes)
    }
}

macro_rules! axes_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Axes {
            fn from(a: $t) -> Axes {
                Axes::One(a as isize)
            }
        }
        impl<const N: usize> From<[$t; N]> for Axes {
            fn from(a: [$t; N]) -> Axes {
                Axes::Many(a.iter().map(|&x| x as isize).collect())
            }
        }
        impl From<Vec<$t>> for Axes {
            fn from(a: Vec<$t>) -> Axes {
                Axes::Many(a.iter().map(|&x| x as isize).collect())
            }
        }
        impl From<&[$t]> for Axes {
            fn from(a: &[$t]) -> Axes {
                Axes::Many(a.iter().map(|&x| x as isize).collect())
            }
        }
        impl From<&Vec<$t>> for Axes {
            fn from(a: &Vec<$t>) -> Axes {
                Axes::Many(a.iter().map(|&x| x as isize).collect())
            }
        }
    )*};
}
axes_from_int!(isize, i32, usize);

impl From<Option<isize>> for Axes {
    fn from(a: Option<isize>) -> Axes {
        a.map_or(Axes::All, Axes::One)
    }
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

use crate::ops::reduce::{Body, ReduceOp as Op};

/// A reduction resolved against its input: the backend, the sorted axes
/// and the result's shape.
struct Planned {
    backend: &'static dyn Backend,
    axes: Vec<usize>,
    shape: Vec<usize>,
}

/// Validates the axes of reducing `x` by `op` (and that each output has
/// elements where `op` needs them) and finds the result's shape.
fn plan(x: &Array, op: Op, axes: Axes, keepdims: bool) -> Result<Planned> {
    let name = op.name();
    let backend = crate::backend::on(name, x.device())?;
    if let Some(why) = op.refuses(x.dtype()) {
        return Err(Error::DType {
            op: name,
            detail: format!("{name} of {why}"),
        });
    }
    let axes = axes.resolve(name, x.ndim())?;
    let mut shape = Vec::with_capacity(x.ndim());
    let mut n_in = 1usize;
    for (a, &d) in x.shape().iter().enumerate() {
        if axes.binary_search(&a).is_ok() {
            n_in *= d;
            if keepdims {
                shape.push(1);
            }
        } else {
            shape.push(d);
        }
    }
    if op.needs_elements() && n_in == 0 {
        return Err(Error::EmptyReduction {
            op: name,
            shape: x.shape().to_vec(),
        });
    }
    Ok(Planned {
        backend,
        axes,
        shape,
    })
}

/// Validates the axes, allocates the result and runs `op` over the axes on
/// the array's backend.
///
/// Every row of the reduction table (`ops/reduce.rs`) runs here: its
/// nan-free form for dtypes without NaN, then both halves on the array's
/// backend, or, for a `difference:` row, its two rows and one subtract.
pub(crate) fn reduce(x: &Array, op: Op, axes: Axes, keepdims: bool) -> Result<Array> {
    let op = op.plain_for(x.dtype());
    let p = plan(x, op, axes.clone(), keepdims)?;
    let result = op.result(x.dtype());
    if let Body::Difference(a, b) = op.body() {
        let hi = reduce(x, a, axes.clone(), keepdims)?;
        let lo = reduce(x, b, axes, keepdims)?;
        let d = crate::api::elementwise::subtract(&hi, &lo)?;
        return if d.dtype() == result {
            Ok(d)
        } else {
            d.astype(result)
        };
    }
    let out = new_result(p.backend, op.name(), result, &p.shape)?;
    p.backend.reduce(op, x.view(), &p.axes, out.view())?;
    Ok(out)
}

/// [`reduce`] into `out`, which must have the result's shape and be on
/// `x`'s device; the result is cast to `out`'s dtype under the `same_kind`
/// rule. A C-contiguous `out` of the result dtype that does not overlap `x`
/// is written in place; any other goes through a temporary and one copy.
pub(crate) fn reduce_out(
    x: &Array,
    op: Op,
    axes: Axes,
    keepdims: bool,
    out: &mut Array,
) -> Result<()> {
    let op = op.plain_for(x.dtype());
    let name = op.name();
    let p = plan(x, op, axes.clone(), keepdims)?;
    if out.shape() != p.shape {
        return Err(Error::Shape {
            op: name,
            detail: format!(
                "out has shape {} but the reduction of shape {} gives {}; out must have the result's shape",
                crate::core::error::fmt_shape(out.shape()),
                crate::core::error::fmt_shape(x.shape()),
                crate::core::error::fmt_shape(&p.shape)
            ),
        });
    }
    let dtype = op.result(x.dtype());
    crate::api::elementwise::check_out(name, &p.shape, dtype, x.device(), out)?;
    if let Body::Difference(..) = op.body() {
        let r = reduce(x, op, axes, keepdims)?;
        return p.backend.copy_cast(name, r.view(), out.view());
    }
    if out.dtype() == dtype && out.is_c_contiguous() && !out.shares_memory(x) {
        return p.backend.reduce(op, x.view(), &p.axes, out.view());
    }
    let tmp = new_result(p.backend, name, dtype, &p.shape)?;
    p.backend.reduce(op, x.view(), &p.axes, tmp.view())?;
    p.backend.copy_cast(name, tmp.view(), out.view())
}

/// A new C-contiguous array of `dtype` and `shape` from backend `b`, for
/// the result of `op`.
fn new_result(b: &dyn Backend, op: &'static str, dtype: DType, shape: &[usize]) -> Result<Array> {
    let n = crate::core::layout::checked_size(op, shape)?;
    Ok(Array::from_parts(
        b.empty(op, dtype, n)?,
        Layout::contiguous(shape),
        dtype,
    ))
}

/// `argmin` (`max == false`) or `argmax` over one axis, or over the
/// flattened array when `axis` is `None`.
fn arg_reduce(x: &Array, max: bool, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    let name = if max { "argmax" } else { "argmin" };
    let b = crate::backend::on(name, x.device())?;
    let empty = || Error::EmptyReduction {
        op: name,
        shape: x.shape().to_vec(),
    };
    let (axis, out_shape) = match axis {
        None => {
            if x.size() == 0 {
                return Err(empty());
            }
            let shape = if keepdims { vec![1; x.ndim()] } else { vec![] };
            (None, shape)
        }
        Some(axis) => {
            let axis = normalize_axis(name, axis, x.ndim())?;
            if x.shape()[axis] == 0 {
                return Err(empty());
            }
            let mut shape = x.shape().to_vec();
            if keepdims {
                shape[axis] = 1;
            } else {
                shape.remove(axis);
            }
            (Some(axis), shape)
        }
    };
    let out = new_result(b, name, DType::Int64, &out_shape)?;
    b.arg_reduce(max, x.view(), axis, out.view())?;
    Ok(out)
}

/// `cumsum` (`prod == false`) or `cumprod`.
fn scan(x: &Array, prod: bool, axis: Option<isize>) -> Result<Array> {
    let name = if prod { "cumprod" } else { "cumsum" };
    let b = crate::backend::on(name, x.device())?;
    let axis = axis
        .map(|a| normalize_axis(name, a, x.ndim()))
        .transpose()?;
    let shape = match axis {
        Some(_) => x.shape().to_vec(),
        None => vec![x.size()],
    };
    let out = new_result(b, name, sum_dtype(x.dtype()), &shape)?;
    b.scan(prod, x.view(), axis, out.view())?;
    Ok(out)
}

/// The public function and `_out` form of every row of the reduction
/// table that lists them (`api: [name name_out]`), with the row's doc.
macro_rules! reduction_functions {
    () => {};
    ([$variant:ident] [] [$($doc:literal)*]; $($rest:tt)*) => {
        reduction_functions! { $($rest)* }
    };
    ([$variant:ident] [$f:ident $f_out:ident] [$($doc:literal)*]; $($rest:tt)*) => {
        $(#[doc = $doc])*
        pub fn $f(x: &Array, axes: impl Into<Axes>, keepdims: bool) -> Result<Array> {
            reduce(x, Op::$variant, axes.into(), keepdims)
        }

        #[doc = concat!("[`", stringify!($f), "`] written into `out` (`np.", stringify!($f), "(x, axis, out=out, keepdims=keepdims)`).")]
        #[doc = ""]
        #[doc = "`out` must have the result's shape and `x`'s device; the result, computed in its usual dtype, is cast to `out`'s under the `same_kind` rule (NumPy would compute in `out`'s dtype)."]
        #[doc = ""]
        #[doc = "```"]
        #[doc = "use cuprite as cp;"]
        #[doc = "let x = cp::asarray(vec![vec![1.0, 2.0], vec![3.0, 4.0]])?;"]
        #[doc = "let mut out = cp::zeros([2usize], cp::DType::Float64)?;"]
        #[doc = concat!("cp::", stringify!($f_out), "(&x, 0, false, &mut out)?;")]
        #[doc = concat!("assert!(cp::array_equal(&out, &cp::", stringify!($f), "(&x, 0, false)?)?);")]
        #[doc = "# Ok::<(), cp::Error>(())"]
        #[doc = "```"]
        pub fn $f_out(x: &Array, axes: impl Into<Axes>, keepdims: bool, out: &mut Array) -> Result<()> {
            reduce_out(x, Op::$variant, axes.into(), keepdims, out)
        }

        reduction_functions! { $($rest)* }
    };
}

crate::ops::reduce::for_each_reduction!(reduction_functions);

/// The `Array` methods of the basic reductions: all elements, one axis, or
/// several axes with `keepdims`.
macro_rules! reduction_methods {
    ($($op:ident, $axis:ident, $axes:ident, $variant:expr, $what:literal;)*) => {
        impl Array {$(
            #[doc = concat!("The ", $what, " of all elements, as a 0-d array (`x.", stringify!($op), "()` in NumPy).")]
            pub fn $op(&self) -> Result<Array> {
                reduce(self, $variant, Axes::All, false)
            }
            #[doc = concat!("The ", $what, " along one axis (negative counts from the end), which is removed.")]
            pub fn $axis(&self, axis: isize) -> Result<Array> {
                reduce(self, $variant, Axes::One(axis), false)
            }
            #[doc = concat!("The ", $what, " over `axes` (`1`, `[0, 1]`, `Axes::All`); `keepdims` keeps them with extent 1.")]
            pub fn $axes(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Array> {
                reduce(self, $variant, axes.into(), keepdims)
            }
        )*}
    };
}

reduction_methods! {
    sum, sum_axis, sum_axes, Op::Sum, "sum";
    prod, prod_axis, prod_axes, Op::Prod, "product";
    mean, mean_axis, mean_axes, Op::Mean, "arithmetic mean";
    min, min_axis, min_axes, Op::Min, "minimum (NaN propagates; zero elements is an error)";
    max, max_axis, max_axes, Op::Max, "maximum (NaN propagates; zero elements is an error)";
    all, all_axis, all_axes, Op::All, "logical AND (true when empty)";
    any, any_axis, any_axes, Op::Any, "logical OR (false when empty)";
}

impl Array {
    /// The variance of all elements, dividing by `n - ddof` (0-d result).
    pub fn var(&self, ddof: usize) -> Result<Array> {
        reduce(self, Op::Var(ddof), Axes::All, false)
    }
    /// The variance along one axis, dividing by `n - ddof`.
    pub fn var_axis(&self, axis: isize, ddof: usize) -> Result<Array> {
        reduce(self, Op::Var(ddof), Axes::One(axis), false)
    }
    /// The variance over `axes`, dividing by `n - ddof`; `keepdims` keeps them with extent 1.
    pub fn var_axes(&self, axes: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
        reduce(self, Op::Var(ddof), axes.into(), keepdims)
    }
    /// The standard deviation of all elements, dividing by `n - ddof` (0-d result).
    pub fn std(&self, ddof: usize) -> Result<Array> {
        reduce(self, Op::Std(ddof), Axes::All, false)
    }
    /// The standard deviation along one axis, dividing by `n - ddof`.
    pub fn std_axis(&self, axis: isize, ddof: usize) -> Result<Array> {
        reduce(self, Op::Std(ddof), Axes::One(axis), false)
    }
    /// The standard deviation over `axes`, dividing by `n - ddof`; `keepdims` keeps them.
    pub fn std_axes(&self, axes: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
        reduce(self, Op::Std(ddof), axes.into(), keepdims)
    }

    /// Index of the first minimum in the flattened array (C order), as a
    /// 0-d int64 array; a NaN counts as the minimum.
    pub fn argmin(&self) -> Result<Array> {
        arg_reduce(self, false, None, false)
    }
    /// Index of the first maximum in the flattened array (C order), as a
    /// 0-d int64 array; a NaN counts as the maximum.
    pub fn argmax(&self) -> Result<Array> {
        arg_reduce(self, true, None, false)
    }
    /// Indices (int64) of the first minimum along `axis`.
    pub fn argmin_axis(&self, axis: isize, keepdims: bool) -> Result<Array> {
        arg_reduce(self, false, Some(axis), keepdims)
    }
    /// Indices (int64) of the first maximum along `axis`.
    pub fn argmax_axis(&self, axis: isize, keepdims: bool) -> Result<Array> {
        arg_reduce(self, true, Some(axis), keepdims)
    }

    /// Running sums along `axis`, or over the flattened array (1-D result) when `None`.
    pub fn cumsum(&self, axis: Option<isize>) -> Result<Array> {
        scan(self, false, axis)
    }
    /// Running products along `axis`, or over the flattened array (1-D result) when `None`.
    pub fn cumprod(&self, axis: Option<isize>) -> Result<Array> {
        scan(self, true, axis)
    }
}

/// The variance of `x` over `axes`, as `np.var(x, axis, ddof=ddof, keepdims=keepdims)`.
pub fn var(x: &Array, axes: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
    reduce(x, Op::Var(ddof), axes.into(), keepdims)
}

/// The standard deviation of `x` over `axes`, as `np.std(x, axis, ddof=ddof, keepdims=keepdims)`.
pub fn std(x: &Array, axes: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
    reduce(x, Op::Std(ddof), axes.into(), keepdims)
}

/// Indices of the first minima along `axis` (`None`: into the flattened array), as `np.argmin`.
pub fn argmin(x: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    arg_reduce(x, false, axis, keepdims)
}

/// Indices of the first maxima along `axis` (`None`: into the flattened array), as `np.argmax`.
pub fn argmax(x: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    arg_reduce(x, true, axis, keepdims)
}

/// Running sums along `axis` (`None`: over the flattened array), as `np.cumsum`.
pub fn cumsum(x: &Array, axis: Option<isize>) -> Result<Array> {
    scan(x, false, axis)
}

/// Running products along `axis` (`None`: over the flattened array), as `np.cumprod`.
pub fn cumprod(x: &Array, axis: Option<isize>) -> Result<Array> {
    scan(x, true, axis)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::layout::Layout;

    /// A view of `x`'s buffer with the given shape, strides (in elements,
    /// possibly negative) and offset, as NumPy slicing with steps makes.
    pub(crate) fn view(x: &Array, shape: &[usize], strides: &[isize], offset: usize) -> Array {
        x.with_layout(Layout::from_parts(shape.to_vec(), strides.to_vec(), offset))
    }

    fn f64s(a: &Array) -> Vec<f64> {
        a.to_vec::<f64>().unwrap()
    }

    // NumPy 2.4: a = np.arange(24.).reshape(2, 3, 4); r = a[:, ::-1, ::-2]
    // (shape (2, 3, 2), strides (12, -4, -2) elements, first element a[0, 2, 3]).
    pub(crate) fn reversed() -> Array {
        let a = crate::arange(24)
            .unwrap()
            .astype(crate::DType::Float64)
            .unwrap();
        view(&a, &[2, 3, 2], &[12, -4, -2], 11)
    }

    #[test]
    fn negative_strides_reduce_like_numpy() {
        let r = reversed();
        // r.ravel() -> [11, 9, 7, 5, 3, 1, 23, 21, 19, 17, 15, 13]
        assert_eq!(
            f64s(&r.copy().unwrap()),
            [11.0, 9.0, 7.0, 5.0, 3.0, 1.0, 23.0, 21.0, 19.0, 17.0, 15.0, 13.0]
        );
        // r.sum() -> 144; r.sum(axis=(1, 2)) -> [36, 108]; r.sum(axis=0).ravel() -> [34, 30, 26, 22, 18, 14]
        assert_eq!(f64s(&r.sum().unwrap()), [144.0]);
        assert_eq!(f64s(&r.sum_axes([1, 2], false).unwrap()), [36.0, 108.0]);
        assert_eq!(
            f64s(&r.sum_axis(0).unwrap()),
            [34.0, 30.0, 26.0, 22.0, 18.0, 14.0]
        );
        // r.min(axis=-1).ravel() -> [9, 5, 1, 21, 17, 13]
        assert_eq!(
            f64s(&r.min_axis(-1).unwrap()),
            [9.0, 5.0, 1.0, 21.0, 17.0, 13.0]
        );
        // r.argmax(axis=1).ravel() -> [0, 0, 0, 0]; r.argmin() -> 5; r.argmax() -> 6
        assert_eq!(
            r.argmax_axis(1, false).unwrap().to_vec::<i64>().unwrap(),
            [0, 0, 0, 0]
        );
        assert_eq!(r.argmin().unwrap().to_vec::<i64>().unwrap(), [5]);
        assert_eq!(r.argmax().unwrap().to_vec::<i64>().unwrap(), [6]);
        // r.mean() -> 12.0; r.var(axis=-1).ravel() -> [1.0] * 6; r.std(ddof=1) -> 7.211102550927978
        assert_eq!(f64s(&r.mean().unwrap()), [12.0]);
        assert_eq!(f64s(&r.var_axis(-1, 0).unwrap()), [1.0; 6]);
        let sd = f64s(&r.std(1).unwrap())[0];
        assert!((sd - 7.211102550927978).abs() < 1e-14, "{sd}");
    }

    #[test]
    fn negative_strides_scan_like_numpy() {
        let r = reversed();
        // r.cumsum(axis=1).ravel()
        assert_eq!(
            f64s(&r.cumsum(Some(1)).unwrap()),
            [11.0, 9.0, 18.0, 14.0, 21.0, 15.0, 23.0, 21.0, 42.0, 38.0, 57.0, 51.0]
        );
        // r.cumsum()
        assert_eq!(
            f64s(&r.cumsum(None).unwrap()),
            [11.0, 20.0, 27.0, 32.0, 35.0, 36.0, 59.0, 80.0, 99.0, 116.0, 131.0, 144.0]
        );
        // r.cumsum(axis=0).ravel()
        assert_eq!(
            f64s(&r.cumsum(Some(0)).unwrap()),
            [11.0, 9.0, 7.0, 5.0, 3.0, 1.0, 34.0, 30.0, 26.0, 22.0, 18.0, 14.0]
        );
    }

    #[test]
    fn negative_strides_of_every_loop_shape() {
        // NumPy 2.4: b = np.arange(10, dtype=np.int8)[::-1]
        let a = crate::arange(10)
            .unwrap()
            .astype(crate::DType::Int8)
            .unwrap();
        let b = view(&a, &[10], &[-1], 9);
        // b.sum() -> 45; b.cumsum() -> [9, 17, 24, 30, 35, 39, 42, 44, 45, 45]; b.argmax() -> 0; b.argmin() -> 9
        assert_eq!(b.sum().unwrap().to_vec::<i64>().unwrap(), [45]);
        assert_eq!(
            b.cumsum(None).unwrap().to_vec::<i64>().unwrap(),
            [9, 17, 24, 30, 35, 39, 42, 44, 45, 45]
        );
        assert_eq!(b.argmax().unwrap().to_vec::<i64>().unwrap(), [0]);
        assert_eq!(b.argmin().unwrap().to_vec::<i64>().unwrap(), [9]);

        // Row-wise loop over a reversed leading axis:
        // c = np.arange(48., dtype=np.float32).reshape(3, 16)[::-1]
        // c.sum(axis=0) -> 48 + 3 * np.arange(16); c.max(axis=0) -> 32 + np.arange(16)
        let a = crate::arange(48)
            .unwrap()
            .astype(crate::DType::Float32)
            .unwrap();
        let c = view(&a, &[3, 16], &[-16, 1], 32);
        let sums: Vec<f32> = (0..16).map(|j| 48.0 + 3.0 * j as f32).collect();
        let maxs: Vec<f32> = (0..16).map(|j| 32.0 + j as f32).collect();
        assert_eq!(c.sum_axis(0).unwrap().to_vec::<f32>().unwrap(), sums);
        assert_eq!(c.max_axis(0).unwrap().to_vec::<f32>().unwrap(), maxs);
        // c.var(axis=0) -> [170.66667] * 16 (rows 32+j, 16+j, j)
        for v in c.var_axis(0, 0).unwrap().to_vec::<f32>().unwrap() {
            assert!((v - 170.66667).abs() < 1e-4, "{v}");
        }

        // Gaps and a reversed axis: g = np.arange(40.).reshape(4, 10)[::-1, ::2]
        // g.sum(axis=0) -> [60, 68, 76, 84, 92]; g.var(axis=0) -> [125] * 5; g.sum(axis=1) -> [170, 120, 70, 20]
        let a = crate::arange(40)
            .unwrap()
            .astype(crate::DType::Float64)
            .unwrap();
        let g = view(&a, &[4, 5], &[-10, 2], 30);
        assert_eq!(
            f64s(&g.sum_axis(0).unwrap()),
            [60.0, 68.0, 76.0, 84.0, 92.0]
        );
        assert_eq!(f64s(&g.var_axis(0, 0).unwrap()), [125.0; 5]);
        assert_eq!(f64s(&g.sum_axis(1).unwrap()), [170.0, 120.0, 70.0, 20.0]);
    }
}
