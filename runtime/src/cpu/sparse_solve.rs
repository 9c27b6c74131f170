//! Direct sparse solves on the CPU: faer's sparse LU (fill-reducing
//! ordering, partial pivoting) for general systems, and substitution along
//! the rows for triangular ones.

use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::Lu;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Conj, Mat};
use num_traits::NumAssign;
use std::rc::Rc;

use super::matmul::Field;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::ops::sparse::{CsrView, SparseFactor};

fn singular(op: &'static str, detail: impl Into<String>) -> Error {
    Error::LinAlg {
        op,
        detail: detail.into(),
    }
}

/// A's entries as faer's column matrix.
fn faer_matrix<T: Field>(op: &'static str, a: &CsrView<'_>) -> Result<SparseColMat<usize, T>> {
    let n = a.rows;
    let indptr = a.indptr.gather::<i32>();
    let indices = a.indices.gather::<i32>();
    let data = a.data.gather::<T>();
    let mut entries = Vec::with_capacity(data.len());
    for r in 0..n {
        for e in indptr[r] as usize..indptr[r + 1] as usize {
            entries.push(Triplet::new(r, indices[e] as usize, data[e]));
        }
    }
    SparseColMat::<usize, T>::try_new_from_triplets(n, n, &entries)
        .map_err(|e| Error::invalid(op, format!("cannot build the matrix: {e:?}")))
}

/// faer's sparse LU of a matrix of n rows (n = 0: nothing to factor).
struct FaerLu<T: Field> {
    n: usize,
    lu: Option<Lu<usize, T>>,
}

/// A's LU factorization through faer (fill-reducing ordering, partial pivoting).
pub(super) fn lu_factor<T: Field>(
    op: &'static str,
    a: &CsrView<'_>,
) -> Result<Rc<dyn SparseFactor>> {
    let n = a.rows;
    let lu = if n == 0 {
        None
    } else {
        let m = faer_matrix::<T>(op, a)?;
        Some(
            m.sp_lu()
                .map_err(|e| singular(op, format!("the matrix is singular ({e:?})")))?,
        )
    };
    Ok(Rc::new(FaerLu { n, lu }))
}

impl<T: Field> SparseFactor for FaerLu<T> {
    fn solve(&self, op: &'static str, b: View<'_>, transpose: bool) -> Result<Storage> {
        let rhs = b.gather::<T>();
        let Some(lu) = &self.lu else {
            return Ok(super::create::host_buffer(rhs));
        };
        let (n, k) = (self.n, if b.ndim() == 2 { b.shape()[1] } else { 1 });
        let mut x = Mat::<T>::from_fn(n, k, |i, j| rhs[i * k + j]);
        if transpose {
            lu.solve_transpose_in_place_with_conj(Conj::No, x.as_mut());
        } else {
            lu.solve_in_place_with_conj(Conj::No, x.as_mut());
        }
        let mut out = Vec::with_capacity(n * k);
        for i in 0..n {
            for j in 0..k {
                let v = x[(i, j)];
                if !<T as faer::traits::ComplexField>::is_finite_impl(&v) {
                    return Err(singular(
                        op,
                        "the matrix is singular (the solution is not finite)",
                    ));
                }
                out.push(v);
            }
        }
        Ok(super::create::host_buffer(out))
    }
}

/// `A^-1 B` through faer's sparse LU, B (n, k) row-major.
pub(super) fn lu_solve<T: Field>(
    op: &'static str,
    a: &CsrView<'_>,
    b: View<'_>,
) -> Result<Storage> {
    lu_factor::<T>(op, a)?.solve(op, b, false)
}

/// Forward (lower) or backward (upper) substitution along the rows of `a`;
/// entries on the other side of the diagonal are ignored.
pub(super) fn triangular_solve<T: Field + NumAssign>(
    op: &'static str,
    a: &CsrView<'_>,
    b: View<'_>,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Storage> {
    let n = a.rows;
    let k = if b.ndim() == 2 { b.shape()[1] } else { 1 };
    let indptr = a.indptr.gather::<i32>();
    let indices = a.indices.gather::<i32>();
    let data = a.data.gather::<T>();
    let mut x = b.gather::<T>();
    let order: Box<dyn Iterator<Item = usize>> = if lower {
        Box::new(0..n)
    } else {
        Box::new((0..n).rev())
    };
    let mut acc = vec![<T as num_traits::Zero>::zero(); k];
    for r in order {
        acc.copy_from_slice(&x[r * k..(r + 1) * k]);
        let mut diag = if unit_diagonal {
            <T as num_traits::One>::one()
        } else {
            <T as num_traits::Zero>::zero()
        };
        for e in indptr[r] as usize..indptr[r + 1] as usize {
            let c = indices[e] as usize;
            if c == r {
                if !unit_diagonal {
                    diag += data[e];
                }
            } else if (c < r) == lower {
                for (q, acc_q) in acc.iter_mut().enumerate() {
                    *acc_q -= data[e] * x[c * k + q];
                }
            }
        }
        if diag == <T as num_traits::Zero>::zero() {
            return Err(singular(
                op,
                format!("the triangular matrix is singular: its diagonal is zero at row {r}"),
            ));
        }
        for (q, acc_q) in acc.iter().enumerate() {
            x[r * k + q] = *acc_q / diag;
        }
    }
    Ok(super::create::host_buffer(x))
}
