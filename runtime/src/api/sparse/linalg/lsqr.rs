//! LSQR (`scipy.sparse.linalg.lsqr`): least squares `min ||A x - b||` (with
//! optional damping) for any shape of `A` with an `rmatvec`, Paige and
//! Saunders' bidiagonalization as SciPy writes it. Each step reads back
//! `beta`, `alpha` and `||w||`, which the rotations and stopping tests use.
//!
//! A CSR matrix's `A^H` is built once on first use; on the GPU that
//! transposition is a host step (counted by `cp::cuda::host_fallbacks()`).

use crate::api::sparse::linalg::cg::done;
use crate::api::sparse::linalg::operator::IntoOperator;
use crate::api::sparse::linalg::options::{Problem, SolveOptions, SolveResult};
use crate::api::sparse::linalg::vector::{axpy, norm, scale};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Options of [`lsqr`] (SciPy's keyword arguments and defaults).
#[derive(Debug, Clone, Copy)]
pub struct LsqrOptions<'a> {
    /// Damping: minimizes `||A x - b||^2 + damp^2 ||x||^2`.
    pub damp: f64,
    /// Stopping tolerances on `A` and `b` (1e-6).
    pub atol: f64,
    /// See `atol`.
    pub btol: f64,
    /// Stop when the condition estimate exceeds this (1e8).
    pub conlim: f64,
    /// The most iterations (2 n when `None`).
    pub iter_lim: Option<usize>,
    /// The starting guess.
    pub x0: Option<&'a Array>,
}

impl Default for LsqrOptions<'_> {
    fn default() -> Self {
        LsqrOptions {
            damp: 0.0,
            atol: 1e-6,
            btol: 1e-6,
            conlim: 1e8,
            iter_lim: None,
            x0: None,
        }
    }
}

impl<'a> LsqrOptions<'a> {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The damping.
    pub fn damp(mut self, damp: f64) -> Self {
        self.damp = damp;
        self
    }
    /// Both tolerances.
    pub fn tol(mut self, atol: f64, btol: f64) -> Self {
        self.atol = atol;
        self.btol = btol;
        self
    }
    /// The most iterations.
    pub fn iter_lim(mut self, n: usize) -> Self {
        self.iter_lim = Some(n);
        self
    }
    /// The starting guess.
    pub fn x0(mut self, x0: &'a Array) -> Self {
        self.x0 = Some(x0);
        self
    }
}

/// `min ||A x - b||` by LSQR (`lsqr(A, b, damp, atol, btol, conlim,
/// iter_lim, x0)`). `info` is SciPy's `istop`; `residual` its `r1norm`;
/// `converged` is true for istop 1, 2, 4 or 5.
pub fn lsqr<'a>(a: impl IntoOperator<'a>, b: &Array, o: LsqrOptions<'_>) -> Result<SolveResult> {
    let op = "lsqr";
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
    let eps = if matches!(p.dtype, DType::Float32 | DType::Complex64) {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let iter_lim = o.iter_lim.unwrap_or(2 * p.n);
    let dampsq = o.damp * o.damp;
    let ctol = if o.conlim > 0.0 { 1.0 / o.conlim } else { 0.0 };
    let mut x = p.x.clone();
    let mut u = p.residual(&x)?;
    let bnorm = norm(&p.b)?;
    let mut beta = norm(&u)?;
    let mut v;
    let mut alfa = 0.0;
    if beta > 0.0 {
        u = scale(1.0 / beta, &u)?;
        v = p.a.rmatvec(&u)?;
        alfa = norm(&v)?;
    } else {
        v = x.clone();
    }
    if alfa > 0.0 {
        v = scale(1.0 / alfa, &v)?;
    }
    let mut w = v.clone();
    let (mut rhobar, mut phibar) = (alfa, beta);
    let (mut anorm, mut ddnorm, mut res2, mut xxnorm, mut z) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut cs2, mut sn2) = (-1.0f64, 0.0f64);
    let mut r1norm = beta;
    if alfa * beta == 0.0 {
        return Ok(done(x, 0, r1norm, true, 0));
    }
    let mut istop = 0;
    let mut itn = 0;
    while itn < iter_lim {
        itn += 1;
        u = axpy(&p.a.matvec(&v)?, -alfa, &u)?;
        beta = norm(&u)?;
        if beta > 0.0 {
            u = scale(1.0 / beta, &u)?;
            anorm = (anorm * anorm + alfa * alfa + beta * beta + dampsq).sqrt();
            v = axpy(&p.a.rmatvec(&u)?, -beta, &v)?;
            alfa = norm(&v)?;
            if alfa > 0.0 {
                v = scale(1.0 / alfa, &v)?;
            }
        }
        let (rhobar1, psi) = if o.damp > 0.0 {
            let r1 = rhobar.hypot(o.damp);
            let (c1, s1) = (rhobar / r1, o.damp / r1);
            let psi = s1 * phibar;
            phibar *= c1;
            (r1, psi)
        } else {
            (rhobar, 0.0)
        };
        let (cs, sn, rho) = sym_ortho(rhobar1, beta);
        let theta = sn * alfa;
        rhobar = -cs * alfa;
        let phi = cs * phibar;
        phibar *= sn;
        let tau = sn * phi;
        let wnorm = norm(&w)?;
        x = axpy(&x, phi / rho, &w)?;
        w = axpy(&v, -theta / rho, &w)?;
        ddnorm += (wnorm / rho).powi(2);
        let delta = sn2 * rho;
        let gambar = -cs2 * rho;
        let rhs = phi - delta * z;
        let zbar = rhs / gambar;
        let xnorm = (xxnorm + zbar * zbar).sqrt();
        let gamma = gambar.hypot(theta);
        cs2 = gambar / gamma;
        sn2 = theta / gamma;
        z = rhs / gamma;
        xxnorm += z * z;
        let acond = anorm * ddnorm.sqrt();
        res2 += psi * psi;
        let rnorm = (phibar * phibar + res2).sqrt();
        let arnorm = alfa * tau.abs();
        let r1sq = rnorm * rnorm - dampsq * xxnorm;
        r1norm = r1sq.abs().sqrt().copysign(r1sq);
        let test1 = rnorm / bnorm;
        let test2 = arnorm / (anorm * rnorm + eps);
        let test3 = 1.0 / (acond + eps);
        istop = Stop::new(
            [test1, test2, test3],
            anorm * xnorm / bnorm,
            &o,
            ctol,
            itn >= iter_lim,
        )
        .istop();
        if istop != 0 {
            break;
        }
    }
    let converged = matches!(istop, 1 | 2 | 4 | 5);
    Ok(done(x, itn, r1norm, converged, istop))
}

/// One iteration's stopping tests, as lsqr and lsmr both make them.
pub(super) struct Stop {
    /// ‖r‖ / ‖b‖.
    pub test1: f64,
    /// ‖Aᵀr‖ / (‖A‖ ‖r‖).
    pub test2: f64,
    /// 1 / cond(A).
    pub test3: f64,
    /// test1 scaled by 1 + ‖A‖ ‖x‖ / ‖b‖.
    pub t1: f64,
    /// btol + atol ‖A‖ ‖x‖ / ‖b‖.
    pub rtol: f64,
    pub atol: f64,
    /// 1 / conlim (0 when there is no limit).
    pub ctol: f64,
    pub out_of_iterations: bool,
}

impl Stop {
    /// The tests of one iteration: `tests` are (test1, test2, test3) and
    /// `ax_over_b` is ‖A‖ ‖x‖ / ‖b‖, which scales test1 and the tolerance
    /// of the residual.
    pub(super) fn new(
        tests: [f64; 3],
        ax_over_b: f64,
        o: &LsqrOptions<'_>,
        ctol: f64,
        out_of_iterations: bool,
    ) -> Stop {
        let [test1, test2, test3] = tests;
        Stop {
            test1,
            test2,
            test3,
            t1: test1 / (1.0 + ax_over_b),
            rtol: o.btol + o.atol * ax_over_b,
            atol: o.atol,
            ctol,
            out_of_iterations,
        }
    }

    /// SciPy's `istop` (0: go on). The tests are SciPy's, in its order, so
    /// a later one that holds takes precedence over an earlier one.
    pub(super) fn istop(&self) -> i64 {
        [
            (self.test1 <= self.rtol, 1),
            (self.test2 <= self.atol, 2),
            (self.test3 <= self.ctol, 3),
            (1.0 + self.t1 <= 1.0, 4),
            (1.0 + self.test2 <= 1.0, 5),
            (1.0 + self.test3 <= 1.0, 6),
            (self.out_of_iterations, 7),
        ]
        .into_iter()
        .find_map(|(holds, code)| holds.then_some(code))
        .unwrap_or(0)
    }
}

/// A stable Givens rotation (c, s, r) with `[c s; -s c] [a; b] = [r; 0]`.
pub(super) fn sym_ortho(a: f64, b: f64) -> (f64, f64, f64) {
    if b == 0.0 {
        let sign = if a > 0.0 {
            1.0
        } else if a < 0.0 {
            -1.0
        } else {
            0.0
        };
        return (sign, 0.0, a.abs());
    }
    if a == 0.0 {
        return (0.0, b.signum(), b.abs());
    }
    if b.abs() > a.abs() {
        let tau = a / b;
        let s = b.signum() / (1.0 + tau * tau).sqrt();
        (s * tau, s, b / s)
    } else {
        let tau = b / a;
        let c = a.signum() / (1.0 + tau * tau).sqrt();
        (c, c * tau, a / c)
    }
}
