//! BiConjugate Gradient STABilized (`scipy.sparse.linalg.bicgstab`) for
//! general square `A`. As in `cg`, the step sizes stay on the device; one
//! norm per iteration is read back. SciPy's breakdown tests on `rho` and
//! `omega` are read from that same norm: a breakdown makes the iterate NaN,
//! which ends the solve with `info = -10`.

use crate::api::sparse::linalg::cg::done;
use crate::api::sparse::linalg::operator::IntoOperator;
use crate::api::sparse::linalg::options::{
    psolve, rhs_norm, tolerance, zero_rhs, Problem, SolveOptions, SolveResult,
};
use crate::api::sparse::linalg::vector::{axpy, dotc, norm, ratio, scale};
use crate::core::array::Array;
use crate::core::error::Result;

/// Solves `A x = b` by BiCGSTAB (`bicgstab(A, b, x0, rtol=1e-5, atol=0,
/// maxiter=10 n, M, callback)`).
pub fn bicgstab<'a>(
    a: impl IntoOperator<'a>,
    b: &Array,
    mut opts: SolveOptions<'_>,
) -> Result<SolveResult> {
    let p = Problem::new("bicgstab", a, b, &opts, true)?;
    let bnorm = rhs_norm(&p)?;
    if bnorm == 0.0 {
        return zero_rhs(&p);
    }
    let atol = tolerance(&opts, bnorm);
    let maxiter = opts.maxiter.unwrap_or(p.n * 10);
    let m = opts.m;
    let mut x = p.x.clone();
    let mut r = p.residual(&x)?;
    let rtilde = r.clone();
    // (p, v, rho, alpha, omega) of the previous iteration.
    let mut prev: Option<(Array, Array, Array, Array, Array)> = None;
    for it in 0..maxiter {
        let rnorm = norm(&r)?;
        if rnorm < atol {
            return Ok(done(x, it, rnorm, true, 0));
        }
        if !rnorm.is_finite() {
            return Ok(done(x, it, rnorm, false, -10));
        }
        let rho = dotc(&rtilde, &r)?;
        let dir = match &prev {
            Some((pp, v, rho_prev, alpha, omega)) => {
                // beta = (rho / rho_prev) (alpha / omega); p = r + beta (p - omega v)
                let beta = crate::multiply(ratio(&rho, rho_prev)?, ratio(alpha, omega)?)?;
                let pv = axpy(pp, scale(-1.0, omega)?, v)?;
                axpy(&r, &beta, &pv)?
            }
            None => r.clone(),
        };
        let phat = psolve(m, &dir)?;
        let v = p.a.matvec(&phat)?;
        let alpha = ratio(&rho, dotc(&rtilde, &v)?)?;
        let s = axpy(&r, scale(-1.0, &alpha)?, &v)?;
        let shat = psolve(m, &s)?;
        let t = p.a.matvec(&shat)?;
        // s = 0 (converged at the half step) makes t = 0: omega = 0 then
        // keeps x + alpha phat instead of 0/0 (SciPy returns there).
        let tt = dotc(&t, &t)?;
        let tt = crate::where_(crate::equal(&tt, 0.0)?, 1.0, &tt)?;
        let omega = ratio(dotc(&t, &s)?, &tt)?;
        x = axpy(&axpy(&x, &alpha, &phat)?, &omega, &shat)?;
        r = axpy(&s, scale(-1.0, &omega)?, &t)?;
        prev = Some((dir, v, rho, alpha, omega));
        opts.notify(&x);
    }
    let rnorm = norm(&r)?;
    let converged = rnorm < atol;
    Ok(done(
        x,
        maxiter,
        rnorm,
        converged,
        if converged { 0 } else { maxiter as i64 },
    ))
}
