//! LSMR (`scipy.sparse.linalg.lsmr`): least squares `min ||A x - b||` (with
//! optional damping) for any shape of `A` with an `rmatvec`, Fong and
//! Saunders' method as SciPy writes it: the same Golub-Kahan
//! bidiagonalization as LSQR, with rotations that make `||A^H r||` fall
//! monotonically, so it may stop sooner on least-squares problems.
//!
//! Each step reads back three scalars (`beta`, `alpha` and `||x||`, which
//! the rotations and the stopping tests use); the vectors stay on the
//! device. A CSR matrix's `A^H` is built once on first use; on the GPU that
//! transposition is a host step (counted by `cp::cuda::host_fallbacks()`),
//! before the iterations.

use crate::api::sparse::linalg::cg::done;
use crate::api::sparse::linalg::lsqr::{sym_ortho, LsqrOptions, Stop};
use crate::api::sparse::linalg::operator::IntoOperator;
use crate::api::sparse::linalg::options::{Problem, SolveOptions, SolveResult};
use crate::api::sparse::linalg::vector::{axpy, norm, scale};
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// Options of [`lsmr`]: LSQR's (`damp`, `atol`, `btol`, `conlim`, `x0`);
/// `iter_lim` is SciPy's `maxiter`, `min(m, n)` when `None`.
pub type LsmrOptions<'a> = LsqrOptions<'a>;

/// The scalar recurrences of one LSMR run (SciPy's names).
struct State {
    alpha: f64,
    alphabar: f64,
    zetabar: f64,
    zeta: f64,
    rho: f64,
    rhobar: f64,
    cbar: f64,
    sbar: f64,
    betadd: f64,
    betad: f64,
    rhodold: f64,
    tautildeold: f64,
    thetatilde: f64,
    d: f64,
    norm_a2: f64,
    maxrbar: f64,
    minrbar: f64,
}

/// `min ||A x - b||` by LSMR (`lsmr(A, b, damp, atol, btol, conlim,
/// maxiter, x0)`). `info` is SciPy's `istop`; `residual` its `normr`;
/// `converged` is true for istop 0 (x = 0 solves it), 1, 2, 4 or 5.
///
/// ```
/// use cuprite as cp;
/// use cp::sparse::linalg::{lsmr, LsmrOptions};
/// // A tall 3 x 2 system: the least-squares solution of x = 1, y = 2, x + y = 3.
/// let a = cp::sparse::CsrMatrix::from_dense(&cp::asarray(vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0])?.reshape(vec![3, 2])?)?;
/// let b = cp::asarray(vec![1.0, 2.0, 3.0])?;
/// let r = lsmr(&a, &b, LsmrOptions::new().tol(1e-12, 1e-12))?;
/// let x = r.x.to_vec::<f64>()?;
/// assert!((x[0] - 1.0).abs() < 1e-10 && (x[1] - 2.0).abs() < 1e-10);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn lsmr<'a>(a: impl IntoOperator<'a>, b: &Array, o: LsmrOptions<'_>) -> Result<SolveResult> {
    let op = "lsmr";
    let mut so = SolveOptions::new();
    if let Some(x0) = o.x0 {
        so = so.x0(x0);
    }
    let p = Problem::new(op, a, b, &so, false)?;
    if !p.a.has_rmatvec() {
        return Err(Error::invalid(op, "the operator needs an rmatvec (A^H y)"));
    }
    for (what, v) in [
        ("damp", o.damp),
        ("atol", o.atol),
        ("btol", o.btol),
        ("conlim", o.conlim),
    ] {
        if v.is_nan() || v < 0.0 {
            return Err(Error::invalid(op, format!("{what} must be >= 0, not {v}")));
        }
    }
    let (m, n) = p.a.shape();
    let maxiter = o.iter_lim.unwrap_or(m.min(n));
    let ctol = if o.conlim > 0.0 { 1.0 / o.conlim } else { 0.0 };
    let mut x = p.x.clone();
    let mut u = p.residual(&x)?;
    let normb = norm(&p.b)?;
    let mut beta = norm(&u)?;
    let mut v;
    let mut alpha = 0.0;
    if beta > 0.0 {
        u = scale(1.0 / beta, &u)?;
        v = p.a.rmatvec(&u)?;
        alpha = norm(&v)?;
    } else {
        v = crate::zeros_like(&x)?;
    }
    if alpha > 0.0 {
        v = scale(1.0 / alpha, &v)?;
    }
    if alpha * beta == 0.0 {
        return Ok(done(x, 0, beta, true, 0));
    }
    if normb == 0.0 {
        return Ok(done(crate::zeros_like(&x)?, 0, beta, true, 0));
    }
    let mut s = State {
        alpha,
        alphabar: alpha,
        zetabar: alpha * beta,
        zeta: 0.0,
        rho: 1.0,
        rhobar: 1.0,
        cbar: 1.0,
        sbar: 0.0,
        betadd: beta,
        betad: 0.0,
        rhodold: 1.0,
        tautildeold: 0.0,
        thetatilde: 0.0,
        d: 0.0,
        norm_a2: alpha * alpha,
        maxrbar: 0.0,
        minrbar: 1e100,
    };
    let mut h = v.clone();
    let mut hbar = crate::zeros_like(&x)?;
    let mut normr = beta;
    let mut istop = 0;
    let mut itn = 0;
    while itn < maxiter {
        itn += 1;
        u = axpy(&p.a.matvec(&v)?, -s.alpha, &u)?;
        beta = norm(&u)?;
        if beta > 0.0 {
            u = scale(1.0 / beta, &u)?;
            v = axpy(&p.a.rmatvec(&u)?, -beta, &v)?;
            s.alpha = norm(&v)?;
            if s.alpha > 0.0 {
                v = scale(1.0 / s.alpha, &v)?;
            }
        }
        // The rotation that takes the damping in, then the one turning
        // B into R, then the one turning R^T into Rbar.
        let (chat, shat, alphahat) = sym_ortho(s.alphabar, o.damp);
        let rhoold = s.rho;
        let (c, sn, rho) = sym_ortho(alphahat, beta);
        s.rho = rho;
        let thetanew = sn * s.alpha;
        s.alphabar = c * s.alpha;
        let rhobarold = s.rhobar;
        let zetaold = s.zeta;
        let thetabar = s.sbar * rho;
        let rhotemp = s.cbar * rho;
        let (cbar, sbar, rhobar) = sym_ortho(s.cbar * rho, thetanew);
        (s.cbar, s.sbar, s.rhobar) = (cbar, sbar, rhobar);
        s.zeta = cbar * s.zetabar;
        s.zetabar *= -sbar;
        // h, hbar and x.
        hbar = axpy(&h, -(thetabar * rho / (rhoold * rhobarold)), &hbar)?;
        x = axpy(&x, s.zeta / (rho * rhobar), &hbar)?;
        h = axpy(&v, -(thetanew / rho), &h)?;
        // The estimate of ||r||.
        let betaacute = chat * s.betadd;
        let betacheck = -shat * s.betadd;
        let betahat = c * betaacute;
        s.betadd = -sn * betaacute;
        let thetatildeold = s.thetatilde;
        let (ctildeold, stildeold, rhotildeold) = sym_ortho(s.rhodold, thetabar);
        s.thetatilde = stildeold * rhobar;
        s.rhodold = ctildeold * rhobar;
        s.betad = -stildeold * s.betad + ctildeold * betahat;
        s.tautildeold = (zetaold - thetatildeold * s.tautildeold) / rhotildeold;
        let taud = (s.zeta - s.thetatilde * s.tautildeold) / s.rhodold;
        s.d += betacheck * betacheck;
        normr = (s.d + (s.betad - taud).powi(2) + s.betadd * s.betadd).sqrt();
        // The estimates of ||A|| and cond(A).
        s.norm_a2 += beta * beta;
        let norm_a = s.norm_a2.sqrt();
        s.norm_a2 += s.alpha * s.alpha;
        s.maxrbar = s.maxrbar.max(rhobarold);
        if itn > 1 {
            s.minrbar = s.minrbar.min(rhobarold);
        }
        let cond_a = s.maxrbar.max(rhotemp) / s.minrbar.min(rhotemp);
        // The stopping tests.
        let normar = s.zetabar.abs();
        let normx = norm(&x)?;
        let test1 = normr / normb;
        let test2 = if norm_a * normr != 0.0 {
            normar / (norm_a * normr)
        } else {
            f64::INFINITY
        };
        let test3 = 1.0 / cond_a;
        istop = Stop::new(
            [test1, test2, test3],
            norm_a * normx / normb,
            &o,
            ctol,
            itn >= maxiter,
        )
        .istop();
        if istop != 0 {
            break;
        }
    }
    let converged = matches!(istop, 1 | 2 | 4 | 5);
    Ok(done(x, itn, normr, converged, istop))
}
