//! Zero-fill incomplete factorizations on the CPU: ILU(0) and IC(0) over
//! the pattern of a CSR matrix, what cuSPARSE's `csrilu02` / `csric02`
//! compute on the GPU.
//!
//! Written here rather than taken from a crate: the sparse crates at hand
//! (faer, sprs) factorize with fill-in and their own orderings, and none
//! computes the zero-fill factors on a given pattern, which is what makes
//! the CPU's factors comparable with the GPU's entry by entry.
//!
//! Both are row-oriented ("IKJ") eliminations: row i is finished using the
//! rows above it, and an update lands only where row i already stores an
//! entry (that is the zero fill). Column indices are sorted within rows.

use num_traits::{NumAssign, Zero};

use super::matmul::Field;
use crate::core::error::{Error, Result};
use crate::ops::sparse::{CsrView, Incomplete};

/// The pattern of a square CSR matrix with each row's diagonal position.
struct Pattern {
    indptr: Vec<usize>,
    indices: Vec<usize>,
    diagonal: Vec<usize>,
}

impl Pattern {
    fn of(op: &'static str, a: &CsrView<'_>) -> Result<Pattern> {
        let indptr: Vec<usize> = a
            .indptr
            .gather::<i32>()
            .iter()
            .map(|&p| p as usize)
            .collect();
        let indices: Vec<usize> = a
            .indices
            .gather::<i32>()
            .iter()
            .map(|&c| c as usize)
            .collect();
        let mut diagonal = Vec::with_capacity(a.rows);
        for r in 0..a.rows {
            let row = indptr[r]..indptr[r + 1];
            match row.clone().find(|&e| indices[e] == r) {
                Some(e) => diagonal.push(e),
                None => {
                    return Err(Error::LinAlg {
                        op,
                        detail: format!(
                            "row {r} stores no diagonal entry (a zero-fill factorization needs every diagonal entry in the pattern)"
                        ),
                    })
                }
            }
        }
        Ok(Pattern {
            indptr,
            indices,
            diagonal,
        })
    }

    fn row(&self, r: usize) -> std::ops::Range<usize> {
        self.indptr[r]..self.indptr[r + 1]
    }
}

fn zero_pivot(op: &'static str, row: usize, what: &str) -> Error {
    Error::LinAlg {
        op,
        detail: format!("the incomplete factorization {what} at row {row}"),
    }
}

/// The factor's values in a's pattern (see `Sparse::csr_incomplete_factor`).
pub(super) fn factor<T: Field + NumAssign>(
    op: &'static str,
    a: &CsrView<'_>,
    kind: Incomplete,
) -> Result<Vec<T>> {
    let p = Pattern::of(op, a)?;
    let mut values = a.data.gather::<T>();
    match kind {
        Incomplete::Lu => ilu0(op, &p, &mut values)?,
        Incomplete::Cholesky => ic0(op, &p, &mut values)?,
    }
    Ok(values)
}

/// ILU(0): for each row i and each k < i it stores, `l = a[i,k] / u[k,k]`
/// and `a[i,j] -= l u[k,j]` for the j > k that both rows store.
fn ilu0<T: Field + NumAssign>(op: &'static str, p: &Pattern, v: &mut [T]) -> Result<()> {
    let n = p.diagonal.len();
    // Position of column j in the current row (usize::MAX: not stored).
    let mut slot = vec![usize::MAX; n];
    for i in 0..n {
        for e in p.row(i) {
            slot[p.indices[e]] = e;
        }
        for e in p.indptr[i]..p.diagonal[i] {
            let k = p.indices[e];
            let l = v[e] / v[p.diagonal[k]];
            v[e] = l;
            for f in p.diagonal[k] + 1..p.indptr[k + 1] {
                let s = slot[p.indices[f]];
                if s != usize::MAX {
                    let u = v[f];
                    v[s] -= l * u;
                }
            }
        }
        if v[p.diagonal[i]] == <T as Zero>::zero() {
            return Err(zero_pivot(op, i, "has a zero pivot U[i, i]"));
        }
        for e in p.row(i) {
            slot[p.indices[e]] = usize::MAX;
        }
    }
    Ok(())
}

/// IC(0) of a lower triangle: `l[i,k] = (a[i,k] - sum_j l[i,j] conj(l[k,j])) / l[k,k]`
/// over the j < k both rows store, and `l[i,i] = sqrt(a[i,i] - sum_k |l[i,k]|^2)`.
fn ic0<T: Field + NumAssign>(op: &'static str, p: &Pattern, v: &mut [T]) -> Result<()> {
    let n = p.diagonal.len();
    let mut slot = vec![usize::MAX; n];
    for i in 0..n {
        for e in p.row(i) {
            slot[p.indices[e]] = e;
        }
        let mut d = v[p.diagonal[i]];
        for e in p.indptr[i]..p.diagonal[i] {
            let k = p.indices[e];
            let mut s = v[e];
            for f in p.indptr[k]..p.diagonal[k] {
                let t = slot[p.indices[f]];
                if t != usize::MAX {
                    s -= v[t] * T::conj_impl(&v[f]);
                }
            }
            let l = s / v[p.diagonal[k]];
            v[e] = l;
            d -= l * T::conj_impl(&l);
        }
        let re = T::real_f64(&T::real_part_impl(&d));
        if re.is_nan() || re <= 0.0 {
            return Err(zero_pivot(
                op,
                i,
                &format!("has a pivot of {re:e} (not positive: the matrix is not positive definite enough for IC(0))"),
            ));
        }
        v[p.diagonal[i]] = T::sqrt_impl(&T::from_real_impl(&T::real_part_impl(&d)));
        for e in p.row(i) {
            slot[p.indices[e]] = usize::MAX;
        }
    }
    Ok(())
}
