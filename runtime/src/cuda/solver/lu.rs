//! Triangular solves (cuBLAS `trsm`) and LAPACK-style LU factors
//! (cuSOLVER `getrf` / `getrs`) for `solve_triangular`, `lu_factor` and
//! `lu_solve`.

use super::{bad_argument, c_copy, f_copy, getrf, getrs, read_info};
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::view::View;
use crate::cuda::runtime::vendor::{ptr, session_of, Buffer};
use crate::ops::linalg::{Owned, Trans, Triangular};
use cudarc::cusolver::sys as cs;

/// `op(a) x = b` for one triangular `a` (n, n) and `b` (n, k).
pub(super) fn solve_triangular(a: View<'_>, b: View<'_>, how: Triangular) -> Result<Owned> {
    let op = "solve_triangular";
    let a = c_copy(op, a)?;
    let x = c_copy(op, b)?;
    crate::cuda::blas::trsm(op, a.view(), x.view(), how)?;
    Ok(x.into_owned())
}

/// getrf of `a` itself (its column-major copy): the factors, read back
/// through a transposed layout, and the 1-based int64 pivots.
pub(super) fn lu_factor(a: View<'_>) -> Result<(Owned, Owned)> {
    let op = "lu_factor";
    let s = session_of(op, a)?;
    let n = a.shape()[0];
    let f = f_copy(op, a)?;
    let ipiv = Buffer::new(op, s.info.ordinal, DType::Int64, &[n])?;
    let info = Buffer::new(op, s.info.ordinal, DType::Int32, &[1])?;
    let work = getrf(op, f.view(), ipiv.view(), info.view())?;
    // A zero pivot (info > 0) is a result, as SciPy's; the read also keeps
    // the workspaces alive until getrf is done.
    let i = read_info(&info)?;
    drop(work);
    if i < 0 {
        return Err(bad_argument(op, "getrf", i));
    }
    Ok((f.t().into_owned(), ipiv.into_owned()))
}

/// getrs with the factors `lu` (n, n), 1-based int64 pivots `piv` (n,) and
/// `b` (n, k).
pub(super) fn lu_solve(lu: View<'_>, piv: View<'_>, b: View<'_>, trans: Trans) -> Result<Owned> {
    let op = "lu_solve";
    let s = session_of(op, lu)?;
    let f = f_copy(op, lu)?;
    let ipiv = c_copy(op, piv)?;
    let x = f_copy(op, b)?;
    let info = Buffer::new(op, s.info.ordinal, DType::Int32, &[1])?;
    let trans = match trans {
        Trans::N => cs::cublasOperation_t::CUBLAS_OP_N,
        Trans::T => cs::cublasOperation_t::CUBLAS_OP_T,
        Trans::C => cs::cublasOperation_t::CUBLAS_OP_C,
    };
    getrs(op, trans, &f, ipiv.ptr(op)?, &x, ptr(op, info.view())?)?;
    let i = read_info(&info)?;
    if i != 0 {
        return Err(bad_argument(op, "getrs", i));
    }
    Ok(x.t().into_owned())
}
