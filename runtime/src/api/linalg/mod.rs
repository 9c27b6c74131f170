//! `cp.linalg`: solving, inverting, determinants, factorizations (Cholesky,
//! QR, SVD, Hermitian and general eigen), norms, least squares,
//! pseudo-inverse, rank and trace, on the CPU (faer) and on CUDA (cuSOLVER
//! and cuBLAS).
//!
//! Inputs are float32, float64, complex64 or complex128; other dtypes are
//! promoted as NumPy does (bool and integers to float64) and float16 /
//! bfloat16 are computed in float32 (NumPy refuses them; CuPy computes them
//! in float32). Leading axes are batch axes where NumPy allows them.
//! Numerical failures (a singular matrix given to `inv`/`solve`, a matrix
//! that is not positive definite given to `cholesky`, no convergence) are
//! [`Error::LinAlg`](crate::Error::LinAlg) naming the routine's `info`
//! value; wrong shapes are [`Error::Shape`](crate::Error::Shape).

mod eig;
mod extra;
mod lu;
pub(crate) mod matmul;
pub use eig::{eig, eigvals};
pub use extra::{cond, kron, matrix_power, multi_dot};
pub use lu::{lu_factor, lu_solve, solve_triangular, Trans};

use num_complex::Complex64;

use crate::api::linalg::matmul::{as_dtype, conj, matmul, same_device};
use crate::backend::probe::with_device;
use crate::backend::Backend;
use crate::core::array::Array;
use crate::core::dtype::{promote_types, DType};
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::{broadcast_shapes, Layout};
use crate::core::view::View;
use crate::ops::linalg::Owned;

/// The dtype a linalg routine computes in for an input of `d`.
fn field_dtype(d: DType) -> DType {
    match d {
        d if d.is_inexact() => d.compute_dtype(),
        _ => DType::Float64,
    }
}

/// `a` converted to its computing dtype.
fn promoted(a: &Array) -> Result<Array> {
    as_dtype(a, field_dtype(a.dtype()))
}

/// Fails unless `a` has at least two axes.
fn check_2d(op: &'static str, a: &Array) -> Result<()> {
    if a.ndim() < 2 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "{}-dimensional array given (shape {}); the array must be at least two-dimensional",
                a.ndim(),
                fmt_shape(a.shape())
            ),
        });
    }
    Ok(())
}

/// Fails unless `a` is a (stack of) square matrices.
fn check_square(op: &'static str, a: &Array) -> Result<usize> {
    check_2d(op, a)?;
    let nd = a.ndim();
    let (r, c) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    if r != c {
        return Err(Error::Shape {
            op,
            detail: format!(
                "the last 2 dimensions of the array must be square; shape {} ends in {r}×{c}",
                fmt_shape(a.shape())
            ),
        });
    }
    Ok(r)
}

/// One matrix (2-D view) of `a` at buffer offset `off`.
fn matrix_at(a: &Array, off: usize) -> Array {
    let nd = a.ndim();
    a.with_layout(Layout::from_parts(
        a.shape()[nd - 2..].to_vec(),
        a.strides()[nd - 2..].to_vec(),
        off,
    ))
}

/// Buffer offsets of every matrix of a (batch..., r, c) array.
fn matrix_offsets(a: &Array) -> Vec<usize> {
    let nd = a.ndim();
    Layout::from_parts(
        a.shape()[..nd - 2].to_vec(),
        a.strides()[..nd - 2].to_vec(),
        a.layout().offset(),
    )
    .positions()
    .collect()
}

/// Runs `f` on each matrix of `a` (batch..., r, c) and stacks each of its
/// outputs over the batch axes. An empty batch runs `f` once on an identity
/// matrix only to learn the output shapes.
fn per_matrix(a: &Array, mut f: impl FnMut(&Array) -> Result<Vec<Array>>) -> Result<Vec<Array>> {
    let nd = a.ndim();
    if nd == 2 {
        return f(a);
    }
    let batch = a.shape()[..nd - 2].to_vec();
    let device = a.device();
    let with_batch = |s: &[usize]| -> Vec<usize> {
        let mut v = batch.clone();
        v.extend_from_slice(s);
        v
    };
    if a.size() == 0 && batch.contains(&0) {
        let (r, c) = (a.shape()[nd - 2], a.shape()[nd - 1]);
        let probe = with_device(device, || crate::eye(r, Some(c), 0, a.dtype()))?;
        let outs = f(&probe)?;
        return outs
            .iter()
            .map(|o| with_device(device, || crate::zeros(with_batch(o.shape()), o.dtype())))
            .collect();
    }
    let mut results: Vec<Vec<Array>> = Vec::new();
    for off in matrix_offsets(a) {
        results.push(f(&matrix_at(a, off))?);
    }
    let n_out = results[0].len();
    (0..n_out)
        .map(|j| {
            let parts: Vec<&Array> = results.iter().map(|r| &r[j]).collect();
            let stacked = with_device(device, || crate::stack(&parts, 0))?;
            stacked.reshape(with_batch(results[0][j].shape()))
        })
        .collect()
}

// ---------------------------------------------------------------------------
// CPU building blocks (faer)
// ---------------------------------------------------------------------------

/// A result of the backend as an array of `dtype`.
fn array((storage, layout): Owned, dtype: DType) -> Array {
    Array::from_parts(storage, layout, dtype)
}

// ---------------------------------------------------------------------------
// solve, inv, det, slogdet
// ---------------------------------------------------------------------------

/// Solves `a x = b` (`np.linalg.solve`): a (..., M, M); b (M,) or
/// (..., M, K) with broadcasting batch axes. A singular `a` is `LinAlg`.
pub fn solve(a: &Array, b: &Array) -> Result<Array> {
    batched_solve("solve", a, b, solve_one)
}

fn solve_one(a: &Array, b: &Array) -> Result<Array> {
    let x = crate::backend::on("solve", a.device())?.solve(a.view(), b.view())?;
    Ok(array(x, a.dtype()))
}

/// Validates and broadcasts a solve's `a` (..., M, M) and `b` (M,) or
/// (..., M, K) (`np.linalg.solve`'s rules), converts both to their common
/// computing dtype and runs `one` on each pair of non-empty (M, M) and
/// (M, K) matrices, stacking the solutions.
fn batched_solve(
    op: &'static str,
    a: &Array,
    b: &Array,
    one: impl Fn(&Array, &Array) -> Result<Array>,
) -> Result<Array> {
    let device = same_device(op, a, b)?;
    let n = check_square(op, a)?;
    let vector = b.ndim() == 1;
    if b.ndim() == 0 {
        return Err(Error::Shape {
            op,
            detail: "b must be at least one-dimensional".into(),
        });
    }
    let b2 = if vector { b.expand_dims(1)? } else { b.clone() };
    let (bm, k) = (b2.shape()[b2.ndim() - 2], b2.shape()[b2.ndim() - 1]);
    if bm != n {
        return Err(Error::Shape {
            op,
            detail: format!(
                "a has shape {} but b has shape {}; b's {} axis must have extent {n}",
                fmt_shape(a.shape()),
                fmt_shape(b.shape()),
                if vector { "only" } else { "second-to-last" }
            ),
        });
    }
    let dtype = field_dtype(promote_types(a.dtype(), b.dtype()));
    let a = as_dtype(a, dtype)?;
    let b2 = as_dtype(&b2, dtype)?;
    let batch = broadcast_shapes(
        op,
        &[&a.shape()[..a.ndim() - 2], &b2.shape()[..b2.ndim() - 2]],
    )?;
    let mut ash = batch.clone();
    ash.extend([n, n]);
    let mut bsh = batch.clone();
    bsh.extend([n, k]);
    let a = a.broadcast_to(&ash)?;
    let b2 = b2.broadcast_to(&bsh)?;
    let x = if n == 0 || k == 0 || batch.contains(&0) {
        with_device(device, || crate::zeros(bsh.clone(), dtype))?
    } else if a.ndim() == 2 {
        one(&a, &b2)?
    } else {
        // Pair each matrix of a with the matching one of b.
        let aoffs = matrix_offsets(&a);
        let boffs = matrix_offsets(&b2);
        let mut parts = Vec::with_capacity(aoffs.len());
        for (ao, bo) in aoffs.iter().zip(&boffs) {
            parts.push(one(&matrix_at(&a, *ao), &matrix_at(&b2, *bo))?);
        }
        let refs: Vec<&Array> = parts.iter().collect();
        with_device(device, || crate::stack(&refs, 0))?.reshape(bsh.clone())?
    };
    if vector {
        let mut sh = batch;
        sh.push(n);
        x.reshape(sh)
    } else {
        Ok(x)
    }
}

/// The inverse of a (stack of) square matrices (`np.linalg.inv`). A
/// singular matrix is `LinAlg`. On CUDA, stacks use cuBLAS's batched LU
/// (`getrfBatched` + `getriBatched`) and single matrices cuSOLVER's
/// `getrf` + `getrs` against the identity, as CuPy.
pub fn inv(a: &Array) -> Result<Array> {
    let op = "inv";
    let n = check_square(op, a)?;
    let a = promoted(a)?;
    let device = a.device();
    if n == 0 || a.size() == 0 {
        return with_device(device, || crate::zeros(a.shape(), a.dtype()));
    }
    let r = crate::backend::on(op, device)?
        .inv(a.view())
        .map_err(|e| rename(e, op))?;
    Ok(array(r, a.dtype()))
}

/// The same error reported under another operation's name.
fn rename(e: Error, op: &'static str) -> Error {
    match e {
        Error::LinAlg { detail, .. } => Error::LinAlg { op, detail },
        other => other,
    }
}

/// U's diagonal (as complex128) and the permutation's parity of one matrix.
fn lu_diag(a: &Array) -> Result<(Vec<Complex64>, bool)> {
    crate::backend::on("det", a.device())?.lu_diagonal(a.view())
}

/// Sign (unit modulus, or 0) and log of |det| from LU factors.
fn sign_logdet(d: &[Complex64], odd: bool) -> (Complex64, f64) {
    let mut sign = Complex64::new(if odd { -1.0 } else { 1.0 }, 0.0);
    let mut log = 0.0;
    for &x in d {
        let m = x.norm();
        if m == 0.0 {
            return (Complex64::new(0.0, 0.0), f64::NEG_INFINITY);
        }
        sign *= x / m;
        log += m.ln();
    }
    (sign, log)
}

/// The determinant of a (stack of) square matrices (`np.linalg.det`);
/// singular matrices give 0, as NumPy.
pub fn det(a: &Array) -> Result<Array> {
    let op = "det";
    check_square(op, a)?;
    let a = promoted(a)?;
    // The LU runs on the device; its diagonals are combined on the host.
    let (signs, logs) = crate::backend::fallback::fetch(op, a.device(), || slogdet_values(&a))?;
    let vals: Vec<Complex64> = signs.iter().zip(&logs).map(|(s, l)| s * l.exp()).collect();
    let batch = &a.shape()[..a.ndim() - 2];
    let host = Array::from_vec_cpu(vals, batch);
    host.astype(a.dtype())?.to_device(&a.device())
}

/// Sign and natural log of the absolute determinant (`np.linalg.slogdet`):
/// `(sign, logabsdet)`; a singular matrix gives sign 0 and -inf.
pub fn slogdet(a: &Array) -> Result<(Array, Array)> {
    let op = "slogdet";
    check_square(op, a)?;
    let a = promoted(a)?;
    let (signs, logs) = crate::backend::fallback::fetch(op, a.device(), || slogdet_values(&a))?;
    let batch = &a.shape()[..a.ndim() - 2];
    let sign = Array::from_vec_cpu(signs, batch)
        .astype(a.dtype())?
        .to_device(&a.device())?;
    let log = Array::from_vec_cpu(logs, batch)
        .astype(a.dtype().real_dtype())?
        .to_device(&a.device())?;
    Ok((sign, log))
}

fn slogdet_values(a: &Array) -> Result<(Vec<Complex64>, Vec<f64>)> {
    let nd = a.ndim();
    let n = a.shape()[nd - 1];
    let mut signs = Vec::new();
    let mut logs = Vec::new();
    if a.size() == 0 {
        // Empty batch: nothing; 0×0 matrices: det 1.
        let count: usize = a.shape()[..nd - 2].iter().product();
        return Ok((vec![Complex64::new(1.0, 0.0); count], vec![0.0; count]));
    }
    for off in matrix_offsets(a) {
        let (d, odd) = lu_diag(&matrix_at(a, off))?;
        let (s, l) = sign_logdet(&d, odd);
        signs.push(s);
        logs.push(l);
    }
    let _ = n;
    Ok((signs, logs))
}

// ---------------------------------------------------------------------------
// cholesky, qr, svd, eigh
// ---------------------------------------------------------------------------

/// The lower Cholesky factor L of a (stack of) Hermitian positive definite
/// matrices, `a = L Lᴴ` (`np.linalg.cholesky`; only the lower triangle of
/// `a` is read). Not positive definite is `LinAlg`.
pub fn cholesky(a: &Array) -> Result<Array> {
    let op = "cholesky";
    let n = check_square(op, a)?;
    let a = promoted(a)?;
    if a.size() == 0 {
        return with_device(a.device(), || crate::zeros(a.shape(), a.dtype()));
    }
    let be = crate::backend::on(op, a.device())?;
    let _ = n;
    Ok(per_matrix(&a, |m| Ok(vec![array(be.cholesky(m.view())?, m.dtype())]))?.remove(0))
}

/// Which factors `qr` returns (NumPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QrMode {
    /// Q (M, K) and R (K, N), K = min(M, N) (NumPy's default).
    #[default]
    Reduced,
    /// Q (M, M) and R (M, N).
    Complete,
    /// Only R (K, N).
    R,
}

/// The QR factorization `a = Q R` of a (stack of) matrices (`np.linalg.qr`):
/// `(Some(Q), R)`, or `(None, R)` for [`QrMode::R`]. Q has orthonormal
/// columns and R is upper triangular (signs may differ from NumPy's).
pub fn qr(a: &Array, mode: QrMode) -> Result<(Option<Array>, Array)> {
    let op = "qr";
    check_2d(op, a)?;
    let a = promoted(a)?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let k = m.min(n);
    let complete = mode == QrMode::Complete;
    let want_q = mode != QrMode::R;
    let (qc, rr) = if complete { (m, m) } else { (k, k) };
    let dev = a.device();
    let be = crate::backend::on(op, dev)?;
    let outs = per_matrix(&a, |x| {
        let mut outs = Vec::new();
        if m == 0 || n == 0 {
            if want_q {
                outs.push(with_device(dev, || crate::eye(m, Some(qc), 0, x.dtype()))?);
            }
            outs.push(with_device(dev, || crate::zeros([rr, n], x.dtype()))?);
            return Ok(outs);
        }
        let (q, r) = be.qr(x.view(), complete, want_q)?;
        outs.extend(q.map(|q| array(q, x.dtype())));
        outs.push(array(r, x.dtype()));
        Ok(outs)
    })?;
    let mut it = outs.into_iter();
    if want_q {
        let q = it.next().expect("the closure pushes Q first when want_q");
        Ok((Some(q), it.next().expect("the closure always pushes R")))
    } else {
        Ok((None, it.next().expect("the closure always pushes R")))
    }
}

/// The result of [`svd`]: `a = U diag(S) Vh`.
#[derive(Debug, Clone)]
pub struct Svd {
    /// Left singular vectors (columns), when computed.
    pub u: Option<Array>,
    /// Singular values, descending, of the real dtype.
    pub s: Array,
    /// Right singular vectors as rows (Vᴴ), when computed.
    pub vh: Option<Array>,
}

/// The singular value decomposition of a (stack of) matrices
/// (`np.linalg.svd(a, full_matrices, compute_uv)`). On CUDA this is
/// cuSOLVER's `gesvd`, as CuPy.
pub fn svd(a: &Array, full_matrices: bool, compute_uv: bool) -> Result<Svd> {
    let op = "svd";
    check_2d(op, a)?;
    let a = promoted(a)?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let k = m.min(n);
    let (uc, vr) = if full_matrices { (m, n) } else { (k, k) };
    let dev = a.device();
    let be = crate::backend::on(op, dev)?;
    let outs = per_matrix(&a, |x| {
        let dt = x.dtype();
        if m == 0 || n == 0 {
            let s = with_device(dev, || crate::zeros([0usize], dt.real_dtype()))?;
            if !compute_uv {
                return Ok(vec![s]);
            }
            let u = with_device(dev, || crate::eye(m, Some(uc), 0, dt))?;
            let vh = with_device(dev, || crate::eye(vr, Some(n), 0, dt))?;
            return Ok(vec![u, s, vh]);
        }
        let (u, s, vh) = be.svd(x.view(), full_matrices, compute_uv)?;
        let s = array(s, dt.real_dtype());
        Ok(match (u, vh) {
            (Some(u), Some(vh)) => vec![array(u, dt), s, array(vh, dt)],
            _ => vec![s],
        })
    })?;
    let mut it = outs.into_iter();
    if compute_uv {
        let u = it.next();
        let s = it
            .next()
            .expect("the closure always pushes the singular values");
        let vh = it.next();
        Ok(Svd { u, s, vh })
    } else {
        Ok(Svd {
            u: None,
            s: it
                .next()
                .expect("the closure always pushes the singular values"),
            vh: None,
        })
    }
}

/// Eigenvalues (ascending, real dtype) and eigenvectors (columns) of a
/// (stack of) Hermitian matrices, reading the lower triangle
/// (`np.linalg.eigh(a, UPLO='L')`). On CUDA this is `syevd` / `heevd`.
pub fn eigh(a: &Array) -> Result<(Array, Array)> {
    Ok(values_and_vectors(eigh_impl(a, true)?))
}

/// Eigenvalues (ascending) of a (stack of) Hermitian matrices, reading the
/// lower triangle (`np.linalg.eigvalsh`).
pub fn eigvalsh(a: &Array) -> Result<Array> {
    Ok(eigh_impl(a, false)?.remove(0))
}

fn eigh_impl(a: &Array, vectors: bool) -> Result<Vec<Array>> {
    let op = if vectors { "eigh" } else { "eigvalsh" };
    check_square(op, a)?;
    let a = promoted(a)?;
    let dtypes = (a.dtype().real_dtype(), a.dtype());
    eigen_stack(op, &a, vectors, dtypes, |be, x| be.eigh(x, vectors))
}

/// Runs `solve` (the backend's `eigh` or `eig`) on each matrix of the
/// square stack `a` (in its computing dtype): `[w, v]`, or `[w]` without
/// `vectors`, with w and v of `dtypes`; 0×0 matrices give empty results.
fn eigen_stack(
    op: &'static str,
    a: &Array,
    vectors: bool,
    (w_dtype, v_dtype): (DType, DType),
    solve: impl Fn(&dyn Backend, View<'_>) -> Result<(Owned, Option<Owned>)>,
) -> Result<Vec<Array>> {
    let n = a.shape()[a.ndim() - 1];
    let dev = a.device();
    let be = crate::backend::on(op, dev)?;
    per_matrix(a, |x| {
        if n == 0 {
            let w = with_device(dev, || crate::zeros([0usize], w_dtype))?;
            let v = with_device(dev, || crate::zeros([0usize, 0], v_dtype))?;
            return Ok(if vectors { vec![w, v] } else { vec![w] });
        }
        let (w, v) = solve(be, x.view())?;
        let mut o = vec![array(w, w_dtype)];
        o.extend(v.map(|v| array(v, v_dtype)));
        Ok(o)
    })
}

/// An eigensolver's `[w, v]` as the pair `(w, v)`.
fn values_and_vectors(mut parts: Vec<Array>) -> (Array, Array) {
    let v = parts.pop().expect("eigensolvers return [w, v], two parts");
    (
        parts.pop().expect("eigensolvers return [w, v], two parts"),
        v,
    )
}

// ---------------------------------------------------------------------------
// norm, lstsq, pinv, matrix_rank, trace
// ---------------------------------------------------------------------------

/// The `ord` of [`norm`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormOrd {
    /// NumPy's `ord=None`: 2-norm of vectors, Frobenius of matrices.
    Default,
    /// Frobenius norm (`'fro'`, matrices only).
    Fro,
    /// Nuclear norm, the sum of singular values (`'nuc'`, matrices only).
    Nuc,
    /// `inf`: max |x| of vectors, max row sum of matrices.
    Inf,
    /// `-inf`: min |x| of vectors, min row sum of matrices.
    NegInf,
    /// A number: vectors any p (0 counts non-zeros); matrices 1, -1, 2, -2.
    P(f64),
}

/// Vector or matrix norms (`np.linalg.norm(x, ord, axis, keepdims)`):
/// `axis` None takes the whole array (a vector norm for 1-D, a matrix norm
/// for 2-D, the flattened 2-norm otherwise with ord Default); one axis gives
/// vector norms, two axes matrix norms.
pub fn norm(x: &Array, ord: NormOrd, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    let op = "norm";
    let x = if x.dtype().is_inexact() && field_dtype(x.dtype()) == x.dtype() {
        x.clone()
    } else {
        x.astype(field_dtype(x.dtype()))?
    };
    let nd = x.ndim();
    let axes: Vec<usize> = match axis {
        None => {
            if ord == NormOrd::Default || (nd == 1 && !matches!(ord, NormOrd::Fro | NormOrd::Nuc)) {
                // The flattened 2-norm (or vector norm of a 1-D array).
                let flat = x.ravel()?;
                let r = vector_norm(&flat, ord, 0)?;
                return keep(r, &(0..nd).collect::<Vec<_>>(), nd, keepdims);
            }
            if nd != 2 {
                return Err(Error::Shape {
                    op,
                    detail: format!(
                        "ord {ord:?} without axis needs a 1-D or 2-D array; shape {} has {nd} axes",
                        fmt_shape(x.shape())
                    ),
                });
            }
            vec![0, 1]
        }
        Some(ax) => crate::core::layout::normalize_axes(op, ax, nd)?,
    };
    match axes.len() {
        1 => {
            if matches!(ord, NormOrd::Fro | NormOrd::Nuc) {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!("ord {ord:?} is a matrix norm; it needs two axes"),
                });
            }
            let r = vector_norm(&x, ord, axes[0])?;
            keep(r, &axes, nd, keepdims)
        }
        2 => {
            let r = matrix_norm(&x, ord, axes[0], axes[1])?;
            keep(r, &axes, nd, keepdims)
        }
        n => Err(Error::InvalidArgument {
            op,
            detail: format!("axis names {n} axes; norms take one (vector) or two (matrix)"),
        }),
    }
}

/// Re-inserts the reduced axes as extent 1 when `keepdims`.
fn keep(r: Array, axes: &[usize], nd: usize, keepdims: bool) -> Result<Array> {
    if !keepdims {
        return Ok(r);
    }
    let mut sorted = axes.to_vec();
    sorted.sort_unstable();
    let mut out = r;
    for &a in &sorted {
        if a <= out.ndim() {
            out = out.expand_dims(a as isize)?;
        }
    }
    debug_assert_eq!(out.ndim(), nd);
    Ok(out)
}

fn vector_norm(x: &Array, ord: NormOrd, axis: usize) -> Result<Array> {
    let ax = axis as isize;
    let absx = crate::abs(x)?;
    match ord {
        NormOrd::Default | NormOrd::Fro => {
            crate::sqrt(&crate::multiply(&absx, &absx)?.sum_axis(ax)?)
        }
        NormOrd::Inf => absx.max_axis(ax),
        NormOrd::NegInf => absx.min_axis(ax),
        NormOrd::Nuc => Err(Error::InvalidArgument {
            op: "norm",
            detail: "'nuc' is a matrix norm".into(),
        }),
        NormOrd::P(p) => {
            if p == 0.0 {
                crate::not_equal(&absx, 0.0)?
                    .astype(absx.dtype())?
                    .sum_axis(ax)
            } else if p == 1.0 {
                absx.sum_axis(ax)
            } else if p == 2.0 {
                crate::sqrt(&crate::multiply(&absx, &absx)?.sum_axis(ax)?)
            } else {
                crate::power(&crate::power(&absx, p)?.sum_axis(ax)?, 1.0 / p)
            }
        }
    }
}

fn matrix_norm(x: &Array, ord: NormOrd, r: usize, c: usize) -> Result<Array> {
    let op = "norm";
    if r == c {
        return Err(Error::InvalidArgument {
            op,
            detail: "the two axes of a matrix norm must differ".into(),
        });
    }
    let absx = crate::abs(x)?;
    let (ri, ci) = (r as isize, c as isize);
    // After summing over one axis, the other's index shifts down if it was after.
    let after = |kept: usize, removed: usize| -> isize {
        if kept > removed {
            kept as isize - 1
        } else {
            kept as isize
        }
    };
    match ord {
        NormOrd::Default | NormOrd::Fro => {
            crate::sqrt(&crate::multiply(&absx, &absx)?.sum_axes(vec![ri, ci], false)?)
        }
        NormOrd::Inf => absx.sum_axis(ci)?.max_axis(after(r, c)),
        NormOrd::NegInf => absx.sum_axis(ci)?.min_axis(after(r, c)),
        NormOrd::P(p) if p == 2.0 || p == -2.0 => {
            let s = singular_values_axes(x, r, c)?;
            if p > 0.0 {
                s.max_axis(-1)
            } else {
                s.min_axis(-1)
            }
        }
        NormOrd::P(p) if p.abs() == 1.0 => {
            let sums = absx.sum_axis(ri)?;
            if p > 0.0 {
                sums.max_axis(after(c, r))
            } else {
                sums.min_axis(after(c, r))
            }
        }
        NormOrd::Nuc => singular_values_axes(x, r, c)?.sum_axis(-1),
        NormOrd::P(p) => Err(Error::InvalidArgument {
            op,
            detail: format!("invalid norm order {p} for matrices (valid: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf)"),
        }),
    }
}

/// Singular values of the matrices spanning axes (r, c), batch axes first.
fn singular_values_axes(x: &Array, r: usize, c: usize) -> Result<Array> {
    let nd = x.ndim();
    let mut perm: Vec<isize> = (0..nd)
        .filter(|&i| i != r && i != c)
        .map(|i| i as isize)
        .collect();
    perm.push(r as isize);
    perm.push(c as isize);
    let m = x.permute_axes(&perm)?;
    Ok(svd(&m, false, false)?.s)
}

/// Singular values of one matrix (2-D) copied to the host, descending.
fn host_singular_values(op: &str, s: &Array) -> Result<Vec<f64>> {
    crate::backend::fallback::fetch(op, s.device(), || s.astype(DType::Float64)?.to_vec::<f64>())
}

/// The result of [`lstsq`], as NumPy's tuple.
#[derive(Debug, Clone)]
pub struct Lstsq {
    /// The least-squares solution, shape (N,) or (N, K).
    pub x: Array,
    /// Sums of squared residuals per column, shape (K,) or (1,); empty when
    /// the rank is below N or M <= N.
    pub residuals: Array,
    /// The effective rank of `a`.
    pub rank: usize,
    /// Singular values of `a`, descending.
    pub s: Array,
}

/// The least-squares solution of `a x = b` (`np.linalg.lstsq`), through the
/// SVD: singular values at most `rcond * max(s)` are treated as zero
/// (`rcond` None means machine epsilon times max(M, N), NumPy's default).
pub fn lstsq(a: &Array, b: &Array, rcond: Option<f64>) -> Result<Lstsq> {
    let op = "lstsq";
    let device = same_device(op, a, b)?;
    if a.ndim() != 2 {
        return Err(Error::Shape {
            op,
            detail: format!("a must be 2-D; shape {} given", fmt_shape(a.shape())),
        });
    }
    if b.ndim() != 1 && b.ndim() != 2 {
        return Err(Error::Shape {
            op,
            detail: format!("b must be 1-D or 2-D; shape {} given", fmt_shape(b.shape())),
        });
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    if b.shape()[0] != m {
        return Err(Error::Shape {
            op,
            detail: format!(
                "incompatible dimensions: a has shape {} and b has shape {} (their first axes must match)",
                fmt_shape(a.shape()),
                fmt_shape(b.shape())
            ),
        });
    }
    let dtype = field_dtype(promote_types(a.dtype(), b.dtype()));
    let a = as_dtype(a, dtype)?;
    let vector = b.ndim() == 1;
    let b2 = as_dtype(&if vector { b.expand_dims(1)? } else { b.clone() }, dtype)?;
    let k = b2.shape()[1];
    let eps = if dtype.real_dtype() == DType::Float32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let rcond = rcond.unwrap_or(eps * m.max(n) as f64);
    let f = svd(&a, false, true)?;
    let s_host = host_singular_values("lstsq", &f.s)?;
    let smax = s_host.first().copied().unwrap_or(0.0);
    let cutoff = rcond * smax;
    let rank = s_host.iter().filter(|&&v| v > cutoff).count();
    let inv: Vec<f64> = s_host
        .iter()
        .map(|&v| if v > cutoff { 1.0 / v } else { 0.0 })
        .collect();
    let kk = s_host.len();
    let inv_s = Array::from_vec_cpu(inv, &[kk, 1])
        .astype(dtype.real_dtype())?
        .to_device(&device)?;
    let u = f.u.expect("the SVD above was asked for U (compute_uv)");
    let vh = f.vh.expect("the SVD above was asked for Vh (compute_uv)");
    // x = V diag(1/s) Uᴴ b
    let uhb = matmul(&conj(&u)?.t(), &b2)?;
    let scaled = crate::multiply(&uhb, &inv_s)?;
    let x = matmul(&conj(&vh)?.t(), &scaled)?;
    let real = dtype.real_dtype();
    let residuals = if rank == n && m > n {
        let r = crate::subtract(&b2, &matmul(&a, &x)?)?;
        let ar = crate::abs(&r)?;
        crate::multiply(&ar, &ar)?.sum_axis(0)?
    } else {
        with_device(device, || crate::zeros([0usize], real))?
    };
    let x = if vector { x.reshape([n as isize])? } else { x };
    let _ = k;
    Ok(Lstsq {
        x,
        residuals,
        rank,
        s: f.s,
    })
}

/// The Moore-Penrose pseudo-inverse of a (stack of) matrices
/// (`np.linalg.pinv(a, rcond)`): singular values at most `rcond * max(s)`
/// are treated as zero (NumPy's default rcond is 1e-15).
pub fn pinv(a: &Array, rcond: f64) -> Result<Array> {
    let op = "pinv";
    check_2d(op, a)?;
    let a = promoted(a)?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let device = a.device();
    if m == 0 || n == 0 {
        let mut sh = a.shape()[..nd - 2].to_vec();
        sh.extend([n, m]);
        return with_device(device, || crate::zeros(sh, a.dtype()));
    }
    Ok(per_matrix(&a, |x| {
        let f = svd(x, false, true)?;
        let s = host_singular_values(op, &f.s)?;
        let cutoff = rcond * s.first().copied().unwrap_or(0.0);
        let inv: Vec<f64> = s
            .iter()
            .map(|&v| if v > cutoff { 1.0 / v } else { 0.0 })
            .collect();
        let k = inv.len();
        let inv_s = Array::from_vec_cpu(inv, &[1, k])
            .astype(x.dtype().real_dtype())?
            .to_device(&device)?;
        let v = conj(&f.vh.expect("the SVD above was asked for Vh (compute_uv)"))?.t();
        let uh = conj(&f.u.expect("the SVD above was asked for U (compute_uv)"))?.t();
        Ok(vec![matmul(&crate::multiply(&v, &inv_s)?, &uh)?])
    })?
    .remove(0))
}

/// The rank of a (stack of) matrices by the SVD (`np.linalg.matrix_rank`):
/// singular values above `tol` (None: max(s) * max(M, N) * eps) count.
/// Arrays of fewer than two axes have rank 1 unless all zero. Returns int64.
pub fn matrix_rank(a: &Array, tol: Option<f64>) -> Result<Array> {
    let device = a.device();
    if a.ndim() < 2 {
        let nz = crate::not_equal(a, 0)?.any()?.astype(DType::Int64)?;
        return Ok(nz);
    }
    let a = promoted(a)?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let eps = if a.dtype().real_dtype() == DType::Float32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let s = svd(&a, false, false)?.s;
    let k = m.min(n);
    let sv = host_singular_values("matrix_rank", &s)?;
    let count = sv.len().checked_div(k).unwrap_or(0);
    let mut ranks = Vec::with_capacity(count);
    for i in 0..count {
        let row = &sv[i * k..(i + 1) * k];
        let smax = row.iter().cloned().fold(0.0, f64::max);
        let t = tol.unwrap_or(smax * m.max(n) as f64 * eps);
        ranks.push(row.iter().filter(|&&v| v > t).count() as i64);
    }
    if k == 0 {
        ranks = vec![0; a.shape()[..nd - 2].iter().product()];
    }
    Array::from_vec_cpu(ranks, &a.shape()[..nd - 2]).to_device(&device)
}

/// The sum of the main diagonal over the first two axes (`np.trace(a)`):
/// for more axes the result has the remaining axes.
pub fn trace(a: &Array) -> Result<Array> {
    let op = "trace";
    check_2d(op, a)?;
    let (n0, n1) = (a.shape()[0], a.shape()[1]);
    let (s0, s1) = (a.strides()[0], a.strides()[1]);
    let mut shape = a.shape()[2..].to_vec();
    let mut strides = a.strides()[2..].to_vec();
    shape.push(n0.min(n1));
    strides.push(s0 + s1);
    let diag = a.with_layout(Layout::from_parts(shape, strides, a.layout().offset()));
    crate::sum(&diag, -1isize, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_and_log_of_determinants() {
        let (s, l) = sign_logdet(
            &[Complex64::new(2.0, 0.0), Complex64::new(-3.0, 0.0)],
            false,
        );
        assert_eq!(s, Complex64::new(-1.0, 0.0));
        assert!((l - 6f64.ln()).abs() < 1e-15);
        let (s, l) = sign_logdet(&[Complex64::new(2.0, 0.0), Complex64::new(0.0, 0.0)], true);
        assert_eq!(s, Complex64::new(0.0, 0.0));
        assert_eq!(l, f64::NEG_INFINITY);
        assert_eq!(field_dtype(DType::Int32), DType::Float64);
        assert_eq!(field_dtype(DType::Float16), DType::Float32);
        assert_eq!(field_dtype(DType::Complex64), DType::Complex64);
    }
}
