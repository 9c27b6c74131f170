//! Restarted GMRES (`scipy.sparse.linalg.gmres`), SciPy's iteration: left
//! preconditioning, Givens rotations on the host's small Hessenberg matrix,
//! an inner convergence test on the rotated residual and an outer test on
//! the true residual after each restart cycle. The Krylov vectors stay on
//! the device (see `basis`); each inner step reads back its Hessenberg
//! column, which is what the convergence estimate is made of.

use num_complex::Complex64;

use crate::api::sparse::linalg::basis::Basis;
use crate::api::sparse::linalg::cg::done;
use crate::api::sparse::linalg::operator::IntoOperator;
use crate::api::sparse::linalg::options::{
    psolve, rhs_norm, tolerance, zero_rhs, Problem, SolveOptions, SolveResult,
};
use crate::api::sparse::linalg::vector::norm;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// Solves `A x = b` by GMRES restarted every `restart` steps (`gmres(A, b,
/// x0, rtol=1e-5, atol=0, restart=20, maxiter=10 n, M, callback)`);
/// `maxiter` counts restart cycles, `iterations` in the result inner steps.
pub fn gmres<'a>(
    a: impl IntoOperator<'a>,
    b: &Array,
    mut opts: SolveOptions<'_>,
) -> Result<SolveResult> {
    let p = Problem::new("gmres", a, b, &opts, true)?;
    let bnorm = rhs_norm(&p)?;
    if bnorm == 0.0 {
        return zero_rhs(&p);
    }
    let atol = tolerance(&opts, bnorm);
    let n = p.n;
    let maxiter = opts.maxiter.unwrap_or(n * 10);
    let restart = opts.restart.unwrap_or(20).min(n);
    let m = opts.m;
    let eps = if matches!(p.dtype, DType::Float32 | DType::Complex64) {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let mut x = p.x.clone();
    let mut basis = Basis::new(restart + 1, &p.b)?;
    // A nearly symmetric operator (after preconditioning) couples `A v_j`
    // mostly to `v_j` and `v_{j-1}`, whose removal is what makes the norm
    // drop below the DGKS threshold nearly every step: taking those two off
    // first (a pass over two rows) spares the second pass over the whole
    // basis. When that still needs the second pass in most steps, the
    // operator is not of that kind, and the steps go back to one plain
    // pass (tried steps, and those that repeated).
    let mut staged = (0usize, 0usize);
    let mut inner_total = 0;
    let mut ptol_max_factor = 1.0f64;
    let mut ptol = bnorm * ptol_max_factor.min(atol / bnorm);
    let mut r = p.residual(&x)?;
    let mut rnorm = norm(&r)?;
    if rnorm < atol {
        return Ok(done(x, 0, rnorm, true, 0));
    }
    for _ in 0..maxiter {
        let v0 = psolve(m, &r)?;
        // Without a preconditioner v0 is r, whose norm is known.
        let v0_norm = if m.is_none() { rnorm } else { norm(&v0)? };
        basis.set_scaled(0, 1.0 / v0_norm, &v0)?;
        // h[col][k]: column col of the Hessenberg matrix, rotated in place.
        let mut h: Vec<Vec<Complex64>> = Vec::with_capacity(restart);
        let mut givens: Vec<(f64, Complex64)> = Vec::with_capacity(restart);
        let mut s = vec![Complex64::new(0.0, 0.0); restart + 1];
        s[0] = Complex64::new(v0_norm, 0.0);
        let mut presid = v0_norm;
        let mut breakdown = false;
        for col in 0..restart {
            let w = psolve(m, &p.a.matvec(&basis.row(col)?)?)?;
            let (tries, misses) = staged;
            let two_stage = tries < 4 || 2 * misses < tries;
            let proj = if two_stage && col > 0 {
                let proj = basis.orthogonalize_recurrence(&w, col - 1..col + 1)?;
                staged = (tries + 1, misses + proj.repeated as usize);
                proj
            } else {
                basis.orthogonalize(&w)?
            };
            let mut hc = proj.h;
            hc.push(Complex64::new(proj.after, 0.0));
            if proj.after <= eps * proj.before {
                hc[col + 1] = Complex64::new(0.0, 0.0);
                breakdown = true;
                basis.push(1.0)?;
            } else {
                basis.push(1.0 / proj.after)?;
            }
            for (k, &(c, sn)) in givens.iter().enumerate() {
                let (n0, n1) = (hc[k], hc[k + 1]);
                hc[k] = n0 * c + sn * n1;
                hc[k + 1] = -sn.conj() * n0 + n1 * c;
            }
            let (c, sn, mag) = lartg(hc[col], hc[col + 1]);
            givens.push((c, sn));
            hc[col] = mag;
            hc[col + 1] = Complex64::new(0.0, 0.0);
            let tail = -sn.conj() * s[col];
            s[col] *= c;
            s[col + 1] = tail;
            presid = tail.norm();
            h.push(hc);
            inner_total += 1;
            if presid <= ptol || breakdown {
                break;
            }
        }
        let y = back_substitute(&h, &s);
        let update = basis.combine(&y)?;
        x = crate::add(&x, &update)?;
        r = crate::subtract(&p.b, p.a.matvec(&x)?)?;
        rnorm = norm(&r)?;
        opts.notify(&x);
        if rnorm <= atol || breakdown || rnorm.is_nan() {
            break;
        }
        if presid <= ptol {
            ptol_max_factor = eps.max(0.25 * ptol_max_factor);
        } else {
            ptol_max_factor = (1.5 * ptol_max_factor).min(1.0);
        }
        ptol = presid * ptol_max_factor.min(atol / rnorm);
    }
    let converged = rnorm <= atol;
    let info = if converged { 0 } else { maxiter as i64 };
    Ok(done(x, inner_total, rnorm, converged, info))
}

/// The plane rotation `[c s; -conj(s) c]` taking `(f, g)` to `(r, 0)` (LAPACK's lartg).
fn lartg(f: Complex64, g: Complex64) -> (f64, Complex64, Complex64) {
    let (af, ag) = (f.norm(), g.norm());
    if ag == 0.0 {
        return (1.0, Complex64::new(0.0, 0.0), f);
    }
    if af == 0.0 {
        return (0.0, g.conj() / ag, Complex64::new(ag, 0.0));
    }
    let d = af.hypot(ag);
    let phase = f / af;
    (af / d, phase * g.conj() / d, phase * d)
}

/// Solves the rotated (upper triangular) Hessenberg system for the update's
/// coefficients; a zero pivot gives a zero coefficient, as SciPy's.
fn back_substitute(h: &[Vec<Complex64>], s: &[Complex64]) -> Vec<Complex64> {
    let k = h.len();
    let mut y: Vec<Complex64> = s[..k].to_vec();
    if k > 0 && h[k - 1][k - 1].norm() == 0.0 {
        y[k - 1] = Complex64::new(0.0, 0.0);
    }
    for i in (0..k).rev() {
        if y[i].norm() != 0.0 {
            y[i] /= h[i][i];
            let t = y[i];
            for (j, yj) in y.iter_mut().enumerate().take(i) {
                *yj -= t * h[i][j];
            }
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lartg_zeroes_the_second_entry() {
        let (f, g) = (Complex64::new(3.0, 1.0), Complex64::new(-2.0, 0.5));
        let (c, s, r) = lartg(f, g);
        assert!((f * c + s * g - r).norm() < 1e-12);
        assert!((-s.conj() * f + g * c).norm() < 1e-12);
    }
}
