//! Reductions over axes (sum, prod, mean, var, min/max, any/all), cumulative scans and arg-reductions.
//!
//! The reductions the front end offers ([`ReduceOp`]) with their result
//! dtypes (NumPy's), which both backends follow, and the backend traits of
//! the reduction families (see `ops::backend`).

use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::view::View;

/// A reduction over axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ReduceOp {
    Sum,
    Prod,
    Mean,
    /// The variance, dividing by `n - ddof`.
    Var(usize),
    /// The standard deviation, dividing by `n - ddof`.
    Std(usize),
    Min,
    Max,
    All,
    Any,
    /// `sum` with NaNs counted as zero.
    NanSum,
    /// `prod` with NaNs counted as one.
    NanProd,
    /// `min` ignoring NaNs (NaN only where every element is NaN).
    NanMin,
    /// `max` ignoring NaNs (NaN only where every element is NaN).
    NanMax,
}

impl ReduceOp {
    /// The op's name, for messages and host-fallback counts.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Mean => "mean",
            ReduceOp::Var(_) => "var",
            ReduceOp::Std(_) => "std",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::All => "all",
            ReduceOp::Any => "any",
            ReduceOp::NanSum => "nansum",
            ReduceOp::NanProd => "nanprod",
            ReduceOp::NanMin => "nanmin",
            ReduceOp::NanMax => "nanmax",
        }
    }

    /// Whether reducing zero elements is an error (no identity).
    pub(crate) fn needs_elements(self) -> bool {
        matches!(
            self,
            ReduceOp::Min | ReduceOp::Max | ReduceOp::NanMin | ReduceOp::NanMax
        )
    }

    /// The op without NaN handling, for dtypes that hold no NaN (bool and
    /// integers), where NumPy's nan-forms equal the plain ones.
    pub(crate) fn plain_for(self, dt: DType) -> ReduceOp {
        if dt.is_inexact() {
            return self;
        }
        match self {
            ReduceOp::NanSum => ReduceOp::Sum,
            ReduceOp::NanProd => ReduceOp::Prod,
            ReduceOp::NanMin => ReduceOp::Min,
            ReduceOp::NanMax => ReduceOp::Max,
            op => op,
        }
    }

    /// The result dtype of the op over elements of `dt` (NumPy 2 on Linux).
    pub(crate) fn result(self, dt: DType) -> DType {
        match self {
            ReduceOp::Sum | ReduceOp::Prod | ReduceOp::NanSum | ReduceOp::NanProd => sum_dtype(dt),
            ReduceOp::Mean if dt.is_inexact() => dt,
            ReduceOp::Mean => DType::Float64,
            ReduceOp::Var(_) | ReduceOp::Std(_) => match dt {
                DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => dt,
                DType::Complex64 => DType::Float32,
                DType::Complex128 => DType::Float64,
                _ => DType::Float64,
            },
            ReduceOp::Min | ReduceOp::Max | ReduceOp::NanMin | ReduceOp::NanMax => dt,
            ReduceOp::All | ReduceOp::Any => DType::Bool,
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
