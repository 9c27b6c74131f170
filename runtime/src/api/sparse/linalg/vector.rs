//! The few vector operations the Krylov solvers are made of, as GPU-native
//! `Array` ops: inner products stay 0-d device arrays (so a step size never
//! leaves the device), and only a norm that decides convergence is read back.

use crate::api::operand::IntoOperand;
use crate::core::array::Array;
use crate::core::error::Result;

/// `x^H y` as a 0-d array on their device.
pub(super) fn dotc(x: &Array, y: &Array) -> Result<Array> {
    crate::api::linalg::matmul::vdot(x, y)
}

/// `||x||_2`, read back to the host (one scalar).
pub(super) fn norm(x: &Array) -> Result<f64> {
    let s = dotc(x, x)?.scalar()?.as_f64();
    Ok(s.max(0.0).sqrt())
}

/// `y + alpha x` (alpha a 0-d array or a host scalar).
pub(super) fn axpy<'a>(y: &Array, alpha: impl IntoOperand<'a>, x: &Array) -> Result<Array> {
    crate::add(y, crate::multiply(alpha, x)?)
}

/// `alpha x`.
pub(super) fn scale<'a>(alpha: impl IntoOperand<'a>, x: &Array) -> Result<Array> {
    crate::multiply(alpha, x)
}

/// `a / b` of 0-d arrays (or scalars), on the device.
pub(super) fn ratio<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<Array> {
    crate::divide(a, b)
}
