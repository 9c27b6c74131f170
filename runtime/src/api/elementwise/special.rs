//! SciPy's special functions (`scipy.special`): the error function family
//! and the normal distribution, gamma, digamma, beta, the incomplete gamma
//! functions, zeta and polygamma, binomial coefficients, the logistic
//! function, entropy terms and losses, Bessel functions of order 0 and 1
//! and of any real order (`jv`, `yv`, `iv`, `ive`, `kv`, `kve`: order
//! first, as SciPy's `jv(v, x)`; within 2e-13 of SciPy over orders -20 to
//! 50 and arguments 0 to 200, relative to the envelope where J and Y
//! oscillate; written here, as no crate has real orders), and `logsumexp`, `softmax` and `log_softmax` along axes.
//!
//! They are rows of the ufunc table like NumPy's functions, so each
//! broadcasts, has an `_out` form, runs on the GPU in a generated kernel,
//! and is a method of `fuse`'s `Expr` (`x.erf()`; not `betainc`, which
//! takes three arguments). The names are SciPy's.
//!
//! Types: float64, float32, float16 and bfloat16 keep their dtype (the half
//! types compute in float32 on the GPU and round once); integers and bools
//! compute in float64, as SciPy's first loop is its float64 one; complex
//! input is an error. Values follow SciPy's at the edges: NaN where the
//! function is undefined (`erfinv(2)`, `gamma(-1)`, `k0(-1)`), infinities at
//! poles (`gamma(0)`, `k0(0)`), and SciPy's limits (`xlogy(0, 0) == 0`).
//!
//! On the CPU every function computes in f64 and rounds once to the result
//! dtype; accuracy against SciPy is within a few ulps of float64 (relative
//! 1e-13 in the tests, looser near the zeros of the functions, where only
//! an absolute error is meaningful; 1e-12 where `lgamma` of arguments past
//! 171 cancels, in `beta`, `binom` and the incomplete gamma functions).
//! `betainc` is Cephes' `incbet`, where SciPy 1.17 has Boost's `ibeta`:
//! they agree within 1e-10 for shapes between 1e-3 and 1e4, less well for
//! tiny shapes near `x = 1`. Deliberate differences from SciPy: Bessel
//! functions tend to 0 at infinity (SciPy: NaN), `j0`, `j1`, `y0`, `y1` of
//! huge arguments are reduced exactly (SciPy's lose the phase beyond about
//! 1e9), and `i0`, `i1` stay finite up to 713.98 (SciPy: inf from 709.8)
//! and are infinite at infinity (SciPy: NaN). On the GPU, float32 inputs use CUDA's
//! single-precision functions where CUDA has them (`erf`, `erfc`, `erfcx`,
//! `erfinv`, `erfcinv`, `ndtr`, `ndtri`, `gamma`, `gammaln`, `j0`, `j1`,
//! `y0`, `y1`, `i0`, `i1`) and double precision elsewhere.
//!
//! ```
//! use cuprite as cp;
//! let x = cp::asarray(vec![0.0, 0.5, 1.0])?;
//! let e = cp::special::erf(&x)?;
//! assert!((e.to_vec::<f64>()?[2] - 0.8427007929497149).abs() < 1e-15);
//! let g = cp::special::gammaln(cp::asarray(vec![10i32])?)?; // ints give float64
//! assert!((g.item::<f64>()? - 362880f64.ln()).abs() < 1e-12);
//! assert!(cp::special::erf(cp::asarray(vec![cp::num_complex::Complex64::new(1.0, 1.0)])?).is_err());
//! let j = cp::special::jv(cp::asarray(vec![0.5, -0.5])?, cp::asarray(vec![1.0, 1.0])?)?;
//! let s = (2.0 / std::f64::consts::PI).sqrt(); // J_(1/2)(x) = sqrt(2 / (pi x)) sin x
//! assert!((j.to_vec::<f64>()?[0] - s * 1f64.sin()).abs() < 1e-15);
//! assert!((j.to_vec::<f64>()?[1] - s * 1f64.cos()).abs() < 1e-15);
//! # Ok::<(), cp::Error>(())
//! ```

use super::{
    add, binary, binary_out, divide, exp, isfinite, log, subtract, ternary, ternary_out, unary,
    unary_out,
};
use crate::api::operand::IntoOperand;
use crate::api::reductions::Axes;
use crate::api::shape::index::where_;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::ops::ufunc::{
    for_each_binary, for_each_ternary, for_each_unary, Binary, Ternary, Unary, VALID_REAL,
};

macro_rules! special_unary {
    ($($rows:tt)*) => { rows_in!([special] unary_functions; $($rows)*); };
}
macro_rules! special_binary {
    ($($rows:tt)*) => { rows_in!([special] binary_functions; $($rows)*); };
}
macro_rules! special_ternary {
    ($($rows:tt)*) => { rows_in!([special] ternary_functions; $($rows)*); };
}
for_each_unary!(special_unary);
for_each_binary!(special_binary);
for_each_ternary!(special_ternary);

// Other names SciPy gives the same functions.
unary_functions! {
    psi psi_out Digamma "The same as [`digamma`] (`scipy.special.psi`).";
}

// ---------------------------------------------------------------------------
// Reductions in log space
// ---------------------------------------------------------------------------

/// The input as a float array: integers and bools as float64 (SciPy's
/// promotion for these functions); complex is refused.
fn float_input(op: &'static str, a: &Array) -> Result<Array> {
    let dt = a.dtype();
    if dt.is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("input dtype {dt} is not supported; valid dtypes: {VALID_REAL}"),
        });
    }
    if dt.is_float() {
        Ok(a.clone())
    } else {
        a.astype(DType::Float64)
    }
}

/// Whether the reduction over `axes` has no elements to reduce.
fn reduces_nothing(op: &'static str, a: &Array, axes: &Axes) -> Result<bool> {
    let axes = axes.resolve(op, a.ndim())?;
    Ok(axes.iter().any(|&ax| a.shape()[ax] == 0))
}

/// The maximum over `axes` with extent-1 axes kept, non-finite maxima
/// replaced by 0: subtracting it keeps `exp` from overflowing and leaves
/// infinities and NaN for the sum to propagate.
fn finite_max(a: &Array, axes: &Axes) -> Result<Array> {
    let m = a.max_axes(axes.clone(), true)?;
    where_(isfinite(&m)?, &m, 0.0)
}

/// `log(sum(exp(a)))` over `axes` without overflow (`scipy.special.logsumexp(a,
/// axis, keepdims=keepdims)`): the maximum is subtracted before `exp` and
/// added back. An empty reduction gives `-inf`; integers and bools compute
/// in float64; complex input is an error.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![vec![1.0, 2.0, 3.0], vec![1000.0, 1000.0, -5.0]])?;
/// let r = cp::special::logsumexp(&a, 1, false)?.to_vec::<f64>()?;
/// // scipy.special.logsumexp(a, axis=1) == [3.40760596444438, 1000.6931471805599]
/// assert!((r[0] - 3.40760596444438).abs() < 1e-14 && (r[1] - 1000.6931471805599).abs() < 1e-12);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn logsumexp(a: &Array, axes: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    let op = "logsumexp";
    let (a, axes) = (float_input(op, a)?, axes.into());
    if reduces_nothing(op, &a, &axes)? {
        return log(a.sum_axes(axes, keepdims)?);
    }
    let m = finite_max(&a, &axes)?;
    let s = log(exp(subtract(&a, &m)?)?.sum_axes(axes, keepdims)?)?;
    add(&s, m.reshape(s.shape())?)
}

/// `exp(x) / sum(exp(x))` over `axes` (`scipy.special.softmax(x, axis)`),
/// computed from `x - max(x)` so that `exp` does not overflow.
pub fn softmax(x: &Array, axes: impl Into<Axes>) -> Result<Array> {
    let op = "softmax";
    let (x, axes) = (float_input(op, x)?, axes.into());
    if reduces_nothing(op, &x, &axes)? {
        return Ok(x);
    }
    let e = exp(subtract(&x, finite_max(&x, &axes)?)?)?;
    let total = e.sum_axes(axes, true)?;
    divide(&e, &total)
}

/// The log of [`softmax`], `x - logsumexp(x)` over `axes`
/// (`scipy.special.log_softmax(x, axis)`), accurate where softmax underflows.
pub fn log_softmax(x: &Array, axes: impl Into<Axes>) -> Result<Array> {
    let op = "log_softmax";
    let (x, axes) = (float_input(op, x)?, axes.into());
    if reduces_nothing(op, &x, &axes)? {
        return Ok(x);
    }
    let shifted = subtract(&x, finite_max(&x, &axes)?)?;
    let total = exp(&shifted)?.sum_axes(axes, true)?;
    subtract(&shifted, log(&total)?)
}
