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
use crate::ops::sparse::{CsrView, SparseFactor, Triangle, TriangularSolver};

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

/// A triangle of a CSR matrix kept on the host for repeated substitutions.
pub(super) struct HostTriangle<T> {
    indptr: Vec<i32>,
    indices: Vec<i32>,
    data: Vec<T>,
    triangle: Triangle,
}

impl<T: Field + NumAssign> HostTriangle<T> {
    pub(super) fn new(a: &CsrView<'_>, triangle: Triangle) -> HostTriangle<T> {
        HostTriangle {
            indptr: a.indptr.gather::<i32>(),
            indices: a.indices.gather::<i32>(),
            data: a.data.gather::<T>(),
            triangle,
        }
    }

    /// The entries of row `r`: (column, value).
    fn row(&self, r: usize) -> impl Iterator<Item = (usize, T)> + '_ {
        let span = self.indptr[r] as usize..self.indptr[r + 1] as usize;
        span.map(move |e| (self.indices[e] as usize, self.data[e]))
    }

    /// The diagonal entry of row `r` (duplicates summed; 1 for a unit diagonal).
    fn diagonal(&self, op: &'static str, r: usize) -> Result<T> {
        if self.triangle.unit_diagonal {
            return Ok(<T as num_traits::One>::one());
        }
        let mut d = <T as num_traits::Zero>::zero();
        for (c, v) in self.row(r) {
            if c == r {
                d += v;
            }
        }
        if d == <T as num_traits::Zero>::zero() {
            return Err(singular(
                op,
                format!("the triangular matrix is singular: its diagonal is zero at row {r}"),
            ));
        }
        Ok(d)
    }

    /// Whether the entry at column `c` of row `r` lies in the triangle used.
    fn in_triangle(&self, r: usize, c: usize) -> bool {
        c != r && (c < r) == self.triangle.lower
    }

    /// `T x = b`: substitution along the rows (forward for a lower triangle).
    fn substitute(&self, op: &'static str, x: &mut [T]) -> Result<()> {
        let n = x.len();
        let order: Box<dyn Iterator<Item = usize>> = if self.triangle.lower {
            Box::new(0..n)
        } else {
            Box::new((0..n).rev())
        };
        for r in order {
            let mut acc = x[r];
            for (c, v) in self.row(r) {
                if self.in_triangle(r, c) {
                    acc -= v * x[c];
                }
            }
            x[r] = acc / self.diagonal(op, r)?;
        }
        Ok(())
    }

    /// `T^H x = b`: T^H's columns are T's rows, so each solved entry is
    /// subtracted from the entries its row reaches (backward for a lower T).
    fn substitute_adjoint(&self, op: &'static str, x: &mut [T]) -> Result<()> {
        let n = x.len();
        let order: Box<dyn Iterator<Item = usize>> = if self.triangle.lower {
            Box::new((0..n).rev())
        } else {
            Box::new(0..n)
        };
        let conj = |v: &T| <T as faer::traits::ComplexField>::conj_impl(v);
        for r in order {
            let xr = x[r] / conj(&self.diagonal(op, r)?);
            x[r] = xr;
            for (c, v) in self.row(r) {
                if self.in_triangle(r, c) {
                    x[c] -= conj(&v) * xr;
                }
            }
        }
        Ok(())
    }
}

impl<T: Field + NumAssign> TriangularSolver for HostTriangle<T> {
    fn solve(&self, op: &'static str, b: View<'_>) -> Result<Storage> {
        let mut x = b.gather::<T>();
        if self.triangle.adjoint {
            self.substitute_adjoint(op, &mut x)?;
        } else {
            self.substitute(op, &mut x)?;
        }
        Ok(super::create::host_buffer(x))
    }
}
