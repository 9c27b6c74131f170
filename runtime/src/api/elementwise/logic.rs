//! Logic functions: closeness (`isclose`, `allclose`), whole-array equality
//! (`array_equal`, `array_equiv`) and element tests (`isreal`, `iscomplex`,
//! `isposinf`, `isneginf`).
//!
//! The elementwise tests are fused expressions of built-in ufuncs
//! ([`fuse`]): one kernel on a GPU, the ufuncs one at a time on the CPU,
//! with the ufuncs' NumPy 2 typing. The functions that answer with a Rust
//! `bool` reduce on the array's device and bring back that one value.

use crate::api::creation::full;
use crate::api::fuse::{fuse, Expr};
use crate::api::operand::{common_device, IntoOperand, Operand};
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::{Error, Result};
use crate::core::layout::broadcast_shapes;

/// Tolerances of [`isclose_with`] and [`allclose_with`]: NumPy's `rtol`,
/// `atol` and `equal_nan`.
///
/// `Tolerance::new().rtol(1e-3).atol(0.0).equal_nan(true)`, or a struct
/// literal with `..Default::default()`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance, a multiple of `|b|`; default `1e-5`.
    pub rtol: f64,
    /// Absolute tolerance; default `1e-8`.
    pub atol: f64,
    /// Whether NaN is close to NaN; default false.
    pub equal_nan: bool,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            rtol: 1e-5,
            atol: 1e-8,
            equal_nan: false,
        }
    }
}

impl Tolerance {
    /// NumPy's defaults: `rtol=1e-05, atol=1e-08, equal_nan=False`.
    pub fn new() -> Tolerance {
        Tolerance::default()
    }
}

option_setters!(Tolerance {
    /// Sets `rtol`.
    rtol: f64,
    /// Sets `atol`.
    atol: f64,
    /// Sets `equal_nan`.
    equal_nan: bool,
});

/// Whether each pair of elements is close, with NumPy's default tolerances
/// (`np.isclose(a, b)`); see [`isclose_with`].
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![1e10, 1e-7, f64::NAN])?;
/// let b = cp::asarray(vec![1.00001e10, 1e-8, f64::NAN])?;
/// assert_eq!(cp::isclose(&a, &b)?.to_vec::<bool>()?, vec![true, false, false]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn isclose<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<Array> {
    isclose_with(a, b, Tolerance::default())
}

/// Whether each pair of elements is close (`np.isclose(a, b, rtol, atol,
/// equal_nan)`), as a bool array of the broadcast shape.
///
/// NumPy's formula, which is not symmetric in `a` and `b`:
/// `(|a - b| <= atol + rtol * |b|) & isfinite(b) | (a == b)`, and with
/// `equal_nan` also where both are NaN. Integer and bool `b` is taken as
/// float64 first; the arithmetic follows NumPy 2's typing (float32 inputs
/// compute in float32; a Rust scalar is weak). Infinities are close only to
/// the same infinity; complex values compare by the modulus of the
/// difference.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![1.0f32, 1.1, f64::NAN as f32])?;
/// let tol = cp::Tolerance::new().rtol(0.2).equal_nan(true);
/// assert_eq!(cp::isclose_with(&a, 1.0, tol)?.to_vec::<bool>()?, vec![true, true, false]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn isclose_with<'a, 'b>(
    a: impl IntoOperand<'a>,
    b: impl IntoOperand<'b>,
    tol: Tolerance,
) -> Result<Array> {
    let op = "isclose";
    let (x, y) = (a.into_operand(), b.into_operand());
    let device = common_device(op, &[&x, &y])?;
    broadcast_shapes(op, &[x.shape(), y.shape()])?;
    let Tolerance {
        rtol,
        atol,
        equal_nan,
    } = tol;
    match (&x, &y) {
        (Operand::Scalar(s), Operand::Scalar(_)) => {
            // Both scalars: NumPy's answer for a 0-d array holding `a`.
            let xa = x.to_array(op, s.default_dtype(), device)?;
            isclose_with(&xa, y, tol)
        }
        (Operand::Array(xa), Operand::Scalar(s)) => {
            // A scalar `b`: its finiteness, NaN-ness and the threshold
            // `atol + rtol * |b|` (a Python float in NumPy) are known here.
            let s = match s {
                Scalar::Bool(_) | Scalar::Int(_) | Scalar::UInt(_) => Scalar::Float(s.as_f64()),
                other => *other,
            };
            let c = s.as_c64();
            let finite = c.re.is_finite() && c.im.is_finite();
            let nan = c.re.is_nan() || c.im.is_nan();
            let thr = atol + rtol * c.norm();
            let f = fuse(move |x: &Expr| {
                let y = Expr::constant(s);
                let mut r = x.equal(&y);
                if finite {
                    r = (x - &y).abs().less_equal(thr) | r;
                }
                if equal_nan && nan {
                    r = r | x.isnan();
                }
                r
            });
            f.name(op).call(xa.as_ref())
        }
        (_, Operand::Array(ya)) => {
            let inexact = ya.dtype().is_inexact();
            let build = move |x: &Expr, y: &Expr, x_nan: bool| {
                // NumPy makes `b` inexact (`result_type(b, 1.0)`); `* 1.0` is
                // that cast inside the fused kernel.
                let y = if inexact { y.clone() } else { y * 1.0 };
                let close = (x - &y).abs().less_equal(atol + rtol * y.abs());
                let mut r = (close & y.isfinite()) | x.equal(&y);
                if equal_nan && x_nan {
                    r = r | y.isnan();
                }
                r
            };
            match &x {
                Operand::Array(xa) => {
                    let f = fuse(move |x: &Expr, y: &Expr| {
                        let r = build(x, y, false);
                        if equal_nan {
                            r | (x.isnan() & y.isnan())
                        } else {
                            r
                        }
                    });
                    f.name(op).call((xa.as_ref(), ya.as_ref()))
                }
                Operand::Scalar(s) => {
                    let s = *s;
                    let c = s.as_c64();
                    let x_nan = c.re.is_nan() || c.im.is_nan();
                    let f = fuse(move |y: &Expr| build(&Expr::constant(s), y, x_nan));
                    f.name(op).call(ya.as_ref())
                }
            }
        }
    }
}

/// Whether every pair of elements is close, with NumPy's default
/// tolerances (`np.allclose(a, b)`); see [`isclose_with`].
///
/// ```
/// use cuprite as cp;
/// let a = cp::linspace(0.0, 1.0, 5)?;
/// assert!(cp::allclose(&a, &(&a + 1e-9))?);
/// assert!(!cp::allclose(&a, &(&a + 1e-3))?);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn allclose<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<bool> {
    allclose_with(a, b, Tolerance::default())
}

/// Whether every pair of elements is close (`np.allclose(a, b, rtol, atol,
/// equal_nan)`): [`isclose_with`] reduced with `all` on the arrays' device;
/// true for empty inputs.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![1.0, f64::NAN])?;
/// let b = cp::asarray(vec![1.001, f64::NAN])?;
/// assert!(!cp::allclose(&a, &b)?);
/// assert!(cp::allclose_with(&a, &b, cp::Tolerance::new().rtol(1e-2).equal_nan(true))?);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn allclose_with<'a, 'b>(
    a: impl IntoOperand<'a>,
    b: impl IntoOperand<'b>,
    tol: Tolerance,
) -> Result<bool> {
    all_true(&isclose_with(a, b, tol)?)
}

/// Whether all elements of a bool array are true: reduced on its device,
/// and that one value brought back to the host.
fn all_true(mask: &Array) -> Result<bool> {
    mask.all()?.item::<bool>()
}

/// Whether `a` and `b` have the same shape and elements (`np.array_equal`).
/// NaN is unequal to everything, as in NumPy; see [`array_equal_with`].
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![1i32, 2])?;
/// assert!(cp::array_equal(&a, &cp::asarray(vec![1.0, 2.0])?)?);
/// assert!(!cp::array_equal(&a, &cp::asarray([[1i32, 2]])?)?); // shapes differ
/// # Ok::<(), cp::Error>(())
/// ```
pub fn array_equal<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<bool> {
    array_equal_with(a, b, false)
}

/// Whether `a` and `b` have the same shape and elements, with NumPy's
/// `equal_nan`: NaN in the same places counts as equal (a complex value is
/// NaN when either part is). Different shapes give false, not an error.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![1.0, f64::NAN])?;
/// assert!(!cp::array_equal_with(&a, &a, false)?);
/// assert!(cp::array_equal_with(&a, &a, true)?);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn array_equal_with<'a, 'b>(
    a: impl IntoOperand<'a>,
    b: impl IntoOperand<'b>,
    equal_nan: bool,
) -> Result<bool> {
    let op = "array_equal";
    let (x, y) = (a.into_operand(), b.into_operand());
    let device = common_device(op, &[&x, &y])?;
    if x.shape() != y.shape() {
        return Ok(false);
    }
    let may_hold_nan = |o: &Operand<'_>| match o {
        Operand::Array(a) => a.dtype().is_inexact(),
        Operand::Scalar(s) => matches!(s, Scalar::Float(_) | Scalar::Complex(_)),
    };
    // NaN can only match NaN when both dtypes hold it.
    if !(equal_nan && may_hold_nan(&x) && may_hold_nan(&y)) {
        return all_true(&crate::api::elementwise::equal(x, y)?);
    }
    // Same shapes, so a scalar here meets a 0-d array: make it one too.
    let as_array = |o: &Operand<'_>| match o {
        Operand::Array(a) => Ok(a.as_ref().clone()),
        Operand::Scalar(s) => o.to_array(op, s.default_dtype(), device),
    };
    let (xa, ya) = (as_array(&x)?, as_array(&y)?);
    let f = fuse(|x: &Expr, y: &Expr| x.equal(y) | (x.isnan() & y.isnan()));
    all_true(&f.name(op).call((&xa, &ya))?)
}

/// Whether `a` and `b` are equal after broadcasting (`np.array_equiv`):
/// shapes that do not broadcast give false, not an error.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray([[1i64, 2], [1, 2]])?;
/// assert!(cp::array_equiv(&a, &cp::asarray(vec![1i64, 2])?)?);
/// assert!(!cp::array_equiv(&a, &cp::asarray(vec![1i64, 2, 3])?)?);
/// assert!(cp::array_equiv(&cp::ones([2, 2], cp::f32)?, 1)?);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn array_equiv<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<bool> {
    let op = "array_equiv";
    let (x, y) = (a.into_operand(), b.into_operand());
    common_device(op, &[&x, &y])?;
    if broadcast_shapes(op, &[x.shape(), y.shape()]).is_err() {
        return Ok(false);
    }
    all_true(&crate::api::elementwise::equal(x, y)?)
}

/// A bool array of `x`'s shape, all `value`, on `x`'s device.
fn constant_mask(x: &Array, value: bool) -> Result<Array> {
    with_device(x.device(), || full(x.shape(), value, DType::Bool))
}

/// A one-input fused test on `x`, named `op`.
fn test(op: &'static str, x: &Array, f: impl Fn(&Expr) -> Expr) -> Result<Array> {
    fuse(f).name(op).call(x)
}

/// Whether each element has a zero imaginary part (`np.isreal`): all true
/// for real dtypes.
///
/// ```
/// use cuprite as cp;
/// use cp::num_complex::Complex64 as C;
/// let z = cp::asarray(vec![C::new(1.0, 0.0), C::new(1.0, 2.0)])?;
/// assert_eq!(cp::isreal(&z)?.to_vec::<bool>()?, vec![true, false]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn isreal(x: &Array) -> Result<Array> {
    if x.dtype().is_complex() {
        test("isreal", x, |z| z.imag().equal(0))
    } else {
        constant_mask(x, true)
    }
}

/// Whether each element has a non-zero imaginary part (`np.iscomplex`):
/// all false for real dtypes.
///
/// ```
/// use cuprite as cp;
/// use cp::num_complex::Complex64 as C;
/// let z = cp::asarray(vec![C::new(1.0, 0.0), C::new(1.0, 2.0)])?;
/// assert_eq!(cp::iscomplex(&z)?.to_vec::<bool>()?, vec![false, true]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn iscomplex(x: &Array) -> Result<Array> {
    if x.dtype().is_complex() {
        test("iscomplex", x, |z| z.imag().not_equal(0))
    } else {
        constant_mask(x, false)
    }
}

/// Whether the dtype of `x` is complex (`np.iscomplexobj`), whatever the values.
pub fn iscomplexobj(x: &Array) -> bool {
    x.dtype().is_complex()
}

/// Whether the dtype of `x` is not complex (`np.isrealobj`).
pub fn isrealobj(x: &Array) -> bool {
    !x.dtype().is_complex()
}

/// Whether each element is infinite with sign `positive`, for [`isposinf`]
/// and [`isneginf`].
fn is_signed_inf(op: &'static str, x: &Array, positive: bool) -> Result<Array> {
    let dt = x.dtype();
    if dt.is_complex() {
        return Err(Error::DType {
            op,
            detail: format!(
                "not supported for {dt} values because it would be ambiguous (test the real or imaginary part)"
            ),
        });
    }
    if !dt.is_float() {
        return constant_mask(x, false);
    }
    if positive {
        test(op, x, |v| v.isinf() & v.greater(0))
    } else {
        test(op, x, |v| v.isinf() & v.less(0))
    }
}

/// Whether each element is positive infinity (`np.isposinf`); integers and
/// bools give false, complex input is an error (as in NumPy 2).
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![f64::INFINITY, f64::NEG_INFINITY, 1.0, f64::NAN])?;
/// assert_eq!(cp::isposinf(&a)?.to_vec::<bool>()?, vec![true, false, false, false]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn isposinf(x: &Array) -> Result<Array> {
    is_signed_inf("isposinf", x, true)
}

/// Whether each element is negative infinity (`np.isneginf`); integers and
/// bools give false, complex input is an error (as in NumPy 2).
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![f64::INFINITY, f64::NEG_INFINITY, 1.0, f64::NAN])?;
/// assert_eq!(cp::isneginf(&a)?.to_vec::<bool>()?, vec![false, true, false, false]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn isneginf(x: &Array) -> Result<Array> {
    is_signed_inf("isneginf", x, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fused kernels of `isclose` compile for every kind of input
    /// (NVRTC, where present).
    #[test]
    fn fused_isclose_kernels_compile() {
        use crate::ops::c_types::ctype;
        let tol = Tolerance::new().equal_nan(true);
        let cases: &[(DType, DType)] = &[
            (DType::Float32, DType::Float32),
            (DType::Float64, DType::Int32),
            (DType::Float16, DType::Float16),
            (DType::BFloat16, DType::Float32),
            (DType::Complex64, DType::Complex128),
            (DType::Int8, DType::Bool),
            (DType::UInt64, DType::Float32),
        ];
        for &(a, b) in cases {
            let inexact = b.is_inexact();
            let f = fuse(move |x: &Expr, y: &Expr| {
                let y = if inexact { y.clone() } else { y * 1.0 };
                let close = (x - &y).abs().less_equal(tol.atol + tol.rtol * y.abs());
                (close & y.isfinite()) | x.equal(&y) | (x.isnan() & y.isnan())
            });
            let k = f.kernel(&[a, b]).unwrap().expect("isclose fuses");
            let src = format!(
                "{}{}\nextern \"C\" __global__ void k(const {} in0, const {} in1, {}* out) {{ out[0] = {}; }}\n",
                crate::cuda::kernel_gen::codegen::PRELUDE,
                k.support,
                ctype(a),
                ctype(b),
                ctype(k.result),
                k.expr
            );
            crate::cuda::kernel_gen::helpers::dump_source(&format!("isclose_{a}_{b}"), &src);
        }
    }
}
