//! Dense linear algebra on the CPU (faer), one matrix at a time.

mod eig;
mod lu;

use num_complex::Complex64;

use super::matmul::{with_field, Field};
use super::CpuBackend;
use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::view::View;
use crate::ops::linalg::{Linalg, Owned, SvdParts, Trans, Triangular};

/// A 2-D view's elements in C order as `T` (its dtype must be `T`'s).
fn host_matrix<T: Field>(a: View<'_>) -> Vec<T> {
    a.gather::<T>()
}

/// A C-order host result of `shape`.
fn owned<T: Element>(v: Vec<T>, shape: &[usize]) -> Owned {
    (super::create::host_buffer(v), Layout::contiguous(shape))
}

/// A faer matrix as a C-order host result.
fn from_mat<T: Field>(m: faer::MatRef<'_, T>) -> Owned {
    let (r, c) = (m.nrows(), m.ncols());
    let mut v = Vec::with_capacity(r * c);
    for i in 0..r {
        for j in 0..c {
            v.push(m[(i, j)]);
        }
    }
    owned(v, &[r, c])
}

/// Reals (as f64) as a host result of the real dtype of `T`.
fn real_array<T: Field>(v: &[f64], shape: &[usize]) -> Owned {
    match T::DTYPE.real_dtype() {
        DType::Float32 => owned(v.iter().map(|&x| x as f32).collect::<Vec<f32>>(), shape),
        _ => owned(v.to_vec(), shape),
    }
}

/// A value's real part as f64.
fn re<T: Element>(x: T) -> f64 {
    x.to_scalar().as_c64().re
}

/// The index of the first exactly-zero diagonal element of U, if any.
fn zero_pivot<T: Field>(u: faer::MatRef<'_, T>) -> Option<usize> {
    let z = T::from_scalar(Scalar::Float(0.0));
    (0..u.nrows().min(u.ncols())).find(|&i| u[(i, i)] == z)
}

fn singular(op: &'static str, i: usize) -> Error {
    Error::LinAlg {
        op,
        detail: format!(
            "singular matrix (LU info = {}: U[{i}, {i}] is exactly zero)",
            i + 1
        ),
    }
}

/// The LU factors of a square matrix, or the singular-matrix error.
fn lu_of<T: Field>(
    op: &'static str,
    v: &[T],
    n: usize,
) -> Result<faer::linalg::solvers::PartialPivLu<T>> {
    let lu = faer::MatRef::from_row_major_slice(v, n, n).partial_piv_lu();
    match zero_pivot(lu.U()) {
        Some(i) => Err(singular(op, i)),
        None => Ok(lu),
    }
}

/// The 2-D layout of every matrix of a (batch..., r, c) layout.
fn matrices(l: &Layout) -> impl Iterator<Item = Layout> + '_ {
    let nb = l.ndim() - 2;
    let (shape, strides) = (&l.shape()[nb..], &l.strides()[nb..]);
    super::matmul::batch_offsets(l)
        .into_iter()
        .map(move |off| Layout::from_parts(shape.to_vec(), strides.to_vec(), off))
}

/// Diagonal of U and permutation parity of a CPU LU (for determinants).
fn cpu_lu_diag<T: Field>(a: View<'_>) -> (Vec<Complex64>, bool) {
    let n = a.shape()[0];
    let v = host_matrix::<T>(a);
    let m = faer::MatRef::from_row_major_slice(&v, n, n);
    let lu = m.partial_piv_lu();
    let u = lu.U();
    let d: Vec<Complex64> = (0..n).map(|i| u[(i, i)].to_scalar().as_c64()).collect();
    let (fwd, _) = lu.P().arrays();
    let mut seen = vec![false; n];
    let mut odd = false;
    for s in 0..n {
        if seen[s] {
            continue;
        }
        let mut len = 0;
        let mut j = s;
        while !seen[j] {
            seen[j] = true;
            j = fwd[j];
            len += 1;
        }
        if len % 2 == 0 {
            odd = !odd;
        }
    }
    (d, odd)
}

impl Linalg for CpuBackend {
    fn solve_triangular(&self, a: View<'_>, b: View<'_>, how: Triangular) -> Result<Owned> {
        Ok(with_field!(a.dtype(), T => lu::solve_triangular::<T>(a, b, how)))
    }

    fn lu_factor(&self, a: View<'_>) -> Result<(Owned, Owned)> {
        Ok(with_field!(a.dtype(), T => lu::lu_factor::<T>(a)))
    }

    fn lu_solve(&self, f: View<'_>, piv: View<'_>, b: View<'_>, trans: Trans) -> Result<Owned> {
        Ok(with_field!(f.dtype(), T => lu::lu_solve::<T>(f, piv, b, trans)))
    }

    fn solve(&self, a: View<'_>, b: View<'_>) -> Result<Owned> {
        let (n, k) = (b.shape()[0], b.shape()[1]);
        with_field!(a.dtype(), T => {
            let av = host_matrix::<T>(a);
            let bv = host_matrix::<T>(b);
            let lu = lu_of("solve", &av, n)?;
            use faer::linalg::solvers::Solve;
            let x = lu.solve(faer::MatRef::from_row_major_slice(&bv, n, k));
            Ok(from_mat(x.as_ref()))
        })
    }

    fn inv(&self, a: View<'_>) -> Result<Owned> {
        let nd = a.ndim();
        let n = a.shape()[nd - 1];
        with_field!(a.dtype(), T => {
            let mut out = Vec::<T>::with_capacity(a.size());
            for m in matrices(a.layout) {
                let v = host_matrix::<T>(View::new(a.storage, &m, a.dtype));
                let lu = lu_of("inv", &v, n)?;
                use faer::linalg::solvers::DenseSolveCore;
                let inv = lu.inverse();
                for i in 0..n {
                    for j in 0..n {
                        out.push(inv[(i, j)]);
                    }
                }
            }
            Ok(owned(out, a.shape()))
        })
    }

    fn lu_diagonal(&self, a: View<'_>) -> Result<(Vec<Complex64>, bool)> {
        Ok(with_field!(a.dtype(), T => cpu_lu_diag::<T>(a)))
    }

    fn cholesky(&self, a: View<'_>) -> Result<Owned> {
        let n = a.shape()[0];
        with_field!(a.dtype(), T => {
            let v = host_matrix::<T>(a);
            let llt = faer::MatRef::from_row_major_slice(&v, n, n)
                .llt(faer::Side::Lower)
                .map_err(|e| Error::LinAlg {
                    op: "cholesky",
                    detail: format!("matrix is not positive definite ({e:?})"),
                })?;
            let l = llt.L();
            let z = T::from_scalar(Scalar::Float(0.0));
            let mut out = Vec::with_capacity(n * n);
            for i in 0..n {
                for j in 0..n {
                    out.push(if j <= i { l[(i, j)] } else { z });
                }
            }
            Ok(owned(out, &[n, n]))
        })
    }

    fn qr(&self, a: View<'_>, complete: bool, want_q: bool) -> Result<(Option<Owned>, Owned)> {
        let (m, n) = (a.shape()[0], a.shape()[1]);
        let rr = if complete { m } else { m.min(n) };
        with_field!(a.dtype(), T => {
            let v = host_matrix::<T>(a);
            let f = faer::MatRef::from_row_major_slice(&v, m, n).qr();
            let q = want_q.then(|| {
                let q = if complete { f.compute_Q() } else { f.compute_thin_Q() };
                from_mat(q.as_ref())
            });
            let r = if complete { f.R() } else { f.thin_R() };
            let z = T::from_scalar(Scalar::Float(0.0));
            let mut rv = Vec::with_capacity(rr * n);
            for i in 0..rr {
                for j in 0..n {
                    rv.push(if j >= i && i < r.nrows() { r[(i, j)] } else { z });
                }
            }
            Ok((q, owned(rv, &[rr, n])))
        })
    }

    fn svd(&self, a: View<'_>, full: bool, compute_uv: bool) -> Result<SvdParts> {
        let (m, n) = (a.shape()[0], a.shape()[1]);
        let k = m.min(n);
        let (uc, vr) = if full { (m, n) } else { (k, k) };
        with_field!(a.dtype(), T => {
            let v = host_matrix::<T>(a);
            let mr = faer::MatRef::from_row_major_slice(&v, m, n);
            let no_conv = |e| Error::LinAlg {
                op: "svd",
                detail: format!("SVD did not converge ({e:?})"),
            };
            if !compute_uv {
                let s = mr.singular_values().map_err(no_conv)?;
                let mut s: Vec<f64> = s.iter().map(T::real_f64).collect();
                s.sort_by(|p, q| q.total_cmp(p));
                return Ok((None, real_array::<T>(&s, &[k]), None));
            }
            let f = if full { mr.svd() } else { mr.thin_svd() }.map_err(no_conv)?;
            let sd = f.S().column_vector();
            let s: Vec<f64> = (0..k).map(|i| re(sd[i])).collect();
            // Descending order (faer's is already; sort defensively with the vectors).
            let mut order: Vec<usize> = (0..k).collect();
            order.sort_by(|&p, &q| s[q].total_cmp(&s[p]));
            let (fu, fv) = (f.U(), f.V());
            // Column j of U (row j of Vh) comes from faer's column src(j).
            let src = |j: usize| order.get(j).copied().unwrap_or(j);
            let mut u = Vec::with_capacity(m * uc);
            for i in 0..m {
                for j in 0..uc {
                    u.push(fu[(i, src(j))]);
                }
            }
            let mut vh = Vec::with_capacity(vr * n);
            for i in 0..vr {
                let ii = src(i);
                for j in 0..n {
                    vh.push(faer::traits::ComplexField::conj_impl(&fv[(j, ii)]));
                }
            }
            let s_sorted: Vec<f64> = order.iter().map(|&i| s[i]).collect();
            Ok((
                Some(owned(u, &[m, uc])),
                real_array::<T>(&s_sorted, &[k]),
                Some(owned(vh, &[vr, n])),
            ))
        })
    }

    fn eig(&self, a: View<'_>, vectors: bool) -> Result<(Owned, Option<Owned>)> {
        with_field!(a.dtype(), T => eig::eig::<T>(a, vectors))
    }

    fn eigh(&self, a: View<'_>, vectors: bool) -> Result<(Owned, Option<Owned>)> {
        let n = a.shape()[0];
        with_field!(a.dtype(), T => {
            let v = host_matrix::<T>(a);
            let mr = faer::MatRef::from_row_major_slice(&v, n, n);
            let f = mr.self_adjoint_eigen(faer::Side::Lower).map_err(|e| Error::LinAlg {
                op: if vectors { "eigh" } else { "eigvalsh" },
                detail: format!("eigenvalues did not converge ({e:?})"),
            })?;
            let sd = f.S().column_vector();
            let w: Vec<f64> = (0..n).map(|i| re(sd[i])).collect();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&p, &q| w[p].total_cmp(&w[q]));
            let ws: Vec<f64> = order.iter().map(|&i| w[i]).collect();
            let vecs = vectors.then(|| {
                let u = f.U();
                let mut vv = Vec::with_capacity(n * n);
                for i in 0..n {
                    for &j in &order {
                        vv.push(u[(i, j)]);
                    }
                }
                owned(vv, &[n, n])
            });
            Ok((real_array::<T>(&ws, &[n]), vecs))
        })
    }
}
