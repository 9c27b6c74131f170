//! Conjugate gradients (`scipy.sparse.linalg.cg`) for Hermitian positive
//! definite `A`, SciPy's iteration: the step sizes are 0-d device arrays,
//! and each iteration reads back one number, `||r||`, to decide whether to stop.

use crate::api::sparse::linalg::operator::IntoOperator;
use crate::api::sparse::linalg::options::{
    psolve, rhs_norm, tolerance, zero_rhs, Problem, SolveOptions, SolveResult,
};
use crate::api::sparse::linalg::vector::{axpy, dotc, norm, ratio, scale};
use crate::core::array::Array;
use crate::core::error::Result;

/// Solves `A x = b` by conjugate gradients (`cg(A, b, x0, rtol=1e-5, atol=0,
/// maxiter=10 n, M, callback)`); `A` must be Hermitian positive definite.
///
/// ```
/// use cuprite as cp;
/// use cp::sparse::linalg::{cg, SolveOptions};
/// let a = cp::sparse::diags(&[&cp::asarray(vec![-1.0f64])?, &cp::asarray(vec![2.0f64])?, &cp::asarray(vec![-1.0f64])?], &[-1, 0, 1], Some((4, 4)), None)?;
/// let b = cp::ones(4, cp::f64)?;
/// let r = cg(&a, &b, SolveOptions::new().rtol(1e-10))?;
/// assert!(r.converged);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn cg<'a>(
    a: impl IntoOperator<'a>,
    b: &Array,
    mut opts: SolveOptions<'_>,
) -> Result<SolveResult> {
    let p = Problem::new("cg", a, b, &opts, true)?;
    let bnorm = rhs_norm(&p)?;
    if bnorm == 0.0 {
        return zero_rhs(&p);
    }
    let atol = tolerance(&opts, bnorm);
    let maxiter = opts.maxiter.unwrap_or(p.n * 10);
    let m = opts.m;
    let mut x = p.x.clone();
    let mut r = p.residual(&x)?;
    let mut dir: Option<Array> = None;
    let mut rho_prev: Option<Array> = None;
    for it in 0..maxiter {
        let rnorm = norm(&r)?;
        if rnorm < atol {
            return Ok(done(x, it, rnorm, true, 0));
        }
        if rnorm.is_nan() {
            return Ok(done(x, it, rnorm, false, -1));
        }
        let z = psolve(m, &r)?;
        let rho = dotc(&r, &z)?;
        let d = match (&dir, &rho_prev) {
            (Some(d), Some(prev)) => axpy(&z, ratio(&rho, prev)?, d)?,
            _ => z,
        };
        let q = p.a.matvec(&d)?;
        let alpha = ratio(&rho, dotc(&d, &q)?)?;
        x = axpy(&x, &alpha, &d)?;
        r = axpy(&r, scale(-1.0, &alpha)?, &q)?;
        dir = Some(d);
        rho_prev = Some(rho);
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

pub(super) fn done(
    x: Array,
    iterations: usize,
    residual: f64,
    converged: bool,
    info: i64,
) -> SolveResult {
    SolveResult {
        x,
        iterations,
        residual,
        converged,
        info,
    }
}
