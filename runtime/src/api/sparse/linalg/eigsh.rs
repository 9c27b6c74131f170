//! `eigsh` (a few eigenpairs of a real symmetric operator) by thick-restart
//! Lanczos, and `svds` through it.
//!
//! The Lanczos vectors are the rows of one device array, extended with full
//! reorthogonalization after the three-term recurrence (see `basis`); the
//! projected matrix `V^T A V` is small (ncv x ncv) and lives on the host,
//! filled from the coefficients each step reads back. At a restart the k
//! Ritz vectors nearest the wanted end become the new first rows (one
//! device `matmul`) and the last residual direction follows them, so the
//! projected matrix is an arrow plus a tridiagonal tail (Wu and Simon's
//! thick restart).

use num_complex::Complex64;

use crate::api::sparse::linalg::basis::{upload, Basis};
use crate::api::sparse::linalg::operator::{IntoOperator, LinearOperator};
use crate::api::sparse::linalg::options::require_square;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Which end of the spectrum `eigsh` looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Which {
    /// Largest algebraic (`'LA'`).
    LA,
    /// Smallest algebraic (`'SA'`).
    SA,
    /// Largest magnitude (`'LM'`, SciPy's default).
    #[default]
    LM,
}

/// Options of [`eigsh`] (SciPy's keyword arguments).
#[derive(Debug, Clone, Copy, Default)]
pub struct EigshOptions<'a> {
    /// Which eigenvalues.
    pub which: Which,
    /// Lanczos vectors kept between restarts (`min(n, max(2k + 1, 20))` when `None`).
    pub ncv: Option<usize>,
    /// The most restarts (`10 n` when `None`).
    pub maxiter: Option<usize>,
    /// Relative accuracy of the eigenvalues (0: machine precision).
    pub tol: f64,
    /// The starting vector (a fixed pseudo-random one when `None`).
    pub v0: Option<&'a Array>,
    /// Whether to compute the eigenvectors.
    pub skip_vectors: bool,
}

impl<'a> EigshOptions<'a> {
    /// SciPy's defaults (`which='LM'`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Which end of the spectrum.
    pub fn which(mut self, which: Which) -> Self {
        self.which = which;
        self
    }
    /// The number of Lanczos vectors.
    pub fn ncv(mut self, ncv: usize) -> Self {
        self.ncv = Some(ncv);
        self
    }
    /// The most restarts.
    pub fn maxiter(mut self, maxiter: usize) -> Self {
        self.maxiter = Some(maxiter);
        self
    }
    /// The relative tolerance.
    pub fn tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }
    /// The starting vector.
    pub fn v0(mut self, v0: &'a Array) -> Self {
        self.v0 = Some(v0);
        self
    }
    /// Eigenvalues only (`return_eigenvectors=False`).
    pub fn values_only(mut self) -> Self {
        self.skip_vectors = true;
        self
    }
}

/// What [`eigsh`] found.
#[derive(Debug, Clone)]
pub struct Eigsh {
    /// The k eigenvalues, ascending (as SciPy returns them).
    pub values: Vec<f64>,
    /// The eigenvectors as the columns of an (n, k) array on the operator's device.
    pub vectors: Option<Array>,
    /// Restarts done.
    pub restarts: usize,
    /// Whether every eigenpair met the tolerance (SciPy raises
    /// `ArpackNoConvergence` otherwise; here the best estimates come back).
    pub converged: bool,
}

/// `k` eigenvalues (and eigenvectors) of the real symmetric `a` (`eigsh(A,
/// k, which, ncv, maxiter, tol, v0)`); `1 <= k < n`.
pub fn eigsh<'a>(a: impl IntoOperator<'a>, k: usize, opts: EigshOptions<'_>) -> Result<Eigsh> {
    lanczos("eigsh", a.into_operator()?, k, &opts)
}

fn lanczos(
    op: &'static str,
    a: LinearOperator<'_>,
    k: usize,
    opts: &EigshOptions<'_>,
) -> Result<Eigsh> {
    let n = require_square(op, a.shape())?;
    if k == 0 || k >= n {
        return Err(Error::invalid(
            op,
            format!("k must satisfy 1 <= k < n = {n}, not {k}"),
        ));
    }
    let dt = match a.dtype() {
        DType::Float32 => DType::Float32,
        DType::Complex64 | DType::Complex128 => {
            return Err(Error::DType {
                op,
                detail: format!(
                    "complex Hermitian operators are not supported yet (dtype {})",
                    a.dtype()
                ),
            })
        }
        _ => DType::Float64,
    };
    let ncv = opts.ncv.unwrap_or((2 * k + 1).max(20)).min(n);
    if ncv <= k || ncv > n {
        return Err(Error::invalid(
            op,
            format!("ncv must satisfy k < ncv <= n ({k} < ncv <= {n}), not {ncv}"),
        ));
    }
    if opts.tol.is_nan() || opts.tol < 0.0 {
        return Err(Error::invalid(
            op,
            format!("tol must be >= 0, not {}", opts.tol),
        ));
    }
    let eps = if dt == DType::Float32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let tol = if opts.tol == 0.0 { eps } else { opts.tol };
    let maxiter = opts.maxiter.unwrap_or(10 * n).max(1);
    let device = a
        .device()
        .unwrap_or_else(crate::backend::probe::current_device);
    let v0 = match opts.v0 {
        Some(v) => {
            if v.shape() != [n] {
                return Err(Error::shape(
                    op,
                    format!(
                        "v0 must have shape ({n},), not {}",
                        crate::core::error::fmt_shape(v.shape())
                    ),
                ));
            }
            v.astype(dt)?
        }
        None => start_vector(n, 1, device)?.astype(dt)?,
    };
    let v0n = super::vector::norm(&v0)?;
    if v0n == 0.0 {
        return Err(Error::invalid(op, "v0 is zero"));
    }
    let mut basis = Basis::new(ncv + 1, &v0)?;
    basis.set_scaled(0, 1.0 / v0n, &v0)?;
    let mut t = vec![vec![0.0f64; ncv]; ncv];
    let mut start = 0;
    // Keep the k wanted Ritz vectors (as CuPy's eigsh does): each restart
    // then extends by ncv - k Lanczos steps.
    let keep_target = k;
    let mut fresh = 2u64;
    for restart in 0..maxiter {
        let mut beta = 0.0;
        for j in start..ncv {
            let w = a.matvec(&basis.row(j)?)?;
            // Past the first step of a cycle, `A v_j` couples to `v_{j-1}`
            // and `v_j` alone (the tridiagonal tail); the first couples to
            // every kept Ritz vector (the arrow), so it takes the full pass.
            let proj = if j > start {
                basis.orthogonalize_recurrence(&w, j - 1..j + 1)?
            } else {
                basis.orthogonalize(&w)?
            };
            for (i, h) in proj.h.iter().enumerate() {
                t[i][j] = h.re;
                t[j][i] = h.re;
            }
            beta = proj.after;
            if proj.after > eps.sqrt() * proj.before.max(f64::MIN_POSITIVE) {
                basis.push(1.0 / proj.after)?;
            } else {
                // An invariant subspace: go on from a fresh direction (coupling 0).
                beta = 0.0;
                if j + 1 < ncv || restart + 1 < maxiter {
                    let r = start_vector(n, fresh, device)?.astype(dt)?;
                    fresh += 1;
                    let p = basis.orthogonalize(&r)?;
                    basis.push(1.0 / p.after.max(f64::MIN_POSITIVE))?;
                }
                if j + 1 < ncv {
                    t[j + 1][j] = 0.0;
                    t[j][j + 1] = 0.0;
                }
            }
        }
        let (theta, y) = small_eigen(op, &t)?;
        let order = wanted_order(&theta, opts.which);
        let residual = |i: usize| (beta * y[ncv - 1][i]).abs();
        let eps23 = eps.powf(2.0 / 3.0);
        // ARPACK's test, `|beta y_last| <= tol max(|theta|, eps^(2/3))`, with a
        // floor at rounding level: after a thick restart the couplings of the
        // kept Ritz vectors are recomputed by projection, exact only to about
        // eps ||A||, so with tol = eps a small eigenvalue (theta ~ 1e-4 asks
        // for 1e-20) could never pass though it is as accurate as rounding
        // allows.
        let norm_t = theta.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let floor = ROUNDING_FLOOR * eps * norm_t;
        let converged = order[..k]
            .iter()
            .all(|&i| residual(i) <= (tol * theta[i].abs().max(eps23)).max(floor));
        if converged || restart + 1 == maxiter {
            let mut chosen: Vec<usize> = order[..k].to_vec();
            chosen.sort_by(|&p, &q| theta[p].total_cmp(&theta[q]));
            let values = chosen.iter().map(|&i| theta[i]).collect();
            let vectors = if opts.skip_vectors {
                None
            } else {
                Some(ritz_vectors(&basis, &y, &chosen, ncv)?.t())
            };
            return Ok(Eigsh {
                values,
                vectors,
                restarts: restart,
                converged,
            });
        }
        // Thick restart: the `keep` best Ritz vectors, then the residual direction.
        let kept: Vec<usize> = order[..keep_target].to_vec();
        let new_rows = ritz_vectors(&basis, &y, &kept, ncv)?;
        // Row ncv is not among the rows the Ritz vectors overwrite.
        let last = basis.row(ncv)?;
        basis.set_first(&new_rows)?;
        basis.set(kept.len(), &last)?;
        for row in t.iter_mut() {
            row.iter_mut().for_each(|v| *v = 0.0);
        }
        for (r, &i) in kept.iter().enumerate() {
            t[r][r] = theta[i];
        }
        start = kept.len();
    }
    unreachable_result(op)
}

/// The residual estimates below `ROUNDING_FLOOR * eps * ||T||` count as
/// converged (the projected matrix's norm estimates `||A||`).
const ROUNDING_FLOOR: f64 = 16.0;

fn unreachable_result(op: &'static str) -> Result<Eigsh> {
    Err(Error::invalid(op, "internal: no restart ran"))
}

/// The rows `Y[:, idx]^T V[:ncv]` (one per chosen Ritz pair), as (len, n).
fn ritz_vectors(basis: &Basis, y: &[Vec<f64>], idx: &[usize], ncv: usize) -> Result<Array> {
    let mut coeffs = Vec::with_capacity(idx.len() * ncv);
    for &i in idx {
        for row in y.iter().take(ncv) {
            coeffs.push(Complex64::new(row[i], 0.0));
        }
    }
    let v = basis.first(ncv)?;
    let c = upload(&coeffs, false, v.dtype(), &v)?.reshape(vec![idx.len(), ncv])?;
    crate::api::linalg::matmul::matmul(&c, &v)
}

/// Eigenvalues (ascending) and eigenvectors (`y[row][col]`) of the small symmetric matrix.
fn small_eigen(op: &'static str, t: &[Vec<f64>]) -> Result<(Vec<f64>, Vec<Vec<f64>>)> {
    let n = t.len();
    let m = faer::Mat::<f64>::from_fn(n, n, |i, j| 0.5 * (t[i][j] + t[j][i]));
    let f = m
        .self_adjoint_eigen(faer::Side::Lower)
        .map_err(|e| Error::LinAlg {
            op,
            detail: format!("the projected eigenproblem did not converge ({e:?})"),
        })?;
    let s = f.S().column_vector();
    let u = f.U();
    let theta: Vec<f64> = (0..n).map(|i| s[i]).collect();
    let y = (0..n)
        .map(|i| (0..n).map(|j| u[(i, j)]).collect())
        .collect();
    Ok((theta, y))
}

/// Indices of `theta`, the wanted end first.
fn wanted_order(theta: &[f64], which: Which) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..theta.len()).collect();
    match which {
        Which::LA => idx.sort_by(|&p, &q| theta[q].total_cmp(&theta[p])),
        Which::SA => idx.sort_by(|&p, &q| theta[p].total_cmp(&theta[q])),
        Which::LM => idx.sort_by(|&p, &q| theta[q].abs().total_cmp(&theta[p].abs())),
    }
    idx
}

/// A fixed pseudo-random vector in [-1, 1) (xorshift), uploaded to `device`.
fn start_vector(n: usize, seed: u64, device: crate::Device) -> Result<Array> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v: Vec<f64> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect();
    Array::from_host_slice(&v, &[n], device)
}

/// What [`svds`] found: `A ≈ U diag(s) V^T` for the k largest singular values.
#[derive(Debug, Clone)]
pub struct Svds {
    /// (m, k) left singular vectors.
    pub u: Array,
    /// The k largest singular values, ascending (as SciPy returns them).
    pub s: Vec<f64>,
    /// (k, n) right singular vectors.
    pub vt: Array,
}

/// The `k` largest singular triplets of `a` (`svds(A, k)`), from `eigsh` of
/// `A^T A` (which needs `rmatvec`); `1 <= k < min(m, n)`.
pub fn svds<'a>(a: impl IntoOperator<'a>, k: usize) -> Result<Svds> {
    let op = "svds";
    let a = a.into_operator()?;
    let (m, n) = a.shape();
    if k == 0 || k >= m.min(n) {
        return Err(Error::invalid(
            op,
            format!("k must satisfy 1 <= k < min(m, n) = {}, not {k}", m.min(n)),
        ));
    }
    if !a.has_rmatvec() {
        return Err(Error::invalid(op, "the operator needs an rmatvec (A^H y)"));
    }
    let inner = a.clone();
    let ata = LinearOperator::new((n, n), a.dtype(), move |x| inner.rmatvec(&inner.matvec(x)?));
    let ata = match a.device() {
        Some(d) => ata.with_device(d),
        None => ata,
    };
    let e = lanczos(op, ata, k, &EigshOptions::new().which(Which::LA))?;
    let v = e
        .vectors
        .ok_or_else(|| Error::invalid(op, "internal: no vectors"))?;
    let s: Vec<f64> = e.values.iter().map(|&l| l.max(0.0).sqrt()).collect();
    let mut ucols = Vec::with_capacity(k);
    for (j, &sj) in s.iter().enumerate() {
        let vj = v.slice([
            crate::api::shape::index::SliceElem::from(..),
            crate::api::shape::index::SliceElem::Index(j as isize),
        ])?;
        let av = a.matvec(&vj.ascontiguousarray()?)?;
        ucols.push(if sj > 0.0 {
            crate::multiply(1.0 / sj, &av)?
        } else {
            av
        });
    }
    let refs: Vec<&Array> = ucols.iter().collect();
    Ok(Svds {
        u: crate::stack(&refs, 1)?,
        s,
        vt: v.t().ascontiguousarray()?,
    })
}
