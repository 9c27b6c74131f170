//! Zero-fill incomplete factorizations on the GPU: cuSPARSE's `csrilu02`
//! (ILU(0)) and `csric02` (IC(0)), the legacy API's preconditioners (the
//! generic API has none), on a copy of the matrix's values.
//!
//! Each is three calls (buffer size, analysis, factorization), with
//! `cusparseXcsr{ilu,ic}02_zeroPivot` after the analysis (a structurally
//! missing diagonal) and after the factorization (a zero pivot); that
//! query reads one int back, once per factorization. A toolkit may drop
//! these deprecated functions: their symbols are looked up first, and a
//! library without them is an `Error::MissingLibrary` naming them.

use std::ffi::c_void;

use cudarc::cusparse::sys as cs;

use super::cusparse::{check, check_csr, handle};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::cuda::kernel_gen::elementwise::copy_cast;
use crate::cuda::runtime::vendor::{ptr, Buffer};
use crate::ops::sparse::{CsrView, Incomplete};

const ILU_SYMBOLS: &[&str] = &[
    "cusparseCreateMatDescr",
    "cusparseDestroyMatDescr",
    "cusparseCreateCsrilu02Info",
    "cusparseDestroyCsrilu02Info",
    "cusparseScsrilu02_bufferSize",
    "cusparseDcsrilu02_bufferSize",
    "cusparseCcsrilu02_bufferSize",
    "cusparseZcsrilu02_bufferSize",
    "cusparseScsrilu02_analysis",
    "cusparseDcsrilu02_analysis",
    "cusparseCcsrilu02_analysis",
    "cusparseZcsrilu02_analysis",
    "cusparseScsrilu02",
    "cusparseDcsrilu02",
    "cusparseCcsrilu02",
    "cusparseZcsrilu02",
    "cusparseXcsrilu02_zeroPivot",
];

const IC_SYMBOLS: &[&str] = &[
    "cusparseCreateMatDescr",
    "cusparseDestroyMatDescr",
    "cusparseCreateCsric02Info",
    "cusparseDestroyCsric02Info",
    "cusparseScsric02_bufferSize",
    "cusparseDcsric02_bufferSize",
    "cusparseCcsric02_bufferSize",
    "cusparseZcsric02_bufferSize",
    "cusparseScsric02_analysis",
    "cusparseDcsric02_analysis",
    "cusparseCcsric02_analysis",
    "cusparseZcsric02_analysis",
    "cusparseScsric02",
    "cusparseDcsric02",
    "cusparseCcsric02",
    "cusparseZcsric02",
    "cusparseXcsric02_zeroPivot",
];

/// The cuSPARSE functions ILU(0) (`Incomplete::Lu`) or IC(0) needs.
fn symbols(kind: Incomplete) -> &'static [&'static str] {
    match kind {
        Incomplete::Lu => ILU_SYMBOLS,
        Incomplete::Cholesky => IC_SYMBOLS,
    }
}

struct MatDescr(cs::cusparseMatDescr_t);
impl Drop for MatDescr {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: made by cusparseCreateMatDescr and destroyed once.
            unsafe { cs::cusparseDestroyMatDescr(self.0) };
        }
    }
}

/// The factorization's info object (its analysis and pivot report).
enum Info {
    Lu(cs::csrilu02Info_t),
    Cholesky(cs::csric02Info_t),
}
impl Drop for Info {
    fn drop(&mut self) {
        // SAFETY: made by the matching create call and destroyed once.
        unsafe {
            match *self {
                Info::Lu(i) if !i.is_null() => {
                    cs::cusparseDestroyCsrilu02Info(i);
                }
                Info::Cholesky(i) if !i.is_null() => {
                    cs::cusparseDestroyCsric02Info(i);
                }
                _ => {}
            }
        }
    }
}

/// Calls the S, D, C or Z function of a phase for the value dtype `$dt`.
macro_rules! typed_call {
    ($dt:expr, $s:path, $d:path, $c:path, $z:path, ($($arg:expr),*)) => {
        match $dt {
            DType::Float32 => $s($($arg),*),
            DType::Float64 => $d($($arg),*),
            DType::Complex64 => $c($($arg),*),
            _ => $z($($arg),*),
        }
    };
}

/// The row cuSPARSE reports a zero pivot at, if any.
fn zero_pivot(op: &'static str, h: cs::cusparseHandle_t, info: &Info) -> Result<Option<i32>> {
    let mut position: i32 = -1;
    // SAFETY: a live handle and info; `position` is a host out-pointer (the
    // handle's default pointer mode), written after the queued work is done.
    let (call, st) = unsafe {
        match *info {
            Info::Lu(i) => (
                "cusparseXcsrilu02_zeroPivot",
                cs::cusparseXcsrilu02_zeroPivot(h, i, &mut position),
            ),
            Info::Cholesky(i) => (
                "cusparseXcsric02_zeroPivot",
                cs::cusparseXcsric02_zeroPivot(h, i, &mut position),
            ),
        }
    };
    if st == cs::cusparseStatus_t::CUSPARSE_STATUS_ZERO_PIVOT {
        return Ok(Some(position));
    }
    check(op, call, st)?;
    Ok(None)
}

/// The factor's values in a's pattern, computed on device `ordinal` (see
/// `Sparse::csr_incomplete_factor`).
pub(super) fn factor(
    ordinal: usize,
    op: &'static str,
    a: &CsrView<'_>,
    kind: Incomplete,
) -> Result<Storage> {
    crate::cuda::runtime::libs::require_hinting(
        "cusparse",
        symbols(kind),
        op,
        "this CUDA dropped the legacy incomplete factorizations csrilu02 / csric02",
    )?;
    check_csr(op, a, ordinal)?;
    let dt = a.data.dtype();
    let (n, nnz) = (a.rows, a.data.size());
    let values = Buffer::new(op, ordinal, dt, &[nnz])?;
    if n == 0 || nnz == 0 {
        return Ok(values.storage);
    }
    copy_cast(a.data, values.view())?;
    let h = handle(op, ordinal)?;
    let mut d: cs::cusparseMatDescr_t = std::ptr::null_mut();
    // SAFETY: valid out-pointer; the default descriptor is a general matrix
    // with zero-based indices, as these functions want.
    check(op, "cusparseCreateMatDescr", unsafe {
        cs::cusparseCreateMatDescr(&mut d)
    })?;
    let descr = MatDescr(d);
    let info = match kind {
        Incomplete::Lu => {
            let mut i: cs::csrilu02Info_t = std::ptr::null_mut();
            // SAFETY: valid out-pointer.
            check(op, "cusparseCreateCsrilu02Info", unsafe {
                cs::cusparseCreateCsrilu02Info(&mut i)
            })?;
            Info::Lu(i)
        }
        Incomplete::Cholesky => {
            let mut i: cs::csric02Info_t = std::ptr::null_mut();
            // SAFETY: valid out-pointer.
            check(op, "cusparseCreateCsric02Info", unsafe {
                cs::cusparseCreateCsric02Info(&mut i)
            })?;
            Info::Cholesky(i)
        }
    };
    let (m, nz) = (n as i32, nnz as i32);
    let (rp, ci) = (
        ptr(op, a.indptr)? as *const i32,
        ptr(op, a.indices)? as *const i32,
    );
    let val = values.ptr(op)? as *mut c_void;
    let policy = cs::cusparseSolvePolicy_t::CUSPARSE_SOLVE_POLICY_USE_LEVEL;
    let dd = descr.0;
    let mut size: i32 = 0;
    // SAFETY (the calls below): a live handle, descriptor and info; the
    // arrays are live device arrays of n + 1 offsets and nnz indices and
    // values of the function's type; the work buffer has the size asked for.
    let st = unsafe {
        match &info {
            Info::Lu(i) => typed_call!(
                dt,
                cs::cusparseScsrilu02_bufferSize,
                cs::cusparseDcsrilu02_bufferSize,
                cs::cusparseCcsrilu02_bufferSize,
                cs::cusparseZcsrilu02_bufferSize,
                (h, m, nz, dd, val as _, rp, ci, *i, &mut size)
            ),
            Info::Cholesky(i) => typed_call!(
                dt,
                cs::cusparseScsric02_bufferSize,
                cs::cusparseDcsric02_bufferSize,
                cs::cusparseCcsric02_bufferSize,
                cs::cusparseZcsric02_bufferSize,
                (h, m, nz, dd, val as _, rp, ci, *i, &mut size)
            ),
        }
    };
    check(op, "cusparseXcsr{ilu,ic}02_bufferSize", st)?;
    // The pool's blocks are aligned well past the 128 bytes these want.
    let work = super::cusparse::work_buffer(op, ordinal, size.max(0) as usize)?;
    let wp = work.ptr(op)? as *mut c_void;
    let st = unsafe {
        match &info {
            Info::Lu(i) => typed_call!(
                dt,
                cs::cusparseScsrilu02_analysis,
                cs::cusparseDcsrilu02_analysis,
                cs::cusparseCcsrilu02_analysis,
                cs::cusparseZcsrilu02_analysis,
                (h, m, nz, dd, val as _, rp, ci, *i, policy, wp)
            ),
            Info::Cholesky(i) => typed_call!(
                dt,
                cs::cusparseScsric02_analysis,
                cs::cusparseDcsric02_analysis,
                cs::cusparseCcsric02_analysis,
                cs::cusparseZcsric02_analysis,
                (h, m, nz, dd, val as _, rp, ci, *i, policy, wp)
            ),
        }
    };
    check(op, "cusparseXcsr{ilu,ic}02_analysis", st)?;
    if let Some(row) = zero_pivot(op, h, &info)? {
        return Err(Error::LinAlg {
            op,
            detail: format!(
                "row {row} stores no diagonal entry (a zero-fill factorization needs every diagonal entry in the pattern)"
            ),
        });
    }
    let st = unsafe {
        match &info {
            Info::Lu(i) => typed_call!(
                dt,
                cs::cusparseScsrilu02,
                cs::cusparseDcsrilu02,
                cs::cusparseCcsrilu02,
                cs::cusparseZcsrilu02,
                (h, m, nz, dd, val as _, rp, ci, *i, policy, wp)
            ),
            Info::Cholesky(i) => typed_call!(
                dt,
                cs::cusparseScsric02,
                cs::cusparseDcsric02,
                cs::cusparseCcsric02,
                cs::cusparseZcsric02,
                (h, m, nz, dd, val as _, rp, ci, *i, policy, wp)
            ),
        }
    };
    check(op, "cusparseXcsr{ilu,ic}02", st)?;
    if let Some(row) = zero_pivot(op, h, &info)? {
        let what = match kind {
            Incomplete::Lu => "has a zero pivot U[i, i]".to_string(),
            Incomplete::Cholesky => "has a zero pivot L[i, i]".to_string(),
        };
        return Err(Error::LinAlg {
            op,
            detail: format!("the incomplete factorization {what} at row {row}"),
        });
    }
    drop(work);
    Ok(values.storage)
}
