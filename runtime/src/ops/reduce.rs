//! Reductions: the table of reductions over axes (every built-in
//! reduction as one row), and the backend traits of the reduction families
//! (reductions, cumulative scans, arg-reductions; see `ops::backend`).
//!
//! The table.
//!
//! A row gives the reduction's name, its public function and `_out` form
//! (with their doc), which input dtypes it refuses, its result dtype rule,
//! whether zero elements is an error (no identity), the row that replaces
//! it for dtypes without NaN, and then how it is computed: either both
//! halves, the CPU body (`cpu:`, one of [`CpuBody`], whose loops live in
//! `cpu/reduce.rs`) and the CUDA half (`cuda:`, a [`CudaHalf`] per input
//! dtype: the map, identity, combine and post of one generated kernel, the
//! two-pass variance kernels, or a host round trip declared with its
//! reason), or the `difference:` of two other rows (`ptp = max - min`). A
//! row with a CPU body and no CUDA half does not match the table's grammar,
//! so it does not compile.
//!
//! What follows from a row: `cp::name(x, axes, keepdims)` and
//! `cp::name_out(x, axes, keepdims, &mut out)` (`api/reductions`, through
//! [`for_each_reduction`]), the axes, `keepdims` and `out` handling shared
//! by every row, the CPU loop, the GPU kernel (`cuda/kernel_gen/reduce.rs`) and
//! the table tests below.

use super::c_types::{cast_expr, ctype, scalar_literal};
use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::Result;
use crate::core::view::View;

/// The CPU body of a row: which loop of `cpu/reduce.rs` computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CpuBody {
    /// Sum (`prod == false`) or product, in `sum_dtype`'s accumulator.
    Sum { prod: bool },
    /// The arithmetic mean.
    Mean,
    /// The variance (or its square root), dividing by `n - ddof`.
    Var { sqrt: bool },
    /// Maximum (`max`) or minimum; NaN propagates.
    Extreme { max: bool },
    /// Logical or (`any`) or and.
    Truth { any: bool },
    /// Sum or product with NaN as the identity.
    NanSum { prod: bool },
    /// Maximum or minimum ignoring NaN.
    NanExtreme { max: bool },
}

/// One generated reduction kernel: `out = post(fold(combine, identity,
/// map(x)))`, each part a C expression.
#[derive(Debug, Clone)]
pub(crate) struct CudaReduce {
    /// Name for messages (`sum`, `max`).
    pub name: &'static str,
    /// The dtype each element is converted to before `map` sees it as `in0`.
    pub compute: DType,
    /// C expression over `in0` giving the accumulator value.
    pub map: String,
    /// The accumulator dtype.
    pub acc: DType,
    /// C expression of the identity accumulator.
    pub identity: String,
    /// C expression combining accumulators `a` and `b`.
    pub combine: String,
    /// C expression over `acc` and `count` (elements reduced) giving the result.
    pub post: String,
    /// The result dtype of `post`.
    pub result: DType,
    /// Helper definitions.
    pub support: String,
}

/// The CUDA half of a row for one input dtype.
#[derive(Debug, Clone)]
pub(crate) enum CudaHalf {
    /// One generated kernel.
    Kernel(CudaReduce),
    /// `var` / `std`: the two-pass kernels of `cuda/variance.rs`.
    TwoPass { sqrt: bool },
    /// No kernel for this dtype: the counted host round trip, with the
    /// reason (written in the row, so never silent; the table tests read it).
    Host(#[cfg_attr(not(test), allow(dead_code))] &'static str),
}

/// How a row is computed.
#[derive(Clone, Copy)]
pub(crate) enum Body {
    /// Both halves of one reduction.
    Pass {
        cpu: CpuBody,
        cuda: fn(ReduceOp, DType) -> CudaHalf,
    },
    /// The elementwise difference of two rows (`a - b`), each with both
    /// halves, in the result dtype (integers wrap, as NumPy's subtract).
    Difference(ReduceOp, ReduceOp),
}

/// A row's body, from its `cpu:` and `cuda:` (or `difference:`) fields.
macro_rules! reduction_body {
    (cpu: $cpu:expr, cuda: $cuda:expr $(,)?) => {
        Body::Pass {
            cpu: $cpu,
            cuda: $cuda,
        }
    };
    (difference: $a:ident - $b:ident $(,)?) => {
        Body::Difference(ReduceOp::$a, ReduceOp::$b)
    };
}

macro_rules! reduction_table {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $(($arg:ty))? = $name:literal {
            api: [$($api:ident)*],
            refuse: $refuse:expr,
            result: $result:expr,
            needs_elements: $needs:expr,
            nan_free: $plain:expr,
            $($body:tt)*
        }
    )*) => {
        /// A reduction over axes: one variant per row of the table.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum ReduceOp {
            $($variant $(($arg))?,)*
        }

        impl ReduceOp {
            /// Every row (with `ddof` 0 where a row takes one), for the table tests.
            #[cfg(test)]
            pub(crate) const ALL: &'static [ReduceOp] = &[$(reduction_table!(@zero $variant $(($arg))?)),*];

            /// The op's name, for messages and host-fallback counts.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(ReduceOp::$variant { .. } => $name,)*
                }
            }

            /// Why the op refuses input of `dt`, if it does.
            pub(crate) fn refuses(self, dt: DType) -> Option<&'static str> {
                let rule: fn(DType) -> Option<&'static str> = match self {
                    $(ReduceOp::$variant { .. } => $refuse,)*
                };
                rule(dt)
            }

            /// The result dtype of the op over elements of `dt` (NumPy 2 on Linux).
            pub(crate) fn result(self, dt: DType) -> DType {
                let rule: fn(DType) -> DType = match self {
                    $(ReduceOp::$variant { .. } => $result,)*
                };
                rule(dt)
            }

            /// Whether reducing zero elements is an error (no identity).
            pub(crate) fn needs_elements(self) -> bool {
                match self {
                    $(ReduceOp::$variant { .. } => $needs,)*
                }
            }

            /// The op without NaN handling, for dtypes that hold no NaN
            /// (bool and integers), where NumPy's nan-forms equal the plain ones.
            pub(crate) fn plain_for(self, dt: DType) -> ReduceOp {
                if dt.is_inexact() {
                    return self;
                }
                let plain: Option<ReduceOp> = match self {
                    $(ReduceOp::$variant { .. } => $plain,)*
                };
                plain.unwrap_or(self)
            }

            /// How the op is computed: both halves, or from other rows.
            pub(crate) fn body(self) -> Body {
                match self {
                    $(ReduceOp::$variant { .. } => reduction_body!($($body)*),)*
                }
            }
        }

        /// Calls `$m! { [Variant] [function function_out] [doc lines]; ... }`
        /// with every row (rows written by hand list no functions).
        macro_rules! for_each_reduction {
            ($m:ident) => {
                $m! { $([$variant] [$($api)*] [$($doc)*];)* }
            };
        }
        pub(crate) use for_each_reduction;
    };
    (@zero $variant:ident ($arg:ty)) => { ReduceOp::$variant(0) };
    (@zero $variant:ident) => { ReduceOp::$variant };
}

reduction_table! {
    /// The sum of `x` over `axes`, as `np.sum(x, axis, keepdims=keepdims)`.
    Sum = "sum" {
        api: [sum sum_out],
        refuse: |_| None,
        result: sum_dtype,
        needs_elements: false,
        nan_free: None,
        cpu: CpuBody::Sum { prod: false },
        cuda: |_, dt| simple("sum", dt, sum_dtype(dt), Scalar::Int(0), "a + b"),
    }
    /// The product of `x` over `axes`, as `np.prod(x, axis, keepdims=keepdims)`.
    Prod = "prod" {
        api: [prod prod_out],
        refuse: |_| None,
        result: sum_dtype,
        needs_elements: false,
        nan_free: None,
        cpu: CpuBody::Sum { prod: true },
        cuda: |_, dt| simple("prod", dt, sum_dtype(dt), Scalar::Int(1), "a * b"),
    }
    /// The arithmetic mean of `x` over `axes`, as `np.mean(x, axis, keepdims=keepdims)`.
    Mean = "mean" {
        api: [mean mean_out],
        refuse: |_| None,
        result: |dt| if dt.is_inexact() { dt } else { DType::Float64 },
        needs_elements: false,
        nan_free: None,
        cpu: CpuBody::Mean,
        cuda: |op, dt| mean_kernel(op.result(dt)),
    }
    /// The variance, dividing by `n - ddof` (`var`, written by hand for its `ddof`).
    Var(usize) = "var" {
        api: [],
        refuse: |_| None,
        result: var_dtype,
        needs_elements: false,
        nan_free: None,
        cpu: CpuBody::Var { sqrt: false },
        cuda: |_, _| CudaHalf::TwoPass { sqrt: false },
    }
    /// The standard deviation, dividing by `n - ddof` (`std`, by hand).
    Std(usize) = "std" {
        api: [],
        refuse: |_| None,
        result: var_dtype,
        needs_elements: false,
        nan_free: None,
        cpu: CpuBody::Var { sqrt: true },
        cuda: |_, _| CudaHalf::TwoPass { sqrt: true },
    }
    /// The minimum of `x` over `axes` (NaN propagates; zero elements is an error), as `np.min(x, axis, keepdims=keepdims)`.
    Min = "min" {
        api: [min min_out],
        refuse: |_| None,
        result: |dt| dt,
        needs_elements: true,
        nan_free: None,
        cpu: CpuBody::Extreme { max: false },
        cuda: |_, dt| extreme_kernel(dt, false, false),
    }
    /// The maximum of `x` over `axes` (NaN propagates; zero elements is an error), as `np.max(x, axis, keepdims=keepdims)`.
    Max = "max" {
        api: [max max_out],
        refuse: |_| None,
        result: |dt| dt,
        needs_elements: true,
        nan_free: None,
        cpu: CpuBody::Extreme { max: true },
        cuda: |_, dt| extreme_kernel(dt, true, false),
    }
    /// The logical AND of `x` over `axes` (true when empty), as `np.all(x, axis, keepdims=keepdims)`.
    All = "all" {
        api: [all all_out],
        refuse: |_| None,
        result: |_| DType::Bool,
        needs_elements: false,
        nan_free: None,
        cpu: CpuBody::Truth { any: false },
        cuda: |_, _| truth_kernel(false),
    }
    /// The logical OR of `x` over `axes` (false when empty), as `np.any(x, axis, keepdims=keepdims)`.
    Any = "any" {
        api: [any any_out],
        refuse: |_| None,
        result: |_| DType::Bool,
        needs_elements: false,
        nan_free: None,
        cpu: CpuBody::Truth { any: true },
        cuda: |_, _| truth_kernel(true),
    }
    /// The sum of `x` over `axes` with NaNs counted as zero (`np.nansum`).
    ///
    /// One pass on the GPU; the result dtype is `sum`'s. An all-NaN slice sums
    /// to 0.
    ///
    /// ```
    /// use cuprite as cp;
    /// let x = cp::asarray(vec![1.0f32, f32::NAN, 2.5])?;
    /// assert_eq!(cp::nansum(&x, None, false)?.to_vec::<f32>()?, vec![3.5]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    NanSum = "nansum" {
        api: [nansum nansum_out],
        refuse: |_| None,
        result: sum_dtype,
        needs_elements: false,
        nan_free: Some(ReduceOp::Sum),
        cpu: CpuBody::NanSum { prod: false },
        cuda: |_, dt| nan_sum_kernel(dt, false),
    }
    /// The product of `x` over `axes` with NaNs counted as one (`np.nanprod`).
    ///
    /// ```
    /// use cuprite as cp;
    /// let x = cp::asarray(vec![2.0, f64::NAN, 3.0])?;
    /// assert_eq!(cp::nanprod(&x, 0, false)?.to_vec::<f64>()?, vec![6.0]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    NanProd = "nanprod" {
        api: [nanprod nanprod_out],
        refuse: |_| None,
        result: sum_dtype,
        needs_elements: false,
        nan_free: Some(ReduceOp::Prod),
        cpu: CpuBody::NanSum { prod: true },
        cuda: |_, dt| nan_sum_kernel(dt, true),
    }
    /// The minimum of `x` over `axes` ignoring NaNs (`np.nanmin`); NaN where a
    /// slice is all NaN. Zero elements is an error.
    ///
    /// ```
    /// use cuprite as cp;
    /// let x = cp::asarray(vec![vec![f64::NAN, 4.0], vec![f64::NAN, f64::NAN]])?;
    /// let m = cp::nanmin(&x, 1, false)?.to_vec::<f64>()?;
    /// assert_eq!(m[0], 4.0);
    /// assert!(m[1].is_nan());
    /// # Ok::<(), cp::Error>(())
    /// ```
    NanMin = "nanmin" {
        api: [nanmin nanmin_out],
        refuse: |_| None,
        result: |dt| dt,
        needs_elements: true,
        nan_free: Some(ReduceOp::Min),
        cpu: CpuBody::NanExtreme { max: false },
        cuda: |_, dt| extreme_kernel(dt, false, true),
    }
    /// The maximum of `x` over `axes` ignoring NaNs (`np.nanmax`); NaN where a
    /// slice is all NaN. Zero elements is an error.
    ///
    /// ```
    /// use cuprite as cp;
    /// let x = cp::asarray(vec![1.0f32, f32::NAN, 7.0])?;
    /// assert_eq!(cp::nanmax(&x, None, false)?.to_vec::<f32>()?, vec![7.0]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    NanMax = "nanmax" {
        api: [nanmax nanmax_out],
        refuse: |_| None,
        result: |dt| dt,
        needs_elements: true,
        nan_free: Some(ReduceOp::Max),
        cpu: CpuBody::NanExtreme { max: true },
        cuda: |_, dt| extreme_kernel(dt, true, true),
    }
    /// The range `max - min` of `x` over `axes` (`np.ptp`), in `x`'s dtype
    /// (integers wrap, as in NumPy). Zero elements is an error.
    ///
    /// ```
    /// use cuprite as cp;
    /// let x = cp::asarray(vec![vec![4i64, 9, 2], vec![3, 3, 8]])?;
    /// assert_eq!(cp::ptp(&x, 1, false)?.to_vec::<i64>()?, vec![7, 5]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    Ptp = "ptp" {
        api: [ptp ptp_out],
        refuse: no_bool_subtract,
        result: |dt| dt,
        needs_elements: true,
        nan_free: None,
        difference: Max - Min,
    }
    /// The range `nanmax - nanmin` of `x` over `axes`: [`ptp`] ignoring NaNs,
    /// NaN where a slice is all NaN, in `x`'s dtype. Zero elements is an
    /// error. (NumPy has no `nanptp`; this is `np.nanmax(x, axis) -
    /// np.nanmin(x, axis)` in one call, as bottleneck-style libraries offer.)
    ///
    /// ```
    /// use cuprite as cp;
    /// let x = cp::asarray(vec![vec![4.0, f64::NAN, 1.0], vec![f64::NAN, f64::NAN, f64::NAN]])?;
    /// let r = cp::nanptp(&x, 1, false)?.to_vec::<f64>()?;
    /// assert_eq!(r[0], 3.0);
    /// assert!(r[1].is_nan());
    /// # Ok::<(), cp::Error>(())
    /// ```
    NanPtp = "nanptp" {
        api: [nanptp nanptp_out],
        refuse: no_bool_subtract,
        result: |dt| dt,
        needs_elements: true,
        nan_free: Some(ReduceOp::Ptp),
        difference: NanMax - NanMin,
    }
}

/// The error of a `difference:` row reaching a backend: the front end
/// computes those from their two rows, so this is a bug, reported rather
/// than panicking.
pub(crate) fn composite(op: ReduceOp) -> crate::core::error::Error {
    crate::core::error::Error::InvalidArgument {
        op: op.name(),
        detail: "a difference of two reductions reached a backend (a bug in cuprite)".into(),
    }
}

impl ReduceOp {
    /// The `ddof` of `var` and `std` (0 for every other row).
    pub(crate) fn ddof(self) -> usize {
        match self {
            ReduceOp::Var(d) | ReduceOp::Std(d) => d,
            _ => 0,
        }
    }
}

/// The result dtype of `sum`, `prod`, `cumsum` and `cumprod` of `dt`:
/// int64 for bool and signed integers, uint64 for unsigned ones, else `dt`.
pub(crate) fn sum_dtype(dt: DType) -> DType {
    match dt {
        DType::Bool | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => DType::Int64,
        DType::UInt8 | DType::UInt16 | DType::UInt32 | DType::UInt64 => DType::UInt64,
        d => d,
    }
}

/// The result dtype of `var` and `std`: the real dtype of inexact input,
/// float64 for integers and bool.
fn var_dtype(dt: DType) -> DType {
    match dt {
        DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => dt,
        DType::Complex64 => DType::Float32,
        DType::Complex128 => DType::Float64,
        _ => DType::Float64,
    }
}

/// `ptp` subtracts, and NumPy has no boolean subtract.
fn no_bool_subtract(dt: DType) -> Option<&'static str> {
    (dt == DType::Bool).then_some("a bool array is not supported (NumPy: boolean subtract)")
}

// ---------------------------------------------------------------------------
// The CUDA halves: one kernel per (row, input dtype), with the result dtypes
// of the CPU backend (NumPy's): sums of integers in 64 bits, means of
// integers in float64, half floats accumulated in float32
// (`DType::compute_dtype`).
// ---------------------------------------------------------------------------

/// A kernel of `map = in0`, an identity, a combine and a cast to `result`,
/// accumulating in `result`'s compute dtype.
fn simple(
    name: &'static str,
    dt: DType,
    result: DType,
    identity: Scalar,
    combine: &str,
) -> CudaHalf {
    let acc = widen(dt, result);
    CudaHalf::Kernel(CudaReduce {
        name,
        compute: acc,
        map: "in0".into(),
        acc,
        identity: scalar_literal(identity, acc),
        combine: combine.into(),
        post: cast_expr(acc, result, "acc"),
        result,
        support: String::new(),
    })
}

/// `d`, or float32 where the input `dt` is a half float.
fn widen(dt: DType, d: DType) -> DType {
    if dt.compute_dtype() != dt {
        d.compute_dtype()
    } else {
        d
    }
}

fn mean_kernel(result: DType) -> CudaHalf {
    let acc = result.compute_dtype();
    let post = if acc.is_complex() {
        let r = ctype(acc.real_dtype());
        format!("mk<{r}>(acc.re / ({r})count, acc.im / ({r})count)")
    } else {
        format!("(acc / ({})count)", ctype(acc))
    };
    CudaHalf::Kernel(CudaReduce {
        name: "mean",
        compute: acc,
        map: "in0".into(),
        acc,
        identity: scalar_literal(Scalar::Int(0), acc),
        combine: "a + b".into(),
        post: cast_expr(acc, result, &post),
        result,
        support: String::new(),
    })
}

/// `max` / `min` (NaN wins, as in NumPy) or, with `nan`, `nanmax` / `nanmin`
/// (NaN is the identity and loses to any number, so an all-NaN slice gives
/// NaN: NumPy's result, its RuntimeWarning dropped).
fn extreme_kernel(dt: DType, max: bool, nan: bool) -> CudaHalf {
    if dt.is_complex() {
        return CudaHalf::Host("no GPU kernel orders complex numbers yet");
    }
    if nan && !dt.is_inexact() {
        return extreme_kernel(dt, max, false);
    }
    let acc = dt.compute_dtype();
    let better = if max { "b > a" } else { "b < a" };
    let (identity, combine) = if nan {
        (
            scalar_literal(Scalar::Float(f64::NAN), acc),
            format!("((b != b) ? a : ((a != a) ? b : ({better} ? b : a)))"),
        )
    } else if acc.is_float() {
        (
            extreme_identity(acc, max),
            format!("((a != a) ? a : ((b != b) ? b : ({better} ? b : a)))"),
        )
    } else {
        (extreme_identity(acc, max), format!("({better} ? b : a)"))
    };
    let name = match (nan, max) {
        (false, true) => "max",
        (false, false) => "min",
        (true, true) => "nanmax",
        (true, false) => "nanmin",
    };
    CudaHalf::Kernel(CudaReduce {
        name,
        compute: acc,
        map: "in0".into(),
        acc,
        identity,
        combine,
        post: cast_expr(acc, dt, "acc"),
        result: dt,
        support: String::new(),
    })
}

/// `nansum` / `nanprod` in one pass: the map turns NaN into the identity.
fn nan_sum_kernel(dt: DType, prod: bool) -> CudaHalf {
    let (name, identity, combine) = if prod {
        ("nanprod", Scalar::Int(1), "a * b")
    } else {
        ("nansum", Scalar::Int(0), "a + b")
    };
    let plain = if prod { "prod" } else { "sum" };
    let half = simple(plain, dt, sum_dtype(dt), identity, combine);
    if !dt.is_inexact() {
        return half;
    }
    match half {
        CudaHalf::Kernel(k) => {
            let id = scalar_literal(identity, k.acc);
            CudaHalf::Kernel(CudaReduce {
                name,
                map: format!("((in0 != in0) ? {id} : in0)"),
                ..k
            })
        }
        other => other,
    }
}

fn truth_kernel(any: bool) -> CudaHalf {
    CudaHalf::Kernel(CudaReduce {
        name: if any { "any" } else { "all" },
        compute: DType::Bool,
        map: "in0".into(),
        acc: DType::Bool,
        identity: if any { "false".into() } else { "true".into() },
        combine: if any {
            "(a || b)".into()
        } else {
            "(a && b)".into()
        },
        post: "acc".into(),
        result: DType::Bool,
        support: String::new(),
    })
}

/// The identity of max (the lowest value) or min (the highest value).
fn extreme_identity(acc: DType, max: bool) -> String {
    use DType::*;
    match (acc, max) {
        (Float32, true) => "__int_as_float(0xff800000)".into(),
        (Float32, false) => "__int_as_float(0x7f800000)".into(),
        (Float64, true) => "__longlong_as_double(0xfff0000000000000LL)".into(),
        (Float64, false) => "__longlong_as_double(0x7ff0000000000000LL)".into(),
        (Bool, true) => "false".into(),
        (Bool, false) => "true".into(),
        (d, true) => scalar_literal(min_value(d), d),
        (d, false) => scalar_literal(max_value(d), d),
    }
}

fn min_value(d: DType) -> Scalar {
    match d {
        DType::Int8 => Scalar::Int(i8::MIN as i64),
        DType::Int16 => Scalar::Int(i16::MIN as i64),
        DType::Int32 => Scalar::Int(i32::MIN as i64),
        DType::Int64 => Scalar::Int(i64::MIN),
        _ => Scalar::UInt(0),
    }
}

fn max_value(d: DType) -> Scalar {
    match d {
        DType::Int8 => Scalar::Int(i8::MAX as i64),
        DType::Int16 => Scalar::Int(i16::MAX as i64),
        DType::Int32 => Scalar::Int(i32::MAX as i64),
        DType::Int64 => Scalar::Int(i64::MAX),
        DType::UInt8 => Scalar::UInt(u8::MAX as u64),
        DType::UInt16 => Scalar::UInt(u16::MAX as u64),
        DType::UInt32 => Scalar::UInt(u32::MAX as u64),
        _ => Scalar::UInt(u64::MAX),
    }
}

/// Reductions over axes.
pub(crate) trait Reduce {
    /// Reduces `x` over `axes` (normalized, increasing) with `op` into
    /// `out`: C-contiguous, one element per index of the kept axes in C
    /// order, of dtype `op.result(x.dtype)`. `min` and `max` are called
    /// with at least one element per output.
    fn reduce(&self, op: ReduceOp, x: View<'_>, axes: &[usize], out: View<'_>) -> Result<()>;
}

/// Cumulative sums and products along an axis.
pub(crate) trait Scan {
    /// Running sums (`prod == false`) or products of `x` along `axis` (or
    /// over its elements in C order when `None`) into `out`: C-contiguous,
    /// `x.size()` elements of `sum_dtype(x.dtype)`, not overlapping `x`.
    fn scan(&self, prod: bool, x: View<'_>, axis: Option<usize>, out: View<'_>) -> Result<()>;
}

/// Positions of the extreme values (argmin, argmax).
pub(crate) trait ArgReduce {
    /// The int64 index of the first maximum (`max`) or minimum of `x` along
    /// `axis` (or into its elements in C order when `None`; a NaN counts as
    /// the extreme) into `out`: C-contiguous, one per index of the other
    /// axes. The reduced extent is not zero.
    fn arg_reduce(&self, max: bool, x: View<'_>, axis: Option<usize>, out: View<'_>) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(op: ReduceOp, dt: DType) -> Option<CudaReduce> {
        match op.body() {
            Body::Pass { cuda, .. } => match cuda(op, dt) {
                CudaHalf::Kernel(k) => Some(k),
                _ => None,
            },
            Body::Difference(..) => None,
        }
    }

    #[test]
    fn result_dtypes_match_the_cpu_backend() {
        use ReduceOp::*;
        assert_eq!(kernel(Sum, DType::Int8).unwrap().result, DType::Int64);
        assert_eq!(kernel(Sum, DType::UInt16).unwrap().result, DType::UInt64);
        assert_eq!(kernel(Sum, DType::Float16).unwrap().acc, DType::Float32);
        assert_eq!(kernel(Sum, DType::Float16).unwrap().result, DType::Float16);
        assert_eq!(kernel(Mean, DType::Int32).unwrap().result, DType::Float64);
        assert_eq!(
            kernel(Max, DType::UInt8).unwrap().identity,
            "((uint8_t)(0ULL))"
        );
        assert_eq!(
            kernel(Min, DType::Int16).unwrap().identity,
            "((int16_t)(32767LL))"
        );
        assert!(kernel(Max, DType::Complex64).is_none());
        assert!(kernel(Var(0), DType::Float32).is_none());
    }

    #[test]
    fn every_kernel_gives_the_rows_result_dtype() {
        for &op in ReduceOp::ALL {
            for dt in DType::ALL {
                let op = op.plain_for(dt);
                if let Some(k) = kernel(op, dt) {
                    assert_eq!(k.result, op.result(dt), "{} of {dt}", op.name());
                }
            }
        }
    }

    #[test]
    fn a_difference_is_of_rows_with_both_halves_and_the_same_result() {
        for &op in ReduceOp::ALL {
            if let Body::Difference(a, b) = op.body() {
                for part in [a, b] {
                    assert!(matches!(part.body(), Body::Pass { .. }), "{}", op.name());
                    assert_eq!(part.needs_elements(), op.needs_elements());
                }
                for dt in DType::ALL {
                    assert_eq!(a.result(dt), op.result(dt), "{} of {dt}", op.name());
                }
            }
        }
    }

    #[test]
    fn every_host_half_says_why() {
        for &op in ReduceOp::ALL {
            if let Body::Pass { cuda, .. } = op.body() {
                for dt in DType::ALL {
                    if let CudaHalf::Host(why) = cuda(op, dt) {
                        assert!(!why.is_empty(), "{} of {dt}", op.name());
                    }
                }
            }
        }
    }

    #[test]
    fn names_are_distinct_and_nan_forms_fall_back_to_rows() {
        let mut names: Vec<&str> = ReduceOp::ALL.iter().map(|o| o.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ReduceOp::ALL.len());
        assert_eq!(ReduceOp::NanPtp.plain_for(DType::Int32), ReduceOp::Ptp);
        assert_eq!(ReduceOp::NanPtp.plain_for(DType::Float32), ReduceOp::NanPtp);
        assert!(ReduceOp::Ptp.refuses(DType::Bool).is_some());
    }
}
