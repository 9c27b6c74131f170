//! NumPy's methods of binary ufuncs: `np.add.reduce`, `np.add.accumulate`,
//! `np.multiply.outer`, `np.add.at`.
//!
//! Each binary ufunc is a value here, so the methods read as in NumPy:
//! `cp::ufuncs::add.reduce(&a, Some(0))`, `cp::ufuncs::maximum.accumulate(&a, 0)`,
//! `cp::ufuncs::multiply.outer(&a, &b)`, `cp::ufuncs::add.at(&mut a, &idx, 1.0)`.
//! Values rather than `add_reduce`-style functions because the values come
//! from the ufunc table itself (`ops/ufunc.rs`): a new binary row has all
//! four methods with no other edit, where functions would be 4 × 32 names.
//!
//! Dtypes follow NumPy: `add` and `multiply` reduce and accumulate bools and
//! small integers as int64 (uint64 for unsigned), like `sum`; every other
//! ufunc works in its loop dtype for the input, which must also be its
//! result dtype (`np.equal.reduce` of integers is an error, of bools not).
//!
//! How they run, on either device: `add`, `multiply`, `maximum`, `minimum`,
//! `fmax`, `fmin`, `logical_and` and `logical_or` reduce through the
//! reductions; `add` and `multiply` accumulate through the scans, and the
//! other associative ufuncs (maxima, minima, logical and bitwise ones) in
//! `log2(n)` whole-array steps. The remaining ufuncs (`subtract`, `divide`,
//! `power`, ...) are not associative and fold strictly left to right as
//! NumPy does: one elementwise launch per step along the axis, so prefer
//! short axes for them. `at` folds each target's values in index order on
//! the device (a run per distinct target after a stable sort).

use crate::api::creation::IntoArray;
use crate::api::operand::{common_device, IntoOperand};
use crate::api::shape::index::{check_index_dtype, same_device, slice_axis};
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::normalize_axis;
use crate::ops::index::IndexMode;
use crate::ops::reduce::sum_dtype;
use crate::ops::ufunc::{for_each_binary, Binary};

/// A binary ufunc, for its methods (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BinaryUfunc(Binary, MethodNames);

/// `add.reduce`-style names of the methods, for messages (which take
/// `&'static str`), spelled out by the macro below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct MethodNames {
    reduce: &'static str,
    accumulate: &'static str,
    at: &'static str,
}

macro_rules! ufunc_values {
    ($([$($module:ident)?] $name:ident $name_out:ident $Var:ident $doc:literal;)*) => {$(
        #[doc = $doc]
        #[allow(non_upper_case_globals)]
        pub const $name: BinaryUfunc = BinaryUfunc(
            Binary::$Var,
            MethodNames {
                reduce: concat!(stringify!($name), ".reduce"),
                accumulate: concat!(stringify!($name), ".accumulate"),
                at: concat!(stringify!($name), ".at"),
            },
        );
    )*};
}

for_each_binary!(ufunc_values);

impl BinaryUfunc {
    /// NumPy's name of the ufunc.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// `op(a[i, ...], b[j, ...])` for every pair: the result has shape
    /// `a.shape + b.shape` (`np.multiply.outer(a, b)`).
    ///
    /// ```
    /// use cuprite as cp;
    /// let (a, b) = (cp::arange_step(1, 4, 1)?, cp::arange_step(1, 3, 1)?);
    /// let t = cp::ufuncs::multiply.outer(&a, &b)?;
    /// assert_eq!(t.shape(), &[3, 2]);
    /// assert_eq!(t.to_vec::<i64>()?, vec![1, 2, 2, 4, 3, 6]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn outer(self, a: &Array, b: &Array) -> Result<Array> {
        let mut shape = a.shape().to_vec();
        shape.extend(std::iter::repeat_n(1, b.ndim()));
        let column = a.reshape(shape.as_slice())?;
        crate::api::elementwise::binary(self.0, (&column).into_operand(), b.into_operand())
    }

    /// Applies the ufunc along `axis` until one value is left, removing the
    /// axis (`np.add.reduce(a, axis)`; `None` reduces the flattened array).
    /// An empty axis gives the ufunc's identity, and is an error for ufuncs
    /// without one (`subtract`, `maximum`, ...).
    ///
    /// ```
    /// use cuprite as cp;
    /// let a = cp::asarray(vec![10.0, 2.0, 3.0])?;
    /// assert_eq!(cp::ufuncs::subtract.reduce(&a, Some(0))?.item::<f64>()?, 5.0);
    /// assert_eq!(cp::ufuncs::add.reduce(&a, None)?.item::<f64>()?, 15.0);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn reduce(self, a: &Array, axis: Option<isize>) -> Result<Array> {
        let op = self.1.reduce;
        let (x, ax) = match axis {
            None => (a.reshape([-1])?, 0),
            Some(ax) => (a.clone(), normalize_axis(op, ax, a.ndim())?),
        };
        let dt = self.fold_dtype(op, x.dtype())?;
        let axis = ax as isize;
        match self.0 {
            Binary::Add => return x.sum_axis(axis),
            Binary::Multiply => return x.prod_axis(axis),
            Binary::LogicalAnd => return x.all_axis(axis),
            Binary::LogicalOr => return x.any_axis(axis),
            _ => {}
        }
        let n = x.shape()[ax];
        if n == 0 {
            let mut shape = x.shape().to_vec();
            shape.remove(ax);
            let Some(identity) = self.identity(dt) else {
                let detail = format!(
                    "zero-size array (shape {}) to a reduction by {}, which has no identity",
                    fmt_shape(x.shape()),
                    self.name()
                );
                return Err(Error::invalid(op, detail));
            };
            return with_device(x.device(), || crate::full(shape.as_slice(), identity, dt));
        }
        let x = x.astype(dt)?;
        match self.0 {
            Binary::Maximum => x.max_axis(axis),
            Binary::Minimum => x.min_axis(axis),
            Binary::Fmax if dt.is_float() => crate::nanmax(&x, axis, false),
            Binary::Fmin if dt.is_float() => crate::nanmin(&x, axis, false),
            _ => {
                let running = self.accumulate(&x, axis)?;
                let last = slice_axis(&running, ax, Some(n as isize - 1), None, 1)?;
                last.squeeze_axes(&[axis])
            }
        }
    }

    /// The running result along `axis`: `out[0] = a[0]`, `out[i] =
    /// op(out[i-1], a[i])` (`np.add.accumulate(a, axis)`), of `a`'s shape.
    ///
    /// ```
    /// use cuprite as cp;
    /// let a = cp::asarray(vec![3i64, 1, 4, 1, 5])?;
    /// let m = cp::ufuncs::maximum.accumulate(&a, 0)?;
    /// assert_eq!(m.to_vec::<i64>()?, vec![3, 3, 4, 4, 5]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn accumulate(self, a: &Array, axis: isize) -> Result<Array> {
        let op = self.1.accumulate;
        if a.ndim() == 0 {
            return Err(Error::shape(op, "cannot accumulate a 0-d array"));
        }
        let ax = normalize_axis(op, axis, a.ndim())?;
        let dt = self.fold_dtype(op, a.dtype())?;
        match self.0 {
            Binary::Add => return a.astype(dt)?.cumsum(Some(ax as isize)),
            Binary::Multiply => return a.astype(dt)?.cumprod(Some(ax as isize)),
            _ => {}
        }
        let n = a.shape()[ax] as isize;
        // A fresh C-contiguous copy that later steps may overwrite.
        let mut out = a.astype(dt)?.copy()?;
        if self.associative() {
            // Hillis–Steele: after the step of `k`, out[i] folds a[i-2k+1..=i].
            let mut k = 1;
            while k < n {
                let head = slice_axis(&out, ax, Some(0), Some(n - k), 1)?;
                let tail = slice_axis(&out, ax, Some(k), None, 1)?;
                let folded = crate::api::elementwise::binary(
                    self.0,
                    head.into_operand(),
                    tail.into_operand(),
                )?;
                let kept = slice_axis(&out, ax, Some(0), Some(k), 1)?;
                out = crate::concatenate(&[&kept, &folded], ax as isize)?;
                k *= 2;
            }
            return Ok(out);
        }
        for i in 1..n {
            let prev = slice_axis(&out, ax, Some(i - 1), Some(i), 1)?;
            let mut cur = slice_axis(&out, ax, Some(i), Some(i + 1), 1)?;
            let now = cur.clone();
            crate::api::elementwise::binary_out(
                self.0,
                prev.into_operand(),
                now.into_operand(),
                &mut cur,
            )?;
        }
        Ok(out)
    }

    /// Unbuffered in-place operation (`np.add.at(a, indices, b)`):
    /// `a[indices[k]] = op(a[indices[k]], b[k])` for every `k` in order, so
    /// a repeated index applies every one of its values (where
    /// `a[idx] += b` applies only one). `indices` index the first axis
    /// (negative ones count from the end; out of range is an error and
    /// nothing is written); `b` (a scalar or an array) broadcasts to
    /// `indices.shape + a.shape[1..]` and is cast to `a`'s dtype, which
    /// must be the ufunc's loop and result dtype.
    ///
    /// ```
    /// use cuprite as cp;
    /// let mut a = cp::zeros([4], cp::f64)?;
    /// cp::ufuncs::add.at(&mut a, vec![0i64, 0, 1], &cp::asarray(vec![1.0, 2.0, 3.0])?)?;
    /// assert_eq!(a.to_vec::<f64>()?, vec![3.0, 3.0, 0.0, 0.0]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn at<'b>(
        self,
        a: &mut Array,
        indices: impl IntoArray,
        b: impl IntoOperand<'b>,
    ) -> Result<()> {
        let op = self.1.at;
        if a.ndim() == 0 {
            return Err(Error::shape(op, "cannot index a 0-d array"));
        }
        let dt = a.dtype();
        match self.0.types(dt) {
            Ok((l, o)) if l == dt && o == dt => {}
            _ => {
                let detail = format!(
                    "{} has no loop that reads and writes {dt}, the dtype of the array",
                    self.name()
                );
                return Err(Error::DType { op, detail });
            }
        }
        let idx = indices.into_array_on(a.device())?;
        same_device(op, a, &idx)?;
        check_index_dtype(op, &idx)?;
        let backend = crate::backend::on(op, a.device())?;
        let rows = a.shape()[0];
        let row: usize = a.shape()[1..].iter().product();
        // The indices into the first axis, checked, become flat positions:
        // idx * row + (0..row), one row of positions per index.
        backend.check_indices(
            op,
            crate::ops::index::Indices {
                idx: idx.view(),
                axis: 0,
                n: rows,
                mode: IndexMode::Raise,
            },
        )?;
        let first = idx.astype(DType::Int64)?;
        let wrapped = crate::add(&first, rows as i64)?;
        let first = crate::where_(&crate::less(&first, 0i64)?, &wrapped, &first)?;
        let mut shape = idx.shape().to_vec();
        shape.extend_from_slice(&a.shape()[1..]);
        let mut idx_column = idx.shape().to_vec();
        idx_column.extend(std::iter::repeat_n(1, a.ndim() - 1));
        let within = with_device(a.device(), || crate::arange(row as i64))?
            .reshape(a.shape()[1..].to_vec())?;
        let starts = crate::multiply(&first.reshape(idx_column.as_slice())?, row as i64)?;
        let flat = crate::add(&starts, &within)?;
        let b = b.into_operand();
        let a_operand = (&*a).into_operand();
        let device = common_device(op, &[&a_operand, &b])?;
        let values = b.to_array(op, dt, device)?;
        let values = values
            .broadcast_to(&shape)
            .map_err(|_| {
                let detail = format!(
                    "values of shape {} do not broadcast to {} (indices.shape + a.shape[1..])",
                    fmt_shape(values.shape()),
                    fmt_shape(&shape)
                );
                Error::shape(op, detail)
            })?
            .astype(dt)?
            .copy()?;
        if values.size() == 0 {
            return Ok(());
        }
        let put = crate::ops::index::Put {
            a: a.view(),
            idx: flat.view(),
            vals: values.view(),
            mode: IndexMode::Raise,
            combine: Some(self.0),
        };
        backend.put(op, put)
    }

    /// The dtype reduce and accumulate work in (see the module doc).
    fn fold_dtype(self, op: &'static str, dt: DType) -> Result<DType> {
        let dt = match self.0 {
            Binary::Add | Binary::Multiply => sum_dtype(dt),
            _ => dt,
        };
        match self.0.types(dt) {
            Ok((l, o)) if l == o => Ok(l),
            Ok((l, o)) => {
                let detail = format!(
                    "{} of {l} gives {o}; reduce and accumulate need a result of the operands' dtype",
                    self.name()
                );
                Err(Error::DType { op, detail })
            }
            Err(_) => {
                let detail = format!("{} has no loop for {dt}", self.name());
                Err(Error::DType { op, detail })
            }
        }
    }

    /// Whether `op(op(x, y), z) == op(x, op(y, z))` exactly, so accumulate
    /// may combine in any grouping.
    fn associative(self) -> bool {
        use Binary::*;
        matches!(
            self.0,
            Maximum
                | Minimum
                | Fmax
                | Fmin
                | LogicalAnd
                | LogicalOr
                | LogicalXor
                | BitwiseAnd
                | BitwiseOr
                | BitwiseXor
        )
    }

    /// The value an empty reduction gives, where the ufunc has one.
    fn identity(self, dt: DType) -> Option<crate::Scalar> {
        use crate::Scalar;
        match self.0 {
            Binary::LogicalXor | Binary::BitwiseOr | Binary::BitwiseXor => Some(if dt.is_bool() {
                Scalar::Bool(false)
            } else {
                Scalar::Int(0)
            }),
            Binary::BitwiseAnd => Some(match dt {
                DType::Bool => Scalar::Bool(true),
                d if d.is_unsigned_integer() => Scalar::UInt(u64::MAX),
                _ => Scalar::Int(-1),
            }),
            _ => None,
        }
    }
}
