//! MINRES (`scipy.sparse.linalg.minres`) for symmetric (possibly
//! indefinite) `A`, Paige and Saunders' recurrences as SciPy writes them.
//! The Lanczos scalars (alpha, beta) and `||x||` are read back each step:
//! the plane rotations and every stopping test are made of them.

use crate::api::sparse::linalg::cg::done;
use crate::api::sparse::linalg::operator::IntoOperator;
use crate::api::sparse::linalg::options::{
    psolve, rhs_norm, zero_rhs, Problem, SolveOptions, SolveResult,
};
use crate::api::sparse::linalg::vector::{axpy, dotc, norm, scale};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Solves `A x = b` for symmetric `A` by MINRES (`minres(A, b, x0, rtol=1e-5,
/// maxiter=5 n, M, callback)`; `M` must be symmetric positive definite).
pub fn minres<'a>(
    a: impl IntoOperator<'a>,
    b: &Array,
    mut opts: SolveOptions<'_>,
) -> Result<SolveResult> {
    let op = "minres";
    let p = Problem::new(op, a, b, &opts, true)?;
    let n = p.n;
    let maxiter = opts.maxiter.unwrap_or(5 * n);
    let m = opts.m;
    let rtol = opts.rtol;
    let eps = if matches!(p.dtype, DType::Float32 | DType::Complex64) {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let real_dot = |x: &Array, y: &Array| -> Result<f64> { Ok(dotc(x, y)?.scalar()?.as_f64()) };
    let mut x = p.x.clone();
    let mut r1 = p.residual(&x)?;
    let mut y = psolve(m, &r1)?;
    let beta1 = real_dot(&r1, &y)?;
    if beta1 < 0.0 {
        return Err(Error::invalid(
            op,
            "the preconditioner M is not positive definite",
        ));
    }
    if beta1 == 0.0 || rhs_norm(&p)? == 0.0 {
        return if p.x_given {
            Ok(done(x, 0, 0.0, true, 0))
        } else {
            zero_rhs(&p)
        };
    }
    let beta1 = beta1.sqrt();
    let (mut oldb, mut beta, mut dbar, mut epsln) = (0.0f64, beta1, 0.0f64, 0.0f64);
    let (mut phibar, mut rhs1, mut rhs2, mut tnorm2) = (beta1, beta1, 0.0f64, 0.0f64);
    let (mut gmax, mut gmin) = (0.0f64, f64::MAX);
    let (mut cs, mut sn) = (-1.0f64, 0.0f64);
    let mut w = crate::zeros_like(&x)?;
    let mut w2 = w.clone();
    let mut r2 = r1.clone();
    let mut istop = 0;
    let mut itn = 0;
    let mut rnorm = beta1;
    while itn < maxiter {
        itn += 1;
        let v = scale(1.0 / beta, &y)?;
        y = p.a.matvec(&v)?;
        if itn >= 2 {
            y = axpy(&y, -beta / oldb, &r1)?;
        }
        let alfa = real_dot(&v, &y)?;
        y = axpy(&y, -alfa / beta, &r2)?;
        r1 = r2;
        r2 = y;
        y = psolve(m, &r2)?;
        oldb = beta;
        let bb = real_dot(&r2, &y)?;
        if bb < 0.0 {
            return Err(Error::invalid(
                op,
                "the matrix is not symmetric (or M is not positive definite)",
            ));
        }
        beta = bb.sqrt();
        tnorm2 += alfa * alfa + oldb * oldb + beta * beta;
        if itn == 1 && beta / beta1 <= 10.0 * eps {
            istop = -1;
        }
        let oldeps = epsln;
        let delta = cs * dbar + sn * alfa;
        let gbar = sn * dbar - cs * alfa;
        epsln = sn * beta;
        dbar = -cs * beta;
        let root = gbar.hypot(dbar);
        let gamma = gbar.hypot(beta).max(eps);
        cs = gbar / gamma;
        sn = beta / gamma;
        let phi = cs * phibar;
        phibar *= sn;
        let w1 = w2;
        w2 = w;
        // w = (v - oldeps w1 - delta w2) / gamma
        w = scale(1.0 / gamma, &axpy(&axpy(&v, -oldeps, &w1)?, -delta, &w2)?)?;
        x = axpy(&x, phi, &w)?;
        gmax = gmax.max(gamma);
        gmin = gmin.min(gamma);
        let z = rhs1 / gamma;
        rhs1 = rhs2 - delta * z;
        rhs2 = -epsln * z;
        let anorm = tnorm2.sqrt();
        let ynorm = norm(&x)?;
        let epsx = anorm * ynorm * eps;
        rnorm = phibar;
        let test1 = if ynorm == 0.0 || anorm == 0.0 {
            f64::INFINITY
        } else {
            rnorm / (anorm * ynorm)
        };
        let test2 = if anorm == 0.0 {
            f64::INFINITY
        } else {
            root / anorm
        };
        let acond = gmax / gmin;
        if istop == 0 {
            if 1.0 + test2 <= 1.0 {
                istop = 2;
            }
            if 1.0 + test1 <= 1.0 {
                istop = 1;
            }
            if itn >= maxiter {
                istop = 6;
            }
            if acond >= 0.1 / eps {
                istop = 4;
            }
            if epsx >= beta1 {
                istop = 3;
            }
            if test2 <= rtol {
                istop = 2;
            }
            if test1 <= rtol {
                istop = 1;
            }
        }
        opts.notify(&x);
        if istop != 0 {
            break;
        }
    }
    let converged = istop != 6 && istop != 0;
    Ok(done(
        x,
        itn,
        rnorm,
        converged,
        if converged { 0 } else { maxiter as i64 },
    ))
}
