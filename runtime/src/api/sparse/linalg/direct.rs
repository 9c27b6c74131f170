//! Direct solvers: `spsolve`, `splu` / `factorized` and `spsolve_triangular`.
//!
//! CPU: faer's sparse LU (`splu` keeps it). GPU: cuSOLVER's sparse QR (`csrlsvqr`), one
//! right-hand side at a time (a 2-D `b` is solved column by column); where
//! the machine's cuSOLVER lacks its sparse API the solve takes the counted
//! host round trip (`cp::cuda::host_fallbacks()` shows it), and so do
//! `splu`'s solves (its factors are kept on the host). Triangular solves:
//! cuSPARSE's SpSV on the GPU (after a device-side test of the diagonal),
//! substitution along the rows on the CPU.

use crate::api::shape::index::SliceElem;
use crate::api::sparse::linalg::options::require_square;
use crate::api::sparse::{
    check_value_dtype, value_dtype, Canonical, Compressed, CscMatrix, CsrMatrix,
};
use crate::core::array::Array;
use crate::core::dtype::promote_types;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::ops::sparse::{SparseFactor, Triangle};
use std::rc::Rc;

/// What the direct solvers accept: a CSR or CSC matrix (CSC is converted once).
pub trait AsCsr {
    /// The matrix in CSR form.
    fn as_csr(&self) -> Result<CsrMatrix>;
}
impl AsCsr for CsrMatrix {
    fn as_csr(&self) -> Result<CsrMatrix> {
        Ok(self.clone())
    }
}
impl AsCsr for CscMatrix {
    fn as_csr(&self) -> Result<CsrMatrix> {
        self.tocsr()
    }
}

/// The checked arrays of a square solve: canonical compressed rows and a
/// right-hand side in one dtype on one device.
fn prepare(op: &'static str, a: &CsrMatrix, b: &Array) -> Result<(Compressed, Array)> {
    let n = require_square(op, a.shape())?;
    let ok = match b.shape() {
        [r] | [r, _] => *r == n,
        _ => false,
    };
    if !ok {
        return Err(Error::shape(
            op,
            format!(
                "the right-hand side must have shape ({n},) or ({n}, k) for a matrix of shape ({n}, {n}), not {}",
                fmt_shape(b.shape())
            ),
        ));
    }
    if a.device() != b.device() {
        return Err(Error::DeviceMismatch {
            op,
            a: a.device().to_string(),
            b: b.device().to_string(),
        });
    }
    let dt = check_value_dtype(op, value_dtype(promote_types(a.dtype(), b.dtype())))?;
    let mut c = if a.dtype() == dt {
        a.c.clone()
    } else {
        a.c.astype(dt)?
    };
    if !c.sorted {
        c = c.map_host(op, true, Canonical(false))?;
    }
    let b = if b.dtype() == dt {
        b.ascontiguousarray()?
    } else {
        b.astype(dt)?
    };
    Ok((c, b))
}

/// Runs `solve` on each column of `b` (1-D: once), giving b's shape back.
fn by_columns(
    op: &'static str,
    b: &Array,
    mut solve: impl FnMut(&Array) -> Result<Array>,
) -> Result<Array> {
    if b.ndim() == 1 {
        return solve(b);
    }
    let k = b.shape()[1];
    if k == 0 {
        return Ok(b.clone());
    }
    let mut cols = Vec::with_capacity(k);
    for j in 0..k {
        let col = b.slice([SliceElem::from(..), SliceElem::Index(j as isize)])?;
        cols.push(solve(&col.ascontiguousarray()?)?);
    }
    let refs: Vec<&Array> = cols.iter().collect();
    let _ = op;
    crate::stack(&refs, 1)
}

/// Pivots of at most this times `||A||_inf` count as zero (for a
/// factorization that tests its pivots: cuSOLVER's QR). A triangular R has
/// `sigma_min <= min |R(j,j)|`, so such a pivot means a condition number
/// of at least about `1 / (100 eps)`: close to `check_conditioning`'s
/// `1 / eps`, which is where the CPU's LU answer is refused, yet far above
/// the rounding-sized pivots (~eps ||A||) a singular matrix leaves, which
/// it catches.
fn pivot_tolerance(c: &Compressed, dtype: crate::DType) -> Result<f64> {
    let eps = if matches!(dtype, crate::DType::Float32 | crate::DType::Complex64) {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let a_norm = super::norm::norm(&CsrMatrix { c: c.clone() }, super::norm::SparseNorm::Inf)?;
    // A non-finite norm: no tolerance (the conditioning test refuses the result).
    Ok(if a_norm.is_finite() {
        100.0 * eps * a_norm
    } else {
        0.0
    })
}

fn solve_once(op: &'static str, c: &Compressed, b: &Array, pivot_tol: f64) -> Result<Array> {
    let be = crate::backend::on(op, b.device())?;
    let r = be.csr_solve(op, &c.view(), b.view(), pivot_tol)?;
    let x = Array::from_parts(r, Layout::contiguous(b.shape()), b.dtype());
    check_conditioning(op, c, b, &x)?;
    Ok(x)
}

/// Refuses a solution that says the matrix is singular to working
/// precision: `||A|| ||x|| / ||b||` bounds the condition number from below,
/// and past `1 / eps` (LAPACK's `rcond < eps`) the digits are noise (SciPy
/// warns there and returns them; NaN or inf fail the test as well).
fn check_conditioning(op: &'static str, c: &Compressed, b: &Array, x: &Array) -> Result<()> {
    let largest = |v: &Array| -> Result<f64> {
        if v.size() == 0 {
            return Ok(0.0);
        }
        let m = crate::max(&crate::abs(v)?, crate::Axes::All, false)?;
        Ok(m.scalar()?.as_f64())
    };
    let (bmax, xmax) = (largest(b)?, largest(x)?);
    if bmax == 0.0 && xmax == 0.0 {
        return Ok(());
    }
    let a_norm = super::norm::norm(&CsrMatrix { c: c.clone() }, super::norm::SparseNorm::Inf)?;
    let eps = if matches!(b.dtype(), crate::DType::Float32 | crate::DType::Complex64) {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let bound = a_norm * xmax / bmax;
    if bound.is_nan() || bound * eps > 1.0 {
        return Err(Error::LinAlg {
            op,
            detail: format!(
                "the matrix is singular to working precision (condition number at least {bound:.3e})"
            ),
        });
    }
    Ok(())
}

/// Solves `A x = b` for square sparse `A` (`spsolve(A, b)`); `b` is (n,) or
/// (n, k). A singular matrix is an error.
pub fn spsolve(a: &impl AsCsr, b: &Array) -> Result<Array> {
    let op = "spsolve";
    let (c, b) = prepare(op, &a.as_csr()?, b)?;
    let pivot_tol = pivot_tolerance(&c, b.dtype())?;
    by_columns(op, &b, |col| solve_once(op, &c, col, pivot_tol))
}

/// Solves `T x = b` for the lower (or upper) triangle `T` of square sparse
/// `A` (`spsolve_triangular(A, b, lower, unit_diagonal)`); entries on the
/// other side of the diagonal are ignored, a zero on the diagonal is an error.
pub fn spsolve_triangular(
    a: &impl AsCsr,
    b: &Array,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Array> {
    let op = "spsolve_triangular";
    let (c, b) = prepare(op, &a.as_csr()?, b)?;
    if !unit_diagonal {
        if let Some(row) = super::pattern::first_zero_diagonal(&c)? {
            return Err(Error::LinAlg {
                op,
                detail: format!(
                    "the triangular matrix is singular: its diagonal is zero at row {row}"
                ),
            });
        }
    }
    let be = crate::backend::on(op, b.device())?;
    let triangle = Triangle {
        lower,
        unit_diagonal,
        adjoint: false,
    };
    let solver = be.csr_triangular(op, &c.view(), triangle)?;
    by_columns(op, &b, |col| {
        let r = solver.solve(op, col.view())?;
        Ok(Array::from_parts(
            r,
            Layout::contiguous(col.shape()),
            col.dtype(),
        ))
    })
}

/// Which system [`SparseLu::solve_trans`] solves (SciPy's `trans`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trans {
    /// `A x = b` (`'N'`).
    N,
    /// `A^T x = b` (`'T'`).
    T,
    /// `A^H x = b` (`'H'`; the same as `T` for real matrices).
    H,
}

/// A square matrix's LU factorization kept for repeated solves (`splu(A)`,
/// `factorized(A)`; SciPy's `SuperLU`), factorized once: faer's sparse LU
/// (fill-reducing ordering, partial pivoting). On the GPU the factors live
/// on the host (cuSOLVER keeps no sparse factorization), and each solve
/// takes b there and x back through the counted host round trip
/// (`cp::cuda::host_fallbacks()` shows it).
#[derive(Clone)]
pub struct SparseLu {
    c: Compressed,
    factor: Rc<dyn SparseFactor>,
}

impl std::fmt::Debug for SparseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseLu")
            .field("shape", &self.shape())
            .field("nnz", &self.nnz())
            .finish()
    }
}

impl SparseLu {
    /// `A^-1 b` for `b` of shape (n,) or (n, k).
    pub fn solve(&self, b: &Array) -> Result<Array> {
        self.solve_trans(b, Trans::N)
    }

    /// `A^-1 b`, `A^-T b` or `A^-H b` for `b` of shape (n,) or (n, k)
    /// (`SuperLU.solve(b, trans)`).
    ///
    /// ```
    /// use cuprite as cp;
    /// use cp::sparse::linalg::{splu, Trans};
    /// let a = cp::sparse::CsrMatrix::from_dense(&cp::asarray(vec![vec![2.0, 1.0], vec![0.0, 4.0]])?)?;
    /// let lu = splu(&a)?;
    /// let x = lu.solve_trans(&cp::asarray(vec![2.0, 5.0])?, Trans::T)?; // [[2, 0], [1, 4]] x = b
    /// assert_eq!(x.to_vec::<f64>()?, vec![1.0, 1.0]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn solve_trans(&self, b: &Array, trans: Trans) -> Result<Array> {
        let op = "splu.solve";
        // A^H x = b is A^T conj(x) = conj(b).
        let conj = trans == Trans::H && (b.dtype().is_complex() || self.c.dtype().is_complex());
        let b = if conj { crate::conj(b)? } else { b.clone() };
        let (c, b) = prepare(op, &CsrMatrix { c: self.c.clone() }, &b)?;
        let x = if c.dtype() == self.c.dtype() {
            let r = self.factor.solve(op, b.view(), trans != Trans::N)?;
            Array::from_parts(r, Layout::contiguous(b.shape()), b.dtype())
        } else {
            // A complex b for a real A: the promoted matrix is factorized again.
            let c = if trans == Trans::N {
                c
            } else {
                let t = CsrMatrix { c }.tocsc()?.transpose().c;
                t.map_host(op, true, Canonical(false))?
            };
            let pivot_tol = pivot_tolerance(&c, b.dtype())?;
            by_columns(op, &b, |col| solve_once(op, &c, col, pivot_tol))?
        };
        if trans == Trans::N {
            check_conditioning(op, &self.c, &b, &x)?;
        }
        if conj {
            crate::conj(&x)
        } else {
            Ok(x)
        }
    }

    /// The number of stored entries of A (faer does not expose the counts
    /// of L and U).
    pub fn nnz(&self) -> usize {
        self.c.nnz()
    }

    /// (n, n).
    pub fn shape(&self) -> (usize, usize) {
        (self.c.major, self.c.minor)
    }
}

/// `splu(A)`: the LU factorization of square sparse `A`, for
/// [`SparseLu::solve`]; a singular matrix is an error.
pub fn splu(a: &impl AsCsr) -> Result<SparseLu> {
    let op = "splu";
    let a = a.as_csr()?;
    require_square(op, a.shape())?;
    let dt = check_value_dtype(op, value_dtype(a.dtype()))?;
    let mut c = if a.dtype() == dt {
        a.c.clone()
    } else {
        a.c.astype(dt)?
    };
    if !c.sorted {
        c = c.map_host(op, true, Canonical(false))?;
    }
    let be = crate::backend::on(op, a.device())?;
    let factor = be.csr_lu_factor(op, &c.view())?;
    Ok(SparseLu { c, factor })
}

/// `factorized(A)`: a function solving `A x = b`.
pub fn factorized(a: &impl AsCsr) -> Result<impl Fn(&Array) -> Result<Array>> {
    let lu = splu(a)?;
    Ok(move |b: &Array| lu.solve(b))
}
