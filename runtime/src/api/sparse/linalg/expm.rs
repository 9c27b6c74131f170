//! `expm_multiply`: `exp(t A) b` without forming `exp(t A)`, by a truncated
//! Taylor series in `s` steps of `t / s` (Al-Mohy and Higham's scheme, as
//! SciPy's `_expm_multiply_simple` uses it, with the shift `mu = trace(A)/n`).
//! Every term is one SpMV on the device; each term's size is read back to
//! stop the series once it no longer changes the sum.

use crate::api::sparse::linalg::norm::{norm, SparseNorm};
use crate::api::sparse::linalg::options::require_square;
use crate::api::sparse::linalg::precond::diagonal;
use crate::api::sparse::CsrMatrix;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};

/// Taylor terms per step, and the largest `||t A||_1` per step they are
/// accurate for to double precision (Al-Mohy and Higham 2011, table 3.1, m = 55).
const TERMS: usize = 55;
const THETA: f64 = 9.9;

/// `exp(t A) @ b` for square sparse `A` and a vector or (n, k) matrix `b`
/// (`expm_multiply(t * A, b)`).
pub fn expm_multiply(a: &CsrMatrix, b: &Array, t: f64) -> Result<Array> {
    let op = "expm_multiply";
    let n = require_square(op, a.shape())?;
    let ok = matches!(b.shape(), [r] | [r, _] if *r == n);
    if !ok {
        return Err(Error::shape(
            op,
            format!(
                "b must have shape ({n},) or ({n}, k) for a matrix of shape ({n}, {n}), not {}",
                fmt_shape(b.shape())
            ),
        ));
    }
    if !t.is_finite() {
        return Err(Error::invalid(op, format!("t must be finite, not {t}")));
    }
    let dt = crate::promote_types(a.dtype(), b.dtype());
    let dt = if dt.is_inexact() && dt != DType::Float16 && dt != DType::BFloat16 {
        dt
    } else {
        DType::Float64
    };
    let mut bcur = b.astype(dt)?;
    if n == 0 || t == 0.0 {
        return Ok(bcur);
    }
    // Shift by mu = trace(A) / n: exp(tA) = exp(t mu) exp(t (A - mu I)).
    let d = diagonal(a)?;
    let mu = crate::sum(&d, crate::Axes::All, false)?.scalar()?.as_f64() / n as f64;
    let shifted =
        |x: &Array| -> Result<Array> { crate::subtract(a.dot(x)?, crate::multiply(mu, x)?) };
    let anorm = (norm(a, SparseNorm::One)? + mu.abs()) * t.abs();
    let steps = ((anorm / THETA).ceil() as usize).max(1);
    let h = t / steps as f64;
    let tol = if matches!(dt, DType::Float32 | DType::Complex64) {
        2f64.powi(-24)
    } else {
        2f64.powi(-53)
    };
    let inf_norm = |x: &Array| -> Result<f64> {
        Ok(crate::max(&crate::abs(x)?, crate::Axes::All, false)?
            .scalar()?
            .as_f64())
    };
    let eta = (h * mu).exp();
    for _ in 0..steps {
        let mut f = bcur.clone();
        let mut term = bcur.clone();
        let mut c1 = inf_norm(&term)?;
        for j in 1..=TERMS {
            term = crate::multiply(h / j as f64, shifted(&term)?)?;
            let c2 = inf_norm(&term)?;
            f = crate::add(&f, &term)?;
            if c1 + c2 <= tol * inf_norm(&f)? {
                break;
            }
            c1 = c2;
        }
        bcur = crate::multiply(eta, &f)?;
    }
    Ok(bcur)
}
