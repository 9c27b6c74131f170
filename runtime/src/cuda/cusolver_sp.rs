//! Direct sparse solves on the GPU: cuSOLVER's sparse QR (`csrlsvqr`, with
//! a reverse Cuthill-McKee reordering) on our device arrays, one handle per
//! device kept in its session.
//!
//! cuSOLVER marks its sparse API deprecated, and a future toolkit may drop
//! it: its functions are looked up before the first call, and where they are
//! missing the solve goes through the counted host round trip (faer's
//! sparse LU) with a message saying so, rather than a cudarc panic.

use std::ffi::c_void;

use cudarc::cusolver::sys as csol;
use cudarc::cusparse::sys as cspa;

use super::Handle;
use crate::backend::fallback::on_views;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::runtime::session::session;
use crate::cuda::runtime::vendor::{check_status, ordinal, ptr, upload, with_handle, Buffer};
use crate::ops::sparse::{CsrView, Sparse, SparseFactor};
use std::rc::Rc;

/// The cuSOLVER symbols the sparse solve calls.
const SYMBOLS: &[&str] = &[
    "cusolverSpCreate",
    "cusolverSpSetStream",
    "cusolverSpScsrlsvqr",
    "cusolverSpDcsrlsvqr",
    "cusolverSpCcsrlsvqr",
    "cusolverSpZcsrlsvqr",
];

/// A device's cuSOLVER sparse handle (`DeviceSession::cusolver_sp`).
pub(crate) type SolverSpHandle = Handle<csol::cusolverSpHandle_t>;

/// Whether this process's cuSOLVER has the sparse solver (looked up once).
pub(crate) fn available() -> std::result::Result<(), String> {
    use std::sync::OnceLock;
    static FOUND: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let info = crate::cuda::runtime::libs::load("cusolver");
            if info.path.is_none() {
                return Err(format!(
                    "cuSOLVER not found (tried {})",
                    info.tried.join("; ")
                ));
            }
            let missing = crate::cuda::runtime::libs::missing_symbols(&info, SYMBOLS);
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "{} lacks {} (cuSOLVER's sparse API was removed?)",
                    info.describe(),
                    missing.join(", ")
                ))
            }
        })
        .clone()
}

fn check(op: &str, call: &str, st: csol::cusolverStatus_t) -> Result<()> {
    check_status(
        op,
        call,
        st,
        csol::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS,
    )
}

struct MatDescr(cspa::cusparseMatDescr_t);
impl Drop for MatDescr {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: made by cusparseCreateMatDescr and destroyed once.
            unsafe { cspa::cusparseDestroyMatDescr(self.0) };
        }
    }
}

/// `x = A^-1 b` by sparse QR for a square CSR `a` and a contiguous 1-D `b`.
/// `A^-1 b` by cuSOLVER's sparse QR; a diagonal entry of R of at most
/// `pivot_tol` in magnitude makes the matrix singular (cuSOLVER tests
/// `|R(j,j)| <= tol` and reports the first such j; a tol of 0 would accept
/// the rounding-sized pivots of a singular matrix and return 1e15-sized noise).
fn lsvqr(op: &'static str, a: &CsrView<'_>, b: View<'_>, pivot_tol: f64) -> Result<Buffer> {
    let ord = ordinal(op, b)?;
    let dt = a.data.dtype();
    let n = a.rows;
    let x = Buffer::new(op, ord, dt, &[n])?;
    if n == 0 {
        return Ok(x);
    }
    crate::cuda::runtime::libs::require(
        "cusparse",
        &["cusparseCreateMatDescr", "cusparseDestroyMatDescr"],
        op,
    )?;
    crate::cuda::runtime::libs::require("cusolver", SYMBOLS, op)?;
    let s = session(ord)?;
    let mut descr: cspa::cusparseMatDescr_t = std::ptr::null_mut();
    // SAFETY: `descr` is a valid out-pointer.
    check_status(
        op,
        "cusparseCreateMatDescr",
        unsafe { cspa::cusparseCreateMatDescr(&mut descr) },
        cspa::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS,
    )?;
    let descr = MatDescr(descr);
    let create = || {
        let mut h: csol::cusolverSpHandle_t = std::ptr::null_mut();
        // SAFETY: out pointer valid; the device's context is current.
        check(op, "cusolverSpCreate", unsafe {
            csol::cusolverSpCreate(&mut h)
        })?;
        Ok(h)
    };
    // SAFETY: a live handle and this context's current stream.
    let bind = |h, stream| {
        check(op, "cusolverSpSetStream", unsafe {
            csol::cusolverSpSetStream(h, stream as csol::cudaStream_t)
        })
    };
    let (nnz, rp, ci, val) = (
        a.data.size() as i32,
        ptr(op, a.indptr)? as *const i32,
        ptr(op, a.indices)? as *const i32,
        ptr(op, a.data)? as *const c_void,
    );
    let (bp, xp) = (ptr(op, b)? as *const c_void, x.ptr(op)? as *mut c_void);
    let m = n as i32;
    // Symmetric reverse Cuthill-McKee reordering keeps the QR's fill down.
    let reorder = 1;
    let d = descr.0 as csol::cusparseMatDescr_t;
    let mut singularity: i32 = -1;
    // The single-precision functions take the tolerance as f32.
    let tol = pivot_tol;
    let tol_f32 = pivot_tol as f32;
    with_handle(s, &s.cusolver_sp, create, bind, |h| {
        // SAFETY: the arrays are live device buffers of the lengths given
        // (n + 1 offsets, nnz indices and values, n entries of b and x) in
        // the dtype of the function called; the call blocks until done.
        let st = unsafe {
            match dt {
                DType::Float32 => csol::cusolverSpScsrlsvqr(
                    h,
                    m,
                    nnz,
                    d,
                    val as _,
                    rp,
                    ci,
                    bp as _,
                    tol_f32,
                    reorder,
                    xp as _,
                    &mut singularity,
                ),
                DType::Float64 => csol::cusolverSpDcsrlsvqr(
                    h,
                    m,
                    nnz,
                    d,
                    val as _,
                    rp,
                    ci,
                    bp as _,
                    tol,
                    reorder,
                    xp as _,
                    &mut singularity,
                ),
                DType::Complex64 => csol::cusolverSpCcsrlsvqr(
                    h,
                    m,
                    nnz,
                    d,
                    val as _,
                    rp,
                    ci,
                    bp as _,
                    tol_f32,
                    reorder,
                    xp as _,
                    &mut singularity,
                ),
                _ => csol::cusolverSpZcsrlsvqr(
                    h,
                    m,
                    nnz,
                    d,
                    val as _,
                    rp,
                    ci,
                    bp as _,
                    tol,
                    reorder,
                    xp as _,
                    &mut singularity,
                ),
            }
        };
        check(op, "cusolverSpXcsrlsvqr", st)
    })?;
    if singularity >= 0 {
        return Err(Error::LinAlg {
            op,
            detail: format!(
                "the matrix is singular (cuSOLVER's QR found a zero pivot at row {singularity})"
            ),
        });
    }
    Ok(x)
}

/// The direct solves of the Sparse family (called from `cusparse`'s impl).
pub(crate) fn csr_solve(
    ordinal: usize,
    op: &'static str,
    a: &CsrView<'_>,
    b: View<'_>,
    pivot_tol: f64,
) -> Result<Storage> {
    match available() {
        Ok(()) if b.ndim() == 1 => Ok(lsvqr(op, a, b, pivot_tol)?.storage),
        // No sparse solver in this cuSOLVER (or several right-hand sides):
        // the host's sparse LU, counted.
        _ => {
            let arrays = [a.indptr, a.indices, a.data, b];
            let r = on_views(op, &arrays, |cpu, h| {
                let ha = CsrView {
                    indptr: h[0],
                    indices: h[1],
                    data: h[2],
                    ..*a
                };
                cpu.csr_solve(op, &ha, h[3], pivot_tol)
            })?;
            upload(op, ordinal, &r, a.data.dtype())
        }
    }
}

/// `splu`'s factorization on the GPU: cuSOLVER's sparse API has no
/// factorization it keeps (`csrlsvqr` factors and solves in one call), so
/// the host's sparse LU (faer) is built once from a copy of A, and each
/// solve takes b to the host and x back: counted host round trips.
pub(crate) fn csr_lu_factor(
    ordinal: usize,
    op: &'static str,
    a: &CsrView<'_>,
) -> Result<Rc<dyn SparseFactor>> {
    let arrays = [a.indptr, a.indices, a.data];
    let host = on_views(op, &arrays, |cpu, h| {
        let ha = CsrView {
            indptr: h[0],
            indices: h[1],
            data: h[2],
            ..*a
        };
        cpu.csr_lu_factor(op, &ha)
    })?;
    Ok(Rc::new(HostFactor {
        host,
        ordinal,
        dtype: a.data.dtype(),
    }))
}

/// A host factorization serving solves of device vectors.
struct HostFactor {
    host: Rc<dyn SparseFactor>,
    ordinal: usize,
    dtype: DType,
}

impl SparseFactor for HostFactor {
    fn solve(&self, op: &'static str, b: View<'_>, transpose: bool) -> Result<Storage> {
        let r = on_views(op, &[b], |_, h| self.host.solve(op, h[0], transpose))?;
        upload(op, self.ordinal, &r, self.dtype)
    }
}
