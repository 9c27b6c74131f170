//! Sparse products on the CPU: CSR times dense, and Gustavson's CSR times CSR.

use num_traits::{NumAssign, Zero};

use super::matmul::with_field;
use super::CpuBackend;
use crate::core::element::Element;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::ops::sparse::{
    CsrBuffers, CsrView, Incomplete, Sparse, SparseFactor, Triangle, TriangularSolver,
};
use std::rc::Rc;

/// The elements of a view, in C order, as `T` (its dtype).
fn host<T: Element>(v: View<'_>) -> Vec<T> {
    v.gather::<T>()
}

/// A host buffer holding `v`.
fn buffer<T: Element>(v: Vec<T>) -> Storage {
    super::create::host_buffer(v)
}

/// A CSR matrix's arrays on the host.
struct Csr<T> {
    indptr: Vec<i32>,
    indices: Vec<i32>,
    data: Vec<T>,
}

impl<T: Element + NumAssign + Zero> Csr<T> {
    fn of(a: &CsrView<'_>) -> Csr<T> {
        Csr {
            indptr: host(a.indptr),
            indices: host(a.indices),
            data: host(a.data),
        }
    }

    fn row(&self, r: usize) -> std::ops::Range<usize> {
        self.indptr[r] as usize..self.indptr[r + 1] as usize
    }

    /// `self @ x` for `x` of shape (cols, k) in C order, with `rows` rows.
    fn matmat(&self, rows: usize, x: &[T], k: usize) -> Vec<T> {
        let mut out = vec![T::zero(); rows * k];
        for r in 0..rows {
            let o = &mut out[r * k..(r + 1) * k];
            for e in self.row(r) {
                let a = self.data[e];
                let c = self.indices[e] as usize;
                for (oj, &xj) in o.iter_mut().zip(&x[c * k..(c + 1) * k]) {
                    *oj += a * xj;
                }
            }
        }
        out
    }

    /// `self @ other` with `rows` rows and `n` columns (Gustavson's
    /// algorithm; sorted indices, zeros dropped).
    fn spgemm(&self, rows: usize, other: &Csr<T>, n: usize) -> Csr<T> {
        let mut acc = vec![T::zero(); n];
        let mut seen = vec![false; n];
        let mut cols: Vec<usize> = Vec::new();
        let mut indptr = vec![0i32];
        let mut indices = Vec::new();
        let mut data = Vec::new();
        for r in 0..rows {
            cols.clear();
            for e in self.row(r) {
                let a = self.data[e];
                let k = self.indices[e] as usize;
                for f in other.row(k) {
                    let c = other.indices[f] as usize;
                    if !seen[c] {
                        seen[c] = true;
                        cols.push(c);
                    }
                    acc[c] += a * other.data[f];
                }
            }
            cols.sort_unstable();
            for &c in &cols {
                if !acc[c].is_zero() {
                    indices.push(c as i32);
                    data.push(acc[c]);
                }
                acc[c] = T::zero();
                seen[c] = false;
            }
            indptr.push(indices.len() as i32);
        }
        Csr {
            indptr,
            indices,
            data,
        }
    }
}

impl Sparse for CpuBackend {
    fn csr_dot(&self, _: &'static str, a: &CsrView<'_>, x: View<'_>) -> Result<Storage> {
        let k = if x.ndim() == 2 { x.shape()[1] } else { 1 };
        with_field!(a.data.dtype(), T => {
            let v = Csr::<T>::of(a).matmat(a.rows, &host::<T>(x), k);
            Ok(buffer(v))
        })
    }

    fn csr_spgemm(&self, _: &'static str, a: &CsrView<'_>, b: &CsrView<'_>) -> Result<CsrBuffers> {
        with_field!(a.data.dtype(), T => {
            let c = Csr::<T>::of(a).spgemm(a.rows, &Csr::of(b), b.cols);
            Ok(CsrBuffers {
                nnz: c.data.len(),
                data: buffer(c.data),
                indices: buffer(c.indices),
                indptr: buffer(c.indptr),
                sorted: true,
            })
        })
    }

    // faer's LU refuses exact zero pivots; a matrix singular to working
    // precision is refused by the front end's conditioning test.
    fn csr_solve(
        &self,
        op: &'static str,
        a: &CsrView<'_>,
        b: View<'_>,
        _pivot_tol: f64,
    ) -> Result<Storage> {
        with_field!(a.data.dtype(), T => super::sparse_solve::lu_solve::<T>(op, a, b))
    }

    fn csr_lu_factor(&self, op: &'static str, a: &CsrView<'_>) -> Result<Rc<dyn SparseFactor>> {
        with_field!(a.data.dtype(), T => super::sparse_solve::lu_factor::<T>(op, a))
    }

    fn csr_triangular(
        &self,
        _: &'static str,
        a: &CsrView<'_>,
        triangle: Triangle,
    ) -> Result<Rc<dyn TriangularSolver>> {
        with_field!(a.data.dtype(), T => {
            let t: Rc<dyn TriangularSolver> =
                Rc::new(super::sparse_solve::HostTriangle::<T>::new(a, triangle));
            Ok(t)
        })
    }

    fn csr_incomplete_factor(
        &self,
        op: &'static str,
        a: &CsrView<'_>,
        kind: Incomplete,
    ) -> Result<Storage> {
        with_field!(a.data.dtype(), T => {
            let values = super::sparse_ilu::factor::<T>(op, a, kind)?;
            Ok(buffer(values))
        })
    }
}
