//! Zero-fill incomplete factorizations as preconditioners: ILU(0) (`ilu0`)
//! and incomplete Cholesky IC(0) (`ic0`).
//!
//! SciPy's `spilu` is SuperLU's threshold ILU (`drop_tol`, `fill_factor`);
//! what cuSPARSE offers on the GPU, and CuPy's `spilu(A, fill_factor=1)`
//! wraps, is the zero-fill kind: the factors keep exactly A's pattern. So
//! these are named for what they compute. GPU: cuSPARSE's `csrilu02` /
//! `csric02` factorize, and each application of the preconditioner is two
//! SpSV triangular solves, analysed once when the factors are made, with
//! no host round trip. CPU: the same factorizations written over the CSR
//! pattern (`cpu/sparse_ilu.rs`) and row substitutions.

use std::ops::Deref;
use std::rc::Rc;

use crate::api::sparse::linalg::direct::AsCsr;
use crate::api::sparse::linalg::operator::{IntoOperator, LinearOperator};
use crate::api::sparse::linalg::options::require_square;
use crate::api::sparse::linalg::pattern::{
    first_non_finite_row, first_row_without_diagonal, lower_triangle,
};
use crate::api::sparse::{Canonical, Compressed, CsrMatrix};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{promote_types, DType};
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::ops::sparse::{Incomplete, Triangle, TriangularSolver};

/// The zero-fill incomplete LU factorization `A ~ L U` of a square sparse
/// matrix ([`ilu0`]), usable as a solver's preconditioner: it dereferences
/// to the [`LinearOperator`] `x -> U^-1 L^-1 x`, so
/// `SolveOptions::new().m(&ilu)` takes it as `M`.
#[derive(Clone)]
pub struct IncompleteLu {
    lu: CsrMatrix,
    operator: LinearOperator<'static>,
}

/// The zero-fill incomplete Cholesky factorization `A ~ L L^H` of a
/// Hermitian positive definite sparse matrix ([`ic0`]); as a preconditioner
/// it dereferences to the [`LinearOperator`] `x -> L^-H L^-1 x`.
#[derive(Clone)]
pub struct IncompleteCholesky {
    l: CsrMatrix,
    operator: LinearOperator<'static>,
}

impl IncompleteLu {
    /// The factors in A's pattern, as cuSPARSE's `csrilu02` leaves them:
    /// `L - I` below the diagonal (L's unit diagonal is not stored) and `U`
    /// on and above it.
    pub fn lu(&self) -> &CsrMatrix {
        &self.lu
    }
    /// The preconditioner `M = (L U)^-1` as an operator.
    pub fn operator(&self) -> &LinearOperator<'static> {
        &self.operator
    }
    /// `(L U)^-1 b` for `b` of shape (n,).
    pub fn solve(&self, b: &Array) -> Result<Array> {
        solve_checked("ilu0.solve", &self.operator, b)
    }
}

impl IncompleteCholesky {
    /// The lower-triangular factor `L` (CSR, in the pattern of A's lower triangle).
    pub fn l(&self) -> &CsrMatrix {
        &self.l
    }
    /// The preconditioner `M = (L L^H)^-1` as an operator.
    pub fn operator(&self) -> &LinearOperator<'static> {
        &self.operator
    }
    /// `(L L^H)^-1 b` for `b` of shape (n,).
    pub fn solve(&self, b: &Array) -> Result<Array> {
        solve_checked("ic0.solve", &self.operator, b)
    }
}

impl Deref for IncompleteLu {
    type Target = LinearOperator<'static>;
    fn deref(&self) -> &LinearOperator<'static> {
        &self.operator
    }
}
impl Deref for IncompleteCholesky {
    type Target = LinearOperator<'static>;
    fn deref(&self) -> &LinearOperator<'static> {
        &self.operator
    }
}
impl<'a> IntoOperator<'a> for &IncompleteLu {
    fn into_operator(self) -> Result<LinearOperator<'a>> {
        Ok(self.operator.clone())
    }
}
impl<'a> IntoOperator<'a> for &IncompleteCholesky {
    fn into_operator(self) -> Result<LinearOperator<'a>> {
        Ok(self.operator.clone())
    }
}

impl std::fmt::Debug for IncompleteLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (n, _) = self.lu.shape();
        write!(f, "<{n}x{n} ILU(0) with {} stored entries>", self.lu.nnz())
    }
}
impl std::fmt::Debug for IncompleteCholesky {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (n, _) = self.l.shape();
        write!(f, "<{n}x{n} IC(0) with {} stored entries>", self.l.nnz())
    }
}

/// Incomplete LU with zero fill, ILU(0), of square sparse `A`: `L U ~ A`
/// with L unit lower and U upper triangular, both in A's pattern (CuPy's
/// `spilu(A, fill_factor=1)`; cuSPARSE `csrilu02` on the GPU). No
/// pivoting: every diagonal entry must be stored, and a zero pivot is an
/// error naming its row.
///
/// ```
/// use cuprite as cp;
/// use cp::sparse::linalg::{gmres, ilu0, SolveOptions};
/// let a = cp::sparse::CsrMatrix::from_dense(&cp::asarray(vec![
///     vec![4.0f64, -1.0, 0.0], vec![-2.0, 4.0, -1.0], vec![0.0, -2.0, 4.0]])?)?;
/// let m = ilu0(&a)?; // tridiagonal: ILU(0) is the exact LU
/// let b = cp::ones(3, cp::f64)?;
/// let r = gmres(&a, &b, SolveOptions::new().m(&m))?;
/// assert!(r.converged && r.iterations <= 1);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn ilu0(a: &impl AsCsr) -> Result<IncompleteLu> {
    let op = "ilu0";
    let c = checked(op, a)?;
    let lu = factor(op, &c, Incomplete::Lu)?;
    let lower = prepare(op, &lu, true, true, false)?;
    let upper = prepare(op, &lu, false, false, false)?;
    let operator = preconditioner(op, &lu, vec![lower, upper]);
    Ok(IncompleteLu {
        lu: CsrMatrix { c: lu },
        operator,
    })
}

/// Incomplete Cholesky with zero fill, IC(0), of Hermitian positive
/// definite sparse `A`: `L L^H ~ A` with L lower triangular in the pattern
/// of A's lower triangle (cuSPARSE `csric02` on the GPU). Only the lower
/// triangle of A is read. A pivot that is not positive (A not positive
/// definite enough for IC(0)) is an error naming its row.
///
/// ```
/// use cuprite as cp;
/// use cp::sparse::linalg::{cg, ic0, SolveOptions};
/// let off = cp::asarray(vec![-1.0f64; 3])?;
/// let a = cp::sparse::diags(&[&off, &cp::asarray(vec![4.0f64; 4])?, &off], &[-1, 0, 1], Some((4, 4)), None)?;
/// let m = ic0(&a)?;
/// let r = cg(&a, &cp::ones(4, cp::f64)?, SolveOptions::new().m(&m))?;
/// assert!(r.converged);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn ic0(a: &impl AsCsr) -> Result<IncompleteCholesky> {
    let op = "ic0";
    let c = checked(op, a)?;
    let lower = lower_triangle(&c)?;
    let l = factor(op, &lower, Incomplete::Cholesky)?;
    let forward = prepare(op, &l, true, false, false)?;
    let backward = prepare(op, &l, true, false, true)?;
    let operator = preconditioner(op, &l, vec![forward, backward]);
    Ok(IncompleteCholesky {
        l: CsrMatrix { c: l },
        operator,
    })
}

/// A's compressed rows, square, sorted and without duplicates (an
/// unsorted matrix is put in canonical form through the host, counted),
/// with every diagonal entry stored.
fn checked(op: &'static str, a: &impl AsCsr) -> Result<Compressed> {
    let a = a.as_csr()?;
    require_square(op, a.shape())?;
    let c = if a.c.sorted {
        a.c
    } else {
        a.c.map_host(op, true, Canonical(false))?
    };
    if let Some(row) = first_row_without_diagonal(&c)? {
        return Err(Error::LinAlg {
            op,
            detail: format!(
                "row {row} stores no diagonal entry (a zero-fill factorization needs every diagonal entry in the pattern)"
            ),
        });
    }
    Ok(c)
}

/// The backend's zero-fill factorization of `c`, in c's pattern; values
/// that are not finite (a breakdown without an exact zero pivot) are an
/// error naming the first row holding one.
fn factor(op: &'static str, c: &Compressed, kind: Incomplete) -> Result<Compressed> {
    let be = crate::backend::on(op, c.data.device())?;
    let values = be.csr_incomplete_factor(op, &c.view(), kind)?;
    let values = Array::from_parts(values, Layout::contiguous(&[c.nnz()]), c.dtype());
    if let Some(row) = first_non_finite_row(c, &values)? {
        return Err(Error::LinAlg {
            op,
            detail: format!(
                "the incomplete factorization broke down at row {row} (its values are not finite{})",
                if kind == Incomplete::Cholesky {
                    ": the matrix is not positive definite enough for IC(0)"
                } else {
                    ""
                }
            ),
        });
    }
    Ok(c.with_data(values))
}

fn prepare(
    op: &'static str,
    c: &Compressed,
    lower: bool,
    unit_diagonal: bool,
    adjoint: bool,
) -> Result<Rc<dyn TriangularSolver>> {
    let be = crate::backend::on(op, c.data.device())?;
    be.csr_triangular(
        op,
        &c.view(),
        Triangle {
            lower,
            unit_diagonal,
            adjoint,
        },
    )
}

/// The operator applying the triangular solves `steps` in order.
fn preconditioner(
    op: &'static str,
    c: &Compressed,
    steps: Vec<Rc<dyn TriangularSolver>>,
) -> LinearOperator<'static> {
    let (n, dtype, device) = (c.major, c.dtype(), c.data.device());
    LinearOperator::new((n, n), dtype, move |x| apply(op, &steps, dtype, device, x))
        .with_device(device)
}

/// `steps` applied to the vector `x` in the factors' dtype; the result has
/// the dtype of `x` promoted with theirs (a complex `x` through real
/// factors: its real and imaginary parts apart).
fn apply(
    op: &'static str,
    steps: &[Rc<dyn TriangularSolver>],
    dtype: DType,
    device: Device,
    x: &Array,
) -> Result<Array> {
    let xd = x.dtype();
    if !(xd.is_integer() || xd.is_inexact()) || xd == DType::Float16 {
        return Err(Error::DType {
            op,
            detail: format!("the preconditioner applies to float32, float64, complex64 or complex128 vectors (or integers), not {xd}"),
        });
    }
    if x.device() != device {
        return Err(Error::DeviceMismatch {
            op,
            a: device.to_string(),
            b: x.device().to_string(),
        });
    }
    if xd.is_complex() && !dtype.is_complex() {
        let re = apply(op, steps, dtype, device, &crate::real(x)?)?;
        let im = apply(op, steps, dtype, device, &crate::imag(x)?)?;
        let j = crate::api::operand::Operand::Scalar(num_complex::Complex64::new(0.0, 1.0).into());
        return crate::add(&re, crate::multiply(&im, j)?)?.astype(xd);
    }
    let n = x.size();
    let mut v = x.astype(dtype)?.ascontiguousarray()?;
    for s in steps {
        let r = s.solve(op, v.view())?;
        v = Array::from_parts(r, Layout::contiguous(&[n]), dtype);
    }
    let out = promote_types(xd, dtype);
    let out = if out.is_inexact() { out } else { dtype };
    if out == dtype {
        Ok(v)
    } else {
        v.astype(out)
    }
}

/// `M b` for a vector `b` of the operator's length.
fn solve_checked(op: &'static str, m: &LinearOperator<'_>, b: &Array) -> Result<Array> {
    let n = m.shape().0;
    if b.shape() != [n] {
        return Err(Error::shape(
            op,
            format!(
                "b must have shape ({n},) for factors of shape ({n}, {n}), not {}",
                fmt_shape(b.shape())
            ),
        ));
    }
    m.matvec(b)
}
